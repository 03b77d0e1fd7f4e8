"""One rule for time: every moment vaultmem handles is naive local time.

A moment enters from `--now`, from front matter dates, from file mtimes and from
stamps stored by earlier runs. Naive input is taken as local time; aware input
(`2026-08-16T09:00+05:00`, `...Z`) is converted to the machine's local time and
then made naive, so that any two moments can be compared and subtracted, and
every stamp written to the store has the same form. Pure apart from `now()` and
the local time zone.
"""

from __future__ import annotations

from datetime import date, datetime, time

_EXAMPLE = "e.g. 2026-08-15 or 2026-08-15T09:30"
# The moments `--now` may name. vaultmem adds and subtracts spans of days, months and
# centuries to the current moment (horizons, windows, decays, recurrences) and Python's
# dates end at years 1 and 9999: these bounds leave room for every one of them.
EARLIEST = datetime(1000, 1, 1)
LATEST = datetime(9000, 12, 31, 23, 59, 59)


def local_naive(moment: datetime) -> datetime:
    """The moment as naive local time (aware moments are converted first)."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone().replace(tzinfo=None)


def now() -> datetime:
    """The system clock, to the second."""
    return datetime.now().replace(microsecond=0)


def parse_now(text: str | None) -> datetime:
    """`now` as text (`--now`, an MCP tool's `now`): None is the system clock; an ISO date
    is its midnight. Raises ValueError with a message for the user that names the value
    as the library does, `now` in backticks, for each face to say in its own terms (an
    empty value is a mistake, not the clock)."""
    if text is None:
        return now()
    if not text.strip():
        raise ValueError(f"`now` is empty: give an ISO date or datetime, {_EXAMPLE}, or "
                         "leave it out for the system clock")
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"`now` {text!r} is not an ISO date or datetime, {_EXAMPLE}"
                         ) from None
    try:
        return in_range(moment)
    except ValueError as exc:
        raise ValueError(f"`now` {exc}") from None


def in_range(moment: datetime) -> datetime:
    """`moment` as naive local time if vaultmem can compute with it (see EARLIEST,
    LATEST), else ValueError naming the range."""
    try:
        local = local_naive(moment)
    except (OverflowError, ValueError):  # an offset that carries it past year 1 or 9999
        local = None
    if local is None or not EARLIEST <= local <= LATEST:
        raise ValueError(f"{moment.isoformat()} is out of range: give a moment between "
                         f"{EARLIEST.date()} and {LATEST.date()}")
    return local


def moment(text: str | None) -> datetime | None:
    """A stored stamp or a front matter date or datetime, as naive local time; None when
    it is not one ("2026-08-15", "2026-08-15T09:30:00+02:00", "2026-08-15 something")."""
    if not text:
        return None
    try:
        return local_naive(datetime.fromisoformat(text))
    except ValueError:
        try:
            return datetime.combine(date.fromisoformat(text[:10]), time())
        except ValueError:
            return None


def naive_stamp(text: str) -> str:
    """A stored ISO stamp in the naive local form; stamps with an offset (written before
    this rule) are converted, the rest returned unchanged."""
    if len(text) <= 19:
        return text
    parsed = moment(text)
    return parsed.isoformat(timespec="seconds") if parsed else text
