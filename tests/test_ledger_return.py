"""A commitment that leaves the ledger and comes back keeps its id and one history
(SPEC 3: `reopened` on its old id), and a ledger caught half-way through a save never
removes what it holds.
"""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from vaultmem import Vault, indexer
from vaultmem.ledger import parse_ledger
from vaultmem.ledger_reconcile import Known, reconcile

from .conftest import ROOT, FakeEmbedder

NOW = datetime(2026, 8, 15, 9, 0)
LEDGER = ("# Ledger\n\n"
          "- [ ] Pay the plumber 📅 2026-08-15 [[Plumber]]\n"
          "- [ ] Call mum ^mum\n"
          "- [ ] When the quote arrives, check the estimate [[Plumber]]\n")
FILES = {"Plumber.md": "# Plumber\n\nTomasz.\n"}
IDS = {"c-pay-plumber", "mum", "c-check-estimate"}


def _ids(vault) -> set[str]:
    return {e["id"] for e in vault.ledger().as_dict()["results"]}


def _kinds(vault, entry_id: str) -> list[str]:
    return [r["kind"] for r in vault.history(entry_id).as_dict()["revisions"]]


def _index(vault, step: int):
    return vault.index(now=NOW + timedelta(minutes=step))


def _write(vault, text: str) -> None:
    (vault.settings.vault / "Ledger.md").write_text(text, encoding="utf-8")


# -- delete, index, restore, index -------------------------------------------------------

@pytest.mark.parametrize("line, entry_id", [
    ("- [ ] Call mum ^mum\n", "mum"),
    ("- [ ] Pay the plumber 📅 2026-08-15 [[Plumber]]\n", "c-pay-plumber"),
])
def test_a_line_deleted_and_restored_is_reopened_on_its_old_id(make_vault, line, entry_id,
                                                               capsys):
    """Before: the old id stayed removed and the restored line got a new one (mum: the
    block id was taken, so "c-call-mum"), splitting the history."""
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    assert _ids(vault) == IDS
    _write(vault, LEDGER.replace(line, ""))
    _index(vault, 1)
    assert _ids(vault) == IDS - {entry_id}
    _write(vault, LEDGER)
    _index(vault, 2)
    assert _ids(vault) == IDS
    assert _kinds(vault, entry_id) == ["created", "removed", "reopened"]
    reopened = vault.history(entry_id).as_dict()["revisions"][-1]
    assert reopened["detail"] == {"from": "removed"}
    created = vault.store.execute("SELECT count(*) FROM ops WHERE op = 'created' "
                                  "AND entry_id IS NOT NULL").fetchone()[0]
    assert created == 3
    from vaultmem.interfaces.cli import main

    assert main(["ledger", "show", entry_id, "--vault", str(vault.settings.vault)]) == 0
    out = capsys.readouterr().out
    assert "created" in out and "removed" in out and "reopened  was removed" in out


def test_a_returning_entry_carries_what_changed_while_it_was_gone(make_vault):
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    _write(vault, LEDGER.replace("- [ ] Call mum ^mum\n", ""))
    _index(vault, 1)
    _write(vault, LEDGER.replace("- [ ] Call mum ^mum", "- [x] Call mum today ✅ 2026-08-15 ^mum"))
    _index(vault, 2)
    revisions = vault.history("mum").as_dict()["revisions"]
    assert [r["kind"] for r in revisions] == ["created", "removed", "reopened", "overridden",
                                              "done"]
    assert revisions[2]["detail"] == {"from": "removed",
                                      "status": {"from": "open", "to": "done"}}


def test_a_line_moved_to_another_ledger_keeps_its_id_by_its_block_id(make_vault):
    vault = make_vault({**FILES, "Work.md": "---\ntype: ledger\n---\n# Work\n"},
                       ledger=LEDGER, index_at=NOW)
    _write(vault, LEDGER.replace("- [ ] Call mum ^mum\n", ""))
    (vault.settings.vault / "Work.md").write_text("---\ntype: ledger\n---\n# Work\n\n"
                                                 "- [ ] Call mum ^mum\n")
    _index(vault, 1)
    assert _ids(vault) == IDS
    row = vault.store.execute("SELECT ledger_path, present FROM entries WHERE id = 'mum'")
    assert row.fetchone() == ("Work.md", 1)


def test_present_entries_keep_priority_over_removed_ones_for_everything_but_block_ids():
    """A removed "Water the plants" and a present "Water the plant pots" edited into
    "Water the plants": the present entry is reworded, the removed one stays removed."""
    old, _ = parse_ledger("- [ ] Water the plants\n- [ ] Water the plant pots\n")
    current, _ = parse_ledger("- [ ] Water the plants\n")
    result = reconcile([Known("c-pots", old[1])], current, {"c-plants", "c-pots"},
                       removed=[Known("c-plants", old[0])])
    assert [(i, [r.kind for r in revs]) for i, _, revs in result] == [
        ("c-pots", ["overridden"])]
    back, _ = parse_ledger("- [ ] Water the plants ^c-plants\n")
    result = reconcile([Known("c-pots", old[1])], back, {"c-plants", "c-pots"},
                       removed=[Known("c-plants", old[0])])
    assert [(i, [r.kind for r in revs]) for i, _, revs in result] == [
        ("c-plants", ["reopened"]), ("c-pots", ["removed"])]


def test_the_most_recently_removed_of_two_alike_returns(make_vault):
    vault = make_vault(FILES, ledger="# L\n\n- [ ] Pay rent\n", index_at=NOW)
    _write(vault, "# L\n\n")
    _index(vault, 1)
    _write(vault, "# L\n\n- [ ] Pay rent\n")
    _index(vault, 2)
    assert _ids(vault) == {"c-pay-rent"}
    assert _kinds(vault, "c-pay-rent") == ["created", "removed", "reopened"]


# -- a ledger caught half-way through a save -----------------------------------------------

def test_an_empty_ledger_file_removes_nothing(make_vault):
    """Before: a ledger read between an editor's truncate and write lost every entry,
    and the write that followed re-created all of them under new ids."""
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    _write(vault, "")
    report = _index(vault, 1)
    assert any("ledger file is empty: its 3 entries are kept" in m
               for p, _, m in report.warnings if p == "Ledger.md")
    assert _ids(vault) == IDS
    status = vault.status().as_dict()["warnings"]
    assert any("empty" in w["message"] for w in status if w["path"] == "Ledger.md")
    _write(vault, LEDGER)
    _index(vault, 2)
    assert _ids(vault) == IDS
    assert all(_kinds(vault, i) == ["created"] for i in IDS)
    assert not any("empty" in w["message"] for w in vault.status().as_dict()["warnings"])


def test_a_ledger_emptied_but_for_its_heading_removes_its_entries(make_vault):
    """The rule holds back only what a save half-way looks like: a heading and no entries
    is a ledger whose lines were deleted on purpose."""
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    _write(vault, "# Ledger\n")
    _index(vault, 1)
    assert _ids(vault) == set()
    assert all(_kinds(vault, i) == ["created", "removed"] for i in IDS)


def test_a_ledger_that_changes_during_the_settle_is_read_again_next_run(make_vault,
                                                                       monkeypatch):
    """The index read the first part of a ledger being written; by the end of the settle
    the writer has finished: nothing of the ledger changes in this run."""
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    root = vault.settings.vault
    _write(vault, LEDGER.split("- [ ] Call mum")[0])  # the writer's first block only
    finish = []

    def writer_finishes(seconds):
        finish.append(seconds)
        (root / "Ledger.md").write_text(LEDGER + "- [ ] A new one\n", encoding="utf-8")

    monkeypatch.setattr(indexer.time, "sleep", writer_finishes)
    report = _index(vault, 1)
    monkeypatch.undo()
    assert finish == [indexer.LEDGER_SETTLE]
    assert any("changed while it was being read" in m for _, _, m in report.warnings)
    assert _ids(vault) == IDS
    assert vault.store.execute("SELECT count(*) FROM ops WHERE op = 'removed'").fetchone() == (0,)
    _index(vault, 2)
    assert _ids(vault) == IDS | {"c-new-one"}
    assert all(_kinds(vault, i) == ["created"] for i in IDS)


def test_a_removal_from_a_ledger_that_stood_still_waits_once(make_vault, monkeypatch):
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    waits = []
    monkeypatch.setattr(indexer.time, "sleep", waits.append)
    _write(vault, LEDGER.replace("- [ ] Call mum ^mum\n", ""))
    _index(vault, 1)
    assert waits == [indexer.LEDGER_SETTLE]
    assert _ids(vault) == IDS - {"mum"}
    _write(vault, LEDGER + "- [ ] Another\n")
    _index(vault, 2)
    assert waits == [indexer.LEDGER_SETTLE]  # nothing removed: no wait


# -- under `watch`: an editor that saves in place ------------------------------------------

WATCH = r"""
import sys
sys.path.insert(0, sys.argv[1])
from tests.conftest import FakeEmbedder
import vaultmem.embed
vaultmem.embed.FastEmbedder = lambda settings: FakeEmbedder()
from vaultmem.interfaces.cli import main
sys.exit(main(["watch", sys.argv[2], "--debounce", "50"]))
"""


class Watch:
    """`vaultmem watch` (on the fake embedder) in the background; its stderr lines."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen([sys.executable, "-c", WATCH, str(ROOT), str(root)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, text: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.proc.kill()
                raise AssertionError(f"no line with {text!r}: {self.seen}") from None
            if line is None:
                raise AssertionError(f"exited before {text!r}: {self.seen}")
            self.seen.append(line)
            if text in line:
                return line

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


def _save_in_place(path: Path, text: str | None) -> None:
    """What an editor that saves in place does: truncate the file, then (a moment later:
    here, once the watcher has indexed the empty file) write it."""
    with open(path, "r+b") as fh:
        fh.truncate(0)
        if text is not None:
            fh.write(text.encode("utf-8"))


@pytest.mark.parametrize("first", [None, LEDGER.split("- [ ] Call mum")[0]],
                         ids=["empty", "first-part"])
def test_an_in_place_save_under_watch_keeps_every_id(make_vault, first):
    """The watcher indexes the ledger truncated (empty, or holding only its first block),
    then written in full: every entry keeps its id, and `ledger show` one history."""
    vault = make_vault(FILES, ledger=LEDGER, index_at=NOW)
    root = vault.settings.vault
    vault.close()
    watch = Watch(root)
    try:
        watch.expect("watching")
        _save_in_place(root / "Ledger.md", first)
        watch.expect("indexed in")
        with Vault.open(root, embedder=FakeEmbedder()) as seen:
            between = _ids(seen)
        _save_in_place(root / "Ledger.md", LEDGER)
        watch.expect("indexed in")
    finally:
        assert watch.stop() == 0, watch.seen
    with Vault.open(root, embedder=FakeEmbedder()) as after:
        assert _ids(after) == IDS
        kinds = {i: _kinds(after, i) for i in IDS}
    if first is None:
        assert between == IDS and all(k == ["created"] for k in kinds.values())
    else:  # the first part stood still: what it lacked was removed, then came back
        assert between == {"c-pay-plumber"}
        assert kinds["mum"] == kinds["c-check-estimate"] == ["created", "removed", "reopened"]
        assert kinds["c-pay-plumber"] == ["created"]


def test_matching_removed_entries_stays_near_linear(monkeypatch):
    """Every entry of a 4,000-entry ledger removed, then all of them back reworded: the
    removed ones are matched by the same blocked stages (pairs compared, counted)."""
    from .ledger_reference import pairs_compared, reworded
    from .test_growth import BOUND, FACTOR, load_script

    bench = load_script("bench_ledger")

    def compared(n: int) -> int:
        before, after = reworded(bench, n)
        gone = [Known(f"e{i}", e) for i, e in enumerate(before)]
        return pairs_compared(monkeypatch, lambda: reconcile([], after, set(), removed=gone))

    small, large = compared(500), compared(FACTOR * 500)
    assert small > 0 and large / small < BOUND


# -- a recurring entry's run (Obsidian Tasks) that leaves and comes back -------------------

WATER = "Water the plants 🔁 every week"
RUN = (f"- [ ] {WATER} 📅 2026-08-08\n"
       f"- [x] {WATER} 📅 2026-08-01 ✅ 2026-08-02 ^water\n")


def test_a_recurring_run_that_comes_back_keeps_each_line_on_its_own_id(make_vault):
    """Tasks left the block id on the done line; the commitment (the open line) holds it
    as `_keyed` reads it. Before: the run removed and put back swapped the two ids, the
    open line reopened as the done occurrence "water-2026-08-02" and the done line as
    the commitment "water"."""
    vault = make_vault(FILES, ledger=f"# L\n\n- [ ] {WATER} 📅 2026-08-01 ^water\n",
                       index_at=NOW)
    _write(vault, f"# L\n\n{RUN}")
    _index(vault, 1)
    statuses = {e["id"]: e["status"] for e in vault.ledger(include_closed=True).as_dict()
                ["results"]}
    assert statuses == {"water": "open", "water-2026-08-02": "done"}
    _write(vault, "# L\n\n")  # a partial read, or the lines cut and pasted back
    _index(vault, 2)
    _write(vault, f"# L\n\n{RUN}")
    _index(vault, 3)
    rows = vault.ledger(include_closed=True).as_dict()["results"]
    assert {e["id"]: e["status"] for e in rows} == statuses
    assert _kinds(vault, "water") == ["created", "occurrence-done", "removed", "reopened"]
    assert _kinds(vault, "water-2026-08-02") == ["created", "removed", "reopened"]


def test_a_new_done_occurrence_is_not_taken_for_an_old_one_cleared_away():
    """A recurring entry's old done line deleted, then the entry checked off twice before
    the next index: both new done lines are occurrences of the commitment. Before: the
    one the check-off did not explain took the id of the deleted occurrence ("reopened",
    "rescheduled") for its words alone."""
    def parse(text):
        return parse_ledger(text)[0]

    done_0801 = f"- [x] {WATER} 📅 2026-08-01 ✅ 2026-08-01"
    known = [Known("c-water", parse(f"- [ ] {WATER} 📅 2026-08-08")[0])]
    removed = [Known("c-water-2026-08-01", parse(done_0801)[0])]
    text = (f"- [ ] {WATER} 📅 2026-08-22\n- [x] {WATER} 📅 2026-08-15 ✅ 2026-08-15\n"
            f"- [x] {WATER} 📅 2026-08-08 ✅ 2026-08-08\n")
    result = reconcile(known, parse(text), {"c-water", "c-water-2026-08-01"}, removed)
    assert [(i, [r.kind for r in revs]) for i, _, revs in result] == [
        ("c-water", ["occurrence-done"]), ("c-water-2026-08-15", ["created"]),
        ("c-water-2026-08-08", ["created"])]
    # the deleted line itself put back (as it was) is that occurrence, reopened
    result = reconcile(known, parse(text + done_0801), {"c-water", "c-water-2026-08-01"},
                       removed)
    assert [(i, [r.kind for r in revs]) for i, _, revs in result][-1] == (
        "c-water-2026-08-01", ["reopened"])
