"""The SQLite store: opening (WAL, migrations), transactions, the writer lock, and the
reads and writes of notes, chunks, links, runs and meta.

The rest of the store package holds the statements of each family of tables
(`migrations.py` every table's shape, `matrix.py` the query matrix, `fts.py` FTS5 over
`chunks_fts`, and entries, items, candidates, nudges, salience, appended, notes,
filters, vectors, runs, salvage). Nothing outside the package touches the connection or
writes SQL: callers use `Store`'s methods and the package's named functions, get plain
tuples and dataclasses back, and wrap a sequence of writes in `store.atomic()`.

Which domain module decides what goes into which tables (every reader may read any):

    notes, chunks, chunks_fts, links, tags,       indexer.py, through the note, link and
      aliases, resolved_pairs, vectors              vector methods here
    ops, runs, warnings, meta                     here (`add_op`, `start_run`,
                                                    `finish_run`, `replace_warnings`,
                                                    `set_meta`, `bump_generation`; the
                                                    run's flags: runs.py), for every writer
    entries, entry_links, entry_views             ledger_sync.py (and indexer.py when a
                                                    ledger note moves), through entries.py
    prospective                                   prospective.py, through items.py
    candidates                                    candidates.py, through candidates.py
    salience                                      salience.py, through salience.py
    nudge_state, surfacings, feedback             nudge.py, through nudges.py
    appended                                      appended.py, through appended.py
    _migrations, and every table's columns        migrations.py
    all of them, once                             recover.py, rebuilding a damaged store
                                                    through salvage.py

A store opens with the standard library's sqlite3 alone: sqlite-utils is imported only
when a migration has to run, so a query does not pay for it.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import (
    BusyError,
    DiskFullError,
    NoIndexError,
    StoreDamagedError,
    StoreReadOnlyError,
    VaultmemError,
)
from ..text.rows import StoredNote
from . import fts, migrations

if TYPE_CHECKING:  # numpy comes with the matrix, on the first read that needs it
    import numpy as np

    from .matrix import Matrix, MatrixCache

__all__ = ["Store", "StoredNote", "close_all", "explain", "writer_lock",
           "writer_running"]

CHECKED_AT = "checked_at"  # meta: wall-clock seconds of the last passing check
_DAMAGE = ("malformed", "not a database", "file is encrypted", "disk image")
_READ_ONLY = ("readonly", "read-only")
_LIVE: weakref.WeakSet[Store] = weakref.WeakSet()  # stores not yet closed (`close_all`)


# Statements that open or close a transaction themselves: `Store.execute` leaves them be.
_TRANSACTION_WORDS = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})
_FIRST_WORD = re.compile(r"\s*([A-Za-z]*)")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path))
    try:
        conn.execute("PRAGMA busy_timeout = 10000")  # a migration may be running elsewhere
        migrations.check_not_newer(conn, path)  # before anything is written
        conn.execute("PRAGMA recursive_triggers = on")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = wal")
        conn.execute("PRAGMA synchronous = NORMAL")
        migrations.apply(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """Open without writing anything: `mode=ro` reads the WAL if there is one; on a
    read-only mount where its index file cannot be made, `immutable=1` reads the main
    file alone (nothing can be writing it there)."""
    last: sqlite3.Error | None = None
    for flags in ("mode=ro", "immutable=1"):
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{flags}", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            conn.close()
            last = exc
            continue
        try:
            migrations.check_not_newer(conn, path)
        except VaultmemError:
            conn.close()
            raise
        conn.execute("PRAGMA recursive_triggers = on")
        missing = migrations.missing(conn)
        if missing:
            conn.close()
            raise VaultmemError(f"{path}: the store needs upgrading ({', '.join(missing)}) "
                                "but is read-only: run `vaultmem index` once where it can be "
                                "written")
        return conn
    raise sqlite3.OperationalError(str(last))


def _writable(path: Path) -> bool:
    """Whether the store (and the folder its journal files go in) can be written. A
    read-only mount says no even to root."""
    folder_ok = os.access(path.parent, os.W_OK | os.X_OK)
    return folder_ok and (not path.exists() or os.access(path, os.W_OK))


def explain(exc: BaseException) -> VaultmemError | None:
    """The user's view of an SQLite failure that means the store is damaged or read-only,
    or of a full disk (raised anywhere, so translated where the CLI and the MCP server
    catch it); None for anything else."""
    full = disk_full(exc)
    if full is not None:
        return full
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    text = str(exc).lower()
    path = store_of(exc) or "in use"
    if any(word in text for word in _DAMAGE):
        return StoreDamagedError(path, str(exc))
    if isinstance(exc, sqlite3.OperationalError) and any(w in text for w in _READ_ONLY):
        return StoreReadOnlyError(path, "writing")
    return None


def store_of(exc: BaseException) -> Path | None:
    """The path of the store an error came from: the innermost frame it passed through
    that worked on a `Store` (one of its methods, a store/ function given one). Not the
    store opened last: a process may hold two vaults, and either can fail. None when no
    frame held one and this process has not exactly one store open."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            if isinstance(value, Store):
                return value.path
    live = list(_LIVE)
    return live[0].path if len(live) == 1 else None


_FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
LOW_SPACE = 64 << 20  # bytes: below this, SQLite's "disk I/O error" is a full disk


def disk_full(exc: BaseException, store: Path | None = None) -> VaultmemError | None:
    """DiskFullError for a write that failed for want of room: an OSError ENOSPC, SQLite's
    "database or disk is full", or its "disk I/O error" where the store's disk has next
    to nothing free (SQLite reports a full disk that way when the WAL cannot grow).
    Another I/O error is named as one. None for anything else."""
    folder = (store or store_of(exc) or Path(".")).parent
    if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
        return DiskFullError(Path(exc.filename).parent if exc.filename else folder)
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    text = str(exc).lower()
    if "database or disk is full" in text:
        return DiskFullError(folder)
    if "disk i/o error" in text:
        try:
            low = shutil.disk_usage(folder).free < LOW_SPACE
        except OSError:
            low = False
        return DiskFullError(folder) if low else VaultmemError(
            f"the disk under the store {folder} reported an I/O error: check it (and its "
            "free space), then run the command again")
    return None


@contextmanager
def writer_lock(db_path: Path, what: str) -> Iterator[None]:
    """One long-running writer (index, salience) at a time, across processes and
    platforms: a `filelock` lock file beside the store. A second writer fails at once."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(db_path) + ".lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise BusyError(
            f"another vaultmem run is already writing {db_path}: "
            f"wait for it to finish, then run `vaultmem {what}` again") from None
    except OSError as exc:  # the folder cannot be written
        raise StoreReadOnlyError(db_path, f"`vaultmem {what}` ({exc.strerror})") from None
    try:
        yield
    finally:
        lock.release()


def close_all() -> None:
    """Close every store this process still has open: the console script ends without
    the interpreter's teardown, and a closed store checkpoints its WAL."""
    for store in list(_LIVE):
        store.close()


def writer_running(db_path: Path) -> bool:
    """Whether some process holds the writer lock right now (checked by taking it)."""
    try:
        with writer_lock(db_path, "index"):
            return False
    except BusyError:
        return True
    except VaultmemError:
        return False  # no lock can be taken on a read-only store: nothing writes it


class Store:
    """A vaultmem database. Open with `Store.open(path)`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, read_only: bool = False):
        self.conn = conn  # for the store layer (fts.py) and tests; callers use methods
        self.path = path
        self.read_only = read_only
        self._locked = False
        self._matrices: MatrixCache | None = None  # made by the first matrix() call
        self._check: _BackgroundCheck | None = None
        self._titles: tuple[str, dict] | None = None
        _LIVE.add(self)

    @classmethod
    def open(cls, path: Path, *, create: bool = False, vault: Path | None = None) -> Store:
        """Open (and migrate) the store; without `create`, a missing store is an error.

        A store that cannot be written (a read-only mount, a file without write
        permission) is opened read-only: reads work, writes raise StoreReadOnlyError.
        """
        path = Path(path)
        if path.exists() and not path.is_file():
            raise VaultmemError(f"{path} is not a regular file: point `db` (or VAULTMEM_DB) "
                                "at a store file, e.g. <vault>/.vaultmem/vaultmem.db")
        if not path.exists():
            if not create:
                raise NoIndexError(path, vault or ".")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise VaultmemError(f"cannot create the store at {path} "
                                    f"({exc.strerror}): pass a writable `db`") from None
        store = cls._open_rw(path) if _writable(path) else None
        if store is None:
            if not path.exists():
                raise VaultmemError(f"cannot create the store at {path} (its folder is "
                                    "read-only): pass a writable `db`")
            store = cls(cls._guarded(_connect_read_only, path), path, read_only=True)
        return store

    @classmethod
    def _open_rw(cls, path: Path) -> Store | None:
        for attempt in range(5):
            try:
                return cls(_connect(path), path)
            except sqlite3.OperationalError as exc:
                text = str(exc).lower()
                if any(w in text for w in _READ_ONLY) or "unable to open" in text:
                    return None  # cannot write after all: the caller opens read-only
                if (full := disk_full(exc, path)) is not None:
                    raise full from None
                # Switching a brand-new file to WAL can report "locked" without waiting
                # for the busy handler while another process creates the same store.
                if "locked" not in text or attempt == 4:
                    raise VaultmemError(f"{path}: cannot open the store ({exc})") from None
                time.sleep(0.2 * (attempt + 1))
            except sqlite3.DatabaseError as exc:
                raise _unusable(path, exc) from None
        raise AssertionError("unreachable")

    @staticmethod
    def _guarded(connect, path: Path) -> sqlite3.Connection:
        try:
            return connect(path)
        except sqlite3.DatabaseError as exc:
            raise _unusable(path, exc) from None

    def close(self) -> None:
        _LIVE.discard(self)
        self.conn.close()

    @contextmanager
    def writer_lock(self, what: str) -> Iterator[None]:
        """One long-running writer (index, salience) at a time, across processes.

        SQLite serialises single writes already; this keeps two whole runs from
        interleaving their transactions. Readers never take it. Taking it also checks
        the store (`check`): a writer must not build on a damaged file. The check reads
        every page (0.8 s of CPU for the 1 GB store of 50,000 notes), so it runs on its
        own connection in a background thread while the run reads (the walk, the plan);
        the run's first write transaction (`atomic`) waits for its verdict, and so does
        the end of a run that wrote nothing. An index run that finds nothing to change
        stops it (`skip_check`): it writes only its run row.
        """
        if self.read_only:
            raise StoreReadOnlyError(self.path, f"`vaultmem {what}`")
        with writer_lock(self.path, what):
            self._locked = True
            self._check = _BackgroundCheck(self.path)
            try:
                yield
                self.await_check()
            finally:
                self._locked = False
                if self._check is not None:  # the run failed first: stop the check
                    self._check.cancel()
                    self._check = None

    def skip_check(self) -> None:
        """Stop the writer lock's check: the run has found nothing to change (it writes
        only its own run row), so it need not read every page of the store first.
        `status` and every run that changes something still check."""
        if self._check is not None:
            check, self._check = self._check, None
            check.cancel()
            if check.error is not None:  # it had finished, and found damage
                raise check.error

    def await_check(self) -> None:
        """Wait for the writer lock's check of the store; raise StoreDamagedError if it
        failed. Returns at once when no check is under way."""
        if self._check is None:
            return
        check, self._check = self._check, None
        check.thread.join()
        if check.error is not None:
            raise check.error
        self.set_meta(CHECKED_AT, str(int(time.time())))

    def checked_within(self, seconds: float) -> bool:
        """Whether a writer's check of the whole store passed in the last `seconds`."""
        try:
            return time.time() - float(self.get_meta(CHECKED_AT) or 0) < seconds
        except ValueError:
            return False

    def check(self) -> None:
        """Raise StoreDamagedError unless SQLite's quick_check passes (every page read
        once: 0.05 s of CPU for an 86 MB store of 6,500 notes)."""
        quick_check(self.conn, self.path)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction; nested, a savepoint (rolled back alone if its block fails)."""
        if self._check is not None:  # nothing is written before the store is known sound
            self.await_check()
        if self.conn.in_transaction:
            self.conn.execute("SAVEPOINT atomic")
            try:
                yield
            except BaseException:
                if self.conn.in_transaction:  # an error may have ended the transaction
                    self.conn.execute("ROLLBACK TO SAVEPOINT atomic")
                    self.conn.execute("RELEASE SAVEPOINT atomic")
                raise
            self.conn.execute("RELEASE SAVEPOINT atomic")
            return
        self.conn.execute("BEGIN")
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: every read inside sees one consistent state (WAL), even
        while an index run commits in another process."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def execute(self, sql: str, params: Iterable = ()) -> sqlite3.Cursor:
        """Run one statement. A write outside `atomic()` is committed at once, so no
        statement leaves a transaction open behind it."""
        was_open = self.conn.in_transaction
        try:
            cursor = self.conn.execute(sql, list(params))
        except Exception:
            if not was_open and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        if (not was_open and self.conn.in_transaction and cursor.description is None
                and _FIRST_WORD.match(sql).group(1).upper() not in _TRANSACTION_WORDS):
            self.conn.execute("COMMIT")
        return cursor

    def executemany(self, sql: str, rows: Iterable[tuple]) -> None:
        """One statement over many rows (inside the caller's `atomic()`)."""
        self.conn.executemany(sql, rows)

    def insert(self, table: str, row: dict) -> int:
        """Add one row; its rowid."""
        names = ", ".join(f"[{k}]" for k in row)
        return self.execute(f"INSERT INTO [{table}] ({names}) VALUES "
                            f"({', '.join('?' * len(row))})", row.values()).lastrowid

    def update(self, table: str, row_id: int | str, fields: dict) -> None:
        """Change `fields` of the row whose `id` is `row_id` (which must exist)."""
        sets = ", ".join(f"[{k}] = ?" for k in fields)
        cursor = self.execute(f"UPDATE [{table}] SET {sets} WHERE id = ?",
                              [*fields.values(), row_id])
        if cursor.rowcount != 1:
            raise LookupError(f"{table}: no row {row_id!r}")

    def has(self, table: str, row_id: int | str) -> bool:
        """Whether a row of `table` has this `id` (present or not: an id is never reused)."""
        return self.execute(f"SELECT 1 FROM [{table}] WHERE id = ?", [row_id]).fetchone() \
            is not None

    def mark_absent(self, table: str, row_id: int | str, stamp: str) -> None:
        """A row whose source is gone stays, with `present = 0` (history is never deleted)."""
        self.execute(f"UPDATE [{table}] SET present = 0, updated_at = ? WHERE id = ?",
                     [stamp, row_id])

    # -- notes ---------------------------------------------------------------

    def note_states(self) -> dict[str, StoredNote]:
        """{path: StoredNote} of every note row, deleted ones too (`deleted` is 0 or 1)."""
        rows = self.execute("SELECT id, path, size, mtime_ns, hash, deleted, problem FROM notes")
        return {note.path: note for note in map(StoredNote._make, rows)}

    def upsert_note(self, path: str, fields: dict) -> int:
        """Insert or update the row for `path`; return its id."""
        cols = ["path", *fields]
        sql = (
            f"INSERT INTO notes ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
            f"ON CONFLICT(path) DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in fields)} "
            "RETURNING id"
        )
        return self.execute(sql, [path, *fields.values()]).fetchone()[0]

    def update_note(self, note_id: int, fields: dict) -> None:
        sets = ", ".join(f"{c} = ?" for c in fields)
        self.execute(f"UPDATE notes SET {sets} WHERE id = ?", [*fields.values(), note_id])

    def notes_without_language(self, limit: int = 500) -> list[tuple[int, str]]:
        """(note id, its chunks' text) of live notes whose language was never looked at
        (a store made before notes had one), a batch at a time."""
        return self.execute(
            "SELECT n.id, COALESCE((SELECT group_concat(c.text, char(10)) FROM chunks c "
            "WHERE c.note_id = n.id), '') FROM notes n WHERE n.deleted = 0 AND n.lang IS NULL "
            "LIMIT ?", [limit]).fetchall()

    def language_counts(self) -> dict[str, int]:
        """{language: live notes written in it}; "" counts the notes too short or too mixed
        to tell."""
        return dict(self.execute("SELECT COALESCE(lang, ''), count(*) FROM notes "
                                 "WHERE deleted = 0 GROUP BY 1 ORDER BY 2 DESC, 1").fetchall())

    def drop_from_search(self, note_id: int) -> None:
        """Take a (deleted) note's chunks out of the FTS index; the chunks themselves stay."""
        self.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks "
                     "WHERE note_id = ?)", [note_id])

    def replace_note_parts(self, note_id: int, chunks, links, tags, aliases,
                           title: str = "") -> None:
        """Swap a note's derived rows (chunks, links, tags, aliases) for new ones.

        Raw executemany rather than sqlite-utils' insert_all: this runs once per
        changed note, and insert_all introspects the table on every call.
        """
        conn = self.conn
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks "
                     "WHERE note_id = ?)", [note_id])
        for table in ("chunks", "tags", "aliases"):
            conn.execute(f"DELETE FROM {table} WHERE note_id = ?", [note_id])
        conn.execute("DELETE FROM links WHERE source_id = ?", [note_id])
        conn.executemany(
            "INSERT INTO chunks (note_id, ord, heading, text, hash) VALUES (?, ?, ?, ?, ?)",
            [(note_id, *chunk) for chunk in chunks],
        )
        conn.executemany(
            "INSERT INTO links (source_id, target_raw, kind, heading, block, label, line) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(note_id, *link) for link in links],
        )
        conn.executemany("INSERT OR IGNORE INTO tags (note_id, tag) VALUES (?, ?)",
                         [(note_id, t) for t in tags])
        conn.executemany("INSERT OR IGNORE INTO aliases (note_id, alias) VALUES (?, ?)",
                         [(note_id, a) for a in aliases])
        rows = conn.execute("SELECT id, heading, text FROM chunks WHERE note_id = ?", [note_id])
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, title, aliases, heading, body) VALUES (?, ?, ?, ?, ?)",
            [fts.fts_row(cid, title, list(aliases), heading, text)
             for cid, heading, text in rows])

    def path_ids(self) -> dict[str, int]:
        return dict(self.execute("SELECT path, id FROM notes WHERE deleted = 0"))

    # -- links ---------------------------------------------------------------

    def all_links(self, sources: list[int] | None = None) -> list[tuple]:
        """(link id, source path, target_raw, kind, heading, block, line, current target id)
        of every live note's links, or only of the notes `sources`."""
        sql = ("SELECT l.id, n.path, l.target_raw, l.kind, l.heading, l.block, l.line, "
               "l.target_id FROM links l JOIN notes n ON n.id = l.source_id WHERE n.deleted = 0")
        if sources is None:
            return self.execute(sql).fetchall()
        return self._in_chunks(sql + " AND l.source_id IN ({})", sources)

    def resolved_pairs(self, sources: list[int] | None = None) -> set[tuple[int, int]]:
        sql = "SELECT DISTINCT source_id, target_id FROM links WHERE target_id IS NOT NULL"
        if sources is None:
            return set(self.execute(sql))
        return set(self._in_chunks(sql + " AND source_id IN ({})", sources))

    def remembered_pairs(self, sources: list[int] | None = None) -> set[tuple[int, int]]:
        sql = "SELECT source_id, target_id FROM resolved_pairs"
        if sources is None:
            return set(self.execute(sql))
        return set(self._in_chunks(sql + " WHERE source_id IN ({})", sources))

    def remember_pairs(self, pairs: set[tuple[int, int]],
                       sources: list[int] | None = None) -> None:
        """Replace the remembered pairs (of `sources` only, if given) with `pairs`."""
        if sources is None:
            self.execute("DELETE FROM resolved_pairs")
        else:
            self.conn.executemany("DELETE FROM resolved_pairs WHERE source_id = ?",
                                     [(s,) for s in sources])
        self.conn.executemany("INSERT INTO resolved_pairs (source_id, target_id) VALUES (?, ?)",
                                 sorted(pairs))

    def link_rows(self) -> tuple[int, list[tuple]]:
        """(resolved links of live notes, their unresolved links as (source path, line,
        target, kind) by source and line). Counted in `status.link_summary`."""
        live = "FROM links l JOIN notes n ON n.id = l.source_id WHERE n.deleted = 0"
        resolved = self.execute(f"SELECT count(*) {live} AND l.target_id IS NOT NULL")
        rows = self.execute(f"SELECT n.path, l.line, l.target_raw, l.kind {live} "
                            "AND l.target_id IS NULL ORDER BY n.path, l.line")
        return resolved.fetchone()[0], rows.fetchall()

    def alias_paths(self) -> dict[str, list[str]]:
        """{folded alias: live notes carrying it, shortest path first}."""
        from ..text.resolve import fold

        out: dict[str, list[str]] = {}
        for alias, path in self.execute(
                "SELECT a.alias, n.path FROM aliases a JOIN notes n ON n.id = a.note_id "
                "WHERE n.deleted = 0 ORDER BY length(n.path), n.path"):
            out.setdefault(fold(alias), []).append(path)
        return out

    def note_aliases(self, note_id: int) -> set[str]:
        return {a for (a,) in self.execute("SELECT alias FROM aliases WHERE note_id = ?",
                                           [note_id])}

    def _in_chunks(self, sql: str, ids: list[int], size: int = 500) -> list[tuple]:
        """Rows of `sql` (with one `IN ({})`) over `ids`, a bounded number of them per query."""
        rows: list[tuple] = []
        for start in range(0, len(ids), size):
            part = ids[start:start + size]
            rows += self.execute(sql.format(", ".join("?" * len(part))), part).fetchall()
        return rows

    def set_link_targets(self, updates: Iterable[tuple[int | None, int]]) -> None:
        self.conn.executemany("UPDATE links SET target_id = ? WHERE id = ?", updates)

    # -- ops, runs, warnings, meta -------------------------------------------

    def add_op(self, ts: str, op: str, note_id=None, entry_id=None, detail=None) -> None:
        self.execute(
            "INSERT INTO ops (ts, op, note_id, entry_id, detail) VALUES (?, ?, ?, ?, ?)",
            [ts, op, note_id, entry_id, json.dumps(detail or {}, ensure_ascii=False)],
        )

    def lock_taken(self) -> None:
        """This process holds the writer lock, taken before the store was opened
        (`index --rebuild` moves a damaged file aside first): runs marked running are
        then known to be killed ones."""
        self._locked = True

    def start_run(self, kind: str, started: str) -> int:
        """Record a run as running. Runs still marked running from before were killed:
        they are marked interrupted, unless a writer holds the lock (then one of them
        is still going)."""
        stale = self._locked or not writer_running(self.path)
        with self.atomic():
            if stale:
                self.execute("UPDATE runs SET status = 'interrupted' WHERE status = 'running'")
            return self.insert("runs", {"kind": kind, "started": started, "status": "running"})

    def finish_run(self, run_id: int, finished: str, status: str, counts: dict) -> None:
        with self.atomic():
            self.update("runs", run_id,
                        {"finished": finished, "status": status, "counts": json.dumps(counts)})

    def replace_warnings(self, source: str, paths: Iterable[str] | None, rows) -> None:
        """Drop the warnings of `source` (for `paths`, or all if None), then add `rows`."""
        if paths is None:
            self.execute("DELETE FROM warnings WHERE source = ?", [source])
        else:
            self.conn.executemany(
                "DELETE FROM warnings WHERE source = ? AND path = ?", [(source, p) for p in paths]
            )
        self.conn.executemany(
            "INSERT INTO warnings (path, line, message, source) VALUES (?, ?, ?, ?)",
            ((p, ln, m, source) for p, ln, m in rows))

    def drop_warnings(self, paths: Iterable[str]) -> None:
        """Drop every warning about notes that are gone from these paths (deleted, or moved
        away): a warning names a file as it is, and the walk's own are redone each run."""
        self.conn.executemany("DELETE FROM warnings WHERE path = ? AND source != 'walk'",
                              [(p,) for p in paths])

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value])

    # -- vectors ---------------------------------------------------------------

    def missing_vectors(self, fingerprint: str) -> list[tuple[str, int]]:
        """(hash, text length) of live chunks, conditions and entry views with no vector under
        `fingerprint`. Only hashes: the texts are fetched group by group (`texts_for`)."""
        # NOT EXISTS, not a LEFT JOIN: SQLite then checks the vector index before it
        # reads a chunk's text for its length, so a no-op run reads no chunk text
        # (50,000 notes: 0.09 s instead of 0.8 s).
        return self.execute(
            "SELECT c.hash, MIN(length(n.title) + length(c.heading) + length(c.text)) "
            "FROM chunks c JOIN notes n ON n.id = c.note_id AND n.deleted = 0 "
            "WHERE NOT EXISTS (SELECT 1 FROM vectors v "
            "                  WHERE v.hash = c.hash AND v.fingerprint = ?) "
            "GROUP BY c.hash "
            "UNION SELECT e.cond_hash, MIN(length(e.condition)) FROM entries e "
            "WHERE e.present = 1 AND e.cond_hash IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.hash = e.cond_hash AND v.fingerprint = ?) "
            "GROUP BY e.cond_hash "
            "UNION SELECT ev.hash, MIN(length(ev.text)) FROM entry_views ev "
            "WHERE ev.kind IN ('condition', 'condition+action', 'action', 'subject') "
            "AND NOT EXISTS (SELECT 1 FROM vectors v "
            "                  WHERE v.hash = ev.hash AND v.fingerprint = ?) "
            "GROUP BY ev.hash",
            [fingerprint, fingerprint, fingerprint],
        ).fetchall()

    def texts_for(self, hashes: list[str]) -> dict[str, tuple[str, str, str, tuple]]:
        """{hash: (title, heading, text, aliases)} for chunk, condition or entry-view
        hashes: the arguments of `embed.embed_text`."""
        marks = ",".join("?" * len(hashes))
        rows = self.execute(
            "SELECT c.hash, n.title, c.heading, c.text, (SELECT json_group_array(a.alias) "
            "FROM aliases a WHERE a.note_id = n.id) FROM chunks c "
            f"JOIN notes n ON n.id = c.note_id WHERE c.hash IN ({marks}) "
            f"UNION ALL SELECT cond_hash, '', '', condition, '[]' FROM entries "
            f"WHERE cond_hash IN ({marks}) "
            f"UNION ALL SELECT hash, '', '', text, '[]' FROM entry_views WHERE hash IN ({marks})",
            [*hashes, *hashes, *hashes])
        out: dict[str, tuple[str, str, str, tuple]] = {}
        for digest, title, heading, text, aliases in rows:
            out.setdefault(digest, (title or "", heading or "", text or "",
                                    tuple(json.loads(aliases or "[]"))))
        return out

    def vectors_for(self, fingerprint: str, hashes: list[str]) -> dict[str, np.ndarray]:
        if not hashes:
            return {}
        marks = ",".join("?" * len(hashes))
        rows = self.execute(f"SELECT hash, vector FROM vectors WHERE fingerprint = ? AND hash IN "
                            f"({marks})", [fingerprint, *hashes])
        import numpy as np

        return {h: np.frombuffer(blob, dtype=np.float32) for h, blob in rows}

    def put_vectors(self, fingerprint: str, rows: Iterable[tuple[str, bytes]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO vectors (hash, fingerprint, vector) VALUES (?, ?, ?)",
            ((h, fingerprint, blob) for h, blob in rows),
        )

    def generation(self) -> str:
        """The store's generation: bumped in every transaction that changes notes, chunks
        or vectors (by any process), and by nothing else, so logging a query's mentions
        does not throw away the in-process caches."""
        return self.get_meta("generation", "0")

    def bump_generation(self) -> None:
        self.execute("INSERT INTO meta (key, value) VALUES ('generation', '1') "
                     "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")

    def note_titles(self) -> dict[int, tuple[str, str]]:
        """{note id: (path, title)} of live notes, cached like `matrix`."""
        generation = self.generation()
        if self._titles and self._titles[0] == generation:
            return self._titles[1]
        rows = self.execute("SELECT id, path, title FROM notes WHERE deleted = 0")
        titles = {r[0]: (r[1], r[2]) for r in rows}
        self._titles = (generation, titles)
        return titles

    def salience_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """(note ids ascending, their standing salience): two arrays, no per-note objects."""
        import numpy as np

        rows = self.execute("SELECT note_id, score FROM salience ORDER BY note_id").fetchall()
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids, np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))

    def salience_parts(self, note_ids: list[int]) -> dict[int, tuple[float, ...]]:
        """{note id: (score, importance, activation, centrality, prospective, recency)}."""
        marks = ",".join("?" * len(note_ids))
        return {r[0]: r[1:] for r in self.execute(
            "SELECT note_id, score, importance, activation, centrality, prospective, recency "
            f"FROM salience WHERE note_id IN ({marks})", note_ids)}

    def chunk_notes(self, chunk_ids: list[int]) -> dict[int, int]:
        marks = ",".join("?" * len(chunk_ids))
        return dict(self.execute(f"SELECT id, note_id FROM chunks WHERE id IN ({marks})",
                                 chunk_ids).fetchall())

    def prospective_note_ids(self) -> set[int]:
        """Notes that are prospective items or are linked from an open ledger entry."""
        return {r[0] for r in self.execute(
            "SELECT note_id FROM prospective WHERE present = 1 UNION "
            "SELECT l.target_id FROM entry_links l JOIN entries e ON e.id = l.entry_id "
            "WHERE e.present = 1 AND e.status = 'open' AND l.target_id IS NOT NULL")}

    def chunk_texts(self, chunk_ids: list[int]) -> dict[int, tuple[str, str]]:
        marks = ",".join("?" * len(chunk_ids))
        rows = self.execute(f"SELECT id, heading, text FROM chunks WHERE id IN ({marks})",
                            chunk_ids)
        return {r[0]: (r[1], r[2]) for r in rows}

    def matrix(self, fingerprint: str, dim: int) -> Matrix:
        """All live chunk vectors, cached in process and beside the database until
        another write changes the store (`matrix.MatrixCache`)."""
        if self._matrices is None:
            from .matrix import MatrixCache

            self._matrices = MatrixCache(self.path)
        return self._matrices.get(self, fingerprint, dim)

    def vector_rows(self, fingerprint: str) -> tuple[int, sqlite3.Cursor]:
        """(how many, a cursor over (chunk id, note id, vector blob)) of every live
        chunk with a vector under `fingerprint`, by note and chunk order. Call it inside
        `snapshot()`, so the count and the rows come from one state."""
        joins = ("FROM chunks c JOIN notes n ON n.id = c.note_id AND n.deleted = 0 "
                 "JOIN vectors v ON v.hash = c.hash AND v.fingerprint = ?")
        n = self.execute(f"SELECT count(*) {joins}", [fingerprint]).fetchone()[0]
        return n, self.execute(f"SELECT c.id, c.note_id, v.vector {joins} "
                               "ORDER BY c.note_id, c.ord", [fingerprint])

    def holds_none_of(self, text: str) -> bool:
        """Whether no chunk holds any of `text`'s words (`fts.holds_none`)."""
        return fts.holds_none(self.conn, text)

    def lexical_hits(self, text: str, chunks: int) -> list[tuple[int, float]]:
        """(chunk id, BM25) of the chunks matching `text`'s words (`fts.search`)."""
        return fts.search(self.conn, text, chunks)

    def stem_frequencies(self, stems: dict[str, str], stem_of) -> dict[str, int]:
        """{stem: chunks holding a word with that stem} (`fts.stem_frequencies`),
        kept until the store's generation changes: a query asks for the same ledger's
        words every time."""
        generation, key = self.generation(), frozenset(stems.items())
        kept = getattr(self, "_stem_df", None)
        if kept is None or kept[0] != generation:
            kept = self._stem_df = (generation, {})
        if key not in kept[1]:
            try:
                kept[1][key] = fts.stem_frequencies(self.conn, stems, stem_of)
            except sqlite3.OperationalError:  # no fts5vocab in this SQLite: no weights
                kept[1][key] = {}
            if len(kept[1]) > 64:  # contexts name different notes: keep a few
                kept[1].pop(next(iter(kept[1])))
        return kept[1][key]

    def lexical_coverage(self, text: str, chunk_ids: list[int]) -> dict[int, float]:
        """{chunk id: the share of `text`'s words it holds} (`fts.coverage`)."""
        return fts.coverage(self.conn, text, chunk_ids)


def quick_check(conn: sqlite3.Connection, path: Path) -> None:
    """Raise StoreDamagedError unless SQLite's quick_check of `conn` passes."""
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise StoreDamagedError(path, str(exc)) from None
    if rows != [("ok",)]:
        raise StoreDamagedError(path, "quick_check: " + "; ".join(str(r[0]) for r in rows[:3]))


class _BackgroundCheck:
    """`quick_check` of the store at `path` on a connection of its own, in a thread:
    SQLite releases the GIL while it reads, so the caller's Python work goes on."""

    def __init__(self, path: Path):
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._run, args=(path,), daemon=True,
                                       name="vaultmem-store-check")
        self.thread.start()

    def _run(self, path: Path) -> None:
        try:
            conn = sqlite3.connect(path, timeout=10)
            try:
                # SQLite asks every 1,000 steps whether to stop: no interrupt to race
                conn.set_progress_handler(lambda: self.cancelled, 1000)
                if not self.cancelled:
                    quick_check(conn, path)
            finally:
                conn.close()
        except StoreDamagedError as exc:
            if not (self.cancelled and "interrupted" in str(exc)):
                self.error = exc
        except sqlite3.DatabaseError as exc:  # the file would not even open
            self.error = StoreDamagedError(path, str(exc))
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that writes
            self.error = exc

    def cancel(self) -> None:
        """Stop the check at its next progress step and wait for the thread. A check that
        had already failed keeps its error."""
        self.cancelled = True
        self.thread.join()


def _unusable(path: Path, exc: sqlite3.DatabaseError) -> VaultmemError:
    if any(word in str(exc).lower() for word in _DAMAGE):
        return StoreDamagedError(path, str(exc))
    return VaultmemError(f"{path}: not a usable vaultmem store ({exc})")
