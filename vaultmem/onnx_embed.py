"""A lean embedder for the bundled model: onnxruntime, tokenizers and numpy, nothing else.

It computes what fastembed 0.9.1 computes for sentence-transformers/all-MiniLM-L6-v2
(`fastembed.text.pooled_normalized_embedding`): the tokenizer set up as fastembed's
`load_tokenizer` does (truncation at tokenizer_config.json's `model_max_length`, the
special tokens of special_tokens_map.json, padding to the longest text of a batch),
input_ids / attention_mask / zero token_type_ids, mean pooling of the last hidden state
over the attention mask accumulated in float64, and L2 normalisation. Importing fastembed
costs a cold query ~0.35 s (huggingface_hub, httpx, PIL, loguru, tqdm); this needs none
of it. tests/test_embed.py holds the two to 1e-6 on long, short and non-ASCII texts.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np

from .errors import ModelError


def quiet_onnxruntime():
    """Import onnxruntime with its telemetry off.

    onnxruntime >= 1.2x on Linux keeps a telemetry event queue under
    $XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime/ and creates it when the module
    is imported; only ORT_DISABLE_TELEMETRY set before that import prevents it.
    `disable_telemetry_events()` also covers a host process that imported it earlier.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    onnxruntime.disable_telemetry_events()
    return onnxruntime


def load_tokenizer(model_dir: Path):
    """The tokenizer of `model_dir`, configured as fastembed's `load_tokenizer` does."""
    from tokenizers import AddedToken, Tokenizer

    config = _json(model_dir / "config.json")
    tok_config = _json(model_dir / "tokenizer_config.json")
    specials = _json(model_dir / "special_tokens_map.json")
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    limits = [v for v in (tok_config.get("model_max_length"), tok_config.get("max_length"))
              if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=min(limits),
        direction=tok_config.get("truncation_side") or truncation.get("direction", "right"))
    for value in specials.values():
        for token in value if isinstance(value, list) else [value]:
            tokenizer.add_special_tokens([token if isinstance(token, str) else AddedToken(**token)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or tok_config.get("pad_token")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None:
        pad_id = tokenizer.token_to_id(pad_token)
    tokenizer.enable_padding(
        direction=tok_config.get("padding_side") or padding.get("direction", "right"),
        pad_id=pad_id, pad_type_id=padding.get("pad_type_id", 0), pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"), length=None)
    return tokenizer


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def new_session(model_file: Path, *, threads: int, arena: bool):
    """An onnxruntime CPU session with every graph optimisation on."""
    ort = quiet_onnxruntime()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.enable_cpu_mem_arena = arena
    return ort.InferenceSession(str(model_file), sess_options=options,
                                providers=["CPUExecutionProvider"])


class OnnxEmbedder:
    """Pooled, normalised sentence vectors from an ONNX encoder and its tokenizer, as the
    model's `ModelSpec` asks: its prefixes per role, its pooling, the graph output it
    names. The graph's own inputs decide what is fed (`token_type_ids` only where it
    takes them) and its output's last axis is the dimension."""

    def __init__(self, model_dir: Path, fingerprint: str, *, spec=None, dim: int = 0,
                 batch_size: int = 32, threads: int = 1, arena: bool = False):
        from .embed import DEFAULT_MODEL, spec_for

        self.model_dir = Path(model_dir)
        self.spec = spec or spec_for(DEFAULT_MODEL)
        self.fingerprint, self.dim = fingerprint, dim or _hidden_size(self.model_dir)
        self.batch_size, self.threads, self.arena = batch_size, threads, arena
        self._session = self._tokenizer = None
        self._inputs: frozenset[str] = frozenset()
        self._loader: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self) -> OnnxEmbedder:
        """Load the model in a background thread, so the caller's own start-up (imports,
        opening the store) runs meanwhile: onnxruntime releases the GIL while it builds
        the session. `embed` waits for it. A daemon thread: an exit never waits for it."""
        if self._session is None and self._loader is None:
            self._loader = threading.Thread(target=self._load_in_background, daemon=True,
                                            name="vaultmem-model-load")
            self._loader.start()
        return self

    def _load_in_background(self) -> None:
        try:
            self._load()
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that embeds
            self._error = exc

    def load(self) -> None:
        if self._loader is not None:
            self._loader.join()
            self._loader = None
            if self._error is not None:
                error, self._error = self._error, None
                raise error
        self._load()

    def _load(self) -> None:
        if self._session is not None:
            return
        try:
            self._tokenizer = load_tokenizer(self.model_dir)
            session = new_session(self.model_dir / "model.onnx", threads=self.threads,
                                  arena=self.arena)
        except Exception as exc:  # tokenizers and onnxruntime raise their own kinds
            raise ModelError(f"cannot load the model in {self.model_dir}: {exc}") from None
        outputs = {o.name: o.shape for o in session.get_outputs()}
        if self.spec.output not in outputs:
            raise ModelError(f"{self.model_dir}/model.onnx has no output "
                             f"{self.spec.output!r} (it has {', '.join(outputs)})")
        last = outputs[self.spec.output][-1]
        if isinstance(last, int) and last > 0:
            self.dim = last
        self._inputs = frozenset(i.name for i in session.get_inputs())
        self._session = session

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, self.spec.passage_prefix)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, self.spec.query_prefix)

    def _embed(self, texts: list[str], prefix: str) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        self.load()
        if prefix:
            texts = [prefix + t for t in texts]
        out = np.concatenate([self._batch(texts[i:i + self.batch_size])
                              for i in range(0, len(texts), self.batch_size)])
        return unit_rows(out)

    def _batch(self, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run([self.spec.output], feeds)[0]
        if self.spec.pooling == "cls":
            return unit_rows(hidden[:, 0].astype(np.float32))
        return mean_pool(hidden, mask)


def _hidden_size(model_dir: Path) -> int:
    """The model's width from its config.json (until the graph is loaded and says)."""
    size = _json(model_dir / "config.json").get("hidden_size")
    return size if isinstance(size, int) and size > 0 else 384


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """fastembed's pooling: the masked mean in float64, L2-normalised, cast to float32."""
    summed = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
    pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return (pooled / norms).astype(np.float32)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length in float32 (the last step of every embedder here)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)
