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


def test_a_stem_begins_with_its_words_first_letter():
    """What lets the snippet stem only the words that could match (`snippet._stems`):
    over every word of the model's vocabulary, the stem keeps the word's first letter."""
    import json
    from importlib import resources

    from vaultmem.text.words import WORD
    from vaultmem.trigger import stem

    vocab = json.loads(resources.files("vaultmem").joinpath("model", "tokenizer.json")
                       .read_text(encoding="utf-8"))["model"]["vocab"]
    words = [w for w in vocab if WORD.fullmatch(w)] + ["dying", "skies", "Ünïcode", "y'all"]
    assert len(words) > 20_000
    assert [w for w in words if stem(w.lower())[:1] != w.lower()[:1]] == []


def test_the_window_is_the_one_stemming_every_word_finds(monkeypatch):
    """Stemming only the words whose first letter may match finds the window stemming
    every word finds (the earlier code)."""
    from vaultmem import snippet as module

    texts = [LONG, LONG.replace("thermostatic", "Thermostatically"), "Yearly yard " * 60]
    queries = ["thermostatic cartridge replacement", "the plumbers replaced valves",
               "yards yearly", "Guests gone"]
    fast = [snippet(t, q) for t in texts for q in queries]
    monkeypatch.setattr(module, "_stems", lambda flat, initials: zip(
        list(module.WORD.finditer(flat)),
        module.stem_words([m.group(0).lower() for m in module.WORD.finditer(flat)]),
        strict=True))
    assert [snippet(t, q) for t in texts for q in queries] == fast
