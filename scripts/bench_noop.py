#!/usr/bin/env python3
"""Time a no-op reindex (`vaultmem index` on an unchanged vault) at a given size.

    python scripts/bench_noop.py --notes 50000 --keep /tmp/noop50k          # build, then time
    python scripts/bench_noop.py --notes 50000 --keep /tmp/noop50k --reuse  # time only
    python scripts/bench_noop.py --notes 5000 --runs 9 --profile out.prof   # and a cProfile

The vault is scripts/bench_index.py's synthetic one. Its first index is built in process
with a stand-in embedder that writes one constant unit vector per text under the real
model's fingerprint: a no-op run embeds nothing, so what it costs does not depend on the
vectors, and building 50,000 notes costs the parse alone (22 minutes on a busy 2-core
machine), not hours of the model. The store's vectors are meaningless: never query it.

Each run is `vaultmem index --json` as a fresh subprocess (what a user or a cron job
pays: interpreter start, imports, the store's check, the walk, the plan, the bookkeeping,
exit), checked to be a no-op from its own report; then `Vault.index()` as often in this
process (no start-up), and `index_vault` without the writer lock (no store check), and
the check alone. Prints wall and CPU seconds (user + system) as min / median / max,
with the load average before and after: on a shared machine the wall clock also counts
time spent waiting for a core, the CPU time does not.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_index import generate  # noqa: E402

from vaultmem import Vault, config  # noqa: E402
from vaultmem.embed import fingerprint_for  # noqa: E402

# `vaultmem` ends its process with os._exit once its output is out, so `python -m cProfile`
# would never write its file: the profile is taken around `cli.main`, imports included.
PROFILE = """
import cProfile, sys
profile = cProfile.Profile()
profile.enable()
from vaultmem.interfaces import cli
cli.main(["index", sys.argv[2], "--json"])
profile.disable()
profile.dump_stats(sys.argv[1])
"""


class StandIn:
    """One constant unit vector per text, under the fingerprint the CLI will look for."""

    dim = 384

    def __init__(self, fingerprint: str):
        self.fingerprint = fingerprint

    def embed(self, texts: list[str]):
        import numpy as np

        out = np.zeros((len(texts), self.dim), np.float32)
        out[:, 0] = 1.0
        return out


def build(vault: Path, notes: int, seed: int, vocab: str) -> None:
    started = time.perf_counter()
    generate(vault, notes, seed, vocab)
    print(f"generated {notes:,} notes in {time.perf_counter() - started:.1f} s at {vault}",
          flush=True)
    started = time.perf_counter()
    stand_in = StandIn(fingerprint_for(config.load(vault)))
    with Vault.open(vault, create=True, embedder=stand_in) as v:
        report = v.index()
    print(f"first index with the stand-in embedder: {time.perf_counter() - started:.1f} s, "
          f"{report.new:,} notes, {report.embedded:,} texts", flush=True)


def noop_run(vault: Path, env: dict, python: str = sys.executable, *,
             settle: bool = False) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one `vaultmem index --json`. `settle`:
    a first run, which may still have work to do (a migration can ask for a re-parse)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # cwd: `python -m` puts the working folder first on sys.path, so run from a checkout
    # every interpreter would import that checkout's vaultmem instead of its own.
    done = subprocess.run([python, "-m", "vaultmem", "index", str(vault), "--json"],
                          env=env, cwd=vault.parent, capture_output=True, text=True,
                          check=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if not settle:
        _check_noop(json.loads(done.stdout))
    return seconds, cpu


def _check_noop(report: dict) -> None:
    changed = {k: report[k] for k in ("new", "modified", "moved", "deleted", "touched",
                                      "reparsed", "embedded") if report[k]}
    if changed:
        sys.exit(f"not a no-op run: {changed}")


def in_process_runs(vault: Path, runs: int) -> tuple[list[float], list[float], int]:
    """`Vault.index()` in this process (no interpreter start, no imports): wall and CPU
    seconds, and the number of notes."""
    walls, cpus = [], []
    stand_in = StandIn(fingerprint_for(config.load(vault)))
    with Vault.open(vault, embedder=stand_in) as v:
        for _ in range(runs + 1):  # the first one settles
            started, cpu = time.perf_counter(), time.process_time()
            report = v.index()
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu)
            _check_noop(report.as_dict())
    return walls[1:], cpus[1:], report.unchanged


def compare(vault: Path, env: dict, other: str, runs: int) -> None:
    """This vaultmem and the one `other` runs, alternating run by run, so a busy spell of
    a shared machine falls on both; ratios this / other per pair."""
    noop_run(vault, env, other, settle=True)  # its bytecode too
    pairs = []
    for i in range(runs):
        first, second = (sys.executable, other) if i % 2 == 0 else (other, sys.executable)
        done = {first: noop_run(vault, env, first), second: noop_run(vault, env, second)}
        pairs.append((done[sys.executable], done[other]))
    print(f"alternating with {other} (n={runs} pairs), load average {os.getloadavg()[0]:.2f}:")
    for label, k in (("wall", 0), ("CPU", 1)):
        print(f"  {label}: this {summary([a[k] for a, _ in pairs])}; other "
              f"{summary([b[k] for _, b in pairs])}; ratio this / other per pair "
              f"{summary([a[k] / b[k] for a, b in pairs]).replace(' s ', ' ')}")


def unlocked_runs(vault: Path, runs: int) -> tuple[list[float], list[float], list[float]]:
    """`index_vault` called directly, without the writer lock and so without its store
    check (as scripts/bench_index.py's in-process line), wall and CPU; and the CPU of
    SQLite's quick_check of the store alone."""
    from vaultmem.indexer import index_vault
    from vaultmem.store import Store

    settings = config.load(vault)
    store = Store.open(settings.db)
    stand_in = StandIn(fingerprint_for(settings))
    walls, cpus, checks = [], [], []
    for _ in range(runs + 1):  # the first one settles
        started, cpu = time.perf_counter(), time.process_time()
        report = index_vault(store, settings, stand_in, now=datetime.now())
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        _check_noop(report.as_dict())
    for _ in range(3):
        cpu = time.process_time()
        store.execute("PRAGMA quick_check").fetchall()
        checks.append(time.process_time() - cpu)
    store.close()
    return walls[1:], cpus[1:], checks


def summary(values: list[float]) -> str:
    return (f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f} s "
            f"(min / median / max, n={len(values)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--vocab", choices=("zipf", "uniform"), default="zipf")
    ap.add_argument("--keep", type=Path, help="build the vault here and keep it")
    ap.add_argument("--reuse", action="store_true", help="with --keep: it is already built")
    ap.add_argument("--against", metavar="PYTHON",
                    help="an interpreter with another vaultmem installed: its no-op runs "
                         "alternate with this one's, and per-pair ratios are printed")
    ap.add_argument("--profile", type=Path,
                    help="also run one no-op index under cProfile, stats written here")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultmem-noop-"))
    vault = root / "vault"
    if not args.reuse:
        build(vault, args.notes, args.seed, args.vocab)
    # Bytecode is written once, as `pip install` does, not compiled again every run.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    noop_run(vault, env, settle=True)  # bytecode compiled, WAL checkpointed, cache warm
    load_before = os.getloadavg()[0]
    runs = [noop_run(vault, env) for _ in range(args.runs)]
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    in_walls, in_cpus, notes = in_process_runs(vault, args.runs)
    un_walls, un_cpus, checks = unlocked_runs(vault, args.runs)
    load_after = os.getloadavg()[0]
    print(f"no-op reindex at {notes:,} notes, {os.cpu_count()} cores, "
          f"{datetime.now():%Y-%m-%d %H:%M}, load average {load_before:.2f} before, "
          f"{load_after:.2f} after")
    print("`vaultmem index` subprocess, wall (s): " + " ".join(f"{t:.3f}" for t in walls))
    print(f"`vaultmem index` subprocess: wall {summary(walls)}; CPU {summary(cpus)}")
    print(f"Vault.index() in process: wall {summary(in_walls)}; CPU {summary(in_cpus)}")
    print(f"index_vault() in process, no writer lock (no store check): wall "
          f"{summary(un_walls)}; CPU {summary(un_cpus)}")
    print(f"PRAGMA quick_check of the store alone: CPU {summary(checks)}")
    if args.against:
        compare(vault, env, args.against, args.runs)
    if args.profile:
        subprocess.run([sys.executable, "-c", PROFILE, str(args.profile.resolve()),
                        str(vault)], env=env, cwd=vault.parent, stdout=subprocess.DEVNULL,
                       check=True)
        print(f"profile of one no-op run: {args.profile}")
    if not args.keep:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
