"""Query-time arithmetic: one matrix product, a per-note max, the blend, the top k.

    score_i = cosine_i x (1 + W*s_i) x (1 + W_fire*b_i)        (SPEC 5)

Multiplication keeps relevance sovereign; nothing here ever drops a note for
low salience: the only filters are structural (--in, deleted notes).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from .embed import Embedder
from .store import Store

SNIPPET_CHARS = 240


@dataclass(frozen=True)
class QueryOptions:
    limit: int = 10
    prefix: str | None = None
    weight: float = 0.3
    fire_weight: float = 1.0
    prospective: bool = True
    floor: bool = False
    include_closed: bool = False
    explain: bool = False
    log_mentions: int = 5  # top-N results logged as ACT-R mentions (0: none)


@dataclass
class Hit:
    rank: int
    path: str
    title: str
    score: float
    cosine: float
    salience: float
    firing: bool
    pinned: bool
    snippet: str
    heading: str = ""
    commitments: list[dict] = field(default_factory=list)
    explain: dict | None = None


@dataclass
class QueryResult:
    query: str
    now: datetime
    weight: float
    fire_weight: float
    results: list[Hit]
    candidates: int
    seconds: float


def run_query(store: Store, embedder: Embedder, text: str, opts: QueryOptions,
              now: datetime) -> QueryResult:
    """Rank live notes for `text`."""
    started = time.perf_counter()
    qvec = embedder.embed([text])[0]
    m = store.matrix(embedder.fingerprint, qvec.shape[0])
    titles = store.note_titles()
    if not len(m.note_ids):
        return QueryResult(text, now, opts.weight, opts.fire_weight, [], 0, 0.0)
    sims = m.vectors @ qvec
    cosine = np.maximum.reduceat(sims, m.starts)
    note_ids = m.note_ids[m.starts]
    eligible = _eligible(note_ids, titles, opts)
    salience = np.zeros_like(cosine)
    firing = np.zeros_like(cosine)
    w = opts.weight if opts.prospective else 0.0
    wf = opts.fire_weight if opts.prospective else 0.0
    score = cosine * (1.0 + w * salience) * (1.0 + wf * firing)
    score = np.where(eligible, score, -np.inf)
    top = _top(score, opts.limit)
    hits = _hits(store, m, sims, top, note_ids, cosine, salience, firing, score, titles)
    if opts.log_mentions and hits:
        _log_mentions(store, now, text, [note_ids[i] for i in top[: opts.log_mentions]])
    return QueryResult(text, now, opts.weight, opts.fire_weight, hits, int(eligible.sum()),
                       round(time.perf_counter() - started, 4))


def _eligible(note_ids: np.ndarray, titles: dict, opts: QueryOptions) -> np.ndarray:
    if not opts.prefix:
        return np.ones(len(note_ids), dtype=bool)
    prefix = opts.prefix.strip("/") + "/"
    return np.fromiter((titles[i][0].startswith(prefix) for i in note_ids), bool, len(note_ids))


def _top(score: np.ndarray, k: int) -> np.ndarray:
    finite = np.flatnonzero(np.isfinite(score))
    if len(finite) > k:
        finite = finite[np.argpartition(-score[finite], k - 1)[:k]]
    # stable tie-break on position keeps equal scores in store order
    return finite[np.lexsort((finite, -score[finite]))]


def _hits(store, m, sims, top, note_ids, cosine, salience, firing, score, titles) -> list[Hit]:
    ends = np.r_[m.starts[1:], len(sims)]
    best_rows = [m.starts[i] + int(np.argmax(sims[m.starts[i]:ends[i]])) for i in top]
    chunks = store.chunk_texts([int(m.chunk_ids[r]) for r in best_rows])
    hits = []
    for rank, (i, row) in enumerate(zip(top, best_rows, strict=True), start=1):
        path, title = titles[note_ids[i]]
        heading, text = chunks[int(m.chunk_ids[row])]
        hits.append(Hit(rank, path, title, round(float(score[i]), 4),
                        round(float(cosine[i]), 4), round(float(salience[i]), 4),
                        bool(firing[i]), False, snippet(text), heading))
    return hits


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _log_mentions(store: Store, now: datetime, text: str, note_ids) -> None:
    """Queries feed ACT-R activation: the top results are mentions (SPEC 4)."""
    stamp = now.isoformat(timespec="seconds")
    try:
        with store.atomic():
            for rank, note_id in enumerate(note_ids, start=1):
                store.add_op(stamp, "retrieved", int(note_id),
                             detail={"rank": rank, "query": text[:200]})
    except sqlite3.OperationalError:
        pass  # a read-only or busy store still answers queries; the mention is just lost
