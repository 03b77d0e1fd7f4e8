"""Walking the vault folder and planning what changed, as pure as it can be.

`scan` only stats (it never reads file contents); `plan_changes` is a pure
function over {path: stat} and {path: stored} maps plus a hash function that is
called only for files whose size or mtime differ from the store.
"""

from __future__ import annotations

import errno
import hashlib
import operator
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from stat import S_ISDIR, S_ISREG
from typing import NamedTuple

from ..errors import VaultGoneError, VaultmemError
from .rows import StoredNote


class FileStat(NamedTuple):
    """A file's size and modification time (a tuple: one is built per note per run)."""

    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Scan:
    files: dict[str, FileStat]  # vault-relative posix path -> stat
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (path, message)


@dataclass(frozen=True)
class ChangePlan:
    new: list[str]
    modified: list[str]
    reparse: list[str]  # content unchanged but parsed again (--full, or an unfinished move)
    moved: list[tuple[str, str]]  # (old path, new path); same content
    deleted: list[str]
    touched: list[str]  # stat changed, content did not: refresh the stat only
    unchanged: int
    hashes: dict[str, str]  # every hash computed while planning

    @property
    def changed(self) -> bool:
        return bool(self.new or self.modified or self.reparse or self.moved or self.deleted)


def scan(root: Path, skip: tuple[Path, ...] = ()) -> Scan:
    """Every `.md` file under root (dot-names skipped), following symlinks only inside it.

    `skip` names files or folders left out, such as the store's own file when it
    sits inside the vault. A name that is not valid UTF-8 cannot be stored or
    printed as a note path: it gets one warning, with its bytes escaped, and the
    rest of the vault is indexed.
    """
    root = root.resolve()
    files: dict[str, FileStat] = {}
    warnings: list[tuple[str, str]] = []
    skip_real = {os.path.normcase(str(p.resolve())) for p in skip}
    _walk(root, str(root), "", {str(root)}, skip_real, files, warnings)
    return Scan(files, warnings)


def _unlisted_root(root: Path, exc: OSError) -> VaultmemError:
    """A vault that cannot be listed is never taken for an empty one (every note would be
    marked deleted): gone, or unreadable, the run stops."""
    if not root.is_dir():
        return VaultGoneError(root)
    return VaultmemError(f"cannot list the vault folder {root} ({exc.strerror}): nothing "
                         "indexed, nothing marked deleted")


def folder_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a folder, None when it is not there: the same folder stays the
    same pair whatever happens inside it; one deleted, moved or unmounted does not."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if S_ISDIR(st.st_mode) else None


def printable(path: str) -> str:
    """A path as text that UTF-8 can hold: bytes that are not UTF-8 (kept by Python as
    lone surrogates) shown escaped, "bad\\xffname.md"."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _walk(root, folder, prefix, seen, skip, files, warnings) -> None:
    """Real paths are plain strings here: a Path per entry was over a quarter of a no-op run's
    time at 50,000 notes. Every folder walked is a resolved path, so entry paths built
    from it are already normal and compare as strings. The common case, a plain file or
    folder, costs one stat call and no Python call of its own (50,000 notes per run)."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=_name)
    except OSError as exc:
        if not prefix:
            raise _unlisted_root(root, exc) from None
        warnings.append((prefix, f"cannot list folder ({exc.strerror}): skipped"))
        return
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        rel = prefix + name
        if not name.isascii() and printable(name) != name:
            kind = "folder" if entry.is_dir() else "file"
            warnings.append((printable(rel), f"{kind} name is not valid UTF-8: skipped "
                                             f"(rename it to index it)"))
            continue
        real = _inside(root, entry, rel, warnings) if entry.is_symlink() else entry.path
        if real is None or (skip and (_fold(real) if _fold else real) in skip):
            continue
        if entry.is_dir(follow_symlinks=True):
            if real in seen:
                warnings.append((rel, "symlink loop: folder already visited, skipped"))
                continue
            _walk(root, real, rel + "/", seen | {real}, skip, files, warnings)
        elif name.lower().endswith(".md"):
            try:
                st = entry.stat(follow_symlinks=True)
            except OSError as exc:
                warnings.append((rel, f"cannot stat file ({exc.strerror}): skipped"))
                continue
            if S_ISREG(st.st_mode):
                files[rel] = _filestat(FileStat, (st.st_size, st.st_mtime_ns))
            else:  # a named pipe or device would block the reader
                warnings.append((rel, "not a regular file: skipped"))


_name = operator.attrgetter("name")
_filestat = tuple.__new__  # FileStat(size, mtime_ns) without a Python call of its own
_fold = os.path.normcase if os.path.normcase("A") != "A" else None  # Windows folds case


def _inside(root: Path, entry: os.DirEntry, rel: str, warnings) -> str | None:
    """A symlink's real path if it stays inside the vault, else None (with a warning)."""
    try:
        real = Path(entry.path).resolve(strict=True)
    except (OSError, RuntimeError):
        warnings.append((rel, "broken or looping symlink: skipped"))
        return None
    if not within(root, real):
        warnings.append((rel, "symlink points outside the vault: not followed"))
        return None
    return str(real)


def within(root: PurePath, path: PurePath) -> bool:
    """Whether `path` is `root` or under it, by the rules of their flavour (on Windows,
    "C:\\Vault" holds "c:\\vault\\Sub\\x.md"). Both are absolute and resolved."""
    return path == root or root in path.parents


class OutsideVault(OSError):
    """A note path whose real path leaves the vault (a symlink swapped in since the walk)."""

    def __init__(self, rel: str):
        super().__init__(errno.EACCES, "symlink points outside the vault: not followed", rel)


class NotRegular(OSError):
    """A note path that is no longer a regular file (a pipe would block the reader)."""

    def __init__(self, rel: str):
        super().__init__(errno.EINVAL, "not a regular file: skipped", rel)


class TooLarge(OSError):
    """A file that grew past the size limit since it was measured."""

    def __init__(self, rel: str, limit: int):
        super().__init__(errno.EFBIG, f"over the max_file_bytes limit of {limit:,}: skipped",
                         rel)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0)


def read_inside(root: Path, rel: str, limit: int | None = None) -> bytes:
    """The bytes of note `rel`, read only where the walker would read it: its real path is
    inside the vault `root` (resolved) and it is a regular file.

    The walk checked this once, but a file or folder can be swapped for a symlink to
    anywhere between the walk and the read, or after the index (`get` reads later
    still). The real path is checked, the file opened without following a last
    symlink, and, where the system says which file an open descriptor is (Linux's
    /proc), that file is checked too, so a swap between the check and the open is
    caught as well. Raises OutsideVault, NotRegular, TooLarge (more than `limit` bytes)
    or another OSError.
    """
    full = os.path.join(root, rel)
    real = os.path.realpath(full)
    if not within(Path(root), Path(real)):
        raise OutsideVault(rel)
    fd = os.open(real, _READ_FLAGS)
    try:
        opened = opened_path(fd)
        if opened is not None and not within(Path(root), Path(opened)):
            raise OutsideVault(rel)
        if not S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(rel)
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read() if limit is None else fh.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise TooLarge(rel, limit)
    return data


def opened_path(fd: int) -> str | None:
    """The real path of the file an open descriptor is on, where the system says (Linux's
    /proc); None elsewhere."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def normalize_prefix(prefix: str | None, what: str = "folders") -> str:
    """A folder (`--in`) as note paths spell it: "./projects/", "projects\\" and
    "projects" are one folder; "" and "." are the whole vault; "../x" is refused (the
    message names the parameter `what`)."""
    text = (prefix or "").strip().replace("\\", "/")
    if text and posixpath.normpath(text.lstrip("/")).split("/")[0] == "..":
        from ..errors import UsageError

        raise UsageError(f"`{what}` {prefix!r} climbs out of the vault: give a folder "
                         "inside it, relative to its root (e.g. projects/house)")
    folded = posixpath.normpath("/" + text).lstrip("/") if text else ""
    return "" if folded in ("", ".") else folded + "/"


def plan_changes(
    disk: dict[str, FileStat],
    stored: dict[str, StoredNote],
    hash_of: Callable[[str], str | None],
    *,
    full: bool = False,
) -> ChangePlan:
    """Classify every path. `hash_of(path)` is called only where size/mtime differ (or `full`)."""
    hashes: dict[str, str] = {}
    new, modified, reparse, touched, unchanged = [], [], [], [], 0
    for path, st in disk.items():
        old = stored.get(path)
        same_stat = old and not old.deleted and (old.size, old.mtime_ns) == st  # FileStat: a tuple
        if same_stat and not full and (old.hash or old.problem):
            unchanged += 1
            continue
        digest = hash_of(path)
        if digest is not None:
            hashes[path] = digest
        if old is None or old.deleted:
            new.append(path)
        elif digest is not None and digest == old.hash:
            (reparse if full else touched).append(path)
        elif old.hash is None and not old.problem:
            reparse.append(path)  # a move whose re-parse was interrupted
        else:
            modified.append(path)
    gone = [p for p, old in stored.items() if not old.deleted and p not in disk]
    moved, deleted = _pair_moves(gone, new, stored, hashes)
    moved_to = {dst for _, dst in moved}
    new = [p for p in new if p not in moved_to]
    return ChangePlan(sorted(new), sorted(modified), sorted(reparse), moved, sorted(deleted),
                      sorted(touched), unchanged, hashes)


def _pair_moves(gone, new, stored, hashes) -> tuple[list[tuple[str, str]], list[str]]:
    """A vanished path and a new path with the same content hash are one moved note."""
    by_hash: dict[str, list[str]] = {}
    for path in sorted(new):
        if path in hashes and (stored.get(path) is None):
            by_hash.setdefault(hashes[path], []).append(path)
    moved, deleted = [], []
    for path in sorted(gone):
        candidates = by_hash.get(stored[path].hash or "", [])
        if candidates:
            moved.append((path, candidates.pop(0)))
        else:
            deleted.append(path)
    return moved, deleted


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
