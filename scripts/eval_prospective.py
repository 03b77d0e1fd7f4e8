#!/usr/bin/env python3
"""The prospective evaluation (SPEC 9), run through the real CLI on the real model.

    python scripts/eval_prospective.py              # every blueprint, full report
    python scripts/eval_prospective.py --limit 4    # a quick smoke run
    VAULTMEM_SEMANTIC_THRESHOLD=0.22 python scripts/eval_prospective.py --sweep 1,3,13
                                                    # other defaults, other weights

For each blind-authored blueprint it builds two small vaults (the positive one,
and the negative one where a resolution note precedes the trigger and the
ledger entry is checked off), runs `vaultmem index`, `vaultmem salience`,
`vaultmem query` and `vaultmem due` in process through `vaultmem.cli.main`
with `--now` at the trigger's date, and reports recall@1, recall@5 and MRR of
the constraint note by stratum (hard: its plain-cosine rank is in the bottom
half of the candidate notes) for plain cosine, the blend and the floor; the
false-boost rate on resolved negatives; the trigger matcher's firing rate on
clean, overloaded and paraphrased triggers and on unrelated queries; and a
sweep of W_fire. Nothing is tuned here: it prints what it measured.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

from vaultmem.cli import main as vaultmem

DATA = Path(__file__).resolve().parent / "eval_data"
VARIANTS = ("clean", "overloaded", "paraphrased")
SWEEP = (0.0, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0)
THRESHOLDS = (0.20, 0.22, 0.24, 0.26, 0.28, 0.30)


def load_blueprints() -> list[dict]:
    found = [json.loads(p.read_text()) for p in sorted((DATA / "blueprints").glob("*.json"))]
    for extra in sorted(DATA.glob("blueprints_*.json")):
        found.extend(json.loads(extra.read_text()))
    return sorted(found, key=lambda bp: bp["id"])


def slug(title: str) -> str:
    return re.sub(r"[^\w\- ]+", "", title).strip()[:60] or "note"


def write_note(vault: Path, day: date, title: str, body: str) -> str:
    rel = f"notes/{day.isoformat()} {slug(title)}.md"
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntitle: {json.dumps(title)}\ndate: {day.isoformat()}\n---\n\n"
                    f"{body}\n", encoding="utf-8")
    stamp = datetime.combine(day, datetime.min.time()).replace(hour=9).timestamp()
    os.utime(path, (stamp, stamp))
    return rel


def ledger_line(bp: dict, link: str, done_on: date | None) -> str:
    led = bp["ledger"]
    mark = "x" if done_on else " "
    if bp["kind"] == "dated":
        fields = f"📅 {led['due']}"
    else:
        fields = f"[when:: {led['when']}]"
        if led.get("keywords"):
            fields += f" [keywords:: {', '.join(led['keywords'])}]"
    done = f" ✅ {done_on.isoformat()}" if done_on else ""
    return f"- [{mark}] {led['action']} {fields} [[{link}]]{done}\n"


def build_vault(root: Path, bp: dict, negative: bool) -> tuple[Path, str, int]:
    """The blueprint's notes as a vault; returns (vault, constraint path, candidate count)."""
    vault = root / f"{bp['id']}-{'neg' if negative else 'pos'}"
    shutil.rmtree(vault, ignore_errors=True)
    start = date.fromisoformat(bp["start"])
    notes = [(n["title"], n["body"]) for n in bp["notes"]]
    constraint_index = bp["constraint_index"]
    resolution_day = None
    if negative:
        res = bp["resolution"]
        notes.insert(res["index_after"] + 1, (res["title"], res["body"]))
    paths = [write_note(vault, start + timedelta(days=i), t, b) for i, (t, b) in enumerate(notes)]
    if negative:
        resolution_day = start + timedelta(days=bp["resolution"]["index_after"] + 1)
    constraint = paths[constraint_index]
    link = Path(constraint).stem
    (vault / "Ledger.md").write_text("# Ledger\n\n" + ledger_line(bp, link, resolution_day),
                                     encoding="utf-8")
    return vault, constraint, len(paths)


def cli(*args: str, env: dict | None = None) -> dict:
    """Run `vaultmem ARGS --json` in process; return its JSON document."""
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
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
        raise SystemExit(f"vaultmem {' '.join(args)} failed ({code}): {err.getvalue()}")
    return json.loads(out.getvalue())


def top_path(doc: dict) -> str | None:
    return doc["results"][0]["path"] if doc["results"] else None


def needed_weight(doc: dict, path: str, place: int) -> float | None:
    """The W_fire that would lift `path` to `place` in a ranking made without the boost
    (the paper's "multiplier needed"): the `place`-th best other score over its own,
    minus one. 0 if it is already there; None if no multiplier can (a score <= 0)."""
    mine = next((row["score"] for row in doc["results"] if row["path"] == path), None)
    others = sorted((row["score"] for row in doc["results"] if row["path"] != path),
                    reverse=True)
    if mine is None:
        return None
    if len(others) < place or others[place - 1] <= mine:
        return 0.0
    return others[place - 1] / mine - 1.0 if mine > 0 else None


def rank_of(doc: dict, path: str) -> int | None:
    for row in doc["results"]:
        if row["path"] == path:
            return row["rank"]
    return None


def evaluate_blueprint(bp: dict, root: Path) -> dict:
    now = bp["trigger_date"]
    result = {"id": bp["id"], "kind": bp["kind"], "variants": {}, "negative": {}, "fires": {}}
    vault, constraint, n = build_vault(root, bp, negative=False)
    result["candidates"] = n
    cli("index", str(vault), "--now", now)
    cli("salience", "--vault", str(vault), "--now", now)
    texts = {v: bp[f"trigger_{v}"] for v in VARIANTS} | {"unrelated": bp["unrelated_query"]}
    for variant, text in texts.items():
        q = ("query", text, "--vault", str(vault), "--now", now, "-k", "200")
        plain = cli(*q, "--no-prospective")
        cosine = cli(*q, "--no-prospective", env={"VAULTMEM_MODE": "dense"})
        ranks = {"plain": rank_of(plain, constraint), "cosine": rank_of(cosine, constraint),
                 "floor": rank_of(cli(*q, "--floor"), constraint), "top": {}}
        ranks["top"]["plain"] = top_path(plain)
        for w in SWEEP:
            doc = cli(*q, env={"VAULTMEM_FIRE_WEIGHT": str(w)})
            ranks[f"blend@{w}"] = rank_of(doc, constraint)
            ranks["top"][f"blend@{w}"] = top_path(doc)
            if w == 0.0:  # the ranking without the boost: how much boost would it take?
                ranks["need@1"] = needed_weight(doc, constraint, 1)
                ranks["need@5"] = needed_weight(doc, constraint, 5)
        blend = cli(*q)
        ranks["blend"] = rank_of(blend, constraint)
        ranks["fired"] = any(row["firing"] for row in blend["results"]
                             if row["path"] == constraint)
        result["variants"][variant] = ranks
        due = cli("due", "--vault", str(vault), "--now", now, "--context", text, "--all")
        result["fires"][variant] = [{"kind": d["kind"], "why": d["why"]} for d in due["due"]]
        if bp["kind"] == "conditional":
            result.setdefault("threshold_fires", {})[variant] = {
                str(t): any(d["kind"] == "trigger" for d in cli(
                    "due", "--vault", str(vault), "--now", now, "--context", text, "--all",
                    env={"VAULTMEM_SEMANTIC_THRESHOLD": str(t)})["due"])
                for t in THRESHOLDS}
    vault, constraint, _ = build_vault(root, bp, negative=True)
    cli("index", str(vault), "--now", now)
    cli("salience", "--vault", str(vault), "--now", now)
    q = ("query", bp["trigger_clean"], "--vault", str(vault), "--now", now, "-k", "200")
    result["negative"] = {"plain": rank_of(cli(*q, "--no-prospective"), constraint),
                          "floor": rank_of(cli(*q, "--floor"), constraint)}
    for w in SWEEP:
        result["negative"][f"blend@{w}"] = rank_of(
            cli(*q, env={"VAULTMEM_FIRE_WEIGHT": str(w)}), constraint)
    result["negative"]["blend"] = rank_of(cli(*q), constraint)
    return result


def cross_ledger(blueprints: list[dict], root: Path) -> dict:
    """One vault holding every conditional commitment: how often does a trigger fire the
    wrong entries? A stricter false-fire test than one unrelated query per blueprint."""
    cond = [bp for bp in blueprints if bp["kind"] == "conditional"]
    out = {str(t): {"right": 0, "wrong": 0, "pairs": 0} for t in THRESHOLDS}
    if not cond:  # e.g. --only with dated blueprints alone
        return out
    vault = root / "cross-ledger"
    shutil.rmtree(vault, ignore_errors=True)
    lines = []
    for bp in cond:
        start = date.fromisoformat(bp["start"])
        note = bp["notes"][bp["constraint_index"]]
        rel = write_note(vault, start + timedelta(days=bp["constraint_index"]),
                         f"{bp['id']} {note['title']}", note["body"])
        lines.append(ledger_line(bp, Path(rel).stem, None).replace("- [ ]", f"- [ ] {bp['id']}:"))
    (vault / "Ledger.md").write_text("# Ledger\n\n" + "".join(lines), encoding="utf-8")
    cli("index", str(vault), "--now", "2026-12-31")
    ids = {row["action"].split(":")[0]: row["id"] for row in cli("ledger", "--vault",
                                                                   str(vault))["entries"]}
    for bp in cond:
        for variant in VARIANTS:
            for t in THRESHOLDS:
                fired = {d["id"] for d in cli(
                    "due", "--vault", str(vault), "--now", "2026-12-31", "--context",
                    bp[f"trigger_{variant}"], "--all",
                    env={"VAULTMEM_SEMANTIC_THRESHOLD": str(t)})["due"]}
                cell = out[str(t)]
                cell["right"] += ids[bp["id"]] in fired
                cell["wrong"] += len(fired - {ids[bp["id"]]})
                cell["pairs"] += len(cond) - 1
    return out


# -- reporting ---------------------------------------------------------------------

def metrics(ranks: list[int]) -> tuple[float, float, float]:
    if not ranks:
        return (float("nan"),) * 3
    n = len(ranks)
    return (sum(r == 1 for r in ranks) / n, sum(r <= 5 for r in ranks) / n,
            sum(1 / r for r in ranks) / n)


def strata(results: list[dict], variant: str, by: str = "plain") -> dict[str, list[dict]]:
    """Hard: the constraint's rank under `by` ("plain": the default relevance without the
    prospective term; "cosine": dense cosine alone) is in the bottom half of its notes."""
    out: dict[str, list[dict]] = {"hard": [], "easy": []}
    for r in results:
        ranks = r["variants"][variant]
        out["hard" if ranks[by] > r["candidates"] / 2 else "easy"].append(
            {**ranks, "id": r["id"], "kind": r["kind"]})
    return out


def fmt(x: float) -> str:
    return "  -  " if x != x else f"{x:.3f}"


def report_retrieval(results: list[dict], by: str = "plain") -> None:
    if by == "plain":
        print("\n### Recall of the constraint note (positives)\n")
        modes = ("plain", "blend", "floor")
    else:
        print("\n### The same, stratified by dense cosine alone (SPEC 9's plain cosine)\n")
        modes = ("cosine", "plain", "blend", "floor")
    print("| trigger | stratum | n | mode | R@1 | R@5 | MRR |")
    print("|---|---|---:|---|---:|---:|---:|")
    for variant in VARIANTS:
        for stratum, rows in strata(results, variant, by).items():
            for mode in modes:
                r1, r5, mrr = metrics([row[mode] for row in rows])
                print(f"| {variant} | {stratum} | {len(rows)} | {mode} | {fmt(r1)} | {fmt(r5)} "
                      f"| {fmt(mrr)} |")


def report_ceiling(results: list[dict]) -> None:
    """The paper's "multiplicative ceiling": on each hard positive, the W_fire that would
    lift the constraint to rank 1 and into the top 5 of the ranking made without the boost
    (W_fire = 0). A boost can only help where the entry fired."""
    print("\n### The multiplicative ceiling (hard positives)\n")
    print("| trigger | blueprint | kind | fired | plain rank | blend rank | W_fire for top 5 "
          "| W_fire for rank 1 |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    need1, need5 = [], []
    for variant in VARIANTS:
        for row in strata(results, variant)["hard"]:
            if row["fired"]:
                need1.append(row["need@1"])
                need5.append(row["need@5"])
            print(f"| {variant} | {row['id']} | {row['kind']} | {'yes' if row['fired'] else 'no'} "
                  f"| {row['plain']} | {row['blend']} | {fmt_need(row['need@5'])} "
                  f"| {fmt_need(row['need@1'])} |")
    print(f"\n| W_fire needed, over the {len(need1)} fired hard positives | median | max |")
    print("|---|---:|---:|")
    for label, values in (("into the top 5", need5), ("to rank 1", need1)):
        finite = sorted(v for v in values if v is not None)
        if finite:
            unreachable = len(values) - len(finite)
            print(f"| {label}{f' ({unreachable} out of reach)' if unreachable else ''} "
                  f"| {statistics.median(finite):.2f} | {max(finite):.2f} |")


def fmt_need(x: float | None) -> str:
    return "out of reach" if x is None else f"{x:.2f}"


def report_sweep(results: list[dict]) -> None:
    print("\n### W_fire sweep (all three trigger variants pooled)\n")
    print("| W_fire | hard R@1 | hard R@5 | hard MRR | easy R@1 | easy R@5 | easy MRR | "
          "false boosts |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in SWEEP:
        cells = []
        for stratum in ("hard", "easy"):
            ranks = [row[f"blend@{w}"] for v in VARIANTS for row in strata(results, v)[stratum]]
            cells += [fmt(x) for x in metrics(ranks)]
        fb, n = false_boosts(results, f"blend@{w}")
        print(f"| {w} | {' | '.join(cells)} | {fb}/{n} |")


def false_boosts(results: list[dict], mode: str) -> tuple[int, int]:
    """Resolved constraints lifted into the top 5 by `mode` when plain cosine does not."""
    lifted = sum(1 for r in results
                 if r["negative"][mode] <= 5 < r["negative"]["plain"])
    return lifted, len(results)


def report_negatives(results: list[dict]) -> None:
    print("\n### Resolved negatives (clean trigger)\n")
    print("| mode | false boosts | rate |")
    print("|---|---:|---:|")
    for mode in ("blend", "floor"):
        fb, n = false_boosts(results, mode)
        print(f"| {mode} | {fb}/{n} | {fb / n:.3f} |")


def report_matcher(results: list[dict]) -> None:
    cond = [r for r in results if r["kind"] == "conditional"]
    print(f"\n### Trigger matcher on conditional commitments (n={len(cond)})\n")
    print("| context | fired | rate | by keywords | by meaning |")
    print("|---|---:|---:|---:|---:|")
    for variant in (*VARIANTS, "unrelated"):
        fired = [r for r in cond if any(f["kind"] == "trigger" for f in r["fires"][variant])]
        by_kw = sum(1 for r in fired if "meaning" not in r["fires"][variant][0]["why"])
        rate = len(fired) / len(cond) if cond else float("nan")
        print(f"| {variant} | {len(fired)}/{len(cond)} | {fmt(rate)} | {by_kw} | "
              f"{len(fired) - by_kw} |")


def report_thresholds(results: list[dict], cross: dict) -> None:
    cond = [r for r in results if r["kind"] == "conditional"]
    print("\n### Matcher threshold sweep (semantic_threshold; keyword half unchanged)\n")
    print("| threshold | clean | overloaded | paraphrased | unrelated | "
          "cross-ledger wrong fires | cross-ledger right fires |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for t in THRESHOLDS:
        rates = [sum(r["threshold_fires"][v][str(t)] for r in cond) / len(cond)
                 if cond else float("nan") for v in (*VARIANTS, "unrelated")]
        c = cross[str(t)]
        print(f"| {t} | {' | '.join(fmt(x) for x in rates)} | {c['wrong']}/{c['pairs']} "
              f"({c['wrong'] / max(c['pairs'], 1):.3f}) | {c['right']}/{len(cond) * 3} |")


def report_intrusions(results: list[dict]) -> None:
    """The cost of the boost: the constraint lifted into the top 5 of an unrelated query."""
    print("\n### Cost on the unrelated query (what the boost does where it is not wanted)\n")
    print("| W_fire | lifted (blend top 5, plain not) | plain top-1 displaced |")
    print("|---:|---:|---:|")
    for w in SWEEP:
        unrelated = [r["variants"]["unrelated"] for r in results]
        lifted = sum(1 for u in unrelated if u[f"blend@{w}"] <= 5 < u["plain"])
        displaced = sum(1 for u in unrelated if u["top"][f"blend@{w}"] != u["top"]["plain"])
        print(f"| {w} | {lifted}/{len(results)} | {displaced}/{len(results)} |")


def main() -> None:
    global SWEEP
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="only the first N blueprints")
    ap.add_argument("--only", help="comma-separated blueprint ids")
    ap.add_argument("--json-out", type=Path, help="write per-task ranks here")
    ap.add_argument("--keep", type=Path, help="build the vaults here and keep them")
    ap.add_argument("--sweep", help="comma-separated W_fire values to sweep (0 is always "
                    f"included); default {','.join(map(str, SWEEP))}")
    args = ap.parse_args()
    if args.sweep:
        SWEEP = tuple(sorted({0.0, *(float(w) for w in args.sweep.split(","))}))
    blueprints = load_blueprints()
    if args.only:
        wanted = set(args.only.split(","))
        blueprints = [bp for bp in blueprints if bp["id"] in wanted]
    blueprints = blueprints[: args.limit] if args.limit else blueprints
    root = args.keep or Path(tempfile.mkdtemp(prefix="vaultmem-eval-"))
    os.environ.setdefault("VAULTMEM_QUERY_MENTIONS", "0")  # queries here are measurements
    started = time.perf_counter()
    results = []
    for bp in blueprints:
        results.append(evaluate_blueprint(bp, root))
        print(f"{bp['id']}: done", file=sys.stderr)
    cross = cross_ledger(blueprints, root)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    kinds = {k: sum(r["kind"] == k for r in results) for k in ("dated", "conditional")}
    print(f"## Prospective evaluation: {len(results)} blueprints ({kinds['dated']} dated, "
          f"{kinds['conditional']} conditional), {len(results) * 3} positive tasks, "
          f"{len(results)} resolved negatives; {time.perf_counter() - started:.0f}s")
    report_retrieval(results)
    report_retrieval(results, by="cosine")
    report_ceiling(results)
    report_negatives(results)
    report_matcher(results)
    report_thresholds(results, cross)
    report_sweep(results)
    report_intrusions(results)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
