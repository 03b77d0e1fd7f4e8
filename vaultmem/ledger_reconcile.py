"""Two ledger states in, typed revisions out: which line of today is which commitment.

``reconcile`` is the Revise step of a typed intention store (reschedule, override, cancel,
...): lifecycle logic in code, decided by matching the previous ledger state to the current
one rather than by line position. Block ids first, then equal texts, then similar ones
(blocked, so a large ledger stays linear); recurring entries checked off and entries
that come back after leaving keep their ids. Pure, like `ledger`, whose entries it reads.
"""

from __future__ import annotations

import difflib
import hashlib
import unicodedata
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import groupby

from .ledger import LedgerEntry, render_entry
from .text.words import IDENTITY_STOP, SLUG_WORD, TOKEN

# Fuzzy identity: action similarity (difflib ratio) plus bonuses, accepted at THRESHOLD.
# Shared links count up to LINK_BONUS (identical links let a ratio of 0.4 pass) and the
# same window start adds DATE_BONUS (identical links and date: a ratio of 0.3 passes).
MATCH_THRESHOLD = 0.6
LINK_BONUS = 0.2
DATE_BONUS = 0.1
FUZZY_CANDIDATES = 8




@dataclass(frozen=True)
class Revision:
    """One typed change of a commitment between two ledger states."""

    kind: str
    detail: dict = field(hash=False)


@dataclass(frozen=True)
class Known:
    """An entry as the store remembers it from the previous run."""

    id: str
    entry: LedgerEntry




def reconcile(
    known: Sequence[Known],
    current: Sequence[LedgerEntry],
    taken_ids: AbstractSet[str] = frozenset(),
    removed: Sequence[Known] = (),
) -> list[tuple[str, LedgerEntry | None, list[Revision]]]:
    """Match the remembered entries to the current ones and type every change.

    One tuple per identity: current entries in their order (new ones with a fresh id and
    a "created" revision), then vanished known entries with None and a "removed" one.
    Matching never depends on line position. A recurring entry checked off (see
    `_recurrences`) keeps its id on the next occurrence, with an "occurrence-done"
    revision; the done occurrence is kept as an entry of its own.

    `removed`: entries gone from the ledger earlier (most likely first). One that comes
    back is the same commitment: it gets its old id and a "reopened" revision, so it
    keeps one history (SPEC 3). Block ids are matched first, against present and
    removed entries alike; then the present entries take what the identity rules give
    them, as they would with no removed entry at all; only then are the removed
    entries offered what is left, by the same rules. Block ids are read as
    `_keyed` reads them, so that the ledger alone gives the ids its history gave.
    """
    known_keyed, removed_keyed = _keyed_known(known), _keyed_known(removed)
    keyed = _keyed(current)
    recurred = _recurrences(known_keyed, keyed)
    used = set(taken_ids) | {k.id for k in known}
    archived: dict[int, str] = {}  # done occurrence -> its own id
    occurrence_of = {done: known[ki].id for ki, done in recurred.values()}
    for ki, done in recurred.values():
        archived[done] = _occurrence_id(known[ki].id, current[done], used)
        used.add(archived[done])
    # A new done occurrence in a run is filed under the commitment the run continues,
    # unless a block id of its own names it.
    run_of = {done: top for top, dones in _runs(current).items() for done in dones
              if not keyed[done].block_id}
    pairs = _match_returning(known_keyed, removed_keyed, keyed,
                             {ci: ki for ci, (ki, _) in recurred.items()}, set(archived),
                             set(run_of))
    everyone = [*known, *removed]
    decided: dict[int, tuple[str, LedgerEntry | None, list[Revision]]] = {}
    for ci, entry in enumerate(current):
        if ci in recurred:
            ki, done = recurred[ci]
            old = known[ki]
            found = [r for r in revisions(old.entry, entry) if r.kind != "rescheduled"]
            occurrence = _occurrence_done(current[done], entry, archived[done])
            decided[ci] = (old.id, entry, [occurrence, *found])
        elif ci in archived:
            decided[ci] = _kept_occurrence(archived[ci], entry, occurrence_of[ci])
        elif ci in pairs and pairs[ci] >= len(known):
            old = everyone[pairs[ci]]
            decided[ci] = (old.id, entry, _returned(old.entry, entry))
        elif ci in pairs:
            old = known[pairs[ci]]
            decided[ci] = (old.id, entry, revisions(old.entry, entry))
        elif ci not in run_of:
            ident = new_id(keyed[ci], used)
            used.add(ident)
            decided[ci] = (ident, entry, [Revision("created", _snapshot(entry))])
    for ci in sorted(set(run_of) - set(decided)):
        owner = decided[run_of[ci]][0]
        ident = _occurrence_id(owner, current[ci], used)
        used.add(ident)
        decided[ci] = _kept_occurrence(ident, current[ci], owner)
    matched = set(pairs.values())
    return [decided[ci] for ci in range(len(current))] + [
        (k.id, None, [Revision("removed", _snapshot(k.entry))])
        for ki, k in enumerate(known) if ki not in matched]


def _kept_occurrence(ident: str, entry: LedgerEntry, of: str
                     ) -> tuple[str, LedgerEntry, list[Revision]]:
    return ident, entry, [Revision("created", {**_snapshot(entry), "occurrence_of": of})]


def _keyed_known(known: Sequence[Known]) -> list[Known]:
    """`known` with block ids as `_keyed` reads them (a stored entry is its line as read)."""
    return [Known(k.id, e) for k, e in zip(known, _keyed([k.entry for k in known]),
                                           strict=True)]


def _match_returning(known: Sequence[Known], removed: Sequence[Known],
                     current: Sequence[LedgerEntry], pairs: dict[int, int],
                     skip: AbstractSet[int], occurrences: AbstractSet[int] = frozenset()
                     ) -> dict[int, int]:
    """`_match` over the present entries (indexes below len(known)) and the removed ones
    (the indexes after them), in three tiers: block ids among all of them, the present
    entries by every rule, then the removed entries by every rule, for lines without a
    block id only. A line that carries a block id no entry has is a new commitment
    (`ledger add` writes one on every line it appends): it never takes the id of an old
    removed entry merely for its words. Nor does a done line of a recurring run
    (`occurrences`): every occurrence has the commitment's words, so only the very line
    that left (same text, dates and status) comes back on its id."""
    if not removed:
        return _match(known, current, pairs, skip)
    everyone = [*known, *removed]
    present, gone = range(len(known)), range(len(known), len(everyone))
    pairs = _match(everyone, current, pairs, skip, stages=_BLOCK_STAGES)
    pairs = _match(everyone, current, pairs, skip, among=present)
    named = {ci for ci, entry in enumerate(current) if entry.block_id}
    pairs = _match(everyone, current, pairs, set(skip) | named, stages=_SAME_LINE,
                   among=gone)
    return _match(everyone, current, pairs, set(skip) | named | set(occurrences), among=gone)


def _returned(old: LedgerEntry, new: LedgerEntry) -> list[Revision]:
    """A removed entry back in a ledger: "reopened", then whatever else changed. A status
    change to open is that same reopening; one to done or cancelled is its own."""
    detail = {"from": "removed"}
    if old.status != new.status:
        detail["status"] = {"from": old.status, "to": new.status}
    changes = [r for r in revisions(old, new) if r.kind != "reopened"]
    return [Revision("reopened", detail), *changes]


def _recurrences(known: Sequence[Known], current: Sequence[LedgerEntry]
                 ) -> dict[int, tuple[int, int]]:
    """{next occurrence: (known entry, its done occurrence)} for recurring entries
    checked off since the last run, as Obsidian Tasks does it: the open line is marked
    done (its dates kept) and a new open line is written with the same text and
    recurrence and its dates moved on. The new line continues the commitment.

    A known open entry with a recurrence R qualifies when the current ledger holds a
    done line with its text, R and its window start that was not filed before, and an
    open line with its text and R that either starts later and is not another known
    entry as it stood, or reads as the known entry itself: the next occurrence of an
    undated rule, or of a `when done` rule checked off before its date, is the very
    line it replaces.
    """
    waiting: dict[tuple, list[int]] = {}
    for ki, k in enumerate(known):
        if k.entry.status == "open" and _recurrence_key(k.entry):
            waiting.setdefault((*_recurrence_key(k.entry), k.entry.fires_from), []).append(ki)
    if not waiting:
        return {}
    # Lines that already belong to a known entry are nobody's next or done occurrence:
    # another open entry as it stood, a block id in use, an occurrence filed before.
    standing = {(*_recurrence_key(k.entry), k.entry.fires_from) for k in known
                if k.entry.status == "open" and _recurrence_key(k.entry)}
    filed = {(*_recurrence_key(k.entry), k.entry.fires_from, k.entry.done_on) for k in known
             if k.entry.status == "done" and _recurrence_key(k.entry)}
    owner = {k.id: _recurrence_key(k.entry) for k in known}
    done_lines: dict[tuple, list[int]] = {}
    open_lines: dict[tuple, list[int]] = {}
    for ci, entry in enumerate(current):
        key = _recurrence_key(entry)
        if not key or (entry.block_id in owner and owner[entry.block_id] != key):
            continue  # a block id another commitment holds
        if entry.status == "done" and (*key, entry.fires_from, entry.done_on) not in filed:
            done_lines.setdefault((*key, entry.fires_from), []).append(ci)
        elif entry.status == "open":
            open_lines.setdefault(key, []).append(ci)
    out: dict[int, tuple[int, int]] = {}
    for (*key, start), kis in waiting.items():
        dones = sorted(done_lines.get((*key, start), []),  # the newest check-off first
                       key=lambda c: current[c].done_on or date.min, reverse=True)
        nexts = [ci for ci in open_lines.get(tuple(key), []) if ci not in out
                 and _next_after(current[ci].fires_from, start,
                                 (*key, current[ci].fires_from) in standing)]
        nexts.sort(key=lambda c: current[c].fires_from or date.min)
        for ki, done, nxt in zip(kis, dones, nexts, strict=False):
            out[nxt] = (ki, done)
    return out


def _next_after(day: date | None, start: date | None, standing: bool) -> bool:
    """Whether an open line from `day` can be the next occurrence of one from `start`."""
    if day == start:
        return True  # it reads as the line it replaces
    return day is not None and start is not None and day > start and not standing


def _recurrence_key(entry: LedgerEntry) -> tuple | None:
    rule = entry.fields.get("recurrence")
    if not rule:
        return None
    return (entry.action, entry.condition, rule)


def _runs(entries: Sequence[LedgerEntry]) -> dict[int, list[int]]:
    """{open line: its done occurrences} for each run of a recurring entry as Obsidian
    Tasks leaves it: entries one after the other in the ledger with one text and one
    rule, one of them open and at an end of the run (Tasks writes each next occurrence
    above the done one, or below with its setting), the others done and none of them
    from a later day than the open one."""
    order = sorted(range(len(entries)), key=lambda i: entries[i].line)
    runs: dict[int, list[int]] = {}
    for key, group in groupby(order, key=lambda i: _recurrence_key(entries[i])):
        members = list(group)
        opens = [i for i in members if entries[i].status == "open"]
        if key is None or len(members) < 2 or len(opens) != 1:
            continue
        top, = opens
        dones = [i for i in members if i != top]
        if (top in (members[0], members[-1])
                and all(entries[i].status == "done" for i in dones)
                and all(_not_later(entries[i].fires_from, entries[top].fires_from)
                        for i in dones)):
            runs[top] = dones
    return runs


def _not_later(day: date | None, than: date | None) -> bool:
    return day == than or (day is not None and than is not None and day < than)


def _keyed(entries: Sequence[LedgerEntry]) -> list[LedgerEntry]:
    """The entries with their block ids as identity reads them. Tasks leaves a recurring
    entry's block id on the done occurrence and writes the next one without it; in a run
    (`_runs`) whose open line has no block id and whose done lines hold one, that block
    id names the open line, the commitment that continues."""
    keyed = list(entries)
    for top, dones in _runs(entries).items():
        held = [i for i in dones if entries[i].block_id]
        if entries[top].block_id is None and len(held) == 1:
            keyed[top] = replace(entries[top], block_id=entries[held[0]].block_id)
            keyed[held[0]] = replace(entries[held[0]], block_id=None)
    return keyed


def _occurrence_id(ident: str, done: LedgerEntry, taken: AbstractSet[str]) -> str:
    """The id a done occurrence is kept under: the commitment's id and its date."""
    day = done.done_on or done.fires_from
    base = f"{ident}-{day.isoformat()}" if day else f"{ident}-done"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _occurrence_done(done: LedgerEntry, nxt: LedgerEntry, archived_as: str) -> Revision:
    return Revision("occurrence-done", {
        "on": _iso(done.done_on), "due": _iso(done.due), "from": _iso(done.fires_from),
        "next": _iso(nxt.fires_from), "next_due": _iso(nxt.due),
        "recurrence": nxt.fields.get("recurrence"), "occurrence": archived_as})


def revisions(old: LedgerEntry, new: LedgerEntry) -> list[Revision]:
    """The typed changes from one state of a commitment to the next, in canonical order."""
    found = [_rescheduled(old, new), _overridden(old, new), _retargeted(old, new),
             _status_change(old, new)]
    return [revision for revision in found if revision is not None]


# An id is typed on the command line and shown in every listing: a block id longer than
# this is matched as usual but not used as the id, and a slug is cut to it.
MAX_ID_CHARS = 64


def new_id(entry: LedgerEntry, taken: AbstractSet[str]) -> str:
    """A fresh id: the block id if free (and at most MAX_ID_CHARS), else "c-" and slug
    words, suffixed "-2", "-3"...

    Deterministic; ``taken`` is only read.
    """
    if entry.block_id and entry.block_id not in taken and len(entry.block_id) <= MAX_ID_CHARS:
        return entry.block_id
    base = _slug(entry.action)
    ident, n = base, 1
    while ident in taken:
        n += 1
        ident = f"{base}-{n}"
    return ident


def _slug(action: str) -> str:
    folded = unicodedata.normalize("NFKD", action).encode("ascii", "ignore").decode().lower()
    words = SLUG_WORD.findall(folded)
    content = [w for w in words if w not in IDENTITY_STOP] or words
    if not content:  # nothing ascii to say: a stable hash still gives a usable id
        return "c-" + hashlib.sha1(action.encode()).hexdigest()[:8]
    # Room for a "-NNN" suffix; a word longer than the room is cut, not dropped.
    return ("c-" + "-".join(content[:4]))[:MAX_ID_CHARS - 6].rstrip("-")


def _match(known: Sequence[Known], current: Sequence[LedgerEntry],
           pairs: dict[int, int] | None = None,
           skip: AbstractSet[int] = frozenset(), *, stages: Sequence = (),
           among: Sequence[int] | None = None) -> dict[int, int]:
    """current index -> known index, stage by stage from the surest evidence down,
    after the given `pairs`; current entries in `skip` are matched to nothing. `stages`:
    all of them unless given; `among`: the known indexes that may be matched (all)."""
    pairs = dict(pairs or {})
    candidates = range(len(known)) if among is None else among
    for stage in stages or _MATCH_STAGES:
        taken = set(pairs.values())
        free_k = [ki for ki in candidates if ki not in taken]
        free_c = [ci for ci in range(len(current)) if ci not in pairs and ci not in skip]
        for ki, ci in stage(known, current, free_k, free_c):
            pairs[ci] = ki
    return pairs


def _pair_equal(key_k, key_c):
    """A matching stage that pairs free entries whose keys are equal (and not None)."""

    def stage(known, current, free_k, free_c):
        waiting: dict[object, list[int]] = {}
        for ki in free_k:
            key = key_k(known[ki])
            if key is not None:
                waiting.setdefault(key, []).append(ki)
        pairs = []
        for ci in free_c:
            queue = waiting.get(key_c(current[ci]))
            if queue:
                pairs.append((queue.pop(0), ci))
        return pairs

    return stage


def _text_key(entry: LedgerEntry) -> tuple:
    return (entry.action, entry.condition, tuple(sorted(entry.links)))


def _full_key(entry: LedgerEntry) -> tuple:
    # Among identical texts, prefer the twin with the same dates and status, so that
    # reordering two "Pay rent" lines with different due dates changes nothing.
    return (*_text_key(entry), entry.due, entry.scheduled, entry.start, entry.status)


def _pair_similar(known, current, free_k, free_c):
    """Greedy best-first pairing of the remaining entries by similarity."""
    blocks = _Blocks([known[ki].entry for ki in free_k], free_k)
    return greedy_pairs(known, current, free_c, lambda ci: _closest(blocks, current[ci]))


def greedy_pairs(known, current, free_c, closest) -> list[tuple[int, int]]:
    """Best score first, each known and each current entry used once. `closest(ci)`
    yields (score, ki) candidates for current entry ci."""
    scored = []
    for ci in free_c:
        content = render_entry(current[ci])  # ties break on content, never on line position
        for score, ki in closest(ci):
            scored.append((-score, known[ki].id, content, ki, ci))
    scored.sort()
    pairs, used_k, used_c = [], set(), set()
    for *_, ki, ci in scored:
        if ki not in used_k and ci not in used_c:
            pairs.append((ki, ci))
            used_k.add(ki)
            used_c.add(ci)
    return pairs


def _closest(blocks: _Blocks, entry: LedgerEntry) -> list[tuple[float, int]]:
    """(score, known index) for the free known entries similar enough to ``entry``.

    Only entries in the same block are compared (see `_Blocks`). The quick ratio
    bounds difflib's ratio() from above and costs far less, so only the
    FUZZY_CANDIDATES best bounds get an exact ratio.
    """
    new = _Shape(entry)
    bounds = []
    for ki in blocks.candidates(new):
        old = blocks.shapes[ki]
        if _distinct_blocks(old.entry, entry):
            continue
        bonus = old.bonus(new)
        length = len(old.text) + len(new.text)
        # difflib's real_quick_ratio, then quick_ratio, computed the same way.
        if 2.0 * min(len(old.text), len(new.text)) / length + bonus >= MATCH_THRESHOLD:
            bound = 2.0 * old.common_chars(new) / length + bonus
            if bound >= MATCH_THRESHOLD:
                bounds.append((-bound, ki, bonus))
    found = []
    matcher = difflib.SequenceMatcher(None, "", new.text, autojunk=False)
    for _, ki, bonus in sorted(bounds)[:FUZZY_CANDIDATES]:
        matcher.set_seq1(blocks.shapes[ki].text)
        score = matcher.ratio() + bonus
        if score >= MATCH_THRESHOLD:
            found.append((score, ki))
    return found


class _Shape:
    """What the fuzzy stage compares of an entry, computed once per entry."""

    __slots__ = ("entry", "text", "chars", "links", "fires_from", "keys")

    def __init__(self, entry: LedgerEntry):
        self.entry = entry
        self.text = entry.action.lower()
        self.chars = Counter(self.text)
        self.links = frozenset(entry.links)
        self.fires_from = entry.fires_from
        self.keys = _block_keys(self.text, entry.links, self.fires_from)

    def common_chars(self, other: _Shape) -> int:
        """Characters the two texts share, counted with multiplicity (difflib's
        quick_ratio numerator)."""
        theirs = other.chars
        return sum(min(n, theirs[c]) for c, n in self.chars.items() if c in theirs)

    def bonus(self, other: _Shape) -> float:
        """`_bonus`, from the precomputed parts."""
        same_date = self.fires_from is not None and self.fires_from == other.fires_from
        links = 0.0
        if self.links and other.links:
            links = len(self.links & other.links) / len(self.links | other.links)
        return LINK_BONUS * links + DATE_BONUS * same_date


class _Blocks:
    """Which remembered entries are worth comparing with a current one (blocking).

    Comparing every pair is quadratic: 11 minutes for 5,000 reworded entries. An
    entry is compared only with the entries that share one of its rarer keys: a
    content word, a pair of content words, a link, or the start of its date window.
    A key held by more than BLOCK_CAP entries says little and is skipped; a pair of
    common words is usually rare, which keeps "Pay the plumber" near "Pay plumber"
    in a ledger where "pay" is everywhere. When every key of an entry is common, it
    is compared with the first BLOCK_CAP entries holding its rarest one. Each entry
    costs at most its keys times BLOCK_CAP comparisons, whatever the ledger's size.
    """

    def __init__(self, entries: Sequence[LedgerEntry], indexes: Sequence[int]):
        self.shapes: dict[int, _Shape] = {}
        self.postings: dict[object, list[int]] = {}
        for entry, ki in zip(entries, indexes, strict=True):
            shape = self.shapes[ki] = _Shape(entry)
            for key in shape.keys:
                self.postings.setdefault(key, []).append(ki)

    def candidates(self, shape: _Shape) -> list[int]:
        lists = sorted((self.postings[k] for k in shape.keys if k in self.postings), key=len)
        if not lists:
            return []
        chosen = [ks for ks in lists if len(ks) <= BLOCK_CAP] or [lists[0][:BLOCK_CAP]]
        return sorted(set().union(*chosen))


BLOCK_CAP = 64


def _block_keys(text: str, links: Sequence[str], fires_from: date | None) -> set:
    """Content words, pairs of them (each with its next three, alphabetically, so that
    a long action stays linear), links and the window's start."""
    words = sorted({w for w in TOKEN.findall(text) if w not in IDENTITY_STOP})
    keys: set = set(words)
    keys.update((a, b) for i, a in enumerate(words) for b in words[i + 1:i + 4])
    keys.update(("link", link) for link in links)
    if fires_from is not None:
        keys.add(("date", fires_from))
    return keys


def _words_key(entry: LedgerEntry) -> tuple:
    return (entry.action, entry.condition)


_BLOCK_STAGES = (
    _pair_equal(lambda k: k.entry.block_id, lambda e: e.block_id),
    # A block id added later that spells the id the store gave the entry.
    _pair_equal(lambda k: k.id, lambda e: e.block_id),
)
_SAME_LINE = (_pair_equal(lambda k: _full_key(k.entry), _full_key),)
_MATCH_STAGES = (
    *_BLOCK_STAGES,
    *_SAME_LINE,
    _pair_equal(lambda k: _text_key(k.entry), _text_key),
    # Same words, other links: a retargeted entry is surely itself, before any fuzzy
    # match lets a similar neighbour take its id.
    _pair_equal(lambda k: _words_key(k.entry), _words_key),
    _pair_similar,
)


def _distinct_blocks(a: LedgerEntry, b: LedgerEntry) -> bool:
    return bool(a.block_id and b.block_id and a.block_id != b.block_id)


def _bonus(a: LedgerEntry, b: LedgerEntry) -> float:
    same_date = a.fires_from is not None and a.fires_from == b.fires_from
    return LINK_BONUS * _jaccard(a.links, b.links) + DATE_BONUS * same_date


def _jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    # No links on either side is no evidence of sameness.
    union = set(a) | set(b)
    return len(set(a) & set(b)) / len(union) if a and b else 0.0


def _rescheduled(old: LedgerEntry, new: LedgerEntry) -> Revision | None:
    changed = {name: {"from": _iso(getattr(old, name)), "to": _iso(getattr(new, name))}
               for name in ("due", "scheduled", "start")
               if getattr(old, name) != getattr(new, name)}
    if not changed:
        return None
    detail = {"from": _iso(old.fires_from), "to": _iso(new.fires_from), "fields": changed}
    return Revision("rescheduled", detail)


def _overridden(old: LedgerEntry, new: LedgerEntry) -> Revision | None:
    if (old.action, old.condition) == (new.action, new.condition):
        return None
    detail: dict = {"from": old.action, "to": new.action}
    if old.condition != new.condition:
        detail["condition"] = {"from": old.condition, "to": new.condition}
    return Revision("overridden", detail)


def _retargeted(old: LedgerEntry, new: LedgerEntry) -> Revision | None:
    added = [link for link in new.links if link not in old.links]
    removed = [link for link in old.links if link not in new.links]
    if not added and not removed:
        return None
    return Revision("retargeted", {"added": added, "removed": removed})


def _status_change(old: LedgerEntry, new: LedgerEntry) -> Revision | None:
    if old.status == new.status:
        return None
    if new.status == "open":
        return Revision("reopened", {"from": old.status})
    on = new.done_on if new.status == "done" else new.cancelled_on
    return Revision(new.status, {"from": old.status, "on": _iso(on)})


def _snapshot(entry: LedgerEntry) -> dict:
    """A JSON-safe picture of an entry, for "created" and "removed" revisions."""
    return {
        "action": entry.action, "condition": entry.condition, "status": entry.status,
        "links": list(entry.links), "due": _iso(entry.due),
        "scheduled": _iso(entry.scheduled), "start": _iso(entry.start),
        "project": entry.project, "block_id": entry.block_id, "line": entry.line,
    }


def _iso(value: date | None) -> str | None:
    return None if value is None else value.isoformat()
