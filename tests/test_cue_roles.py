"""Who a condition waits on, and what else it says, end to end through the CLI with the
real model on a ledger of its own (tests/data/cue_vault_roles.json): the name a message
is about is not its sender; a name two entries' notes carry still says which one, when
they wait for different kinds of event; an event told in the words of an entry's note
and no other's is its cue; the weather is not a condition that also names
a tide or a place; a breeze is not a still day."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_cues import cue_vault, due_json, triggered_rows

pytestmark = pytest.mark.integration
NOW = "2027-11-02T12:00"

vault = cue_vault("cue_vault_roles")


def triggered(capsys, vault: Path, context: str) -> list[str]:
    return [r["id"] for r in triggered_rows(due_json(capsys, vault, NOW, context))]


# -- lures: each fired on the matcher before ---------------------------------------------

def test_the_person_a_message_is_about_is_not_its_sender(capsys, vault):
    # before: c-consulate, "a message about marisol" (the consulate replies about her visa)
    assert triggered(capsys, vault, "Oisín in the bath; Marisol on the phone to her sister "
                                    "in Valparaíso.") == []


def test_weather_alone_is_not_a_condition_that_names_more(capsys, vault):
    # before: c-cradle, "the weather (wind)": a spring tide with a southerly wind
    assert triggered(capsys, vault, "Heavy showers blowing across the car park all "
                                    "afternoon.") == []


def test_a_breeze_is_not_a_still_day(capsys, vault):
    # before: c-varnish by meaning ("dry and breezy" ~ "it's a dry, still day")
    assert triggered(capsys, vault, "Today stays dry and breezy.") == []


# -- true cues ---------------------------------------------------------------------------

def test_a_name_two_notes_carry_still_tells_a_reply_from_an_arrival(capsys, vault):
    # before: nothing (Harbourside Lettings is in the notes of c-landlord and c-roofer)
    assert triggered(capsys, vault, "Email from Harbourside Lettings: the landlord agrees "
                                    "to five years at the same rent.") == ["c-landlord"]


def test_an_event_told_in_the_words_of_its_note_alone(capsys, vault):
    # before: nothing (no word of "the quote from Sparks Ltd arrives", no name; the note
    # says Sparks are the electricians doing the rewiring)
    assert triggered(capsys, vault, "The electrician's estimate for the rewiring just "
                                    "landed in my inbox.") == ["c-sparks"]


def test_an_event_of_its_kind_that_no_note_speaks_of_is_no_cue(capsys, vault):
    assert triggered(capsys, vault, "A parcel landed on the doormat: new headphones.") == []


@pytest.mark.parametrize(("context", "entry"), [
    ("Email from the consulate: Marisol's visa is approved.", "c-consulate"),
    ("The spring tide is right up now and a southerly wind is pushing it up the slipway.",
     "c-cradle"),
    ("Dry and calm at last, not a breath of wind.", "c-varnish"),
    ("Twelve hours on the ward and my heel is throbbing again.", "c-insoles"),
])
def test_the_cues_themselves_still_fire(capsys, vault, context, entry):
    assert entry in triggered(capsys, vault, context)
