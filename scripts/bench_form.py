#!/usr/bin/env python3
"""What Form adds to an index run: `form.extract` beside `parse.parse_note` (which every
index run already does) on the same notes, in process, best of three rounds.

    python scripts/bench_form.py          # the blueprint notes and the dev set

Prints only what it measured.
"""

from __future__ import annotations

import json
import time
from datetime import date, timedelta
from pathlib import Path

from vaultmem import form
from vaultmem.text import parse

DATA = Path(__file__).resolve().parent / "eval_data"


def notes() -> list[tuple[str, date]]:
    out = []
    blueprints = [json.loads(p.read_text()) for p in sorted((DATA / "blueprints").glob("*.json"))]
    for extra in sorted(DATA.glob("blueprints_*.json")):
        blueprints.extend(json.loads(extra.read_text()))
    for bp in blueprints:
        start = date.fromisoformat(bp["start"])
        for i, n in enumerate(bp["notes"]):
            out.append((f"---\ntitle: {json.dumps(n['title'])}\n---\n\n{n['body']}\n",
                        start + timedelta(days=i)))
    for p in sorted((DATA / "form_dev" / "notes").rglob("*.md")):
        out.append((p.read_text(encoding="utf-8"), date(2026, 6, 1)))
    return out


def best_of(fn, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    corpus = notes()
    chars = sum(len(t) for t, _ in corpus)
    parse_s = best_of(lambda: [parse.parse_note(t, "n.md") for t, _ in corpus])
    form_s = best_of(lambda: [form.extract(t, d) for t, d in corpus])
    found = sum(len(form.extract(t, d).candidates) for t, d in corpus)
    print(f"{len(corpus)} notes, {chars / 1e6:.2f} MB, {found} candidates")
    print(f"parse_note: {parse_s * 1e3 / len(corpus):.2f} ms/note")
    print(f"form.extract: {form_s * 1e3 / len(corpus):.2f} ms/note "
          f"({form_s / parse_s:.1f}x parse_note)")


if __name__ == "__main__":
    main()
