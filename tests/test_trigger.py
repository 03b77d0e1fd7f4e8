"""The trigger matcher (SPEC 5): the keyword-and-date half, the semantic half, date windows."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pytest

from vaultmem.trigger import (
    Match,
    content_stems,
    date_window,
    keyword_match,
    semantic_match,
)

TODAY = date(2026, 8, 15)


def unit(angle_degrees: float) -> np.ndarray:
    """A unit vector in the plane at `angle_degrees` from the x axis (cosine to x = cos)."""
    theta = math.radians(angle_degrees)
    return np.array([math.cos(theta), math.sin(theta)], dtype=np.float32)


# -- keyword half ------------------------------------------------------------------


def test_content_stems_drop_stop_words_digits_and_one_letter_words():
    assert content_stems("When the vendor's quote arrives, I get a 2026 invoice") == {
        "vendor", "quot", "arriv", "invoic"}


def test_content_stems_are_case_insensitive():
    assert content_stems("GUESTS Arriving") == content_stems("guests arriving") == {
        "guest", "arriv"}


def test_stemming_matches_another_inflection():
    match = keyword_match("vendor quote arrives", (), "The vendor quotes arrived today", 0.5)
    assert match == Match(True, "trigger matched: arriv, quot, vendor", 1.0)


def test_stop_words_in_the_condition_do_not_count():
    # Content words of the condition: only "guest" ("when", "the", "are", "coming" are stop).
    match = keyword_match("when the guests are coming", (), "guest list for saturday", 1.0)
    assert match == Match(True, "trigger matched: guest", 1.0)


def test_stop_words_in_the_context_do_not_match_anything():
    match = keyword_match("when the guests are coming", (), "when are they coming here", 0.1)
    assert match == Match(False, "", 0.0)


def test_a_condition_of_only_stop_words_never_fires():
    assert keyword_match("when it is here", (), "when it is here", 0.0) == Match(False, "", 0.0)


def test_threshold_is_the_share_of_condition_words_found_inclusive():
    condition = "vendor quote arrives"  # three content stems
    two_of_three = "the quote arrived"
    assert keyword_match(condition, (), two_of_three, 0.5) == Match(
        True, "trigger matched: arriv, quot", pytest.approx(2 / 3))
    assert keyword_match(condition, (), two_of_three, 2 / 3).fired
    below = keyword_match(condition, (), two_of_three, 0.7)
    assert below == Match(False, "", pytest.approx(2 / 3))
    half = keyword_match("plumber invoice", (), "the invoice", 0.5)
    assert half == Match(True, "trigger matched: invoic", 0.5)
    assert keyword_match("vendor quote arrives", (), "a vendor", 0.5) == Match(
        False, "", pytest.approx(1 / 3))


def test_keywords_field_matches_when_all_its_stems_are_in_the_context():
    match = keyword_match("the supplier gets back to us", ("Acme quote", "pricing"),
                          "Acme sent their quotes", 0.9)
    assert match == Match(True, "keyword matched: Acme quote", 1.0)
    # one keyword alone of a two-word keyword is not enough; another keyword may match
    assert keyword_match("x", ("Acme quote", "pricing"), "Acme called", 0.9) == Match(
        False, "", 0.0)
    assert keyword_match("x", ("Acme quote", "pricing"), "new prices", 0.9) == Match(
        True, "keyword matched: pricing", 1.0)


def test_a_keyword_of_only_stop_words_is_ignored():
    assert keyword_match(None, ("the", "when"), "the when", 0.0) == Match(False, "", 0.0)


def test_iso_date_in_the_condition_fires_once_it_has_arrived():
    condition = "after 2026-08-15 the warranty lapses"
    arrived = keyword_match(condition, (), "nothing related", 0.5, TODAY)
    assert arrived == Match(True, "date in condition arrived: 2026-08-15", 1.0)
    later = keyword_match(condition, (), "nothing related", 0.5, date(2026, 9, 1))
    assert later.fired and later.why == "date in condition arrived: 2026-08-15"
    before = keyword_match(condition, (), "nothing related", 0.5, date(2026, 8, 14))
    assert before == Match(False, "", 0.0)


def test_iso_date_is_ignored_without_today_and_invalid_dates_are_skipped():
    assert keyword_match("on 2026-08-01", (), "nothing", 0.5) == Match(False, "", 0.0)
    assert keyword_match("on 2026-13-45 the lease", (), "lease", 0.5, TODAY) == Match(
        True, "trigger matched: leas", 1.0)


def test_no_condition_and_no_keywords_never_fires():
    assert keyword_match(None, (), "anything at all", 0.0, TODAY) == Match(False, "", 0.0)


# -- semantic half -------------------------------------------------------------------


def test_semantic_fires_at_or_above_the_threshold():
    match = semantic_match(unit(0), unit(30), 0.8)  # cos 30° = 0.866
    assert match.fired
    assert match.semantic_score == pytest.approx(math.cos(math.radians(30)), abs=1e-6)
    assert match.why == "trigger matched by meaning (cosine 0.87)"
    assert match.keyword_score == 0.0
    exact = semantic_match(np.array([1.0, 0.0]), np.array([0.6, 0.8]), 0.6)
    assert exact == Match(True, "trigger matched by meaning (cosine 0.60)", 0.0, 0.6)


def test_semantic_does_not_fire_below_the_threshold():
    match = semantic_match(unit(0), unit(60), 0.55)  # cos 60° = 0.5
    assert match == Match(False, "", 0.0, pytest.approx(0.5, abs=1e-6))
    opposite = semantic_match(unit(0), unit(180), 0.0)
    assert not opposite.fired
    assert opposite.semantic_score == pytest.approx(-1.0, abs=1e-6)


@pytest.mark.parametrize(("cond", "query"), [
    (None, unit(0)),
    (unit(0), None),
    (None, None),
    (np.array([1.0, 0.0, 0.0]), unit(0)),  # a vector from another model (other dimension)
])
def test_missing_or_mismatched_vectors_never_fire(cond, query):
    assert semantic_match(cond, query, -1.0) == Match(False, "", 0.0, None)


# -- date windows ---------------------------------------------------------------------


def test_date_window_opens_on_its_start_and_stays_open():
    assert date_window(TODAY, TODAY) == "date window open since 2026-08-15"
    assert date_window(date(2026, 8, 1), TODAY) == "date window open since 2026-08-01"
    assert date_window(date(2026, 8, 16), TODAY) is None
    assert date_window(None, TODAY) is None
