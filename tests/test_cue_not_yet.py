"""Not yet, by its linguistic class rather than its wording (the ConText family: a
trigger's kind, and the clause it governs). A promise says that what it names is still
to come: "the engineer has promised the calcs 'by teatime'", "invoice to follow". Each
lure below fired on the matcher before (the week and the evidence that fired it are
named); each keep is a clause of the same shape that tells what happened, or an errand
with a deadline (which, like "need to", says nothing of the cue beside it in a list), and
must stay unvetoed. And a message about the subject whose words of the condition are all
promised for later ("Nav texted: 'invoice to follow next week'") is not its event; a
promise to do ("she'll swap") still is."""

from __future__ import annotations

import numpy as np
import pytest

from vaultmem import cue, trigger
from vaultmem.commitments import OpenEntry, _evidence, _Told
from vaultmem.config import Settings


@pytest.mark.parametrize(("clause", "veto"), [
    # week a3 (read on a5, checked there): "I'm at choir rehearsal", by meaning on
    # «Graham took my £35 at the break and promised to post me a spare Rutter score»
    # (cosine 0.72, +0.42), said at home
    ("Graham took my £35 at the break and promised to post me a spare Rutter score.",
     "pending: promised"),
    # week a5: "Lee sends the engineer's steel calcs", by meaning (cosine 0.66, +0.33)
    ("the engineer has promised the calcs 'by teatime'.", "pending: promised"),
    ("Nav texted: 'invoice to follow next week'.", "pending: to follow"),
    ("Tomasz promises the revised figures", "pending: promises"),
])
def test_a_promise_or_a_deadline_is_still_to_come(clause, veto):
    assert trigger.veto_of(clause) == veto


@pytest.mark.parametrize("clause", [
    "The engineer came this morning and the cupboard works.",
    "Lee's forwarded the engineer's calcs.",
    "Nav's invoice followed the photo.",
    # prospective blueprint c14: the cue is told beside this errand in one sentence
    "Need to send the oat milk deck by 5,",
    "mock grades must be in SIMS by 4pm,",
])
def test_what_happened_and_an_errand_with_a_deadline_are_no_promise(clause):
    assert trigger.veto_of(clause) == ""


def test_a_promised_clause_leaves_the_told_ones_as_evidence():
    text = "Lee texted too — the engineer has promised the calcs by teatime."
    assert trigger.affirmed_text(text) == "Lee texted too"


def message(condition: str, context: str, subject: tuple[str, ...]) -> cue.Cue:
    """The matcher's decision on `context` for a message condition whose subject the
    context names and whose event (a message) it tells, meaning not pointing elsewhere."""
    told = _Told(context, False)
    names = trigger.name_stems(condition)
    plain = trigger.content_stems(condition) - names
    denied = plain & told.vetoed - told.stems
    hit = trigger.SemanticHit(0.4, trigger.Unit(context, "query"),
                              trigger.View(0, "condition", condition, np.zeros(3)), 0.0)
    return cue.decide(cue.Evidence(
        condition, trigger.word_evidence(condition, told.text, {}), hit,
        subject=subject, said=frozenset({"message"}), denied=tuple(sorted(denied)),
        affirmed=tuple(sorted(plain & told.stems)),
        deferred=tuple(sorted(denied & told.deferred))), Settings())


@pytest.mark.parametrize(("condition", "context", "subject"), [
    # week a5: "a message about nav" (weak cue)
    ("Nav sends his invoice", "Pager on charge by the bed. Nav texted: 'invoice to follow "
     "next week'.", ("nav",)),
    # week a5: "a message about lee", beside the meaning the promise now vetoes
    ("Lee sends the engineer's steel calcs", "Lee texted too — the engineer has promised "
     "the calcs 'by teatime'.", ("lee",)),
])
def test_a_message_that_puts_off_what_the_condition_waits_for_is_not_it(
        condition, context, subject):
    found = message(condition, context, subject)
    assert not found.fired and "told as promised for later" in found.why


@pytest.mark.parametrize(("condition", "context", "subject"), [
    # a promise to do is often the answer itself (round 5 lost such cues vetoing them)
    ("Morag replies about the swap", "Morag texted: fine, she'll swap.", ("morag",)),
    ("Mr Okoro replies about Finn's maths set", "Mr Okoro replied — Finn can move up a set "
     "if the test goes well.", ("okoro",)),
    ("Nav sends his invoice", "Nav texted: invoice attached, to be paid by the end of the "
     "month.", ("nav",)),
])
def test_a_message_that_answers_still_fires(condition, context, subject):
    assert message(condition, context, subject).fired


# -- a word of promise that promises nothing still to come ------------------------------
# Each of these was vetoed whole as "pending: promised" / "to follow" (the cue beside it
# lost, its words reported as "told as not happened"): a promise kept is the event
# happening, "promising" is a quality, and "to follow" after a verb, or with an object,
# is something done.

@pytest.mark.parametrize("clause", [
    "As promised the parcel arrived",
    "as she'd promised the parcel arrived",
    "The promised quote from the roofer arrived.",
    "his long-promised visit finally happened",
    "Nav sent the invoice he promised.",
    "The calcs Lee promised came through this morning",
    "Emailed Mrs Darby the Seneca revision links I promised",
    "Nav kept his promise and sent the invoice",
    "Tomatoes finally ripening and the beans look promising",
    "a promising start at the new job",
    "I decided to follow the recipe",
    "Ana started the new job today and had to follow a senior nurse round all morning",
    "The instructions were easy to follow.",
    "Sam rang the bank to follow up the refund",
])
def test_a_promise_kept_or_a_thing_to_follow_done_is_no_veto(clause):
    assert trigger.veto_of(clause) == ""


@pytest.mark.parametrize(("clause", "veto"), [
    ("My mum said she promised to come", "pending: promised"),
    ("they promised them delivered to the ward by eleven", "pending: promised"),
    ("Lee is promising the calcs", "pending: promising"),
    ("the engineer has promised the calcs ‘by teatime’.", "pending: promised"),
    ("Nav texted: “invoice to follow”", "pending: to follow"),
    ("More details to follow.", "pending: to follow"),
    ("INVOICE TO FOLLOW", "pending: to follow"),
    # a promise kept that did not come is vetoed by its negation, as before
    ("the promised quote never came", "negated: never"),
])
def test_a_promise_still_to_come_is_still_vetoed(clause, veto):
    assert trigger.veto_of(clause) == veto


@pytest.mark.parametrize("condition", ["I have time to follow up the grant",
                                       "Sam keeps his promise",
                                       "the promised refund lands"])
def test_a_condition_that_only_names_a_promise_does_not_look_ahead(condition):
    # looking ahead would take a clause still to come ("the refund should land
    # tomorrow", "I'll have time tomorrow") as its moment
    assert not trigger.looks_ahead(condition)


def entry_cue(condition: str, context: str) -> cue.Cue:
    """The matcher's decision through `commitments._evidence` (the evidence the CLI
    builds), meaning a sentence at cosine 0.4 leading the next entry by 0.16."""
    entry = OpenEntry("c-1", "act", condition, (), None, None, None, [], None, 1, "L.md")
    told = _Told(context, trigger.looks_ahead(condition))
    hit = trigger.SemanticHit(0.4, trigger.Unit(context, "sentence"),
                              trigger.View(0, "condition", condition, np.zeros(3)), 0.16)
    return cue.decide(_evidence(entry, told, set(), hit, -1.0, {}, {}, (), None),
                      Settings())


@pytest.mark.parametrize(("condition", "context"), [
    ("the parcel arrives", "As promised the parcel arrived this morning."),
    ("the quote from the roofer arrives", "The promised quote from the roofer arrived."),
    ("Nav sends his invoice", "Nav sent the invoice he promised."),
    ("Nav sends his invoice", "Nav kept his promise and sent the invoice."),
    ("Ana starts the new job", "Ana started the new job today and had to follow a senior "
     "nurse round all morning."),
    ("the tomatoes ripen", "Tomatoes finally ripening and the beans look promising."),
])
def test_the_cue_beside_a_promise_that_promises_nothing_still_fires(condition, context):
    assert entry_cue(condition, context).fired


def test_a_promised_message_is_held_back_through_the_evidence_the_cli_builds():
    # (the helper `message` above builds `deferred` itself; this goes through
    # commitments._evidence, so it fails if the evidence stops carrying it)
    found = entry_cue("Nav sends his invoice",
                      "Pager on charge by the bed. Nav texted: 'invoice to follow next week'.")
    assert not found.fired and "told as promised for later" in found.why
