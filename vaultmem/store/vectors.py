"""Reads of the `vectors` table the domain names (the writes are `Store`'s methods)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Store


def stored_dim(store: Store, fingerprint: str) -> int:
    """The dimension of the vectors stored under a model's fingerprint (0: none stored)."""
    row = store.execute("SELECT length(vector) FROM vectors WHERE fingerprint = ? LIMIT 1",
                        [fingerprint]).fetchone()
    return row[0] // 4 if row else 0  # float32


def counts_by_fingerprint(store: Store) -> dict[str, int]:
    """How many vectors are stored under each fingerprint (each model's vector space)."""
    return dict(store.execute("SELECT fingerprint, count(*) FROM vectors GROUP BY fingerprint"
                              " ORDER BY fingerprint").fetchall())
