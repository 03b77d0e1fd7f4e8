"""The library API (`from vaultmem import Vault`): one test per method, on the fake embedder.

The CLI is a thin client of these calls; tests/test_cli.py checks that its `--json`
documents are these methods' `as_dict()`.
"""

from __future__ import annotations

import os
from datetime import date, datetime
from pathlib import Path

import pytest

import vaultmem
from vaultmem import Vault
from vaultmem.api import find_root
from vaultmem.errors import NoIndexError, NotFoundError, UsageError, VaultmemError
from vaultmem.schema import SCHEMA

from .conftest import FakeEmbedder, write_files

NOW = datetime(2026, 8, 15, 9, 0)
LEDGER = """\
# Ledger

- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]
- [ ] Reconcile the quote [when:: vendor quote arrives] [[Kitchen]]
- [x] Renew passport 📅 2026-05-01 ✅ 2026-04-20 [[Passport]]
"""


def write(root: Path, rel: str, text: str, day: int = 1) -> Path:
    return write_files(root, {rel: text}, datetime(2026, 8, day, 12)) / rel


@pytest.fixture
def root(tmp_path) -> Path:
    return write_files(tmp_path / "vault", {
        "Plumber.md": "# Plumber\nTomasz fixed the boiler; invoice 240 EUR.\n",
        "Kitchen.md": "---\naliases: [Cooking room]\ntags: [house]\n---\n"
                      "# Kitchen\nWorktop quotes from two vendors. See [[Plumber]].\n",
        "Passport.md": "# Passport\nRenewed in April.\n",
        "ideas/Garden.md": "---\ntype: idea\n---\n# Garden\nA pond by the fence.\n",
        "Ledger.md": LEDGER}, datetime(2026, 8, 1, 12))


@pytest.fixture
def vault(make_vault, root):
    return make_vault(root=root, index_at=NOW)


def test_vault_is_exported_lazily_from_the_package():
    assert vaultmem.Vault is Vault
    assert "Vault" in vaultmem.__all__
    with pytest.raises(AttributeError):
        vaultmem.NoSuchThing  # noqa: B018


def test_open_without_create_needs_an_index(root):
    with pytest.raises(NoIndexError, match="run `vaultmem index"):
        Vault.open(root)


def test_open_refuses_a_vault_that_is_not_a_folder(tmp_path):
    with pytest.raises(VaultmemError, match="is not a folder"):
        Vault.open(tmp_path / "missing", create=True)


def test_open_takes_settings_overrides(root):
    with Vault.open(root, create=True, embedder=FakeEmbedder(), weight=0.5,
                    mode="dense") as v:
        assert (v.settings.weight, v.settings.mode) == (0.5, "dense")


def test_find_root_climbs_to_the_folder_holding_the_store_or_obsidian(tmp_path):
    (tmp_path / "v" / ".obsidian").mkdir(parents=True)
    (tmp_path / "v" / "a" / "b").mkdir(parents=True)
    assert find_root(tmp_path / "v" / "a" / "b") == (tmp_path / "v").resolve()
    assert find_root(tmp_path / "elsewhere") == (tmp_path / "elsewhere").resolve()


def test_open_from_a_subfolder_finds_the_vault_root(vault, root, monkeypatch):
    monkeypatch.chdir(root / "ideas")
    monkeypatch.delenv("VAULTMEM_VAULT", raising=False)
    with Vault.open(embedder=FakeEmbedder()) as inner:
        assert inner.settings.vault == root.resolve()
        assert inner.status().as_dict()["counts"]["notes"] == 5


def test_index_returns_its_report(root):
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        report = v.index(now=NOW)
        doc = report.as_dict()
        assert (doc["schema"], doc["new"], report.new) == (SCHEMA, 5, 5)
        assert v.index(now=NOW).as_dict()["unchanged"] == 5


def test_salience_runs_with_its_bookkeeping(vault):
    report = vault.salience(now=NOW)
    assert report.as_dict()["notes"] == 5
    run = vault.status().as_dict()["last_runs"]["salience"]
    assert (run["status"], run["counts"]["notes"]) == ("ok", 5)


def test_query_ranks_and_logs_mentions_unless_told_not_to(vault):
    def retrieved() -> int:
        return vault.store.execute("SELECT count(*) FROM ops WHERE op = 'retrieved'").fetchone()[0]

    result = vault.query("plumber invoice boiler", now=NOW, limit=3)
    doc = result.as_dict()
    assert doc["schema"] == SCHEMA and doc["results"][0]["path"] == "Plumber.md"
    assert [r["rank"] for r in doc["results"]] == [1, 2, 3]
    logged = retrieved()
    assert logged == 3
    vault.query("plumber invoice boiler", now=NOW, limit=3, log=False)
    assert retrieved() == logged


def test_query_options_default_to_the_settings(root):
    with Vault.open(root, create=True, embedder=FakeEmbedder(), weight=0.7,
                    query_mentions=1) as v:
        v.index(now=NOW)
        assert v.query("kitchen", now=NOW).weight == 0.7
        assert v.query("kitchen", now=NOW, weight=0.2).weight == 0.2
        assert v.store.execute("SELECT count(*) FROM ops WHERE op = 'retrieved'"
                               ).fetchone()[0] == 2


def test_query_refuses_empty_text(vault):
    with pytest.raises(UsageError, match="empty"):
        vault.query("   ", now=NOW)


def test_a_note_deleted_since_the_index_is_never_returned(vault, root):
    first = vault.query("plumber invoice boiler", now=NOW, limit=2, log=False)
    assert first.results[0].path == "Plumber.md" and first.stale == []
    (root / "Plumber.md").unlink()
    again = vault.query("plumber invoice boiler", now=NOW, limit=2, log=False)
    assert "Plumber.md" not in [h.path for h in again.results]
    assert len(again.results) == 2 and [h.rank for h in again.results] == [1, 2]
    assert again.as_dict()["stale"] == ["Plumber.md"]


def test_due_is_grouped_and_a_read(vault):
    before = vault.store.execute("SELECT count(*) FROM ops").fetchone()
    first = vault.due(now=NOW, context="the vendor quote arrives today")
    doc = first.as_dict()
    assert [(r["group"], r["id"]) for r in doc["results"]] == [
        ("today", "c-pay-plumber-invoice"), ("triggered", "c-reconcile-quote")]
    assert doc["results"][0]["notes"] == ["Plumber.md"]
    assert vault.due(now=NOW, context="the vendor quote arrives today").as_dict() == doc
    assert vault.store.execute("SELECT count(*) FROM ops").fetchone() == before


def test_ledger_history_and_items(vault):
    entries = vault.ledger().as_dict()["results"]
    assert [e["id"] for e in entries] == ["c-pay-plumber-invoice", "c-reconcile-quote"]
    assert entries[0]["notes"] == ["Plumber.md"] and entries[0]["unresolved"] == []
    assert len(vault.ledger(include_closed=True).results) == 3
    history = vault.history("c-pay-plumber-invoice").as_dict()
    assert [r["kind"] for r in history["revisions"]] == ["created"]
    with pytest.raises(NotFoundError, match="no ledger entry"):
        vault.history("c-nothing")
    items = vault.items().as_dict()["results"]
    assert [(i["kind"], i["path"]) for i in items] == [("idea", "ideas/Garden.md")]


def test_get_by_path_or_by_name(vault, root):
    doc = vault.get("Kitchen.md").as_dict()
    assert (doc["path"], doc["title"], doc["on_disk"], doc["changed_since_index"]) == (
        "Kitchen.md", "Kitchen", True, False)
    assert doc["aliases"] == ["Cooking room"] and doc["tags"] == ["house"]
    assert [link["path"] for link in doc["links"]] == ["Plumber.md"]
    assert doc["commitments"][0]["id"] == "c-reconcile-quote"
    assert doc["text"].startswith("---\naliases")
    assert vault.get("Plumber").as_dict()["backlinks"] == [
        {"path": "Kitchen.md", "line": 6}, {"path": "Ledger.md", "line": 3}]
    (root / "Kitchen.md").write_text("# Kitchen\nchanged\n", encoding="utf-8")
    assert vault.get("Kitchen").changed_since_index is True
    with pytest.raises(NotFoundError, match="no note"):
        vault.get("Nowhere")


def test_add_commitment_appends_one_line_and_the_store_holds_it_at_once(vault, root):
    """Fails before `add_commitment` indexed what it wrote: the next `ledger()` lacked it."""
    before = (root / "Ledger.md").read_bytes()
    added = vault.add_commitment("Order the worktop", due=date(2026, 8, 20),
                                 links=["Kitchen"], project="house", now=NOW)
    doc = added.as_dict()
    assert doc == {"schema": SCHEMA, "id": "c-order-worktop", "ledger": "Ledger.md", "line": 6,
                   "text": "- [ ] Order the worktop [[Kitchen]] [project:: house] "
                           "📅 2026-08-20 ^c-order-worktop",
                   "due": "2026-08-20", "start": None, "scheduled": None, "unresolved": [],
                   "indexed": True}
    after = (root / "Ledger.md").read_bytes()
    assert after == before + doc["text"].encode() + b"\n"
    entry = vault.ledger().results[-1]
    assert (entry.id, entry.due, entry.notes, entry.project) == (
        "c-order-worktop", "2026-08-20", ["Kitchen.md"], "house")
    assert vault.history("c-order-worktop").revisions[0]["kind"] == "created"


def test_add_commitment_never_reuses_an_id(vault):
    first = vault.add_commitment("Pay the plumber invoice", when="the invoice comes")
    assert first.id == "c-pay-plumber-invoice-2"
    second = vault.add_commitment("Pay the plumber invoice")
    assert second.id == "c-pay-plumber-invoice-3"


def test_add_commitment_keeps_crlf_and_creates_a_missing_ledger(root):
    write(root, "Ledger.md", "# Ledger\r\n\r\n- [ ] Call Jo [[Plumber]]")
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.add_commitment("Book the van")
    assert (root / "Ledger.md").read_bytes() == (
        b"# Ledger\r\n\r\n- [ ] Call Jo [[Plumber]]\r\n- [ ] Book the van ^c-book-van\r\n")
    (root / "Ledger.md").unlink()
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        assert v.add_commitment("Book the van").line == 3
    # c-book-van is the removed entry's, and history is never merged: a new id
    assert (root / "Ledger.md").read_text() == "# Ledger\n\n- [ ] Book the van ^c-book-van-2\n"


@pytest.mark.parametrize("text, options, message", [
    ("", {}, "empty"),
    ("Pay", {"when": "the [[quote]] comes"}, "`when`"),
    ("Pay", {"links": ["a]]b"]}, "`links`"),
    ("Pay", {"project": "a]b"}, "`project`"),
    ("Pay", {"due": "someday"}, "`due` 'someday' is not a date"),
    ("#house", {}, "would not read back"),
])
def test_add_commitment_refuses_what_would_not_read_back(vault, root, text, options, message):
    before = (root / "Ledger.md").read_bytes()
    with pytest.raises(UsageError, match=message):
        vault.add_commitment(text, **options)
    assert (root / "Ledger.md").read_bytes() == before


def test_add_commitment_refuses_when_the_ledger_changes_meanwhile(vault, root, monkeypatch):
    import vaultmem.ledger_append as ledger_append

    real_fsync = os.fsync

    def meddle(fd):
        real_fsync(fd)
        with open(root / "Ledger.md", "a", encoding="utf-8") as fh:
            fh.write("- [ ] Written by the user meanwhile\n")

    monkeypatch.setattr(ledger_append.os, "fsync", meddle)
    with pytest.raises(VaultmemError, match="changed on disk"):
        vault.add_commitment("Order the worktop")
    monkeypatch.undo()
    text = (root / "Ledger.md").read_text()
    assert text == LEDGER + "- [ ] Written by the user meanwhile\n"
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_nudge_and_feedback(vault):
    result = vault.nudge(now=datetime(2026, 8, 15, 10, 0))
    doc = result.as_dict()
    assert doc["schema"] == SCHEMA and set(doc) >= {"nudge", "silent_because", "candidates"}
    if result.nudge is None:
        with pytest.raises(NotFoundError, match="no nudge was ever shown"):
            vault.feedback("c-pay-plumber-invoice", "accept")
        return
    answer = vault.feedback(result.nudge.item.id, "dismiss", now=NOW)
    assert answer.as_dict()["kind"] == "dismiss"
    with pytest.raises(UsageError, match="accept, dismiss or snooze"):
        vault.feedback(result.nudge.item.id, "maybe")


def test_status_is_versioned(vault):
    doc = vault.status().as_dict()
    assert doc["schema"] == SCHEMA and doc["counts"]["notes"] == 5
