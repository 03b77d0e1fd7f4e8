"""Growth tests: doubling the input must not quadruple the work.

Absolute timings belong in scripts/ (bench_ledger.py prints them); these tests only
compare the same code on inputs of two sizes, with margins wide enough that a busy
machine cannot fail them: linear code grows about 8x when its input grows 8x, quadratic
code 64x, and the bound sits at 24x. Time is CPU time of this process, taken in turns
(small, large, small, large...), so other processes on the machine barely count.
"""

from __future__ import annotations

import gc
import time
from datetime import date

import pytest

from vaultmem.ledger import parse_ledger
from vaultmem.text.parse import parse_note

from .ledger_reference import pairs_compared, reworded
from .test_hardening import load_script

FACTOR = 8
BOUND = 24.0

# Repeated units that made a single task line parse in quadratic time, and their kin.
UNITS = ["[a:: ", "(k:: ", "#a ", "[a:: b] ", "📅 ", "`", "``a`", "[[a]]", "[[a]] x",
         "when a ", "[", "(", "[[", "^a ", "#1", "a" + " " * 50, "[a" + " " * 50]


def growth(fn, make, n: int, repeat: int = 3) -> float:
    """How much more CPU time fn takes on make(FACTOR * n) than on make(n)."""
    inputs = (make(n), make(FACTOR * n))
    best = [float("inf"), float("inf")]
    gc.collect()
    gc.disable()  # a collection landing in one run would skew it
    try:
        for _ in range(repeat):
            for i, arg in enumerate(inputs):
                start = time.process_time()
                fn(arg)
                best[i] = min(best[i], time.process_time() - start)
    finally:
        gc.enable()
    return best[1] / max(best[0], 1e-6)


@pytest.mark.parametrize("unit", UNITS)
def test_one_task_line_parses_in_linear_time(unit):
    n = max(1, 6_000 // len(unit))
    ratio = growth(parse_ledger, lambda k: "- [ ] task " + unit * k, n)
    assert ratio < BOUND, f"{unit!r}: {FACTOR}x the line took {ratio:.1f}x the time"


@pytest.mark.parametrize("unit", UNITS)
def test_one_note_line_parses_in_linear_time(unit):
    n = max(1, 6_000 // len(unit))
    ratio = growth(lambda text: parse_note(text, "x.md"), lambda k: "- [ ] task " + unit * k, n)
    assert ratio < BOUND, f"{unit!r}: {FACTOR}x the line took {ratio:.1f}x the time"


def _compared_pairs(monkeypatch, n: int) -> int:
    """How many pairs the fuzzy stage looks at for a ledger of n entries with every one
    reworded (`pairs_compared`)."""
    from vaultmem import ledger_reconcile

    before, after = reworded(load_script("bench_ledger"), n)
    known = [ledger_reconcile.Known(f"e{i}", e) for i, e in enumerate(before)]
    return pairs_compared(monkeypatch, lambda: ledger_reconcile._match(known, after))


def test_identity_matching_compares_a_near_linear_number_of_pairs(monkeypatch):
    small = _compared_pairs(monkeypatch, 500)
    large = _compared_pairs(monkeypatch, FACTOR * 500)
    assert large / small < BOUND, f"{FACTOR}x the entries, {large / small:.1f}x the pairs"


# -- every reader of a note, on adversarial input ----------------------------------------
#
# Repeated units that made a reader of a note super-linear (snippet: an unclosed `<!--`
# or `**` searched to the end from each opener, a `\s*` ran across every line break of
# "```" lines; Form: the same for `<!--`), and their kin: brackets, backticks, `%%`,
# `<!--`, `|`, nested lists and quotes.
ADVERSARIAL = ["[", "[[", "![", "[a", "[x](", "](", "`", "``a", "%%", "%% x ", "<!--",
               "<!-- a ", "|", "| a |\n", "|\n", "*", "**", "**a ", "*a ", "_", "==", "~~",
               "- ", "> ", "```\n", "~~~\n", "\n", " \n", "-\n", "#", "#a ", "&#91;", "<a ",
               "[a:: ", "a [\n", "  - x\n"]


def _readers():
    from vaultmem import form, snippet
    from vaultmem.text import parse, syntax

    day = date(2026, 8, 15)
    return {
        "outline": parse.outline,
        "snippet": lambda text: snippet.snippet(text, "x a"),
        "form": lambda text: form.extract(text, day),
        "task line": lambda text: parse_ledger_line("- [ ] " + text),
        "tags": lambda text: syntax.strip_tags(text),
    }


def parse_ledger_line(line: str):
    from vaultmem.ledger import parse_task_line

    return parse_task_line(line)


@pytest.mark.parametrize("reader", ["outline", "snippet", "form", "task line", "tags"])
@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_every_reader_of_a_note_is_linear_on_adversarial_input(reader, unit):
    """Before the fix: snippet grew 60x for `<!--`, `**a` and `*a`, 670x for "```" lines;
    Form 44x for `<!--`."""
    read = _readers()[reader]
    n = max(1, 3_000 // len(unit))
    ratio = growth(read, lambda k: "x " + unit * k, n, repeat=2)
    assert ratio < BOUND, f"{reader} {unit!r}: {FACTOR}x the text took {ratio:.1f}x the time"


def test_a_deeply_nested_list_parses_in_linear_time():
    def nested(k: int) -> str:
        return "".join("  " * (i % 60) + "- item\n" for i in range(k))

    ratio = growth(parse_note_text, nested, 300, repeat=2)
    assert ratio < BOUND, f"{FACTOR}x the lines took {ratio:.1f}x the time"


def parse_note_text(text: str):
    return parse_note(text, "x.md")


def test_snippet_window_is_linear_in_the_matches():
    """The densest window was found by looking, from each match, at every later one."""
    from vaultmem.snippet import snippet

    ratio = growth(lambda text: snippet(text, "valve plumber"),
                   lambda k: "the valve and the plumber " * k, 400, repeat=2)
    assert ratio < BOUND, f"{FACTOR}x the matches took {ratio:.1f}x the time"


def _label_steps(text: str) -> int:
    """How many tokens markdown-it skips while looking for link labels' ends in `text`
    (counted, not timed: each is one pass over every inline rule)."""
    from markdown_it.parser_inline import ParserInline

    from vaultmem.text import parse

    calls = [0]
    real = ParserInline.skipToken

    def counted(self, state):
        calls[0] += 1
        return real(self, state)

    ParserInline.skipToken = counted
    try:
        parse.outline(text)
    finally:
        ParserInline.skipToken = real
    return calls[0]


@pytest.mark.parametrize("make", [
    lambda n: "[" * n, lambda n: "[" * n + "]", lambda n: "[" * n + "](x.md)",
    lambda n: "![" * n, lambda n: "[" * n + "]" * n, lambda n: "[x]: y.md\n\n" + "[" * n + "]",
    lambda n: "[a [b [c](d) e](f) g](h.md) " * n,
], ids=["[", "[ ]", "[ ](x)", "![", "balanced", "with a reference", "nested links"])
def test_a_bracket_costs_a_few_steps_whatever_the_line(make):
    """The bracket bomb: 250 KB of '[' took 48 s to read, each '[' costing about 100
    nested label searches (markdown-it's nesting limit) — linear, but minutes."""
    steps = _label_steps(make(4_000))
    assert steps <= 12 * 4_000, f"{steps / 4_000:.0f} steps per bracket"
