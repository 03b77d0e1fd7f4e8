"""Not yet, by its linguistic class rather than its wording (the ConText family: a
trigger's kind, scope and where the scope ends). Each lure below fired on the matcher
before (the week and the evidence that fired it are named); each keep is a clause of the
same shape that tells the event, or tells nothing to come, and must stay unvetoed.

* a calendar date is a day named, as a weekday is ("comes on the 22nd");
* a promise or a deadline ("has promised the calcs", "to follow", "by teatime");
* a degree short of the whole ("about half full", "half-built");
* the futurate: a progressive with a day to come ("Flying back Friday night");
* a heading that names a forecast or a plan scopes over the rest of its sentence;
* a message about the subject whose words of the condition are all negated or put off
  is not its event ("He still hasn't said which March weekends");
* a day or a month is no name a linked note carries.
"""

from __future__ import annotations

import numpy as np
import pytest

from vaultmem import cue, trigger
from vaultmem.commitments import _Told
from vaultmem.config import Settings


@pytest.mark.parametrize(("clause", "veto"), [
    # week a5: "the Lab 3 fume cupboard is repaired" fired by meaning on the affirmed text
    ("facilities now say the engineer comes on the 22nd.", "pending: on the 22nd"),
    ("Responses close on 15 January.", "pending: on 15 january"),
    ("keys on the 1st of June,", "pending: on the 1st of june"),
])
def test_a_calendar_date_is_a_day_named_like_a_weekday(clause, veto):
    assert trigger.veto_of(clause) == veto


@pytest.mark.parametrize(("clause", "veto"), [
    # week a5: "Lee sends the engineer's steel calcs", by meaning (cosine 0.66, +0.33);
    # week a3: the £35 "and promised to post me a spare Rutter score" at home
    ("the engineer has promised the calcs 'by teatime'.", "pending: promised"),
    ("Nav texted: 'invoice to follow next week'.", "pending: to follow"),
    ("mock grades must be in SIMS by 4pm,", "pending: by 4pm"),
    ("the committee want the rent by the end of the month.", "pending: by the end"),
])
def test_a_promise_or_a_deadline_is_still_to_come(clause, veto):
    assert trigger.veto_of(clause) == veto


@pytest.mark.parametrize("clause", [
    "going through every direct debit one by one",
    "By the time I got home the parcel was on the mat.",
    "The engineer came this morning and the cupboard works.",
])
def test_by_and_a_past_tense_tell_what_happened(clause):
    assert trigger.veto_of(clause) == ""


@pytest.mark.parametrize(("clause", "veto"), [
    # week a5: "the skip's full", words full, skip (100%) and meaning (cosine 0.80)
    ("and the skip out front is about half full.", "almost: half full"),
    ("Janet and Albert over for coffee in the half-built kitchen.", "almost: half-built"),
    ("the loft is partly boarded", "almost: partly boarded"),
])
def test_a_degree_short_of_the_whole_is_almost(clause, veto):
    assert trigger.veto_of(clause) == veto


@pytest.mark.parametrize("clause", [
    "Lorry outside at half seven hoisting the skip off the front,",
    "Train back from Keynsham with half a lemon drizzle.",
    "the Rutter is in the second half,",
    "Kyle swears he handed the coursework in before half-term,",
    "the skip's full to the brim.",
])
def test_half_as_a_time_a_share_or_a_part_is_no_degree(clause):
    assert trigger.veto_of(clause) == ""


@pytest.mark.parametrize(("clause", "veto"), [
    # week a5: "Jonno's back from Tenerife", by meaning on "Jonno messaged. 'Flying back
    # Friday night" (cosine 0.59, +0.33)
    ("'Flying back Friday night,", "pending: flying back friday"),
    ("Timstar's tracking now says Thursday.", "pending: tracking now says thursday"),
])
def test_the_futurate_a_progressive_with_a_day_to_come(clause, veto):
    assert trigger.veto_of(clause) == veto


@pytest.mark.parametrize("clause", [
    "The honey shelf's looking thin again after the Saturday rush.",
    "anything left after Saturday goes in the seconds box.",
    "I was working last Friday",
    "Slow breakfast with the Sunday paper.",
])
def test_no_futurate_without_a_progressive_and_a_day_to_come(clause):
    assert trigger.veto_of(clause) == ""


def test_a_forecast_heading_scopes_over_its_sentence():
    # week a5: "it's a dry weekend day", by meaning on «Sunday dry and bright» (+0.49)
    clauses = trigger.scoped_clauses("Friday tea, the pizza arrived lukewarm. Forecast: "
                                     "rain tomorrow, Sunday dry and bright. Dry now.")
    assert [c.veto for c in clauses] == ["", "", "pending: forecast", "pending: tomorrow",
                                         "pending: forecast", ""]
    assert "Sunday dry" not in trigger.affirmed_text("Forecast: rain tomorrow, Sunday dry.")


@pytest.mark.parametrize("text", [
    "No electric: the cooker clock's blank and the freezers have gone quiet.",
    "Right, long list tonight: chase HR, book the car in.",
])
def test_a_negation_or_an_occasion_heads_nothing(text):
    # "No electric" is the power cut; a list made tonight says nothing of its errands
    assert trigger.scoped_clauses(text)[-1].veto == ""


def message(condition: str, context: str, subject: tuple[str, ...]) -> cue.Cue:
    """The matcher's decision on `context` for a message condition whose subject the
    context names and whose event (a message) it tells, meaning not pointing elsewhere."""
    told = _Told(context, False)
    names = trigger.name_stems(condition)
    plain = trigger.content_stems(condition) - names
    denied = plain & told.vetoed - told.stems
    hit = trigger.SemanticHit(0.4, trigger.Unit(context, "sentence"),
                              trigger.View(0, "condition", condition, np.zeros(3)), 0.0)
    return cue.decide(cue.Evidence(
        condition, trigger.word_evidence(condition, told.text, {}), hit,
        subject=subject, said=frozenset({"message"}), denied=tuple(sorted(denied)),
        affirmed=tuple(sorted(plain & told.stems)),
        negated=tuple(sorted(denied & told.negated))), Settings())


@pytest.mark.parametrize(("condition", "context", "subject"), [
    # week b5: "a message about mark" (weak cue)
    ("Mark confirms the March weekends", "Mark rang at six and we're agreed on what to say "
     "to Osian. He still hasn't said which March weekends he wants, mind.", ("mark",)),
    # week a5: "a message about nav" (weak cue)
    ("Nav sends his invoice", "Pager on charge by the bed. Nav texted: 'invoice to follow "
     "next week'.", ("nav",)),
])
def test_a_message_that_negates_or_puts_off_what_the_condition_waits_for(
        condition, context, subject):
    found = message(condition, context, subject)
    assert not found.fired and "told as not so" in found.why


@pytest.mark.parametrize(("condition", "context", "subject"), [
    # a promise to do is often the answer itself (round 5 lost these when it vetoed them)
    ("Morag replies about the swap", "Morag texted: fine, she'll swap.", ("morag",)),
    ("Mr Okoro replies about Finn's maths set", "Mr Okoro replied — Finn can move up a set "
     "if the test goes well.", ("okoro",)),
    ("Mark confirms the March weekends", "Mark rang: the first two March weekends are "
     "his, not the last.", ("mark",)),
])
def test_a_message_that_answers_still_fires(condition, context, subject):
    assert message(condition, context, subject).fired


def test_a_day_or_a_month_is_no_name_a_note_carries():
    # week a5: "an arrival about friday" for "Jonno's back from Tenerife" ("Friday tea,
    # the pizza arrived"): Friday was a name of Jonno's note
    names = trigger.note_names("Lent him the pressure washer. He flies to Tenerife with "
                               "Kerry on Friday and is back in March.")
    assert "Friday" not in names and "March" not in names
    assert {"Tenerife", "Kerry"} <= set(names)
