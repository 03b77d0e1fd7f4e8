#!/usr/bin/env python3
"""Form evaluation: how well `vaultmem.form` finds the commitments written in notes.

    python scripts/eval_form.py                      # the dev set, at the default confidence
    python scripts/eval_form.py --set form_dev --sweep   # precision/recall by threshold
    python scripts/eval_form.py --dates              # date resolution on Recognizers-Text
    python scripts/eval_form.py --e2e                # the prospective blueprints, ledgers
                                                     # from accepted suggestions (real model)

A set is a folder under scripts/eval_data/ holding notes and a gold file. Every candidate
at or above the confidence threshold is matched to the gold row whose quote it contains
(same note); a candidate that matches no commitment is a false positive, whether it
matched a distractor or an unlabelled sentence. Recall counts the planted commitments
that some candidate matched; date accuracy counts, among the found commitments that have
a gold date, those whose due date is that date (or inside the gold range for vague
ones). Nothing is tuned here: it prints what it measured.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path

from vaultmem import config, form
from vaultmem.text import parse

DATA = Path(__file__).resolve().parent / "eval_data"
RECOGNIZERS = Path("/work/shared/data/recognizers-text-datetime-en")


def norm(text: str) -> str:
    return " ".join(re.findall(r"[\w']+", text.lower().replace("’", "'")))


# -- loading a set ------------------------------------------------------------------


def load_dev(folder: Path) -> tuple[dict[str, str], list[dict]]:
    """The dev format: notes under notes/, rows in gold.json (see its "about")."""
    notes = {p.relative_to(folder / "notes").as_posix(): p.read_text(encoding="utf-8")
             for p in sorted((folder / "notes").rglob("*.md"))}
    rows = json.loads((folder / "gold.json").read_text())["rows"]
    return notes, rows


def load_blind(folder: Path) -> tuple[dict[str, str], list[dict], dict[str, int]]:
    """The blind set's format (scripts/eval_data/form, check_gold.py): notes under vault/,
    gold.json with `commitments` (file, line, text, kind, phrasing, person, due, ...) and
    `distractors` (file, line, text, why), read into the dev rows' shape. Notes keep their
    files' modification times as their author set them (a note without a date in its name
    or front matter is dated by them, as the indexer does), from `<set>.mtimes.json`."""
    root = folder / "vault"
    paths = sorted(root.rglob("*.md"))
    notes = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in paths}
    mtimes = {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in paths}
    kept = folder.with_name(folder.name + ".mtimes.json")  # git does not keep them
    if kept.exists():
        mtimes.update(json.loads(kept.read_text(encoding="utf-8"))["mtime_ns"])
    gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
    rows = [{"note": g["file"], "line": g["line"], "quote": g["text"], "label": "commitment",
             "due": g["due"], "when": g["kind"] == "conditional", "kind": g["kind"],
             "family": g["phrasing"], "person": g["person"], "id": g["id"]}
            for g in gold["commitments"]]
    rows += [{"note": g["file"], "line": g["line"], "quote": g["text"], "label": "distractor",
              "reason": g["why"], "id": g["id"]} for g in gold["distractors"]]
    return notes, rows, mtimes


def extract_all(notes: dict[str, str], mtimes: dict[str, int] | None = None) -> dict:
    """{note: form.Found} with each note's own day, as the indexer computes it."""
    out = {}
    for rel, text in notes.items():
        parsed = parse.parse_note(text, rel)
        day = form.note_day(parsed.frontmatter, rel, (mtimes or {}).get(rel))
        if day is None:
            day = date.today()
        is_ledger = (str(parsed.frontmatter.get("type", "")).lower() == "ledger"
                     or Path(rel).name == "Ledger.md")
        out[rel] = form.Found() if is_ledger else form.extract(text, day)
    return out


# -- scoring -------------------------------------------------------------------------


def same_text(quote: str, text: str) -> bool:
    """A gold quote and a candidate's sentence say the same thing: one holds the other, or
    (links written [[Target|label]] in the gold, shown as the label in the candidate)
    most of the quote's words are the sentence's."""
    if not quote or not text:
        return False
    if quote in text or text in quote:
        return True
    words = quote.split()
    return sum(w in set(text.split()) for w in words) >= 0.8 * len(words)


def on_line(row: dict, cand: form.Candidate) -> bool:
    """Rows with a line (the blind set) must lie within the candidate's lines."""
    line = row.get("line")
    return line is None or cand.line <= line <= cand.line + cand.text.count("\n")


def match(found: dict, rows: list[dict], threshold: float) -> dict:
    """Pair candidates at or above `threshold` with gold rows (one candidate per row)."""
    by_note = defaultdict(list)
    for i, row in enumerate(rows):
        by_note[row["note"]].append((i, norm(row["quote"])))
    hits: dict[int, form.Candidate] = {}
    false_pos: list[tuple[str, form.Candidate, int | None]] = []
    for rel, result in found.items():
        for cand in result.candidates:
            if cand.confidence < threshold:
                continue
            text = norm(cand.text)
            rows_here = [i for i, quote in by_note.get(rel, ())
                         if same_text(quote, text) and on_line(rows[i], cand)
                         and i not in hits]
            # A sentence holding both a planted commitment and a distractor counts as the
            # commitment: that is what was offered.
            rows_here.sort(key=lambda i: rows[i]["label"] != "commitment")
            row = rows_here[0] if rows_here else None
            if row is not None and rows[row]["label"] == "commitment":
                hits[row] = cand
            else:
                false_pos.append((rel, cand, row))
    return {"hits": hits, "false": false_pos}


def due_ok(gold, got: date | None) -> bool:
    if isinstance(gold, list):
        return got is not None and gold[0] <= got.isoformat() <= gold[1]
    return got is not None and got.isoformat() == gold


def kind_of(row: dict) -> str:
    if row.get("kind"):
        return row["kind"]
    if row.get("when"):
        return "conditional"
    return "dated" if row.get("due") else "undated"


def report(found: dict, rows: list[dict], threshold: float, verbose: bool) -> dict:
    m = match(found, rows, threshold)
    hits, false_pos = m["hits"], m["false"]
    commitments = [i for i, r in enumerate(rows) if r["label"] == "commitment"]
    n_cand = len(hits) + len(false_pos)
    precision = len(hits) / n_cand if n_cand else float("nan")
    recall = len(hits) / len(commitments) if commitments else float("nan")
    dated = [i for i in hits if rows[i].get("due")]
    right = [i for i in dated if due_ok(rows[i]["due"], hits[i].due)]
    print(f"\n## Form at confidence ≥ {threshold}\n")
    print(f"candidates {n_cand}, commitments {len(commitments)}, found {len(hits)}, "
          f"false positives {len(false_pos)}")
    print(f"precision {precision:.3f}  recall {recall:.3f}  "
          f"date resolution {len(right)}/{len(dated)}"
          f" = {len(right) / len(dated) if dated else float('nan'):.3f}")
    print("\n| type | planted | found | recall | dated found | date right |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind in ("dated", "conditional", "undated"):
        planted = [i for i in commitments if kind_of(rows[i]) == kind]
        got = [i for i in planted if i in hits]
        d = [i for i in got if rows[i].get("due")]
        ok = [i for i in d if due_ok(rows[i]["due"], hits[i].due)]
        print(f"| {kind} | {len(planted)} | {len(got)} | "
              f"{len(got) / len(planted) if planted else float('nan'):.3f} | {len(d)} | "
              f"{len(ok)} |")
    for field, title in (("family", "phrasing (gold)"), ("person", "person (gold)")):
        values = Counter(rows[i].get(field, "?") for i in commitments)
        if set(values) == {"?"}:
            continue
        print(f"\n| {title} | planted | found |")
        print("|---|---:|---:|")
        for value, n in sorted(values.items()):
            got = sum(1 for i in hits if rows[i].get(field, "?") == value)
            print(f"| {value} | {n} | {got} |")
    conditional = [i for i in hits if kind_of(rows[i]) == "conditional"]
    print(f"\nconditional commitments found with a trigger condition: "
          f"{sum(1 for i in conditional if hits[i].condition)}/{len(conditional)}")
    distractors = [i for i, r in enumerate(rows) if r["label"] == "distractor"]
    taken = Counter(rows[row]["reason"] for _, _, row in false_pos if row is not None
                    and rows[row]["label"] == "distractor")
    reasons = Counter(rows[i].get("reason", "?") for i in distractors)
    print("\n| distractor | planted | offered (false positives) |")
    print("|---|---:|---:|")
    for reason, n in sorted(reasons.items()):
        print(f"| {reason} | {n} | {taken.get(reason, 0)} |")
    unlabelled = sum(1 for _, _, row in false_pos if row is None)
    print(f"\nfalse positives on sentences the gold does not label: {unlabelled}")
    if verbose:
        for i in commitments:
            if i not in hits:
                print(f"MISS  {rows[i]['note']}:{rows[i].get('line', '')}: {rows[i]['quote']}")
        for i in dated:
            if not due_ok(rows[i]["due"], hits[i].due):
                print(f"DATE  {rows[i]['note']}: {rows[i]['quote']} gold {rows[i]['due']} "
                      f"got {hits[i].due} ({hits[i].date_text})")
        for rel, cand, row in false_pos:
            label = rows[row]["reason"] if row is not None else "unlabelled"
            print(f"FALSE {rel}:{cand.line} [{label}] {cand.confidence} {cand.text!r}")
    return {"precision": precision, "recall": recall,
            "date": len(right) / len(dated) if dated else float("nan")}


def sweep(found: dict, rows: list[dict]) -> None:
    print("\n| threshold | precision | recall | date |")
    print("|---:|---:|---:|---:|")
    for t in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8):
        m = match(found, rows, t)
        hits, fp = m["hits"], m["false"]
        commitments = sum(1 for r in rows if r["label"] == "commitment")
        dated = [i for i in hits if rows[i].get("due")]
        right = sum(1 for i in dated if due_ok(rows[i]["due"], hits[i].due))
        p = len(hits) / (len(hits) + len(fp)) if hits or fp else float("nan")
        print(f"| {t} | {p:.3f} | {len(hits) / commitments:.3f} | "
              f"{right / len(dated) if dated else float('nan'):.3f} |")


# -- dates against Recognizers-Text ------------------------------------------------------


def recognizers_dates(folder: Path = RECOGNIZERS) -> None:
    """Date resolution on the Recognizers-Text English specs: for each gold date (or date
    range, or date-time) whose text `vaultmem.text.dates` finds in the sentence, is the day it
    resolves the gold day (a range: a day inside it)? And the same spans given to
    dateparser, when it is installed, for comparison."""
    from vaultmem.text.dates import find_dates

    try:
        import dateparser
    except ImportError:
        dateparser = None
    cases = []
    for name in ("DateTimeModel.json", "DateTimeModelTasksMode.json",
                 "DateTimeModelCalendarMode.json"):
        cases += json.loads((folder / name).read_text(encoding="utf-8-sig"))
    counts = defaultdict(Counter)
    for case in cases:
        ref = datetime.fromisoformat(case.get("Context", {}).get(
            "ReferenceDateTime", "2016-11-07T00:00:00"))
        for result in case.get("Results", []):
            kind = (result.get("TypeName") or "").rsplit(".", 1)[-1]
            if kind not in ("date", "daterange", "datetime"):
                continue
            ok = _gold_check(result, kind)
            if ok is None:
                continue
            c = counts[kind]
            c["gold"] += 1
            hit = next((d for d in find_dates(case["Input"], ref.date())
                        if d.start <= result["End"] and result["Start"] < d.end), None)
            if hit is None:
                continue
            c["found"] += 1
            c["right"] += ok(hit.day)
            if dateparser is not None:
                got = dateparser.parse(hit.text, languages=["en"], settings={
                    "RELATIVE_BASE": ref, "PREFER_DATES_FROM": "future"})
                c["dateparser"] += bool(got) and ok(got.date())
    print("\n## Date resolution on Recognizers-Text (English specs)\n")
    print("| type | gold | found in the sentence | resolved right | dateparser on the same "
          "text |")
    print("|---|---:|---:|---:|---:|")
    for kind, c in counts.items():
        dp = str(c["dateparser"]) if dateparser is not None else "not installed"
        print(f"| {kind} | {c['gold']} | {c['found']} | {c['right']} | {dp} |")


def _gold_check(result: dict, kind: str):
    days, ranges = set(), []
    for v in result["Resolution"]["values"]:
        if kind == "daterange":
            start, end = (v.get("start") or "")[:10], (v.get("end") or "")[:10]
            if start and end:
                ranges.append((date.fromisoformat(start), date.fromisoformat(end)))
            elif start:
                days.add(start)
            elif end:
                days.add((date.fromisoformat(end) - timedelta(days=1)).isoformat())
        elif v.get("value") and v["value"] != "not resolved":
            days.add(v["value"][:10])
    if not days and not ranges:
        return None
    return lambda d: d.isoformat() in days or any(a <= d < b for a, b in ranges)


# -- end to end: the prospective blueprints with ledgers built from suggestions -------------
# The blueprints are scripts/eval_prospective.py's (blind-written, SPEC 9); the vault is
# built the same way (its loader and note writer). Each blueprint's
# positive vault is run three ways: no ledger, the hand-written ledger line, and a ledger
# made only of accepted suggestions (every one at the default confidence accepted, as a
# user saying yes to all would). The trigger is the query, `now` is the trigger's date.

VARIANTS = ("clean", "overloaded", "paraphrased")
LEDGERS = ("none", "hand", "form")


def load_blueprints() -> list[dict]:
    return sorted(_prospective().load_blueprints(), key=lambda bp: bp["id"])


def write_note(vault: Path, day: date, title: str, body: str) -> str:
    return _prospective().write_note(vault, day, title, body)


def _prospective():
    """scripts/eval_prospective.py, imported only by the end-to-end run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import eval_prospective

    return eval_prospective


def hand_line(bp: dict, link: str) -> str:
    led = bp["ledger"]
    if bp["kind"] == "dated":
        fields = f"📅 {led['due']}"
    else:
        fields = f"[when:: {led['when']}]"
        if led.get("keywords"):
            fields += f" [keywords:: {', '.join(led['keywords'])}]"
    return f"- [ ] {led['action']} {fields} [[{link}]]\n"


def build(root: Path, bp: dict, ledger: str) -> tuple[Path, str, int]:
    import shutil

    vault = root / f"{bp['id']}-{ledger}"
    shutil.rmtree(vault, ignore_errors=True)
    start = date.fromisoformat(bp["start"])
    paths = [write_note(vault, start + timedelta(days=i), n["title"], n["body"])
             for i, n in enumerate(bp["notes"])]
    constraint = paths[bp["constraint_index"]]
    if ledger == "hand":
        (vault / "Ledger.md").write_text("# Ledger\n\n" + hand_line(bp, Path(constraint).stem),
                                         encoding="utf-8")
    return vault, constraint, len(paths)


def run_blueprint(bp: dict, root: Path, embedder) -> dict:
    from vaultmem import Vault

    now = datetime.fromisoformat(bp["trigger_date"])
    out = {"id": bp["id"], "kind": bp["kind"], "ledgers": {}, "due": bp["ledger"].get("due")}
    texts = {v: bp[f"trigger_{v}"] for v in VARIANTS} | {"unrelated": bp["unrelated_query"]}
    for ledger in LEDGERS:
        vault, constraint, n = build(root, bp, ledger)
        out["candidates"] = n
        with Vault.open(vault, create=True, embedder=embedder) as v:
            v.index(now=now)
            accepted = []
            if ledger == "form":
                for s in v.suggestions().results:
                    v.accept(s.id, now=now)
                    accepted.append({"path": s.path, "action": s.action, "due": s.due,
                                     "condition": s.condition, "confidence": s.confidence})
                v.index(now=now)
            v.salience(now=now)
            row = {"accepted": accepted, "ranks": {}}
            for variant, text in texts.items():
                doc = v.query(text, now=now, log=False, limit=200).as_dict()
                hit = next(r for r in doc["results"] if r["path"] == constraint)
                row["ranks"][variant] = {"rank": hit["rank"], "fired": hit["firing"],
                                         "top": doc["results"][0]["path"]}
                if ledger == "none":
                    plain = v.query(text, now=now, log=False, limit=200,
                                    prospective=False).as_dict()
                    row["ranks"][variant]["plain"] = next(
                        r["rank"] for r in plain["results"] if r["path"] == constraint)
                    row["ranks"][variant]["plain_top"] = plain["results"][0]["path"]
        out["ledgers"][ledger] = row
        out["constraint"] = constraint
    return out


def e2e(limit: int | None = None) -> None:
    import shutil
    import tempfile
    import time

    from vaultmem.embed import FastEmbedder

    blueprints = load_blueprints()[:limit] if limit else load_blueprints()
    embedder = FastEmbedder(config.load(Path(".")))
    root = Path(tempfile.mkdtemp(prefix="vaultmem-form-e2e-"))
    started = time.perf_counter()
    results = []
    try:
        for bp in blueprints:
            results.append(run_blueprint(bp, root, embedder))
            print(f"{bp['id']}: done", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report_e2e(results, time.perf_counter() - started)


def _metrics(ranks: list[int]) -> str:
    if not ranks:
        return "- | - | -"
    n = len(ranks)
    return (f"{sum(r == 1 for r in ranks) / n:.3f} | {sum(r <= 5 for r in ranks) / n:.3f} | "
            f"{sum(1 / r for r in ranks) / n:.3f}")


def report_e2e(results: list[dict], seconds: float) -> None:
    kinds = Counter(r["kind"] for r in results)
    print(f"\n## End to end: {len(results)} blueprints ({kinds['dated']} dated, "
          f"{kinds['conditional']} conditional), ledgers none / hand-written / accepted "
          f"suggestions at confidence ≥ {config.DEFAULTS.form_confidence}; {seconds:.0f}s\n")
    print("| trigger | stratum | n | ledger | R@1 | R@5 | MRR | constraint fired |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for variant in VARIANTS:
        for stratum in ("hard", "easy"):
            rows = [r for r in results if (r["ledgers"]["none"]["ranks"][variant]["plain"]
                                           > r["candidates"] / 2) == (stratum == "hard")]
            for ledger in LEDGERS:
                cells = [r["ledgers"][ledger]["ranks"][variant] for r in rows]
                fired = sum(c["fired"] for c in cells)
                print(f"| {variant} | {stratum} | {len(rows)} | {ledger} | "
                      f"{_metrics([c['rank'] for c in cells])} | {fired}/{len(cells)} |")
    print("\n| ledger | entries per vault | constraint note's commitment accepted | "
          "unrelated query: top-1 displaced | unrelated: constraint lifted into top 5 |")
    print("|---|---:|---:|---:|---:|")
    for ledger in LEDGERS:
        per = [len(r["ledgers"][ledger]["accepted"]) if ledger == "form" else
               (1 if ledger == "hand" else 0) for r in results]
        caught = sum(any(a["path"] == r["constraint"] for a in r["ledgers"]["form"]["accepted"])
                     for r in results) if ledger == "form" else "-"
        unrelated = [(r["ledgers"][ledger]["ranks"]["unrelated"],
                      r["ledgers"]["none"]["ranks"]["unrelated"]) for r in results]
        displaced = sum(u["top"] != base["plain_top"] for u, base in unrelated)
        lifted = sum(u["rank"] <= 5 < base["plain"] for u, base in unrelated)
        print(f"| {ledger} | {sum(per) / len(per):.2f} | {caught}"
              f"{'/' + str(len(results)) if ledger == 'form' else ''} | "
              f"{displaced}/{len(results)} | {lifted}/{len(results)} |")
    for kind in ("dated", "conditional"):
        mine = [r for r in results if r["kind"] == kind]
        got = {r["id"]: [a for a in r["ledgers"]["form"]["accepted"]
                         if a["path"] == r["constraint"]] for r in mine}
        if kind == "dated":
            agree = sum(any(a["due"] == r["due"] for a in got[r["id"]]) for r in mine)
            what = "with the hand-written due date"
        else:
            agree = sum(any(a["condition"] for a in got[r["id"]]) for r in mine)
            what = "with a trigger condition"
        print(f"\n{kind}: the constraint note's commitment accepted in "
              f"{sum(bool(g) for g in got.values())}/{len(mine)} blueprints, {what} in "
              f"{agree}/{len(mine)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="form_dev", help="a folder under scripts/eval_data: form_dev "
                    "(the author's dev set), form or form_d (the blind sets)")
    ap.add_argument("--threshold", type=float, default=config.DEFAULTS.form_confidence)
    ap.add_argument("--sweep", action="store_true", help="precision and recall by threshold")
    ap.add_argument("--dates", action="store_true", help="date resolution on Recognizers-Text")
    ap.add_argument("-v", "--verbose", action="store_true", help="list misses and false ones")
    ap.add_argument("--e2e", action="store_true", help="the prospective blueprints, end to end")
    ap.add_argument("--limit", type=int, help="--e2e: only the first N blueprints")
    args = ap.parse_args()
    if args.dates:
        recognizers_dates()
        return
    if args.e2e:
        e2e(args.limit)
        return
    folder = DATA / args.set
    if (folder / "vault").is_dir():
        notes, rows, mtimes = load_blind(folder)
    else:
        (notes, rows), mtimes = load_dev(folder), None
    found = extract_all(notes, mtimes)
    print(f"# {args.set}: {len(notes)} notes, {sum(r['label'] == 'commitment' for r in rows)} "
          f"commitments, {sum(r['label'] == 'distractor' for r in rows)} distractors")
    report(found, rows, args.threshold, args.verbose)
    if args.sweep:
        sweep(found, rows)


if __name__ == "__main__":
    sys.exit(main())
