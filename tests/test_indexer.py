"""The index run on temp vaults with the fake embedder: what is read, embedded and logged."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from vaultmem import Vault
from vaultmem.store import Store, matrix

NOW = datetime(2026, 8, 15, 9, 0)
LONG = ("The boiler needs a service before winter and the hall radiator stays cold at the "
        "top, so the engineer should bleed it too.")


def setup(make_vault, embedder) -> tuple[Path, Vault, Store]:
    """Two notes, not indexed yet: (vault folder, the open Vault, its store)."""
    v = make_vault({"a.md": f"# A\n\n{LONG}\n\n## Two\n\nSecond section about {LONG}\n",
                    "b.md": "# B\n\nLinks to [[a]] and [[missing]].\n"}, embedder=embedder)
    return v.settings.vault, v, v.store


def test_noop_run_reads_no_file_contents(make_vault, fake_embedder, monkeypatch):
    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    opened = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: opened.append(self) or real(self))
    report = v.index(now=NOW)
    assert opened == []
    assert (report.unchanged, report.new, report.modified, report.embedded) == (2, 0, 0, 0)


def test_a_noop_run_reuses_the_last_runs_figures_without_scanning(make_vault, fake_embedder,
                                                                   monkeypatch):
    vault, v, store = setup(make_vault, fake_embedder)
    first = v.index(now=NOW)
    assert (first.links_resolved, first.links_unresolved) == (1, 1)

    def scan(*_):
        raise AssertionError("a no-op run scanned again")

    monkeypatch.setattr(store, "missing_vectors", scan)
    monkeypatch.setattr(store, "link_rows", scan)
    again = v.index(now=NOW)
    assert (again.links_resolved, again.links_unresolved, again.embedded) == (1, 1, 0)
    monkeypatch.undo()

    (vault / "c.md").write_text("# C\n\nTo [[b]] and [[nowhere]].\n")  # a change counts anew
    changed = v.index(now=NOW)
    assert (changed.links_resolved, changed.links_unresolved, changed.embedded) == (2, 2, 1)
    assert v.index(now=NOW).links_unresolved == 2


def test_a_run_killed_after_a_change_leaves_no_figures_to_reuse(make_vault, fake_embedder,
                                                                monkeypatch):
    from vaultmem import indexer

    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    (vault / "c.md").write_text("# C\n\nTo [[b]] and [[nowhere]].\n")

    def killed(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer, "embed_missing", killed)
    with pytest.raises(KeyboardInterrupt):
        v.index(now=NOW)
    monkeypatch.undo()
    resumed = v.index(now=NOW)  # nothing left to plan, but the embedding was never done
    assert (resumed.new, resumed.embedded, resumed.links_unresolved) == (0, 1, 2)


def test_another_model_embeds_everything_on_an_unchanged_vault(make_vault, fake_embedder):
    from .conftest import FakeEmbedder

    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    other = FakeEmbedder()
    other.fingerprint = "fake|other|r1"
    with Vault.open(vault, embedder=other) as w:
        assert w.index(now=NOW).embedded == 3


def test_touch_without_change_rehashes_but_does_not_reparse(make_vault, fake_embedder):
    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    (vault / "a.md").write_text((vault / "a.md").read_text())  # new mtime, same bytes
    report = v.index(now=NOW)
    assert (report.touched, report.modified, report.embedded) == (1, 0, 0)


def test_changed_section_is_the_only_text_embedded_again(make_vault, fake_embedder):
    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    before = fake_embedder.embedded
    text = (vault / "a.md").read_text().replace("Second section", "Another section")
    (vault / "a.md").write_text(text)
    report = v.index(now=NOW)
    assert report.modified == 1
    assert fake_embedder.embedded - before == 1
    assert "Another section" in fake_embedder.calls[-1][0]


def test_links_resolve_and_unresolved_are_kept(make_vault, fake_embedder):
    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    rows = store.execute("SELECT l.target_raw, t.path FROM links l LEFT JOIN notes t "
                         "ON t.id = l.target_id ORDER BY l.id").fetchall()
    assert rows == [("a", "a.md"), ("missing", None)]
    (vault / "missing.md").write_text("# Missing no more\n")
    v.index(now=NOW)
    rows = store.execute("SELECT l.target_raw, t.path FROM links l LEFT JOIN notes t "
                         "ON t.id = l.target_id ORDER BY l.id").fetchall()
    assert rows == [("a", "a.md"), ("missing", "missing.md")]
    linked = store.execute("SELECT n.path FROM ops o JOIN notes n ON n.id = o.note_id "
                           "WHERE o.op = 'linked' ORDER BY o.id").fetchall()
    assert linked == [("a.md",), ("missing.md",)]


def _targets(store: Store) -> list[tuple]:
    return store.execute("SELECT s.path, l.target_raw, t.path FROM links l "
                         "JOIN notes s ON s.id = l.source_id LEFT JOIN notes t "
                         "ON t.id = l.target_id ORDER BY s.path, l.id").fetchall()


def _spy_link_reads(store: Store, monkeypatch) -> list:
    seen = []
    real = store.all_links
    monkeypatch.setattr(store, "all_links", lambda sources=None: seen.append(sources)
                        or real(sources))
    return seen


def test_a_text_edit_resolves_only_that_notes_links(make_vault, fake_embedder, monkeypatch):
    vault, v, store = setup(make_vault, fake_embedder)
    (vault / "c.md").write_text("# C\n\nSee [[b]].\n")
    v.index(now=NOW)
    seen = _spy_link_reads(store, monkeypatch)
    (vault / "b.md").write_text("# B\n\nLinks to [[a]], [[c]] and [[missing]].\n")
    v.index(now=NOW)
    b_id = store.path_ids()["b.md"]
    assert seen == [[b_id]]
    assert _targets(store) == [("b.md", "a", "a.md"), ("b.md", "c", "c.md"),
                               ("b.md", "missing", None), ("c.md", "b", "b.md")]
    linked = store.execute("SELECT o.note_id, o.detail FROM ops o WHERE o.op = 'linked' "
                           "ORDER BY o.id").fetchall()
    assert linked[-1] == (store.path_ids()["c.md"], f'{{"source_id": {b_id}}}')
    assert len(linked) == 3  # a<-b and b<-c at first, c<-b now; a<-b is not new
    assert store.get_meta("links_dirty") == "0"


def test_an_alias_is_never_a_link_target_before_or_after_it_changes(make_vault, fake_embedder,
                                                                   monkeypatch):
    vault, v, store = setup(make_vault, fake_embedder)
    (vault / "c.md").write_text("# C\n\nAsk [[Nick]].\n")
    v.index(now=NOW)
    seen = _spy_link_reads(store, monkeypatch)
    a_text = (vault / "a.md").read_text()
    (vault / "a.md").write_text("---\naliases: [Nick]\n---\n" + a_text)
    v.index(now=NOW)
    assert seen == [None]
    assert ("c.md", "Nick", None) in _targets(store)
    (vault / "a.md").write_text(a_text)  # the alias goes again
    v.index(now=NOW)
    assert ("c.md", "Nick", None) in _targets(store)


def test_scoped_link_work_left_by_a_killed_run_is_finished_by_the_next(
        make_vault, fake_embedder, monkeypatch):
    from vaultmem import indexer

    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    (vault / "c.md").write_text("# C\n")
    v.index(now=NOW)
    (vault / "b.md").write_text("# B\n\nNow [[c]] too.\n")

    def killed(*args):
        raise KeyboardInterrupt

    real = indexer._resolve_links
    monkeypatch.setattr(indexer, "_resolve_links", killed)
    with pytest.raises(KeyboardInterrupt):
        v.index(now=NOW)
    assert store.get_meta("links_dirty") == f"[{store.path_ids()['b.md']}]"
    monkeypatch.setattr(indexer, "_resolve_links", real)
    report = v.index(now=NOW)
    assert report.modified == 0
    assert _targets(store) == [("b.md", "c", "c.md")]
    assert (report.links_resolved, report.links_unresolved) == (1, 0)


def test_deleted_then_restored_note_keeps_its_id_and_history(make_vault, fake_embedder):
    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    note_id = store.execute("SELECT id FROM notes WHERE path = 'b.md'").fetchone()[0]
    text = (vault / "b.md").read_text()
    (vault / "b.md").unlink()
    assert v.index(now=NOW).deleted == 1
    (vault / "b.md").write_text(text + "\nBack again.\n")
    assert v.index(now=NOW).new == 1
    ops = [r[0] for r in store.execute("SELECT op FROM ops WHERE note_id = ? AND op != 'linked' "
                                       "ORDER BY id", [note_id])]
    assert ops == ["created", "deleted", "restored"]


def test_model_change_reembeds_everything_once(make_vault, fake_embedder):
    vault, v, store = setup(make_vault, fake_embedder)
    v.index(now=NOW)
    first = fake_embedder.embedded
    fake_embedder.fingerprint = "fake|other-model|r1"
    assert v.index(now=NOW).embedded == first
    assert v.index(now=NOW).embedded == 0


def _same(a, b) -> bool:
    import numpy as np

    return all(np.array_equal(getattr(a, f), getattr(b, f))
               for f in ("chunk_ids", "note_ids", "vectors", "starts"))


def test_cold_queries_read_the_matrix_file_and_never_a_stale_one(make_vault, fake_embedder,
                                                                 monkeypatch):
    vault, v, store = setup(make_vault, fake_embedder)
    settings = v.settings
    v.index(now=NOW)
    fp, dim = fake_embedder.fingerprint, fake_embedder.dim
    first = store.matrix(fp, dim)  # built from SQLite, then written beside the db
    [cache] = settings.db.parent.glob("*.matrix-*.npys")

    cold = Store.open(settings.db)
    monkeypatch.setattr(matrix, "from_rows", lambda *a: pytest.fail("read SQLite"))
    assert _same(cold.matrix(fp, dim), first)
    monkeypatch.undo()

    (vault / "c.md").write_text("# C\n\nA third note about the garden shed roof.\n")
    v.index(now=NOW)  # a new generation
    fresh = Store.open(settings.db).matrix(fp, dim)
    assert len(fresh.note_ids) > len(first.note_ids)  # the old file was not used

    for damage in (cache.read_bytes()[:-100], b"not arrays"):  # rebuilt from SQLite, rewritten
        cache.write_bytes(damage)
        assert _same(Store.open(settings.db).matrix(fp, dim), fresh)
        assert _same(Store.open(settings.db).matrix(fp, dim), fresh)

    earlier = settings.db.with_name(settings.db.name + ".matrix-0123456789ab.npz")
    earlier.write_bytes(b"an earlier version's copy")

    other = Store.open(settings.db).matrix("another|model|r1", dim)  # a second model
    assert len(other.note_ids) == 0
    # Two models read the same state (the multilingual option ranks with both): both kept.
    assert len(list(settings.db.parent.glob("*.matrix-*.npys"))) == 2
    assert not earlier.exists()
    (vault / "d.md").write_text("# D\n\nA fourth note about the compost bin.\n")
    v.index(now=NOW)  # a new generation: the first model's copy can never be read again
    Store.open(settings.db).matrix("another|model|r1", dim)
    assert [p.name for p in settings.db.parent.glob("*.matrix-*.npys")] != [cache.name]
    assert len(list(settings.db.parent.glob("*.matrix-*.npys"))) == 1  # the old copy is gone


def test_a_new_store_at_the_same_path_ignores_the_old_matrix_file(make_vault, fake_embedder):
    vault, v, store = setup(make_vault, fake_embedder)
    settings = v.settings
    v.index(now=NOW)
    store.matrix(fake_embedder.fingerprint, fake_embedder.dim)
    generation = store.get_meta("generation")
    store.close()
    for suffix in ("", "-wal", "-shm"):
        settings.db.with_name(settings.db.name + suffix).unlink(missing_ok=True)
    (vault / "b.md").unlink()
    again = make_vault(root=vault, embedder=fake_embedder, index_at=NOW).store
    with again.atomic():  # the worst case: the new store has reached the same generation
        again.set_meta("generation", generation)
    matrix = Store.open(settings.db).matrix(fake_embedder.fingerprint, fake_embedder.dim)
    assert set(matrix.note_ids) == {again.path_ids()["a.md"]}


def test_a_notes_aliases_are_embedded_with_its_title(make_vault, fake_embedder):
    """Aliases are other names for the note: a query by one finds it by meaning too."""
    vault, v, store = setup(make_vault, fake_embedder)
    (vault / "c.md").write_text("---\naliases: [Heater, boiler room]\n---\n# C\n\nPipes.\n")
    v.index(now=NOW)
    embedded = [t for call in fake_embedder.calls for t in call]
    assert "C (Heater, boiler room)\nC\n# C\n\nPipes." in embedded
    (vault / "c.md").write_text("---\naliases: [Heater]\n---\n# C\n\nPipes.\n")
    v.index(now=NOW)
    assert fake_embedder.calls[-1] == ["C (Heater)\nC\n# C\n\nPipes."]


def test_a_change_of_embedded_text_reembeds_only_the_notes_it_changes(make_vault, fake_embedder):
    """Aliases joined the embedded text without a fingerprint bump: after the re-parse a
    migration asks for, only the chunks of notes with aliases are embedded again."""
    v = make_vault({"plain.md": "# Plain\nNo aliases here.\n",
                    "named.md": "---\naliases: [Other name]\n---\n# Named\nText.\n"},
                   embedder=fake_embedder, index_at=datetime(2026, 8, 1))
    store = v.store
    texts = [t for call in fake_embedder.calls for t in call]
    assert any("Named (Other name)" in t for t in texts)
    # Pretend the store predates aliases in the text: old hashes, old vectors.
    named = "(SELECT id FROM notes WHERE path = 'named.md')"
    with store.atomic():
        store.execute(f"DELETE FROM vectors WHERE hash IN (SELECT hash FROM chunks "
                      f"WHERE note_id = {named})")
        store.execute(f"UPDATE chunks SET hash = 'old-' || hash WHERE note_id = {named}")
        store.execute("INSERT INTO vectors SELECT c.hash, ?, zeroblob(256) FROM chunks c "
                      "WHERE c.hash LIKE 'old-%'", [fake_embedder.fingerprint])
        store.set_meta("reparse_all", "1")
    fake_embedder.calls.clear()
    report = v.index(now=datetime(2026, 8, 2))
    store.close()
    assert report.embedded == 1
    assert [t for call in fake_embedder.calls for t in call] == [
        "Named (Other name)\nNamed\n# Named\nText."]
