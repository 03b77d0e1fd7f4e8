"""Tests for vaultmem.ledger (parsing task lines, rendering them) and
vaultmem.ledger_reconcile (reconciling two states)."""

import re
from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultmem.ledger import LedgerEntry, LedgerWarning, parse_ledger, render_entry
from vaultmem.ledger_reconcile import Known, Revision, new_id, reconcile

D = date.fromisoformat


def one(line: str) -> LedgerEntry:
    """The single entry of a one-line ledger, which must parse without warnings."""
    entries, warnings = parse_ledger(line)
    assert warnings == []
    assert len(entries) == 1
    return entries[0]


def ledger(*lines: str) -> list[LedgerEntry]:
    entries, warnings = parse_ledger("\n".join(lines))
    assert warnings == []
    return entries


def known(*pairs: tuple[str, str]) -> list[Known]:
    """Known entries from (id, task line) pairs."""
    return [Known(ident, one(line)) for ident, line in pairs]


def kinds(result, ident: str) -> list[str]:
    return [r.kind for i, _, revs in result if i == ident for r in revs]


# ---------------------------------------------------------------- parsing: the spec example

SPEC_LEDGER = "\n".join([
    "- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]] #project/house",
    "- [ ] Reconcile the vendor quote against the June estimate [when:: vendor quote arrives]"
    " [[June estimate]]",
    "- [ ] When the guests are coming, replace the shower valve [[Bathroom]]",
    "- [x] Renew passport 📅 2026-05-01 ✅ 2026-04-20 [[Passport]]",
    "- [-] Book the ferry [[Trip]] ❌ 2026-06-02",
])


def test_spec_example_parses_into_five_entries():
    entries, warnings = parse_ledger(SPEC_LEDGER)
    assert warnings == []
    plumber, quote, valve, passport, ferry = entries
    assert plumber == LedgerEntry(
        line=1,
        raw="- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]] #project/house",
        status="open", action="Pay the plumber invoice", due=D("2026-08-15"),
        links=("Plumber",), project="house", tags=("project/house",),
    )
    assert (quote.action, quote.condition, quote.links) == (
        "Reconcile the vendor quote against the June estimate",
        "vendor quote arrives", ("June estimate",),
    )
    assert (valve.action, valve.condition, valve.links) == (
        "Replace the shower valve", "the guests are coming", ("Bathroom",),
    )
    assert (passport.status, passport.due, passport.done_on) == (
        "done", D("2026-05-01"), D("2026-04-20"),
    )
    assert (ferry.status, ferry.cancelled_on, ferry.line) == ("cancelled", D("2026-06-02"), 5)


# ---------------------------------------------------------------- parsing: each syntax form


def test_emoji_dates():
    entry = one("- [ ] Water plants 📅 2026-08-15 ⏳ 2026-08-10 🛫 2026-08-01 ➕ 2026-07-01 "
                "✅ 2026-08-16 ❌ 2026-08-17")
    assert entry.action == "Water plants"
    assert (entry.due, entry.scheduled, entry.start) == (
        D("2026-08-15"), D("2026-08-10"), D("2026-08-01"),
    )
    assert (entry.created, entry.done_on, entry.cancelled_on) == (
        D("2026-07-01"), D("2026-08-16"), D("2026-08-17"),
    )


def test_emoji_with_variation_selector():
    entry = one("- [ ] Pay rent 📅\ufe0f 2026-09-01 🗓\ufe0f 2026-01-01")
    assert (entry.action, entry.due) == ("Pay rent", D("2026-09-01"))


def test_dataview_bracket_date_fields():
    entry = one("- [ ] Pay rent [due:: 2026-09-01] [scheduled:: 2026-08-30] [start:: 2026-08-25] "
                "[created:: 2026-08-01] [completion:: 2026-09-02] [cancelled:: 2026-09-03]")
    assert entry.action == "Pay rent"
    assert (entry.due, entry.scheduled, entry.start, entry.created) == (
        D("2026-09-01"), D("2026-08-30"), D("2026-08-25"), D("2026-08-01"),
    )
    assert (entry.done_on, entry.cancelled_on, entry.fields) == (
        D("2026-09-02"), D("2026-09-03"), {},
    )


def test_dataview_paren_fields():
    entry = one("- [ ] Pay rent (due:: 2026-09-01) (start:: 2026-08-25) (Priority:: high)")
    assert (entry.action, entry.due, entry.start) == ("Pay rent", D("2026-09-01"), D("2026-08-25"))
    assert entry.fields == {"priority": "high"}


def test_when_field_bracket_and_paren():
    bracket = one("- [ ] Reconcile the quote [when:: the vendor quote arrives]")
    paren = one("- [ ] Reconcile the quote (when:: the vendor quote arrives)")
    for entry in (bracket, paren):
        assert entry.action == "Reconcile the quote"
        assert entry.condition == "the vendor quote arrives"


def test_when_comma_form():
    entry = one("- [ ] when the guests are coming, replace the shower valve")
    assert (entry.condition, entry.action) == ("the guests are coming", "Replace the shower valve")


def test_when_without_comma_is_plain_action():
    entry = one("- [ ] When in doubt ask")
    assert (entry.condition, entry.action) == (None, "When in doubt ask")


def test_when_field_wins_over_comma_form():
    entry = one("- [ ] When ready, go [when:: the door opens]")
    assert (entry.condition, entry.action) == ("the door opens", "When ready, go")


def test_keywords():
    entry = one("- [ ] Reconcile the quote [when:: quote] [keywords:: vendor, quote , ,PDF]")
    assert entry.keywords == ("vendor", "quote", "PDF")
    assert entry.action == "Reconcile the quote"


def test_project_field_and_project_tag():
    assert one("- [ ] Fix the gutter [project:: house]").project == "house"
    tagged = one("- [ ] Fix the gutter #Project/House #urgent")
    assert (tagged.project, tagged.tags, tagged.action) == (
        "house", ("project/house", "urgent"), "Fix the gutter",
    )
    both = one("- [ ] Fix the gutter [project:: garden] #project/house")
    assert both.project == "garden"


def test_block_id():
    entry = one("- [ ] Replace the valve [[Bathroom]] 📅 2026-08-15 ^c-valve")
    assert (entry.block_id, entry.action) == ("c-valve", "Replace the valve")
    assert one("- [ ] Mid ^notid text").block_id is None


def test_tasks_emoji_fields_leave_the_action():
    entry = one("- [ ] Water plants 🔁 every week on Sunday ⏫ 🆔 abc123 ⛔ xyz789 📅 2026-08-15")
    assert entry.action == "Water plants"
    assert entry.fields == {
        "priority": "high", "id": "abc123", "dependson": "xyz789",
        "recurrence": "every week on Sunday",
    }


def test_other_dataview_fields_keep_raw_values_and_lower_case_keys():
    entry = one("- [ ] Ring the office [Nudge Hours:: 9-17] [related:: [[Invoice]]]")
    assert entry.fields == {"nudge hours": "9-17", "related": "[[Invoice]]"}
    assert (entry.action, entry.links) == ("Ring the office", ("Invoice",))


def test_wiki_link_forms():
    entry = one("- [ ] Ask [[Plumber|the plumber]] about [[Plumber#Quote]] and ![[Photo.png]] "
                "in [[folder/Kitchen]]")
    assert entry.links == ("Plumber", "Photo.png", "folder/Kitchen")
    assert entry.action == "Ask the plumber about Plumber Quote and Photo.png in"


def test_links_after_metadata_leave_the_action():
    for line, action, links in [
        ("- [ ] Call [[Jo]] 📅 2026-08-15 [[Mum]]", "Call Jo", ("Jo", "Mum")),
        ("- [ ] Ring [[Jo]] about tiles [priority:: high] [[Tiles]]", "Ring Jo about tiles",
         ("Jo", "Tiles")),
        ("- [ ] Fix the gutter #home [[Roof]] today", "Fix the gutter today", ("Roof",)),
    ]:
        entry = one(line)
        assert (entry.action, entry.links) == (action, links)


def test_trailing_links_leave_the_action_when_two_words_remain():
    for line, action, links in [
        ("- [ ] Replace the shower valve [[Bathroom]] [[Plumber]]", "Replace the shower valve",
         ("Bathroom", "Plumber")),
        ("- [ ] Call [[Jo]]", "Call Jo", ("Jo",)),
        ("- [ ] Ask [[Jo]] about the tiles", "Ask Jo about the tiles", ("Jo",)),
        ("- [ ] Ask [[Jo]] about the tiles [[Tiles]]", "Ask Jo about the tiles", ("Jo", "Tiles")),
    ]:
        entry = one(line)
        assert (entry.action, entry.links) == (action, links)


def test_tags_not_inside_links_or_code_or_words():
    entry = one("- [ ] Read [[Notes#tag]] on C# and issue #123 `#code` #real")
    assert entry.tags == ("real",)
    assert entry.action == "Read Notes tag on C# and issue #123 `#code`"


def test_inline_code_is_not_parsed():
    entry = one("- [ ] Document `[due:: 2026-01-01]` and `[[x]]`")
    assert (entry.due, entry.links) == (None, ())
    assert entry.action == "Document `[due:: 2026-01-01]` and `[[x]]`"


def test_list_markers_and_status_marks():
    entries = ledger("* [x] a", "+ [X] b", "1. [-] c", "2) [ ] d", "\t- [ ] e", "-  [ ]  f")
    assert [(e.action, e.status) for e in entries] == [
        ("a", "done"), ("b", "done"), ("c", "cancelled"), ("d", "open"), ("e", "open"),
        ("f", "open"),
    ]


def test_not_tasks():
    assert ledger("- [] a", "-[ ] b", "- [ ]c", "[ ] d", "- [xx] e", "plain text") == []


def test_crlf_line_endings():
    entry = ledger("intro\r", "- [ ] Call the bank 📅 2026-08-15\r", "")[0]
    assert (entry.line, entry.raw) == (2, "- [ ] Call the bank 📅 2026-08-15")
    assert entry.due == D("2026-08-15")


# ---------------------------------------------------------------- parsing: structure


def test_nested_non_task_items_contribute_links():
    entries = ledger(
        "- [ ] Replace the valve [[Bathroom]]",
        "  - quote in [[Plumber]] and [[Bathroom]]",
        "",
        "    more detail [[Valve specs]]",
        "- a sibling note [[Unrelated]]",
        "  - its child [[Also unrelated]]",
    )
    assert entries[0].links == ("Bathroom", "Plumber", "Valve specs")


def test_nested_task_is_its_own_entry():
    entries = ledger(
        "- [ ] Renovate the kitchen [[Kitchen]]",
        "    - [ ] Order the tiles [[Tiles]]",
        "        - supplier is [[Tile shop]]",
        "    - budget in [[Budget]]",
        "## Later",
        "  - not nested under anything [[Nope]]",
    )
    kitchen, tiles = entries
    assert (kitchen.links, kitchen.line) == (("Kitchen", "Budget"), 1)
    assert (tiles.links, tiles.line) == (("Tiles", "Tile shop"), 2)


def test_code_fences_are_ignored():
    entries = ledger(
        "- [ ] Real one",
        "  ```markdown",
        "  - [ ] inside backticks [[Fenced]]",
        "  ```",
        "~~~~",
        "- [ ] inside tildes",
        "~~~",
        "~~~~",
        "- [ ] After the fence",
    )
    assert [(e.action, e.line, e.links) for e in entries] == [
        ("Real one", 1, ()), ("After the fence", 9, ()),
    ]


def test_front_matter_is_skipped_and_counted():
    text = "---\ntype: ledger\nnote: - [ ] not a task\n---\n\n- [ ] First [[A]]\n"
    entries, warnings = parse_ledger(text)
    assert warnings == []
    assert [(e.action, e.line) for e in entries] == [("First A", 6)]


def test_unclosed_front_matter_is_body():
    assert [e.line for e in ledger("---", "- [ ] A")] == [2]


# ---------------------------------------------------------------- parsing: warnings


def test_unknown_status_warns_with_line_and_reads_the_entry_as_open():
    entries, warnings = parse_ledger("# Ledger\n- [ ] ok\n- [?] odd [[X]]\n  - child [[Y]]\n")
    assert [(e.action, e.status, e.links) for e in entries] == [
        ("ok", "open", ()), ("odd X", "open", ("X", "Y"))]
    assert warnings == [LedgerWarning(3, "unknown task status '[?]': read as open "
                                         "([ ] and [/] open, [x] done, [-] cancelled)")]


def test_in_progress_is_open_without_a_warning():
    entries, warnings = parse_ledger("- [/] Draft the talk 📅 2026-09-01 [[Talk]]\n")
    assert [(e.action, e.status, e.due.isoformat()) for e in entries] == [
        ("Draft the talk", "open", "2026-09-01")]
    assert warnings == []


@pytest.mark.parametrize("line, priority", [
    ("- [ ] Call the bank 🔺", "highest"), ("- [ ] Call the bank ⏫", "high"),
    ("- [ ] Call the bank 🔼", "medium"), ("- [ ] Call the bank 🔽", "low"),
    ("- [ ] Call the bank ⏬", "lowest"), ("- [ ] Call the bank [priority:: high]", "high"),
])
def test_priority_is_read_from_emoji_and_dataview(line, priority):
    [entry], _ = parse_ledger(line)
    assert (entry.action, entry.fields.get("priority")) == ("Call the bank", priority)


def test_bad_date_warns_and_keeps_entry():
    entries, warnings = parse_ledger("\n- [ ] Pay rent 📅 2026-13-45 [scheduled:: soon] [[Rent]]")
    assert [(e.action, e.due, e.scheduled, e.links) for e in entries] == [
        ("Pay rent", None, None, ("Rent",)),
    ]
    assert warnings == [
        LedgerWarning(2, "bad date 'soon' in [scheduled:: ]: use YYYY-MM-DD"),
        LedgerWarning(2, "bad date '2026-13-45' after 📅: use YYYY-MM-DD"),
    ]


def test_bad_date_word_stays_in_action():
    entries, warnings = parse_ledger("- [ ] Pay rent 📅 tomorrow")
    assert entries[0].action == "Pay rent tomorrow"
    assert warnings == [LedgerWarning(1, "bad date 'tomorrow' after 📅: use YYYY-MM-DD")]


def test_empty_action_warns_and_skips():
    entries, warnings = parse_ledger("- [ ] 📅 2026-08-15 #tag ^id\n- [ ]")
    assert entries == []
    assert [w.line for w in warnings] == [1, 2]
    assert "no text" in warnings[0].message


def test_empty_date_field_is_not_a_warning():
    assert one("- [ ] Template [due:: ]").due is None


def test_fires_from_is_earliest_window_date():
    assert one("- [ ] a 📅 2026-08-15 ⏳ 2026-08-10").fires_from == D("2026-08-10")
    assert one("- [ ] a 📅 2026-08-15 🛫 2026-08-01 ➕ 2026-01-01").fires_from == D("2026-08-01")
    assert one("- [ ] a ➕ 2026-01-01").fires_from is None


# ---------------------------------------------------------------- rendering


def test_render_entry_is_canonical():
    entry = one("- [x] When it rains, close [[Window|the window]] #home (priority:: high) "
                "📅 2026-08-15 ✅ 2026-08-15 ^w")
    assert render_entry(entry) == (
        "- [x] Close the window [when:: it rains] [links:: [[Window]]] [priority:: high] "
        "#home 📅 2026-08-15 ✅ 2026-08-15 ^w"
    )


def test_render_uses_parens_for_bracket_unbalanced_values():
    entry = LedgerEntry(line=1, raw="", status="open", action="a", fields={"k": "x ] y"})
    assert render_entry(entry) == "- [ ] a (k:: x ] y)"
    assert one(render_entry(entry)).fields == {"k": "x ] y"}


# ---------------------------------------------------------------- reconcile: revision types


def test_created_and_removed():
    before = known(("c-old", "- [ ] Old thing [[A]]"))
    result = reconcile(before, ledger("- [ ] Brand new [[B]] 📅 2026-08-15"))
    assert result == [
        ("c-brand-new", one("- [ ] Brand new [[B]] 📅 2026-08-15"), [Revision("created", {
            "action": "Brand new", "condition": None, "status": "open", "links": ["B"],
            "due": "2026-08-15", "scheduled": None, "start": None, "project": None,
            "block_id": None, "line": 1,
        })]),
        ("c-old", None, [Revision("removed", {
            "action": "Old thing", "condition": None, "status": "open", "links": ["A"],
            "due": None, "scheduled": None, "start": None, "project": None,
            "block_id": None, "line": 1,
        })]),
    ]


def test_rescheduled():
    before = known(("c-1", "- [ ] Pay the plumber 📅 2026-08-15 ⏳ 2026-08-10"))
    result = reconcile(before, ledger("- [ ] Pay the plumber 📅 2026-08-20 ⏳ 2026-08-10"))
    assert result[0][0] == "c-1"
    assert result[0][2] == [Revision("rescheduled", {
        "from": "2026-08-10", "to": "2026-08-10",
        "fields": {"due": {"from": "2026-08-15", "to": "2026-08-20"}},
    })]


def test_rescheduled_from_undated():
    result = reconcile(known(("c-1", "- [ ] Pay the plumber")),
                       ledger("- [ ] Pay the plumber [start:: 2026-08-01]"))
    assert result[0][2] == [Revision("rescheduled", {
        "from": None, "to": "2026-08-01",
        "fields": {"start": {"from": None, "to": "2026-08-01"}},
    })]


def test_overridden_action_and_condition():
    before = known(("c-1", "- [ ] Reconcile the vendor quote [when:: quote arrives] [[Q]]"))
    after = ledger("- [ ] Reconcile the vendor quote carefully [when:: invoice arrives] [[Q]]")
    assert reconcile(before, after)[0][2] == [Revision("overridden", {
        "from": "Reconcile the vendor quote", "to": "Reconcile the vendor quote carefully",
        "condition": {"from": "quote arrives", "to": "invoice arrives"},
    })]


def test_overridden_action_only_has_no_condition_detail():
    result = reconcile(known(("c-1", "- [ ] Buy milk")), ledger("- [ ] Buy oat milk"))
    assert result[0][2] == [Revision("overridden", {"from": "Buy milk", "to": "Buy oat milk"})]


def test_retargeted():
    before = known(("c-1", "- [ ] Call about the quote [[Plumber]] [[Quote]]"))
    after = ledger("- [ ] Call about the quote [[Quote]]", "  - see [[Electrician]]")
    # The links end the description, so dropping one changes no word of the action.
    assert reconcile(before, after)[0][2] == [
        Revision("retargeted", {"added": ["Electrician"], "removed": ["Plumber"]}),
    ]


def test_retargeted_only_when_links_move_to_a_sub_item():
    before = known(("c-1", "- [ ] Call the plumber [links:: [[Plumber]], [[Quote]]]"))
    after = ledger("- [ ] Call the plumber [links:: [[Plumber]]]", "  - [[Invoice]]")
    assert reconcile(before, after)[0][2] == [
        Revision("retargeted", {"added": ["Invoice"], "removed": ["Quote"]}),
    ]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("- [ ] Pay rent", "- [x] Pay rent ✅ 2026-08-15",
         Revision("done", {"from": "open", "on": "2026-08-15"})),
        ("- [ ] Pay rent", "- [-] Pay rent", Revision("cancelled", {"from": "open", "on": None})),
        ("- [x] Pay rent", "- [ ] Pay rent", Revision("reopened", {"from": "done"})),
        ("- [-] Pay rent", "- [ ] Pay rent", Revision("reopened", {"from": "cancelled"})),
        ("- [x] Pay rent", "- [-] Pay rent ❌ 2026-08-16",
         Revision("cancelled", {"from": "done", "on": "2026-08-16"})),
        ("- [-] Pay rent", "- [x] Pay rent", Revision("done", {"from": "cancelled", "on": None})),
    ],
)
def test_status_changes(before, after, expected):
    assert reconcile(known(("c-rent", before)), ledger(after)) == [
        ("c-rent", one(after), [expected]),
    ]


def test_several_revisions_come_in_canonical_order():
    before = known(("c-1", "- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]"))
    after = ledger("- [x] Pay the plumber invoice now 📅 2026-08-20 [[Plumber]] [[Bank]]")
    assert kinds(reconcile(before, after), "c-1") == [
        "rescheduled", "overridden", "retargeted", "done",
    ]


def test_no_change_no_revisions():
    lines = ("- [ ] Pay rent 📅 2026-08-15", "- [x] Renew passport [[Passport]]")
    before = known(("c-rent", lines[0]), ("c-pass", lines[1]))
    assert [(i, revs) for i, _, revs in reconcile(before, ledger(*lines))] == [
        ("c-rent", []), ("c-pass", []),
    ]


# ---------------------------------------------------------------- reconcile: identity


def test_identity_kept_across_reword_with_same_links_and_date():
    before = known(("c-plumber", "- [ ] Pay the plumber invoice 📅 2026-08-15 [[Plumber]]"))
    result = reconcile(before, ledger("- [ ] Settle the plumber's bill 📅 2026-08-15 [[Plumber]]"))
    assert [(i, kinds(result, i)) for i, _, _ in result] == [("c-plumber", ["overridden"])]


def test_identity_kept_across_reword_without_links():
    result = reconcile(known(("c-milk", "- [ ] Buy milk on the way home")),
                       ledger("- [ ] Buy oat milk on the way home"))
    assert [i for i, _, _ in result] == ["c-milk"]


def test_identity_kept_across_reschedule_retarget_and_status():
    before = known(("c-a", "- [ ] Renew the car insurance 📅 2026-09-01 [[Car]]"),
                   ("c-b", "- [ ] Book the dentist [[Dentist]]"))
    after = ledger("- [x] Renew the car insurance 📅 2026-09-10 [[Car]]",
                   "  - new quote from [[Insurer]]",
                   "- [-] Book the dentist [[Dentist]]")
    result = reconcile(before, after)
    assert [(i, kinds(result, i)) for i, _, _ in result] == [
        ("c-a", ["rescheduled", "retargeted", "done"]), ("c-b", ["cancelled"]),
    ]


def test_identity_kept_when_words_stay_and_links_all_change():
    before = known(("c-1", "- [ ] Send the signed contract back [[Landlord]]"))
    result = reconcile(before, ledger("- [ ] Send the signed contract back [[Agency]]"))
    assert [(i, kinds(result, i)) for i, _, _ in result] == [("c-1", ["retargeted"])]


def test_reordering_changes_nothing():
    lines = ["- [ ] Pay rent 📅 2026-08-01", "- [ ] Pay rent 📅 2026-09-01",
             "- [ ] Call mom", "- [x] Water plants ^plants", "- [ ] Fix bike [[Bike]]"]
    before = [Known(f"id{n}", entry) for n, entry in enumerate(ledger(*lines))]
    result = reconcile(before, ledger(*reversed(lines)))
    assert sorted((i, e.action, e.due, revs) for i, e, revs in result) == [
        ("id0", "Pay rent", D("2026-08-01"), []), ("id1", "Pay rent", D("2026-09-01"), []),
        ("id2", "Call mom", None, []), ("id3", "Water plants", None, []),
        ("id4", "Fix bike", None, []),
    ]


def test_reordering_and_rewording_together():
    before = known(("c-a", "- [ ] Pay the plumber invoice [[Plumber]]"),
                   ("c-b", "- [ ] Return the library books [[Library]]"))
    after = ledger("- [ ] Return the library books by Friday [[Library]]",
                   "- [ ] Pay the plumber's invoice [[Plumber]]")
    assert [i for i, _, _ in reconcile(before, after)] == ["c-b", "c-a"]


def test_block_id_keeps_identity_through_a_total_rewrite():
    before = known(("c-valve", "- [ ] Replace the shower valve [[Bathroom]] ^c-valve"))
    result = reconcile(before, ledger("- [x] Get someone in for the leak [[Plumber]] ^c-valve"))
    assert [(i, kinds(result, i)) for i, _, _ in result] == [
        ("c-valve", ["overridden", "retargeted", "done"]),
    ]


def test_block_id_added_later_matching_the_stored_id():
    before = known(("c-replace-shower-valve", "- [ ] Replace the shower valve"))
    result = reconcile(before, ledger("- [ ] Totally different words ^c-replace-shower-valve"))
    assert [i for i, _, _ in result] == ["c-replace-shower-valve"]


def test_different_block_ids_are_different_commitments():
    before = known(("c-a", "- [ ] Pay the plumber invoice ^a"))
    result = reconcile(before, ledger("- [ ] Pay the plumber invoice now ^b"))
    assert [(i, kinds(result, i)) for i, _, _ in result] == [
        ("b", ["created"]), ("c-a", ["removed"]),
    ]


def test_two_similar_entries_are_not_swapped():
    before = known(("c-valve", "- [ ] Call the plumber about the valve [[Plumber]]"),
                   ("c-invoice", "- [ ] Call the plumber about the invoice [[Plumber]]"))
    after = ledger("- [ ] Call the plumber about the overdue invoice [[Plumber]]",
                   "- [ ] Call the plumber about the shower valve [[Plumber]]")
    result = reconcile(before, after)
    assert [(i, e.action) for i, e, _ in result] == [
        ("c-invoice", "Call the plumber about the overdue invoice"),
        ("c-valve", "Call the plumber about the shower valve"),
    ]


def test_one_of_two_similar_entries_edited():
    before = known(("c-valve", "- [ ] Call the plumber about the valve [[Plumber]]"),
                   ("c-invoice", "- [ ] Call the plumber about the invoice [[Plumber]]"))
    after = ledger("- [ ] Call the plumber about the invoice [[Plumber]]",
                   "- [ ] Call the plumber about the valve again [[Plumber]]")
    result = reconcile(before, after)
    assert [(i, kinds(result, i)) for i, _, _ in result] == [
        ("c-invoice", []), ("c-valve", ["overridden"]),
    ]


def test_unrelated_replacement_is_removed_and_created():
    result = reconcile(known(("c-mom", "- [ ] Call mom")), ledger("- [ ] Call the bank"))
    assert [(i, kinds(result, i)) for i, _, _ in result] == [
        ("c-call-bank", ["created"]), ("c-mom", ["removed"]),
    ]


def test_new_ids_avoid_known_taken_and_each_other():
    result = reconcile(known(("c-buy-milk", "- [ ] Something else entirely")),
                       ledger("- [ ] Buy milk", "- [ ] Buy milk", "- [ ] Buy the milk"),
                       taken_ids={"c-buy-milk-2"})
    assert [i for i, _, _ in result] == [
        "c-buy-milk-3", "c-buy-milk-4", "c-buy-milk-5", "c-buy-milk",
    ]


# ---------------------------------------------------------------- new_id


def test_new_id_prefers_a_free_block_id():
    entry = one("- [ ] Replace the valve ^c-valve")
    assert new_id(entry, set()) == "c-valve"
    assert new_id(entry, {"c-valve"}) == "c-replace-valve"


def test_new_id_slug_drops_stop_words_and_keeps_four_words():
    entry = one("- [ ] Reconcile the vendor quote against the June estimate")
    assert new_id(entry, set()) == "c-reconcile-vendor-quote-against"


def test_new_id_folds_accents_and_numbers_collisions():
    entry = one("- [ ] Réserver le café")
    taken = {"c-reserver-le-cafe", "c-reserver-le-cafe-2"}
    assert new_id(entry, taken) == "c-reserver-le-cafe-3"
    assert taken == {"c-reserver-le-cafe", "c-reserver-le-cafe-2"}


def test_new_id_fallbacks():
    assert new_id(one("- [ ] To the"), set()) == "c-to-the"
    kanji = new_id(one("- [ ] 買い物"), set())
    assert kanji.startswith("c-") and len(kanji) == 10
    assert new_id(one("- [ ] 買い物"), set()) == kanji


# ---------------------------------------------------------------- properties

TASKISH = st.lists(
    st.sampled_from(list(" \t\n\r-*+1.)[]()x?#^:|,`~!/_abcW ") + [
        "📅", "⏳", "🛫", "➕", "✅", "❌", "🔁", "⏫", "🆔", "⛔", "\ufe0f", "\ue000",
        "\ue001", "[[", "]]", "::", "2026-08-15", "when", "---", "```", "- [ ] ", "  - ",
    ]),
    max_size=80,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_parse_never_raises_on_any_text(text):
    entries, warnings = parse_ledger(text)
    assert all(isinstance(w, LedgerWarning) for w in warnings)
    assert all(e.action for e in entries)


@settings(max_examples=200, deadline=None)
@given(TASKISH)
def test_parse_never_raises_on_task_like_text(text):
    entries, _ = parse_ledger(text)
    # Lines as Obsidian (CodeMirror) counts them: a lone "\r" breaks a line too.
    lines = re.split(r"\r\n|\r|\n", text)
    assert all(lines[e.line - 1] == e.raw for e in entries)


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
PHRASE = st.lists(WORD, min_size=1, max_size=5).map(" ".join)
LINK = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123 /.-_'", min_size=1, max_size=12)
    .map(str.strip).filter(bool), min_size=1, max_size=3,
).map(" ".join)
TAG = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=10).filter(
    lambda t: not t.isdigit()
)
DATES = st.none() | st.dates()
BLOCK_ID = st.from_regex(r"[A-Za-z0-9-]{1,10}", fullmatch=True)
RESERVED = {"due", "scheduled", "start", "created", "completion", "cancelled", "when",
            "keywords", "project", "links"}


@st.composite
def entries(draw) -> LedgerEntry:
    project = draw(st.none() | WORD)
    tags = draw(st.lists(TAG, unique=True, max_size=3))
    if project is not None and draw(st.booleans()):
        tags.append(f"project/{project}")
    return LedgerEntry(
        line=1, raw="", status=draw(st.sampled_from(["open", "done", "cancelled"])),
        action=draw(PHRASE.map(lambda s: s[:1].upper() + s[1:])),
        condition=draw(st.none() | PHRASE), keywords=tuple(draw(st.lists(PHRASE, max_size=3))),
        due=draw(DATES), scheduled=draw(DATES), start=draw(DATES), created=draw(DATES),
        done_on=draw(DATES), cancelled_on=draw(DATES),
        links=tuple(draw(st.lists(LINK, unique=True, max_size=3))), project=project,
        tags=tuple(tags), block_id=draw(st.none() | BLOCK_ID),
        fields=draw(st.dictionaries(WORD.filter(lambda k: k not in RESERVED), PHRASE, max_size=3)),
    )


@settings(max_examples=200, deadline=None)
@given(entries())
def test_render_then_parse_round_trips(entry):
    line = render_entry(entry)
    assert replace(one(line), line=entry.line, raw=entry.raw) == entry


TOKENS = st.sampled_from([
    "Pay", "the", "plumber", "invoice", "When", "when", ",", "[[Plumber]]",
    "[[June estimate|the June estimate]]", "[[Plumber#Quote]]", "#house", "#project/kitchen",
    "📅 2026-08-15", "⏳ 2026-08-01", "✅ 2026-08-20", "📅 2026-13-45", "[when:: quote arrives]",
    "(when:: guests come)", "[keywords:: vendor, quote]", "[project:: garden]",
    "[priority:: high]", "(nudge:: daily)", "🔁 every week", "⏫", "🆔 abc", "`code [[x]]`",
    "[links:: [[Bank]]]", "(see", "it)", "[ok]",
])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["- [ ] ", "- [x] ", "* [-] "]), st.lists(TOKENS, max_size=10),
       st.none() | st.just("^blk"))
def test_parse_render_parse_is_stable(prefix, tokens, block):
    line = prefix + " ".join(tokens) + (f" {block}" if block else "")
    parsed, _ = parse_ledger(line)
    for entry in parsed:
        again = one(render_entry(entry))
        assert replace(again, line=entry.line, raw=entry.raw) == entry


def test_mass_edit_keeps_every_identity():
    topics = ["plumber", "bank", "car", "garden", "dentist", "school"]
    lines = [f"- [ ] Task {n} about the {topics[n % 6]} [[Note {n % 7}]] "
             f"📅 2026-08-{n % 28 + 1:02d}" for n in range(40)]
    before = [Known(f"id{n}", entry) for n, entry in enumerate(ledger(*lines))]
    edited = [line.replace(" about", ", reworded, about") for line in reversed(lines)]
    result = reconcile(before, ledger(*edited))
    assert sorted((i, e.due.day, kinds(result, i)) for i, e, _ in result) == sorted(
        (f"id{n}", n % 28 + 1, ["overridden"]) for n in range(40)
    )


def test_links_inside_field_values_stay_in_those_fields():
    entry = one("- [ ] Pay [project:: [[House]]] [when:: [[Jo]] calls] "
                "[keywords:: [[Roof]], gutter] 📅 2026-08-15 [[X]]")
    assert (entry.action, entry.project, entry.condition) == ("Pay", "House", "Jo calls")
    assert entry.keywords == ("Roof", "gutter")
    assert entry.links == ("House", "Jo", "Roof", "X")


def test_block_id_does_not_change_the_action():
    with_id = one("- [ ] Replace the valve [[Bathroom]] ^c-valve")
    without = one("- [ ] Replace the valve [[Bathroom]]")
    assert with_id.action == without.action == "Replace the valve"


def test_when_form_counts_action_words_after_the_condition():
    entry = one("- [ ] When guests come, call [[Jo]]")
    assert (entry.condition, entry.action, entry.links) == ("guests come", "Call Jo", ("Jo",))
