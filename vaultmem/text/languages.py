"""The language a note is written in, for `status` and `index`: is the vault multilingual?

Pure text: the script a text is written in, else the common words it uses; no model.
"""

from __future__ import annotations

import re

from .words import TOKEN

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
