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
from .rows import Item
from .schema import SCHEMA
from .store import Store

# -- firing -------------------------------------------------------------------

NEAREST = 32  # notes kept per context for `note_ratio`: more than any entry links

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
    kind: str  # "date" | "trigger": what opened it
    details: dict = field(default_factory=dict)
    grounded: bool = False  # fires on the query (its moment), not just in the background
    strength: float = 0.0  # the match's score; grounded firings are ordered by it

    def as_dict(self, notes: list[str]) -> dict:
        """The firing lane's row (SPEC 1): what fires, on the query or in the background."""
        return self.row(notes).as_dict()

    def row(self, notes: list[str]) -> FiringRow:
        """The firing lane's typed row, with the paths of the notes it links."""
        return FiringRow(self.entry.id, self.entry.action, self.grounded, self.kind,
                         round(self.strength, 3), notes, self.why)


@dataclass
class FiringRow(Item):
    """One item of a query's `firing` lane: an open entry firing now, and why."""

    id: str
    action: str
    grounded: bool
    kind: str
    strength: float
    notes: list[str]
    why: str


def may_fire_on(store: Store, now: datetime) -> bool:
    """Whether any open entry could fire on a query (a condition, or a window open):
    only then is the context split into units, each embedded."""
    return store.execute(
        "SELECT 1 FROM entries WHERE present = 1 AND status = 'open' AND (condition IS NOT "
        "NULL OR fires_from <= ?) LIMIT 1", [now.date().isoformat()]).fetchone() is not None


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


def fire(entries: list[OpenEntry], now: datetime, settings: Settings,
         context: trigger.Context | None, views: dict[str, list[tuple[str, str, np.ndarray]]],
         nearest: list[tuple[int, float]] = ()) -> list[Firing]:
    """Which open entries fire at `now` for `context`, each with its reason and kind.

    `views`: {entry id: [(view kind, text, vector or None)]}, computed at index time.
    `nearest`: the notes closest to the whole context, (note id, cosine), best first.
    Grounded firings (the context is the entry's moment, or is about a dated entry whose
    window is open) come first, strongest first; then ambient ones (a window open, or a
    date named in a condition arrived), longest open first.
    """
    today = now.date()
    text = context.text if context else ""
    semantic = _semantic(entries, today, settings, context, views, nearest)
    grounded, ambient = [], []
    for i, entry in enumerate(entries):
        firing = _fire_one(entry, today, settings, text, semantic.get(i), views.get(entry.id, []))
        if firing is None:
            continue
        (grounded if firing.grounded else ambient).append(firing)
    grounded.sort(key=lambda f: -f.strength)
    ambient.sort(key=lambda f: (f.kind != "trigger", f.entry.fires_from or today))
    return grounded + ambient


def _in_window(entry: OpenEntry, today: date) -> bool:
    return entry.fires_from is not None and entry.fires_from <= today


def _semantic(entries, today, settings, context, views, nearest
              ) -> dict[int, trigger.SemanticHit]:
    """The semantic half for every entry at once: conditions ("is this its moment?") and,
    for dated entries whose window is open, their own text ("is the query about it?").

    A context much closer to some note than to any view of an entry is a question about
    that note, not the entry's moment: a view must reach `note_ratio` of the context's
    best cosine to a note the entry does not link (its own notes do not count against it).
    """
    if context is None or context.vecs is None:
        return {}
    candidates = []
    for i, entry in enumerate(entries):
        for kind, text, vec in views.get(entry.id, []):
            if vec is None:
                continue
            if entry.condition and kind in trigger.TRIGGER_VIEWS:
                candidates.append(trigger.View(i, kind, text, vec, "trigger"))
            elif _in_window(entry, today) and kind in trigger.ABOUT_VIEWS:
                candidates.append(trigger.View(i, kind, text, vec, "about"))
    need = {"trigger": settings.semantic_threshold, "about": settings.about_threshold}
    floors = {i: settings.note_ratio * _best_other(nearest, entries[i].note_ids)
              for i in {v.owner for v in candidates}}
    return trigger.best_matches(context, candidates, need, settings.clause_offset,
                                settings.match_margin, floors)


def _best_other(nearest, linked) -> float:
    """The best cosine among `nearest` notes that are not in `linked` (0 if none)."""
    return next((cos for note_id, cos in nearest if note_id not in linked), 0.0)


def _fire_one(entry, today, settings, text, hit, views) -> Firing | None:
    if entry.condition:
        kw = trigger.keyword_match(entry.condition, entry.keywords, text,
                                   settings.keyword_threshold, today)
        if kw.fired:
            by_date = kw.why.startswith("date in condition")
            return Firing(entry, kw.why, "trigger", _details(kw.keyword_score, hit, "keywords"),
                          grounded=not by_date, strength=kw.keyword_score)
        if hit is not None and hit.view.role == "trigger":
            return Firing(entry, hit.why("trigger matched"), "trigger",
                          _details(kw.keyword_score, hit, "meaning"), grounded=True,
                          strength=hit.score)
    window = _date_reason(entry, today)
    if window is None:
        return None
    about, share = _about_keywords(entry, text, views, settings.keyword_threshold)
    if about:
        return Firing(entry, f"{window}; the query is about it: {about}", "date",
                      _details(share, hit, "keywords"), grounded=True, strength=share)
    if hit is not None and hit.view.role == "about":
        return Firing(entry, f"{window}; the query is about it: {hit.why('matched')}", "date",
                      _details(0.0, hit, "meaning"), grounded=True, strength=hit.score)
    return Firing(entry, window, "date", _details(0.0, None, "date"))


def _about_keywords(entry, text, views, threshold) -> tuple[str, float]:
    """The keyword half of "is the query about this entry": its `keywords::`, the stems
    of its action (their share, as for a condition), or every stem of a linked note's
    title or alias; with the share of words found."""
    if not text:
        return "", 0.0
    match = trigger.keyword_match(entry.action, entry.keywords, text, threshold)
    if match.fired:
        return match.why.replace("trigger matched", "action words"), match.keyword_score
    stems = trigger.content_stems(text)
    for kind, view_text, _ in views:
        wanted = trigger.content_stems(view_text)
        if kind in ("title", "alias") and wanted and wanted <= stems:
            return f"{kind} named: {view_text}", 1.0
    return "", 0.0


def _details(keyword_score: float, hit, half: str) -> dict:
    out = {"half": half, "keyword_score": round(keyword_score, 3),
           "semantic_score": None if hit is None else round(hit.score, 3)}
    if hit is not None and half == "meaning":
        out.update(view=hit.view.kind, view_text=hit.view.text, unit=hit.unit.kind,
                   unit_text=hit.unit.text)
    return out


def _date_reason(entry: OpenEntry, today: date) -> str | None:
    if entry.fires_from is None or entry.fires_from > today:
        return None
    if entry.due and entry.due < today:
        return f"overdue since {entry.due.isoformat()}"
    if entry.due == today:
        return f"due today ({today.isoformat()})"
    return f"window open since {entry.fires_from.isoformat()}" + (
        f", due {entry.due.isoformat()}" if entry.due else "")


def entry_views(store: Store, fingerprint: str, entries: list[OpenEntry]
                ) -> dict[str, list[tuple[str, str, np.ndarray]]]:
    """{entry id: [(view kind, text, vector or None)]}: vectors under `fingerprint` for
    the embedded views. A store indexed before views existed still has its conditions."""
    ids = [e.id for e in entries]
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = store.execute(
        f"SELECT ev.entry_id, ev.kind, ev.text, v.vector FROM entry_views ev LEFT JOIN "
        f"vectors v ON v.hash = ev.hash AND v.fingerprint = ? WHERE ev.entry_id IN ({marks}) "
        f"ORDER BY ev.entry_id, ev.ord", [fingerprint, *ids]).fetchall()
    out: dict[str, list] = {}
    for entry_id, kind, text, blob in rows:
        vec = None if blob is None else np.frombuffer(blob, np.float32)
        out.setdefault(entry_id, []).append((kind, text, vec))
    missing = [e for e in entries if e.id not in out and e.cond_hash]
    vecs = store.vectors_for(fingerprint, [e.cond_hash for e in missing])
    for e in missing:
        if e.cond_hash in vecs:
            out[e.id] = [("condition", e.condition, vecs[e.cond_hash])]
    return out


def firing_now(store: Store, settings: Settings, now: datetime,
               context: trigger.Context | None, fingerprint: str,
               nearest: list[tuple[int, float]] | None = None) -> list[Firing]:
    """Load open entries and their views' vectors, then decide what fires.

    `nearest`: the notes closest to the context, best first, if the caller has ranked
    them already (a query has); else they are computed here from the stored vectors.
    """
    entries = open_entries(store)
    views = entry_views(store, fingerprint, entries) if entries else {}
    if nearest is None and entries and context is not None and context.vec is not None:
        m = store.matrix(fingerprint, context.vec.shape[0])
        nearest = nearest_notes(m.note_ids[m.starts], np.maximum.reduceat(
            m.vectors @ context.vec, m.starts)) if len(m.note_ids) else []
    return fire(entries, now, settings, context, views, nearest or [])


def nearest_notes(note_ids: np.ndarray, cosine: np.ndarray, k: int = NEAREST
                  ) -> list[tuple[int, float]]:
    """The `k` notes of highest cosine, best first (an entry links only a few of them)."""
    k = min(k, len(cosine))
    top = np.argpartition(-cosine, k - 1)[:k] if k else np.array([], int)
    top = top[np.argsort(-cosine[top], kind="stable")]
    return [(int(note_ids[i]), float(cosine[i])) for i in top]


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

    # The JSON's keys as attributes: `item.id`, `item.due` (ISO, as in JSON), …
    id = property(lambda self: self.entry.id)
    action = property(lambda self: self.entry.action)
    condition = property(lambda self: self.entry.condition)
    due = property(lambda self: self.entry.due.isoformat() if self.entry.due else None)
    fires_from = property(lambda self: self.entry.fires_from.isoformat()
                          if self.entry.fires_from else None)
    ledger = property(lambda self: self.entry.ledger_path)
    line = property(lambda self: self.entry.line)
    grounded = property(lambda self: self.details.get("grounded"))
    strength = property(lambda self: self.details.get("strength"))
    half = property(lambda self: self.details.get("half"))
    keyword_score = property(lambda self: self.details.get("keyword_score"))
    semantic_score = property(lambda self: self.details.get("semantic_score"))

    def __getitem__(self, key: str):
        return self.as_dict()[key]


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
    items = [DueItem(f.entry, _group(f, today), f.why, f.kind, [],
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
        items.append(DueItem(entry, "upcoming", why, "upcoming", []))
    items.sort(key=lambda item: (GROUPS.index(item.group), _day_in_group(item, today)))
    paths = _paths(store, {i for item in items for i in item.entry.note_ids})
    for item in items:
        item.notes = [paths[i] for i in item.entry.note_ids if i in paths]
    return DueResult(now, context.text if context else None, horizon, items)


def _day_in_group(item: DueItem, today: date) -> date:
    """The order within a group: overdue ones by due date, oldest first; upcoming and
    open windows by the day they open; the rest keep the firing order (sort is stable)."""
    if item.group == "overdue":
        return item.entry.due or today
    if item.group in ("upcoming", "open"):
        return item.entry.fires_from or today
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
    row = store.execute("SELECT id, raw, status, present, ledger_path, line, first_seen "
                        "FROM entries WHERE id = ?", [entry_id]).fetchone()
    if row is None:
        return None
    revisions = [RevisionRow(ts, op, json.loads(detail or "{}"))
                 for ts, op, detail in store.execute(
                     "SELECT ts, op, detail FROM ops WHERE entry_id = ? ORDER BY id", [entry_id])]
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
