"""One kind of evidence alone, found only in a part of a context of several sentences
(`lone_evidence`, cue.LONE_UNITS): it needs a second kind to fire. In a context of one
sentence, or where the whole context is closest to the condition, it fires as before."""

from __future__ import annotations

import numpy as np
import pytest

from vaultmem import cue, trigger
from vaultmem.config import Settings

CONDITION = "it rains next"


def evidence(unit: str, sentences: int, *, said=frozenset({"rain"}), score=0.3,
             lead=0.1, keyword: str = "") -> cue.Evidence:
    """The weather told (an event) beside meaning whose best unit is `unit`, in a context
    of `sentences` sentences. With `score` high and `lead` wide, meaning holds too."""
    hit = trigger.SemanticHit(score, trigger.Unit("my sister says it's pouring in Leeds",
                                                  unit),
                              trigger.View(0, "condition", CONDITION, np.zeros(3)), lead)
    return cue.Evidence(CONDITION, trigger.Words(0.0), hit, said=said, keyword=keyword,
                        sentences=sentences)


@pytest.mark.parametrize("unit", ["clause", "sentence"])
def test_an_event_alone_in_a_part_of_a_long_context_does_not_fire(unit):
    decided = cue.decide(evidence(unit, 3), Settings())
    assert not decided.fired
    assert decided.why.startswith("an event alone, and the context is closest to it in one")
    assert "a second kind of evidence is needed" in decided.why


@pytest.mark.parametrize(("unit", "sentences"), [
    ("query", 3),  # the whole context is closest to the condition
    ("affirmed", 3),  # …the whole less the clauses it denies
    ("clause", 1),  # a clause of a context of one sentence
])
def test_an_event_alone_where_the_whole_context_carries_it_fires(unit, sentences):
    decided = cue.decide(evidence(unit, sentences), Settings())
    assert decided.fired and not decided.strong


def test_meaning_alone_fires_on_a_sentence_not_on_a_clause_of_several_sentences():
    settings = Settings()
    quiet = frozenset()
    on_sentence = cue.decide(evidence("sentence", 3, said=quiet, score=0.6, lead=0.4), settings)
    assert on_sentence.fired and on_sentence.evidence["half"] == "meaning"
    on_clause = cue.decide(evidence("clause", 3, said=quiet, score=0.6, lead=0.4), settings)
    assert not on_clause.fired and on_clause.why.startswith("meaning alone")


def test_two_kinds_of_evidence_in_one_clause_fire_strong():
    decided = cue.decide(evidence("clause", 3, score=0.6, lead=0.4), Settings())
    assert decided.fired and decided.strong
    assert decided.evidence["half"] == "meaning+event"


def test_a_keyword_the_person_wrote_and_the_old_rule_fire_anywhere():
    assert cue.decide(evidence("clause", 3, said=frozenset(), keyword="pouring"),
                      Settings()).fired
    assert cue.decide(evidence("clause", 3), Settings(lone_evidence="anywhere")).fired
