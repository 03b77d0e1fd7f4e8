"""The index run's state flags, kept in `meta`.

Each flag is written in the transaction of the change that needs the step it names,
so a run killed half-way is finished by the next:

    reparse_all      a migration asks for one re-parse of every note
    links_dirty      links to resolve: "0" none, "1" all, or a JSON list of note ids
    lifecycle_dirty  prospective items to refresh
    settled          what a finished run left (fingerprint, link figures, version);
                     cleared before a run changes anything
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


# The flags' keys in `meta` (migrations.py writes REPARSE_ALL by its value).
REPARSE_ALL, LINKS_DIRTY, LIFECYCLE_DIRTY, SETTLED = (
    "reparse_all", "links_dirty", "lifecycle_dirty", "settled")


@dataclass(frozen=True)
class RunFlags:
    """The flags of one store, read and written by name rather than by string key."""

    store: Store

    @property
    def reparse_all(self) -> bool:
        return self.store.get_meta(REPARSE_ALL) == "1"

    def reparsed(self) -> None:
        self.store.set_meta(REPARSE_ALL, "0")

    @property
    def lifecycle_dirty(self) -> bool:
        return self.store.get_meta(LIFECYCLE_DIRTY) == "1"

    def set_lifecycle_dirty(self, dirty: bool) -> None:
        self.store.set_meta(LIFECYCLE_DIRTY, "1" if dirty else "0")

    def links_pending(self) -> str | set[int] | None:
        """"all", the note ids whose links await resolution, or None when nothing does."""
        value = self.store.get_meta(LINKS_DIRTY, "0")
        if value == "0":
            return None
        if value == "1":
            return "all"
        try:
            return {int(i) for i in json.loads(value)}
        except (ValueError, TypeError):
            return "all"  # unreadable: resolving everything is always right

    def add_links(self, links: set[int] | None) -> None:
        """Links of these notes await resolution (None: every link)."""
        pending = self.links_pending()
        if pending == "all" or links is None:
            self.store.set_meta(LINKS_DIRTY, "1")
        else:
            self.store.set_meta(LINKS_DIRTY, json.dumps(sorted((pending or set()) | links)))

    def links_resolved(self) -> None:
        self.store.set_meta(LINKS_DIRTY, "0")

    def settled(self) -> dict | None:
        """What the last finished run left, or None (never, cleared, or unreadable)."""
        try:
            found = json.loads(self.store.get_meta(SETTLED) or "null")
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    @property
    def is_settled(self) -> bool:
        return bool(self.store.get_meta(SETTLED))

    def unsettle(self) -> None:
        self.store.set_meta(SETTLED, "")

    def settle(self, record: dict) -> None:
        self.store.set_meta(SETTLED, json.dumps(record))


def last(store: Store, kind: str) -> tuple[str, str, str | None, str, str | None] | None:
    """(kind, started, finished, status, counts JSON) of the last run of `kind`, or None."""
    return store.execute("SELECT kind, started, finished, status, counts FROM runs "
                         "WHERE kind = ? ORDER BY id DESC LIMIT 1", [kind]).fetchone()
