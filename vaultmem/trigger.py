"""The trigger matcher and firing rules: zero inference, arithmetic only (SPEC 5).

A condition matches a context when either half says so:

* keyword-and-date: the stemmed content words of the condition (and any
  `keywords::`) are found in the stemmed context, or a date named in the
  condition has arrived;
* semantic: the context's embedding (already computed for the query) is close
  enough to the condition's embedding (computed at index time).

Every decision carries a human reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import numpy as np

STOP = frozenset("""
a an the and or but if when whenever once then than so to of in on at by for from with
without into onto over under about after before until up down out off is are was were be
been being am do does did doing have has had having i me my mine we us our you your he him
his she her it its they them their this that these those there here what which who whom
whose how why where get gets got getting comes come coming came go goes going went
again next soon back some any all each every just still also very really can could will
would shall should may might must not no yes one ones something thing things
""".split())
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer  # small, pure Python; the Snowball English stemmer

    return snowballstemmer.stemmer("english")


def content_stems(text: str) -> set[str]:
    """Stemmed content words: lower-cased, stop words and one-letter words dropped."""
    words = [w.lower().replace("'s", "") for w in WORD.findall(text)]
    words = [w for w in words if len(w) > 1 and w not in STOP]
    return set(_stemmer().stemWords(words))


@dataclass(frozen=True)
class Match:
    fired: bool
    why: str
    keyword_score: float = 0.0
    semantic_score: float | None = None


def keyword_match(condition: str | None, keywords: tuple[str, ...], context: str,
                  threshold: float, today: date | None = None) -> Match:
    """The keyword-and-date half."""
    ctx = content_stems(context)
    for kw in keywords:
        stems = content_stems(kw)
        if stems and stems <= ctx:
            return Match(True, f"keyword matched: {kw}", 1.0)
    if today and condition:
        for raw in ISO_DATE.findall(condition):
            try:
                if date.fromisoformat(raw) <= today:
                    return Match(True, f"date in condition arrived: {raw}", 1.0)
            except ValueError:
                continue
    wanted = content_stems(condition or "")
    if not wanted:
        return Match(False, "", 0.0)
    found = wanted & ctx
    score = len(found) / len(wanted)
    if score >= threshold:
        return Match(True, f"trigger matched: {', '.join(sorted(found))}", score)
    return Match(False, "", score)


def semantic_match(cond_vec: np.ndarray | None, query_vec: np.ndarray | None,
                   threshold: float) -> Match:
    """The semantic half: cosine of two unit vectors against a threshold."""
    if cond_vec is None or query_vec is None or cond_vec.shape != query_vec.shape:
        return Match(False, "", 0.0, None)
    sim = float(cond_vec @ query_vec)
    if sim >= threshold:
        return Match(True, f"trigger matched by meaning (cosine {sim:.2f})", 0.0, sim)
    return Match(False, "", 0.0, sim)


def date_window(fires_from: date | None, today: date) -> str | None:
    """Why a dated entry fires today, or None: it fires from its start for as long as open."""
    if fires_from is None or fires_from > today:
        return None
    return f"date window open since {fires_from.isoformat()}"
