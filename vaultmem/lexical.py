"""The lexical leg: SQLite FTS5 (BM25) over chunk text, titles, aliases and headings.

The tokenizer is FTS5's `unicode61` with diacritics removed (so "creme" finds
"crème"). Scripts written without spaces (Chinese, Japanese, Korean) would be one
giant token each, so runs of those characters are rewritten as overlapping
character bigrams, at index and at query time alike.
"""

from __future__ import annotations

import re
import sqlite3

# Han, Hiragana, Katakana, Hangul (and their common extension blocks).
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_TOKEN = re.compile(r"\w+", re.UNICODE)
# Column weights for bm25(): title, aliases, headings, body.
WEIGHTS = (6.0, 4.0, 2.0, 1.0)
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


def match_expression(query: str) -> str | None:
    """An FTS5 query: any of the query's words (stop words dropped), each quoted."""
    words = [w for w in _TOKEN.findall(bigrams(query).lower()) if w not in STOP]
    if not words:
        words = _TOKEN.findall(bigrams(query).lower())
    unique = list(dict.fromkeys(words))[:32]
    return " OR ".join(f'"{w}"' for w in unique) or None


def search(conn: sqlite3.Connection, query: str, limit: int = 300) -> list[tuple[int, float]]:
    """(chunk id, bm25) best first; bm25 is negative, lower is better."""
    expression = match_expression(query)
    if not expression:
        return []
    weights = ", ".join(str(w) for w in WEIGHTS)
    try:
        return conn.execute(
            f"SELECT rowid, bm25(chunks_fts, {weights}) AS s FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?", [expression, limit]).fetchall()
    except sqlite3.OperationalError:
        return []  # a query FTS5 cannot parse finds nothing lexically; dense still answers
