"""`vaultmem watch`: stay running and index the vault incrementally as its files change.

A watchfiles thread (freshness.Watcher) marks the vault dirty; once the folder has been
quiet for the debounce, the main thread runs the incremental index, under the store's
writer lock (another writer holding it means: wait and try again). One line per index
run goes to stderr, naming the counts and the files the watcher saw change.

Stopping: the first SIGINT or SIGTERM asks for a clean stop. Between runs that is
immediate; during a run, the run stops at its next progress step, which the indexer
reports between transactions (anything half-done is rolled back, and the indexer's
flags let the next run finish it). A second signal stops at once, rolling back the
open transaction. Either way the exit status is 0.

The vault folder going away (renamed, moved, deleted, unmounted): one line, then wait
for the same folder (same device and inode) to come back, and index what changed
meanwhile. A different folder at that path (a bare mount point, a restored copy) is
not indexed: one line saying so, exit 1.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from ..errors import BusyError, VaultmemError
from .freshness import GONE, HERE, Folder, Scope, Watcher, WatchUnavailable

BUSY_RETRY = 5.0  # seconds before trying again when another process holds the writer lock
MAX_BATCH_MS = 10_000  # the longest a batch of changes is held while changes keep coming


def say(message: str) -> None:
    sys.stderr.write(f"vaultmem watch: {message}\n")
    sys.stderr.flush()


class Stopped(BaseException):  # like KeyboardInterrupt: nothing may swallow it
    """A stop was asked for during an index run (recorded as "interrupted")."""


class Signals:
    """SIGINT and SIGTERM: the first sets `stop`; a second one during an index run
    raises Stopped at once."""

    def __init__(self):
        self.stop = threading.Event()
        self.indexing = False
        self._previous: dict = {}

    def __enter__(self) -> Signals:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame) -> None:
        if self.stop.is_set() and self.indexing:
            raise Stopped
        self.stop.set()

    def progress(self, stage: str, done: int, total: int) -> None:
        """The index run's progress callback: where a first signal stops it."""
        if self.stop.is_set():
            raise Stopped


def run(path: Path | None, db: Path | None, *, debounce_ms: int) -> int:
    """Watch and index until stopped; the exit status."""
    from ..api import Vault

    with Signals() as signals, Vault.open(path, db, create=True) as vault:
        try:
            return _watch(vault, signals, debounce_ms)
        except Stopped:
            say("stopped during an index run: what it committed is kept, and the next run "
                "finishes the rest")
            return 0


def _watch(vault, signals: Signals, debounce_ms: int) -> int:
    folder = Folder(vault.settings.vault)
    scope = Scope(vault.settings.vault, vault.settings.db)
    say(f"watching {folder.path} (Ctrl-C to stop)")
    while not signals.stop.is_set():
        state = folder.state()
        if state == GONE:
            _wait_back(folder, signals)
            continue
        if state != HERE:
            say(f"{folder.describe(state)}: not indexing it; run `vaultmem watch` again to "
                "index the folder now there")
            return 1
        try:
            watcher = Watcher(scope, folder, step_ms=debounce_ms,
                              debounce_ms=max(MAX_BATCH_MS, debounce_ms), polling_ok=True)
        except WatchUnavailable as exc:
            raise VaultmemError(f"{exc}: raise the inotify limits (fs.inotify."
                                "max_user_watches) or run `vaultmem index` from cron") from None
        try:
            _follow(vault, watcher, signals)
        finally:
            watcher.close()
    say("stopped")
    return 0


def _follow(vault, watcher: Watcher, signals: Signals) -> None:
    """Index whenever the watcher says dirty, until a stop, the watcher ends or the
    folder goes away (checked before each run: a vanished folder must never be indexed
    as an empty one)."""
    while not signals.stop.is_set() and watcher.folder.state() == HERE:
        if watcher.wait(timeout=0.5):
            _index(vault, watcher, signals)
        if not watcher.alive:
            if watcher.error:
                say(f"the file watcher stopped ({watcher.error}): restarting it")
            return


def _index(vault, watcher: Watcher, signals: Signals) -> None:
    if watcher.folder.state() != HERE:
        return  # the batch that woke us may be the folder itself going away
    dirty, paths = watcher.take()
    if not dirty:
        return
    signals.indexing = True
    try:
        report = vault.index(progress=signals.progress)
    except BusyError:
        watcher.mark_dirty()
        say(f"another vaultmem run is writing the index: trying again in {BUSY_RETRY:.0f} s")
        signals.stop.wait(BUSY_RETRY)
        return
    except (OSError, VaultmemError):
        watcher.mark_dirty()
        if watcher.folder.state() == HERE:
            raise
        return  # the folder went away during the run: wait for it, then run again
    finally:
        signals.indexing = False
    say(indexed_line(report, paths))


def _wait_back(folder: Folder, signals: Signals) -> None:
    say(f"{folder.describe(GONE)}: waiting for it to come back (Ctrl-C to stop)")
    while not signals.stop.is_set() and folder.state() == GONE:
        signals.stop.wait(1.0)
    if folder.state() == HERE:
        say(f"vault folder {folder.path} is back: indexing what changed meanwhile")


def indexed_line(report, paths: list[str] = ()) -> str:
    """One line per index run: the counts, and (when known) the files seen changing."""
    line = (f"indexed in {report.seconds:.2f} s: {report.new} new, {report.modified} "
            f"modified, {report.moved} moved, {report.deleted} deleted, {report.embedded} "
            "chunks embedded")
    if paths:
        shown = ", ".join(paths[:3])
        line += f" ({shown}{f' and {len(paths) - 3} more' if len(paths) > 3 else ''})"
    return line
