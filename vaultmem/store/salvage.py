"""A damaged store's history, read out of the old file and written into a new one
(`vaultmem index --rebuild`, recover.py, drives it).

Notes, chunks, links, tags and warnings are derived from the vault and are simply made
again. History is not: the ops log, ledger entries (their identities and revisions),
prospective items, nudge state, surfacings and feedback, the record of runs, and the
link pairs already logged. Those rows are read from the old file table by table, in
rowid order, stepping over pages SQLite cannot read, and written into the new store
before the vault is indexed, so every identity is kept. Vectors are carried too (they
are keyed by text and model). The old file is never deleted.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from . import migrations
from .connection import Store

# History, in the order it is written (notes first: the rest points at them).
HISTORY = ("notes", "ops", "entries", "entry_links", "prospective", "candidates",
           "nudge_state", "surfacings", "feedback", "due_log", "runs", "resolved_pairs",
           "vectors", "appended")
# Made again from the vault by the index run (or by `vaultmem salience`): not carried.
DERIVED = ("chunks", "links", "tags", "aliases", "warnings", "meta", "salience", "entry_views",
           "_migrations", "chunks_fts")
# Columns of notes that the index run derives again from the file: left empty.
_DERIVED = {"size": None, "mtime_ns": None, "hash": None, "problem": None}


@dataclass
class Salvage:
    """What could be read from one table of the old file."""

    table: str
    rows: list[dict] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # stretches of rows, described


def move_aside(db: Path, now: datetime) -> Path:
    """Rename the store and its WAL files to `<name>.before-rebuild-<time>` (and -wal,
    -shm), beside it."""
    stamp = now.strftime("%Y%m%dT%H%M%S")
    target = db.with_name(f"{db.name}.before-rebuild-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = db.with_name(f"{db.name}.before-rebuild-{stamp}-{n}")
    for suffix in ("-wal", "-shm"):  # the WAL may hold committed rows: it goes along
        side = db.with_name(db.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    db.rename(target)
    return target


def refuse_newer(db: Path) -> None:
    """A store made by a newer vaultmem is not damaged: rebuilding it here would trade its
    newer tables for this version's (NewerStoreError). One whose header cannot even be
    read is rebuilt as any damaged store is."""
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        return
    try:
        migrations.check_not_newer(conn, db)
    except sqlite3.DatabaseError:
        return
    finally:
        conn.close()


def read_history(path: Path) -> dict[str, Salvage]:
    """Every readable row of each history table of the old file."""
    out = {}
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master "
                                             "WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        return {t: Salvage(t, [], [f"the file's table list is unreadable ({exc})"])
                for t in HISTORY}
    try:
        for table in HISTORY:
            out[table] = (read_rows(conn, table) if table in tables
                          else Salvage(table, [], ["the table is missing"]))
    finally:
        conn.close()
    return out


def read_rows(conn: sqlite3.Connection, table: str) -> Salvage:
    """The table's rows in rowid order. Rows are read a block at a time; near damage,
    one at a time, and where even that fails the damage is skipped (jumps double until
    a row reads again) and the rowids stepped over are noted."""
    found = Salvage(table)
    try:
        info = conn.execute(f"PRAGMA table_info([{table}])").fetchall()
        top = conn.execute(f"SELECT max(rowid) FROM [{table}]").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        found.unreadable.append(f"the whole table ({exc})")
        return found
    columns = [r[1] for r in info]
    reader = _Reader(conn, table, [_KINDS.get(r[2].upper(), object) for r in info], top)
    after = -(1 << 63)
    while top is not None:
        rows = reader.rows_after(after, 256) or reader.rows_after(after, 1)
        if rows:
            found.rows += [dict(zip(columns, row[1:], strict=True)) for row in rows]
            after = rows[-1][0]
            continue
        if rows == [] or after >= top:  # read to the end
            break
        resume = _next_readable(reader.readable_from, max(after, 0) + 1, top)
        first = f"rows {after + 1}" if after > -(1 << 63) else "rows from the start"
        found.unreadable.append(first + (f" to {resume - 1}" if resume else " to the end"))
        if resume is None:
            break
        after = resume - 1
    return found


_KINDS = {"INTEGER": int, "TEXT": str, "FLOAT": float, "REAL": float, "BLOB": bytes}


class _Reader:
    """Reads rows of one table of a damaged file, trusting none it cannot check."""

    def __init__(self, conn: sqlite3.Connection, table: str, kinds: list[type], top: int):
        self.conn, self.kinds, self.top = conn, kinds, top
        self.sql = f"SELECT rowid, * FROM [{table}] WHERE rowid > ? ORDER BY rowid LIMIT ?"

    def rows_after(self, after: int, limit: int) -> list[tuple] | None:
        """Up to `limit` rows after rowid `after`; [] at the end; None when any of them
        cannot be read or is not plausible."""
        try:
            rows = self.conn.execute(self.sql, [after, limit]).fetchall()
        except sqlite3.DatabaseError:
            return None
        last = after
        for row in rows:
            # A damaged page can still parse: rows out of order, past the end or of the
            # wrong types are its noise, not history.
            if not last < row[0] <= self.top or not self._plausible(row[1:]):
                return None
            last = row[0]
        return rows

    def readable_from(self, start: int) -> bool:
        return bool(self.rows_after(start - 1, 1))

    def _plausible(self, values: tuple) -> bool:
        """Every value is NULL or of its column's declared type (an int in a float
        column too): random bytes read as a row rarely manage that."""
        return all(v is None or k is object or isinstance(v, k) or (k is float and
                   isinstance(v, int)) for v, k in zip(values, self.kinds, strict=True))


def _next_readable(readable, start: int, top: int) -> int | None:
    """The first rowid from `start` on from which a row reads again, or None: jumps
    double past the damage until a read succeeds, then a binary search finds its end."""
    jump, tried = 0, start - 1
    while start + jump <= top:
        if readable(start + jump):
            low, high = tried + 1, start + jump
            while low < high:  # the first start in (tried, start + jump] that reads
                mid = (low + high) // 2
                if readable(mid):
                    high = mid
                else:
                    low = mid + 1
            return low
        tried = start + jump
        jump = max(1, jump * 2)
    return None


def write_history(store: Store, salvaged: dict[str, Salvage]) -> int:
    """Write the salvaged rows into the new store; return the placeholder notes made for
    note ids the history names but whose rows were lost."""
    if not salvaged:
        return 0
    notes = [{**row, **_DERIVED} for row in salvaged["notes"].rows]
    known = {row["id"] for row in notes}
    placeholders = _placeholders(salvaged, known, {row["path"] for row in notes})
    with store.atomic():
        _insert(store, "notes", notes + placeholders)
        for table in HISTORY[1:]:
            rows = salvaged[table].rows
            if table == "runs":
                rows = [{**r, "status": "interrupted"} if r.get("status") == "running" else r
                        for r in rows]
            _insert(store, table, rows)
        # Derived from the entries' links and resolved again by the index run.
        store.execute("UPDATE entry_links SET target_id = NULL")
    return len(placeholders)


def _insert(store: Store, table: str, rows: list[dict]) -> None:
    """Insert rows, keeping their ids; columns the new schema lacks are dropped."""
    columns = {r[1] for r in store.execute(f"PRAGMA table_info([{table}])")}
    groups: dict[tuple, list[tuple]] = {}
    for row in rows:
        names = tuple(k for k in row if k in columns)
        groups.setdefault(names, []).append(tuple(row[k] for k in names))
    for names, values in groups.items():
        store.executemany(
            f"INSERT OR IGNORE INTO [{table}] ({', '.join(f'[{k}]' for k in names)}) "
            f"VALUES ({', '.join('?' * len(names))})", values)


def _placeholders(salvaged: dict[str, Salvage], known: set[int], paths: set[str]) -> list[dict]:
    """A note row for each note id the salvaged history points at but whose own row was
    lost: at the path its last op names when that is free (so the index run finds the
    file and the history stays with it), else under `.lost/` (never a vault path)."""
    last_path: dict[int, tuple[str, str]] = {}
    referenced: set[int] = set()
    for op in salvaged["ops"].rows:
        note_id = op.get("note_id")
        if note_id is None or note_id in known:
            continue
        referenced.add(note_id)
        detail = _json(op.get("detail"))
        path = detail.get("to") or detail.get("path")
        if isinstance(path, str):
            last_path[note_id] = (path, op.get("op") or "")
    for table, column in (("prospective", "note_id"), ("candidates", "note_id"),
                          ("resolved_pairs", "source_id"), ("resolved_pairs", "target_id")):
        referenced |= {r[column] for r in salvaged[table].rows
                       if r.get(column) is not None and r[column] not in known}
    out = []
    for note_id in sorted(referenced):
        path, op = last_path.get(note_id, ("", ""))
        if not path or path in paths:
            path, op = f".lost/{note_id}", "deleted"
        paths.add(path)
        out.append({"id": note_id, "path": path, "title": Path(path).stem,
                    "deleted": int(op == "deleted"), **_DERIVED,
                    "problem": "row lost from a damaged store" if path.startswith(".lost/")
                    else None})
    return out


def _json(text) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str) else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}

