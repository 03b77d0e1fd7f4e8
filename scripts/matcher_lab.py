#!/usr/bin/env python3
"""Matcher lab: every embedding cached once, semantic-matcher variants scored in numpy.

    python scripts/matcher_lab.py                 # old blueprints (the tuning set)

An exploration tool, not the evaluation (that is eval_prospective.py, through the
real CLI). It embeds, with the production embedder and once, every trigger and its
sentences and clauses, every view of every conditional commitment and every
note of every blueprint, caches them in `$TMPDIR/vaultmem_matcher_lab.npz`, and
then, for each variant, finds the lowest threshold at which at most 5% of the
cross-ledger pairs (a trigger against another blueprint's condition) and at most
one unrelated query in 22 fire, and prints the firing rate on each trigger
variant there. The semantic half only: no keyword half, no competition.

Variants: which views of an entry (condition, condition with action, keywords,
action, the linked note's title and text); which units of the context (the
whole text, + sentences, + clauses); and per-entry calibration against the
vault's own notes (z-score of the view's similarity to them; CSLS, which
subtracts the mean similarity of each side to its k nearest background notes).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from eval_prospective import load_blueprints  # noqa: E402

from vaultmem import config  # noqa: E402
from vaultmem.embed import FastEmbedder, embed_text  # noqa: E402
from vaultmem.trigger import context_units  # noqa: E402

CACHE = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "vaultmem_matcher_lab.npz"
VARIANTS = ("clean", "overloaded", "paraphrased", "unrelated")
VIEW_SETS = (("condition",), ("action",), ("condition+action",), ("keywords",), ("title",),
             ("note",), ("condition", "condition+action"),
             ("condition", "condition+action", "keywords"))
UNITS = {"whole": ("query",), "sentences": ("query", "sentence"),
         "clauses": ("query", "sentence", "clause")}


class Cache:
    def __init__(self, path: Path):
        self.path, self.vecs, self.embedder = path, {}, None
        if path.exists():
            data = np.load(path, allow_pickle=True)
            self.vecs = {str(t): v for t, v in zip(data["texts"], data["vecs"], strict=True)}

    def __call__(self, texts: list[str]) -> np.ndarray:
        todo = sorted({t for t in texts if t not in self.vecs})
        if todo:
            self.embedder = self.embedder or FastEmbedder(config.load(ROOT))
            self.vecs.update(zip(todo, self.embedder.embed(todo), strict=True))
            keys = list(self.vecs)
            np.savez(self.path, texts=np.array(keys, dtype=object),
                     vecs=np.array([self.vecs[k] for k in keys]))
        return np.array([self.vecs[t] for t in texts])


def views(bp: dict) -> dict[str, str]:
    led, note = bp["ledger"], bp["notes"][bp["constraint_index"]]
    return {"condition": led["when"], "condition+action": f"When {led['when']}, {led['action']}",
            "keywords": ", ".join(led.get("keywords", [])) or led["when"],
            "action": led["action"], "title": note["title"],
            "note": embed_text(note["title"], "", note["body"])}


def contexts(bp: dict) -> dict[str, str]:
    return {v: bp[f"trigger_{v}"] for v in VARIANTS[:3]} | {"unrelated": bp["unrelated_query"]}


def score(embed, text, view_vecs, units, method, bg_q, bg_v, k=5) -> float:
    parts = [u.text for u in context_units(text) if u.kind in UNITS[units]]
    U = embed(parts)
    sims = U @ view_vecs.T
    if method == "raw":
        return float(sims.max())
    if method == "z-score":
        bg = view_vecs @ bg_v.T
        return float(((sims - bg.mean(1)) / bg.std(1)).max())
    ru = np.sort(U @ bg_q.T, axis=1)[:, -k:].mean(1)  # CSLS (Lample et al. 2018)
    rv = np.sort(view_vecs @ bg_v.T, axis=1)[:, -k:].mean(1)
    return float((sims - (ru[:, None] + rv[None, :]) / 2).max())


def main() -> None:
    cond = [bp for bp in load_blueprints() if bp["set"] == "old" and bp["kind"] == "conditional"]
    embed = Cache(CACHE)
    bg = {bp["id"]: embed([embed_text(n["title"], "", n["body"]) for n in bp["notes"]])
          for bp in cond}
    print(f"Semantic half alone, {len(cond)} conditional blueprints: firing rates at the "
          "lowest threshold with <= 5% cross-ledger wrong fires and <= 1 unrelated fire\n")
    print("| method | views | units | threshold | clean | overloaded | paraphrased | unrelated |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for method in ("raw", "z-score", "csls"):
        for view_set in VIEW_SETS:
            for units in UNITS:
                vv = {bp["id"]: embed([views(bp)[k] for k in view_set]) for bp in cond}
                own = {v: np.array([score(embed, contexts(bp)[v], vv[bp["id"]], units, method,
                                          bg[bp["id"]], bg[bp["id"]]) for bp in cond])
                       for v in VARIANTS}
                cross = np.array([score(embed, contexts(bp)[v], vv[o["id"]], units, method,
                                        bg[bp["id"]], bg[o["id"]])
                                  for bp in cond for o in cond if o is not bp
                                  for v in VARIANTS[:3]])
                t = max(np.quantile(cross, 0.95), np.sort(own["unrelated"])[-2]) + 1e-9
                rates = " | ".join(f"{(own[v] >= t).mean():.2f}" for v in VARIANTS)
                print(f"| {method} | {'+'.join(view_set)} | {units} | {t:.3f} | {rates} |")


if __name__ == "__main__":
    main()
