"""The ledger's task lines: a line in, a typed entry out (and back, `render_entry`).

Entries follow the Obsidian Tasks (emoji) and Dataview (``[key:: value]``) conventions so
that existing vaults work unchanged. Everything here is pure: strings and dataclasses in,
strings and dataclasses out, and ``parse_ledger`` never raises. What a line *says* lives
here; which line of today is which commitment of yesterday is `ledger_reconcile`'s.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, NamedTuple

from .text import syntax

if TYPE_CHECKING:
    from .text.parse import Link, ListItem, Outline

STATUS_BY_MARK = {" ": "open", "x": "done", "X": "done", "-": "cancelled",
                  "/": "open"}  # Tasks' "in progress" is still open
MARK_BY_STATUS = {"open": " ", "done": "x", "cancelled": "-"}

# Dataview keys of the Tasks plugin's dataview format -> LedgerEntry attribute.
DATE_KEYS = {
    "due": "due",
    "scheduled": "scheduled",
    "start": "start",
    "created": "created",
    "completion": "done_on",
    "cancelled": "cancelled_on",
}
# Tasks accepts 📆 and 🗓 as well as 📅 for the due date.
DATE_EMOJI = {
    "📅": "due",
    "📆": "due",
    "🗓": "due",
    "⏳": "scheduled",
    "🛫": "start",
    "➕": "created",
    "✅": "done_on",
    "❌": "cancelled_on",
}
RENDER_EMOJI = {"due": "📅", "scheduled": "⏳", "start": "🛫", "created": "➕",
                "done_on": "✅", "cancelled_on": "❌"}
PRIORITY_EMOJI = {"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}
# Tasks priority (emoji, or `[priority:: high]`) as a factor on the entry's importance:
# the nudge value's I (an entry without a priority is "normal", 1.0).
PRIORITY_FACTOR = {"highest": 1.5, "high": 1.25, "medium": 1.1, "normal": 1.0, "low": 0.8,
                   "lowest": 0.6}
# Single-token Tasks fields, named as in the Tasks dataview format (lower-cased).
TOKEN_EMOJI = {"🆔": "id", "⛔": "dependson", "🏁": "oncompletion"}
RECURRENCE_EMOJI = "🔁"
# Fields with a meaning of their own: they never land in LedgerEntry.fields.
RESERVED_KEYS = frozenset(DATE_KEYS) | {"when", "keywords", "project", "links"}

_ALL_EMOJI = "".join([*DATE_EMOJI, *PRIORITY_EMOJI, *TOKEN_EMOJI, RECURRENCE_EMOJI])
_VS16 = "\ufe0f"  # variation selector: "📅️" is how many keyboards type 📅

# Inline code and wiki-links are masked first so that nothing inside them is parsed.
# Every pattern below reads each character a bounded number of times: a task line may be
# as long as a note, and a pattern that backtracks over it takes minutes.
_SPAN_START_RE = re.compile(r"`+|!?\[\[")
_WIKI_SPAN_RE = re.compile(r"!?\[\[(?P<inner>[^\[\]]*+)\]\]")
_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use placeholder brackets for masked spans
_PLACEHOLDER_RE = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
# A field key: words of [\w/.-] joined by spaces or tabs, then "::". Possessive runs, so
# a failed match costs one pass over the key, never a pass per space in it.
_KEY = r"\w(?:[\w/.-]|[ \t]++(?=[\w/.-]))*+"
_FIELD_START_RE = re.compile(f"[\\[(]\\s*+(?P<key>{_KEY})\\s*+::")
_DATE_EMOJI_RE = re.compile(
    f"({'|'.join(map(re.escape, DATE_EMOJI))}){_VS16}?[ \\t]*([^\\s{_OPEN}{_ALL_EMOJI}]*)"
)
_PRIORITY_RE = re.compile(f"({'|'.join(map(re.escape, PRIORITY_EMOJI))}){_VS16}?")
_TOKEN_EMOJI_RE = re.compile(
    f"({'|'.join(map(re.escape, TOKEN_EMOJI))}){_VS16}?[ \\t]*([^\\s{_OPEN}{_ALL_EMOJI}]*)"
)
_RECURRENCE_RE = re.compile(
    f"{RECURRENCE_EMOJI}{_VS16}?([^#\\[\\]{_OPEN}{_ALL_EMOJI}]*)"
)
_ISO_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_WHEN_RE = re.compile(r"^when\s+([^,]+?)\s*,\s*(.+)$", re.IGNORECASE | re.DOTALL)

@dataclass(frozen=True)
class LedgerEntry:
    """One commitment: a task line of a ledger note, taken apart."""

    line: int
    raw: str
    status: str
    action: str
    condition: str | None = None
    keywords: tuple[str, ...] = ()
    due: date | None = None
    scheduled: date | None = None
    start: date | None = None
    created: date | None = None
    done_on: date | None = None
    cancelled_on: date | None = None
    links: tuple[str, ...] = ()
    project: str | None = None
    tags: tuple[str, ...] = ()
    block_id: str | None = None
    # Excluded from the hash (a dict cannot be hashed); still part of equality.
    fields: dict[str, str] = field(default_factory=dict, hash=False)

    @property
    def fires_from(self) -> date | None:
        """Start of the date window: the earliest of start, scheduled and due that is set."""
        dates = [d for d in (self.start, self.scheduled, self.due) if d is not None]
        return min(dates, default=None)


@dataclass(frozen=True)
class LedgerWarning:
    """A problem on one line of a ledger, for the user to fix."""

    line: int
    message: str


# ---------------------------------------------------------------- parsing: the document


def parse_ledger(
    text: str, outline: Outline | None = None
) -> tuple[list[LedgerEntry], list[LedgerWarning]]:
    """Parse every task line of a ledger note into entries, with warnings for bad lines.

    The task lines are the list items `parse` reads (`outline`, when the note's was
    already read, else read from ``text``): nothing in front matter, code, HTML or
    `%%` comments is an entry. Line numbers are 1-based over the whole text, front
    matter included. Never raises.
    """
    if outline is None:
        from .text import parse  # the query and nudge paths import this module, not markdown-it

        outline = parse.outline(text)
    entries: list[LedgerEntry] = []
    warnings: list[LedgerWarning] = []
    tasks = [item for item in outline.items if item.mark is not None]
    index: list[int | None] = []  # task -> its entry's index, None for a skipped line
    for item in tasks:
        entry, problems = _parse_task(item)
        warnings.extend(problems)
        index.append(None if entry is None else len(entries))
        if entry is not None:
            entries.append(entry)
    sub_links: dict[int, list[str]] = {}
    for task, targets in _sub_links(tasks, outline.links).items():
        if index[task] is not None:
            sub_links[index[task]] = targets
    return _with_sub_links(entries, sub_links), warnings + _duplicate_blocks(entries)


def _sub_links(tasks: Sequence[ListItem], links: Sequence[Link]) -> dict[int, list]:
    """{task: the wiki-links on the lines nested under it}, each line given to the
    innermost task holding it. A task's own line is its own: never a sub-line."""
    by_line: dict[int, list[str]] = {}
    for link in links:
        if link.kind in ("wiki", "embed") and link.target:
            by_line.setdefault(link.line, []).append(link.target)
    lines = sorted(by_line)
    owner: dict[int, int] = {}
    for task, item in enumerate(tasks):  # outer before inner: the inner one wins
        for line in lines[bisect_right(lines, item.line):bisect_right(lines, item.end)]:
            owner[line] = task
    for item in tasks:
        owner.pop(item.line, None)
    out: dict[int, list[str]] = {}
    for line in lines:
        if line in owner:
            out.setdefault(owner[line], []).extend(by_line[line])
    return out


def _duplicate_blocks(entries: list[LedgerEntry]) -> list[LedgerWarning]:
    """A block id names one entry: the second line carrying it gets a warning (and, in
    `ledger_reconcile.reconcile`, an identity of its own)."""
    first: dict[str, int] = {}
    out = []
    for entry in entries:
        if entry.block_id is None:
            continue
        if entry.block_id in first:
            out.append(LedgerWarning(entry.line, f"block id ^{entry.block_id} is already on "
                                     f"line {first[entry.block_id]}: give this entry its own"))
        else:
            first[entry.block_id] = entry.line
    return out


def _with_sub_links(
    entries: list[LedgerEntry], sub_links: dict[int, list[str]]
) -> list[LedgerEntry]:
    return [
        replace(entry, links=_dedupe([*entry.links, *sub_links[index]]))
        if index in sub_links
        else entry
        for index, entry in enumerate(entries)
    ]


def _dedupe(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


# ---------------------------------------------------------------- parsing: one task line


@dataclass(frozen=True)
class _Span:
    """A masked piece of a line: inline code or a wiki-link."""

    raw: str  # as written
    display: str  # what a reader sees: the code as written, a link's label or target
    target: str | None  # the link's note part, None for code


@dataclass
class _Draft:
    """A task line being taken apart; whatever is consumed leaves ``text``."""

    line: int
    text: str
    spans: list[_Span]
    fields: dict[str, str] = field(default_factory=dict)  # masked values, first one wins
    dates: dict[str, date] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    warnings: list[LedgerWarning] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(LedgerWarning(self.line, message))

    def display(self, masked: str) -> str:
        """Masked text back to what a reader sees, whitespace collapsed."""
        text = _PLACEHOLDER_RE.sub(lambda m: self.spans[int(m.group(1))].display, masked)
        return " ".join(text.split())

    def raw(self, masked: str) -> str:
        return _PLACEHOLDER_RE.sub(lambda m: self.spans[int(m.group(1))].raw, masked)


_TASK_LINE = re.compile(r"[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[(.)\](?:[ \t]+|$)")


class _Line(NamedTuple):
    """A task line read on its own: what `_parse_task` needs of a list item."""

    line: int
    mark: str
    text: str
    raw: str


def parse_task_line(raw: str) -> LedgerEntry | None:
    """One task line on its own (Form reads the open task lines of every note), as
    `parse_ledger` would read it, without running the markdown parser again."""
    box = _TASK_LINE.match(raw)
    if box is None:
        return None
    return _parse_task(_Line(1, box.group(1), raw[box.end():], raw))[0]


def _parse_task(item: ListItem) -> tuple[LedgerEntry | None, list[LedgerWarning]]:
    mark, number, line = item.mark or " ", item.line, item.raw
    draft = _draft(number, item.text)
    if mark not in STATUS_BY_MARK:  # Tasks lets users define their own: never drop the line
        draft.warn(f"unknown task status '[{mark}]': read as open "
                   "([ ] and [/] open, [x] done, [-] cancelled)")
    # The block id ends the line: taken first, so that no field runs on into it.
    block = syntax.BLOCK_ID.search(draft.text)
    if block:
        draft.text = draft.text[: block.start()]
    after_meta = _links_after_metadata(draft)
    for step in (_take_fields, _take_emoji, _take_tags):
        step(draft)
    # Only links still in the description: those inside field values stay shown there.
    for index in after_meta & {int(i) for i in _PLACEHOLDER_RE.findall(draft.text)}:
        _hide(draft, index)
    _drop_trailing_links(draft)
    action, condition = _action_and_condition(draft)
    if not action:
        draft.warn("task has no text left once dates, fields and tags are removed: say what to do")
        return None, draft.warnings
    entry = LedgerEntry(
        line=number, raw=line, status=STATUS_BY_MARK.get(mark, "open"), action=action,
        condition=condition, keywords=_keywords(draft), links=_links(draft),
        project=_project(draft), tags=_dedupe(draft.tags),
        block_id=block.group(1) if block else None, fields=_other_fields(draft),
        **draft.dates,
    )
    return entry, draft.warnings


_META_START_RE = re.compile(f"[{_ALL_EMOJI}]|[\\[(]\\s*+{_KEY}\\s*+::")


def _links_after_metadata(draft: _Draft) -> set[int]:
    """Links that name what an entry concerns are not words of its action.

    In the Tasks convention metadata trails the description, so wiki-links after the
    first emoji, field or tag are metadata: they stay in ``links`` but are not shown
    in the action. Returns their placeholder indexes.
    """
    meta = _META_START_RE.search(draft.text)
    tag = next(syntax.find_tags(draft.text), None)
    starts = [m.start() for m in (meta, tag and tag[0]) if m]
    if not starts:
        return set()
    return {int(i) for i in _PLACEHOLDER_RE.findall(draft.text, min(starts))}


def _drop_trailing_links(draft: _Draft) -> None:
    """A run of links ending the description is metadata too, when at least two words
    of action remain ("Replace the valve [[Bathroom]]", but not "Call [[Jo]]")."""
    start, indexes = _trailing_placeholders(draft.text)
    if not indexes:
        return
    head = draft.display(draft.text[:start])
    when = _WHEN_RE.match(head)
    head = when.group(2) if when else head
    if all(draft.spans[i].target for i in indexes) and len(head.split()) >= 2:
        for i in indexes:
            _hide(draft, i)


def _trailing_placeholders(text: str) -> tuple[int, list[int]]:
    """(where it starts, the span indexes of) the run of placeholders ending ``text``,
    whitespace between them allowed. Read backwards once: a regex searching for a run
    anchored at the end retries from every space of a long line."""
    end, start, indexes = len(text), len(text), []
    while True:
        while end > 0 and text[end - 1].isspace():
            end -= 1
        if end == 0 or text[end - 1] != _CLOSE:
            break
        opener = text.rfind(_OPEN, 0, end - 1)
        number = text[opener + 1:end - 1]
        if opener < 0 or not number.isascii() or not number.isdigit():
            break
        indexes.append(int(number))
        start = end = opener
    return start, indexes[::-1]


def _hide(draft: _Draft, index: int) -> None:
    span = draft.spans[index]
    if span.target:
        draft.spans[index] = replace(span, display="")


def _draft(number: int, body: str) -> _Draft:
    masked, spans = _mask(body)
    return _Draft(line=number, text=masked, spans=spans)


def _mask(text: str) -> tuple[str, list[_Span]]:
    """Replace inline code and wiki-links with numbered placeholders."""
    spans: list[_Span] = []
    # The placeholder brackets are private-use characters; dropping any that the user
    # typed keeps every placeholder index valid.
    clean = text.replace(_OPEN, "").replace(_CLOSE, "")
    closers = _code_closers(clean)
    parts, pos, done = [], 0, 0
    while found := _SPAN_START_RE.search(clean, pos):
        start = found.start()
        if found.group(0)[0] == "`":  # a code span, as CommonMark reads one
            end = closers.get(start)
            if end is None:  # no closing run of the same length: literal backticks
                pos = found.end()
                continue
            spans.append(_Span(clean[start:end], clean[start:end], None))
        else:
            link = _WIKI_SPAN_RE.match(clean, start)
            if link is None:
                pos = start + 1
                continue
            end = link.end()
            spans.append(_wiki_span(link))
        parts += [clean[done:start], f"{_OPEN}{len(spans) - 1}{_CLOSE}"]
        pos = done = end
    parts.append(clean[done:])
    return "".join(parts), spans


def _code_closers(text: str) -> dict[int, int]:
    """{start of a backtick run: end of the next run of exactly its length}."""
    runs = [(m.start(), m.end()) for m in re.finditer("`+", text)]
    closers, next_end = {}, {}
    for start, end in reversed(runs):
        if end - start in next_end:
            closers[start] = next_end[end - start]
        next_end[end - start] = end
    return closers


def _wiki_span(match: re.Match[str]) -> _Span:
    inner = match["inner"]
    target, _, label = inner.partition("|")
    note = target.split("#", 1)[0].strip()
    # '#', '^' and Tasks emoji in the visible text would read back as metadata.
    shown = re.sub(f"[#^{_ALL_EMOJI}]+", " ", label.strip() or target).strip()
    return _Span(match.group(0), shown, note or None)


def _take_fields(draft: _Draft) -> None:
    """Consume Dataview inline fields ``[key:: value]`` and ``(key:: value)``."""
    text, out, i = draft.text, [], 0
    closing = _closing_brackets(text)
    while i < len(text):
        start = _FIELD_START_RE.match(text, i) if text[i] in "[(" else None
        end = closing.get(i, -1) if start else -1
        if end < 0:
            out.append(text[i])
            i += 1
            continue
        _set_field(draft, " ".join(start["key"].lower().split()), text[start.end() : end])
        out.append(" ")
        i = end + 1
    draft.text = "".join(out)


def _closing_brackets(text: str) -> dict[int, int]:
    """{index of a '[' or '(': index of the bracket that closes it (same kind, nested)}.

    One pass with a stack per kind; an opener never closed is absent.
    """
    stacks: dict[str, list[int]] = {"[": [], "(": []}
    pairs: dict[int, int] = {}
    for i, char in enumerate(text):
        if char in stacks:
            stacks[char].append(i)
        elif char == "]" and stacks["["]:
            pairs[stacks["["].pop()] = i
        elif char == ")" and stacks["("]:
            pairs[stacks["("].pop()] = i
    return pairs


def _set_field(draft: _Draft, key: str, masked_value: str) -> None:
    value = masked_value.strip()
    if key in DATE_KEYS:
        if value:  # "[due:: ]" is an unfilled template, not a mistake
            _set_date(draft, DATE_KEYS[key], draft.display(value), f"in [{key}:: ]")
        return
    # `[repeat:: every week]` is the Tasks dataview format's 🔁.
    draft.fields.setdefault("recurrence" if key == "repeat" else key, value)


def _set_date(draft: _Draft, attribute: str, text: str, where: str) -> None:
    parsed = _iso_date(text)
    if parsed is None:
        draft.warn(f"bad date '{text}' {where}: use YYYY-MM-DD")
    else:
        draft.dates.setdefault(attribute, parsed)


def _iso_date(text: str) -> date | None:
    """A strict YYYY-MM-DD date, or None (fromisoformat alone also takes '20260815')."""
    if not _ISO_DATE_RE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _take_emoji(draft: _Draft) -> None:
    """Consume the Obsidian Tasks emoji fields: dates, priority, ids, recurrence."""
    draft.text = _DATE_EMOJI_RE.sub(lambda m: _emoji_date(draft, m), draft.text)
    draft.text = _PRIORITY_RE.sub(lambda m: _emoji_field(draft, "priority", m), draft.text)
    draft.text = _TOKEN_EMOJI_RE.sub(lambda m: _emoji_token(draft, m), draft.text)
    draft.text = _RECURRENCE_RE.sub(lambda m: _emoji_recurrence(draft, m), draft.text)


def _emoji_date(draft: _Draft, match: re.Match[str]) -> str:
    emoji, token = match.group(1), match.group(2)
    _set_date(draft, DATE_EMOJI[emoji], token, f"after {emoji}")
    # A word that is plainly not a date ("📅 tomorrow") stays in the action text.
    return " " if token[:1].isdigit() or not token else f" {token}"


def _emoji_field(draft: _Draft, key: str, match: re.Match[str]) -> str:
    draft.fields.setdefault(key, PRIORITY_EMOJI[match.group(1)])
    return " "


def _emoji_token(draft: _Draft, match: re.Match[str]) -> str:
    if match.group(2):
        draft.fields.setdefault(TOKEN_EMOJI[match.group(1)], match.group(2))
    return " "


def _emoji_recurrence(draft: _Draft, match: re.Match[str]) -> str:
    rule = " ".join(match.group(1).split())
    if rule:
        draft.fields.setdefault("recurrence", rule)
    return " "


def _take_tags(draft: _Draft) -> None:
    """Consume the tags, by the one tag rule (`syntax.strip_tags`)."""
    draft.text, tags = syntax.strip_tags(draft.text)
    draft.tags += tags


def _action_and_condition(draft: _Draft) -> tuple[str, str | None]:
    action = draft.display(draft.text)
    if "when" in draft.fields:
        return action, draft.display(draft.fields["when"]) or None
    when = _WHEN_RE.match(action)
    if when is None:
        return action, None
    rest = when.group(2)
    return rest[:1].upper() + rest[1:], when.group(1)


def _keywords(draft: _Draft) -> tuple[str, ...]:
    words = draft.display(draft.fields.get("keywords", "")).split(",")
    return tuple(word.strip() for word in words if word.strip())


def _links(draft: _Draft) -> tuple[str, ...]:
    # Placeholders are numbered left to right, so this is the order of the line.
    return _dedupe([span.target for span in draft.spans if span.target])


def _project(draft: _Draft) -> str | None:
    named = draft.display(draft.fields.get("project", ""))
    if named:
        return named
    for tag in draft.tags:
        if tag.startswith("project/") and len(tag) > len("project/"):
            return tag.removeprefix("project/")
    return None


def _other_fields(draft: _Draft) -> dict[str, str]:
    return {k: draft.raw(v) for k, v in draft.fields.items() if k not in RESERVED_KEYS}


# ---------------------------------------------------------------- rendering


def render_entry(entry: LedgerEntry) -> str:
    """The canonical task line for an entry; ``parse_ledger`` reads it back unchanged.

    Links go in a ``[links:: ...]`` field because the action already holds their text,
    and the condition always goes in ``[when:: ...]``.
    """
    parts = [f"- [{MARK_BY_STATUS.get(entry.status, ' ')}]", entry.action]
    if entry.condition:
        parts.append(_render_field("when", entry.condition))
    if entry.keywords:
        parts.append(_render_field("keywords", ", ".join(entry.keywords)))
    if entry.links:
        parts.append(_render_field("links", ", ".join(f"[[{t}]]" for t in entry.links)))
    if entry.project:
        parts.append(_render_field("project", entry.project))
    parts += [_render_field(key, value) for key, value in entry.fields.items()]
    parts += [f"#{tag}" for tag in entry.tags]
    parts += [f"{RENDER_EMOJI[a]} {getattr(entry, a).isoformat()}"
              for a in RENDER_EMOJI if getattr(entry, a) is not None]
    if entry.block_id:
        parts.append(f"^{entry.block_id}")
    return " ".join(parts)


def _render_field(key: str, value: str) -> str:
    # A value must not close its own brackets early: pick the kind it keeps balanced.
    if _balanced(value, "[", "]") or not _balanced(value, "(", ")"):
        return f"[{key}:: {value}]"
    return f"({key}:: {value})"


def _balanced(text: str, opener: str, closer: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == opener) - (char == closer)
        if depth < 0:
            return False
    return depth == 0
