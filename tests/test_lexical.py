"""The lexical leg's word choice: common words (Elasticsearch's common-terms rule)."""

from __future__ import annotations

from datetime import datetime

import pytest

from vaultmem.store import Store
from vaultmem.store import fts as lexical

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
def vault(make_vault):
    return make_vault({name: text + "\n" for name, text in NOTES.items()},
                      index_at=datetime(2026, 8, 1))


@pytest.fixture
def store(vault):
    return vault.store


@pytest.fixture
def small_common(monkeypatch):
    """Let the rule apply to this eight-note vault (it needs 1,000 chunks by default)."""
    monkeypatch.setattr(lexical, "COMMON_MIN", 1)


def found(store: Store, query: str) -> set[str]:
    live = store.execute("SELECT count(*) FROM chunks c JOIN notes n ON n.id = c.note_id "
                         "WHERE n.deleted = 0").fetchone()[0]
    hits = lexical.search(store.conn, query, live)
    owners = store.chunk_notes([cid for cid, _ in hits])
    paths = {i: p for p, i in store.path_ids().items()}
    return {paths[owners[cid]] for cid, _ in hits}


MEETING = {"n1.md", "n2.md", "n3.md", "n4.md", "n6.md", "n8.md"}


def test_select_words_drops_common_words_when_others_are_asked_for():
    df = {"meeting": 6000, "weekly": 4000, "boiler": 30}
    assert lexical.select_words(["boiler", "meeting"], df, 10000) == (["boiler"], [])
    # A word the vocabulary has not seen may match in a form the lookup missed: kept,
    # but alone it does not make the common words optional.
    assert lexical.select_words(["meeting", "boiler", "xyzzy"], df, 10000) == (
        ["boiler", "xyzzy"], [])
    assert lexical.select_words(["weekly", "meeting"], df, 10000) == (
        [], ["weekly", "meeting"])
    assert lexical.select_words(["weekly", "xyzzy"], df, 10000) == (["xyzzy"], ["weekly"])
    # At exactly a third a word is not common; nor is one in fewer than COMMON_MIN chunks.
    assert lexical.select_words(["weekly", "meeting"], {"weekly": 3300, "meeting": 6000},
                                9900) == (["weekly"], [])
    assert lexical.select_words(["weekly", "meeting"], {"weekly": 40, "meeting": 60},
                                100) == (["weekly", "meeting"], [])


def test_match_expression_quotes_every_word():
    assert lexical.match_expression(["a b", "c"]) == '"a b" OR "c"'
    assert lexical.match_expression(["x"], ["p", "q"]) == '("p" AND "q") OR "x"'
    assert lexical.match_expression([]) is None


def test_fold_only_guesses_where_it_agrees_with_the_tokenizer():
    assert lexical._fold("Crème") == "creme"
    assert lexical._fold("Ångström") == "angstrom"
    assert lexical._fold("京都") == "京都"
    # Full-width letters, ligatures, Cyrillic й and Greek accents fold differently in
    # unicode61: unknown, so such a word is always asked for as it is.
    assert [lexical._fold(w) for w in ("ｐｙｔｈｏｎ", "ﬁle", "мой", "ά")] == [None] * 4


def test_a_small_vault_keeps_every_word(store):
    assert found(store, "boiler meeting") == MEETING


def test_a_common_word_does_not_widen_a_query_with_a_rarer_one(store, small_common):
    assert found(store, "meeting") == MEETING
    assert found(store, "boiler meeting") == {"n1.md"}


def test_a_query_of_common_words_only_needs_them_all(store, small_common):
    assert found(store, "weekly meeting") == {"n2.md", "n3.md", "n6.md"}
    # An unknown word is still asked for, so it cannot empty the common words' answer.
    assert found(store, "weekly meeting xyzzy") == {"n2.md", "n3.md", "n6.md"}


def test_common_words_that_never_meet_fall_back_to_any_of_them(store, small_common,
                                                             monkeypatch):
    # Make "weekly" and "meeting" never meet, and both common (in over a tenth).
    for name in ("n2.md", "n3.md", "n6.md"):
        store.drop_from_search(store.path_ids()[name])
    monkeypatch.setattr(lexical, "COMMON", 0.1)
    assert found(store, "weekly meeting") == {"n1.md", "n4.md", "n5.md", "n8.md"}


def test_a_deleted_notes_words_do_not_count(vault, small_common):
    store = vault.store
    (vault.settings.vault / "n1.md").unlink()  # the only boiler note
    vault.index(now=datetime(2026, 8, 2))
    # Were its chunk still indexed, "boiler" would count as a rare word and push out
    # "meeting", leaving nothing live to find.
    assert found(store, "boiler meeting") == MEETING - {"n1.md"}


def test_the_vocabulary_lookup_folds_diacritics_as_the_tokenizer_does(store, small_common):
    assert found(store, "creme") == found(store, "Crème") == {"n7.md"}
    assert found(store, "crème meeting") == {"n7.md"}  # crème is rare, so meeting is dropped


def test_upgrading_takes_deleted_notes_out_of_the_search_index(vault):
    settings, store = vault.settings, vault.store
    (settings.vault / "n1.md").unlink()
    vault.index(now=datetime(2026, 8, 2))
    gone = store.path_ids().get("n1.md") is None
    n1 = store.execute("SELECT id FROM notes WHERE path = 'n1.md'").fetchone()[0]
    chunk = store.execute("SELECT id, text FROM chunks WHERE note_id = ?", [n1]).fetchone()
    # A store from before m007 still has the deleted note's chunk in the index.
    with store.conn:
        store.execute("INSERT INTO chunks_fts (rowid, body) VALUES (?, ?)", list(chunk))
        store.execute("DELETE FROM _migrations WHERE name = 'm007_search_index_holds_live_notes'")
    store.close()
    store = Store.open(settings.db)
    indexed = store.execute("SELECT count(*) FROM chunks_fts WHERE rowid = ?", [chunk[0]])
    assert gone and indexed.fetchone()[0] == 0
    assert store.execute("SELECT count(*) FROM chunks WHERE id = ?", [chunk[0]]).fetchone()[0]
    store.close()


def coverage_by_path(store: Store, query: str) -> dict[str, float]:
    chunks = dict(store.execute("SELECT c.id, n.path FROM chunks c JOIN notes n "
                                "ON n.id = c.note_id WHERE n.deleted = 0").fetchall())
    shares = lexical.coverage(store.conn, query, list(chunks))
    return {chunks[cid]: share for cid, share in shares.items()}


def test_coverage_is_the_share_of_the_query_words_a_chunk_holds(store):
    shares = coverage_by_path(store, "the boiler meeting")  # "the" is a stop word
    assert shares["n1.md"] == 1.0
    assert shares["n2.md"] == 0.5
    assert shares["n5.md"] == 0.0


def test_coverage_reads_titles_and_folds_accents_like_the_search(store):
    # The title column counts (a note's title is its file name here: "n7").
    assert coverage_by_path(store, "CREME brulee n7")["n7.md"] == 1.0
    assert coverage_by_path(store, "creme n7 plumber")["n7.md"] == pytest.approx(2 / 3)


def test_coverage_of_nothing_is_empty(store):
    assert lexical.coverage(store.conn, "!!!", [1, 2]) == {}
    assert lexical.coverage(store.conn, "boiler", []) == {}
