"""Candidate commitments in the store (Form): kept in step with their notes at index time,
offered by `ledger suggest`, written to the ledger only by `ledger accept`.

A candidate keeps its identity across edits of its source line (matched by text, then
by similarity, never by line number), and nothing about it is ever deleted: a candidate
whose line or note goes away is retired (`present = 0`), and every change is an op in
the log (candidate-found, -changed, -retired, -accepted, -rejected). Candidates live in
their own table: they never fire and never boost until accepted, because firing and
salience read only ledger entries.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import PurePosixPath

from . import appended, form, ledger_append, ledger_sync
from .config import Settings
from .errors import NotFoundError, UsageError, VaultmemError
from .ledger import LedgerEntry
from .ledger_reconcile import new_id
from .schema import SCHEMA
from .store import Store
from .store import candidates as cand_rows
from .store import entries as entry_rows
from .store import notes as note_rows
from .text.words import IDENTITY_STOP, SLUG_WORD

MATCH_THRESHOLD = 0.6  # the ledger's own threshold for "an edit of the same line"
LEDGER_MATCH = 0.75  # text similarity plus link and date bonuses: "already in the ledger"
_FIELDS = ("line", "text", "action", "condition", "due", "start", "date_text", "kind",
           "confidence", "why", "links", "note_day")
_CHANGES = ("text", "action", "condition", "due", "start")  # what a candidate-changed op reports


# -------------------------------------------------------------------------- index time


def sync_note(store: Store, note_id: int, path: str,
              found: tuple[list[form.Candidate], date | None], stamp: str) -> None:
    """Form's reading of one (re)parsed note (what `find` returned for it) into the
    store, in the caller's transaction: its candidates found, changed or retired. Ledger
    notes hold entries, not candidates."""
    drafts, day = found
    _reconcile(store, note_id, path, drafts, day, stamp)


def find(settings: Settings, path: str, parsed, text: str | None, mtime_ns: int | None
         ) -> tuple[list[form.Candidate], date | None]:
    """(the candidates Form finds in a note, the day they are read against). Pure: the
    indexer runs it under the parse budget."""
    day = form.note_day(parsed.frontmatter, path, mtime_ns)
    note_type = parsed.frontmatter.get("type")
    if text and day and not ledger_sync.is_ledger(path, str(note_type or ""), settings):
        return form.extract(text, day).candidates, day
    return [], day


def retire_note(store: Store, note_id: int, stamp: str) -> None:
    """A deleted note's candidates are retired with it (kept, marked, never deleted)."""
    for cand_id in cand_rows.present_ids(store, note_id):
        store.mark_absent("candidates", cand_id, stamp)
        store.add_op(stamp, "candidate-retired", note_id, cand_id, {"reason": "note deleted"})


def _reconcile(store: Store, note_id: int, path: str, drafts: list[form.Candidate],
               day: date | None, stamp: str) -> None:
    known = cand_rows.of_note(store, note_id, ("id", "key", *_FIELDS))
    pairs = match(known, drafts)
    for i, draft in enumerate(drafts):
        row = _row(draft, day)
        if i not in pairs:
            cand_id = _new_id(store, draft)
            store.insert("candidates", {"id": cand_id, "note_id": note_id, "key": draft.key,
                                        **row, "status": "open", "present": 1,
                                        "first_seen": stamp, "updated_at": stamp})
            store.add_op(stamp, "candidate-found", note_id, cand_id,
                         {"path": path, "line": draft.line, "action": draft.action,
                          "due": row["due"], "condition": draft.condition,
                          "confidence": draft.confidence})
            continue
        old = known[pairs[i]]
        changed = {k: {"from": old[k], "to": row[k]} for k in _CHANGES if old[k] != row[k]}
        if changed or any(old[k] != row[k] for k in _FIELDS) or old["key"] != draft.key:
            store.update("candidates", old["id"], {"key": draft.key, **row, "updated_at": stamp})
        if changed:
            store.add_op(stamp, "candidate-changed", note_id, old["id"],
                         {"path": path, "line": draft.line, **changed})
    matched = set(pairs.values())
    for k, old in enumerate(known):
        if k not in matched:
            store.mark_absent("candidates", old["id"], stamp)
            store.add_op(stamp, "candidate-retired", note_id, old["id"],
                         {"path": path, "line": old["line"], "reason": "source line gone"})


def _row(draft: form.Candidate, day: date | None) -> dict:
    return {"line": draft.line, "text": draft.text, "action": draft.action,
            "condition": draft.condition, "due": _iso(draft.due), "start": _iso(draft.start),
            "date_text": draft.date_text, "kind": draft.kind, "confidence": draft.confidence,
            "why": json.dumps(list(draft.why), ensure_ascii=False),
            "links": json.dumps(list(draft.links), ensure_ascii=False),
            "note_day": day.isoformat() if day else None}


def match(known: list[dict], drafts: list[form.Candidate]) -> dict[int, int]:
    """draft index -> known index: the same sentence first, then the most similar one
    (an edit of the line: reworded, redated), never by line number alone."""
    pairs: dict[int, int] = {}
    free = {k: row for k, row in enumerate(known)}
    by_key: dict[str, list[int]] = {}
    for k, row in free.items():
        by_key.setdefault(row["key"], []).append(k)
    for i, draft in enumerate(drafts):
        same = [k for k in by_key.get(draft.key, []) if k in free]
        if same:
            k = min(same, key=lambda k: abs(free[k]["line"] - draft.line))
            pairs[i] = k
            del free[k]
    scored = []
    for i, draft in enumerate(drafts):
        if i in pairs:
            continue
        for k, row in free.items():
            score = _similar(row["key"], draft.key)
            if score >= MATCH_THRESHOLD:
                # ties go to the nearer line: two similar sentences keep their order
                scored.append((-score, abs(row["line"] - draft.line), k, i))
    for _, _, k, i in sorted(scored):
        if i not in pairs and k in free:
            pairs[i] = k
            del free[k]
    return pairs


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _new_id(store: Store, draft: form.Candidate) -> str:
    """"f-" and the first content words of the action; "-2", "-3"… when taken."""
    words = [w for w in SLUG_WORD.findall(draft.action.lower()) if w not in IDENTITY_STOP]
    base = "f-" + "-".join(words[:4] or ["commitment"])
    ident, n = base, 1
    while store.has("candidates", ident):
        n += 1
        ident = f"{base}-{n}"
    return ident


# -------------------------------------------------------------------------- suggest


@dataclass
class Suggestion:
    """One open candidate, as `ledger suggest` offers it."""

    id: str
    path: str
    line: int
    text: str
    action: str
    condition: str | None
    due: str | None
    date_text: str | None
    kind: str
    confidence: float
    why: list[str]
    links: list[str]
    note_day: str | None
    proposed: str  # the ledger line `ledger accept` would append
    start: str | None = None  # the window opens (a period's first day), when before due

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Suggestions:
    """`vaultmem ledger suggest`: open candidates not already in the ledger."""

    threshold: float
    since: str | None
    results: list[Suggestion]
    in_ledger: int  # open candidates left out because the ledger already holds them

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "threshold": self.threshold, "since": self.since,
                "in_ledger": self.in_ledger, "results": [s.as_dict() for s in self.results]}


def suggestions(store: Store, settings: Settings, since: date | None = None,
                min_confidence: float | None = None) -> Suggestions:
    """Open candidates at or above the confidence threshold, from notes written on or
    after `since`, that no ledger entry already holds; newest note first. A read."""
    threshold = settings.form_confidence if min_confidence is None else min_confidence
    found = cand_rows.open_above(store, threshold, _iso(since))
    entries = _entries(store)
    taken = entry_rows.ids(store)
    names = _link_names(store)
    out, held = [], 0
    for r in found:
        links = json.loads(r[11] or "[]")
        if any(_holds(entry, r[4], r[5], r[6], r[13], links) for entry in entries):
            held += 1
            continue
        source = names.get(r[13], PurePosixPath(r[1]).with_suffix("").as_posix())
        proposed = _proposed(r[4], r[6], r[5], [source, *links], taken, r[14])
        out.append(Suggestion(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                              json.loads(r[10] or "[]"), links, r[12], proposed, r[14]))
    return Suggestions(threshold, _iso(since), out, held)


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _proposed(action: str, due: str | None, when: str | None, links: list[str],
              taken: set[str], start: str | None = None) -> str:
    """The line `accept` would write, with the block id it would get (reserved in
    `taken`, so two suggestions never propose the same id)."""
    try:
        draft = ledger_append.compose(action, due=_day(due), when=when,
                                      links=tuple(dict.fromkeys(links)), start=_day(start))
    except UsageError:
        return ""
    ident = new_id(LedgerEntry(0, draft, "open", action), taken)
    taken.add(ident)
    return f"{draft} ^{ident}"


@dataclass
class _Entry:
    action: str
    due: str | None
    note_ids: set[int]
    targets: set[str]
    words: set[str]


def _entries(store: Store) -> list[_Entry]:
    """Every ledger entry still in a ledger, whatever its status (a done one is still
    the same commitment: it is not offered again)."""
    links: dict[str, tuple[set[int], set[str]]] = {}
    for entry_id, target_id, raw in entry_rows.link_rows(store):
        ids, raws = links.setdefault(entry_id, (set(), set()))
        if target_id is not None:
            ids.add(target_id)
        raws.add((raw or "").lower())
    out = []
    for entry_id, action, condition, due in entry_rows.present_actions(store):
        text = f"{action} {condition or ''}"
        ids, raws = links.get(entry_id, (set(), set()))
        out.append(_Entry(action, due, ids, raws, _words(text)))
    return out


def _words(text: str) -> set[str]:
    # A crude stem (the first five letters) so "renew" meets "renewal", "pay" meets "paid"
    # only where they share them; enough to recognise one commitment written twice.
    return {w[:5] for w in SLUG_WORD.findall(text.lower())
            if w not in IDENTITY_STOP and len(w) > 1}


def _holds(entry: _Entry, action: str, condition: str | None, due: str | None,
           note_id: int, links: list[str]) -> bool:
    """Whether a ledger entry already holds this candidate: similar words (the share of
    the shorter text's words found in the other), plus links to the same note and the
    same date."""
    mine = _words(f"{action} {condition or ''}")
    if not mine or not entry.words:
        return False
    overlap = len(mine & entry.words) / min(len(mine), len(entry.words))
    ratio = difflib.SequenceMatcher(None, action.lower(), entry.action.lower()).ratio()
    score = max(overlap, ratio)
    if note_id in entry.note_ids or any(link.lower() in entry.targets for link in links):
        score += 0.2
    if due and due == entry.due:
        score += 0.1
    return score >= LEDGER_MATCH


def _link_names(store: Store) -> dict[int, str]:
    """{note id: how a wiki-link names it}: its file name when no other live note shares
    it, else its vault-relative path (both without .md), as Obsidian resolves them."""
    live = note_rows.live_paths_all(store)
    stems: dict[str, int] = {}
    for _, path in live:
        stem = PurePosixPath(path).stem.lower()
        stems[stem] = stems.get(stem, 0) + 1
    out = {}
    for note_id, path in live:
        p = PurePosixPath(path)
        out[note_id] = p.stem if stems[p.stem.lower()] == 1 else p.with_suffix("").as_posix()
    return out


# -------------------------------------------------------------------------- decisions


@dataclass
class Decision:
    """What became of one candidate (an item of `ledger accept` / `ledger reject`)."""

    id: str
    status: str  # accepted | rejected
    entry: str | None = None  # the new ledger entry's id
    ledger: str | None = None
    line: int | None = None
    text: str | None = None  # the line appended

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Decisions:
    """`ledger accept` / `ledger reject`: the candidates decided, in the order given;
    `indexed`: whether the store was brought in step with the lines appended."""

    results: list[Decision]
    indexed: bool = True

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "results": [d.as_dict() for d in self.results],
                "indexed": self.indexed}


def _candidate(store: Store, cand_id: str) -> dict:
    cand = cand_rows.one(store, cand_id)
    if cand is None:
        raise NotFoundError(f"no candidate {cand_id!r}: `suggestions()` lists them")
    return cand


def acceptable(store: Store, cand_id: str) -> dict:
    """The candidate, if it can be accepted; else the error saying why not."""
    cand = _candidate(store, cand_id)
    if cand["status"] == "accepted":
        raise VaultmemError(f"{cand_id} was already accepted as ledger entry "
                            f"{cand['entry_id']}: nothing written")
    if not cand["present"]:
        raise VaultmemError(f"{cand_id}: its line is gone from {cand['path']} (as of the "
                            "last `index()`): nothing written")
    return cand


def accept(store: Store, settings: Settings, cand_id: str, edit: str | None,
           now: datetime) -> Decision:
    """Append the candidate to the ledger (the first of `ledger_notes`) through the same
    atomic append as `ledger add`, then mark it accepted. `edit` replaces its action."""
    cand = acceptable(store, cand_id)
    action = cand["action"] if edit is None else edit
    source = _link_names(store).get(cand["note_id"], PurePosixPath(cand["path"]).stem)
    links = tuple(dict.fromkeys([source, *json.loads(cand["links"] or "[]")]))
    taken = entry_rows.ids(store) | appended.ids(store)
    added = ledger_append.add(
        settings.vault, settings.ledger_notes[0], action,
        due=_day(cand["due"]), when=cand["condition"], links=links, taken=taken,
        start=_day(cand["start"]))
    stamp = now.isoformat(timespec="seconds")
    appended.remember(store, added, stamp)
    with store.atomic():
        cand_rows.accepted(store, cand_id, added.id, stamp)
        store.add_op(stamp, "candidate-accepted", cand["note_id"], cand_id,
                     {"entry": added.id, "ledger": added.ledger, "line": added.line,
                      "edited": edit is not None})
    return Decision(cand_id, "accepted", added.id, added.ledger, added.line, added.text)


def reject(store: Store, cand_id: str, now: datetime) -> Decision:
    """Hide the candidate for good (it stays in the store, marked rejected)."""
    cand = _candidate(store, cand_id)
    if cand["status"] == "accepted":
        raise VaultmemError(f"{cand_id} was already accepted as ledger entry "
                            f"{cand['entry_id']}: edit or cancel that line in the ledger")
    stamp = now.isoformat(timespec="seconds")
    if cand["status"] != "rejected":
        with store.atomic():
            cand_rows.rejected(store, cand_id, stamp)
            store.add_op(stamp, "candidate-rejected", cand["note_id"], cand_id, {})
    return Decision(cand_id, "rejected")
