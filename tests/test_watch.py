"""`vaultmem watch` as a real subprocess with the real model: it indexes what changes,
says so on stderr, stops cleanly on SIGTERM/SIGINT, and survives its folder going away."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from vaultmem import Vault
from vaultmem.interfaces.watch import Signals, Stopped, indexed_line

from .conftest import write_files

integration = pytest.mark.integration  # the subprocess tests run the real model


class Watch:
    """`vaultmem watch` in the background, its stderr lines readable with a timeout."""

    def __init__(self, root: Path, *args: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vaultmem", "watch", str(root), "--debounce", "100", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # end of output

    def expect(self, text: str, timeout: float = 60) -> str:
        """The next stderr line containing `text` (the lines before it are kept)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.stop(signal.SIGKILL)
                raise AssertionError(f"no line with {text!r} in {timeout} s: {self.seen}") \
                    from None
            if line is None:
                raise AssertionError(f"exited before a line with {text!r}: {self.seen}")
            self.seen.append(line)
            if text in line:
                return line

    def stop(self, sig=signal.SIGTERM) -> int:
        """Send `sig`, wait for the exit and read every line left; the exit status."""
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=60)
        while (line := self.lines.get(timeout=10)) is not None:
            self.seen.append(line)
        return code


@pytest.fixture
def root(tmp_path) -> Path:
    return write_files(tmp_path / "vault", {
        "notes/soup.md": "# Soup\n\nRed lentils, cumin and paprika.\n",
        "notes/bike.md": "# Bike\n\nThe rear tyre keeps going flat.\n"})


def indexed_hash_matches(root: Path, rel: str) -> bool:
    with Vault.open(root) as v:
        return v.get(rel).changed_since_index is False


@pytest.fixture
def watching(root):
    """`vaultmem watch root`, once its catch-up run is done; killed if a test left it."""
    watch = Watch(root)
    watch.expect("indexed in")
    yield watch
    if watch.proc.poll() is None:
        watch.stop(signal.SIGKILL)


@integration
def test_watch_indexes_edits_and_stops_cleanly_on_sigterm(watching, root):
    assert watching.seen[0].startswith("vaultmem watch: watching") and "2 new" in \
        watching.seen[-1]
    (root / "notes" / "bike.md").write_text("# Bike\n\nNew inner tube, pumped to 4 bar.\n")
    line = watching.expect("indexed in")
    assert "1 modified" in line and "notes/bike.md" in line
    assert indexed_hash_matches(root, "notes/bike.md")
    (root / "notes" / "new.md").write_text("# New\n\nA fresh note.\n")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "workspace.json").write_text("{}")
    line = watching.expect("indexed in")
    assert "1 new" in line and "notes/new.md" in line and ".obsidian" not in line
    assert watching.stop(signal.SIGTERM) == 0 and watching.proc.stdout.read() == ""
    assert watching.seen[-1] == "vaultmem watch: stopped"
    assert not any("Traceback" in line for line in watching.seen)


@integration
def test_watch_waits_for_a_renamed_vault_and_catches_up(watching, root, tmp_path):
    root.rename(tmp_path / "away")
    watching.expect("is gone (renamed, moved, deleted or unmounted): waiting for it")
    (tmp_path / "away" / "notes" / "soup.md").write_text("# Soup\n\nNow with barley.\n")
    (tmp_path / "away").rename(root)
    watching.expect("is back")
    assert "1 modified" in watching.expect("indexed in")
    assert indexed_hash_matches(root, "notes/soup.md")
    with Vault.open(root) as v:
        assert v.status().as_dict()["counts"]["deleted"] == 0  # never indexed as empty
    assert watching.stop(signal.SIGINT) == 0


@integration
def test_watch_refuses_a_different_folder_at_the_vault_path(watching, root, tmp_path):
    root.rename(tmp_path / "old")
    shutil.copytree(tmp_path / "old", root)
    watching.expect("is a different folder now")
    assert watching.proc.wait(timeout=30) == 1


@integration
def test_sigterm_during_an_index_run_stops_it_between_transactions(tmp_path):
    root = tmp_path / "big"
    (root / "n").mkdir(parents=True)
    for i in range(800):
        (root / "n" / f"{i:04d}.md").write_text(f"# Note {i}\n\nItem {i} of the long list.\n")
    watch = Watch(root)
    watch.expect("watching")
    time.sleep(0.5)  # the catch-up run of 800 notes is under way (it takes seconds)
    assert watch.stop(signal.SIGTERM) == 0
    assert "stopped during an index run" in watch.seen[-1], watch.seen
    with Vault.open(root) as v:  # consistent, and the next run finishes what was left
        report = v.index()
        assert report.new + report.embedded > 0
        assert v.status().as_dict()["counts"]["notes"] == 800


def test_a_second_signal_during_a_run_stops_at_once():
    signals = Signals()
    signals.progress("parse", 1, 2)  # no stop asked: the run goes on
    signals._handle(signal.SIGTERM, None)
    assert signals.stop.is_set()
    with pytest.raises(Stopped):
        signals.progress("embed", 1, 2)
    signals.indexing = True
    with pytest.raises(Stopped):
        signals._handle(signal.SIGTERM, None)


def test_the_index_line_names_counts_and_files():
    from vaultmem.indexer import IndexReport

    report = IndexReport(new=1, modified=2, embedded=3, seconds=0.25)
    assert indexed_line(report, ["a.md", "b.md", "c.md", "d.md"]) == (
        "indexed in 0.25 s: 1 new, 2 modified, 0 moved, 0 deleted, 3 chunks embedded "
        "(a.md, b.md, c.md and 1 more)")
    assert os.sep not in indexed_line(report, ["x/y.md"]).split("(")[0]
