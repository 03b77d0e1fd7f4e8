"""What a condition is about, and what a context denies or has not seen happen yet: words
alone are no cue when they leave out the thing the condition is about ("a quiet morning"
at school is not the house being quiet) or when the context denies another of its words
("no decision for a few days"); a name is not an event the stop list drops ("Mrs Okafor
comes for her Brompton"); a departure by the timetable has not happened yet.

The rules over the evidence are unit tests (the words' weights and the meaning's lead as
the weeks of docs/evaluation.md measured them, no embedder); the cues that must still
fire go through the CLI with the real model (tests/data/cue_vault_things.json)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vaultmem import cue, trigger
from vaultmem.commitments import _Told
from vaultmem.config import Settings

from .test_cues import cue_vault, due_json, triggered_rows

NOW = "2027-11-02T12:00"


def decide(condition: str, context: str, weights: dict[str, float], lead: float = 0.16):
    """The matcher's decision on `context` for `condition`, its words weighed by `weights`
    and its meaning's best pair a clause at cosine 0.5, `lead` over the next entry (not
    specific enough for meaning alone, no other entry closer)."""
    told = _Told(context, False)
    names = trigger.name_stems(condition)
    plain = trigger.content_stems(condition) - names
    hit = trigger.SemanticHit(0.5, trigger.Unit(context, "clause"),
                              trigger.View(0, "condition", condition, np.zeros(3)), lead)
    return cue.decide(cue.Evidence(
        condition, trigger.word_evidence(condition, told.text, weights), hit,
        denied=tuple(sorted(plain & told.vetoed - told.stems)),
        affirmed=tuple(sorted(plain & told.stems))), Settings())


# -- lures: each fired on the matcher before (the weeks' own false alarms) ---------------

@pytest.mark.parametrize(("condition", "context", "weights"), [
    # week b1: "words quiet (62% of its weight)"
    ("the house is quiet", "Year 11 are on study leave, so it's a quiet morning.",
     {"quiet": 2.0, "hous": 1.2}),
    # week b2: "words fuse, trip (59% of its weight)"
    ("the workshop compressor trips the fuse again",
     "The kettle in the back tripped the fuse, reset it.",
     {"fuse": 3.0, "trip": 2.5, "compressor": 2.0, "workshop": 1.5}),
    # week b3: "words jam (50% of its weight)"
    ("my printer jams again", "The old photocopier jammed halfway through the rota.",
     {"jam": 2.0, "printer": 2.0}),
])
def test_words_that_leave_out_what_the_condition_is_about(condition, context, weights):
    found = decide(condition, context, weights)
    assert not found.fired and "not what it is about" in found.why


def test_words_beside_a_word_of_the_condition_the_context_denies():
    # week b2: "words grant (53% of its weight)"
    found = decide("the grant decision comes", "Sent the committee the grant budget sheet. "
                   "The panel only sits tomorrow, so no decision for a few days.",
                   {"grant": 2.0, "decis": 1.8})
    assert not found.fired and "decis told as not happened" in found.why


def test_a_name_alone_does_not_say_an_event_the_stop_list_drops():
    # week b2: "words okafor, mrs (70% of its weight)"; "comes" is the event
    words = trigger.word_evidence("Mrs Okafor comes for her Brompton",
                                  "She bumped into Mrs Okafor in the Co-op earlier.", {})
    assert words.names_only
    assert trigger.subject_text("Mrs Okafor comes for her Brompton") == "Mrs Okafor Brompton"


@pytest.mark.parametrize(("clause", "veto"), [
    # week a3: "words janet, leed (100% of its weight)"
    ("Janet's getting the four o'clock train back to Leeds",
     "pending: getting the four o'clock train"),
    ("catching the 6.15 bus home", "pending: catching the 6.15 bus"),
])
def test_a_departure_by_the_timetable_is_still_to_come(clause, veto):
    assert trigger.veto_of(clause) == veto


def test_a_journey_under_way_is_not_to_come():
    assert trigger.veto_of("on the 6.15 bus home now") == ""


# -- the cues themselves -----------------------------------------------------------------

@pytest.mark.parametrize(("condition", "context", "weights"), [
    ("the house is quiet", "Everyone's out and the house is quiet for once.",
     {"quiet": 2.0, "hous": 1.2}),
    ("the workshop compressor trips the fuse again",
     "The compressor tripped the fuse in the workshop again.",
     {"fuse": 3.0, "trip": 2.5, "compressor": 2.0, "workshop": 1.5}),
    ("I collect the car", "At the garage collecting the Skoda.", {"collect": 2.0, "car": 1.5}),
])
def test_words_that_say_what_it_is_about_still_fire(condition, context, weights):
    assert decide(condition, context, weights).fired


vault = cue_vault("cue_vault_things")


@pytest.mark.integration
@pytest.mark.parametrize(("context", "entry"), [
    ("Everyone's out and the house is quiet at last.", "c-podcast"),
    ("The compressor kicked in and tripped the fuse in the workshop again.", "c-compressor"),
    ("The grant decision came through this morning: we got it.", "c-grant"),
    ("Mrs Okafor came in for her Brompton just before closing.", "c-okafor"),
    ("Janet texted from the station: back in Leeds safe and sound.", "c-janet"),
])
def test_the_cues_themselves_still_fire_through_the_cli(capsys, vault: Path, context, entry):
    assert entry in [r["id"] for r in triggered_rows(due_json(capsys, vault, NOW, context))]


@pytest.mark.integration
def test_a_name_alone_is_not_its_arrival_through_the_cli(capsys, vault: Path):
    # before: c-okafor, "words okafor, mrs"
    doc = due_json(capsys, vault, NOW, "Bumped into Mrs Okafor in the Co-op earlier, who "
                   "said see you tomorrow.")
    assert "c-okafor" not in [r["id"] for r in triggered_rows(doc)]


@pytest.mark.parametrize(("condition", "thing"), [
    ("the new printer jams", {"new", "printer"}),
    ("my old car breaks down", {"old", "car"}),
    ("the first frost comes", {"first", "frost"}),
    ("the other office rings back", {"other", "offic"}),
    ("the new Skoda is ready", set()),  # a name: about someone or something named
])
def test_what_a_condition_is_about_is_not_only_the_word_describing_it(condition, thing):
    # Failed before: the thing was the word after "the" or "my" whatever it was ("new",
    # "old", "first"), so "the printer jammed again" was not what "the new printer jams" is
    # about.
    assert trigger.thing_stems(condition) == thing


@pytest.mark.parametrize("context", ["The printer jammed again halfway through.",
                                     "The new one jammed again halfway through."])
def test_words_fire_for_a_condition_with_a_describing_word(context):
    found = decide("the new printer jams", context, {"jam": 2.0, "printer": 2.0, "new": 0.5})
    assert found.fired
