"""`vaultmem get PATH`: one note as stored and as it is on disk.

A read: the store is only queried, the file only read. The note is named by its
vault-relative path, or by anything a wiki-link could name it by (`Bathroom`,
`projects/house/Bathroom`), resolved as a link from the vault root would be.

The file is read by the walker's rule (`vault.read_inside`): only if its real path is
still inside the vault. A note marked deleted is shown as stored and its path is never
read: whatever stands there now (a symlink to a file outside the vault, say) is not a
note the index knows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import NotFoundError
from .schema import SCHEMA
from .store import Store, entries, items, notes
from .store import salience as salience_rows
from .text.folder import content_hash, read_inside
from .text.rows import Item


@dataclass
class NoteLink(Item):
    """A link the note writes, and the note it resolves to (`path` None: none)."""

    target: str
    kind: str
    heading: str | None
    line: int
    path: str | None


@dataclass
class Backlink(Item):
    """A note linking this one, at a line."""

    path: str
    line: int


@dataclass
class NoteCommitment(Item):
    """A ledger entry linking this note."""

    id: str
    action: str
    condition: str | None
    due: str | None
    status: str
    ledger: str
    line: int


@dataclass
class NoteItem(Item):
    """A prospective item (plan, idea, …) written in this note."""

    id: str
    kind: str
    status: str
    text: str
    line: int | None


@dataclass
class NoteSalience(Item):
    """The note's standing salience and its components, as last computed."""

    score: float
    importance: float
    activation: float
    centrality: float
    prospective: float
    recency: float
    computed_at: str


@dataclass
class NoteDoc:
    """Title, front matter, text, links, backlinks and the commitments that link a note."""

    path: str
    title: str
    on_disk: bool
    changed_since_index: bool
    deleted: bool
    frontmatter: dict
    tags: list[str]
    aliases: list[str]
    text: str | None
    links: list[NoteLink] = field(default_factory=list)
    backlinks: list[Backlink] = field(default_factory=list)
    commitments: list[NoteCommitment] = field(default_factory=list)
    items: list[NoteItem] = field(default_factory=list)
    salience: NoteSalience | None = None

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "path": self.path, "title": self.title,
                "on_disk": self.on_disk, "changed_since_index": self.changed_since_index,
                "deleted": self.deleted, "frontmatter": self.frontmatter, "tags": self.tags,
                "aliases": self.aliases, "links": [x.as_dict() for x in self.links],
                "backlinks": [x.as_dict() for x in self.backlinks],
                "commitments": [x.as_dict() for x in self.commitments],
                "items": [x.as_dict() for x in self.items],
                "salience": self.salience.as_dict() if self.salience else None,
                "text": self.text}


def find(store: Store, name: str) -> tuple[int, str]:
    """(note id, path) for a path or link-style name; NotFoundError when none matches."""
    wanted = name.strip().replace("\\", "/").removeprefix("./")
    rows = notes.by_paths(store, wanted, wanted + ".md")
    if rows:
        return rows[0]
    from .text.resolve import Resolver
    from .text.rows import Link

    hit = Resolver(store.path_ids()).resolve(
        Link(wanted.removesuffix(".md"), "wiki", None, None, None, 0), "")
    if hit:
        return notes.by_paths(store, hit)[0]
    raise NotFoundError(f"no note {name!r} in the index: give a vault-relative path "
                        "(`query()` finds one); a note made since the last `index()` is not "
                        "in it yet")


def get_note(store: Store, vault: Path, name: str) -> NoteDoc:
    note_id, path = find(store, name)
    title, fm, digest, deleted = notes.head(store, note_id)
    data = None if deleted else _read(vault, path)
    text = data.decode("utf-8-sig", errors="replace") if data is not None else None
    return NoteDoc(
        path=path, title=title, on_disk=data is not None,
        changed_since_index=data is not None and content_hash(data) != digest,
        deleted=bool(deleted), frontmatter=json.loads(fm or "{}"),
        tags=notes.tags_of(store, note_id), aliases=notes.aliases(store, note_id),
        text=text, links=_links(store, note_id), backlinks=_backlinks(store, note_id),
        commitments=_commitments(store, note_id), items=_items(store, note_id),
        salience=_salience(store, note_id))


def _read(vault: Path, path: str) -> bytes | None:
    try:
        return read_inside(vault, path)
    except OSError:  # gone, unreadable, not a file, or its real path leaves the vault
        return None


def _links(store: Store, note_id: int) -> list[NoteLink]:
    return [NoteLink(*row) for row in notes.links_of(store, note_id)]


def _backlinks(store: Store, note_id: int) -> list[Backlink]:
    return [Backlink(*row) for row in notes.backlinks_of(store, note_id)]


def _commitments(store: Store, note_id: int) -> list[NoteCommitment]:
    return [NoteCommitment(i, a, c, d, s if present else "removed", lp, ln)
            for i, a, c, d, s, present, lp, ln in entries.linking(store, note_id)]


def _items(store: Store, note_id: int) -> list[NoteItem]:
    return [NoteItem(*row) for row in items.in_note(store, note_id)]


def _salience(store: Store, note_id: int) -> NoteSalience | None:
    row = salience_rows.of_note(store, note_id)
    if row is None:
        return None
    return NoteSalience(*row)
