"""Dates in words, resolved against the day they were written (vaultmem.text.dates)."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultmem.text.dates import easter, find_dates, find_time

DATA = json.loads((Path(__file__).parent / "data" / "recognizers_dates.json").read_text())

WED = date(2026, 3, 4)  # a Wednesday


def one(text: str, anchor: date = WED):
    found = find_dates(text, anchor)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("text, expected, prep", [
    ("send it by Friday", date(2026, 3, 6), "by"),
    ("on Wednesday", WED, "on"),  # a plain weekday is its next occurrence, today included
    ("next Tuesday", date(2026, 3, 10), None),  # the Tuesday of next week
    ("next Friday", date(2026, 3, 13), None),
    ("this Friday", date(2026, 3, 6), None),
    ("Monday week", date(2026, 3, 16), None),
    ("a week on Friday", date(2026, 3, 13), None),
    ("by next Sat", date(2026, 3, 14), "by"),
    ("tomorrow", date(2026, 3, 5), None),
    ("the day after tomorrow", date(2026, 3, 6), None),
    ("tonight", WED, None),
    ("on the 15th", date(2026, 3, 15), "on"),
    ("by the 2nd", date(2026, 4, 2), "by"),  # the 2nd has passed this month: next month's
    ("in two weeks", date(2026, 3, 18), "in"),
    ("in a fortnight", date(2026, 3, 18), "in"),
    ("within ten days", date(2026, 3, 14), "within"),
    ("in the next three weeks", date(2026, 3, 25), "in"),
    ("in 3 months", date(2026, 6, 4), "in"),
    ("two weeks from now", date(2026, 3, 18), None),
    ("end of month", date(2026, 3, 31), None),
    ("by the end of the month", date(2026, 3, 31), "by"),
    ("before the month is out", date(2026, 3, 31), "before"),
    ("by the end of next week", date(2026, 3, 13), "by"),
    ("this weekend", date(2026, 3, 7), None),
    ("next weekend", date(2026, 3, 14), None),
    ("next week", date(2026, 3, 9), None),
    ("this week", date(2026, 3, 6), None),
    ("next month", date(2026, 4, 1), None),
    ("on 3 March", date(2026, 3, 3), "on"),  # within the last month: a past day
    ("by 20 May", date(2026, 5, 20), "by"),
    ("on the 9th of May", date(2026, 5, 9), "on"),
    ("April 15", date(2026, 4, 15), None),
    ("May 9th", date(2026, 5, 9), None),
    ("due 31 July", date(2026, 7, 31), "due"),
    ("5 January", date(2027, 1, 5), None),  # long past this year: next year's
    ("Friday 13 March", date(2026, 3, 13), None),
    ("the twenty-first of June", date(2026, 6, 21), None),
    ("mid-April", date(2026, 4, 15), None),
    ("end of April", date(2026, 4, 30), None),
    ("early May", date(2026, 5, 1), None),
    ("by April", date(2026, 4, 1), "by"),
    ("end of Q3", date(2026, 9, 30), None),
    ("year end", date(2026, 12, 31), None),
    ("before Christmas", date(2026, 12, 25), "before"),
    ("Easter", date(2026, 4, 5), None),
    ("2026-03-20", date(2026, 3, 20), None),
    ("3/15/2026", date(2026, 3, 15), None),
    ("15.03.2026", date(2026, 3, 15), None),
])
def test_each_form_resolves_against_the_day_it_was_written(text, expected, prep):
    found = one(text)
    assert (found.day, found.prep) == (expected, prep)


@pytest.mark.parametrize("text", [
    "yesterday", "last Friday", "3 days ago", "last week",
])
def test_past_days_are_marked_past(text):
    assert one(text).past


@pytest.mark.parametrize("text", [
    "the 3rd floor", "I may go", "We march 5 miles", "on Thursdays now", "Fridays",
    "the Sun newspaper", "I sat down", "version 3.11.7", "it cost $12", "the first time",
    "the week", "sales_report-2002-10-09.xlsx",
])
def test_words_that_only_look_like_dates_are_not_dates(text):
    assert find_dates(text, WED) == []


def test_a_price_before_a_date_is_not_its_day():
    found = one("I bought it for $12 December 27", date(2019, 7, 4))
    assert found.day == date(2019, 12, 27)


def test_several_dates_come_back_in_order_without_overlap():
    found = find_dates("He can start on the 6th of April, but only if I pay by the 30th.", WED)
    assert [(m.text, m.day) for m in found] == [("the 6th of April", date(2026, 4, 6)),
                                                 ("the 30th", date(2026, 3, 30))]


def test_easter_is_computed():
    assert [easter(y) for y in (2024, 2025, 2026, 2027)] == [
        date(2024, 3, 31), date(2025, 4, 20), date(2026, 4, 5), date(2027, 3, 28)]


def _glued(case: dict) -> bool:
    """An ISO date inside a file name or a URL: Form reads prose, not those."""
    before = case["input"][max(0, case["start"] - 1):case["start"]]
    return bool(re.match(r"[\w/-]", before))


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: f"{c['form']}:{c['text']}")
def test_recognizers_text_gold(case):
    """Microsoft Recognizers-Text's own gold, for the forms Form reads: the day resolved
    for the mention at the gold span is the gold day (a range: a day inside it; "within
    N" ends on its last day, which Form takes as the deadline)."""
    if _glued(case):
        pytest.skip("a date inside a file name or URL is not read")
    anchor = date.fromisoformat(case["reference"])
    found = [m for m in find_dates(case["input"], anchor)
             if m.start <= case["end"] and case["start"] < m.end]
    if all(v in (None, "not resolved") for v in case["values"]):
        assert found == []  # "feb 30": no such day
        return
    assert found, "the date was not found"
    day = found[0].day.isoformat()
    if case["type"] == "date":
        assert day in case["values"]
    else:
        inclusive = case["text"].lower().startswith("within")
        assert any(lo and hi and (lo[:10] <= day < hi[:10] or inclusive and day == hi[:10])
                   for lo, hi in case["values"])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
       st.dates())
def test_any_text_any_day_never_raises(text, anchor):
    for m in find_dates(text, anchor):
        assert text[m.start:m.end] == m.text


def test_the_edges_of_the_calendar_do_not_raise():
    text = "tomorrow, next week, in 3 years, by Christmas, yesterday, last month, the 31st"
    assert find_dates(text, date.max) is not None
    assert find_dates(text, date.min) is not None


DATE_WORDS = ("thus", "thu", "thur", "thurs", "tues", "mon", "monday", "sunny", "wed",
              "wedding", "sat", "fri", "12", "3rd", "the", "of", "March", "mar", "next", "this",
              "by", "on", "in", "two", "weeks", "end", "month", "tomorrow", "at", "5pm", ",",
              "before", "after", "2026-08-15", "15/08", "week", "weekend", "Christmas")


@given(st.lists(st.sampled_from(DATE_WORDS), max_size=12), st.dates())
@settings(max_examples=400, deadline=None)
def test_sentences_of_date_words_never_raise(words, anchor):
    text = " ".join(words)
    for m in find_dates(text, anchor):
        assert text[m.start:m.end] == m.text


@pytest.mark.parametrize("text", ["We met thus 12 times.", "Thus 3 of us went.",
                                  "The wedding 5 of May", "A sunny 4th of July"])
def test_words_that_start_like_weekdays_are_not_weekdays(text):
    found = find_dates(text, date(2026, 1, 1))
    assert all("thus" not in m.text.lower() and "wedding" not in m.text.lower()
               and "sunny" not in m.text.lower() for m in found)


@pytest.mark.parametrize("text, day, first, last", [
    # a mention keeps its own day (Recognizers-Text's) and the days it spans
    ("this weekend", date(2026, 3, 7), date(2026, 3, 7), date(2026, 3, 8)),
    ("next weekend", date(2026, 3, 14), date(2026, 3, 14), date(2026, 3, 15)),
    ("this week", date(2026, 3, 6), WED, date(2026, 3, 6)),  # from the day it was written
    ("next week", date(2026, 3, 9), date(2026, 3, 9), date(2026, 3, 13)),  # working days
    ("the week after next", date(2026, 3, 16), date(2026, 3, 16), date(2026, 3, 20)),
    ("next month", date(2026, 4, 1), date(2026, 4, 1), date(2026, 4, 30)),
    ("this month", date(2026, 3, 31), WED, date(2026, 3, 31)),
    ("by April", date(2026, 4, 1), date(2026, 4, 1), date(2026, 4, 30)),
    ("in March", WED, WED, date(2026, 3, 31)),
    ("early May", date(2026, 5, 1), date(2026, 5, 1), date(2026, 5, 10)),
    ("last week", date(2026, 2, 23), date(2026, 2, 23), date(2026, 3, 1)),
    ("next year", date(2027, 1, 1), date(2027, 1, 1), date(2027, 12, 31)),
    ("mid-April", date(2026, 4, 15), date(2026, 4, 15), date(2026, 4, 15)),
    ("Friday", date(2026, 3, 6), date(2026, 3, 6), date(2026, 3, 6)),
])
def test_a_period_spans_its_days(text, day, first, last):
    found = one(text)
    assert (found.day, found.first, found.last, found.period) == (day, first, last,
                                                                  first != last)


@pytest.mark.parametrize("text", ["end of month", "the end of the week", "end of Q3",
                                  "end of April", "year end", "before the month is out"])
def test_the_end_of_a_period_is_one_day_of_its_own_kind(text):
    found = one(text)
    assert (found.kind, found.period) == ("end", False)


# -- times of day: what bounds a due day -----------------------------------------------------

@pytest.mark.parametrize("text, at, bound", [
    ("Car MOT at Halls Garage — drop off by 08:30", "08:30", "by"),
    ("Ring Dean to OK the £186 brake-pad quote before 2pm — check with Tom", "14:00", "by"),
    ("Smear test at Riverside Surgery, 11:20 (nurse annexe)", "11:20", "at"),
    ("Prepare the routing-api v2.14 sprint demo (review Thu 15:00)", "15:00", "at"),
    ("Eye test at Specsavers Headingley at 8:30", "08:30", "at"),
    ("Dentist check-up at 9:40", "09:40", "at"),
    ("Submit it by 5 p.m. today", "17:00", "by"),
    ("Hand in the form no later than 12pm", "12:00", "by"),
    ("Call the bank after 2 pm", "14:00", "after"),
    ("Lunch with Ana at noon", "12:00", "at"),
    ("Catch the 7.45am train", "07:45", "at"),
    ("Pay before Friday 3pm", "15:00", "by"),
    ("Wednesday spin class at the leisure centre, 18:30", "18:30", "at"),
])
def test_a_time_of_day_and_what_it_bounds(text, at, bound):
    found = find_time(text)
    assert found is not None, text
    assert (found.at.strftime("%H:%M"), found.bound) == (at, bound)
    assert text[found.start:found.end] == found.text


@pytest.mark.parametrize("text", [
    "Ask Rachel at the 1:1",          # a meeting, not 01:01
    "Tag routing-api v2.14",          # a version
    "Pay the £186 quote",
    "24/7 support line",
    "Lunches for two 12.5-hour long days",
    "Book 3 days off",
    "at 25:00", "at 13pm",
    "ratio 3:45:10",
])
def test_numbers_that_are_not_times_of_day(text):
    assert find_time(text) is None
