#!/usr/bin/env python3
"""Benchmark `vaultmem mcp`: search round trips beside the cold CLI query, and the cost
of the freshness check the server runs before every answer, in one run.

    python scripts/bench_mcp.py --keep /tmp/bench-mcp     # 5,000 notes; kept for next time
    python scripts/bench_mcp.py --notes 500 --freshness-notes 0

Prints only what it measured:
- MCP `search` round trips (the SDK's stdio client -> `vaultmem mcp` -> back), p50/p95,
  on a generated vault of --notes notes (scripts/bench_index.py's generator), indexed
  with the real model; beside the same query as a cold `vaultmem query` subprocess;
- a search right after a note was edited on disk (the incremental index inside it);
- the freshness check alone (no change on disk), in this process: the watcher's sync
  cookie and the fallback walk, at --notes and at --freshness-notes (default 50,000).
  The check never reads the store (it compares the watcher's events, or a walk, with
  what it saw before), so the large tree is generated files only: no index, no model.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_index import QUERIES, generate  # noqa: E402 - the one vault generator

from vaultmem import Vault  # noqa: E402
from vaultmem.interfaces.freshness import Freshness  # noqa: E402


def say(text: str) -> None:
    print(text, flush=True)


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def build(vault: Path, notes: int, seed: int) -> None:
    """Generate the vault unless it is there (a kept one), then index it incrementally."""
    if not vault.is_dir():
        started = time.perf_counter()
        generate(vault, notes, seed)
        say(f"generated {notes:,} notes in {time.perf_counter() - started:.1f} s at {vault}")
    started = time.perf_counter()
    with Vault.open(vault, create=True) as v:
        report = v.index()
        count = v.status().as_dict()["counts"]["notes"]
    say(f"index: {time.perf_counter() - started:.1f} s ({report.new:,} new, "
        f"{report.embedded:,} chunks embedded; {count:,} notes in the store)")


async def mcp_session(vault: Path, queries: int, edit: Path) -> dict:
    """Round trips through the SDK's stdio client to a `vaultmem mcp` subprocess."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "vaultmem", "mcp", "--vault", str(vault)],
                                   env=dict(os.environ))
    out: dict = {}
    with open(vault.parent / "bench-mcp-server.log", "w") as errlog:
        started = time.perf_counter()
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            out["initialize"] = time.perf_counter() - started
            await session.call_tool("status", {})  # waits for the model and the catch-up
            out["first_answer"] = time.perf_counter() - started
            out["search"], out["inside"] = [], []
            for i in range(queries):
                text = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}")
                t0 = time.perf_counter()
                result = await session.call_tool("search", {"text": text})
                out["search"].append(time.perf_counter() - t0)
                assert not result.is_error, result.content[0].text
                out["inside"].append(json.loads(result.content[0].text)["seconds"])
            out["after_edit"] = []
            for i in range(3):
                edit.write_text(edit.read_text(encoding="utf-8") + f"\nEdit {i}: the boiler.\n",
                                encoding="utf-8")
                t0 = time.perf_counter()
                await session.call_tool("search", {"text": QUERIES[3]})
                out["after_edit"].append(time.perf_counter() - t0)
    return out


def cold_cli(vault: Path, runs: int) -> list[float]:
    env = {**os.environ, "VAULTMEM_VAULT": str(vault)}
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "vaultmem", "query", QUERIES[0], "--json"],
                       env=env, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return times


def freshness(vault: Path, checks: int) -> dict:
    """The check with nothing changed on disk: the watcher's sync, and the walk."""
    db = vault / ".vaultmem" / "vaultmem.db"
    db.parent.mkdir(exist_ok=True)
    out: dict = {}
    for mode in ("watcher", "walk"):
        t0 = time.perf_counter()
        check = Freshness(vault, db, say=lambda _: None, watch=mode == "watcher")
        check.check()  # the first check starts the watcher (or takes the first walk)
        out[f"{mode}_start"] = time.perf_counter() - t0
        times = []
        for _ in range(checks if mode == "watcher" else max(3, checks // 10)):
            t0 = time.perf_counter()
            changed = check.check()
            times.append(time.perf_counter() - t0)
            assert changed is False, "the vault changed during the benchmark"
        out[mode] = times
        if mode == "watcher":
            cpu = time.process_time()
            time.sleep(3)
            out["idle_cpu"] = (time.process_time() - cpu) / 3
        check.close()
    return out


def row(name: str, value: str, note: str = "") -> None:
    say(f"  {name:<52}  {value:>17}  {note}")


def ms(seconds: float, digits: int = 1) -> str:
    return f"{seconds * 1000:.{digits}f} ms"


def fresh_rows(label: str, f: dict) -> None:
    sync = f["watcher"]
    row(f"freshness: watcher sync, p50 / p95 ({label})",
        f"{pct(sync, .5) * 1000:.1f} / {pct(sync, .95) * 1000:.1f} ms", f"n={len(sync)}")
    row(f"freshness: walk fallback, p50 ({label})", ms(pct(f["walk"], .5), 0),
        f"n={len(f['walk'])}")
    row(f"watcher start: inotify watches set ({label})", ms(f["watcher_start"], 0),
        "once per server")
    row(f"watcher idle CPU ({label})", f"{f['idle_cpu'] * 100:.2f} %", "of one core")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--checks", type=int, default=200, help="freshness checks timed")
    ap.add_argument("--freshness-notes", type=int, default=50_000,
                    help="files in the large tree for the freshness check (0: skip)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", type=Path,
                    help="build (or reuse) the vaults under this folder and keep them")
    args = ap.parse_args()
    if args.keep:
        run(args.keep, args)
        return
    with tempfile.TemporaryDirectory(prefix="vaultmem-bench-mcp-") as scratch:
        run(Path(scratch), args)


def run(base: Path, args) -> None:
    import anyio

    vault = base / "vault"
    build(vault, args.notes, args.seed)
    edit = sorted(vault.rglob("*.md"))[args.notes // 3]
    mcp = anyio.run(mcp_session, vault, args.queries, edit)
    cold = cold_cli(vault, args.cold_runs)
    small = freshness(vault, args.checks)
    large = None
    if args.freshness_notes:
        tree = base / f"tree{args.freshness_notes}"
        if not tree.is_dir():
            t0 = time.perf_counter()
            generate(tree, args.freshness_notes, args.seed)
            say(f"generated {args.freshness_notes:,} files (no index) in "
                f"{time.perf_counter() - t0:.1f} s at {tree}")
        large = freshness(tree, args.checks)

    s = mcp["search"]
    say(f"\nvaultmem bench_mcp on {os.cpu_count()} cores, {datetime.now():%Y-%m-%d %H:%M}, "
        f"load average {os.getloadavg()[0]:.1f}")
    row("notes", f"{args.notes:,}")
    row("server start -> initialize answered", f"{mcp['initialize']:.2f} s")
    row("server start -> first answer (model loaded)", f"{mcp['first_answer']:.2f} s")
    row(f"MCP search round trip p50 (n={len(s)})", ms(pct(s, .5)), "target <= 60 ms")
    row("MCP search round trip p95", ms(pct(s, .95)), "target <= 150 ms")
    row("  of which the query itself, p50 (`seconds`)", ms(statistics.median(mcp["inside"])))
    row("  the rest (freshness sync, protocol, threads), p50",
        ms(statistics.median(t - q for t, q in zip(s, mcp["inside"], strict=True))))
    row("MCP search right after an edit, median of 3", ms(statistics.median(mcp["after_edit"]),
                                                          0), "one note re-indexed")
    row(f"cold `vaultmem query` subprocess, median of {len(cold)}",
        ms(statistics.median(cold), 0))
    fresh_rows(f"{args.notes:,} notes", small)
    if large:
        fresh_rows(f"{args.freshness_notes:,} files", large)


if __name__ == "__main__":
    main()
