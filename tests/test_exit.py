"""The console script ends without the interpreter's teardown, and loses nothing by it."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT

PROGRAM = r"""
import atexit, sys, threading
from vaultmem.cli import finish

class Teardown:
    def __del__(self):
        sys.stderr.write("teardown ran\n")

keep = Teardown()  # a module global: freed only by the interpreter's teardown
atexit.register(lambda: sys.stderr.write("atexit ran\n"))
if sys.argv[1] == "thread":
    threading.Thread(target=lambda: (__import__("time").sleep(0.3),
                                     sys.stdout.write("thread done\n"))).start()
sys.stdout.write("x" * 200_000)  # more than a pipe holds: still buffered at exit
sys.stdout.write("\nlast line")
finish(int(sys.argv[2]))
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROGRAM, *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def test_finish_flushes_output_runs_atexit_and_skips_teardown():
    proc = run("plain", "3")
    assert proc.returncode == 3
    assert proc.stdout.endswith("x" * 1000 + "\nlast line")
    assert proc.stderr == "atexit ran\n"  # and not "teardown ran"


def test_finish_waits_for_a_running_thread_the_normal_way():
    proc = run("thread", "0")
    assert proc.returncode == 0
    assert proc.stdout.endswith("last linethread done\n")
    assert "atexit ran" in proc.stderr


def test_console_entry_exit_codes_and_output(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "vaultmem", "cron", "--vault", str(tmp_path)],
                        capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert ok.returncode == 0 and ok.stdout.count("\n") == 4, ok.stderr
    missing = subprocess.run([sys.executable, "-m", "vaultmem", "status", "--vault",
                              str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "no index at" in missing.stderr
