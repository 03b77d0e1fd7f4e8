"""A task line as the Obsidian Tasks plugin reads and writes it, so that vaultmem's edits
of a ledger line (`ledger done`, `cancel`, `move`) are the lines Tasks itself writes.

Pure, and a port of Tasks' own code (obsidian-tasks, `src/TaskSerializer/
DefaultTaskSerializer.ts`, `DataviewTaskSerializer.ts`, `src/Task/Task.ts`
`handleNewStatus`, `src/Task/Recurrence.ts`, `src/Task/Occurrence.ts`), with its
default settings (done and cancelled dates set, no created date on a new occurrence,
the next occurrence written above the done one):

* Tasks reads its fields only from the end of the line: priority, dates, 🔁, 🏁, 🆔,
  ⛔ and trailing tags, in any order, until something else stands there. Whatever is
  left is the description, kept as written (a date before a link is description text
  to Tasks, though vaultmem's ledger reads it).
* It writes the description (trailing tags put back at its end), then the fields in
  one order: 🆔 ⛔ priority 🔁 🏁 ➕ 🛫 ⏳ 📅 ❌ ✅, then the block link.
* Checking off a recurring task writes the next occurrence (its dates moved by the
  rule, relative to the due date, else scheduled, else start; `when done`: relative to
  the done day), without block link, id, dependencies or created date, above it.

Tasks also has a Dataview format (`[due:: 2026-08-15]`); a line using it is written
back in it. Recurrence rules are RRule's English; `next_reference` reads the ones in
common use and says which it cannot.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

_VS16 = "\ufe0f?"
_DATE = r"(\d{4}-\d{2}-\d{2})"
_TASK_ID = r"[a-zA-Z0-9-_]+"
_TASK_IDS = _TASK_ID + r"( *, *" + _TASK_ID + r" *)*"
_TAG_FROM_END = re.compile(r"(^|\s)#[^ !@#$%^&*(),.?\":{}|<>]+\Z")
_BLOCK_LINK = re.compile(r" \^[a-zA-Z0-9-]+\Z")
_TASK_LINE = re.compile(r"^([\s\t>]*)([-*+]|[0-9]+[.)]) +\[(.)\] *(.*)\Z", re.DOTALL)

PRIORITY = {"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}
_PRIORITY_EMOJI = {name: emoji for emoji, name in PRIORITY.items()}
DATE_FIELDS = ("created", "start", "scheduled", "due", "cancelled", "done")


def _emoji(symbols: str, value: str = "") -> re.Pattern:
    return re.compile(symbols + _VS16 + (" *" + value if value else "") + r"\Z")


def _inline(inner: str) -> re.Pattern:
    """Tasks' `toInlineFieldRegex`: `[inner]` or `(inner)`, at the end of the line."""
    return re.compile(r"(?:(?=[^\]]+\])\[|(?=[^)]+\))\() *" + inner + r" *[)\]](?: *,)?\Z")


_EMOJI_READ = {
    "priority": _emoji("(🔺|⏫|🔼|🔽|⏬)"),
    "done": _emoji("✅", _DATE), "cancelled": _emoji("❌", _DATE),
    "due": _emoji("(?:📅|📆|🗓)", _DATE), "scheduled": _emoji("(?:⏳|⌛)", _DATE),
    "start": _emoji("🛫", _DATE), "created": _emoji("➕", _DATE),
    "recurrence": _emoji("🔁", "([a-zA-Z0-9, !]+)"),
    "on_completion": _emoji("🏁", "([a-zA-Z]+)"),
    "id": _emoji("🆔", f"({_TASK_ID})"), "depends_on": _emoji("⛔", f"({_TASK_IDS})"),
}
_DATAVIEW_READ = {
    "priority": _inline("priority:: *(highest|high|medium|low|lowest)"),
    "done": _inline(f"completion:: *{_DATE}"), "cancelled": _inline(f"cancelled:: *{_DATE}"),
    "due": _inline(f"due:: *{_DATE}"), "scheduled": _inline(f"scheduled:: *{_DATE}"),
    "start": _inline(f"start:: *{_DATE}"), "created": _inline(f"created:: *{_DATE}"),
    "recurrence": _inline("repeat:: *([a-zA-Z0-9, !]+)"),
    "on_completion": _inline("onCompletion:: *([a-zA-Z]+)"),
    "id": _inline(f"id:: *({_TASK_ID})"), "depends_on": _inline(f"dependsOn:: *({_TASK_IDS})"),
}
# Tasks' parse loop: one pass tries each field at the end of the line, in this order.
_READ_ORDER = ("priority", "done", "cancelled", "due", "scheduled", "start", "created",
               "recurrence", "on_completion", "tags", "id", "depends_on")
_EMOJI_WRITE = {"created": "➕", "start": "🛫", "scheduled": "⏳", "due": "📅",
                "cancelled": "❌", "done": "✅"}
_DATAVIEW_WRITE = {"created": "created::", "start": "start::", "scheduled": "scheduled::",
                   "due": "due::", "cancelled": "cancelled::", "done": "completion::"}
_DATAVIEW_HINT = re.compile(r"[\[(] *(?:due|scheduled|start|created|completion|cancelled|"
                            r"repeat|priority)::")
_EMOJI_HINT = re.compile("[📅📆🗓⏳⌛🛫➕✅❌🔁🔺⏫🔼🔽⏬]")


@dataclass(frozen=True)
class Task:
    """One task line as Tasks holds it."""

    indent: str
    marker: str
    status: str  # the checkbox character
    description: str
    block_link: str = ""  # " ^id", as Tasks keeps it
    priority: str | None = None  # highest … lowest
    recurrence: str | None = None
    on_completion: str | None = None
    created: date | None = None
    start: date | None = None
    scheduled: date | None = None
    due: date | None = None
    cancelled: date | None = None
    done: date | None = None
    id: str | None = None
    depends_on: tuple[str, ...] = ()
    dataview: bool = False  # written in Tasks' Dataview format

    @property
    def reference(self) -> date | None:
        """The date a recurrence moves from: due, else scheduled, else start."""
        return self.due or self.scheduled or self.start


class BadDate(ValueError):
    """A date field Tasks would read holds no real day (2026-02-30)."""


def uses_dataview(body: str) -> bool:
    """Whether a line is written in Tasks' Dataview format: its Tasks fields are
    `[key:: value]` and it has no Tasks emoji."""
    return bool(_DATAVIEW_HINT.search(body)) and not _EMOJI_HINT.search(body)


def read(line: str) -> Task | None:
    """A task line as Tasks reads it (None: not a task line). Raises BadDate for a date
    field that is not a real day: Tasks would write it back as "Invalid date"."""
    match = _TASK_LINE.match(line)
    if match is None:
        return None
    indent, marker, status, body = match.groups()
    body = body.strip()
    link = _BLOCK_LINK.search(body)
    block = link.group(0) if link else ""
    if link:
        body = body[:link.start()].strip()
    dataview = uses_dataview(body)
    fields, description = _read_fields(body, _DATAVIEW_READ if dataview else _EMOJI_READ)
    return Task(indent, marker, status, description, block, dataview=dataview, **fields)


def _read_fields(line: str, patterns: dict) -> tuple[dict, str]:
    """Tasks' `deserialize`: fields taken from the end, in any order, until none is left
    there (at most 21 passes, as Tasks does); trailing tags go back to the description."""
    fields: dict = {}
    tags = ""
    for _ in range(21):
        matched = False
        for name in _READ_ORDER:
            pattern = _TAG_FROM_END if name == "tags" else patterns[name]
            found = pattern.search(line)
            if found is None:
                continue
            matched = True
            line = (line[:found.start()] + line[found.end():]).strip()
            if name == "tags":
                tag = found.group(0).strip()
                tags = f"{tag} {tags}" if tags else tag
            else:
                fields[name] = _value(name, found.group(1))
        if not matched:
            break
    if tags:
        line += (" " if line else "") + tags
    return fields, line


def _value(name: str, text: str):
    if name in DATE_FIELDS:
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise BadDate(f"{text} is not a day") from None
    if name == "priority":
        return PRIORITY.get(text, text)
    if name == "depends_on":
        return tuple(x for x in text.replace(" ", "").split(",") if x)
    return text.strip()


def write(task: Task) -> str:
    """Tasks' `toFileLineString`: the line it writes for `task`."""
    parts = [_field(task, "id", task.id), _field(task, "dependsOn", ",".join(task.depends_on))]
    if task.priority:
        parts.append(_field(task, "priority", task.priority))
    parts += [_field(task, "repeat", task.recurrence),
              _field(task, "onCompletion", task.on_completion)]
    parts += [_date_field(task, name) for name in DATE_FIELDS]
    return (f"{task.indent}{task.marker} [{task.status}] {task.description}"
            f"{''.join(parts)}{task.block_link}")


def _field(task: Task, key: str, value: str | None) -> str:
    if not value:
        return ""
    if task.dataview:  # two spaces before each field, as Tasks writes them
        return f"  [{key}:: {value}]"
    if key == "priority":
        return f" {_PRIORITY_EMOJI[value]}"
    emoji = {"id": "🆔", "dependsOn": "⛔", "repeat": "🔁", "onCompletion": "🏁"}[key]
    return f" {emoji} {value}"


def _date_field(task: Task, name: str) -> str:
    day = getattr(task, name)
    if day is None:
        return ""
    if task.dataview:
        return f"  [{_DATAVIEW_WRITE[name]} {day.isoformat()}]"
    return f" {_EMOJI_WRITE[name]} {day.isoformat()}"


# -- status changes -----------------------------------------------------------------


def complete(task: Task, on: date) -> list[Task]:
    """Tasks' `handleNewStatus` to done: the done task, and before it the next occurrence
    when it recurs (raises UnknownRule for a rule `Rule` cannot read)."""
    done = checked_off(task, on)
    if not task.recurrence:
        return [done]
    rule = Rule.read(task.recurrence)
    nxt = replace(done, status=" ", block_link="", id=None, depends_on=(), created=None,
                  done=None, **next_dates(task, rule, on))
    return [nxt, done]


def checked_off(task: Task, on: date) -> Task:
    """The task marked done on `on`, as Tasks writes it (its rule in RRule's words)."""
    return replace(task, status="x", done=on, cancelled=None,
                   recurrence=_rule_text(task.recurrence))


def cancel(task: Task, on: date) -> Task:
    """Tasks' `handleNewStatus` to cancelled: the cancelled date set, no next occurrence."""
    return replace(task, status="-", cancelled=on, done=None,
                   recurrence=_rule_text(task.recurrence))


def reschedule(task: Task, due: date) -> Task:
    """The task with another due date (as Tasks' edit dialog writes it)."""
    return replace(task, due=due, recurrence=_rule_text(task.recurrence))


def _rule_text(text: str | None) -> str | None:
    """A rule as Tasks writes it back (RRule's wording), or as written when not read."""
    if not text:
        return text
    try:
        return Rule.read(text).text
    except UnknownRule:
        return text


def next_dates(task: Task, rule: Rule, on: date) -> dict:
    """Tasks' `Occurrence.next`: each date kept at its distance from the reference date,
    the reference moved by the rule (from the done day for `when done`)."""
    reference = task.reference
    if reference is None:
        return {}
    moved = rule.after(on if rule.when_done else reference)
    return {name: moved + (getattr(task, name) - reference)
            for name in ("start", "scheduled", "due") if getattr(task, name) is not None}


class UnknownRule(ValueError):
    """A recurrence rule vaultmem cannot advance."""


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RULE = re.compile(
    r"every(?: (?P<n>\d+))? (?P<unit>day|week|month|year)s?"
    r"(?: on (?P<days>[a-z]+(?:(?:, | and |, and )[a-z]+)*))?"
    r"|every (?P<weekday>weekday)|every (?P<named>[a-z]+)")


@dataclass(frozen=True)
class Rule:
    """A recurrence rule as RRule reads the common forms: every [N] days, weeks, months
    or years; every weekday; every week on Monday (and other days); every Monday."""

    unit: str  # day | week | month | year
    n: int = 1
    weekdays: tuple[int, ...] = ()
    when_done: bool = False

    @classmethod
    def read(cls, text: str) -> Rule:
        words = " ".join(text.lower().split())
        when_done = words.endswith(" when done")
        words = words.removesuffix(" when done")
        m = _RULE.fullmatch(words)
        if m is None or (m["named"] and m["named"] not in WEEKDAYS):
            raise UnknownRule(text)
        if m["weekday"]:
            return cls("week", 1, (0, 1, 2, 3, 4), when_done)
        if m["named"]:
            return cls("week", 1, (WEEKDAYS.index(m["named"]),), when_done)
        days = tuple(sorted(WEEKDAYS.index(d) for d in re.split(r", and |, | and ", m["days"])
                            if d in WEEKDAYS)) if m["days"] else ()
        n = int(m["n"] or 1)
        if m["days"] and (m["unit"] != "week" or n != 1 or not days
                          or len(days) != len(re.split(r", and |, | and ", m["days"]))):
            raise UnknownRule(text)
        if n < 1:
            raise UnknownRule(text)
        return cls(m["unit"], n, days, when_done)

    @property
    def text(self) -> str:
        """The rule in RRule's words (`toText`), which Tasks writes back."""
        if self.weekdays == (0, 1, 2, 3, 4):
            words = "every weekday"
        elif self.weekdays:
            words = "every week on " + ", ".join(WEEKDAYS[d].title() for d in self.weekdays)
        else:
            words = f"every {self.n} {self.unit}s" if self.n > 1 else f"every {self.unit}"
        return words + (" when done" if self.when_done else "")

    def after(self, day: date) -> date:
        """The first occurrence after `day`, counted from `day` (RRule with `dtstart` on
        it; months and years that lack the day fall back to their last day, as Tasks'
        `nextAfterMonths` and `nextAfterYears` do)."""
        if self.weekdays:
            return next(day + timedelta(days=k) for k in range(1, 8)
                        if (day + timedelta(days=k)).weekday() in self.weekdays)
        if self.unit == "day":
            return day + timedelta(days=self.n)
        if self.unit == "week":
            return day + timedelta(weeks=self.n)
        months = self.n * (12 if self.unit == "year" else 1)
        year, month = divmod(day.month - 1 + months, 12)
        year += day.year
        last = calendar.monthrange(year, month + 1)[1]
        return date(year, month + 1, min(day.day, last))
