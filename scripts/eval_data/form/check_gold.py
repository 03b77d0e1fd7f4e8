#!/usr/bin/env python3
"""Verify gold.json against the vault (stdlib only)."""
import json, os, re, sys, datetime
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
VAULT = os.path.join(HERE, "vault")
gold = json.load(open(os.path.join(HERE, "gold.json"), encoding="utf-8"))
errors = []

notes = [os.path.relpath(os.path.join(d, f), VAULT) for d, _, fs in os.walk(VAULT) for f in fs if f.endswith(".md")]
cache = {}
def lines(f):
    if f not in cache:
        p = os.path.join(VAULT, f)
        if not os.path.exists(p):
            errors.append(f"missing file {f}"); cache[f] = []
        else:
            cache[f] = open(p, encoding="utf-8").read().split("\n")
    return cache[f]

KINDS = {"dated", "conditional", "undated"}
PHR = {"need to", "have to", "must", "should", "promised", "remember", "dont-forget", "will", "lets", "going-to", "todo", "task", "other"}
PERS = {"first", "we", "second"}
WHY = {"negated", "hypothetical", "third-person", "past", "done-task", "opinion", "question", "other"}
ids = set()
for e in gold["commitments"] + gold["distractors"]:
    if e["id"] in ids: errors.append(f"dup id {e['id']}")
    ids.add(e["id"])
    ls = lines(e["file"])
    if not (1 <= e["line"] <= len(ls)) or e["text"] not in ls[e["line"] - 1]:
        errors.append(f"{e['id']}: text not on {e['file']}:{e['line']}")
for e in gold["commitments"]:
    if e["kind"] not in KINDS: errors.append(f"{e['id']} bad kind")
    if e["phrasing"] not in PHR: errors.append(f"{e['id']} bad phrasing")
    if e["person"] not in PERS: errors.append(f"{e['id']} bad person")
    if e["due"] is not None:
        try: datetime.date.fromisoformat(e["due"])
        except ValueError: errors.append(f"{e['id']} bad due {e['due']}")
    if e["kind"] == "dated" and (not e["due"] or not e["date_text"]):
        errors.append(f"{e['id']} dated without due/date_text")
    if e["kind"] == "conditional" and not e["condition"]:
        errors.append(f"{e['id']} conditional without condition")
    for k in ("date_text", "condition"):
        if e[k] and e[k] not in e["text"]: errors.append(f"{e['id']} {k} not in text")
    if sorted(e["links"]) != sorted(re.findall(r"\[\[([^\]|#]+)", e["text"])):
        errors.append(f"{e['id']} links mismatch")
for e in gold["distractors"]:
    if e["why"] not in WHY: errors.append(f"{e['id']} bad why")

topic = [n for n in notes if not re.search(r"\d{4}-\d{2}-\d{2}", n)]
topic_c = [e for e in gold["commitments"] if e["file"] in topic]
if len(notes) < 150: errors.append(f"only {len(notes)} notes")
if len(gold["commitments"]) < 70: errors.append("fewer than 70 commitments")
if len(gold["distractors"]) < 40: errors.append("fewer than 40 distractors")
if len(topic) > 10: errors.append("more than 10 undated topic notes")
if len(topic_c) > 3: errors.append("more than 3 commitments in topic notes")

C = gold["commitments"]
absolute = [e for e in C if e["kind"] == "dated" and re.search(r"\d{4}-\d{2}-\d{2}|\d{1,2} (January|February|March|April|May|June)", e["date_text"] or "")]
print(f"notes: {len(notes)} (daily {sum(n.startswith('daily/') for n in notes)}, meetings {sum(n.startswith('meetings/') for n in notes)}, topic {len(topic)})")
print(f"commitments: {len(C)}   distractors: {len(gold['distractors'])}")
print("kind:", dict(Counter(e["kind"] for e in C)), f"(of dated: absolute {len(absolute)}, relative {sum(e['kind']=='dated' for e in C)-len(absolute)})")
print("phrasing:", dict(Counter(e["phrasing"] for e in C)))
print("person:", dict(Counter(e["person"] for e in C)))
print("distractors by why:", dict(Counter(e["why"] for e in gold["distractors"])))
per_note = Counter(e["file"] for e in C + gold["distractors"])
print("notes with 0/1/2/3+ annotated items:", len(notes) - len(per_note), sum(v == 1 for v in per_note.values()),
      sum(v == 2 for v in per_note.values()), sum(v >= 3 for v in per_note.values()))
if errors:
    print("ERRORS:"); [print("  " + x) for x in errors]; sys.exit(1)
print("OK")
