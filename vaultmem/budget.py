"""A time budget for one call: the safety net under the parsers.

Every reader of a note is meant to run in time linear in its size (tests/test_growth.py
holds them to it). Should one still meet an input that makes it crawl, an index run
must not stall on that note for minutes while `watch` and every MCP answer wait: the
call is stopped once its thread has used `seconds` of CPU time, and the caller skips the
note with a warning.

How: one watchdog thread per `Budget` checks the running call's thread CPU clock and,
past the budget, raises `OverBudget` in that thread (CPython's asynchronous exception,
delivered at the thread's next bytecode: a call inside C code, such as one regex
search, ends first). CPU time, not wall time, so a busy machine never makes a note late.
Only pure calls may be guarded: the exception can land anywhere in them.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
POLL = 0.25  # seconds between two looks at the running call's CPU clock


class OverBudget(Exception):  # noqa: N818 - what it says
    """The guarded call ran past its budget and was stopped."""


class Budget:
    """Runs calls under a CPU-time limit each; `close()` ends its watchdog."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._cond = threading.Condition()
        self._job: _Job | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def run(self, fn: Callable[[], T]) -> T:
        """fn(), or OverBudget once it has used more than `seconds` of CPU time."""
        job = _Job(threading.get_ident(), self.seconds)
        with self._cond:
            self._job = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, daemon=True,
                                                name="vaultmem-budget")
                self._thread.start()
            self._cond.notify()
        try:
            return fn()
        finally:
            with self._cond:
                self._job = None
                if job.fired:  # raised but perhaps not delivered yet: never after this
                    _raise_in(job.thread, None)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                job = self._job
                if job is None or job.fired:
                    self._cond.wait()
                elif job.used() > self.seconds:
                    job.fired = True
                    _raise_in(job.thread, OverBudget)
                else:
                    self._cond.wait(POLL)


class _Job:
    """One guarded call: its thread and how to read that thread's CPU clock."""

    def __init__(self, thread: int, seconds: float):
        self.thread = thread
        self.fired = False
        self._clock = _cpu_clock(thread)
        self._start = self._now()

    def _now(self) -> float:
        return time.clock_gettime(self._clock) if self._clock is not None \
            else time.monotonic()

    def used(self) -> float:
        return self._now() - self._start


def _cpu_clock(thread: int) -> int | None:
    """The CPU clock of a thread where the system has one (Unix); else None: wall time."""
    try:
        return time.pthread_getcpuclockid(thread)
    except (AttributeError, OSError):
        return None


def _raise_in(thread: int, exc: type[BaseException] | None) -> None:
    """Raise `exc` in `thread` at its next bytecode (None: cancel a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exc) if exc is not None else None)
