"""One markdown reader: the note parser, the ledger and prospective items agree on what
is a list item, a tag, a block id and front matter (all defined in vaultmem.text.parse)."""

import pytest

from vaultmem.ledger import parse_ledger
from vaultmem.prospective import list_items
from vaultmem.text import parse
from vaultmem.text.parse import parse_note

HIDDEN = {
    "indented code": "Notes:\n\n    - [ ] Hidden task #idea [[Secret]]\n\n- [ ] Real task #idea\n",
    "HTML comment": "<!--\n- [ ] Hidden task #idea [[Secret]]\n-->\n- [ ] Real task #idea\n",
    "fenced code": "```\n- [ ] Hidden task #idea [[Secret]]\n```\n- [ ] Real task #idea\n",
    "%% comment": "%%\n- [ ] Hidden task #idea [[Secret]]\n%%\n- [ ] Real task #idea\n",
}


@pytest.mark.parametrize("where", sorted(HIDDEN))
def test_a_task_line_the_note_parser_does_not_read_is_no_entry_and_no_item(where):
    text = HIDDEN[where]
    note = parse_note(text, "Ledger.md")
    assert [link.target for link in note.links] == []  # the note parser's view
    entries, warnings = parse_ledger(text)
    assert warnings == []
    assert [e.action for e in entries] == ["Real task"]
    assert [d.text for d in list_items(text)] == ["Real task"]


def test_entry_line_numbers_count_the_lines_of_hidden_blocks():
    text = "---\ntype: ledger\n---\n<!--\n- [ ] Hidden\n-->\n\n    - [ ] Code\n\n- [ ] Real\n"
    entries, _ = parse_ledger(text)
    assert [(e.action, e.line) for e in entries] == [("Real", 10)]
    assert [d.line for d in list_items("- x\n<!--\n- y #plan\n-->\n- Real #plan\n")] == [5]


def test_a_tag_in_brackets_is_a_tag_to_the_ledger_as_to_the_note():
    line = "- [ ] Call the roofer (#house) about the gutter"
    assert parse_note(line, "n.md").tags == ("house",)
    entries, _ = parse_ledger(line)
    assert entries[0].tags == ("house",)
    assert entries[0].action == "Call the roofer about the gutter"


@pytest.mark.parametrize("text, tags", [
    ("C# and a#b and ##x and #123 and #1/2", ()),
    ("see https://example.com/page#frag and (#ok)", ("ok",)),
    ("#Nested/Tag/ then [#x]", ("nested/tag", "x")),
])
def test_the_ledger_takes_exactly_the_tags_the_note_parser_finds(text, tags):
    assert parse_note(text, "n.md").tags == tuple(sorted(tags))
    entry = parse_ledger(f"- [ ] Do it {text}")[0][0]
    assert entry.tags == tags


def test_a_prospective_item_tag_follows_the_same_rule():
    assert [d.kind for d in list_items("- Solar roof (#idea)\n- C#idea is no tag\n")] == ["idea"]


def test_front_matter_closed_by_dots_is_not_closed_for_any_reader():
    text = "---\ntype: ledger\n...\n- [ ] Pay rent #plan\n---\n- [ ] After\n"
    # '...' closes nothing (python-frontmatter and Obsidian close with '---' only):
    # the front matter runs to line 5, and only "After" is body.
    assert parse_note(text, "Ledger.md").body == "- [ ] After\n"
    entries, _ = parse_ledger(text)
    assert [(e.action, e.line) for e in entries] == [("After", 6)]
    assert list_items(text) == []


def test_one_block_id_rule():
    assert parse_note("- [ ] Pay ^pay-1\n", "n.md").block_ids == ("pay-1",)
    assert parse_ledger("- [ ] Pay ^pay-1")[0][0].block_id == "pay-1"
    assert list_items("- Pay #plan ^pay-1\n")[0].block_id == "pay-1"
    assert [i.block_id for i in parse.outline("- a ^x\n- b^y\n- c ^z!\n").items] == [
        "x", None, None]


def test_the_outline_is_what_parse_note_read():
    text = "# T\n- [ ] Task [[A]]\n  - sub [[B]]\n- plain #idea\n"
    assert parse.outline(text) == parse_note(text, "n.md").outline
    items = parse.outline(text).items
    assert [(i.line, i.end, i.mark, i.text, i.tags) for i in items] == [
        (2, 3, " ", "Task [[A]]", ()), (3, 3, None, "sub [[B]]", ()),
        (4, 4, None, "plain #idea", ("idea",))]


def test_sub_links_come_from_the_note_parsers_links():
    text = "- [ ] Task\n  - see [[A]]\n  - `[[Not a link]]`\n  - [ ] Inner [[C]]\n    - [[D]]\n"
    entries, _ = parse_ledger(text)
    assert [(e.action, e.links) for e in entries] == [("Task", ("A",)),
                                                      ("Inner C", ("C", "D"))]


def test_a_ledger_nested_deep_keeps_its_later_entries():
    deep = "\n".join("  " * i + f"- [ ] Level {i}" for i in range(30))
    entries, _ = parse_ledger(deep + "\n\n- [ ] After [[X]]\n")
    assert len(entries) == 31 and entries[-1].links == ("X",)


def test_nesting_past_what_the_reader_follows_is_a_warning():
    deep = "\n".join("  " * i + f"- [ ] Level {i}" for i in range(60))
    assert any("nested more than 50 levels" in w for w in parse_note(deep, "n.md").warnings)
    assert parse_note(deep[:2000], "n.md").warnings == ()


def test_the_nudge_path_reads_the_ledger_rules_without_the_markdown_parser():
    from .conftest import modules_loaded

    assert modules_loaded("import vaultmem.nudge, vaultmem.ledger, vaultmem.prospective",
                          ("markdown_it", "frontmatter", "vaultmem.text.parse")) == []


@pytest.mark.parametrize("code", [
    "- [ ] Fix the build [[CI]]\n    ```sh\n    echo $((a %% b))\n    ```\n",
    "> ```\n> a %% b\n> ```\n",
])
def test_percent_signs_in_a_nested_or_quoted_fence_open_no_comment(code):
    """A `%%` in code under a task or in a quote is code: it must not start a comment that
    hides every entry after it."""
    text = code + "%% a real comment [[Hidden]] %%\n- [ ] Pay rent 📅 2026-08-01 [[Rent]]\n"
    entries, _ = parse_ledger(text)
    assert "Pay rent" in [e.action for e in entries]
    assert "Hidden" not in [link.target for link in parse_note(text, "Ledger.md").links]


@pytest.mark.parametrize("line", ["- [ ] Do it \\#notatag", "- [ ] Do it [see](#heading)"])
def test_an_escaped_hash_or_a_heading_link_is_no_tag_to_any_reader(line):
    entry = parse_ledger(line)[0][0]
    assert entry.tags == () and parse_note(line, "Ledger.md").tags == ()
    assert entry.action == line.removeprefix("- [ ] ")


def test_a_bracketed_kind_tag_leaves_no_brackets_in_the_item_text():
    items = list_items(parse_note("- Solar roof (#idea) for the barn\n", "n.md").items)
    assert [(i.kind, " ".join(i.text.split())) for i in items] == [
        ("idea", "Solar roof for the barn")]


@pytest.mark.parametrize("line", [
    "- [ ] Pay the plumber invoice 📅 2026-08-15 [[José Núñez|Plumber]] #project/house",
    "- [/] Draft the talk ⏫ 🔁 every week 📅 2026-09-01 ^talk",
    "* [ ] Reconcile the quote [when:: vendor quote arrives] [keywords:: quote] [[June]]",
    "1. [ ] Call (#work) Jo [due:: 2026-08-20] [start:: 2026-08-12]",
    "- [x] Renew passport 📅 2026-07-31 ✅ 2026-07-20 [[Passport]]",
    "  - [ ] ask [[Dave]] for a quote 🛫 2026-03-02 📅 2026-03-06",
])
def test_a_task_line_read_on_its_own_is_the_entry_the_ledger_reads(line):
    from vaultmem.ledger import parse_task_line

    entries, _ = parse_ledger(line)
    assert parse_task_line(line) == entries[0]
    assert parse_task_line("Just prose, no task") is None
