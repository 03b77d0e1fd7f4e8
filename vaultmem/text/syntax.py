"""Obsidian's syntax rules that every reader shares: front matter, tags, block ids.

`parse` (the markdown reader), the ledger and prospective items all use these, so a
tag, a block id or the end of front matter is the same thing to each of them. Only the
standard library: the query and nudge paths import it without markdown-it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

# Obsidian tags: '#' not glued to a word (so not "a#b", not "##"), then
# letters, digits, '_', '-', '/'; all-digit tags are rejected in code.
TAG = re.compile(r"(?<![\w#])#([\w/-]+)")
# A URL starts where a run of scheme characters starts, so each run is read once.
_URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://\S*")
# A block id ends its line: " ^id". The same rule for notes, ledger entries and items.
BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)


def front_matter_block(lines: list[str]) -> tuple[str | None, int]:
    """Return the YAML between the '---' fences and the number of lines they span.

    The one front matter rule: a first line '---', closed by the next line that is
    '---', as Obsidian and python-frontmatter read it (YAML's document end '...' closes
    nothing). Not closed: no front matter, the lines are body text.
    """
    if lines[0].rstrip() != "---":
        return None, 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "\n".join(lines[1:i]), i + 1
    return None, 0


def find_tags(text: str) -> Iterator[tuple[re.Match, str]]:
    """(match, tag) for each tag in a run of plain text: the one tag rule.

    '#' not glued to a word or another '#' ("C#", "a#b" and "##" are not tags; "(#tag)"
    is), then letters, digits, '_', '-', '/'; lower-cased, a trailing '/' dropped; not
    all digits ("#123" is an issue number to Obsidian); never inside a URL. On a raw
    line (the ledger's and list items' text) also never escaped (`\\#x`) and never a link's
    heading target (`[see](#x)`), which markdown-it's text tokens never hold.
    """
    if "#" not in text:
        return
    if "://" in text:  # blank URLs without moving anything, so matches index `text`
        text = _URL.sub(lambda m: " " * len(m.group(0)), text)
    for match in TAG.finditer(text):
        tag = match.group(1).rstrip("/").lower()
        before = text[max(0, match.start() - 2):match.start()]
        if before.endswith("\\") or before == "](":
            continue
        if tag and not tag.replace("/", "").isdigit():
            yield match, tag


def strip_tags(text: str, keep: Callable[[str], bool] = lambda tag: False
               ) -> tuple[str, list[str]]:
    """`text` without its tags (all, or those `keep` refuses) and the tags taken out;
    "(#tag)" and "[#tag]" lose their brackets with the tag."""
    parts, taken, done = [], [], 0
    for match, tag in find_tags(text):
        if keep(tag):
            continue
        taken.append(tag)
        start, end = match.span()
        if 0 < start and end < len(text) and text[start - 1] + text[end] in ("()", "[]"):
            start, end = start - 1, end + 1
        parts += [text[done:max(start, done)], " "]
        done = end
    return "".join(parts) + text[done:], taken
