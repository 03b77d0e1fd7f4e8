"""Knowing, while a process stays running, whether the store is behind the vault folder.

`vaultmem watch` and `vaultmem mcp` both follow the folder with a watchfiles (Rust
`notify`) thread that marks the vault dirty on any change outside dot names and the
store's own files. Dirty means "run the incremental index", whose planner then finds
what changed: the watcher never has to tell an edit from a move.

The MCP server needs more than "soon": a note saved just before a request must be in
its answer. `Watcher.sync()` gives that with a cookie (Watchman's "sync cookies"): it
creates a file in the watched tree and waits until the watcher reports it. One inotify
instance delivers events in order, so once the cookie is seen every change made before
it has been seen too. It costs a file create and a watcher step or two (a few ms),
whatever the size of the vault. Where no watcher can run (inotify limits, a file system
that only polls), `StatCheck` compares a walk of the vault with the walk taken before
the last index: exact too, but a stat per note. `scripts/bench_mcp.py` prints both.

A vault folder that disappears (renamed, deleted, unmounted) is never indexed as if it
were empty: `Folder.state()` says GONE, or REPLACED when another folder (a bare mount
point, a restored copy) now stands at the path, and callers index nothing until the
same folder is back.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

HERE, GONE, REPLACED = "here", "gone", "replaced"
# notify drops an inotify queue overflow without a path, so watchfiles never reports it.
# Events lost that way happened before the queued ones are delivered, so a large batch
# (which may sit beside an overflow) marks the vault dirty whatever paths it names.
BURST = 1000
PRESENCE_EVERY = 1.0  # seconds between checks that the vault folder is still there


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if os.path.isdir(path) else None


class Folder:
    """The vault folder as it was when the process started: same device, same inode."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.identity = _identity(self.path)

    def state(self) -> str:
        now = _identity(self.path)
        if now is None:
            return GONE
        return HERE if now == self.identity else REPLACED

    def describe(self, state: str) -> str:
        """One line for a user: what happened to the folder."""
        if state == GONE:
            return (f"vault folder {self.path} is gone (renamed, moved, deleted or "
                    "unmounted)")
        return (f"vault folder {self.path} is a different folder now (re-created, restored "
                "or another disk mounted there)")


class Scope:
    """Which changed paths can matter to the index (not dot names, which the walk skips,
    and not the store's own files), and the sync cookies' names."""

    def __init__(self, vault: Path, db: Path):
        self.root = str(vault)
        self.store_dir = str(db.parent)
        self.db_name = db.name
        self._cookies = itertools.count(1)

    def watched(self) -> list[str]:
        """The paths to watch: the vault, and the store's folder when it lies outside."""
        inside = self.store_dir == self.root or self.store_dir.startswith(self.root + os.sep)
        return [self.root] if inside else [self.root, self.store_dir]

    def matters(self, path: str) -> bool:
        if path == self.root:
            return True  # the folder itself was removed or renamed
        if self._is_store(path) or not path.startswith(self.root + os.sep):
            return False
        return not any(part.startswith(".")
                       for part in path[len(self.root) + 1:].split(os.sep))

    def _is_store(self, path: str) -> bool:
        folder, _, name = path.rpartition(os.sep)
        if self.store_dir == self.root:  # the store beside the notes: only its own files
            return folder == self.root and name.startswith(self.db_name)
        return path == self.store_dir or path.startswith(self.store_dir + os.sep)

    def new_cookie(self) -> Path:
        return Path(self.store_dir, f"{self.db_name}.sync-{os.getpid()}-{next(self._cookies)}")

    def cookie_name(self, path: str) -> str | None:
        folder, _, name = path.rpartition(os.sep)
        mine = folder == self.store_dir and name.startswith(f"{self.db_name}.sync-")
        return name if mine else None


class WatchUnavailable(Exception):
    """No file system watcher can run here; the message says why."""


class Watcher:
    """A watchfiles thread over the vault: a dirty flag, sync cookies, and a stop when the
    vault folder disappears (`gone` says how) or `close()` is called.

    `step_ms`: how long the tree must stay quiet before a batch is reported (the
    debounce); `debounce_ms`: the longest a batch is held while changes keep coming.
    """

    def __init__(self, scope: Scope, folder: Folder, *, step_ms: int, debounce_ms: int,
                 polling_ok: bool = False):
        from watchfiles._rust_notify import RustNotify

        self.scope, self.folder = scope, folder
        self.step_ms, self.debounce_ms = step_ms, debounce_ms
        try:
            self._notify = RustNotify(scope.watched(), False, False, 300, True, False)
        except (OSError, RuntimeError) as exc:
            raise WatchUnavailable(f"cannot watch {scope.root}: {exc}") from None
        if not polling_ok and "Poll" in repr(self._notify):  # every sync would wait a poll
            self._notify.close()
            raise WatchUnavailable(f"{scope.root}: only a polling watcher works here")
        self._cond = threading.Condition()
        self._dirty = True  # whatever happened before the watcher existed is unknown
        self._seen: set[str] = set()
        self._paths: set[str] = set()
        self._closing = False
        self._checked = time.monotonic()
        self.alive = True
        self.error: str | None = None
        self.gone: str | None = None
        self._thread = threading.Thread(target=self._run, name="vaultmem-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                batch = self._notify.watch(self.debounce_ms, self.step_ms, 0, self)
                if isinstance(batch, str):  # "stop": no timeout is set, no signal comes here
                    return
                self._take(batch)
        except Exception as exc:  # noqa: BLE001 - watchfiles' "error in underlying watcher"
            self.error = str(exc)
        finally:
            self._notify.close()
            with self._cond:
                self.alive = False
                self._cond.notify_all()

    def _take(self, batch: set[tuple[int, str]]) -> None:
        cookies = {name for _, path in batch if (name := self.scope.cookie_name(path))}
        paths = {path for _, path in batch if self.scope.matters(path)}
        with self._cond:
            self._seen |= cookies
            self._dirty = self._dirty or bool(paths) or len(batch) >= BURST
            if len(self._paths) < BURST:
                self._paths |= paths
            self._cond.notify_all()

    def is_set(self) -> bool:
        """The stop event notify polls every step: closing, or the folder went away."""
        if self._closing:
            return True
        now = time.monotonic()
        if now - self._checked >= PRESENCE_EVERY:
            self._checked = now
            state = self.folder.state()
            if state != HERE:
                self.gone = state
                return True
        return False

    def take_dirty(self) -> bool:
        """Whether anything changed since the last call; clears the flag (before the
        index runs, so a change made during the run marks the vault dirty again)."""
        return self.take()[0]

    def take(self) -> tuple[bool, list[str]]:
        """`take_dirty`, and the vault-relative paths reported changed (the first
        thousand), for saying what was indexed."""
        with self._cond:
            dirty, self._dirty = self._dirty, False
            paths, self._paths = self._paths, set()
        cut = len(self.scope.root) + 1
        return dirty, sorted(p[cut:].replace(os.sep, "/") for p in paths if p != self.scope.root)

    def mark_dirty(self) -> None:
        with self._cond:
            self._dirty = True
            self._cond.notify_all()

    def wait(self, timeout: float) -> bool:
        """Block until the vault is dirty or the watcher stopped; True if dirty."""
        with self._cond:
            self._cond.wait_for(lambda: self._dirty or not self.alive, timeout)
            return self._dirty

    def sync(self, timeout: float = 2.0) -> bool:
        """Make sure every change made before this call has been seen. False when the
        watcher could not confirm it in time (stopped, or the cookie not writable)."""
        cookie = self.scope.new_cookie()
        try:
            cookie.touch(exist_ok=False)
        except OSError:
            return False
        try:
            with self._cond:
                self._cond.wait_for(lambda: cookie.name in self._seen or not self.alive,
                                    timeout)
                seen = cookie.name in self._seen
                self._seen.discard(cookie.name)
            return seen
        finally:
            cookie.unlink(missing_ok=True)

    def close(self) -> None:
        self._closing = True
        self._thread.join(timeout=5)


class StatCheck:
    """The fallback: walk the vault and compare every note's size and mtime with the walk
    taken at the previous check (the one made before the last index run)."""

    def __init__(self, vault: Path, db: Path):
        self.vault, self.skip = vault, (db.parent,)
        self._last: dict | None = None

    def changed(self) -> bool:
        from ..text.folder import scan

        files = scan(self.vault, skip=self.skip).files
        changed, self._last = files != self._last, files
        return changed

    def forget(self) -> None:
        self._last = None


class Freshness:
    """For a long-running reader (the MCP server): has the vault changed since the store
    was last brought up to date? `check()` says True or False, or GONE / REPLACED when
    the vault folder is not the one the process started on."""

    def __init__(self, vault: Path, db: Path, *, say: Callable[[str], None],
                 watch: bool = True, step_ms: int = 5, debounce_ms: int = 50):
        self.folder, self.scope = Folder(vault), Scope(vault, db)
        self.stat = StatCheck(vault, db)
        self.say, self.step_ms, self.debounce_ms = say, step_ms, debounce_ms
        self.watcher: Watcher | None = None
        self.mode = "watcher" if watch else "stat"

    def check(self) -> bool | str:
        state = self.folder.state()
        if state != HERE:
            return state
        if self.mode == "watcher" and (self.watcher is None or not self.watcher.alive):
            self._start()
        if self.watcher is None:
            return self.stat.changed()
        if self.watcher.sync():
            return self.watcher.take_dirty()
        # Not confirmed in time (a loaded machine): say changed, and the index run's own
        # planner, which compares every file with the store, decides.
        self.say("the file watcher did not confirm recent changes in time: indexing to be sure")
        return True

    def _start(self) -> None:
        if self.watcher is not None and self.watcher.error:
            self.say(f"the file watcher stopped ({self.watcher.error}): restarting it")
        try:
            self.watcher = Watcher(self.scope, self.folder, step_ms=self.step_ms,
                                   debounce_ms=self.debounce_ms)
        except WatchUnavailable as exc:
            self.watcher = None
            self.mode = "stat"
            self.stat.forget()
            self.say(f"{exc}: checking the vault with a walk before each answer instead")

    def mark_dirty(self) -> None:
        """The index run did not happen (or failed): the next check must say changed."""
        if self.watcher is not None:
            self.watcher.mark_dirty()
        self.stat.forget()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
