#!/usr/bin/env python3
"""How far can meaning alone carry the cues that share no word with their condition?

    python scripts/firing_ceiling.py [WEEKS…]          # default: scripts/eval_data/weeks/

A bound, not a matcher. On the weeks `eval_due.py` replays, every (moment, open entry with
a trigger) pair is scored by MiniLM's cosine between the moment's context and (1) the
condition, (2) the best of the condition and each note the entry links (title + its first
600 characters), and (3) score (2) minus the best other open entry's score (the rival
margin). Then, generously, every cue that shares a content word with its condition is
taken as found with no false alarm, and the whole false-alarm budget (0.10 per moment, the
due-set target) is spent on one cosine threshold for the rest. The printed event recall is
the most any matcher built on that score and a threshold could reach. The last row adds,
for free, every such cue whose context shares a word with a note the entry links: what
reading the linked notes' words could add at best.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import eval_due as ed  # noqa: E402

from vaultmem import embed  # noqa: E402
from vaultmem.config import Settings  # noqa: E402

LINK = re.compile(r"\[\[([^\]|#]+)")
BUDGET = 0.10  # false alarms per moment


def pairs(week: dict) -> list[dict]:
    notes = {Path(n["path"]).stem.lower(): n["text"] for n in week["notes"]}
    lines = [ed.ledger_lines(v["text"]) for v in week["ledger"]]
    out = []
    for m in week["moments"]:
        version = lines[ed.version_at(week, m["at"])]
        cues, due = set(m.get("cues", {})), set(m["due"])
        for entry, line in version.items():
            condition = ed.condition_of(line)
            if not condition or not line.startswith("- [ ]"):
                continue
            linked = [notes[n.strip().lower()][:600] for n in LINK.findall(line)
                      if n.strip().lower() in notes]
            out.append({"moment": m["id"], "context": m["context"], "entry": entry,
                        "condition": condition, "linked": linked, "cue": entry in cues,
                        "due": entry in due,
                        "overlap": ed.overlaps(m["context"], condition),
                        "note_word": any(ed.overlaps(m["context"], t) for t in linked)})
    return out


def scores(rows: list[dict], embedder) -> None:
    texts = sorted({t for r in rows for t in [r["condition"], *r["linked"]]})
    contexts = sorted({r["context"] for r in rows})
    tv = dict(zip(texts, embedder.embed(texts), strict=True))
    cv = dict(zip(contexts, embedder.embed_query(contexts), strict=True))
    for r in rows:
        c = cv[r["context"]]
        r["cond"] = float(c @ tv[r["condition"]])
        r["best"] = max([r["cond"], *(float(c @ tv[t]) for t in r["linked"])])
    by_moment: dict[str, list[dict]] = {}
    for r in rows:
        by_moment.setdefault(r["moment"], []).append(r)
    for group in by_moment.values():
        for r in group:
            rival = max((o["best"] for o in group if o is not r), default=0.0)
            r["margin"] = r["best"] - rival


def bound(rows: list[dict], moments: int, key: str) -> tuple[float, float, int, int]:
    """(event recall, threshold, no-overlap cues found, false alarms) at the budget."""
    cues = [r for r in rows if r["cue"]]
    easy = sum(r["overlap"] for r in cues)
    hard = [r[key] for r in cues if not r["overlap"]]
    wrong = np.sort([r[key] for r in rows if not r["due"]])[::-1]
    allowed = int(BUDGET * moments)
    t = wrong[allowed] + 1e-9 if allowed < len(wrong) else -np.inf
    found = sum(s >= t for s in hard)
    alarms = int((wrong >= t).sum())
    return (easy + found) / len(cues), float(t), found, alarms


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weeks", nargs="*", default=["scripts/eval_data/weeks/"])
    args = ap.parse_args(argv)
    weeks = [ed.load_week(p) for p in ed.week_files(args.weeks)]
    rows = [r for w in weeks for r in pairs(w)]
    moments = sum(len(w["moments"]) for w in weeks)
    scores(rows, embed.indexing_embedder(Settings()))
    cues = [r for r in rows if r["cue"]]
    hard = [r for r in cues if not r["overlap"]]
    print(f"{len(weeks)} week(s), {moments} moments, {len(rows)} (moment, trigger entry) "
          f"pairs, {len(cues)} cues ({len(cues) - len(hard)} sharing a word, {len(hard)} "
          f"none); false-alarm budget {BUDGET}/moment = {int(BUDGET * moments)}\n")
    print("| score | event recall bound | threshold | no-overlap cues found | false alarms |")
    print("|---|---:|---:|---:|---:|")
    for key, name in (("cond", "cosine to the condition"),
                      ("best", "best of condition and linked notes"),
                      ("margin", "that, minus the best rival entry")):
        recall, t, found, alarms = bound(rows, moments, key)
        print(f"| {name} | {recall:.3f} | {t:.3f} | {found}/{len(hard)} | {alarms} |")
    recall, t, _, alarms = bound(rows, moments, "margin")
    words = sum(r["note_word"] or r["margin"] >= t for r in hard)
    noisy = sum(r["note_word"] and not r["overlap"] for r in rows if not r["due"])
    print(f"| that, or any word shared with a linked note (its false alarms not counted) | "
          f"{(len(cues) - len(hard) + words) / len(cues):.3f} | {t:.3f} | {words}/{len(hard)} | "
          f"{alarms} + up to {noisy} |")
    hard_s = np.array([r["best"] for r in hard])
    wrong_s = np.array([r["best"] for r in rows if not r["due"]])
    print(f"\nbest-of score: no-overlap cues median {np.median(hard_s):.3f} "
          f"(quartiles {np.percentile(hard_s, 25):.3f}-{np.percentile(hard_s, 75):.3f}); "
          f"pairs not due median {np.median(wrong_s):.3f}, 99th percentile "
          f"{np.percentile(wrong_s, 99):.3f}")


if __name__ == "__main__":
    main()
