"""Lines vaultmem appended to a ledger, watched until they are the user's own.

vaultmem cannot stop an editor from saving a ledger over a line `ledger add` (or
`ledger accept`) has just appended: an editor that opened the file before the append
holds a copy without it and writes that copy back with the user's next edit. What it
can do is notice. Each appended line is remembered (its id, the line, the ledger's
modification time and content hash right after the write), and every index run that
reads the ledger again looks for it:

    waiting   appended, not read by an index yet
    seen      read back exactly as appended: still watched
    kept      the user changed the line (checked it off, reworded it...): theirs now
    lost      gone while still as appended, or never read before the ledger was saved
              without it: `status` and `ledger` say so, `ledger restore ID` puts the
              line back (and watches it again), `ledger restore ID --drop` forgets it
    dropped   the user said it is gone on purpose

Nothing is re-added silently: a line deleted on purpose looks the same as one saved
over. The `appended` table is written here only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .errors import NotFoundError, VaultmemError
from .ledger import LedgerEntry
from .schema import SCHEMA
from .store import Store
from .store import appended as rows

WATCHED = ("waiting", "seen")


def remember(store: Store, added, stamp: str, entry_id: str | None = None) -> None:
    """Watch a line just appended (again, after `restore`). A store that cannot be
    written (a read-only mount) watches nothing: the line is in the ledger all the same."""
    if store.read_only:
        return
    with store.atomic():
        rows.watch(store, entry_id or added.id, added.ledger, added.line, added.text, stamp,
                   added.mtime_ns, added.digest)


def ids(store: Store) -> set[str]:
    """Every id vaultmem ever appended: a new line must not take one of them."""
    return rows.ids(store)


def check(store: Store, ledger: str, changes: list[tuple[str, LedgerEntry | None, list]],
          read: tuple[int, str] | None, stamp: str) -> list[str]:
    """After an index run read `ledger` (`read`: its modification time and content hash
    as read) and reconciled it into `changes`, move each watched line on; return a
    message for each one lost now.

    A line never read yet counts as lost only if the ledger was read as written after
    the append: a later modification time, or the same one (file times are coarse) and
    other bytes than the append wrote. A run that read it just before must not judge
    it. A lost line that is back (put back by hand, or moved to another ledger with its
    block id) is watched again."""
    now = {entry_id: entry for entry_id, entry, _ in changes}
    messages = []
    for entry_id, where, text, state, at_mtime, at_hash, appended_at in rows.watched(store):
        if where != ledger and now.get(entry_id) is None:
            continue  # another ledger's line, not here
        new = _next_state(state, entry_id in now, now.get(entry_id), text,
                          _read_after(read, at_mtime, at_hash))
        if new == state and where == ledger:
            continue
        rows.set_state(store, entry_id, new, ledger, stamp if new == "lost" else None, stamp)
        if new == "lost":
            messages.append(lost_message(entry_id, appended_at, stamp))
    return messages


def _read_after(read: tuple[int, str] | None, at_mtime: int | None, at_hash: str | None
                ) -> bool:
    if read is None or at_mtime is None:
        return True
    mtime_ns, digest = read
    return mtime_ns > at_mtime or (mtime_ns == at_mtime and digest != at_hash)


def _next_state(state: str, mentioned: bool, entry: LedgerEntry | None, text: str,
                read_after: bool) -> str:
    if entry is not None:  # in the ledger: as appended, or changed by the user
        return "seen" if entry.raw.strip() == text.strip() else "kept"
    if state == "lost":
        return state
    if mentioned or (state == "waiting" and read_after):
        return "lost"  # removed in this run, or never read and saved over
    return state


def lost_message(entry_id: str, appended_at: str, lost_at: str) -> str:
    return (f"appended {entry_id} on {_when(appended_at)}, gone on {_when(lost_at)}: the "
            "ledger was saved without it (an editor holding an older copy?); `vaultmem "
            f"ledger restore {entry_id}` puts the line back, `--drop` forgets it")


def _when(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return str(stamp)


def lost(store: Store) -> list[dict]:
    """The appended lines lost and not restored or dropped, oldest first."""
    return [{"id": i, "ledger": ledger, "line": line, "text": text, "appended_at": at,
             "lost_at": gone, "message": lost_message(i, at, gone)}
            for i, ledger, line, text, at, gone in rows.lost(store)]


@dataclass
class Restored:
    """`vaultmem ledger restore ID`: the line put back (or the offer dropped)."""

    id: str
    action: str  # "restored" or "dropped"
    ledger: str
    line: int | None
    text: str

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "id": self.id, "action": self.action,
                "ledger": self.ledger, "line": self.line, "text": self.text}


def lost_line(store: Store, entry_id: str) -> tuple[str, str]:
    """(ledger, line) of a lost appended line; an error naming what to do otherwise."""
    row = rows.one(store, entry_id)
    if row is None:
        raise NotFoundError(f"no line appended by vaultmem has the id {entry_id!r}: `vaultmem "
                            "ledger --json` lists the lost ones under \"lost\"")
    ledger, text, state = row
    if state != "lost":
        raise VaultmemError(f"{entry_id} is not lost (it is {state}): nothing to restore")
    return ledger, text


def drop(store: Store, entry_id: str, stamp: str) -> Restored:
    ledger, text = lost_line(store, entry_id)
    with store.atomic():
        rows.drop(store, entry_id, stamp)
    return Restored(entry_id, "dropped", ledger, None, text)
