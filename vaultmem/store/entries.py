"""The ledger's tables: `entries`, `entry_links` and `entry_views`.

Written by ledger_sync.py (and the indexer when a ledger note moves); read by whoever
needs a commitment. Rows go in and out as plain tuples and dicts: the ledger's types
stay in the domain.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


def ids(store: Store) -> set[str]:
    """Every entry id ever given, present or removed: a new id must be none of them."""
    return {row[0] for row in store.execute("SELECT id FROM entries")}


def present_in(store: Store, ledger: str) -> list[tuple[str, str]]:
    """(id, entry JSON) of the entries a ledger note holds today."""
    return store.execute("SELECT id, entry FROM entries WHERE ledger_path = ? AND present = 1",
                         [ledger]).fetchall()


def removed(store: Store) -> list[tuple[str, str, str, str | None]]:
    """(id, entry JSON, ledger, block id) of removed entries, most recently removed first."""
    return store.execute("SELECT id, entry, ledger_path, block_id FROM entries "
                         "WHERE present = 0 ORDER BY updated_at DESC, id").fetchall()


def write(store: Store, entry_id: str, row: dict, links: Iterable[str], stamp: str) -> None:
    """Insert or update one entry, and replace its links (in their written order)."""
    exists = store.execute("SELECT 1 FROM entries WHERE id = ?", [entry_id]).fetchone()
    if exists:
        store.update("entries", entry_id, row)
    else:
        store.insert("entries", {"id": entry_id, "first_seen": stamp, **row})
    store.execute("DELETE FROM entry_links WHERE entry_id = ?", [entry_id])
    store.executemany("INSERT INTO entry_links (entry_id, ord, target_raw) VALUES (?, ?, ?)",
                      [(entry_id, i, target) for i, target in enumerate(links)])


def present_in_ledger(store: Store, ledger: str) -> int:
    """How many present entries a ledger note holds."""
    return store.execute("SELECT count(*) FROM entries WHERE ledger_path = ? AND present = 1",
                         [ledger]).fetchone()[0]


def move_ledger(store: Store, old: str, new: str) -> None:
    """A ledger note moved: its entries (present or removed) follow it."""
    store.execute("UPDATE entries SET ledger_path = ? WHERE ledger_path = ?", [new, old])


def present_links(store: Store) -> list[tuple[str, int, str, str, int]]:
    """(entry id, ord, target as written, ledger, line) of every present entry's links."""
    return store.execute(
        "SELECT l.entry_id, l.ord, l.target_raw, e.ledger_path, e.line FROM entry_links l "
        "JOIN entries e ON e.id = l.entry_id WHERE e.present = 1").fetchall()


def point_links(store: Store, updates: Iterable[tuple[int | None, str, int]]) -> None:
    """Set each (target note id, entry id, ord) link's target."""
    store.executemany("UPDATE entry_links SET target_id = ? WHERE entry_id = ? AND ord = ?",
                      updates)


def open_actions(store: Store) -> list[tuple[str, str | None, str | None]]:
    """(id, action, condition) of the open present entries, by id."""
    return store.execute("SELECT id, action, condition FROM entries "
                         "WHERE present = 1 AND status = 'open' ORDER BY id").fetchall()


def linked_notes(store: Store, entry_id: str) -> list[tuple[int, str | None]]:
    """(note id, title) of the live notes an entry links, in its order."""
    return store.execute(
        "SELECT n.id, n.title FROM entry_links l JOIN notes n ON n.id = l.target_id "
        "WHERE l.entry_id = ? AND n.deleted = 0 ORDER BY l.ord", [entry_id]).fetchall()


def linked_texts(store: Store, entry_id: str) -> tuple[str, ...]:
    """The chunk texts of the live notes an entry links, in order."""
    return tuple(text for (text,) in store.execute(
        "SELECT c.text FROM entry_links l JOIN notes n ON n.id = l.target_id AND n.deleted = 0 "
        "JOIN chunks c ON c.note_id = n.id WHERE l.entry_id = ? ORDER BY l.ord, c.ord",
        [entry_id]))


def views(store: Store) -> list[tuple]:
    """(entry id, ord, kind, text, hash) of every stored view, in order."""
    return [tuple(r) for r in store.execute(
        "SELECT entry_id, ord, kind, text, hash FROM entry_views ORDER BY entry_id, ord")]


def replace_views(store: Store, rows: list[tuple]) -> None:
    """All the views, replaced (in the caller's transaction)."""
    store.execute("DELETE FROM entry_views")
    store.executemany(
        "INSERT INTO entry_views (entry_id, ord, kind, text, hash) VALUES (?, ?, ?, ?, ?)", rows)


def line_of(store: Store, entry_id: str) -> tuple[str, int, str, str, int] | None:
    """(ledger, line, raw text, status, present) of one entry, or None."""
    return store.execute("SELECT ledger_path, line, raw, status, present FROM entries "
                         "WHERE id = ?", [entry_id]).fetchone()


def is_item_id(store: Store, item_id: str) -> bool:
    """Whether an id names a ledger entry or a prospective item (what a nudge names)."""
    return store.execute("SELECT 1 FROM entries WHERE id = ? UNION ALL SELECT 1 FROM "
                         "prospective WHERE id = ?", [item_id, item_id]).fetchone() is not None


def open_link_priorities(store: Store) -> list[tuple[int, str | None]]:
    """(linked note id, Tasks priority) of the open entries' resolved links."""
    return store.execute(
        "SELECT l.target_id, json_extract(e.fields, '$.priority') FROM entry_links l "
        "JOIN entries e ON e.id = l.entry_id WHERE e.present = 1 AND e.status = 'open' "
        "AND l.target_id IS NOT NULL").fetchall()


def open_link_targets(store: Store) -> set[int]:
    """The notes an open entry links."""
    return {row[0] for row in store.execute(
        "SELECT l.target_id FROM entry_links l JOIN entries e ON e.id = l.entry_id "
        "WHERE e.present = 1 AND e.status = 'open' AND l.target_id IS NOT NULL")}


def open_projects(store: Store) -> set[str]:
    """The projects of the open entries, as written."""
    return {row[0] for row in store.execute(
        "SELECT DISTINCT project FROM entries WHERE present = 1 AND status = 'open' "
        "AND project IS NOT NULL")}


def linking(store: Store, note_id: int) -> list[tuple]:
    """(id, action, condition, due, status, present, ledger, line) of the entries, present
    or removed, that link a note: present ones first."""
    return store.execute(
        "SELECT DISTINCT e.id, e.action, e.condition, e.due, e.status, e.present, "
        "e.ledger_path, e.line FROM entry_links l JOIN entries e ON e.id = l.entry_id "
        "WHERE l.target_id = ? ORDER BY e.present DESC, e.ledger_path, e.line",
        [note_id]).fetchall()


def any_may_fire(store: Store, day: str) -> bool:
    """Whether an open entry has a condition, or a window open by `day` (ISO)."""
    return store.execute(
        "SELECT 1 FROM entries WHERE present = 1 AND status = 'open' AND (condition IS NOT "
        "NULL OR fires_from <= ?) LIMIT 1", [day]).fetchone() is not None


def open_rows(store: Store) -> list[tuple]:
    """(id, action, condition, keywords JSON, fires_from, due, condition hash, project,
    line, ledger, linked note ids comma-joined) of the open entries, in ledger order."""
    return store.execute(
        "SELECT e.id, e.action, e.condition, e.keywords, e.fires_from, e.due, e.cond_hash, "
        "e.project, e.line, e.ledger_path, group_concat(l.target_id) FROM entries e "
        "LEFT JOIN entry_links l ON l.entry_id = e.id "
        "WHERE e.present = 1 AND e.status = 'open' GROUP BY e.id ORDER BY e.ledger_path, e.line"
    ).fetchall()


def view_vectors(store: Store, fingerprint: str, ids: list[str]) -> list[tuple]:
    """(entry id, kind, text, vector blob or None) of these entries' views, in order."""
    marks = ",".join("?" * len(ids))
    return store.execute(
        f"SELECT ev.entry_id, ev.kind, ev.text, v.vector FROM entry_views ev LEFT JOIN "
        f"vectors v ON v.hash = ev.hash AND v.fingerprint = ? WHERE ev.entry_id IN ({marks}) "
        f"ORDER BY ev.entry_id, ev.ord", [fingerprint, *ids]).fetchall()


def listing(store: Store, include_closed: bool) -> list[tuple]:
    """(id, status, present, action, condition, due, fires_from, ledger, line, project,
    revisions, priority, recurrence) of the entries (open ones only unless asked)."""
    where = "" if include_closed else "WHERE e.present = 1 AND e.status = 'open'"
    return store.execute(
        "SELECT e.id, e.status, e.present, e.action, e.condition, e.due, e.fires_from, "
        "e.ledger_path, e.line, e.project, (SELECT count(*) FROM ops o WHERE o.entry_id = e.id), "
        "json_extract(e.fields, '$.priority'), json_extract(e.fields, '$.recurrence') "
        f"FROM entries e {where} ORDER BY e.present DESC, e.ledger_path, e.line").fetchall()


def all_links(store: Store) -> list[tuple[str, str, str | None]]:
    """(entry id, target as written, live note path or None) of every entry link."""
    return store.execute(
        "SELECT l.entry_id, l.target_raw, n.path FROM entry_links l LEFT JOIN notes n "
        "ON n.id = l.target_id AND n.deleted = 0 ORDER BY l.entry_id, l.ord").fetchall()


def head(store: Store, entry_id: str) -> tuple | None:
    """(id, raw, status, present, ledger, line, first seen) of one entry, or None."""
    return store.execute("SELECT id, raw, status, present, ledger_path, line, first_seen "
                         "FROM entries WHERE id = ?", [entry_id]).fetchone()


def revisions(store: Store, entry_id: str) -> list[tuple[str, str, str | None]]:
    """(time, op, detail JSON) of every op of one entry, in order."""
    return store.execute("SELECT ts, op, detail FROM ops WHERE entry_id = ? ORDER BY id",
                         [entry_id]).fetchall()


def open_for_nudges(store: Store) -> list[tuple]:
    """(id, action, condition, due, scheduled, start, first seen, fields JSON, entry JSON,
    tags JSON, project) of the open entries."""
    return store.execute(
        "SELECT id, action, condition, due, scheduled, start, first_seen, fields, entry, "
        "tags, project FROM entries WHERE present = 1 AND status = 'open'").fetchall()


def linked_paths(store: Store, entry_id: str) -> list[str]:
    """The paths of the notes an entry links (deleted ones too), in its order."""
    return [r[0] for r in store.execute(
        "SELECT n.path FROM entry_links l JOIN notes n ON n.id = l.target_id "
        "WHERE l.entry_id = ? ORDER BY l.ord", [entry_id])]


def link_rows(store: Store) -> list[tuple[str, int | None, str]]:
    """(entry id, target note id or None, target as written) of every entry link."""
    return store.execute("SELECT entry_id, target_id, target_raw FROM entry_links").fetchall()


def present_actions(store: Store) -> list[tuple[str, str | None, str | None, str | None]]:
    """(id, action, condition, due) of every present entry, whatever its status."""
    return store.execute(
        "SELECT id, action, condition, due FROM entries WHERE present = 1").fetchall()


def status_counts(store: Store) -> dict[str, int]:
    """{status, or 'removed': entries}."""
    return dict(store.execute("SELECT CASE WHEN present = 1 THEN status ELSE 'removed' END, "
                              "count(*) FROM entries GROUP BY 1").fetchall())
