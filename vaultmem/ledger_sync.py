"""The ledger into the store (the Revise step): entries as rows, changes as typed ops.

The ledger parser and the revision diff are pure (`ledger.py`); this module writes
their results. Nothing is ever deleted: an entry gone from the ledger is kept with
`present = 0` and a `removed` op. Runs at index time only.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import date
from typing import TYPE_CHECKING

from .config import Settings
from .embed import embed_text
from .ledger import Known, LedgerEntry, Revision, parse_ledger, reconcile
from .rows import Link
from .store import Store
from .vault import content_hash

if TYPE_CHECKING:
    from .parse import Outline

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


def sync_ledger(store: Store, path: str, note_id: int | None, text: str | None,
                stamp: str, outline: Outline | None = None) -> list[tuple[str, int, str]]:
    """Reconcile one ledger note with what the store knows; return its line warnings.

    `text` None means the note is gone or no longer a ledger: its entries are removed.
    `outline` is the note's, when the indexer already parsed it.
    """
    entries, warnings = parse_ledger(text, outline) if text is not None else ([], [])
    known = [Known(row[0], entry_from_json(row[1])) for row in store.execute(
        "SELECT id, entry FROM entries WHERE ledger_path = ? AND present = 1", [path])]
    taken = {row[0] for row in store.execute("SELECT id FROM entries")}
    revived = _revivable(store, entries)
    for entry_id, entry, revisions in reconcile(known + revived, entries, taken):
        if entry_id in {k.id for k in revived}:
            if entry is None:
                continue  # still gone: it was removed once, and stays so
            revisions = [Revision("reopened", {"from": "removed"}), *revisions]
        if entry is None:
            store.execute("UPDATE entries SET present = 0, updated_at = ? WHERE id = ?",
                          [stamp, entry_id])
        else:
            _write_entry(store, entry_id, path, entry, stamp)
        for rev in revisions:
            store.add_op(stamp, rev.kind, note_id, entry_id, rev.detail)
    return [(path, w.line, w.message) for w in warnings]


def _revivable(store: Store, entries: list[LedgerEntry]) -> list[Known]:
    """Removed entries whose block id is back in the ledger: the line was put back, so the
    commitment is reopened on its old id with its history (SPEC 3), not created anew."""
    ids = [e.block_id for e in entries if e.block_id]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    return [Known(row[0], entry_from_json(row[1])) for row in store.execute(
        f"SELECT id, entry FROM entries WHERE present = 0 AND (id IN ({marks}) "
        f"OR block_id IN ({marks}))", [*ids, *ids])]


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
    exists = store.execute("SELECT 1 FROM entries WHERE id = ?", [entry_id]).fetchone()
    if exists:
        store.update("entries", entry_id, row)
    else:
        store.insert("entries", {"id": entry_id, "first_seen": stamp, **row})
    store.execute("DELETE FROM entry_links WHERE entry_id = ?", [entry_id])
    store.executemany(
        "INSERT INTO entry_links (entry_id, ord, target_raw) VALUES (?, ?, ?)",
        [(entry_id, i, target) for i, target in enumerate(entry.links)],
    )


def condition_hash(condition: str) -> str:
    """Conditions are embedded like chunks: keyed by the hash of the embedded text."""
    return content_hash(embed_text("", "", condition).encode())


def resolve_entry_links(store: Store, resolver, ids: dict[str, int]
                        ) -> list[tuple[str, int, str]]:
    """Point every present entry's links at notes, as a wiki-link from its ledger would.
    Returns a warning for each link that names no note but named one that has since been
    moved or renamed (the ledger would otherwise lose it without a word)."""
    rows = store.execute(
        "SELECT l.entry_id, l.ord, l.target_raw, e.ledger_path, e.line FROM entry_links l "
        "JOIN entries e ON e.id = l.entry_id WHERE e.present = 1").fetchall()
    updates, unresolved = [], []
    for entry_id, ord_, target, ledger_path, line in rows:
        hit = resolver.resolve(Link(target, "wiki", None, None, None, 0), ledger_path)
        updates.append((ids.get(hit) if hit else None, entry_id, ord_))
        if hit is None:
            unresolved.append((entry_id, target, ledger_path, line))
    store.executemany(
        "UPDATE entry_links SET target_id = ? WHERE entry_id = ? AND ord = ?", updates)
    return _renamed_targets(store, unresolved, ids) if unresolved else []


def _renamed_targets(store: Store, unresolved, ids: dict[str, int]) -> list[tuple]:
    """(ledger, line, message) for the unresolved entry links that resolve to a path a
    live note had before it was moved or renamed (the ops log keeps every move)."""
    from .resolve import Resolver

    paths = {note_id: path for path, note_id in ids.items()}
    former: dict[str, int] = {}
    for note_id, old in store.execute(
            "SELECT note_id, json_extract(detail, '$.from') FROM ops WHERE op = 'moved' "
            "ORDER BY id"):
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
    for entry_id, action, condition in store.execute(
            "SELECT id, action, condition FROM entries "
            "WHERE present = 1 AND status = 'open' ORDER BY id").fetchall():
        titles, aliases = _linked_names(store, entry_id)
        notes = _linked_texts(store, entry_id) if condition else ()
        texts = view_texts(action or "", condition, titles, aliases, notes)
        want += [(entry_id, i, kind, text, condition_hash(text))
                 for i, (kind, text) in enumerate(texts)]
    have = store.execute("SELECT entry_id, ord, kind, text, hash FROM entry_views "
                         "ORDER BY entry_id, ord").fetchall()
    if [tuple(r) for r in have] == want:
        return False
    with store.atomic():
        store.execute("DELETE FROM entry_views")
        store.executemany(
            "INSERT INTO entry_views (entry_id, ord, kind, text, hash) VALUES (?, ?, ?, ?, ?)",
            want)
        store.set_meta("settled", "")  # new texts await their vectors (indexer.SETTLED)
    return True


def _linked_names(store: Store, entry_id: str) -> tuple[list[str], list[str]]:
    rows = store.execute(
        "SELECT n.id, n.title FROM entry_links l JOIN notes n ON n.id = l.target_id "
        "WHERE l.entry_id = ? AND n.deleted = 0 ORDER BY l.ord", [entry_id]).fetchall()
    titles = [title for _, title in rows if title]
    aliases = [alias for note_id, _ in rows for (alias,) in store.execute(
        "SELECT alias FROM aliases WHERE note_id = ? ORDER BY alias", [note_id])]
    return titles, aliases


def _linked_texts(store: Store, entry_id: str) -> tuple[str, ...]:
    """The chunk texts of the notes an entry links, in order."""
    return tuple(text for (text,) in store.execute(
        "SELECT c.text FROM entry_links l JOIN notes n ON n.id = l.target_id AND n.deleted = 0 "
        "JOIN chunks c ON c.note_id = n.id WHERE l.entry_id = ? ORDER BY l.ord, c.ord",
        [entry_id]))
