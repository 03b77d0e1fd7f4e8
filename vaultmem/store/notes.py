"""Reads of the notes' tables (`notes`, `aliases`, `ops`) that the domain names; the
writes are `Store`'s methods (connection.py), which the indexer calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


def aliases(store: Store, note_id: int) -> list[str]:
    """A note's aliases, sorted."""
    return [alias for (alias,) in store.execute(
        "SELECT alias FROM aliases WHERE note_id = ? ORDER BY alias", [note_id])]


def moves(store: Store) -> list[tuple[int, str | None]]:
    """(note id, former path) of every recorded move, oldest first (the ops log)."""
    return store.execute("SELECT note_id, json_extract(detail, '$.from') FROM ops "
                         "WHERE op = 'moved' ORDER BY id").fetchall()


def state_of(store: Store, path: str) -> tuple[int, int] | None:
    """(id, deleted) of the note stored at `path`, live or deleted, or None."""
    return store.execute("SELECT id, deleted FROM notes WHERE path = ?", [path]).fetchone()
