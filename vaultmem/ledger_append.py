"""Writing a ledger note: appending one commitment, atomically, never losing a line.

`vaultmem ledger add` (and `ledger accept`, and the MCP `add_commitment` tool) never
rewrite the ledger: the new file is the old bytes plus one line. Every write goes through
`safe_write`, the one way vaultmem changes a ledger file (a line rewrite such as
`ledger done` calls it too):

* the ledger is found by its real path, which must be inside the vault (a ledger that
  is a symlink out of it, or sits in a folder that is one, is refused);
* the new text is written to a temporary file made with `mkstemp` in the ledger's own
  folder (a name nobody can guess, created with O_EXCL, so a symlink planted there is
  never followed), fsynced;
* that file is read back from disk and parsed as the whole ledger: every entry the old
  text had (except the lines being rewritten) must still be there, unchanged, and each
  new line must read as exactly one entry; a ledger that ends inside an unclosed code
  fence or `<!--` comment, where a new line could never be read, is refused;
* only if the ledger on disk is still the bytes it was read as is the temporary file
  renamed over it.

Every field is refused if it holds a control character (a NUL makes the whole file
look binary to the indexer) or is longer than MAX_TEXT_CHARS. Nothing here touches the
store: the next index reads the new line like any hand-written one.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from .errors import DiskFullError, UsageError, VaultmemError
from .ledger import LedgerEntry, parse_ledger
from .ledger_reconcile import new_id
from .schema import SCHEMA
from .text.folder import content_hash, opened_path, within

_BLOCK_IDS = re.compile(r"\^([A-Za-z0-9-]+)")
_FORBIDDEN = re.compile(r"[\r\n\[\]]")
# C0 controls but tab, DEL and C1 controls: never text a person typed, and a NUL makes
# the indexer take the whole ledger for a binary file.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_READER_LINES = re.compile(r"\r\n|\r|\n")  # where the ledger's reader ends a line
MAX_TEXT_CHARS = 1_000  # a commitment, a condition, a project or a link, each
NEW_LEDGER = b"# Ledger\n\n"
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


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
    mtime_ns: int | None = None  # the ledger's, right after the write (appended.py)
    digest: str | None = None  # the hash of the ledger's bytes as written

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

    `start` (Tasks' `🛫`) and `scheduled` (`⏳`) open the firing window before the due
    date. Raises UsageError naming the field that holds a control character, a line
    break, a bracket (where one would end the field) or more than MAX_TEXT_CHARS
    characters.
    """
    action = " ".join(_text("text", action).split())
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


def _text(param: str, value: str) -> str:
    """`value` unless it holds a control character or is too long (tabs and spaces are
    folded by the caller; a line break is a control character too)."""
    _no_control(param, value)
    if len(value) > MAX_TEXT_CHARS:
        raise UsageError(f"`{param}` is {len(value):,} characters long; the most a ledger "
                         f"line takes is {MAX_TEXT_CHARS:,}: say it shorter and link a note "
                         "for the details")
    return value


def _no_control(param: str, value: str) -> None:
    bad = _CONTROL.search(value)
    if bad:
        raise UsageError(f"`{param}` holds a control character (U+{ord(bad.group()):04X} at "
                         f"position {bad.start() + 1}): remove it")


def _field_value(param: str, value: str) -> str:
    value = " ".join(_text(param, value).split())
    if not value or _FORBIDDEN.search(value):
        raise UsageError(f"`{param}` {value!r}: give a non-empty text without brackets")
    return value


def _link(name: str) -> str:
    name = _text("links", name).strip().removeprefix("[[").removesuffix("]]").strip()
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
    entry, VaultmemError when the ledger cannot be written, changed meanwhile, or would
    lose or hide a line (see `safe_write`).
    """
    draft = compose(action, due=due, when=when, links=links, project=project, start=start,
                    scheduled=scheduled, keywords=keywords)
    ledger = read_ledger(vault, ledger_rel)
    entry = _read_back(draft)
    ident = new_id(LedgerEntry(entry.line, draft, "open", entry.action),
                   set(taken) | set(_BLOCK_IDS.findall(ledger.text)))
    line = f"{draft} ^{ident}"
    if _read_back(line).block_id != ident:
        raise UsageError(f"the new line would not keep its id: {line!r}")
    data, number = appended(ledger.before, line)
    mtime_ns = safe_write(ledger, data, added=[line])
    iso = {k: d.isoformat() if d else None
           for k, d in (("due", due), ("start", start), ("scheduled", scheduled))}
    return Added(ident, ledger_rel, number, line, **iso, mtime_ns=mtime_ns,
                 digest=content_hash(data))


def append_line(vault: Path, ledger_rel: str, line: str) -> Added:
    """Append `line`, a whole task line with its block id written before (`ledger
    restore` puts back a line an editor overwrote), as `add` appends a new one."""
    _no_control("line", line)
    entry = _read_back(line)
    if entry.block_id is None:
        raise UsageError(f"the line has no block id, so its commitment could not be "
                         f"recognised: {line!r}")
    ledger = read_ledger(vault, ledger_rel)
    if entry.block_id in _BLOCK_IDS.findall(ledger.text):
        raise VaultmemError(f"^{entry.block_id} is already in {ledger_rel}: the line is back "
                            "(run `vaultmem index`); nothing written")
    data, number = appended(ledger.before, line)
    mtime_ns = safe_write(ledger, data, added=[line])
    return Added(entry.block_id, ledger_rel, number, line, mtime_ns=mtime_ns,
                 digest=content_hash(data))


def _read_back(line: str) -> LedgerEntry:
    entries, warnings = parse_ledger(line)
    if len(entries) != 1 or warnings:
        why = "; ".join(w.message for w in warnings) or "not one task"
        raise UsageError(f"that would not read back as one ledger entry ({why}): {line!r}")
    return entries[0]


def appended(before: bytes | None, line: str) -> tuple[bytes, int]:
    """(the ledger's bytes with `line` appended in its own line endings, the new line's
    1-based number); a ledger that does not exist yet starts with a heading."""
    newline = b"\r\n" if before and b"\r\n" in before else b"\n"
    body = NEW_LEDGER if before is None else before
    if body and not body.endswith((b"\n", b"\r")):
        body += newline
    return body + line.encode("utf-8") + newline, body.count(b"\n") + 1


# -- the one safe write ---------------------------------------------------------------


@dataclass(frozen=True)
class LedgerFile:
    """A ledger note as read for a write: its vault-relative name, its real path (inside
    the vault), the vault's real path, and its bytes and text (None and "" when the
    file does not exist yet)."""

    rel: str
    path: Path
    root: Path
    before: bytes | None
    text: str


def read_ledger(vault: Path, rel: str) -> LedgerFile:
    """Find ledger `rel` by its real path and read it, refusing a ledger outside the
    vault: a configured path that leaves it, or a file or folder that is a symlink to
    somewhere outside. A symlink to another file inside the vault is followed (the real
    file is written, the link stays)."""
    root = Path(os.path.realpath(vault))
    named = root / rel
    real = Path(os.path.realpath(named))
    if not within(root, real) or real == root:
        what = "is a symlink to" if os.path.islink(named) else "resolves to"
        raise VaultmemError(f"ledger note {rel!r} {what} {real}, outside the vault {root}: "
                            "vaultmem will not write there; set ledger_notes to a note inside "
                            "the vault")
    if real.suffix.lower() != ".md":
        raise VaultmemError(f"ledger note {rel!r} is not a .md file: set ledger_notes")
    before = _read_bytes(real, rel)
    return LedgerFile(rel, real, root, before, _decode(before, rel))


def _read_bytes(path: Path, rel: str) -> bytes | None:
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise VaultmemError(f"cannot read {rel} ({exc.strerror}): nothing written") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise VaultmemError(f"{rel} is not a regular file: nothing written")
        with open(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def _decode(data: bytes | None, rel: str) -> str:
    if data is None:
        return ""
    if b"\x00" in data:
        raise VaultmemError(f"{rel} holds a NUL byte, so the index takes it for a binary "
                            "file: remove it (an editor shows it as ^@ or \\0) before "
                            "adding to the ledger")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise VaultmemError(f"{rel}: not valid UTF-8, so vaultmem will not append to it: "
                            "re-save it as UTF-8") from None


def safe_write(ledger: LedgerFile, data: bytes, *, replaced: Collection[int] = (),
               added: Sequence[str] = ()) -> int | None:
    """Replace the ledger's bytes with `data`, atomically, or raise and change nothing.

    `replaced`: the 1-based lines of `ledger.text` whose entries this write rewrites or
    drops; every other entry must read back unchanged (its line may move). `added`: the
    task lines this write puts in; each must read back as exactly one entry, as
    written. Nothing else may appear or vanish. The check runs on the bytes read back
    from the temporary file, and the rename happens only if the ledger on disk is still
    `ledger.before`. Returns the ledger's modification time after the write.
    """
    # A rewrite may carry what the user's own line already held; nothing new may come in.
    # Lines as the reader numbers them: str.splitlines also breaks at NEL, FF, U+2028...
    lines = _READER_LINES.split(ledger.text)
    held = {c for n in replaced if 0 < n <= len(lines) for c in _CONTROL.findall(lines[n - 1])}
    for line in added:
        _no_control("line", "".join(c for c in line if c not in held))
    folder = ledger.path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(exc, ledger.path) from None
    fd, tmp = _temporary(ledger, folder)
    try:
        with open(fd, "w+b") as fh:
            written = _fill(fh, data, ledger)
        _verify(ledger, written, replaced, added)
        if _read_bytes(ledger.path, ledger.rel) != ledger.before:
            raise VaultmemError(f"{ledger.path.name} changed on disk while vaultmem was "
                                "writing it: nothing written; run the command again")
        os.replace(tmp, ledger.path)
    except OSError as exc:
        raise _write_error(exc, ledger.path) from None
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    _fsync_dir(folder)
    try:
        return ledger.path.stat().st_mtime_ns
    except OSError:
        return None


def _write_error(exc: OSError, path: Path) -> VaultmemError:
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return DiskFullError(path.parent)
    return VaultmemError(f"cannot write {path} ({exc.strerror or exc}): nothing written")


def _temporary(ledger: LedgerFile, folder: Path) -> tuple[int, str]:
    """(descriptor, name) of a new, empty file beside the ledger that nobody else can have
    made: mkstemp picks a random name and creates it with O_EXCL, so a symlink planted
    at any name is never followed. A dot name: the walker never indexes it. The file is
    checked to be inside the vault, in case the folder was swapped for a symlink since
    it was resolved."""
    try:
        fd, name = tempfile.mkstemp(prefix=f".{ledger.path.name}.", suffix=".tmp",
                                    dir=folder)
    except OSError as exc:
        raise _write_error(exc, ledger.path) from None
    where = opened_path(fd) or os.path.realpath(name)
    if not within(ledger.root, Path(where)):
        os.close(fd)
        os.unlink(name)
        raise VaultmemError(f"the folder of {ledger.rel} now leads outside the vault: "
                            "nothing written")
    return fd, name


def _fill(fh, data: bytes, ledger: LedgerFile) -> bytes:
    """Write `data`, fsync it, give it the ledger's permissions; return what the file
    holds now, read back from it."""
    fh.write(data)
    fh.flush()
    os.fsync(fh.fileno())
    if ledger.before is not None:
        os.chmod(fh.fileno(), stat.S_IMODE(ledger.path.stat().st_mode))
    fh.seek(0)
    return fh.read()


def _verify(ledger: LedgerFile, written: bytes, replaced: Collection[int],
            added: Sequence[str]) -> None:
    """Raise unless `written` holds every entry of the old text but the `replaced` ones,
    unchanged, and each `added` line as one entry, and nothing else."""
    old, _ = parse_ledger(ledger.text)
    new, _ = parse_ledger(_decode(written, ledger.rel))
    kept = Counter(_content(e) for e in old if e.line not in replaced)
    found = Counter(_content(e) for e in new)
    lost = kept - found
    if lost:
        first = min(lost, key=lambda e: e.raw)
        n = sum(lost.values())
        raise VaultmemError(f"writing {ledger.rel} would change or hide {n} "
                            f"entr{'y' if n == 1 else 'ies'} already in it (first: "
                            f"{first.raw.strip()!r}): nothing written")
    fresh: Counter[str] = Counter()
    for entry, n in (found - kept).items():
        fresh[entry.raw] += n
    missing = Counter(added) - fresh
    if missing:
        raise VaultmemError(
            f"the new line would not be read as a ledger entry in {ledger.rel} (the ledger "
            "ends inside an unclosed code fence, HTML comment `<!--` or `%%` comment): "
            "nothing written; close it, then run the command again. The line: "
            f"{next(iter(missing))!r}")
    extra = fresh - Counter(added)
    if extra:
        raise VaultmemError(f"writing {ledger.rel} would add entries nobody asked for "
                            f"({next(iter(extra))!r}): nothing written")


def _content(entry: LedgerEntry) -> LedgerEntry:
    """An entry without its line number: a line may move when one above it is rewritten."""
    return replace(entry, line=0)


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
