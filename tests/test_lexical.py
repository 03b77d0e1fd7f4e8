"""The lexical leg's word choice: common words (Elasticsearch's common-terms rule)."""

from __future__ import annotations

from datetime import datetime

import pytest

from vaultmem import config, lexical
from vaultmem.indexer import index_vault
from vaultmem.store import Store

from .conftest import FakeEmbedder

# Eight notes of one paragraph each: "meeting" is in 6 of 8 chunks, "weekly" in 4 of 8,
# "boiler" and "crème" in one each.
NOTES = {
    "n1.md": "The meeting about the boiler service went well.",
    "n2.md": "A weekly meeting with the team, nothing else.",
    "n3.md": "Weekly meeting notes and action points.",
    "n4.md": "The meeting moved to Thursday.",
    "n5.md": "Weekly review of the garden.",
    "n6.md": "Another meeting, another weekly summary.",
    "n7.md": "Crème brûlée for the dinner party.",
    "n8.md": "Meeting the plumber at the door.",
}


@pytest.fixture
def store(tmp_path):
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text + "\n", encoding="utf-8")
    settings = config.load(tmp_path)
    store = Store.open(settings.db, create=True)
    index_vault(store, settings, FakeEmbedder(), now=datetime(2026, 8, 1))
    yield store
    store.close()


def found(store: Store, query: str) -> set[str]:
    hits = lexical.search(store.db.conn, query)
    owners = store.chunk_notes([cid for cid, _ in hits])
    paths = {i: p for p, i in store.path_ids().items()}
    return {paths[owners[cid]] for cid, _ in hits}


def test_select_words_drops_common_words_when_rarer_ones_are_asked_for():
    df = {"meeting": 60, "weekly": 40, "boiler": 3}
    assert lexical.select_words(["boiler", "meeting"], df, 100) == (["boiler"], [])
    # A word the vocabulary has not seen may match in a form the lookup missed: kept.
    assert lexical.select_words(["meeting", "boiler", "xyzzy"], df, 100) == (
        ["boiler", "xyzzy"], [])
    assert lexical.select_words(["weekly", "meeting"], df, 100) == ([], ["weekly", "meeting"])
    assert lexical.select_words(["weekly", "xyzzy"], df, 100) == (["xyzzy"], ["weekly"])
    # At exactly a third a word still counts as rare.
    assert lexical.select_words(["weekly", "meeting"], {"weekly": 33, "meeting": 60}, 99) == (
        ["weekly"], [])


def test_match_expression_quotes_every_word():
    assert lexical.match_expression(["a b", "c"]) == '"a b" OR "c"'
    assert lexical.match_expression(["x"], ["p", "q"]) == '("p" AND "q") OR "x"'
    assert lexical.match_expression([]) is None


def test_a_common_word_does_not_widen_a_query_with_a_rare_one(store):
    assert found(store, "meeting") == {"n1.md", "n2.md", "n3.md", "n4.md", "n6.md", "n8.md"}
    assert found(store, "boiler meeting") == {"n1.md"}


def test_a_query_of_common_words_only_needs_them_all(store):
    assert found(store, "weekly meeting") == {"n2.md", "n3.md", "n6.md"}
    # An unknown word is still asked for, so it cannot empty the common words' answer.
    assert found(store, "weekly meeting xyzzy") == {"n2.md", "n3.md", "n6.md"}


def test_the_vocabulary_lookup_folds_diacritics_as_the_tokenizer_does(store):
    assert found(store, "creme") == found(store, "Crème") == {"n7.md"}
    assert found(store, "crème meeting") == {"n7.md"}  # crème is rare, so meeting is dropped
