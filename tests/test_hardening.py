"""Hardening: crashes, concurrent processes, hostile vaults, fuzzed vaults, no network, upgrades.

The long parts are scripts with a short mode called here (scripts/crash_test.py,
scripts/torture_vault.py); their full modes are for humans.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import re
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlite_utils import Database

from vaultmem import Vault
from vaultmem.interfaces.cli import main
from vaultmem.store import Store, migrations

from .conftest import ROOT, FakeEmbedder, open_vault

NOW = datetime(2026, 8, 15, 9, 0)
PY = sys.executable
SCRIPTS = ROOT / "scripts"


def load_script(name: str) -> types.ModuleType:
    """Import scripts/NAME.py (compiled by hand: no __pycache__ left in scripts/)."""
    path = SCRIPTS / f"{name}.py"
    module = types.ModuleType(f"_vaultmem_{name}")
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


def small_vault(root: Path) -> Path:
    vault = root / "vault"
    vault.mkdir(parents=True)
    (vault / "Boiler.md").write_text("# Boiler\n\nThe boiler needs a service before winter.\n")
    (vault / "Plumber.md").write_text("---\ntype: idea\ncreated: 2026-01-02\n---\n"
                                      "Ask the plumber about the valve. [[Boiler]]\n")
    (vault / "Ledger.md").write_text(
        "# Ledger\n\n- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]\n"
        "- [ ] When the vendor quote arrives, check the boiler estimate [[Boiler]] ^quote\n")
    return vault


def indexed(make_vault, tmp_path: Path) -> Vault:
    """small_vault, opened through the shared harness and indexed at NOW."""
    return make_vault(root=small_vault(tmp_path), index_at=NOW)


# -- 1. crash: SIGKILL at any moment, then heal to the reference --------------------------

def crash_test(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(SCRIPTS / "crash_test.py"), *args], capture_output=True,
                          text=True, timeout=300)


def test_crash_short_random_kills_heal():
    """4 random SIGKILLs (2 first runs, 2 incremental), every category compared."""
    done = crash_test("--short", "--seed", "35", "--sleep", "0.06")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "summary: 4/4 runs healed" in done.stdout
    # The kills really landed (a run can finish before its kill time on a fast, idle machine).
    assert done.stdout.count("killed") >= 3, done.stdout


@pytest.mark.parametrize("stage, kind, only", [
    ("embed", "both", None),
    ("finish", "both", None),
    ("sync_ledgers", "both", "entries,entry_links,entry_ops"),
    ("index_file", "incremental", "notes"),  # between a move and its re-parse
    ("resolve_links", "incremental", "note_ops"),
    ("lifecycle", "full", "prospective"),
])
def test_a_kill_on_entering_each_stage_heals(stage, kind, only):
    args = ["--runs", "2" if kind == "both" else "1", "--notes", "30", "--seed", "4",
            "--kind", kind, "--stage", stage]
    done = crash_test(*args, *(["--only", only] if only else []))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "killed" in done.stdout and "not killed" not in done.stdout


def test_a_stage_kill_that_never_happens_fails_the_run(capsys):
    script = load_script("crash_test")
    script.TARGETS["embed"] = ("vaultmem.indexer", "embed_missing_renamed")
    code = script.main(["--runs", "1", "--notes", "10", "--seed", "4", "--stage", "embed"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "not killed at stage embed (exit 3): no kill hook: vaultmem.indexer." \
           "embed_missing_renamed does not exist" in out
    assert "summary: 0/1 runs healed" in out


# -- 2. concurrency: readers answer during an index run; a second writer is refused ------------

WRITER = r"""
import sys, time
from datetime import datetime
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.conftest import FakeEmbedder
from vaultmem import config, indexer
from vaultmem.store import Store

gate = Path(sys.argv[3])

# Mid-run (two groups committed, the writer lock held), wait until the reader has
# answered twice and the test's own CLI calls are done: overlap by construction, not
# by timing, however busy the machine.
class Slow(FakeEmbedder):
    fingerprint = "fake|another-model|r1"  # a model change: every text is embedded again
    calls = 0
    def embed(self, texts):
        Slow.calls += 1
        if Slow.calls == 3:
            deadline = time.time() + 120
            while not all((gate / f).exists() for f in ("reader-ready", "cli-done")):
                if time.time() > deadline:
                    break
                time.sleep(0.05)
        time.sleep(0.05)
        return super().embed(texts)

indexer.EMBED_GROUP = 8
settings = config.load(sys.argv[2])
store = Store.open(settings.db)
with store.writer_lock("index"):
    print("start", flush=True)
    indexer.index_vault(store, settings, Slow(), now=datetime(2026, 8, 15, 9))
print("done", flush=True)
"""

READER = r"""
import contextlib, io, json, os, sys, time
sys.path.insert(0, sys.argv[1])
from tests.conftest import FakeEmbedder
import vaultmem.embed
vaultmem.embed.FastEmbedder = lambda settings: FakeEmbedder()  # the index's vector space
vaultmem.embed.query_embedder = vaultmem.embed.FastEmbedder
from vaultmem.interfaces.cli import main
from vaultmem.errors import VaultmemError
vault, stop, ready = sys.argv[2], sys.argv[3], sys.argv[4]
now = ["--now", "2026-08-15T09:30"]
commands = [["query", "boiler invoice vendor", "--json", *now], ["status", "--json"],
            ["due", "--json", *now]]
log = []
rounds = 0
while not os.path.exists(stop):
    rounds += 1
    if rounds == 3:
        open(ready, "w").close()
    for args in commands:
        out, err = io.StringIO(), io.StringIO()
        started = time.time()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*args, "--vault", vault])
        try:
            doc = json.loads(out.getvalue())
        except ValueError:
            doc = None
        log.append({"cmd": args[0], "code": code, "json": doc is not None, "end": time.time(),
                    "secs": round(time.time() - started, 3), "err": err.getvalue()[-300:],
                    "results": len(doc["results"]) if args[0] == "query" and doc else None})
print(json.dumps(log))
"""


def test_readers_answer_while_an_index_runs_and_a_second_index_is_refused(tmp_path):
    vault = tmp_path / "vault"
    load_script("crash_test").build_vault(vault, seed=5, count=120)
    open_vault(vault, index_at=NOW).close()
    stop = tmp_path / "stop"
    gate = tmp_path / "gate"
    gate.mkdir()
    writer = subprocess.Popen([PY, "-c", WRITER, str(ROOT), str(vault), str(gate)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reader = None
    try:
        assert writer.stdout.readline().strip() == "start", writer.stderr.read()
        reader = subprocess.Popen([PY, "-c", READER, str(ROOT), str(vault), str(stop),
                                   str(gate / "reader-ready")],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cli = [PY, "-m", "vaultmem"]
        second = subprocess.run([*cli, "index", str(vault)], capture_output=True, text=True,
                                timeout=60)
        status = subprocess.run([*cli, "status", "--vault", str(vault), "--json"],
                                capture_output=True, text=True, timeout=60)
        overlapped = writer.poll() is None
        (gate / "cli-done").touch()
        _, werr = writer.communicate(timeout=120)
        writer_end = time.time()
    finally:
        stop.touch()
        if writer.poll() is None:
            writer.kill()
    out, rerr = reader.communicate(timeout=60)
    assert writer.returncode == 0, werr
    assert overlapped, "the index run ended before the real CLI calls: slow the writer down"
    assert second.returncode == 1, second.stderr
    assert re.search(r"already (running|writing)", second.stderr), second.stderr
    assert len(second.stderr.strip().splitlines()) == 1  # one line, no traceback
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["counts"]["notes"] >= 120
    log = json.loads(out)
    failed = [e for e in log if e["code"] != 0 or not e["json"]]
    assert not failed, failed
    during = Counter(e["cmd"] for e in log if e["end"] < writer_end)
    assert min(during[c] for c in ("query", "status", "due")) >= 2, (during, rerr)
    assert all(e["results"] for e in log if e["cmd"] == "query")


def test_query_survives_an_index_commit_between_its_reads(make_vault, tmp_path, monkeypatch):
    writer = indexed(make_vault, tmp_path)
    reader = make_vault(root=writer.settings.vault)
    real = Store.chunk_texts

    def commit_in_between(self, chunk_ids):
        if self is reader.store:
            writer.index(now=NOW, full=True)
        return real(self, chunk_ids)

    monkeypatch.setattr(Store, "chunk_texts", commit_in_between)
    result = reader.query("boiler service", now=NOW)
    assert result.results[0].path == "Boiler.md"


def test_processes_creating_the_store_at_once_all_succeed(tmp_path):
    """Four processes open a store that does not exist yet, at the same moment: each
    migration runs under BEGIN IMMEDIATE and re-checks its record, so all succeed."""
    db = tmp_path / "store" / "vaultmem.db"
    go = tmp_path / "go"
    code = ("import sys, time, pathlib; from vaultmem.store import Store\n"
            "go = pathlib.Path(sys.argv[2])\n"
            "while not go.exists(): time.sleep(0.005)\n"
            "Store.open(pathlib.Path(sys.argv[1]), create=True).close()\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db), str(go)],
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    time.sleep(1.0)  # let every interpreter start and wait at the line
    go.touch()
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    names = [r[0] for r in sqlite3.connect(db).execute("SELECT name FROM _migrations")]
    assert sorted(names) == sorted(name for name, _ in migrations.MIGRATIONS)


# -- 3. hostile vault ---------------------------------------------------------------------------


class OpenLog:
    """Records the real path of every file or folder opened or listed while active."""

    def __init__(self, monkeypatch):
        self.paths: list[str] = []
        self.active = False
        real_open, real_os_open = open, os.open
        real_scandir, real_listdir = os.scandir, os.listdir
        for owner, name, real in [
            (builtins, "open", real_open), (io, "open", real_open),
            (os, "open", real_os_open), (os, "scandir", real_scandir),
            (os, "listdir", real_listdir),
        ]:
            monkeypatch.setattr(owner, name, self._wrap(real))
        for name in ("open", "read_bytes", "read_text"):
            monkeypatch.setattr(Path, name, self._wrap(getattr(Path, name)))

    def _wrap(self, real):
        def logged(path=".", *args, **kwargs):
            if self.active and not isinstance(path, int):
                self.paths.append(os.path.realpath(os.fsdecode(os.fspath(path))))
            return real(path, *args, **kwargs)

        return logged


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def test_torture_vault_short(make_vault, tmp_path, monkeypatch):
    manifest = load_script("torture_vault").make(tmp_path / "torture", short=True)
    vault = Path(manifest["vault"])
    opened = make_vault(root=vault)
    settings_, store = opened.settings, opened.store
    log = OpenLog(monkeypatch)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    log.active = True
    try:
        report = opened.index(now=NOW)
        again = opened.index(now=NOW + timedelta(hours=1))
    finally:
        log.active = False
    seconds = time.perf_counter() - started
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    monkeypatch.undo()

    allowed = [os.path.realpath(vault), os.path.realpath(settings_.db.parent),
               os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)]
    assert sum(_inside(p, allowed[:1]) for p in log.paths) >= len(manifest["good"])  # it works
    escaped = sorted({p for p in log.paths if not _inside(p, allowed)})
    assert escaped == [], f"opened outside the vault: {escaped}"
    assert os.path.realpath(manifest["secret"]) not in log.paths
    assert grown_mb < 500, f"peak memory grew by {grown_mb:.0f} MB"
    assert seconds < 60

    bad = manifest["bad"]
    per_path = Counter(p for p, _, _ in report.warnings)
    assert set(per_path) == set(bad), (set(per_path) ^ set(bad))
    assert all(n == 1 for n in per_path.values()), {p: n for p, n in per_path.items() if n > 1}
    stored = store.execute("SELECT path, message FROM warnings").fetchall()
    assert sorted(p for p, _ in stored) == sorted(bad)  # one each, still there after a re-run
    for path, message in stored:
        assert bad[path]["expect"].lower() in message.lower(), (path, message)
    assert again.new == again.modified == 0

    notes = {path: (title, chunks) for path, title, chunks in store.execute(
        "SELECT n.path, n.title, (SELECT count(*) FROM chunks c WHERE c.note_id = n.id) "
        "FROM notes n WHERE n.deleted = 0")}
    missing = [p for p in manifest["good"] if p not in notes or not notes[p][1]]
    assert missing == []
    assert {p: notes[p][0] for p in manifest["titles"]} == manifest["titles"]
    assert not set(manifest["silent"]) & set(notes)
    assert not any("Never read this" in t for (t,) in store.execute("SELECT text FROM chunks"))


def test_named_pipe_does_not_hang_the_index(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\ntext\n")
    os.mkfifo(vault / "pipe.md")
    finished = threading.Event()

    def run():
        try:
            open_vault(vault, index_at=NOW).close()
        finally:
            finished.set()

    threading.Thread(target=run, daemon=True).start()
    in_time = finished.wait(3)
    if not in_time:  # open the write end once: the blocked reader gets EOF and ends
        with open(vault / "pipe.md", "wb"):
            pass
        finished.wait(10)
    assert in_time, "index_vault blocked on a named pipe called pipe.md"


# -- 4. fuzz: any generated vault indexes ---------------------------------------------------------

NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1, max_size=12,
).filter(lambda n: not n.startswith(".") and len(n.encode()) < 120)
PIECES = st.sampled_from([
    "---\n", "title: T\n", "tags: [a, b]\n", "type: ledger\n", "aliases: x\n", "date: 2026-8-1\n",
    "[[", "]]", "[[n/", "|", "#", "tag", "```\n", "- [ ] ", "- [x] ", "📅 2026-08-15", "\n",
    "# H\n", "## H2\n", "[x](y.md)", "![[e]]", " ^blk", "\ufeff", "\r\n", "\r", "&#91;", "\\#",
    " ", "word", "When it rains, ", "[when:: rain]", "&", "<div>", "\t", "> ",
])
NOTE_TEXT = st.text(max_size=300) | st.lists(PIECES, max_size=40).map("".join)


@settings(max_examples=12, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(notes=st.dictionaries(NAMES, NOTE_TEXT, max_size=6), ledger=NOTE_TEXT,
       raw=st.binary(max_size=300), swap=st.booleans())
def test_index_never_raises_on_generated_vaults(notes, ledger, raw, swap):
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        (vault / "n").mkdir(parents=True)
        for name, text in notes.items():
            (vault / "n" / f"{name}.md").write_text(text, encoding="utf-8")
        (vault / "Ledger.md").write_text(ledger, encoding="utf-8")
        (vault / "raw.md").write_bytes(raw)
        opened = open_vault(vault, index_at=NOW)
        store = opened.store
        texts = list(notes.values())
        for name, text in zip(notes, reversed(texts) if swap else [], strict=False):
            (vault / "n" / f"{name}.md").write_text(text + "\nmore", encoding="utf-8")
        (vault / "Ledger.md").write_text(ledger[::-1], encoding="utf-8")
        opened.index(now=NOW + timedelta(hours=1))
        live = {r[0] for r in store.execute("SELECT path FROM notes WHERE deleted = 0")}
        store.close()
    assert live == {f"n/{name}.md" for name in notes} | {"Ledger.md", "raw.md"}


# -- 5. no network, with the real model ------------------------------------------------


@pytest.mark.integration
def test_no_network_is_touched_by_index_salience_and_query(tmp_path, monkeypatch, capsys):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(repr(args[:3]))
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    vault = small_vault(tmp_path)
    now = ["--now", "2026-08-15"]
    docs = []
    for args in (["index", str(vault), "--json", *now],
                 ["salience", "--vault", str(vault), "--json", *now],
                 ["query", "when is the boiler serviced", "--vault", str(vault), "--json", *now]):
        code = main(args)
        out, err = capsys.readouterr()
        assert code == 0, err
        docs.append(json.loads(out))
    assert attempts == []
    assert "Boiler.md" in [hit["path"] for hit in docs[2]["results"]]


# -- 6. upgrades: a store from an earlier schema is migrated in place -------------------


def tables_by_migration() -> dict[str, set[str]]:
    """The tables each migration creates, learned on a scratch database."""
    db = Database(memory=True)
    created = {}
    for name, fn in migrations.MIGRATIONS:
        before = set(db.table_names())
        fn(db)
        created[name] = set(db.table_names()) - before
    return created


def downgrade_to_first_migration(store: Store) -> list[str]:
    """Make the store look as the first release left it: later tables gone, unrecorded."""
    later = [name for name, _ in migrations.MIGRATIONS[1:]]
    created = tables_by_migration()
    with store.conn:
        for name in later:
            for table in created[name]:
                # IF EXISTS: dropping an FTS5 table drops its shadow tables with it
                store.conn.execute(f"DROP TABLE IF EXISTS [{table}]")
        store.conn.executemany("DELETE FROM _migrations WHERE name = ?",
                               [(n,) for n in later])
    return later


def test_upgrade_applies_migrations_in_place_without_reembedding(make_vault, tmp_path):
    store = indexed(make_vault, tmp_path).store
    notes_before = store.execute("SELECT id, path, hash, title FROM notes ORDER BY id").fetchall()
    vectors_before = store.execute("SELECT count(*) FROM vectors").fetchone()[0]
    later = downgrade_to_first_migration(store)
    assert later and set(later).isdisjoint(
        r[0] for r in store.execute("SELECT name FROM _migrations"))
    store.close()

    fresh = FakeEmbedder()
    reopened = make_vault(root=tmp_path / "vault", embedder=fresh)  # migrates on open
    store = reopened.store
    names = sorted(r[0] for r in store.execute("SELECT name FROM _migrations"))
    assert names == sorted(name for name, _ in migrations.MIGRATIONS)
    report = reopened.index(now=NOW + timedelta(days=1))
    assert (fresh.embedded, report.embedded) == (0, 0)
    assert store.execute("SELECT id, path, hash, title FROM notes ORDER BY id").fetchall() == \
        notes_before
    assert store.execute("SELECT count(*) FROM vectors").fetchone()[0] == vectors_before


def test_upgrade_fills_new_tables_from_unchanged_notes(make_vault, tmp_path):
    store = indexed(make_vault, tmp_path).store
    entries = store.execute("SELECT id, status, action FROM entries ORDER BY id").fetchall()
    items = store.execute("SELECT id, kind FROM prospective ORDER BY id").fetchall()
    assert entries and items
    downgrade_to_first_migration(store)
    store.close()
    reopened = make_vault(root=tmp_path / "vault")  # migrates on open
    store = reopened.store
    reopened.index(now=NOW + timedelta(days=1))
    assert store.execute("SELECT id, status, action FROM entries ORDER BY id").fetchall() == \
        entries
    assert store.execute("SELECT id, kind FROM prospective ORDER BY id").fetchall() == items


def test_full_rebuild_is_not_a_modification(make_vault, tmp_path):
    vault = indexed(make_vault, tmp_path)
    store = vault.store
    before = store.execute("SELECT path, changed_at FROM notes ORDER BY path").fetchall()
    vault.index(now=NOW + timedelta(days=30), full=True)
    modified = store.execute("SELECT count(*) FROM ops WHERE op = 'modified'").fetchone()[0]
    assert modified == 0
    assert store.execute("SELECT path, changed_at FROM notes ORDER BY path").fetchall() == before


def test_scripts_have_a_usable_short_mode(tmp_path):
    """torture_vault.py as a command: the manifest names files that exist."""
    done = subprocess.run([PY, str(SCRIPTS / "torture_vault.py"), str(tmp_path), "--short"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    vault = Path(manifest["vault"])
    assert all((vault / p).exists() for p in manifest["good"])
    assert all(os.path.lexists(vault / p) for p in manifest["bad"])
    shutil.rmtree(tmp_path / "vault")
