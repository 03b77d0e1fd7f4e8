#!/usr/bin/env python3
"""The prospective evaluation (SPEC 9), run through the real CLI on the real model.

    python scripts/eval_prospective.py              # every blueprint, full report
    python scripts/eval_prospective.py --limit 4 --no-sweeps   # a quick smoke run
    python scripts/eval_prospective.py --set new    # only the blind blueprints_c.json

For each blueprint it builds two small vaults (the positive one, and the negative
one where a resolution note precedes the trigger and the ledger entry is checked
off), runs `vaultmem index`, `vaultmem salience`, `vaultmem query` and
`vaultmem due` in process through `vaultmem.interfaces.cli.main` with `--now` at the
trigger's date, and reports recall@1, recall@5 and MRR of the constraint note
by stratum — hard: its dense-cosine rank (`--mode dense --no-prospective`) is
in the bottom half of the notes (the headline, SPEC 9), with the hybrid-plain
strata beside — for plain, the blend and the floor; the false-boost rate on
resolved negatives; the cost on each blueprint's unrelated query (plain top-1
displaced, constraint intruding into the top 5); the matcher's firing per
trigger variant, on unrelated queries and across a shared ledger; and sweeps of
fire_slot, W_fire, ambient_band and the matcher's settings. The blueprints written blind
after the matcher was built (`blueprints_c.json`, "new") are reported apart
from the ones it was tuned on ("old"), and pooled. Nothing is tuned here: it
prints what it measured.
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

from vaultmem.config import DEFAULTS
from vaultmem.interfaces.cli import main as vaultmem

DATA = Path(__file__).resolve().parent / "eval_data"
NEW_SET = "blueprints_c.json"  # written blind, never looked at while tuning
VARIANTS = ("clean", "overloaded", "paraphrased")
TEXTS = (*VARIANTS, "unrelated")
SWEEP = (0.0, 0.25, 0.5, 1.0, 2.0)  # W_fire
BANDS = (0.0, 0.2, 0.25, 0.3, 0.4)  # ambient_band (0: every ambient note lifted)
FIRE_SLOTS = (1, 2, 3, 5)
# One setting at a time around the defaults (which are among them).
MATCHER_SWEEP = (
    *({"semantic_threshold": t} for t in (0.22, 0.24, 0.26, 0.28, 0.30)),
    {"context_units": "whole"}, {"context_units": "sentences"},
    *({"context_units": "clauses", "clause_offset": t} for t in (0.0, 0.05, 0.1, 0.15)),
    *({"match_margin": t} for t in (0.0, 0.02, 0.05, 1.0)),
    *({"about_threshold": t} for t in (0.16, 0.18, 0.20, 0.22, 0.24)),
    *({"note_ratio": t} for t in (0.0, 0.4, 0.5, 0.6)),
)  # match_margin 1.0: no competition between entries


def load_blueprints() -> list[dict]:
    files = sorted((DATA / "blueprints").glob("*.json")) + sorted(DATA.glob("blueprints_*.json"))
    found = []
    for path in files:
        data = json.loads(path.read_text())
        for bp in data if isinstance(data, list) else [data]:
            found.append({**bp, "set": "new" if path.name == NEW_SET else "old"})
    return sorted(found, key=lambda bp: (bp["set"] == "new", bp["id"]))


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
        if res["index_after"] < constraint_index:
            constraint_index += 1
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
        raise SystemExit(f"vaultmem {' '.join(args)} failed ({code}): {err.getvalue()}")
    return json.loads(out.getvalue())


def env_for(setting: dict) -> dict:
    return {f"VAULTMEM_{k.upper()}": v for k, v in setting.items()}


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


def lane_row(doc: dict) -> dict | None:
    """The blueprint's own commitment in the query's firing lane (its ledger has one)."""
    return doc["firing"][0] if doc.get("firing") else None


def evaluate_blueprint(bp: dict, root: Path) -> dict:
    now = bp["trigger_date"]
    result = {"id": bp["id"], "kind": bp["kind"], "set": bp["set"], "variants": {},
              "negative": {}}
    vault, constraint, n = build_vault(root, bp, negative=False)
    result["candidates"], result["vault"] = n, str(vault)
    cli("index", str(vault), "--now", now)
    cli("salience", "--vault", str(vault), "--now", now)
    texts = {v: bp[f"trigger_{v}"] for v in VARIANTS} | {"unrelated": bp["unrelated_query"]}
    for variant, text in texts.items():
        q = ("query", text, "--vault", str(vault), "--now", now, "-k", "200")
        plain = cli(*q, "--no-prospective")
        cosine = cli(*q, "--no-prospective", env={"VAULTMEM_MODE": "dense"})
        blend, floor = cli(*q), cli(*q, "--floor")
        row = {"plain": rank_of(plain, constraint), "cosine": rank_of(cosine, constraint),
               "blend": rank_of(blend, constraint), "floor": rank_of(floor, constraint),
               "lane": lane_row(blend), "seconds": {"plain": plain["seconds"],
                                                     "blend": blend["seconds"]},
               "top": {"plain": top_path(plain), "blend": top_path(blend),
                       "floor": top_path(floor)}}
        for slot in FIRE_SLOTS:
            doc = cli(*q, env={"VAULTMEM_FIRE_SLOT": slot})
            row[f"slot@{slot}"] = rank_of(doc, constraint)
            row["top"][f"slot@{slot}"] = top_path(doc)
        for w in SWEEP:
            doc = cli(*q, env={"VAULTMEM_FIRE_WEIGHT": w})
            row[f"blend@{w}"] = rank_of(doc, constraint)
            row["top"][f"blend@{w}"] = top_path(doc)
            if w == 0.0:  # the ranking without the boost: how much boost would it take?
                row["need@1"] = needed_weight(doc, constraint, 1)
                row["need@5"] = needed_weight(doc, constraint, 5)
        for band in BANDS:
            doc = cli(*q, env={"VAULTMEM_AMBIENT_BAND": band})
            row[f"band@{band}"] = rank_of(doc, constraint)
            row["top"][f"band@{band}"] = top_path(doc)
        result["variants"][variant] = row
    neg_vault, neg_constraint, _ = build_vault(root, bp, negative=True)
    cli("index", str(neg_vault), "--now", now)
    cli("salience", "--vault", str(neg_vault), "--now", now)
    q = ("query", bp["trigger_clean"], "--vault", str(neg_vault), "--now", now, "-k", "200")
    result["negative"] = {"plain": rank_of(cli(*q, "--no-prospective"), neg_constraint),
                          "blend": rank_of(cli(*q), neg_constraint),
                          "floor": rank_of(cli(*q, "--floor"), neg_constraint)}
    return result


class Matcher:
    """The matcher's sweeps, in process through the library on the stores the CLI built:
    each context embedded once (as `query` and `due` do), then every setting is
    `commitments.firing_now` on the real store with those settings."""

    def __init__(self, vault: str):
        from vaultmem import config
        from vaultmem.embed import FastEmbedder

        self.base = config.load(vault)
        self.embedder = FastEmbedder(self.base)
        self.contexts: dict[str, object] = {}

    def grounded(self, vault: str, now: str, text: str, setting: dict) -> set[str]:
        """Ids of the entries that fire on `text` (grounded) under `setting`."""
        from dataclasses import replace

        from vaultmem import commitments, config, trigger
        from vaultmem.store import Store

        settings = replace(config.load(vault), **setting)
        key = (text, settings.context_units)
        if key not in self.contexts:
            self.contexts[key] = trigger.make_context(text, self.embedder.embed,
                                                      settings.context_units)
        store = Store.open(settings.db)
        try:
            firings = commitments.firing_now(store, settings, datetime.fromisoformat(now),
                                             self.contexts[key], self.embedder.fingerprint)
        finally:
            store.close()
        return {f.entry.id for f in firings if f.grounded}


def matcher_fires(matcher: Matcher, bp: dict, vault: str, setting: dict) -> dict[str, bool]:
    """Per context: does the blueprint's own commitment fire on it (grounded)?"""
    out = {}
    for variant in TEXTS:
        text = bp["unrelated_query"] if variant == "unrelated" else bp[f"trigger_{variant}"]
        out[variant] = bool(matcher.grounded(vault, bp["trigger_date"], text, setting))
    return out


def cross_vault(blueprints: list[dict], root: Path, name: str) -> tuple[Path, dict]:
    """One vault holding every conditional commitment: how often does a trigger fire the
    wrong entries? A stricter false-fire test than one unrelated query per blueprint."""
    cond = [bp for bp in blueprints if bp["kind"] == "conditional"]
    vault = root / f"cross-{name}"
    shutil.rmtree(vault, ignore_errors=True)
    vault.mkdir(parents=True)
    lines = []
    for bp in cond:
        start = date.fromisoformat(bp["start"])
        note = bp["notes"][bp["constraint_index"]]
        rel = write_note(vault, start + timedelta(days=bp["constraint_index"]),
                         f"{bp['id']} {note['title']}", note["body"])
        lines.append(ledger_line(bp, Path(rel).stem, None).replace(
            "- [ ]", f"- [ ] {bp['id']}:"))
    (vault / "Ledger.md").write_text("# Ledger\n\n" + "".join(lines), encoding="utf-8")
    cli("index", str(vault), "--now", "2026-12-31")
    ids = {row["action"].split(":")[0]: row["id"] for row in cli("ledger", "--vault",
                                                                   str(vault))["results"]}
    return vault, ids


def cross_ledger(matcher: Matcher, cond: list[dict], vault: Path, ids: dict,
                 setting: dict) -> dict:
    cell = {"right": 0, "wrong": 0, "pairs": 0, "triggers": 0}
    for bp in cond:
        for variant in VARIANTS:
            fired = matcher.grounded(str(vault), "2026-12-31", bp[f"trigger_{variant}"],
                                     setting)
            cell["right"] += ids[bp["id"]] in fired
            cell["wrong"] += len(fired - {ids[bp["id"]]})
            cell["pairs"] += len(cond) - 1
            cell["triggers"] += 1
    return cell


def sweep_matcher(blueprints: list[dict], results: list[dict], root: Path,
                  settings: tuple[dict, ...]) -> list[dict]:
    """Each setting: the matcher's firing per blueprint and across each shared ledger."""
    vaults = {r["id"]: r["vault"] for r in results}
    sets = sorted({bp["set"] for bp in blueprints})
    groups = {s: [bp for bp in blueprints if bp["set"] == s] for s in sets}
    if len(sets) > 1:
        groups["pooled"] = blueprints
    crosses = {name: cross_vault(group, root, name) for name, group in groups.items()}
    matcher = Matcher(next(iter(vaults.values())))
    out = []
    for setting in settings:
        fires = {bp["id"]: matcher_fires(matcher, bp, vaults[bp["id"]], setting)
                 for bp in blueprints}
        cross = {name: cross_ledger(matcher, [bp for bp in group if bp["kind"] == "conditional"],
                                    *crosses[name], setting)
                 for name, group in groups.items()}
        out.append({"setting": setting, "fires": fires, "cross": cross})
        print(f"matcher sweep {setting}: done", file=sys.stderr)
    return out


# -- reporting ---------------------------------------------------------------------

def metrics(ranks: list[int]) -> tuple[float, float, float]:
    if not ranks:
        return (float("nan"),) * 3
    n = len(ranks)
    return (sum(r == 1 for r in ranks) / n, sum(r <= 5 for r in ranks) / n,
            sum(1 / r for r in ranks) / n)


def strata(results: list[dict], variant: str, by: str = "cosine") -> dict[str, list[dict]]:
    """Hard: the constraint's rank under `by` ("cosine": dense cosine alone, SPEC 9;
    "plain": the default relevance without the prospective term) is in the bottom half
    of its notes."""
    out: dict[str, list[dict]] = {"hard": [], "easy": []}
    for r in results:
        ranks = r["variants"][variant]
        out["hard" if ranks[by] > r["candidates"] / 2 else "easy"].append(
            {**ranks, "id": r["id"], "kind": r["kind"]})
    return out


def fmt(x: float) -> str:
    return "  -  " if x != x else f"{x:.3f}"


def frac(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.3f})" if n else "0/0"


def report_retrieval(results: list[dict], by: str) -> None:
    title = ("strata by dense cosine alone (SPEC 9, the headline)" if by == "cosine"
             else "strata by the hybrid plain ranking")
    print(f"\n#### Recall of the constraint note, {title}\n")
    print("| trigger | stratum | n | mode | R@1 | R@5 | MRR |")
    print("|---|---|---:|---|---:|---:|---:|")
    for variant in VARIANTS:
        for stratum, rows in strata(results, variant, by).items():
            for mode in ("cosine", "plain", "blend", "floor"):
                r1, r5, mrr = metrics([row[mode] for row in rows])
                print(f"| {variant} | {stratum} | {len(rows)} | {mode} | {fmt(r1)} | {fmt(r5)} "
                      f"| {fmt(mrr)} |")


def report_negatives(results: list[dict]) -> None:
    print("\n#### Resolved negatives (clean trigger): constraint lifted into the top 5 "
          "when plain does not place it there\n")
    print("| mode | false boosts |")
    print("|---|---:|")
    for mode in ("blend", "floor"):
        lifted = sum(1 for r in results if r["negative"][mode] <= 5 < r["negative"]["plain"])
        print(f"| {mode} | {frac(lifted, len(results))} |")


def report_unrelated(results: list[dict]) -> None:
    """The plain ranking is not free of the commitment: a note an open entry links is
    found by meaning there too (`rank.meaning_floor`). So beside the intrusions over
    plain, the constraint in the top 5 at all, and there from outside the dense
    cosine's top 5 (a lift by the floor, the firing or salience)."""
    print("\n#### Cost on the unrelated query (trigger's date, the commitment open)\n")
    print("| mode | plain top-1 displaced | constraint intrudes into the top 5 (plain: not) "
          "| constraint in the top 5 | there, dense cosine: not |")
    print("|---|---:|---:|---:|---:|")
    rows = [r["variants"]["unrelated"] for r in results]
    for mode in ("plain", "blend", "floor"):
        displaced = sum(1 for u in rows if u["top"][mode] != u["top"]["plain"])
        intrudes = sum(1 for u in rows if u[mode] <= 5 < u["plain"])
        top5 = sum(1 for u in rows if u[mode] <= 5)
        lifted = sum(1 for u in rows if u[mode] <= 5 < u["cosine"])
        print(f"| {mode} | {frac(displaced, len(rows))} | {frac(intrudes, len(rows))} | "
              f"{frac(top5, len(rows))} | {frac(lifted, len(rows))} |")


def report_lane(results: list[dict]) -> None:
    print("\n#### How the commitment fired on each context (the query's firing lane)\n")
    print("| kind | context | n | grounded | ambient | silent |")
    print("|---|---|---:|---:|---:|---:|")
    for kind in ("conditional", "dated"):
        group = [r for r in results if r["kind"] == kind]
        for variant in TEXTS:
            lanes = [r["variants"][variant]["lane"] for r in group]
            grounded = sum(1 for lane in lanes if lane and lane["grounded"])
            ambient = sum(1 for lane in lanes if lane and not lane["grounded"])
            print(f"| {kind} | {variant} | {len(group)} | {grounded} | {ambient} | "
                  f"{len(group) - grounded - ambient} |")


def report_slots(results: list[dict]) -> None:
    print("\n#### fire_slot sweep (dense-cosine strata, trigger variants pooled; "
          "unrelated-query cost)\n")
    print("| fire_slot | hard R@1 | hard R@5 | hard MRR | easy R@1 | easy R@5 | easy MRR | "
          "unrelated top-1 displaced | unrelated intrusions |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for slot in FIRE_SLOTS:
        print(f"| {slot} | {sweep_cells(results, f'slot@{slot}')} |")
    print("\n#### W_fire sweep (the same, at the default fire_slot)\n")
    print("| W_fire | hard R@1 | hard R@5 | hard MRR | easy R@1 | easy R@5 | easy MRR | "
          "unrelated top-1 displaced | unrelated intrusions |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in SWEEP:
        print(f"| {w} | {sweep_cells(results, f'blend@{w}')} |")
    sets = sorted({r["set"] for r in results})
    print("\n#### ambient_band sweep (the same, at the default W_fire and fire_slot; per set "
          "and pooled)\n")
    print("| set | ambient_band | hard R@1 | hard R@5 | hard MRR | easy R@1 | easy R@5 | "
          "easy MRR | unrelated top-1 displaced | unrelated intrusions |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in [*sets, *(["pooled"] if len(sets) > 1 else [])]:
        group = [r for r in results if name == "pooled" or r["set"] == name]
        for band in BANDS:
            print(f"| {name} | {band} | {sweep_cells(group, f'band@{band}')} |")


def sweep_cells(results: list[dict], mode: str) -> str:
    cells = []
    for stratum in ("hard", "easy"):
        ranks = [row[mode] for v in VARIANTS for row in strata(results, v)[stratum]]
        cells += [fmt(x) for x in metrics(ranks)]
    rows = [r["variants"]["unrelated"] for r in results]
    displaced = sum(1 for u in rows if u["top"][mode] != u["top"]["plain"])
    intrudes = sum(1 for u in rows if u[mode] <= 5 < u["plain"])
    return " | ".join([*cells, frac(displaced, len(rows)), frac(intrudes, len(rows))])


def report_ceiling(results: list[dict]) -> None:
    """The paper's "multiplicative ceiling": on each hard positive (dense strata), the
    W_fire that would lift the constraint to rank 1 and into the top 5 of the ranking
    made without the boost (W_fire = 0)."""
    print("\n#### The multiplicative ceiling (hard positives, dense-cosine strata)\n")
    print("| trigger | blueprint | kind | fired | cosine rank | plain rank | blend rank "
          "| W_fire for top 5 | W_fire for rank 1 |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    for variant in VARIANTS:
        for row in strata(results, variant)["hard"]:
            lane = row["lane"]
            fired = "grounded" if lane and lane["grounded"] else "ambient" if lane else "no"
            print(f"| {variant} | {row['id']} | {row['kind']} | {fired} | {row['cosine']} "
                  f"| {row['plain']} | {row['blend']} | {fmt_need(row['need@5'])} "
                  f"| {fmt_need(row['need@1'])} |")


def fmt_need(x: float | None) -> str:
    return "out of reach" if x is None else f"{x:.2f}"


def report_matcher(sweep: list[dict], results: list[dict]) -> None:
    sets = sorted({r["set"] for r in results})
    names = sets + (["pooled"] if len(sets) > 1 else [])
    for name in names:
        group = [r for r in results if name == "pooled" or r["set"] == name]
        cond = [r["id"] for r in group if r["kind"] == "conditional"]
        dated = [r["id"] for r in group if r["kind"] == "dated"]
        print(f"\n#### Matcher sweep, {name} blueprints ({len(cond)} conditional: fires on "
              f"the trigger; {len(dated)} dated: the query is about it)\n")
        print("| setting | clean | overloaded | paraphrased | unrelated | cross-ledger wrong "
              "fires | cross-ledger right | dated clean | dated overloaded | dated paraphrased "
              "| dated unrelated |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for cell in sweep:
            setting = ", ".join(f"{k}={v}" for k, v in cell["setting"].items()) or "defaults"
            rates = [rate(cell, cond, v) for v in TEXTS]
            c = cell["cross"][name]
            drates = [rate(cell, dated, v) for v in TEXTS]
            print(f"| {setting} | {' | '.join(rates)} | {frac(c['wrong'], c['pairs'])} | "
                  f"{c['right']}/{c['triggers']} | {' | '.join(drates)} |")


def rate(cell: dict, ids: list[str], variant: str) -> str:
    if not ids:
        return "-"
    return fmt(sum(cell["fires"][i][variant] for i in ids) / len(ids))


def report_latency(results: list[dict]) -> None:
    """What matching costs a query: the blend (context split into units, embedded in one
    call with the query, every open entry matched) against plain (the query alone)."""
    rows = [r["variants"][v]["seconds"] for r in results for v in TEXTS]
    plain = statistics.median(row["plain"] for row in rows) * 1000
    blend = statistics.median(row["blend"] for row in rows) * 1000
    print(f"\nIn-process query time, median over {len(rows)} queries: plain {plain:.0f} ms, "
          f"blend {blend:.0f} ms (+{blend - plain:.0f} ms: the context's units embedded "
          f"with the query, and the matcher).")


def report(results: list[dict], name: str) -> None:
    kinds = {k: sum(r["kind"] == k for r in results) for k in ("dated", "conditional")}
    print(f"\n### {name}: {len(results)} blueprints ({kinds['dated']} dated, "
          f"{kinds['conditional']} conditional)")
    report_retrieval(results, "cosine")
    report_retrieval(results, "plain")
    report_negatives(results)
    report_unrelated(results)
    report_lane(results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="only the first N blueprints")
    ap.add_argument("--only", help="comma-separated blueprint ids")
    ap.add_argument("--set", choices=("old", "new", "all"), default="all")
    ap.add_argument("--no-sweeps", action="store_true", help="skip the matcher sweep")
    ap.add_argument("--json-out", type=Path, help="write per-task ranks here")
    ap.add_argument("--keep", type=Path, help="build the vaults here and keep them")
    ap.add_argument("--defaults-only", action="store_true",
                    help="fire_slot, W_fire and ambient_band at their defaults only (and "
                         "W_fire 0, for the multiplier needed; ambient_band 0): every table "
                         "but the sweeps, in a third of the time")
    ap.add_argument("--report-from", type=Path, nargs="+", metavar="JSON",
                    help="print the tables (the matcher's sweep aside) from the --json-out "
                         "files of earlier runs, e.g. of blueprints run in parts with --only")
    args = ap.parse_args()
    if args.report_from:
        report_saved(args.report_from)
        return
    blueprints = load_blueprints()
    if args.defaults_only:
        global FIRE_SLOTS, SWEEP, BANDS
        FIRE_SLOTS = (DEFAULTS.fire_slot,)
        SWEEP = (0.0, DEFAULTS.fire_weight)
        BANDS = (0.0, DEFAULTS.ambient_band)
    if args.set != "all":
        blueprints = [bp for bp in blueprints if bp["set"] == args.set]
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
    if args.json_out:  # the ranks are kept even if a sweep fails
        args.json_out.write_text(json.dumps({"results": results}, indent=1))
    defaults = ({},) if args.no_sweeps else ({}, *MATCHER_SWEEP)
    sweep = sweep_matcher(blueprints, results, root, defaults)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    d = DEFAULTS
    print(f"## Prospective evaluation: {len(results)} blueprints, {len(results) * 3} positive "
          f"tasks, {len(results)} resolved negatives; {time.perf_counter() - started:.0f}s\n\n"
          f"Defaults: mode {d.mode}, W {d.weight}, W_fire {d.fire_weight}, fire_slot "
          f"{d.fire_slot}, ambient_band {d.ambient_band}, semantic_threshold "
          f"{d.semantic_threshold}, about_threshold "
          f"{d.about_threshold}, context_units {d.context_units}, clause_offset "
          f"{d.clause_offset}, match_margin "
          f"{d.match_margin}, keyword_threshold {d.keyword_threshold}.")
    report_all(results, sweep)
    if args.json_out:
        args.json_out.write_text(json.dumps({"results": results, "sweep": sweep}, indent=1))


def report_all(results: list[dict], sweep: dict | None) -> None:
    """Every table: per set, pooled, the sweeps; the matcher's sweep only from a live run
    (`sweep` None: runs read back from files, whose sweeps were per run)."""
    sets = sorted({r["set"] for r in results})
    for name in sets:
        report([r for r in results if r["set"] == name], f"{name} blueprints")
    if len(sets) > 1:
        report(results, "pooled")
    print("\n### Sweeps (all blueprints evaluated)")
    report_slots(results)
    report_ceiling(results)
    if sweep is not None:
        report_matcher(sweep, results)
    report_latency(results)


def report_saved(paths: list[Path]) -> None:
    """The tables of earlier runs' ranks, pooled, as `main` prints them (the matcher's
    sweep is per run: left out); the sweeps at the values the runs measured."""
    global FIRE_SLOTS, SWEEP, BANDS
    results = [r for path in paths for r in json.loads(path.read_text())["results"]]
    results.sort(key=lambda r: (r["set"] == "new", r["id"]))
    keys = results[0]["variants"]["clean"]
    FIRE_SLOTS = tuple(int(k[5:]) for k in keys if k.startswith("slot@"))
    SWEEP = tuple(float(k[6:]) for k in keys if k.startswith("blend@"))
    BANDS = tuple(float(k[5:]) for k in keys if k.startswith("band@"))
    print(f"## Prospective evaluation: {len(results)} blueprints (from "
          f"{', '.join(p.name for p in paths)})")
    report_all(results, None)


if __name__ == "__main__":
    main()
