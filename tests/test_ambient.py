"""Ambient firing never lifts a note from nowhere (SPEC 5), end to end on the real model.

A dated commitment that is overdue fires in the background on every query. An unrelated
short question with a clear answer must not find the commitment's note in its top
results: that note's relevance to the question is background, and doubling it lifted
it over the rest of the background into the top 5 (eval_prospective.py's unrelated
queries: 13 of 68 before `ambient_band`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultmem.interfaces.cli import main

pytestmark = pytest.mark.integration
NOW = "2026-09-14"
MARTA = "daily/2026-09-02 Lunch with Marta.md"
NOTES = {
    "daily/2026-09-01 Back from holiday.md": "Back from two weeks in Croatia. Inbox is a "
    "disaster, four hundred emails. Unpacked and did three loads of washing.",
    MARTA: "Lunch with Marta at the Vietnamese place. She is chairing the PyData track this "
    "year and wants me to submit a talk; she asked me to send her an outline of the "
    "abstract before the call for proposals closes.",
    "daily/2026-09-03 Rent.md": "Letter from the landlord: the rent goes up from 1,150 to "
    "1,290 euros a month from November. That is a 12% increase. Need to check whether "
    "that is even allowed.",
    "daily/2026-09-04 Bike.md": "Took the bike in for a service. The chain was worn out and "
    "the rear brake pads too. 85 euros.",
    "daily/2026-09-05 Climbing.md": "Bouldering with Jonas in the evening. Finally sent the "
    "overhang problem I had been stuck on for weeks.",
    "daily/2026-09-06 Market.md": "Saturday market: plums, bread, a big bunch of dahlias. "
    "Made plum cake in the afternoon.",
    "daily/2026-09-07 Mietspiegel.md": "Looked up the Mietspiegel for our street. The local "
    "comparative rent for a flat our size is about 11.20 per square metre; we would be "
    "above it after the increase.",
    "daily/2026-09-08 Dentist.md": "Dentist check-up. One small filling needed, booked for "
    "October.",
    "daily/2026-09-09 Team offsite.md": "Team offsite planning. We picked a venue by the lake "
    "for the last week of October.",
    "daily/2026-09-10 Sourdough.md": "Fed the sourdough starter and baked a rye loaf. The "
    "crumb was too dense, needs a longer proof.",
    "daily/2026-09-11 Phone.md": "Phone screen cracked when it fell off the balcony table. "
    "Repair shop quoted 140 euros.",
    "daily/2026-09-12 Garden.md": "Planted garlic in the raised bed and covered it with "
    "straw.",
    "Ledger.md": "# Ledger\n\n- [ ] Send Marta the talk abstract outline 📅 2026-09-12 "
    "[[2026-09-02 Lunch with Marta]]\n",
}
QUESTION = "Is the rent increase allowed?"


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ambient")
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text + "\n", encoding="utf-8")
    assert main(["index", str(root), "--now", NOW, "--json"]) == 0
    assert main(["salience", "--vault", str(root), "--now", NOW, "--json"]) == 0
    return root


def ask(capsys, monkeypatch, vault: Path, band: str | None = None) -> dict:
    if band is not None:
        monkeypatch.setenv("VAULTMEM_AMBIENT_BAND", band)
    capsys.readouterr()
    assert main(["query", QUESTION, "--vault", str(vault), "--now", NOW, "-k", "12",
                 "--no-log", "--explain", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_an_unrelated_question_does_not_get_an_ambient_note_from_nowhere(
        vault, capsys, monkeypatch):
    """Fails on the earlier code (the constraint was 4th, its score doubled)."""
    doc = ask(capsys, monkeypatch, vault)
    assert [(f["id"], f["grounded"]) for f in doc["firing"]] == [
        ("c-send-marta-talk-abstract", False)]  # due, and said so: in the background
    ranks = {r["path"]: r for r in doc["results"]}
    assert [r["path"] for r in doc["results"][:2]] == ["daily/2026-09-03 Rent.md",
                                                       "daily/2026-09-07 Mietspiegel.md"]
    marta = ranks[MARTA]
    assert marta["rank"] > 5
    e = marta["explain"]
    assert marta["firing"] and e["firing"] == 1  # b stays 1, the score the formula's
    assert marta["score"] == pytest.approx(e["relevance"] * (1 + e["weight"] * e["salience"])
                                           * (1 + e["fire_weight"]), abs=2e-4)
    assert e["placement"].startswith("ambient, from nowhere: relevance ")


def test_with_no_band_the_ambient_note_is_lifted_into_the_top_five(vault, capsys,
                                                                   monkeypatch):
    """`ambient_band` 0 is the earlier rule (every ambient note doubled and ranked by its
    score): the question above is one where that lifts the note over the background."""
    doc = ask(capsys, monkeypatch, vault, band="0")
    assert next(r["rank"] for r in doc["results"] if r["path"] == MARTA) <= 5
