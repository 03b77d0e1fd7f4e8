"""Recurring entries (Obsidian Tasks 🔁): checking one off writes the next occurrence as a
new line; that line is the same commitment, and the done occurrence is kept."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from vaultmem import config
from vaultmem.indexer import index_vault
from vaultmem.interfaces.cli import main
from vaultmem.ledger import parse_ledger
from vaultmem.ledger_reconcile import Known, reconcile
from vaultmem.store import Store

NOW = datetime(2026, 8, 15, 9, 0)
OPEN = "- [ ] Water the plants 🔁 every week 📅 2026-08-01 ^water"
# What Tasks writes on check-off: the next occurrence (no block id) above the done line.
DONE = "- [x] Water the plants 🔁 every week 📅 2026-08-01 ✅ 2026-08-02 ^water"
CHECKED = "- [ ] Water the plants 🔁 every week 📅 2026-08-08\n" + DONE


def step(known: list[Known], text: str):
    entries, warnings = parse_ledger(text)
    assert warnings == []
    result = reconcile(known, entries)
    return ([Known(i, e) for i, e, _ in result if e is not None],
            {(i, e.status if e else None): [r.kind for r in revs] for i, e, revs in result})


def test_the_block_id_is_not_swallowed_by_the_recurrence():
    entry = parse_ledger(OPEN)[0][0]
    assert (entry.block_id, entry.fields) == ("water", {"recurrence": "every week"})


def test_the_dataview_repeat_field_is_the_recurrence():
    entry = parse_ledger("- [ ] Water the plants [repeat:: every week] [due:: 2026-08-01]")[0][0]
    assert entry.fields == {"recurrence": "every week"}


def test_the_next_occurrence_keeps_the_identity_and_the_done_one_is_kept():
    known, _ = step([], OPEN)
    known, changes = step(known, CHECKED)
    assert changes == {("water", "open"): ["occurrence-done"],
                       ("water-2026-08-02", "done"): ["created"]}
    assert {k.id: k.entry.due.isoformat() for k in known} == {
        "water": "2026-08-08", "water-2026-08-02": "2026-08-01"}
    known, changes = step(known, CHECKED)  # nothing changed since: nothing happens
    assert changes == {("water", "open"): [], ("water-2026-08-02", "done"): []}


def test_the_next_occurrence_below_the_done_line_and_without_block_ids():
    known, _ = step([], "- [ ] Call mum [[Mum]] 🔁 every week 📅 2026-08-01")
    text = ("- [x] Call mum [[Mum]] 🔁 every week 📅 2026-08-01 ✅ 2026-08-01\n"
            "- [ ] Call mum [[Mum]] 🔁 every week 📅 2026-08-08")
    known, changes = step(known, text)
    assert changes == {("c-call-mum-2026-08-01", "done"): ["created"],
                       ("c-call-mum", "open"): ["occurrence-done"]}


def test_a_second_check_off_archives_the_second_occurrence():
    known, _ = step([], OPEN)
    known, _ = step(known, CHECKED)
    text = ("- [ ] Water the plants 🔁 every week 📅 2026-08-15 ^w2\n"
            "- [x] Water the plants 🔁 every week 📅 2026-08-08 ✅ 2026-08-09\n" + DONE)
    known, changes = step(known, text)
    assert changes == {("water", "open"): ["occurrence-done"],
                       ("water-2026-08-09", "done"): ["created"],
                       ("water-2026-08-02", "done"): []}


@pytest.mark.parametrize("text", [
    # no recurrence: a done line and a new line are two commitments
    "- [ ] Water the plants 📅 2026-08-08\n- [x] Water the plants 📅 2026-08-01 ^water",
    # the new line is not later
    "- [ ] Water the plants 🔁 every week 📅 2026-07-25\n"
    "- [x] Water the plants 🔁 every week 📅 2026-08-01 ^water",
])
def test_only_a_later_occurrence_of_a_recurring_entry_continues_it(text):
    known, _ = step([], OPEN.replace("🔁 every week ", "") if "🔁" not in text else OPEN)
    _, changes = step(known, text)
    assert "occurrence-done" not in [k for kinds in changes.values() for k in kinds]
    assert changes[("water", "done")] == ["done"]


@pytest.fixture
def vault(tmp_path, fake_embedder):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Ledger.md").write_text(OPEN + "\n", encoding="utf-8")
    settings = config.load(root)
    store = Store.open(settings.db, create=True)
    index_vault(store, settings, fake_embedder, now=NOW)
    (root / "Ledger.md").write_text(CHECKED + "\n", encoding="utf-8")
    index_vault(store, settings, fake_embedder, now=NOW)
    store.close()
    return root


def cli(capsys, *args) -> str:
    assert main([str(a) for a in args]) == 0
    return capsys.readouterr().out


def test_history_shows_the_done_occurrence(vault, capsys):
    shown = json.loads(cli(capsys, "ledger", "show", "water", "--vault", vault, "--json"))
    assert [r["kind"] for r in shown["revisions"]] == ["created", "occurrence-done"]
    assert shown["revisions"][1]["detail"] == {
        "on": "2026-08-02", "due": "2026-08-01", "from": "2026-08-01", "next": "2026-08-08",
        "next_due": "2026-08-08", "recurrence": "every week", "occurrence": "water-2026-08-02"}
    text = cli(capsys, "ledger", "show", "water", "--vault", vault)
    assert "occurrence-done" in text and "done on 2026-08-02 (due 2026-08-01)" in text
    kept = json.loads(cli(capsys, "ledger", "show", "water-2026-08-02", "--vault", vault,
                          "--json"))
    assert kept["status"] == "done"
    assert kept["revisions"][0]["detail"]["occurrence_of"] == "water"


@pytest.mark.parametrize("columns", ["80", "120"])
def test_the_ledger_view_and_json_show_the_recurrence(vault, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    rows = json.loads(cli(capsys, "ledger", "--all", "--vault", vault, "--json"))["results"]
    assert [(r["id"], r["status"], r["due"], r["recurrence"]) for r in rows] == [
        ("water", "open", "2026-08-08", "every week"),
        ("water-2026-08-02", "done", "2026-08-01", "every week")]
    text = cli(capsys, "ledger", "--vault", vault)
    assert "🔁 every week" in text and "2026-08-08" in text


def test_a_line_another_commitment_stands_on_is_not_taken_as_the_next_occurrence():
    """Two fortnightly entries a week apart: checking off the first must not hand its id
    to the second's line, nor move the second."""
    a = "Bins out 🔁 every 2 weeks 📅 2026-08-01"
    b = "Bins out 🔁 every 2 weeks 📅 2026-08-08"
    known, _ = step([], f"- [ ] {a}\n- [ ] {b}")
    assert [k.id for k in known] == ["c-bins-out", "c-bins-out-2"]
    text = (f"- [ ] Bins out 🔁 every 2 weeks 📅 2026-08-15\n- [x] {a} ✅ 2026-08-01\n"
            f"- [ ] {b}")
    known, changes = step(known, text)
    assert changes[("c-bins-out", "open")] == ["occurrence-done"]
    assert changes[("c-bins-out-2", "open")] == []
    assert {k.id: k.entry.due.isoformat() for k in known if k.entry.status == "open"} == {
        "c-bins-out": "2026-08-15", "c-bins-out-2": "2026-08-08"}


def test_an_occurrence_filed_before_is_not_filed_again():
    old_done = "- [x] Gym 🔁 every week 📅 2026-08-01 ✅ 2026-08-01"
    known, _ = step([], "- [ ] Gym 🔁 every week 📅 2026-08-01")
    known, _ = step(known, "- [ ] Gym 🔁 every week 📅 2026-08-08\n" + old_done)
    # the next occurrence moved back to the 1st, then checked off again on the 2nd
    known, _ = step(known, "- [ ] Gym 🔁 every week 📅 2026-08-01\n" + old_done)
    known, changes = step(known, old_done + "\n- [x] Gym 🔁 every week 📅 2026-08-01 ✅ "
                          "2026-08-02\n- [ ] Gym 🔁 every week 📅 2026-08-08")
    assert changes[("c-gym-2026-08-01", "done")] == []  # the one filed before, untouched
    assert changes[("c-gym-2026-08-02", "done")] == ["created"]
    assert changes[("c-gym", "open")] == ["occurrence-done"]


# -- a next occurrence that reads as the line it replaces ------------------------------


@pytest.mark.parametrize("open_line, done_line", [
    # an undated rule: Tasks writes the very same open line above the done one
    ("- [ ] Meditate 🔁 every day", "- [x] Meditate 🔁 every day ✅ 2026-08-16"),
    # `when done` checked off before its date: the next due date is that same date
    ("- [ ] Pay rent ⏫ 🔁 every day when done 📅 2026-08-17",
     "- [x] Pay rent ⏫ 🔁 every day when done 📅 2026-08-17 ✅ 2026-08-16"),
])
def test_an_unchanged_next_occurrence_continues_the_commitment(open_line, done_line):
    known, _ = step([], open_line)
    ident = known[0].id
    known, changes = step(known, f"{open_line}\n{done_line}")
    assert changes == {(ident, "open"): ["occurrence-done"],
                       (f"{ident}-2026-08-16", "done"): ["created"]}
    known, changes = step(known, f"{open_line}\n{done_line}")  # and nothing more after
    assert changes == {(ident, "open"): [], (f"{ident}-2026-08-16", "done"): []}


def test_a_block_id_left_on_the_done_line_stays_with_the_open_one():
    known, _ = step([], "- [ ] Stretch 🔁 every day ^s1")
    text = "- [ ] Stretch 🔁 every day\n- [x] Stretch 🔁 every day ✅ 2026-08-16 ^s1"
    known, changes = step(known, text)
    assert changes == {("s1", "open"): ["occurrence-done"],
                       ("s1-2026-08-16", "done"): ["created"]}
    text = ("- [ ] Stretch 🔁 every day\n- [x] Stretch 🔁 every day ✅ 2026-08-17\n"
            "- [x] Stretch 🔁 every day ✅ 2026-08-16 ^s1")
    _, changes = step(known, text)
    assert changes == {("s1", "open"): ["occurrence-done"],
                       ("s1-2026-08-17", "done"): ["created"],
                       ("s1-2026-08-16", "done"): []}


WATERED = ("- [ ] Water plants 🔁 every week 📅 2026-08-24\n"
           "- [x] Water plants 🔁 every week 📅 2026-08-17 ✅ 2026-08-17\n"
           "- [x] Water plants 🔁 every week 📅 2026-08-10 ✅ 2026-08-10 ^c-water")


def test_the_file_alone_gives_the_ids_the_history_gave():
    known, _ = step([], "- [ ] Water plants 🔁 every week 📅 2026-08-10 ^c-water")
    known, _ = step(known, "- [ ] Water plants 🔁 every week 📅 2026-08-17\n"
                    "- [x] Water plants 🔁 every week 📅 2026-08-10 ✅ 2026-08-10 ^c-water")
    incremental, _ = step(known, WATERED)
    scratch, changes = step([], WATERED)
    assert [(k.id, k.entry.status) for k in scratch] == [
        ("c-water", "open"), ("c-water-2026-08-17", "done"), ("c-water-2026-08-10", "done")]
    assert [k.id for k in scratch] == [k.id for k in incremental]
    assert all(kinds == ["created"] for kinds in changes.values())


@pytest.mark.parametrize("text", [
    # the open line carries its own block id
    "- [ ] Water plants 🔁 every week 📅 2026-08-17 ^w2\n"
    "- [x] Water plants 🔁 every week 📅 2026-08-10 ✅ 2026-08-10 ^c-water",
    # another entry stands between them
    "- [ ] Water plants 🔁 every week 📅 2026-08-17\n- [ ] Pay rent\n"
    "- [x] Water plants 🔁 every week 📅 2026-08-10 ✅ 2026-08-10 ^c-water",
    # the open line is no later occurrence of the done one
    "- [ ] Water plants 🔁 every week 📅 2026-08-03\n"
    "- [x] Water plants 🔁 every week 📅 2026-08-10 ✅ 2026-08-10 ^c-water",
])
def test_a_block_id_stays_where_no_tasks_run_holds_it(text):
    scratch, _ = step([], text)
    done = next(k for k in scratch if k.entry.status == "done")
    assert done.id == "c-water"
