"""The trigger matcher (SPEC 5): the keyword-and-date half."""

from __future__ import annotations

from datetime import date

import pytest

from vaultmem.trigger import (
    Match,
    content_stems,
    keyword_match,
    scoped_clauses,
    told_kinds,
    topic_stems,
    veto_of,
)

TODAY = date(2026, 8, 15)


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


# -- not-yet cues, scoped to their clause ---------------------------------------------


def test_a_house_number_is_no_negation_and_a_title_ends_no_sentence():
    # (Failed before: "no." was a negation and a full stop, so "Mrs Pike from no." was a
    # vetoed clause and "41 is out deadheading…" another.)
    clauses = scoped_clauses("Mrs Pike from no. 41 is out deadheading her roses. Dr. Osei "
                             "rang about it.")
    assert [(c.text, c.veto) for c in clauses] == [
        ("Mrs Pike from no. 41 is out deadheading her roses.", ""),
        ("Dr. Osei rang about it.", "")]
    assert veto_of("Still no word from the roofer") == "negated: no"
    assert veto_of("The answer was no.") == "negated: no"


@pytest.mark.parametrize(("clause", "veto"), [
    # (Each returned "" before: the clause was evidence that the event had happened.)
    ("Precious is still off", "negated: still off"),
    ("Dev is away till June", "pending: till june"),
    ("Gary rings later today about the radiator", "pending: later today"),
    ("the tiler is booked in for the 14th", "pending: booked in for"),
    ("the parcel arrives any day now", "pending: any day now"),
    ("her flight was meant to land at six", "pending: meant to"),
    ("the van came without the tiles", "negated: without"),
    ("the courier comes in an hour", "pending: in an hour"),
])
def test_a_clause_that_says_its_event_has_not_happened_is_vetoed(clause, veto):
    assert veto_of(clause) == veto


@pytest.mark.parametrize("clause", [
    "it is still raining", "still sat in departures after five hours",
    "the quote came through this morning", "Mum wants me to send her the photos",
    "Need to book the car in",  # a to-do beside a cue in a list of errands
    # a duration that has passed (vetoed as "pending: for two days" before)
    "Sam has been back from Lisbon for two days now", "Uncle Ray rang for ten minutes",
])
def test_a_clause_that_says_it_happened_or_is_happening_is_not_vetoed(clause):
    assert veto_of(clause) == ""


def test_a_clause_said_as_to_come_denies_its_words_a_hedge_does_not():
    # "results" said only where the context puts them later vetoes "the results come
    # back"; "left" said under "maybe" ("maybe four or five meals left") denies nothing:
    # a hedge is no evidence, and no word that the event did not happen either
    from vaultmem.commitments import _Told

    assert "result" in _Told("Did the test this morning, results in a couple of days.",
                             False).vetoed
    assert "left" not in _Told("The scoop scraped bottom, maybe four or five meals left.",
                               False).vetoed
    # a hedge beside a firm "next week" still denies (before: the clause's veto was
    # "pending: hopefully", so "photo" was not denied and c-photos fired)
    assert "photo" in _Told("Tilly's home from school; hopefully the photos come next week.",
                            False).vetoed


@pytest.mark.parametrize(("text", "kinds"), [
    # an ending verb ends only the weather it governs, in its own clause (before: the
    # 'stops' of "bus stops" told a dry day, and one ending flipped every weather word of
    # the sentence)
    ("It has started to rain; the bus stops are flooded.", {"rain"}),
    ("The wind has dropped but now it is raining hard.", {"still", "rain"}),
    ("The rain has stopped but it is blowing a gale.", {"dry", "wind"}),
    ("when the wind drops", {"still"}),
    ("once it stops raining", {"dry"}),
    ("The rain has finally eased off.", {"dry"}),
])
def test_an_ending_word_ends_only_the_weather_it_governs(text, kinds):
    assert told_kinds(text) == kinds


def test_a_word_denied_in_one_clause_vetoes_nothing_the_others_affirm():
    # (Before: "bathroom", said only in the clause put next week, vetoed "when the plumber
    # finishes the bathroom" though "Plumber's finished" says its other words.)
    from vaultmem import cue
    from vaultmem.commitments import _Told
    from vaultmem.trigger import Words

    condition = "the plumber finishes the bathroom"
    told = _Told("Plumber's finished. The bathroom needs a coat of paint next week, though.",
                 False)
    words = content_stems(condition)
    denied, affirmed = words & told.vetoed - told.stems, words & told.stems
    assert denied == {"bathroom"} and affirmed
    assert cue._told_otherwise(cue.Evidence(condition, Words(0.0), denied=tuple(denied),
                                            affirmed=tuple(affirmed))) == ""
    # with none of its words affirmed, the denied one still vetoes
    assert cue._told_otherwise(cue.Evidence(condition, Words(0.0), denied=("bathroom",)))


def test_what_of_the_subjects_must_be_said_in_a_sentence_that_names_them():
    # (Before: "photo" anywhere in the context counted, so c-photos fired on Tilly coming
    # back and some photos of the garden printed in another sentence.)
    from vaultmem.commitments import _owned_said, _Told

    apart = _Told("Tilly's back from her swimming lesson. Printed some photos of the garden.",
                  False)
    assert not _owned_said(apart, {"photo"}, {"tilli"})
    assert _owned_said(_Told("Tilly brought her school photos home.", False), {"photo"},
                       {"tilli"})


def test_a_note_several_entries_link_leads_for_none_of_them():
    # (Before: a shared note counted as each entry's own, with no rival: both led by inf.)
    from vaultmem.commitments import OpenEntry, note_leads

    def entry(i: int, notes: list[int]) -> OpenEntry:
        return OpenEntry(f"c-{i}", "act", "the thing happens", (), None, None, None, notes,
                         None, i, "Ledger.md")

    assert note_leads([entry(0, [7]), entry(1, [7])], [(7, 0.8)]) == {}
    # its own note leads over the others' notes, the shared one counting for nobody
    leads = note_leads([entry(0, [7, 8]), entry(1, [7, 9])], [(7, 0.9), (8, 0.6), (9, 0.5)])
    assert leads[0] == pytest.approx((0.6, 0.1)) and leads[1] == pytest.approx((0.5, -0.1))


def test_it_is_is_no_possessive():
    # (Before: "It's" read as a possessive, so "frost" was a thing of "it"'s to be said.)
    from vaultmem.trigger import owned_stems

    assert owned_stems("It's cold enough for frost") == set()
    assert owned_stems("Isla's school photos come home") == {"photo"}


@pytest.mark.parametrize(("condition", "topic"), [
    ("ISD replies about Marisol's application", {"marisol"}),
    ("the city council answers about the bins on Douglas Street", {"dougla", "street"}),
    ("Mr Okoro replies about Finn's maths set", {"finn"}),
    ("Ana's back from Porto", set()),  # Ana is back; Porto is where from
    ("a letter from HMRC arrives", set()),  # a letter names the thing, HMRC sends it
    ("Dr Osei's office gets back to me", set()),
    # "from the ..." sends as "from ..." does (failed before: {passport, offic}, {lisbon})
    ("a letter comes from the Passport Office", set()),
    ("Ana rings from the Lisbon office about Luis", {"lui"}),
])
def test_the_names_a_message_is_about_are_not_its_sender(condition, topic):
    assert topic_stems(condition) == topic
