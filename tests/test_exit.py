"""The console script ends without the interpreter's teardown, and loses nothing by it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import datetime

from .conftest import ROOT

PROGRAM = r"""
import atexit, sys, threading
from vaultmem.interfaces.cli import finish

class Teardown:
    def __del__(self):
        sys.stderr.write("teardown ran\n")

keep = Teardown()  # a module global: freed only by the interpreter's teardown
atexit.register(lambda: sys.stderr.write("atexit ran\n"))
if sys.argv[1] == "thread":
    threading.Thread(target=lambda: (__import__("time").sleep(0.3),
                                     sys.stdout.write("thread done\n"))).start()
if sys.argv[1] == "daemon":  # like the model loading in the background: never waited for
    threading.Thread(target=lambda: __import__("time").sleep(600), daemon=True).start()
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


def test_finish_does_not_wait_for_a_daemon_thread():
    proc = run("daemon", "1")
    assert proc.returncode == 1
    assert proc.stdout.endswith("last line") and proc.stderr == "atexit ran\n"


def test_console_entry_exit_codes_and_output(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "vaultmem", "cron", "--vault", str(tmp_path)],
                        capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert ok.returncode == 0 and ok.stdout.count("\n") == 4, ok.stderr
    missing = subprocess.run([sys.executable, "-m", "vaultmem", "status", "--vault",
                              str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "no index at" in missing.stderr


QUERY = r"""
import sys
sys.path.insert(0, sys.argv[1])
from tests.conftest import FakeEmbedder
import vaultmem.embed
vaultmem.embed.query_embedder = lambda settings: FakeEmbedder()
from vaultmem.interfaces.cli import entry
sys.argv = ["vaultmem", "query", "boiler valve", "--vault", sys.argv[2], "--json"]
entry()
"""


def test_console_query_closes_the_store_before_it_exits(make_vault, fake_embedder):
    """A closed store leaves no WAL behind: the query's mention log is in the database."""
    from datetime import datetime

    indexed = make_vault({"boiler.md": "# Boiler\n\nThe boiler valve leaks.\n"},
                         embedder=fake_embedder, index_at=datetime(2026, 8, 15))
    indexed.close()
    vault, settings = indexed.settings.vault, indexed.settings
    before = count_ops(settings.db)
    proc = subprocess.run([sys.executable, "-c", QUERY, str(ROOT), str(vault)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert '"boiler.md"' in proc.stdout
    assert not settings.db.with_name(settings.db.name + "-wal").exists()
    assert count_ops(settings.db) > before


def count_ops(db) -> int:
    conn = sqlite3.connect(db)  # closed here: an open reader would keep the WAL alive
    try:
        return conn.execute("SELECT count(*) FROM ops").fetchone()[0]
    finally:
        conn.close()


LEFT_OPEN = r"""
import sys
from vaultmem.interfaces.cli import finish
from vaultmem.store import Store

store = Store.open(sys.argv[1])  # a module global, never closed by the program
store.add_op("2026-08-15T09:00:00", "retrieved", 1)
finish(0)
"""


def test_finish_closes_a_store_the_program_left_open(tmp_path):
    """Skipping the teardown must not skip closing: the write is in the database and no
    WAL is left behind."""
    from vaultmem.store import Store

    db = tmp_path / "vaultmem.db"
    Store.open(db, create=True).close()
    proc = subprocess.run([sys.executable, "-c", LEFT_OPEN, str(db)], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert not db.with_name(db.name + "-wal").exists()
    assert count_ops(db) == 1


def test_a_noop_index_loads_neither_numpy_nor_the_markdown_parser(make_vault, tmp_path):
    """An hourly cron run on an unchanged vault pays for its imports: the vectors and
    the note parser are loaded by the first note read or embedded, not before."""
    from vaultmem import config
    from vaultmem.embed import fingerprint_for

    from .conftest import FakeEmbedder, modules_loaded

    stand_in = FakeEmbedder()  # its vectors filed under the real model's fingerprint
    stand_in.fingerprint = fingerprint_for(config.load(tmp_path / "vault"))
    vault = make_vault({"a.md": "# A\n\nOne note [[b]].\n", "b.md": "# B\n\nAnother.\n"},
                       embedder=stand_in, index_at=datetime(2026, 8, 1))
    program = ("import sys\nfrom vaultmem.interfaces.cli import main\n"
               "assert main(['index', sys.argv[1], '--json']) == 0")
    assert modules_loaded(program, ("numpy", "markdown_it", "frontmatter", "yaml",
                                    "fastembed", "onnxruntime"),
                          str(vault.settings.vault)) == []
