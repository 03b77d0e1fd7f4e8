"""Commitments at query time: what fires now, and why (Filter, Decide); listings.

The ledger is read into the store at index time (`ledger_sync`, the Revise step);
this module only reads the store, so a query never imports the markdown parser.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np

from . import trigger
from .config import Settings
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
