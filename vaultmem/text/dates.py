"""Dates written in words, found in a sentence and resolved against the day it was written.

Pure: `find_dates("send it by Friday", date(2026, 3, 4))` returns the mention "by Friday"
resolved to 2026-03-06. Only the forms people use for deadlines and plans are read:
ISO and numeric dates, day and month ("3 March", "the 9th of May"), a bare day of the
month ("by the 20th"), weekdays ("Friday", "next Tuesday", "Monday week"), relative days
("tomorrow", "in two weeks", "within ten days"), periods ("this weekend", "next week",
"end of the month", "mid-April", "end of Q3") and a few fixed holidays.

Conventions follow the Microsoft Recognizers-Text English specs, whose gold resolutions
are the tests (`tests/test_dates.py`): "next Tuesday" is the Tuesday of next week; a
plain weekday is its next occurrence, today included; a weekend starts on Saturday;
an ambiguous numeric date is month first. A year left out means the next such day,
unless it fell within the last month (then it is a past day, as in "on 3 March I
paid…" written on 10 March, which is how a done obligation is told from an open one).

A mention names a day (`day`, Recognizers-Text's reading: the start of "next week",
"next month" or a month named alone, the Friday of "this week", the Saturday of a
weekend) and the days it spans (`first`..`last`: a week is Monday to Friday, a weekend
Saturday and Sunday, a month or year all of it; "this" one starts no earlier than the
day it was written). The end of something ("end of the month", "end of Q2") is one day
of kind "end"; "mid-April" is the 15th.

A due date is a deadline: the last day on which doing the thing still keeps the
commitment. `vaultmem.form.due_window` turns a mention into one: a period comes due on
its last day ("this weekend": Sunday; "this week", "next week": that week's Friday;
"next month", "in June", "by June": the month's last day) and opens its window on its
first day (the ledger's `🛫`); "before X" is the day before X begins ("before the
weekend": Friday; "before 12 March": 11 March; "before Easter": Easter Saturday), but
"before the end of X" is X's end; "by X" is X (its last day for a period); "from" or
"starting X" is X's first day; a single day is itself.

No library is used: dateparser (measured in scripts/eval_form.py) resolves fewer of
these forms ("end of the month", "this weekend" and "mid-April" come back empty) and
its sentence search reads modal "may" and verb "march" as months.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, time, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
               "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_WD_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3,
            "fri": 4, "sat": 5, "sun": 6}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
    "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30, "a couple of": 2,
    "a couple": 2, "couple of": 2, "a few": 3, "few": 3,
}
PREPOSITIONS = ("no later than", "ahead of", "by", "before", "on", "until", "till",
                "til", "from", "starting", "as of", "after", "in", "within", "for", "due",
                "around", "at")

_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WD_ANY = _WD[:-1] + r"|(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?)"
_MON = (r"(?:january|february|march|april|may|june|july|august|september|october|"
        r"november|december|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?)")
_ORD_WORDS = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_DAYNUM = (r"(?:(?:[12][0-9]|3[01]|0?[1-9])(?:st|nd|rd|th)?|"
           rf"(?:twenty|thirty)[- ](?:first|second|third|fourth|fifth|sixth|seventh|"
           rf"eighth|ninth)|{_ORD_WORDS})")
_ORDDAY = (r"(?:(?:[12][0-9]|3[01]|0?[1-9])(?:st|nd|rd|th)|"
           rf"(?:twenty|thirty)[- ](?:first|second|third|fourth|fifth|sixth|seventh|"
           rf"eighth|ninth)|{_ORD_WORDS})")
_YEAR = r"(?:(?:19|20)\d\d|'\d\d)"
_YEAR_AFTER = rf"(?:\s*,?\s*|\s+of\s+|\s+in\s+)(?P<y>{_YEAR})"
_NUM = (r"(?:\d{1,3}|a couple of|a couple|couple of|a few|few|an?|one|two|three|four|five|"
        r"six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty)")
_UNIT = r"(?:days?|weeks?|fortnights?|months?|years?)"
# After a bare "the 15th": not a noun ("the 3rd floor"), so only these words or punctuation.
_AFTER_BARE_DAY = (r"(?=\s*(?:$|[,.;:!?)\]—–-]|\s(?:of|at|and|or|to|when|so|but|if|"
                   r"otherwise|latest|this|next|please|because|as|then|for|in|it|is)\b))")

_HOLIDAYS = {
    "christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25),
    "xmas": (12, 25), "boxing day": (12, 26), "new year's eve": (12, 31),
    "new years eve": (12, 31), "new year's day": (1, 1), "new year's": (1, 1),
    "new year": (1, 1), "halloween": (10, 31), "valentine's day": (2, 14),
    "valentines day": (2, 14), "bonfire night": (11, 5), "guy fawkes night": (11, 5),
    "st patrick's day": (3, 17), "independence day": (7, 4),
}
_MOVABLE = ("easter sunday", "easter monday", "easter", "good friday", "thanksgiving")


@dataclass(frozen=True)
class DateMention:
    """One date in a sentence: where it is, what it says, and the day it means."""

    start: int
    end: int
    text: str
    day: date
    kind: str  # absolute | day | weekday | relative | period | end | holiday
    #            (end: the close of a period, "end of the month", "Q3 end": one day)
    prep: str | None  # the preposition before it, lower-cased: "by", "on", "before", …
    past: bool  # before the day it was written on: "yesterday", "last Friday", …
    vague: bool = False  # a period read as one day ("this week", "mid-April")
    first: date | None = None  # the period it names: its first day …
    last: date | None = None  # … and its last (both `day` for a single day)

    def __post_init__(self) -> None:
        if self.first is None:
            object.__setattr__(self, "first", self.day)
        if self.last is None:
            object.__setattr__(self, "last", self.day)

    @property
    def period(self) -> bool:
        """Whether it names more than one day ("next week", "in June")."""
        return self.first != self.last


# ------------------------------------------------------------------ calendar arithmetic


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _upcoming(anchor: date, weekday: int, *, today_counts: bool = True) -> date:
    ahead = (weekday - anchor.weekday()) % 7
    if ahead == 0 and not today_counts:
        ahead = 7
    return anchor + timedelta(days=ahead)


def easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian algorithm, Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    j = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * j) // 451
    month, day = divmod(h + j - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# ------------------------------------------------------------------ words to numbers


def _month_number(word: str) -> int:
    word = word.lower().rstrip(".")
    if word in MONTHS:
        return MONTHS.index(word) + 1
    return _MONTH_ABBR[word]


def _weekday_number(word: str) -> int:
    word = word.lower().rstrip(".")
    if word in WEEKDAYS:
        return WEEKDAYS.index(word)
    return _WD_ABBR[word]


def _day_number(text: str) -> int:
    text = text.lower().replace("-", " ")
    digits = re.match(r"\d+", text)
    if digits:
        return int(digits.group(0))
    if " " in text:
        tens, unit = text.split(" ", 1)
        return (20 if tens == "twenty" else 30) + _ORDINALS[unit]
    return _ORDINALS[text]


def _count(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else _NUMBERS[text]


def _year(text: str | None, default: int) -> int:
    if not text:
        return default
    return 2000 + int(text[1:]) if text.startswith("'") else int(text)


# ------------------------------------------------------------------ resolution rules

# (day, kind, vague) for one day; (day, kind, vague, first, last) for a period, whose
# `day` is the mention's own day (Recognizers-Text's) and first..last the days it spans
Resolved = tuple | None
_RULES: list[tuple[re.Pattern, Callable[[re.Match, date], Resolved]]] = []


def _rule(pattern: str, flags: int = re.IGNORECASE):
    def register(fn: Callable[[re.Match, date], Resolved]):
        _RULES.append((re.compile(rf"(?<![\w'$£€/.-])(?<![$£€] )(?:{pattern})(?![\w-])", flags),
                        fn))
        return fn
    return register


def _next_yearly(anchor: date, month: int, day: int) -> date | None:
    """A day and month with no year: this year's, unless it fell within the last month
    (a past day), else next year's."""
    this = _safe(anchor.year, month, day)
    if this is None:  # 29 February: the next year that has one
        return next(filter(None, (_safe(anchor.year + n, month, day) for n in range(1, 9))),
                    None)
    if this >= anchor or (anchor - this).days <= 31:
        return this
    return _safe(anchor.year + 1, month, day)


@_rule(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})")
def _iso(m: re.Match, anchor: date) -> Resolved:
    day = _safe(int(m["y"]), int(m["m"]), int(m["d"]))
    return (day, "absolute", False) if day else None


@_rule(r"(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})")
def _numeric(m: re.Match, anchor: date) -> Resolved:
    a, b = int(m["a"]), int(m["b"])
    year = int(m["y"]) if len(m["y"]) == 4 else 2000 + int(m["y"])
    # Month first unless that cannot be (US order, as Recognizers-Text and dateparser);
    # dotted dates are day first, as they are written wherever dots are used.
    month, day = (a, b) if m["sep"] == "/" and a <= 12 else (b, a)
    found = _safe(year, month, day)
    return (found, "absolute", False) if found else None


@_rule(rf"(?:(?P<wd>{_WD_ANY}),?\s+)?(?:the\s+)?(?P<d>{_DAYNUM})(?:\s+of)?\s+(?P<mon>{_MON})"
       rf"(?:{_YEAR_AFTER})?")
def _day_month(m: re.Match, anchor: date) -> Resolved:
    return _month_day_resolve(m, anchor)


@_rule(rf"(?:(?P<wd>{_WD_ANY}),?\s+)?(?P<mon>{_MON})\s+(?:the\s+)?(?P<d>{_DAYNUM})"
       rf"(?:{_YEAR_AFTER})?")
def _month_day(m: re.Match, anchor: date) -> Resolved:
    return _month_day_resolve(m, anchor)


def _month_day_resolve(m: re.Match, anchor: date) -> Resolved:
    word = m["mon"]
    if not _is_month_word(word) and not (m["y"] or re.search(r"(?:st|nd|rd|th)$", m["d"])):
        return None  # "may 2", "march 5 miles": a verb, not a month
    month, day = _month_number(word), _day_number(m["d"])
    if m["y"]:
        found = _safe(_year(m["y"], anchor.year), month, day)
    else:
        found = _next_yearly(anchor, month, day)
    return (found, "absolute", False) if found else None


@_rule(rf"(?:(?P<wd>{_WD}),?\s+)?the\s+(?P<d>{_ORDDAY})(?:\s+of\s+(?P<which>this|next)\s+month)?"
       + _AFTER_BARE_DAY)
def _bare_day(m: re.Match, anchor: date) -> Resolved:
    """"the 20th": this month's if still ahead, else next month's (the 31st: the next
    month that has one)."""
    day = _day_number(m["d"])
    month = _add_months(anchor.replace(day=1), 1 if m["which"] == "next" else 0)
    for step in range(0, 3):
        start = _add_months(month, step)
        found = _safe(start.year, start.month, day)
        if found and (found >= anchor or m["which"]):
            return found, "day", False
    return None


@_rule(r"(?P<w>today|tonight|this\s+(?:morning|afternoon|evening)|(?:the\s+)?end\s+of\s+(?:the\s+)?day|"
       r"eod|close\s+of\s+business|"
       r"(?:the\s+)?day\s+after\s+tomorrow|tomorrow(?:\s+(?:morning|afternoon|evening|night))?|"
       r"(?:the\s+)?day\s+before\s+yesterday|yesterday|last\s+night)")
def _relative_day(m: re.Match, anchor: date) -> Resolved:
    word = " ".join(m["w"].lower().split())
    if "after tomorrow" in word:
        offset = 2
    elif word.startswith("tomorrow"):
        offset = 1
    elif "before yesterday" in word:
        offset = -2
    elif word in ("yesterday", "last night"):
        offset = -1
    else:
        offset = 0
    return anchor + timedelta(days=offset), "relative", False


@_rule(rf"(?:in|within)\s+(?:the\s+next\s+)?(?P<n>{_NUM})\s+(?P<u>{_UNIT})(?:'?\s*time)?|"
       rf"(?P<n2>{_NUM})\s+(?P<u2>{_UNIT})\s+(?P<dir>from\s+(?:now|today)|ago|time)|"
       rf"(?:in\s+)?(?:the\s+)?next\s+(?P<n3>{_NUM})\s+(?P<u3>{_UNIT})|"
       rf"(?P<n5>{_NUM})\s+(?P<u5>{_UNIT})\s+(?:from|after)\s+(?P<base>today|tomorrow)|"
       rf"(?P<a>a|one)\s+(?P<u4>week|fortnight|month)\s+(?:from\s+)?today")
def _offset(m: re.Match, anchor: date) -> Resolved:
    count = m["n"] or m["n2"] or m["n3"] or m["n5"] or m["a"]
    unit = (m["u"] or m["u2"] or m["u3"] or m["u4"] or m["u5"]).lower().rstrip("s")
    if (m["base"] or "").lower() == "tomorrow":
        anchor += timedelta(days=1)
    n = _count(count)
    sign = -1 if (m["dir"] or "").lower() == "ago" else 1
    if unit in ("month", "year"):
        day = _add_months(anchor, sign * n * (12 if unit == "year" else 1))
    else:
        day = anchor + timedelta(days=sign * {"day": 1, "week": 7, "fortnight": 14}[unit] * n)
    # "within ten days" is a deadline ten days on: the end of Recognizers-Text's window
    # (which it counts as exclusive), the day a person writing it would name
    return day, "relative", False


@_rule(rf"(?:a\s+week\s+(?:on|from)\s+(?P<wd1>{_WD}))|(?P<wd2>{_WD})\s+week(?!\w)|"
       rf"(?P<wd3>{_WD})\s+after\s+next")
def _weekday_week(m: re.Match, anchor: date) -> Resolved:
    """"Monday week", "a week on Monday": seven days after the coming Monday."""
    wd = _weekday_number(m["wd1"] or m["wd2"] or m["wd3"])
    if m["wd3"]:
        return _monday(anchor) + timedelta(days=14 + wd), "weekday", False
    return _upcoming(anchor, wd, today_counts=False) + timedelta(days=7), "weekday", False


@_rule(rf"(?P<which>this\s+coming|this\s+past|this|next|last|previous|past|coming|following)?"
       rf"\s*(?P<wd>{_WD})(?:\s+of\s+(?P<wk>this|next|last)\s+week)?|"
       rf"(?P<which3>this|next|last|coming|on|by|before|until|till|from)\s+"
       rf"(?P<wd3>(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b\.?)|"
       rf"(?P<wk2>this|next)\s+week(?:'s)?\s+(?:on\s+)?(?P<wd2>{_WD})")
def _weekday(m: re.Match, anchor: date) -> Resolved:
    wd = _weekday_number(m["wd"] or m["wd2"] or m["wd3"])
    which = " ".join((m["wk"] or m["wk2"] or m["which"] or m["which3"] or "").lower().split())
    if which in ("on", "by", "before", "until", "till", "from"):
        which = ""
    week = {"this": 0, "next": 7, "following": 7, "last": -7, "previous": -7}
    if which == "this" and not (m["wk"] or m["wk2"]):
        return _upcoming(anchor, wd), "weekday", False
    if m["wk"] or m["wk2"] or which in week:  # the weekday of that week (Recognizers-Text)
        return _monday(anchor) + timedelta(days=week[which] + wd), "weekday", False
    if which in ("past", "this past"):
        back = (anchor.weekday() - wd) % 7 or 7
        return anchor - timedelta(days=back), "weekday", False
    if which in ("coming", "this coming"):
        return _upcoming(anchor, wd, today_counts=False), "weekday", False
    return _upcoming(anchor, wd), "weekday", False


@_rule(rf"(?P<wd>{_WD_ANY}),?\s+(?:the\s+)?(?P<d>{_DAYNUM})(?!\s*(?:of\s+)?{_MON})"
       r"(?!\s*(?:am|pm|a\.m|p\.m|o'?clock|h\b)|[:/.]\d)")
def _weekday_and_day(m: re.Match, anchor: date) -> Resolved:
    """"Monday 21", "Tues the 4th": the next day that is both."""
    wd, day = _weekday_number(m["wd"]), _day_number(m["d"])
    month = anchor.replace(day=1)
    for step in range(0, 28):
        start = _add_months(month, step)
        found = _safe(start.year, start.month, day)
        if found and found >= anchor and found.weekday() == wd:
            return found, "absolute", False
    return None


@_rule(r"(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?P<which>next\s+)?(?P<unit>week|month|year)|"
       r"(?P<unit2>week|month|year)[- ]end(?!\s+(?!(?:and|or|when|if|so|but|at|to|for|with|"
       r"please|then|latest|at\s+the\s+latest)\b)[a-z])|(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<unit3>quarter)|"
       r"(?:the|this)\s+(?P<unit4>week|month|year)\s+(?:is\s+out|is\s+over|ends|finishes)")
def _end_of(m: re.Match, anchor: date) -> Resolved:
    unit = (m["unit"] or m["unit2"] or m["unit3"] or m["unit4"]).lower()
    nxt = bool(m["which"])
    if unit == "week":  # the working week: its Friday, or Sunday once Friday has passed
        friday = _monday(anchor) + timedelta(days=4 + (7 if nxt else 0))
        return (friday if friday >= anchor else friday + timedelta(days=2)), "end", True
    if unit == "month":
        month = _add_months(anchor.replace(day=1), 1 if nxt else 0)
        return _month_end(month.year, month.month), "end", False
    if unit == "quarter":
        last = ((anchor.month - 1) // 3) * 3 + 3
        return _month_end(anchor.year, last), "end", False
    return date(anchor.year + nxt, 12, 31), "end", False


@_rule(r"(?:the\s+)?end\s+of\s+(?:q(?P<q>[1-4])|the\s+(?P<qw>first|second|third|fourth)\s+quarter)"
       r"|(?P<q2>q[1-4])\s+end")
def _quarter_end(m: re.Match, anchor: date) -> Resolved:
    words = {"first": 1, "second": 2, "third": 3, "fourth": 4}
    quarter = int(m["q"] or (m["q2"] or "q0")[1:] or 0) or words[m["qw"].lower()]
    day = _month_end(anchor.year, quarter * 3)
    if (anchor - day).days > 31:
        day = _month_end(anchor.year + 1, quarter * 3)
    return day, "end", False


@_rule(r"(?P<last>last|past|previous)\s+(?P<lunit>weekend|week|month|year)")
def _last_period(m: re.Match, anchor: date) -> Resolved:
    """"last week": a past period (its start), so what it dates is done or missed."""
    unit = m["lunit"].lower()
    if unit in ("week", "weekend"):
        first = _monday(anchor) - timedelta(days=7 - (5 if unit == "weekend" else 0))
        return first, "period", True, first, _monday(anchor) - timedelta(days=1)
    if unit == "month":
        first = _add_months(anchor.replace(day=1), -1)
        return first, "period", True, first, anchor.replace(day=1) - timedelta(days=1)
    first = date(anchor.year - 1, 1, 1)
    return first, "period", True, first, date(anchor.year - 1, 12, 31)


@_rule(r"(?P<after>the\s+(?:week|month)\s+after\s+next)|"
       r"(?P<start>(?:the\s+)?(?:start|beginning)\s+of\s+next\s+(?:week|month|year))|"
       r"(?P<which>this|next|the)\s+(?P<unit>weekend|week|month|year)(?!\s*'s)")
def _period(m: re.Match, anchor: date) -> Resolved:
    if m["after"]:
        if "week" in m["after"].lower():
            first = _monday(anchor) + timedelta(days=14)
            return first, "period", True, first, first + timedelta(days=4)
        first = _add_months(anchor.replace(day=1), 2)
        return first, "period", True, first, _month_end(first.year, first.month)
    if m["start"]:  # "the start of next month": its first day, one day
        unit = m["start"].lower().split()[-1]
        got = _period_day("next", unit, anchor)
        return got[:3] if got else None
    else:
        which = m["which"].lower().split()[-1]
        m_unit = m["unit"].lower()
    return _period_day(which, m_unit, anchor)


def _period_day(which: str, unit: str, anchor: date) -> Resolved:
    """A week is its working days (Monday to Friday), a weekend Saturday and Sunday; "this"
    one starts no earlier than the day it was written. The day of the mention: the start of
    a "next" period, the Saturday of a weekend, the end of this week, month or year."""
    if which == "the" and unit != "weekend":
        return None  # "the week" alone names no particular one
    monday = _monday(anchor) + timedelta(days=7 if which == "next" else 0)
    if unit == "weekend":
        first, last = monday + timedelta(days=5), monday + timedelta(days=6)
        first = max(first, anchor)
        return first, "period", True, first, last
    if unit == "week":
        first, last = max(monday, anchor), max(monday + timedelta(days=4), anchor)
        return (first if which == "next" else last), "period", True, first, last
    if unit == "month":
        start = _add_months(anchor.replace(day=1), 1 if which == "next" else 0)
        first, last = max(start, anchor), _month_end(start.year, start.month)
        return (first if which == "next" else last), "period", True, first, last
    year = anchor.year + (which == "next")
    first, last = max(date(year, 1, 1), anchor), date(year, 12, 31)
    return (first if which == "next" else last), "period", True, first, last


@_rule(rf"(?P<part>(?:the\s+)?(?:end|start|beginning|middle)\s+of|mid-?|early|late)\s*"
       rf"(?P<mon>{_MON})(?:\s+(?P<y>{_YEAR}))?")
def _month_part(m: re.Match, anchor: date) -> Resolved:
    if not _is_month_word(m["mon"]):
        return None
    month = _month_number(m["mon"])
    part = m["part"].lower()
    year = _year(m["y"], anchor.year)
    if not m["y"] and (anchor - _month_end(year, month)).days > 31:
        year += 1
    end = _month_end(year, month)
    if "end" in part:
        return end, "end", False
    if "mid" in part:
        return date(year, month, 15), "period", True
    if "late" in part:  # the last third of the month
        return date(year, month, 25), "period", True, date(year, month, 21), end
    if "early" in part:  # the first third
        return date(year, month, 1), "period", True, date(year, month, 1), date(year, month, 10)
    return date(year, month, 1), "period", True  # its start or beginning: the first


@_rule(rf"(?P<prep>in|by|before|until|till|from|after|during|this|next)\s+"
       rf"(?P<mon>{_MON})(?:\s+(?P<y>{_YEAR}))?")
def _month_alone(m: re.Match, anchor: date) -> Resolved:
    """"by April", "in May": the month's first day (today, in the month itself), spanning
    the whole month."""
    if not _is_month_word(m["mon"]) or not m["mon"][0].isupper():
        return None
    month = _month_number(m["mon"])
    year = _year(m["y"], anchor.year)
    if not m["y"] and ((year, month) < (anchor.year, anchor.month)
                       or m["prep"].lower() == "next" and month == anchor.month):
        year += 1
    day = date(year, month, 1)
    if (year, month) == (anchor.year, anchor.month):
        day = anchor
    return day, "period", True, day, _month_end(year, month)


def _is_month_word(word: str) -> bool:
    """"may" and "march" are months only when capitalised ("May", "March")."""
    bare = word.lower().rstrip(".")
    return bare not in ("may", "march", "mar") or word[0].isupper()


_HOLIDAY_RE = "|".join(re.escape(h).replace(" ", r"\s+").replace("'", "'?")
                       for h in sorted([*_HOLIDAYS, *_MOVABLE], key=len, reverse=True))


@_rule(rf"(?P<h>{_HOLIDAY_RE})(?:\s+(?P<y>{_YEAR}))?")
def _holiday(m: re.Match, anchor: date) -> Resolved:
    name = " ".join(m["h"].lower().replace("'", "").split())
    if m["y"]:
        return _holiday_in(name, _year(m["y"], anchor.year)), "holiday", False
    for year in (anchor.year, anchor.year + 1):
        day = _holiday_in(name, year)
        if day and day >= anchor:
            return day, "holiday", False
    return None


def _holiday_in(name: str, year: int) -> date | None:
    fixed = {k.replace("'", ""): v for k, v in _HOLIDAYS.items()}
    if name in fixed:
        return date(year, *fixed[name])
    if name == "thanksgiving":  # the fourth Thursday of November (US)
        return _upcoming(date(year, 11, 1), 3) + timedelta(days=21)
    offset = {"good friday": -2, "easter monday": 1}.get(name, 0)
    return easter(year) + timedelta(days=offset)


# ------------------------------------------------------------------ the finder


_PREP_RE = re.compile(r"(?:^|\W)(" + "|".join(p.replace(" ", r"\s+") for p in PREPOSITIONS)
                      + r")\s+(?:the\s+)?$", re.IGNORECASE)


_LEAD_PREP_RE = re.compile(r"\s*(" + "|".join(p.replace(" ", r"\s+") for p in PREPOSITIONS)
                           + r")\s+", re.IGNORECASE)


_DAY_BACK = re.compile(rf"(?:on\s+)?(?:(?P<which>last|past|this\s+past|previous)\s+)?"
                       rf"(?P<wd>{_WD_ANY})", re.IGNORECASE)


def day_back(text: str, today: date) -> date | None:
    """A weekday named for a day that has come, as a done date means it ("done on
    Friday"): "friday" is the last Friday, today included; "last friday" or "past
    friday" the last one before today. None when `text` is not a weekday so named
    (`find_dates` reads a plain weekday forward, as a deadline means it)."""
    m = _DAY_BACK.fullmatch(" ".join(text.split()))
    if m is None:
        return None
    back = (today.weekday() - _weekday_number(m["wd"])) % 7
    if m["which"] and back == 0:
        back = 7
    return today - timedelta(days=back)


def find_dates(text: str, anchor: date) -> list[DateMention]:
    """Every date mention in `text`, resolved against `anchor` (the day it was written),
    left to right, never overlapping (the longest reading wins)."""
    found: list[tuple] = []
    for order, (pattern, resolve) in enumerate(_RULES):
        for match in pattern.finditer(text):
            if match.end() == match.start():
                continue
            try:
                got = resolve(match, anchor)
            except (OverflowError, ValueError):  # beyond the calendar (a year 9999 note)
                continue
            if got and got[0] is not None:
                day = got[0]
                first, last = got[3:5] if len(got) > 3 else (day, day)
                found.append((match.start(), match.end(), order, *got[:3], first, last))
    found.sort(key=lambda f: (-(f[1] - f[0]), f[2]))
    taken: list[tuple[int, int]] = []
    mentions = []
    for start, end, _, day, kind, vague, first, last in found:
        if any(start < e and s < end for s, e in taken):
            continue
        taken.append((start, end))
        lead = _LEAD_PREP_RE.match(text, start, end)
        if lead:  # "in two weeks", "by April": the preposition is not part of the date
            start = lead.end()
            prep = lead.group(1)
        else:
            before = _PREP_RE.search(text[max(0, start - 20):start])
            prep = before.group(1) if before else None
        prep = " ".join(prep.lower().split()) if prep else None
        mentions.append(DateMention(start, end, text[start:end], day, kind, prep,
                                    last < anchor, vague, first, last))
    return sorted(mentions, key=lambda m: m.start)


# ------------------------------------------------------------------ times of day

_BOUND_PREPS = ("no later than", "by", "before", "until", "till", "til")
_OPEN_PREPS = ("after", "from", "not before")
_TIME_RE = re.compile(
    r"(?<![\w.:/£$€-])(?:(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?\s*(?P<ap>[ap]\.?m\.?)"
    r"|(?P<h2>[01]?\d|2[0-3]):(?P<m2>[0-5]\d)|(?P<noon>noon|midday))(?![\w:/.]\d|\w)",
    re.IGNORECASE)
_TIME_PREP_RE = re.compile(
    r"(?:^|\W)(" + "|".join(p.replace(" ", r"\s+") for p in (*_BOUND_PREPS, *_OPEN_PREPS, "at"))
    + r")\s+(?:(?:" + _WD_ANY + r"|today|tomorrow)\s+)?$", re.IGNORECASE)


@dataclass(frozen=True)
class TimeMention:
    """A time of day in a sentence: "at 9:40", "before 2pm", "by 08:30", "11:20".

    `bound` says what the time does to the day it is on: "by" a deadline (by, before,
    until: the thing must be done by then), "after" an opening (after, from: not before
    then), "at" an event at that time (an appointment, a review, a train)."""

    start: int
    end: int
    text: str
    at: time
    bound: str  # by | after | at


def find_time(text: str) -> TimeMention | None:
    """The first time of day in `text`, with what it bounds. Only unambiguous forms: a
    clock time with a colon ("8:30", "15:00"), an hour with am/pm ("2pm", "9.40am"), noon
    and midday; "v2.14", "1:1" (a meeting), "£186" and bare numbers are not times."""
    for m in _TIME_RE.finditer(text):
        if m["noon"]:
            at = time(12, 0)
        elif m["ap"]:
            hour = int(m["h"])
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if m["ap"].lower().startswith("p") else 0)
            at = time(hour, int(m["m"] or 0))
        else:
            at = time(int(m["h2"]), int(m["m2"]))
        before = _TIME_PREP_RE.search(text[max(0, m.start() - 40):m.start()])
        prep = " ".join(before.group(1).lower().split()) if before else ""
        bound = "by" if prep in _BOUND_PREPS else "after" if prep in _OPEN_PREPS else "at"
        return TimeMention(m.start(), m.end(), m.group(0), at, bound)
    return None
