"""Shared fixtures: a deterministic fake embedder for fast unit tests, and paths.

The fake is for unit tests only; tests marked `integration` run the real model.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures_vault"


class FakeEmbedder:
    """Bag of hashed words: texts sharing words get similar vectors. Deterministic."""

    fingerprint = "fake|hash|r1"
    dim = 64

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
        out[:, 0] += 1e-3  # no zero vectors
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    @property
    def embedded(self) -> int:
        return sum(len(c) for c in self.calls)


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def fixture_vault(tmp_path: Path) -> Path:
    """A private copy of fixtures_vault/ (tests may edit it)."""
    dest = tmp_path / "vault"
    shutil.copytree(FIXTURES, dest, symlinks=True)
    return dest
