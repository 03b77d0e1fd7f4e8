"""Prospective items (SPEC 7): plans, ideas, decisions, questions and insights.

A note whose front matter `type:` is one of the five kinds is an item, and so is
a list item tagged `#plan`, `#idea`, ... anywhere in a note. Lifecycle:

    open -> referenced (a later note links to it or names it)
         -> closed (front matter status closed/done, or a checked task)
         -> stale  (not referenced for `stale_days`: archived, never deleted)

Every status change is an op in the log. Closed and stale items are left out of
`query` unless `--include-closed`; an item is never demoted for its age.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from . import clock
from .config import Settings
from .schema import SCHEMA
from .store import Store
from .store import items as item_rows
from .text import syntax
from .text.rows import Item
from .text.words import SLUG_WORD

if TYPE_CHECKING:
    from .text.parse import ListItem

KINDS = ("plan", "idea", "decision", "question", "insight")
CLOSED_WORDS = {"closed", "done", "complete", "completed", "resolved"}


@dataclass(frozen=True)
class Draft:
    """An item as found in one note's current text."""

    key: str  # identity within the note: "note", a block id, or the item's text
    kind: str
    text: str
    line: int
    closed: bool
    block_id: str | None = None
    level: str = "list"


def note_item(title: str, fm: dict) -> Draft | None:
    """The note itself, when its front matter type is a prospective kind."""
    kind = str(fm.get("type") or "").strip().lower()
    if kind not in KINDS:
        return None
    closed = str(fm.get("status") or "").strip().lower() in CLOSED_WORDS
    return Draft("note", kind, title, 1, closed, None, "note")


def list_items(source: str | Sequence[ListItem]) -> list[Draft]:
    """List items tagged with a prospective kind: from a note's text, or from the list
    items `parse` already read (so nothing in code, HTML or comments counts)."""
    from .text import parse  # index-time work: the query path never loads the parser

    items = parse.outline(source).items if isinstance(source, str) else source
    out = []
    for item in items:
        kind = next((tag for tag in item.tags if tag in KINDS), None)
        if kind is None:
            continue
        clean = _without_kind_tags(item.text)
        if item.block_id:
            clean = syntax.BLOCK_ID.sub("", clean)
        clean = " ".join(clean.split())
        if not clean:
            continue
        closed = (item.mark or " ").lower() in ("x", "-")
        key = item.block_id or clean.lower()
        out.append(Draft(key, kind, clean, item.line, closed, item.block_id))
    return out


def _without_kind_tags(text: str) -> str:
    return syntax.strip_tags(text, keep=lambda tag: tag not in KINDS)[0]


def sync_note_items(store: Store, note_id: int, path: str, drafts: list[Draft],
                    created: str, stamp: str) -> None:
    """Reconcile a note's items with the store; status changes become ops."""
    known = {r[1]: r for r in item_rows.of_note(store, note_id)}
    seen = set()
    for draft in drafts:
        seen.add(draft.key)
        row = known.get(draft.key)
        if row is None:
            item_id = _new_id(store, path, draft)
            store.insert("prospective", {
                "id": item_id, "note_id": note_id, "kind": draft.kind, "text": draft.text,
                "line": draft.line, "block_id": draft.block_id, "level": draft.level,
                "status": "closed" if draft.closed else "open", "closed": int(draft.closed),
                "created": created, "present": 1, "updated_at": stamp, "key": draft.key})
            store.add_op(stamp, "item-created", note_id, item_id,
                         {"kind": draft.kind, "text": draft.text})
            continue
        item_id, _, was_closed, status = row
        fields = {"text": draft.text, "line": draft.line, "kind": draft.kind,
                  "closed": int(draft.closed), "updated_at": stamp}
        if draft.closed and status != "closed":
            fields["status"] = "closed"
            store.add_op(stamp, "item-status", note_id, item_id, {"from": status, "to": "closed"})
        elif not draft.closed and was_closed:
            fields["status"] = "open"
            store.add_op(stamp, "item-status", note_id, item_id, {"from": status, "to": "open"})
        store.update("prospective", item_id, fields)
    for key, row in known.items():
        if key not in seen:
            store.mark_absent("prospective", row[0], stamp)
            store.add_op(stamp, "item-removed", note_id, row[0], {})


def remove_note_items(store: Store, note_id: int, stamp: str) -> None:
    """A deleted note takes its items with it (kept, marked, never deleted)."""
    for item_id, *_ in item_rows.of_note(store, note_id):
        store.mark_absent("prospective", item_id, stamp)
        store.add_op(stamp, "item-removed", note_id, item_id, {"reason": "note deleted"})


def _new_id(store: Store, path: str, draft: Draft) -> str:
    source = draft.block_id or (path.rsplit("/", 1)[-1].removesuffix(".md")
                                if draft.level == "note" else draft.text)
    words = SLUG_WORD.findall(source.lower())[:5] or ["item"]
    base = f"p-{'-'.join(words)}"
    candidate, n = base, 2
    while store.has("prospective", candidate):
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def refresh_lifecycle(store: Store, settings: Settings, now: datetime) -> int:
    """Move items between open, referenced and stale as of `now`; return the changes."""
    stamp = now.isoformat(timespec="seconds")
    changes = 0
    for row in item_rows.open_in_live_notes(store):
        item_id, note_id, status, created, block, level, title = row
        last = _last_reference(store, note_id, created, block, level, title)
        anchor = max(filter(None, [created, last]), default=stamp)
        if _days_between(anchor, now) > settings.stale_days:
            new = "stale"
        else:
            new = "referenced" if last else "open"
        if new != status:
            with store.atomic():
                item_rows.set_status(store, item_id, new, last, stamp)
                store.add_op(stamp, "item-status", note_id, item_id,
                             {"from": status, "to": new})
            changes += 1
    return changes


def _last_reference(store, note_id, created, block, level, title) -> str | None:
    """When a note changed after the item last linked to it (or, for a note, named it)."""
    if level == "list" and not block:
        return None
    last = item_rows.last_link(store, note_id, block if level == "list" else None, created or "")
    if level == "note" and title and len(title) >= 4:
        named = item_rows.last_named(store, note_id, title, created or "")
        if named and (last is None or named > last):
            last = named
    return last


def _days_between(iso: str, now: datetime) -> float:
    then = clock.moment(iso)  # an aware front matter date is converted, not cut
    if then is None:
        return 0.0
    return (clock.local_naive(now) - then) / timedelta(days=1)


def hidden_note_ids(store: Store) -> set[int]:
    """Notes that are closed or stale prospective items: out of `query` by default."""
    return item_rows.hidden_note_ids(store)


@dataclass
class ProspectiveRow(Item):
    """One plan, idea, decision, question or insight, with its lifecycle status."""

    id: str
    kind: str
    status: str
    text: str
    path: str
    line: int | None
    created: str | None
    last_referenced: str | None


@dataclass
class ItemList:
    """`vaultmem ledger --prospective`: plans, ideas, decisions, questions, insights."""

    results: list[ProspectiveRow]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "results": [r.as_dict() for r in self.results]}


def item_list(store: Store, include_closed: bool) -> ItemList:
    """Prospective items still in the vault: open and referenced ones unless asked."""
    return ItemList([ProspectiveRow(*r) for r in item_rows.listed(store, include_closed)])
