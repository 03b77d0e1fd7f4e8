"""The arithmetic of scripts/firing_ceiling.py (its scores come from the real model over
every tuning week, for minutes: that is the script's job)."""

from __future__ import annotations

import pytest

from tests.test_hardening import load_script

fc = load_script("firing_ceiling")

LEDGER = """# Ledger
- [ ] Pay rent 📅 2027-03-01 ^c-rent
- [ ] Ask about the MRI [when:: Dr Osei's office gets back to me] [[Dr Osei]] ^c-osei
- [x] Check the skylight [when:: it rains] ✅ 2027-03-01 ^c-rain
"""
WEEK = {"notes": [{"path": "people/Dr Osei.md", "text": "# Dr Osei\nWorks at the Elm clinic."}],
        "ledger": [{"from": "2027-03-01T06:00", "text": LEDGER}],
        "moments": [{"id": "m1", "at": "2027-03-01T09:00",
                     "context": "The Elm clinic receptionist left a voicemail.",
                     "due": ["c-rent", "c-osei"], "cues": {"c-osei": "the clinic rang"}},
                    {"id": "m2", "at": "2027-03-01T12:00", "context": "It rains.",
                     "due": ["c-rent"]}]}


def test_pairs_are_the_open_trigger_entries_at_each_moment_with_their_linked_notes():
    rows = fc.pairs(WEEK)
    # Only the open entry with a trigger: not the dated one, not the done one.
    assert [(r["moment"], r["entry"]) for r in rows] == [("m1", "c-osei"), ("m2", "c-osei")]
    first = rows[0]
    assert first["cue"] and first["due"] and not first["overlap"]  # no word of the condition
    assert first["linked"] == ["# Dr Osei\nWorks at the Elm clinic."]
    assert first["note_word"]  # "clinic" is in the note the entry links
    assert not rows[1]["cue"] and not rows[1]["note_word"]


def row(score, cue=False, overlap=False, due=None):
    return {"s": score, "cue": cue, "overlap": overlap, "due": cue if due is None else due}


def test_the_bound_spends_the_false_alarm_budget_on_one_threshold():
    rows = [row(0.9), row(0.8), row(0.7), row(0.1),          # not due: the alarms
            row(0.0, cue=True, overlap=True),                # granted, whatever its score
            row(0.75, cue=True), row(0.5, cue=True)]         # word-less cues
    # 20 moments at 0.10 a moment: two false alarms allowed, so the threshold sits just
    # above the third-highest wrong score, and finds the word-less cue above it.
    recall, threshold, found, alarms = fc.bound(rows, 20, "s")
    assert (found, alarms) == (1, 2)
    assert threshold == pytest.approx(0.7)
    assert recall == pytest.approx(2 / 3)
    # With no budget to spend, only the granted cue is found.
    assert fc.bound(rows, 5, "s")[0] == pytest.approx(1 / 3)
