#!/usr/bin/env python3
"""Due sets on weeks of commitments in competition (SPEC 9), through the real CLI.

    python scripts/eval_due.py                      # the weeks in scripts/eval_data/weeks/
    python scripts/eval_due.py week-a1.json DIR/    # week files, or folders of them
    python scripts/eval_due.py --held-out DIR/      # a second group, printed apart
    python scripts/eval_due.py --group A=week-a1.json,week-b1.json --group B=DIR/
                                                    # named groups, each pooled apart
    python scripts/eval_due.py --set semantic_floor=0.4   # one setting changed (VAULTMEM_*)

A *week* (the format: one JSON file with the vault's notes, the ledger as it changes,
and 50+ moments each with a context and the gold due set; see
scripts/eval_data/weeks/README.md) is replayed in a temporary vault: the notes are
written once, and before each moment the ledger version in force is written as
`Ledger.md` and indexed with `vaultmem index --now FROM`. At each moment the script
runs `vaultmem due --json --now AT --context TEXT`, `vaultmem due --json --now AT`
(no context: the dates-only baseline) and `vaultmem query TEXT --json --now AT
--no-log`, in process through `vaultmem.interfaces.cli.main`. Nothing is tuned here: it prints
what it measured.

Definitions (a *pair* is (moment, entry id); G is the gold due set of a moment, P the
predicted one: every `due` result whose group is not `upcoming`):

* micro Set-F1, precision, recall over all pairs of all moments: TP = Σ|P ∩ G|,
  FP = Σ|P − G|, FN = Σ|G − P|.
* false alarms per moment: FP / moments.
* recall by kind: a gold pair is *event* when the week lists it under the moment's
  `cues`, else *time*. Event pairs are split by *overlap*: the context shares a content
  word with the entry's condition (lower-cased words of three letters or more, this
  script's own stop list, Snowball-stemmed), else *no overlap*.
* update miss: an entry is *revised* at a moment when a ledger version in force at
  that moment (any but the first) changed its line against the version before
  (rescheduled, reworded, retargeted, done, cancelled, reopened, removed or put back).
  Over the pairs of revised entries that are in G or in P, the share that are wrong:
  (misses + false alarms) / (|G ∩ revised| + false alarms on revised). 0 is perfect.
* cross-day miss: misses / gold pairs whose entry was created on an earlier day than
  the moment (an entry of the first ledger version predates the week).
* query, on the same moments: a *wrongly grounded* moment has at least one entry in the
  query's `firing` list with `grounded: true` that is not in G; a moment's *rank 1 is
  held* when its first result's `commitments` include such an entry.
* dates-only baseline: P is `due` without `--context` (every trigger ignored).

False alarms are also counted by the lure kind the week gives the pair (`lures`), and
per due group, so a regression says where it is.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parent / "eval_data" / "weeks"
DUE_GROUPS = ("overdue", "today", "triggered", "open")  # the due set; not "upcoming"
LURE_KINDS = ("name-only", "not-yet", "common-word", "same-kind")

# -- loading ------------------------------------------------------------------------


def week_files(paths: list[str]) -> list[Path]:
    """Week files named, or found in named folders (`*.json`, sorted)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out += sorted(p for p in path.glob("*.json"))
        elif path.is_file():
            out.append(path)
        else:
            raise SystemExit(f"{raw}: no such week file or folder")
    return out


def load_week(path: Path) -> dict:
    try:
        week = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: not a readable week file ({exc})") from None
    missing = [k for k in ("notes", "ledger", "moments") if k not in week]
    if missing:
        raise SystemExit(f"{path}: a week needs {', '.join(missing)}")
    week.setdefault("id", path.stem)
    week["ledger"] = sorted(week["ledger"], key=lambda v: v["from"])
    week["moments"] = sorted(week["moments"], key=lambda m: m["at"])
    return week


# -- the ledger's own history, read by this script (not by vaultmem) ----------------

BLOCK_ID = re.compile(r"\^([A-Za-z0-9-]+)\s*$")
TASK = re.compile(r"^\s*[-*+]\s+\[(.)\]\s+(.*)$")
WHEN_FIELD = re.compile(r"\[when::\s*([^\]]+)\]", re.IGNORECASE)
WHEN_LINE = re.compile(r"^when\s+(.+?),\s", re.IGNORECASE)


def ledger_lines(text: str) -> dict[str, str]:
    """{block id: its task line, stripped} of one ledger version."""
    out = {}
    for line in text.splitlines():
        task, block = TASK.match(line), BLOCK_ID.search(line)
        if task and block:
            out[block.group(1)] = line.strip()
    return out


def condition_of(line: str) -> str | None:
    task = TASK.match(line)
    body = task.group(2) if task else line
    found = WHEN_FIELD.search(body) or WHEN_LINE.match(body)
    return found.group(1).strip() if found else None


def version_at(week: dict, at: str) -> int:
    """Index of the ledger version in force at `at` (the last one starting at or before)."""
    index = 0
    for i, version in enumerate(week["ledger"]):
        if version["from"] <= at:
            index = i
    return index


def history(week: dict) -> tuple[list[dict[str, str]], dict[str, set[int]], dict[str, str]]:
    """Each version's lines; per entry, the versions that revised it; per entry, the day
    it was created ("" for the first version's entries: they predate the week)."""
    lines = [ledger_lines(v["text"]) for v in week["ledger"]]
    revised: dict[str, set[int]] = {}
    created: dict[str, str] = {entry: "" for entry in lines[0]} if lines else {}
    for i in range(1, len(lines)):
        before, after = lines[i - 1], lines[i]
        for entry in set(before) | set(after):
            if before.get(entry) != after.get(entry):
                revised.setdefault(entry, set()).add(i)
            if entry in after and entry not in created:
                created[entry] = week["ledger"][i]["from"][:10]
    return lines, revised, created


# -- overlap: this script's own definition, independent of the matcher --------------

STOP = frozenset("""the and for with from into onto over under about after before until
when whenever once then than this that these those there here what which who whom whose
how why where are was were been being have has had having does did doing get gets got
getting come comes came coming goes going went again next soon back some any all each
every just still also very really can could will would shall should may might must not
yes one ones something thing things you your yours our ours his her hers its their them
they she him out off let""".split())
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def stems(text: str) -> set[str]:
    from snowballstemmer import stemmer

    stem = stemmer("english").stemWord
    words = [w.lower().removesuffix("'s") for w in WORD.findall(text or "")]
    return {stem(w) for w in words if len(w) >= 3 and w not in STOP}


def overlaps(context: str, condition: str | None) -> bool:
    return bool(condition) and bool(stems(context) & stems(condition))


# -- running the CLI ----------------------------------------------------------------


def cli(*args: str, env: dict | None = None) -> dict:
    """`vaultmem ARGS --json` in process; its JSON document."""
    from vaultmem.interfaces.cli import main as vaultmem

    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update({k: str(v) for k, v in (env or {}).items()})
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = vaultmem([*args, "--json"])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    if code != 0:
        raise SystemExit(f"vaultmem {' '.join(args[:3])} … failed ({code}): {err.getvalue()}")
    return json.loads(out.getvalue())


def write_vault(root: Path, week: dict) -> Path:
    vault = root / week["id"]
    for note in week["notes"]:
        path = vault / note["path"]
        if vault.resolve() not in path.resolve().parents:
            raise SystemExit(f"{week['id']}: note path {note['path']!r} leaves the vault")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note["text"], encoding="utf-8")
    return vault


def replay(week: dict, root: Path, env: dict, k: int) -> list[dict]:
    """Every moment of `week` through the CLI: the raw documents, per moment."""
    vault = write_vault(root, week)
    vs = ("--vault", str(vault))
    shown = -1
    out = []
    for moment in week["moments"]:
        at = moment["at"]
        version = version_at(week, at)
        if version != shown:
            v = week["ledger"][version]
            (vault / "Ledger.md").write_text(v["text"], encoding="utf-8")
            cli("index", str(vault), "--now", v["from"], env=env)
            cli("salience", *vs, "--now", v["from"], env=env)
            shown = version
        ctx = moment["context"]
        due = cli("due", *vs, "--now", at, "--context", ctx, env=env)
        dates = cli("due", *vs, "--now", at, env=env)
        query = cli("query", ctx, *vs, "--now", at, "--no-log", "-k", str(k), env=env)
        out.append({"moment": moment, "version": version, "due": due, "dates": dates,
                    "query": query})
    return out


# -- scoring ------------------------------------------------------------------------


def due_ids(doc: dict) -> set[str]:
    return {r["id"] for r in doc["results"] if r["group"] in DUE_GROUPS}


def score_week(week: dict, runs: list[dict], use: str = "due") -> dict:
    """Counts for one week, from `use` ("due": with the context; "dates": without)."""
    lines, revised, created = history(week)
    c: Counter = Counter()
    for run in runs:
        m, version = run["moment"], run["version"]
        gold, pred = set(m["due"]), due_ids(run[use])
        cues, lures = m.get("cues") or {}, m.get("lures") or {}
        day = m["at"][:10]
        c["moments"] += 1
        c["tp"] += len(gold & pred)
        c["fp"] += len(pred - gold)
        c["fn"] += len(gold - pred)
        c["moments_with_fp"] += bool(pred - gold)
        groups = {r["id"]: r["group"] for r in run[use]["results"]}
        for entry in pred - gold:
            c[f"fp_lure:{lures.get(entry, 'none')}"] += 1
            c[f"fp_group:{groups.get(entry)}"] += 1
        for entry in gold:
            hit = entry in pred
            if entry in cues:
                line = lines[version].get(entry, "")
                kind = "overlap" if overlaps(m["context"], condition_of(line)) else "no-overlap"
                c["event"] += 1
                c["event_hit"] += hit
                c[f"event_{kind}"] += 1
                c[f"event_{kind}_hit"] += hit
            else:
                c["time"] += 1
                c["time_hit"] += hit
            if created.get(entry, "") < day:
                c["cross"] += 1
                c["cross_miss"] += not hit
        touched = {e for e, vs in revised.items() if any(v <= version for v in vs)}
        c["upd_gold"] += len(gold & touched)
        c["upd_miss"] += len((gold - pred) & touched)
        c["upd_fp"] += len((pred - gold) & touched)
        for entry in lures:
            c[f"lure:{lures[entry]}"] += 1
            c[f"lure_fired:{lures[entry]}"] += entry in pred
        if use == "due":
            score_query(c, run["query"], gold)
    return c


def score_query(c: Counter, doc: dict, gold: set[str]) -> None:
    wrong = {f["id"] for f in doc.get("firing", []) if f["grounded"] and f["id"] not in gold}
    c["q_wrong"] += bool(wrong)
    top = doc["results"][0] if doc.get("results") else None
    c["q_rank1"] += bool(top and {x["id"] for x in top.get("commitments", [])} & wrong)
    right = {f["id"] for f in doc.get("firing", []) if f["grounded"] and f["id"] in gold}
    c["q_right"] += len(right)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def summary(c: Counter) -> dict:
    p, r = ratio(c["tp"], c["tp"] + c["fp"]), ratio(c["tp"], c["tp"] + c["fn"])
    f1 = ratio(2 * c["tp"], 2 * c["tp"] + c["fp"] + c["fn"])
    return {"moments": c["moments"], "f1": f1, "precision": p, "recall": r,
            "fa_per_moment": ratio(c["fp"], c["moments"]),
            "update_miss": ratio(c["upd_miss"] + c["upd_fp"], c["upd_gold"] + c["upd_fp"]),
            "cross_day_miss": ratio(c["cross_miss"], c["cross"]),
            "time_recall": ratio(c["time_hit"], c["time"]),
            "event_recall": ratio(c["event_hit"], c["event"]),
            "overlap_recall": ratio(c["event_overlap_hit"], c["event_overlap"]),
            "no_overlap_recall": ratio(c["event_no-overlap_hit"], c["event_no-overlap"]),
            "q_wrong": ratio(c["q_wrong"], c["moments"]),
            "q_rank1": ratio(c["q_rank1"], c["moments"])}


# -- printing -----------------------------------------------------------------------


def fmt(x: float) -> str:
    return "  -  " if x != x else f"{x:.3f}"


HEAD = ("| set | row | moments | F1 | precision | recall | FA/moment | update miss | "
        "cross-day miss | time recall | event recall | overlap | no overlap | "
        "query wrongly grounded | query rank 1 held |")


def row(name: str, label: str, c: Counter) -> str:
    s = summary(c)
    cells = [name, label, str(s["moments"]), *(fmt(s[k]) for k in (
        "f1", "precision", "recall", "fa_per_moment", "update_miss", "cross_day_miss",
        "time_recall", "event_recall", "overlap_recall", "no_overlap_recall"))]
    if label == "dates only":
        cells += ["-", "-"]
    else:
        cells += [f"{c['q_wrong']}/{c['moments']} ({fmt(s['q_wrong'])})",
                  f"{c['q_rank1']}/{c['moments']} ({fmt(s['q_rank1'])})"]
    return "| " + " | ".join(cells) + " |"


def counts_line(name: str, c: Counter) -> str:
    fp = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in sorted(c.items())
                   if k.startswith("fp_lure:") and v)
    groups = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in sorted(c.items())
                       if k.startswith("fp_group:") and v)
    lures = ", ".join(f"{kind} {c[f'lure_fired:{kind}']}/{c[f'lure:{kind}']}"
                      for kind in LURE_KINDS if c[f"lure:{kind}"])
    return (f"{name}: TP {c['tp']}, FP {c['fp']}, FN {c['fn']}; event pairs {c['event']} "
            f"(overlap {c['event_overlap']}, none {c['event_no-overlap']}), time pairs "
            f"{c['time']}; false alarms by lure kind: {fp or 'none'}; by group: "
            f"{groups or 'none'}; lures fired: {lures or 'no lures'}")


def report(groups: dict[str, list[tuple[dict, Counter, Counter]]]) -> None:
    print(HEAD)
    print("|" + "---|" * (HEAD.count("|") - 1))
    notes = []
    for group, weeks in groups.items():
        pooled, pooled_dates = Counter(), Counter()
        for week, c, d in weeks:
            print(row(f"{group}: {week['id']}", "matcher", c))
            print(row(f"{group}: {week['id']}", "dates only", d))
            pooled += c
            pooled_dates += d
            notes.append(counts_line(f"{group}: {week['id']}", c))
        if len(weeks) > 1:
            print(row(f"{group}: pooled", "matcher", pooled))
            print(row(f"{group}: pooled", "dates only", pooled_dates))
    print()
    for line in notes:
        print(line)


def misses(week: dict, runs: list[dict]) -> list[str]:
    """One line per wrong pair, for reading what went wrong (--verbose)."""
    out = []
    for run in runs:
        m = run["moment"]
        gold, pred = set(m["due"]), due_ids(run["due"])
        why = {r["id"]: r["why"] for r in run["due"]["results"]}
        for entry in sorted(pred - gold):
            lure = (m.get("lures") or {}).get(entry, "")
            out.append(f"  FA {m['id']} {entry} [{lure}] «{m['context'][:90]}» — {why[entry]}")
        for entry in sorted(gold - pred):
            out.append(f"  MISS {m['id']} {entry} «{m['context'][:90]}» cue: "
                       f"{(m.get('cues') or {}).get(entry, '(time)')}")
        wrong = [f for f in run["query"].get("firing", []) if f["grounded"]
                 and f["id"] not in gold]
        for f in wrong:
            out.append(f"  QUERY-GROUNDED {m['id']} {f['id']} — {f['why']}")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weeks", nargs="*", help="week files or folders (tuned group); "
                    f"default: {DATA.relative_to(DATA.parents[2])}/")
    ap.add_argument("--held-out", nargs="*", default=[], metavar="PATH",
                    help="week files or folders never tuned on: printed as their own group")
    ap.add_argument("--group", action="append", default=[], metavar="NAME=PATH[,PATH]",
                    help="a named group of tuning weeks, pooled apart (repeatable; "
                    "replaces the default folder)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting for every run (as VAULTMEM_KEY), repeatable")
    ap.add_argument("-k", type=int, default=10, help="query results per moment")
    ap.add_argument("--keep", type=Path, help="build the vaults here and keep them")
    ap.add_argument("--json-out", type=Path, help="write every moment's documents here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every wrong pair")
    args = ap.parse_args(argv)
    env = {}
    for item in args.set:
        key, _, value = item.partition("=")
        env[f"VAULTMEM_{key.strip().upper()}"] = value.strip()
    named = {}
    for item in args.group:
        name, _, paths = item.partition("=")
        if not name.strip() or not paths.strip():
            raise SystemExit(f"--group {item!r}: give NAME=PATH[,PATH]")
        named[f"tuned {name.strip()}"] = week_files(paths.split(","))
    if args.weeks or not args.group:
        named["tuned"] = week_files(args.weeks or [str(DATA)])
    if args.held_out:
        named["held-out"] = week_files(args.held_out)
        if not named["held-out"]:
            print(f"no held-out weeks in {', '.join(args.held_out)}", file=sys.stderr)
    started = time.perf_counter()
    groups: dict[str, list] = {}
    dump = {}
    with tempfile.TemporaryDirectory(prefix="eval_due-") as tmp:
        root = args.keep or Path(tmp)
        for group, files in named.items():
            for path in files:
                week = load_week(path)
                runs = replay(week, root / group, env, args.k)
                groups.setdefault(group, []).append(
                    (week, score_week(week, runs, "due"), score_week(week, runs, "dates")))
                dump[f"{group}/{week['id']}"] = runs
                if args.verbose:
                    print(f"{group}: {week['id']}", file=sys.stderr)
                    print("\n".join(misses(week, runs)), file=sys.stderr)
    moments = sum(c["moments"] for weeks in groups.values() for _, c, _ in weeks)
    print(f"Due sets on {sum(map(len, groups.values()))} week(s), {moments} moments; "
          f"{time.perf_counter() - started:.0f}s"
          + (f"; settings {', '.join(args.set)}" if args.set else ""))
    print()
    report(groups)
    if args.json_out:
        args.json_out.write_text(json.dumps(dump, ensure_ascii=False, indent=1),
                                 encoding="utf-8")


if __name__ == "__main__":
    main()
