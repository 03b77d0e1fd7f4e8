"""The query matrix: every live chunk vector in one float32 array, rows grouped by note.

Part of the store layer. It owns no table: the rows come from the store
(`Store.vector_rows`), and the store's generation says when they changed. It owns
the file `<db>.matrix-<digest>.npys` beside the database: a copy of the matrix stamped
with the store's identity and generation, so a cold query reads one file instead of a
row per chunk. The vectors themselves live in SQLite: a stale, missing or unreadable
copy is simply rebuilt from there.

The file is five `.npy` arrays one after another (the stamp, chunk ids, note ids,
starts, vectors), each read straight into its array. An `.npz` archive (as earlier
versions wrote) is a zip: reading it checks each member's CRC and copies it through
zipfile's buffers, three times the CPU of the plain read at 20,000 chunks, on every
cold query.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from . import Store


SUFFIX = ".npys"
PARTS = ("chunk_ids", "note_ids", "starts", "vectors")  # in the file's order, after the stamp


@dataclass(frozen=True)
class Matrix:
    """Every live chunk vector, rows grouped by note (for a per-note max)."""

    chunk_ids: np.ndarray
    note_ids: np.ndarray
    vectors: np.ndarray  # float32 (n, dim), unit-normalised
    starts: np.ndarray  # index of each note's first row, for np.maximum.reduceat


class MatrixCache:
    """One store's matrix, kept in process between queries and in a file across them."""

    def __init__(self, db_path: Path):
        self.db_path = db_path
        # fingerprint -> (generation, matrix): the multilingual option ranks with two models
        self._kept: dict[str, tuple[str, Matrix]] = {}

    @property
    def loaded(self) -> bool:
        """Whether a matrix is held in this process."""
        return bool(self._kept)

    def get(self, store: Store, fingerprint: str, dim: int) -> Matrix:
        """The matrix of `store` under `fingerprint`, cached until a write changes the
        store's generation (in any process)."""
        with store.snapshot():  # the generation and the rows it stamps, from one state
            generation = store.generation()
            kept = self._kept.get(fingerprint)
            if kept and kept[0] == generation:
                return kept[1]
            stamp = f"{store.get_meta('store_id', '')}:{generation}"
            path = self.path(fingerprint)
            matrix = read(path, stamp, dim)
            if matrix is None:
                matrix = from_rows(store, fingerprint, dim)
                write(path, stamp, matrix, like=self.db_path)
        # Only the current generation's: another model's is kept beside this one.
        self._kept = {fp: k for fp, k in self._kept.items() if k[0] == generation}
        self._kept[fingerprint] = (generation, matrix)
        return matrix

    def path(self, fingerprint: str) -> Path:
        digest = hashlib.sha1(fingerprint.encode()).hexdigest()[:12]
        return self.db_path.with_name(f"{self.db_path.name}.matrix-{digest}{SUFFIX}")


def from_rows(store: Store, fingerprint: str, dim: int) -> Matrix:
    """Read a block of rows at a time into arrays: peak memory stays near the matrix
    itself (at 50,000 notes, 300 MB), not twice it plus a Python object per row."""
    with store.snapshot():  # the count and the rows from one state of the store
        n, cursor = store.vector_rows(fingerprint)
        chunk_ids = np.empty(n, np.int64)
        note_ids = np.empty(n, np.int64)
        vectors = np.empty((n, dim), np.float32)
        filled = 0
        while rows := cursor.fetchmany(4096):
            end = filled + len(rows)
            chunk_ids[filled:end] = [r[0] for r in rows]
            note_ids[filled:end] = [r[1] for r in rows]
            vectors[filled:end] = np.frombuffer(b"".join(r[2] for r in rows),
                                                np.float32).reshape(len(rows), dim)
            filled = end
    starts = np.flatnonzero(np.r_[True, note_ids[1:] != note_ids[:-1]]) if n else note_ids
    return Matrix(chunk_ids, note_ids, vectors, starts)


def read(path: Path, stamp: str, dim: int) -> Matrix | None:
    """The cached matrix if it was written from exactly this store state, else None."""
    try:
        with open(path, "rb") as fh:
            if str(np.load(fh, allow_pickle=False)) != stamp:
                return None  # the other arrays are never read
            parts = {name: np.load(fh, allow_pickle=False) for name in PARTS}
    except (OSError, ValueError, EOFError):  # missing, cut short or not this format
        return None
    vectors = parts["vectors"]
    if vectors.ndim != 2 or vectors.shape[1] != dim or vectors.dtype != np.float32 or not (
            len(vectors) == len(parts["chunk_ids"]) == len(parts["note_ids"])):
        return None
    return Matrix(**parts)


def _stamp(path: Path) -> str | None:
    """The stamp a copy was written with; None if it has none that can be read."""
    try:
        with open(path, "rb") as fh:
            return str(np.load(fh, allow_pickle=False))
    except (OSError, ValueError, EOFError):
        return None


def write(path: Path, stamp: str, matrix: Matrix, like: Path) -> None:
    """Best effort and atomic: a reader sees the old file or the new one, never half.
    The file gets the database's permissions (it holds the same vectors)."""
    tmp = None
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name + ".",
                                         suffix=".tmp", delete=False) as fh:
            tmp = fh.name
            np.save(fh, np.array(stamp), allow_pickle=False)
            for name in PARTS:
                np.save(fh, getattr(matrix, name), allow_pickle=False)
        os.chmod(tmp, stat.S_IMODE(os.stat(like).st_mode))
        os.replace(tmp, path)
        # Another model's copy written before the store last changed can never be current
        # again: it is rebuilt from SQLite when that model ranks again. One of this
        # state's is kept: the multilingual option ranks with two models. At 50,000 notes
        # each copy is 300 MB. (`.npz`: the format of earlier versions.)
        for other in [*path.parent.glob(f"{like.name}.matrix-*{SUFFIX}"),
                      *path.parent.glob(f"{like.name}.matrix-*.npz")]:
            if other != path and _stamp(other) != stamp:
                other.unlink(missing_ok=True)
    except OSError:  # a read-only folder or a full disk: queries just read SQLite
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
