"""The documents about commitments: the due set (`due`, SPEC 6), the ledger's listing
(`ledger`), one entry's history (`ledger show`) and what a ledger write changed.

Query-time firing, which the due set and `query` share, is `commitments`; this module
only arranges what it decides, and reads the store (no markdown parser, no model).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from . import clock, trigger
from .commitments import Firing, OpenEntry, firing_now, open_entries, paths_by_id
from .config import Settings
from .schema import SCHEMA
from .store import Store
from .store import entries as entry_rows
from .text.rows import Item

GROUPS = ("overdue", "today", "triggered", "open", "upcoming")  # the due set's order (SPEC 6)


@dataclass
class DueItem(Item):
    """One entry of the due set: the group it falls in and why. A firing one says how it
    fired (`grounded`, `strength`); one fired by its trigger which half matched and the
    scores; one matched by meaning the view and the part of the context that met. Keys
    that do not apply to an item are None."""

    id: str
    action: str
    group: str
    why: str
    kind: str  # "date" | "trigger" | "upcoming"
    condition: str | None
    due: str | None
    fires_from: str | None
    ledger: str
    line: int
    notes: list[str]
    grounded: bool | None = None
    strength: float | None = None
    confidence: str | None = None  # "strong": placed at fire_slot; "weak": the multiplier
    half: str | None = None
    keyword_score: float | None = None
    words: list[str] | None = None  # the condition's words the context says
    semantic_score: float | None = None
    lead: float | None = None  # meaning's lead over the next entry
    subject: list[str] | None = None
    event: list[str] | None = None  # the condition's event kinds the context says
    veto: list[str] | None = None  # the cues that vetoed clauses of the context
    note_lead: float | None = None  # its linked notes' lead over other entries' notes
    view: str | None = None
    view_text: str | None = None
    unit: str | None = None
    unit_text: str | None = None


def _due_item(entry: OpenEntry, group: str, why: str, kind: str, notes: list[str],
              details: dict) -> DueItem:
    return DueItem(entry.id, entry.action, group, why, kind, entry.condition,
                   entry.due.isoformat() if entry.due else None,
                   entry.fires_from.isoformat() if entry.fires_from else None,
                   entry.ledger_path, entry.line, notes, **details)


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


def due_set(store: Store, settings: Settings, now: datetime, context: trigger.Context | None,
            fingerprint: str, horizon: int = 7) -> DueResult:
    """The due set at `now`: open entries whose window arrived or whose trigger matched
    `context`, grouped overdue, due today, triggered, window open; then the dated entries
    whose window opens within `horizon` days. A read: it changes nothing, so asking twice
    gives the same answer (only `nudge` remembers what it has shown)."""
    now = clock.local_naive(now)
    firings = firing_now(store, settings, now, context, fingerprint)
    today = now.date()
    # (entry, group, why, kind, details) of each item, typed once sorted
    found = [(f.entry, _group(f, today), f.why, f.kind,
              {"grounded": f.grounded, "strength": round(f.strength, 3), **f.details})
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
        found.append((entry, "upcoming", why, "upcoming", {}))
    found.sort(key=lambda f: (GROUPS.index(f[1]), _day_in_group(f[0], f[1], today)))
    paths = paths_by_id(store, {i for f in found for i in f[0].note_ids})
    items = [_due_item(entry, group, why, kind, [paths[i] for i in entry.note_ids if i in paths],
                       details) for entry, group, why, kind, details in found]
    return DueResult(now, context.text if context else None, horizon, items)


def _day_in_group(entry: OpenEntry, group: str, today: date) -> date:
    """The order within a group: overdue ones by due date, oldest first; upcoming and
    open windows by the day they open; the rest keep the firing order (sort is stable)."""
    if group == "overdue":
        return entry.due or today
    if group in ("upcoming", "open"):
        return entry.fires_from or today
    return today


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




@dataclass
class EntryRow(Item):
    """One entry of `vaultmem ledger`: `notes` are the paths its links resolve to,
    `unresolved` the link targets that name no note (yet)."""

    id: str
    status: str
    action: str
    condition: str | None
    due: str | None
    fires_from: str | None
    ledger: str
    line: int
    project: str | None
    revisions: int
    priority: str | None
    recurrence: str | None
    notes: list[str]
    unresolved: list[str]


@dataclass
class EntryList:
    """`vaultmem ledger`: entries with status, linked notes and revision counts; `lost`:
    lines vaultmem appended that the ledger was saved without (appended.py)."""

    results: list[EntryRow]
    lost: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "results": [r.as_dict() for r in self.results],
                "lost": self.lost}


def list_entries(store: Store, include_closed: bool) -> EntryList:
    """Ledger entries with status and linked notes; open ones only unless asked.

    `notes` are the paths the entry's links resolve to; `unresolved` the link targets
    that name no note (yet).
    """
    rows = entry_rows.listing(store, include_closed)
    links: dict[str, list[tuple[str, str | None]]] = {}
    for entry_id, target, path in entry_rows.all_links(store):
        links.setdefault(entry_id, []).append((target, path))
    out = []
    for r in rows:
        mine = links.get(r[0], [])
        out.append(EntryRow(r[0], r[1] if r[2] else "removed", r[3], r[4], r[5], r[6], r[7],
                            r[8], r[9], r[10], r[11], r[12], [p for _, p in mine if p],
                            [t for t, p in mine if not p]))
    return EntryList(out)


@dataclass
class RevisionRow(Item):
    """One typed revision in an entry's history: when, which kind, and its detail."""

    ts: str
    kind: str
    detail: dict


@dataclass
class EntryHistory:
    """`vaultmem ledger show ID`: one entry as it stands, with every typed revision."""

    id: str
    raw: str
    status: str
    ledger: str
    line: int
    first_seen: str
    revisions: list[RevisionRow]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "id": self.id, "raw": self.raw, "status": self.status,
                "ledger": self.ledger, "line": self.line, "first_seen": self.first_seen,
                "revisions": [r.as_dict() for r in self.revisions]}


def history(store: Store, entry_id: str) -> EntryHistory | None:
    """One entry as it stands, with every typed revision in order."""
    row = entry_rows.head(store, entry_id)
    if row is None:
        return None
    revisions = [RevisionRow(ts, op, json.loads(detail or "{}"))
                 for ts, op, detail in entry_rows.revisions(store, entry_id)]
    return EntryHistory(row[0], row[1], row[2] if row[3] else "removed", row[4], row[5], row[6],
                        revisions)


@dataclass
class Revised:
    """`ledger done` / `cancel` / `move`: the line rewritten, and the typed revision the
    store recorded for it (None when another run was writing the store: `indexed`)."""

    id: str
    kind: str  # done | occurrence-done | cancelled | rescheduled, as recorded
    ledger: str
    line: int
    text: str
    was: str
    occurrence: dict | None  # a recurring entry's done occurrence: id, line, text
    revision: dict | None  # ts, kind, detail
    indexed: bool

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "id": self.id, "kind": self.kind, "ledger": self.ledger,
                "line": self.line, "text": self.text, "was": self.was,
                "occurrence": self.occurrence, "revision": self.revision,
                "indexed": self.indexed}


def revised(store: Store, entry_id: str, edit, now: datetime, indexed: bool) -> Revised:
    """The document of a rewritten line (`ledger_edit.Edit`): its revision is the one of
    its kind recorded at `now` for the entry, when the store was brought in step."""
    stamp = now.isoformat(timespec="seconds")
    kind = _kind_of(edit)
    found = history(store, entry_id) if indexed else None
    revision = next((r.as_dict() for r in reversed(found.revisions if found else [])
                     if r.ts == stamp and r.kind == kind), None)
    occurrence = None
    if edit.occurrence is not None:
        name = (revision or {}).get("detail", {}).get("occurrence")
        occurrence = {"id": name, "line": edit.occurrence[0], "text": edit.occurrence[1]}
    return Revised(entry_id, kind, edit.ledger, edit.line, edit.text, edit.was, occurrence,
                   revision, indexed)


def _kind_of(edit) -> str:
    """What the ledger will record for the rewritten line, when the store could not yet."""
    if edit.occurrence is not None:
        return "occurrence-done"
    mark = edit.text.lstrip(" \t>-*+0123456789.)")[:3]
    return {"[x]": "done", "[-]": "cancelled"}.get(mark, "rescheduled")
