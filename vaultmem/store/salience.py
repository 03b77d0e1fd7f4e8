"""The `salience` table: every live note's score and its components, replaced whole by
the nightly job (salience.py in the domain computes them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


def replace(store: Store, rows: list[tuple]) -> None:
    """All rows replaced by (note id, importance, activation, centrality, prospective,
    recency, score, computed at), in the caller's transaction."""
    store.execute("DELETE FROM salience")
    store.executemany(
        "INSERT INTO salience (note_id, importance, activation, centrality, prospective, "
        "recency, score, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def of_note(store: Store, note_id: int) -> tuple | None:
    """(score, importance, activation, centrality, prospective, recency, computed at) of
    one note, or None before the first salience run."""
    return store.execute(
        "SELECT score, importance, activation, centrality, prospective, recency, computed_at "
        "FROM salience WHERE note_id = ?", [note_id]).fetchone()
