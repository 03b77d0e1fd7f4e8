#!/usr/bin/env python3
"""Benchmark indexing and querying on a synthetic linked vault, in one run.

    python scripts/bench_index.py            # 5,000 notes
    python scripts/bench_index.py --notes 500 --queries 20

Prints only what it measured: full index time, fastembed-only time for the
same chunk texts (and their ratio), no-op and one-note-changed reindex, warm
query p50 in process, cold `vaultmem query` as a subprocess beside a
subprocess that only imports fastembed, loads the model and embeds one text
(the two run in turn, `--cold-runs` rounds, medians compared), and peak RSS.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from importlib import resources
from pathlib import Path

from vaultmem import config
from vaultmem.embed import FastEmbedder, bundled_model_dir, embed_text
from vaultmem.indexer import index_vault
from vaultmem.rank import QueryOptions, run_query
from vaultmem.store import Store

WORDS = (
    "garden invoice kitchen valve budget plumber ferry passport running interval tempo "
    "design client sketch review deadline meeting family dinner recipe bread oven tile "
    "grout paint ceiling window insulation heating boiler radiator contract quote estimate "
    "summer winter train station bicycle tyre doctor appointment dentist vitamin sleep "
    "coffee notebook library novel chapter poem guitar lesson chord melody podcast "
    "episode interview budget savings pension tax receipt refund insurance claim car "
    "garage brakes service neighbour fence hedge compost tomato basil seedling harvest "
    "school homework teacher exam holiday beach mountain hike tent stove map compass"
).split()
TAGS = ["project/house", "project/studio", "area/health", "area/money", "people", "idea",
        "reading", "travel", "garden", "work/client"]
TYPES = ["note", "project", "person", "log", "reference", "moc"]
QUERIES = ["when is the plumber invoice due", "interval training for the half marathon",
           "what did the client say about the sketch review", "boiler service and radiator",
           "bread recipe with a hot oven", "insurance claim for the car brakes",
           "tomato seedlings and compost", "pension savings and tax refund",
           "guitar chord lesson", "hiking trip with tent and stove map"]


def background_words() -> tuple[list[str], list[float]]:
    """English words in the order of MiniLM's WordPiece vocabulary (roughly by frequency),
    with Zipf weights: the common words are everywhere, most words are rare, as in prose."""
    vocab = json.loads(resources.files("vaultmem").joinpath("model", "tokenizer.json")
                       .read_text(encoding="utf-8"))["model"]["vocab"]
    words = [w for w, _ in sorted(vocab.items(), key=lambda kv: kv[1])
             if w.isascii() and w.isalpha() and len(w) >= 3]
    return words, list(itertools.accumulate(1.0 / (rank + 10) for rank in range(len(words))))


class Words:
    """Where a note's words come from.

    uniform: every word from WORDS (100 words); each one is then in about half of all
    chunks, which makes every query word match thousands of chunks (the lexical leg's
    worst case). zipf: Zipf-distributed English background words, with each note's three
    topic words from WORDS making up about a sixth of its text; a topic word is then in a
    few percent of the notes, as words are in a real vault.
    """

    def __init__(self, kind: str):
        self.kind = kind
        self.background = background_words() if kind == "zipf" else None

    def sentence(self, rng: random.Random, topics: list[str]) -> str:
        k = rng.randint(6, 16)
        if self.background is None:
            words = rng.choices(WORDS, k=k)
        else:
            pool, cumulative = self.background
            words = [rng.choice(topics) if rng.random() < 0.17 else w
                     for w in rng.choices(pool, cum_weights=cumulative, k=k)]
        return " ".join(words).capitalize() + "."


def make_note(rng: random.Random, i: int, names: list[str], words: Words) -> str:
    day = date(2025, 1, 1) + timedelta(days=i % 600)
    tags = rng.sample(TAGS, 2)
    lines = ["---", f"title: {names[i]}", f"type: {rng.choice(TYPES)}",
             f"tags: [{', '.join(tags)}]", f"created: {day.isoformat()}", "---", ""]
    topics = rng.sample(WORDS, 3) if words.kind == "zipf" else WORDS
    words_left = rng.randint(50, 400)
    section = 0
    while words_left > 0:
        if section and rng.random() < 0.5:
            lines += [f"## {rng.choice(topics).capitalize()} {section}", ""]
        para = " ".join(words.sentence(rng, topics) for _ in range(rng.randint(2, 5)))
        links = " ".join(f"[[{rng.choice(names)}]]" for _ in range(rng.randint(0, 3)))
        lines += [f"{para} {links} #{rng.choice(TAGS)}".strip(), ""]
        words_left -= len(para.split())
        section += 1
    return "\n".join(lines)


def generate(root: Path, n: int, seed: int, vocab: str = "zipf") -> None:
    rng = random.Random(seed)
    words = Words(vocab)
    names = [f"Note {i:05d} {rng.choice(WORDS)}" for i in range(n)]
    for i, name in enumerate(names):
        folder = root / f"area{i % 10}" / f"sub{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.md").write_text(make_note(rng, i, names, words), encoding="utf-8")


def fastembed_only(texts: list[str]) -> float:
    """The reference: load the same model and embed the same texts at batch 32."""
    started = time.perf_counter()
    from fastembed import TextEmbedding

    model = TextEmbedding("sentence-transformers/all-MiniLM-L6-v2",
                          specific_model_path=str(bundled_model_dir()))
    for _ in model.embed(texts, batch_size=32):
        pass
    return time.perf_counter() - started


def say(text: str) -> None:
    """Measurements as they come, so a long run that dies still leaves its numbers."""
    print(text, flush=True)


def timed_subprocess(cmd: list[str], env: dict, runs: int) -> tuple[float, float]:
    """(median wall seconds, largest peak RSS in MB) of `runs` runs of `cmd`."""
    return timed_interleaved([cmd], env, runs)[0]


def timed_interleaved(cmds: list[list[str]], env: dict, runs: int) -> list[tuple[float, float]]:
    """(median wall seconds, largest peak RSS in MB) per command, over `runs` rounds that
    run each command once in turn, so that a slow spell of the machine falls on all of
    them alike instead of on whichever block of runs it hit.

    The peak is the child's own VmHWM, read from /proc while it runs: getrusage's
    RUSAGE_CHILDREN would report this (large) process's RSS, which Linux carries
    into a child's maxrss across fork and exec.
    """
    times: list[list[float]] = [[] for _ in cmds]
    peaks = [0] * len(cmds)
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            started = time.perf_counter()
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
            while proc.poll() is None:
                peaks[i] = max(peaks[i], _vm_hwm_kb(proc.pid))
                time.sleep(0.005)
            times[i].append(time.perf_counter() - started)
            if proc.returncode:
                raise subprocess.CalledProcessError(proc.returncode, cmd)
    return [(statistics.median(t), peak / 1024) for t, peak in zip(times, peaks, strict=True)]


def _vm_hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass  # it just exited
    return 0


REFERENCE = (
    "import sys; from fastembed import TextEmbedding; "
    "m = TextEmbedding('sentence-transformers/all-MiniLM-L6-v2', specific_model_path=sys.argv[1]); "
    "list(m.embed([sys.argv[2]]))"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--cold-runs", type=int, default=9)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--vocab", choices=("zipf", "uniform"), default="zipf",
                    help="zipf: English-like word frequencies (default); uniform: every word "
                         "from 100, the lexical leg's worst case")
    ap.add_argument("--keep", type=Path, help="build the vault here and keep it")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: the vault is already built and indexed; measure only "
                         "the no-op and one-change reindex, queries and RSS")
    ap.add_argument("--overhead", action="store_true",
                    help="only time a full index with embedding replaced by a no-op")
    ap.add_argument("--skip-reference", action="store_true",
                    help="skip the fastembed-only timing (it doubles the run at 50,000 notes)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultmem-bench-"))
    try:
        run(root, args)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def run(root: Path, args) -> None:
    vault = root / "vault"
    started = time.perf_counter()
    if not args.reuse:
        generate(vault, args.notes, args.seed, args.vocab)
        print(f"generated {args.notes:,} notes ({args.vocab} words) in "
              f"{time.perf_counter() - started:.1f}s at {vault}")
    settings = config.load(vault)
    if args.overhead:
        overhead(vault, settings)
        return
    bundled_model_dir()  # assemble the model folder once, outside every timing
    store = Store.open(settings.db, create=True)
    embedder = FastEmbedder(settings)
    if args.reuse:
        args.skip_reference = True
        index_vault(store, settings, embedder, now=datetime.now())  # settle (WAL checkpoint)

    t_full = None if args.reuse else _time(
        lambda: index_vault(store, settings, embedder, now=datetime.now()))
    chunks = store.execute("SELECT count(*) FROM chunks").fetchone()[0]
    if t_full:
        say(f"full index: {t_full:.1f} s for {chunks:,} chunks")
    # The chunk texts are only held in memory for the reference runs: at 50,000 notes
    # they would add their own hundreds of MB to this process's peak RSS.
    texts = [] if args.skip_reference else [embed_text(*row) for row in store.execute(
        "SELECT n.title, c.heading, c.text FROM chunks c JOIN notes n ON n.id = c.note_id")]
    t_ref = None if args.skip_reference else fastembed_only(texts)
    if t_ref:
        say(f"fastembed only, texts in storage order: {t_ref:.1f} s")
    # The indexer embeds texts sorted by length (less padding). The same texts sorted,
    # through fastembed alone, isolate what the indexer itself costs.
    t_sorted = None if args.skip_reference else fastembed_only(sorted(texts, key=len))
    if t_sorted:
        say(f"fastembed only, texts sorted by length: {t_sorted:.1f} s")
    t_noop = _time(lambda: index_vault(store, settings, embedder, now=datetime.now()))
    victim = sorted(vault.rglob("*.md"))[args.notes // 2]
    victim.write_text(victim.read_text(encoding="utf-8") + "\nOne more line about the boiler.\n",
                      encoding="utf-8")
    t_one = _time(lambda: index_vault(store, settings, embedder, now=datetime.now()))

    opts = QueryOptions(limit=10, weight=settings.weight, fire_weight=settings.fire_weight)
    run_query(store, embedder, "warm-up", opts, datetime.now(), settings)
    lat = []
    for i in range(args.queries):
        q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}")
        t0 = time.perf_counter()
        run_query(store, embedder, q, opts, datetime.now(), settings)
        lat.append(time.perf_counter() - t0)
    store.close()

    env = {**os.environ, "VAULTMEM_VAULT": str(vault)}
    vaultmem = [sys.executable, "-m", "vaultmem"]
    (cold, rss_cold), (ref, rss_ref) = timed_interleaved(
        [[*vaultmem, "query", QUERIES[0], "--json"],
         [sys.executable, "-c", REFERENCE, str(bundled_model_dir()), QUERIES[0]]],
        env, args.cold_runs)
    noop_cli, rss_noop = timed_subprocess([*vaultmem, "index", "--json"], env, 1)
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    rows = [
        ("notes", f"{args.notes:,}", ""),
        ("chunks embedded", f"{chunks:,}", ""),
        ("full index", f"{t_full:.1f} s" if t_full else "skipped (--reuse)", ""),
        ("fastembed only (same chunk texts, load + embed)",
         f"{t_ref:.1f} s" if t_ref else "skipped", ""),
        ("ratio full index / fastembed only", f"{t_full / t_ref:.2f}x" if t_ref and t_full
         else "-",
         "target <= 1.25x"),
        ("fastembed only, same texts sorted by length",
         f"{t_sorted:.1f} s" if t_sorted else "skipped", ""),
        ("ratio full index / sorted fastembed only",
         f"{t_full / t_sorted:.2f}x" if t_sorted and t_full else "-",
         "the indexer's own overhead"),
        ("no-op reindex (in process)", f"{t_noop * 1000:.0f} ms", "target < 1 s"),
        ("no-op reindex (`vaultmem index` subprocess)", f"{noop_cli * 1000:.0f} ms", ""),
        ("one note changed reindex", f"{t_one * 1000:.0f} ms", "target < 2 s"),
        (f"warm query p50 (n={len(lat)})", f"{statistics.median(lat) * 1000:.1f} ms",
         "target < 50 ms"),
        ("warm query p95", f"{sorted(lat)[int(len(lat) * 0.95) - 1] * 1000:.1f} ms", ""),
        (f"cold `vaultmem query` subprocess (median of {args.cold_runs})", f"{cold:.2f} s", ""),
        ("import fastembed + load + embed one text subprocess", f"{ref:.2f} s", ""),
        ("ratio cold query / reference", f"{cold / ref:.2f}x", "target <= 1.5x"),
        ("peak RSS, this process", f"{rss_self:.0f} MB", ""),
        ("peak RSS, cold `vaultmem query` subprocess", f"{rss_cold:.0f} MB", ""),
        ("peak RSS, reference subprocess", f"{rss_ref:.0f} MB", ""),
        ("peak RSS, `vaultmem index` no-op subprocess", f"{rss_noop:.0f} MB", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"\nvaultmem bench_index on {os.cpu_count()} cores, {datetime.now():%Y-%m-%d %H:%M}")
    for name, value, target in rows:
        print(f"  {name:<{width}}  {value:>10}  {target}")


class NoModel:
    """Embeds nothing: one constant unit vector per text, so a full index measures only
    what vaultmem itself does (walk, parse, plan, SQLite, FTS5, link resolution)."""

    fingerprint = "none|bench|r1"
    dim = 384

    def embed(self, texts: list[str]):
        import numpy as np

        out = np.zeros((len(texts), self.dim), np.float32)
        out[:, 0] = 1.0
        return out


def overhead(vault: Path, settings) -> None:
    db = vault.parent / "overhead.db"
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    store = Store.open(db, create=True)
    seconds = _time(lambda: index_vault(store, settings, NoModel(), now=datetime.now()))
    chunks = store.execute("SELECT count(*) FROM chunks").fetchone()[0]
    print(f"full index without a model (the indexer's own work): {seconds:.1f} s "
          f"for {chunks:,} chunks")


def _time(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
