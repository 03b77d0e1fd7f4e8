"""The `appended` table: the lines vaultmem appended to a ledger, watched until the
user's own (appended.py in the domain says when a line is seen or lost)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


def watch(store: Store, entry_id: str, ledger: str, line: int, text: str, stamp: str,
          mtime_ns: int | None, digest: str | None) -> None:
    """Watch a line (again): its state goes back to 'waiting'."""
    store.execute(
        "INSERT INTO appended (id, ledger_path, line, text, appended_at, mtime_ns, hash, "
        "state, lost_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting', NULL, ?) "
        "ON CONFLICT(id) DO UPDATE SET ledger_path = excluded.ledger_path, line = "
        "excluded.line, text = excluded.text, appended_at = excluded.appended_at, "
        "mtime_ns = excluded.mtime_ns, hash = excluded.hash, state = 'waiting', "
        "lost_at = NULL, updated_at = excluded.updated_at",
        [entry_id, ledger, line, text, stamp, mtime_ns, digest, stamp])


def ids(store: Store) -> set[str]:
    """Every id vaultmem ever appended."""
    return {row[0] for row in store.execute("SELECT id FROM appended")}


def watched(store: Store) -> list[tuple]:
    """(id, ledger, text, state, mtime_ns, hash, appended_at) of the lines still watched
    or lost."""
    return store.execute(
        "SELECT id, ledger_path, text, state, mtime_ns, hash, appended_at FROM appended "
        "WHERE state IN ('waiting', 'seen', 'lost')").fetchall()


def set_state(store: Store, entry_id: str, state: str, ledger: str, lost_at: str | None,
              stamp: str) -> None:
    store.execute("UPDATE appended SET state = ?, ledger_path = ?, lost_at = ?, "
                  "updated_at = ? WHERE id = ?", [state, ledger, lost_at, stamp, entry_id])


def lost(store: Store) -> list[tuple]:
    """(id, ledger, line, text, appended_at, lost_at) of the lost lines, oldest first."""
    return store.execute(
        "SELECT id, ledger_path, line, text, appended_at, lost_at FROM appended "
        "WHERE state = 'lost' ORDER BY lost_at, id").fetchall()


def one(store: Store, entry_id: str) -> tuple[str, str, str] | None:
    """(ledger, text, state) of one appended line, or None."""
    return store.execute("SELECT ledger_path, text, state FROM appended WHERE id = ?",
                         [entry_id]).fetchone()


def drop(store: Store, entry_id: str, stamp: str) -> None:
    store.execute("UPDATE appended SET state = 'dropped', updated_at = ? WHERE id = ?",
                  [stamp, entry_id])
