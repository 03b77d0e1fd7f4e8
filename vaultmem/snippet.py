"""The passage of a chunk shown with a result: markdown stripped, around the query's words.

Pure. A chunk is stored as written (headings, `**bold**`, `[[Link|label]]`); what a
reader wants beside a result is the sentence that made it match, in plain words. So
the markup is reduced to the text it shows, and the window of `limit` characters
holding the most distinct query words (stemmed, as the trigger matcher stems them) is
chosen; without any, the passage starts at the chunk's beginning.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .text.words import CUE_STOP, WORD
from .trigger import stem_words

SNIPPET_CHARS = 240
_LEAD = 60  # characters of context kept before the first matching word

# Every step reads each character a bounded number of times: a chunk can be as long as
# `max_chunk_chars` allows, and a pattern that backtracks over one (a `\s*` running across
# line breaks, an opener searching to the end for a closer that never comes) took
# minutes on a few thousand backticks or asterisks. Comments and emphasis are therefore
# paired by hand, and the line rules see one line at a time.
_LINKS = (
    (re.compile(r"!?\[\[([^\[\]|#^]*)(?:#[^\[\]|]*)?\|([^\[\]]*)\]\]"), r"\2"),  # [[a|b]]
    (re.compile(r"!?\[\[([^\[\]|]*)\]\]"), r"\1"),  # [[a]], [[a#h]]
    (re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*\)"), r"\1"),  # [text](url), ![alt](src)
)
_LINE_RULES = (
    (re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]+|$)"), ""),  # heading markers
    (re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(?:\[.\][ \t]+)?|$)"), ""),  # list marks
    (re.compile(r"^[ \t]*>[ \t]?"), ""),  # block quotes
    (re.compile(r"(?<!\S)\^[A-Za-z0-9-]+[ \t]*$"), ""),  # block ids
)
_PAIRED = ("**", "__", "~~", "==")  # bold, bold, strike, highlight
_TICKS = re.compile(r"`+")  # code ticks (the code itself stays)
_RULE_CHARS = frozenset(" \t:|-")

_TABLE_ROW = re.compile(r"[ \t]*\|(.*)\|[ \t]*")  # one line, whole


def _row(match: re.Match) -> str:
    """A table row as its cells, "a · b · c;": read flat, a table is otherwise word soup."""
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", match.group(1))]
    return " · ".join(c.replace("\\|", "|") for c in cells if c) + ";"


def plain(text: str) -> str:
    """Markdown reduced to the words it shows, on one line."""
    text = _drop_between(_drop_between(text, "<!--", "-->"), "%%", "%%")
    for pattern, replacement in _LINKS:
        text = pattern.sub(replacement, text)
    lines = [_plain_line(line) for line in text.split("\n")]
    return " ".join(" ".join(lines).replace("|", " ").split())


def _drop_between(text: str, opener: str, closer: str) -> str:
    """`text` with every `opener ... closer` span (across lines) turned into a space. An
    opener never closed stays as written, and so does everything after it: no later
    opener can be closed either."""
    if opener not in text:
        return text
    parts, done = [], 0
    while (start := text.find(opener, done)) >= 0:
        end = text.find(closer, start + len(opener))
        if end < 0:
            break
        parts += [text[done:start], " "]
        done = end + len(closer)
    return "".join(parts) + text[done:]


def _plain_line(line: str) -> str:
    for pattern, replacement in _LINE_RULES:
        line = pattern.sub(replacement, line)
    for marker in _PAIRED:
        line = _unwrap(line, marker, single=False)
    for marker in "*_":
        line = _unwrap(line, marker, single=True)
    line = _TICKS.sub("", line)
    if _is_rule(line):
        return " "
    row = _TABLE_ROW.fullmatch(line)
    return _row(row) if row else line


def _is_rule(line: str) -> bool:
    """A thematic break (---, ***) or a table's delimiter row (| --- | :-: |)."""
    bare = line.strip(" \t")
    if len(bare) >= 3 and (set(bare) == {"-"} or set(bare) == {"*"}):
        return True
    return "|" in bare[1:] and set(bare) <= _RULE_CHARS


def _unwrap(line: str, marker: str, *, single: bool) -> str:
    """`line` with each `marker text marker` pair reduced to its text: the opener is
    followed by a non-space, the closer preceded by one, and a single-character marker
    (`*`, `_` emphasis) touches no word character outside the pair ("snake_case",
    "2*3*4" stay). Pairs are taken left to right, each opener with the nearest closer
    after it, in one pass over the markers' positions."""
    if marker not in line:
        return line
    at = _positions(line, marker)
    width = len(marker)
    closes = _next_closers(line, at, width, single)
    keep = [True] * len(line)
    i = 0
    while i < len(at):
        k = i + 1 if i + 1 < len(at) and at[i + 1] > at[i] + width else i + 2
        j = closes[k] if k < len(at) else -1
        if not _opens(line, at[i], width, single) or j < 0:
            i += 1
            continue
        for pos in (at[i], at[j]):
            keep[pos:pos + width] = [False] * width
        i = j + 1
    return "".join(c for c, kept in zip(line, keep, strict=True) if kept)


def _positions(line: str, marker: str) -> list[int]:
    found, pos = [], line.find(marker)
    while pos >= 0:
        found.append(pos)
        pos = line.find(marker, pos + len(marker))
    return found


def _next_closers(line: str, at: list[int], width: int, single: bool) -> list[int]:
    """For each marker position index, the first index at or after it that may close."""
    out, nearest = [-1] * len(at), -1
    for i in range(len(at) - 1, -1, -1):
        if _closes(line, at[i], width, single):
            nearest = i
        out[i] = nearest
    return out


def _opens(line: str, pos: int, width: int, single: bool) -> bool:
    after = line[pos + width:pos + width + 1]
    if not after or after.isspace():
        return False
    return not single or pos == 0 or not _wordish(line[pos - 1])


def _closes(line: str, pos: int, width: int, single: bool) -> bool:
    if pos == 0 or line[pos - 1].isspace():
        return False
    after = line[pos + width:pos + width + 1]
    return not single or not after or not _wordish(after)


def _wordish(char: str) -> bool:
    return char.isalnum() or char in "_*"


def snippet(text: str, query: str = "", limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters of `text` as plain words, around the query's words."""
    flat = plain(text)
    if len(flat) <= limit:
        return flat
    start = _best_start(flat, query, limit)
    end = start + limit - (1 if start else 0) - 1
    if end < len(flat):  # end on a word boundary
        cut = flat.rfind(" ", start, end)
        end = cut if cut > start + limit // 2 else end
    piece = flat[start:end].strip()
    return ("…" if start else "") + piece + ("…" if end < len(flat) else "")


@lru_cache(maxsize=64)
def query_stems(query: str) -> frozenset[str]:
    """The stems a snippet's window looks for: the query's content words. A query asks
    for them before its vector is ready (`rank.run_query`), so the stemmer loads while
    the model does."""
    return frozenset(stem_words([w.lower() for w in WORD.findall(query)
                                 if len(w) > 1 and w.lower() not in CUE_STOP]))


def _best_start(flat: str, query: str, limit: int) -> int:
    wanted = query_stems(query)
    if not wanted:
        return 0
    words = [(m.start(), stem) for m, stem in _stems(flat, {s[0] for s in wanted})
             if stem in wanted]
    if not words:
        return 0
    best_at = _densest_window(words, limit - _LEAD)
    if best_at <= _LEAD:
        return 0
    space = flat.find(" ", best_at - _LEAD, best_at)
    return space + 1 if space >= 0 else best_at - _LEAD


def _densest_window(words: list[tuple[int, str]], span: int) -> int:
    """Where the window of `span` characters opening at a matching word holds the most
    distinct words, the first such; two pointers, so a word found thousands of times
    costs no more than once per occurrence."""
    best, best_at, end = 0, words[0][0], 0
    inside: dict[str, int] = {}
    for at, stem in words:
        while end < len(words) and words[end][0] < at + span:
            inside[words[end][1]] = inside.get(words[end][1], 0) + 1
            end += 1
        if len(inside) > best:
            best, best_at = len(inside), at
        inside[stem] -= 1  # the window moves past this word
        if not inside[stem]:
            del inside[stem]
    return best_at


def _stems(flat: str, initials: set[str]):
    """(match, stem) of the words of `flat` whose stem may begin with one of `initials`.

    A Snowball English stem begins with its word's first letter (the algorithm changes
    only suffixes, and its exceptional forms keep the first letter: tests/test_snippet.py
    checks it over the model's vocabulary), so a word whose first letter is not among the
    wanted stems' cannot match, and is not stemmed: the pure-Python stemmer is most of the
    time ten snippets take on a cold query."""
    matches = [(m, word) for m in WORD.finditer(flat)
               if (word := m.group(0).lower())[:1] in initials]
    return zip((m for m, _ in matches), stem_words([w for _, w in matches]), strict=True)
