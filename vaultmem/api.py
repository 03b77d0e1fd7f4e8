"""vaultmem as a library. `Vault` is the public API; the CLI and the MCP server are thin
clients of it (SPEC 1): each of their commands is one call here plus rendering.

    from vaultmem import Vault

    with Vault.open("~/notes", create=True) as vault:
        vault.index()
        result = vault.query("guests arrive saturday", limit=5)
        for hit in result.results:
            print(hit.rank, hit.path, hit.score)
        print(vault.due(context="my in-laws land on Friday").as_dict())

Every method returns a dataclass whose `as_dict()` is exactly the `--json` document of
the matching command. Reads (`query`, `due`, `ledger`, `history`, `items`, `get`,
`status`) change nothing a user would notice; a query's top results are logged as
mentions for salience unless `log=False`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from . import clock, config
from .errors import NotFoundError, UsageError, VaultmemError

MARKERS = (config.STORE_DIR, ".obsidian")  # folders that mark a vault's root


def _when(now: datetime | None) -> datetime:
    """`now` as naive local time (clock.py's one rule); the system clock when None."""
    return clock.now() if now is None else clock.local_naive(now)


def find_root(start: Path) -> Path:
    """The vault `start` is in: the nearest folder at or above it holding `.vaultmem/` or
    `.obsidian/`; `start` itself when there is none."""
    start = start.expanduser().resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).is_dir() for marker in MARKERS):
            return folder
    return start


class Vault:
    """An open vault: its settings, its store and (loaded on first use) the embedder."""

    def __init__(self, settings: config.Settings, store, embedder=None, query_embedder=None):
        self.settings = settings
        self.store = store
        self._embedder = embedder
        self._query_embedder = query_embedder

    @classmethod
    def open(cls, path: str | Path | None = None, db: str | Path | None = None, *,
             create: bool = False, embedder=None, preload: bool = False,
             **settings: Any) -> Vault:
        """Open the vault at `path` (default: `$VAULTMEM_VAULT`, else the vault the current
        folder is in) and its store (`db`, default `<vault>/.vaultmem/vaultmem.db`).

        `create`: make the store if it does not exist (else NoIndexError). `embedder`:
        any object with `embed(texts)`, `fingerprint` and `dim` (default: the bundled
        model, loaded on first use). `preload`: a query follows, so start loading its
        model now, in the background, while the store opens. `settings`: overrides of
        `config.Settings` fields.
        """
        if path is None and not os.environ.get("VAULTMEM_VAULT"):
            path = find_root(Path.cwd())
        resolved = config.load(path, db, **settings)
        if not resolved.vault.is_dir():
            raise VaultmemError(f"vault {resolved.vault} is not a folder: pass the vault path")
        early = None
        if preload and embedder is None:
            from .embed import query_embedder

            early = query_embedder(resolved)
        from .store import Store

        store = Store.open(resolved.db, create=create, vault=resolved.vault)
        return cls(resolved, store, embedder, early)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def embedder(self):
        if self._embedder is None:
            from .embed import indexing_embedder

            self._embedder = indexing_embedder(self.settings)
        return self._embedder

    @property
    def query_embedder(self):
        """The embedder of a query's one text: the one given to `open` or already made
        for indexing (one model in memory), else `embed.query_embedder`'s lean loader,
        which computes the same vectors without importing fastembed."""
        if self._embedder is not None:
            return self._embedder
        if self._query_embedder is None:
            from .embed import query_embedder

            self._query_embedder = query_embedder(self.settings)
        return self._query_embedder

    # -- writes ------------------------------------------------------------------------

    def index(self, *, full: bool = False, now: datetime | None = None, progress=None):
        """Bring the store up to date with the vault (incremental; `full` re-parses all)."""
        from .indexer import index_vault

        with self.store.writer_lock("index"):
            return index_vault(self.store, self.settings, self.embedder, now=_when(now),
                               full=full, progress=progress)

    def salience(self, *, now: datetime | None = None):
        """Recompute every note's standing salience and its components (SPEC 4)."""
        from .salience import run_salience

        when = _when(now)
        with self.store.writer_lock("salience"):
            run_id = self.store.start_run("salience", when.isoformat(timespec="seconds"))
            report = run_salience(self.store, self.settings, when)
            self.store.finish_run(run_id, clock.now().isoformat(timespec="seconds"), "ok",
                                  {"notes": report.notes, "seconds": report.seconds})
        return report

    def add_commitment(self, text: str, *, due: date | None = None, when: str | None = None,
                       links: tuple[str, ...] | list[str] = (), project: str | None = None):
        """Append one open commitment to the ledger note (the first of `ledger_notes`), in
        its own syntax with a fresh block id; the next index reads it. Returns its id."""
        from .ledger_append import add

        taken = {row[0] for row in self.store.execute("SELECT id FROM entries")}
        return add(self.settings.vault, self.settings.ledger_notes[0], text, due=due,
                   when=when, links=tuple(links), project=project, taken=taken)

    def nudge(self, *, now: datetime | None = None):
        """One proactive tick (SPEC 8): at most one message, or silence and why."""
        from .nudge import tick

        return tick(self.store, self.settings, _when(now),
                    oscillation=self.settings.nudge_oscillation)

    def feedback(self, item_id: str, answer: str, *, snooze=None, now: datetime | None = None):
        """Record the answer to an item's latest nudge: accept, dismiss or snooze."""
        from .nudge import record_feedback

        found = record_feedback(self.store, item_id, answer, _when(now), snooze)
        if found is None:
            raise NotFoundError(f"no nudge was ever shown for {item_id!r}: nothing to answer")
        return found

    # -- reads -------------------------------------------------------------------------

    def query(self, text: str, *, now: datetime | None = None, log: bool = True,
              limit: int = 10, prefix: str | None = None, **options: Any):
        """Rank notes for `text` (SPEC 5). `options`: any `rank.QueryOptions` field
        (weight, prospective, floor, include_closed, explain, mode, …); unset ones take
        the vault's settings. `log=False` leaves the mention log alone."""
        from .rank import QueryOptions, run_query

        if not text.strip():
            raise UsageError("the query is empty: say what you are looking for")
        if limit < 1:
            raise UsageError(f"limit {limit}: ask for at least one result")
        opts = QueryOptions.from_settings(self.settings, limit=limit, prefix=prefix, **options)
        if not log:
            opts = replace(opts, log_mentions=0)
        return run_query(self.store, self.query_embedder, text, opts, _when(now),
                         self.settings)

    def due(self, *, context: str | None = None, now: datetime | None = None,
            horizon: int = 7):
        """The due set (SPEC 6): overdue, due today, triggered by `context`, window open,
        and what comes up within `horizon` days. A read: asking twice gives one answer."""
        from .commitments import due_set
        from .embed import fingerprint_for, query_side
        from .trigger import make_context

        if horizon < 0:
            raise UsageError(f"horizon {horizon}: give a number of days, 0 or more")
        ctx = None
        if context and context.strip():  # the context and its sentences or clauses
            ctx = make_context(context, query_side(self.query_embedder),
                               self.settings.context_units)
        fingerprint = (self._embedder.fingerprint if self._embedder is not None
                       else fingerprint_for(self.settings))
        return due_set(self.store, self.settings, _when(now), ctx, fingerprint, horizon)

    def ledger(self, *, include_closed: bool = False):
        """Ledger entries with status, linked notes and revision counts."""
        from .commitments import list_entries

        return list_entries(self.store, include_closed)

    def history(self, entry_id: str):
        """One entry's typed revisions (created, rescheduled, …, removed)."""
        from .commitments import history

        found = history(self.store, entry_id)
        if found is None:
            raise NotFoundError(f"no ledger entry {entry_id!r}: `vaultmem ledger --all` "
                                "lists them")
        return found

    def items(self, *, include_closed: bool = False):
        """Prospective items: plans, ideas, decisions, questions, insights (SPEC 7)."""
        from .prospective import item_list

        return item_list(self.store, include_closed)

    def get(self, path: str):
        """One note as stored and on disk: front matter, text, links, backlinks and the
        commitments that link it. `path`: vault-relative, or a name as a link writes it."""
        from .notedoc import get_note

        if not path.strip():
            raise UsageError("name a note: a vault-relative path or its name")
        return get_note(self.store, self.settings.vault, path)

    def status(self):
        """Counts, last runs, unresolved links, warnings, and every effective setting."""
        from .status import Status, gather

        return Status(gather(self.store, self.settings))

    # -- Form: commitments found in notes ----------------------------------------------

    def suggestions(self, since: date | None = None, *, min_confidence: float | None = None):
        """Commitments found in notes (at index time, no model) that the ledger does not
        hold yet, at or above the `form_confidence` threshold, from notes written on or
        after `since`; each with the ledger line `accept` would append. A read."""
        from .candidates import suggestions

        return suggestions(self.store, self.settings, since, min_confidence)

    def accept(self, cand: str, edit: str | None = None, *, now: datetime | None = None):
        """Append candidate `cand` to the ledger (as `ledger add` does: one line, atomic,
        a new block id) and mark it accepted. `edit` replaces the action text. The next
        index reads the line like any hand-written one."""
        from .candidates import accept

        if edit is not None and not edit.strip():
            raise UsageError("--edit is empty: give the commitment's text, or leave it out")
        return accept(self.store, self.settings, cand, edit, _when(now))

    def reject(self, cand: str, *, now: datetime | None = None):
        """Hide candidate `cand` from `suggestions` for good (kept, marked rejected)."""
        from .candidates import reject

        return reject(self.store, cand, _when(now))
