"""The offline salience job (SPEC 4): five components per note, normalised, blended.

    s_i = 0.30 I + 0.25 A + 0.20 C + 0.15 P + 0.10 R      (weights from config)

I importance (front matter, else by type), A ACT-R base-level activation from
the ops log, C PageRank over the link graph, P prospective linkage to open
ledger entries, R recency. Each component is divided by its corpus maximum.
Salience ranks; it never prunes: every live note gets a row.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from . import clock
from .config import Settings
from .schema import SCHEMA
from .store import Store, entries, items, notes
from .store import salience as salience_rows

IMPORTANCE_WORDS = {"high": 1.0, "medium": 0.6, "low": 0.3}
# A note linked from an open ledger entry of high or highest Tasks priority counts as
# importance "high"; lower priorities never lower a note's own importance.
PRIORITY_IMPORTANCE = {"highest": 1.0, "high": 1.0}
HUB_TYPES = {"index", "moc", "reference"}
EPHEMERAL_TYPES = {"log", "daily"}
MENTION_OPS = ("created", "modified", "restored", "linked", "retrieved", "surfaced")
DATED_STEM = re.compile(r"^\d{4}-\d{2}-\d{2}")
COMPONENTS = ("importance", "activation", "centrality", "prospective", "recency")


@dataclass
class SalienceReport:
    notes: int
    computed_at: str
    seconds: float
    maxima: dict[str, float]

    def as_dict(self) -> dict:
        """The `salience --json` document."""
        return {"schema": SCHEMA, "notes": self.notes, "computed_at": self.computed_at,
                "seconds": self.seconds, "maxima": self.maxima}


def importance(raw: str | None, note_type: str | None, path: str) -> float:
    """Front matter importance (high/medium/low or a number), else a default by type."""
    if raw:
        word = raw.strip().lower()
        if word in IMPORTANCE_WORDS:
            return IMPORTANCE_WORDS[word]
        try:
            return max(0.0, float(word))
        except ValueError:
            pass
    kind = (note_type or "").strip().lower()
    if kind in HUB_TYPES:
        return 1.0
    stem = path.rsplit("/", 1)[-1]
    if kind in EPHEMERAL_TYPES or DATED_STEM.match(stem):
        return 0.3
    return 0.6


def power_decay(days: np.ndarray) -> np.ndarray:
    """(d+1)^-0.5, the ACT-R base-level term with decay 0.5; future events count as now."""
    return (np.maximum(days, 0.0) + 1.0) ** -0.5


def days_before(now: datetime, stamps: list[str]) -> np.ndarray:
    moments = np.array([clock.naive_stamp(s) for s in stamps], dtype="datetime64[s]")
    return (np.datetime64(clock.local_naive(now), "s") - moments) / np.timedelta64(86400, "s")


def ledger_note_ids(store: Store, settings: Settings) -> set[int]:
    """Ledger notes: their links are commitments, which P (prospective linkage) counts."""
    return notes.ledger_ids(store, list(settings.ledger_notes))


def _priority_importance(store: Store) -> dict[int, float]:
    """{note id: importance} from the priorities of the open entries that link it."""
    out: dict[int, float] = {}
    for target, priority in entries.open_link_priorities(store):
        value = PRIORITY_IMPORTANCE.get(str(priority or "").strip().lower())
        if value:
            out[target] = max(out.get(target, 0.0), value)
    return out


def activation(store: Store, ids: list[int], now: datetime,
               ledgers: set[int] = frozenset()) -> np.ndarray:
    """Σ over a note's mentions in the ops log of (d+1)^-0.5 (mentions after `now` ignored).

    Entry revisions carry their ledger's note id but are not mentions of that note,
    and being linked from a ledger is a commitment (P), not a mention: counting it
    here would keep a resolved commitment's notes warm.
    """
    rows = [(n, ts) for n, ts, source in notes.mentions(store, MENTION_OPS)
            if source not in ledgers]
    index = {note_id: i for i, note_id in enumerate(ids)}
    rows = [(index[n], ts) for n, ts in rows if n in index]
    out = np.zeros(len(ids))
    if rows:
        where = np.array([i for i, _ in rows])
        days = days_before(now, [ts for _, ts in rows])
        keep = days >= 0
        np.add.at(out, where[keep], power_decay(days[keep]))
    return out


def centrality(store: Store, ids: list[int], ledgers: set[int] = frozenset()) -> np.ndarray:
    """PageRank (damping 0.85) over the resolved note-to-note links (ledgers' excluded)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(ids)
    live = set(ids)
    graph.add_edges_from(
        (s, t) for s, t in notes.link_pairs(store)
        if s != t and s in live and t in live and s not in ledgers)
    if not ids:
        return np.zeros(0)
    rank = nx.pagerank(graph, alpha=0.85)
    return np.array([rank[i] for i in ids])


def commitment_linkage(store: Store, ids: list[int], projects: list[str | None],
                       tags: dict[int, set[str]]) -> np.ndarray:
    """P, the `prospective` component: 1.0 if linked from an open ledger entry, 0.6 if
    it shares a project with one."""
    linked = entries.open_link_targets(store)
    open_projects = {project.lower() for project in entries.open_projects(store)}
    out = np.zeros(len(ids))
    for i, (note_id, project) in enumerate(zip(ids, projects, strict=True)):
        note_projects = {p.removeprefix("project/") for p in tags.get(note_id, ())
                         if p.startswith("project/")}
        if project:
            note_projects.add(project.lower())
        if note_id in linked:
            out[i] = 1.0
        elif note_projects & open_projects:
            out[i] = 0.6
    return out


def normalise(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if len(values) else 0.0
    return values / top if top > 0 else np.zeros_like(values)


TIMELESS = ("importance", "centrality", "prospective")


def _timeless_for_items(store, ids, parts, weights, score) -> np.ndarray:
    """Prospective items never decay with age (SPEC 7): their salience leaves out the
    two time-driven components and renormalises the rest of the weights."""
    timeless_ids = items.note_level_ids(store)
    total = sum(weights[n] for n in TIMELESS)
    if not timeless_ids or total <= 0:
        return score
    timeless = sum(weights[n] * parts[n] for n in TIMELESS) / total
    mask = np.array([i in timeless_ids for i in ids])
    return np.where(mask, timeless, score)


def run_salience(store: Store, settings: Settings, now: datetime) -> SalienceReport:
    """Recompute and store every live note's salience with its components."""
    now = clock.local_naive(now)
    started = time.perf_counter()
    rows = notes.live(store)
    ids = [r[0] for r in rows]
    ledgers = ledger_note_ids(store, settings)
    tags: dict[int, set[str]] = {}
    for note_id, tag in notes.tags(store):
        tags.setdefault(note_id, set()).add(tag)
    mtimes = [datetime.fromtimestamp((r[5] or 0) / 1e9).isoformat(timespec="seconds")
              for r in rows]
    urgent = _priority_importance(store)
    raw = {
        "importance": np.array([max(importance(r[3], r[2], r[1]), urgent.get(r[0], 0.0))
                                for r in rows]),
        "activation": activation(store, ids, now, ledgers),
        "centrality": centrality(store, ids, ledgers),
        "prospective": commitment_linkage(store, ids, [r[4] for r in rows], tags),
        "recency": power_decay(days_before(now, mtimes)) if rows else np.zeros(0),
    }
    parts = {name: normalise(raw[name]) for name in COMPONENTS}
    weights = settings.salience
    score = sum(weights[name] * parts[name] for name in COMPONENTS) if rows else np.zeros(0)
    score = _timeless_for_items(store, ids, parts, weights, score)
    stamp = now.isoformat(timespec="seconds")
    from .prospective import refresh_lifecycle

    refresh_lifecycle(store, settings, now)
    with store.atomic():
        salience_rows.replace(store, [
            (ids[i], *(float(parts[n][i]) for n in COMPONENTS), float(score[i]), stamp)
            for i in range(len(ids))])
    return SalienceReport(len(ids), stamp, round(time.perf_counter() - started, 3),
                          {n: float(raw[n].max()) if len(ids) else 0.0 for n in COMPONENTS})
