"""Nudges (SPEC 8): the value function with hand-computed numbers (the item's own clock,
the lead ramp, the 🛫 ramp, the overdue floor, settled preferred hours, fatigue), the
Schmitt trigger and its windows, then whole ticks through the store: quiet hours, one
message per tick, the daily cap and what it keeps for commitments, arming state,
feedback, cues, and per-item parameter overrides."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import date, datetime, time, timedelta

import pytest

from vaultmem import api
from vaultmem.nudge import (
    HYSTERESIS,
    KIND_DEFAULTS,
    THETA,
    Item,
    Params,
    envelope,
    fatigue,
    hours_boost,
    in_hours,
    lead_days,
    load_items,
    record_feedback,
    schmitt,
    terms,
    tick,
    urgency,
    window_start,
)
from vaultmem.schema import SCHEMA
from vaultmem.store import nudges as nudge_rows

T = datetime(2026, 8, 10, 10, 0)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)


# -- envelope: D(τ) = e^(−τ/decay) · max(0, 1 + A·sin(2πτ/period + φ)) ---------------------

WAVE = Params(decay_days=10.0, amplitude=0.5, period_days=4.0, phase=0.0)


@pytest.mark.parametrize(("tau", "expected"), [
    (0.0, 1.0),                           # sin 0 = 0
    (1.0, math.exp(-0.1) * 1.5),          # sin(π/2) = 1: the crest
    (2.0, math.exp(-0.2) * 1.0),          # sin π = 0
    (3.0, math.exp(-0.3) * 0.5),          # sin(3π/2) = −1: the trough
    (4.0, math.exp(-0.4) * 1.0),          # one full period later
])
def test_envelope_is_decay_times_the_wave(tau, expected):
    assert envelope(WAVE, tau) == pytest.approx(expected, abs=1e-12)


def test_envelope_phase_shifts_the_wave():
    shifted = replace(WAVE, phase=math.pi / 2)  # sin(0 + π/2) = 1 at τ = 0
    assert envelope(shifted, 0.0) == pytest.approx(1.5)
    assert envelope(shifted, 2.0) == pytest.approx(math.exp(-0.2) * 0.5)  # sin(3π/2)


def test_envelope_is_floored_at_zero_when_the_wave_dips_below_minus_one():
    deep = replace(WAVE, amplitude=2.0)
    assert envelope(deep, 3.0) == 0.0  # 1 + 2·(−1) = −1, floored
    assert envelope(deep, 1.0) == pytest.approx(math.exp(-0.1) * 3.0)
    assert envelope(deep, 2.5) == 0.0  # 1 + 2·sin(5π/4) = 1 − √2 < 0


def test_envelope_without_oscillation_is_pure_decay():
    for tau in (0.0, 1.0, 3.0, 7.5):
        assert envelope(WAVE, tau, oscillation=False) == pytest.approx(math.exp(-tau / 10))


def test_the_default_wave_starts_in_a_trough_and_commitments_never_decay():
    undated = KIND_DEFAULTS["undated"]  # A = 0.5, period 2 days, φ = −π/2
    assert envelope(undated, 0.0) == pytest.approx(0.5)   # just written: quiet
    assert envelope(undated, 1.0) == pytest.approx(1.5)   # the crest, a day later
    assert envelope(undated, 2.0) == pytest.approx(0.5)
    assert envelope(undated, 41.0) == pytest.approx(1.5)  # weeks later: the same crest
    assert envelope(KIND_DEFAULTS["dated"], 365.0) == 1.0


# -- the item's own clock: lead, ramps, floor ------------------------------------------------

def dated(due: date, created: datetime, p: Params | None = None, **kw) -> Item:
    return Item("c-x", "dated", "Do the thing", created, p or KIND_DEFAULTS["dated"],
                due=due, **kw)


def test_the_lead_grows_with_how_far_ahead_it_was_written_and_with_priority():
    due = date(2026, 8, 31)
    p = KIND_DEFAULTS["dated"]  # lead_days 0.2, lead_growth 0.15
    assert lead_days(dated(due, datetime(2026, 8, 30))) == pytest.approx(
        0.2 * (1 + 0.15 * math.log(2)))
    a_month = lead_days(dated(due, datetime(2026, 8, 1)))
    assert a_month == pytest.approx(0.2 * (1 + 0.15 * math.log(31)))
    assert lead_days(dated(due, datetime(2026, 8, 30))) < a_month
    high = lead_days(dated(due, datetime(2026, 8, 1), priority=1.25))
    assert high == pytest.approx(a_month * 1.25 ** 2)
    assert lead_days(dated(due, datetime(2026, 9, 5))) == pytest.approx(p.lead_days)


DAYLONG = Params(lead_days=1.0, lead_growth=0.0, urgency=0.6, heads_up=0.4, overdue=0.25,
                 window=0.25)
DUE = date(2026, 8, 15)
NINE = time(9, 0)


@pytest.mark.parametrize(("moment", "expected"), [
    (datetime(2026, 8, 13, 23), 0.0),    # before its lead: nothing ...
    (datetime(2026, 8, 14, 18), 0.4),    # ... the heads-up: a day before (lead_days 1) ...
    (datetime(2026, 8, 15, 0), 0.6),     # ... the due day: the peak, all day
    (datetime(2026, 8, 15, 23, 59), 0.6),
    (datetime(2026, 8, 16, 9), 0.25),    # overdue: the floor ...
    (datetime(2026, 10, 30, 9), 0.25),   # ... however long ago (age does not wear it)
])
def test_urgency_peaks_on_the_due_day_and_keeps_a_floor(moment, expected):
    assert urgency(dated(DUE, datetime(2026, 8, 1), DAYLONG), moment) == pytest.approx(expected)


@pytest.mark.parametrize(("bound", "moment", "expected"), [
    ("at", datetime(2026, 8, 13, 23), 0.0),   # before the lead
    ("at", datetime(2026, 8, 14, 0), 0.4),    # the heads-up: a day before (lead_days 1)
    ("at", datetime(2026, 8, 14, 20), 0.4),   # the evening before
    ("at", datetime(2026, 8, 15, 8, 29), 0.6),  # the morning of, up to half an hour before
    ("at", datetime(2026, 8, 15, 8, 30), 0.0),  # then too late: off to the appointment
    ("at", datetime(2026, 8, 16, 9), 0.0),    # an event that has passed is over
    ("by", datetime(2026, 8, 15, 8, 30), 0.25),  # a deadline missed is overdue at once
    ("by", datetime(2026, 8, 16, 9), 0.25),
    ("after", datetime(2026, 8, 15, 8, 59), 0.0),  # "after 9": not before then
    ("after", datetime(2026, 8, 15, 9), 0.6),
])
def test_a_time_of_day_brings_a_heads_up_the_day_before_and_bounds_the_day(bound, moment,
                                                                         expected):
    item = dated(DUE, datetime(2026, 8, 1), DAYLONG, at=NINE, bound=bound)
    assert urgency(item, moment) == pytest.approx(expected)


def test_a_window_ramps_over_its_last_third_up_to_the_due_days_level():
    item = dated(DUE, datetime(2026, 7, 1), DAYLONG, opens=date(2026, 8, 3))  # twelve days
    ramp_from = datetime(2026, 8, 11)  # its last third: four days
    assert urgency(item, datetime(2026, 8, 10, 23)) == 0.0  # open, not yet speaking
    assert urgency(item, ramp_from + DAY) == pytest.approx(0.6 / 4)
    assert urgency(item, ramp_from + 3 * DAY) == pytest.approx(0.6 * 3 / 4)
    short = dated(DUE, datetime(2026, 7, 1), DAYLONG, opens=date(2026, 8, 12))
    assert urgency(short, datetime(2026, 8, 13, 12)) == pytest.approx(0.6 / 4)  # two days at least
    long = dated(DUE, datetime(2026, 1, 1), DAYLONG, opens=date(2026, 6, 1))
    assert urgency(long, datetime(2026, 8, 8)) == 0.0  # seven days at most
    assert urgency(long, datetime(2026, 8, 9, 12)) == pytest.approx(0.6 * 1.5 / 7)
    open_ended = replace(item, due=None)
    assert urgency(open_ended, datetime(2026, 8, 6)) == pytest.approx(0.25)


def test_undated_items_and_ideas_have_no_urgency():
    item = Item("c-mum", "undated", "Call Mum", datetime(2026, 8, 1), KIND_DEFAULTS["undated"])
    assert urgency(item, T) == 0.0


# -- preferred hours: settled in a quarter of the block (at most 30 minutes) -----------------

def at(hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 8, 10, hh, mm)


@pytest.mark.parametrize(("spec", "inside", "outside"), [
    ("09-12", [at(9), at(10, 30), at(11, 59)], [at(8, 59), at(12), at(0), at(23, 59)]),
    ("09-12,14-18", [at(9), at(11, 59), at(14), at(17, 59)],
     [at(8, 59), at(12), at(13), at(13, 59), at(18), at(22)]),
    ("09:30-10:15", [at(9, 30), at(10), at(10, 14)], [at(9, 29), at(10, 15), at(10, 30)]),
    ("22:00-07:00", [at(22), at(23, 30), at(0), at(3), at(6, 59)],
     [at(7), at(12), at(21, 59)]),
    ("07-09, 20-02", [at(7), at(8, 59), at(20), at(23), at(1, 59)],
     [at(9), at(12), at(19, 59), at(2), at(6, 59)]),
    ("", [], [at(0), at(12)]),
])
def test_in_hours(spec, inside, outside):
    assert [in_hours(spec, t) for t in inside] == [True] * len(inside)
    assert [in_hours(spec, t) for t in outside] == [False] * len(outside)


def hourly(spec: str, kind: str = "dated", stated: bool = True) -> Item:
    return Item("c-x", kind, "x", datetime(2026, 8, 1), replace(KIND_DEFAULTS[kind], hours=spec),
                stated_hours=stated)


@pytest.mark.parametrize(("spec", "quiet_until", "then"), [
    ("18-21", at(18, 59), at(19, 0)),    # a third of three hours: an hour
    ("20-21", at(20, 19), at(20, 20)),   # a third of one hour
    ("07-8,20-21", at(7, 19), at(7, 20)),
    ("09-12,14-18", at(14, 59), at(15, 0)),  # a third of four hours is 80 min: at most 60
])
def test_the_hours_boost_starts_once_the_block_has_settled(spec, quiet_until, then):
    item = hourly(spec)
    assert hours_boost(item, quiet_until) == 0.0
    assert hours_boost(item, then) == pytest.approx(0.6)
    assert hours_boost(item, then - 2 * HOUR if then.hour >= 2 else then) in (0.0, 0.6)


def test_assumed_hours_give_an_idea_a_share_of_the_boost_and_a_commitment_all_of_it():
    assert hours_boost(hourly("09-12,14-18", "idea", stated=False), at(10)) == \
        pytest.approx(0.6 * 0.4)
    assert hours_boost(hourly("09-12,14-18", "idea", stated=True), at(10)) == pytest.approx(0.6)
    assert hours_boost(hourly("09-12,14-18", "dated", stated=False), at(10)) == \
        pytest.approx(0.6)


# -- fatigue: decayed sums over surfacings and (longer) dismissals ---------------------------

TIRED = Params(fatigue=0.6, fatigue_hours=8.0, dismiss=1.0, dismiss_hours=16.0)


def test_fatigue_is_a_decayed_sum_over_surfacings():
    surfaced = [T - 8 * HOUR, T - 16 * HOUR]
    assert fatigue(TIRED, surfaced, [], T) == pytest.approx(0.6 * (math.exp(-1) + math.exp(-2)))


def test_a_dismissal_weighs_on_top_of_its_surfacing_and_fades_more_slowly():
    got = fatigue(TIRED, [T - 8 * HOUR], [T - 8 * HOUR], T)
    assert got == pytest.approx(0.6 * math.exp(-1) + 1.0 * math.exp(-0.5))


def test_fatigue_ignores_events_after_now_and_is_zero_without_events():
    assert fatigue(TIRED, [T + HOUR], [T + 2 * HOUR], T) == 0.0
    assert fatigue(TIRED, [], [], T) == 0.0


def test_a_default_dismissal_has_faded_within_two_days():
    p = KIND_DEFAULTS["dated"]
    assert fatigue(p, [T], [T], T) == pytest.approx(p.fatigue + p.dismiss)
    assert fatigue(p, [T], [T], T + DAY) > 0.15
    assert fatigue(p, [T], [T], T + 2 * DAY) < 0.1


# -- terms: V = I·D + U + C + N − F, τ from the latest anchor -------------------------------

def test_terms_on_a_hand_built_item():
    p = Params(importance=0.3, lead_days=1.0, lead_growth=0.0, urgency=0.6, hours="09-12",
               context=0.5, fatigue=0.6, fatigue_hours=8.0, dismiss=1.0, dismiss_hours=16.0)
    item = dated(date(2026, 8, 11), T - 30 * DAY, p, stated_hours=True, cue="trigger matched",
                 at=time(11), bound="at")
    got = terms(item, T, surfaced=[T - 8 * HOUR], dismissed=[T - 8 * HOUR])
    assert got.base == pytest.approx(0.3)   # written a month ago: not worn by its age
    assert got.urgency == pytest.approx(p.heads_up)  # the day before an 11:00 appointment
    assert got.hours == pytest.approx(0.5)  # 10:00 is settled inside 09-12
    assert got.cue == pytest.approx(p.cue)
    assert got.context == pytest.approx(0.5 + p.cue)
    assert got.novelty == 0.0
    assert got.fatigue == pytest.approx(0.6 * math.exp(-1) + math.exp(-0.5))
    assert got.value == pytest.approx(0.3 + p.heads_up + 0.5 + p.cue - got.fatigue)


def test_an_entry_written_a_month_ahead_is_as_fresh_on_its_day_as_one_written_yesterday():
    early, late = dated(DUE, datetime(2026, 7, 15)), dated(DUE, datetime(2026, 8, 14, 9))
    moment = datetime(2026, 8, 15, 10)
    assert terms(early, moment, [], []) == terms(late, moment, [], [])


def test_novelty_lifts_an_idea_after_it_is_written_or_referenced():
    p = replace(KIND_DEFAULTS["idea"], novelty=0.2, novelty_days=0.5)
    item = Item("p-x", "idea", "x", T - DAY, p)
    assert terms(item, T, [], []).novelty == pytest.approx(0.2 * math.exp(-2))
    referenced = replace(item, referenced=T - 12 * HOUR)
    assert terms(referenced, T, [], []).novelty == pytest.approx(0.2 * math.exp(-1))


def test_the_window_starts_at_the_latest_anchor_or_the_waves_period():
    item = dated(DUE, datetime(2026, 7, 1), DAYLONG, opens=date(2026, 8, 3), at=NINE,
                 bound="at")
    assert window_start(item, datetime(2026, 8, 3)) == datetime(2026, 7, 1)
    assert window_start(item, datetime(2026, 8, 12)) == datetime(2026, 8, 11)  # its ramp
    assert window_start(item, datetime(2026, 8, 14, 9)) == datetime(2026, 8, 14)  # the lead
    untimed = replace(item, at=None, bound="")
    assert window_start(untimed, datetime(2026, 8, 14, 9)) == datetime(2026, 8, 14)  # SPEC 8
    plan = replace(untimed, kind="plan")
    assert window_start(plan, datetime(2026, 8, 14, 9)) == datetime(2026, 8, 11)  # no lead
    assert window_start(item, datetime(2026, 8, 15, 9)) == datetime(2026, 8, 15)
    assert window_start(item, datetime(2026, 8, 20)) == datetime(2026, 8, 15)  # no new one
    snoozed = datetime(2026, 8, 16, 12)
    assert window_start(item, datetime(2026, 8, 17), snoozed) == snoozed
    mum = Item("c-mum", "undated", "Call Mum", datetime(2026, 8, 1, 10), KIND_DEFAULTS["undated"])
    assert window_start(mum, datetime(2026, 8, 4, 9)) == datetime(2026, 8, 3, 10)
    assert window_start(mum, datetime(2026, 8, 4, 9), oscillation=False) == \
        datetime(2026, 8, 1, 10)


# -- the Schmitt trigger -------------------------------------------------------------------


def run_schmitt(values, theta=1.0, h=0.25) -> list[bool]:
    armed, fired = True, []
    for value in values:
        fires, armed = schmitt(armed, value, theta, h)
        fired.append(fires)
    return fired


def test_schmitt_fires_once_for_a_value_hovering_around_theta():
    hovering = [0.95, 1.05] * 10
    assert run_schmitt(hovering) == [False, True] + [False] * 18


def test_schmitt_rearms_only_below_theta_minus_h():
    values = [1.05, 0.95, 0.8, 0.75, 1.05,  # 0.75 = θ − h is not below it: still disarmed
              0.74, 1.0,                   # below θ − h re-arms; exactly θ fires
              0.9, 1.2]
    assert run_schmitt(values) == [True, False, False, False, False, False, True, False, False]


def test_schmitt_state_transitions():
    assert schmitt(True, 1.0, 1.0, 0.25) == (True, False)
    assert schmitt(True, 0.99, 1.0, 0.25) == (False, True)
    assert schmitt(False, 0.8, 1.0, 0.25) == (False, False)
    assert schmitt(False, 0.7, 1.0, 0.25) == (False, True)
    assert schmitt(False, 2.0, 1.0, 0.25) == (False, False)


def test_the_default_threshold_and_hysteresis():
    assert (THETA, HYSTERESIS) == (1.0, 0.25)


def test_the_default_scale_keeps_each_kind_on_its_side_of_theta():
    """Alone, a commitment stays below θ even in its hours; its due day carries it over in
    its hours and not outside them; a trigger entry needs its cue; an undated one its
    crest in its hours; an idea its crest in hours stated for it."""
    d, u, c, i = (KIND_DEFAULTS[k] for k in ("dated", "undated", "conditional", "idea"))
    assert d.importance + d.context < THETA - 0.1
    assert d.importance + d.urgency + d.context > THETA + 0.4
    assert d.importance * 1.25 + d.urgency < THETA  # even ⏫, outside its hours
    assert d.importance + d.overdue + d.context > THETA
    assert c.importance + c.context < THETA < c.importance + c.cue
    assert u.importance * (1 + u.amplitude) + u.context > THETA > u.importance + u.context - 0.01
    assert i.importance * (1 + i.amplitude) + i.context > THETA
    assert i.importance * (1 + i.amplitude) + i.context * i.assumed_hours < THETA


# -- ticks through the store -----------------------------------------------------------------

INDEXED = datetime(2026, 8, 1)
URGENT = "[nudge_importance:: 1.0] [nudge_urgency:: 2.0]"


class NudgeVault:
    """The shared harness's vault (conftest `make_vault`) with a Plumber.md, indexed once on
    August 1, 2026, and this file's helpers."""

    def __init__(self, vault: api.Vault):
        self.vault = vault

    @property
    def store(self):
        return self.vault.store

    @property
    def settings(self):
        return self.vault.settings

    def tick(self, now: datetime):
        return self.vault.nudge(now=now)

    def item(self, item_id: str) -> Item:
        return next(i for i in load_items(self.store) if i.id == item_id)

    def state(self) -> dict[str, tuple[int, str | None]]:
        return {r[0]: (r[1], r[2]) for r in self.store.execute(
            "SELECT item_id, armed, muted_until FROM nudge_state")}

    def surfacings(self) -> list[tuple[str, str]]:
        return self.store.execute("SELECT item_id, ts FROM surfacings ORDER BY id").fetchall()

    def replay(self, start: datetime, end: datetime, answer: str | None = None,
               step: timedelta = timedelta(minutes=15)) -> list[tuple[datetime, str]]:
        """Tick from `start` to `end`; answer every nudge with `answer` (a scripted user).
        Returns (moment, item id) of each nudge."""
        shown = []
        for t in every(start, end, step):
            result = self.tick(t)
            if result.nudge:
                shown.append((t, result.nudge.item.id))
                if answer:
                    record_feedback(self.store, result.nudge.item.id, answer, t)
        return shown


def every(start: datetime, end: datetime, step: timedelta = timedelta(minutes=15)):
    t = start
    while t < end:
        yield t
        t += step


@pytest.fixture
def nudge_vault(make_vault):
    def make(files: dict[str, str], config_toml: str = "") -> NudgeVault:
        return NudgeVault(make_vault({"Plumber.md": "# Plumber\n", **files},
                                     config_toml=config_toml, index_at=INDEXED))

    return make


def test_quiet_hours_mute_even_a_very_urgent_item(nudge_vault):
    v = nudge_vault({"Ledger.md": f"- [ ] Pay the plumber 📅 2026-08-10 [[Plumber]] {URGENT}\n"})
    night = list(every(datetime(2026, 8, 9, 22), datetime(2026, 8, 10, 7)))
    results = [v.tick(t) for t in night]
    assert [r.nudge for r in results] == [None] * len(night)
    assert {r.reason for r in results} == {"quiet hours"}
    # It is muted, not merely low: its value is above θ all night.
    assert min(r.values["c-pay-plumber"] for r in results) >= THETA
    assert v.surfacings() == []
    morning = v.tick(datetime(2026, 8, 10, 7))
    assert morning.reason == "nudged"
    assert morning.nudge.item.id == "c-pay-plumber"


def test_quiet_hours_come_from_config(nudge_vault):
    v = nudge_vault({"Ledger.md": f"- [ ] Pay the plumber 📅 2026-08-10 [[Plumber]] {URGENT}\n"},
                   'quiet_hours = "12:00-13:00"\n')
    assert v.tick(datetime(2026, 8, 10, 12, 30)).reason == "quiet hours"
    assert v.tick(datetime(2026, 8, 10, 23, 0)).reason == "nudged"


MANY = "".join(f"- [ ] Urgent task {name} 📅 2026-08-10 {URGENT}\n"
               for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot"))


def test_at_most_one_nudge_per_tick_the_highest_value_wins(nudge_vault):
    v = nudge_vault({"Ledger.md": MANY})
    first = v.tick(datetime(2026, 8, 10, 9))
    above = {i for i, value in first.values.items() if value >= THETA}
    assert len(above) == 6
    assert first.nudge is not None
    assert round(first.nudge.value, 4) == max(first.values.values())
    assert len(v.surfacings()) == 1
    # The ones that were above θ but not emitted stay armed for the next tick.
    state = v.state()
    assert state[first.nudge.item.id] == (0, None)
    assert {i for i in above if state[i][0] == 1} == above - {first.nudge.item.id}
    second = v.tick(datetime(2026, 8, 10, 9, 15))
    assert second.nudge is not None
    assert second.nudge.item.id != first.nudge.item.id
    assert len(v.surfacings()) == 2


def test_the_daily_cap_holds_over_two_days_of_quarter_hour_ticks(nudge_vault):
    v = nudge_vault({"Ledger.md": MANY}, "daily_cap = 2\n")
    results = [v.tick(t) for t in every(datetime(2026, 8, 9), datetime(2026, 8, 11))]
    per_day: dict[date, int] = {}
    for r in results:
        if r.nudge:
            per_day[r.now.date()] = per_day.get(r.now.date(), 0) + 1
    assert per_day == {date(2026, 8, 9): 2, date(2026, 8, 10): 2}
    assert "daily cap of 2 reached" in {r.reason for r in results}
    assert len(v.surfacings()) == 4
    assert sum(1 for r in results if r.nudge) == 4


def test_the_default_daily_cap_is_five(nudge_vault):
    v = nudge_vault({"Ledger.md": MANY + MANY.replace("Urgent task", "Other job")})
    results = [v.tick(t) for t in every(datetime(2026, 8, 10, 7), datetime(2026, 8, 10, 22))]
    assert sum(1 for r in results if r.nudge) == 5


def test_arming_state_persists_in_the_store_across_reopening(nudge_vault, make_vault):
    ledger = f"- [ ] Pay the plumber 📅 2026-08-10 [[Plumber]] {URGENT}\n"
    v = nudge_vault({"Ledger.md": ledger})
    first = v.tick(datetime(2026, 8, 10, 9))
    assert first.nudge.item.id == "c-pay-plumber"
    row = v.store.execute("SELECT armed, value, updated_at FROM nudge_state "
                          "WHERE item_id = 'c-pay-plumber'").fetchone()
    assert row == (0, pytest.approx(first.values["c-pay-plumber"], abs=1e-4),
                   "2026-08-10T09:00:00")
    v.vault.close()
    v.vault = make_vault(root=v.settings.vault)
    # Still high, but disarmed: silence until the value drops below θ − h.
    later = [v.tick(t) for t in every(datetime(2026, 8, 10, 9, 15), datetime(2026, 8, 10, 17))]
    assert [r.nudge for r in later] == [None] * len(later)
    assert max(r.values["c-pay-plumber"] for r in later) >= THETA
    assert v.state()["c-pay-plumber"][0] == 0


def test_a_disarmed_item_rearms_once_its_value_drops_below_theta_minus_h(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] Pay the plumber 📅 2026-08-10 [nudge_urgency:: 2]\n"})
    assert v.tick(datetime(2026, 8, 10, 9)).nudge is not None
    # Overdue, outside its hours, the fatigue gone (an overdue item's nudges weigh for a
    # week): the value is the base and the floor.
    low = v.tick(datetime(2026, 8, 18, 8))
    assert low.values["c-pay-plumber"] == pytest.approx(0.25 + 0.25)
    assert low.values["c-pay-plumber"] < THETA - HYSTERESIS
    assert v.state()["c-pay-plumber"][0] == 1


# -- feedback -----------------------------------------------------------------------------

ONE = f"- [ ] Pay the plumber 📅 2026-08-10 [[Plumber]] {URGENT}\n"
NUDGED_AT = datetime(2026, 8, 10, 9)


def test_feedback_without_a_surfacing_records_nothing(nudge_vault):
    v = nudge_vault({"Ledger.md": ONE})
    assert record_feedback(v.store, "c-pay-plumber", "accept", NUDGED_AT) is None
    assert v.store.execute("SELECT count(*) FROM feedback").fetchone()[0] == 0


def test_accept_stores_a_row_and_changes_nothing_else(nudge_vault):
    v = nudge_vault({"Ledger.md": ONE})
    nudged = v.tick(NUDGED_AT)
    state_before = v.state()
    answer = record_feedback(v.store, "c-pay-plumber", "accept", NUDGED_AT + HOUR)
    assert answer.as_dict() == {"schema": SCHEMA, "item": "c-pay-plumber",
                                "surfacing": nudged.nudge.surfacing_id, "kind": "accept",
                                "until": None}
    assert v.store.execute("SELECT surfacing_id, item_id, ts, kind, until FROM feedback"
                           ).fetchall() == [(nudged.nudge.surfacing_id, "c-pay-plumber",
                                             "2026-08-10T10:00:00", "accept", None)]
    assert v.state() == state_before
    assert v.store.execute("SELECT status, present FROM entries WHERE id = 'c-pay-plumber'"
                           ).fetchone() == ("open", 1)
    # No fatigue beyond the surfacing itself.
    t = NUDGED_AT + 2 * HOUR
    expected = terms(v.item("c-pay-plumber"), t, [NUDGED_AT], []).value
    assert v.tick(t).values["c-pay-plumber"] == round(expected, 4)


def test_dismiss_lowers_the_next_value_by_exactly_the_dismiss_term(nudge_vault):
    v = nudge_vault({"Ledger.md": ONE})
    v.tick(NUDGED_AT)
    dismissed_at = NUDGED_AT + timedelta(minutes=30)
    record_feedback(v.store, "c-pay-plumber", "dismiss", dismissed_at)
    t = NUDGED_AT + 2 * HOUR
    item = v.item("c-pay-plumber")
    undismissed = terms(item, t, [NUDGED_AT], []).value
    dismiss_term = item.params.dismiss * math.exp(-1.5 / item.params.dismiss_hours)
    got = v.tick(t).values["c-pay-plumber"]
    assert got == pytest.approx(undismissed - dismiss_term, abs=1e-4)
    assert got == pytest.approx(undismissed - 0.5 * math.exp(-1.5 / 24), abs=1e-4)


def test_snooze_mutes_the_item_until_its_time(nudge_vault):
    v = nudge_vault({"Ledger.md": ONE})
    nudged = v.tick(NUDGED_AT)
    answer = record_feedback(v.store, "c-pay-plumber", "snooze", NUDGED_AT,
                             snooze=timedelta(hours=2))
    assert answer.until == "2026-08-10T11:00:00"
    assert v.state()["c-pay-plumber"][1] == "2026-08-10T11:00:00"
    assert v.store.execute("SELECT surfacing_id, kind, until FROM feedback").fetchall() == \
        [(nudged.nudge.surfacing_id, "snooze", "2026-08-10T11:00:00")]
    during = [v.tick(t) for t in every(NUDGED_AT + timedelta(minutes=15), NUDGED_AT + 2 * HOUR)]
    assert [r.nudge for r in during] == [None] * len(during)
    assert v.surfacings() == [("c-pay-plumber", "2026-08-10T09:00:00")]


def test_snooze_default_is_three_hours(nudge_vault):
    v = nudge_vault({"Ledger.md": ONE})
    v.tick(NUDGED_AT)
    assert record_feedback(v.store, "c-pay-plumber", "snooze", NUDGED_AT).until == \
        "2026-08-10T12:00:00"


def test_a_snoozed_item_is_eligible_again_after_its_time(nudge_vault):
    v = nudge_vault({"Ledger.md": ONE})
    v.tick(NUDGED_AT)
    record_feedback(v.store, "c-pay-plumber", "snooze", NUDGED_AT, snooze=timedelta(hours=2))
    after = [v.tick(t) for t in every(NUDGED_AT + 2 * HOUR, datetime(2026, 8, 10, 17))]
    assert max(r.values["c-pay-plumber"] for r in after) >= THETA
    assert [r.nudge.item.id for r in after if r.nudge] == ["c-pay-plumber"]


def test_a_snoozed_item_does_not_block_other_items(nudge_vault):
    ledger = ONE + f"- [ ] Call the roofer 📅 2026-08-10 {URGENT}\n"
    v = nudge_vault({"Ledger.md": ledger})
    first = v.tick(NUDGED_AT)
    other = ({"c-pay-plumber", "c-call-roofer"} - {first.nudge.item.id}).pop()
    record_feedback(v.store, first.nudge.item.id, "snooze", NUDGED_AT)
    assert v.tick(NUDGED_AT + timedelta(minutes=15)).nudge.item.id == other


# -- per-item parameter overrides ------------------------------------------------------------


def test_a_ledger_field_overrides_the_importance(nudge_vault):
    ledger = ("- [ ] Pay the plumber 📅 2026-08-20 [[Plumber]] [nudge_importance:: 0.9]\n"
              "- [ ] Renew the passport 📅 2026-08-20\n")
    v = nudge_vault({"Ledger.md": ledger})
    assert v.item("c-pay-plumber").params == replace(KIND_DEFAULTS["dated"], importance=0.9)
    assert v.item("c-renew-passport").params == KIND_DEFAULTS["dated"]
    t = datetime(2026, 8, 5, 20)  # no urgency yet, outside the default preferred hours
    got = terms(v.item("c-pay-plumber"), t, [], [])
    assert got.base == pytest.approx(0.9)
    assert terms(v.item("c-renew-passport"), t, [], []).base == pytest.approx(0.25)
    assert v.tick(t).values["c-pay-plumber"] == round(got.value, 4)


def test_front_matter_nudge_hours_on_a_plan_note(nudge_vault):
    v = nudge_vault({
        "Trip.md": "---\ntype: plan\ncreated: 2026-08-01\nnudge_hours: 07-09\n---\n# Trip\n",
        "Garden.md": "---\ntype: plan\ncreated: 2026-08-01\n---\n# Garden\n",
    })
    trip, garden = v.item("p-trip"), v.item("p-garden")
    assert trip.params == replace(KIND_DEFAULTS["plan"], hours="07-09")
    assert garden.params == KIND_DEFAULTS["plan"]
    assert (trip.stated_hours, garden.stated_hours) == (True, False)
    early, late = datetime(2026, 8, 3, 8), datetime(2026, 8, 3, 13, 0)  # lunch: its own
    boost = KIND_DEFAULTS["plan"].context
    assumed = boost * KIND_DEFAULTS["plan"].assumed_hours  # the hours it did not state
    assert terms(trip, early, [], []).context == pytest.approx(boost)
    assert terms(trip, late, [], []).context == 0.0
    assert terms(garden, early, [], []).context == 0.0
    assert terms(garden, late, [], []).context == pytest.approx(assumed)
    # Same kind, same creation: they differ by the hours boost alone.
    values = v.tick(early).values
    assert values["p-trip"] - values["p-garden"] == pytest.approx(boost, abs=2e-4)
    values = v.tick(late).values
    assert values["p-garden"] - values["p-trip"] == pytest.approx(assumed, abs=2e-4)


@pytest.mark.parametrize("mark, factor", [
    ("🔺", 1.5), ("⏫", 1.25), ("🔼", 1.1), ("", 1.0), ("🔽", 0.8), ("⏬", 0.6),
    ("[priority:: high]", 1.25)])
def test_a_tasks_priority_scales_the_entrys_importance(nudge_vault, mark, factor):
    v = nudge_vault({"Ledger.md": f"- [ ] Pay the plumber 📅 2026-08-10 {mark} [[Plumber]]\n"})
    assert v.item("c-pay-plumber").params.importance == pytest.approx(0.25 * factor)
    assert v.item("c-pay-plumber").priority == pytest.approx(factor)


def test_an_explicit_nudge_importance_wins_over_the_priority(nudge_vault):
    v = nudge_vault({
        "Ledger.md": "- [ ] Pay the plumber ⏫ [nudge_importance:: 0.9] [[Plumber]]\n"})
    assert v.item("c-pay-plumber").params.importance == 0.9


# -- the commitment's own clock, through whole ticks -----------------------------------------


def test_an_entry_written_30_days_ahead_nudges_on_its_due_morning_in_its_hours(make_vault):
    v = NudgeVault(make_vault({
        "Dr Lee.md": "# Dr Lee\n",
        "Ledger.md": "- [ ] Dentist check-up at 9:40 📅 2026-09-10 [[Dr Lee]] "
                     "[nudge_hours:: 7-9] ^dentist\n"}, index_at=datetime(2026, 8, 11)))
    shown = v.replay(datetime(2026, 9, 8, 7), datetime(2026, 9, 11), answer="dismiss")
    assert shown == [(datetime(2026, 9, 10, 7, 45), "dentist")]


def test_an_overdue_entry_nudges_again_once_fatigue_fades_never_in_quiet_hours(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] File the VAT return 📅 2026-08-07 [[Plumber]] ^vat\n"})
    shown = v.replay(datetime(2026, 8, 10), datetime(2026, 8, 25), answer="dismiss")
    times = [t for t, _ in shown]
    assert times[0] == datetime(2026, 8, 10, 9, 0)  # past its day: first thing, 08-11 settled
    assert len(times) >= 2  # the floor never lets it go silent for good
    assert not [t for t in times if in_hours(v.settings.quiet_hours, t)]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert all(5 * DAY <= gap <= 8 * DAY for gap in gaps)  # spaced by fatigue, which fades


def test_each_dismissal_in_a_row_weighs_more_in_the_hours_after_it():
    p = KIND_DEFAULTS["dated"]
    lone = fatigue(p, [], [T], T + 4 * HOUR)
    second = fatigue(p, [], [T - DAY, T], T + 4 * HOUR)  # a day after the first: in a row
    assert second == pytest.approx(p.dismiss * (math.exp(-28 / 24) + 2 * math.exp(-8 / 24)))
    assert second > lone + p.dismiss * math.exp(-28 / 24)  # the second counts double


def test_an_unrelated_dismissal_13_days_ago_does_not_double_todays():
    t = T
    alone = fatigue(Params(), [], [t], t)
    assert alone == pytest.approx(0.5)
    assert fatigue(Params(), [], [t - 13 * DAY, t], t) == pytest.approx(alone, abs=1e-4)
    # Nor does last week's dismissal of a recurring entry, which keeps its id.
    assert fatigue(Params(), [], [t - 7 * DAY, t], t) == pytest.approx(alone, abs=1e-3)


def test_an_accept_between_two_dismissals_ends_the_run():
    p = KIND_DEFAULTS["dated"]
    first, second = T - DAY, T
    in_a_row = fatigue(p, [], [first, second], T)
    broken = fatigue(p, [], [first, second], T, answered=[T - 12 * HOUR])
    assert broken == pytest.approx(p.dismiss * (math.exp(-1) + 1))  # each counts once
    assert in_a_row == pytest.approx(p.dismiss * (math.exp(-1) + 2))
    # An answer outside the two (before the first, after now) ends nothing.
    assert fatigue(p, [], [first, second], T, answered=[first - HOUR, T + HOUR]) == \
        pytest.approx(in_a_row)


@pytest.mark.parametrize("answer", ["accept", "snooze"])
def test_an_accept_or_snooze_stored_between_two_dismissals_ends_the_run(nudge_vault, answer):
    v = nudge_vault({"Ledger.md": ONE})
    first = NUDGED_AT - DAY
    moments = [(first, "dismiss"), (first + 6 * HOUR, answer), (NUDGED_AT, "dismiss")]
    for stamp, kind in moments:
        nudge_rows.surfaced(v.store, "c-pay-plumber", stamp.isoformat(), 1.5, "Pay the plumber")
        record_feedback(v.store, "c-pay-plumber", kind, stamp)
    t = NUDGED_AT + 2 * HOUR
    item = v.item("c-pay-plumber")
    undismissed = terms(item, t, [m for m, _ in moments], []).value
    p = item.params
    each_once = p.dismiss * (math.exp(-26 / p.dismiss_hours) + math.exp(-2 / p.dismiss_hours))
    assert v.tick(t).values["c-pay-plumber"] == pytest.approx(undismissed - each_once, abs=1e-4)


def test_three_dismissals_in_a_row_have_faded_a_day_and_a_half_after_the_last():
    p = KIND_DEFAULTS["dated"]
    three = [T - 2 * DAY, T - DAY, T]
    assert fatigue(p, [], three, T) == pytest.approx(
        p.dismiss * (3 + 2 * math.exp(-2) + math.exp(-2)))  # capped run: 1st, 2nd, 3rd
    for hours in range(24, 37):
        later = T + hours * HOUR
        # Never more than one lone dismissal would leave by then ...
        assert fatigue(p, [], three, later) <= fatigue(p, [], [T], later)
    # ... and under 0.05 (of θ = 1) a day and a half after the last.
    assert fatigue(p, [], three, T + 36 * HOUR) < 0.05
    # The multiplier is capped: a fifth in a row weighs three times the first.
    five = [T - 4 * DAY, *(T - n * DAY for n in (3, 2, 1)), T]
    assert fatigue(p, [], five, T) - fatigue(p, [], five[:-1], T) == pytest.approx(3 * p.dismiss)


def test_an_overdue_entry_turned_down_again_and_again_keeps_its_spacing(nudge_vault):
    # Each dismissal fades within a day or so (SPEC 8), and one a week after the last is
    # not "in a row": old answers never push the reminder further out, nor silence it.
    v = nudge_vault({"Ledger.md": "- [ ] File the VAT return 📅 2026-08-07 [[Plumber]] ^vat\n"})
    times = [t for t, _ in v.replay(datetime(2026, 8, 10), datetime(2026, 9, 10),
                                    answer="dismiss", step=HOUR)]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(gaps) >= 3 and len(set(gaps)) == 1  # the same spacing each time
    assert 5 * DAY <= gaps[0] <= 8 * DAY
    assert not [t for t in times if in_hours(v.settings.quiet_hours, t)]


def test_an_overdue_reminder_repeats_about_weekly_whatever_the_answer(nudge_vault):
    # Past its day a reminder repeats one unchanged message: its nudges fade over days
    # (`overdue_fatigue_hours`), so answered or not it comes back about a week later, not
    # every other morning as the nudge and dismissal fatigue of a due-day reminder allow.
    for answer in ("dismiss", None):
        v = nudge_vault({"Ledger.md": "- [ ] File the VAT return 📅 2026-08-07 [[Plumber]] "
                                      "^vat\n"})
        times = [t for t, _ in v.replay(datetime(2026, 8, 10), datetime(2026, 8, 17),
                                        answer=answer)]
        assert times[0] == datetime(2026, 8, 10, 9, 0)
        assert len(times) == 1 or times[1] - times[0] >= 5 * DAY, answer


def test_an_overdue_entry_reminded_on_its_due_day_waits_days_for_its_first_overdue_nudge(
        nudge_vault):
    # The due day's reminder counts too: the next day's "overdue since" says nothing new.
    v = nudge_vault({"Ledger.md": "- [ ] File the VAT return 📅 2026-08-10 [[Plumber]] ^vat\n"})
    times = [t for t, _ in v.replay(datetime(2026, 8, 10, 7), datetime(2026, 8, 14),
                                    answer="dismiss")]
    assert [t.date() for t in times] == [date(2026, 8, 10)]


def test_overdue_fatigue_fades_over_days_and_weighs_nothing_after_a_week():
    p = KIND_DEFAULTS["dated"]
    assert fatigue(p, [T], [], T + 2 * DAY) == pytest.approx(
        p.fatigue * math.exp(-48 / 6))  # a due-day reminder: gone in a day
    assert fatigue(p, [T], [], T + 2 * DAY, overdue=True) == pytest.approx(
        p.fatigue * math.exp(-48 / p.overdue_fatigue_hours))
    assert fatigue(p, [T], [], T + 4 * DAY, overdue=True) > 0.2  # holds the floor's 1.1
    assert fatigue(p, [T], [], T + 7 * DAY + HOUR, overdue=True) == 0.0
    # A dismissal still fades within a day or so, overdue or not (SPEC 8).
    assert fatigue(p, [], [T], T + 2 * DAY, overdue=True) == \
        pytest.approx(fatigue(p, [], [T], T + 2 * DAY))


def test_an_idea_cannot_push_a_due_commitment_out_of_the_days_cap(nudge_vault):
    files = {
        "Ledger.md": "- [ ] Call the roofer back 📅 2026-08-10 [nudge_hours:: 17-21] ^roofer\n",
        "Garden.md": "---\ntype: idea\ncreated: 2026-08-09\nnudge_hours: 09-12\n"
                     "nudge_importance: 0.7\n---\n# Garden\nA pond by the fence.\n"}
    v = nudge_vault(files, "daily_cap = 1\n")
    day = list(every(datetime(2026, 8, 10, 7), datetime(2026, 8, 10, 22)))
    results = [v.tick(t) for t in day]
    assert [(r.now, r.nudge.item.id) for r in results if r.nudge] == \
        [(datetime(2026, 8, 10, 18, 0), "roofer")]
    ten = results[day.index(datetime(2026, 8, 10, 10))]
    idea = next(c for c in ten.candidates if c.item.id == "p-garden")
    assert idea.value >= THETA and idea.held == "today's last 1 slot(s) kept for commitments"
    # With room under the cap, the idea has its turn too.
    roomy = nudge_vault(files)
    shown = [(r.now, r.nudge.item.id) for r in map(roomy.tick, day) if r.nudge]
    assert shown == [(datetime(2026, 8, 10, 10, 0), "p-garden"),
                     (datetime(2026, 8, 10, 18, 0), "roofer")]


def test_overdue_reminders_leave_the_last_slot_to_a_commitment_due_tomorrow(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] File the VAT return 📅 2026-08-05 ^vat\n"
                                  "- [ ] Return the library books 📅 2026-08-06 ^books\n"
                                  "- [ ] Plumber comes at 8:00 📅 2026-08-11 [[Plumber]] ^pay\n"},
                    "daily_cap = 2\n")
    day = list(every(datetime(2026, 8, 10, 7), datetime(2026, 8, 10, 22)))
    results = [v.tick(t) for t in day]
    shown = [(r.now.strftime("%H:%M"), r.nudge.item.id) for r in results if r.nudge]
    assert shown[0][0] == "09:00" and shown[0][1] in ("vat", "books")  # one overdue, once
    assert shown[1:] == [("20:45", "pay")]  # the heads-up the evening before
    morning = results[day.index(datetime(2026, 8, 10, 9, 15))]
    assert morning.reason == "today's last 1 slot(s) kept for commitments due today or tomorrow"


def test_an_accept_holds_for_its_window_and_the_due_day_opens_a_new_one(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] Drop the car at the garage by 8:30 📅 2026-08-12 "
                                  "[nudge_hours:: 7-8,20-21] ^garage\n"})
    v.vault.index(now=datetime(2026, 8, 5))  # written a week ahead: a lead into the evening
    shown = v.replay(datetime(2026, 8, 11, 7), datetime(2026, 8, 14), answer="accept")
    assert shown == [(datetime(2026, 8, 11, 20, 30), "garage"),
                     (datetime(2026, 8, 12, 7, 30), "garage")]


def test_an_undated_commitment_revives_inside_its_hours_every_other_day(make_vault):
    v = NudgeVault(make_vault({"Ledger.md": "- [ ] Call Mum [nudge_hours:: 18-21] ^mum\n"},
                              index_at=datetime(2026, 8, 1, 10)))
    assert v.item("mum").kind == "undated"
    shown = v.replay(datetime(2026, 8, 1, 10), datetime(2026, 8, 8), answer="dismiss")
    assert [t.date() for t, _ in shown] == [date(2026, 8, 2), date(2026, 8, 4),
                                           date(2026, 8, 6)]
    assert all(in_hours("18:30-21:00", t) for t, _ in shown)


def test_a_start_window_speaks_up_in_its_last_part_not_when_it_opens(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] Renew the parking permit 🛫 2026-08-01 📅 2026-08-21 "
                                  "^permit\n"})
    shown = v.replay(datetime(2026, 8, 1), datetime(2026, 8, 21), answer="dismiss", step=HOUR)
    assert datetime(2026, 8, 15) <= shown[0][0] < datetime(2026, 8, 18)


def test_a_just_written_entry_waits_two_hours(nudge_vault):
    v = nudge_vault({})
    (v.settings.vault / "Ledger.md").write_text("- [ ] Ring Dean about the brakes 📅 2026-08-10 "
                                                "^brakes\n")
    v.vault.index(now=datetime(2026, 8, 10, 9, 5))
    first = v.tick(datetime(2026, 8, 10, 10, 15))
    assert first.nudge is None
    assert first.candidates[0].held == "just written"
    assert first.candidates[0].value >= THETA
    assert v.tick(datetime(2026, 8, 10, 11, 15)).nudge.item.id == "brakes"


def test_a_cue_nudges_and_the_same_cue_once_dismissed_does_not_again(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] When I'm at the hardware shop, buy picture hooks "
                                  "^hooks\n"})
    assert v.item("hooks").kind == "conditional"
    assert [r.nudge for r in map(v.tick, every(datetime(2026, 8, 10, 7),
                                                datetime(2026, 8, 10, 22)))] == [None] * 60
    cue = {"hooks": "trigger matched: hardware, shop"}
    first = tick(v.store, v.settings, datetime(2026, 8, 11, 10), cues=cue)
    assert first.nudge.item.id == "hooks" and "trigger matched" in first.nudge.why
    record_feedback(v.store, "hooks", "dismiss", datetime(2026, 8, 11, 10))
    later = datetime(2026, 8, 12, 13, 0)  # the dismissal has mostly faded; lunchtime
    assert tick(v.store, v.settings, later, cues=cue).nudge is None
    other = {"hooks": "trigger matched: hardware"}  # another context: another moment
    assert tick(v.store, v.settings, later + 15 * MINUTE, cues=other).nudge.item.id == "hooks"


def test_the_json_document_names_the_top_candidates_and_what_held_each(nudge_vault):
    v = nudge_vault({"Ledger.md": MANY + "- [ ] Call Mum [nudge_hours:: 18-21]\n"})
    night = v.tick(datetime(2026, 8, 9, 23)).as_dict()
    assert set(night) == {"schema", "now", "nudge", "silent_because", "theta", "open",
                          "candidates"}
    assert (night["silent_because"], night["theta"], night["open"]) == ("quiet hours", 1.0, 7)
    assert len(night["candidates"]) == 3
    for c in night["candidates"]:
        assert set(c) == {"id", "kind", "text", "value", "terms", "armed", "held"}
        assert set(c["terms"]) == {"base", "urgency", "context", "hours", "cue", "novelty",
                                   "fatigue", "day_fatigue"}
        assert c["value"] >= THETA and c["held"] == "quiet hours"
    quiet = nudge_vault({"Ledger.md": "- [ ] Call Mum [nudge_hours:: 18-21]\n"})
    doc = quiet.tick(datetime(2026, 8, 10, 12)).as_dict()
    assert doc["silent_because"] == "nothing above threshold"
    (mum,) = doc["candidates"]
    assert mum["held"] == f"below θ by {THETA - mum['value']:.2f}"


def test_nudge_verbose_prints_each_candidates_sum_and_rule(nudge_vault, capsys):
    from vaultmem.interfaces import render

    v = nudge_vault({"Ledger.md": ONE})
    render.nudge(v.tick(datetime(2026, 8, 9, 23)), as_json=False, verbose=True)
    out, err = capsys.readouterr()
    assert out == ""
    head, line = err.splitlines()
    assert head == "silent: quiet hours (1 open item(s), θ = 1.00)"
    assert line.startswith("  c-pay-plumber  V ") and "= base 1.00 + urgency" in line
    assert line.endswith("[quiet hours]")


# -- `nudge --context`, end to end with the real model ---------------------------------------


@pytest.mark.integration
def test_a_trigger_entry_nudges_only_with_a_matching_context(tmp_path, capsys):
    from vaultmem.interfaces.cli import main

    root = tmp_path / "vault"
    root.mkdir()
    (root / "Plumber.md").write_text("# Plumber\nTomasz fixes the valve.\n")
    (root / "Ledger.md").write_text("- [ ] When I'm at the hardware shop, buy picture hooks "
                                    "^hooks\n- [ ] Pay the plumber 📅 2026-09-30 [[Plumber]]\n")
    assert main(["index", str(root), "--now", "2026-08-01", "--json"]) == 0
    capsys.readouterr()

    def nudge(now: datetime, *context: str) -> dict:
        code = main(["nudge", "--vault", str(root), "--now", now.isoformat(), "--json",
                     *(("--context", *context) if context else ())])
        out, err = capsys.readouterr()
        assert code == 0, err
        return json.loads(out)

    day = every(datetime(2026, 8, 10, 7), datetime(2026, 8, 10, 22), HOUR)
    assert [nudge(t)["nudge"] for t in day] == [None] * 15
    for elsewhere in ("Reading a novel in the library", "Cooking pasta for dinner at home"):
        assert nudge(datetime(2026, 8, 11, 10), elsewhere)["nudge"] is None
    cue = "Walking into the hardware shop on Mill Road"
    doc = nudge(datetime(2026, 8, 11, 10, 15), cue)
    assert doc["nudge"]["id"] == "hooks" and doc["nudge"]["terms"]["cue"] > 0
    assert doc["nudge"]["why"].startswith("trigger matched")
    # The cue is `due`'s own verdict on the same context.
    assert main(["due", "--vault", str(root), "--now", "2026-08-11T10:15", "--context", cue,
                 "--json"]) == 0
    due = json.loads(capsys.readouterr()[0])
    assert [(r["id"], r["group"]) for r in due["results"] if r["group"] == "triggered"] == \
        [("hooks", "triggered")]


# -- whose hours, and which moment: rules read from the entry itself --------------------------
# 2026-08-14 is a Friday, 2026-08-15 a Saturday.

def test_hours_not_stated_are_working_hours_for_work_and_lunch_and_evening_for_the_rest(
        nudge_vault):
    v = nudge_vault({
        "work/Sprint.md": "# Sprint\n",
        "Ledger.md": "- [ ] Review the rate-limiter PR 📅 2026-08-14 #work ^pr\n"
                     "- [ ] Write the release notes 📅 2026-08-14 [[Sprint]] ^notes\n"
                     "- [ ] Order the wedding present 📅 2026-08-14 ^gift\n"
                     "- [ ] Submit the expenses 📅 2026-08-15 #work ^expenses\n"})
    assert (v.item("pr").work, v.item("notes").work, v.item("gift").work) == (True, True, False)
    own = nudge_vault({"Ledger.md": "- [ ] Post the parcel [nudge_personal_hours:: 17-19]\n"})
    assert load_items(own.store)[0].params.personal_hours == "17-19"
    friday = v.replay(datetime(2026, 8, 14, 7), datetime(2026, 8, 14, 22), answer="accept")
    assert friday == [(datetime(2026, 8, 14, 10, 0), "pr"),
                      (datetime(2026, 8, 14, 10, 15), "notes"),
                      (datetime(2026, 8, 14, 13, 0), "gift"),
                      (datetime(2026, 8, 14, 17, 30), "expenses")]  # the heads-up, at work
    saturday = v.replay(datetime(2026, 8, 15, 7), datetime(2026, 8, 15, 22), answer="accept")
    assert "expenses" not in [i for _, i in saturday]  # work waits for a working day
    sat = next(c for c in v.tick(datetime(2026, 8, 15, 10)).candidates if c.id == "expenses")
    assert sat.terms.hours == 0.0
    stated = replace(v.item("expenses"), params=replace(v.item("expenses").params, hours="9-18"))
    assert hours_boost(stated, datetime(2026, 8, 15, 12)) == 0.0  # stated hours: still a weekday
    assert hours_boost(stated, datetime(2026, 8, 14, 12)) > 0.0


def test_a_call_or_an_email_goes_in_office_hours_unless_its_hours_are_stated(nudge_vault):
    v = nudge_vault({"Ledger.md":
                     "- [ ] Ring the van hire to confirm the slot 📅 2026-08-14 ^van\n"
                     "- [ ] Email the landlord my new address 📅 2026-08-14 ^landlord\n"
                     "- [ ] Call Mum about Sunday 📅 2026-08-14 [nudge_hours:: 18-21] ^mum\n"})
    assert [v.item(i).call for i in ("van", "landlord", "mum")] == [True, True, True]
    shown = v.replay(datetime(2026, 8, 14, 7), datetime(2026, 8, 14, 22), answer="dismiss")
    assert shown == [(datetime(2026, 8, 14, 10, 0), "van"),
                     (datetime(2026, 8, 14, 10, 15), "landlord"),
                     (datetime(2026, 8, 14, 19, 0), "mum")]
    saturday = v.replay(datetime(2026, 8, 15, 7), datetime(2026, 8, 16, 22), answer="dismiss")
    assert not {i for _, i in saturday} & {"van", "landlord"}  # the weekend: offices are shut
    evening = datetime(2026, 8, 15, 19, 30)  # ... Mum is not (overdue, in her hours)
    assert hours_boost(v.item("mum"), evening) > 0.0
    assert hours_boost(v.item("van"), evening.replace(hour=10)) == 0.0


def test_an_appointment_written_weeks_ahead_is_reminded_the_evening_before_and_that_morning(
        make_vault):
    v = NudgeVault(make_vault({
        "Ledger.md": "- [ ] Smear test at the surgery, 11:20 📅 2026-09-10 ^smear\n"
                     "- [ ] Renew the library books 📅 2026-09-10 ^books\n"},
        index_at=datetime(2026, 8, 5)))
    assert (v.item("smear").at, v.item("smear").bound) == (time(11, 20), "at")
    shown = v.replay(datetime(2026, 9, 8, 7), datetime(2026, 9, 12), answer="dismiss")
    smear = [t for t, i in shown if i == "smear"]
    assert smear[0] == datetime(2026, 9, 9, 20, 45)  # the evening before, in its own hours
    assert all(t < datetime(2026, 9, 10, 10, 50) for t in smear)  # never once it is too late
    books = [t for t, i in shown if i == "books"]
    assert books[0] == datetime(2026, 9, 9, 21, 0)  # a dated commitment's heads-up (SPEC 8)
    assert any(t.date() == date(2026, 9, 10) for t in books)  # and on the day


def test_an_errand_past_its_day_is_wanted_first_thing_not_at_lunch_or_in_the_evening():
    due, written = date(2026, 8, 7), datetime(2026, 8, 1, 9)
    errand = dated(due, written)
    p = KIND_DEFAULTS["dated"]
    assert errand.hours(due) == p.personal_hours  # on its day: its kind's hours
    assert errand.hours(date(2026, 8, 10)) == p.overdue_hours == "08-11"  # past it: mornings
    monday = datetime(2026, 8, 10)
    assert hours_boost(errand, monday.replace(hour=9, minute=30)) == pytest.approx(p.context)
    assert hours_boost(errand, monday.replace(hour=12, minute=45)) == 0.0
    assert hours_boost(errand, monday.replace(hour=20, minute=45)) == 0.0
    # Hours of its own win, and work keeps working hours.
    own = dated(due, written, replace(p, hours="20-22"), stated_hours=True)
    assert own.hours(date(2026, 8, 10)) == "20-22"
    work = dated(due, written, work=True)
    assert work.hours(date(2026, 8, 10)) == p.work_hours
    # An override per item, as for the other hours.
    late = dated(due, written, replace(p, overdue_hours="07-09"))
    assert late.hours(date(2026, 8, 10)) == "07-09"


def test_an_idea_speaks_on_the_day_its_text_names_or_not_at_all_without_its_own_hours(
        nudge_vault):
    v = nudge_vault({
        "Move day.md": "---\ntype: plan\ncreated: 2026-08-01\n---\n# Move day (Fri 14 Aug)\n"
                       "- 07:30 meter readings\n- 09:00 the van\n",
        "Server.md": "---\ntype: idea\ncreated: 2026-08-01\n---\n# Home server\nMaybe over "
                     "the summer.\n",
        "Cafe.md": "---\ntype: idea\ncreated: 2026-08-01\nnudge_hours: 12-14\n---\n# Café\n"
                   "Try the new café.\n"})
    move, server, cafe = v.item("p-move-day"), v.item("p-server"), v.item("p-cafe")
    assert (move.due, move.at) == (date(2026, 8, 14), time(7, 30))
    assert (server.due, server.silent != "", cafe.silent) == (None, True, "")
    shown = v.replay(datetime(2026, 8, 12, 7), datetime(2026, 8, 15), answer="dismiss")
    assert "p-server" not in [i for _, i in shown]
    assert (datetime(2026, 8, 13, 20, 45), "p-move-day") in shown  # the evening before
    held = next(c for c in v.tick(datetime(2026, 8, 13, 12, 45)).candidates
                if c.id == "p-server")
    assert held.held == "no moment of its own (no date in its text)"


def test_lunch_is_from_half_past_twelve_and_its_boost_from_one():
    # The lunch hour a person's own errands wait for: 12:30-14:00, its first third (getting
    # to lunch) settling, so the boost counts from 13:00; the evening is unchanged.
    errand = dated(date(2026, 8, 14), datetime(2026, 8, 7, 9))
    assert KIND_DEFAULTS["dated"].personal_hours == "12:30-14,20-22"
    day = datetime(2026, 8, 14)
    assert hours_boost(errand, day.replace(hour=12, minute=45)) == 0.0
    assert hours_boost(errand, day.replace(hour=13)) == pytest.approx(errand.params.context)
    assert hours_boost(errand, day.replace(hour=20, minute=30)) == 0.0
    assert hours_boost(errand, day.replace(hour=20, minute=45)) == pytest.approx(
        errand.params.context)


def test_the_morning_for_late_errands_is_set_per_item(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] Post the parcel 📅 2026-08-01 "
                                  "[nudge_overdue_hours:: 07-09]\n"})
    item = load_items(v.store)[0]
    assert item.params.overdue_hours == "07-09"
    assert item.hours(date(2026, 8, 3)) == "07-09"
    assert not item.stated_hours  # its hours of the day are still its kind's


def test_hours_per_item_that_are_no_hours_are_left_at_the_kinds(nudge_vault):
    # "mornings" is no range of hours: the item keeps its kind's, as a value that is no
    # number does, and the tick goes on. (Failed before: ValueError from the tick.)
    v = nudge_vault({"Ledger.md": "- [ ] Post the parcel 📅 2026-08-01 "
                                  "[nudge_overdue_hours:: mornings] ^parcel\n"
                                  "- [ ] Buy stamps 📅 2026-08-05 [nudge_hours:: 7pm] ^stamps\n"})
    parcel, stamps = sorted(load_items(v.store), key=lambda i: i.id)
    assert parcel.params.overdue_hours == KIND_DEFAULTS["dated"].overdue_hours
    assert (stamps.params.hours, stamps.stated_hours) == ("", False)
    assert v.tick(datetime(2026, 8, 3, 9, 30)).nudge.item.id == "parcel"


def _index_warnings(root, capsys, now: str, ledger: str) -> list[str]:
    """`vaultmem index` of a vault holding only `ledger`: the warning lines it printed."""
    from vaultmem.interfaces.cli import main

    root.mkdir()
    (root / "Ledger.md").write_text(ledger)
    assert main(["index", str(root), "--now", now]) == 0
    return [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("warning:")]


@pytest.mark.integration
def test_a_nudge_field_with_a_bad_value_warns_once_at_index_with_file_and_line(tmp_path,
                                                                                capsys):
    # Failed before: such a field was ignored without a word.
    from vaultmem.interfaces.cli import main

    root = tmp_path / "vault"
    assert _index_warnings(root, capsys, "2026-07-30",
        "# Errands\n"
        "- [ ] Post the parcel 📅 2026-08-01 [nudge_overdue_hours:: mornings] ^parcel\n"
        "- [ ] Buy stamps 📅 2026-08-05 [nudge_importance:: high] [nudge_hour:: 9-10]\n"
        "- [ ] Ring the vet [nudge_hours:: 17-19] [nudge_importance:: 0.7]\n") == [
        "warning: Ledger.md:2: [nudge_overdue_hours:: mornings] is not hour ranges, so it is "
        "ignored: write them like [nudge_overdue_hours:: 08-11]",
        "warning: Ledger.md:3: [nudge_importance:: high] is not a number, so it is ignored: "
        "write one like [nudge_importance:: 0.5]",
        "warning: Ledger.md:3: [nudge_hour:: 9-10] is no nudge setting: did you mean "
        "[nudge_hours:: …]?"]
    # Once: an unchanged ledger is not read again, and says nothing more.
    assert main(["index", str(root), "--now", "2026-07-31"]) == 0
    assert "warning:" not in capsys.readouterr().err
    # The run goes on: the entries are there, with their kind's values where the field was bad.
    assert main(["nudge", "--vault", str(root), "--now", "2026-08-03T09:30", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nudge"]["id"] == "parcel"


@pytest.mark.integration
def test_a_nudge_field_no_length_of_time_warns_and_the_tick_goes_on(tmp_path, capsys):
    # Failed before: a zero period (or fatigue, decay or novelty span), or a span too long
    # for a date, was taken as a number without a word, and every `nudge` after it stopped
    # on a ZeroDivisionError or an OverflowError, for every item of the vault.
    from vaultmem.interfaces.cli import main

    root = tmp_path / "vault"
    assert _index_warnings(root, capsys, "2026-08-01",
        "- [ ] Call Mum [nudge_hours:: 18-21] [nudge_period_days:: 0] ^mum\n"
        "- [ ] Post the parcel 📅 2026-08-03 [nudge_hold_hours:: 1e15] "
        "[nudge_fatigue_hours:: -1] ^parcel\n") == [
        "warning: Ledger.md:1: [nudge_period_days:: 0] is no length of time it can use, so "
        "it is ignored: write one above 0 like [nudge_period_days:: 2]",
        "warning: Ledger.md:2: [nudge_hold_hours:: 1e15] is no length of time it can use, "
        "so it is ignored: write one like [nudge_hold_hours:: 2]",
        "warning: Ledger.md:2: [nudge_fatigue_hours:: -1] is no length of time it can use, "
        "so it is ignored: write one above 0 like [nudge_fatigue_hours:: 6]"]
    for now in ("2026-08-02T19:00", "2026-08-03T09:30"):
        assert main(["nudge", "--vault", str(root), "--now", now, "--json"]) == 0
        capsys.readouterr()


@pytest.mark.integration
def test_a_nudge_key_in_front_matter_with_a_bad_value_warns_with_file_and_line(tmp_path,
                                                                               capsys):
    # Failed before: a plan note's `nudge_hours: mornings` was ignored without a word
    # (only ledger lines were checked).
    from vaultmem.interfaces.cli import main

    root = tmp_path / "vault"
    root.mkdir()
    (root / "Trip.md").write_text("---\ntype: plan\ncreated: 2026-08-01\n"
                                  "nudge_hours: mornings\nnudge_importnce: 0.9\n"
                                  "nudge_importance: 0.8\n---\n# Trip\nBook the ferry.\n")
    assert main(["index", str(root), "--now", "2026-08-02"]) == 0
    assert [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("warning:")] == [
        "warning: Trip.md:4: `nudge_hours: mornings` is not hour ranges, so it is ignored: "
        "write them like `nudge_hours: 12-13,18-21`",
        "warning: Trip.md:5: `nudge_importnce: 0.9` is no nudge setting: did you mean "
        "`nudge_importance: …`?"]
    # A note whose nudge keys are all good says nothing.
    (root / "Trip.md").write_text("---\ntype: plan\ncreated: 2026-08-01\n"
                                  "nudge_importance: 0.8\n---\n# Trip\nBook the ferry.\n")
    assert main(["index", str(root), "--now", "2026-08-02"]) == 0
    assert "warning:" not in capsys.readouterr().err


# -- the day's dismissals: a person turned down today hears only what clears θ well ---------

JUST_OVER = ("- [ ] Water the plants [nudge_hours:: 9-12] [nudge_importance:: 0.42] "
             "[nudge_amplitude:: 0] ^plants\n"
             "- [ ] Sort the loft [nudge_hours:: 20-21] ^loft\n")


def _dismissed(v, item_id: str, *moments: datetime) -> None:
    for stamp in moments:
        nudge_rows.surfaced(v.store, item_id, stamp.isoformat(), 1.2, "Sort the loft")
        record_feedback(v.store, item_id, "dismiss", stamp)


def test_each_dismissal_today_adds_day_fatigue_to_every_item():
    p = KIND_DEFAULTS["dated"]
    item = Item("x", "dated", "Pay the plumber", T - 3 * DAY, p, due=T.date())
    fresh = terms(item, T, [], [])
    tired = terms(item, T, [], [], day_dismissals=2)
    assert tired.fatigue - fresh.fatigue == pytest.approx(2 * p.day_fatigue)
    assert tired.value == pytest.approx(fresh.value - 2 * p.day_fatigue)


def test_a_reminder_just_over_theta_waits_after_a_dismissal_today_not_after_yesterdays(
        nudge_vault):
    ten = datetime(2026, 8, 10, 10, 0)
    calm = nudge_vault({"Ledger.md": JUST_OVER})
    assert calm.tick(ten).nudge.item.id == "plants"  # 0.42 + 0.6 = 1.02: over θ
    turned_down = nudge_vault({"Ledger.md": JUST_OVER})
    _dismissed(turned_down, "loft", datetime(2026, 8, 10, 8, 0))  # another item, today
    quiet = turned_down.tick(ten)
    assert quiet.nudge is None
    plants = next(c for c in quiet.candidates if c.id == "plants")
    assert plants.held.startswith("fatigue") and plants.terms.fatigue == pytest.approx(0.05)
    yesterday = nudge_vault({"Ledger.md": JUST_OVER})
    _dismissed(yesterday, "loft", datetime(2026, 8, 9, 20, 30))  # the day's count restarts
    assert yesterday.tick(ten).nudge.item.id == "plants"


def test_the_days_dismissals_leave_a_due_day_reminder_its_moment(nudge_vault):
    v = nudge_vault({"Ledger.md": "- [ ] Pay the plumber 📅 2026-08-10 [nudge_hours:: 9-12] "
                                  "^pay\n" + JUST_OVER})
    _dismissed(v, "loft", *(datetime(2026, 8, 10, 7, 15 * n) for n in range(3)))
    assert v.tick(datetime(2026, 8, 10, 10, 0)).nudge.item.id == "pay"  # 1.5 − 0.15


# -- second reading of round 6: snoozes, a new due date, the day's count, the explanation --

VAT = "- [ ] File the VAT return 📅 2026-08-07 [[Plumber]] ^vat\n"


def test_an_overdue_reminder_snoozed_for_a_day_comes_back_the_next_morning(nudge_vault):
    # A snooze asks for the reminder later: the nudge it answered weighs as any nudge
    # does, not for a week like an overdue reminder that was let be or turned down.
    v = nudge_vault({"Ledger.md": VAT})
    assert v.tick(datetime(2026, 8, 10, 9, 0)).nudge.item.id == "vat"
    record_feedback(v.store, "vat", "snooze", datetime(2026, 8, 10, 9, 5), snooze=DAY)
    times = [t for t, _ in v.replay(datetime(2026, 8, 10, 9, 15), datetime(2026, 8, 12))]
    assert times and times[0].date() == date(2026, 8, 11)
    # ... and the reminder after the snooze spaces the next one by the week again.
    later = [t for t, _ in v.replay(datetime(2026, 8, 12), datetime(2026, 8, 16))]
    assert later == []


def test_a_rescheduled_entrys_earlier_reminders_carry_no_overdue_fatigue_to_its_new_date():
    # Moved from the 3rd to the 7th: the reminders about the 3rd ("overdue since 08-03")
    # are not the one unchanged message the new date repeats; they fade as any nudge does.
    p = KIND_DEFAULTS["dated"]
    item = Item("vat", "dated", "File the VAT return", datetime(2026, 7, 1), p,
                due=date(2026, 8, 7))
    old = datetime(2026, 8, 5, 9, 0)  # before the new date's lead (the 6th, ~16:30)
    now = datetime(2026, 8, 8, 9, 30)
    assert terms(item, now, [old], []).fatigue == pytest.approx(fatigue(p, [old], [], now))
    # The new date's own reminders (its eve, its day) weigh for the week.
    eve = datetime(2026, 8, 6, 20, 30)
    assert terms(item, now, [eve], []).fatigue == pytest.approx(
        fatigue(p, [eve], [], now, overdue=True))


def test_a_nudge_dismissed_twice_counts_once_among_the_days_dismissals(nudge_vault):
    v = nudge_vault({"Ledger.md": JUST_OVER})
    _dismissed(v, "loft", datetime(2026, 8, 10, 8, 0))
    record_feedback(v.store, "loft", "dismiss", datetime(2026, 8, 10, 8, 5))  # same nudge
    plants = next(c for c in v.tick(datetime(2026, 8, 10, 10)).candidates if c.id == "plants")
    assert plants.terms.fatigue == pytest.approx(0.05)


def test_the_candidates_name_the_days_dismissals_and_an_overdue_reminders_week(nudge_vault,
                                                                               capsys):
    from vaultmem.interfaces import render
    v = nudge_vault({"Ledger.md": JUST_OVER})
    _dismissed(v, "loft", datetime(2026, 8, 10, 8, 0))
    result = v.tick(datetime(2026, 8, 10, 10))
    plants = next(c for c in result.as_dict()["candidates"] if c["id"] == "plants")
    assert plants["terms"]["day_fatigue"] == pytest.approx(0.05)
    assert plants["held"].startswith("fatigue by 0.03") and "1 other nudge dismissed today" \
        in plants["held"]
    render.nudge(result, as_json=False, verbose=True)
    assert "dismissed today 0.05" in capsys.readouterr().err
    overdue = nudge_vault({"Ledger.md": VAT})
    assert overdue.tick(datetime(2026, 8, 10, 9)).nudge is not None
    (vat,) = overdue.tick(datetime(2026, 8, 12, 9, 30)).candidates
    assert vat.held.startswith("fatigue by") and \
        "overdue: reminded 2026-08-10 09:00, which weighs for a week" in vat.held


def test_a_yes_or_no_in_front_matter_is_no_number_for_a_nudge_setting():
    from vaultmem.nudge import _override, field_problems, front_matter_field
    idea = KIND_DEFAULTS["idea"]
    assert _override(idea, {"nudge_importance": True})[0].importance == idea.importance
    (problem,) = field_problems({"nudge_importance": True}, front_matter_field)
    assert "is not a number, so it is ignored" in problem[1]


def test_an_accepted_overdue_reminder_comes_back_a_week_on_while_the_entry_is_open(
        nudge_vault):
    # Failed before: an overdue entry whose reminder was accepted ("yes, thanks") but never
    # checked off was held as "accepted in this window" for good: its window never ends.
    v = nudge_vault({"Ledger.md": "- [ ] Return the library books 📅 2026-08-10 "
                                  "[nudge_hours:: 18-21] ^books\n"})
    shown = v.replay(datetime(2026, 8, 10, 7), datetime(2026, 8, 24), answer="accept")
    assert shown and shown[0][0].date() <= date(2026, 8, 11)
    later = [t for t, _ in shown[1:]]
    assert later, "the open overdue entry was never reminded again"
    assert later[0] - shown[0][0] >= timedelta(days=7)
    assert all(in_hours("18:00-21:00", t) for t in later)


@pytest.mark.integration
def test_the_days_dismissals_and_an_overdue_week_through_the_cli(tmp_path, capsys):
    # End to end on the real model: `nudge`, `feedback` and `nudge --json` name what holds
    # an item back: another item's dismissal today (day_fatigue), and an overdue
    # reminder's week (the turned-down VAT reminder of Monday still weighs on Wednesday).
    from vaultmem.interfaces.cli import main

    root = tmp_path / "vault"
    root.mkdir()
    (root / "Ledger.md").write_text("- [ ] File the VAT return 📅 2026-08-07 ^vat\n"
                                    "- [ ] Ring the vet about Biscuit [nudge_hours:: 18-20] "
                                    "^vet\n")
    assert main(["index", str(root), "--now", "2026-08-06"]) == 0

    def tick(now: str) -> dict:
        capsys.readouterr()
        assert main(["nudge", "--vault", str(root), "--now", now, "--json", "-v"]) == 0
        return json.loads(capsys.readouterr().out)

    assert tick("2026-08-10T09:00")["nudge"]["id"] == "vat"
    assert main(["feedback", "vat", "dismiss", "--vault", str(root),
                 "--now", "2026-08-10T09:05"]) == 0
    vet = next(c for c in tick("2026-08-10T09:30")["candidates"] if c["id"] == "vet")
    assert vet["terms"]["day_fatigue"] == pytest.approx(0.05)
    vat = next(c for c in tick("2026-08-12T09:30")["candidates"] if c["id"] == "vat")
    assert vat["terms"]["day_fatigue"] == 0  # Monday's dismissal is not today's
    assert vat["held"].startswith("fatigue by") and "weighs for a week" in vat["held"]
