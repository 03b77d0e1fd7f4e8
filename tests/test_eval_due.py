"""The arithmetic of scripts/eval_due.py (the replay itself runs the real model for
minutes: that is the script's job)."""

from __future__ import annotations

import pytest

from tests.test_hardening import load_script

ev = load_script("eval_due")

V1 = """# Ledger
- [ ] Pay rent 📅 2027-03-01 ^c-rent
- [ ] Check the skylight [when:: it rains next] ^c-rain
- [ ] Ask Ana [when:: Ana is back from Porto] ^c-ana
"""
V2 = """# Ledger
- [x] Pay rent 📅 2027-03-01 ✅ 2027-03-01 ^c-rent
- [ ] Check the skylight [when:: it rains next] ^c-rain
- [ ] Ask Ana [when:: Ana is back from Porto] ^c-ana
- [ ] Buy a present 📅 2027-03-02 ^c-gift
"""
WEEK = {"ledger": [{"from": "2027-03-01T06:00", "text": V1},
                   {"from": "2027-03-01T20:00", "text": V2}],
        "moments": []}


def moment(at, context, due, cues=None, lures=None):
    return {"id": at, "at": at, "context": context, "due": due, "cues": cues or {},
            "lures": lures or {}}


def run(m, predicted, grounded=(), top=None, version=0):
    results = [{"id": e, "group": "triggered" if e in ("c-rain", "c-ana") else "today"}
               for e in predicted]
    firing = [{"id": e, "grounded": True} for e in grounded]
    top_row = [{"commitments": [{"id": top}]}] if top else []
    return {"moment": m, "version": version, "due": {"results": results},
            "dates": {"results": [r for r in results if r["group"] != "triggered"]},
            "query": {"firing": firing, "results": top_row}}


def test_the_history_marks_revised_entries_and_creation_days():
    lines, revised, created = ev.history(WEEK)
    assert sorted(lines[1]) == ["c-ana", "c-gift", "c-rain", "c-rent"]
    assert revised == {"c-rent": {1}, "c-gift": {1}}  # done; added
    assert created == {"c-rent": "", "c-rain": "", "c-ana": "", "c-gift": "2027-03-01"}
    assert ev.condition_of(lines[0]["c-ana"]) == "Ana is back from Porto"
    assert ev.version_at(WEEK, "2027-03-01T19:59") == 0
    assert ev.version_at(WEEK, "2027-03-01T20:00") == 1


def test_set_f1_false_alarms_recall_by_kind_and_overlap():
    runs = [
        # the rain is the cue (no word shared); the rent is due by date; Ana fires wrongly
        run(moment("2027-03-01T12:00", "It's bucketing down", ["c-rain", "c-rent"],
                   {"c-rain": "raining"}, {"c-ana": "name-only"}),
            ["c-rent", "c-rain", "c-ana"], grounded=["c-ana"], top="c-ana"),
        # Ana is back, said in her words: missed
        run(moment("2027-03-01T13:00", "Ana is back!", ["c-rent", "c-ana"],
                   {"c-ana": "back"}), ["c-rent"]),
    ]
    c = ev.score_week(WEEK, runs)
    s = ev.summary(c)
    assert (c["tp"], c["fp"], c["fn"]) == (3, 1, 1)
    assert s["f1"] == pytest.approx(6 / 8) and s["fa_per_moment"] == 0.5
    assert (s["time_recall"], s["event_recall"]) == (1.0, 0.5)
    assert (s["overlap_recall"], s["no_overlap_recall"]) == (0.0, 1.0)  # "ana" overlaps
    assert (c["q_wrong"], c["q_rank1"]) == (1, 1)
    assert c["fp_lure:name-only"] == 1 and c["lure_fired:name-only"] == 1


def test_update_miss_counts_errors_on_entries_revised_before_the_moment():
    runs = [
        # after version 2: the rent is done (a false alarm if still due), the gift is new
        run(moment("2027-03-02T09:00", "breakfast", ["c-gift"]), ["c-rent", "c-gift"],
            version=1),
        run(moment("2027-03-02T10:00", "coffee", ["c-gift"]), [], version=1),
    ]
    c = ev.score_week(WEEK, runs)
    # revised pairs: gift (gold, hit), rent (false alarm); gift (gold, missed)
    assert (c["upd_gold"], c["upd_miss"], c["upd_fp"]) == (2, 1, 1)
    assert ev.summary(c)["update_miss"] == pytest.approx(2 / 3)
    # cross-day: the gift was created on 03-01, the moments are on 03-02
    assert (c["cross"], c["cross_miss"]) == (2, 1)


def test_the_dates_only_row_reads_due_without_a_context():
    runs = [run(moment("2027-03-01T12:00", "rain", ["c-rent", "c-rain"], {"c-rain": "r"}),
                ["c-rent", "c-rain"])]
    assert ev.summary(ev.score_week(WEEK, runs, "dates"))["event_recall"] == 0.0
