"""One kind of evidence alone, found only in a part of a context of several sentences
(`lone_evidence`, cue.LONE_UNITS): it needs a second kind to fire. In a context of one
sentence, or where the whole context is closest to the condition, it fires as before."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vaultmem import cue, trigger
from vaultmem.config import Settings

CONDITION = "it rains next"


def evidence(unit: str, sentences: int, *, said=frozenset({"rain"}), score=0.3,
             lead=0.1, keyword: str = "", **more) -> cue.Evidence:
    """The weather told (an event) beside meaning whose best unit is `unit`, in a context
    of `sentences` sentences. With `score` high and `lead` wide, meaning holds too."""
    hit = trigger.SemanticHit(score, trigger.Unit("my sister says it's pouring in Leeds",
                                                  unit),
                              trigger.View(0, "condition", CONDITION, np.zeros(3)), lead)
    return cue.Evidence(more.pop("condition", CONDITION), more.pop("words", trigger.Words(0.0)),
                        hit, said=said, keyword=keyword, sentences=sentences, **more)


@pytest.mark.parametrize("unit", ["clause", "sentence"])
def test_an_event_alone_in_a_part_of_a_long_context_does_not_fire(unit):
    decided = cue.decide(evidence(unit, 3), Settings())
    assert not decided.fired
    assert decided.why == (
        f"the weather (rain) alone, and the context is closer to the condition in one {unit} "
        "«my sister says it's pouring in Leeds» than as a whole: a second kind of evidence "
        "is needed")


@pytest.mark.parametrize(("unit", "sentences"), [
    ("query", 3),  # the whole context is closest to the condition
    ("affirmed", 3),  # …the whole less the clauses it denies
    ("clause", 1),  # a clause of a context of one sentence
])
def test_an_event_alone_where_the_whole_context_carries_it_fires(unit, sentences):
    decided = cue.decide(evidence(unit, sentences), Settings())
    assert decided.fired and not decided.strong


def test_meaning_alone_fires_on_a_sentence_not_on_a_clause_or_the_told_part():
    settings = Settings()
    quiet = frozenset()
    on_sentence = cue.decide(evidence("sentence", 3, said=quiet, score=0.6, lead=0.4), settings)
    assert on_sentence.fired and on_sentence.evidence["half"] == "meaning"
    for unit, name in (("clause", "one clause"), ("affirmed", "the told part")):
        refused = cue.decide(evidence(unit, 3, said=quiet, score=0.6, lead=0.4), settings)
        assert not refused.fired
        assert refused.why.startswith("by meaning: the context «my sister")
        assert refused.why.endswith(f"alone, in {name} «my sister says it's pouring in Leeds» "
                                    "of a context of several sentences: a second kind of "
                                    "evidence is needed")


def test_words_alone_in_one_clause_do_not_fire_a_place_stood_in_does():
    words = trigger.Words(1.0, ("pour",))
    refused = cue.decide(evidence("clause", 3, said=frozenset(), condition="it starts pouring",
                                  words=words), Settings())
    assert not refused.fired and refused.why.startswith("words pour (100% of its weight) alone")
    # "In Bishop's" for "when I'm at the hardware shop": a presence told, taken as it is
    at = cue.decide(evidence("clause", 3, said=frozenset(), condition="I'm at the hardware shop",
                             words=trigger.Words(1.0, ("hardwar", "shop")),
                             place=("hardwar", "shop"), place_words=("hardwar", "shop")),
                    Settings())
    assert at.fired and at.evidence["half"] == "keywords"


def test_with_no_vectors_to_place_the_evidence_the_rule_has_nothing_to_say():
    ev = cue.Evidence(CONDITION, trigger.Words(0.0), None, said=frozenset({"rain"}),
                      sentences=3)
    assert cue.decide(ev, Settings()).fired


@pytest.mark.parametrize(("text", "sentences"), [
    ("It's bucketing down outside, glad I brought the umbrella.", 1),
    ("Long day at work. It's pouring down outside now. Made dal.", 3),
    ("Long day at work\nmy sister says it's pouring in Leeds\nMade dal", 3),  # a line each
    ("Ok. Fine.", 1),  # parts of one word are no sentences
    ("Mrs. Okafor came by for her Brompton.", 1),  # a title's full stop ends nothing
])
def test_a_contexts_sentences_are_its_parts_between_full_stops_or_its_lines(text, sentences):
    assert trigger.sentence_count(text) == sentences


def test_two_kinds_of_evidence_in_one_clause_fire_strong():
    decided = cue.decide(evidence("clause", 3, score=0.6, lead=0.4), Settings())
    assert decided.fired and decided.strong
    assert decided.evidence["half"] == "meaning+event"


def test_a_keyword_the_person_wrote_and_the_old_rule_fire_anywhere():
    assert cue.decide(evidence("clause", 3, said=frozenset(), keyword="pouring"),
                      Settings()).fired
    assert cue.decide(evidence("clause", 3), Settings(lone_evidence="anywhere")).fired


def test_an_entry_alone_in_its_ledger_fires_on_one_clause_as_before():
    # no other entry for a part of the context to come closer to: the threshold decides
    assert cue.decide(evidence("clause", 3, lead=math.inf), Settings()).fired


def test_a_place_condition_by_meaning_alone_on_one_clause_does_not_fire():
    # the place exemption is for the place stood in, not for any evidence of its entry
    refused = cue.decide(evidence("clause", 3, said=frozenset(), score=0.6, lead=0.4,
                                  condition="I'm at the hardware shop",
                                  place_words=("hardwar", "shop")), Settings())
    assert not refused.fired and refused.why.startswith("by meaning")
