"""Commitments at query time: what fires now, and why (Filter, Decide); listings.

The ledger is read into the store at index time (`ledger_sync`, the Revise step);
this module only reads the store, so a query never imports the markdown parser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

import numpy as np

from . import clock, trigger
from .config import Settings
from .schema import SCHEMA
from .store import Store

# -- firing -------------------------------------------------------------------

@dataclass
class OpenEntry:
    id: str
    action: str
    condition: str | None
    keywords: tuple[str, ...]
    fires_from: date | None
    due: date | None
    cond_hash: str | None
    note_ids: list[int]
    project: str | None
    line: int
    ledger_path: str


@dataclass
class Firing:
    entry: OpenEntry
    why: str
    kind: str  # "date" | "trigger"
    details: dict = field(default_factory=dict)


def open_entries(store: Store) -> list[OpenEntry]:
    rows = store.execute(
        "SELECT e.id, e.action, e.condition, e.keywords, e.fires_from, e.due, e.cond_hash, "
        "e.project, e.line, e.ledger_path, group_concat(l.target_id) FROM entries e "
        "LEFT JOIN entry_links l ON l.entry_id = e.id "
        "WHERE e.present = 1 AND e.status = 'open' GROUP BY e.id ORDER BY e.ledger_path, e.line"
    ).fetchall()
    return [OpenEntry(r[0], r[1], r[2], tuple(json.loads(r[3] or "[]")), _day(r[4]), _day(r[5]),
                      r[6], [int(x) for x in (r[10] or "").split(",") if x], r[7], r[8], r[9])
            for r in rows]


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def fire(entries: list[OpenEntry], now: datetime, settings: Settings, context: str | None,
         context_vec: np.ndarray | None, cond_vecs: dict[str, np.ndarray]) -> list[Firing]:
    """Which open entries fire at `now` for `context`, each with its reason.

    Firing order: entries whose trigger matched the context first (strongest match
    first), then dated entries by how long their window has been open.
    """
    triggered, dated = [], []
    for entry in entries:
        if entry.condition:  # a date named in the condition needs no context
            match = _match(entry, now, settings, context or "", context_vec, cond_vecs)
            if match.fired:
                strength = max(match.keyword_score, match.semantic_score or 0.0)
                triggered.append((-strength, Firing(entry, match.why, "trigger", {
                    "keyword_score": round(match.keyword_score, 3),
                    "semantic_score": _round(match.semantic_score)})))
                continue
        why = _date_reason(entry, now.date())
        if why:
            dated.append((entry.fires_from, Firing(entry, why, "date")))
    triggered.sort(key=lambda pair: pair[0])
    dated.sort(key=lambda pair: pair[0])
    return [f for _, f in triggered] + [f for _, f in dated]


def _match(entry, now, settings, context, context_vec, cond_vecs) -> trigger.Match:
    kw = trigger.keyword_match(entry.condition, entry.keywords, context,
                               settings.keyword_threshold, now.date())
    sem = trigger.semantic_match(cond_vecs.get(entry.cond_hash or ""), context_vec,
                                 settings.semantic_threshold)
    if kw.fired:
        return trigger.Match(True, kw.why, kw.keyword_score, sem.semantic_score)
    return trigger.Match(sem.fired, sem.why, kw.keyword_score, sem.semantic_score)


def _date_reason(entry: OpenEntry, today: date) -> str | None:
    if entry.fires_from is None or entry.fires_from > today:
        return None
    if entry.due and entry.due < today:
        return f"overdue since {entry.due.isoformat()}"
    if entry.due == today:
        return f"due today ({today.isoformat()})"
    return f"window open since {entry.fires_from.isoformat()}" + (
        f", due {entry.due.isoformat()}" if entry.due else "")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def firing_now(store: Store, settings: Settings, now: datetime, context: str | None,
               context_vec: np.ndarray | None, fingerprint: str) -> list[Firing]:
    """Load open entries and their condition vectors, then decide what fires."""
    entries = open_entries(store)
    hashes = [e.cond_hash for e in entries if e.cond_hash]
    cond_vecs = store.vectors_for(fingerprint, hashes) if context_vec is not None else {}
    return fire(entries, now, settings, context, context_vec, cond_vecs)


# -- due set and listings ----------------------------------------------------------

GROUPS = ("overdue", "today", "triggered", "open", "upcoming")  # the due set's order (SPEC 6)


@dataclass
class DueItem:
    """One entry of the due set, with the group it falls in and why."""

    entry: OpenEntry
    group: str
    why: str
    kind: str  # "date" | "trigger" | "upcoming"
    notes: list[str]
    details: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        e = self.entry
        return {"id": e.id, "action": e.action, "group": self.group, "why": self.why,
                "kind": self.kind, "condition": e.condition,
                "due": e.due.isoformat() if e.due else None,
                "fires_from": e.fires_from.isoformat() if e.fires_from else None,
                "ledger": e.ledger_path, "line": e.line, "notes": self.notes, **self.details}


@dataclass
class DueResult:
    """The due set at `now` (SPEC 6): what fires, grouped, then what is coming up."""

    now: datetime
    context: str | None
    horizon: int
    results: list[DueItem]

    @property
    def firing(self) -> list[DueItem]:
        return [item for item in self.results if item.group != "upcoming"]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "now": self.now.isoformat(timespec="seconds"),
                "context": self.context, "horizon": self.horizon,
                "results": [item.as_dict() for item in self.results]}


def due_set(store: Store, settings: Settings, now: datetime, context: str | None,
            context_vec: np.ndarray | None, fingerprint: str, horizon: int = 7) -> DueResult:
    """The due set at `now`: open entries whose window arrived or whose trigger matched
    `context`, grouped overdue, due today, triggered, window open; then the dated entries
    whose window opens within `horizon` days. A read: it changes nothing, so asking twice
    gives the same answer (only `nudge` remembers what it has shown)."""
    now = clock.local_naive(now)
    firings = firing_now(store, settings, now, context, context_vec, fingerprint)
    today = now.date()
    items = [DueItem(f.entry, _group(f, today), f.why, f.kind, [], f.details)
             for f in firings]
    fired = {f.entry.id for f in firings}
    for entry in open_entries(store):
        start = entry.fires_from
        if entry.id in fired or start is None or not today < start <= _plus(today, horizon):
            continue
        days = (start - today).days
        when = "tomorrow" if days == 1 else f"in {days} days"
        why = (f"due {when} ({start.isoformat()})" if start == entry.due
               else f"window opens {when} ({start.isoformat()})")
        items.append(DueItem(entry, "upcoming", why, "upcoming", []))
    items.sort(key=lambda item: (GROUPS.index(item.group),
                                 item.entry.fires_from or today if item.group == "upcoming"
                                 else today))
    paths = _paths(store, {i for item in items for i in item.entry.note_ids})
    for item in items:
        item.notes = [paths[i] for i in item.entry.note_ids if i in paths]
    return DueResult(now, context, horizon, items)


def _group(firing: Firing, today: date) -> str:
    due = firing.entry.due
    if firing.kind == "trigger":
        return "triggered"
    if due is not None and due < today:
        return "overdue"
    return "today" if due == today else "open"


def _plus(day: date, days: int) -> date:
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max


def _paths(store: Store, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return dict(store.execute(
        f"SELECT id, path FROM notes WHERE deleted = 0 AND id IN ({marks})", list(ids)))


def note_paths(store: Store, ids: list[int]) -> list[str]:
    paths = _paths(store, set(ids))
    return [paths[i] for i in ids if i in paths]


@dataclass
class EntryList:
    """`vaultmem ledger`: entries with status, linked notes and revision counts."""

    results: list[dict]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "results": self.results}


def list_entries(store: Store, include_closed: bool) -> EntryList:
    """Ledger entries with status and linked notes; open ones only unless asked.

    `notes` are the paths the entry's links resolve to; `unresolved` the link targets
    that name no note (yet).
    """
    where = "" if include_closed else "WHERE e.present = 1 AND e.status = 'open'"
    rows = store.execute(
        "SELECT e.id, e.status, e.present, e.action, e.condition, e.due, e.fires_from, "
        "e.ledger_path, e.line, e.project, (SELECT count(*) FROM ops o WHERE o.entry_id = e.id), "
        "json_extract(e.fields, '$.priority'), json_extract(e.fields, '$.recurrence') "
        f"FROM entries e {where} ORDER BY e.present DESC, e.ledger_path, e.line").fetchall()
    links: dict[str, list[tuple[str, str | None]]] = {}
    for entry_id, target, path in store.execute(
            "SELECT l.entry_id, l.target_raw, n.path FROM entry_links l LEFT JOIN notes n "
            "ON n.id = l.target_id AND n.deleted = 0 ORDER BY l.entry_id, l.ord"):
        links.setdefault(entry_id, []).append((target, path))
    out = []
    for r in rows:
        mine = links.get(r[0], [])
        out.append({"id": r[0], "status": r[1] if r[2] else "removed", "action": r[3],
                    "condition": r[4], "due": r[5], "fires_from": r[6], "ledger": r[7],
                    "line": r[8], "project": r[9], "revisions": r[10], "priority": r[11],
                    "recurrence": r[12],
                    "notes": [p for _, p in mine if p],
                    "unresolved": [t for t, p in mine if not p]})
    return EntryList(out)


@dataclass
class EntryHistory:
    """`vaultmem ledger show ID`: one entry as it stands, with every typed revision."""

    id: str
    raw: str
    status: str
    ledger: str
    line: int
    first_seen: str
    revisions: list[dict]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "id": self.id, "raw": self.raw, "status": self.status,
                "ledger": self.ledger, "line": self.line, "first_seen": self.first_seen,
                "revisions": self.revisions}


def history(store: Store, entry_id: str) -> EntryHistory | None:
    """One entry as it stands, with every typed revision in order."""
    row = store.execute("SELECT id, raw, status, present, ledger_path, line, first_seen "
                        "FROM entries WHERE id = ?", [entry_id]).fetchone()
    if row is None:
        return None
    revisions = [{"ts": ts, "kind": op, "detail": json.loads(detail or "{}")}
                 for ts, op, detail in store.execute(
                     "SELECT ts, op, detail FROM ops WHERE entry_id = ? ORDER BY id", [entry_id])]
    return EntryHistory(row[0], row[1], row[2] if row[3] else "removed", row[4], row[5], row[6],
                        revisions)
