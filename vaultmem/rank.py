"""Query-time arithmetic: one matrix product, a per-note max, the blend, the top k.

    score_i = cosine_i x (1 + W*s_i) x (1 + W_fire*b_i)        (SPEC 5)

Multiplication keeps relevance sovereign; nothing here ever drops a note for
low salience: the only filters are structural (--in, deleted notes).
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from . import clock, commitments, lexical, prospective
from .config import DEFAULTS, Settings
from .embed import Embedder
from .schema import SCHEMA
from .store import Store
from .vault import normalize_prefix

SALIENCE_PARTS = ("importance", "activation", "centrality", "prospective", "recency")

SNIPPET_CHARS = 240


# QueryOptions field -> the Settings field its default comes from (SPEC 11: one place).
_FROM_SETTINGS = {"weight": "weight", "fire_weight": "fire_weight",
                  "log_mentions": "query_mentions", "mode": "mode", "fusion": "fusion",
                  "rrf_k": "rrf_k", "lexical_weight": "lexical_weight"}


@dataclass(frozen=True)
class QueryOptions:
    """How one query is ranked. Build it with `from_settings`: the defaults below are the
    configuration's own (`config.DEFAULTS`), never numbers written a second time."""

    limit: int = 10
    prefix: str | None = None
    weight: float = DEFAULTS.weight
    fire_weight: float = DEFAULTS.fire_weight
    prospective: bool = True
    floor: bool = False
    include_closed: bool = False
    explain: bool = False
    log_mentions: int = DEFAULTS.query_mentions  # top-N results logged as ACT-R mentions
    mode: str = DEFAULTS.mode  # hybrid | dense | lexical
    fusion: str = DEFAULTS.fusion
    rrf_k: int = DEFAULTS.rrf_k
    lexical_weight: float = DEFAULTS.lexical_weight

    @classmethod
    def from_settings(cls, settings: Settings, **overrides) -> QueryOptions:
        """The effective options: the settings' values, then `overrides` that are not None."""
        values = {name: getattr(settings, key) for name, key in _FROM_SETTINGS.items()}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


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

    def as_dict(self) -> dict:
        row = {"rank": self.rank, "path": self.path, "title": self.title, "score": self.score,
               "cosine": self.cosine, "salience": self.salience, "firing": self.firing,
               "pinned": self.pinned, "commitments": self.commitments,
               "snippet": self.snippet, "heading": self.heading}
        if self.explain is not None:
            row["explain"] = self.explain
        return row


@dataclass
class QueryResult:
    query: str
    now: datetime
    weight: float
    fire_weight: float
    results: list[Hit]
    candidates: int
    seconds: float
    stale: list[str] = field(default_factory=list)  # indexed notes gone from disk: skipped

    def as_dict(self) -> dict:
        """The `query --json` document (SPEC 1)."""
        return {"schema": SCHEMA, "query": self.query,
                "now": self.now.isoformat(timespec="seconds"), "weight": self.weight,
                "fire_weight": self.fire_weight, "candidates": self.candidates,
                "seconds": self.seconds, "stale": self.stale,
                "results": [hit.as_dict() for hit in self.results]}


def run_query(store: Store, embedder: Embedder, text: str, opts: QueryOptions,
              now: datetime, settings: Settings) -> QueryResult:
    """Rank live notes for `text` (which is also the context for trigger matching).

    A note whose file is gone since the last index is never returned: the top results
    are checked on disk and any missing one is skipped (and named in `stale`).
    """
    now = clock.local_naive(now)
    started = time.perf_counter()
    if embedder.dim:  # read the vectors while the model may still be loading (cached)
        store.matrix(embedder.fingerprint, embedder.dim)
    qvec = embedder.embed([text])[0]
    with store.snapshot():
        hits, candidates, log, stale = _rank(store, embedder, text, qvec, opts, now, settings)
    if opts.log_mentions and log:
        _log_mentions(store, now, text, log[: opts.log_mentions])
    w, wf = (opts.weight, opts.fire_weight) if opts.prospective else (0.0, 0.0)
    return QueryResult(text, now, w, wf, hits, candidates,
                       round(time.perf_counter() - started, 4), stale)


def _rank(store, embedder, text, qvec, opts, now, settings) -> tuple[list[Hit], int, list, list]:
    m = store.matrix(embedder.fingerprint, qvec.shape[0])
    titles = store.note_titles()
    if not len(m.note_ids):
        return [], 0, [], []
    sims = m.vectors @ qvec
    cosine = np.maximum.reduceat(sims, m.starts)
    note_ids = m.note_ids[m.starts]
    eligible = _eligible(note_ids, titles, opts)
    if not opts.include_closed:  # closed and stale prospective items stay out unless asked
        hidden = prospective.hidden_note_ids(store)
        if hidden:
            eligible &= ~np.isin(note_ids, list(hidden))
    salience = (_aligned(note_ids, *store.salience_scores()) if opts.prospective
                else np.zeros(len(note_ids)))
    firings = (commitments.firing_now(store, settings, now, text, qvec, embedder.fingerprint)
               if opts.prospective else [])
    fired = _fired_notes(firings)
    firing = (np.isin(note_ids, list(fired)) if fired else np.zeros(len(note_ids), bool)).astype(
        np.float64)
    w, wf = (opts.weight, opts.fire_weight) if opts.prospective else (0.0, 0.0)
    relevance, legs = _relevance(store, text, cosine, note_ids, eligible, fired, opts,
                                  len(sims))
    score = relevance * (1.0 + w * salience) * (1.0 + wf * firing)
    score = np.where(eligible, score, -np.inf)
    top, pinned, stale = _order_on_disk(score, note_ids, fired, opts, titles, settings.vault)
    sal_rows = (store.salience_parts([int(note_ids[i]) for i in top])
                if opts.explain and opts.prospective and top else {})
    ctx = _Ctx(store, m, sims, note_ids, cosine, salience, firing, score, titles, fired,
               sal_rows, opts, relevance, legs)
    hits = [_hit(ctx, rank, i, i in pinned) for rank, i in enumerate(top, start=1)]
    return hits, int(eligible.sum()), [note_ids[i] for i in top], stale


def _order_on_disk(score, note_ids, fired, opts, titles, vault) -> tuple[list, set, list]:
    """`_order`, skipping notes whose file no longer exists (deleted since the last index).

    Only the rows about to be returned are checked: k stats, not one per note.
    """
    stale: list[str] = []
    while True:
        top, pinned = _order(score, note_ids, fired, opts)
        gone = [i for i in top if not os.path.isfile(
            os.path.join(vault, titles[int(note_ids[i])][0]))]
        if not gone:
            return top, pinned, stale
        stale += [titles[int(note_ids[i])][0] for i in gone]
        score = score.copy()
        score[gone] = -np.inf


def _relevance(store, text, cosine, note_ids, eligible, fired, opts, chunks):
    """Relevance before the salience and firing multipliers, by mode.

    dense: the cosine. lexical: BM25, scaled to the best hit. hybrid: reciprocal-rank
    fusion of both legs, scaled to [0, 1]. Prospective items and notes linked from
    open ledger entries are found by meaning, not words (third seed), so their
    lexical term is never below their dense one.
    """
    n = len(note_ids)
    dense_rank = np.full(n, np.inf)
    order = np.flatnonzero(eligible)[np.argsort(-cosine[eligible], kind="stable")]
    dense_rank[order] = np.arange(1, len(order) + 1)
    if opts.mode == "dense":
        return cosine, {"dense_rank": dense_rank}
    bm25, lex_rank = _lexical_leg(store, text, note_ids, eligible, chunks)
    legs = {"dense_rank": dense_rank, "lexical_rank": lex_rank, "bm25": bm25}
    if opts.mode == "lexical":
        best = np.nanmax(np.where(np.isfinite(bm25), -bm25, np.nan)) if np.isfinite(
            bm25).any() else 1.0
        return np.where(np.isfinite(bm25), -bm25 / best, -np.inf), legs
    by_meaning = _found_by_meaning(store, note_ids, fired)
    if opts.fusion == "score":
        return _score_fusion(cosine, bm25, eligible, by_meaning, opts.lexical_weight), legs
    k = opts.rrf_k
    dense_term = 1.0 / (k + dense_rank)
    lex_term = 1.0 / (k + lex_rank)
    lex_term = np.where(by_meaning, np.maximum(lex_term, dense_term), lex_term)
    return (dense_term + lex_term) / (2.0 / (k + 1)), legs


def _score_fusion(cosine, bm25, eligible, by_meaning, alpha) -> np.ndarray:
    """(1 − α)·cosine/best cosine + α·BM25/best BM25, each leg scaled to its best hit."""
    top_cos = float(cosine[eligible].max()) if eligible.any() else 1.0
    dense = cosine / top_cos if top_cos > 0 else cosine
    hit = np.isfinite(bm25)
    lex = np.zeros_like(cosine)
    if hit.any():
        lex[hit] = -bm25[hit] / float((-bm25[hit]).max())
    lex = np.where(by_meaning, np.maximum(lex, dense), lex)
    return (1.0 - alpha) * dense + alpha * lex


def _lexical_leg(store, text, note_ids, eligible, chunks) -> tuple[np.ndarray, np.ndarray]:
    """Per note: its best chunk's BM25 (lower is better) and its rank among hits.

    `chunks`: how many live chunks there are (the rows of the vector matrix).
    """
    n = len(note_ids)
    bm25 = np.full(n, np.inf)
    hits = lexical.search(store.db.conn, text, chunks)
    if hits:
        owners = store.chunk_notes([cid for cid, _ in hits])
        owner = np.array([owners.get(cid, -1) for cid, _ in hits], dtype=np.int64)
        scores = np.array([score for _, score in hits])
        pos = np.searchsorted(note_ids, owner)  # note_ids ascend (the matrix is by note)
        pos = np.minimum(pos, n - 1)
        keep = (note_ids[pos] == owner) & eligible[pos]
        np.minimum.at(bm25, pos[keep], scores[keep])
    rank = np.full(n, np.inf)
    found = np.flatnonzero(np.isfinite(bm25))
    rank[found[np.argsort(bm25[found], kind="stable")]] = np.arange(1, len(found) + 1)
    return bm25, rank


def _aligned(note_ids: np.ndarray, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """values[k] for each note id found among the ascending `keys`, else 0."""
    out = np.zeros(len(note_ids))
    if len(keys):
        pos = np.minimum(np.searchsorted(keys, note_ids), len(keys) - 1)
        found = keys[pos] == note_ids
        out[found] = values[pos[found]]
    return out


def _found_by_meaning(store, note_ids, fired) -> np.ndarray:
    """Prospective items and notes linked from open commitments."""
    ids = set(fired) | store.prospective_note_ids()
    return np.isin(note_ids, list(ids)) if ids else np.zeros(len(note_ids), dtype=bool)


def _fired_notes(firings) -> dict[int, list]:
    """{note id: the firing entries that link to it}, in firing order."""
    out: dict[int, list] = {}
    for f in firings:
        for note_id in f.entry.note_ids:
            out.setdefault(note_id, []).append(f)
    return out


def _order(score, note_ids, fired, opts) -> tuple[list[int], set[int]]:
    """Row order of the results; with --floor, firing notes are pinned first."""
    if not opts.floor:
        return [int(i) for i in _top(score, opts.limit)], set()
    firing_rank = {}
    for rank, note_id in enumerate(fired):  # dict order is firing order
        firing_rank.setdefault(note_id, rank)
    linked = np.isfinite(score) & np.isin(note_ids, list(firing_rank))
    pinned = [int(i) for i in np.flatnonzero(linked)]
    pinned.sort(key=lambda i: (firing_rank[int(note_ids[i])], -score[i]))
    rest = np.where(np.isin(np.arange(len(score)), pinned), -np.inf, score)
    room = max(opts.limit - len(pinned), 0)
    return pinned + [int(i) for i in _top(rest, room)] if room else pinned, set(pinned)


@dataclass
class _Ctx:
    store: Store
    m: object
    sims: np.ndarray
    note_ids: np.ndarray
    cosine: np.ndarray
    salience: np.ndarray
    firing: np.ndarray
    score: np.ndarray
    titles: dict
    fired: dict
    sal_rows: dict
    opts: QueryOptions
    relevance: np.ndarray
    legs: dict


def _hit(ctx: _Ctx, rank: int, i: int, pinned: bool) -> Hit:
    start = ctx.m.starts[i]
    end = ctx.m.starts[i + 1] if i + 1 < len(ctx.m.starts) else len(ctx.sims)
    row = start + int(np.argmax(ctx.sims[start:end]))
    chunk_id = int(ctx.m.chunk_ids[row])
    heading, text = ctx.store.chunk_texts([chunk_id]).get(chunk_id, ("", ""))
    note_id = int(ctx.note_ids[i])
    path, title = ctx.titles[note_id]
    commits = [{"id": f.entry.id, "action": f.entry.action, "why": f.why}
               for f in ctx.fired.get(note_id, [])]
    hit = Hit(rank, path, title, round(float(ctx.score[i]), 4), round(float(ctx.cosine[i]), 4),
              round(float(ctx.salience[i]), 4), bool(ctx.firing[i]), pinned, snippet(text),
              heading, commits)
    if ctx.opts.explain:
        hit.explain = _explain(ctx, i, note_id)
    return hit


def _explain(ctx: _Ctx, i: int, note_id: int) -> dict:
    parts = ctx.sal_rows.get(note_id)
    w, wf = ctx.opts.weight, ctx.opts.fire_weight
    legs = {name: (None if not np.isfinite(arr[i]) else round(float(arr[i]), 4))
            for name, arr in ctx.legs.items()}
    return {
        "mode": ctx.opts.mode,
        "relevance": round(float(ctx.relevance[i]), 4),
        **legs,
        "cosine": round(float(ctx.cosine[i]), 4),
        "salience": round(float(ctx.salience[i]), 4),
        "components": dict(zip(SALIENCE_PARTS, (round(x, 4) for x in parts[1:]), strict=True))
        if parts else None,
        "firing": int(ctx.firing[i]),
        "formula": f"{ctx.relevance[i]:.4f} x (1 + {w}*{ctx.salience[i]:.4f}) x "
                   f"(1 + {wf}*{int(ctx.firing[i])}) = {ctx.score[i]:.4f}",
    }


def _eligible(note_ids: np.ndarray, titles: dict, opts: QueryOptions) -> np.ndarray:
    prefix = normalize_prefix(opts.prefix)
    if not prefix:
        return np.ones(len(note_ids), dtype=bool)
    return np.fromiter((titles[i][0].startswith(prefix) for i in note_ids), bool, len(note_ids))


def _top(score: np.ndarray, k: int) -> np.ndarray:
    finite = np.flatnonzero(np.isfinite(score))
    if len(finite) > k:
        finite = finite[np.argpartition(-score[finite], k - 1)[:k]]
    # stable tie-break on position keeps equal scores in store order
    return finite[np.lexsort((finite, -score[finite]))]


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
