"""Proactive nudges (SPEC 8): a value per open item, a Schmitt trigger, and silence.

    V_i(t) = I_i·D_i(t) + U_i(t) + C_i(t) + N_i(t) − F_i(t)
    D_i(t) = e^(−τ/decay) · max(0, 1 + A·sin(2π·τ/period + φ)),   τ = t − created

U: deadline urgency that ramps up before the deadline and fades after it;
C: a boost inside the item's preferred hours; N: a novelty spike near creation;
F: fatigue, a decaying sum over recent surfacings (dismissals weigh more).

An item fires when it is armed and V ≥ θ, and re-arms only after V < θ − h, so a
value hovering around θ cannot chatter. Quiet hours raise θ beyond reach; at most
one message per tick and `daily_cap` per day. Arming state, surfacings and
feedback live in the store. Silence is a first-class answer.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import date, datetime, time, timedelta

from . import clock
from .config import Settings
from .errors import UsageError
from .ledger import PRIORITY_FACTOR
from .schema import SCHEMA
from .store import Store

THETA = 1.0
HYSTERESIS = 0.25
DEADLINE_HOUR = 17  # a due date means "by the end of that working day"


@dataclass(frozen=True)
class Params:
    """Dynamics of one item; defaults by kind, overridable per item (`nudge_<name>`).

    Scale: θ = 1. An item alone (I·D ≈ I) stays below it; it takes the preferred
    hours (C) plus an approaching deadline (U) or a revival crest of D to cross.
    """

    importance: float = 0.5
    decay_days: float = 14.0
    amplitude: float = 0.3
    period_days: float = 3.0
    phase: float = 0.0
    hours: str = "09-12,14-18"
    context: float = 0.35
    urgency: float = 0.6
    ramp_days: float = 1.5
    fade_days: float = 1.0
    novelty: float = 0.1
    novelty_days: float = 0.5
    fatigue: float = 0.6
    fatigue_hours: float = 8.0
    dismiss: float = 1.0


KIND_DEFAULTS: dict[str, Params] = {
    "dated": Params(),
    "conditional": Params(importance=0.45, decay_days=21, amplitude=0.4, period_days=4,
                          urgency=0.0),
    "plan": Params(importance=0.5, decay_days=30, amplitude=0.5, period_days=3, urgency=0.0),
    "idea": Params(importance=0.45, decay_days=30, amplitude=0.6, period_days=3, urgency=0.0),
    "question": Params(importance=0.45, decay_days=30, amplitude=0.5, period_days=3,
                       urgency=0.0),
    "decision": Params(importance=0.35, decay_days=10, amplitude=0.3, urgency=0.0),
    "insight": Params(importance=0.3, decay_days=10, amplitude=0.3, urgency=0.0),
}


@dataclass
class Item:
    id: str
    kind: str
    text: str
    created: datetime
    deadline: datetime | None
    params: Params
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Terms:
    base: float  # I·D
    urgency: float
    context: float
    novelty: float
    fatigue: float

    @property
    def value(self) -> float:
        return self.base + self.urgency + self.context + self.novelty - self.fatigue


# -- the value function (pure) ------------------------------------------------------

def envelope(p: Params, tau_days: float, oscillation: bool = True) -> float:
    """D(τ): exponential decay modulated by a slow sinusoid, floored at zero."""
    wave = p.amplitude * math.sin(2 * math.pi * tau_days / p.period_days + p.phase)
    return math.exp(-tau_days / p.decay_days) * max(0.0, 1.0 + (wave if oscillation else 0.0))


def urgency(p: Params, deadline: datetime | None, t: datetime) -> float:
    """Ramps from 0 to `urgency` over `ramp_days` before the deadline, fades after it."""
    if deadline is None or p.urgency <= 0:
        return 0.0
    left = (deadline - t) / timedelta(days=1)
    if left >= p.ramp_days:
        return 0.0
    if left >= 0:
        return p.urgency * (1.0 - left / p.ramp_days)
    return p.urgency * math.exp(left / p.fade_days)


def in_hours(spec: str, t: datetime) -> bool:
    """'09-12,14-18' (or '22:00-07:00'): is t inside one of the ranges? Wraps midnight."""
    minute = t.hour * 60 + t.minute
    for part in filter(None, (s.strip() for s in spec.split(","))):
        start, _, end = part.partition("-")
        a, b = _minutes(start), _minutes(end)
        if (a <= minute < b) if a <= b else (minute >= a or minute < b):
            return True
    return False


def _minutes(text: str) -> int:
    hh, _, mm = text.strip().partition(":")
    return int(hh) * 60 + int(mm or 0)


def fatigue(p: Params, surfaced: list[datetime], dismissed: list[datetime],
            t: datetime) -> float:
    """Decaying sum over recent surfacings; a dismissal weighs `dismiss` on top."""
    def decayed(moments, weight):
        return sum(weight * math.exp(-((t - m) / timedelta(hours=1)) / p.fatigue_hours)
                   for m in moments if m <= t)
    return decayed(surfaced, p.fatigue) + decayed(dismissed, p.dismiss)


def terms(item: Item, t: datetime, surfaced: list[datetime], dismissed: list[datetime],
          oscillation: bool = True) -> Terms:
    p = item.params
    tau = max((t - item.created) / timedelta(days=1), 0.0)
    return Terms(
        base=p.importance * envelope(p, tau, oscillation),
        urgency=urgency(p, item.deadline, t),
        context=p.context if in_hours(p.hours, t) else 0.0,
        novelty=p.novelty * math.exp(-tau / p.novelty_days),
        fatigue=fatigue(p, surfaced, dismissed, t),
    )


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
    items = []
    for row in store.execute(
            "SELECT e.id, e.action, e.condition, e.due, e.first_seen, e.fields, e.entry "
            "FROM entries e WHERE e.present = 1 AND e.status = 'open'"):
        entry_id, action, condition, due, first_seen, extra, raw = row
        created_on = json.loads(raw).get("created")
        created = _moment(created_on) if created_on else _moment(first_seen)
        kind = "dated" if due else "conditional"
        deadline = datetime.combine(date.fromisoformat(due), time(DEADLINE_HOUR)) if due else None
        extra = json.loads(extra or "{}")
        params = _override(_prioritised(KIND_DEFAULTS[kind], extra.get("priority")), extra)
        items.append(Item(entry_id, kind, action + (f" (when {condition})" if condition else ""),
                          created, deadline, params, _entry_notes(store, entry_id)))
    for row in store.execute(
            "SELECT p.id, p.kind, p.text, p.created, n.frontmatter, p.level, n.path "
            "FROM prospective p JOIN notes n ON n.id = p.note_id "
            "WHERE p.present = 1 AND p.status IN ('open', 'referenced') AND n.deleted = 0"):
        item_id, kind, text, created, fm, level, path = row
        overrides = json.loads(fm or "{}") if level == "note" else {}
        items.append(Item(item_id, kind, text, _moment(created), None,
                          _override(KIND_DEFAULTS.get(kind, Params()), overrides), [path]))
    return items


def _prioritised(base: Params, priority) -> Params:
    """A Tasks priority scales the entry's importance (`ledger.PRIORITY_FACTOR`)."""
    factor = PRIORITY_FACTOR.get(str(priority or "normal").strip().lower(), 1.0)
    return replace(base, importance=base.importance * factor)


def _entry_notes(store: Store, entry_id: str) -> list[str]:
    return [r[0] for r in store.execute(
        "SELECT n.path FROM entry_links l JOIN notes n ON n.id = l.target_id "
        "WHERE l.entry_id = ? ORDER BY l.ord", [entry_id])]


def _moment(value: str | None) -> datetime:
    return clock.moment(value) or datetime.min


def _override(base: Params, values: dict) -> Params:
    """Per-item parameters: `nudge_<name>` in front matter or a ledger field."""
    known = {f.name: f.type for f in fields(Params)}
    changes = {}
    for key, raw in values.items():
        name = str(key).lower().removeprefix("nudge_").removeprefix("nudge ")
        if str(key).lower().startswith("nudge") and name in known:
            try:
                changes[name] = str(raw) if name == "hours" else float(raw)
            except (TypeError, ValueError):
                continue
    return replace(base, **changes)


# -- one tick ------------------------------------------------------------------------------

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
    candidates: int
    values: dict[str, float]

    def as_dict(self) -> dict:
        """The `nudge --json` document: the message, or null and why it stayed silent."""
        n = self.nudge
        return {"schema": SCHEMA, "now": self.now.isoformat(timespec="seconds"),
                "nudge": None if n is None else {
                    "id": n.item.id, "kind": n.item.kind, "text": n.item.text, "why": n.why,
                    "value": round(n.value, 4), "notes": n.item.notes,
                    "terms": asdict(n.terms)},
                "silent_because": None if n else self.reason,
                "candidates": self.candidates}


def tick(store: Store, settings: Settings, now: datetime, oscillation: bool = True,
         record: bool = True) -> TickResult:
    """Compute every value, update the hysteresis state, emit at most one nudge.
    `record` False: a dry run that stores nothing (no surfacing, no state)."""
    now = clock.local_naive(now)
    items = load_items(store)
    state = {r[0]: (bool(r[1]), r[2]) for r in store.execute(
        "SELECT item_id, armed, muted_until FROM nudge_state")}
    history = _history(store, now)
    quiet = in_hours(settings.quiet_hours, now)
    firing, values, updates = [], {}, []
    for item in items:
        armed, muted_until = state.get(item.id, (True, None))
        surfaced, dismissed = history.get(item.id, ([], []))
        t = terms(item, now, surfaced, dismissed, oscillation)
        values[item.id] = round(t.value, 4)
        if muted_until and _moment(muted_until) > now:
            continue
        fires, armed_after = schmitt(armed, t.value, THETA, HYSTERESIS)
        if fires and quiet:  # quiet hours raise θ out of reach; they do not re-arm anything
            fires, armed_after = False, armed
        if fires:
            firing.append((t.value, item, t))
        else:
            updates.append((item.id, armed_after, t.value))
    for value, item, _ in firing:
        updates.append((item.id, True, value))  # stays armed unless it is the one emitted
    today = _sent_today(store, now)
    nudge, reason = None, "quiet hours" if quiet else "nothing above threshold"
    if firing and today >= settings.daily_cap:
        reason = f"daily cap of {settings.daily_cap} reached"
    elif firing:
        value, item, t = max(firing, key=lambda f: (f[0], f[1].id))
        nudge = Nudge(item, value, t, explain(t, item, now))
        updates.append((item.id, False, value))
        reason = "nudged"
    if record:
        _save(store, now, updates, nudge)
    return TickResult(now, nudge, reason, len(items), values)


def explain(t: Terms, item: Item, now: datetime) -> str:
    parts = []
    if t.urgency > 0.05 and item.deadline:
        hours = (item.deadline - now) / timedelta(hours=1)
        parts.append(f"due in {hours:.0f} h" if hours >= 0 else f"overdue by {-hours:.0f} h")
    if t.novelty > 0.05:
        parts.append("new")
    if t.context > 0:
        parts.append("a good time for it")
    if t.base > 0.5 * item.params.importance and not parts:
        parts.append("has been waiting and still matters")
    return ", ".join(parts) or "value above threshold"


def _history(store: Store, now: datetime) -> dict[str, tuple[list, list]]:
    since = (now - timedelta(days=3)).isoformat(timespec="seconds")
    out: dict[str, tuple[list, list]] = {}
    for item_id, ts in store.execute("SELECT item_id, ts FROM surfacings WHERE ts >= ?",
                                     [since]):
        out.setdefault(item_id, ([], []))[0].append(_moment(ts))
    for item_id, ts in store.execute(
            "SELECT item_id, ts FROM feedback WHERE kind = 'dismiss' AND ts >= ?", [since]):
        out.setdefault(item_id, ([], []))[1].append(_moment(ts))
    return out


def _sent_today(store: Store, now: datetime) -> int:
    start = datetime.combine(now.date(), time()).isoformat(timespec="seconds")
    end = (datetime.combine(now.date(), time()) + timedelta(days=1)).isoformat(timespec="seconds")
    return store.execute("SELECT count(*) FROM surfacings WHERE ts >= ? AND ts < ?",
                         [start, end]).fetchone()[0]


def _save(store: Store, now: datetime, updates, nudge: Nudge | None) -> None:
    stamp = now.isoformat(timespec="seconds")
    with store.atomic():
        store.executemany(
            "INSERT INTO nudge_state (item_id, armed, value, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(item_id) DO UPDATE SET armed = excluded.armed, value = excluded.value, "
            "updated_at = excluded.updated_at",
            [(i, int(a), float(v), stamp) for i, a, v in updates])
        if nudge:
            message = f"{nudge.item.text} — {nudge.why}"
            nudge.surfacing_id = store.insert(
                "surfacings", {"item_id": nudge.item.id, "ts": stamp, "value": nudge.value,
                               "message": message})
            # A nudge mentions its notes: it feeds their ACT-R activation (SPEC 4).
            for path in nudge.item.notes:
                row = store.execute("SELECT id FROM notes WHERE path = ?", [path]).fetchone()
                if row:
                    store.add_op(stamp, "surfaced", row[0], None, {"item": nudge.item.id})


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
    row = store.execute("SELECT id FROM surfacings WHERE item_id = ? ORDER BY id DESC LIMIT 1",
                        [item_id]).fetchone()
    if row is None:
        return None
    stamp = now.isoformat(timespec="seconds")
    until = ((now + (snooze or DEFAULT_SNOOZE)).isoformat(timespec="seconds")
             if kind == "snooze" else None)
    with store.atomic():
        store.insert("feedback", {"surfacing_id": row[0], "item_id": item_id, "ts": stamp,
                                  "kind": kind, "until": until})
        if until:
            store.execute(
                # A snooze re-arms: once it ends, a still-pressing item may speak again.
                "INSERT INTO nudge_state (item_id, armed, muted_until, updated_at) "
                "VALUES (?, 1, ?, ?) ON CONFLICT(item_id) DO UPDATE SET armed = 1, "
                "muted_until = excluded.muted_until, updated_at = excluded.updated_at",
                [item_id, until, stamp])
    return Feedback(item_id, row[0], kind, until)
