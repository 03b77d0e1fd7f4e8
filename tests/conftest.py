"""Shared fixtures: a deterministic fake embedder for fast unit tests, paths, and the one
vault harness (`make_vault`) every test that needs an indexed store builds on.

The fake is for unit tests only; tests marked `integration` run the real model.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from vaultmem import Vault

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures_vault"


def modules_loaded(program: str, modules: tuple[str, ...], *args: str) -> list[str]:
    """Which of `modules` a fresh interpreter has imported after running `program`
    (what a cron job or a cold query pays for at start)."""
    import subprocess
    import sys

    probe = (f"{program}\nimport sys\n"
             f"print(sorted(m for m in {modules!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    import ast

    return ast.literal_eval(out.stdout.strip().splitlines()[-1])


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
def fake_model(monkeypatch) -> None:
    """The CLI and `Vault` (which load the real model themselves) embed with the fake."""
    monkeypatch.setattr("vaultmem.embed.FastEmbedder", lambda settings: FakeEmbedder())
    monkeypatch.setattr("vaultmem.embed.query_embedder", lambda settings: FakeEmbedder())


@pytest.fixture
def fixture_vault(tmp_path: Path) -> Path:
    """A private copy of fixtures_vault/ (tests may edit it)."""
    dest = tmp_path / "vault"
    shutil.copytree(FIXTURES, dest, symlinks=True)
    return dest


# -- the vault harness --------------------------------------------------------------


def write_files(root: Path, files: dict[str, str], mtime: datetime | None = None) -> Path:
    """Write `files` ({vault-relative path: text}) under `root`, making folders; with
    `mtime`, every file gets that modification time (so each edit is seen as one)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if mtime is not None:
            stamp = mtime.timestamp()
            os.utime(path, (stamp, stamp))
    return root


REAL_MODEL = object()  # `embedder=REAL_MODEL`: the bundled model, loaded on first use


def open_vault(root: Path, files: dict[str, str] | None = None, *, ledger: str | None = None,
               config_toml: str | None = None, mtime: datetime | None = None,
               embedder=None, index_at: datetime | None = None, **settings) -> Vault:
    """A vault at `root` holding `files` (and `ledger` as Ledger.md, and `config_toml` as
    its config file), opened through the library with a new store; indexed at `index_at`
    when given. `embedder`: a FakeEmbedder unless one is given, or REAL_MODEL. The caller
    closes it; tests take the `make_vault` fixture, which does."""
    root.mkdir(parents=True, exist_ok=True)
    write_files(root, {**(files or {}), **({"Ledger.md": ledger} if ledger is not None
                                             else {})}, mtime)
    if config_toml:
        write_files(root, {".vaultmem/config.toml": config_toml})
    if embedder is None:
        embedder = FakeEmbedder()
    vault = Vault.open(root, create=True, embedder=None if embedder is REAL_MODEL
                       else embedder, **settings)
    if index_at is not None:
        vault.index(now=index_at)
    return vault


@pytest.fixture
def make_vault(tmp_path: Path, request) -> Callable[..., Vault]:
    """`make_vault(files, ledger=..., config_toml=..., mtime=..., index_at=..., root=...,
    embedder=..., **settings)`: an open `Vault` on a temp folder (`tmp_path/vault`, then
    `vault1`, `vault2`, … for more), closed after the test. The fake embedder in unit
    tests; in tests marked `integration`, the real model."""
    made: list[Vault] = []
    real = request.node.get_closest_marker("integration") is not None

    def make(files: dict[str, str] | None = None, *, root: Path | None = None,
             embedder=None, **options) -> Vault:
        if root is None:
            root = tmp_path / (f"vault{len(made)}" if made else "vault")
        if embedder is None and real:
            embedder = REAL_MODEL
        made.append(open_vault(root, files, embedder=embedder, **options))
        return made[-1]

    yield make
    for vault in made:
        vault.close()


@pytest.fixture(autouse=True)
def _never_launch(monkeypatch):
    """No test opens a program (Obsidian, an editor): `opener.launch` fails if reached;
    a test of `--open` replaces it with a recorder."""
    def refuse(argv, wait):
        raise AssertionError(f"a test tried to launch {argv}")

    monkeypatch.setattr("vaultmem.opener.launch", refuse)
