"""The change planner on plain maps, and the folder scan on real temp folders."""

from __future__ import annotations

import os

from vaultmem.text.folder import FileStat, plan_changes, scan
from vaultmem.text.rows import StoredNote


def stored(path, size, mtime, digest, deleted=False, id_=1):
    return StoredNote(id_, path, size, mtime, digest, deleted)


def hasher(table, calls):
    def hash_of(path):
        calls.append(path)
        return table[path]
    return hash_of


def test_unchanged_stat_never_hashes():
    calls = []
    disk = {"a.md": FileStat(10, 1), "b.md": FileStat(20, 2)}
    db = {"a.md": stored("a.md", 10, 1, "h1"), "b.md": stored("b.md", 20, 2, "h2", id_=2)}
    plan = plan_changes(disk, db, hasher({}, calls))
    assert calls == []
    assert plan.unchanged == 2 and not plan.changed


def test_new_modified_touched_deleted():
    calls = []
    disk = {"a.md": FileStat(10, 5), "b.md": FileStat(21, 2), "n.md": FileStat(3, 3)}
    db = {"a.md": stored("a.md", 10, 1, "h1"), "b.md": stored("b.md", 20, 2, "h2", id_=2),
          "gone.md": stored("gone.md", 7, 7, "hg", id_=3)}
    plan = plan_changes(disk, db, hasher({"a.md": "h1", "b.md": "h2x", "n.md": "hn"}, calls))
    assert sorted(calls) == ["a.md", "b.md", "n.md"]
    assert plan.touched == ["a.md"]
    assert plan.modified == ["b.md"]
    assert plan.new == ["n.md"]
    assert plan.deleted == ["gone.md"]
    assert plan.moved == []


def test_move_is_same_hash_new_path():
    disk = {"new/place.md": FileStat(10, 9)}
    db = {"old.md": stored("old.md", 10, 1, "h1")}
    plan = plan_changes(disk, db, hasher({"new/place.md": "h1"}, []))
    assert plan.moved == [("old.md", "new/place.md")]
    assert plan.new == [] and plan.deleted == []


def test_deleted_note_reappearing_is_new_not_unchanged():
    disk = {"a.md": FileStat(10, 1)}
    db = {"a.md": stored("a.md", 10, 1, "h1", deleted=True)}
    plan = plan_changes(disk, db, hasher({"a.md": "h1"}, []))
    assert plan.new == ["a.md"] and plan.unchanged == 0


def test_full_rehashes_and_reparses_everything():
    calls = []
    disk = {"a.md": FileStat(10, 1)}
    db = {"a.md": stored("a.md", 10, 1, "h1")}
    plan = plan_changes(disk, db, hasher({"a.md": "h1"}, calls), full=True)
    assert calls == ["a.md"] and plan.reparse == ["a.md"] and plan.modified == []


def test_scan_skips_dot_names_and_non_markdown(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "x.md").write_text("hidden")
    (tmp_path / ".hidden.md").write_text("hidden")
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "Note.MD").write_text("hi")
    (tmp_path / "a.md").write_text("a")
    found = scan(tmp_path)
    assert sorted(found.files) == ["a.md", "sub/Note.MD"]
    assert found.warnings == []


def test_scan_symlink_loop_and_escape_warn_and_continue(tmp_path):
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "sub" / "n.md").write_text("n")
    os.symlink(vault, vault / "sub" / "loop")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    os.symlink(outside, vault / "escape")
    os.symlink(outside / "secret.md", vault / "secret-link.md")
    os.symlink(vault / "sub" / "n.md", vault / "inside-link.md")
    found = scan(vault)
    assert sorted(found.files) == ["inside-link.md", "sub/n.md"]
    messages = dict(found.warnings)
    assert "loop" in messages["sub/loop"]
    assert "outside the vault" in messages["escape"]
    assert "outside the vault" in messages["secret-link.md"]
