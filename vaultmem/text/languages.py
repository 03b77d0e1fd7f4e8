"""The language a note is written in, for `status` and `index`: is the vault multilingual?
And whether a query is in English, for the multilingual option's choice of model.

Pure text: the script a text is written in, else the common words it uses; no model.
"""

from __future__ import annotations

import re

from .words import SEARCH_STOP, TOKEN

# Scripts that name their language (Han alone: Chinese; with kana: Japanese).
_SCRIPTS = (("ja", re.compile(r"[\u3040-\u30ff]")), ("ko", re.compile(r"[\uac00-\ud7af]")),
            ("zh", re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")),
            ("ru", re.compile(r"[\u0400-\u04ff]")), ("el", re.compile(r"[\u0370-\u03ff]")),
            ("ar", re.compile(r"[\u0600-\u06ff]")), ("he", re.compile(r"[\u0590-\u05ff]")),
            ("hi", re.compile(r"[\u0900-\u097f]")), ("th", re.compile(r"[\u0e00-\u0e7f]")))
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
# The commonest function words of each language written in Latin letters: a note's
# language is the one whose words it uses most. Words shared by two languages count for
# both; the margin below keeps such a note undetermined rather than guessed.
_FUNCTION_WORDS = {
    "en": "the and of to is in that it for with as was on are this be have not you".split(),
    "de": "der die das und ist nicht ich mit sie auf für den ein eine dem zu auch sich".split(),
    "fr": "le la les et est des une du que pour dans pas qui sur avec ce il au sont".split(),
    "es": "el la los las y es que una por para con del se no las como pero más".split(),
    "pt": "o os as e é que uma um para com não do da em no na se por mais".split(),
    "it": "il lo gli la le e è che una per con non del della di un sono anche".split(),
    "nl": "de het een en is van dat niet op te met voor zijn er maar ook bij".split(),
}
_WORD_SETS = {lang: frozenset(words) for lang, words in _FUNCTION_WORDS.items()}
MIN_WORDS = 20  # a shorter text is too little to tell its language by


def language(text: str) -> str | None:
    """The language `text` is mostly written in, as a two-letter code, or None when it
    is too short or too mixed to tell. By script for scripts that name one language,
    else by the function words it uses (no model: a count of common words)."""
    latin = len(_LATIN.findall(text))
    scripts = {lang: len(pattern.findall(text)) for lang, pattern in _SCRIPTS}
    if scripts["ja"]:  # kana beside Han: Japanese
        scripts["ja"] += scripts.pop("zh")
    lang, count = max(scripts.items(), key=lambda kv: kv[1])
    if count >= 10 and count >= latin / 4:  # 4 Latin letters make about one CJK character
        return lang
    words = TOKEN.findall(text.lower())
    if len(words) < MIN_WORDS:
        return None
    hits = sorted(((sum(w in vocab for w in words), lang) for lang, vocab in _WORD_SETS.items()),
                  reverse=True)
    (best, lang), (second, _) = hits[0], hits[1]
    return lang if best >= 3 and best >= 1.5 * second else None


def looks_multilingual(counts: dict[str, int]) -> bool:
    """Notes in two or more languages, each held by at least 3 notes and 2% of the notes
    whose language could be told: too many to be a quotation or two."""
    told = sum(n for lang, n in counts.items() if lang)
    return sum(1 for lang, n in counts.items() if lang and n >= max(3, 0.02 * told)) >= 2


# A short query has too few function words for `language`: it is told by its script,
# then by the function and question words it holds, of English and of each language
# above, a word written with a letter English does not use (é, ã, ß, ...) counting as one
# more word of another language. Words shared by English and another language count for
# both. Nothing pointing elsewhere (a query of keywords, of names): English.
_ENGLISH_QUERY = SEARCH_STOP | frozenset(
    "where when why whose there have has had was get use using make set show find any all "
    "".split())
_QUESTION_WORDS = {
    "de": ("was wie wo welche welcher welches wann warum ich mein meine kann gibt wir noch ohne "
           "dass beim bei hat das aus nach über wird sind zum zur vom einen einem").split(),
    "fr": "comment quoi où quel quelle quels quand pourquoi je mon ma mes peut faire".split(),
    "es": "cómo qué dónde cuál cuándo por qué mi mis puedo está están tengo".split(),
    "pt": "como onde qual quando quem porque meu minha foi está estão tem isso posso".split(),
    "it": "dove quale quando chi perché mio mia posso sono".split(),
    "nl": "hoe wat waar welke wanneer waarom ik mijn kan".split(),
}
_QUERY_WORDS = {lang: frozenset(words) | frozenset(_QUESTION_WORDS[lang])
                for lang, words in _FUNCTION_WORDS.items() if lang != "en"}
NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "pt": "Portuguese",
         "it": "Italian", "nl": "Dutch", "ja": "Japanese", "ko": "Korean", "zh": "Chinese",
         "ru": "Russian", "el": "Greek", "ar": "Arabic", "he": "Hebrew", "hi": "Hindi",
         "th": "Thai"}
_FOREIGN_LETTER = re.compile(r"[\u00c0-\u024f]")


def query_language(text: str) -> tuple[str, str]:
    """(language, why) of a query, however short: a two-letter code ("en" when nothing
    points to another language) and the evidence, in words. Scripts first (`language`'s),
    then words: another language's function words and words written with letters English
    does not use must outnumber English's function words (or, with such a letter, equal
    them)."""
    latin = len(_LATIN.findall(text))
    scripts = {lang: len(pattern.findall(text)) for lang, pattern in _SCRIPTS}
    if scripts["ja"]:
        scripts["ja"] += scripts.pop("zh")
    lang, count = max(scripts.items(), key=lambda kv: kv[1])
    if count and count * 4 >= latin:  # about one CJK character to 4 Latin letters
        return lang, "script"
    words = TOKEN.findall(text.lower())
    english = sum(w in _ENGLISH_QUERY for w in words)
    accented = sum(bool(_FOREIGN_LETTER.search(w)) for w in words)
    best, lang = max((sum(w in vocab for w in words), lang) for lang, vocab in _QUERY_WORDS.items())
    if best + accented > english or (accented and best + accented == english):
        return (lang, "words") if best else ("", "letters")  # letters alone name no language
    return "en", "words" if english else "no words of another language"
