"""Rewriting one commitment's line in its ledger: `ledger done`, `cancel` and `move`.

Each rewrites exactly the entry's line (a recurring entry checked off: that line and
the next occurrence written above it) as Obsidian Tasks would (`tasks_format`), through
the ledger's one write (`ledger_append.safe_write`: the real path inside the vault, a
`mkstemp` file beside it, the whole new ledger read back and checked, refused when the
file changed since it was read). Before anything is written, the new line is read back by
the ledger's own reader and must say what was meant (the same commitment, its new
status or date), and every other entry of the ledger must read as before.

Tasks reads its fields only at the end of a line; vaultmem's ledger reads them anywhere
(`📅 2026-08-15 [[Plumber]]`). Where Tasks would not see the date or the recurrence
that vaultmem reads, the date is changed where it is written instead.
Nothing here touches the store: the caller indexes the ledger afterwards, which
records the typed revision (done, cancelled, rescheduled, occurrence-done).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from . import tasks_format as tf
from .errors import VaultmemError
from .ledger import LedgerEntry, parse_ledger, parse_task_line
from .ledger_append import LedgerFile, read_ledger, safe_write

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_EMOJI = {"due": "📅|📆|🗓", "scheduled": "⏳", "start": "🛫"}


@dataclass
class Edit:
    """The lines written: the entry's own (`line`, `text`; after a recurring check-off,
    its next occurrence), what it was, and the done occurrence kept beside it."""

    ledger: str
    line: int
    text: str
    was: str
    occurrence: tuple[int, str] | None = None  # (line, text) of the done occurrence


def complete(vault: Path, rel: str, line: int, raw: str, on: date) -> Edit:
    """Check the entry off on `on` (`✅`); a recurring one gets its next occurrence."""
    return _edit(vault, rel, line, raw, lambda old: _completed(old, raw, on))


def cancel(vault: Path, rel: str, line: int, raw: str, on: date) -> Edit:
    """Cancel the entry on `on` (`❌`); a recurring one does not recur."""
    def make(old: LedgerEntry) -> list[str]:
        new = tf.write(tf.cancel(_task(raw), on))
        _expect(new, old, status="cancelled", cancelled_on=on, done_on=None)
        return [new]
    return _edit(vault, rel, line, raw, make)


def reschedule(vault: Path, rel: str, line: int, raw: str, due: date) -> Edit:
    """Give the entry the due date `due` (`📅`, or its `[due:: ]` field)."""
    def make(old: LedgerEntry) -> list[str]:
        task = _task(raw)
        if old.due is None or task.due == old.due:
            new = tf.write(tf.reschedule(task, due))
        else:  # a due date Tasks does not read there: change it where it is written
            new = _in_place(raw, old, {"due": due})
        _expect(new, old, due=due)
        return [new]
    return _edit(vault, rel, line, raw, make)


# -- the new lines --------------------------------------------------------------------


def _task(raw: str) -> tf.Task:
    try:
        task = tf.read(raw)
    except tf.BadDate as exc:
        raise VaultmemError(f"a date on the line is not a real day ({exc}): fix it in "
                            "the ledger first") from None
    if task is None:
        raise VaultmemError(f"not a task line: {raw!r}")
    return task


def _completed(old: LedgerEntry, raw: str, on: date) -> list[str]:
    """The done line, and before it the next occurrence of a recurring entry."""
    task = _task(raw)
    if task.on_completion and task.on_completion.lower() == "delete":
        raise VaultmemError("the entry says 🏁 delete: Tasks would delete its line, and "
                            "vaultmem never deletes a ledger line; check it off in Obsidian")
    done = tf.write(tf.checked_off(task, on))
    _expect(done, old, status="done", done_on=on, cancelled_on=None)
    if not old.fields.get("recurrence"):
        return [done]
    return [_next_occurrence(old, raw, task, on), done]


def _next_occurrence(old: LedgerEntry, raw: str, task: tf.Task, on: date) -> str:
    """The open line Tasks writes above a recurring entry checked off: exactly its line
    where Tasks reads the rule and the dates the ledger reads; else the entry's own line
    with its dates moved where they are written and its block id left to the done one."""
    rule_text = old.fields["recurrence"]
    rule = _rule(rule_text)
    as_read = replace(task, start=old.start, scheduled=old.scheduled, due=old.due)
    dates = tf.next_dates(as_read, rule, on)
    if _words(task.recurrence) == _words(rule_text) and as_read == task:
        nxt = tf.write(tf.complete(task, on)[0])
        cleared = {"created": None, "fields": _without(old.fields, "id", "dependson")}
    else:
        nxt = _in_place(_without_block_id(raw, old), old, dates)
        cleared = {}
    _expect(nxt, old, status="open", block_id=None, done_on=None, cancelled_on=None,
            **{**cleared, **{k: dates.get(k) for k in ("start", "scheduled", "due")}})
    return nxt


def _rule(text: str) -> tf.Rule:
    try:
        return tf.Rule.read(text)
    except tf.UnknownRule:
        raise VaultmemError(
            f"vaultmem cannot work out the next occurrence of '🔁 {text}' (it reads every N "
            "days, weeks, months or years, every weekday, every week on a day, and "
            "'when done'): check it off in Obsidian, where Tasks writes the next one") from None


def _words(text: str | None) -> str:
    return " ".join((text or "").split())


def _without(fields: dict, *keys: str) -> dict:
    return {k: v for k, v in fields.items() if k not in keys}


def _without_block_id(raw: str, old: LedgerEntry) -> str:
    if not old.block_id:
        return raw
    return re.sub(rf"\s*\^{re.escape(old.block_id)}\s*\Z", "", raw)


def _in_place(raw: str, old: LedgerEntry, dates: dict[str, date]) -> str:
    """`raw` with each date of `dates` changed where the ledger reads it: the first
    `[name:: …]` field, else the first emoji date of that name that reads back so."""
    line = raw
    for name, day in dates.items():
        for spot in _date_spots(line, name):
            trial = line[:spot.start()] + day.isoformat() + line[spot.end():]
            entry = parse_task_line(trial)
            if entry is not None and getattr(entry, name) == day:
                line = trial
                break
        else:
            raise VaultmemError(f"cannot find the {name} date on the line to change it: "
                                f"{raw!r}")
    return line


def _date_spots(line: str, name: str) -> list[re.Match]:
    """Where a `name` date is written, in the order the ledger's reader prefers them
    (Dataview fields before emoji); each match spans the date itself."""
    fields = re.finditer(rf"(?<=[\[(])\s*{name}\s*::\s*(?=\d{{4}}-\d\d-\d\d)", line)
    emoji = re.finditer(rf"(?:{_EMOJI[name]})\ufe0f?[ \t]*(?=\d{{4}}-\d\d-\d\d)", line)
    spots = []
    for found in (*fields, *emoji):
        spot = re.compile(r"\d{4}-\d\d-\d\d").match(line, found.end())
        if spot:
            spots.append(spot)
    return spots


def _expect(line: str, old: LedgerEntry, **changes) -> None:
    """Refuse unless `line` reads back as `old` with `changes` (the same action, links,
    trigger, project and tags; the recurrence in either wording)."""
    new = parse_task_line(line)
    want = replace(old, raw=line, **changes)
    if new is None or _key(new) != _key(want):
        raise VaultmemError(f"the rewritten line would not read back as the same "
                            f"commitment: {line!r}; nothing written (edit it in Obsidian)")


def _key(entry: LedgerEntry) -> tuple:
    fields = dict(entry.fields)
    if "recurrence" in fields:
        fields["recurrence"] = tf._rule_text(fields["recurrence"]).lower()
    return (entry.status, entry.action, entry.condition, entry.keywords, entry.due,
            entry.scheduled, entry.start, entry.created, entry.done_on, entry.cancelled_on,
            entry.links, entry.project, tuple(sorted(entry.tags)), entry.block_id,
            sorted(fields.items()))


# -- the file -------------------------------------------------------------------------


def _edit(vault: Path, rel: str, number: int, raw: str,
          make: Callable[[LedgerEntry], list[str]]) -> Edit:
    """Replace line `number` (found again by its text if lines moved) with `make`'s lines
    (the entry's own line last), check the whole ledger, and write it."""
    ledger = _read(vault, rel)
    text = ledger.before.decode("utf-8")  # a byte order mark kept as it is
    lines = _LINES.findall(text)
    at = _find(lines, number, raw, rel)
    old = parse_task_line(raw)
    if old is None:
        raise VaultmemError(f"{rel}:{number} is not a task line: nothing written")
    new = make(old)
    ending = re.search(r"(\r\n|\r|\n)\Z", lines[at])
    newline = ending.group(1) if ending else _newline(text)
    body = [f"{ln}{newline}" for ln in new[:-1]] + [new[-1] + (ending.group(1) if ending else "")]
    bom = "\ufeff" if at == 0 and lines[0].startswith("\ufeff") else ""
    after = "".join([*lines[:at], bom + body[0], *body[1:], *lines[at + 1:]])
    _check_rest(text, after, at + 1, len(new), rel)
    safe_write(ledger, after.encode("utf-8"), replaced={at + 1}, added=new)
    if len(new) == 1:
        return Edit(rel, at + 1, new[0], raw)
    return Edit(rel, at + 1, new[0], raw, occurrence=(at + 2, new[1]))


# The ledger's one read and one write (ledger_append): the only calls into it.

def _read(vault: Path, rel: str) -> LedgerFile:
    """The ledger as read for a write, refused where `ledger add` would refuse it (outside
    the vault, not UTF-8, holding a NUL); a ledger that is gone is refused here too."""
    ledger = read_ledger(vault, rel)
    if ledger.before is None:
        raise VaultmemError(f"{rel} is gone from the vault: nothing written")
    return ledger


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _find(lines: list[str], number: int, raw: str, rel: str) -> int:
    """The index of the entry's line: at `number`, else the one line holding `raw`."""
    def bare(i: int) -> str:
        return lines[i].rstrip("\r\n").removeprefix("\ufeff" if i == 0 else "")
    if 0 < number <= len(lines) and bare(number - 1) == raw:
        return number - 1
    same = [i for i in range(len(lines)) if bare(i) == raw]
    if len(same) == 1:
        return same[0]
    raise VaultmemError(f"{rel}:{number}: the entry's line changed on disk since the ledger "
                        "was indexed: nothing written; try again")


def _check_rest(before: str, after: str, line: int, count: int, rel: str) -> None:
    """Every entry but the rewritten one reads as it did (same text and meaning; lines
    below it move down by one when a next occurrence was inserted)."""
    old, _ = parse_ledger(before)
    new, _ = parse_ledger(after)
    shift = count - 1
    kept_old = [replace(e, line=e.line + (shift if e.line > line else 0))
                for e in old if e.line != line]
    kept_new = [e for e in new if not line <= e.line < line + count]
    if kept_old != kept_new or len(new) != len(old) + shift:
        raise VaultmemError(f"rewriting that line would change how other lines of {rel} "
                            "read: nothing written (edit it in Obsidian)")
