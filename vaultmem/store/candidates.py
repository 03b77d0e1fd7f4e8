"""The `candidates` table: commitments found in passing in notes, kept until accepted
or rejected (candidates.py in the domain finds, matches and decides them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store

# What suggestions() reads of each candidate, in this order.
SUGGESTED = ("c.id, n.path, c.line, c.text, c.action, c.condition, c.due, c.date_text, "
             "c.kind, c.confidence, c.why, c.links, c.note_day, c.note_id, c.start")
# What a decision reads of one candidate, in this order.
DECIDED = ("id", "status", "present", "action", "condition", "due", "links", "entry_id",
           "note_id", "path", "line", "start")


def present_ids(store: Store, note_id: int) -> list[str]:
    return [r[0] for r in store.execute(
        "SELECT id FROM candidates WHERE note_id = ? AND present = 1", [note_id])]


def of_note(store: Store, note_id: int, columns: tuple[str, ...]) -> list[dict]:
    """A note's present candidates, by line, as {column: value}."""
    rows = store.execute(f"SELECT {', '.join(columns)} FROM candidates "
                         "WHERE note_id = ? AND present = 1 ORDER BY line", [note_id])
    return [dict(zip(columns, row, strict=True)) for row in rows]


def open_above(store: Store, threshold: float, since: str | None) -> list[tuple]:
    """The open present candidates of live notes at or above `threshold`, from notes of
    `since` or later: newest note first (columns: SUGGESTED)."""
    return store.execute(
        f"SELECT {SUGGESTED} FROM candidates c "
        "JOIN notes n ON n.id = c.note_id AND n.deleted = 0 "
        "WHERE c.present = 1 AND c.status = 'open' AND c.confidence >= ? "
        "AND (? IS NULL OR c.note_day >= ?) ORDER BY c.note_day DESC, n.path, c.line",
        [threshold, since, since]).fetchall()


def one(store: Store, cand_id: str) -> dict | None:
    """One candidate as {DECIDED column: value}, or None."""
    row = store.execute(
        "SELECT c.id, c.status, c.present, c.action, c.condition, c.due, c.links, c.entry_id, "
        "c.note_id, n.path, c.line, c.start FROM candidates c "
        "JOIN notes n ON n.id = c.note_id "
        "WHERE c.id = ?", [cand_id]).fetchone()
    return None if row is None else dict(zip(DECIDED, row, strict=True))


def accepted(store: Store, cand_id: str, entry_id: str, stamp: str) -> None:
    store.execute("UPDATE candidates SET status = 'accepted', entry_id = ?, decided_at = ?, "
                  "updated_at = ? WHERE id = ?", [entry_id, stamp, stamp, cand_id])


def rejected(store: Store, cand_id: str, stamp: str) -> None:
    store.execute("UPDATE candidates SET status = 'rejected', decided_at = ?, "
                  "updated_at = ? WHERE id = ?", [stamp, stamp, cand_id])


def status_counts(store: Store) -> dict[str, int]:
    """{status, or 'retired' for an open one whose line is gone: candidates}."""
    return dict(store.execute("SELECT CASE WHEN present = 1 OR status != 'open' THEN status "
                              "ELSE 'retired' END, count(*) FROM candidates GROUP BY 1"
                              ).fetchall())
