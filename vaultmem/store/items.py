"""The `prospective` table: plans, ideas, decisions, questions and insights found in notes
(prospective.py in the domain reads them out of notes and decides their lifecycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store

# When a note last changed, as the lifecycle counts it: its own date, else its creation,
# else when the index saw it change.
_WHEN = "COALESCE(src.date, src.created, src.changed_at)"


def of_note(store: Store, note_id: int) -> list[tuple[str, str, int, str]]:
    """(id, key, closed, status) of a note's present items."""
    return store.execute("SELECT id, key, closed, status FROM prospective "
                         "WHERE note_id = ? AND present = 1", [note_id]).fetchall()


def open_in_live_notes(store: Store) -> list[tuple]:
    """(id, note id, status, created, block id, level, note title) of the present items
    not closed, in live notes."""
    return store.execute(
        "SELECT p.id, p.note_id, p.status, p.created, p.block_id, p.level, n.title "
        "FROM prospective p JOIN notes n ON n.id = p.note_id "
        "WHERE p.present = 1 AND p.closed = 0 AND n.deleted = 0").fetchall()


def set_status(store: Store, item_id: str, status: str, last: str | None, stamp: str) -> None:
    store.execute("UPDATE prospective SET status = ?, last_referenced = ?, updated_at = ? "
                  "WHERE id = ?", [status, last, stamp, item_id])


def last_link(store: Store, note_id: int, block: str | None, after: str) -> str | None:
    """When another live note linking to this note (to `block` in it, if given) last
    changed, if later than `after`."""
    clause = "l.target_id = ?" + (" AND l.block = ?" if block is not None else "")
    params = [note_id, block] if block is not None else [note_id]
    row = store.execute(
        f"SELECT MAX({_WHEN}) FROM links l JOIN notes src ON src.id = l.source_id "
        f"WHERE {clause} AND src.deleted = 0 AND src.id != ? AND {_WHEN} > ?",
        [*params, note_id, after]).fetchone()
    return row[0] if row else None


def last_named(store: Store, note_id: int, title: str, after: str) -> str | None:
    """When another live note whose text names `title` last changed, if later than `after`."""
    row = store.execute(
        f"SELECT MAX({_WHEN}) FROM chunks c JOIN notes src ON src.id = c.note_id "
        f"WHERE src.deleted = 0 AND src.id != ? AND {_WHEN} > ? "
        "AND instr(lower(c.text), lower(?)) > 0", [note_id, after, title]).fetchone()
    return row[0] if row else None


def hidden_note_ids(store: Store) -> set[int]:
    """Notes that are closed or stale note-level items."""
    return {r[0] for r in store.execute(
        "SELECT note_id FROM prospective WHERE level = 'note' AND present = 1 "
        "AND status IN ('closed', 'stale')")}


def listed(store: Store, include_closed: bool) -> list[tuple]:
    """(id, kind, status, text, path, line, created, last referenced) of the present items
    in live notes (open and referenced ones only unless `include_closed`)."""
    where = "" if include_closed else "AND p.status IN ('open', 'referenced')"
    return store.execute(
        "SELECT p.id, p.kind, p.status, p.text, n.path, p.line, p.created, p.last_referenced "
        "FROM prospective p JOIN notes n ON n.id = p.note_id "
        f"WHERE p.present = 1 AND n.deleted = 0 {where} "
        "ORDER BY p.kind, p.created").fetchall()


def note_level_ids(store: Store) -> set[int]:
    """Notes that are present note-level items, whatever their status."""
    return {r[0] for r in store.execute(
        "SELECT note_id FROM prospective WHERE level = 'note' AND present = 1")}


def in_note(store: Store, note_id: int) -> list[tuple[str, str, str, str, int | None]]:
    """(id, kind, status, text, line) of a note's present items, by line."""
    return store.execute("SELECT id, kind, status, text, line FROM prospective "
                         "WHERE note_id = ? AND present = 1 ORDER BY line", [note_id]).fetchall()


def for_nudges(store: Store) -> list[tuple]:
    """(id, kind, text, created, last referenced, note front matter JSON, level, path) of
    the open and referenced items in live notes."""
    return store.execute(
        "SELECT p.id, p.kind, p.text, p.created, p.last_referenced, n.frontmatter, "
        "p.level, n.path FROM prospective p JOIN notes n ON n.id = p.note_id "
        "WHERE p.present = 1 AND p.status IN ('open', 'referenced') AND n.deleted = 0"
    ).fetchall()


def status_counts(store: Store) -> list[tuple[str, str, int]]:
    """(kind, status, count) of the present items."""
    return store.execute("SELECT kind, status, count(*) FROM prospective WHERE present = 1 "
                         "GROUP BY 1, 2").fetchall()
