"""Which notes a query may return: the structural filters (SPEC 5).

Folders, tags, front-matter values, change dates and ledger notes decide, before any
ranking, whether a note is a candidate at all. They read only what the note is, never
how salient it is: salience ranks, it never prunes. The same filters decide which
firing commitments a filtered query names (those that link a note it may return).

`Filters.build` is the one place a caller's raw values become filters (the CLI, the MCP
server and `Vault.query` all pass theirs through it), so every face accepts and refuses
the same things with the same message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime, time

import numpy as np

from . import clock
from .errors import UsageError
from .store import filters as rows
from .text.folder import normalize_prefix

_WHERE = re.compile(r"^\s*([^=!]+?)\s*(!?=)\s*(.*?)\s*$", re.DOTALL)
_DATE_SHAPE = re.compile(r"\s*\d{4}-\d{2}-\d{2}(?:[T ]|\s*$)")  # written as a date
_LINK = re.compile(r"^\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]$")  # "[[House|the house]]"


@dataclass(frozen=True)
class Where:
    """One front-matter condition: `key=value`, or `key!=value` (negate)."""

    key: str
    value: str
    negate: bool = False

    def __str__(self) -> str:
        return f"{self.key}{'!=' if self.negate else '='}{self.value}"


@dataclass(frozen=True)
class Filters:
    """The notes a query may return. Empty fields filter nothing; several folders are
    any of them, several tags and `where` conditions all of them."""

    folders: tuple[str, ...] = ()  # normalized "projects/house/"
    not_folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # lower case, no "#"; a tag also matches its nested tags
    not_tags: tuple[str, ...] = ()
    where: tuple[Where, ...] = ()
    changed_since: datetime | None = None  # the file changed at or after this moment
    changed_before: datetime | None = None  # ... and strictly before this one
    include_ledger: bool = False  # ledger notes are hits only when asked

    @classmethod
    def build(cls, *, folders=None, not_folders=None, tags=None, not_tags=None, where=None,
              changed_since=None, changed_before=None, include_ledger=False) -> Filters:
        """Filters from a caller's values: a string or a list for the repeatable ones
        (a tag written "-x" excludes x); dates as `date`, `datetime` or ISO text.
        Anything malformed is a UsageError naming the value and the form it takes."""
        wanted, unwanted = _tags(_many(tags), "tags")
        since, before = _moment(changed_since, "changed_since"), _moment(
            changed_before, "changed_before")
        if since and before and since >= before:
            raise UsageError(f"`changed_since` {since:%Y-%m-%d %H:%M} is not before "
                             f"`changed_before` {before:%Y-%m-%d %H:%M}: no note can match")
        return cls(
            folders=_folders(_many(folders), "folders"),
            not_folders=_folders(_many(not_folders), "not_folders"),
            tags=wanted, not_tags=tuple(dict.fromkeys(
                unwanted + _tags(_many(not_tags), "not_tags", exclusions=False)[0])),
            where=tuple(_where(w) for w in _many(where)),
            changed_since=since, changed_before=before, include_ledger=bool(include_ledger))

    @property
    def narrows(self) -> bool:
        """Whether the caller asked for a part of the vault (the default ledger rule
        aside): then only the commitments that concern that part are named as firing."""
        return bool(self.folders or self.not_folders or self.tags or self.not_tags
                    or self.where or self.changed_since or self.changed_before)

    def as_dict(self) -> dict:
        """The filters as the query document echoes them (only those given)."""
        out = {"folders": [f.rstrip("/") for f in self.folders],
               "not_folders": [f.rstrip("/") for f in self.not_folders],
               "tags": list(self.tags), "not_tags": list(self.not_tags),
               "where": [str(w) for w in self.where],
               "changed_since": _iso(self.changed_since),
               "changed_before": _iso(self.changed_before),
               "include_ledger": self.include_ledger}
        return {k: v for k, v in out.items() if v not in (None, [], False)}


def _many(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | Where):
        return [value]
    return list(value)


def _folders(values: list[str], what: str) -> tuple[str, ...]:
    out = []
    for value in values:
        folder = normalize_prefix(value, what)
        if not folder:
            raise UsageError(f"`{what}` {value!r} is the whole vault: name a folder inside "
                             "it, e.g. projects/house")
        out.append(folder)
    return tuple(dict.fromkeys(out))


def _tags(values: list[str], what: str, exclusions: bool = True
          ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tags, excluded tags): "#Project/House/" is "project/house"; "-x" excludes x."""
    wanted, unwanted = [], []
    for value in values:
        text = str(value).strip()
        negate = exclusions and text.startswith("-")
        tag = text.removeprefix("-").strip().lstrip("#").strip("/").lower() if negate \
            else text.lstrip("#").strip("/").lower()
        if not tag or any(c.isspace() for c in tag):
            raise UsageError(f"`{what}` {value!r} is not a tag: write it as in the note, "
                             "e.g. project/house or #project/house")
        (unwanted if negate else wanted).append(tag)
    return tuple(dict.fromkeys(wanted)), tuple(dict.fromkeys(unwanted))


def _where(value) -> Where:
    if isinstance(value, Where):
        return value
    match = _WHERE.match(str(value))
    if not match or not match.group(1).strip():
        raise UsageError(f"`where` {value!r}: write key=value or key!=value, e.g. "
                         "status=active or type!=log")
    key, op, wanted = match.groups()
    return Where(key, wanted, op == "!=")


def _moment(value, what: str) -> datetime | None:
    """A date is its local midnight; a datetime is taken as `--now` takes one, within
    the years vaultmem computes with (`clock.in_range`)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    else:
        try:
            moment = datetime.fromisoformat(str(value).strip())
        except ValueError as exc:
            raise UsageError(_not_a_moment(value, what, exc)) from None
    try:
        return clock.in_range(moment)
    except ValueError as exc:
        raise UsageError(f"`{what}` {exc}") from None


def _not_a_moment(value, what: str, exc: ValueError) -> str:
    """Why `value` is no moment: not written as a date at all, or written as one that
    the calendar does not have (February 30th, month 13), with Python's reason."""
    if _DATE_SHAPE.match(str(value)):
        return (f"`{what}` {value!r} has the form of a date but names none ({exc}): give a "
                "day that exists, YYYY-MM-DD or YYYY-MM-DDTHH:MM")
    return f"`{what}` {value!r} is not a date: use YYYY-MM-DD, or YYYY-MM-DDTHH:MM"


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment else None


# -- applying them -----------------------------------------------------------------


def mask(store, settings, note_ids: np.ndarray, titles: dict, filters: Filters
         ) -> np.ndarray:
    """For each of `note_ids` (`titles`: {note id: (path, title)}), whether the filters
    let it through. A folder or tag asked for that no note has is a UsageError
    (the answer would be empty for a typo); an exclusion that matches nothing is not.

    Folders, tags, change dates and ledger notes are one SQL statement over the notes
    table and its indexes (a cold query pays for this); front-matter conditions are
    applied to the notes it returns."""
    from .salience import ledger_note_ids

    if not filters.narrows:  # the default: every note but the ledgers
        ledgers = ledger_note_ids(store, settings) if not filters.include_ledger else set()
        return ~_member(note_ids, ledgers)
    select = rows.NoteSelect()
    if filters.folders:
        _under(store, titles, filters.folders, select, strict=True)
    if filters.not_folders:
        _under(store, titles, filters.not_folders, select, negate=True)
    for tag, negate in [(t, False) for t in filters.tags] + [(t, True) for t in filters.not_tags]:
        if not negate and not rows.tag_exists(store, tag):  # the answer would be empty: a typo
            raise UsageError(f"`tags` {tag!r}: no indexed note carries it (or a tag under "
                             "it); `vaultmem status` counts the tags")
        select.tag(tag, negate)
    if filters.changed_since or filters.changed_before:
        select.changed(*_ns_range(filters))
    ids = select.ids(store)
    for cond in filters.where:
        matched = _matching(store, cond)
        ids = ids - matched if cond.negate else ids & matched
    if not filters.include_ledger:
        ids -= ledger_note_ids(store, settings)
    return _member(note_ids, ids)


def _member(note_ids: np.ndarray, ids: set[int]) -> np.ndarray:
    if not ids:
        return np.zeros(len(note_ids), dtype=bool)
    return np.isin(note_ids, np.fromiter(ids, np.int64, len(ids)))


def _under(store, titles: dict, folders: tuple[str, ...], select: rows.NoteSelect, *,
           strict: bool = False, negate: bool = False) -> None:
    """Add "under any of `folders`" (or none, `negate`) to the selection: each folder as
    written is a range of the path index; a folder written in another case than on disk
    (as Obsidian finds it on macOS and Windows) is the notes whose path starts with it,
    case aside."""
    exact, other_case = [], []
    for folder in folders:
        if rows.has_notes_under(store, folder):
            exact.append(folder)
            continue
        folded = folder.casefold()
        ids = [i for i, (path, _) in titles.items() if path.casefold().startswith(folded)]
        if strict and not ids:
            raise UsageError(f"`folders` {folder.rstrip('/')!r}: no indexed note is under it; "
                             f"top-level folders: {_top_folders([p for p, _ in titles.values()])}")
        other_case.append(ids)
    select.folders(exact, other_case, negate)


_NS_MIN, _NS_MAX = -2**63, 2**63 - 1  # SQLite's integers: file times in ns, 1677 to 2262


def _ns_range(filters: Filters) -> list:
    low = filters.changed_since.timestamp() * 1e9 if filters.changed_since else -1.0
    high = filters.changed_before.timestamp() * 1e9 if filters.changed_before else 1e30
    return [min(max(int(low), _NS_MIN), _NS_MAX), high]


def _top_folders(paths: list[str]) -> str:
    folders = sorted({p.split("/", 1)[0] + "/" for p in paths if "/" in p}, key=str.casefold)
    shown = ", ".join(folders[:12]) + (", …" if len(folders) > 12 else "")
    return shown or "none (every note is at the root)"


def _matching(store, cond: Where) -> set[int]:
    """Live notes whose front matter holds `cond.key` (any case) with `cond.value`, or,
    for a list, with it among its items. Values compare as text, ignoring case; a link
    `[[House]]` is its note name; 1 and 1.0 are one number.

    Cheapest first, as a cold query pays for it: a known key's scalar values from its
    column, one row per distinct value; then, among the notes whose front matter names
    the key (and whose column is empty: a list, a "Type:"), the key as written by one
    json_extract a note; json_each, the dear part, only where it is written in another
    case."""
    key = cond.key.strip().lower()
    match = _Matcher(_norm(cond.value))
    column = key in rows.COLUMNS
    if column:
        for value, members in rows.column_values(store, key):
            if match.one(value):
                match.ids.update(int(i) for i in members.split(","))
    other_case = []
    if '"' not in key:  # (a JSON path cannot quote it; json_each reads it)
        for note_id, kind, value in rows.key_values(store, key, match.wanted, column):
            if kind is None:
                other_case.append(note_id)
            else:
                match.row(note_id, kind, value)
    if other_case or '"' in key:
        for note_id, value, kind in rows.key_items(store, key, column):
            match.row(note_id, kind, value)
    return match.ids


class _Matcher:
    """Collects the notes one front-matter value (or list item) equals `wanted` for;
    each distinct value is normalized once."""

    def __init__(self, wanted: str):
        self.wanted = wanted
        self.ids: set[int] = set()
        self._seen: dict = {}

    def one(self, value) -> bool:
        if isinstance(value, list | dict):
            return _norm(value) == self.wanted
        found = self._seen.get(value)
        if found is None:
            found = self._seen[value] = _norm(value) == self.wanted
        return found

    def row(self, note_id: int, kind: str, value) -> None:
        """A value as SQLite's JSON functions give it: `kind` is its JSON type."""
        values = (json.loads(value) if kind == "array" else
                  [kind == "true"] if kind in ("true", "false") else [value])
        if any(self.one(v) for v in values):
            self.ids.add(note_id)


def _norm(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value).strip()
    try:
        return f"{float(text):g}"
    except ValueError:
        return _unlink(text)


def _unlink(text: str) -> str:
    link = _LINK.match(text)
    return (link.group(1) if link else text).strip().casefold()
