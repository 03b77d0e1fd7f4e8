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
from .vault import normalize_prefix

_WHERE = re.compile(r"^\s*([^=!]+?)\s*(!?=)\s*(.*?)\s*$", re.DOTALL)
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
        wanted, unwanted = _tags(_many(tags), "tag")
        since, before = _moment(changed_since, "changed since"), _moment(
            changed_before, "changed before")
        if since and before and since >= before:
            raise UsageError(f"changed since {since:%Y-%m-%d %H:%M} is not before "
                             f"changed before {before:%Y-%m-%d %H:%M}: no note can match")
        return cls(
            folders=_folders(_many(folders)), not_folders=_folders(_many(not_folders)),
            tags=wanted, not_tags=tuple(dict.fromkeys(
                unwanted + _tags(_many(not_tags), "tag to leave out", exclusions=False)[0])),
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


def _folders(values: list[str]) -> tuple[str, ...]:
    out = []
    for value in values:
        folder = normalize_prefix(value)
        if not folder:
            raise UsageError(f"folder {value!r} is the whole vault: name a folder inside "
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
            raise UsageError(f"{what} {value!r} is not a tag: write it as in the note, "
                             "e.g. project/house or #project/house")
        (unwanted if negate else wanted).append(tag)
    return tuple(dict.fromkeys(wanted)), tuple(dict.fromkeys(unwanted))


def _where(value) -> Where:
    if isinstance(value, Where):
        return value
    match = _WHERE.match(str(value))
    if not match or not match.group(1).strip():
        raise UsageError(f"where {value!r}: write key=value or key!=value, e.g. "
                         "status=active or type!=log")
    key, op, wanted = match.groups()
    return Where(key, wanted, op == "!=")


def _moment(value, what: str) -> datetime | None:
    """A date is its local midnight; a datetime is taken as `--now` takes one."""
    if value is None or isinstance(value, datetime):
        return clock.local_naive(value) if value is not None else None
    if isinstance(value, date):
        return datetime.combine(value, time())
    try:
        return clock.parse_now(str(value))
    except ValueError:
        raise UsageError(f"{what} {value!r} is not a date: use YYYY-MM-DD, or "
                         "YYYY-MM-DDTHH:MM") from None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment else None


# -- applying them -----------------------------------------------------------------


def mask(store, settings, note_ids: np.ndarray, titles: dict, filters: Filters
         ) -> np.ndarray:
    """For each of `note_ids` (`titles`: {note id: (path, title)}), whether the filters
    let it through. A folder or tag asked for that no note has is a UsageError
    (the answer would be empty for a typo); an exclusion that matches nothing is not."""
    keep = np.ones(len(note_ids), dtype=bool)
    paths = [titles[i][0] for i in note_ids.tolist()] if (
        filters.folders or filters.not_folders) else []
    if filters.folders:
        keep &= _any_folder(paths, filters.folders, strict=True)
    if filters.not_folders:
        keep &= ~_any_folder(paths, filters.not_folders, strict=False)
    for tag in filters.tags:
        keep &= _member(note_ids, tagged(store, tag, required=True))
    for tag in filters.not_tags:
        keep &= ~_member(note_ids, tagged(store, tag))
    for cond in filters.where:
        keep &= _member(note_ids, _matching(store, cond)) != cond.negate
    if filters.changed_since or filters.changed_before:
        keep &= _member(note_ids, _changed(store, filters))
    if not filters.include_ledger:
        from .salience import ledger_note_ids

        keep &= ~_member(note_ids, ledger_note_ids(store, settings))
    return keep


def _member(note_ids: np.ndarray, ids: set[int]) -> np.ndarray:
    if not ids:
        return np.zeros(len(note_ids), dtype=bool)
    return np.isin(note_ids, np.fromiter(ids, np.int64, len(ids)))


def _any_folder(paths: list[str], folders: tuple[str, ...], strict: bool) -> np.ndarray:
    """Notes under any of `folders`: each as written, else regardless of case (as Obsidian
    finds a folder on macOS and Windows)."""
    inside = np.zeros(len(paths), dtype=bool)
    for folder in folders:
        here = np.fromiter((p.startswith(folder) for p in paths), bool, len(paths))
        if not here.any():
            folded = folder.casefold()
            here = np.fromiter((p.casefold().startswith(folded) for p in paths), bool,
                               len(paths))
        if strict and not here.any() and paths:
            raise UsageError(f"folder {folder.rstrip('/')!r}: no indexed note is under it; "
                             f"top-level folders: {_top_folders(paths)}")
        inside |= here
    return inside


def _top_folders(paths: list[str]) -> str:
    folders = sorted({p.split("/", 1)[0] + "/" for p in paths if "/" in p}, key=str.casefold)
    shown = ", ".join(folders[:12]) + (", …" if len(folders) > 12 else "")
    return shown or "none (every note is at the root)"


def tagged(store, tag: str, required: bool = False) -> set[int]:
    """Notes carrying `tag` or a tag nested under it (`project` holds `project/house`),
    as Obsidian's tag search finds them. Tags are stored in lower case, so the nested
    ones are the index range from "project/" up to "project0" ("0" follows "/")."""
    ids = {r[0] for r in store.execute(
        "SELECT note_id FROM tags WHERE tag = ? OR (tag >= ? AND tag < ?)",
        [tag, tag + "/", tag + "0"])}
    if required and not ids:
        raise UsageError(f"tag {tag!r}: no indexed note carries it (or a tag under it); "
                         "`vaultmem status` counts the tags")
    return ids


# Front-matter keys the notes table also holds as a column (their scalar values).
_COLUMNS = ("type", "status", "importance", "project", "created", "updated", "date")


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
    only = ""
    if key in _COLUMNS:
        for value, members in store.execute(
                f"SELECT {key}, group_concat(id) FROM notes WHERE deleted = 0 AND {key} IS "
                f"NOT NULL GROUP BY {key}"):
            if match.one(value):
                match.ids.update(int(i) for i in members.split(","))
        only = f"AND {key} IS NULL "
    named = '%"' + re.sub(r"([\\%_])", r"\\\1", key) + '"%'  # the key, quoted, in the JSON
    other_case = []
    if '"' not in key:  # (a JSON path cannot quote it; json_each reads it)
        path = f'$."{key}"'
        holding, maybe = _holding(match.wanted)
        for note_id, kind, value in store.execute(
                "SELECT id, json_type(frontmatter, ?) AS kind, json_extract(frontmatter, ?) AS "
                f"value FROM notes WHERE deleted = 0 {only}AND frontmatter LIKE ? ESCAPE '\\' "
                f"AND json_valid(frontmatter){holding}", [path, path, named, *maybe]):
            if kind is None:
                other_case.append(note_id)
            else:
                match.row(note_id, kind, value)
    if other_case or '"' in key:
        for note_id, value, kind in store.execute(
                "SELECT n.id, j.value, j.type FROM notes n, json_each(n.frontmatter) j "
                f"WHERE n.deleted = 0 {only.replace('AND ', 'AND n.')}AND n.frontmatter "
                "LIKE ? ESCAPE '\\' AND json_valid(n.frontmatter) AND lower(j.key) = ?",
                [named, key]):
            match.row(note_id, kind, value)
    return match.ids


def _holding(wanted: str) -> tuple[str, list[str]]:
    """A cheap SQL test that a value may equal `wanted`, to skip the rest: its text holds
    `wanted` (any ASCII case). Only where that is sure: an ASCII word that is no number
    (1.0 and 1 are equal and differ as text; SQLite folds ASCII case alone)."""
    try:
        float(wanted)
        return "", []
    except ValueError:
        pass
    if not wanted.isascii():
        return "", []
    return (" AND (kind IS NULL OR kind IN ('true', 'false') OR "
            "instr(lower(CAST(value AS TEXT)), ?) > 0)", [wanted])


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


def _changed(store, filters: Filters) -> set[int]:
    """Live notes whose file's modification time (as indexed) is in the range."""
    low = filters.changed_since.timestamp() * 1e9 if filters.changed_since else -1.0
    high = filters.changed_before.timestamp() * 1e9 if filters.changed_before else 1e30
    return {r[0] for r in store.execute(
        "SELECT id FROM notes WHERE deleted = 0 AND mtime_ns >= ? AND mtime_ns < ?",
        [int(low), high])}
