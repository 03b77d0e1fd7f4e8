"""Proactive nudges (SPEC 8): a value per open item, a Schmitt trigger, and silence.

    V_i(t) = I_i·D_i(t) + U_i(t) + C_i(t) + N_i(t) − F_i(t)
    D_i(t) = e^(−τ/decay) · max(0, 1 + A·sin(2π·τ/period + φ)),   τ = t − anchor

The clock is the item's own: τ runs from when it last became relevant (written, its
🛫 window opened, its urgency ramp began, its due day came, a snooze ended), so an entry
written weeks ahead is as fresh on its day as one written yesterday.

U: urgency. A dated item peaks on its due day, inside the part of the day a time in its
text leaves ("at 11:20", "by 08:30": until half an hour before; "after 2pm": from then);
before its day it has a heads-up from a lead time (longer the further ahead it was
written and the higher its priority), so the evening before reminds of the morning's
appointment. After the day a deadline keeps a floor
until done or cancelled, in the morning unless it has hours of its own; an event that has
passed is over. A 🛫 window ramps over its last third (two to seven
days). C: context, a boost inside the item's hours (from a third of the way into a
block, at most an hour: its first part is a transition) plus a cue when `--context`
matches a trigger entry by `due`'s matcher. Hours not stated are the kind's: working
hours on weekdays for work (tagged, filed or of a project so named) and for calls and
emails, which reach an office; lunch and the evening for the rest of a life; the morning
for an errand past its day, a first-thing job. An idea or
other prospective note names its own day ("the move on Fri 16 Apr") or has no moment of
its own: then only a cue, or hours or an importance stated for it, lets it speak. N: a
small novelty lift after an item is written or referenced. F: fatigue, a decaying sum
over recent nudges, a dismissal weighing more (the n-th in a row, with no accept or
snooze between and each within a day and a half of the last, n times, up to three, and
n times as fast) and fading over about a day; past its due day an entry's reminders repeat
one unchanged message, so its nudges (of its current due date, after its latest snooze) fade
over days (`overdue_fatigue_hours`) and a late errand is reminded about once a week. And
the person's day: each nudge of another item dismissed since midnight adds `day_fatigue`
(0.05), so after a day of "not now" a reminder barely over θ waits, and one due today in
its hours still speaks.

An item fires when it is armed and V ≥ θ, and re-arms after V < θ − h or when a new
window opens; an accepted nudge leaves it disarmed for the rest of its window (an overdue
entry's, a week: it stays open until done). Quiet
hours raise θ beyond reach; at most one message per tick and `daily_cap` per day,
commitments first: an idea never takes a slot a due commitment still needs today, nor
an overdue reminder, a 🛫 window or an undated entry one that a commitment due today or
tomorrow still needs. Arming state, surfacings and feedback live in the store. Silence
is a first-class answer.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from datetime import date, datetime, time, timedelta

from . import clock
from .config import Settings, _hours_ok
from .errors import UsageError
from .ledger import PRIORITY_FACTOR
from .schema import SCHEMA
from .store import Store
from .store import entries as entry_rows
from .store import items as item_rows
from .store import notes as note_rows
from .store import nudges as nudge_rows
from .text.dates import find_dates, find_time

THETA = 1.0
HYSTERESIS = 0.25
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
SETTLE_SHARE = 1 / 3  # the boost starts this share of a block in (at most `settle_minutes`)
PROSPECTIVE_KINDS = ("plan", "idea", "question", "decision", "insight")
SHOWN = 3  # candidates named by `nudge -v` and the JSON `candidates` list
# Parameters that are hour ranges.
SPANS = ("hours", "work_hours", "personal_hours", "overdue_hours")
WORK_WORDS = ("work",)  # a tag, project or folder so named marks a work item
# A 🛫 window speaks up in its last part: this share of it, between these many days.
WINDOW_SHARE = 1 / 3
WINDOW_DAYS = (2.0, 7.0)
# Dismissals "in a row": of the same item, with no accept or snooze between them, each
# within RUN_GAP of the one before. SPEC 8 has a dismissal fade within hours to a day, so a
# reminder back the next day and turned down again repeats the same refusal; one turned
# down a day and a half later or more (an every-other-day revival, next week's instance of
# a recurring entry) meets an answer whose weight has faded: it starts a new run.
RUN_GAP = timedelta(hours=36)
RUN_CAP = 3  # the n-th in a row weighs n times the first, up to this
DISMISSALS_COUNTED = RUN_GAP * RUN_CAP  # enough history to number the latest in its run
FATIGUE_SPAN = timedelta(days=3)  # an answer or a nudge older than this weighs nothing
# ... except for an overdue entry, whose reminders repeat one unchanged message: its nudges
# weigh for a week, fading over `overdue_fatigue_hours` (`fatigue`).
OVERDUE_SPAN = timedelta(days=7)


@dataclass(frozen=True)
class Params:
    """Dynamics of one item; defaults by kind, overridable per item (`nudge_<name>`).

    Scale: θ = 1. A commitment's base (I·D ≈ 0.3) and its preferred hours (0.5) stay
    below θ; urgency (on its due day, in its lead, overdue, a 🛫 window well on) or a cue
    carries it over, inside its hours. An undated commitment crosses on the crest of its
    revival wave inside its hours; an idea only with hours stated for it.
    """

    importance: float = 0.25
    decay_days: float = math.inf  # commitments do not fade with age
    amplitude: float = 0.0
    period_days: float = 2.0
    phase: float = -math.pi / 2  # a trough at the anchor: revival half a period later
    hours: str = ""  # stated hours; empty: `work_hours` or `personal_hours` by what it is
    # The hours an item is wanted in when it states none, by what it is about: work in
    # working hours on weekdays; the rest when a person has their phone free and their mind
    # on their own life: lunch (from 12:30, so the boost counts from 13:00, once one has
    # sat down to it), and the evening once the day's duties are done.
    work_hours: str = "09-12,14-18"
    personal_hours: str = "12:30-14,20-22"
    # An errand past its day is a first-thing job: it is wanted at the start of the day,
    # not over lunch or in the evening, where a reminder that it is late only nags.
    overdue_hours: str = "08-11"
    context: float = 0.6
    assumed_hours: float = 1.0  # share of `context` when the hours are the defaults
    settle_minutes: float = 60.0
    cue: float = 0.8
    urgency: float = 0.65
    heads_up: float = 0.4  # the lead before the due day: enough to cross θ in its hours
    lead_days: float = 0.2
    lead_growth: float = 0.15
    act_minutes: float = 30.0  # a reminder leaves this long before a time in the action
    window: float = 0.25  # the 🛫 ramp rises to the overdue floor
    overdue: float = 0.25
    novelty: float = 0.0
    novelty_days: float = 0.5
    fatigue: float = 0.9
    fatigue_hours: float = 6.0
    # Past its due day a reminder says what the last one said ("overdue since …"): its
    # nudges fade over days, not hours, so a late errand is reminded about once a week
    # (a ⏫ one every five days or so), whatever the answers were.
    overdue_fatigue_hours: float = 72.0
    # A person who has turned down other nudges today is less open to more: each such
    # dismissal (of another item, since midnight) adds this to F, so a reminder barely over
    # θ (an overdue floor, a revival on its flank, a weak cue) waits for another day while
    # one due today in its hours (1.5) still speaks.
    day_fatigue: float = 0.05
    dismiss: float = 0.5
    dismiss_hours: float = 24.0
    hold_hours: float = 2.0


_IDEA = Params(importance=0.45, decay_days=30.0, amplitude=0.5, assumed_hours=0.4,
               novelty=0.1)
KIND_DEFAULTS: dict[str, Params] = {
    "dated": Params(),
    "undated": Params(importance=0.4, amplitude=0.5),
    "conditional": Params(),
    "plan": _IDEA,
    "idea": _IDEA,
    "question": _IDEA,
    "decision": replace(_IDEA, importance=0.3, amplitude=0.3),
    "insight": replace(_IDEA, importance=0.3, amplitude=0.3),
}


@dataclass
class Item:
    """An open commitment or prospective item, with what its clock needs."""

    id: str
    kind: str
    text: str
    created: datetime
    params: Params
    due: date | None = None
    opens: date | None = None  # 🛫 / ⏳: the window opens before the due date
    priority: float = 1.0
    stated_hours: bool = False
    referenced: datetime | None = None
    notes: list[str] = field(default_factory=list)
    cue: str | None = None  # why the context matches it, when it does
    work: bool = False  # a work item: weekdays only; working hours unless it states some
    call: bool = False  # a call or an email: working hours unless it states some
    at: time | None = None  # a time of day in its text, on its due day ...
    bound: str = ""  # ... and what it bounds: "by" a deadline, "after", "at" an event
    silent: str = ""  # why it has no moment of its own (an idea with no date), if so

    @property
    def commitment(self) -> bool:
        return self.kind not in PROSPECTIVE_KINDS

    def hours(self, day: date) -> str:
        """Its preferred hours on `day`. Work waits for a working day, whatever its hours.
        Hours not stated are its kind's: working hours for work and for a call (an office
        answers then), personal hours for the rest, and the morning for an errand past its
        day."""
        p, weekday = self.params, day.weekday() < 5
        if self.work and not weekday:
            return ""
        if p.hours:
            return p.hours
        if self.work or self.call:
            return p.work_hours if weekday else ""
        if self.commitment and self.due is not None and day > self.due:
            return p.overdue_hours
        return p.personal_hours


@dataclass(frozen=True)
class Terms:
    base: float  # I·D
    urgency: float
    hours: float
    cue: float
    novelty: float
    fatigue: float
    day: float = 0.0  # the part of `fatigue` from other items' nudges dismissed today

    @property
    def context(self) -> float:
        """SPEC 8's C: preferred hours and the context's cue."""
        return self.hours + self.cue

    @property
    def value(self) -> float:
        return self.base + self.urgency + self.context + self.novelty - self.fatigue

    def as_dict(self) -> dict:
        return {"base": round(self.base, 4), "urgency": round(self.urgency, 4),
                "context": round(self.context, 4), "hours": round(self.hours, 4),
                "cue": round(self.cue, 4), "novelty": round(self.novelty, 4),
                "fatigue": round(self.fatigue, 4), "day_fatigue": round(self.day, 4)}


# -- the value function (pure) ------------------------------------------------------

def envelope(p: Params, tau_days: float, oscillation: bool = True) -> float:
    """D(τ): exponential decay modulated by a slow sinusoid, floored at zero."""
    wave = p.amplitude * math.sin(2 * math.pi * tau_days / p.period_days + p.phase)
    return math.exp(-tau_days / p.decay_days) * max(0.0, 1.0 + (wave if oscillation else 0.0))


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time())


def lead_days(item: Item) -> float:
    """How long before its due day a dated entry's heads-up opens: `lead_days`, growing
    with the log of how many days ahead it was written and with its priority (the square
    of its importance factor: a ⏫ entry's lead is ~1.56 times as long)."""
    p = item.params
    ahead = max((item.due - item.created.date()).days, 0) if item.due else 0
    return p.lead_days * (1 + p.lead_growth * math.log1p(ahead)) * item.priority ** 2


def lead_start(item: Item) -> datetime | None:
    return _midnight(item.due) - lead_days(item) * DAY if item.due else None


def _heads_up(item: Item) -> bool:
    return item.commitment or item.at is not None


def due_bounds(item: Item) -> tuple[datetime | None, datetime | None]:
    """The part of the due day a reminder can still help in: after an "after" time, and
    until `act_minutes` before a deadline's or an event's time (a reminder must leave time
    to act: to leave for the appointment, to make the call)."""
    if item.due is None or item.at is None:
        return None, None
    moment = datetime.combine(item.due, item.at)
    if item.bound == "after":
        return moment, None
    return None, moment - timedelta(minutes=item.params.act_minutes)


def window_ramp(item: Item) -> tuple[datetime, datetime] | None:
    """A 🛫 window's last part, (its start, the due day's midnight): the window's last
    third, between two and seven days; nobody wants to hear of it as it opens."""
    if item.opens is None or item.due is None:
        return None
    end, opened = _midnight(item.due), _midnight(item.opens)
    lo, hi = WINDOW_DAYS
    span = min(max((end - opened) * WINDOW_SHARE, lo * DAY), hi * DAY)
    return max(opened, end - span), end


def urgency(item: Item, t: datetime) -> float:
    """U(t), for dated items. Before the due day: the heads-up once the lead has begun,
    and a 🛫 window's ramp over its last part up to the due day's level. On the due day:
    the peak, inside the part of the day a time in the text leaves (nothing once an
    appointment's or a deadline's time is near or past). After it: a deadline keeps a floor
    until done or cancelled; an event that has passed, or a plan's day, is over. An open
    window without a due date is flat; undated entries and ideas have none."""
    p, today = item.params, t.date()
    if item.due is None:
        opened = item.opens is not None and item.opens <= today
        return p.window if opened else 0.0
    if today > item.due:
        over = item.commitment and item.bound != "at"
        return p.overdue if over else 0.0
    if today == item.due:
        after, until = due_bounds(item)
        if after and t < after:
            return 0.0
        if until and t >= until:  # too late to act: a deadline is overdue, an event over
            return p.overdue if item.commitment and item.bound == "by" else 0.0
        return p.urgency
    # The heads-up before the due day (SPEC 8: a dated commitment's urgency alone carries
    # it over θ in its hours on its day and before it); a plan gets one only when it
    # happens at a time of day, for which one must be ready.
    ramp = p.heads_up if _heads_up(item) and t >= lead_start(item) else 0.0
    part = window_ramp(item)
    if part is not None and t > part[0]:
        ramp = max(ramp, p.urgency * (t - part[0]) / (part[1] - part[0]))
    return ramp


def in_hours(spec: str, t: datetime) -> bool:
    """'09-12,14-18' (or '22:00-07:00'): is t inside one of the ranges? Wraps midnight."""
    return block_at(spec, t) is not None


def block_at(spec: str, t: datetime) -> tuple[int, int] | None:
    """The range of `spec` holding t, as (minutes since its start, its length)."""
    minute = t.hour * 60 + t.minute
    for part in filter(None, (s.strip() for s in spec.split(","))):
        start, _, end = part.partition("-")
        a, b = _minutes(start), _minutes(end)
        if (a <= minute < b) if a <= b else (minute >= a or minute < b):
            return (minute - a) % 1440, (b - a) % 1440 or 1440
    return None


def _minutes(text: str) -> int:
    hh, _, mm = text.strip().partition(":")
    return int(hh) * 60 + int(mm or 0)


def hours_boost(item: Item, t: datetime) -> float:
    """C's preferred-hours part: the full boost inside its hours, from a third of the way
    into the block, at most `settle_minutes`. Hours it did not state are its kind's
    (`Item.hours`); an idea without a date of its own gets a share of the boost in them."""
    p = item.params
    block = block_at(item.hours(t.date()), t)
    if block is None:
        return 0.0
    into, length = block
    if into < min(SETTLE_SHARE * length, p.settle_minutes):
        return 0.0
    return p.context * (1.0 if item.stated_hours or item.due else p.assumed_hours)


def fatigue(p: Params, surfaced: list[datetime], dismissed: list[datetime],
            t: datetime, answered: list[datetime] | tuple = (), overdue: bool = False,
            since: datetime | None = None) -> float:
    """Decaying sums over recent surfacings (`fatigue`, over `fatigue_hours`) and, on top,
    dismissals (`dismiss`, over `dismiss_hours`). The n-th dismissal in a row weighs n
    times the first (up to RUN_CAP) and fades n times as fast: a reminder turned down
    again is held back harder in the hours after, and never longer than by a lone one
    (SPEC 8: a dismissal's fatigue fades within hours to a day). `answered`: the times of
    the item's accepts and snoozes, each of which ends a run. `overdue`: the item is past
    its day, so its nudges (whatever their answers) fade over `overdue_fatigue_hours` and
    weigh for OVERDUE_SPAN: an overdue reminder repeats one unchanged message, and fatigue,
    not age, spaces the repeats (about a week apart). `since`: only the nudges from then on
    are that message (`overdue_since`: of the current due date, after the latest snooze);
    earlier ones weigh as any nudge does."""
    def decay(m: datetime, hours: float) -> float:
        return math.exp(-((t - m) / HOUR) / hours)

    def nudge(m: datetime) -> float:
        hours, span = ((p.overdue_fatigue_hours, OVERDUE_SPAN)
                       if overdue and (since is None or m >= since) else
                       (p.fatigue_hours, FATIGUE_SPAN))
        return p.fatigue * decay(m, hours) if t - m <= span else 0.0
    runs = dismissal_runs(sorted(m for m in dismissed if m <= t), answered)
    return sum(nudge(m) for m in surfaced if m <= t) + \
        sum(p.dismiss * n * decay(m, p.dismiss_hours / n) for m, n in runs
            if t - m <= FATIGUE_SPAN)


def dismissal_runs(dismissed: list[datetime], answered: list[datetime] | tuple = ()
                   ) -> list[tuple[datetime, int]]:
    """(time, place in its run) of each dismissal, in order: a dismissal continues the run
    of the one before when it comes within RUN_GAP of it and no accept or snooze lies
    between; the place is capped at RUN_CAP."""
    out: list[tuple[datetime, int]] = []
    for m in dismissed:
        if out and m - out[-1][0] <= RUN_GAP and \
                not any(out[-1][0] < a <= m for a in answered):
            out.append((m, min(out[-1][1] + 1, RUN_CAP)))
        else:
            out.append((m, 1))
    return out


def anchors(item: Item, snoozed: datetime | None = None) -> list[datetime]:
    """The moments at which the item became relevant again (each opens a window)."""
    out = [item.created]
    if item.referenced:
        out.append(item.referenced)
    if snoozed:
        out.append(snoozed)
    part = window_ramp(item)
    if part is not None:
        out.append(part[0])
    elif item.opens:
        out.append(_midnight(item.opens))
    if item.due:
        if _heads_up(item):
            out.append(lead_start(item))
        if item.commitment:  # a plan's eve and its day are one moment: one accept
            out.append(_midnight(item.due))
    return out


def window_start(item: Item, t: datetime, snoozed: datetime | None = None,
                 oscillation: bool = True) -> datetime:
    """The start of the item's current window: its latest anchor at or before t or, for
    an item that revives on a wave, the start of the wave's current period."""
    start = max((a for a in anchors(item, snoozed) if a <= t), default=item.created)
    p = item.params
    if oscillation and p.amplitude > 0 and t > start:
        periods = math.floor((t - start) / (p.period_days * DAY))
        start += periods * p.period_days * DAY
    return start


def terms(item: Item, t: datetime, surfaced: list[datetime], dismissed: list[datetime],
          oscillation: bool = True, snoozed: datetime | None = None,
          answered: list[datetime] | tuple = (), day_dismissals: int = 0) -> Terms:
    p = item.params
    anchor = max((a for a in anchors(item, snoozed) if a <= t), default=item.created)
    tau = max((t - anchor) / DAY, 0.0)
    fresh = max((t - max(item.created, item.referenced or item.created)) / DAY, 0.0)
    late = overdue(item, t)
    day = p.day_fatigue * day_dismissals
    return Terms(
        base=p.importance * envelope(p, tau, oscillation),
        urgency=urgency(item, t),
        hours=hours_boost(item, t),
        cue=p.cue if item.cue else 0.0,
        novelty=p.novelty * math.exp(-fresh / p.novelty_days),
        fatigue=fatigue(p, surfaced, dismissed, t, answered, overdue=late,
                        since=overdue_since(item, snoozed) if late else None) + day,
        day=day,
    )


def overdue(item: Item, t: datetime) -> bool:
    """Whether t is past the item's due day while it keeps the overdue floor (an open
    commitment, not an event that is over)."""
    return item.commitment and item.due is not None and t.date() > item.due and \
        item.bound != "at"


def overdue_since(item: Item, snoozed: datetime | None = None) -> datetime | None:
    """From when an overdue item's nudges are the one message its overdue reminders repeat
    (and weigh for a week): those of its current due date (from its 🛫 ramp or its lead,
    its eve and its day included), after the end of its latest snooze. Reminders of an
    earlier date (the entry was moved, or a new instance took its place) and those a snooze
    answered (the person asked to hear of it again) weigh as any nudge does."""
    if item.due is None:
        return snoozed
    part = window_ramp(item)
    start = min(lead_start(item), part[0]) if part else lead_start(item)
    return max(start, snoozed) if snoozed else start


def schmitt(armed: bool, value: float, theta: float, h: float) -> tuple[bool, bool]:
    """(fires, armed afterwards): fire when armed and V ≥ θ; re-arm only below θ − h."""
    if armed and value >= theta:
        return True, False
    if not armed and value < theta - h:
        return False, True
    return False, armed


# -- items from the store --------------------------------------------------------------

def load_items(store: Store) -> list[Item]:
    """Open commitments and open/referenced prospective items, with their parameters."""
    return _entries(store) + _prospective(store)


def _entries(store: Store) -> list[Item]:
    items = []
    for row in entry_rows.open_for_nudges(store):
        entry_id, action, condition, due, scheduled, start, first_seen, extra, raw, tags, \
            project = row
        extra = json.loads(extra or "{}")
        due_on = _day(due) or _day(scheduled)
        opens = min(filter(None, (_day(start), _day(scheduled))), default=None)
        kind = "dated" if due_on or opens else ("conditional" if condition else "undated")
        factor = PRIORITY_FACTOR.get(str(extra.get("priority") or "normal").strip().lower(), 1.0)
        base = KIND_DEFAULTS[kind]
        # A Tasks priority scales the importance (an explicit `nudge_importance` wins).
        params, stated = _override(replace(base, importance=base.importance * factor), extra)
        notes = _entry_notes(store, entry_id)
        clock_time = find_time(action) if due_on else None
        items.append(Item(
            entry_id, kind, action + (f" (when {condition})" if condition else ""),
            _created(json.loads(raw).get("created"), first_seen), params,
            due=due_on, opens=opens if opens and (not due_on or opens < due_on) else None,
            priority=factor, stated_hours=stated, notes=notes,
            work=is_work([*json.loads(tags or "[]"), project or ""], notes),
            call=is_call(action),
            at=clock_time.at if clock_time else None,
            bound=clock_time.bound if clock_time else ""))
    return items


CALL_RE = re.compile(r"^\W*(?:ring|call|phone|e-?mail|telephone)\b", re.IGNORECASE)


def is_call(action: str) -> bool:
    """An errand done by ringing or writing to someone: "Ring Dean at the garage", "Email
    the landlord". Offices answer in working hours, on weekdays."""
    return bool(CALL_RE.match(action))


def is_work(tags: list[str], paths: list[str]) -> bool:
    """A work item: tagged `#work` (or `#work/…`), of a project so named, or about a note
    kept in a work folder (or the note Work itself)."""
    def named(word: str) -> bool:
        return word.strip().lower().split("/")[0] in WORK_WORDS
    return any(named(t) for t in tags) or any(
        any(named(part) for part in path.split("/")[:-1]) or named(path.rsplit("/", 1)[-1]
                                                                     .removesuffix(".md"))
        for path in paths)


def _prospective(store: Store) -> list[Item]:
    items = []
    for row in item_rows.for_nudges(store):
        item_id, kind, text, created, referenced, fm, level, path = row
        front = json.loads(fm or "{}") if level == "note" else {}
        created_at = _moment(created)
        ref = clock.moment(referenced)
        body = text if level != "note" else "\n".join([text,
                                                       *note_rows.chunk_texts_at(store, path)])
        day = first_day(body, created_at.date())
        # A date in its text makes it a dated item: its moment is that day, not a wave.
        params, stated = _override(KIND_DEFAULTS["dated"] if day else
                                   KIND_DEFAULTS.get(kind, _IDEA), front)
        clock_time = find_time(body) if day else None
        raised = set(_overridden(front)) & {"importance", "amplitude", "period_days", "hours"}
        tags = front.get("tags") or []
        items.append(Item(
            item_id, kind, text, created_at, params, due=day, stated_hours=stated,
            referenced=ref if ref and ref > created_at else None, notes=[path],
            work=is_work(tags if isinstance(tags, list) else str(tags).split(), [path]),
            at=clock_time.at if clock_time else None,
            bound=clock_time.bound if clock_time else "",
            silent="" if day or raised else "no moment of its own (no date in its text)"))
    return items


def first_day(text: str, written: date) -> date | None:
    """The first day a prospective item's text names, on or after the day it was written:
    its moment ("the move on Fri 16 Apr", "ask at Wednesday's 1:1"). Periods ("in May",
    "next year", "mid-June") name no moment."""
    days = [m.day for m in find_dates(text, written)
            if not m.past and not m.period and not m.vague and m.day >= written]
    return min(days, default=None)


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value[:10]) if value else None


def _created(tasks_created: str | None, first_seen: str | None) -> datetime:
    """When the entry was written: the store's first sighting, or the Tasks `➕` date
    when that is earlier (a line written before the vault was indexed)."""
    seen = _moment(first_seen)
    if tasks_created:
        day = clock.moment(tasks_created)
        if day is not None and day.date() < seen.date():
            return day
    return seen


def _entry_notes(store: Store, entry_id: str) -> list[str]:
    return entry_rows.linked_paths(store, entry_id)


def _moment(value: str | None) -> datetime:
    return clock.moment(value) or datetime.min


def _overridden(values: dict) -> dict[str, object]:
    """{parameter name: raw value} for every `nudge_<name>` key naming a parameter."""
    known = {f.name for f in fields(Params)}
    out = {}
    for key, raw in values.items():
        name = str(key).lower().removeprefix("nudge_").removeprefix("nudge ")
        if str(key).lower().startswith("nudge") and name in known:
            out[name] = raw
    return out


def ledger_field(key: str, value: str) -> str:
    """How a setting is written on a ledger line: a Dataview inline field."""
    return f"[{key}:: {value}]"


def front_matter_field(key: str, value: str) -> str:
    """How a setting is written in a note's front matter: a YAML key."""
    return f"`{key}: {value}`"


def field_problems(values: dict, written: Callable[[str, str], str] = ledger_field
                   ) -> list[tuple[str, str]]:
    """What is wrong with the `nudge_<name>` fields of a ledger line (or a note's front
    matter, `written` saying how a field is written there): (key, message) for each, the
    message saying what to write instead (`_override` ignores such a value; the index warns)."""
    known = {f.name for f in fields(Params)}
    out = []
    for raw_key, raw in values.items():
        key = str(raw_key).lower()
        name = key.removeprefix("nudge_").removeprefix("nudge ")
        if name == key:
            continue
        value = str(raw).strip()
        shown = written(key, value)
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            message = (f"{shown} is no nudge setting: "
                       + (f"did you mean {written(f'nudge_{close[0]}', '…')}?" if close else
                          "see `nudge_hours`, `nudge_importance` and the rest in the docs"))
        elif name in SPANS:
            if _hours_ok(value):
                continue
            like = getattr(Params(), name) or "12-13,18-21"
            message = (f"{shown} is not hour ranges, so it is ignored: "
                       f"write them like {written(key, like)}")
        elif not _number_ok(value) or not (_value_ok(name, float(value)) or _span(name)):
            message = (f"{shown} is not a number, so it is ignored: "
                       f"write one like {written(key, '0.5')}")
        elif not _value_ok(name, float(value)):
            like = f"{getattr(Params(), name):g}"
            message = (f"{shown} is no length of time it can use, so it is "
                       f"ignored: write one {'above 0 ' if name in DIVISORS else ''}"
                       f"like {written(key, like)}")
        else:
            continue
        out.append((str(raw_key), message))
    return out


def _number_ok(text: str) -> bool:
    if isinstance(text, bool):  # YAML's yes/no/true/false: no number (float() takes them)
        return False
    try:
        return not math.isnan(float(text))
    except (TypeError, ValueError):
        return False


# The spans a per-item value may not make zero (the dynamics divide by them), and the
# longest span any may be (a date must still be reachable): a zero period stopped every
# tick, a span of 1e15 hours overflowed the clock.
DIVISORS = ("period_days", "decay_days", "novelty_days", "fatigue_hours", "dismiss_hours",
            "overdue_fatigue_hours")
LONGEST_SPAN_DAYS = 3650.0


def _span(name: str) -> float | None:
    """How many of the parameter's unit make a day, if it is a span of time."""
    return {"days": 1.0, "hours": 24.0, "minutes": 1440.0}.get(name.rsplit("_", 1)[-1])


def _value_ok(name: str, value: float) -> bool:
    """Whether the dynamics can use `value` for the parameter `name`: a span (`_days`,
    `_hours`, `_minutes`) not negative, above 0 where it divides, and within ten years
    (`decay_days` may be infinite: no fading); any other number finite."""
    unit = _span(name)
    if unit is None:
        return math.isfinite(value)
    if name == "decay_days" and value == math.inf:
        return True
    return (value > 0 if name in DIVISORS else value >= 0) and value / unit <= LONGEST_SPAN_DAYS


def _override(base: Params, values: dict) -> tuple[Params, bool]:
    """Per-item parameters (`nudge_<name>` in front matter or a ledger field), and whether
    the item states its own hours."""
    changes = {}
    for name, raw in _overridden(values).items():
        if name in SPANS:  # hours that are no ranges ("mornings") leave the kind's
            if _hours_ok(str(raw)):
                changes[name] = str(raw)
            continue
        if _number_ok(raw) and _value_ok(name, float(raw)):
            changes[name] = float(raw)
    return replace(base, **changes), "hours" in changes


# -- one tick ------------------------------------------------------------------------------

@dataclass
class Candidate:
    """One item's standing at a tick: its terms, and what (if anything) held it back."""

    item: Item
    terms: Terms
    armed: bool
    held: str = ""  # empty: it may fire
    shown_today: bool = False

    id = property(lambda self: self.item.id)
    kind = property(lambda self: self.item.kind)
    text = property(lambda self: self.item.text)

    @property
    def value(self) -> float:
        return self.terms.value

    def as_dict(self) -> dict:
        return {"id": self.item.id, "kind": self.item.kind, "text": self.item.text,
                "value": round(self.value, 4), "terms": self.terms.as_dict(),
                "armed": self.armed, "held": self.held or None}


@dataclass
class Nudge:
    """The message of a tick: its item, value and terms, and why now. The JSON's keys
    are its attributes (`nudge.id`, `nudge.text`, …)."""

    item: Item
    value: float
    terms: Terms
    why: str
    surfacing_id: int = 0

    id = property(lambda self: self.item.id)
    kind = property(lambda self: self.item.kind)
    text = property(lambda self: self.item.text)
    notes = property(lambda self: self.item.notes)


@dataclass
class TickResult:
    now: datetime
    nudge: Nudge | None
    reason: str  # why silent, or "nudged"
    open: int
    values: dict[str, float]
    candidates: list[Candidate] = field(default_factory=list)  # the top few, best first
    theta: float = THETA
    ranked: list[Candidate] = field(default_factory=list, repr=False)  # every one, best first

    def as_dict(self) -> dict:
        """The `nudge --json` document: the message or null, why it stayed silent, and the
        top candidates with their terms and the rule that held each back."""
        n = self.nudge
        return {"schema": SCHEMA, "now": self.now.isoformat(timespec="seconds"),
                "nudge": None if n is None else {
                    "id": n.item.id, "kind": n.item.kind, "text": n.item.text, "why": n.why,
                    "value": round(n.value, 4), "notes": n.item.notes,
                    "terms": n.terms.as_dict()},
                "silent_because": None if n else self.reason,
                "theta": self.theta, "open": self.open,
                "candidates": [c.as_dict() for c in self.candidates]}


@dataclass
class _Past:
    """What the store remembers of one item's nudges."""

    surfaced: list[datetime] = field(default_factory=list)  # the last week (OVERDUE_SPAN)
    dismissed: list[datetime] = field(default_factory=list)
    answered: list[datetime] = field(default_factory=list)  # accepts and snoozes: runs end
    last: datetime | None = None  # the latest nudge, however old
    accepted: bool = False  # ... whether it was accepted
    dismissed_message: str = ""  # ... and its message, if it was dismissed
    dismissed_today: set[int] = field(default_factory=set)  # its nudges dismissed today


def tick(store: Store, settings: Settings, now: datetime, oscillation: bool = True,
         cues: dict[str, str] | None = None, record: bool = True) -> TickResult:
    """Compute every value, update the arming state, emit at most one nudge.

    `cues`: {entry id: why} for the entries whose trigger the current context matches
    (the caller asks `due`'s matcher; see `Vault.nudge`). `record` False: a dry run that
    stores nothing (no surfacing, no state)."""
    now = clock.local_naive(now)
    items = load_items(store)
    state = {r[0]: (bool(r[1]), clock.moment(r[2])) for r in nudge_rows.states(store)}
    past = _history(store, now)
    for item in items:
        item.cue = (cues or {}).get(item.id)
    # The day's dismissals of each item (its own answers have their own fatigue term; the
    # others' tell how the person's day is going).
    today = {key: len(p.dismissed_today) for key, p in past.items()}
    everyone = sum(today.values())
    cands = [_stand(item, now, state.get(item.id, (True, None)), past.get(item.id, _Past()),
                    oscillation, everyone - today.get(item.id, 0)) for item in items]
    nudge, reason = _decide(store, settings, now, cands)
    if record:
        _save(store, now, cands, nudge)
    ranked = sorted(cands, key=lambda c: (c.held == "", c.value), reverse=True)
    return TickResult(now, nudge, reason, len(items), {c.item.id: round(c.value, 4)
                                                       for c in cands}, ranked[:SHOWN],
                      ranked=ranked)


def _stand(item: Item, now: datetime, state: tuple[bool, datetime | None], past: _Past,
           oscillation: bool, day_dismissals: int = 0) -> Candidate:
    """The item's terms, whether it is armed (its Schmitt state, re-armed by a new
    window), and the first rule that holds it back, if any."""
    armed, muted = state
    snoozed = muted if muted and muted <= now else None
    if item.cue and _names_cue(past.dismissed_message, item.cue):
        item.cue = None  # the same cue, already dismissed: not a new moment
    t = terms(item, now, past.surfaced, past.dismissed, oscillation, snoozed, past.answered,
              day_dismissals)
    fresh = past.last is None or past.last < window_start(item, now, snoozed, oscillation)
    # An overdue entry's window never closes: a "yes" to its reminder, a week on with the
    # entry still open, was not the end of it (SPEC 8: the floor holds until done).
    if not fresh and past.accepted and overdue(item, now) and now - past.last >= OVERDUE_SPAN:
        fresh = True
    if fresh:
        armed = True  # a new window re-arms
    c = Candidate(item, t, armed, shown_today=past.last is not None
                  and past.last.date() == now.date())
    if muted and muted > now:
        c.held = f"snoozed until {muted.isoformat(timespec='minutes')}"
    elif item.created <= now < item.created + item.params.hold_hours * HOUR:
        c.held = "just written"
    elif item.silent and not item.cue:
        c.held = item.silent
    elif past.accepted and not fresh:
        c.armed = False
        c.held = "accepted in this window"
    elif c.value < THETA:
        short = THETA - c.value
        c.held = (f"fatigue by {short:.2f}" + _tired(item, now, t, past, snoozed, day_dismissals)
                  if c.value + t.fatigue >= THETA else f"below θ by {short:.2f}")
    elif not armed:
        c.held = f"disarmed until V < {THETA - HYSTERESIS:.2f} or a new window"
    return c


def _tired(item: Item, now: datetime, t: Terms, past: _Past, snoozed: datetime | None,
           day_dismissals: int) -> str:
    """What of the fatigue is not the item's last few hours: its overdue reminder, which
    weighs for a week, and the day's dismissals of other nudges (` (…)`, or nothing)."""
    parts = []
    since = overdue_since(item, snoozed) if overdue(item, now) else None
    if since is not None and past.last is not None and since <= past.last <= now and \
            now - past.last <= OVERDUE_SPAN:
        parts.append(f"overdue: reminded {past.last:%Y-%m-%d %H:%M}, which weighs for a week")
    if t.day > 0:
        parts.append(f"{day_dismissals} other nudge{'s' if day_dismissals != 1 else ''} "
                     "dismissed today")
    return f" ({'; '.join(parts)})" if parts else ""


def _names_cue(message: str, cue: str) -> bool:
    """Whether a stored message ("text — cue · the rest of why") gave `cue` as its reason."""
    return message.endswith(f" — {cue}") or f" — {cue} · " in message


def _decide(store: Store, settings: Settings, now: datetime, cands: list[Candidate]
            ) -> tuple[Nudge | None, str]:
    """Pick at most one nudge among the candidates free to fire: commitments first, then
    the highest value; name the rule that holds back the rest."""
    free = [c for c in cands if not c.held]
    sent = _sent_today(store, now)
    for rule, holds in (("quiet hours", in_hours(settings.quiet_hours, now)),
                        (f"daily cap of {settings.daily_cap} reached",
                         sent >= settings.daily_cap)):
        if holds:
            _hold(free, rule)
            return None, rule
    # The day's last slots go to what cannot wait: an idea never takes a slot a pressing
    # commitment still needs today; an overdue reminder, a 🛫 window or an undated entry
    # (which can come back another day) never takes one a commitment due today or
    # tomorrow still needs.
    near = {c.item.id for c in cands if _due_soon(c, now)}
    waiting = len(near) + sum(1 for c in cands if c.item.commitment
                              and c.item.id not in near and _needs_today(c, now))
    room = settings.daily_cap - sent
    kept = f"today's last {room} slot(s) kept for commitments"
    kept_near = f"today's last {room} slot(s) kept for commitments due today or tomorrow"
    for c in free:
        if not c.item.commitment and waiting >= room:
            c.held = kept
        elif c.item.commitment and c.item.id not in near and len(near) >= room:
            c.held = kept_near
    free = sorted((c for c in cands if not c.held),
                  key=lambda c: (c.item.commitment, c.value, c.item.id), reverse=True)
    if not free:
        reason = next((c.held for c in cands if c.held in (kept, kept_near)),
                      "nothing above threshold")
        return None, reason
    best = free[0]
    _hold(free[1:], f"{best.item.id} won this tick")
    return Nudge(best.item, best.value, best.terms, explain(best.terms, best.item, now)), \
        "nudged"


def _needs_today(c: Candidate, now: datetime) -> bool:
    """A commitment that is pressing (due, overdue, in its lead or window, or cued), not
    shown yet today, and able to cross θ in hours of its still to come today: ideas leave
    it room under the daily cap."""
    t, p = c.terms, c.item.params
    if c.shown_today or not (t.urgency > 0 or t.cue > 0) or \
            c.held.startswith(("snoozed", "accepted", "fatigue")):
        return False
    boost = p.context * (1.0 if c.item.stated_hours or c.item.due else p.assumed_hours)
    return c.value - t.hours + boost >= THETA and hours_ahead(c.item.hours(now.date()), now)


def _due_soon(c: Candidate, now: datetime) -> bool:
    """A commitment due today, or whose heads-up before its day begins by tonight (or one
    the context cues), not shown yet today and able to cross θ in its hours still to come
    today: the day's last slots are kept for it."""
    item, t = c.item, c.terms
    if c.shown_today or c.held.startswith(("snoozed", "accepted", "fatigue")) or \
            not item.commitment:
        return False
    if t.cue > 0:
        return True
    if item.due is None or item.due < now.date():
        return False
    moment = now if item.due == now.date() else lead_start(item)
    if moment.date() > now.date():
        return False
    moment = max(moment, now)
    later = urgency(item, moment)
    spec = item.hours(now.date())
    return later > 0 and t.base + later + item.params.context - t.fatigue >= THETA and \
        hours_ahead(spec, moment)


def hours_ahead(spec: str, t: datetime) -> bool:
    """Whether a range of `spec` is open at t or opens later that day."""
    minute = t.hour * 60 + t.minute
    for part in filter(None, (s.strip() for s in spec.split(","))):
        start, _, end = part.partition("-")
        a, b = _minutes(start), _minutes(end)
        if b > minute or a > b:
            return True
    return False


def _hold(cands: list[Candidate], rule: str) -> None:
    for c in cands:
        c.held = rule


def explain(t: Terms, item: Item, now: datetime) -> str:
    """Why now, in words: the cue first (set off by " · "), then the clock and the hours."""
    parts = []
    days = (item.due - now.date()).days if item.due else None
    if t.urgency > 0 and item.opens and (days is None or days > 0 and now < lead_start(item)):
        parts.append(f"window open since {item.opens.isoformat()}"
                     + (f", due {item.due.isoformat()}" if item.due else ""))
    elif t.urgency > 0 and days is not None:
        when = f" ({item.bound} {item.at:%H:%M})" if item.at else ""
        parts.append(("due today" if item.commitment else "today") + when if days == 0 else
                     f"overdue since {item.due.isoformat()}" if days < 0 else
                     ("tomorrow" if days == 1 else f"on {item.due.isoformat()}")
                     if not item.commitment else f"due {item.due.isoformat()}")
    if t.novelty > 0.05:
        parts.append("new")
    if t.hours > 0:
        parts.append("a good time for it")
    if not parts and not item.cue:
        parts.append("has been waiting and still matters")
    return " · ".join(filter(None, [item.cue, ", ".join(parts)]))


def _history(store: Store, now: datetime) -> dict[str, _Past]:
    """Per item: surfacings of the last week (an overdue entry's weigh that long), and
    dismissals, accepts and snoozes far enough back to number each dismissal in its run
    (for fatigue); the latest surfacing with its answer (for windows and accepts)."""
    since = (now - max(FATIGUE_SPAN, OVERDUE_SPAN)).isoformat(timespec="seconds")
    stamp = now.isoformat(timespec="seconds")
    out: dict[str, _Past] = {}
    for item_id, ts in nudge_rows.surfacings_between(store, since, stamp):
        out.setdefault(item_id, _Past()).surfaced.append(_moment(ts))
    # Answers are read further back, to number each dismissal in its run (`fatigue`).
    counted = (now - DISMISSALS_COUNTED).isoformat(timespec="seconds")
    for item_id, ts, kind, surfacing in nudge_rows.answers_between(store, counted, stamp):
        past = out.setdefault(item_id, _Past())
        (past.dismissed if kind == "dismiss" else past.answered).append(_moment(ts))
        if kind == "dismiss" and _moment(ts).date() == now.date():
            past.dismissed_today.add(surfacing)  # a nudge dismissed twice is one
    for item_id, ts, message, kind in nudge_rows.last_surfacings(store, stamp):
        past = out.setdefault(item_id, _Past())
        past.last, past.accepted = _moment(ts), kind == "accept"
        past.dismissed_message = (message or "") if kind == "dismiss" else ""
    return out


def _sent_today(store: Store, now: datetime) -> int:
    start = datetime.combine(now.date(), time()).isoformat(timespec="seconds")
    end = (datetime.combine(now.date(), time()) + timedelta(days=1)).isoformat(timespec="seconds")
    return nudge_rows.count_between(store, start, end)


def _save(store: Store, now: datetime, cands: list[Candidate], nudge: Nudge | None) -> None:
    """The arming state after this tick (snoozed items keep theirs), and the nudge."""
    stamp = now.isoformat(timespec="seconds")
    rows = []
    for c in cands:
        if c.held.startswith("snoozed"):
            continue
        if nudge is not None and c.item is nudge.item:
            armed = False
        elif c.armed and c.value >= THETA:
            armed = True  # it could fire and did not (held by a rule, or another won)
        else:
            armed = schmitt(c.armed, c.value, THETA, HYSTERESIS)[1]
        rows.append((c.item.id, int(armed), float(c.value), stamp))
    with store.atomic():
        nudge_rows.save_states(store, rows)
        if nudge:
            _record(store, stamp, nudge)


def _record(store: Store, stamp: str, nudge: Nudge) -> None:
    message = f"{nudge.item.text} — {nudge.why}"
    nudge.surfacing_id = nudge_rows.surfaced(store, nudge.item.id, stamp, nudge.value,
                                             message)
    # A nudge mentions its notes: it feeds their ACT-R activation (SPEC 4).
    for path in nudge.item.notes:
        note_id = note_rows.id_at(store, path)
        if note_id is not None:
            store.add_op(stamp, "surfaced", note_id, None, {"item": nudge.item.id})


FEEDBACK_KINDS = ("accept", "dismiss", "snooze")
DEFAULT_SNOOZE = timedelta(hours=3)
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}
MAX_SNOOZE = timedelta(days=3650)


def parse_duration(text: str) -> timedelta:
    """'30m', '2h', '1.5d' -> a positive timedelta of at most ten years, else UsageError."""
    unit = _UNITS.get(text.strip()[-1:].lower())
    try:
        amount = float(text.strip()[:-1])
        if unit is None or not 0 < amount < float("inf"):
            raise ValueError(text)
        span = timedelta(**{unit: amount})
    except (ValueError, OverflowError):
        raise UsageError(f"`snooze` {text!r}: use a positive number and m, h or d, e.g. "
                         "2h") from None
    if span > MAX_SNOOZE:
        raise UsageError(f"`snooze` {text!r}: at most 3650d")
    return span


@dataclass
class Feedback:
    """An answer to a nudge, as stored."""

    item: str
    surfacing: int
    kind: str
    until: str | None

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "item": self.item, "surfacing": self.surfacing,
                "kind": self.kind, "until": self.until}


def record_feedback(store: Store, item_id: str, kind: str, now: datetime,
                    snooze: timedelta | None = None) -> Feedback | None:
    """Store the user's answer to the item's latest nudge (None: it was never shown).
    Accept resolves nothing; a snooze mutes the item for `snooze` (default 3 h)."""
    if kind not in FEEDBACK_KINDS:
        raise UsageError(f"{kind!r}: answer accept, dismiss or snooze")
    if snooze is not None and kind != "snooze":
        raise UsageError(f"`snooze` goes with snooze only, not with {kind}")
    now = clock.local_naive(now)
    surfacing = nudge_rows.last_surfacing_id(store, item_id)
    if surfacing is None:
        return None
    stamp = now.isoformat(timespec="seconds")
    until = ((now + (snooze or DEFAULT_SNOOZE)).isoformat(timespec="seconds")
             if kind == "snooze" else None)
    with store.atomic():
        nudge_rows.answer(store, surfacing, item_id, stamp, kind, until)
        if until:
            nudge_rows.mute(store, item_id, until, stamp)
    return Feedback(item_id, surfacing, kind, until)
