"""Knowing whether the store is behind the vault: the watcher (with its sync cookie), the
walk fallback, the folder's identity. Real files and a real watchfiles thread; no model."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from vaultmem.interfaces.freshness import (
    BURST,
    GONE,
    HERE,
    REPLACED,
    Folder,
    Freshness,
    Scope,
    Watcher,
)


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "vault"
    (root / ".vaultmem").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("# A\n")
    return root


def fresh(root: Path, watch: bool, lines: list[str] | None = None) -> Freshness:
    return Freshness(root, root / ".vaultmem" / "vaultmem.db", watch=watch,
                     say=(lines if lines is not None else []).append)


def test_scope_keeps_dot_names_and_the_store_out(tmp_path):
    root = tmp_path / "v"
    scope = Scope(root, root / ".vaultmem" / "vaultmem.db")
    j = os.path.join
    assert scope.matters(j(str(root), "notes", "a.md"))
    assert scope.matters(j(str(root), "notes"))  # a folder renamed or removed
    assert scope.matters(str(root))
    assert not scope.matters(j(str(root), ".obsidian", "workspace.json"))
    assert not scope.matters(j(str(root), "notes", ".a.md.swp"))
    assert not scope.matters(j(str(root), ".vaultmem", "vaultmem.db-wal"))
    assert not scope.matters(j(str(tmp_path), "elsewhere.md"))
    assert scope.watched() == [str(root)]


def test_scope_with_the_store_beside_the_notes_or_outside(tmp_path):
    root = tmp_path / "v"
    beside = Scope(root, root / "memory.db")
    assert not beside.matters(os.path.join(str(root), "memory.db-wal"))
    assert beside.matters(os.path.join(str(root), "memory.md"))
    cookie = beside.new_cookie()
    assert beside.cookie_name(str(cookie)) == cookie.name and not beside.matters(str(cookie))
    outside = Scope(root, tmp_path / "db" / "vm.db")
    assert outside.watched() == [str(root), str(tmp_path / "db")]
    assert outside.cookie_name(str(outside.new_cookie())).startswith("vm.db.sync-")


@pytest.mark.parametrize("watch", [True, False], ids=["watcher", "walk"])
def test_every_change_is_seen_by_the_next_check(root, watch):
    """The property the MCP server relies on: no settling time between a write and the
    check that must see it."""
    f = fresh(root, watch)
    try:
        assert f.check() is True  # nothing known yet: index once
        assert f.check() is False
        note = root / "notes" / "a.md"
        for i in range(15):
            note.write_text(f"# A\nedit {i}\n")
            assert f.check() is True, i
            assert f.check() is False, i
        (root / "notes" / "b.md").write_text("# B\n")
        assert f.check() is True
        (root / "notes" / "b.md").unlink()
        assert f.check() is True
        (root / "notes").rename(root / "moved")
        assert f.check() is True
        assert f.check() is False
    finally:
        f.close()


def test_the_store_dot_files_and_other_folders_do_not_make_it_dirty(root):
    f = fresh(root, watch=True)
    try:
        f.check()
        (root / ".vaultmem" / "vaultmem.db-wal").write_bytes(b"x" * 10)
        (root / ".obsidian").mkdir()
        (root / ".obsidian" / "workspace.json").write_text("{}")
        assert f.check() is False
        assert not list((root / ".vaultmem").glob("*.sync-*"))  # cookies cleaned up
    finally:
        f.close()


@pytest.fixture
def watcher(root):
    w = Watcher(Scope(root, root / ".vaultmem" / "vaultmem.db"), Folder(root), step_ms=5,
                debounce_ms=50)
    yield w
    w.close()


def test_a_large_batch_is_dirty_whatever_it_names(watcher, root):
    """An inotify overflow is dropped silently by notify; a batch that large may hide one."""
    watcher.take_dirty()
    ignored = os.path.join(str(root), ".git", "objects")
    watcher._take({(1, f"{ignored}/{i}") for i in range(BURST - 1)})
    assert watcher.take_dirty() is False
    watcher._take({(1, f"{ignored}/{i}") for i in range(BURST)})
    assert watcher.take_dirty() is True


def test_take_names_the_changed_notes(watcher, root):
    watcher.take()
    (root / "notes" / "a.md").write_text("# A\nchanged\n")
    assert watcher.sync()
    dirty, paths = watcher.take()
    assert dirty and "notes/a.md" in paths


def test_folder_gone_back_and_replaced(root, tmp_path):
    folder = Folder(root)
    assert folder.state() == HERE
    root.rename(tmp_path / "away")
    assert folder.state() == GONE
    (tmp_path / "away").rename(root)
    assert folder.state() == HERE
    root.rename(tmp_path / "old")
    shutil.copytree(tmp_path / "old", root)  # a restored copy: another folder, same path
    assert folder.state() == REPLACED
    assert "different folder" in folder.describe(REPLACED)


def test_a_vanished_vault_is_reported_never_changed(root, tmp_path):
    lines: list[str] = []
    f = fresh(root, watch=True, lines=lines)
    try:
        f.check()
        root.rename(tmp_path / "away")
        assert f.check() == GONE
        (tmp_path / "away").rename(root)
        (root / "notes" / "a.md").write_text("# A\nwhile it was away\n")
        assert f.check() is True
    finally:
        f.close()


def test_the_watcher_stops_itself_when_the_folder_goes(root, tmp_path, monkeypatch):
    import vaultmem.interfaces.freshness as freshness

    monkeypatch.setattr(freshness, "PRESENCE_EVERY", 0.0)
    scope = Scope(root, root / ".vaultmem" / "vaultmem.db")
    watcher = Watcher(scope, Folder(root), step_ms=5, debounce_ms=50)
    root.rename(tmp_path / "away")
    watcher.wait(timeout=5)
    watcher._thread.join(timeout=5)
    assert not watcher.alive and watcher.gone == GONE


def test_without_a_watcher_the_walk_is_used_and_said(root, monkeypatch):
    import vaultmem.interfaces.freshness as freshness

    def refuse(*args, **kwargs):
        raise freshness.WatchUnavailable("cannot watch here: no inotify")

    monkeypatch.setattr(freshness, "Watcher", refuse)
    lines: list[str] = []
    f = fresh(root, watch=True, lines=lines)
    assert f.check() is True and f.mode == "stat"
    assert lines == ["cannot watch here: no inotify: checking the vault with a walk before "
                     "each answer instead"]
    assert f.check() is False
    (root / "notes" / "a.md").write_text("# A\nlonger now\n")
    assert f.check() is True


def test_mark_dirty_makes_the_next_check_say_changed(root):
    for watch in (True, False):
        f = fresh(root, watch)
        try:
            f.check()
            assert f.check() is False
            f.mark_dirty()
            assert f.check() is True
        finally:
            f.close()
