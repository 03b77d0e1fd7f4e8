"""Relevance before the multipliers (SPEC 5): when the lexical leg speaks in full."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from vaultmem.config import DEFAULTS
from vaultmem.rank import QueryOptions, coverage_exponent

NOW = datetime(2026, 8, 15)
FILES = {
    "projects/garden.md": "# Garden\nPlant tomatoes and prune the hedge.\n",
    "projects/kitchen.md": "# Kitchen\nThe kitchen renovation budget and the cabinet quote.\n",
    "notes/gutter.md": "# Gutter\nDownpipe brackets.\n",
}
# Filler words no note holds: they lengthen a query without adding evidence.
FILLER = ("zephyr quorum lattice marmot quibble vortex pylon sorrel yodel wicket fennel "
          "tundra gable cobalt nimbus arbor bistro cactus dingo ember fjord glyph hazel "
          "igloo jovial kelp lupin mocha nectar oxbow").split()


@pytest.fixture
def vault(make_vault):
    vault = make_vault(FILES, mtime=datetime(2026, 8, 1, 12), index_at=datetime(2026, 8, 1))
    vault.salience(now=NOW)
    return vault


def garden(vault, text: str, **opts) -> dict:
    hits = vault.query(text, now=NOW, mode="hybrid", explain=True, limit=50, log_mentions=0,
                       prospective=False, **opts).results
    found = {h.path: h.explain for h in hits}
    best_cos = max(e["cosine"] for e in found.values())
    best_bm25 = max(-e["bm25"] for e in found.values() if e["bm25"] is not None)
    e = found["projects/garden.md"]
    return {**e, "dense": e["cosine"] / best_cos, "lex": -e["bm25"] / best_bm25}


def test_the_coverage_exponent_is_full_for_short_queries_and_fades_out_by_twice_the_words():
    opts = QueryOptions(lexical_coverage=3.0, coverage_words=8)

    def words(n: int) -> str:
        return " ".join(FILLER[:n])

    assert coverage_exponent(words(3), opts) == 3.0
    assert coverage_exponent(words(8), opts) == 3.0
    assert coverage_exponent(words(12), opts) == pytest.approx(1.5)
    assert coverage_exponent(words(16), opts) == 0.0
    assert coverage_exponent(words(30), opts) == 0.0
    # stop words are not words of the query: "the garden" is one word
    assert coverage_exponent("the garden", QueryOptions(coverage_words=1)) == 3.0


def test_by_default_a_short_query_weighs_the_lexical_term_by_the_cube_of_its_coverage(vault):
    """Chosen on the four golden sets (docs/evaluation.md): the earlier default, plain
    fusion (exponent 0), let a note that holds half the words count in full."""
    assert DEFAULTS.lexical_coverage == 3.0
    e = garden(vault, "garden hedge trimmer warranty")  # the note holds two words of four
    assert e["coverage"] == 0.5
    assert e["relevance"] == pytest.approx(0.5 * e["dense"] + 0.5 * 0.5 ** 3 * e["lex"],
                                           abs=2e-4)


def test_a_long_context_keeps_its_word_evidence_in_full(vault):
    """A trigger note of sixteen words or more: the share of its words one note holds is
    small by nature, so the coverage rule stands aside and BM25 counts as it is."""
    text = "garden hedge " + " ".join(FILLER[:14])
    e = garden(vault, text, lexical_coverage=3.0)
    assert e["coverage"] == pytest.approx(2 / 16)
    assert e["relevance"] == pytest.approx(0.5 * e["dense"] + 0.5 * e["lex"], abs=2e-4)


def test_in_between_the_exponent_is_part_way(vault):
    text = "garden hedge " + " ".join(FILLER[:10])  # 12 words: half the exponent
    e = garden(vault, text, lexical_coverage=3.0)
    assert e["relevance"] == pytest.approx(
        0.5 * e["dense"] + 0.5 * (2 / 12) ** 1.5 * e["lex"], abs=2e-4)


def test_a_model_with_a_narrow_band_of_cosines_scales_the_dense_leg_from_the_mean():
    """e5 puts any two texts at a cosine of 0.7-0.9: cosine / best cosine is near 1 for
    every note, and the lexical leg alone decided (e5 hybrid below its own dense leg on
    cross-lingual queries, docs/evaluation.md). Its dense leg runs from the query's mean
    cosine over the notes (0) to the best (1); MiniLM's from 0, as before."""
    import numpy as np

    from vaultmem import config
    from vaultmem.rank import _score_fusion

    cosine = np.array([0.80, 0.84, 0.86, 0.90])
    bm25 = np.array([np.inf, -2.0, np.inf, np.inf])  # only the second note shares a word
    share = np.array([0.0, 0.3, 0.0, 0.0])  # (weak evidence: some of the query's words)
    eligible, none = np.ones(4, bool), np.zeros(4, bool)
    dense, lex = _score_fusion(cosine, bm25, eligible, none, 0.5, share)
    assert (dense + lex).argmax() == 1  # from 0: a shared word decides
    dense, lex = _score_fusion(cosine, bm25, eligible, none, 0.5, share, origin="mean")
    assert dense.tolist() == pytest.approx([0.0, 0.0, 0.5 * 0.01 / 0.05, 0.5])
    assert (dense + lex).argmax() == 3  # from the mean: the closest note stays first
    e5 = config.load(Path("."), model="multilingual-e5-small")
    assert QueryOptions.from_settings(e5).dense_origin == "mean"
    assert QueryOptions.from_settings(DEFAULTS).dense_origin == "zero"
