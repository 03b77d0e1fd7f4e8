"""The lexical leg: SQLite FTS5 (BM25) over chunk text, titles, aliases and headings.

The tokenizer is FTS5's `unicode61` with diacritics removed (so "creme" finds
"crème"). Scripts written without spaces (Chinese, Japanese, Korean) would be one
giant token each, so runs of those characters are rewritten as overlapping
character bigrams, at index and at query time alike.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata

from ..text.words import SEARCH_STOP, TOKEN

# Han, Hiragana, Katakana, Hangul (and their common extension blocks).
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
# Column weights for bm25(): title, aliases, headings, body.
WEIGHTS = (6.0, 4.0, 2.0, 1.0)
# A word in more than this share of the chunks, and in at least COMMON_MIN of them, is
# common (see select_words): below that, scoring it costs little.
COMMON = 1 / 3
COMMON_MIN = 1000


def bigrams(text: str) -> str:
    """'京都旅行' -> '京都 都旅 旅行'; other text unchanged."""
    def split(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + " "
    return _CJK.sub(split, text)


def fts_row(chunk_id: int, title: str, aliases: list[str], heading: str, text: str) -> tuple:
    return (chunk_id, bigrams(title), bigrams(" ".join(aliases)), bigrams(heading),
            bigrams(text))


def _fold(word: str) -> str | None:
    """A word as the tokenizer stores it (lower case, Latin accents removed), or None
    when this cannot tell: letters such as full-width forms, ligatures or Cyrillic й
    fold differently in `unicode61`, and a wrong guess could hit another word."""
    out = []
    for char in word.lower():
        if char.isascii() or unicodedata.decomposition(char) == "":
            out.append(char)
            continue
        base = unicodedata.normalize("NFD", char)
        if not (base[0].isascii() and all(unicodedata.combining(c) for c in base[1:])):
            return None
        out.append(base[0])
    return "".join(out)


def query_words(query: str) -> list[str]:
    """The query's distinct words (stop words dropped, unless that leaves none), at most 32."""
    words = [w for w in TOKEN.findall(bigrams(query).lower()) if w not in SEARCH_STOP]
    if not words:
        words = TOKEN.findall(bigrams(query).lower())
    return list(dict.fromkeys(words))[:32]


def match_expression(words: list[str], all_of: list[str] = ()) -> str | None:
    """An FTS5 query: any of `words`, or all of `all_of`; each word quoted."""
    parts = [f'"{w}"' for w in words]
    if all_of:
        parts.insert(0, "(" + " AND ".join(f'"{w}"' for w in all_of) + ")")
    return " OR ".join(parts) or None


def select_words(words: list[str], df: dict[str, int], total: int) -> tuple[list, list]:
    """(any of, all of): the words to match, after Elasticsearch's common-terms query.

    A word found in more than COMMON of the chunks, and in at least COMMON_MIN of them,
    says little about which chunk is meant (its BM25 weight log((N − n + ½)/(n + ½)) is
    below log 2) yet makes FTS5 score every chunk it is in: on a vault where each word
    of a query is in half the chunks, that is most of a query's time. So when the query
    has other words the common ones are dropped, and when every word it has is common a
    chunk must have them all. Unlike Elasticsearch, a dropped word no longer adds to the
    score of the chunks found. Words the vocabulary lookup missed (in no chunk, or not
    folded here) stay as they are: any of them may match.
    """
    def common(word: str) -> bool:
        n = df.get(_fold(word) or "", 0)
        return n >= COMMON_MIN and n > COMMON * total

    kept = [w for w in words if not common(w)]
    if any(_fold(w) in df for w in kept):
        return kept, []
    return kept, [w for w in words if common(w)]


def search(conn: sqlite3.Connection, query: str, total: int,
           limit: int = 300) -> list[tuple[int, float]]:
    """(chunk id, bm25) best first; bm25 is negative, lower is better.

    `total` is the number of chunks in the index (the live ones).
    """
    words = query_words(query)
    if not words:
        return []
    df: dict[str, int] = {}
    if total >= COMMON_MIN:  # else no word can be common: skip the lookups
        try:
            df = _frequencies(conn, words)
        except sqlite3.OperationalError:  # no fts5vocab in this SQLite: every word is asked for
            pass
    any_of, all_of = select_words(words, df, total)
    hits = _bm25(conn, match_expression(any_of, all_of), limit)
    if not hits and all_of:  # the common words never meet: any of them will do
        hits = _bm25(conn, match_expression(words), limit)
    return hits


def coverage(conn: sqlite3.Connection, query: str, chunk_ids: list[int]) -> dict[int, float]:
    """{chunk id: the share of the query's words that chunk holds}, over its title,
    aliases, heading and body as the index stores them.

    BM25 ranks whatever matches any word, so a long question finds chunks that share
    only its everyday words with it; this share tells strong lexical evidence (every
    word of "katex math rendering" in one chunk) from weak (three words of twelve).
    """
    words = {_fold_text(w) for w in query_words(query)}
    out: dict[int, float] = {}
    if not words:
        return out
    for start in range(0, len(chunk_ids), 500):
        part = chunk_ids[start:start + 500]
        rows = conn.execute("SELECT rowid, title, aliases, heading, body FROM chunks_fts "
                            f"WHERE rowid IN ({','.join('?' * len(part))})", part)
        for rowid, *columns in rows:
            found = words.intersection(TOKEN.findall(_fold_text(" ".join(filter(None, columns)))))
            out[rowid] = len(found) / len(words)
    return out


_MARKS = re.compile("[\u0300-\u036f]")  # combining diacritical marks


def _fold_text(text: str) -> str:
    """Lower case without Latin accents (unicode61's remove_diacritics, near enough)."""
    text = text.lower()
    return text if text.isascii() else _MARKS.sub("", unicodedata.normalize("NFD", text))


def _bm25(conn: sqlite3.Connection, expression: str | None, limit: int) -> list:
    if not expression:
        return []
    weights = ", ".join(str(w) for w in WEIGHTS)
    try:
        return conn.execute(
            f"SELECT rowid, bm25(chunks_fts, {weights}) AS s FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?", [expression, limit]).fetchall()
    except sqlite3.OperationalError:
        return []  # a query FTS5 cannot parse finds nothing lexically; dense still answers


def holds_none(conn: sqlite3.Connection, query: str) -> bool:
    """Whether no chunk holds any of the query's words (stop words aside; a word whose
    stored form this cannot tell counts as held): words of another language than the
    vault's, for the multilingual option's choice of model."""
    # unicode61 cuts "nav_order" in two: look each part up as it is stored.
    words = [part for word in query_words(query) for part in word.split("_") if part]
    if not words or not all(_fold(w) for w in words):
        return False
    try:
        return not _frequencies(conn, words)
    except sqlite3.OperationalError:  # no fts5vocab in this SQLite: it cannot tell, so held
        return False


def _frequencies(conn: sqlite3.Connection, words: list[str]) -> dict[str, int]:
    """{folded word: chunks containing it}, from FTS5's own vocabulary."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab "
                 "USING fts5vocab(main, chunks_fts, row)")
    df = {}
    for term in dict.fromkeys(f for f in map(_fold, words) if f):
        # One `term = ?` lookup each: with `IN (...)` fts5vocab walks every term between.
        row = conn.execute("SELECT doc FROM temp.chunks_vocab WHERE term = ?", [term]).fetchone()
        if row:
            df[term] = row[0]
    return df


def stem_frequencies(conn: sqlite3.Connection, stems: dict[str, str],
                     stem_of) -> dict[str, int]:
    """{stem: chunks holding a word with that stem}, for the trigger matcher's weights.

    `stems`: {stem: a word it came from}; `stem_of`: the stemmer. FTS5 stores words, not
    stems, so the vocabulary is read from the stem (a prefix of its words, for Snowball's
    English stems) to the word's own next prefix, and the words whose stem it is are
    summed (a chunk with two forms counts twice: an upper bound, close enough for a
    weight). A stem that is no prefix of its word is looked up as that word.
    """
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab "
                 "USING fts5vocab(main, chunks_fts, row)")
    out = {}
    for stem, word in stems.items():
        folded = _fold(word) or word.lower()
        base = stem if folded.startswith(stem) else folded
        rows = conn.execute("SELECT term, doc FROM temp.chunks_vocab WHERE term >= ? AND "
                            "term < ?", [base, base + "\uffff"]).fetchall()
        out[stem] = sum(doc for term, doc in rows if term == folded or stem_of(term) == stem)
    return out
