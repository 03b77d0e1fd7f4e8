"""The store's health: a damaged file is named as such and rebuilt with its history, a
read-only store still answers queries, one writer at a time (filelock), killed runs are
marked interrupted, and a store path must be a regular file.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from vaultmem import Vault, recover
from vaultmem.errors import BusyError, StoreDamagedError, StoreReadOnlyError
from vaultmem.interfaces.cli import main
from vaultmem.ledger import parse_ledger
from vaultmem.store import Store, explain, writer_lock
from vaultmem.store import connection as store_mod

from .conftest import ROOT, FakeEmbedder

pytestmark = pytest.mark.usefixtures("fake_model")  # CLI runs here embed with the fake


def run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()  # what came before is not this command's
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def with_history(make_vault) -> Path:
    """Three notes indexed on August 1 and 2 with a ledger edit between (so the store holds
    history), then closed: the vault's folder."""
    vault = make_vault({
        "Boiler.md": "# Boiler\n\nThe boiler needs a service before winter.\n",
        "Plumber.md": "# Plumber\n\nAsk the plumber about the valve. [[Boiler]]\n"},
        ledger="- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]\n"
               "- [ ] Service the boiler [[Boiler]] ^boiler\n", index_at=datetime(2026, 8, 1))
    (vault.settings.vault / "Ledger.md").write_text(
        "- [ ] Pay the plumber's invoice 📅 2026-08-20 [[Plumber]]\n"
        "- [x] Service the boiler [[Boiler]] ^boiler\n")
    vault.index(now=datetime(2026, 8, 2))
    vault.close()
    return vault.settings.vault


def damage(db: Path, table: str, seed: int = 1) -> None:
    """4 KB of random bytes over a leaf page of `table`, in the middle of it."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    try:
        pages = [r[0] for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno",
            [table])]
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table to find a page by")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(db, "r+b") as fh:
        fh.seek((pages[len(pages) // 2] - 1) * size)
        fh.write(random.Random(seed).randbytes(4096))


class _SlowCheck(store_mod._BackgroundCheck):
    """A writer's background check that has not got far when the run decides: it reads
    nothing until cancelled (on a loaded machine a real check of a small store may finish
    first, and then a no-op run rightly names the damage it found)."""

    def _run(self, path: Path) -> None:
        while not self.cancelled:
            time.sleep(0.001)


def test_a_damaged_store_is_named_and_rebuilt_with_its_readable_history(make_vault, capsys,
                                                                         monkeypatch):
    vault = with_history(make_vault)
    db = vault / ".vaultmem" / "vaultmem.db"
    store = Store.open(db)
    with store.atomic():  # a long ops log, so the damage lands among queries' mentions
        for i in range(3000):
            store.add_op("2026-08-03T10:00:00", "retrieved", 1, detail={"rank": i % 5})
        sid = store.insert("surfacings", {"item_id": "boiler", "ts": "2026-08-03T09:00:00",
                                          "value": 1.2, "message": "m"})
        store.insert("feedback", {"surfacing_id": sid, "item_id": "boiler",
                                  "ts": "2026-08-03T09:05:00", "kind": "dismiss"})
    ops_before = store.execute("SELECT count(*) FROM ops").fetchone()[0]
    history = store.execute("SELECT id, op, entry_id FROM ops WHERE entry_id IS NOT NULL "
                            "ORDER BY id").fetchall()
    store.close()
    damage(db, "ops")
    size = db.stat().st_size

    with monkeypatch.context() as patch:  # nothing to change: the check is stopped unread
        patch.setattr(store_mod, "_BackgroundCheck", _SlowCheck)
        code, out, err = run(capsys, "index", vault, "--json")
    assert code == 0, err
    assert json.loads(out)["new"] == 0 and "is damaged" not in err
    boiler = (vault / "Boiler.md").read_text()
    (vault / "Boiler.md").write_text(boiler + "\nService booked.\n")  # now a run writes
    for args in (["status"], ["index", vault], ["index", vault, "--full"]):
        code, out, err = run(capsys, *args, "--vault", vault)
        assert code == 1 and "internal error" not in err, err
        assert "is damaged" in err and "vaultmem index --rebuild" in err
        assert err.count("\n") == 1
    code, out, err = run(capsys, "query", "boiler", "--vault", vault)
    assert "internal error" not in err

    (vault / "Boiler.md").write_text(boiler)
    size = db.stat().st_size
    code, out, err = run(capsys, "index", vault, "--rebuild", "--json")
    assert code == 0, err
    doc = json.loads(out)
    moved = Path(doc["rebuild"]["moved_to"])
    assert moved.exists() and moved.stat().st_size == size  # kept as it was
    carried, lost = doc["rebuild"]["carried"], doc["rebuild"]["lost"]
    messages = [w["message"] for w in doc["warnings"]]
    assert lost.keys() == {"ops"} and "could not be read" in messages[0]
    # where the old store went and what came over is information, not a warning
    assert not [m for m in messages if m.startswith(("the old store", "carried over"))]
    assert 0 < ops_before - carried["ops"] < 400  # one page of short rows, no more
    assert carried["entries"] == 2 and carried["feedback"] == 1
    assert doc["new"] == 0 and doc["embedded"] == 0  # same notes, same vectors

    store = Store.open(db)
    assert store.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert store.execute("SELECT id, op, entry_id FROM ops WHERE entry_id IS NOT NULL "
                         "ORDER BY id").fetchall() == history
    assert {r[0] for r in store.execute("SELECT id FROM entries")} == \
        {"boiler", "c-pay-plumber-invoice"}
    code, out, err = run(capsys, "status", "--vault", vault, "--json")
    assert code == 0 and json.loads(out)["counts"]["notes"] == 3
    code, out, err = run(capsys, "ledger", "show", "boiler", "--vault", vault, "--json")
    assert code == 0 and "done" in out


class _DoneCheck(store_mod._BackgroundCheck):
    """A writer's background check that finished before the run decided."""

    def __init__(self, path: Path):
        super().__init__(path)
        self.thread.join()


def test_a_no_op_run_names_the_damage_its_check_already_found(make_vault, capsys,
                                                              monkeypatch):
    vault = with_history(make_vault)
    db = vault / ".vaultmem" / "vaultmem.db"
    store = Store.open(db)
    with store.atomic():
        for i in range(3000):
            store.add_op("2026-08-03T10:00:00", "retrieved", 1, detail={"rank": i % 5})
    store.close()
    damage(db, "ops")
    monkeypatch.setattr(store_mod, "_BackgroundCheck", _DoneCheck)
    code, out, err = run(capsys, "index", vault, "--json")
    assert code == 1 and "is damaged" in err and "vaultmem index --rebuild" in err


def test_every_table_is_either_carried_over_or_made_again(tmp_path):
    store = Store.open(tmp_path / "s.db", create=True)
    tables = {r[0] for r in store.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    made_again = {t for t in tables if t in recover.DERIVED or t.startswith("chunks_fts_")}
    assert tables - made_again == set(recover.HISTORY)


def test_a_store_whose_first_page_is_gone_is_rebuilt_from_the_vault(make_vault, capsys):
    vault = with_history(make_vault)
    db = vault / ".vaultmem" / "vaultmem.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db, "r+b") as fh:
        fh.write(random.Random(2).randbytes(4096))
    code, out, err = run(capsys, "status", "--vault", vault)
    assert code == 1 and "is damaged" in err and "internal error" not in err
    code, out, err = run(capsys, "index", vault, "--rebuild", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["rebuild"]["carried"] == {} and doc["new"] == 3
    assert "table list is unreadable" in json.dumps(doc["rebuild"]["lost"])


def test_a_read_only_store_answers_queries_and_refuses_writes(make_vault, capsys, monkeypatch):
    vault = with_history(make_vault)
    monkeypatch.setattr(store_mod, "_writable", lambda path: False)  # as on a read-only mount
    code, out, err = run(capsys, "query", "boiler service", "--vault", vault, "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["path"] == "Boiler.md"
    code, out, err = run(capsys, "status", "--vault", vault, "--json")
    assert code == 0, err
    for args in (["index", vault], ["salience"], ["nudge", "--now", "2026-08-15T10:00"]):
        code, out, err = run(capsys, *args, "--vault", vault)
        assert code == 1 and "is read-only" in err and "internal error" not in err, err
    store = Store.open(vault / ".vaultmem" / "vaultmem.db")
    assert store.read_only
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.execute("DELETE FROM ops")
    with pytest.raises(StoreReadOnlyError):
        with store.writer_lock("index"):
            pass


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file permissions")
def test_a_store_in_a_folder_without_write_permission_is_opened_read_only(make_vault, capsys):
    vault = with_history(make_vault)
    folder = vault / ".vaultmem"
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)
    try:
        code, out, err = run(capsys, "query", "boiler", "--vault", vault, "--json")
        assert code == 0, err
        code, out, err = run(capsys, "index", vault)
        assert code == 1 and "read-only" in err
    finally:
        folder.chmod(0o755)


def test_one_writer_at_a_time_with_filelock(tmp_path):
    db = tmp_path / "s.db"
    with writer_lock(db, "index"):
        with pytest.raises(BusyError, match="already writing .*s.db: wait for it to finish, "
                                            "then run `vaultmem salience` again"):
            with writer_lock(db, "salience"):
                pass
        holder = subprocess.run(
            [sys.executable, "-c", "import sys; from pathlib import Path; "
             "from vaultmem.store import writer_lock\n"
             "try:\n    with writer_lock(Path(sys.argv[1]), 'index'): print('got it')\n"
             "except Exception as e: print(type(e).__name__)", str(db)],
            capture_output=True, text=True, cwd=ROOT, check=True)
        assert holder.stdout.strip() == "BusyError"
    with writer_lock(db, "index"):  # released
        pass
    assert "fcntl" not in Path(store_mod.__file__).read_text()


def test_killed_runs_are_marked_interrupted_when_the_next_run_starts(make_vault):
    opened = make_vault(root=with_history(make_vault))
    settings, store = opened.settings, opened.store
    killed = store.start_run("index", "2026-08-03T10:00:00")  # then SIGKILL: never finished
    with writer_lock(settings.db, "index"):  # another writer really is running
        second = store.start_run("salience", "2026-08-03T10:01:00")
    assert store.execute("SELECT status FROM runs WHERE id = ?", [killed]).fetchone() == (
        "running",)
    with store.writer_lock("index"):
        store.start_run("index", "2026-08-03T11:00:00")
    rows = dict(store.execute("SELECT id, status FROM runs WHERE id IN (?, ?)",
                              [killed, second]).fetchall())
    assert rows == {killed: "interrupted", second: "interrupted"}


def test_a_store_path_that_is_not_a_regular_file_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("VAULTMEM_DB", "/dev/null")
    code, out, err = run(capsys, "status", "--vault", tmp_path)
    assert code == 1 and "/dev/null is not a regular file" in err
    assert not Path("/dev/null-journal").exists() and not Path("/dev/null-wal").exists()
    code, out, err = run(capsys, "index", tmp_path)
    assert code == 1 and "not a regular file: point --db (or VAULTMEM_DB)" in err
    from vaultmem import Vault
    from vaultmem.errors import VaultmemError

    with pytest.raises(VaultmemError, match=r"point `db` \(or VAULTMEM_DB\)"):
        Vault.open(tmp_path, "/dev/null")


def test_a_block_id_on_two_entries_is_warned_about():
    entries, warnings = parse_ledger("- [ ] Pay rent ^rent\n- [ ] Call Jo ^rent\n")
    assert [e.block_id for e in entries] == ["rent", "rent"]
    assert [(w.line, w.message) for w in warnings] == [
        (2, "block id ^rent is already on line 1: give this entry its own")]


def test_the_writer_check_runs_beside_the_walk_and_every_write_waits_for_it(
        make_vault, fake_embedder, monkeypatch):
    """quick_check runs in the background while the run walks and plans (a check that
    waits for the walk to begin would deadlock a run that checked first), and a failed
    check stops the run before its first write: no run row, no note."""
    import threading

    from vaultmem import config, indexer
    from vaultmem.errors import StoreDamagedError

    vault = with_history(make_vault)
    (vault / "New.md").write_text("# New\n\nA note the run must not write.\n")
    db = vault / ".vaultmem" / "vaultmem.db"
    walking, verdict = threading.Event(), {"damaged": True}
    scan = indexer.scan

    def check(conn, path):
        assert walking.wait(10), "the check did not run beside the walk"
        if verdict["damaged"]:
            raise StoreDamagedError(path, "simulated")

    def walk(*args, **kwargs):
        walking.set()
        return scan(*args, **kwargs)

    monkeypatch.setattr(store_mod, "quick_check", check)
    monkeypatch.setattr(indexer, "scan", walk)
    store = Store.open(db)
    runs = store.execute("SELECT count(*) FROM runs").fetchone()[0]
    settings = config.load(vault)
    with pytest.raises(StoreDamagedError):
        with store.writer_lock("index"):
            indexer.index_vault(store, settings, fake_embedder, now=datetime(2026, 8, 3))
    assert store.execute("SELECT count(*) FROM runs").fetchone()[0] == runs
    assert store.execute("SELECT 1 FROM notes WHERE path = 'New.md'").fetchone() is None

    walking.clear()
    verdict["damaged"] = False
    with store.writer_lock("index"):
        report = indexer.index_vault(store, settings, fake_embedder,
                                     now=datetime(2026, 8, 3))
    assert report.new == 1 and walking.is_set()
    store.close()


def test_a_damaged_store_is_named_even_when_another_vault_was_opened_after_it(make_vault):
    """Two vaults in one process (a library caller, an MCP host): the damage of the first
    is named at the first's path, not at the store opened last."""
    damaged = with_history(make_vault)
    db = damaged / ".vaultmem" / "vaultmem.db"
    store = Store.open(db)
    with store.atomic():  # enough ops rows for the damage to land among them
        for i in range(3000):
            store.add_op("2026-08-03T10:00:00", "retrieved", 1, detail={"rank": i % 5})
    store.close()
    damage(db, "ops")
    first = Vault.open(damaged, embedder=FakeEmbedder())
    other = make_vault({"Note.md": "# Note\n\nA sound vault.\n"}, root=damaged.parent / "b")
    try:
        with pytest.raises(sqlite3.DatabaseError) as raised:
            first.store.execute("SELECT sum(length(detail)) FROM ops").fetchall()
        known = explain(raised.value)
        assert isinstance(known, StoreDamagedError)
        assert str(db) in str(known) and str(other.store.path) not in str(known)
    finally:
        first.close()
