#!/usr/bin/env python3
"""Where the trigger matcher's cosine thresholds sit for another model.

    python scripts/calibrate_matcher.py            # MiniLM against multilingual-e5-small

The matcher's thresholds (`semantic_threshold`, `about_threshold`, `clause_offset`) were
chosen on MiniLM's cosines. Another model spreads its cosines differently (e5's lie
between about 0.7 and 0.9 for any two texts), so the same number means something else.
This takes every prospective blueprint's triggers (clean, overloaded, paraphrased,
unrelated), cut into units as the matcher cuts them, and every entry's views (condition,
"When condition, action", action), and prints for each model: the share of
(trigger, other blueprint's entry) pairs a threshold lets through — the background —
and the share of (trigger, own entry) pairs. A threshold for the other model is the one
that lets through the same share of the background as MiniLM's default does.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from vaultmem import config, trigger
from vaultmem.embed import indexing_embedder, query_side

DATA = Path(__file__).resolve().parent / "eval_data"
TRIGGERS = ("trigger_clean", "trigger_overloaded", "trigger_paraphrased")


def blueprints() -> list[dict]:
    out = []
    for path in [DATA / "blueprints_b.json", DATA / "blueprints_c.json",
                 *sorted((DATA / "blueprints").glob("*.json"))]:
        data = json.loads(path.read_text(encoding="utf-8"))
        out += data if isinstance(data, list) else [data]
    return out


def views(bp: dict) -> dict[str, str]:
    led = bp["ledger"]
    out = {"action": led["action"]}
    if led.get("when"):
        out["condition"] = led["when"]
        out["condition+action"] = f"When {led['when']}, {led['action']}"
    return out


def best_cosines(embedder, bps: list[dict], split: str) -> dict:
    """Per (blueprint, entry, trigger kind): the best cosine of any unit to any view of
    the role's kinds, and whether that best unit is a clause."""
    passage = embedder.embed
    query = query_side(embedder)
    entry_views = [(i, kind, text) for i, bp in enumerate(bps) for kind, text in views(bp).items()]
    vecs = passage([t for _, _, t in entry_views])
    out = {}
    for i, bp in enumerate(bps):
        for key in (*TRIGGERS, "unrelated_query"):
            context = trigger.make_context(bp[key], query, split)
            clause = np.array([u.kind == "clause" for u in context.units])
            sims = context.vecs @ vecs.T
            out[i, key] = (sims, clause)
    return {"pairs": out, "views": entry_views}


def shares(found: dict, bps: list[dict], role_kinds: tuple, kinds: set[str], t: float,
           offset: float) -> tuple[float, float]:
    """(share of own-entry pairs passing, share of other-entry pairs passing)."""
    own, other = [], []
    cols = [c for c, (_, kind, _) in enumerate(found["views"]) if kind in role_kinds]
    for (i, key), (sims, clause) in found["pairs"].items():
        need = t + np.where(clause, offset, 0.0)[:, None]
        passing = sims[:, cols] >= need
        by_entry: dict[int, bool] = {}
        for j, c in enumerate(cols):
            owner = found["views"][c][0]
            if bps[owner]["kind"] not in kinds:
                continue
            by_entry[owner] = by_entry.get(owner, False) or bool(passing[:, j].any())
        for owner, ok in by_entry.items():
            if owner == i and key != "unrelated_query":
                own.append(ok)
            elif owner != i:
                other.append(ok)
    return float(np.mean(own)), float(np.mean(other))


def spread(found: dict) -> float:
    """The standard deviation of every unit-view cosine: how far apart the model puts
    texts (the clause offset is scaled by it)."""
    return float(np.std(np.concatenate([s.ravel() for s, _ in found["pairs"].values()])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="multilingual-e5-small")
    args = ap.parse_args()
    bps = blueprints()
    base = config.DEFAULTS
    models = {"MiniLM": indexing_embedder(base),
              args.model: indexing_embedder(replace(base, model=args.model))}
    found = {name: best_cosines(e, bps, base.context_units) for name, e in models.items()}
    for role, kinds, setting in ((trigger.TRIGGER_VIEWS, {"conditional"}, "semantic_threshold"),
                                 (trigger.ABOUT_VIEWS, {"dated"}, "about_threshold")):
        t0 = getattr(base, setting)
        _, background = shares(found["MiniLM"], bps, role, kinds, t0, base.clause_offset)
        print(f"\n{setting}: MiniLM default {t0} lets through {background:.3f} of the "
              "other entries' pairs")
        print("| model | threshold | clause offset | own entry passes | other entries pass |")
        print("|---|---:|---:|---:|---:|")
        for name in models:
            grid = np.round(np.arange(0.0, 0.95, 0.005), 3)
            offset = base.clause_offset * spread(found[name]) / spread(found["MiniLM"])
            rows = [(t, *shares(found[name], bps, role, kinds, t, offset)) for t in grid]
            match = min(rows, key=lambda r: abs(r[2] - background))
            for t, own, other in rows:
                if name == "MiniLM" and t == t0 or name != "MiniLM" and t == match[0]:
                    print(f"| {name} | {t:.3f} | {offset:.3f} | {own:.3f} | {other:.3f} |")


if __name__ == "__main__":
    main()
