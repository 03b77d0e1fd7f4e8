"""Plain row types shared by the parsers, the planners and the store.

Pure: standard library only, so `vault.py`, `resolve.py` and any other pure module can
name a stored note or a link without importing the store (numpy, SQLite) or the
markdown parser.
"""

from __future__ import annotations

from dataclasses import dataclass
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
