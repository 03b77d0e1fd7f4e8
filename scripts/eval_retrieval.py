#!/usr/bin/env python3
"""Retrieval quality on the golden set, per mode and per query category.

    python scripts/eval_retrieval.py

Indexes scripts/eval_data/retrieval/vault with the real model through the CLI
(in process), runs every query of queries.json in each mode, and prints
nDCG@5 (relevant 1.0, partially relevant 0.5), MRR and Hit@1 (first relevant
note), Recall@5 (of the relevant notes) and query latency. No salience run:
this measures retrieval alone.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from vaultmem.cli import main as vaultmem

DATA = Path(__file__).resolve().parent / "eval_data" / "retrieval"
MODES = ("dense", "lexical", "hybrid")


def cli(*args: str, env: dict | None = None) -> dict:
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = vaultmem([*args] if "--json" in args else [*args, "--json"])
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    if code != 0:
        raise SystemExit(f"vaultmem {' '.join(args)} failed ({code})")
    return json.loads(out.getvalue())


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


def run(vault: Path, queries: list[dict], env: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for mode in MODES:
        rows = []
        for q in queries:
            started = time.perf_counter()
            doc = cli("query", "--vault", str(vault), "--mode", mode, "-k", "10",
                      "--now", "2026-06-01", "--json", "--", q["query"], env=env)
            elapsed = time.perf_counter() - started
            rows.append({**score_query([r["path"] for r in doc["results"]], q),
                         "category": q["category"], "id": q["id"], "seconds": elapsed,
                         "top": [r["path"] for r in doc["results"][:5]]})
        out[mode] = rows
    return out


def table(results: dict[str, list[dict]]) -> None:
    cats = sorted({r["category"] for r in next(iter(results.values()))})
    print("| mode | category | n | nDCG@5 | MRR | Hit@1 | Recall@5 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for mode, rows in results.items():
        for cat in ("all", *cats):
            sel = [r for r in rows if cat == "all" or r["category"] == cat]
            means = [statistics.mean(r[k] for r in sel) for k in ("ndcg5", "mrr", "hit1",
                                                                   "recall5")]
            label = f"**{cat}**" if cat == "all" else cat
            print(f"| {mode} | {label} | {len(sel)} | " + " | ".join(f"{m:.3f}" for m in means)
                  + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json-out", type=Path)
    ap.add_argument("--keep", type=Path, help="build (or reuse) the indexed vault here")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="extra VAULTMEM_* settings for the queries, e.g. RRF_K=20")
    args = ap.parse_args()
    env = {f"VAULTMEM_{k.upper()}": v for k, v in (e.split("=", 1) for e in args.env)}
    queries = json.loads((DATA / "queries.json").read_text())
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultmem-retrieval-"))
    try:
        vault = root / "vault"
        if not vault.exists():
            shutil.copytree(DATA / "vault", vault)
        os.environ["VAULTMEM_QUERY_MENTIONS"] = "0"
        started = time.perf_counter()
        report = cli("index", str(vault))
        notes = sum(report[k] for k in ("new", "modified", "reparsed", "unchanged", "touched"))
        print(f"## Retrieval golden set: {notes} notes, {len(queries)} queries "
              f"(indexed in {time.perf_counter() - started:.0f}s) {env or ''}\n")
        results = run(vault, queries, env)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    table(results)
    lat = {m: sorted(r["seconds"] for r in rows) for m, rows in results.items()}
    print("\nin-process `vaultmem query` latency (includes CLI start, store open, embedding): "
          + ", ".join(f"{m} p50 {statistics.median(v) * 1000:.0f} ms" for m, v in lat.items()))
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
