"""What a new user trips over in the first hour: each defect found by trying vaultmem as
one would (a fresh clone, the README only, a vault of their own), with the test that
fails on the code that had it."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime

import pytest

from vaultmem.errors import NotFoundError, UsageError
from vaultmem.interfaces.cli import main

from .conftest import write_files

NOW = datetime(2026, 8, 16, 9, 0)


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# -- index ----------------------------------------------------------------------------------


def test_index_of_a_folder_without_notes_says_so(tmp_path, capsys, fake_model):
    (tmp_path / "not-a-vault").mkdir()
    (tmp_path / "not-a-vault" / "photo.jpg").write_bytes(b"\xff\xd8")
    code, _, err = cli(capsys, "index", tmp_path / "not-a-vault")
    assert code == 0
    assert f"no markdown notes found under {(tmp_path / 'not-a-vault').resolve()}" in err


def test_the_summary_line_counts_touched_files(tmp_path, capsys, fake_model):
    root = write_files(tmp_path / "v", {"a.md": "# A\n", "b.md": "# B\n"},
                       datetime(2026, 8, 1))
    assert cli(capsys, "index", root)[0] == 0
    os.utime(root / "a.md", (NOW.timestamp(), NOW.timestamp()))  # same bytes, new mtime
    code, _, err = cli(capsys, "index", root)
    assert code == 0 and "0 modified, 0 moved, 0 deleted, 1 touched, 1 unchanged" in err
    assert "0 warnings" in err


# -- small defects ---------------------------------------------------------------------------

LEDGER = """\
# Ledger

- [ ] File the tax return ⏳ 2026-08-01 📅 2026-08-12 [[Taxes]]
- [ ] Return the library books 📅 2026-08-05 [[Books]]
- [ ] Book the boiler service 📅 2026-08-14 [[Boiler]]
"""
NOTES = {"Taxes.md": "---\ntags: [finance]\n---\n# Taxes\n", "Books.md": "# Books\n",
         "Boiler.md": "# Boiler\n"}


@pytest.fixture
def vault(make_vault):
    return make_vault(NOTES, ledger=LEDGER, mtime=datetime(2026, 7, 1), index_at=NOW)


def test_overdue_is_sorted_by_due_date(vault):
    overdue = [(i.id, i.due) for i in vault.due(now=NOW).results if i.group == "overdue"]
    assert overdue == [("c-return-library-books", "2026-08-05"),
                       ("c-file-tax-return", "2026-08-12"),
                       ("c-book-boiler-service", "2026-08-14")]


def test_feedback_on_an_id_that_names_nothing_says_no_such_id(vault):
    with pytest.raises(NotFoundError, match="no such id 'c-nosuch'"):
        vault.feedback("c-nosuch", "accept", now=NOW)
    with pytest.raises(NotFoundError, match="no nudge was ever shown for 'c-file-tax-return'"):
        vault.feedback("c-file-tax-return", "accept", now=NOW)


def test_get_prints_no_empty_aliases_label(vault, capsys, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, err = cli(capsys, "get", "Taxes", "--vault", vault.settings.vault)
    assert code == 0, err
    assert "tags finance" in out and "aliases" not in out


def test_query_in_a_folder_outside_the_vault_is_refused(vault, capsys, fake_model):
    code, _, err = cli(capsys, "query", "tax", "--in", "../", "--vault", vault.settings.vault)
    assert code == 2 and "--in '../' climbs out of the vault" in err
    with pytest.raises(UsageError, match="`folders` '../x' climbs out of the vault"):
        vault.query("tax", folders="../x", now=NOW)


def test_query_help_calls_no_prospective_relevance_not_cosine(capsys):
    assert main(["query", "-h"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "Pure cosine" not in help_text and "Relevance alone" in help_text


def test_nudge_dry_run_records_nothing(vault, capsys):
    db = vault.settings.db

    def recorded() -> tuple[int, int]:
        with sqlite3.connect(db) as conn:
            return (conn.execute("SELECT count(*) FROM surfacings").fetchone()[0],
                    conn.execute("SELECT count(*) FROM nudge_state").fetchone()[0])

    when = ["--now", "2026-08-14T13:00", "--vault", vault.settings.vault, "--json"]  # lunch
    code, out, _ = cli(capsys, "nudge", "--dry-run", *when)
    assert code == 0 and json.loads(out)["nudge"] is not None
    assert recorded() == (0, 0)
    assert cli(capsys, "nudge", *when)[0] == 0
    assert recorded()[0] == 1


def test_the_library_takes_now_as_a_string(vault):
    assert vault.due(now="2026-08-16").as_dict() == vault.due(now=NOW.replace(hour=0)).as_dict()
    with pytest.raises(UsageError, match="`now` 'someday' is not an ISO date"):
        vault.due(now="someday")


def test_every_result_item_is_typed_with_the_jsons_own_names(vault):
    """Fails while items were dicts (ledger, firing) or hid their JSON keys (due)."""
    due = vault.due(now=NOW)
    for item, doc in zip(due.results, due.as_dict()["results"], strict=True):
        assert {k: getattr(item, k) for k in doc if k != "notes"} == {
            k: v for k, v in doc.items() if k != "notes"}
    entries = vault.ledger()
    for item, doc in zip(entries.results, entries.as_dict()["results"], strict=True):
        assert {k: getattr(item, k) for k in doc} == doc
    found = vault.query("tax return", now=NOW, log=False)
    for item, doc in zip(found.firing, found.as_dict()["firing"], strict=True):
        assert {k: getattr(item, k) for k in doc} == doc
    note = vault.get("Taxes")
    assert [c.id for c in note.commitments] == ["c-file-tax-return"]
    assert note.backlinks[0].path == "Ledger.md"
    history = vault.history("c-file-tax-return")
    assert history.revisions[0].kind == "created"


def test_typed_items_are_one_kind_of_thing(vault):
    """Every typed item (and `status`, one document of keys) is a `rows.Item`: a
    dataclass whose fields are its JSON's keys in order, read as attributes or by key.
    A due item has one shape, firing or coming up: keys that do not apply are None."""
    from dataclasses import fields

    from vaultmem.text.rows import Item

    due = vault.due(now=datetime(2026, 8, 10), horizon=30)
    status = vault.status()
    items = [*due.results, *vault.ledger().results, status, *status.warnings,
             *vault.query("tax return", now=NOW, log=False).firing,
             *vault.history("c-file-tax-return").revisions]
    assert {i.group for i in due.results} == {"overdue", "open", "upcoming"}
    for item in items:
        assert isinstance(item, Item), type(item)
        doc = {k: v for k, v in item.as_dict().items() if k != "schema"}
        assert list(doc) == [f.name for f in fields(item)]
        assert {name: item[name] for name in doc} == doc
    shapes = {tuple(d) for d in due.as_dict()["results"]}
    assert len(shapes) == 1


# -- a renamed note ----------------------------------------------------------------------------


def test_a_renamed_note_that_a_commitment_links_is_named(make_vault, capsys):
    v = make_vault({"Errands.md": "# Errands\nStamps, bulbs.\n", "Shop.md": "# Shop\n"},
                   ledger="- [ ] Buy stamps [[Errands]] ^stamps\n"
                          "- [ ] Buy bulbs [[Shop]] ^bulbs\n",
                   mtime=datetime(2026, 8, 1), index_at=NOW)
    root = v.settings.vault
    (root / "Chores").mkdir()
    (root / "Errands.md").rename(root / "Chores" / "To do.md")
    (root / "Shop.md").rename(root / "Chores" / "Shop.md")  # same name: still resolves
    report = v.index(now=NOW)
    messages = [w.message for w in report.warnings]
    assert messages == ["commitment stamps lost its link to Errands (renamed to "
                        "Chores/To do.md?): link the note by its new name"]
    assert report.warnings[0].path == "Ledger.md" and report.warnings[0].line == 1
    assert [w["message"] for w in v.status().as_dict()["warnings"]] == messages
    assert v.ledger().results[0].unresolved == ["Errands"]
    assert v.ledger().results[1].notes == ["Chores/Shop.md"]
    ledger = root / "Ledger.md"
    ledger.write_text(ledger.read_text().replace("[[Errands]]", "[[To do]]"))
    assert v.index(now=NOW).warnings == [] and v.status().as_dict()["warnings"] == []


def test_status_items_are_typed_too(make_vault):
    v = make_vault({"Bad.md": "---\ntitle: [unclosed\n---\n# Bad\nSee [[Nowhere]].\n"},
                   index_at=NOW)
    status = v.status()
    assert status.counts["notes"] == 1
    assert [(w.path, w.message[:18]) for w in status.warnings] == [
        ("Bad.md", "broken YAML front ")]
    assert [(u.source, u.target) for u in status.unresolved_links] == [("Bad.md", "Nowhere")]
    assert [u.as_dict() for u in status.unresolved_links] == \
        status.as_dict()["unresolved_links"]
