"""Plain row types shared by the parsers, the planners and the store.

Pure: standard library only, so `vault.py`, `resolve.py` and any other pure module can
name a stored note or a link without importing the store (numpy, SQLite) or the
markdown parser.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple


class StoredNote(NamedTuple):
    """A note's row as the planner sees it (a tuple: 50,000 of them are built per run)."""

    id: int
    path: str
    size: int | None
    mtime_ns: int | None
    hash: str | None
    deleted: int  # 0 or 1, as SQLite stores it
    problem: str | None = None


@dataclass(frozen=True)
class Link:
    """One outgoing link, as written in the note."""

    target: str
    kind: str
    heading: str | None
    block: str | None
    label: str | None
    line: int


class Item:
    """Base of the typed items in the library's results: one per item of a command's JSON
    document, its fields named and ordered as the JSON's keys. `as_dict()` is that item;
    `item["id"]` reads it as the dict it is in JSON."""

    def as_dict(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def __getitem__(self, key: str):
        if key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return _plain(getattr(self, key))

    def get(self, key: str, default=None):
        try:
            return self[key]
        except KeyError:
            return default


def _plain(value):
    """Typed items inside a value (a list of them, or one) as their dicts."""
    if isinstance(value, Item):
        return value.as_dict()
    if isinstance(value, list):
        return [v.as_dict() if isinstance(v, Item) else v for v in value]
    return value


def plain(items: list) -> list:
    """A list of items as JSON: typed ones as their dicts (dicts stay as they are)."""
    return _plain(items)
