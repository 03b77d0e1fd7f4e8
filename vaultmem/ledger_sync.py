"""The ledger into the store (the Revise step): entries as rows, changes as typed ops.

The ledger parser and the revision diff are pure (`ledger.py`); this module writes
their results. Nothing is ever deleted: an entry gone from the ledger is kept with
`present = 0` and a `removed` op, and one that comes back is `reopened` on its old id.
Runs at index time only.

A removal is recorded only from a ledger that stood still. An editor that saves in
place truncates the file, then writes it: an index that reads it between the two
sees an empty ledger, or the first part of one. So when a read would remove entries,
the file is checked again after a short settle (`settle`, from the indexer): if it
changed meanwhile, nothing of this ledger is changed in this run (the next run reads
the finished file). An empty ledger file never removes its entries, however long it
stays empty, because that is exactly what a save caught half-way looks like and a
person emptying a ledger on purpose rarely leaves a zero-byte file: its entries are
kept, with a warning saying how to remove them (delete the file, or keep any line in
it, such as its heading). Entries lost to a partial read that got past both checks
come back on their old ids when the whole file is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date
from typing import TYPE_CHECKING

from . import appended
from .config import Settings
from .embed import embed_text
from .ledger import LedgerEntry, parse_ledger
from .ledger_reconcile import Known, reconcile
from .nudge import field_problems
from .store import Store, entries, notes
from .store.runs import RunFlags
from .text.folder import content_hash
from .text.rows import Link

if TYPE_CHECKING:
    from .text.parse import Outline

_DATE_FIELDS = ("due", "scheduled", "start", "created", "done_on", "cancelled_on")


def is_ledger(path: str, note_type: str | None, settings: Settings) -> bool:
    """A ledger is a note with `type: ledger`, or one of the configured ledger notes."""
    return (note_type or "").lower() == "ledger" or path in settings.ledger_notes


def entry_to_json(entry: LedgerEntry) -> str:
    data = asdict(entry)
    for key in _DATE_FIELDS:
        data[key] = data[key].isoformat() if data[key] else None
    return json.dumps(data, ensure_ascii=False)


def entry_from_json(text: str) -> LedgerEntry:
    data = json.loads(text)
    for key in _DATE_FIELDS:
        data[key] = date.fromisoformat(data[key]) if data[key] else None
    for key in ("keywords", "links", "tags"):
        data[key] = tuple(data[key])
    return LedgerEntry(**data)


@dataclass(frozen=True)
class LedgerRead:
    """A ledger note as an index run read it.

    `text` None means the note is gone or no longer a ledger: its entries are removed.
    `outline` is the note's, when the indexer already parsed it. `settle()`, called only
    when the text would remove an entry, says whether the file still holds that text
    after a short wait (see the module's docstring). `read`: the file's modification time
    and content hash as read, to find lines vaultmem appended that were saved over.
    """

    path: str
    note_id: int | None
    text: str | None
    outline: Outline | None = None
    settle: Callable[[], bool] | None = None
    read: tuple[int, str] | None = None


def sync_ledger(store: Store, note: LedgerRead, stamp: str, lost: list[str] | None = None
                ) -> list[tuple[str, int | None, str]]:
    """Reconcile one ledger note with what the store knows; return its line warnings.
    Lines vaultmem appended that this read finds saved over are added to `lost`
    (`appended.check`)."""
    path, note_id, text = note.path, note.note_id, note.text
    found, warnings = parse_ledger(text, note.outline) if text is not None else ([], [])
    known = [Known(entry_id, entry_from_json(entry))
             for entry_id, entry in entries.present_in(store, path)]
    changes = reconcile(known, found, entries.ids(store), _removed(store, path, found))
    if text is not None and any(entry is None for _, entry, _ in changes):
        held = _held_back(path, text, len(known), note.settle)
        if held is not None:
            return [(path, None, held)]
    for entry_id, entry, revisions in changes:
        if entry is None:
            store.mark_absent("entries", entry_id, stamp)
        else:
            _write_entry(store, entry_id, path, entry, stamp)
        for rev in revisions:
            store.add_op(stamp, rev.kind, note_id, entry_id, rev.detail)
    saved_over = appended.check(store, path, changes, note.read, stamp)
    if lost is not None:
        lost.extend(saved_over)
    return sorted([(path, w.line, w.message) for w in warnings] +
                  [(path, e.line, message) for e in found
                   for _, message in field_problems(e.fields)],
                  key=lambda w: w[1] or 0)


def _removed(store: Store, path: str, current: list[LedgerEntry]) -> list[Known]:
    """The entries gone from ledgers that may come back here: this ledger's, and any
    ledger's whose block id a current line carries (a line moved to another ledger).
    Most recently removed first: of two alike, the one that left last returns."""
    blocks = {e.block_id for e in current if e.block_id}
    return [Known(entry_id, entry_from_json(entry))
            for entry_id, entry, ledger, block in entries.removed(store)
            if ledger == path or block in blocks or entry_id in blocks]


def _held_back(path: str, text: str, known: int, settle: Callable[[], bool] | None
               ) -> str | None:
    """Why this read of the ledger must not remove entries, or None when it may."""
    if not text.strip():
        return (f"ledger file is empty: its {known} entries are kept as they were (an "
                "editor saving in place empties the file for a moment); to remove them, "
                "delete the file or keep a line in it, such as its heading")
    if settle is not None and not settle():
        return ("ledger changed while it was being read (a save in progress): its entries "
                "are kept as they were and read again on the next run")
    return None


def _write_entry(store: Store, entry_id: str, path: str, entry: LedgerEntry, stamp: str):
    iso = {k: getattr(entry, k).isoformat() if getattr(entry, k) else None
           for k in _DATE_FIELDS}
    cond = entry.condition
    row = {
        "ledger_path": path, "line": entry.line, "raw": entry.raw, "status": entry.status,
        "action": entry.action, "condition": cond, "keywords": json.dumps(entry.keywords),
        "due": iso["due"], "scheduled": iso["scheduled"], "start": iso["start"],
        "fires_from": entry.fires_from.isoformat() if entry.fires_from else None,
        "done_on": iso["done_on"], "cancelled_on": iso["cancelled_on"],
        "project": entry.project, "tags": json.dumps(entry.tags), "block_id": entry.block_id,
        "fields": json.dumps(entry.fields, ensure_ascii=False), "present": 1,
        "cond_hash": condition_hash(cond) if cond else None,
        "entry": entry_to_json(entry), "updated_at": stamp,
    }
    entries.write(store, entry_id, row, entry.links, stamp)


def condition_hash(condition: str) -> str:
    """Conditions are embedded like chunks: keyed by the hash of the embedded text."""
    return content_hash(embed_text("", "", condition).encode())


def resolve_entry_links(store: Store, resolver, ids: dict[str, int]
                        ) -> list[tuple[str, int, str]]:
    """Point every present entry's links at notes, as a wiki-link from its ledger would.
    Returns a warning for each link that names no note but named one that has since been
    moved or renamed (the ledger would otherwise lose it without a word)."""
    updates, unresolved = [], []
    for entry_id, ord_, target, ledger_path, line in entries.present_links(store):
        hit = resolver.resolve(Link(target, "wiki", None, None, None, 0), ledger_path)
        updates.append((ids.get(hit) if hit else None, entry_id, ord_))
        if hit is None:
            unresolved.append((entry_id, target, ledger_path, line))
    entries.point_links(store, updates)
    return _renamed_targets(store, unresolved, ids) if unresolved else []


def _renamed_targets(store: Store, unresolved, ids: dict[str, int]) -> list[tuple]:
    """(ledger, line, message) for the unresolved entry links that resolve to a path a
    live note had before it was moved or renamed (the ops log keeps every move)."""
    from .text.resolve import Resolver

    paths = {note_id: path for path, note_id in ids.items()}
    former: dict[str, int] = {}
    for note_id, old in notes.moves(store):
        if note_id in paths and old and old not in ids:
            former[old] = note_id
    if not former:
        return []
    resolver = Resolver(former)
    out = []
    for entry_id, target, ledger_path, line in unresolved:
        hit = resolver.resolve(Link(target, "wiki", None, None, None, 0), ledger_path)
        if hit:
            out.append((ledger_path, line, f"commitment {entry_id} lost its link to "
                        f"{target} (renamed to {paths[former[hit]]}?): link the note by "
                        "its new name"))
    return out


# -- views: the texts the trigger matcher compares a context with ---------------------

def view_texts(action: str, condition: str | None, titles: list[str],
               aliases: list[str], notes: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(kind, text) of every view of one entry, in a stable order, without repeats.

    `keywords::` and the project are no view: a list of words, or one word like
    "house", embeds as no situation in particular (on the fixtures vault "review,
    contrast, plugin" came closest to a question about paint colours, and the project
    "house" put a plumber's invoice first for "renovation budget"). Keywords serve the
    keyword half; titles and aliases are kept for it (see trigger.EMBEDDED_VIEWS), and
    so are the names the linked notes carry (`notes`: their texts), for a condition's
    subject named in other words ("names", not embedded either).
    """
    views = []
    if condition:
        views += [("condition", condition), ("condition+action", f"When {condition}, {action}")]
        from .trigger import subject_text

        subject = subject_text(condition)
        if subject:
            views.append(("subject", subject))
    views.append(("action", action))
    views += [("title", t) for t in titles] + [("alias", a) for a in aliases]
    if condition:
        from .trigger import note_names

        names = dict.fromkeys(n for text in (*titles, *aliases)
                              for n in note_names(text, heading=True))
        names |= dict.fromkeys(n for text in notes for n in note_names(text))
        if names:
            views.append(("names", " ".join(names)))
    seen, out = set(), []
    for kind, text in views:
        text = " ".join(text.split())
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append((kind, text))
    return out


def refresh_views(store: Store) -> bool:
    """Bring `entry_views` in line with the open entries and the notes they link.

    Runs at the end of every index run (after links are resolved) and writes only when
    something differs, so a no-op run writes nothing; a killed run is redone by the next.
    """
    want = []
    for entry_id, action, condition in entries.open_actions(store):
        titles, aliases = _linked_names(store, entry_id)
        texts_of_notes = entries.linked_texts(store, entry_id) if condition else ()
        texts = view_texts(action or "", condition, titles, aliases, texts_of_notes)
        want += [(entry_id, i, kind, text, condition_hash(text))
                 for i, (kind, text) in enumerate(texts)]
    if entries.views(store) == want:
        return False
    with store.atomic():
        entries.replace_views(store, want)
        RunFlags(store).unsettle()  # new texts await their vectors
    return True


def _linked_names(store: Store, entry_id: str) -> tuple[list[str], list[str]]:
    rows = entries.linked_notes(store, entry_id)
    titles = [title for _, title in rows if title]
    return titles, [alias for note_id, _ in rows for alias in notes.aliases(store, note_id)]
