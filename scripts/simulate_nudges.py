#!/usr/bin/env python3
"""Replay multi-day nudge scenarios through the `vaultmem` CLI, tick by tick.

    python scripts/simulate_nudges.py                    # scripts/eval_data/nudges/
    python scripts/simulate_nudges.py DIR_OR_FILE ...    # scenario files, or folders of them
    python scripts/simulate_nudges.py --planted --random 10

A scenario (the format: docs/evaluation.md#nudges) is a few days of one person's
vault: notes and ledger lines, each with the moment it was written (often weeks before
the scenario starts); what the person is doing at some moments (`contexts`); and an
oracle of the windows in which a nudge about an item helps. The replay:

* everything written before the start is indexed at the moment it was written
  (`vaultmem index --now WRITTEN`: the store's clock is what dates an entry, so a line
  written four weeks ahead looks written then; a `➕` date on the line would be honoured
  too, to the day), then every 15 minutes from the start:
* what is written at that moment appears on disk, and `vaultmem index --now T` runs;
* `vaultmem salience --now T` runs nightly at 03:00;
* `vaultmem nudge --now T` (with `--context TEXT` while a context holds);
* a scripted user answers each nudge with `vaultmem feedback`: accept when the moment
  lies inside one of the item's oracle windows, dismiss otherwise; after an accept with
  `done_on_accept` (default: true for ledger lines, false for notes) the thing is done:
  the ledger line is checked off (`✅`), a note gets `status: done`, and `index` runs.

Printed, per folder (its label) and per scenario: precision, oracle-window recall,
entries with at least one useful nudge, messages per day (and the day's maximum),
quiet-hour violations and mean time to useful (window start → the first useful nudge in
it) — SPEC 9 — beside the naive baseline "nudge each dated entry at 09:00 on its due
day". A folder holding a file `TUNED` is a set whose scores were looked at while
choosing defaults; every other folder is reported as not tuned on.

Beside them, the ceiling of each scenario: the most windows any policy could serve under
SPEC 8's limits (a maximum flow: one message a tick, five a day, none in quiet hours),
and the same when an item done on accept can be served once. `--group NAME=ID,ID` pools
scenarios into a row of their own (develop on one group, check on the other). `--why`
looks, at every tick inside an oracle window, at how its item stood (a dry run of the
same tick) and tabulates what held each missed window back (the rule nearest to letting
it fire: another item won the tick, the cap, fatigue, below θ and which term it lacked,
…) and what made each wasted nudge win (its clock: cue, overdue, due today, heads-up,
🛫 ramp, undated wave; and where the item's windows lie from it).

`--planted` and `--random N` add the planted 72-hour scenario and N random ones of the
same shape, written in the same format in memory (the defaults were chosen looking at
them too: they are reported as tuned on).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path

from vaultmem import embed
from vaultmem.api import Vault
from vaultmem.interfaces.cli import main as vaultmem
from vaultmem.nudge import in_hours

TICK = timedelta(minutes=15)
SALIENCE_AT = time(3, 0)
BASELINE_AT = time(9, 0)
DEFAULT_DIR = Path(__file__).parent / "eval_data" / "nudges"
DUE_RE = re.compile(r"(?:📅|\[due::)\s*(\d{4}-\d{2}-\d{2})")
BLOCK_RE = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")


# -- the scenario --------------------------------------------------------------------------

@dataclass
class Window:
    item: str
    start: datetime
    end: datetime
    hours: str = ""  # planted scenarios only: useful inside these hours of the window

    def holds(self, t: datetime) -> bool:
        return self.start <= t < self.end and (not self.hours or in_hours(self.hours, t))


@dataclass
class Written:
    """One ledger line or note, and when it first appears."""

    key: str  # a ledger id, or a note path
    written: datetime
    text: str
    ledger: bool
    done_on_accept: bool


@dataclass
class Scenario:
    id: str
    start: datetime
    days: float
    quiet: str
    items: list[Written]
    contexts: list[tuple[datetime, datetime, str]]
    oracle: list[Window]
    label: str = ""

    @property
    def end(self) -> datetime:
        return self.start + timedelta(days=self.days)

    def context_at(self, t: datetime) -> str | None:
        return next((text for a, b, text in self.contexts if a <= t < b), None)


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def parse_scenario(doc: dict, label: str = "") -> Scenario:
    """A scenario document (the format of docs/evaluation.md#nudges) as replayable data."""
    items = [Written(n["path"], moment(n["written"]), n["text"], False,
                     bool(n.get("done_on_accept", False))) for n in doc.get("notes", [])]
    items += [Written(e["id"], moment(e["written"]), e["line"], True,
                      bool(e.get("done_on_accept", True))) for e in doc.get("ledger", [])]
    return Scenario(
        doc["id"], moment(doc["start"]), float(doc["days"]),
        doc.get("quiet_hours", "22:00-07:00"), sorted(items, key=lambda i: i.written),
        [(moment(c["from"]), moment(c["to"]), c["text"]) for c in doc.get("contexts", [])],
        [Window(o["item"], moment(o["from"]), moment(o["to"]), o.get("hours", ""))
         for o in doc.get("oracle", [])], label)


def load(paths: list[Path]) -> list[Scenario]:
    """Scenario files, and every `*.json` in the folders given; labelled by folder."""
    out = []
    for path in paths:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        for file in files:
            label = label_of(file.parent)
            try:
                out.append(parse_scenario(json.loads(file.read_text(encoding="utf-8")), label))
            except (ValueError, KeyError, TypeError) as exc:
                print(f"{file}: not a scenario ({type(exc).__name__}: {exc}); skipped",
                      file=sys.stderr)
    return out


def label_of(folder: Path) -> str:
    tuned = (folder / "TUNED").exists()
    return f"{folder.name} ({'tuned on' if tuned else 'not tuned on'})"


# -- the replay ----------------------------------------------------------------------------

def cli(*args: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = vaultmem([*args, "--json"])
    if code != 0:
        raise SystemExit(f"vaultmem {' '.join(args)} failed with {code}: {err.getvalue()}")
    return json.loads(out.getvalue())


_TAKES_CONTEXT: list[bool] = []
_LOADED: dict = {}
_load_query_model = embed.query_embedder


def _shared_query_embedder(settings):
    """The query model loaded once for the whole replay (each `nudge --context` would
    load it again, as a cron run does): the same model, the same vectors, minutes saved."""
    key = (settings.model, settings.model_path)
    if key not in _LOADED:
        _LOADED[key] = _load_query_model(settings)
    return _LOADED[key]


def takes_context() -> bool:
    """Whether this vaultmem's `nudge` takes `--context` (older ones did not: their
    scenarios then run without contexts, and the report says so)."""
    if not _TAKES_CONTEXT:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            vaultmem(["nudge", "--help"])
        _TAKES_CONTEXT.append("--context" in out.getvalue())
        if not _TAKES_CONTEXT[0]:
            print("(this `vaultmem nudge` takes no --context: contexts are not passed)")
    return _TAKES_CONTEXT[0]


class World:
    """The vault as the person keeps it: lines and notes appear, and get done."""

    def __init__(self, root: Path, scenario: Scenario):
        self.root = root
        self.scenario = scenario
        self.pending = list(scenario.items)
        self.lines: dict[str, str] = {}  # ledger id -> its line as it is now
        self.by_key = {i.key: i for i in scenario.items}
        self.done: set[str] = set()

    def write_due(self, t: datetime) -> bool:
        """Write everything written at or before `t` not yet on disk; True if any."""
        due = [i for i in self.pending if i.written <= t]
        self.pending = [i for i in self.pending if i.written > t]
        for item in due:
            if item.ledger:
                self.lines[item.key] = item.text
            else:
                self.write_note(item.key, item.text, item.written)
        if any(i.ledger for i in due):
            self.write_ledger(max(i.written for i in due))
        return bool(due)

    def write_note(self, rel: str, text: str, when: datetime) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        stamp = when.timestamp()
        os.utime(path, (stamp, stamp))

    def write_ledger(self, when: datetime) -> None:
        body = "# Ledger\n\n" + "".join(f"{line}\n" for line in self.lines.values())
        self.write_note("Ledger.md", body, when)

    def complete(self, key: str, t: datetime) -> None:
        """Do the thing: check the line off as Tasks would, or close the note."""
        self.done.add(key)
        if key in self.lines:
            line = self.lines[key].replace("- [ ]", "- [x]", 1)
            block = BLOCK_RE.search(line)
            stamp = f" ✅ {t.date().isoformat()}"
            line = (line[:block.start()] + stamp + line[block.start():]) if block \
                else line + stamp
            self.lines[key] = line
            self.write_ledger(t)
        else:
            path = self.root / key
            text = path.read_text(encoding="utf-8")
            text = (text.replace("---\n", "---\nstatus: done\n", 1) if text.startswith("---\n")
                    else f"---\nstatus: done\n---\n{text}")
            self.write_note(key, text, t)

    def identify(self, nudge: dict) -> str:
        """The scenario's key for a nudge: its ledger id, else the note it is about."""
        if nudge["id"] in self.by_key:
            return nudge["id"]
        for path in nudge.get("notes") or []:
            if path in self.by_key:
                return path
        return nudge["id"]


@dataclass
class Emit:
    t: datetime
    item: str
    useful: bool
    quiet: bool
    text: str = ""
    why: str = ""  # the nudge's own "why now"
    terms: dict = field(default_factory=dict)


@dataclass
class Standing:
    """An item at one tick inside one of its oracle windows (`--why`): the rule that held
    it (empty: it fired), its value and terms, or `closed` when it was no longer open."""

    t: datetime
    held: str
    value: float = 0.0
    terms: dict = field(default_factory=dict)


@dataclass
class Run:
    scenario: Scenario
    emits: list[Emit]
    silences: dict[str, int] = field(default_factory=dict)
    standings: dict[str, list[Standing]] = field(default_factory=dict)  # item -> ticks


def replay(scenario: Scenario, why: bool = False) -> Run:
    """Run one scenario through the CLI in a fresh vault; the emits as the user saw them.
    `why`: also look, at each tick inside an oracle window, at how its item stood (a dry
    run of the same tick, which stores nothing)."""
    embed.query_embedder = _shared_query_embedder
    root = Path(tempfile.mkdtemp(prefix="vaultmem-sim-"))
    env = {"VAULTMEM_QUIET_HOURS": scenario.quiet}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return _replay(scenario, root, why)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(root, ignore_errors=True)


def replay_why(scenario: Scenario) -> Run:
    return replay(scenario, why=True)


def _replay(scenario: Scenario, root: Path, why: bool = False) -> Run:
    world = World(root, scenario)
    vault = ("--vault", str(root))
    first = True
    for when in sorted({i.written for i in scenario.items if i.written < scenario.start}):
        world.write_due(when)
        cli("index", str(root), "--now", when.isoformat())
        first = False
    if first:
        world.write_ledger(scenario.start)
        cli("index", str(root), "--now", scenario.start.isoformat())
    run = Run(scenario, [])
    t = scenario.start
    while t < scenario.end:
        stamp = ("--now", t.isoformat())
        if world.write_due(t):
            cli("index", str(root), *stamp)
        if t.time() == SALIENCE_AT:
            cli("salience", *vault, *stamp)
        context = scenario.context_at(t) if takes_context() else None
        args = ("--context", context) if context else ()
        if why:
            look(run, root, t, context)
        doc = cli("nudge", *vault, *stamp, *args)
        if doc["nudge"]:
            run.emits.append(answer(world, doc["nudge"], t, vault))
        else:
            reason = (doc.get("silent_because") or "").split(":")[0]
            run.silences[reason] = run.silences.get(reason, 0) + 1
        t += TICK
    return run


def answer(world: World, nudge: dict, t: datetime, vault: tuple[str, str]) -> Emit:
    """The scripted user: accept inside one of the item's oracle windows, else dismiss."""
    key = world.identify(nudge)
    useful = any(w.item == key and w.holds(t) for w in world.scenario.oracle)
    cli("feedback", nudge["id"], "accept" if useful else "dismiss", *vault,
        "--now", t.isoformat())
    item = world.by_key.get(key)
    if useful and item is not None and item.done_on_accept:
        world.complete(key, t)
        cli("index", str(world.root), "--now", t.isoformat())
    return Emit(t, key, useful, in_hours(world.scenario.quiet, t), nudge.get("text", ""),
                nudge.get("why", ""), nudge.get("terms") or {})


def look(run: Run, root: Path, t: datetime, context: str | None) -> None:
    """How each item with an oracle window holding `t` stands at this tick: the same tick
    as a dry run (`nudge --dry-run`: the library call the CLI makes, with every candidate
    kept, not the top three)."""
    keys = {w.item for w in run.scenario.oracle if w.holds(t)}
    if not keys:
        return
    with Vault.open(root) as v:
        result = v.nudge(now=t, context=context, record=False)
    found = {}
    for c in result.ranked:
        for key in (c.item.id, *([] if c.item.commitment else c.item.notes)):
            found.setdefault(key, c)
    for key in keys:
        c = found.get(key)
        held = "closed" if c is None else (
            c.held or ("fired" if result.nudge and result.nudge.item is c.item else "free"))
        run.standings.setdefault(key, []).append(
            Standing(t, held, c.value if c else 0.0, c.terms.as_dict() if c else {}))


# -- the naive baseline --------------------------------------------------------------------

def baseline(scenario: Scenario) -> Run:
    """Nudge each open dated ledger entry at 09:00 on its due day (one per tick: entries
    due the same day follow at 09:15, 09:30, ...); the same scripted user answers."""
    emits, taken = [], set()
    for item in scenario.items:
        found = DUE_RE.search(item.text) if item.ledger else None
        if not found or not item.text.lstrip().startswith("- [ ]"):
            continue
        t = datetime.combine(date.fromisoformat(found.group(1)), BASELINE_AT)
        while t in taken:
            t += TICK
        if not (scenario.start <= t < scenario.end) or item.written > t:
            continue
        taken.add(t)
        useful = any(w.item == item.key and w.holds(t) for w in scenario.oracle)
        emits.append(Emit(t, item.key, useful, in_hours(scenario.quiet, t)))
    return Run(scenario, sorted(emits, key=lambda e: e.t))


# -- the metrics (SPEC 9) ----------------------------------------------------------------------

def done_at(run: Run) -> dict[str, datetime]:
    """When each item was done: its first accepted nudge, for an item done on accept."""
    out: dict[str, datetime] = {}
    done = {i.key for i in run.scenario.items if i.done_on_accept}
    for e in run.emits:
        if e.useful and e.item in done:
            out.setdefault(e.item, e.t)
    return out


def score(runs: list[Run]) -> dict:
    """Pooled over `runs`: precision over emits, recall over oracle windows, entries
    (items with a window) nudged usefully at least once, messages per day, quiet-hour
    violations, mean hours from a window's start to its first useful nudge.

    Recall is counted two ways: over every window (`recall`: SPEC 9's, the headline), and
    over the windows still open when they came (`recall_open`): a window that starts after
    its item was done (accepted at an earlier window and checked off) can no longer be
    served by anyone, so it is left out there."""
    emits = [e for r in runs for e in r.emits]
    windows = [(r, w) for r in runs for w in r.scenario.oracle]
    delays, hit_items, items = [], set(), set()
    still_open = hit_open = 0
    finished = {id(r): done_at(r) for r in runs}
    for run, w in windows:
        items.add((run.scenario.id, w.item))
        first = next((e.t for e in run.emits
                      if e.item == w.item and e.useful and w.holds(e.t)), None)
        done = finished[id(run)].get(w.item)
        live = done is None or done >= w.start
        still_open += live
        if first is not None:
            delays.append((first - w.start) / timedelta(hours=1))
            hit_items.add((run.scenario.id, w.item))
            hit_open += live
    days = sum(r.scenario.days for r in runs)
    per_day: dict[tuple[str, date], int] = {}
    for r in runs:
        for e in r.emits:
            per_day[(r.scenario.id, e.t.date())] = per_day.get((r.scenario.id, e.t.date()), 0) + 1
    useful = sum(e.useful for e in emits)
    return {
        "emits": len(emits), "useful": useful, "windows": len(windows), "hit": len(delays),
        "precision": useful / len(emits) if emits else float("nan"),
        "recall": len(delays) / len(windows) if windows else float("nan"),
        "open_windows": still_open, "open_hit": hit_open,
        "recall_open": hit_open / still_open if still_open else float("nan"),
        "entries": len(hit_items) / len(items) if items else float("nan"),
        "items": len(items), "items_hit": len(hit_items),
        "per_day": len(emits) / days if days else float("nan"),
        "max_per_day": max(per_day.values(), default=0),
        "quiet": sum(e.quiet for e in emits),
        "ttu": sum(delays) / len(delays) if delays else float("nan"),
    }


def ceiling(scenario: Scenario) -> tuple[int, int]:
    """The most oracle windows any policy could serve under SPEC 8's limits, as a maximum
    flow: one message per 15-minute tick, at most 5 a day, none in quiet hours, each
    message one window (of the item it names); and, second, the same when an item done on
    accept can be served at one of its windows only (the user checks it off). It measures
    the scenario, not the tool."""
    import networkx as nx

    def flow(one_per_item: bool) -> int:
        g = nx.DiGraph()
        done = {i.key for i in scenario.items if i.done_on_accept}
        for n, w in enumerate(scenario.oracle):
            if one_per_item and w.item in done:
                g.add_edge("s", ("item", w.item), capacity=1)
                g.add_edge(("item", w.item), ("w", n), capacity=1)
            else:
                g.add_edge("s", ("w", n), capacity=1)
            t = scenario.start
            while t < scenario.end:
                if w.holds(t) and not in_hours(scenario.quiet, t):
                    g.add_edge(("w", n), ("t", t), capacity=1)
                    g.add_edge(("t", t), ("d", t.date()), capacity=1)
                    g.add_edge(("d", t.date()), "z", capacity=5)
                t += TICK
        return int(nx.maximum_flow_value(g, "s", "z")) if g.has_node("z") else 0

    return flow(False), flow(True)


HEADER = ("| set | policy | messages | precision | window recall | window recall, windows "
          "still open | entries nudged usefully | msgs/day (max) | quiet-hour violations | "
          "mean time to useful (h) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")


def row(name: str, policy: str, s: dict) -> str:
    return (f"| {name} | {policy} | {s['emits']} | {s['precision']:.2f} ({s['useful']}/"
            f"{s['emits']}) | {s['recall']:.2f} ({s['hit']}/{s['windows']}) | "
            f"{s['recall_open']:.2f} ({s['open_hit']}/{s['open_windows']}) | "
            f"{s['entries']:.2f} ({s['items_hit']}/{s['items']}) | {s['per_day']:.1f} "
            f"({s['max_per_day']}) | {s['quiet']} | {s['ttu']:.1f} |")


def report(label: str, runs: list[Run], base: list[Run], *, log: bool,
           why: bool = False, groups: dict[str, list[str]] | None = None) -> None:
    print(f"\n### {label}: {len(runs)} scenario(s)\n")
    print(HEADER)
    for r, b in zip(runs, base, strict=True):
        print(row(r.scenario.id, "vaultmem", score([r])))
        print(row(r.scenario.id, "baseline: 09:00 on the due day", score([b])))
    bounds = [ceiling(r.scenario) for r in runs]
    print("\nCeiling (the most windows any policy could serve: one a tick, 5 a day, none in "
          "quiet hours; then with an item done on accept served once):")
    for r, (free, once) in zip(runs, bounds, strict=True):
        n = len(r.scenario.oracle) or 1
        print(f"  {r.scenario.id}: {free}/{n} = {free / n:.2f}; {once}/{n} = {once / n:.2f}")
    for name, ids in (groups or {}).items():
        chosen = [r for r in runs if r.scenario.id in ids]
        if chosen:
            print(row(f"group {name}", "vaultmem", score(chosen)))
            print(row(f"group {name}", "baseline: 09:00 on the due day",
                      score([b for b in base if b.scenario.id in ids])))
    if len(runs) > 1:
        print(row("all", "vaultmem", score(runs)))
        print(row("all", "baseline: 09:00 on the due day", score(base)))
    if log:
        for r in runs:
            print_log(r)
    if why:
        why_report(runs, every=log)


def print_log(run: Run) -> None:
    s = run.scenario
    print(f"\n{s.id}: every nudge (useful = inside one of the item's oracle windows)")
    for e in run.emits:
        print(f"  {e.t:%a %d %H:%M} {'useful ' if e.useful else 'not    '} {e.item}")
    missed = [w for w in s.oracle if not any(
        e.item == w.item and e.useful and w.holds(e.t) for e in run.emits)]
    written = {i.key: i for i in s.items}
    finished = done_at(run)
    print(f"{s.id}: oracle windows missed")
    for w in missed:
        item = written.get(w.item)
        ahead = ""
        if item is not None and item.ledger and (due := DUE_RE.search(item.text)):
            days = (date.fromisoformat(due.group(1)) - item.written.date()).days
            ahead = f" (written {days} d before its date)"
        if w.item in finished and finished[w.item] < w.start:
            ahead += f" (done at {finished[w.item]:%a %d %H:%M}, before it came)"
        print(f"  {w.start:%a %d %H:%M}-{w.end:%H:%M} {w.item}{ahead}")
    print(f"{s.id}: silent ticks by reason: {run.silences}")


# -- why (`--why`): what held each missed window back, what made each wasted nudge win ----

# A missed window's cause: the rule nearest to letting its item fire, over its ticks.
CAUSES = (
    ("lost the tick to another item", ("won this tick",)),
    ("daily cap spent", ("daily cap",)),
    ("slot kept for commitments", ("kept for commitments",)),
    ("disarmed (Schmitt)", ("disarmed",)),
    ("fatigue", ("fatigue",)),
    ("below θ", ("below θ",)),
    ("accepted earlier in its window", ("accepted in this window",)),
    ("snoozed", ("snoozed",)),
    ("just written", ("just written",)),
    ("no moment of its own", ("no moment",)),
    ("quiet hours", ("quiet hours",)),
    ("closed (done or gone)", ("closed",)),
)


def cause(ticks: list[Standing]) -> str:
    """The nearest miss among a window's ticks, by the order of CAUSES; below θ says by
    how much at best and which term was missing there."""
    for name, marks in CAUSES:
        hits = [s for s in ticks if s.held.startswith(marks) or any(m in s.held for m in marks)]
        if not hits:
            continue
        if name == "below θ":
            best = max(hits, key=lambda s: s.value)
            return f"below θ: {below(best)}"
        return name
    return "no tick inside it" if not ticks else f"other: {ticks[0].held}"


def below(s: Standing) -> str:
    """Which term a below-θ item lacked at its best tick."""
    t = s.terms
    if not t.get("urgency") and not t.get("cue"):
        what = "no urgency or cue"
    elif not t.get("hours"):
        what = "outside its hours"
    else:
        what = "urgency + hours short"
    return what + (" (gap ≥ 0.25)" if 1.0 - s.value >= 0.25 else " (gap < 0.25)")


def waste(e: Emit, run: Run) -> str:
    """What made a wasted nudge win: its clock (from its `why`), and where the item's
    windows lie from that moment."""
    why = e.why
    clock = ("cue" if e.terms.get("cue") else
             "overdue" if "overdue" in why else
             "due today" if "due today" in why or why.startswith("today") else
             "🛫 window ramp" if "window open" in why else
             "heads-up (day before)" if "tomorrow" in why or "due 20" in why or " on 20" in why
             else
             "undated wave" if "waiting" in why or not e.terms.get("urgency") else "urgency")
    spans = [w for w in run.scenario.oracle if w.item == e.item]
    where = ("item has no window" if not spans else
             "its window later" if all(w.start > e.t for w in spans) else
             "its window earlier" if all(w.end <= e.t for w in spans) else
             "between its windows")
    return f"{clock}; {where}"


def kind_of(run: Run, key: str) -> str:
    """What the item is, as the scenario wrote it: a note, a trigger, a 🛫 window, a dated
    or an undated entry."""
    item = next((i for i in run.scenario.items if i.key == key), None)
    if item is None or not item.ledger:
        return "note"
    text = item.text
    if "[when::" in text or re.match(r"-\s\[.\]\s+When\b", text):
        return "trigger"
    return "🛫 window" if "🛫" in text else "dated" if DUE_RE.search(text) else "undated"


def why_report(runs: list[Run], every: bool = False) -> None:
    """Missed windows by cause and wasted nudges by what won them, pooled, with the
    scenario's windows named so the next look starts from them."""
    missed: dict[str, list[str]] = {}
    wasted: dict[str, list[str]] = {}
    for run in runs:
        finished = done_at(run)
        for w in run.scenario.oracle:
            if any(e.item == w.item and e.useful and w.holds(e.t) for e in run.emits):
                continue
            done = finished.get(w.item)
            ticks = [s for s in run.standings.get(w.item, []) if w.holds(s.t)]
            name = ("done at an earlier window" if done and done < w.start else cause(ticks))
            if name.startswith("below θ"):
                name += f" [{kind_of(run, w.item)}]"
            missed.setdefault(name, []).append(f"{run.scenario.id} {w.item} {w.start:%a %H:%M}")
        for e in run.emits:
            if not e.useful:
                wasted.setdefault(waste(e, run), []).append(
                    f"{run.scenario.id} {e.item} {e.t:%a %H:%M}")
    for title, table in (("missed windows, by what held the item back", missed),
                         ("wasted nudges, by what made them win", wasted)):
        print(f"\n{title}\n\n| cause | n | examples |\n|---|---:|---|")
        for name, found in sorted(table.items(), key=lambda kv: -len(kv[1])):
            print(f"| {name} | {len(found)} | {'; '.join(found if every else found[:3])} |")


# -- the planted and random scenarios (the earlier simulation, in the same format) ---------

PLANTED_START = datetime(2026, 9, 7, 7, 0)  # a Monday
WORK = "09-12,14-18"


def at(day: int, hour: float) -> datetime:
    return PLANTED_START.replace(hour=0) + timedelta(days=day, hours=hour)


def planted() -> dict:
    """Five dated commitments, a call with preferred hours, a soft intention, a daily
    habit, low-value passing thoughts. A dated commitment's window runs from the day
    before it is due until it is due, inside the item's preferred hours; the café
    intention's from the day after it was noted; the habit's each morning."""
    mon, tue, wed, thu = 0, 1, 2, 3
    ledger = [
        ("blog", at(mon, 8), "Send the blog draft to Ines 📅 2026-09-08 [[Blog draft]]",
         [(at(mon, 12), at(tue, 17))], WORK),
        ("bill", at(mon, 9.5), "Pay the electricity bill 📅 2026-09-09 [[Bills]]",
         [(at(tue, 9), at(wed, 17))], WORK),
        ("mum", at(mon, 12), "Call Mum about Sunday lunch 📅 2026-09-08 [[Mum]] "
         "[nudge_hours:: 17-21]", [(at(mon, 17), at(tue, 21))], "17-21"),
        ("permit", at(tue, 10), "Renew the parking permit 📅 2026-09-10 [[Car]]",
         [(at(wed, 9), at(thu, 17))], WORK),
        ("review", at(mon, 16), "Review Tomas's pull request 📅 2026-09-09 [[Work]]",
         [(at(tue, 9), at(wed, 17))], WORK),
    ]
    notes = [
        ("Try the new café.md", at(mon, 10), "type: idea\nnudge_hours: 14-18\n"
         "nudge_importance: 0.5\n", "Try the new café on Keller Street: they open at 8 and "
         "have a quiet upstairs room for working.", [(at(tue, 14), at(wed, 18))], "14-18", True),
        ("Morning run.md", at(mon, 7.25), "type: plan\nnudge_hours: 07-09\n"
         "nudge_importance: 0.7\nnudge_amplitude: 0.2\nnudge_period_days: 1\n",
         "Run before work, 5 km easy.",
         [(at(d, 7), at(d, 9)) for d in (mon, tue, wed)], "07-09", False),
        ("Lamp colour.md", at(mon, 11), "type: insight\n",
         "The hallway lamp looks warmer with the 2700 K bulb.", [], "", True),
        ("Podcast episode.md", at(tue, 13), "type: insight\n",
         "That podcast episode about fermentation was fun.", [], "", True),
        ("Bookshelf idea.md", at(wed, 11), "type: idea\n",
         "Maybe the bookshelf would look better on the other wall.", [], "", True),
    ]
    return shaped("planted", PLANTED_START, 3, ledger, notes)


def shaped(name: str, start: datetime, days: int, ledger, notes) -> dict:
    """A scenario document from (id, written, line, windows, hours) ledger rows and
    (path, written, front matter, body, windows, hours, done) notes."""
    people = [{"path": f"{n}.md", "written": (start - timedelta(days=30)).isoformat(),
               "text": f"# {n}\n\nNotes about {n.lower()}.\n"}
              for n in ("Blog draft", "Bills", "Mum", "Car", "Work")]
    doc = {"id": name, "start": start.isoformat(), "days": days,
           "quiet_hours": "22:00-07:00", "contexts": [], "oracle": [],
           "ledger": [{"id": i, "written": w.isoformat(), "line": f"- [ ] {line} ^{i}"}
                      for i, w, line, _, _ in ledger],
           "notes": people + [
               {"path": p, "written": w.isoformat(), "done_on_accept": done,
                "text": f"---\n{front}created: {w.isoformat()}\n---\n# {p[:-3]}\n\n{body}\n"}
               for p, w, front, body, _, _, done in notes]}
    for key, spans, hours in [(i, s, h) for i, _, _, s, h in ledger] + \
                             [(p, s, h) for p, _, _, _, s, h, _ in notes]:
        doc["oracle"] += [{"item": key, "from": a.isoformat(), "to": b.isoformat(),
                           "hours": hours} for a, b in spans]
    return doc


def random_scenario(seed: int) -> dict:
    """A scenario of the planted shape with random times.

    A dated commitment is worth a nudge from 36 h before 17:00 on its due date until
    then (in working hours); a call from the evening before it is due (17-21); the
    intention from the day after it was noted; the habit every morning after day 0.
    """
    rng = random.Random(seed)
    ledger = []
    for n in range(4):
        created = at(rng.choice((0, 0, 1)), rng.choice(range(8, 20)) + rng.choice((0, .25, .5)))
        due_day = created.date() + timedelta(days=rng.choice((1, 2, 2, 3)))
        deadline = datetime.combine(due_day, time(17))
        ledger.append((f"task-{n}", created, f"Task number {n} 📅 {due_day} [[Work]]",
                       [(deadline - timedelta(hours=36), deadline)], WORK))
    call_day = rng.choice((1, 2))
    ledger.append(("dad", at(0, rng.choice(range(8, 13))),
                   f"Call Dad 📅 {(PLANTED_START + timedelta(days=call_day)).date()} [[Mum]] "
                   "[nudge_hours:: 17-21]", [(at(call_day - 1, 17), at(call_day, 21))],
                   "17-21"))
    notes = [("Visit the market.md", at(0, rng.choice(range(9, 20))),
              "type: idea\nnudge_hours: 14-18\nnudge_importance: 0.5\n",
              "Visit the Saturday market.", [(at(1, 14), at(3, 18))], "14-18", True),
             ("Stretching.md", at(0, 6.5), "type: plan\nnudge_hours: 07-09\n"
              "nudge_importance: 0.7\nnudge_amplitude: 0.2\nnudge_period_days: 1\n",
              "Ten minutes of stretching.",
              [(at(d, 7), at(d, 9)) for d in (1, 2)], "07-09", False)]
    notes += [(f"Passing thought {n}.md", at(rng.choice((0, 1, 2)), rng.choice(range(8, 21))),
               "type: insight\n", "Something I noticed today.", [], "", True) for n in range(3)]
    return shaped(f"random-{seed}", PLANTED_START, 3, ledger, notes)


# -- main ------------------------------------------------------------------------------------

def groups_of(specs: list[str]) -> dict[str, list[str]]:
    """`--group A=scn-a1,scn-b1` -> {"A": ["scn-a1", "scn-b1"]}."""
    out = {}
    for spec in specs:
        name, _, ids = spec.partition("=")
        out[name] = [i.strip() for i in ids.split(",") if i.strip()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path,
                    help=f"scenario files or folders (default: {DEFAULT_DIR})")
    ap.add_argument("--planted", action="store_true", help="also the planted 72-hour scenario")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="also N random scenarios of the planted shape")
    ap.add_argument("--log", action="store_true", help="print every nudge and every miss")
    ap.add_argument("--group", action="append", default=[], metavar="NAME=ID,ID",
                    help="also pool these scenarios (by id) into a row of their own")
    ap.add_argument("--why", action="store_true",
                    help="tabulate what held back each missed window and what made each "
                    "wasted nudge win")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="replay N scenarios at once (separate processes)")
    args = ap.parse_args()
    groups: dict[str, list[Scenario]] = {}
    paths = args.paths or ([] if (args.planted or args.random) else [DEFAULT_DIR])
    for s in load(paths):
        groups.setdefault(s.label, []).append(s)
    if args.planted:
        groups["planted (tuned on)"] = [parse_scenario(planted())]
    if args.random:
        groups[f"random, seeds 0..{args.random - 1} (tuned on)"] = [
            parse_scenario(random_scenario(seed)) for seed in range(args.random)]
    if not groups:
        raise SystemExit("no scenarios: name scenario files or folders")
    print("## Nudge simulation: `vaultmem nudge` every 15 minutes, a scripted user")
    takes_context()
    for label, scenarios in groups.items():
        play = replay_why if args.why else replay
        if args.jobs > 1:
            with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
                runs = pool.map(play, scenarios)
        else:
            runs = [play(s) for s in scenarios]
        report(label, runs, [baseline(s) for s in scenarios], log=args.log, why=args.why,
               groups=groups_of(args.group))


if __name__ == "__main__":
    main()
