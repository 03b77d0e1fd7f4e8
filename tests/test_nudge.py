"""Nudges (SPEC 8): the value function with hand-computed numbers, the Schmitt trigger,
then whole ticks through the store: quiet hours, one message per tick, the daily
cap, persisted arming state, feedback and per-item parameter overrides."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date, datetime, timedelta

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
    in_hours,
    load_items,
    record_feedback,
    schmitt,
    terms,
    urgency,
)

T = datetime(2026, 8, 10, 10, 0)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


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
    assert envelope(replace(WAVE, amplitude=2.0), 3.0, oscillation=False) == \
        pytest.approx(math.exp(-0.3))


# -- urgency: 0 before the ramp, linear to the peak at the deadline, fades after -----------

RAMP = Params(urgency=0.8, ramp_days=2.0, fade_days=1.0)
DEADLINE = datetime(2026, 8, 15, 17, 0)


@pytest.mark.parametrize(("before_deadline", "expected"), [
    (timedelta(days=5), 0.0),
    (timedelta(days=2), 0.0),                 # the ramp starts here, at zero
    (timedelta(days=1.5), 0.8 * 0.25),
    (timedelta(days=1), 0.4),
    (timedelta(hours=12), 0.6),
    (timedelta(0), 0.8),                      # the peak
    (-timedelta(days=1), 0.8 * math.exp(-1)),  # fading after the deadline
    (-timedelta(days=2), 0.8 * math.exp(-2)),
    (-timedelta(hours=6), 0.8 * math.exp(-0.25)),
])
def test_urgency_ramps_to_the_deadline_and_fades_after(before_deadline, expected):
    assert urgency(RAMP, DEADLINE, DEADLINE - before_deadline) == pytest.approx(expected)


def test_urgency_is_zero_without_a_deadline_or_without_an_urgency_weight():
    assert urgency(RAMP, None, DEADLINE) == 0.0
    assert urgency(replace(RAMP, urgency=0.0), DEADLINE, DEADLINE) == 0.0


def test_urgency_peaks_at_the_deadline():
    moments = [DEADLINE + timedelta(hours=h) for h in range(-72, 73, 3)]
    values = [urgency(RAMP, DEADLINE, t) for t in moments]
    assert max(values) == values[moments.index(DEADLINE)] == 0.8


# -- in_hours -----------------------------------------------------------------------------


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


# -- fatigue: a decayed sum over surfacings, dismissals weigh `dismiss` ----------------------

TIRED = Params(fatigue=0.6, fatigue_hours=8.0, dismiss=1.0)


def test_fatigue_is_a_decayed_sum_over_surfacings():
    surfaced = [T - 8 * HOUR, T - 16 * HOUR]
    assert fatigue(TIRED, surfaced, [], T) == pytest.approx(0.6 * (math.exp(-1) + math.exp(-2)))


def test_fatigue_counts_a_surfacing_at_now_in_full():
    assert fatigue(TIRED, [T], [], T) == pytest.approx(0.6)


def test_a_dismissal_weighs_dismiss_on_top_of_its_surfacing():
    got = fatigue(TIRED, [T - 4 * HOUR], [T - 4 * HOUR], T)
    assert got == pytest.approx((0.6 + 1.0) * math.exp(-0.5))
    heavy = replace(TIRED, dismiss=2.5)
    assert fatigue(heavy, [], [T - 8 * HOUR], T) == pytest.approx(2.5 * math.exp(-1))


def test_fatigue_ignores_events_after_now():
    assert fatigue(TIRED, [T + HOUR], [T + 2 * HOUR], T) == 0.0
    assert fatigue(TIRED, [T + HOUR, T - 8 * HOUR], [T + HOUR], T) == \
        pytest.approx(0.6 * math.exp(-1))


def test_no_events_no_fatigue():
    assert fatigue(TIRED, [], [], T) == 0.0


# -- terms: V = I·D + U + C + N − F --------------------------------------------------------


def test_terms_on_a_hand_built_item():
    p = Params(importance=0.7, decay_days=10.0, amplitude=0.5, period_days=4.0, phase=0.0,
               hours="09-12", context=0.2, urgency=0.8, ramp_days=2.0, fade_days=1.0,
               novelty=0.25, novelty_days=0.5, fatigue=0.6, fatigue_hours=8.0, dismiss=1.0)
    item = Item("c-x", "dated", "Do the thing", created=T - DAY, deadline=T + DAY, params=p)
    got = terms(item, T, surfaced=[T - 8 * HOUR], dismissed=[T - 8 * HOUR])
    # τ = 1 day: D = e^(−0.1)·(1 + 0.5·sin(π/2)) = 1.5·e^(−0.1)
    assert got.base == pytest.approx(0.7 * 1.5 * math.exp(-0.1))
    assert got.urgency == pytest.approx(0.4)  # one day left of a two-day ramp
    assert got.context == pytest.approx(0.2)  # 10:00 is inside 09-12
    assert got.novelty == pytest.approx(0.25 * math.exp(-2))  # τ / novelty_days = 2
    assert got.fatigue == pytest.approx(1.6 * math.exp(-1))
    expected = 0.7 * 1.5 * math.exp(-0.1) + 0.4 + 0.2 + 0.25 * math.exp(-2) - 1.6 * math.exp(-1)
    assert got.value == pytest.approx(expected)


def test_terms_outside_preferred_hours_and_without_oscillation():
    p = Params(importance=0.5, decay_days=10.0, amplitude=0.5, period_days=4.0,
               hours="14-18", urgency=0.0, novelty=0.0)
    item = Item("p-y", "idea", "An idea", created=T - DAY, deadline=None, params=p)
    got = terms(item, T, [], [], oscillation=False)
    assert (got.urgency, got.context, got.novelty, got.fatigue) == (0.0, 0.0, 0.0, 0.0)
    assert got.value == pytest.approx(0.5 * math.exp(-0.1))


def test_terms_before_creation_clamp_tau_to_zero():
    p = Params(importance=0.5, amplitude=0.5, hours="", novelty=0.25)
    item = Item("p-z", "idea", "Later", created=T + DAY, deadline=None, params=p)
    got = terms(item, T, [], [])
    assert got.base == pytest.approx(0.5)  # τ = 0: e^0 · (1 + 0.5·sin 0)
    assert got.novelty == pytest.approx(0.25)


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
    v = nudge_vault({"Ledger.md": f"- [ ] Pay the plumber 📅 2026-08-10 [[Plumber]] {URGENT}\n"})
    assert v.tick(datetime(2026, 8, 10, 9)).nudge is not None
    # A week after the deadline the urgency has faded and the value is low.
    low = v.tick(datetime(2026, 8, 17, 9))
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
    assert answer.as_dict() == {"schema": 1, "item": "c-pay-plumber",
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
    dismiss_term = item.params.dismiss * math.exp(-1.5 / item.params.fatigue_hours)
    got = v.tick(t).values["c-pay-plumber"]
    assert got == pytest.approx(undismissed - dismiss_term, abs=1e-4)
    assert got == pytest.approx(undismissed - 1.0 * math.exp(-1.5 / 8), abs=1e-4)


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
    tau = (t - INDEXED) / DAY
    assert got.base == pytest.approx(0.9 * envelope(KIND_DEFAULTS["dated"], tau))
    plain = terms(v.item("c-renew-passport"), t, [], [])
    assert got.base == pytest.approx(plain.base * 0.9 / KIND_DEFAULTS["dated"].importance)
    assert v.tick(t).values["c-pay-plumber"] == round(got.value, 4)


def test_front_matter_nudge_hours_on_a_plan_note(nudge_vault):
    v = nudge_vault({
        "Trip.md": "---\ntype: plan\ncreated: 2026-08-01\nnudge_hours: 07-09\n---\n# Trip\n",
        "Garden.md": "---\ntype: plan\ncreated: 2026-08-01\n---\n# Garden\n",
    })
    trip, garden = v.item("p-trip"), v.item("p-garden")
    assert trip.params == replace(KIND_DEFAULTS["plan"], hours="07-09")
    assert garden.params == KIND_DEFAULTS["plan"]
    early, late = datetime(2026, 8, 3, 8), datetime(2026, 8, 3, 10)
    boost = KIND_DEFAULTS["plan"].context
    assert terms(trip, early, [], []).context == pytest.approx(boost)
    assert terms(trip, late, [], []).context == 0.0
    assert terms(garden, early, [], []).context == 0.0
    assert terms(garden, late, [], []).context == pytest.approx(boost)
    # Same kind, same creation: at 08:00 they differ by the context boost alone.
    values = v.tick(early).values
    assert values["p-trip"] - values["p-garden"] == pytest.approx(boost, abs=2e-4)
    values = v.tick(late).values
    assert values["p-garden"] - values["p-trip"] == pytest.approx(boost, abs=2e-4)


@pytest.mark.parametrize("mark, factor", [
    ("🔺", 1.5), ("⏫", 1.25), ("🔼", 1.1), ("", 1.0), ("🔽", 0.8), ("⏬", 0.6),
    ("[priority:: high]", 1.25)])
def test_a_tasks_priority_scales_the_entrys_importance(nudge_vault, mark, factor):
    v = nudge_vault({"Ledger.md": f"- [ ] Pay the plumber 📅 2026-08-10 {mark} [[Plumber]]\n"})
    assert v.item("c-pay-plumber").params.importance == pytest.approx(0.5 * factor)


def test_an_explicit_nudge_importance_wins_over_the_priority(nudge_vault):
    v = nudge_vault({
        "Ledger.md": "- [ ] Pay the plumber ⏫ [nudge_importance:: 0.9] [[Plumber]]\n"})
    assert v.item("c-pay-plumber").params.importance == 0.9
