"""Cues, not mentions (SPEC 5): on one person's ledger of commitments in competition,
end to end through the CLI with the real model. Each lure kind fired a commitment before
the matcher asked for a cue (a name or place alone, a clause that says not yet, one
common word, a weak likeness); each kind of true cue is still found (a shared word, a
paraphrase, a name only the linked note carries)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultmem.interfaces.cli import main

pytestmark = pytest.mark.integration
NOW = "2027-03-02T12:00"



def indexed(root: Path, vault: dict) -> Path:
    """A cue vault (notes + ledger, from tests/data) written at `root` and indexed."""
    for path, text in {**vault["notes"], "Ledger.md": vault["ledger"]}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    assert main(["index", str(root), "--now", "2027-03-02T08:00", "--json"]) == 0
    return root


def cue_vault(name: str):
    """A module-scoped fixture: the cue vault tests/data/<name>.json, indexed once."""
    data = json.loads((Path(__file__).parent / "data" / f"{name}.json").read_text(
        encoding="utf-8"))

    @pytest.fixture(scope="module")
    def vault(tmp_path_factory) -> Path:
        return indexed(tmp_path_factory.mktemp(name), data)

    return vault


vault = cue_vault("cue_vault")


def cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def due_json(capsys, vault: Path, now: str, context: str) -> dict:
    """The document of `due --context` at `now`."""
    return cli_json(capsys, "due", "--vault", str(vault), "--now", now, "--context", context)


def triggered_rows(doc: dict) -> list[dict]:
    """The `triggered` group of a `due` document, in its order."""
    return [r for r in doc["results"] if r["group"] == "triggered"]


def triggered(capsys, vault: Path, context: str) -> dict[str, str]:
    """{entry id: its confidence} of the `triggered` group of `due --context`."""
    return {r["id"]: r["confidence"]
            for r in triggered_rows(due_json(capsys, vault, NOW, context))}


# -- lures: each fired on the matcher before this one ------------------------------------

def test_a_name_and_a_place_alone_do_not_say_ana_is_back(capsys, vault):
    # before: "trigger matched: ana, porto"
    assert triggered(capsys, vault, "Ana sent a photo of the beach in Porto this morning.") == {}


@pytest.mark.parametrize("context", [
    "Still no word from the roofer about the quote.",  # before: c-roof on roofer, quote
    "Drove past the garden centre but didn't stop.",  # before: c-garden on garden, centre
])
def test_a_clause_that_says_not_yet_is_no_cue(capsys, vault, context):
    assert triggered(capsys, vault, context) == {}


def test_one_common_word_of_a_condition_is_no_cue(capsys, vault):
    # before: c-voiceover by meaning (quiet ~ "the house is quiet enough to record", 0.52)
    assert triggered(capsys, vault, "Quiet evening at home, pasta on the stove.") == {}


@pytest.mark.parametrize("context", [
    "At the pharmacy picking up a prescription.",  # before: c-osei by meaning (0.32)
    "In town after work, window shopping.",  # before: c-hardware and c-garden (0.3-0.4)
])
def test_a_weak_likeness_of_the_same_kind_is_no_cue(capsys, vault, context):
    assert triggered(capsys, vault, context) == {}


def test_weather_told_of_another_place_in_one_clause_of_a_day_is_no_cue(capsys, vault):
    # before: c-rain by an event alone, the rain clause the part closest to "it rains next"
    assert triggered(capsys, vault, "Long day at work. The rota is sorted for next month, "
                     "and my sister says it's pouring in Leeds. Made dal for dinner.") == {}
    # …nor written a line at a time, as a daily note is
    assert triggered(capsys, vault, "Long day at work\nThe rota is sorted for next month, "
                     "and my sister says it's pouring in Leeds\nMade dal for dinner") == {}


# -- true cues: still found --------------------------------------------------------------

@pytest.mark.parametrize(("context", "entry"), [
    ("Long day at work. It's pouring down outside now, water everywhere. Made dal for "
     "dinner.", "c-rain"),
    ("Got home at six. Kev Dunn's quote for the roof finally came through, it's higher "
     "than I hoped. Made dal.", "c-roof"),
])
def test_a_cue_in_one_part_of_a_long_context_carries_two_kinds_of_evidence(
        capsys, vault, context, entry):
    rows = triggered_rows(due_json(capsys, vault, NOW, context))
    assert [(r["id"], r["confidence"]) for r in rows] == [(entry, "strong")]
    assert "+" in rows[0]["half"]


def test_a_place_stood_in_within_a_long_context_is_still_its_cue(capsys, vault):
    # [[Bishop's Ironmongery]] is the hardware shop; the place alone, in one sentence of three
    assert triggered(capsys, vault, "Long day at work. Popped into Bishop's for some screws. "
                     "Made dal.") == {"c-hardware": "weak"}


def test_a_cue_that_shares_the_conditions_words(capsys, vault):
    assert triggered(capsys, vault, "Email from Kev Dunn: the quote for the roof is "
                                    "attached.") == {"c-roof": "strong"}


@pytest.mark.parametrize(("context", "entry"), [
    ("Everyone's out and the house is silent for once; the mic is set up.", "c-voiceover"),
    ("It's bucketing down outside, glad I brought the umbrella.", "c-rain"),
])
def test_a_paraphrase_of_the_condition(capsys, vault, context, entry):
    assert list(triggered(capsys, vault, context)) == [entry]


@pytest.mark.parametrize(("context", "entry"), [
    # [[Dr Osei]] says she works at Hillside Clinic; the condition never names it
    ("Hillside's receptionist left a voicemail asking me to ring back.", "c-osei"),
    # [[Bishop's Ironmongery]] is the hardware shop
    ("In Bishop's on Gloucester Road, queueing behind a man buying one hinge.", "c-hardware"),
])
def test_a_cue_only_the_linked_note_connects(capsys, vault, context, entry):
    assert list(triggered(capsys, vault, context)) == [entry]


# -- what a query does with them ---------------------------------------------------------

def test_a_query_grounds_no_commitment_on_a_lure(capsys, vault):
    doc = cli_json(capsys, "query", "Still no word from the roofer about the quote.",
                   "--vault", str(vault), "--now", NOW, "--no-log")
    assert [f["id"] for f in doc["firing"] if f["grounded"]] == []
    assert [f["id"] for f in doc["firing"]] == ["c-rent"]  # due, in the background


def test_only_a_strong_cue_is_placed_a_weak_one_gets_the_multiplier(capsys, vault):
    strong = cli_json(capsys, "query", "Email from Kev Dunn: the quote for the roof is "
                      "attached.", "--vault", str(vault), "--now", NOW, "--no-log", "--explain")
    roof = next(r for r in strong["results"] if r["path"] == "suppliers/Kev Dunn Roofing.md")
    assert roof["rank"] == 1 and roof["explain"]["placement"].startswith(
        "grounded, strong match")
    weak = cli_json(capsys, "query", "Hillside's receptionist left a voicemail asking me to "
                    "ring back.", "--vault", str(vault), "--now", NOW, "--no-log", "--explain")
    assert {f["id"]: f["confidence"] for f in weak["firing"] if f["grounded"]} == {
        "c-osei": "weak"}
    osei = next(r for r in weak["results"] if r["path"] == "people/Dr Osei.md")
    assert osei["explain"]["placement"] == ("grounded, weak match: the multiplier alone, "
                                            "not placed")
