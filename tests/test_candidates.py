"""Candidates in the store: found at index time, identity across edits, retired never
deleted, offered by `suggestions`, written to the ledger only by `accept`."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import pytest

from vaultmem import Vault
from vaultmem.errors import NotFoundError, UsageError, VaultmemError
from vaultmem.schema import SCHEMA
from vaultmem.store import migrations

from .conftest import FakeEmbedder, write_files

NOW = datetime(2026, 3, 2, 9, 0)
CANDIDATE_MIGRATIONS = [name for name, _ in migrations.MIGRATIONS if "candidate" in name]
DAILY = """\
# Monday

Coffee with [[Ana]]. Promised Ana I'd send her the slides by Friday.

Need to renew the passport before [[Lisbon]].

She has to hand in her notice before the end of the month.

- [ ] Book the dentist
- [x] Pay the gas bill
"""


def write(root: Path, rel: str, text: str) -> Path:
    return write_files(root, {rel: text}, datetime(2026, 3, 2, 12)) / rel


@pytest.fixture
def root(tmp_path) -> Path:
    return write_files(tmp_path / "vault", {
        "daily/2026-03-02.md": DAILY, "Ana.md": "# Ana\nWorks at the studio.\n",
        "Lisbon.md": "# Lisbon\nFlights on 12 June.\n"}, datetime(2026, 3, 2, 12))


@pytest.fixture
def vault(make_vault, root):
    return make_vault(root=root, index_at=NOW)


def rows(vault) -> list[tuple]:
    return vault.store.execute(
        "SELECT id, line, action, due, condition, status, present FROM candidates "
        "ORDER BY first_seen, line").fetchall()


def ops(vault) -> list[tuple]:
    return vault.store.execute(
        "SELECT op, entry_id, detail FROM ops WHERE op LIKE 'candidate-%' ORDER BY id").fetchall()


def edit(vault, rel: str, old: str, new: str, day: int) -> None:
    path = vault.settings.vault / rel
    path.write_text(path.read_text().replace(old, new), encoding="utf-8")
    vault.index(now=datetime(2026, 3, day, 9))


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and ".vaultmem" not in p.parts}


# -- index time ------------------------------------------------------------------------

def test_index_finds_and_stores_candidates_with_ops(vault):
    assert rows(vault) == [
        ("f-send-ana-slides", 3, "Send Ana the slides", "2026-03-06", None, "open", 1),
        ("f-renew-passport", 5, "Renew the passport", None, "before Lisbon", "open", 1),
        ("f-book-dentist", 9, "Book the dentist", None, None, "open", 1)]
    assert [(op, ident) for op, ident, _ in ops(vault)] == [
        ("candidate-found", "f-send-ana-slides"), ("candidate-found", "f-renew-passport"),
        ("candidate-found", "f-book-dentist")]
    first = json.loads(ops(vault)[0][2])
    assert first == {"path": "daily/2026-03-02.md", "line": 3, "action": "Send Ana the slides",
                     "due": "2026-03-06", "condition": None, "confidence": 0.95}


def test_a_reworded_or_redated_line_keeps_its_candidate(vault):
    edit(vault, "daily/2026-03-02.md", "send her the slides by Friday",
         "send her the workshop slides by Thursday", 3)
    assert rows(vault)[0] == ("f-send-ana-slides", 3, "Send Ana the workshop slides",
                              "2026-03-05", None, "open", 1)
    op, ident, detail = ops(vault)[-1]
    assert (op, ident) == ("candidate-changed", "f-send-ana-slides")
    assert json.loads(detail)["due"] == {"from": "2026-03-06", "to": "2026-03-05"}
    assert json.loads(detail)["action"] == {"from": "Send Ana the slides",
                                            "to": "Send Ana the workshop slides"}


def test_a_line_that_moves_keeps_its_candidate_without_an_op(vault):
    before = len(ops(vault))
    edit(vault, "daily/2026-03-02.md", "# Monday\n", "# Monday\n\nRained all day.\n\n", 3)
    assert [(r[0], r[1]) for r in rows(vault)] == [
        ("f-send-ana-slides", 6), ("f-renew-passport", 8), ("f-book-dentist", 12)]
    assert len(ops(vault)) == before


def test_editing_one_of_two_similar_lines_moves_neither_identity(root):
    write(root, "daily/2026-03-02.md",
          "Need to call the bank about the card.\n\nNeed to call the bank about the loan.\n")
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=NOW)
        ids = {r[2]: r[0] for r in rows(v)}
        edit(v, "daily/2026-03-02.md", "about the loan", "about the mortgage loan", 3)
        after = {r[2]: r[0] for r in rows(v) if r[6]}
    assert after == {"Call the bank about the card": ids["Call the bank about the card"],
                     "Call the bank about the mortgage loan":
                         ids["Call the bank about the loan"]}


def test_a_deleted_line_or_note_retires_its_candidates_and_keeps_them(vault):
    edit(vault, "daily/2026-03-02.md", "- [ ] Book the dentist\n", "", 3)
    assert rows(vault)[2] == ("f-book-dentist", 9, "Book the dentist", None, None, "open", 0)
    assert ops(vault)[-1][:2] == ("candidate-retired", "f-book-dentist")
    (vault.settings.vault / "daily/2026-03-02.md").unlink()
    vault.index(now=datetime(2026, 3, 4, 9))
    assert [r[6] for r in rows(vault)] == [0, 0, 0]
    retired = [(ident, json.loads(d)["reason"]) for op, ident, d in ops(vault)
               if op == "candidate-retired"]
    assert retired == [("f-book-dentist", "source line gone"),
                       ("f-send-ana-slides", "note deleted"), ("f-renew-passport", "note deleted")]
    assert vault.suggestions().results == []


def test_a_note_that_becomes_a_ledger_holds_entries_not_candidates(vault):
    edit(vault, "daily/2026-03-02.md", "# Monday", "---\ntype: ledger\n---\n# Monday", 3)
    assert [r[6] for r in rows(vault)] == [0, 0, 0]
    assert "c-book-dentist" in {r[0] for r in vault.store.execute("SELECT id FROM entries")}


def test_an_older_store_reparses_once_to_fill_the_table(root):
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=NOW)
        # the store as a version before the migration left it: notes, no candidates
        v.store.execute("DROP TABLE candidates")
        for name in CANDIDATE_MIGRATIONS:
            v.store.execute("DELETE FROM _migrations WHERE name = ?", [name])
        v.store.execute("DELETE FROM ops WHERE op LIKE 'candidate-%'")
        v.store.conn.commit()
    with Vault.open(root, embedder=FakeEmbedder()) as v:
        assert v.store.get_meta("reparse_all") == "1"
        v.index(now=NOW)
        assert len(rows(v)) == 3 and v.store.get_meta("reparse_all") == "0"


# -- suggest, accept, reject ---------------------------------------------------------------

def test_suggestions_offer_the_ledger_line_with_confidence_and_why(vault):
    doc = vault.suggestions().as_dict()
    assert (doc["schema"], doc["threshold"], doc["in_ledger"]) == (SCHEMA, 0.5, 0)
    first = doc["results"][0]
    assert first["proposed"] == ("- [ ] Send Ana the slides [[2026-03-02]] [[Ana]] "
                                 "📅 2026-03-06 ^c-send-ana-slides")
    assert (first["confidence"], first["why"]) == (
        0.95, ["“Promised Ana I'd”", "“Friday” read as 2026-03-06"])
    assert doc["results"][1]["proposed"] == (
        "- [ ] Renew the passport [when:: before Lisbon] [[2026-03-02]] [[Lisbon]] "
        "^c-renew-passport")
    assert vault.suggestions(date(2026, 3, 3)).results == []
    assert len(vault.suggestions(min_confidence=0.92).results) == 1


def test_suggest_changes_nothing_on_disk_and_accept_appends_one_line(vault, root):
    before = snapshot(root)
    vault.suggestions()
    vault.reject("f-book-dentist")
    vault.index(now=datetime(2026, 3, 3, 9))
    assert snapshot(root) == before  # zero writes to the vault without accept
    decision = vault.accept("f-send-ana-slides").as_dict()
    assert decision == {"schema": SCHEMA, "results": [{
        "id": "f-send-ana-slides", "status": "accepted", "entry": "c-send-ana-slides",
        "ledger": "Ledger.md", "line": 3,
        "text": "- [ ] Send Ana the slides [[2026-03-02]] [[Ana]] 📅 2026-03-06 "
                "^c-send-ana-slides"}], "indexed": True}
    after = snapshot(root)
    assert set(after) - set(before) == {"Ledger.md"}
    assert after["Ledger.md"][0].decode() == (
        "# Ledger\n\n- [ ] Send Ana the slides [[2026-03-02]] [[Ana]] 📅 2026-03-06 "
        "^c-send-ana-slides\n")
    assert {k: v for k, v in after.items() if k != "Ledger.md"} == before


def test_accepted_and_rejected_candidates_are_kept_and_never_offered_again(vault):
    vault.accept("f-send-ana-slides", edit="Email Ana the workshop slides")
    vault.reject("f-book-dentist")
    assert [s.id for s in vault.suggestions().results] == ["f-renew-passport"]
    assert [(r[0], r[5]) for r in rows(vault)] == [
        ("f-send-ana-slides", "accepted"), ("f-renew-passport", "open"),
        ("f-book-dentist", "rejected")]
    assert "Email Ana the workshop slides [[2026-03-02]] [[Ana]] 📅 2026-03-06" in (
        vault.settings.vault / "Ledger.md").read_text()
    entry = vault.ledger().as_dict()["results"][0]  # accepting brought the store in step
    assert (entry["id"], entry["due"], entry["notes"]) == (
        "c-email-ana-workshop-slides", "2026-03-06", ["daily/2026-03-02.md", "Ana.md"])
    assert [op for op, _, _ in ops(vault)][-2:] == ["candidate-accepted", "candidate-rejected"]
    assert vault.status().as_dict()["candidates"] == {"accepted": 1, "open": 1, "rejected": 1}
    with pytest.raises(VaultmemError, match="already accepted as ledger entry c-email-ana"):
        vault.accept("f-send-ana-slides")
    with pytest.raises(NotFoundError, match="no candidate 'f-nope'"):
        vault.reject("f-nope")
    with pytest.raises(UsageError, match="`edit` is empty"):
        vault.accept("f-renew-passport", edit="  ")


def test_a_rejected_candidate_stays_rejected_across_edits_of_its_line(vault):
    vault.reject("f-renew-passport")
    edit(vault, "daily/2026-03-02.md", "renew the passport before", "renew my passport before",
         3)
    assert [s.id for s in vault.suggestions().results] == ["f-send-ana-slides",
                                                           "f-book-dentist"]


def test_a_retired_candidate_cannot_be_accepted(vault):
    edit(vault, "daily/2026-03-02.md", "- [ ] Book the dentist\n", "", 3)
    with pytest.raises(VaultmemError, match="its line is gone"):
        vault.accept("f-book-dentist")
    assert not (vault.settings.vault / "Ledger.md").exists()


def test_what_the_ledger_already_holds_is_not_suggested(vault, root):
    write(root, "Ledger.md", "# Ledger\n\n- [ ] Send Ana the workshop slides 📅 2026-03-06 "
                             "[[2026-03-02]]\n- [x] Renew passport [[Lisbon]] ✅ 2026-03-01\n")
    vault.index(now=datetime(2026, 3, 3, 9))
    result = vault.suggestions()
    assert ([s.id for s in result.results], result.in_ledger) == (["f-book-dentist"], 2)


def test_candidates_never_fire_and_never_boost_until_accepted(vault):
    late = datetime(2026, 3, 20, 9)
    assert vault.due(now=late).results == []
    vault.salience(now=late)
    daily = vault.store.execute("SELECT s.prospective FROM salience s JOIN notes n ON "
                                "n.id = s.note_id WHERE n.path = 'daily/2026-03-02.md'").fetchone()
    assert daily == (0.0,)
    vault.accept("f-send-ana-slides")
    vault.index(now=late)
    assert [d.id for d in vault.due(now=late).results] == ["c-send-ana-slides"]


def test_a_period_is_proposed_as_a_window_that_fires_from_its_first_day(root):
    # "next week", written Wednesday 4 March: due its Friday, the window open from Monday
    write(root, "daily/2026-03-04.md", "# Wednesday\n\nNeed to clear the [[Gutter]] next week.\n")
    write(root, "Gutter.md", "# Gutter\nThe one over the back door.\n")
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=datetime(2026, 3, 4, 9))
        found = next(s for s in v.suggestions().results if s.id == "f-clear-gutter")
        assert (found.start, found.due) == ("2026-03-09", "2026-03-13")
        assert found.proposed == ("- [ ] Clear the Gutter [[2026-03-04]] [[Gutter]] "
                                  "🛫 2026-03-09 📅 2026-03-13 ^c-clear-gutter")
        line = v.accept("f-clear-gutter").results[0].text
        assert line == found.proposed
        v.index(now=datetime(2026, 3, 4, 10))
        entry = next(e for e in v.ledger().as_dict()["results"] if e["id"] == "c-clear-gutter")
        assert (entry["fires_from"], entry["due"]) == ("2026-03-09", "2026-03-13")

        def firing(day: int) -> list[tuple[str, str]]:
            return [(f.id, f.why) for f in v.due(now=datetime(2026, 3, day, 9)).firing]

        assert firing(8) == []
        assert firing(9) == [("c-clear-gutter", "window open since 2026-03-09, due 2026-03-13")]
        assert firing(13) == [("c-clear-gutter", "due today (2026-03-13)")]


def test_a_single_day_proposes_no_start(vault):
    found = next(s for s in vault.suggestions().results if s.id == "f-send-ana-slides")
    assert found.start is None and "🛫" not in found.proposed
