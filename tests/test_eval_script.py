"""The arithmetic of scripts/eval_prospective.py's reports (the runs themselves are the
script's job: they take minutes and the real model)."""

from __future__ import annotations

import json

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


def test_the_unrelated_query_is_counted_against_plain_and_against_the_dense_cosine(capsys):
    """Intrusions count the blend's top 5 over the plain ranking's; the plain ranking
    holds the found-by-meaning floor too, so the table also counts the top 5 at all and
    the top 5 from outside the dense cosine's top 5."""
    def unrelated(cosine: int, plain: int, blend: int) -> dict:
        top = {"plain": "p", "blend": "p", "floor": "p"}
        return {"variants": {"unrelated": {"cosine": cosine, "plain": plain, "blend": blend,
                                           "floor": blend, "top": top}}}

    ev.report_unrelated([unrelated(9, 8, 3),    # lifted by the firing: an intrusion
                         unrelated(9, 4, 2),    # lifted by the floor in plain already
                         unrelated(3, 3, 2),    # near by meaning on its own
                         unrelated(9, 9, 8)])   # not shown
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in capsys.readouterr().out.splitlines() if line.startswith("| ")}
    assert rows["blend"][1:] == ["1/4 (0.250)", "3/4 (0.750)", "2/4 (0.500)"]
    assert rows["plain"][1:] == ["0/4 (0.000)", "2/4 (0.500)", "1/4 (0.250)"]


def test_a_report_from_saved_runs_pools_their_ranks(tmp_path, capsys):
    row = {"cosine": 3, "plain": 2, "blend": 1, "floor": 1, "lane": None, "slot@2": 1,
           "blend@0.0": 2, "blend@1.0": 1, "need@1": 0.5, "need@5": 0.0,
           "seconds": {"plain": 0.1, "blend": 0.2},
           "top": {"plain": "a", "blend": "a", "floor": "a", "slot@2": "a", "blend@0.0": "a",
                   "blend@1.0": "a"}}
    for n in (1, 2):
        result = {"id": f"t{n}", "kind": "dated", "set": "old", "candidates": 20,
                  "variants": {v: dict(row) for v in (*ev.VARIANTS, "unrelated")},
                  "negative": {"plain": 9, "blend": 9, "floor": 9}}
        (tmp_path / f"part{n}.json").write_text(json.dumps({"results": [result]}))
    ev.report_saved([tmp_path / "part1.json", tmp_path / "part2.json"])
    out = capsys.readouterr().out
    assert "2 blueprints" in out
    assert "| clean | easy | 2 | blend | 1.000 | 1.000 | 1.000 |" in out
