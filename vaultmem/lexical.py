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

# Han, Hiragana, Katakana, Hangul (and their common extension blocks).
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_TOKEN = re.compile(r"\w+", re.UNICODE)
# Column weights for bm25(): title, aliases, headings, body.
WEIGHTS = (6.0, 4.0, 2.0, 1.0)
# A word in more than this share of the chunks is common (see select_words).
COMMON = 1 / 3
STOP = frozenset("""a an the and or of to in on at by for with from is are was were be been
it its this that these those i me my we our you your he she they them what which who how
do does did can could should would will just about into than then so if not no""".split())


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


def _fold(word: str) -> str:
    """A word as the tokenizer stores it: lower case, diacritics removed."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def query_words(query: str) -> list[str]:
    """The query's distinct words (stop words dropped, unless that leaves none), at most 32."""
    words = [w for w in _TOKEN.findall(bigrams(query).lower()) if w not in STOP]
    if not words:
        words = _TOKEN.findall(bigrams(query).lower())
    return list(dict.fromkeys(words))[:32]


def match_expression(words: list[str], all_of: list[str] = ()) -> str | None:
    """An FTS5 query: any of `words`, or all of `all_of`; each word quoted."""
    parts = [f'"{w}"' for w in words]
    if all_of:
        parts.insert(0, "(" + " AND ".join(f'"{w}"' for w in all_of) + ")")
    return " OR ".join(parts) or None


def select_words(words: list[str], df: dict[str, int], total: int) -> tuple[list, list]:
    """(any of, all of): the words to match, after Elasticsearch's common-terms query.

    A word found in more than COMMON of the chunks says little about which chunk is
    meant (its BM25 weight log((N − n + ½)/(n + ½)) is below log 2) yet makes FTS5
    score every chunk it is in: on a vault where each word of a query is in half the
    chunks, that is most of a query's time. So when the query has rarer words the
    common ones are dropped, and when every word it has is common a chunk must have
    them all. Words the vocabulary lookup missed (in no chunk, or folded differently
    from FTS5's tokenizer) stay as they are: any of them may match.
    """
    known = [w for w in words if _fold(w) in df]
    unknown = [w for w in words if _fold(w) not in df]
    rare = [w for w in known if df[_fold(w)] <= COMMON * total]
    if rare:
        return rare + unknown, []
    return unknown, known


def search(conn: sqlite3.Connection, query: str, limit: int = 300) -> list[tuple[int, float]]:
    """(chunk id, bm25) best first; bm25 is negative, lower is better."""
    words = query_words(query)
    if not words:
        return []
    try:
        df, total = _frequencies(conn, words)
        expression = match_expression(*select_words(words, df, total))
        weights = ", ".join(str(w) for w in WEIGHTS)
        return conn.execute(
            f"SELECT rowid, bm25(chunks_fts, {weights}) AS s FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?", [expression, limit]).fetchall()
    except sqlite3.OperationalError:
        return []  # a query FTS5 cannot parse finds nothing lexically; dense still answers


def _frequencies(conn: sqlite3.Connection, words: list[str]) -> tuple[dict[str, int], int]:
    """({word: chunks containing it}, chunks in the index), from FTS5's own vocabulary."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab "
                 "USING fts5vocab(main, chunks_fts, row)")
    df = {}
    for term in dict.fromkeys(_fold(w) for w in words):
        # One `term = ?` lookup each: with `IN (...)` fts5vocab walks every term between.
        row = conn.execute("SELECT doc FROM temp.chunks_vocab WHERE term = ?", [term]).fetchone()
        if row:
            df[term] = row[0]
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return df, total
