#!/usr/bin/env python3
"""What reading one note costs an index run: `parse.parse_note`, then the prospective
items and (for a ledger) the entries read from the same parse, in process, on every
note of a vault repeated `--times` times; best of three rounds.

    python scripts/bench_reader.py                      # fixtures_vault x100
    python scripts/bench_reader.py VAULT --times 10

Prints only what it measured.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from vaultmem import ledger, prospective
from vaultmem.text import parse

ROOT = Path(__file__).resolve().parent.parent


def read(text: str, path: str) -> int:
    """What the indexer does with one note's text; returns the items and entries found."""
    note = parse.parse_note(text, path)
    found = len(prospective.list_items(note.items))
    if path == "Ledger.md" or str(note.fm("type", "")).lower() == "ledger":
        found += len(ledger.parse_ledger(text, note.outline)[0])
    return found


def best_of(fn, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        started = time.process_time()
        fn()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", nargs="?", default=str(ROOT / "fixtures_vault"))
    ap.add_argument("--times", type=int, default=100)
    args = ap.parse_args()
    root = Path(args.vault)
    notes = [(p.read_text(encoding="utf-8"), p.relative_to(root).as_posix())
             for p in sorted(root.rglob("*.md"))]
    found = sum(read(text, path) for text, path in notes)
    seconds = best_of(lambda: [read(t, p) for _ in range(args.times) for t, p in notes])
    count = len(notes) * args.times
    print(f"{len(notes)} notes x{args.times}, {found} items and entries per pass")
    print(f"read: {seconds:.2f} s CPU, {seconds * 1e3 / count:.3f} ms/note")


if __name__ == "__main__":
    main()
