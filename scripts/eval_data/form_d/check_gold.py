#!/usr/bin/env python3
"""Stdlib-only sanity check of gold.json against vault/. Prints OK or the problems."""
import calendar, datetime as dt, json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
VAULT = os.path.join(HERE, "vault")
D = dt.date
ONE = dt.timedelta(days=1)
MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
WDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
NUMS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten "
                                   "eleven twelve thirteen fourteen".split())}
NUMS["a"] = 1
PHRASINGS = set("need to|have to|must|should|promised|remember|dont-forget|will|lets|going-to|todo|task|other".split("|"))
WHYS = set("negated|hypothetical|third-person|past|done-task|opinion|question|other".split("|"))
MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))


def easter(y):  # anonymous Gregorian algorithm
    a, b, c = y % 19, y // 100, y % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l) // 451
    mo = (h + l - 7 * m + 114) // 31
    da = (h + l - 7 * m + 114) % 31 + 1
    return D(y, mo, da)


def last_day(y, m):
    return D(y, m, calendar.monthrange(y, m)[1])


def monday(d):
    return d - dt.timedelta(days=d.weekday())


def next_dm(nd, day, month):
    c = D(nd.year, month, day)
    return c if c >= nd else D(nd.year + 1, month, day)


def next_dom(nd, day):
    y, m = nd.year, nd.month
    while True:
        if day <= calendar.monthrange(y, m)[1] and D(y, m, day) >= nd:
            return D(y, m, day)
        m += 1
        if m == 13:
            y, m = y + 1, 1


def resolve(text, nd):
    """Return (family, date) for a date expression relative to note date nd (may be None)."""
    t = text.lower().strip()
    before = bool(re.match(r"^before\b", t))
    adj = (lambda d: d - ONE) if before else (lambda d: d)
    # --- explicit
    m = re.search(r"(\d{4})-(\d\d)-(\d\d)", t)
    if m:
        return "explicit", adj(D(*map(int, m.groups())))
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(%s)\b" % MONTH_RE, t) or \
        re.search(r"\b(%s)\s+(\d{1,2})(?:st|nd|rd|th)?\b" % MONTH_RE, t)
    if m:
        a, b = m.groups()
        day, mon = (int(a), MONTHS[b]) if a.isdigit() else (int(b), MONTHS[a])
        return "explicit", adj(next_dm(nd, day, mon))
    m = re.search(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", t)
    if m:
        return "explicit", adj(next_dom(nd, int(m.group(1))))
    if nd is None:
        return "relative-to-unknown", None
    wk = monday(nd)
    # --- relative days
    if "day after tomorrow" in t:
        return "relative", nd + 2 * ONE
    if "tomorrow" in t:
        return "relative", nd + ONE
    if t in ("tonight", "today", "this evening"):
        return "relative", nd
    m = re.search(r"\b(?:in|within)\s+(?:the next\s+)?(\w+)\s+(day|week)s?\b", t)
    if m:
        n = int(m.group(1)) if m.group(1).isdigit() else NUMS[m.group(1)]
        return "relative", nd + dt.timedelta(days=n * (7 if m.group(2) == "week" else 1))
    if re.search(r"\b(?:in|within)\s+(?:a|the next)\s+fortnight\b", t):
        return "relative", nd + 14 * ONE
    # --- weekdays
    for name, wd in WDAYS.items():
        if re.search(r"\b%s\b" % name, t):
            if re.search(r"\bnext\s+%s\b" % name, t) or re.search(r"\b%s\s+week\b" % name, t):
                return "weekday", wk + dt.timedelta(days=7 + wd)
            return "weekday", nd + dt.timedelta(days=(wd - nd.weekday()) % 7)
    # --- periods
    if "before easter" in t:
        return "period", easter(nd.year if easter(nd.year) > nd else nd.year + 1) - ONE
    if "before the weekend" in t:
        return "period", wk + dt.timedelta(days=4)
    if re.search(r"\b(this|the) weekend\b", t):
        return "period", wk + dt.timedelta(days=6)
    if "end of next week" in t or t.endswith("next week"):
        return "period", wk + dt.timedelta(days=11)
    if re.search(r"\b(this week|end of (the|this) week)\b", t):
        return "period", wk + dt.timedelta(days=4)
    if "next month" in t:
        y, mo = (nd.year + 1, 1) if nd.month == 12 else (nd.year, nd.month + 1)
        return "period", last_day(y, mo)
    if re.search(r"\bend of (the|this) month\b", t):
        return "period", last_day(nd.year, nd.month)
    m = re.search(r"\bend of q([1-4])\b", t)
    if m:
        q = int(m.group(1))
        d = last_day(nd.year, 3 * q)
        return "period", d if d >= nd else last_day(nd.year + 1, 3 * q)
    m = re.search(r"\bmid-(%s)\b" % MONTH_RE, t)
    if m:
        return "period", next_dm(nd, 15, MONTHS[m.group(1)])
    m = re.search(r"\b(?:end of|in)\s+(%s)\b" % MONTH_RE, t)
    if m:
        mo = MONTHS[m.group(1)]
        d = last_day(nd.year, mo)
        return "period", d if d >= nd else last_day(nd.year + 1, mo)
    return "unknown", None


def note_date(path):
    m = re.search(r"(\d{4}-\d\d-\d\d)", os.path.basename(path))
    return D.fromisoformat(m.group(1)) if m else None


def main():
    errs = []
    gold = json.load(open(os.path.join(HERE, "gold.json"), encoding="utf-8"))
    C, Ds = gold["commitments"], gold["distractors"]
    files = sorted(os.path.relpath(os.path.join(r, f), VAULT)
                   for r, _, fs in os.walk(VAULT) for f in fs if f.endswith(".md"))
    topic = [f for f in files if f.startswith(("people/", "projects/"))]
    for f in files:
        if f.startswith("daily/"):
            if not re.fullmatch(r"daily/\d{4}-\d\d-\d\d\.md", f):
                errs.append("bad daily name " + f)
        elif f.startswith("meetings/"):
            if not re.fullmatch(r"meetings/\d{4}-\d\d-\d\d .+\.md", f):
                errs.append("bad meeting name " + f)
        elif f not in topic:
            errs.append("unexpected file " + f)
        nd = note_date(f)
        if nd and not (D(2026, 1, 5) <= nd <= D(2026, 7, 31)):
            errs.append("note date out of range " + f)
    if not 90 <= len(files) <= 110:
        errs.append("note count %d" % len(files))
    if len(topic) > 8:
        errs.append("too many topic notes")
    cache = {}

    def line_of(item):
        f = item["file"]
        if f not in cache:
            p = os.path.join(VAULT, f)
            if not os.path.exists(p):
                errs.append("%s: missing file %s" % (item["id"], f))
                return None
            cache[f] = open(p, encoding="utf-8").read().split("\n")
        lines = cache[f]
        if not 1 <= item["line"] <= len(lines):
            errs.append("%s: line out of range" % item["id"])
            return None
        return lines[item["line"] - 1]

    seen = Counter()
    fam = Counter()
    for c in C:
        i = c["id"]
        seen[(c["file"], c["line"])] += 1
        line = line_of(c)
        if line is None:
            continue
        if c["text"] not in line:
            errs.append("%s: text not on line: %r vs %r" % (i, c["text"], line))
        if c["kind"] not in ("dated", "conditional", "undated"):
            errs.append(i + ": kind")
        if c["phrasing"] not in PHRASINGS:
            errs.append(i + ": phrasing " + c["phrasing"])
        if c["person"] not in ("first", "we", "second"):
            errs.append(i + ": person")
        for k in ("date_text", "condition"):
            if c[k] is not None and c[k] not in c["text"]:
                errs.append("%s: %s not in text" % (i, k))
        links = [t.split("|")[0].split("#")[0].strip() for t in re.findall(r"\[\[(.+?)\]\]", c["text"])]
        if links != c["links"]:
            errs.append("%s: links %r != %r" % (i, c["links"], links))
        if c["kind"] == "dated":
            if not c["date_text"] or not c["due"]:
                errs.append(i + ": dated without date_text/due")
                continue
            try:
                due = D.fromisoformat(c["due"])
            except ValueError:
                errs.append(i + ": due does not parse")
                continue
            nd = note_date(c["file"])
            family, calc = resolve(c["date_text"], nd)
            fam[family] += 1
            if calc is None:
                errs.append("%s: could not recompute %r" % (i, c["date_text"]))
            elif calc != due:
                errs.append("%s: due %s but %r from %s gives %s" % (i, due, c["date_text"], nd, calc))
            if nd and due < nd:
                errs.append(i + ": due before note date")
        else:
            if c["due"] is not None or c["date_text"] is not None:
                errs.append(i + ": non-dated item has due/date_text")
        if c["kind"] == "conditional" and not c["condition"]:
            errs.append(i + ": conditional without condition")
        if c["kind"] != "conditional" and c["condition"]:
            errs.append(i + ": condition on non-conditional")
    for d in Ds:
        seen[(d["file"], d["line"])] += 1
        line = line_of(d)
        if line is not None and d["text"] not in line:
            errs.append("%s: text not on line" % d["id"])
        if d["why"] not in WHYS:
            errs.append(d["id"] + ": why")
        if d["text"].lstrip().startswith("[x]") is False and d["why"] == "done-task" and "[x]" not in line:
            errs.append(d["id"] + ": done-task without [x]")
    for k, v in seen.items():
        if v > 1:
            errs.append("line annotated twice: %s:%d" % k)
    kinds = Counter(c["kind"] for c in C)
    topic_c = [c for c in C if c["file"] in topic]
    if len(topic_c) > 2:
        errs.append("too many topic-note commitments")
    for c in topic_c:
        if c["due"] and not re.search(r"\d{4}", c["date_text"] or ""):
            errs.append(c["id"] + ": topic note with relative due")
    if len(C) < 70: errs.append("fewer than 70 commitments")
    if kinds["dated"] < 55: errs.append("fewer than 55 dated")
    if len(Ds) < 40: errs.append("fewer than 40 distractors")
    ids = [x["id"] for x in C + Ds]
    if len(ids) != len(set(ids)): errs.append("duplicate ids")

    print("notes:", len(files), "(daily %d, meetings %d, topic %d)" % (
        sum(f.startswith("daily/") for f in files), sum(f.startswith("meetings/") for f in files), len(topic)))
    print("commitments:", len(C), dict(kinds))
    print("dated by family:", dict(fam))
    print("phrasing:", dict(Counter(c["phrasing"] for c in C)))
    print("person:", dict(Counter(c["person"] for c in C)))
    print("distractors:", len(Ds), dict(Counter(d["why"] for d in Ds)))
    print("distractors with a date word:", sum(bool(re.search(
        r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|yesterday|week|month|weekend|\d|"
        + MONTH_RE + r")\b", d["text"].lower())) for d in Ds))
    if errs:
        print("\n".join(errs))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
