"""Time ledger identity matching and task-line parsing on generated input.

    python scripts/bench_ledger.py [--sizes 1000,5000,20000] [--lengths 1000,10000,100000]
                                   [--reference] [--seed 1]

Matching: a ledger of N generated entries, then the same ledger with every entry
reworded (a word swapped, added, dropped or misspelt; some also rescheduled,
retargeted or checked off), so that no entry is found by its exact text and every one
goes through the fuzzy stage. Prints the CPU and wall seconds identity matching takes,
how many entries kept their right identity (the generator knows which is right), and
how many exact difflib ratios were computed. `--reference` also times the exhaustive
matcher (tests/ledger_reference.py: it compares every pair, minutes at 5,000 entries)
and counts where the two disagree.

Parsing: one task line made of a repeated unit ("[a:: ", "(k:: ", "#a ", ...) at each
length in characters, and the CPU seconds `ledger.parse_ledger` takes on it.

CPU time is this process's own, so other work on a shared machine barely moves it.
Every figure printed is measured on this machine in this run.
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vaultmem import ledger, ledger_reconcile  # noqa: E402

VERBS = ("pay call email send review book renew order fix paint clean buy return check "
         "schedule cancel draft submit update file print sign collect replace measure "
         "water prune repair invite confirm reconcile plan ask write read backup move "
         "sell list compare prepare pack ship test install").split()
OBJECTS = ("invoice quote estimate valve boiler radiator roof gutter fence passport visa "
           "ferry ticket train hotel insurance contract report chapter slides budget "
           "tax return receipt warranty charger laptop printer router garden hedge tomato "
           "seedlings ladder paint brushes carpet curtains table chairs bookshelf lamp "
           "bike tyres brakes helmet car tyres oil filter battery dentist doctor vet "
           "appointment prescription glasses lease deposit mortgage pension savings loan "
           "subscription newsletter website domain backup photos album letter parcel "
           "gift cake flowers wine menu agenda minutes proposal grant review article "
           "paper thesis talk poster abstract dataset survey interview transcript").split()
PEOPLE = ("Ana Ben Chloe Dev Emma Farid Grace Hugo Ines Jon Kai Lena Mo Nora Omar Pia "
          "Quinn Rosa Sam Tara Uma Vik Wen Xiu Yara Zoe").split()
QUALIFIERS = ("for the kitchen", "before the trip", "for the office", "at the bank",
              "for the garden", "with the landlord", "for the conference", "at home",
              "for the school", "with the accountant", "for the renovation", "online")
SYNONYMS = {"pay": "settle", "call": "phone", "email": "write to", "send": "post",
            "review": "go over", "book": "reserve", "fix": "mend", "buy": "get",
            "check": "verify", "draft": "write", "update": "refresh", "clean": "tidy"}
CONDITIONS = ("the vendor quote arrives", "the guests are coming", "the weather turns",
              "the bank replies", "the parcel arrives", "the landlord calls")


def make_ledger(n: int, seed: int = 1) -> list[str]:
    """N distinct, plausible task lines in the Tasks/Dataview conventions."""
    rng = random.Random(seed)
    notes = [f"{rng.choice(OBJECTS).title()} {i}" for i in range(max(20, n // 6))]
    lines, seen = [], set()
    start = date(2026, 1, 1)
    while len(lines) < n:
        verb, obj = rng.choice(VERBS), rng.choice(OBJECTS)
        words = [verb.capitalize(), "the", obj]
        if rng.random() < 0.6:
            words.append(rng.choice(QUALIFIERS))
        if rng.random() < 0.5:
            words += ["with", rng.choice(PEOPLE)]
        action = " ".join(words)
        if action in seen:
            action += f" ({len(lines)})"  # text identical to another entry is another stage
        seen.add(action)
        parts = [f"- [ ] {action}"]
        if rng.random() < 0.15:
            parts = [f"- [ ] When {rng.choice(CONDITIONS)}, {action[0].lower()}{action[1:]}"]
        for _ in range(rng.choice((0, 1, 1, 2))):
            parts.append(f"[[{rng.choice(notes)}]]")
        if rng.random() < 0.7:
            parts.append(f"📅 {start + timedelta(days=rng.randrange(365))}")
        lines.append(" ".join(parts))
    return lines


def reword(lines: list[str], seed: int = 2) -> list[tuple[int, str]]:
    """Every line edited in its words; some also rescheduled, retargeted or checked off.

    Returns (index of the line it was made from, new line), shuffled: matching must
    not lean on line order, and the index says which identity is the right one.
    """
    rng = random.Random(seed)
    out = []
    for index, line in enumerate(lines):
        head, *rest = line.split(" [[", 1)
        head, _, due = head.partition(" 📅 ")
        tail = ("[[" + rest[0]) if rest else ""
        if tail and " 📅 " in tail:
            tail, _, due = tail.partition(" 📅 ")
        out.append((index, _edit(rng, head, tail, due)))
    rng.shuffle(out)
    return out


def _edit(rng: random.Random, head: str, tail: str, due: str) -> str:
    mark, text = head[:6], head[6:]
    words = text.split(" ")
    change = rng.randrange(5)
    if change == 0 and words[0].lower() in SYNONYMS:
        words[0] = SYNONYMS[words[0].lower()].capitalize()
    elif change == 1:
        words.insert(rng.randrange(1, len(words) + 1), rng.choice(("soon", "again", "today")))
    elif change == 2 and len(words) > 3:
        del words[rng.randrange(1, len(words))]
    elif change == 3:
        i = rng.randrange(len(words))
        if len(words[i]) > 3:
            w = words[i]
            j = rng.randrange(len(w) - 1)
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
        else:
            words.append("now")
    else:
        words.append("first")
    if rng.random() < 0.2:
        mark = "- [x] "
    if due and rng.random() < 0.3:
        due = str(date.fromisoformat(due) + timedelta(days=rng.randrange(1, 30)))
    if tail and rng.random() < 0.2:
        tail = tail.split("]]", 1)[0] + "]]"
    line = mark + " ".join(words)
    return " ".join(part for part in (line, tail, f"📅 {due}" if due else "") if part)


def entries(lines: list[str]) -> list[ledger.LedgerEntry]:
    parsed, _ = ledger.parse_ledger("\n".join(lines))
    return parsed


_RATIOS = [0]


def _count_ratios() -> None:
    """Count difflib ratio() calls: the fuzzy stage's expensive comparison."""
    original = difflib.SequenceMatcher.ratio

    def counted(self):
        _RATIOS[0] += 1
        return original(self)

    difflib.SequenceMatcher.ratio = counted


def time_matching(n: int, seed: int, reference: bool) -> None:
    lines = make_ledger(n, seed)
    known = [ledger_reconcile.Known(f"e{i}", e) for i, e in enumerate(entries(lines))]
    truth, edited = zip(*reword(lines, seed + 1), strict=True)
    after = entries(list(edited))
    _RATIOS[0] = 0
    wall, cpu = time.perf_counter(), time.process_time()
    pairs = ledger_reconcile._match(known, after)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    right = sum(1 for ci, ki in pairs.items() if truth[ci] == ki)
    line = (f"match {n:>6} reworded entries: {cpu:7.2f} s cpu {wall:7.2f} s wall  "
            f"{right:>6} right, {len(pairs) - right} wrong, {n - len(pairs)} unmatched  "
            f"{_RATIOS[0]:>7} exact ratios")
    if reference:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from ledger_reference import match_exhaustive

        cpu = time.process_time()
        old = match_exhaustive(known, after)
        line += f"  | exhaustive {time.process_time() - cpu:7.2f} s cpu, "
        line += f"{sum(1 for ci, ki in old.items() if truth[ci] == ki)} right, "
        line += f"{sum(old.get(c) != pairs.get(c) for c in range(n))} disagreements"
    print(line, flush=True)


UNITS = ("[a:: ", "(k:: ", "#a ", "📅 ", "`", "[[a]] ", "when a ")


def time_parsing(length: int) -> None:
    cells = []
    for unit in UNITS:
        text = "- [ ] task " + unit * (length // len(unit))
        cpu = time.process_time()
        ledger.parse_ledger(text)
        cells.append(f"{unit!r} {time.process_time() - cpu:.3f}")
    print(f"parse one {length:>7}-char task line (s cpu): " + "  ".join(cells), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--lengths", default="1000,10000,100000")
    parser.add_argument("--reference", action="store_true",
                        help="also time the exhaustive matcher (slow beyond 2,000 entries)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    _count_ratios()
    for n in (int(s) for s in args.sizes.split(",") if s):
        time_matching(n, args.seed, args.reference)
    for length in (int(s) for s in args.lengths.split(",") if s):
        time_parsing(length)
    return 0


if __name__ == "__main__":
    sys.exit(main())
