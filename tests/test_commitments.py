"""Commitments in the store (SPEC 3, 6): ledger edits between index runs become typed
revisions in the ops log; the due set says what fires now, and why."""

from __future__ import annotations

from datetime import datetime

import pytest

from vaultmem import api, commitments, ledger_view
from vaultmem.schema import SCHEMA

from .conftest import write_files

TARGETS = ("Plumber", "June estimate", "Passport", "Trip", "Office", "Kitchen", "Gutter")

LEDGER_1 = """\
- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]
- [ ] Reconcile the vendor quote against the June estimate [when:: vendor quote arrives] [[June estimate]]
- [ ] Renew the passport 📅 2026-09-01 [[Passport]]
- [ ] Book the ferry tickets [[Trip]]
- [ ] Water the office plants [[Office]]
"""  # noqa: E501
LEDGER_2 = """\
- [ ] Pay the plumber invoice 📅 2026-08-20 [[Plumber]]
- [ ] Reconcile the vendor quote with the June estimate [when:: vendor quote arrives] [[June estimate]]
- [x] Renew the passport 📅 2026-09-01 ✅ 2026-08-02 [[Passport]]
- [-] Book the ferry tickets [[Trip]] ❌ 2026-08-02
- [ ] Water the office plants [[Kitchen]]
"""  # noqa: E501
LEDGER_3 = """\
- [ ] Pay the plumber invoice 📅 2026-08-20 [[Plumber]]
- [ ] Reconcile the vendor quote with the June estimate [when:: vendor quote arrives] [[June estimate]]
- [ ] Renew the passport 📅 2026-09-01 [[Passport]]
- [-] Book the ferry tickets [[Trip]] ❌ 2026-08-02
"""  # noqa: E501

PAY, RECONCILE, PASSPORT = "c-pay-plumber-invoice", "c-reconcile-vendor-quote-against", \
    "c-renew-passport"
FERRY, PLANTS = "c-book-ferry-tickets", "c-water-office-plants"


class Vault:
    """The shared harness's vault (conftest `make_vault`) with this file's helpers: files
    written with their mtime at noon of a day of August 2026, indexed at that day."""

    def __init__(self, vault: api.Vault):
        self.vault = vault
        self.root, self.settings, self.store = vault.settings.vault, vault.settings, vault.store
        self.embedder = vault.embedder

    def write(self, rel: str, text: str, day: int) -> None:
        """Write a file with its mtime at that day, so every edit is seen as a change."""
        write_files(self.root, {rel: text}, datetime(2026, 8, day, 12))

    def index(self, day: int):
        return self.vault.index(now=datetime(2026, 8, day))

    def ledger(self, text: str, day: int, rel: str = "Ledger.md"):
        self.write(rel, text, day)
        return self.index(day)

    def entry_ops(self) -> list[tuple[str, str, str]]:
        return self.store.execute(
            "SELECT ts, op, entry_id FROM ops WHERE entry_id IS NOT NULL "
            "AND op NOT LIKE 'candidate-%' ORDER BY id").fetchall()  # ledger entries' ops

    def due_result(self, day: int, context: str | None = None, hour: int = 9,
                   horizon: int = 7) -> ledger_view.DueResult:
        return self.vault.due(context=context, now=datetime(2026, 8, day, hour),
                              horizon=horizon)

    def due(self, day: int, context: str | None = None,
            hour: int = 9) -> list[tuple[str, str, str]]:
        """What fires at that day and hour: (id, kind, why), in the due set's order."""
        return [(f.id, f.kind, f.why) for f in self.due_result(day, context, hour).firing]


@pytest.fixture
def vault(make_vault) -> Vault:
    return Vault(make_vault({f"{name}.md": f"# {name}\nAbout {name.lower()}.\n"
                             for name in TARGETS}, mtime=datetime(2026, 8, 1, 12)))


@pytest.fixture
def edited(vault) -> Vault:
    """The three ledger states above, indexed on August 1, 2 and 3."""
    vault.ledger(LEDGER_1, 1)
    vault.ledger(LEDGER_2, 2)
    vault.ledger(LEDGER_3, 3)
    return vault


# -- revisions -----------------------------------------------------------------------


def test_every_revision_type_lands_in_the_ops_log_with_its_entry(edited):
    assert edited.entry_ops() == [
        ("2026-08-01T00:00:00", "created", PAY),
        ("2026-08-01T00:00:00", "created", RECONCILE),
        ("2026-08-01T00:00:00", "created", PASSPORT),
        ("2026-08-01T00:00:00", "created", FERRY),
        ("2026-08-01T00:00:00", "created", PLANTS),
        ("2026-08-02T00:00:00", "rescheduled", PAY),
        ("2026-08-02T00:00:00", "overridden", RECONCILE),
        ("2026-08-02T00:00:00", "done", PASSPORT),
        ("2026-08-02T00:00:00", "cancelled", FERRY),
        ("2026-08-02T00:00:00", "retargeted", PLANTS),
        ("2026-08-03T00:00:00", "reopened", PASSPORT),
        ("2026-08-03T00:00:00", "removed", PLANTS),
    ]
    ledger_id = edited.store.execute("SELECT id FROM notes WHERE path = 'Ledger.md'").fetchone()
    note_ids = {r[0] for r in edited.store.execute(
        "SELECT note_id FROM ops WHERE entry_id IS NOT NULL")}
    assert note_ids == {ledger_id[0]}


def test_an_unchanged_ledger_adds_no_revisions(edited):
    before = edited.entry_ops()
    edited.ledger(LEDGER_3, 4)  # same text, new mtime: re-read, nothing changed
    assert edited.entry_ops() == before


def test_history_returns_each_entrys_revisions_in_order(edited):
    pay = ledger_view.history(edited.store, PAY).as_dict()
    assert pay["raw"] == "- [ ] Pay the plumber invoice 📅 2026-08-20 [[Plumber]]"
    assert (pay["status"], pay["ledger"], pay["line"], pay["first_seen"]) == (
        "open", "Ledger.md", 1, "2026-08-01T00:00:00")
    assert [(r["ts"], r["kind"]) for r in pay["revisions"]] == [
        ("2026-08-01T00:00:00", "created"), ("2026-08-02T00:00:00", "rescheduled")]
    assert pay["revisions"][1]["detail"] == {
        "from": "2026-08-15", "to": "2026-08-20",
        "fields": {"due": {"from": "2026-08-15", "to": "2026-08-20"}}}
    passport = ledger_view.history(edited.store, PASSPORT).as_dict()
    assert [r["kind"] for r in passport["revisions"]] == ["created", "done", "reopened"]
    assert passport["revisions"][1]["detail"] == {"from": "open", "on": "2026-08-02"}
    assert passport["revisions"][2]["detail"] == {"from": "done"}
    reconcile = ledger_view.history(edited.store, RECONCILE).as_dict()
    assert reconcile["revisions"][1]["detail"] == {
        "from": "Reconcile the vendor quote against the June estimate",
        "to": "Reconcile the vendor quote with the June estimate"}
    plants = ledger_view.history(edited.store, PLANTS).as_dict()
    assert plants["status"] == "removed"
    assert [r["kind"] for r in plants["revisions"]] == ["created", "retargeted", "removed"]
    assert plants["revisions"][1]["detail"] == {"added": ["Kitchen"], "removed": ["Office"]}
    assert ledger_view.history(edited.store, "c-no-such-entry") is None


def test_removed_entries_are_kept_and_listed_only_with_closed_ones(edited):
    row = edited.store.execute("SELECT present, status FROM entries WHERE id = ?",
                               [PLANTS]).fetchone()
    assert row == (0, "open")
    everything = ledger_view.list_entries(edited.store, include_closed=True).results
    assert [(e["id"], e["status"]) for e in everything] == [
        (PAY, "open"), (RECONCILE, "open"), (PASSPORT, "open"), (FERRY, "cancelled"),
        (PLANTS, "removed")]
    plants = everything[-1]
    assert plants["revisions"] == 3
    assert (plants["notes"], plants["unresolved"]) == (["Kitchen.md"], [])
    open_only = ledger_view.list_entries(edited.store, include_closed=False).results
    assert [e["id"] for e in open_only] == [PAY, RECONCILE, PASSPORT]
    pay = open_only[0]
    assert (pay["due"], pay["fires_from"], pay["ledger"], pay["line"]) == (
        "2026-08-20", "2026-08-20", "Ledger.md", 1)


def test_a_line_put_back_with_its_block_id_reopens_the_removed_entry(vault):
    # Fails before the fix: the line came back as a new entry, c-forward-damp-photos.
    line = "- [ ] Forward the damp photos [when:: the landlord replies] ^c-landlord\n"
    rent = "- [ ] Pay rent 📅 2026-08-15 ^c-rent\n"
    vault.ledger(rent + line, 1)
    vault.ledger(rent, 2)
    vault.ledger(rent + line.replace("photos", "photos again"), 3)
    assert [op for op in vault.entry_ops() if op[2] == "c-landlord"] == [
        ("2026-08-01T00:00:00", "created", "c-landlord"),
        ("2026-08-02T00:00:00", "removed", "c-landlord"),
        ("2026-08-03T00:00:00", "reopened", "c-landlord"),
        ("2026-08-03T00:00:00", "overridden", "c-landlord")]
    open_ids = [e["id"] for e in ledger_view.list_entries(vault.store, False).results]
    assert open_ids == ["c-rent", "c-landlord"]


def test_identity_survives_a_reword_and_a_reschedule_at_once(vault):
    vault.ledger("- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]\n", 1)
    vault.ledger("- [ ] Pay the plumber's final invoice 📅 2026-08-22 [[Plumber]]\n", 2)
    assert vault.entry_ops() == [("2026-08-01T00:00:00", "created", PAY),
                                 ("2026-08-02T00:00:00", "rescheduled", PAY),
                                 ("2026-08-02T00:00:00", "overridden", PAY)]
    [entry] = ledger_view.list_entries(vault.store, include_closed=True).results
    assert (entry["id"], entry["action"], entry["due"]) == (
        PAY, "Pay the plumber's final invoice", "2026-08-22")


def test_identity_survives_reordering_lines(vault):
    vault.ledger(LEDGER_1, 1)
    lines = LEDGER_1.splitlines()
    vault.ledger("\n".join(reversed(lines)) + "\n", 2)
    assert [op for op in vault.entry_ops() if op[0] != "2026-08-01T00:00:00"] == []
    lines_now = {e["id"]: e["line"] for e in ledger_view.list_entries(vault.store, True).results}
    assert lines_now == {PLANTS: 1, FERRY: 2, PASSPORT: 3, RECONCILE: 4, PAY: 5}


def test_a_block_id_names_the_entry(vault):
    vault.ledger("- [ ] Replace the shower valve [[Kitchen]] ^valve\n", 1)
    vault.ledger("- [ ] Order a new thermostatic mixer instead [[Kitchen]] ^valve\n", 2)
    assert vault.entry_ops() == [("2026-08-01T00:00:00", "created", "valve"),
                                 ("2026-08-02T00:00:00", "overridden", "valve")]


def test_a_type_ledger_note_anywhere_is_a_ledger(vault):
    vault.write("projects/house/tasks.md",
                "---\ntype: ledger\n---\n# House tasks\n\n"
                "- [ ] Clear the gutter 📅 2026-08-05 [[Gutter]]\n", day=1)
    vault.write("projects/house/notes.md",
                "# Notes\n\n- [ ] Not a commitment: this note is no ledger\n", day=1)
    vault.index(1)
    [entry] = ledger_view.list_entries(vault.store, include_closed=True).results
    assert (entry["id"], entry["ledger"], entry["line"], entry["notes"]) == (
        "c-clear-gutter", "projects/house/tasks.md", 6, ["Gutter.md"])


def test_a_ledger_that_stops_being_one_removes_its_entries(vault):
    vault.write("tasks.md", "---\ntype: ledger\n---\n- [ ] Clear the gutter [[Gutter]]\n", 1)
    vault.index(1)
    vault.write("tasks.md", "---\ntype: note\n---\n- [ ] Clear the gutter [[Gutter]]\n", 2)
    vault.index(2)
    assert vault.entry_ops() == [("2026-08-01T00:00:00", "created", "c-clear-gutter"),
                                 ("2026-08-02T00:00:00", "removed", "c-clear-gutter")]
    assert [e["status"] for e in ledger_view.list_entries(vault.store, True).results] == ["removed"]


def test_a_deleted_ledger_removes_its_entries_but_keeps_them(vault):
    vault.write("tasks.md", "---\ntype: ledger\n---\n- [ ] Clear the gutter [[Gutter]]\n", 1)
    vault.index(1)
    (vault.root / "tasks.md").unlink()
    vault.index(2)
    assert vault.entry_ops()[-1] == ("2026-08-02T00:00:00", "removed", "c-clear-gutter")
    assert ledger_view.history(vault.store, "c-clear-gutter").status == "removed"


def test_moving_a_ledger_keeps_its_entries_without_revisions(vault):
    vault.write("tasks.md", "---\ntype: ledger\n---\n- [ ] Clear the gutter [[Gutter]]\n", 1)
    vault.index(1)
    (vault.root / "archive").mkdir()
    (vault.root / "tasks.md").rename(vault.root / "archive" / "tasks.md")
    vault.index(2)
    assert vault.entry_ops() == [("2026-08-01T00:00:00", "created", "c-clear-gutter")]
    [entry] = ledger_view.list_entries(vault.store, include_closed=False).results
    assert entry["ledger"] == "archive/tasks.md"


def test_an_unreadable_line_is_a_warning_with_path_and_line(vault):
    text = ("---\ntype: ledger\n---\n"
            "- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]\n"
            "- [?] Something odd\n"
            "- [ ] Call the bank 📅 2026-13-01\n")
    report = vault.ledger(text, 1, rel="money/bills.md")
    expected = [("money/bills.md", 5, "unknown task status '[?]': read as open "
                                      "([ ] and [/] open, [x] done, [-] cancelled)"),
                ("money/bills.md", 6, "bad date '2026-13-01' after 📅: use YYYY-MM-DD")]
    assert [w for w in report.warnings if w[0] == "money/bills.md"] == expected
    stored = vault.store.execute(
        "SELECT path, line, message FROM warnings WHERE source = 'ledger' ORDER BY line")
    assert stored.fetchall() == expected
    # The readable lines are still entries; the bad date leaves that entry undated.
    entries = {e["id"]: e["due"] for e in ledger_view.list_entries(vault.store, True).results}
    assert entries == {PAY: "2026-08-15", "c-something-odd": None, "c-call-bank": None}
    # Fixing the lines clears the warnings.
    vault.ledger(text.replace("[?]", "[ ]").replace("2026-13-01", "2026-12-01"), 2,
                 rel="money/bills.md")
    assert vault.store.execute("SELECT count(*) FROM warnings").fetchone() == (0,)


# -- due set -------------------------------------------------------------------------

DUE_LEDGER = """\
- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]
- [ ] Clear the gutter ⏳ 2026-08-10 📅 2026-08-14 [[Gutter]]
- [ ] Reconcile the estimate [when:: vendor quote arrives] [[June estimate]]
- [x] Renew the passport 📅 2026-08-01 ✅ 2026-08-01 [[Passport]]
- [-] Book the ferry 📅 2026-08-01 ❌ 2026-08-01 [[Trip]]
- [-] When the vendor quote arrives, call the office [[Office]] ❌ 2026-08-01
"""


@pytest.fixture
def due_vault(vault) -> Vault:
    vault.ledger(DUE_LEDGER, 1)
    return vault


def test_a_dated_entry_fires_from_its_date_on_not_before(due_vault):
    assert due_vault.due(14) == [
        ("c-clear-gutter", "date", "due today (2026-08-14)")]
    assert due_vault.due(15) == [
        ("c-clear-gutter", "date", "overdue since 2026-08-14"),
        (PAY, "date", "due today (2026-08-15)")]
    assert due_vault.due(16)[1] == (PAY, "date", "overdue since 2026-08-15")


def test_scheduled_opens_the_window_before_the_due_date(due_vault):
    assert due_vault.due(9) == []
    assert due_vault.due(10) == [
        ("c-clear-gutter", "date", "window open since 2026-08-10, due 2026-08-14")]


def test_done_and_cancelled_entries_never_fire(due_vault):
    fired = {entry for entry, _, _ in due_vault.due(
        20, context="the vendor quote arrived")}
    assert fired == {PAY, "c-clear-gutter", "c-reconcile-estimate"}


def test_a_rescheduled_date_is_honoured(due_vault):
    due_vault.ledger(DUE_LEDGER.replace("📅 2026-08-15", "📅 2026-08-18"), 2)
    assert [op[1:] for op in due_vault.entry_ops()][-1] == ("rescheduled", PAY)
    assert PAY not in {e for e, _, _ in due_vault.due(16)}
    assert due_vault.due(18)[-1] == (PAY, "date", "due today (2026-08-18)")


def test_a_trigger_entry_fires_only_with_a_matching_context(due_vault):
    assert due_vault.due(3) == []
    assert due_vault.due(3, context="lunch with sam on friday") == []
    assert due_vault.due(3, context="The vendor quote arrived") == [
        ("c-reconcile-estimate", "trigger", "trigger matched (strong cue): words arriv, quot, "
         "vendor (100% of its weight); by meaning: the context ~ condition+action «When vendor "
         "quote arrives, Reconcile the estimate» (cosine 0.67, no other entry)")]


def test_the_semantic_half_fires_where_keywords_fall_short(due_vault):
    # One of three condition words (below the 0.5 keyword threshold), but the fake
    # embeddings of "vendor" and "vendor quote arrives" have cosine 1/sqrt(3) > 0.55.
    [(entry, kind, why)] = due_vault.due(3, context="vendor")
    assert (entry, kind, why) == (
        "c-reconcile-estimate", "trigger",
        "trigger matched (strong cue): by meaning: the context ~ condition «vendor quote "
        "arrives» (cosine 0.58, no other entry)")


def test_one_public_answer_per_entry_says_whether_how_strongly_and_why(due_vault):
    """`commitments.cues_now`: what `nudge --context` asks the matcher."""
    from vaultmem import trigger

    def cues(text: str) -> dict:
        ctx = trigger.make_context(text, due_vault.embedder.embed)
        return commitments.cues_now(due_vault.store, due_vault.settings,
                                    datetime(2026, 8, 3, 9), ctx, due_vault.embedder.fingerprint)

    [(entry, found)] = cues("The vendor quote arrived").items()  # the one open trigger
    assert entry == "c-reconcile-estimate"
    assert (found.fired, found.strong, found.evidence["half"]) == (True, True,
                                                                    "keywords+meaning")
    assert found.evidence["words"] == ["arriv", "quot", "vendor"]
    held = cues("Still no vendor quote")["c-reconcile-estimate"]
    assert (held.fired, held.evidence["veto"]) == (False, ["negated: no"])


def test_the_due_set_lists_overdue_then_due_today_then_triggered(due_vault):
    # SPEC 6: grouped overdue, due today, triggered by the context, upcoming.
    assert [e for e, _, _ in due_vault.due(15, context="vendor quote arrives")] == [
        "c-clear-gutter", PAY, "c-reconcile-estimate"]


def test_due_is_a_read_asking_twice_gives_the_same_answer(due_vault):
    ops = due_vault.store.execute("SELECT count(*) FROM ops").fetchone()
    first = due_vault.due_result(15).as_dict()
    assert [r["id"] for r in first["results"] if r["group"] != "upcoming"] == [
        "c-clear-gutter", PAY]
    assert due_vault.due_result(15).as_dict() == first
    assert due_vault.due_result(15, hour=18).as_dict()["results"] == first["results"]
    assert due_vault.store.execute("SELECT count(*) FROM ops").fetchone() == ops
    assert due_vault.store.execute("SELECT count(*) FROM due_log").fetchone() == (0,)


def test_the_due_set_is_grouped_overdue_today_triggered_open_upcoming(vault):
    vault.ledger("""\
- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]
- [ ] Clear the gutter 📅 2026-08-14 [[Gutter]]
- [ ] Reconcile the estimate [when:: vendor quote arrives] [[June estimate]]
- [ ] Renew the passport ⏳ 2026-08-12 📅 2026-08-30 [[Passport]]
- [ ] Book the ferry 📅 2026-08-19 [[Trip]]
- [ ] Water the office plants 📅 2026-08-25 [[Office]]
""", 1)
    doc = vault.due_result(15, context="the vendor quote arrives").as_dict()
    rows = [(r["group"], r["id"], r["why"]) for r in doc["results"]]
    assert rows == [
        ("overdue", "c-clear-gutter", "overdue since 2026-08-14"),
        ("today", PAY, "due today (2026-08-15)"),
        ("triggered", "c-reconcile-estimate", "trigger matched (strong cue): words arriv, "
         "quot, vendor (100% of its weight); by meaning: the context ~ condition «vendor quote "
         "arrives» (cosine 0.87, no other entry)"),
        ("open", "c-renew-passport", "window open since 2026-08-12, due 2026-08-30"),
        ("upcoming", "c-book-ferry", "due in 4 days (2026-08-19)"),
    ]
    assert doc["horizon"] == 7 and doc["schema"] == SCHEMA
    assert doc["results"][0]["notes"] == ["Gutter.md"]
    later = vault.due_result(15, horizon=10).as_dict()["results"]
    assert [r["id"] for r in later if r["group"] == "upcoming"] == [
        "c-book-ferry", "c-water-office-plants"]


def test_a_date_named_in_a_condition_fires_without_a_context(vault):
    vault.ledger("- [ ] Check the warranty [when:: after 2026-08-10 the warranty lapses] "
                 "[[Kitchen]]\n", 1)
    # With any context at all the date rule fires ...
    assert vault.due(12, context="hello") == [
        ("c-check-warranty", "trigger", "date in condition arrived: 2026-08-10")]
    # ... and the date's arrival does not depend on the context.
    assert vault.due(12) == [
        ("c-check-warranty", "trigger", "date in condition arrived: 2026-08-10")]
