"""parse_note on strings: links, tags, title, front matter, chunks, and wild input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultmem.text.parse import Chunk, Link, ParsedNote, parse_note


def links_of(text: str) -> list[tuple]:
    """(target, kind, heading, block, label, line) of every link, in order."""
    note = parse_note(text, "n.md")
    return [(x.target, x.kind, x.heading, x.block, x.label, x.line) for x in note.links]


FM = "---\ntitle: T\ntags: [a]\n---\n"

LINK_CASES = [
    ("plain", "see [[Note]]", [("Note", "wiki", None, None, None, 1)]),
    ("label", "[[Note|the note]]", [("Note", "wiki", None, None, "the note", 1)]),
    ("heading", "[[Note#Plan B]]", [("Note", "wiki", "Plan B", None, None, 1)]),
    ("block", "[[Note#^abc-1]]", [("Note", "wiki", None, "abc-1", None, 1)]),
    ("heading and label", "[[Note#H|x]]", [("Note", "wiki", "H", None, "x", 1)]),
    ("embed", "![[diagram.png]]", [("diagram.png", "embed", None, None, None, 1)]),
    ("embed note", "![[Note#Part]]", [("Note", "embed", "Part", None, None, 1)]),
    ("same-note heading", "up to [[#Top]]", [("", "wiki", "Top", None, None, 1)]),
    ("same-note block", "[[#^b1]]", [("", "wiki", None, "b1", None, 1)]),
    ("folder path", "[[folder/Sub Note]]", [("folder/Sub Note", "wiki", None, None, None, 1)]),
    ("spaces trimmed", "[[ Note | lab ]]", [("Note", "wiki", None, None, "lab", 1)]),
    ("emphasis chars stay literal", "[[a_b_c]] [[x*y*z]]",
     [("a_b_c", "wiki", None, None, None, 1), ("x*y*z", "wiki", None, None, None, 1)]),
    ("escaped pipe in a table",
     "| a | b |\n|---|---|\n| [[Note\\|label]] | x |",
     [("Note", "wiki", None, None, "label", 3)]),
    ("escaped pipe outside a table", "[[Note\\|label]]",
     [("Note", "wiki", None, None, "label", 1)]),
    ("inline code ignored", "`[[Code]]` and [[Real]]", [("Real", "wiki", None, None, None, 1)]),
    ("fenced block ignored", "```\n[[Fenced]]\n```\n\n[[After]]",
     [("After", "wiki", None, None, None, 5)]),
    ("tilde fence ignored", "~~~md\n[[Fenced]]\n~~~", []),
    ("indented code ignored", "para\n\n    [[Indented]]\n\n[[After]]",
     [("After", "wiki", None, None, None, 5)]),
    ("html block ignored", "<div>\n[[Html]]\n</div>", []),
    ("markdown link percent-encoded", "[Jo](people/Jo%20Park.md)",
     [("people/Jo Park.md", "markdown", None, None, "Jo", 1)]),
    ("markdown link relative", "[x](../people/Jo%20Park.md#Contact%20info)",
     [("../people/Jo Park.md", "markdown", "Contact info", None, "x", 1)]),
    ("markdown link angle brackets", "[x](<../people/Jo Park.md>)",
     [("../people/Jo Park.md", "markdown", None, None, "x", 1)]),
    ("markdown link to a block", "[x](Note.md#%5Eb2)",
     [("Note.md", "markdown", None, "b2", "x", 1)]),
    ("markdown link upper-case .MD", "[x](Note.MD)", [("Note.MD", "markdown", None, None, "x", 1)]),
    ("markdown link label keeps code text", "[the `cfg` file](cfg.md)",
     [("cfg.md", "markdown", None, None, "the cfg file", 1)]),
    ("http link ignored", "[x](https://example.com/a.md)", []),
    ("mailto ignored", "[mail](mailto:jo@example.com)", []),
    ("anchor-only ignored", "[top](#top)", []),
    ("non-md local file ignored", "[pdf](files/report.pdf)", []),
    ("image link to png ignored", "![chart](img/chart.png)", []),
    ("image to a note ignored", "![x](Note.md)", []),
    ("autolink ignored", "<https://example.com/Note.md>", []),
    ("two links on one line", "[[A]] then [[B|b]]",
     [("A", "wiki", None, None, None, 1), ("B", "wiki", None, None, "b", 1)]),
    ("wiki and markdown in order", "[m](m.md) [[W]] [n](n.md)",
     [("m.md", "markdown", None, None, "m", 1), ("W", "wiki", None, None, None, 1),
      ("n.md", "markdown", None, None, "n", 1)]),
    ("line in a multi-line paragraph after front matter",
     FM + "first line\nsecond line\nthird [[Deep]] line",
     [("Deep", "wiki", None, None, None, 7)]),
    ("line after a multi-line code span", FM + "a `code\nspan` b\n[[Later]]",
     [("Later", "wiki", None, None, None, 7)]),
    ("markdown link line in a list", FM + "\n- one\n- two\n  [t](t.md)",
     [("t.md", "markdown", None, None, "t", 8)]),
    ("heading links count", "# About [[Topic]]", [("Topic", "wiki", None, None, None, 1)]),
    ("empty brackets ignored", "[[]] [[|x]] [[#]]", []),
    ("unclosed ignored", "[[Never closed", []),
    ("links do not span lines", "[[Half\nway]]", []),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in LINK_CASES],
                         ids=[c[0] for c in LINK_CASES])
def test_link_table(text, expected):
    assert links_of(text) == expected


def test_link_is_frozen_dataclass():
    link = parse_note("[[A]]", "n.md").links[0]
    assert link == Link("A", "wiki", None, None, None, 1)
    with pytest.raises(AttributeError):
        link.target = "B"  # type: ignore[misc]


def test_line_numbers_count_front_matter_and_crlf_and_bom():
    text = "\ufeff---\r\ntitle: X\r\n---\r\n\r\nintro\r\nmore [[A]]\r\n\r\n## H\r\n[[B]]\r\n"
    assert [(x.target, x.line) for x in parse_note(text, "n.md").links] == [("A", 6), ("B", 9)]


# --- title, aliases ----------------------------------------------------------


@pytest.mark.parametrize(("text", "path", "title"), [
    ("---\ntitle: From FM\n---\n# Heading\n", "a/b.md", "From FM"),
    ("---\ntitle: '  '\n---\n# Heading *one*\n", "a/b.md", "Heading one"),
    ("---\ntitle: 42\n---\n# Heading\n", "a/b.md", "Heading"),
    ("intro\n\n## Second\n\n# First H1\n", "a/b.md", "First H1"),
    ("Setext\n======\n", "x.md", "Setext"),
    ("## only h2\n", "folder/My Note.md", "My Note"),
    ("> # quoted h1\n", "folder/Other.MD", "Other"),
    ("", "plain", "plain"),
])
def test_title_precedence(text, path, title):
    assert parse_note(text, path).title == title


@pytest.mark.parametrize(("fm", "aliases"), [
    ("aliases: [Jo, ' Joanna ', '', 3]", ("Jo", "Joanna")),
    ("aliases: Jo, Joanna", ("Jo", "Joanna")),
    ("alias: Jo", ("Jo",)),
    ("aliases:\n  - Jo\n  - Jo\n  - JP", ("Jo", "JP")),
    ("aliases: {a: 1}", ()),
    ("title: none", ()),
])
def test_aliases(fm, aliases):
    assert parse_note(f"---\n{fm}\n---\nbody", "n.md").aliases == aliases


# --- tags --------------------------------------------------------------------


@pytest.mark.parametrize(("text", "tags"), [
    ("a #tag here", ("tag",)),
    ("#Project/House and #project/house", ("project/house",)),
    ("#trailing/ slash", ("trailing",)),
    ("#café and #日本語", ("café", "日本語")),
    ("#under_score #dash-ed #v2", ("dash-ed", "under_score", "v2")),
    ("(#paren) and,#comma", ("comma", "paren")),
    ("a#b is not a tag", ()),
    ("##double is not", ()),
    ("#123 and #2024/06 are numbers", ()),
    ("#1a counts", ("1a",)),
    ("`#code` span", ()),
    ("```\n#fenced\n```", ()),
    ("    #indented code", ()),
    ("# Heading is not a tag", ()),
    ("[[Note#Heading]] [[#Local]]", ()),
    ("see https://example.com/#anchor and http://x.org/#/route", ()),
    ("<https://example.com/#auto>", ()),
    ("\\#escaped", ()),
    ("[link #inlabel](x.md)", ("inlabel",)),
    ("## Heading with #intag", ("intag",)),
])
def test_inline_tags(text, tags):
    assert parse_note(text, "n.md").tags == tags


@pytest.mark.parametrize(("fm", "tags"), [
    ("tags: [Work, '#Home', project/x]", ("home", "project/x", "work")),
    ("tags: work, home", ("home", "work")),
    ("tags: work home", ("home", "work")),
    ("tag: '#solo'", ("solo",)),
    ("tags: [2024]", ("2024",)),
    ("tags:", ()),
    ("tags: {a: b}", ()),
])
def test_front_matter_tags(fm, tags):
    assert parse_note(f"---\n{fm}\n---\n", "n.md").tags == tags


def test_tags_merge_front_matter_and_body_sorted_deduplicated():
    note = parse_note("---\ntags: [b, a]\n---\ntext #a #c #B", "n.md")
    assert note.tags == ("a", "b", "c")


# --- front matter -------------------------------------------------------------


def test_front_matter_is_json_safe():
    text = ("---\ncreated: 2024-03-01\nat: 2024-03-01 10:30:00\n1: one\nnull: x\n"
            "s: !!set {a: null}\nn: .nan\nnested: {k: [1, 2.5, true, null]}\n---\nbody\n")
    note = parse_note(text, "n.md")
    assert note.frontmatter == {
        "created": "2024-03-01", "at": "2024-03-01T10:30:00", "1": "one", "null": "x",
        "s": ["a"], "n": "nan", "nested": {"k": [1, 2.5, True, None]},
    }
    assert json.loads(json.dumps(note.frontmatter, allow_nan=False)) == note.frontmatter
    assert note.fm("created") == "2024-03-01"
    assert note.fm("missing", "dflt") == "dflt"
    assert note.warnings == ()
    assert note.body == "body\n"


def test_broken_yaml_warns_and_body_is_still_parsed():
    text = "---\ntitle: ok\nbad: x: y\n---\n# Body Title\n\nsee [[Target]] #tag\n"
    note = parse_note(text, "n.md")
    # libyaml says "...not allowed in this context", pure-Python PyYAML "...not allowed here"
    (warning,) = note.warnings
    assert warning.startswith("broken YAML front matter (line 3: mapping values are not allowed")
    assert warning.endswith("); body indexed without it")
    assert note.frontmatter == {}
    assert note.title == "Body Title"
    assert note.body == "# Body Title\n\nsee [[Target]] #tag\n"
    assert [(x.target, x.line) for x in note.links] == [("Target", 7)]
    assert note.tags == ("tag",)


@pytest.mark.parametrize("fm", ["- a\n- b", "just a string", "42"])
def test_front_matter_that_is_not_a_mapping_warns(fm):
    note = parse_note(f"---\n{fm}\n---\nbody", "n.md")
    assert note.frontmatter == {}
    assert len(note.warnings) == 1
    assert note.warnings[0].startswith("front matter is not a mapping")
    assert note.body == "body"


def test_bad_timestamp_is_a_warning_not_a_crash():
    note = parse_note("---\ndate: 2024-02-30\n---\nbody", "n.md")
    assert note.frontmatter == {}
    assert note.warnings[0].startswith("broken YAML front matter (")


def test_empty_front_matter_is_fine():
    note = parse_note("---\n---\nbody", "n.md")
    assert (note.frontmatter, note.warnings, note.body) == ({}, (), "body")


def test_unclosed_front_matter_is_body():
    note = parse_note("---\ntitle: x\nno closing fence [[A]]", "n.md")
    assert note.frontmatter == {}
    assert note.body == "---\ntitle: x\nno closing fence [[A]]"
    assert [(x.target, x.line) for x in note.links] == [("A", 3)]


def test_front_matter_only_at_the_very_start():
    note = parse_note("\n---\ntitle: x\n---\n", "n.md")
    assert note.frontmatter == {}
    assert note.title == "n"


def test_bom_and_crlf():
    text = "\ufeff---\r\ntitle: Win\r\ntags: [x]\r\n---\r\n# H\r\nline #y\r\n"
    note = parse_note(text, "n.md")
    assert note.title == "Win"
    assert note.tags == ("x", "y")
    assert note.body == "# H\nline #y\n"
    assert note.chunks == (Chunk(0, "H", "# H\nline #y"),)


def test_alias_bomb_is_bounded():
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    text = "---\n" + "\n".join(lines) + "\n---\nstill [[Here]]\n"
    note = parse_note(text, "bomb.md")
    assert note.warnings == (
        "front matter too large or too deeply nested (limit 10000 values, depth 20); truncated",)
    assert len(json.dumps(note.frontmatter)) < 200_000
    assert note.frontmatter["a0"] == ["lol"] * 9
    assert [x.target for x in note.links] == ["Here"]


def test_self_referencing_yaml_is_bounded():
    note = parse_note("---\na: &x [*x]\n---\n", "n.md")
    assert note.warnings[0].endswith("truncated")
    depth, node = 0, note.frontmatter["a"]
    while isinstance(node, list) and node:
        depth, node = depth + 1, node[0]
    assert depth == 20


# --- block ids ----------------------------------------------------------------


def test_block_ids():
    text = ("A paragraph ^para-1\n\n- item one ^item1\n- item two\n\n"
            "line\nmid ^mid\nend\n\n`code ^no`\n\n```\nfenced ^fence\n```\n\nnot^glued\n")
    assert parse_note(text, "n.md").block_ids == ("para-1", "item1", "mid")


# --- chunks -------------------------------------------------------------------


def squash(text: str) -> str:
    return "".join(text.split())


def test_chunks_split_at_headings_with_heading_paths():
    para = " ".join(["word"] * 30)
    text = (f"Preamble {para}\n\n# Plan\n\n{para}\n\n## Week 1\n\n{para}\n\n"
            f"### Day 1\n\n{para}\n\n## Week 2\n\n{para}\n\n# Other\n\n{para}\n")
    chunks = parse_note(text, "n.md").chunks
    assert [(c.ord, c.heading) for c in chunks] == [
        (0, ""), (1, "Plan"), (2, "Plan > Week 1"), (3, "Plan > Week 1 > Day 1"),
        (4, "Plan > Week 2"), (5, "Other"),
    ]
    assert chunks[1].text == f"# Plan\n\n{para}"
    assert squash("".join(c.text for c in chunks)) == squash(text)


def test_heading_only_and_tiny_sections_merge_into_the_next():
    para = " ".join(["word"] * 30)
    text = f"# Project\n## Goals\nShort line.\n## Steps\n\n{para}\n"
    chunks = parse_note(text, "n.md").chunks
    assert chunks == (Chunk(0, "Project > Steps",
                            f"# Project\n## Goals\nShort line.\n## Steps\n\n{para}"),)


def test_tiny_last_section_joins_the_previous_one():
    para = " ".join(["word"] * 30)
    text = f"# Main\n\n{para}\n\n## See also\n[[X]]\n"
    chunks = parse_note(text, "n.md").chunks
    assert chunks == (Chunk(0, "Main", f"# Main\n\n{para}\n\n## See also\n[[X]]"),)


def test_a_tiny_note_is_one_chunk_and_an_empty_body_none():
    assert parse_note("hello", "n.md").chunks == (Chunk(0, "", "hello"),)
    assert parse_note("---\ntitle: x\n---\n  \n\n", "n.md").chunks == ()
    assert parse_note("", "n.md").chunks == ()


def test_long_section_splits_at_paragraphs_within_the_limit():
    paras = [f"Paragraph {i} " + "lorem ipsum " * 20 for i in range(12)]
    text = "# Long\n\n" + "\n\n".join(paras) + "\n"
    chunks = parse_note(text, "n.md", max_chunk_chars=600).chunks
    assert len(chunks) > 3
    assert all(len(c.text) <= 600 for c in chunks)
    assert {c.heading for c in chunks} == {"Long"}
    assert [c.ord for c in chunks] == list(range(len(chunks)))
    assert chunks[0].text.startswith("# Long\n\nParagraph 0 ")
    # each chunk is whole paragraphs
    for chunk in chunks[1:]:
        assert chunk.text.startswith("Paragraph ")
    assert squash("".join(c.text for c in chunks)) == squash(text)


def test_long_list_splits_between_items():
    text = "# Tasks\n\n" + "\n".join(f"- [ ] task number {i} " + "x" * 40 for i in range(60))
    chunks = parse_note(text, "n.md", max_chunk_chars=500).chunks
    assert all(len(c.text) <= 500 for c in chunks)
    assert all(c.text.startswith(("# Tasks", "- [ ] task")) for c in chunks)
    assert squash("".join(c.text for c in chunks)) == squash(text)


def test_huge_paragraph_is_its_own_chunk_but_bounded():
    small = "Small intro paragraph that is long enough to stand on its own as a chunk."
    huge = " ".join(f"w{i}" for i in range(3000))  # ~17,000 chars, one paragraph
    text = f"{small}\n\n{huge}\n\nTail paragraph."
    chunks = parse_note(text, "n.md", max_chunk_chars=1000).chunks
    assert chunks[0].text == small
    assert all(len(c.text) <= 4000 for c in chunks)
    assert sum(len(c.text) > 1000 for c in chunks) >= 4
    assert chunks[-1].text.endswith("Tail paragraph.")
    assert squash("".join(c.text for c in chunks)) == squash(text)


def test_code_fences_are_chunk_content():
    text = "# Code\n\n```python\nprint('[[not a link]]')\n```\n"
    note = parse_note(text, "n.md")
    assert note.links == ()
    assert note.chunks == (Chunk(0, "Code", "# Code\n\n```python\nprint('[[not a link]]')\n```"),)


# --- performance, robustness -------------------------------------------------


def test_two_megabyte_note_parses_completely():
    para = ("Some prose with a [[Link]] and a #tag and `code` and [md](x%20y.md) "
            "that wraps over\nseveral lines of text like a real note would do.\n\n")
    text = "---\ntitle: Big\n---\n" + "## Part\n\n".join([para * 80] * 200)
    assert len(text) > 2_000_000
    note = parse_note(text, "big.md")  # speed is measured by scripts/bench_index.py
    assert len(note.links) == 2 * 80 * 200
    assert all(len(c.text) <= 1200 for c in note.chunks)


def check_sane(note: ParsedNote, path: str) -> None:
    assert isinstance(note, ParsedNote)
    assert note.path == path
    assert isinstance(note.title, str)
    assert all(isinstance(t, str) and t == t.lower() and t for t in note.tags)
    assert list(note.tags) == sorted(set(note.tags))
    assert all(isinstance(a, str) and a for a in note.aliases)
    assert all(x.kind in ("wiki", "embed", "markdown") and x.line >= 1 for x in note.links)
    assert [c.ord for c in note.chunks] == list(range(len(note.chunks)))
    assert all(c.text and c.text == c.text.strip() for c in note.chunks)
    assert isinstance(note.body, str)
    json.dumps(note.frontmatter, allow_nan=False)
    assert all(isinstance(w, str) and "\n" not in w for w in note.warnings)


def test_link_lines_point_at_the_link():
    text = FM + "a\n\n> quote [[Q]]\n> more\n\n1. x\n   - [[Nested]]\n\n| h |\n|---|\n| [[T]] |\n"
    lines = text.split("\n")
    for link in parse_note(text, "n.md").links:
        assert f"[[{link.target}]]" in lines[link.line - 1]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_parses(text):
    check_sane(parse_note(text, "any.md"), "any.md")


MARKDOWNISH = st.text(alphabet=st.sampled_from(list("[]!#|^-:\n `*_>\\ab1é.mdy&{}\r\ufeff")),
                      max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["", "---\n", "---\ntitle: x\n---\n", "\ufeff---\r\n"]), MARKDOWNISH)
def test_markdownish_text_parses(prefix, text):
    note = parse_note(prefix + text, "m.md", max_chunk_chars=40)
    check_sane(note, "m.md")
    lines = (prefix + text).replace("\ufeff", "").replace("\r\n", "\n").replace("\r", "\n")
    assert all(x.line <= lines.count("\n") + 1 for x in note.links)
    assert all(len(c.text) <= 160 for c in note.chunks)


# --- Obsidian comments: %% ... %% --------------------------------------------


def test_links_and_tags_inside_comments_are_not_links_or_tags():
    text = ("See [[A]] %%not [[B]] #hidden%% and [[C]].\n\n%%\n[[D]]\n\n# Not a heading\n"
            "#hidden2\n%%\n[[E]] #shown\n")
    note = parse_note(text, "x.md")
    assert [(link.target, link.line) for link in note.links] == [("A", 1), ("C", 1), ("E", 9)]
    assert note.tags == ("shown",)
    assert note.title == "x"
    assert "[[D]]" in " ".join(c.text for c in note.chunks)  # still searchable text


def test_percent_signs_in_code_do_not_open_a_comment():
    text = ("Wrap text with `%%` to hide it. [[A]]\n\n```md\n%% [[B]]\n```\n\n"
            "A ``code with ` and %%`` span, then [[C]]\n")
    note = parse_note(text, "x.md")
    assert [link.target for link in note.links] == ["A", "C"]


def test_an_unclosed_comment_runs_to_the_end_of_the_note():
    note = parse_note("[[A]] %% open\n[[B]]\n\n[[C]]\n", "x.md")
    assert [link.target for link in note.links] == ["A"]


def test_a_fence_inside_a_comment_is_comment_text():
    note = parse_note("%%\n```\n%%\n[[A]]\n```\n", "x.md")
    assert [link.target for link in note.links] == ["A"]
