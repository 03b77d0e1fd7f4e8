"""Which language each note is written in, and `index` / `status` saying when a vault is
multilingual and that a multilingual model exists."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from typer.testing import CliRunner

from vaultmem import config
from vaultmem.embed import PerLanguage, for_query, multilingual_advice, parts_of
from vaultmem.indexer import index_vault
from vaultmem.interfaces.cli import app
from vaultmem.store import Store, runs, vectors
from vaultmem.text import languages

from .conftest import FakeEmbedder

NOW = datetime(2026, 8, 1)
ENGLISH = ("We walked along the river in the morning and it was cold, but the light on the "
           "water was lovely and we stopped for coffee with the dog at the little cafe by the "
           "bridge before the rain came in.")
GERMAN = ("Wir sind am Morgen an der Elbe entlang gelaufen und es war kalt, aber das Licht auf "
          "dem Wasser war schön und wir haben mit dem Hund im kleinen Café an der Brücke einen "
          "Kaffee getrunken, bevor der Regen kam.")
FRENCH = ("Nous avons marché le long de la Seine le matin et il faisait froid, mais la lumière "
          "sur l'eau était belle et nous avons pris un café avec le chien dans le petit café "
          "près du pont avant la pluie.")
JAPANESE = ("朝、川沿いを散歩しました。寒かったけれど、水面の光がきれいで、"
            "橋のそばの小さなカフェで犬と一緒にコーヒーを飲みました。")


@pytest.mark.parametrize(("text", "lang"), [
    (ENGLISH, "en"), (GERMAN, "de"), (FRENCH, "fr"), (JAPANESE, "ja"),
    ("京都的寺庙和花园很美，我们在那里住了三天，每天都去不同的地方参观。", "zh"),
    ("Мы гуляли вдоль реки утром, было холодно, но свет на воде был красивым.", "ru"),
    ("Plant tomatoes.", None),  # too short to tell
    ("```python\nx = 1\n```", None),
])
def test_a_notes_language_is_told_by_its_script_or_its_common_words(text, lang):
    assert languages.language(text) == lang


def test_a_vault_is_multilingual_when_two_languages_each_hold_enough_notes():
    assert languages.looks_multilingual({"en": 150, "de": 4, "": 20})
    assert not languages.looks_multilingual({"en": 150, "de": 2})  # a quotation or two
    assert not languages.looks_multilingual({"en": 500, "nl": 3})  # under 2% of the notes
    assert not languages.looks_multilingual({"en": 40, "": 400})


def test_the_advice_names_the_languages_and_is_silent_under_a_multilingual_model(tmp_path):
    counts = {"en": 30, "de": 5, "ja": 4, "": 2}
    advice = multilingual_advice(counts, config.load(tmp_path))
    assert "en 30, de 5, ja 4" in advice and "vaultmem[multilingual]" in advice
    assert 'model = "multilingual-e5-small"' in advice
    assert multilingual_advice(counts, config.load(tmp_path, model="multilingual-e5-small")) \
        is None
    assert multilingual_advice({"en": 30}, config.load(tmp_path)) is None


FILES = {**{f"walks/en{i}.md": f"# Walk {i}\n{ENGLISH}\n" for i in range(4)},
         **{f"walks/de{i}.md": f"# Spaziergang {i}\n{GERMAN}\n" for i in range(3)},
         "todo.md": "# Todo\nPlant tomatoes.\n"}


def test_index_and_status_say_the_vault_is_multilingual(make_vault, fake_model):
    vault = make_vault(FILES)
    runner = CliRunner()
    out = runner.invoke(app, ["index", "--vault", str(vault.settings.vault), "--json",
                              "--now", "2026-08-01"])
    doc = json.loads(out.stdout)
    assert doc["languages"] == {"en": 4, "de": 3, "": 1}
    assert "en 4, de 3" in doc["multilingual"]
    out = runner.invoke(app, ["index", "--vault", str(vault.settings.vault)])
    assert "vaultmem[multilingual]" in out.stderr  # the no-op run says it too
    status = json.loads(runner.invoke(app, ["status", "--vault", str(vault.settings.vault),
                                            "--json"]).stdout)
    assert status["languages"] == doc["languages"]
    assert status["multilingual"] == doc["multilingual"]
    text = runner.invoke(app, ["status", "--vault", str(vault.settings.vault)]).stdout
    assert "multilingual" in text and "vaultmem[multilingual]" in text


def test_a_store_made_before_notes_had_a_language_fills_it_without_reparsing(make_vault):
    """As after migration m013: no language stored, and (a migration was applied) no
    settled record of the last run."""
    vault = make_vault(FILES, index_at=NOW)
    with vault.store.atomic():
        vault.store.execute("UPDATE notes SET lang = NULL")
        vault.store.set_meta(runs.SETTLED, "")
    report = vault.index(now=NOW)
    assert (report.reparsed, report.modified, report.embedded) == (0, 0, 0)
    assert report.languages == {"en": 4, "de": 3, "": 1}
    assert vault.store.execute("SELECT count(*) FROM notes WHERE lang IS NULL").fetchone() == (0,)


# -- a query's language: which model ranks it under the multilingual option -------------

@pytest.mark.parametrize(("query", "lang"), [
    ("how do I rename a note without breaking its links", "en"),
    ("what did the plumber say about the boiler", "en"),
    ("git rebase --onto", "en"),  # keywords and names: nothing points elsewhere
    ("sourdough hydration schedule", "en"),
    ("¿cómo cambio el nombre de una nota?", "es"),
    ("Wann ist der nächste Termin beim Zahnarzt?", "de"),
    ("comment faire une tarte aux pommes", "fr"),
    ("quanto custou a viagem para o Porto?", "pt"),
    ("Rechnung für die Heizung", "de"),  # ü: a letter English does not use, and "die"
    ("タグの使い方", "ja"),
    ("如何在笔记中嵌入图片", "zh"),
    ("как переименовать заметку", "ru"),
])
def test_a_querys_language_is_told_by_its_script_and_its_function_words(query, lang):
    assert languages.query_language(query)[0] == lang


def test_the_multilingual_option_ranks_english_queries_with_the_default_model():
    english, other = FakeEmbedder(), FakeEmbedder()
    other.fingerprint = "other|model|r1"
    pair = PerLanguage(other, lambda: english)
    chosen, why = for_query(pair, "how do I rename a note")
    assert chosen is english and why.language == "en" and "English" in why.why
    chosen, why = for_query(pair, "¿cómo cambio el nombre de una nota?")
    assert chosen is other and why.language == "es" and "Spanish" in why.why
    assert for_query(english, "¿cómo cambio el nombre?")[0] is english  # one model: no choice
    # No function word shows the language of "Umgebungsvariable auslesen"; the vault
    # holding none of its words does.
    chosen, why = for_query(pair, "Umgebungsvariable auslesen", lambda text: True)
    assert chosen is other and why.language is None and "no word of the query" in why.why
    assert for_query(pair, "rename a note", lambda text: False)[0] is english
    # Everything but a query's ranking reads the configured (multilingual) model.
    assert pair.fingerprint == other.fingerprint and parts_of(pair) == (english, other)


def test_the_option_indexes_both_models_and_a_switch_embeds_only_the_missing_one(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in (("a", "Plant tomatoes."), ("b", "The MOT is due."), ("c", "Crown.")):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{text}\n")
    settings = config.load(vault)
    store = Store.open(settings.db, create=True, vault=settings.vault)
    english, other = FakeEmbedder(), FakeEmbedder()
    other.fingerprint = "other|model|r1"
    assert index_vault(store, settings, english, now=NOW).embedded == 3
    pair = PerLanguage(other, lambda: english)
    assert index_vault(store, settings, pair, now=NOW).embedded == 3  # the other model's only
    assert (english.embedded, other.embedded) == (3, 3)
    assert index_vault(store, settings, pair, now=NOW).embedded == 0
    assert vectors.counts_by_fingerprint(store) == {english.fingerprint: 3, other.fingerprint: 3}
    assert store.holds_none_of("Umgebungsvariable auslesen")
    assert not store.holds_none_of("when do I plant the tomatoes")
    assert not store.holds_none_of("plant_tomatoes")  # stored as two words


def test_the_vault_words_check_without_fts5vocab_says_held(monkeypatch):
    # A SQLite built without fts5vocab cannot tell which words the vault holds: the query
    # keeps the default model, as it would without the option. (Failed before: the
    # OperationalError stopped the query.)
    import sqlite3

    from vaultmem.store import fts

    def no_vocab(conn, words):
        raise sqlite3.OperationalError("no such module: fts5vocab")

    monkeypatch.setattr(fts, "_frequencies", no_vocab)
    assert not fts.holds_none(sqlite3.connect(":memory:"), "Umgebungsvariable auslesen")


def test_the_choice_names_the_evidence_it_used():
    """A query told from English only by a letter English does not use says so, not
    that its common words showed it."""
    english, other = FakeEmbedder(), FakeEmbedder()
    other.fingerprint = "other|model|r1"
    pair = PerLanguage(other, lambda: english)
    assert languages.query_language("Straße Zürich") == ("", "letters")
    chosen, why = for_query(pair, "Straße Zürich")
    assert chosen is other and "letters English does not use" in why.why
    assert "common words" not in why.why
    assert "common words" in for_query(pair, "wo ist mein Pass")[1].why
