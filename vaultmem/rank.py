"""Query-time arithmetic: one matrix product, a per-note max, the blend, the top k.

    score_i = cosine_i x (1 + W*s_i) x (1 + W_fire*b_i)        (SPEC 5)

Multiplication keeps relevance sovereign; nothing here ever drops a note for
low salience: the only filters are structural (`filters.Filters`: folders, tags,
front matter, change dates, ledger notes; and deleted notes). Then
placement: the notes of an entry that fires on the query (grounded) rank no
lower than `fire_slot`, because the query is their moment; `--floor` pins them
above the list instead. Ambient firing (a window open, the query not about it)
only multiplies, and lifts a note only among comparably relevant ones: one whose
relevance is below `ambient_band` of the query's best is there from nowhere, and is
placed by its score without the firing factor (`_from_nowhere`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from . import clock, commitments, filters, prospective, trigger
from .config import DEFAULTS, Settings
from .embed import Embedder, ModelChoice, for_query, query_side, ranking_settings, spec_for
from .filters import Filters
from .schema import SCHEMA
from .snippet import query_stems, snippet
from .store import Store
from .store import fts as lexical
from .text.rows import Item, plain

SALIENCE_PARTS = ("importance", "activation", "centrality", "prospective", "recency")



# QueryOptions field -> the Settings field its default comes from (SPEC 11: one place).
_FROM_SETTINGS = {"weight": "weight", "fire_weight": "fire_weight", "fire_slot": "fire_slot",
                  "ambient_band": "ambient_band",
                  "log_mentions": "query_mentions", "mode": "mode", "fusion": "fusion",
                  "rrf_k": "rrf_k", "lexical_weight": "lexical_weight",
                  "lexical_coverage": "lexical_coverage", "coverage_words": "coverage_words"}
# Keyword arguments of `from_settings` (and so of `Vault.query`) that build its `filters`.
FILTER_FIELDS = ("folders", "not_folders", "tags", "not_tags", "where", "changed_since",
                 "changed_before", "include_ledger")


@dataclass(frozen=True)
class QueryOptions:
    """How one query is ranked. Build it with `from_settings`: the defaults below are the
    configuration's own (`config.DEFAULTS`), never numbers written a second time."""

    limit: int = 10
    filters: Filters = Filters()
    weight: float = DEFAULTS.weight
    fire_weight: float = DEFAULTS.fire_weight
    fire_slot: int = DEFAULTS.fire_slot
    ambient_band: float = DEFAULTS.ambient_band
    prospective: bool = True
    floor: bool = False
    include_closed: bool = False
    explain: bool = False
    log_mentions: int = DEFAULTS.query_mentions  # top-N results logged as ACT-R mentions
    mode: str = DEFAULTS.mode  # hybrid | dense | lexical
    fusion: str = DEFAULTS.fusion
    rrf_k: int = DEFAULTS.rrf_k
    lexical_weight: float = DEFAULTS.lexical_weight
    lexical_coverage: float = DEFAULTS.lexical_coverage
    coverage_words: int = DEFAULTS.coverage_words
    dense_origin: str = "zero"  # the model's (`embed.ModelSpec.dense_origin`)

    @classmethod
    def from_settings(cls, settings: Settings, **overrides) -> QueryOptions:
        """The effective options: the settings' values, then `overrides` that are not None.
        The filter fields among them (`FILTER_FIELDS`) go through `Filters.build`."""
        values = {name: getattr(settings, key) for name, key in _FROM_SETTINGS.items()}
        values["dense_origin"] = spec_for(settings.model).dense_origin
        given = {k: v for k, v in overrides.items() if v is not None}
        chosen = {k: given.pop(k) for k in FILTER_FIELDS if k in given}
        if chosen:
            values["filters"] = Filters.build(**chosen)
        values.update(given)
        return cls(**values)


@dataclass
class HitCommitment(Item):
    """A commitment linking a hit's note that fires now, and why."""

    id: str
    action: str
    why: str
    grounded: bool


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
    commitments: list[HitCommitment] = field(default_factory=list)
    explain: dict | None = None

    def as_dict(self) -> dict:
        row = {"rank": self.rank, "path": self.path, "title": self.title, "score": self.score,
               "cosine": self.cosine, "salience": self.salience, "firing": self.firing,
               "pinned": self.pinned, "commitments": plain(self.commitments),
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
    firing: list[commitments.FiringRow] = field(default_factory=list)  # firing now (SPEC 1)
    filters: dict = field(default_factory=dict)  # the filters given (`Filters.as_dict`)
    model: ModelChoice | None = None  # which model ranked the query, and why

    def strip(self, ambient: int = 3) -> tuple[list, int]:
        """What the terminal shows above the results (SPEC 5): every grounded firing and
        the `ambient` most urgent background ones, and how many more are due. A filtered
        query's `firing` already holds only the commitments that link a note it may
        return."""
        grounded = [f for f in self.firing if f["grounded"]]
        background = [f for f in self.firing if not f["grounded"]]
        return grounded + background[:ambient], max(len(background) - ambient, 0)

    def as_dict(self) -> dict:
        """The `query --json` document (SPEC 1)."""
        return {"schema": SCHEMA, "query": self.query,
                "now": self.now.isoformat(timespec="seconds"), "weight": self.weight,
                "fire_weight": self.fire_weight, "candidates": self.candidates,
                "seconds": self.seconds, "stale": self.stale, "filters": self.filters,
                "firing": plain(self.firing),
                "model": self.model.as_dict() if self.model else None,
                "results": [hit.as_dict() for hit in self.results]}


def run_query(store: Store, embedder: Embedder, text: str, opts: QueryOptions,
              now: datetime, settings: Settings) -> QueryResult:
    """Rank live notes for `text` (which is also the context for trigger matching).

    A note whose file is gone since the last index is never returned: the top results
    are checked on disk and any missing one is skipped (and named in `stale`). With the
    multilingual option, the query's language picks the model that ranks it
    (`embed.PerLanguage`), and the dense leg's scale is that model's.
    """
    now = clock.local_naive(now)
    started = time.perf_counter()
    chosen, model = for_query(embedder, text, store.holds_none_of)
    if chosen is not embedder:
        settings = ranking_settings(settings, chosen)
        if getattr(chosen, "spec", None):
            opts = replace(opts, dense_origin=chosen.spec.dense_origin)
    embedder = chosen
    with store.snapshot():
        # Everything the ranking reads that does not need the query's vector is read
        # first, while the model may still be loading (`embed.query_embedder`).
        fires = opts.prospective and commitments.may_fire_on(store, now)
        notes = _notes(store, text, opts, settings, embedder.fingerprint,
                       embedder.dim) if embedder.dim else None
        query_stems(text)  # and the snippets' stems (the stemmer loads)
        if fires:  # the query and its sentences (or clauses): one model call
            context = trigger.make_context(text, query_side(embedder), settings.context_units)
        else:
            context = trigger.Context(text, (trigger.Unit(text, "query"),),
                                      query_side(embedder)([text]))
        notes = notes or _notes(store, text, opts, settings, embedder.fingerprint,
                                context.vec.shape[0])
        hits, candidates, log, stale, lane = _rank(store, embedder, context, opts, now,
                                                   settings, notes, fires)
    if opts.log_mentions and log:
        _log_mentions(store, now, text, log[: opts.log_mentions])
    w, wf = (opts.weight, opts.fire_weight) if opts.prospective else (0.0, 0.0)
    return QueryResult(text, now, w, wf, hits, candidates,
                       round(time.perf_counter() - started, 4), stale, lane,
                       opts.filters.as_dict(), model)


@dataclass
class _Notes:
    """What a query reads of the store that does not depend on its vector."""

    m: object  # store.matrix.Matrix
    note_ids: np.ndarray  # one per note, ascending (the matrix is by note)
    titles: dict
    allowed: set[int] | None  # the notes the filters let through; None: not filtered
    eligible: np.ndarray  # allowed, and not a closed or stale prospective item
    salience: np.ndarray
    lexical: tuple | None  # `_lexical_leg` (hybrid and lexical modes)


def _notes(store, text, opts, settings, fingerprint, dim) -> _Notes:
    m = store.matrix(fingerprint, dim)
    titles = store.note_titles()
    note_ids = m.note_ids[m.starts] if len(m.note_ids) else np.zeros(0, np.int64)
    if not len(note_ids):
        empty = np.zeros(0)
        return _Notes(m, note_ids, titles, None, empty.astype(bool), empty, None)
    eligible = filters.mask(store, settings, note_ids, titles, opts.filters)
    allowed = set(note_ids[eligible].tolist()) if opts.filters.narrows else None
    if not opts.include_closed:  # closed and stale prospective items stay out unless asked
        hidden = prospective.hidden_note_ids(store)
        if hidden:
            eligible &= ~np.isin(note_ids, list(hidden))
    salience = (_aligned(note_ids, *store.salience_scores()) if opts.prospective
                else np.zeros(len(note_ids)))
    lexical = (_lexical_leg(store, text, note_ids, eligible, len(m.note_ids))
               if opts.mode != "dense" else None)
    return _Notes(m, note_ids, titles, allowed, eligible, salience, lexical)


def _rank(store, embedder, context, opts, now, settings, notes: _Notes, fires: bool
          ) -> tuple[list[Hit], int, list, list, list]:
    text, qvec = context.text, context.vec
    m, note_ids, titles, eligible = notes.m, notes.note_ids, notes.titles, notes.eligible
    sims = m.vectors @ qvec
    cosine = np.maximum.reduceat(sims, m.starts) if len(sims) else np.zeros(0)
    # No open entry has a condition or an open window: nothing can fire.
    firings = (commitments.firing_now(store, settings, now, context, embedder.fingerprint,
                                      commitments.nearest_notes(note_ids, cosine))
               if fires else [])
    if not len(m.note_ids):
        return [], 0, [], [], _lane(store, firings, None)
    lane = _lane(store, firings, notes.allowed)
    salience = notes.salience
    fired = _fired_notes(firings)
    firing = (np.isin(note_ids, list(fired)) if fired else np.zeros(len(note_ids), bool)).astype(
        np.float64)
    w, wf = (opts.weight, opts.fire_weight) if opts.prospective else (0.0, 0.0)
    relevance, legs = _relevance(store, text, cosine, note_ids, eligible, fired, opts,
                                  notes.lexical)
    score = relevance * (1.0 + w * salience) * (1.0 + wf * firing)
    score = np.where(eligible, score, -np.inf)
    nowhere, band = _from_nowhere(relevance, eligible, note_ids, fired,
                                  opts.ambient_band if wf else 0.0)
    # The order: by score, but a note lifted from nowhere by ambient firing goes where its
    # score without the firing factor puts it (its score stays the formula's).
    order = np.where(nowhere, relevance * (1.0 + w * salience), score)
    grounded = _grounded_strength(note_ids, fired)
    top, pinned, natural, stale = _order_on_disk(order, grounded, opts, titles, note_ids,
                                                 settings.vault)
    sal_rows = (store.salience_parts([int(note_ids[i]) for i in top])
                if opts.explain and opts.prospective and top else {})
    ctx = _Ctx(store, m, sims, note_ids, cosine, salience, firing, score, titles, fired,
               sal_rows, opts, relevance, legs, natural, text, nowhere, band, order)
    hits = [_hit(ctx, rank, i, i in pinned) for rank, i in enumerate(top, start=1)]
    return hits, int(eligible.sum()), [note_ids[i] for i in top], stale, lane


def _order_on_disk(score, grounded, opts, titles, note_ids, vault
                   ) -> tuple[list, set, dict, list]:
    """`_order`, skipping notes whose file no longer exists (deleted since the last index).

    Only the rows about to be returned are checked: k stats, not one per note.
    """
    stale: list[str] = []
    while True:
        top, pinned, natural = _order(score, grounded, opts)
        gone = [i for i in top if not os.path.isfile(
            os.path.join(vault, titles[int(note_ids[i])][0]))]
        if not gone:
            return top, pinned, natural, stale
        stale += [titles[int(note_ids[i])][0] for i in gone]
        score = score.copy()
        score[gone] = -np.inf


def _relevance(store, text, cosine, note_ids, eligible, fired, opts, lexical):
    """Relevance before the salience and firing multipliers, by mode (`lexical`: the
    lexical leg, `_lexical_leg`, read before the query's vector; None in dense mode).

    dense: the cosine. lexical: BM25, scaled to the best hit. hybrid: the fusion of
    both legs (see `_score_fusion`; or reciprocal-rank fusion, scaled to [0, 1]), where
    a note's lexical term is weighted by how much of the query its best chunk holds.
    Prospective items and notes linked from open ledger entries are found by meaning,
    not words (third seed), so on a long context their lexical term is never below
    their dense one, on the lexical leg's scale for this query (its largest term); on a
    short query their words are weighed like any note's (`meaning_floor`).
    """
    dense_rank = np.full(len(cosine), np.inf)
    order = np.flatnonzero(eligible)[np.argsort(-cosine[eligible], kind="stable")]
    dense_rank[order] = np.arange(1, len(order) + 1)
    if opts.mode == "dense":
        return cosine, {"dense_rank": dense_rank}
    bm25, lex_rank, share = lexical
    legs = {"dense_rank": dense_rank, "lexical_rank": lex_rank, "bm25": bm25,
            "coverage": share}
    if opts.mode == "lexical":
        best = np.nanmax(np.where(np.isfinite(bm25), -bm25, np.nan)) if np.isfinite(
            bm25).any() else 1.0
        return np.where(np.isfinite(bm25), -bm25 / best, -np.inf), legs
    by_meaning = _found_by_meaning(store, note_ids, fired)
    evidence = share ** coverage_exponent(text, opts)
    floor = meaning_floor(text, opts)
    if opts.fusion == "score":
        dense_term, lex_term = _score_fusion(cosine, bm25, eligible, by_meaning,
                                             opts.lexical_weight, evidence, opts.dense_origin,
                                             floor)
    else:
        k = opts.rrf_k
        dense_term = 1.0 / (k + dense_rank)
        lex_term = evidence / (k + lex_rank)
        found = np.isfinite(lex_rank) & eligible
        speaks = (k + 1) * float(lex_term[found].max()) if found.any() else 1.0
        lex_term = np.where(by_meaning, np.maximum(lex_term, floor * dense_term * speaks),
                            lex_term)
        dense_term, lex_term = (t / (2.0 / (k + 1)) for t in (dense_term, lex_term))
    legs["dense_term"], legs["lexical_term"] = dense_term, lex_term
    return dense_term + lex_term, legs


def coverage_exponent(text: str, opts: QueryOptions) -> float:
    """How much a note's share of the query's words weighs its lexical term: in full
    (`lexical_coverage`) for a query of up to `coverage_words` words, fading to nothing
    at twice as many. A short question shares everyday words with many notes, and the
    share tells a real match from those; a long context shares a few words with each
    note it concerns, and those few are the evidence."""
    words = len(lexical.query_words(text))
    start = opts.coverage_words
    fade = min(max((2 * start - words) / start, 0.0), 1.0)
    return opts.lexical_coverage * fade


def meaning_floor(text: str, opts: QueryOptions) -> float:
    """How far the found-by-meaning floor holds (see `_relevance`): the part of the
    coverage exponent that has faded, so none for a query of up to `coverage_words`
    words, all of it from twice as many. A short query's words are its evidence (the
    coverage rule weighs them in full): a note holding none of them is not nearer for
    being linked from a commitment, and lifting it there is a boost without a firing,
    on every unrelated question asked while the commitment is open. A long context's
    words are too many for any note to hold, so there the floor stands in for them.
    With `lexical_coverage` 0 (plain fusion, no coverage rule) it holds in full."""
    if not opts.lexical_coverage:
        return 1.0
    return 1.0 - coverage_exponent(text, opts) / opts.lexical_coverage


def _score_fusion(cosine, bm25, eligible, by_meaning, alpha, evidence=1.0,
                  origin: str = "zero", floor: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The two terms of (1 − α)·cosine/best cosine + α·evidence·BM25/best BM25, each leg
    scaled to its best hit; `evidence` (per note, in [0, 1]) says how far its lexical
    score counts. `origin` "mean": the dense leg runs from the query's mean cosine over
    the notes (0, and below it 0) to its best (1), for a model whose cosines all sit in a
    narrow band (`embed.ModelSpec.dense_origin`). `floor`: how far the found-by-meaning
    floor holds (`meaning_floor`)."""
    top_cos = float(cosine[eligible].max()) if eligible.any() else 1.0
    low = float(cosine[eligible].mean()) if origin == "mean" and eligible.any() else 0.0
    if top_cos > low:
        dense = np.clip((cosine - low) / (top_cos - low), 0.0, None) if low else cosine / top_cos
    else:
        dense = cosine
    hit = np.isfinite(bm25)
    lex = np.zeros_like(cosine)
    if hit.any():
        lex[hit] = -bm25[hit] / float((-bm25[hit]).max())
    lex = lex * evidence
    # The floor is on the lexical leg's own scale (as loud as it speaks for any note this
    # time), so a note found by meaning is never behind for lack of words, and never
    # ahead of an equally close note just because the query's words are weak evidence.
    speaks = float(lex[hit & eligible].max()) if (hit & eligible).any() else 1.0
    lex = np.where(by_meaning, np.maximum(lex, floor * dense * speaks), lex)
    return (1.0 - alpha) * dense, alpha * lex


def _lexical_leg(store, text, note_ids, eligible, chunks):
    """Per note: its best chunk's BM25 (lower is better), its rank among hits, and the
    largest share of the query's words one of its chunks holds (`store.fts.coverage`).

    `chunks`: how many live chunks there are (the rows of the vector matrix).
    """
    n = len(note_ids)
    bm25 = np.full(n, np.inf)
    share = np.zeros(n)
    hits = store.lexical_hits(text, chunks)
    if hits:
        ids = [cid for cid, _ in hits]
        owners = store.chunk_notes(ids)
        covered = store.lexical_coverage(text, ids)
        owner = np.array([owners.get(cid, -1) for cid in ids], dtype=np.int64)
        scores = np.array([score for _, score in hits])
        held = np.array([covered.get(cid, 0.0) for cid in ids])
        pos = np.searchsorted(note_ids, owner)  # note_ids ascend (the matrix is by note)
        pos = np.minimum(pos, n - 1)
        keep = (note_ids[pos] == owner) & eligible[pos]
        np.minimum.at(bm25, pos[keep], scores[keep])
        np.maximum.at(share, pos[keep], held[keep])
    rank = np.full(n, np.inf)
    found = np.flatnonzero(np.isfinite(bm25))
    rank[found[np.argsort(bm25[found], kind="stable")]] = np.arange(1, len(found) + 1)
    return bm25, rank, share


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


def _from_nowhere(relevance, eligible, note_ids, fired, band: float
                  ) -> tuple[np.ndarray, float]:
    """The rows that ambient firing alone would lift from nowhere, and the relevance below
    which a note counts as from nowhere: `band` times the best relevance of the query.

    SPEC 5: an ambient note rises among comparably relevant notes and never displaces an
    answer from nowhere. The multiplier alone does not keep that promise where a short
    question has an answer or two and every other note is background: doubling a
    background note lifts it over the rest of the background into the top results (the
    prospective evaluation's unrelated questions, docs/evaluation.md). Comparable means
    within `band` of the best: a note below it is ranked as if its entry were not firing
    (its score, `firing` and `b` stay what the formula says). Notes of an entry that fires
    on the query (grounded) are never from nowhere: the query is about the entry.
    `band` 0: every ambient note is lifted."""
    ambient = [n for n, fs in fired.items() if not any(f.grounded for f in fs)]
    if not band or not ambient or not eligible.any():
        return np.zeros(len(note_ids), bool), 0.0
    floor = band * float(relevance[eligible].max())
    return np.isin(note_ids, ambient) & eligible & (relevance < floor), floor


def _grounded_strength(note_ids, fired) -> dict[int, float]:
    """{row: strength} for the notes of entries that fire on the query (grounded) with a
    strong match: only those are placed (a weak match gets the multiplier alone)."""
    strength = {note_id: max(f.strength for f in fs if f.grounded and f.strong)
                for note_id, fs in fired.items() if any(f.grounded and f.strong for f in fs)}
    if not strength:
        return {}
    rows = np.flatnonzero(np.isin(note_ids, list(strength)))
    return {int(i): strength[int(note_ids[i])] for i in rows}


def _order(score, grounded: dict[int, float], opts) -> tuple[list[int], set[int], dict]:
    """Row order of the results, the pinned rows, and each placed row's natural rank.
    `score`: what orders the notes (the score, or for a note from nowhere, `_from_nowhere`,
    its score without the firing factor).

    --floor: every grounded note is pinned above the list, strongest match first.
    Otherwise placement: the j-th grounded note by score ranks no lower than
    fire_slot + j (a grounded note that ranks higher on its own keeps its rank).
    """
    live = {i: s for i, s in grounded.items() if np.isfinite(score[i])}
    if opts.floor:
        pinned = sorted(live, key=lambda i: (-live[i], -score[i], i))
        rest = score.copy()
        rest[pinned] = -np.inf
        room = max(opts.limit - len(pinned), 0)
        return pinned + ([int(i) for i in _top(rest, room)] if room else []), set(pinned), {}
    if not live:
        return [int(i) for i in _top(score, opts.limit)], set(), {}
    queue = sorted(live, key=lambda i: (-score[i], i))
    rest = score.copy()
    rest[queue] = -np.inf
    others = [int(i) for i in _top(rest, opts.limit)]
    out, natural, placed = [], {}, 0
    while len(out) < opts.limit and (queue or others):
        if queue and (not others or score[queue[0]] >= score[others[0]]):
            out.append(queue.pop(0))  # ranks there on its own
            placed += 1
        elif queue and len(out) + 1 >= opts.fire_slot + placed:
            natural[queue[0]] = _natural_rank(score, queue[0])
            out.append(queue.pop(0))
            placed += 1
        else:
            out.append(others.pop(0))
    return out, set(), natural


def _natural_rank(score, row) -> int:
    """The rank `row` would have by score alone (1 = best)."""
    return int(np.sum(score > score[row])) + 1


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
    natural: dict  # row -> its rank by score alone, for grounded notes placed by fire_slot
    text: str = ""  # the query, for the snippet's window
    nowhere: np.ndarray | None = None  # rows lifted from nowhere by ambient firing alone
    band: float = 0.0  # the relevance below which an ambient note is from nowhere
    order: np.ndarray | None = None  # what orders the rows (`_rank`)


def _hit(ctx: _Ctx, rank: int, i: int, pinned: bool) -> Hit:
    start = ctx.m.starts[i]
    end = ctx.m.starts[i + 1] if i + 1 < len(ctx.m.starts) else len(ctx.sims)
    row = start + int(np.argmax(ctx.sims[start:end]))
    chunk_id = int(ctx.m.chunk_ids[row])
    heading, text = ctx.store.chunk_texts([chunk_id]).get(chunk_id, ("", ""))
    note_id = int(ctx.note_ids[i])
    path, title = ctx.titles[note_id]
    commits = [HitCommitment(f.entry.id, f.entry.action, f.why, f.grounded)
               for f in ctx.fired.get(note_id, [])]
    hit = Hit(rank, path, title, round(float(ctx.score[i]), 4), round(float(ctx.cosine[i]), 4),
              round(float(ctx.salience[i]), 4), bool(ctx.firing[i]), pinned,
              snippet(text, ctx.text),
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
        "score": round(float(ctx.score[i]), 4),
        "relevance": round(float(ctx.relevance[i]), 4),
        "weight": w, "fire_weight": wf, "ambient_band": ctx.opts.ambient_band,
        **legs,
        "cosine": round(float(ctx.cosine[i]), 4),
        "salience": round(float(ctx.salience[i]), 4),
        "components": dict(zip(SALIENCE_PARTS, (round(x, 4) for x in parts[1:]), strict=True))
        if parts else None,
        "firing": int(ctx.firing[i]),
        "fires": _fires_explain(ctx.fired.get(note_id, [])),
        "placement": _placement(ctx, i),
        "formula": f"{ctx.relevance[i]:.4f} x (1 + {w}*{ctx.salience[i]:.4f}) x "
                   f"(1 + {wf}*{int(ctx.firing[i])}) = {ctx.score[i]:.4f}",
    }


def _fires_explain(firings) -> list[dict] | None:
    """Per firing entry: grounded or ambient, which half matched, what against what."""
    if not firings:
        return None
    return [{"id": f.entry.id, "grounded": f.grounded, "kind": f.kind,
             "strength": round(f.strength, 3), "confidence": f.confidence, "why": f.why,
             **f.details} for f in firings]


def _placement(ctx: _Ctx, i: int) -> str | None:
    fired = ctx.fired.get(int(ctx.note_ids[i])) or []
    strong = any(f.grounded and f.strong for f in fired)
    if ctx.opts.floor and strong:
        return "pinned by --floor (grounded, strong match)"
    if ctx.nowhere is not None and ctx.nowhere[i]:
        return (f"ambient, from nowhere: relevance {ctx.relevance[i]:.3f} < "
                f"{ctx.opts.ambient_band:g} × the best = {ctx.band:.3f}; by its score "
                f"without the firing factor, {ctx.order[i]:.3f}")
    if i in ctx.natural:
        return (f"grounded, strong match: no lower than fire_slot {ctx.opts.fire_slot} "
                f"(rank {ctx.natural[i]} by score)")
    if strong:
        return "grounded, strong match: ranks there on its own"
    if any(f.grounded for f in fired):
        return "grounded, weak match: the multiplier alone, not placed"
    return None


def _lane(store, firings, allowed: set[int] | None) -> list[commitments.FiringRow]:
    """The firing list a query names: every entry firing now or, when the query is
    filtered to part of the vault (`allowed` notes), those that link a note in it."""
    return [f.row(commitments.note_paths(store, f.entry.note_ids)) for f in firings
            if allowed is None or not allowed.isdisjoint(f.entry.note_ids)]


def _top(score: np.ndarray, k: int) -> np.ndarray:
    finite = np.flatnonzero(np.isfinite(score))
    if len(finite) > k:
        finite = finite[np.argpartition(-score[finite], k - 1)[:k]]
    # stable tie-break on position keeps equal scores in store order
    return finite[np.lexsort((finite, -score[finite]))]


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
