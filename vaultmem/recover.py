"""`vaultmem index --rebuild`: move a (damaged) store aside and rebuild it from the vault,
carrying over the history that can still be read from the old file (store/salvage.py
says what is carried and how it is read), then index the vault so the run only records
what really changed. The old file is never deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from . import clock
from .config import Settings
from .embed import Embedder
from .indexer import IndexReport, IndexWarning, Progress, index_vault
from .store import Store, writer_lock
from .store.salvage import (
    DERIVED,
    HISTORY,
    move_aside,
    read_history,
    refuse_newer,
    write_history,
)

__all__ = ["DERIVED", "HISTORY", "RebuildReport", "rebuild", "rebuild_vault"]


@dataclass
class RebuildReport:
    moved_to: str
    carried: dict[str, int]
    lost: dict[str, list[str]]
    placeholders: int

    def lines(self) -> list[str]:
        """What the rebuild did, for the person: where the old store went, what came over."""
        kept = ", ".join(f"{table} {n:,}" for table, n in self.carried.items())
        return [f"the old store was moved to {self.moved_to} (kept, never deleted)",
                f"carried over: {kept or 'nothing'}"]

    def problems(self) -> list[str]:
        """What could not be carried over: the rebuild's warnings."""
        out = []
        for table, stretches in self.lost.items():
            out.append(f"could not be read, not carried over: {table}: "
                       + "; ".join(stretches))
        if self.placeholders:
            out.append(f"{self.placeholders} notes named in the history could not be read: "
                       "their history is kept under placeholder rows")
        return out


def rebuild_vault(path: str | Path | None = None, db: str | Path | None = None, *,
                  now: datetime | None = None, embedder: Embedder | None = None,
                  progress: Progress | None = None) -> IndexReport:
    """`vaultmem index --rebuild`: the vault found as `Vault.open` finds it, without
    opening its store (a damaged one may not open)."""
    from .api import locate

    settings = locate(path, db)
    if embedder is None:
        from .embed import indexing_embedder

        embedder = indexing_embedder(settings)
    return rebuild(settings, embedder, now=now or clock.now(), progress=progress)


def rebuild(settings: Settings, embedder: Embedder, *, now: datetime,
            progress: Progress | None = None) -> IndexReport:
    """Move the store aside, make a new one with its readable history, index the vault."""
    now = clock.local_naive(now)
    db = settings.db
    db.parent.mkdir(parents=True, exist_ok=True)
    with writer_lock(db, "index --rebuild"):
        if db.exists():
            refuse_newer(db)
        moved = move_aside(db, now) if db.exists() else None
        salvaged = read_history(moved) if moved else {}
        store = Store.open(db, create=True, vault=settings.vault)
        store.lock_taken()  # this process holds the writer lock (taken above)
        placeholders = write_history(store, salvaged)
        report = index_vault(store, settings, embedder, now=now, full=True, progress=progress)
        store.close()
    if moved:
        summary = RebuildReport(
            str(moved), {t: len(s.rows) for t, s in salvaged.items() if s.rows},
            {t: s.unreadable for t, s in salvaged.items() if s.unreadable}, placeholders)
        report.rebuild = {"moved_to": summary.moved_to, "carried": summary.carried,
                          "lost": summary.lost, "placeholders": placeholders}
        report.warnings[:0] = [IndexWarning(str(db), None, line)
                               for line in summary.problems()]
    return report


