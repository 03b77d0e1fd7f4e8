"""Where the vault meets the outside world: symlinks swapped in, stores from a newer
vaultmem, clocks at the end of time, full disks, vaults that vanish, runs that are stopped.

Each test here reproduces one way an agent, an editor or the system could make vaultmem
read outside the vault, lose something stored, or fail without a clear word.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from mcp import Client

from vaultmem.interfaces.cli import main
from vaultmem.interfaces.mcp_server import Service, build

from .conftest import FakeEmbedder

NOW = datetime(2026, 8, 15, 9, 0)
SECRET = "Never read this: the outside file"


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "notes").mkdir(parents=True)
    (outside / "secret.md").write_text(f"# Secret\n\n{SECRET}\n")
    (outside / "notes" / "victim.md").write_text(f"# Victim\n\n{SECRET}\n")
    return outside


def _victim_vault(make_vault, tmp_path: Path):
    return make_vault({"notes/victim.md": "# Victim\n\nThe real note.\n",
                       "Home.md": "# Home\n\n[[victim]]\n"}, index_at=NOW)


def _get(vault, name: str) -> dict:
    return vault.get(name).as_dict()


def _get_via_mcp(root: Path, path: str) -> str:
    service = Service(root, None, watch=False, embedder=FakeEmbedder())

    async def run():
        async with Client(build(service)) as client:
            return await client.call_tool("get_note", {"path": path})

    try:
        result = anyio.run(run)
    finally:
        assert service.close(timeout=30)
    return result.content[0].text


# -- 1. `get` and MCP `get_note` never read outside the vault ----------------------------

@pytest.mark.parametrize("swap", ["note", "folder"])
def test_get_does_not_read_through_a_symlink_swapped_in_after_the_index(
        make_vault, tmp_path, swap, capsys):
    """Before the fix: `get victim` printed the outside file (the path was read as is)."""
    vault = _victim_vault(make_vault, tmp_path)
    outside = _outside(tmp_path)
    root = vault.settings.vault
    if swap == "note":
        (root / "notes" / "victim.md").unlink()
        os.symlink(outside / "secret.md", root / "notes" / "victim.md")
    else:
        (root / "notes" / "victim.md").unlink()
        (root / "notes").rmdir()
        os.symlink(outside / "notes", root / "notes")
    doc = _get(vault, "victim")
    assert doc["text"] is None and doc["on_disk"] is False
    assert SECRET not in json.dumps(doc)
    assert main(["get", "notes/victim.md", "--vault", str(root), "--json"]) == 0
    assert SECRET not in capsys.readouterr().out


@pytest.mark.parametrize("swap", ["note", "folder"])
def test_a_deleted_note_is_never_read_from_disk(make_vault, tmp_path, swap, capsys):
    """After a re-index the swapped note is marked deleted, and an exact path matched it:
    before the fix `get notes/victim.md` and `get_note` read the outside file."""
    vault = _victim_vault(make_vault, tmp_path)
    outside = _outside(tmp_path)
    root = vault.settings.vault
    (root / "notes" / "victim.md").unlink()
    if swap == "note":
        os.symlink(outside / "secret.md", root / "notes" / "victim.md")
    else:
        (root / "notes").rmdir()
        os.symlink(outside / "notes", root / "notes")
    report = vault.index(now=NOW)
    assert report.deleted == 1
    assert any("outside the vault" in m for _, _, m in report.warnings)
    doc = _get(vault, "notes/victim.md")
    assert doc["deleted"] is True and doc["text"] is None
    assert main(["get", "notes/victim.md", "--vault", str(root)]) == 0
    assert SECRET not in capsys.readouterr().out
    text = _get_via_mcp(root, "notes/victim.md")
    assert SECRET not in text and json.loads(text)["deleted"] is True


def test_the_indexer_does_not_read_a_file_swapped_for_a_symlink_after_the_walk(
        make_vault, tmp_path, monkeypatch):
    """The walk saw a plain file; by the time it is read it is a symlink out."""
    from vaultmem import indexer

    vault = make_vault({"a.md": "# A\n\nplain\n"}, index_at=NOW)
    root = vault.settings.vault
    outside = _outside(tmp_path)
    (root / "b.md").write_text("# B\n\nnew note\n")
    real_scan = indexer.scan

    def scan_then_swap(*args, **kwargs):
        found = real_scan(*args, **kwargs)
        (root / "b.md").unlink()
        os.symlink(outside / "secret.md", root / "b.md")
        return found

    monkeypatch.setattr(indexer, "scan", scan_then_swap)
    report = vault.index(now=NOW)
    assert ("b.md", None, "symlink points outside the vault: not followed") in report.warnings
    texts = [t for (t,) in vault.store.execute("SELECT text FROM chunks")]
    assert not any(SECRET in t for t in texts)


# -- 7. the parse budget: the safety net under linear readers ----------------------------

def test_a_note_over_the_parse_budget_is_indexed_by_name_with_a_warning(make_vault,
                                                                        monkeypatch):
    """Should a reader ever crawl again, the note is skipped with a warning instead of
    stalling the run (and `watch`, and every MCP answer). The stand-in reader below
    never ends on its own; the budget is CPU time, so this waits on no clock."""
    from vaultmem import indexer
    from vaultmem.text import parse

    real = parse.parse_note

    def crawl(text, path, **kwargs):
        if path == "slow.md" and text:
            while True:
                pass
        return real(text, path, **kwargs)

    monkeypatch.setattr(indexer, "PARSE_BUDGET", 0.2)
    monkeypatch.setattr(parse, "parse_note", crawl)
    vault = make_vault({"slow.md": "# Slow\n\nwords\n", "fine.md": "# Fine\n\nwords\n"},
                       ledger="- [ ] Call mum ^mum\n", index_at=NOW)
    stored = dict(vault.store.execute("SELECT path, problem FROM notes"))
    assert stored["fine.md"] is None and "took over 0.2 s of CPU" in stored["slow.md"]
    assert vault.get("slow").as_dict()["title"] == "slow"
    assert [e["id"] for e in vault.ledger().as_dict()["results"]] == ["mum"]
    warnings = vault.status().as_dict()["warnings"]
    assert [w["path"] for w in warnings] == ["slow.md"]


def test_a_budget_that_never_fires_leaves_nothing_behind():
    """A call that ends in time is never interrupted later, even when the watchdog looks
    at it just as it returns."""
    from vaultmem.budget import Budget, OverBudget

    budget = Budget(0.05)
    try:
        for _ in range(200):
            assert budget.run(lambda: sum(range(2_000))) == 1_999_000
        with pytest.raises(OverBudget):
            budget.run(_spin)
        assert budget.run(lambda: "after") == "after"
        total = 0
        for i in range(200_000):  # plain code after the budget fired: never interrupted
            total += i
        assert total == 19_999_900_000
    finally:
        budget.close()


def _spin():
    while True:
        pass


# -- 6. a store made by a newer vaultmem -------------------------------------------------

def _store_bytes(db: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name)}


@pytest.mark.parametrize("how", ["user_version", "unknown migration"])
def test_a_store_from_a_newer_vaultmem_is_refused_and_left_alone(make_vault, capsys, how):
    """Before: opened, migrated where it could be and written without a word."""
    from vaultmem.store import migrations

    vault = make_vault({"Home.md": "# Home\n\ntext\n"}, ledger="- [ ] Call mum ^mum\n",
                       index_at=NOW)
    root, db = vault.settings.vault, vault.settings.db
    vault.close()
    conn = sqlite3.connect(db)
    if how == "user_version":
        conn.execute(f"PRAGMA user_version = {len(migrations.MIGRATIONS) + 3}")
        schema = len(migrations.MIGRATIONS) + 3
    else:
        conn.execute("INSERT INTO _migrations VALUES ('m099_from_the_future', 'later')")
        schema = len(migrations.MIGRATIONS) + 1
    conn.commit()
    conn.close()
    ledger_before = (root / "Ledger.md").read_bytes()
    before = _store_bytes(db)
    for args in (["status"], ["query", "home"], ["ledger"], ["ledger", "show", "mum"],
                 ["due"], ["get", "Home"], ["nudge"], ["salience"], ["index"],
                 ["index", "--full"], ["index", "--rebuild"], ["ledger", "add", "Another"]):
        code = main([*args, "--vault", str(root)])
        err = capsys.readouterr().err
        assert code == 1, (args, err)
        assert f"made by a newer vaultmem (schema {schema} > {len(migrations.MIGRATIONS)}" \
            in err and "upgrade vaultmem" in err, (args, err)
        assert len(err.strip().splitlines()) == 1
    assert _store_bytes(db) == before
    assert (root / "Ledger.md").read_bytes() == ledger_before


def test_a_store_records_its_schema_in_its_header(make_vault):
    """An older vaultmem can only refuse what it can see: the header says how many
    migrations made the store (0 before this change), and an older store is stamped
    when it is opened."""
    from vaultmem import Vault
    from vaultmem.store import migrations

    vault = make_vault({"Home.md": "# Home\n"}, index_at=NOW)
    db = vault.settings.db
    assert vault.store.execute("PRAGMA user_version").fetchone()[0] == \
        len(migrations.MIGRATIONS)
    vault.close()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 0")  # as every store before this change
    conn.commit()
    conn.close()
    with Vault.open(vault.settings.vault, embedder=FakeEmbedder()) as again:
        assert again.store.execute("PRAGMA user_version").fetchone()[0] == \
            len(migrations.MIGRATIONS)


# -- 8. a clock at the end (or the start) of time ------------------------------------------

@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59", "0001-01-01", "9000-12-31T23:00-14:00",
                                    "9999-12-31T23:59:59-14:00"])
@pytest.mark.parametrize("command", [["nudge"], ["due"], ["query", "home"], ["salience"],
                                     ["index"], ["ledger", "accept", "f-x"],
                                     ["feedback", "mum", "dismiss"]])
def test_now_out_of_range_is_a_usage_error_naming_the_range(make_vault, capsys, command,
                                                             moment):
    """Before: `nudge --now 9999-12-31T23:59:59` was 'internal error: OverflowError'."""
    vault = make_vault({"Home.md": "# Home\n"}, ledger="- [ ] Call mum ^mum\n", index_at=NOW)
    code = main([*command, "--vault", str(vault.settings.vault), "--now", moment])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "out of range: give a moment between 1000-01-01 and 9000-12-31" in err
    assert "internal error" not in err and "Traceback" not in err


def test_the_library_and_mcp_refuse_a_moment_out_of_range(make_vault):
    from vaultmem.errors import UsageError

    vault = make_vault({"Home.md": "# Home\n"}, ledger="- [ ] Call mum ^mum\n", index_at=NOW)
    for call in (lambda: vault.nudge(now=datetime(9999, 12, 31, 23, 59, 59)),
                 lambda: vault.due(now=datetime(1, 1, 1)),
                 lambda: vault.query("home", now=datetime(9999, 1, 1))):
        with pytest.raises(UsageError, match="out of range"):
            call()
    assert vault.nudge(now=datetime(9000, 12, 31, 23, 0)) is not None  # the edge itself
    # a string names `now` as a datetime does (before: "9999-12-31T00:00:00 is out of …")
    for now in ("9999-12-31", datetime(9999, 12, 31)):
        with pytest.raises(UsageError, match="^`now` 9999-12-31T00:00:00 is out of range"):
            vault.due(now=now)
    service = Service(vault.settings.vault, None, watch=False, embedder=FakeEmbedder())

    async def run():
        async with Client(build(service)) as client:
            return await client.call_tool("due", {"now": "9999-12-31T23:59:59"})

    try:
        result = anyio.run(run)
    finally:
        assert service.close(timeout=30)
    assert result.is_error and "out of range" in result.content[0].text


# -- 10. warnings of notes deleted or moved since -----------------------------------------

def test_warnings_of_a_deleted_or_moved_note_are_cleared(make_vault):
    """Before: `status` kept warning about files that no longer existed."""
    broken = "---\ntitle: \"never closed\n---\nbody\n"
    vault = make_vault({"gone.md": broken, "moved.md": broken, "kept.md": broken,
                        "Home.md": "# Home\n"}, ledger="- [?] Odd status\n", index_at=NOW)
    root = vault.settings.vault

    def warned() -> list[str]:
        return sorted({w["path"] for w in vault.status().as_dict()["warnings"]})

    assert warned() == ["Ledger.md", "gone.md", "kept.md", "moved.md"]
    (root / "gone.md").unlink()
    (root / "moved.md").rename(root / "elsewhere.md")
    (root / "Ledger.md").rename(root / "Old ledger.md")  # no longer a ledger: its warning goes
    vault.index(now=NOW)
    assert warned() == ["elsewhere.md", "kept.md"]


# -- 12. the vault folder vanishing under a run ---------------------------------------------

@pytest.mark.parametrize("store_inside", [True, False], ids=["store inside", "store apart"])
def test_a_vault_deleted_during_the_index_fails_the_run_and_marks_nothing_deleted(
        make_vault, monkeypatch, capsys, tmp_path, store_inside):
    """Before: `rm -rf` of the vault during `index` returned 0 (every read failed one by
    one, as if the notes were being edited)."""
    import shutil

    from vaultmem import indexer

    db = None if store_inside else tmp_path / "apart" / "store.db"
    vault = make_vault({f"n{i}.md": f"# Note {i}\n\ntext {i}\n" for i in range(5)},
                       ledger="- [ ] Call mum ^mum\n", index_at=NOW,
                       **({} if db is None else {"db": db}))
    root = vault.settings.vault
    for i in range(5):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nchanged {i}\n")
    real_read = indexer._Reader.read
    gone = []

    def read_then_vanish(self, path):
        if not gone:
            gone.append(path)
            shutil.rmtree(root)
        return real_read(self, path)

    monkeypatch.setattr(indexer._Reader, "read", read_then_vanish)
    vault.close()
    code = main(["index", str(root), "--db", str(vault.settings.db)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert f"the vault disappeared at {root}" in err and err.count("\n") == 1
    if store_inside:
        return  # the store went with it
    from vaultmem.store import Store

    store = Store.open(vault.settings.db)
    try:
        assert store.execute("SELECT count(*) FROM notes WHERE deleted = 1").fetchone() == (0,)
        assert store.execute("SELECT count(*) FROM entries WHERE present = 1").fetchone() == (1,)
        assert store.execute("SELECT status FROM runs ORDER BY id DESC LIMIT 1").fetchone() == (
            "failed",)
    finally:
        store.close()


def test_a_vault_gone_before_the_walk_is_never_indexed_as_empty(make_vault, monkeypatch):
    import shutil

    from vaultmem import indexer
    from vaultmem.errors import VaultGoneError

    vault = make_vault({"a.md": "# A\n"}, ledger="- [ ] Call mum ^mum\n", index_at=NOW)
    root = vault.settings.vault
    real_scan = indexer.scan

    def vanish_then_scan(*args, **kwargs):
        shutil.rmtree(root)
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(indexer, "scan", vanish_then_scan)
    with pytest.raises(VaultGoneError, match="the vault disappeared"):
        vault.index(now=NOW)
    assert vault.store.execute("SELECT count(*) FROM notes WHERE deleted = 1").fetchone() == (0,)


# -- 13. an index run stopped by SIGTERM, or killed ----------------------------------------

STOPPABLE = r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
from tests.conftest import FakeEmbedder
import vaultmem.embed
vaultmem.embed.FastEmbedder = lambda settings: FakeEmbedder()
from vaultmem import indexer
from vaultmem.interfaces.cli import main

def held(*args, **kwargs):
    print("embedding", flush=True)  # mid-run, under the writer lock
    threading.Event().wait()  # until a signal ends it

indexer.embed_missing = held
sys.exit(main(["index", sys.argv[2]]))
"""


def _stoppable_index(root: Path):
    import subprocess
    import sys

    from .conftest import ROOT

    proc = subprocess.Popen([sys.executable, "-c", STOPPABLE, str(ROOT), str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "embedding", proc.stderr.read()
    return proc


def _last_index_run(root: Path, capsys) -> str:
    assert main(["status", "--json", "--vault", str(root)]) == 0
    return json.loads(capsys.readouterr().out)["last_runs"]["index"]["status"]


def test_sigterm_stops_an_index_run_and_records_it_interrupted(make_vault, capsys):
    """Before: the process died with its run marked "running", and `status` said so with
    nothing running."""
    import signal

    vault = make_vault({"a.md": "# A\n"}, index_at=NOW)
    root = vault.settings.vault
    (root / "b.md").write_text("# B\n\nnew\n")
    proc = _stoppable_index(root)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert err.strip().splitlines()[-1].startswith("vaultmem: stopped: the index run was "
                                                    "interrupted")
    assert _last_index_run(root, capsys) == "interrupted"
    row = vault.store.execute("SELECT status, finished FROM runs ORDER BY id DESC LIMIT 1")
    status, finished = row.fetchone()
    assert status == "interrupted" and finished  # recorded, not only shown
    vault.index(now=NOW)
    assert _last_index_run(root, capsys) == "ok"


def test_a_killed_run_is_shown_interrupted_when_nothing_runs(make_vault, capsys):
    import signal

    vault = make_vault({"a.md": "# A\n"}, index_at=NOW)
    root = vault.settings.vault
    (root / "b.md").write_text("# B\n\nnew\n")
    proc = _stoppable_index(root)
    assert _last_index_run(root, capsys) == "running"  # it is: it holds the writer lock
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    assert _last_index_run(root, capsys) == "interrupted"


# -- 9. a full disk ----------------------------------------------------------------------

class _Usage:
    def __init__(self, free: int):
        self.total, self.used, self.free = 10**9, 10**9 - free, free


@pytest.mark.parametrize("failure, free, said", [
    (lambda: __import__("sqlite3").OperationalError("database or disk is full"), 3_000_000,
     "the disk is full (3 MB free at"),
    (lambda: __import__("sqlite3").OperationalError("disk I/O error"), 1_000_000,
     "the disk is full (1 MB free at"),
    (lambda: OSError(28, "No space left on device"), 0, "the disk is full (0 MB free at"),
    (lambda: __import__("sqlite3").OperationalError("disk I/O error"), 50_000_000_000,
     "reported an I/O error: check it"),
])
def test_a_full_disk_is_named_with_its_free_space(make_vault, monkeypatch, capsys, failure,
                                                   free, said):
    """Before: 'internal error: OperationalError: database or disk is full', or 'disk I/O
    error'. The failure is made where the index writes its vectors; the free space is
    what the disk reports."""
    import shutil

    from vaultmem import indexer

    vault = make_vault({"a.md": "# A\n"}, index_at=NOW)
    root = vault.settings.vault
    vault.close()
    (root / "b.md").write_text("# B\n\nnew text to embed\n")

    def full(*args, **kwargs):
        raise failure()

    monkeypatch.setattr(indexer, "embed_missing", full)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _Usage(free))
    code = main(["index", str(root)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert said in err and "internal error" not in err and err.count("\n") == 1, err
    if "disk is full" in said:
        assert f"at {root / '.vaultmem'}" in err and "free some space" in err


def test_a_full_disk_under_ledger_add_and_mcp(make_vault, monkeypatch, capsys):
    import shutil

    from vaultmem import ledger_append

    vault = make_vault({"a.md": "# A\n"}, ledger="- [ ] Call mum ^mum\n", index_at=NOW)
    root = vault.settings.vault
    before = (root / "Ledger.md").read_bytes()

    def no_room(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ledger_append.os, "fsync", no_room)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: _Usage(0))
    assert main(["ledger", "add", "Book the tiler", "--vault", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"vaultmem: the disk is full (0 MB free at {root})"), err
    assert (root / "Ledger.md").read_bytes() == before
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]

    service = Service(root, None, watch=False, embedder=FakeEmbedder())

    async def run():
        async with Client(build(service)) as client:
            return await client.call_tool("add_commitment", {"text": "Book the tiler"})

    try:
        result = anyio.run(run)
    finally:
        assert service.close(timeout=30)
    assert result.is_error and result.content[0].text.startswith("the disk is full (0 MB")
