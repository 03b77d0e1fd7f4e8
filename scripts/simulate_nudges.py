#!/usr/bin/env python3
"""Replay a planted 72-hour scenario through `vaultmem nudge`, tick by tick.

    python scripts/simulate_nudges.py

A vault gains commitments and prospective items over three days (dated
commitments, a call with preferred hours, a soft intention, a daily habit, and
low-value chatter). Every 15 minutes the real CLI runs `vaultmem nudge --now T`;
a scripted user answers each nudge with `vaultmem feedback`: accept when it is
useful (inside one of the item's oracle windows, which lie inside the item's
preferred hours), dismiss otherwise; after accepting a commitment or the
intention, the user does it and checks it off (and `vaultmem index` runs). The
same replay runs with the oscillating revival switched off. Printed: precision,
oracle-window recall, accept rate, messages per day, quiet-hour violations and
mean time to useful. The scenario is planted: it shows the mechanism works as
designed, not what real users want.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from vaultmem.cli import main as vaultmem
from vaultmem.nudge import in_hours

START = datetime(2026, 9, 7, 7, 0)  # a Monday
HOURS = 72
TICK = timedelta(minutes=15)
QUIET = "22:00-07:00"


def at(day: int, hour: float) -> datetime:
    return START.replace(hour=0) + timedelta(days=day, hours=hour)


@dataclass
class Planted:
    key: str  # text that identifies the item in nudges
    created: datetime
    kind: str  # "ledger" or a prospective note
    text: str  # the ledger line or the note body
    windows: list[tuple[datetime, datetime]] = field(default_factory=list)
    done_on_accept: bool = True
    path: str = ""


def scenario() -> list[Planted]:
    """Items, when they appear, and the windows in which a nudge about them helps.

    A dated commitment's window runs from the day before it is due until it is due;
    the café intention's from the day after it was noted; the habit's each morning.
    """
    mon, tue, wed, thu = 0, 1, 2, 3
    return [
        Planted("Send the blog draft", at(mon, 8), "ledger",
                "- [ ] Send the blog draft to Ines 📅 2026-09-08 [[Blog draft]]",
                [(at(mon, 12), at(tue, 17))]),
        Planted("Pay the electricity bill", at(mon, 9.5), "ledger",
                "- [ ] Pay the electricity bill 📅 2026-09-09 [[Bills]]",
                [(at(tue, 9), at(wed, 17))]),
        Planted("Call Mum", at(mon, 12), "ledger",
                "- [ ] Call Mum about Sunday lunch 📅 2026-09-08 [[Mum]] "
                "[nudge_hours:: 17-21]",
                [(at(mon, 17), at(tue, 21))]),
        Planted("Renew the parking permit", at(tue, 10), "ledger",
                "- [ ] Renew the parking permit 📅 2026-09-10 [[Car]]",
                [(at(wed, 9), at(thu, 17))]),
        Planted("Review Tomas's pull request", at(mon, 16), "ledger",
                "- [ ] Review Tomas's pull request 📅 2026-09-09 [[Work]]",
                [(at(tue, 9), at(wed, 17))]),
        Planted("Try the new café", at(mon, 10), "note:idea",
                "Try the new café on Keller Street: they open at 8 and have a quiet "
                "upstairs room for working.\n",
                [(at(tue, 14), at(wed, 18))]),
        Planted("Morning run", at(mon, 7.25), "note:plan",
                "Run before work, 5 km easy.\n",
                [(at(d, 7), at(d, 9)) for d in (mon, tue, wed)], done_on_accept=False),
        Planted("Lamp colour", at(mon, 11), "note:insight",
                "The hallway lamp looks warmer with the 2700 K bulb.\n"),
        Planted("Podcast episode", at(tue, 13), "note:insight",
                "That podcast episode about fermentation was fun.\n"),
        Planted("Bookshelf idea", at(wed, 11), "note:idea",
                "Maybe the bookshelf would look better on the other wall.\n"),
    ]


def random_scenario(seed: int) -> tuple[list[Planted], dict[str, str]]:
    """A scenario of the same shape with random times, never used to set parameters.

    Window rules: a dated commitment is worth a nudge from 36 h before its deadline
    (17:00 on the due date) until then; a call from the evening before it is due; the
    intention from the day after it was noted; the habit every morning after day 0.
    """
    rng = random.Random(seed)
    items, front = [], {}
    for n in range(4):
        created = at(rng.choice((0, 0, 1)), rng.choice(range(8, 20)) + rng.choice((0, .25, .5)))
        due_day = created.date() + timedelta(days=rng.choice((1, 2, 2, 3)))
        deadline = datetime.combine(due_day, datetime.min.time()) + timedelta(hours=17)
        items.append(Planted(f"Task number {n}", created, "ledger",
                             f"- [ ] Task number {n} 📅 {due_day.isoformat()} [[Work]]",
                             [(deadline - timedelta(hours=36), deadline)]))
    call_day = rng.choice((1, 2))
    items.append(Planted("Call Dad", at(0, rng.choice(range(8, 13))), "ledger",
                         f"- [ ] Call Dad 📅 {(START + timedelta(days=call_day)).date()} [[Mum]] "
                         "[nudge_hours:: 17-21]", [(at(call_day - 1, 17), at(call_day, 21))]))
    noted = at(0, rng.choice(range(9, 20)))
    items.append(Planted("Visit the market", noted, "note:idea", "Visit the Saturday market.\n",
                         [(at(1, 14), at(3, 18))]))
    front["Visit the market"] = "type: idea\nnudge_hours: 14-18\nnudge_importance: 0.5\n"
    items.append(Planted("Stretching", at(0, 6.5), "note:plan", "Ten minutes of stretching.\n",
                         [(at(d, 7), at(d, 9)) for d in (1, 2)], done_on_accept=False))
    front["Stretching"] = "type: plan\nnudge_hours: 07-09\nnudge_importance: 0.7\n" \
                          "nudge_amplitude: 0\n"
    for n in range(3):
        items.append(Planted(f"Passing thought {n}", at(rng.choice((0, 1, 2)),
                                                          rng.choice(range(8, 21))),
                             "note:insight", "Something I noticed today.\n"))
    return items, front


NOTE_FRONT = {
    # A habit: the user says when (hours) and that it matters every day (no revival).
    "Morning run": "type: plan\nnudge_hours: 07-09\nnudge_importance: 0.7\n"
                   "nudge_amplitude: 0\n",
    "Try the new café": "type: idea\nnudge_hours: 14-18\nnudge_importance: 0.5\n",
}


def cli(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = vaultmem([*args, "--json"])
    if code != 0:
        raise SystemExit(f"vaultmem {' '.join(args)} failed with {code}")
    return json.loads(out.getvalue())


class World:
    """The vault as the user keeps it: items appear, and get checked off."""

    def __init__(self, root: Path, items: list[Planted], front: dict[str, str]):
        self.vault = root
        self.items = items
        self.front = front
        self.ledger: list[str] = []
        for name in ("Blog draft", "Bills", "Mum", "Car", "Work"):
            (root / f"{name}.md").write_text(f"# {name}\n\nNotes about {name.lower()}.\n")

    def add_due(self, t: datetime) -> bool:
        changed = False
        for item in self.items:
            if item.created == t:
                changed = True
                if item.kind == "ledger":
                    self.ledger.append(item.text)
                else:
                    item.path = f"{item.key}.md"
                    front = self.front.get(item.key, f"type: {item.kind.split(':')[1]}\n")
                    (self.vault / item.path).write_text(
                        f"---\n{front}created: {t.isoformat()}\n---\n# {item.key}\n\n{item.text}")
        if changed:
            self.write_ledger()
        return changed

    def write_ledger(self) -> None:
        (self.vault / "Ledger.md").write_text("# Ledger\n\n" + "\n".join(self.ledger) + "\n")

    def complete(self, item: Planted, t: datetime) -> None:
        if item.kind == "ledger":
            self.ledger = [line.replace("- [ ]", "- [x]", 1) + f" ✅ {t.date().isoformat()}"
                           if line == item.text else line for line in self.ledger]
            self.write_ledger()
        else:
            path = self.vault / item.path
            path.write_text(path.read_text().replace("---\n", "---\nstatus: done\n", 1))

    def find(self, text: str) -> Planted | None:
        return next((i for i in self.items if i.key.lower() in text.lower()), None)


def replay(root: Path, oscillation: bool, items: list[Planted], front: dict) -> dict:
    os.environ["VAULTMEM_NUDGE_OSCILLATION"] = "1" if oscillation else "0"
    os.environ["VAULTMEM_QUIET_HOURS"] = QUIET
    world = World(root, items, front)
    emits = []
    t = START
    world.write_ledger()
    cli("index", str(root), "--now", t.isoformat())
    while t < START + timedelta(hours=HOURS):
        if world.add_due(t):
            cli("index", str(root), "--now", t.isoformat())
        doc = cli("nudge", "--vault", str(root), "--now", t.isoformat())
        if doc["nudge"]:
            emits.append(answer(world, doc["nudge"], t))
        t += TICK
    return score(world, emits)


def item_hours(world: World, item: Planted | None) -> str:
    """The user's own preferred hours for the item (what they would accept)."""
    if item is None:
        return ""
    found = re.search(r"nudge_hours:+\s*([0-9:,-]+)", item.text + world.front.get(item.key, ""))
    return found.group(1) if found else "09-12,14-18"


def answer(world: World, nudge: dict, t: datetime) -> dict:
    item = world.find(nudge["text"])
    hours = item_hours(world, item)
    useful = bool(item) and in_hours(hours, t) and any(a <= t < b for a, b in item.windows)
    verdict = "accept" if useful else "dismiss"
    cli("feedback", nudge["id"], verdict, "--vault", str(world.vault), "--now", t.isoformat())
    if useful and item.done_on_accept:
        world.complete(item, t)
        cli("index", str(world.vault), "--now", t.isoformat())
    return {"t": t, "item": item.key if item else nudge["text"], "useful": useful,
            "quiet": in_hours(QUIET, t)}


def score(world: World, emits: list[dict]) -> dict:
    windows = [(item.key, a, b) for item in world.items for a, b in item.windows]
    hits, delays = 0, []
    for key, a, b in windows:
        first = next((e["t"] for e in emits
                      if e["item"] == key and e["useful"] and a <= e["t"] < b), None)
        if first:
            hits += 1
            delays.append((first - a) / timedelta(hours=1))
    useful = sum(e["useful"] for e in emits)
    return {
        "emits": len(emits), "useful": useful,
        "precision": useful / len(emits) if emits else 0.0,
        "recall": hits / len(windows), "windows": len(windows),
        "accept_rate": useful / len(emits) if emits else 0.0,
        "per_day": len(emits) / (HOURS / 24),
        "max_per_day": max((sum(1 for e in emits if e["t"].date() == d)
                            for d in {e["t"].date() for e in emits}), default=0),
        "quiet_violations": sum(e["quiet"] for e in emits),
        "ttu_hours": sum(delays) / len(delays) if delays else float("nan"),
        "log": [f"{e['t']:%a %H:%M} {'useful ' if e['useful'] else 'not    '} {e['item']}"
                for e in emits],
    }


def run_policies(items_front, log: bool = False) -> dict[str, dict]:
    rows = {}
    for name, osc in (("full policy", True), ("no oscillation", False)):
        root = Path(tempfile.mkdtemp(prefix="vaultmem-sim-"))
        try:
            rows[name] = replay(root, osc, *items_front)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return rows


HEADER = ("| policy | messages | precision | window recall | accept rate | msgs/day (max) | "
          "quiet-hour violations | mean time to useful (h) |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", action="store_true", help="print every nudge")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="also replay N random scenarios of the same shape")
    args = ap.parse_args()
    rows = run_policies((scenario(), NOTE_FRONT))
    print(f"## Nudge simulation: {HOURS} h, {len(scenario())} planted items, "
          f"{rows['full policy']['windows']} oracle windows, a tick every 15 min\n")
    print(HEADER)
    for name, r in rows.items():
        print(f"| {name} | {r['emits']} | {r['precision']:.2f} | {r['recall']:.2f} | "
              f"{r['accept_rate']:.2f} | {r['per_day']:.1f} ({r['max_per_day']}) | "
              f"{r['quiet_violations']} | {r['ttu_hours']:.1f} |")
    if args.log:
        for name, r in rows.items():
            print(f"\n{name}:\n  " + "\n  ".join(r["log"]))
    if args.random:
        report_random(args.random)


def span(rows: list[dict], key: str, fmt: str = "{:.2f}") -> str:
    vals = [r[key] for r in rows if r[key] == r[key]]  # NaN-free
    if not vals:
        return "-"
    mean, low, high = sum(vals) / len(vals), min(vals), max(vals)
    return f"{fmt.format(mean)} ({fmt.format(low)}-{fmt.format(high)})"


def report_random(n: int) -> None:
    runs = [run_policies(random_scenario(seed)) for seed in range(n)]
    print(f"\n### {n} random scenarios of the same shape (seeds 0..{n - 1}; mean, min-max)\n")
    print(HEADER)
    for name in runs[0]:
        rs = [r[name] for r in runs]
        print(f"| {name} | {span(rs, 'emits', '{:.1f}')} | {span(rs, 'precision')} | "
              f"{span(rs, 'recall')} | {span(rs, 'accept_rate')} | {span(rs, 'per_day', '{:.1f}')} "
              f"({max(r['max_per_day'] for r in rs)}) | "
              f"{sum(r['quiet_violations'] for r in rs)} | {span(rs, 'ttu_hours', '{:.1f}')} |")


if __name__ == "__main__":
    main()
