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


def unresolved_wiki_links(store: Store) -> list[tuple[int, str]]:
    """(source note id, target as written) of the live notes' wiki-links naming no note."""
    return store.execute(
        "SELECT l.source_id, l.target_raw FROM links l JOIN notes n ON n.id = l.source_id "
        "WHERE n.deleted = 0 AND l.target_id IS NULL AND l.kind = 'wiki'").fetchall()


def live_tags(store: Store) -> list[tuple[int, str]]:
    """(note id, tag) of every live note's tags."""
    return store.execute("SELECT t.note_id, t.tag FROM tags t JOIN notes n ON n.id = t.note_id "
                         "WHERE n.deleted = 0").fetchall()


def live_count(store: Store) -> int:
    return store.execute("SELECT count(*) FROM notes WHERE deleted = 0").fetchone()[0]


def ledger_ids(store: Store, ledger_paths: list[str]) -> set[int]:
    """Notes that are ledgers: typed so, configured, or holding entries."""
    marks = ",".join("?" * len(ledger_paths))
    return {r[0] for r in store.execute(
        f"SELECT id FROM notes WHERE lower(type) = 'ledger' OR path IN ({marks}) "
        "OR path IN (SELECT ledger_path FROM entries)", list(ledger_paths))}


def mentions(store: Store, ops: tuple[str, ...]) -> list[tuple[int, str, int | None]]:
    """(note id, time, linking note id for a 'linked' op) of the ops of these kinds that
    name a note and no entry."""
    marks = ",".join("?" * len(ops))
    return store.execute(
        f"SELECT note_id, ts, CASE WHEN op = 'linked' THEN json_extract(detail, '$.source_id') "
        f"END FROM ops WHERE op IN ({marks}) AND note_id IS NOT NULL AND entry_id IS NULL",
        ops).fetchall()


def link_pairs(store: Store) -> list[tuple[int, int]]:
    """Every distinct (source, target) of the resolved links."""
    return store.execute(
        "SELECT DISTINCT source_id, target_id FROM links WHERE target_id IS NOT NULL").fetchall()


def live(store: Store) -> list[tuple[int, str, str | None, str | None, str | None, int | None]]:
    """(id, path, type, importance, project, mtime_ns) of every live note, by id."""
    return store.execute("SELECT id, path, type, importance, project, mtime_ns FROM notes "
                         "WHERE deleted = 0 ORDER BY id").fetchall()


def tags(store: Store) -> list[tuple[int, str]]:
    """(note id, tag) of every note's tags."""
    return store.execute("SELECT note_id, tag FROM tags").fetchall()


def by_paths(store: Store, *paths: str) -> list[tuple[int, str]]:
    """(id, path) of the notes stored at any of these paths, live ones first."""
    marks = ",".join("?" * len(paths))
    return store.execute(f"SELECT id, path FROM notes WHERE path IN ({marks}) ORDER BY deleted",
                         list(paths)).fetchall()


def head(store: Store, note_id: int) -> tuple[str | None, str | None, str | None, int]:
    """(title, front matter JSON, hash, deleted) of one note."""
    return store.execute("SELECT title, frontmatter, hash, deleted FROM notes WHERE id = ?",
                         [note_id]).fetchone()


def tags_of(store: Store, note_id: int) -> list[str]:
    """A note's tags, sorted."""
    return [t for (t,) in store.execute("SELECT tag FROM tags WHERE note_id = ? ORDER BY tag",
                                        [note_id])]


def links_of(store: Store, note_id: int) -> list[tuple]:
    """(target as written, kind, heading, line, target path or None) of a note's links, in
    the order written."""
    return store.execute(
        "SELECT l.target_raw, l.kind, l.heading, l.line, n.path FROM links l "
        "LEFT JOIN notes n ON n.id = l.target_id AND n.deleted = 0 "
        "WHERE l.source_id = ? ORDER BY l.line, l.id", [note_id]).fetchall()


def backlinks_of(store: Store, note_id: int) -> list[tuple[str, int]]:
    """(path, line) of the other live notes' links to this one."""
    return store.execute(
        "SELECT n.path, l.line FROM links l JOIN notes n ON n.id = l.source_id "
        "WHERE l.target_id = ? AND n.deleted = 0 AND l.source_id != ? ORDER BY n.path, l.line",
        [note_id, note_id]).fetchall()


def live_paths(store: Store, ids: set[int]) -> dict[int, str]:
    """{id: path} of those of these notes that are live."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return dict(store.execute(
        f"SELECT id, path FROM notes WHERE deleted = 0 AND id IN ({marks})", list(ids)))


def chunk_texts_at(store: Store, path: str) -> list[str]:
    """The chunk texts of the note(s) stored at `path`, in order."""
    return [r[0] for r in store.execute(
        "SELECT c.text FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = ? "
        "ORDER BY c.ord", [path])]


def id_at(store: Store, path: str) -> int | None:
    """The id of the note stored at `path` (live or deleted), or None."""
    row = store.execute("SELECT id FROM notes WHERE path = ?", [path]).fetchone()
    return row[0] if row else None


def live_paths_all(store: Store) -> list[tuple[int, str]]:
    """(id, path) of every live note."""
    return store.execute("SELECT id, path FROM notes WHERE deleted = 0").fetchall()


def counts(store: Store) -> dict[str, int]:
    """What `status` counts of the notes' tables: live and deleted notes, live chunks,
    vectors, distinct tags and ops."""
    def one(sql: str) -> int:
        return store.execute(sql).fetchone()[0]

    return {
        "notes": one("SELECT count(*) FROM notes WHERE deleted = 0"),
        "deleted": one("SELECT count(*) FROM notes WHERE deleted = 1"),
        "chunks": one("SELECT count(*) FROM chunks c JOIN notes n ON n.id = c.note_id "
                      "WHERE n.deleted = 0"),
        "vectors": one("SELECT count(*) FROM vectors"),
        "tags": one("SELECT count(DISTINCT tag) FROM tags"),
        "ops": one("SELECT count(*) FROM ops"),
    }


def warnings(store: Store) -> list[tuple[str, int | None, str]]:
    """(path, line, message) of every kept warning, by path and line."""
    return store.execute("SELECT path, line, message FROM warnings ORDER BY path, line"
                         ).fetchall()
