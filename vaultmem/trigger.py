"""The trigger matcher and firing rules: zero inference, arithmetic only (SPEC 5).

A condition matches a context when either half says so:

* keyword-and-date: the stemmed content words of the condition (and any
  `keywords::`) are found in the stemmed context, or a date named in the
  condition has arrived;
* semantic: some unit of the context (the whole text, each sentence, each
  clause: a long context carries several concerns, and the moment may be one of
  them) is close enough in meaning to some view of the entry (its condition, the
  condition with its action; for "is the query about this entry": its action).
  The keyword half of "about" also takes the titles and aliases of the notes the
  entry links.
  The units are embedded in the same model call as the query; the views at index
  time. A unit fires only the entries it matches best (within `match_margin`):
  one concern of a context is the moment of the commitment it resembles most,
  not of every commitment that resembles it a little.

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
i'm i've i'd i'll we're we've we'd we'll you're you've you'd you'll they're they've they'd
they'll he'd he'll she'd she'll let's isn't aren't wasn't weren't don't doesn't didn't
haven't hasn't hadn't won't wouldn't can't couldn't shouldn't mustn't
""".split())  # contractions too: "I'm next at the GP" names one content word, not two
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Punctuation that ends a clause when a space follows (not "7:30", "4,200" or "e.g.x").
CLAUSE_BREAK = re.compile(r"(?:[.!?;:,]+(?=\s|$)|[—()])\s*|\s+-\s+|\n+")
LEADING_JOIN = re.compile(r"^(?:and|but|so|also|plus)\s+", re.IGNORECASE)
MAX_UNITS = 16  # bounds the one embedding call per query

# Which views of an entry the semantic half compares the context with: "is this its
# moment?" (an entry with a condition) and "is the query about it?" (a dated entry in its
# window). Titles and aliases of linked notes serve the keyword half only: a note's name is
# a word or two, whose vector resembles any query on the same topic.
TRIGGER_VIEWS = ("condition", "condition+action")
ABOUT_VIEWS = ("action", "condition", "condition+action")
EMBEDDED_VIEWS = ("condition", "condition+action", "action")


@lru_cache(maxsize=1)
def _stemmer():
    # The Snowball English stemmer alone: `import snowballstemmer` loads all ~30 languages
    # (12 ms of a cold query), and only English is used.
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer()


def stem_words(words: list[str]) -> list[str]:
    """Snowball English stems of lower-cased words, in order."""
    return [_stem(word) for word in words]


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    # Words repeat (a query's snippets stem every word of ten chunks): the pure-Python
    # stemmer is the cost, a dictionary hit is not.
    return _stemmer().stemWord(word)


def content_stems(text: str) -> set[str]:
    """Stemmed content words: lower-cased, stop words and one-letter words dropped."""
    words = [w.lower().replace("'s", "") for w in WORD.findall(text)]
    words = [w for w in words if len(w) > 1 and w not in STOP]
    return set(stem_words(words))


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


# -- the context, in units -----------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    text: str
    kind: str  # "query" (the whole context) | "sentence" | "clause"


UNIT_KINDS = {"whole": (), "sentences": ("sentence",), "clauses": ("sentence", "clause")}


def context_units(text: str, split: str = "clauses") -> list[Unit]:
    """The whole context, then (as `split` asks) its sentences and its clauses when it
    has several.

    Clauses are split at punctuation (commas, semicolons, colons, dashes) with a
    leading "and"/"but" dropped; a clause needs two words to carry a concern.
    """
    units = [Unit(text, "query")]
    seen = {text.strip()}
    sentences = [s.strip() for s in SENTENCE_END.split(text) if s.strip()]
    clauses = [LEADING_JOIN.sub("", c.strip(" .,;:!?-—")) for c in CLAUSE_BREAK.split(text)]
    for kind, parts in (("sentence", sentences), ("clause", clauses)):
        if kind not in UNIT_KINDS[split]:
            continue
        parts = [p for p in parts if len(p.split()) >= 2]
        if len(parts) < 2:
            continue
        for part in parts:
            if part not in seen and len(units) < MAX_UNITS:
                seen.add(part)
                units.append(Unit(part, kind))
    return units


@dataclass(frozen=True)
class Context:
    """A context (a query, or `due --context`) as units, and their vectors if embedded."""

    text: str
    units: tuple[Unit, ...]
    vecs: np.ndarray | None = None  # one row per unit; row 0 is the whole text

    @property
    def vec(self) -> np.ndarray | None:
        return None if self.vecs is None else self.vecs[0]


def make_context(text: str, embed=None, split: str = "clauses") -> Context:
    """Split `text` into units; with `embed` (texts -> unit vectors), embed them all in
    one call, the whole text first."""
    units = tuple(context_units(text, split))
    vecs = embed([u.text for u in units]) if embed is not None else None
    return Context(text, units, vecs)


# -- the semantic half over a whole ledger --------------------------------------------

@dataclass(frozen=True)
class View:
    """One text of an entry, embedded at index time."""

    owner: int  # index of the entry among the candidates
    kind: str  # condition | condition+action | action
    text: str
    vec: np.ndarray
    role: str = "trigger"  # "trigger": is this its moment? "about": is the query about it?


@dataclass(frozen=True)
class SemanticHit:
    score: float
    unit: Unit
    view: View

    def why(self, half: str) -> str:
        said = "" if self.unit.kind == "query" else f" «{_short(self.unit.text)}»"
        return (f"{half} by meaning: the context{said} ~ {self.view.kind} "
                f"«{_short(self.view.text)}» (cosine {self.score:.2f})")


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def best_matches(context: Context, views: list[View], thresholds: dict[str, float],
                 clause_offset: float, margin: float,
                 floors: dict[int, float] | None = None) -> dict[int, SemanticHit]:
    """{owner: its strongest firing unit-view pair} over every candidate at once.

    `thresholds[view.role]`: the cosine a view needs from the whole context or a
    sentence; a clause needs `clause_offset` more (a short text is a noisier vector).
    `floors[owner]`: a cosine the owner's views must reach in any case (see
    `commitments`: a share of the context's best cosine to a note the entry does not
    link). A unit fires an owner only if that owner's score is within `margin` of the
    best score any owner gets from that unit.
    """
    if context.vecs is None or not views:
        return {}
    dim = context.vecs.shape[1]
    views = [v for v in views if v.vec.shape == (dim,)]
    if not views:
        return {}
    sims = context.vecs @ np.stack([v.vec for v in views]).T  # units x views
    best_per_unit = sims.max(axis=1)
    clause = np.array([u.kind == "clause" for u in context.units])
    out: dict[int, SemanticHit] = {}
    for col, view in enumerate(views):
        need = np.maximum(thresholds[view.role] + np.where(clause, clause_offset, 0.0),
                          (floors or {}).get(view.owner, -1.0))
        ok = (sims[:, col] >= need) & (sims[:, col] >= best_per_unit - margin)
        if not ok.any():
            continue
        row = int(np.flatnonzero(ok)[np.argmax(sims[ok, col])])
        score = float(sims[row, col])
        if view.owner not in out or score > out[view.owner].score:
            out[view.owner] = SemanticHit(score, context.units[row], view)
    return out
