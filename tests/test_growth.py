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

import pytest

from vaultmem.ledger import parse_ledger
from vaultmem.parse import parse_note

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
    """How many (remembered, current) pairs the fuzzy stage looks at for a ledger of n
    entries with every one reworded. Counted, not timed: every pair looked at passes
    through `_distinct_blocks` once. The exact ratio is stubbed out: it does not decide
    which pairs are looked at, and the real one would take minutes here."""
    import difflib

    from vaultmem import ledger

    bench = load_script("bench_ledger")
    lines = bench.make_ledger(n, seed=3)
    known = [ledger.Known(f"e{i}", e) for i, e in enumerate(bench.entries(lines))]
    current = bench.entries([line for _, line in bench.reword(lines, seed=4)])
    calls = [0]
    real = ledger._distinct_blocks

    def counted(a, b):
        calls[0] += 1
        return real(a, b)

    monkeypatch.setattr(ledger, "_distinct_blocks", counted)
    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", lambda self: 0.0)
    ledger._match(known, current)
    return calls[0]


def test_identity_matching_compares_a_near_linear_number_of_pairs(monkeypatch):
    small = _compared_pairs(monkeypatch, 500)
    large = _compared_pairs(monkeypatch, FACTOR * 500)
    assert large / small < BOUND, f"{FACTOR}x the entries, {large / small:.1f}x the pairs"
