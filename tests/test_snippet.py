"""The passage shown with a result: plain words, around the query's words."""

from __future__ import annotations

import pytest

from vaultmem.snippet import plain, snippet


@pytest.mark.parametrize("markdown, shown", [
    ("## Costs\nTracked on the house [[projects/house/Budget|budget]] under **Bathroom**.",
     "Costs Tracked on the house budget under Bathroom."),
    ("- [ ] Call [[Tomasz]] about the *valve* ^c-valve", "Call Tomasz about the valve"),
    ("See [the guide](https://example.org/x) and ![[diagram.png]] `code` here",
     "See the guide and diagram.png code here"),
    ("> quoted %% hidden %% line <!-- gone -->\n---\n| a | b |\n|---|---|",
     "quoted line a · b;"),
    ("| Pair | km |\n|---|--:|\n| Grey | 612 |\n| [[Race\\|race]] | 74 |\nAfter.",
     "Pair · km; Grey · 612; race · 74; After."),  # a table reads row by row
    ("snake_case_name and 2*3*4 stay", "snake_case_name and 2*3*4 stay"),
])
def test_plain_keeps_the_words_markdown_shows(markdown, shown):
    assert plain(markdown) == shown


LONG = ("# Bathroom\n\nThe upstairs shower is a bar-mixer valve fitted around 2009. " +
        "Filler sentence about paint and tiles and grout. " * 12 +
        "The thermostatic cartridge failed again, so the plumber will replace the valve "
        "when the guests are gone. " + "More filler about the loft insulation. " * 8)


def test_the_window_holds_the_most_query_words():
    shown = snippet(LONG, "thermostatic cartridge replacement")
    assert shown.startswith("…") and shown.endswith("…")
    assert "thermostatic cartridge failed" in shown
    assert len(shown) <= 240


def test_without_a_matching_word_the_passage_starts_at_the_beginning():
    shown = snippet(LONG, "elephants")
    assert shown.startswith("Bathroom The upstairs shower") and shown.endswith("…")


def test_short_text_is_shown_whole():
    assert snippet("**Short** note.", "note") == "Short note."
