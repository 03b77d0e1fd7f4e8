"""Commitments in the store: ledger sync (Revise), firing (Filter, Decide), listings.

The ledger parser and the revision diff are pure (`ledger.py`); this module
writes their results as rows and typed ops, and answers "what fires now, and
why" for `query` and `due`. Nothing is ever deleted: an entry gone from the
ledger is kept with `present = 0` and a `removed` op.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import date, datetime

import numpy as np

from . import trigger
from .config import Settings
from .embed import embed_text
from .ledger import Known, LedgerEntry, parse_ledger, reconcile
from .parse import Link
from .store import Store
from .vault import content_hash

_DATE_FIELDS = ("due", "scheduled", "start", "created", "done_on", "cancelled_on")


def is_ledger(path: str, note_type: str | None, settings: Settings) -> bool:
    """A ledger is a note with `type: ledger`, or one of the configured ledger notes."""
    return (note_type or "").lower() == "ledger" or path in settings.ledger_notes


def entry_to_json(entry: LedgerEntry) -> str:
    data = asdict(entry)
    for key in _DATE_FIELDS:
        data[key] = data[key].isoformat() if data[key] else None
    return json.dumps(data, ensure_ascii=False)


def entry_from_json(text: str) -> LedgerEntry:
    data = json.loads(text)
    for key in _DATE_FIELDS:
        data[key] = date.fromisoformat(data[key]) if data[key] else None
    for key in ("keywords", "links", "tags"):
        data[key] = tuple(data[key])
    return LedgerEntry(**data)


def sync_ledger(store: Store, path: str, note_id: int | None, text: str | None,
                stamp: str) -> list[tuple[str, int, str]]:
    """Reconcile one ledger note with what the store knows; return its line warnings.

    `text` None means the note is gone or no longer a ledger: its entries are removed.
    """
    entries, warnings = parse_ledger(text) if text is not None else ([], [])
    known = [Known(row[0], entry_from_json(row[1])) for row in store.execute(
        "SELECT id, entry FROM entries WHERE ledger_path = ? AND present = 1", [path])]
    taken = {row[0] for row in store.execute("SELECT id FROM entries")}
    for entry_id, entry, revisions in reconcile(known, entries, taken):
        if entry is None:
            store.execute("UPDATE entries SET present = 0, updated_at = ? WHERE id = ?",
                          [stamp, entry_id])
        else:
            _write_entry(store, entry_id, path, entry, stamp)
        for rev in revisions:
            store.add_op(stamp, rev.kind, note_id, entry_id, rev.detail)
    return [(path, w.line, w.message) for w in warnings]


def _write_entry(store: Store, entry_id: str, path: str, entry: LedgerEntry, stamp: str):
    iso = {k: getattr(entry, k).isoformat() if getattr(entry, k) else None
           for k in _DATE_FIELDS}
    cond = entry.condition
    row = {
        "ledger_path": path, "line": entry.line, "raw": entry.raw, "status": entry.status,
        "action": entry.action, "condition": cond, "keywords": json.dumps(entry.keywords),
        "due": iso["due"], "scheduled": iso["scheduled"], "start": iso["start"],
        "fires_from": entry.fires_from.isoformat() if entry.fires_from else None,
        "done_on": iso["done_on"], "cancelled_on": iso["cancelled_on"],
        "project": entry.project, "tags": json.dumps(entry.tags), "block_id": entry.block_id,
        "fields": json.dumps(entry.fields, ensure_ascii=False), "present": 1,
        "cond_hash": condition_hash(cond) if cond else None,
        "entry": entry_to_json(entry), "updated_at": stamp,
    }
    exists = store.execute("SELECT 1 FROM entries WHERE id = ?", [entry_id]).fetchone()
    if exists:
        store.db["entries"].update(entry_id, row)
    else:
        store.db["entries"].insert({"id": entry_id, "first_seen": stamp, **row})
    store.execute("DELETE FROM entry_links WHERE entry_id = ?", [entry_id])
    store.db.conn.executemany(
        "INSERT INTO entry_links (entry_id, ord, target_raw) VALUES (?, ?, ?)",
        [(entry_id, i, target) for i, target in enumerate(entry.links)],
    )


def condition_hash(condition: str) -> str:
    """Conditions are embedded like chunks: keyed by the hash of the embedded text."""
    return content_hash(embed_text("", "", condition).encode())


def resolve_entry_links(store: Store, resolver, ids: dict[str, int]) -> None:
    """Point every present entry's links at notes, as a wiki-link from its ledger would."""
    rows = store.execute(
        "SELECT l.entry_id, l.ord, l.target_raw, e.ledger_path FROM entry_links l "
        "JOIN entries e ON e.id = l.entry_id WHERE e.present = 1").fetchall()
    updates = []
    for entry_id, ord_, target, ledger_path in rows:
        hit = resolver.resolve(Link(target, "wiki", None, None, None, 0), ledger_path)
        updates.append((ids.get(hit) if hit else None, entry_id, ord_))
    store.db.conn.executemany(
        "UPDATE entry_links SET target_id = ? WHERE entry_id = ? AND ord = ?", updates)


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

def due_set(store: Store, settings: Settings, now: datetime, context: str | None,
            context_vec: np.ndarray | None, fingerprint: str, show_all: bool) -> list[Firing]:
    """The due set at `now`: open entries whose window arrived or whose trigger matched.

    Each entry is reported at most once per day unless `show_all`; what is shown is
    remembered in `due_log`.
    """
    firings = firing_now(store, settings, now, context, context_vec, fingerprint)
    day = now.date().isoformat()
    if not show_all:
        seen = {row[0] for row in store.execute("SELECT entry_id FROM due_log WHERE day = ?",
                                                [day])}
        firings = [f for f in firings if f.entry.id not in seen]
    with store.atomic():
        store.db.conn.executemany("INSERT OR IGNORE INTO due_log (entry_id, day) VALUES (?, ?)",
                                  [(f.entry.id, day) for f in firings])
    return firings


def note_paths(store: Store, ids: list[int]) -> list[str]:
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = dict(store.execute(f"SELECT id, path FROM notes WHERE id IN ({marks})", ids))
    return [rows[i] for i in ids if i in rows]


def list_entries(store: Store, include_closed: bool) -> list[dict]:
    """Ledger entries with status and link targets; open ones only unless asked."""
    where = "" if include_closed else "WHERE e.present = 1 AND e.status = 'open'"
    rows = store.execute(
        "SELECT e.id, e.status, e.present, e.action, e.condition, e.due, e.fires_from, "
        "e.ledger_path, e.line, e.project, (SELECT count(*) FROM ops o WHERE o.entry_id = e.id) "
        f"FROM entries e {where} ORDER BY e.present DESC, e.ledger_path, e.line").fetchall()
    out = []
    for r in rows:
        links = store.execute(
            "SELECT l.target_raw, n.path FROM entry_links l LEFT JOIN notes n ON n.id = "
            "l.target_id WHERE l.entry_id = ? ORDER BY l.ord", [r[0]]).fetchall()
        out.append({"id": r[0], "status": r[1] if r[2] else "removed", "action": r[3],
                    "condition": r[4], "due": r[5], "fires_from": r[6], "ledger": r[7],
                    "line": r[8], "project": r[9], "revisions": r[10],
                    "links": [{"target": t, "path": p} for t, p in links]})
    return out


def history(store: Store, entry_id: str) -> dict | None:
    """One entry as it stands, with every typed revision in order."""
    row = store.execute("SELECT id, raw, status, present, ledger_path, line, first_seen "
                        "FROM entries WHERE id = ?", [entry_id]).fetchone()
    if row is None:
        return None
    revisions = [{"ts": ts, "kind": op, "detail": json.loads(detail or "{}")}
                 for ts, op, detail in store.execute(
                     "SELECT ts, op, detail FROM ops WHERE entry_id = ? ORDER BY id", [entry_id])]
    return {"id": row[0], "raw": row[1], "status": row[2] if row[3] else "removed",
            "ledger": row[4], "line": row[5], "first_seen": row[6], "revisions": revisions}
