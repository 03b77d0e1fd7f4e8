"""The arithmetic of scripts/eval_prospective.py's reports (the runs themselves are the
script's job: they take minutes and the real model)."""

from __future__ import annotations

import pytest

from tests.test_hardening import load_script

ev = load_script("eval_prospective")


def doc(*scores: tuple[str, float]) -> dict:
    return {"results": [{"path": p, "score": s} for p, s in scores]}


def test_needed_weight_is_the_ratio_to_the_score_to_beat_minus_one():
    ranking = doc(("a", 0.8), ("b", 0.6), ("c", 0.5), ("d", 0.4), ("e", 0.3), ("x", 0.2))
    assert ev.needed_weight(ranking, "x", 1) == pytest.approx(3.0)  # 0.2 x 4 = 0.8
    assert ev.needed_weight(ranking, "x", 5) == pytest.approx(0.5)  # 0.2 x 1.5 = 0.3
    assert ev.needed_weight(ranking, "b", 1) == pytest.approx(0.8 / 0.6 - 1)


def test_needed_weight_is_zero_when_already_placed_and_none_when_out_of_reach():
    ranking = doc(("a", 0.8), ("b", 0.6), ("x", -0.1))
    assert ev.needed_weight(ranking, "a", 1) == 0.0
    assert ev.needed_weight(ranking, "b", 5) == 0.0  # fewer than five others
    assert ev.needed_weight(ranking, "x", 1) is None  # no multiplier lifts a score <= 0
    assert ev.needed_weight(ranking, "missing", 1) is None


def test_strata_split_on_the_bottom_half_of_the_candidates_by_the_named_ranking():
    results = [{"id": "t1", "kind": "dated", "candidates": 20,
                "variants": {"clean": {"plain": 11, "cosine": 10}}},
               {"id": "t2", "kind": "conditional", "candidates": 20,
                "variants": {"clean": {"plain": 3, "cosine": 15}}}]
    by_plain = ev.strata(results, "clean", by="plain")
    by_cosine = ev.strata(results, "clean", by="cosine")
    assert [r["id"] for r in by_plain["hard"]] == ["t1"]
    assert [r["id"] for r in by_cosine["hard"]] == ["t2"]
    assert [r["id"] for r in by_cosine["easy"]] == ["t1"]
