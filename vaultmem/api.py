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
from dataclasses import fields, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from . import clock, config
from .errors import BusyError, NotFoundError, UsageError, VaultmemError

MARKERS = (config.STORE_DIR, ".obsidian")  # folders that mark a vault's root


def _when(now: datetime | date | str | None) -> datetime:
    """`now` as naive local time (clock.py's one rule); the system clock when None. A
    string is read as `--now` is ("2026-08-15", "2026-08-15T09:30"), a date as its
    midnight. A moment out of `clock.in_range` is a UsageError naming the range."""
    if now is None:
        return clock.now()
    if isinstance(now, str):
        try:
            return clock.parse_now(now)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if isinstance(now, date) and not isinstance(now, datetime):
        now = datetime.combine(now, datetime.min.time())
    try:
        return clock.in_range(now)
    except ValueError as exc:
        raise UsageError(f"`now` {exc}") from None


def _window(value: date | str | None, today: date, param: str
            ) -> tuple[date | None, date | None]:
    """(window start, day) of a date given as a date, an ISO date or words ("next
    friday"), read against today as `suggestions` reads a note: a period in words ("next
    week") is its last day (a deadline) and opens its window on its first."""
    if value is None or isinstance(value, date):
        return None, value.date() if isinstance(value, datetime) else value
    from .form import read_window

    window = read_window(value, today)
    if window is None:
        raise UsageError(f"`{param}` {value!r} is not a date: give YYYY-MM-DD or words "
                         "such as 'next friday' or 'by the end of the month'")
    return window


def _first_day(value: date | str | None, today: date, param: str) -> date | None:
    """A date that opens a window (`start`, `scheduled`): a period's first day."""
    start, day = _window(value, today, param)
    return start or day


def _day_done(value: date | str | None, today: date) -> date:
    """The day a commitment was done or cancelled (`on`, default today): words are read
    backward ("friday": the last Friday), and the day has come."""
    from .text.dates import day_back

    back = day_back(value, today) if isinstance(value, str) else None
    day = back or _window(value, today, "on")[1] or today
    if day > today:
        shown = repr(value) if isinstance(value, str) else day.isoformat()
        raise UsageError(f"`on` {shown} is after today ({today.isoformat()}): a commitment "
                         "is done or cancelled on a day that has come")
    return day


def _query_options(options: dict[str, Any], known: type) -> dict[str, Any]:
    """A query's options, those that are settings (weight, mode, …) checked by the
    settings' own rules (`config.check`): one route, one message, for every face."""
    from .rank import FILTER_FIELDS

    # `filters` is built from the filter fields (`QueryOptions.from_settings`), not given.
    names = ({f.name for f in fields(known)} | set(FILTER_FIELDS)) - {"limit", "filters"}
    unknown = sorted(set(options) - names)
    if unknown:
        raise UsageError(f"unknown query option(s) {unknown}: use {', '.join(sorted(names))}")
    checked = config.check({k: v for k, v in options.items() if k in config.RULES},
                           UsageError)
    return {**options, **checked}


def find_root(start: Path) -> Path:
    """The vault `start` is in: the nearest folder at or above it holding `.vaultmem/` or
    `.obsidian/`; `start` itself when there is none."""
    start = start.expanduser().resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).is_dir() for marker in MARKERS):
            return folder
    return start


def locate(path: str | Path | None = None, db: str | Path | None = None,
           **settings: Any) -> config.Settings:
    """The settings of the vault a command means, found the one way every command finds
    it: `path`, else `$VAULTMEM_VAULT`, else the vault the current folder is in; an
    error when that is no folder. Opens nothing (`index --rebuild` must not)."""
    if path is None and not os.environ.get("VAULTMEM_VAULT"):
        path = find_root(Path.cwd())
    resolved = config.load(path, db, **settings)
    if not resolved.vault.is_dir():
        raise VaultmemError(f"vault {resolved.vault} is not a folder: pass the vault path")
    return resolved


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
        resolved = locate(path, db, **settings)
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
        from .errors import VaultGoneError
        from .indexer import index_vault
        from .text.folder import folder_identity

        when = _when(now)
        folder = folder_identity(self.settings.vault)
        try:
            with self.store.writer_lock("index"):
                return index_vault(self.store, self.settings, self.embedder, now=when,
                                   full=full, progress=progress)
        except Exception as exc:
            # A vault deleted with its store inside fails the store first: say what happened.
            if folder is not None and folder_identity(self.settings.vault) != folder:
                raise VaultGoneError(self.settings.vault) from exc
            raise

    def salience(self, *, now: datetime | None = None):
        """Recompute every note's standing salience and its components (SPEC 4)."""
        from .indexer import stopped
        from .salience import run_salience

        when = _when(now)
        with self.store.writer_lock("salience"):
            run_id = self.store.start_run("salience", when.isoformat(timespec="seconds"))
            try:
                report = run_salience(self.store, self.settings, when)
            except BaseException as exc:
                stopped(self.store, run_id, exc)
                raise
            self.store.finish_run(run_id, clock.now().isoformat(timespec="seconds"), "ok",
                                  {"notes": report.notes, "seconds": report.seconds})
        return report

    def add_commitment(self, text: str, *, due: date | str | None = None,
                       when: str | None = None, links: tuple[str, ...] | list[str] = (),
                       project: str | None = None, start: date | str | None = None,
                       scheduled: date | str | None = None,
                       keywords: tuple[str, ...] | list[str] = (),
                       now: datetime | date | str | None = None):
        """Append one open commitment to the ledger note (the first of `ledger_notes`), in
        its own syntax with a fresh block id, and bring the store in step with it. The
        line is remembered (appended.py) so that an editor saving over it is noticed.

        Dates are dates or words, read against `now` as `suggestions` reads a note ("next
        friday", "2026-08-20"; a period such as "next week" is due on its last day, a
        week's Friday, and unless `start` is given opens the window on its first).
        The result's `unresolved` are its links that name no note, as the index resolved
        them (none are known when another run held the store: `indexed` is False).
        """
        from . import appended
        from .ledger_append import add

        when_ = _when(now)
        window, due_day = _window(due, when_.date(), "due")
        from .store import entries

        taken = entries.ids(self.store)
        added = add(self.settings.vault, self.settings.ledger_notes[0], text, due=due_day,
                    when=when, links=tuple(links), project=project,
                    taken=taken | appended.ids(self.store),
                    start=_first_day(start, when_.date(), "start") or window,
                    scheduled=_first_day(scheduled, when_.date(), "scheduled"),
                    keywords=tuple(keywords))
        appended.remember(self.store, added, clock.now().isoformat(timespec="seconds"))
        added.indexed = self._in_step(when_)
        added.unresolved = self._unresolved(added.id) if added.indexed else []
        return added

    def restore(self, entry_id: str, *, drop: bool = False,
                now: datetime | date | str | None = None):
        """Put back a line vaultmem appended that the ledger was saved without (`ledger`
        lists them under `lost`), or with `drop`, forget it: it is gone on purpose."""
        from . import appended
        from .ledger_append import append_line

        stamp = _when(now).isoformat(timespec="seconds")
        if drop:
            return appended.drop(self.store, entry_id, stamp)
        ledger, line = appended.lost_line(self.store, entry_id)
        added = append_line(self.settings.vault, ledger, line)
        appended.remember(self.store, added, stamp, entry_id)
        return appended.Restored(entry_id, "restored", ledger, added.line, line)

    def complete_commitment(self, entry_id: str, *, on: date | str | None = None,
                            now: datetime | date | str | None = None):
        """Check a commitment off (`✅` on `on`, default today) by rewriting its one ledger
        line as Obsidian Tasks does; a recurring one gets its next occurrence. The store
        records the revision (done, or occurrence-done)."""
        from .ledger_edit import complete

        when_ = _when(now)
        day = _day_done(on, when_.date())
        return self._revise(entry_id, when_, lambda *at: complete(*at, day))

    def cancel_commitment(self, entry_id: str, *, on: date | str | None = None,
                          now: datetime | date | str | None = None):
        """Cancel a commitment (`❌` on `on`, default today), rewriting its one line."""
        from .ledger_edit import cancel

        when_ = _when(now)
        day = _day_done(on, when_.date())
        return self._revise(entry_id, when_, lambda *at: cancel(*at, day))

    def reschedule_commitment(self, entry_id: str, due: date | str, *,
                              now: datetime | date | str | None = None):
        """Give a commitment another due date (words or a date), rewriting its one line;
        the store records it as rescheduled."""
        from .ledger_edit import reschedule

        when_ = _when(now)
        if due is None or (isinstance(due, str) and not due.strip()):
            raise UsageError("`due` is empty: give the new due date")
        day = _window(due, when_.date(), "due")[1]
        return self._revise(entry_id, when_, lambda *at: reschedule(*at, day))

    def _revise(self, entry_id: str, now: datetime, edit):
        """Rewrite an open entry's line with `edit(vault, ledger, line, raw)`, with the
        store in step before (to find the line as it is) and after (to record it)."""
        from .ledger_view import revised

        self._in_step(now)
        from .store import entries

        row = entries.line_of(self.store, entry_id)
        if row is None:
            raise NotFoundError(f"no commitment {entry_id!r}: `ledger(include_closed=True)` "
                                "lists every id")
        ledger_path, line, raw, status, present = row
        if not present:
            raise VaultmemError(f"{entry_id} is no longer in the ledger (removed): "
                                "nothing written")
        if status != "open":
            raise VaultmemError(f"{entry_id} is {status} already: nothing written")
        done = edit(self.settings.vault, ledger_path, line, raw)
        indexed = self._in_step(now)
        return revised(self.store, entry_id, done, now, indexed)

    def _in_step(self, now: datetime) -> bool:
        """Index what changed; False when another run holds the store (it will)."""
        try:
            self.index(now=now)
        except BusyError:
            return False
        return True

    def _unresolved(self, entry_id: str) -> list[str]:
        """A new entry's links that name no note, as the index resolved them: the very
        `unresolved` that `ledger()` lists for it."""
        from .ledger_view import list_entries

        return next((e.unresolved for e in list_entries(self.store, False).results
                     if e.id == entry_id), [])

    def nudge(self, *, now: datetime | date | str | None = None, context: str | None = None,
              record: bool = True):
        """One proactive tick (SPEC 8): at most one message, or silence and why. It
        records what it shows (fatigue and the daily cap count it); `record=False` is a
        dry run that stores nothing. `context`: what the user is doing now; an entry whose
        trigger it matches may nudge on that cue."""
        from .nudge import tick

        when = _when(now)
        cues = self.cues(context, now=when) if context and context.strip() else {}
        return tick(self.store, self.settings, when,
                    oscillation=self.settings.nudge_oscillation, cues=cues, record=record)

    def cues(self, context: str, *, now: datetime | date | str | None = None
             ) -> dict[str, str]:
        """{entry id: why} for the open entries whose trigger `context` matches: the due
        set's "triggered" group, fired on the context itself (grounded, not by a date in
        the condition), by the very matcher `due --context` uses, so that a nudge and the
        due set never disagree about a cue."""
        found = self.due(context=context, now=now, horizon=0)  # read by its JSON's names
        return {item.id: item.why for item in found.results
                if item.group == "triggered" and item.grounded}

    def feedback(self, item_id: str, answer: str, *, snooze=None, now: datetime | None = None):
        """Record the answer to an item's latest nudge: accept, dismiss or snooze."""
        from .nudge import record_feedback

        found = record_feedback(self.store, item_id, answer, _when(now), snooze)
        from .store import entries

        if found is None and not entries.is_item_id(self.store, item_id):
            raise NotFoundError(f"no such id {item_id!r}: nudges name ledger entries and "
                                "prospective items by the id they print")
        if found is None:
            raise NotFoundError(f"no nudge was ever shown for {item_id!r}: nothing to answer")
        return found

    # -- reads -------------------------------------------------------------------------

    def query(self, text: str, *, now: datetime | None = None, log: bool = True,
              limit: int = 10, **options: Any):
        """Rank notes for `text` (SPEC 5). `options`: any `rank.QueryOptions` field
        (weight, prospective, floor, include_closed, explain, mode, …); unset ones take
        the vault's settings. `log=False` leaves the mention log alone.

        Filters (`filters.Filters.build`), applied before ranking: `folders` and
        `not_folders` (vault-relative folders, a string or a list), `tags` (all of them;
        "-x" excludes x) and `not_tags`, `where` ("key=value" / "key!=value" on front
        matter, all of them), `changed_since` / `changed_before` (a date or datetime, the
        file's modification time), `include_ledger` (ledger notes are no hits otherwise).
        """
        from .rank import QueryOptions, run_query

        if not text.strip():
            raise UsageError("the query is empty: say what you are looking for")
        if limit < 1:
            raise UsageError(f"limit {limit}: ask for at least one result")
        options = _query_options(options, QueryOptions)
        opts = QueryOptions.from_settings(self.settings, limit=limit, **options)
        if not log:
            opts = replace(opts, log_mentions=0)
        return run_query(self.store, self.query_embedder, text, opts, _when(now),
                         self.settings)

    def due(self, *, context: str | None = None, now: datetime | None = None,
            horizon: int = 7):
        """The due set (SPEC 6): overdue, due today, triggered by `context`, window open,
        and what comes up within `horizon` days. A read: asking twice gives one answer."""
        from .embed import fingerprint_for, query_side
        from .ledger_view import due_set
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
        from .appended import lost
        from .ledger_view import list_entries

        result = list_entries(self.store, include_closed)
        result.lost = lost(self.store)
        return result

    def history(self, entry_id: str):
        """One entry's typed revisions (created, rescheduled, …, removed)."""
        from .ledger_view import history

        found = history(self.store, entry_id)
        if found is None:
            raise NotFoundError(f"no ledger entry {entry_id!r}: `ledger(include_closed=True)` "
                                "lists every id")
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

    def related(self, note: str, *, limit: int = 10, depth: int = 2,
                now: datetime | None = None):
        """The notes closest to `note` (a path, or a name as a link writes it) by meaning,
        links (`depth` 1 or 2) and shared tags, each with its reasons; and the note's open
        commitments with what fires on them at `now`. A read; no model is loaded."""
        from .related import related

        if not note.strip():
            raise UsageError("name a note: a vault-relative path or its name")
        if limit < 1:
            raise UsageError(f"limit {limit}: ask for at least one result")
        if depth not in (1, 2):
            raise UsageError(f"`depth` {depth}: links are followed 1 or 2 steps")
        fingerprint, dim = self._vector_space()
        return related(self.store, self.settings, note, _when(now), fingerprint, dim,
                       limit=limit, depth=depth)

    def _vector_space(self) -> tuple[str, int]:
        """(fingerprint, dimension) of the stored vectors this vault's model reads,
        without loading the model: the dimension is a stored vector's length."""
        from .embed import fingerprint_for

        fingerprint = (self._embedder.fingerprint if self._embedder is not None
                       else fingerprint_for(self.settings))
        if getattr(self._embedder, "dim", 0):
            return fingerprint, self._embedder.dim
        from .store.vectors import stored_dim

        return fingerprint, stored_dim(self.store, fingerprint)

    def status(self):
        """Counts, last runs, unresolved links, warnings, and every effective setting."""
        from .status import gather

        return gather(self.store, self.settings)

    # -- Form: commitments found in notes ----------------------------------------------

    def suggestions(self, since: date | None = None, *, min_confidence: float | None = None):
        """Commitments found in notes (at index time, no model) that the ledger does not
        hold yet, at or above the `form_confidence` threshold, from notes written on or
        after `since`; each with the ledger line `accept` would append. A read."""
        from .candidates import suggestions

        return suggestions(self.store, self.settings, since, min_confidence)

    def accept(self, cands: str | list[str] | tuple[str, ...], edit: str | None = None, *,
               now: datetime | date | str | None = None):
        """Append each candidate in `cands` to the ledger (as `ledger add` does: one line
        each, atomic, a new block id), mark them accepted and bring the store in step.
        `edit` replaces the action text (of a single candidate). All are checked before
        anything is written."""
        from .candidates import Decisions, accept, acceptable

        ids = [cands] if isinstance(cands, str) else list(dict.fromkeys(cands))
        if not ids:
            raise UsageError("`cands`: name at least one candidate")
        if edit is not None and not edit.strip():
            raise UsageError("`edit` is empty: give the commitment's text, or leave it out")
        if edit is not None and len(ids) > 1:
            raise UsageError("`edit` rewords one candidate: accept the others on their own")
        for cand in ids:
            acceptable(self.store, cand)
        when_ = _when(now)
        done = [accept(self.store, self.settings, cand, edit, when_) for cand in ids]
        return Decisions(done, self._in_step(when_))

    def reject(self, cand: str, *, now: datetime | date | str | None = None):
        """Hide candidate `cand` from `suggestions` for good (kept, marked rejected)."""
        from .candidates import Decisions, reject

        return Decisions([reject(self.store, cand, _when(now))])
