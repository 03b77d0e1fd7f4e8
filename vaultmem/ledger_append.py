"""Appending one commitment to a ledger note: in the ledger's own syntax, atomically.

`vaultmem ledger add` (and `ledger accept`, and the MCP `add_commitment` tool) never
rewrite the ledger: the new file is the old bytes plus one line, written to a temporary
file beside it, fsynced and renamed over it — and only if the ledger did not change on
disk meanwhile. Nothing here touches the store: the next index reads the new line like
any hand-written one.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from .errors import UsageError, VaultmemError
from .ledger import LedgerEntry, new_id, parse_ledger
from .schema import SCHEMA

_BLOCK_IDS = re.compile(r"\^([A-Za-z0-9-]+)")
_FORBIDDEN = re.compile(r"[\r\n\[\]]")
NEW_LEDGER = b"# Ledger\n\n"


@dataclass
class Added:
    """What `ledger add` wrote: the new entry's id, where, the line itself and the dates
    it holds; `unresolved`: the links that name no note yet; `indexed`: whether the store
    was brought in step with it (False: another run was writing the store)."""

    id: str
    ledger: str
    line: int
    text: str
    due: str | None = None
    start: str | None = None
    scheduled: str | None = None
    unresolved: list[str] = field(default_factory=list)
    indexed: bool = False

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "id": self.id, "ledger": self.ledger, "line": self.line,
                "text": self.text, "due": self.due, "start": self.start,
                "scheduled": self.scheduled, "unresolved": self.unresolved,
                "indexed": self.indexed}


def compose(action: str, *, due: date | None = None, when: str | None = None,
            links: tuple[str, ...] = (), project: str | None = None,
            block_id: str | None = None, start: date | None = None,
            scheduled: date | None = None, keywords: tuple[str, ...] = ()) -> str:
    """One task line in the Obsidian Tasks / Dataview syntax the ledger reads, its dates
    last as Tasks writes them (Tasks reads its fields from the end of a line only):

        - [ ] Pay the plumber [when:: the invoice comes] [[Plumber]] 📅 2026-08-15 ^c-pay

    `start` (Tasks' `🛫`) and `scheduled` (`⏳`) open the firing window before the due date.
    """
    action = " ".join(action.split())
    if not action:
        raise UsageError("say what the commitment is: the text is empty")
    parts = ["- [ ]", action]
    if when is not None:
        parts.append(f"[when:: {_field_value('when', when)}]")
    if keywords:
        words = [_field_value("keywords", w) for w in keywords]
        if any("," in w for w in words):
            raise UsageError("`keywords`: give each keyword on its own, without commas")
        parts.append(f"[keywords:: {', '.join(words)}]")
    parts += [f"[[{_link(link)}]]" for link in links]
    if project is not None:
        parts.append(f"[project:: {_field_value('project', project)}]")
    for emoji, day in (("🛫", start), ("⏳", scheduled), ("📅", due)):
        if day is not None:
            parts.append(f"{emoji} {day.isoformat()}")
    if block_id:
        parts.append(f"^{block_id}")
    return " ".join(parts)


def _field_value(param: str, value: str) -> str:
    value = " ".join(value.split())
    if not value or _FORBIDDEN.search(value):
        raise UsageError(f"`{param}` {value!r}: give a non-empty text without brackets")
    return value


def _link(name: str) -> str:
    name = name.strip().removeprefix("[[").removesuffix("]]").strip()
    if not name or _FORBIDDEN.search(name):
        raise UsageError(f"`links` {name!r}: give a note name or path, e.g. Plumber")
    return name


def add(vault: Path, ledger_rel: str, action: str, *, due: date | None = None,
        when: str | None = None, links: tuple[str, ...] = (), project: str | None = None,
        taken: set[str] = frozenset(), start: date | None = None,
        scheduled: date | None = None, keywords: tuple[str, ...] = ()) -> Added:
    """Append a new open commitment to the ledger note `ledger_rel` (created if missing).

    `taken`: ids already in use (the store's entries); block ids written in the ledger
    are avoided too. Raises UsageError for text that would not read back as exactly one
    entry, VaultmemError when the ledger cannot be written or changed meanwhile.
    """
    path = _inside(vault, ledger_rel)
    before = path.read_bytes() if path.exists() else None
    text = _decode(before, ledger_rel)
    draft = compose(action, due=due, when=when, links=links, project=project, start=start,
                    scheduled=scheduled, keywords=keywords)
    entry = _read_back(draft)
    ident = new_id(LedgerEntry(entry.line, draft, "open", entry.action),
                   set(taken) | set(_BLOCK_IDS.findall(text)))
    line = f"{draft} ^{ident}"
    if _read_back(line).block_id != ident:
        raise UsageError(f"the new line would not keep its id: {line!r}")
    number = _write(path, before, line)
    iso = {k: d.isoformat() if d else None
           for k, d in (("due", due), ("start", start), ("scheduled", scheduled))}
    return Added(ident, ledger_rel, number, line, **iso)


def _inside(vault: Path, rel: str) -> Path:
    root = vault.resolve()
    path = (root / rel).resolve()
    if root not in path.parents:
        raise VaultmemError(f"ledger note {rel!r} is outside the vault {root}: "
                            "set ledger_notes to a vault-relative path")
    if path.suffix.lower() != ".md":
        raise VaultmemError(f"ledger note {rel!r} is not a .md file: set ledger_notes")
    return path


def _decode(data: bytes | None, rel: str) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise VaultmemError(f"{rel}: not valid UTF-8, so vaultmem will not append to it: "
                            "re-save it as UTF-8") from None


def _read_back(line: str):
    entries, warnings = parse_ledger(line)
    if len(entries) != 1 or warnings:
        why = "; ".join(w.message for w in warnings) or "not one task"
        raise UsageError(f"that would not read back as one ledger entry ({why}): {line!r}")
    return entries[0]


def _write(path: Path, before: bytes | None, line: str) -> int:
    """Old bytes + line, via a fsynced temporary file renamed over the ledger; returns the
    new line's 1-based number. Refuses if the file changed since `before` was read."""
    newline = b"\r\n" if before and b"\r\n" in before else b"\n"
    body = NEW_LEDGER if before is None else before
    if body and not body.endswith((b"\n", b"\r")):
        body += newline
    write_ledger(path, before, body + line.encode("utf-8") + newline)
    return body.count(b"\n") + 1


def write_ledger(path: Path, before: bytes | None, data: bytes) -> None:
    """The one way a ledger note is written: `data` to a fsynced temporary file renamed
    over `path`, only if the file still holds `before` (None: it did not exist)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # a dot name: never indexed
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if before is not None:
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        current = path.read_bytes() if path.exists() else None
        if current != before:
            raise VaultmemError(f"{path.name} changed on disk while vaultmem was writing "
                                "it: nothing written; run the command again")
        os.replace(tmp, path)
    except OSError as exc:
        raise VaultmemError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # not every filesystem lets a folder be fsynced; the rename is still atomic
    finally:
        os.close(fd)
