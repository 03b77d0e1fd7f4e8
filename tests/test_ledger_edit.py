"""Closing the loop: `ledger done`, `cancel` and `move` rewrite one ledger line as Obsidian
Tasks writes it, atomically, and the store records a typed revision for each.

The recurrence cases are Tasks' own (obsidian-tasks `tests/Task/Task.test.ts`,
`recurrenceCases`, the rules vaultmem reads): the dates a check-off writes must be the
ones Tasks writes.
"""

from __future__ import annotations

import json
import os
from datetime import date, datetime

import pytest

from vaultmem import Vault
from vaultmem import tasks_format as tf
from vaultmem.errors import NotFoundError, UsageError, VaultmemError
from vaultmem.interfaces.cli import main
from vaultmem.ledger import parse_ledger

from .conftest import FakeEmbedder, write_files

NOW = datetime(2026, 8, 16, 9, 0)
LEDGER = """\
---
type: ledger
---
# Ledger

- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]] #project/house
- [ ] When the guests are coming, replace the shower valve [[Bathroom]] ^c-valve
- [ ] Water the plants 🔁 every week 📅 2026-08-14 ^water
- [ ] Call Mum [due:: 2026-08-20] [start:: 2026-08-12] [[Mum]]
- [x] Renew passport 📅 2026-07-31 ✅ 2026-07-20 [[Passport]]
"""
NOTES = {"Plumber.md": "# Plumber\nTomasz.\n", "Bathroom.md": "# Bathroom\nThe valve.\n",
         "Mum.md": "# Mum\nCall on Sundays.\n", "Passport.md": "# Passport\n"}


@pytest.fixture
def vault(make_vault) -> Vault:
    return make_vault(NOTES, ledger=LEDGER, mtime=datetime(2026, 8, 1), index_at=NOW)


def ledger_lines(vault: Vault) -> list[str]:
    return (vault.settings.vault / "Ledger.md").read_text(encoding="utf-8").splitlines()


# -- Tasks' own behaviour -------------------------------------------------------------

TASKS_RECURRENCE = [  # (rule, dates before, done on, dates Tasks writes next)
    ("every 7 days", {"due": "2021-02-21"}, None, {"due": "2021-02-28"}),
    ("every 7 days when done", {"due": "2021-02-21"}, "2021-02-18", {"due": "2021-02-25"}),
    ("every 7 days when done", {"due": "2021-02-21"}, "2021-02-22", {"due": "2021-03-01"}),
    ("every day", {"due": "2021-02-21"}, None, {"due": "2021-02-22"}),
    ("every day when done", {"due": "2021-02-21"}, "2022-01-04", {"due": "2022-01-05"}),
    ("every 4 weeks", {"due": "2021-10-15"}, None, {"due": "2021-11-12"}),
    ("every 3 weeks when done", {"due": "2022-01-10"}, "2021-01-14", {"due": "2021-02-04"}),
    ("every month", {"due": "2021-10-15"}, None, {"due": "2021-11-15"}),
    ("every month when done", {"due": "2021-10-18"}, "2021-10-24", {"due": "2021-11-24"}),
    ("every week on Monday, Wednesday, Friday", {"due": "2022-01-24"}, None,
     {"due": "2022-01-26"}),
    ("every week on Monday, Wednesday, Friday when done", {"due": "2022-01-24"},
     "2022-01-26", {"due": "2022-01-28"}),
    ("every 5 days", {"start": "2021-10-10"}, None, {"start": "2021-10-15"}),
    ("every 5 days", {"scheduled": "2021-10-10"}, None, {"scheduled": "2021-10-15"}),
    ("every 5 days", {"start": "2021-10-09", "scheduled": "2021-10-10", "due": "2021-10-11"},
     None, {"start": "2021-10-14", "scheduled": "2021-10-15", "due": "2021-10-16"}),
    ("every 10 days when done",
     {"start": "2021-10-05", "scheduled": "2021-10-07", "due": "2021-10-09"}, "2021-10-04",
     {"start": "2021-10-10", "scheduled": "2021-10-12", "due": "2021-10-14"}),
    ("every 10 days when done",
     {"start": "2021-10-05", "scheduled": "2021-10-07", "due": "2021-10-09"}, "2021-10-10",
     {"start": "2021-10-16", "scheduled": "2021-10-18", "due": "2021-10-20"}),
    ("every month", {"due": "2021-03-31"}, None, {"due": "2021-04-30"}),
    ("every month", {"due": "2021-01-29"}, None, {"due": "2021-02-28"}),
    ("every year", {"due": "2020-02-29"}, None, {"due": "2021-02-28"}),
    ("every month when done", {"scheduled": "1999-01-23"}, "2021-08-31",
     {"scheduled": "2021-09-30"}),
    ("every 2 years when done", {"start": "1999-01-23"}, "2020-02-29",
     {"start": "2022-02-28"}),
]


@pytest.mark.parametrize("rule, before, on, after", TASKS_RECURRENCE)
def test_the_next_occurrence_has_the_dates_tasks_writes(rule, before, on, after):
    dates = {k: date.fromisoformat(v) for k, v in before.items()}
    task = tf.Task("", "-", " ", "Water the plants", recurrence=rule, **dates)
    nxt, done = tf.complete(task, date.fromisoformat(on or "2021-01-01"))
    assert {k: getattr(nxt, k).isoformat() for k in ("start", "scheduled", "due")
            if getattr(nxt, k)} == after
    assert (nxt.status, nxt.done, done.status, done.done) == (
        " ", None, "x", date.fromisoformat(on or "2021-01-01"))


@pytest.mark.parametrize("line, written", [
    # Tasks reads its fields from the end only: a date before a link is description text,
    # so the done date goes after everything, before the block link.
    ("- [ ] Pay the plumber 📅 2026-08-15 [[Plumber]] #house ^pay",
     ["- [x] Pay the plumber 📅 2026-08-15 [[Plumber]] #house ✅ 2026-08-16 ^pay"]),
    # Fields it reads are written back in its order; trailing tags join the description.
    ("- [ ] Pay rent 📅 2026-08-01 🔁 every month #home",
     ["- [ ] Pay rent #home 🔁 every month 📅 2026-09-01",
      "- [x] Pay rent #home 🔁 every month 📅 2026-08-01 ✅ 2026-08-16"]),
    # The next occurrence has no block link, id, dependencies or created date.
    ("  - [ ] Water 🆔 w1 ⛔ x2 🔁 every week ➕ 2026-07-01 📅 2026-08-14 ^water",
     ["  - [ ] Water 🔁 every week 📅 2026-08-21",
      "  - [x] Water 🆔 w1 ⛔ x2 🔁 every week ➕ 2026-07-01 📅 2026-08-14 ✅ 2026-08-16 ^water"]),
    # The Dataview format is written in the Dataview format (two spaces before a field).
    ("- [ ] Call Mum [due:: 2026-08-20]",
     ["- [x] Call Mum  [due:: 2026-08-20]  [completion:: 2026-08-16]"]),
    # RRule's wording: "every Tuesday" is written "every week on Tuesday".
    ("- [ ] Bins 🔁 every Tuesday 📅 2026-08-11",
     ["- [ ] Bins 🔁 every week on Tuesday 📅 2026-08-18",
      "- [x] Bins 🔁 every week on Tuesday 📅 2026-08-11 ✅ 2026-08-16"]),
])
def test_a_checked_off_line_is_the_line_tasks_writes(line, written):
    assert [tf.write(t) for t in tf.complete(tf.read(line), date(2026, 8, 16))] == written


def test_cancel_and_reschedule_are_written_as_tasks_writes_them():
    task = tf.read("- [ ] Book the ferry 🔁 every year 📅 2026-06-02 #trip")
    assert tf.write(tf.cancel(task, date(2026, 6, 1))) == (
        "- [-] Book the ferry #trip 🔁 every year 📅 2026-06-02 ❌ 2026-06-01")
    assert tf.write(tf.reschedule(task, date(2026, 6, 9))) == (
        "- [ ] Book the ferry #trip 🔁 every year 📅 2026-06-09")


def test_a_rule_it_cannot_advance_is_named():
    with pytest.raises(tf.UnknownRule):
        tf.Rule.read("every month on the 2nd Wednesday")


# -- the library: one line rewritten, a typed revision recorded ------------------------


def test_done_rewrites_one_line_and_records_done(vault):
    before = ledger_lines(vault)
    result = vault.complete_commitment("c-pay-plumber-invoice", now=NOW)
    after = ledger_lines(vault)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed == [5] and after[5] == (
        "- [x] Pay the plumber invoice 📅 2026-08-15 [[Plumber]] #project/house ✅ 2026-08-16")
    assert (result.kind, result.line, result.text, result.was) == (
        "done", 6, after[5], before[5])
    assert result.revision == {"ts": "2026-08-16T09:00:00", "kind": "done",
                               "detail": {"from": "open", "on": "2026-08-16"}}
    assert vault.history("c-pay-plumber-invoice").status == "done"
    assert "c-pay-plumber-invoice" not in [e.id for e in vault.ledger().results]


def test_cancel_and_move_are_typed_revisions(vault):
    moved = vault.reschedule_commitment("c-call-mum", "2026-08-25", now=NOW)
    assert moved.text == "- [ ] Call Mum [due:: 2026-08-25] [start:: 2026-08-12] [[Mum]]"
    assert moved.revision["kind"] == "rescheduled"
    assert moved.revision["detail"]["fields"] == {"due": {"from": "2026-08-20",
                                                          "to": "2026-08-25"}}
    cancelled = vault.cancel_commitment("c-valve", now=NOW)
    assert cancelled.text == ("- [-] When the guests are coming, replace the shower valve "
                              "[[Bathroom]] ❌ 2026-08-16 ^c-valve")
    assert cancelled.revision["kind"] == "cancelled"
    kinds = [r.kind for r in vault.history("c-valve").revisions]
    assert kinds == ["created", "cancelled"]


def test_a_recurring_entry_keeps_its_id_on_the_next_occurrence(vault):
    result = vault.complete_commitment("water", on="2026-08-15", now=NOW)
    lines = ledger_lines(vault)
    assert lines[7:9] == ["- [ ] Water the plants 🔁 every week 📅 2026-08-21",
                          "- [x] Water the plants 🔁 every week 📅 2026-08-14 ✅ 2026-08-15 ^water"]
    assert result.kind == "occurrence-done" and result.line == 8
    assert result.occurrence == {"id": "water-2026-08-15", "line": 9, "text": lines[8]}
    entries = {e.id: (e.status, e.due) for e in vault.ledger(include_closed=True).results}
    assert entries["water"] == ("open", "2026-08-21")
    assert entries["water-2026-08-15"] == ("done", "2026-08-14")
    again = vault.complete_commitment("water", on="2026-08-22", now=datetime(2026, 8, 22))
    assert again.occurrence["id"] == "water-2026-08-22"
    assert ledger_lines(vault)[7] == "- [ ] Water the plants 🔁 every week 📅 2026-08-28"


@pytest.mark.parametrize("line, written", [
    ("- [ ] Water 🔁 every week 📅 2026-08-14 [[Plumber]] ^w",
     ["- [ ] Water 🔁 every week 📅 2026-08-21 [[Plumber]]",
      "- [x] Water 🔁 every week 📅 2026-08-14 [[Plumber]] ✅ 2026-08-16 ^w"]),
    # Tasks reads the rule at the end but not the date before the link: it stays a rule
    ("- [ ] Water 📅 2026-08-14 [[Plumber]] 🔁 every week ^w",
     ["- [ ] Water 📅 2026-08-21 [[Plumber]] 🔁 every week",
      "- [x] Water 📅 2026-08-14 [[Plumber]] 🔁 every week ✅ 2026-08-16 ^w"]),
])
def test_a_date_tasks_cannot_see_is_changed_where_it_is_written(make_vault, line, written):
    v = make_vault(NOTES, ledger=line + "\n", mtime=datetime(2026, 8, 1), index_at=NOW)
    result = v.complete_commitment("w", now=NOW)
    assert ledger_lines(v) == written
    assert result.kind == "occurrence-done"


def test_words_are_read_as_dates(vault):
    result = vault.reschedule_commitment("c-pay-plumber-invoice", "next friday", now=NOW)
    assert "📅 2026-08-21" in result.text  # 16 August 2026 is a Sunday
    with pytest.raises(UsageError, match="`due` 'whenever' is not a date"):
        vault.reschedule_commitment("c-pay-plumber-invoice", "whenever", now=NOW)


def test_closed_removed_and_unknown_entries_are_refused(vault):
    before = ledger_lines(vault)
    with pytest.raises(NotFoundError, match="no commitment 'c-nope'"):
        vault.complete_commitment("c-nope", now=NOW)
    with pytest.raises(VaultmemError, match="c-renew-passport is done already"):
        vault.cancel_commitment("c-renew-passport", now=NOW)
    assert ledger_lines(vault) == before


def test_an_edit_made_on_disk_first_is_indexed_before_the_line_is_found(vault):
    path = vault.settings.vault / "Ledger.md"
    text = path.read_text(encoding="utf-8").replace("# Ledger\n\n", "# Ledger\n\nIntro.\n\n")
    path.write_text(text, encoding="utf-8")
    result = vault.complete_commitment("c-valve", now=NOW)
    assert result.line == 9 and ledger_lines(vault)[8].startswith("- [x] When the guests")


def test_nothing_is_written_when_the_ledger_changes_meanwhile(vault, monkeypatch):
    import vaultmem.ledger_append as ledger_append

    path = vault.settings.vault / "Ledger.md"
    real_fsync = os.fsync

    def meddle(fd):
        real_fsync(fd)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("- [ ] Written by the user meanwhile\n")

    monkeypatch.setattr(ledger_append.os, "fsync", meddle)
    with pytest.raises(VaultmemError, match="changed on disk"):
        vault.complete_commitment("c-valve", now=NOW)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == LEDGER + "- [ ] Written by the user meanwhile\n"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_line_endings_and_a_byte_order_mark_are_kept(make_vault, tmp_path):
    root = tmp_path / "crlf"
    write_files(root, NOTES)
    (root / "Ledger.md").write_bytes(
        b"\xef\xbb\xbf- [ ] Call Jo \xf0\x9f\x93\x85 2026-08-15\r\n- [ ] Pay [[Plumber]]\r\n")
    v = make_vault(root=root, index_at=NOW)
    v.complete_commitment("c-call-jo", now=NOW)
    assert (root / "Ledger.md").read_bytes() == (
        "\ufeff- [x] Call Jo 📅 2026-08-15 ✅ 2026-08-16\r\n- [ ] Pay [[Plumber]]\r\n"
        .encode())


def test_every_other_entry_reads_as_before(vault):
    before, _ = parse_ledger(LEDGER)
    vault.complete_commitment("water", now=NOW)
    after, _ = parse_ledger("\n".join(ledger_lines(vault)) + "\n")
    assert [e.raw for e in after if "Water" not in e.raw] == [
        e.raw for e in before if "Water" not in e.raw]


# -- the faces: CLI and MCP emit the library's documents -------------------------------


def test_the_cli_prints_the_librarys_documents(make_vault, tmp_path, capsys, fake_model):
    lib = make_vault(NOTES, root=tmp_path / "lib", ledger=LEDGER, mtime=datetime(2026, 8, 1),
                     index_at=NOW)
    cli_root = write_files(tmp_path / "cli", {**NOTES, "Ledger.md": LEDGER},
                           datetime(2026, 8, 1))
    assert main(["index", str(cli_root), "--now", NOW.isoformat(), "--json"]) == 0
    capsys.readouterr()
    calls = [
        (["ledger", "done", "water", "--on", "2026-08-15"],
         lambda: lib.complete_commitment("water", on="2026-08-15", now=NOW)),
        (["ledger", "cancel", "c-valve"], lambda: lib.cancel_commitment("c-valve", now=NOW)),
        (["ledger", "move", "c-call-mum", "--due", "next friday"],
         lambda: lib.reschedule_commitment("c-call-mum", "next friday", now=NOW)),
    ]
    for args, call in calls:
        assert main([*args, "--vault", str(cli_root), "--now", NOW.isoformat(), "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == call().as_dict()
    assert (cli_root / "Ledger.md").read_bytes() == (tmp_path / "lib" / "Ledger.md").read_bytes()
    code = main(["ledger", "done", "c-nope", "--vault", str(cli_root)])
    assert code == 1 and "`vaultmem ledger --all` lists every id" in capsys.readouterr().err


def test_mcp_tools_complete_cancel_and_reschedule(make_vault, tmp_path):
    import anyio
    from mcp import Client

    from vaultmem.interfaces.mcp_server import Service, build

    make_vault(NOTES, ledger=LEDGER, mtime=datetime(2026, 8, 1), index_at=NOW).close()
    root = tmp_path / "vault"
    service = Service(root, None, watch=False, embedder=FakeEmbedder())

    async def calls():
        async with Client(build(service)) as client:
            now = NOW.isoformat()
            got = [await client.call_tool("complete_commitment", {"id": "water", "now": now}),
                   await client.call_tool("cancel_commitment", {"id": "c-valve", "now": now}),
                   await client.call_tool("reschedule_commitment",
                                          {"id": "c-call-mum", "due": "2026-08-30",
                                           "now": now}),
                   await client.call_tool("ledger_history", {"id": "c-call-mum"}),
                   await client.call_tool("complete_commitment", {"id": "c-nope"})]
            return got

    try:
        done, cancelled, moved, history, missing = anyio.run(calls)
    finally:
        assert service.close(timeout=30)
    docs = [json.loads(r.content[0].text) for r in (done, cancelled, moved, history)]
    assert [d["kind"] for d in docs[:3]] == ["occurrence-done", "cancelled", "rescheduled"]
    assert docs[3]["revisions"][-1]["kind"] == "rescheduled"
    assert missing.is_error and missing.content[0].text == (
        "no commitment 'c-nope': the `ledger` tool with include_closed lists every id")


# -- ledger add: the date reader, the other fields, and the store in step ---------------


def test_add_reads_dates_in_words_and_takes_start_scheduled_keywords(vault):
    added = vault.add_commitment("Paint the hall", due="next week", scheduled="tomorrow",
                                 keywords=["paint", "hall"], links=["Hall"], now=NOW)
    assert (added.start, added.scheduled, added.due) == ("2026-08-17", "2026-08-17",
                                                         "2026-08-21")
    assert added.text == ("- [ ] Paint the hall [keywords:: paint, hall] [[Hall]] "
                          "🛫 2026-08-17 ⏳ 2026-08-17 📅 2026-08-21 ^c-paint-hall")
    assert added.unresolved == ["Hall"] and added.indexed
    entry = next(e for e in vault.ledger().results if e.id == "c-paint-hall")
    assert (entry.due, entry.fires_from, entry.unresolved) == ("2026-08-21", "2026-08-17",
                                                               ["Hall"])
    assert tf.read(added.text).due == date(2026, 8, 21)  # Tasks reads its dates too


def test_cli_add_says_the_date_and_the_link_that_names_no_note(vault, capsys, fake_model):
    root = vault.settings.vault
    code = main(["ledger", "add", "Book the tiler", "--due", "next friday", "--link",
                 "No such note", "--vault", str(root), "--now", "2026-08-16"])
    out, err = capsys.readouterr()
    assert code == 0 and out == "c-book-tiler\n"
    assert "due 2026-08-21" in err
    assert "warning: [[No such note]] names no note in the vault" in err
    assert main(["ledger", "--vault", str(root), "--json"]) == 0
    assert "c-book-tiler" in [r["id"] for r in json.loads(capsys.readouterr().out)["results"]]


def test_accept_takes_several_candidates_and_indexes_them(make_vault):
    v = make_vault({"Notes.md": "# Notes\n\nI need to call the insurer by Friday.\n\n"
                                "Remember to renew the parking permit next week.\n"},
                   mtime=datetime(2026, 8, 10), index_at=NOW)
    ids = [s.id for s in v.suggestions(min_confidence=0).results]
    assert len(ids) == 2
    decided = v.accept(ids, now=NOW)
    assert [d.status for d in decided.results] == ["accepted", "accepted"]
    assert decided.indexed
    assert {d.entry for d in decided.results} <= {e.id for e in v.ledger().results}
    with pytest.raises(UsageError, match="`edit` rewords one candidate"):
        v.accept(ids, "Call them", now=NOW)


def test_tasks_format_reads_what_add_writes(vault):
    added = vault.add_commitment("Order the tiles", due="2026-09-01", when="the quote comes",
                                 links=["Bathroom"], project="house", now=NOW)
    task = tf.read(added.text)
    assert (task.due, task.block_link) == (date(2026, 9, 1), " ^c-order-tiles")


# -- a recurring entry whose next occurrence reads as its line --------------------------


@pytest.mark.integration
def test_an_undated_rule_checked_off_keeps_one_history_end_to_end(tmp_path, capsys):
    """The next occurrence of an undated rule (or a `when done` one checked off before
    its date) is the very line it replaces: the id stays on it, with occurrence-done,
    and a block id Tasks leaves on the done line stays with the commitment."""
    root = write_files(tmp_path / "v", {"Ledger.md": (
        "# Ledger\n\n- [ ] Meditate 🔁 every day\n- [ ] Stretch 🔁 every day ^s1\n"
        "- [ ] Pay rent ⏫ 🔁 every day when done 📅 2026-08-17\n")})
    assert main(["index", str(root), "--now", "2026-08-14"]) == 0
    for ident in ("c-meditate", "s1", "c-pay-rent"):
        capsys.readouterr()
        assert main(["ledger", "done", ident, "--vault", str(root), "--now", "2026-08-16",
                     "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert (doc["id"], doc["kind"], doc["occurrence"]["id"], doc["revision"]["kind"]) == (
            ident, "occurrence-done", f"{ident}-2026-08-16", "occurrence-done")
    assert main(["ledger", "--all", "--vault", str(root), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert sorted((r["id"], r["status"]) for r in rows) == [
        ("c-meditate", "open"), ("c-meditate-2026-08-16", "done"), ("c-pay-rent", "open"),
        ("c-pay-rent-2026-08-16", "done"), ("s1", "open"), ("s1-2026-08-16", "done")]
    fresh = tmp_path / "fresh.db"
    assert main(["index", str(root), "--db", str(fresh), "--now", "2026-08-16"]) == 0
    capsys.readouterr()
    assert main(["ledger", "--all", "--vault", str(root), "--db", str(fresh), "--json"]) == 0
    assert sorted((r["id"], r["status"]) for r in json.loads(
        capsys.readouterr().out)["results"]) == sorted((r["id"], r["status"]) for r in rows)


def test_a_block_id_on_the_done_line_stays_with_the_commitment_from_scratch(make_vault):
    """Tasks leaves the block id on the done line: an index built from the file alone
    gives the id to the open line, and the done ones their `<id>-<done date>` names."""
    v = make_vault(ledger="- [ ] Water plants 🔁 every week 📅 2026-08-10 ^c-water\n",
                   index_at=NOW)
    v.complete_commitment("c-water", on="2026-08-10", now=NOW)
    v.complete_commitment("c-water", on="2026-08-17", now=datetime(2026, 8, 17))
    history = [(e.id, e.status) for e in v.ledger(include_closed=True).results]
    fresh = make_vault(root=v.settings.vault, db=v.settings.vault / "fresh.db",
                       index_at=NOW)
    assert [(e.id, e.status) for e in fresh.ledger(include_closed=True).results] == history
    assert history == [("c-water", "open"), ("c-water-2026-08-17", "done"),
                       ("c-water-2026-08-10", "done")]


# -- a done or cancel date is a day that has come ---------------------------------------

SUNDAY = datetime(2026, 8, 16, 9, 0)


@pytest.mark.parametrize("on, day", [
    ("friday", "2026-08-14"), ("Friday", "2026-08-14"), ("on friday", "2026-08-14"),
    ("last friday", "2026-08-14"), ("past friday", "2026-08-14"), ("fri", "2026-08-14"),
    ("sunday", "2026-08-16"),  # today is the last Sunday
    ("last sunday", "2026-08-09"), ("yesterday", "2026-08-15"), ("today", "2026-08-16"),
    ("2 days ago", "2026-08-14"), ("2026-08-01", "2026-08-01"),
])
def test_on_reads_words_backward(vault, on, day):
    result = vault.complete_commitment("c-pay-plumber-invoice", on=on, now=SUNDAY)
    assert result.text.endswith(f"✅ {day}")


@pytest.mark.parametrize("on", ["2026-08-17", "next friday", "tomorrow", date(2026, 9, 1)])
def test_a_done_or_cancel_date_in_the_future_is_refused(vault, on):
    before = ledger_lines(vault)
    with pytest.raises(UsageError, match=r"`on` .* is after today \(2026-08-16\)"):
        vault.complete_commitment("c-pay-plumber-invoice", on=on, now=SUNDAY)
    with pytest.raises(UsageError, match="is after today"):
        vault.cancel_commitment("c-valve", on=on, now=SUNDAY)
    assert ledger_lines(vault) == before


def test_cli_done_on_a_weekday_is_the_last_one(vault, capsys, fake_model):
    root = str(vault.settings.vault)
    code = main(["ledger", "done", "c-pay-plumber-invoice", "--on", "friday", "--vault", root,
                 "--now", "2026-08-16"])
    assert code == 0 and "✅ 2026-08-14" in capsys.readouterr().err
    code = main(["ledger", "cancel", "c-valve", "--on", "2026-08-20", "--vault", root,
                 "--now", "2026-08-16"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("vaultmem: --on '2026-08-20' is after today")


def test_add_reads_unresolved_links_as_the_index_resolved_them(vault, capsys, fake_model):
    """A heading link and a labelled link name notes that exist: no warning for them."""
    added = vault.add_commitment("Heading link", links=["Plumber#Invoice", "Mum|my mum",
                                                        "No such note"], now=NOW)
    assert added.unresolved == ["No such note"]
    entry = next(e for e in vault.ledger().results if e.id == added.id)
    assert entry.unresolved == added.unresolved
    code = main(["ledger", "add", "Heading link again", "--link", "Plumber#Invoice", "--link",
                 "Mum|my mum", "--vault", str(vault.settings.vault), "--now", "2026-08-16"])
    assert code == 0 and "names no note" not in capsys.readouterr().err


# -- refusals: nothing written, one line saying why --------------------------------------


def test_a_line_changed_since_it_was_indexed_is_refused(vault, monkeypatch):
    """The line is found by its text as indexed; edited on disk between the index run and
    the rewrite, it is not rewritten from a stale reading."""
    path = vault.settings.vault / "Ledger.md"
    text = LEDGER.replace("replace the shower valve", "replace the shower valve now")
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(vault, "_in_step", lambda now: True)  # the edit lands after the run
    with pytest.raises(VaultmemError) as refused:
        vault.complete_commitment("c-valve", now=NOW)
    assert str(refused.value) == ("Ledger.md:7: the entry's line changed on disk since the "
                                  "ledger was indexed: nothing written; try again")
    assert path.read_text(encoding="utf-8") == text


def test_a_line_that_moved_is_found_by_its_text_and_twins_are_refused(tmp_path):
    from vaultmem import ledger_edit

    raw = "- [ ] Pay rent"
    (tmp_path / "Ledger.md").write_text(f"# Ledger\n\nIntro.\n{raw}\n", encoding="utf-8")
    done = ledger_edit.complete(tmp_path, "Ledger.md", 3, raw, date(2026, 8, 16))
    assert (done.line, done.text) == (4, "- [x] Pay rent ✅ 2026-08-16")
    (tmp_path / "Ledger.md").write_text(f"{raw}\n{raw}\nIntro.\n", encoding="utf-8")
    with pytest.raises(VaultmemError, match="changed on disk since the ledger was indexed"):
        ledger_edit.complete(tmp_path, "Ledger.md", 3, raw, date(2026, 8, 16))


def test_a_rewrite_that_would_change_how_other_lines_read_is_refused(tmp_path):
    """The last guard: whatever the new lines, every other entry must read as before (a
    code fence opened by a new line would swallow the rest of the ledger)."""
    from vaultmem import ledger_edit

    text = "- [ ] Pay rent\n- [ ] Call Jo [[Jo]]\n"
    (tmp_path / "Ledger.md").write_text(text, encoding="utf-8")
    with pytest.raises(VaultmemError, match="would change how other lines of Ledger.md read"):
        ledger_edit._edit(tmp_path, "Ledger.md", 1, "- [ ] Pay rent",
                          lambda old: ["```", "- [x] Pay rent ✅ 2026-08-16"])
    assert (tmp_path / "Ledger.md").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("line, ident, message", [
    ("- [ ] Walk 🔁 every day 🏁 delete 📅 2026-08-16", "c-walk",
     "the entry says 🏁 delete: Tasks would delete its line, and vaultmem never deletes a "
     "ledger line; check it off in Obsidian"),
    ("- [ ] Pay the council 📅 2026-02-30", "c-pay-council",
     "a date on the line is not a real day (2026-02-30 is not a day): fix it in the ledger "
     "first"),
])
def test_a_line_vaultmem_must_not_rewrite_is_refused(make_vault, line, ident, message):
    v = make_vault(ledger=line + "\n", index_at=NOW)
    with pytest.raises(VaultmemError) as refused:
        v.complete_commitment(ident, now=NOW)
    assert str(refused.value) == message
    assert ledger_lines(v) == [line]


def test_an_entry_removed_from_the_ledger_is_refused(vault):
    path = vault.settings.vault / "Ledger.md"
    text = LEDGER.replace("- [ ] Call Mum [due:: 2026-08-20] [start:: 2026-08-12] [[Mum]]\n", "")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VaultmemError) as refused:
        vault.reschedule_commitment("c-call-mum", "2026-08-30", now=NOW)
    assert str(refused.value) == ("c-call-mum is no longer in the ledger (removed): nothing "
                                  "written")
    assert path.read_text(encoding="utf-8") == text


def test_a_line_written_while_another_run_holds_the_index_is_recorded_later(vault):
    from vaultmem.store import writer_lock

    with writer_lock(vault.settings.db, "index"):
        result = vault.complete_commitment("c-pay-plumber-invoice", now=NOW)
    assert (result.kind, result.revision, result.indexed) == ("done", None, False)
    assert ledger_lines(vault)[5].endswith("✅ 2026-08-16")
    assert vault.history("c-pay-plumber-invoice").status == "open"  # not indexed yet
    vault.index(now=NOW)
    assert [r.kind for r in vault.history("c-pay-plumber-invoice").revisions] == [
        "created", "done"]
