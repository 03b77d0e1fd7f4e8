"""The index run on temp vaults with the fake embedder: what is read, embedded and logged."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from vaultmem import config
from vaultmem.indexer import index_vault
from vaultmem.store import Store

NOW = datetime(2026, 8, 15, 9, 0)
LONG = ("The boiler needs a service before winter and the hall radiator stays cold at the "
        "top, so the engineer should bleed it too.")


def setup(tmp_path: Path) -> tuple[Path, object, Store]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text(f"# A\n\n{LONG}\n\n## Two\n\nSecond section about {LONG}\n")
    (vault / "b.md").write_text("# B\n\nLinks to [[a]] and [[missing]].\n")
    settings = config.load(vault)
    return vault, settings, Store.open(settings.db, create=True)


def test_noop_run_reads_no_file_contents(tmp_path, fake_embedder, monkeypatch):
    vault, settings, store = setup(tmp_path)
    index_vault(store, settings, fake_embedder, now=NOW)
    opened = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: opened.append(self) or real(self))
    report = index_vault(store, settings, fake_embedder, now=NOW)
    assert opened == []
    assert (report.unchanged, report.new, report.modified, report.embedded) == (2, 0, 0, 0)


def test_touch_without_change_rehashes_but_does_not_reparse(tmp_path, fake_embedder):
    vault, settings, store = setup(tmp_path)
    index_vault(store, settings, fake_embedder, now=NOW)
    (vault / "a.md").write_text((vault / "a.md").read_text())  # new mtime, same bytes
    report = index_vault(store, settings, fake_embedder, now=NOW)
    assert (report.touched, report.modified, report.embedded) == (1, 0, 0)


def test_changed_section_is_the_only_text_embedded_again(tmp_path, fake_embedder):
    vault, settings, store = setup(tmp_path)
    index_vault(store, settings, fake_embedder, now=NOW)
    before = fake_embedder.embedded
    text = (vault / "a.md").read_text().replace("Second section", "Another section")
    (vault / "a.md").write_text(text)
    report = index_vault(store, settings, fake_embedder, now=NOW)
    assert report.modified == 1
    assert fake_embedder.embedded - before == 1
    assert "Another section" in fake_embedder.calls[-1][0]


def test_links_resolve_and_unresolved_are_kept(tmp_path, fake_embedder):
    vault, settings, store = setup(tmp_path)
    index_vault(store, settings, fake_embedder, now=NOW)
    rows = store.execute("SELECT l.target_raw, t.path FROM links l LEFT JOIN notes t "
                         "ON t.id = l.target_id ORDER BY l.id").fetchall()
    assert rows == [("a", "a.md"), ("missing", None)]
    (vault / "missing.md").write_text("# Missing no more\n")
    index_vault(store, settings, fake_embedder, now=NOW)
    rows = store.execute("SELECT l.target_raw, t.path FROM links l LEFT JOIN notes t "
                         "ON t.id = l.target_id ORDER BY l.id").fetchall()
    assert rows == [("a", "a.md"), ("missing", "missing.md")]
    linked = store.execute("SELECT n.path FROM ops o JOIN notes n ON n.id = o.note_id "
                           "WHERE o.op = 'linked' ORDER BY o.id").fetchall()
    assert linked == [("a.md",), ("missing.md",)]


def test_deleted_then_restored_note_keeps_its_id_and_history(tmp_path, fake_embedder):
    vault, settings, store = setup(tmp_path)
    index_vault(store, settings, fake_embedder, now=NOW)
    note_id = store.execute("SELECT id FROM notes WHERE path = 'b.md'").fetchone()[0]
    text = (vault / "b.md").read_text()
    (vault / "b.md").unlink()
    assert index_vault(store, settings, fake_embedder, now=NOW).deleted == 1
    (vault / "b.md").write_text(text + "\nBack again.\n")
    assert index_vault(store, settings, fake_embedder, now=NOW).new == 1
    ops = [r[0] for r in store.execute("SELECT op FROM ops WHERE note_id = ? AND op != 'linked' "
                                       "ORDER BY id", [note_id])]
    assert ops == ["created", "deleted", "restored"]


def test_model_change_reembeds_everything_once(tmp_path, fake_embedder):
    vault, settings, store = setup(tmp_path)
    index_vault(store, settings, fake_embedder, now=NOW)
    first = fake_embedder.embedded
    fake_embedder.fingerprint = "fake|other-model|r1"
    assert index_vault(store, settings, fake_embedder, now=NOW).embedded == first
    assert index_vault(store, settings, fake_embedder, now=NOW).embedded == 0
