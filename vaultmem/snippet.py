"""The passage of a chunk shown with a result: markdown stripped, around the query's words.

Pure. A chunk is stored as written (headings, `**bold**`, `[[Link|label]]`); what a
reader wants beside a result is the sentence that made it match, in plain words. So
the markup is reduced to the text it shows, and the window of `limit` characters
holding the most distinct query words (stemmed, as the trigger matcher stems them) is
chosen; without any, the passage starts at the chunk's beginning.
"""

from __future__ import annotations

import re

from .trigger import STOP, WORD, stem_words

SNIPPET_CHARS = 240
_LEAD = 60  # characters of context kept before the first matching word

_RULES = (
    (re.compile(r"<!--.*?-->", re.DOTALL), " "),  # HTML comments
    (re.compile(r"%%.*?%%", re.DOTALL), " "),  # Obsidian comments
    (re.compile(r"!?\[\[([^\[\]|#^]*)(?:#[^\[\]|]*)?\|([^\[\]]*)\]\]"), r"\2"),  # [[a|b]]
    (re.compile(r"!?\[\[([^\[\]|]*)\]\]"), r"\1"),  # [[a]], [[a#h]]
    (re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*\)"), r"\1"),  # [text](url), ![alt](src)
    (re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE), ""),  # heading markers
    (re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[.\]\s+)?", re.MULTILINE), ""),  # list marks
    (re.compile(r"^\s*>\s?", re.MULTILINE), ""),  # block quotes
    (re.compile(r"(?<!\S)\^[A-Za-z0-9-]+\s*$", re.MULTILINE), ""),  # block ids
    (re.compile(r"(\*\*|__|~~|==)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # bold, strike, highlight
    (re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])"), r"\2"),  # emphasis
    (re.compile(r"`+"), ""),  # code ticks (the code itself stays)
    (re.compile(r"^\s*(?:-{3,}|\*{3,}|\|?[\s:|-]+\|[\s:|-]*)$", re.MULTILINE), " "),  # rules
)
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$", re.MULTILINE)


def _row(match: re.Match) -> str:
    """A table row as its cells, "a · b · c;": read flat, a table is otherwise word soup."""
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", match.group(1))]
    return " · ".join(c.replace("\\|", "|") for c in cells if c) + ";"


def plain(text: str) -> str:
    """Markdown reduced to the words it shows, on one line."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    text = _TABLE_ROW.sub(_row, text)
    return " ".join(text.replace("|", " ").split())


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


def _best_start(flat: str, query: str, limit: int) -> int:
    wanted = set(stem_words([w.lower() for w in WORD.findall(query)
                             if len(w) > 1 and w.lower() not in STOP]))
    if not wanted:
        return 0
    words = [(m.start(), stem) for m, stem in _stems(flat) if stem in wanted]
    if not words:
        return 0
    best, best_at = 0, 0
    for i, (at, _) in enumerate(words):  # the window opening at each match
        found = {stem for pos, stem in words[i:] if pos < at + limit - _LEAD}
        if len(found) > best:
            best, best_at = len(found), at
    if best_at <= _LEAD:
        return 0
    space = flat.find(" ", best_at - _LEAD, best_at)
    return space + 1 if space >= 0 else best_at - _LEAD


def _stems(flat: str):
    matches = list(WORD.finditer(flat))
    return zip(matches, stem_words([m.group(0).lower() for m in matches]), strict=True)
