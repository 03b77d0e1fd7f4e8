"""Append-only, numbered schema migrations, applied in order when the store opens.

Never edit a released migration: add the next number. Each runs in its own
transaction and is recorded in `_migrations`, so a store made by any earlier
version is brought up to date in place (and unchanged text keeps its vectors).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database

MIGRATIONS: list[tuple[str, Callable[[Database], None]]] = []


def migration(fn: Callable[[Database], None]) -> Callable[[Database], None]:
    MIGRATIONS.append((fn.__name__, fn))
    return fn


def check_not_newer(conn: sqlite3.Connection, path) -> None:
    """Refuse a store made by a newer vaultmem: its `user_version` is ahead of the
    migrations this version knows, or it records a migration this version never had.
    Reading it could misread its tables and writing it could break them, so nothing is
    done to it, reads included. Runs before anything is written on open."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    names: set[str] = set()
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                    "AND name = '_migrations'").fetchone():
        names = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    unknown = sorted(names - {name for name, _ in MIGRATIONS})
    if version > len(MIGRATIONS) or unknown:
        from ..errors import NewerStoreError

        raise NewerStoreError(path, max(version, len(names)), len(MIGRATIONS), unknown)


def missing(conn: sqlite3.Connection) -> list[str]:
    """The migrations not yet recorded in the store, in order (plain sqlite3)."""
    done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
    return [name for name, _ in MIGRATIONS if name not in done]


def apply(conn: sqlite3.Connection) -> list[str]:
    """Run every migration not yet recorded; return the names applied.

    Each runs under BEGIN IMMEDIATE and re-checks its record inside, so two
    processes opening a new store at once cannot both apply it. sqlite-utils (whose
    table helpers the migrations use) is imported only when one has to run.
    """
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    todo = missing(conn)
    if not todo:
        _stamp_version(conn)
        return []
    from sqlite_utils import Database

    db = Database(conn, execute_plugins=False)
    applied = []
    for name, fn in MIGRATIONS:
        if name not in todo:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone():
                db.execute("COMMIT")
                continue
            fn(db)
            db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))",
                       [name])
            db.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise
        applied.append(name)
    _stamp_version(conn)
    return applied


def _stamp_version(conn: sqlite3.Connection) -> None:
    """Record in the file's header how many migrations made it (SQLite's user_version),
    so that an older vaultmem can tell the store is newer than it knows."""
    if conn.execute("PRAGMA user_version").fetchone()[0] < len(MIGRATIONS):
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")


@migration
def m001_notes_chunks_links(db: Database) -> None:
    db["notes"].create(
        {
            "id": int, "path": str, "title": str, "type": str, "status": str,
            "importance": str, "project": str, "frontmatter": str, "size": int,
            "mtime_ns": int, "hash": str, "created": str, "updated": str, "date": str,
            "deleted": int, "problem": str, "first_seen": str, "changed_at": str,
            "indexed_at": str,
        },
        pk="id", not_null={"path"}, defaults={"deleted": 0},
    )
    db["notes"].create_index(["path"], unique=True)
    db["chunks"].create(
        {"id": int, "note_id": int, "ord": int, "heading": str, "text": str, "hash": str},
        pk="id", foreign_keys=[("note_id", "notes", "id")],
    )
    db["chunks"].create_index(["note_id", "ord"], unique=True)
    db["chunks"].create_index(["hash"])
    db["vectors"].create(
        {"hash": str, "fingerprint": str, "vector": bytes}, pk=("hash", "fingerprint")
    )
    db["links"].create(
        {
            "id": int, "source_id": int, "target_raw": str, "target_id": int, "kind": str,
            "heading": str, "block": str, "label": str, "line": int,
        },
        pk="id", foreign_keys=[("source_id", "notes", "id")],
    )
    db["links"].create_index(["source_id"])
    db["links"].create_index(["target_id"])
    db["tags"].create({"note_id": int, "tag": str}, pk=("note_id", "tag"))
    db["tags"].create_index(["tag"])
    db["aliases"].create({"note_id": int, "alias": str}, pk=("note_id", "alias"))
    db["ops"].create(
        {"id": int, "ts": str, "op": str, "note_id": int, "entry_id": str, "detail": str},
        pk="id",
    )
    db["ops"].create_index(["note_id"])
    db["ops"].create_index(["entry_id"])
    db["runs"].create(
        {"id": int, "kind": str, "started": str, "finished": str, "status": str, "counts": str},
        pk="id",
    )
    db["warnings"].create(
        {"id": int, "path": str, "line": int, "message": str, "source": str}, pk="id"
    )
    db["warnings"].create_index(["path"])
    db["meta"].create({"key": str, "value": str}, pk="key")


@migration
def m002_ledger_and_salience(db: Database) -> None:
    db["entries"].create(
        {
            "id": str, "ledger_path": str, "line": int, "raw": str, "status": str,
            "action": str, "condition": str, "keywords": str, "due": str, "scheduled": str,
            "start": str, "fires_from": str, "done_on": str, "cancelled_on": str,
            "project": str, "tags": str, "block_id": str, "fields": str, "present": int,
            "cond_hash": str, "entry": str, "first_seen": str, "updated_at": str,
        },
        pk="id", defaults={"present": 1},
    )
    db["entry_links"].create(
        {"entry_id": str, "ord": int, "target_raw": str, "target_id": int},
        pk=("entry_id", "ord"),
    )
    db["entry_links"].create_index(["target_id"])
    db["salience"].create(
        {
            "note_id": int, "importance": float, "activation": float, "centrality": float,
            "prospective": float, "recency": float, "score": float, "computed_at": str,
        },
        pk="note_id",
    )
    db["due_log"].create({"entry_id": str, "day": str}, pk=("entry_id", "day"))


@migration
def m003_prospective_and_nudges(db: Database) -> None:
    db["prospective"].create(
        {
            "id": str, "note_id": int, "key": str, "kind": str, "text": str, "line": int,
            "block_id": str,
            "level": str, "status": str, "closed": int, "created": str, "last_referenced": str,
            "present": int, "fields": str, "updated_at": str,
        },
        pk="id", defaults={"present": 1, "closed": 0},
    )
    db["prospective"].create_index(["note_id"])
    db["nudge_state"].create(
        {"item_id": str, "armed": int, "value": float, "muted_until": str, "updated_at": str},
        pk="item_id",
    )
    db["surfacings"].create(
        {"id": int, "item_id": str, "ts": str, "value": float, "message": str}, pk="id"
    )
    db["surfacings"].create_index(["item_id"])
    db["surfacings"].create_index(["ts"])
    db["feedback"].create(
        {"id": int, "surfacing_id": int, "item_id": str, "ts": str, "kind": str, "until": str},
        pk="id",
    )
    db["feedback"].create_index(["item_id"])


@migration
def m004_lexical_index(db: Database) -> None:
    """FTS5 over chunks (title, aliases, headings, body), filled from what is stored."""
    from .fts import fts_row

    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(title, aliases, heading, body, "
        "tokenize = 'unicode61 remove_diacritics 2')"
    )
    aliases: dict[int, list[str]] = {}
    for note_id, alias in db.execute("SELECT note_id, alias FROM aliases"):
        aliases.setdefault(note_id, []).append(alias)
    rows = db.execute(
        "SELECT c.id, n.title, n.id, c.heading, c.text FROM chunks c "
        "JOIN notes n ON n.id = c.note_id").fetchall()
    db.conn.executemany(
        "INSERT INTO chunks_fts (rowid, title, aliases, heading, body) VALUES (?, ?, ?, ?, ?)",
        [fts_row(cid, title or "", aliases.get(nid, []), heading or "", text or "")
         for cid, title, nid, heading, text in rows])


@migration
def m005_resolved_pairs_and_reparse(db: Database) -> None:
    """Remember resolved link pairs (so "newly linked" survives a killed run), and ask
    the next index run to re-parse every note once: tables added by earlier migrations
    (ledger entries, prospective items) are filled from notes that did not change."""
    db["resolved_pairs"].create({"source_id": int, "target_id": int},
                                pk=("source_id", "target_id"))
    db.execute("INSERT OR IGNORE INTO resolved_pairs SELECT DISTINCT source_id, target_id "
               "FROM links WHERE target_id IS NOT NULL")
    if db.execute("SELECT count(*) FROM notes").fetchone()[0]:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('reparse_all', '1')")


@migration
def m006_store_id(db: Database) -> None:
    """A random identity for this store, so a cache file beside it (the query matrix)
    can never be mistaken for one written by an earlier store at the same path."""
    import uuid

    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?)",
               [uuid.uuid4().hex])


@migration
def m007_search_index_holds_live_notes(db: Database) -> None:
    """Deleted notes leave the FTS index (their chunks stay in `chunks`): the lexical leg
    counts how many chunks hold a word, and dead chunks would skew the count."""
    db.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT c.id FROM chunks c "
               "JOIN notes n ON n.id = c.note_id WHERE n.deleted = 1)")


@migration
def m008_form_candidates(db: Database) -> None:
    """Commitments found in notes (Form), offered by `ledger suggest`: a table of their
    own, so they never fire and never boost until accepted into the ledger. The next
    index run re-parses every note once to fill it."""
    db["candidates"].create(
        {
            "id": str, "note_id": int, "key": str, "line": int, "text": str, "action": str,
            "condition": str, "due": str, "date_text": str, "kind": str, "confidence": float,
            "why": str, "links": str, "note_day": str, "status": str, "present": int,
            "entry_id": str, "first_seen": str, "updated_at": str, "decided_at": str,
        },
        pk="id", defaults={"present": 1, "status": "open"},
    )
    db["candidates"].create_index(["note_id"])
    if db.execute("SELECT count(*) FROM notes").fetchone()[0]:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('reparse_all', '1')")


@migration
def m009_entry_views(db: Database) -> None:
    """The texts of a ledger entry that the trigger matcher compares a context with
    (condition, condition with action, action; the titles and aliases of the notes it
    links, for the keyword half), the descriptions embedded like chunks, keyed by their
    hash. Filled by the next index run."""
    db["entry_views"].create(
        {"entry_id": str, "ord": int, "kind": str, "text": str, "hash": str},
        pk=("entry_id", "ord"),
    )
    db["entry_views"].create_index(["hash"])


@migration
def m010_aliases_in_embedded_text(db: Database) -> None:
    """A chunk's embedded text now carries its note's aliases after the title: re-parse
    every note once, so chunk hashes follow; only notes with aliases are embedded again."""
    if db.execute("SELECT count(*) FROM notes").fetchone()[0]:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('reparse_all', '1')")


@migration
def m011_candidate_windows(db: Database) -> None:
    """A candidate tied to a period ("next week") carries the period's first day, the
    start of its window, beside its due date (the period's last day): re-parse every
    note once so candidates take both."""
    db["candidates"].add_column("start", str)
    if db.execute("SELECT count(*) FROM notes").fetchone()[0]:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('reparse_all', '1')")


@migration
def m012_appended_lines(db: Database) -> None:
    """The lines vaultmem appended to a ledger (`ledger add`, `ledger accept`), watched
    until the user makes them theirs: one an editor saves over is offered back
    (`appended.py`)."""
    db["appended"].create(
        {"id": str, "ledger_path": str, "line": int, "text": str, "appended_at": str,
         "mtime_ns": int, "hash": str, "state": str, "lost_at": str, "updated_at": str},
        pk="id", defaults={"state": "waiting"},
    )
    db["appended"].create_index(["ledger_path"])


@migration
def m013_note_language(db: Database) -> None:
    """The language each note is written in (`languages.language`; "" when it cannot be
    told), so `status` and `index` can say when a vault is multilingual. Left NULL here:
    the next index run fills it from the stored chunks, without re-parsing a note."""
    if "lang" not in db["notes"].columns_dict:  # a store whose record of it was lost
        db["notes"].add_column("lang", str)


@migration
def m014_front_matter_summary(db: Database) -> None:
    """A note's front-matter summary (`description`, `desc`, `summary`, …) is now searched
    as the opening of its first chunk: re-parse every note once, so chunk texts follow;
    only notes with a summary are embedded again."""
    if db.execute("SELECT count(*) FROM notes").fetchone()[0]:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('reparse_all', '1')")
