"""What the trigger matcher reads in a context and a condition: zero inference, word
rules and arithmetic only (SPEC 5). The rules that weigh it are in `cue.py`.

* Clauses and their vetoes (`scoped_clauses`): a clause that says its event has not
  happened (negated, pending, almost, asked) is no evidence.
* Words: content stems (Snowball), weighed by IDF (`word_evidence`), told apart into
  names and the rest (`name_stems`); the places a context puts one at (`placed_stems`);
  the kinds of event it speaks of (`event_kinds`); the names a linked note carries
  (`note_names`).
* Meaning: the context as units (the whole text, its sentences and clauses, and the
  told part without vetoed clauses), embedded in the same model call as the query; the
  entry's views (its condition, "When condition, action", its action, its names alone)
  at index time. `semantic_evidence` finds each entry's best unit-view pair and its lead
  over every other entry on that unit: one concern of a context is the moment of the
  commitment it resembles most, not of every commitment that resembles it a little.
* Dates: a date written in a condition that has arrived (`keyword_match`).

Every decision carries a human reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING

from .text.words import CUE_STOP, WORD

if TYPE_CHECKING:  # numpy is loaded by the semantic half only: an index run needs words
    import numpy as np

ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
# The full stop of a title or a number's abbreviation ends no sentence: "Mrs Pike from
# no. 41", "Dr. Osei", "St. James's" are one clause each.
NOT_AN_END = (r"(?<!\bmr\.)(?<!\bmrs\.)(?<!\bms\.)(?<!\bdr\.)(?<!\bst\.)(?<!\bvs\.)"
              r"(?!(?<=\bno\.)\s+\d)")
SENTENCE_END = re.compile(r"(?<=[.!?])" + NOT_AN_END + r"\s+", re.IGNORECASE)
# Punctuation that ends a clause when a space follows (not "7:30", "4,200" or "e.g.x").
CLAUSE_BREAK = re.compile(r"(?:[.!?;:,]+" + NOT_AN_END + r"(?=\s|$)|[—()])\s*|\s+-\s+|\n+",
                          re.IGNORECASE)
LEADING_JOIN = re.compile(r"^(?:and then|and|but|so|also|plus|though|although|whereas|while|"
                          r"except)\s+", re.IGNORECASE)
MAX_UNITS = 16  # bounds the one embedding call per query

# Which views of an entry the semantic half compares the context with: "is this its
# moment?" (an entry with a condition) and "is the query about it?" (a dated entry in its
# window). Titles and aliases of linked notes serve the keyword half only: a note's name is
# a word or two, whose vector resembles any query on the same topic.
TRIGGER_VIEWS = ("condition", "condition+action")
ABOUT_VIEWS = ("action", "condition", "condition+action")
EMBEDDED_VIEWS = ("condition", "condition+action", "action", "subject")


@lru_cache(maxsize=1)
def _stemmer():
    # The Snowball English stemmer alone: `import snowballstemmer` loads all ~30 languages
    # (12 ms of a cold query), and only English is used.
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer()


def stem_words(words: list[str]) -> list[str]:
    """Snowball English stems of lower-cased words, in order."""
    return [stem(word) for word in words]


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    # Words repeat (a query's snippets stem every word of ten chunks): the pure-Python
    # stemmer is the cost, a dictionary hit is not.
    return _stemmer().stemWord(word)


@lru_cache(maxsize=4096)
def content_stems(text: str) -> frozenset[str]:
    """Stemmed content words: lower-cased, stop words and one-letter words dropped.
    (Cached: the matcher asks for each condition's stems several times per context.)"""
    words = [w.lower().replace("'s", "") for w in WORD.findall(text)]
    words = [w for w in words if len(w) > 1 and w not in CUE_STOP]
    return frozenset(stem_words(words))


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


# -- the condition's words, weighed (IDF) and told apart (names, the event) ------------

# Words the stop list drops that still carry a condition's event once its names are set
# aside: "when Ana is back", "when the results are in", "when I'm home". They decide only
# whether a condition names an event besides its names, never count as evidence.
EVENT_PARTICLES = frozenset("back home here in out over round again".split())
NAME_WORD = re.compile(r"[A-Z][^\W\d_]*(?:['’][^\W\d_]+)?")


def name_stems(condition: str) -> set[str]:
    """Stems of the condition's names: its capitalised content words, not "I" ("Ana",
    "Porto", "Dr Osei", "Sparks Ltd"; a linked note's title is no name here: "the tiles
    are delivered" linking [[Stokes Croft Tiles]] is about tiles)."""
    found = {w.lower().replace("'s", "") for w in NAME_WORD.findall(condition)
             if w.lower().replace("'s", "") not in CUE_STOP and len(w) > 1}
    return set(stem_words(sorted(found)))


def topic_stems(condition: str) -> set[str]:
    """Stems of the names a message or an arrival is about, not who sends or brings it:
    those after the condition's first event word ("ISD replies about Marisol's
    application": Marisol; "the city council answers about Douglas Street": Douglas,
    Street). Marisol on the phone is not ISD replying."""
    words = WORD.findall(condition or "")
    flat, owner = [], []  # the lowered words ("'s" apart), each with its word's index
    for i, word in enumerate(words):
        for part in word.lower().replace("’", "'").replace("'s", " 's").split():
            flat.append(part)
            owner.append(i)
    phrases = [phrase.split() for phrase, kind in _PHRASES
               if kind in ("message", "arrival") and phrase not in EVENT_NOUNS]
    for j in range(len(flat)):
        if any(flat[j:j + len(p)] == p for p in phrases):
            after = owner[j] + (flat[j] == "'s")  # "Ana's back": Ana is not the topic
            tail = " ".join(words[after:])
            return name_stems(tail) - name_stems(" ".join(SENDER.findall(tail)))
    return set()


# Event words that name a thing, not what its sender does: "a letter from HMRC arrives"
# waits for HMRC's letter; HMRC is no topic. Whoever a message comes "from" sends it
# ("from the Passport Office" as much as "from HMRC").
EVENT_NOUNS = frozenset("""letter parcel courier doormat delivery email text message call
phone voicemail feedback comments arrival reply here""".split()) | {"in the post", "in touch"}
SENDER = re.compile(r"\bfrom\s+(?:(?:the|my|our|his|her|their)\s+)?"
                    r"((?:[A-Z][^\W\d_]*['’]?s?\s*)+)")


def subject_text(condition: str) -> str:
    """The condition's names as written, in order ("Ana Porto" for "when Ana is back from
    Porto"): embedded as the entry's subject view when the condition also names an event,
    so that a context close to the names alone ("Ana sent a photo from Porto") is told
    from one close to the whole condition."""
    names = name_stems(condition)
    if not names or not names_an_event(condition, names):
        return ""
    said = [w for w in WORD.findall(condition)
            if stem(w.lower().replace("'s", "")) in names]
    return " ".join(w.replace("'s", "") for w in said)


# The subject's possessive opens the condition ("Isla's school photos come home", "Dr
# Osei's office gets back to me"); one later on is its topic ("Mr Okoro replies about
# Finn's maths set": Mr Okoro is the subject).
# "It's", "That's" are "it is", not possessives.
POSSESSOR = re.compile(r"^\s*(?:(?:the|my|our)\s+)?(?:[A-Z][^\W\d_]*\s+)*"
                       r"(?!(?:It|That|There|Here|What|Who|Where|He|She|Let)['’]s\b)"
                       r"[A-Z][^\W\d_]*['’]s\s+(?P<rest>.*)$")


def owned_stems(condition: str) -> set[str]:
    """The stem of what the condition's names own, when its subject is a thing of theirs:
    "photo" for "Isla's school photos come home" (the last word after the possessive,
    before a small word or an event word). Her coming home is not it."""
    found = POSSESSOR.search(condition or "")
    if not found:
        return set()
    said = []
    events = {w for words in EVENT_KINDS.values() for w in words if " " not in w}
    for word in WORD.findall(found.group("rest")):
        low = word.lower()
        if low in CUE_STOP or low in events or word[:1].isupper():
            break
        said.append(low)
    return {stem(said[-1])} if said else set()


def names_an_event(condition: str, names: set[str]) -> bool:
    """Whether the condition says something happens besides naming who or where: a content
    word that is not a name, an event particle ("back", "home"), or an event word the
    stop list drops ("comes" of "Mrs Okafor comes for her Brompton")."""
    words = {w.lower() for w in WORD.findall(condition)}
    return (bool(content_stems(condition) - names) or bool(words & EVENT_PARTICLES)
            or bool(told_kinds(condition)))


# "When I'm at the hardware shop", "when I'm next at Parkside": a condition of presence
# holds when the context puts the person there, not when it names the place ("a reply
# from the bank", "my font library", "Mum rang" do not satisfy "I'm at the bank",
# "I'm at the library", "I'm at Mum's").
PRESENCE = re.compile(r"^\s*(?:i'?m|i’m|i am|we'?re|we’re|we are)\s+(?:\w+\s+)?"
                      r"(?:at|in|inside)\s+(?P<place>.+)$", re.IGNORECASE)
AT = frozenset("at in into inside".split())
PLACE_REACH = 4  # words after "at"/"in" that may name the place ("at the big Tesco")


def place_of(condition: str) -> str:
    """The place of a presence condition ("the hardware shop"), else ""."""
    found = PRESENCE.match(condition or "")
    return found.group("place") if found else ""


def placed_stems(context: str, ahead: bool = False) -> set[str]:
    """Stems of the words the context puts the person at: the name after "at", "in",
    "into" or "inside" (past an article or a possessive, up to PLACE_REACH words, up to
    the next small word), in an affirmed clause ("In Bishop's on Gloucester Road" gives
    bishop; "Now in the post office", "popped into Wickes"; "at Ashby Road with Siobhan"
    gives ashby and road, not Siobhan)."""
    out: set[str] = set()
    for clause in scoped_clauses(context):
        if vetoes(clause.veto, ahead):
            continue
        words = [w.lower().replace("’s", "").replace("'s", "") for w in WORD.findall(clause.text)]
        for i, word in enumerate(words):
            if word not in AT:
                continue
            after = words[i + 1:]
            while after and after[0] in DETERMINERS:
                after = after[1:]
            for w in after[:PLACE_REACH]:
                if w in CUE_STOP:
                    break
                if len(w) > 1:
                    out.add(stem(w))
    return out


DETERMINERS = frozenset("the a an my our his her their your this that".split())
# Words that describe the thing a condition is about rather than name it ("the new printer",
# "my old car", "the first frost"): the thing is the word after them.
DESCRIBERS = frozenset("""new old big small little large first last second third other own
whole same usual main young""".split())


def thing_stems(condition: str) -> set[str]:
    """The stems of the thing a condition is about, when it opens with one, any of which
    says it: the first word after its opening article or possessive ("the house is quiet":
    house; "my printer jams again": printer; "the workshop compressor trips the fuse":
    workshop), with the words describing it before it ("the new printer jams": new,
    printer; "a big spring tide comes in": big, spring). A quiet
    morning at school is not the house being quiet; a kettle that trips the fuse is not
    the compressor. Empty for a condition about someone ("Ana is back", "Dr Osei's office
    rings"), one's presence ("I'm at the bank") or the weather ("it rains")."""
    words = WORD.findall(condition or "")
    if len(words) < 2 or words[0].lower() not in DETERMINERS:
        return set()
    words = words[1:]
    described = set()
    while len(words) > 1 and words[0].lower() in DESCRIBERS:  # "the new printer": printer
        described.add(stem(words[0].lower()))
        words = words[1:]
    first = words[0].lower().replace("’s", "").replace("'s", "")
    if words[0][:1].isupper() or first in CUE_STOP or len(first) < 2:
        return set()
    return {stem(first)} | described


# A condition is an event about someone or something: "Priya's quote comes in", "Gary
# calls back", "it rains". Most are of a few kinds (the frames of FrameNet's Arriving,
# Communication and Weather), each told by a closed class of words. When the context
# names the condition's subject (its names, or a name only its linked note carries) and
# an event of the condition's kind, the condition holds: "Hillside's receptionist left a
# voicemail" for "when Dr Osei's office gets back to me", [[Dr Osei]] working at
# Hillside. A phrase is matched on whole words, a word on its stem.
EVENT_KINDS: dict[str, tuple[str, ...]] = {
    "arrival": ("arrive", "arrives", "arrived", "arriving", "arrival", "delivered",
                "delivery", "deliver", "delivers", "came", "comes", "come", "landed",
                "lands", "turned up", "turns up", "dropped off", "in the post", "doormat",
                "parcel", "courier", "collected", "is back", "are back", "'s back", "back from",
                "back home", "got home", "came home", "is home", "'s home", "returned",
                "returns",
                "walked in", "got in", "here", "come through", "came through", "came in",
                "come in", "has come", "have come"),
    "message": ("call", "calls", "called", "calling", "rang", "rings", "ringing", "phoned",
                "phone", "voicemail", "texted", "text", "email", "emailed", "emails",
                "message", "replied", "replies", "reply", "answered", "answers", "wrote",
                "writes", "write back", "letter", "got back", "gets back", "get back",
                "call back", "calls back", "called back", "ring back", "rang back",
                "confirmed", "confirms", "confirm", "sent", "sends", "send", "says", "said",
                "feedback", "comments", "heard", "in touch"),
    "rain": ("rain", "rains", "raining", "rained", "pouring", "poured", "drizzle",
             "drizzly", "downpour", "bucketing", "showers", "heavy shower", "spitting",
             "wet", "storm", "thunder"),
    "dry": ("dry", "sunny", "sunshine", "sun", "blue sky", "cloudless", "not a cloud",
            "baked", "not a drop", "glorious"),
    "wind": ("windy", "wind", "gale", "gusts", "gusty", "blowing", "breezy", "breeze",
             "blustery"),
    "still": ("still day", "calm", "no wind", "not a breath"),
}


def name_stems_in(text: str) -> set[str]:
    """Stems of the capitalised words of `text`: where a context names someone or
    something ("Hillside", "Ana"; "coffee" in "Alarm, coffee, side gate" names nothing)."""
    return {stem(w.lower().replace("’s", "").replace("'s", "")) for w in NAME_WORD.findall(text)
            if len(w) > 1}


def told_sentences(text: str, ahead: bool = False) -> list[str]:
    """The sentences of the context without their vetoed clauses (see `scoped_clauses`)."""
    out = []
    for sentence in SENTENCE_END.split(text):
        told = affirmed_text(sentence, ahead)
        if told.strip():
            out.append(told)
    return out


# Longest phrase first, each span read once: "no wind" is a still day, not wind.
_PHRASES = sorted(((w, kind) for kind, words in EVENT_KINDS.items() for w in words),
                  key=lambda pair: -len(pair[0]))


def event_kinds(text: str) -> set[str]:
    """The kinds of event `text` speaks of (see EVENT_KINDS), by whole words; a phrase
    inside a longer one of another kind counts for the longer one only."""
    flat = " " + " ".join(w.lower().replace("’", "'").replace("'s", " 's")
                          for w in WORD.findall(text)) + " "
    out = set()
    for phrase, kind in _PHRASES:
        if f" {phrase} " in flat:
            out.add(kind)
            flat = flat.replace(f" {phrase} ", " | ")
    return out


# The weather a condition waits for is the one its verb leaves: "the wind drops" waits for
# a still day, "the rain stops" for a dry one; and a context that tells the opposite of
# what the condition needs is not its moment ("blowing a gale, though bone dry" for "a
# dry, still day").
OPPOSITE = {"rain": "dry", "dry": "rain", "wind": "still", "still": "wind"}
ENDING = re.compile(r"\b(?:drops?|dropped|stops?|stopped|eases?|eased|dies down|died down|"
                    r"lets up|let up|clears?|cleared|calms? down|is over|has passed)\b",
                    re.IGNORECASE)


# Where one weather clause ends and the next begins: "the wind has dropped but now it is
# raining" tells a still day and rain, not a dry one.
WEATHER_CLAUSE = re.compile(r"[.;,!?—]|\bbut\b|\band now\b", re.IGNORECASE)
_ENDING_WEATHER = {w for k in ("rain", "wind") for w in EVENT_KINDS[k] if " " not in w}
# Words that may stand between the weather and its ending: "the rain has finally stopped".
_BETWEEN = {"has", "have", "had", "is", "was", "s", "finally", "just", "now", "already",
            "at", "last", "seems", "seemed", "to", "really", "properly", "completely",
            "eventually", "mostly", "all"}


def _ended_weather(clause: str) -> set[str]:
    """The weather kinds an ending verb in `clause` governs: the weather word just before
    it ("the rain has stopped") or the gerund just after ("it stopped raining"); "the bus
    stops" ends nothing."""
    out = set()
    for m in ENDING.finditer(clause):
        before = re.findall(r"[a-z]+", clause[:m.start()].lower())
        while before and before[-1] in _BETWEEN:
            before.pop()
        after = re.findall(r"[a-z]+", clause[m.end():].lower())[:1]
        for word in before[-1:] + after:
            if word in _ENDING_WEATHER:
                out |= event_kinds(word) & {"rain", "wind"}
    return out


def told_kinds(text: str) -> set[str]:
    """The kinds of event a condition waits for, or a sentence tells: its `event_kinds`,
    with the weather it says ends turned to its opposite ("the wind has dropped" tells a
    still day), clause by clause and only the weather the ending governs."""
    kinds: set[str] = set()
    for clause in WEATHER_CLAUSE.split(text or ""):
        ended = _ended_weather(clause)
        kinds |= {OPPOSITE[k] if k in ended else k for k in event_kinds(clause)}
    return kinds


@dataclass(frozen=True)
class Words:
    """The keyword half's evidence for one condition."""

    coverage: float  # IDF-weighted share of the condition's content words in the context
    found: tuple[str, ...] = ()  # the stems found, rarest first
    names_only: bool = False  # all found are names, and the condition names an event too
    rarest: str = ""  # the condition's rarest word that is not a name, if it was not found

    def why(self) -> str:
        if not self.found:
            return "no word of the condition"
        said = ", ".join(self.found)
        if self.names_only:
            return f"only its names ({said}): the event is not said"
        missing = f"; not its rarest word, {self.rarest}" if self.rarest else ""
        return f"words {said} ({self.coverage:.0%} of the condition's weight{missing})"


def word_evidence(condition: str, context: str, weight: dict[str, float]) -> Words:
    """How much of the condition the context says, each word weighted by how rare it is
    in the vault (`weight`: stem -> IDF; a stem not in it weighs 1): a rare word ("roofer")
    is evidence, an everyday one ("evening", "home") hardly. Names found without the
    event ("Ana" and "Porto" for "when Ana is back from Porto", no "back") are flagged,
    and so is a missing rarest word (what tells "Dad's electricity bill" from a water
    bill: the word most specific to this condition)."""
    wanted = content_stems(condition)
    if not wanted:
        return Words(0.0)
    w = {stem: max(weight.get(stem, 1.0), 0.0) for stem in wanted}
    total = sum(w.values()) or 1.0
    found = wanted & content_stems(context)
    order = tuple(sorted(found, key=lambda stem: (-w[stem], stem)))
    names = name_stems(condition)
    particles = _particles(condition)
    names_only = (bool(found) and found <= names and names_an_event(condition, names)
                  and not (particles and particles <= _particles(context)))
    plain = sorted(wanted - names, key=lambda stem: (-w[stem], stem))
    rarest = plain[0] if plain and plain[0] not in found else ""
    return Words(sum(w[stem] for stem in found) / total, order, names_only, rarest)


def place_coverage(place: str, context: str, weight: dict[str, float]) -> tuple[float, tuple]:
    """The IDF-weighted share of the place's words that the context puts the person at
    (see `placed_stems`), and those words."""
    wanted = content_stems(place)
    if not wanted:
        return 0.0, ()
    w = {stem: max(weight.get(stem, 1.0), 0.0) for stem in wanted}
    found = wanted & placed_stems(context)
    return sum(w[s] for s in found) / (sum(w.values()) or 1.0), tuple(sorted(found))


# -- names a linked note carries -----------------------------------------------------

_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*(?:[-*+>#]+\s*|\d+[.)]\s*)?)$")


def note_names(text: str, heading: bool = False) -> list[str]:
    """The proper names a note carries in its text, in order, once each: capitalised words
    that do not open a sentence, a line or a list item ("Care coordinator: **Janine
    Pratt**" gives Janine, Pratt; "Ordered from Rapid Electronics" gives Rapid,
    Electronics). A context that names one of them names what the note is about, in
    words the condition may not use (the clinic's receptionist for "Dr Osei's office").
    A `heading` (a title, an alias) is names throughout: its first word too."""
    plain = ("x " if heading else "") + re.sub(r"[*_`\[\]]", "", text)
    out: dict[str, None] = {}
    for match in NAME_WORD.finditer(plain):
        word = match.group(0)
        bare = word.lower().replace("'s", "").replace("’s", "")
        short = len(bare) < 3 and not word[:2].isupper()  # "GL Plumbing" names; "Mr" not
        if bare in CUE_STOP or short or _SENTENCE_START.search(plain[:match.start()]):
            continue
        out.setdefault(word.replace("'s", "").replace("’s", ""), None)
    return list(out)


def _particles(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)} & EVENT_PARTICLES


def idf(df: int, total: int) -> float:
    """BM25's inverse document frequency, ln(1 + (N − n + ½) / (n + ½)): the weight a word
    in n of N chunks gets, as the lexical leg gives it."""
    return math.log(1.0 + (max(total - df, 0) + 0.5) / (df + 0.5))


# -- the context, in units -----------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    text: str
    kind: str  # "query" (the whole context) | "sentence" | "clause" | "affirmed"
    veto: str = ""  # the not-yet or negation cue in it ("still no", "drove past"), if any


UNIT_KINDS = {"whole": (), "sentences": ("sentence",), "clauses": ("sentence", "clause")}
LINES = re.compile(r"\n+")


def sentence_count(text: str) -> int:
    """How many sentences a context has: its parts of two words or more between full
    stops (as `context_units` splits them) or lines (a diary written a line at a time)."""
    parts = [p for line in LINES.split(text) for p in SENTENCE_END.split(line)]
    return max(1, sum(len(p.split()) >= 2 for p in parts))


def context_units(text: str, split: str = "clauses") -> list[Unit]:
    """The whole context, then (as `split` asks) its sentences and its clauses when it
    has several.

    Clauses are split at punctuation (commas, semicolons, colons, dashes) with a
    leading "and"/"but" dropped; a clause needs two words to carry a concern.
    """
    scoped = scoped_clauses(text)
    units = [Unit(text, "query", _veto_within(text, scoped))]
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
                units.append(Unit(part, kind, _veto_within(part, scoped)))
    affirmed = ". ".join(LEADING_JOIN.sub("", c.text.strip(" .,;:!?-—")) for c in scoped
                         if not c.veto)
    if any(u.veto for u in units) and len(affirmed.split()) >= 2 and affirmed not in seen:
        units.insert(1, Unit(affirmed, "affirmed"))  # the context without its vetoed clauses
        del units[MAX_UNITS:]
    return units


# -- not yet, not quite, not at all: cues scoped to their clause (the NegEx family) ---

# A clause that says its event has not happened is no evidence for it, whatever words it
# shares with a condition: negated ("still no word from the roofer"), pending or
# anticipated ("the parcel should arrive tomorrow", "she'll call"), almost ("drove past
# the shop"), hypothetical or asked ("if it rains", "has the quote come?"). After NegEx
# (Chapman et al. 2001), with the clause as the scope of a cue instead of a word window:
# contexts are short, and a clause boundary is where NegEx's scope ends in practice.
VETO_CUES: tuple[tuple[str, str], ...] = (
    ("negated", r"\bno\b(?!\.?\s*\d)|"  # not "no. 41": a house number
                r"\b(?:not|never|nothing|none|nobody|neither|nor|cannot|without|forgot|"
                r"failed to|no sign)\b|n't\b"
                # a state that has not ended: "Precious is still off", "still away"
                r"|\bstill (?:off|away|waiting|awaiting|on leave|in hospital)\b"),
    ("pending", r"\b(?:will|shall|gonna|should|supposed to|about to|going to|coming to|"
                r"(?:is|are|am)\s+coming|"
                r"due to|yet|delayed|tomorrow|tonight|soon|"
                r"next (?:week(?:end)?|month|year|time|morning|evening|night|\w+day)|"
                r"this (?:evening|afternoon|weekend)|expect(?:s|ed|ing)?|"
                r"hop(?:e|es|ed|ing)|might|maybe|perhaps|probably|forecast|can wait|"
                r"(?:waiting|wait) (?:for|on|till|until)|plan(?:s|ned|ning)? to|heading|"
                r"on (?:my|her|his|their|our|the) way to|on its way|"
                r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
                # a promise says it is still to come: "has promised the calcs 'by
                # teatime'", "invoice to follow" (not a deadline, "send the deck by 5": an
                # errand in a list, like "need to", says nothing of the cue beside it)
                r"promis(?:e|es|ed|ing)|to follow|"
                r"(?:radio|forecast|app|met office) says|"
                # not happened as planned, or not before a time: "was meant to land at
                # six", "away till June" (not "need to": a to-do beside the cue in a list
                # of errands says nothing of it)
                r"meant to|awaiting|"
                r"later (?:today|on|tonight|this \w+)|any (?:day|minute|moment|time) now|"
                # "in two days" is to come; "for two days" is how long something has lasted
                r"(?:in|within) (?:an?|a few|a couple(?: of)?|several|\d+|two|three|four|five|"
                r"ten) (?:more )?(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)|"
                # sent, not arrived: "the replacement reader's been dispatched"
                r"dispatched|shipped|in transit|out for delivery|en route|"
                r"(?:booked|scheduled|pencilled) (?:in )?for|on order|as soon as|hopefully|"
                r"fingers crossed|(?:until|till) (?:next|the end|the \d|\d|tomorrow|"
                r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|"
                r"march|april|may|june|july|august|september|october|november|december))\b"
                r"|'ll\b"
                # a scheduled arrival, told in the present: "her flight lands at eleven"
                r"|\b(?:lands|arrives|gets in|comes in|is due|are due|leaves)\b[^.;]*?"
                r"\b(?:at|by|around) (?:\d|one|two|three|four|five|six|seven|eight|nine|ten|"
                r"eleven|twelve|noon|midnight|half)"
                r"|\bby (?:lunch(?:time)?|the (?:evening|afternoon|weekend)|\w+day)\b"
                # a departure by the timetable is still to come: "Janet's getting the four
                # o'clock train back to Leeds", "catching the 6.15 bus"
                r"|\b(?:getting|catching|taking|get|catch|take)\s+the\s+(?:\d[\d:.]*\s*"
                r"(?:am|pm)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                r"half)(?:\s+o['’]clock|\s+\w+)?\s+(?:train|bus|flight|ferry|coach|plane)\b"),
    ("almost", r"\b(?:drove|walked|went|cycled|ran|rode|driving|walking|passed|passing) "
               r"(?:past|by)\b|\b(?:nearly|almost)\b"),
    ("hypothetical", r"\b(?:if|unless|in case|whether|would|wish)\b"),
)
_VETO = [(kind, re.compile(rx, re.IGNORECASE)) for kind, rx in VETO_CUES]
# A hedge leaves its clause out of the evidence, but says no event did not happen.
HEDGE = re.compile(r"\b(?:might|maybe|perhaps|probably|hop(?:e|es|ed|ing)|hopefully)\b")
# Where a cue's scope ends: clause punctuation, and the conjunctions that start another
# clause ("drove past the shop but didn't stop": both halves are vetoed, each by its own).
SCOPE_BREAK = re.compile(
    r"(?:[.!?;:,]+" + NOT_AN_END + r"(?=\s|$)|[—()])\s*|\s+-\s+|\n+|"
    r"\s+(?=(?:but|though|although|whereas|while|except|and then|so)\s)", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    """One clause of a context and the cue that vetoes it ("" if none)."""

    text: str
    veto: str = ""


def scoped_clauses(text: str) -> list[Clause]:
    """The context's clauses, each with its veto: its first not-yet or negation cue as
    "kind: words", a question "question: ?" (asked, not told)."""
    out = []
    for match in _clause_spans(text):
        part = match.strip()
        if part:
            out.append(Clause(part, veto_of(part)))
    return out


def _clause_spans(text: str) -> list[str]:
    pieces, start = [], 0
    for m in SCOPE_BREAK.finditer(text):
        pieces.append(text[start:m.end()])
        start = m.end()
    pieces.append(text[start:])
    return pieces


def veto_of(clause: str) -> str:
    """The first cue in `clause` that says its event has not happened, as "kind: words"."""
    if clause.rstrip().endswith("?"):
        return "question: ?"
    for kind, rx in _VETO:
        for found in rx.finditer(clause):
            if not _promises_nothing(clause, found):
                return f"{kind}: {found.group(0).strip().lower()}"
    return ""


# A word of promise that says nothing is still to come (see VETO_CUES): a promise kept
# ("as promised", "the promised quote arrived", "sent the links I promised", "kept his
# promise"), "promising" as a quality ("the beans look promising"), and "to follow" as
# something one does ("decided to follow the recipe", "easy to follow", "had to follow a
# senior nurse round", "to follow up"), not a thing to come ("invoice to follow").
_DET = r"(?i:the|a|an|his|her|their|my|our|your|its|this|that|these|those)"
_PRONOUN = r"(?:(?i:i|he|she|they|we|you)|[A-Z][\w'’-]*)"  # or a name
_AS_PROMISED = re.compile(  # "as promised", "as she'd promised", "as Nav had promised"
    r"\b(?i:as)(?:\s+" + _PRONOUN + r")?(?:['’]d|\s+(?i:had))?\s+$")
_PROMISED_ONE = re.compile(  # "the promised quote", "his long-promised visit"
    r"\b" + _DET + r"\s+(?:(?i:long|much)[- ]?)?$")
_ONE_PROMISED = re.compile(  # the thing a promise named: "the invoice he promised"
    r"\b" + _DET + r"\s+(?:[\w'’-]+\s+){1,3}?(?:(?i:that|which)\s+)?" + _PRONOUN
    + r"(?:['’]d|\s+(?i:had|has|have))?\s+$")
_KEPT_NOUN = re.compile(  # "kept his promise", "true to her promise"
    r"\b(?:kept|keeps?|keeping|true to|good on|honou?red|fulfilled)\s+(?:" + _DET
    + r"\s+)?$", re.IGNORECASE)
# after the promise: something still promised ("promised to post", "promised the calcs")
_PROMISED_THING = re.compile(
    r"\s*(?:['‘’\"“”]|(?i:to|me|us|him|her|them|you|it|the|a|an|his|their|my|our|your|its"
    r"|some|that|this)\b|[A-Z])")
_FOLLOW_DONE_BEFORE = re.compile(
    r"\b(?:decide[ds]?|decided|want(?:s|ed)?|tr(?:y|ies|ied|ying)|need(?:s|ed)?|ha(?:ve|s|d|ving)"
    r"|going|got|used|chose|choose|agree[ds]?|learn(?:s|ed|t|ing)?|managed|able|remembered"
    r"|forgot|easy|easier|hard|harder|simple|difficult|impossible|tough|clear|steps"
    r"|instructions|rules|directions|example|act|path|route|lead|procedure|guidelines|signs"
    r"|how|where|which|whether)\s+$", re.IGNORECASE)
_FOLLOW_DONE_AFTER = re.compile(
    r"\s+(?:the|a|an|my|his|her|their|our|your|its|him|them|me|us|you|it|up|through|suit"
    r"|along)\b", re.IGNORECASE)


def _promises_nothing(clause: str, found: re.Match) -> bool:
    """Whether a promise cue `found` in `clause` says nothing is still to come."""
    word = found.group(0).lower()
    before, after = clause[:found.start()], clause[found.end():]
    if word == "to follow":
        return bool(_FOLLOW_DONE_BEFORE.search(before) or _FOLLOW_DONE_AFTER.match(after))
    if not word.startswith("promis"):
        return False
    if word == "promising":  # a quality unless it promises something: "promising to call"
        return not _PROMISED_THING.match(after)
    if word in ("promise", "promises") and _KEPT_NOUN.search(before):
        return True
    if word != "promised":
        return False
    if _AS_PROMISED.search(before) or _PROMISED_ONE.search(before):
        return True
    return not _PROMISED_THING.match(after) and bool(_ONE_PROMISED.search(before))


# A thing promised for later is not yet sent: "the engineer has promised the calcs by
# teatime", "invoice to follow next week" (a promise to do, "she'll swap", is often the
# answer a message was waited for; a thing put off is not the thing).
DEFERRED = re.compile(r"^pending: (?:promis|to follow)")


def deferred(veto: str) -> bool:
    """Whether a clause's veto is a promise (see VETO_CUES)."""
    return bool(DEFERRED.match(veto))


def hedged(clause: Clause) -> bool:
    """Whether a clause's veto is only a hedge ("maybe four or five meals left"): one
    with a firm cue beside the hedge ("hopefully the photos come next week") is not."""
    return bool(HEDGE.search(clause.veto)) and not veto_of(
        re.sub(HEDGE.pattern, " ", clause.text, flags=re.IGNORECASE))


def _veto_within(unit: str, scoped: list[Clause]) -> str:
    """The veto of the first vetoed clause that lies in `unit`, else ""."""
    flat = " ".join(unit.split())
    for clause in scoped:
        body = " ".join(clause.text.strip(" .,;:!?-—").split())
        if clause.veto and body and body in flat:
            return clause.veto
    return ""


def affirmed_text(text: str, ahead: bool = False) -> str:
    """The context without its vetoed clauses: what the keyword half may read. `ahead`:
    for a condition that is itself about what is coming ("when the guests are coming"),
    a clause that says something is coming is evidence, not a veto."""
    return ". ".join(LEADING_JOIN.sub("", c.text.strip(" .,;:!?-—"))
                     for c in scoped_clauses(text) if not vetoes(c.veto, ahead))


def vetoes(veto: str, ahead: bool) -> bool:
    """Whether a clause's veto counts (`ahead`: a pending clause is evidence, see
    `looks_ahead`)."""
    return bool(veto) and not (ahead and veto.startswith("pending"))


def looks_ahead(condition: str) -> bool:
    """Whether the condition is itself about what is coming or planned ("the guests are
    coming", "before the trip"): then a context that says it is coming meets it."""
    return veto_of(condition or "").startswith("pending")


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
    score: float  # the cosine of the unit to the view
    unit: Unit
    view: View
    lead: float = 0.0  # over the best cosine any other entry gets from that unit
    subject: float | None = None  # that unit's cosine to the entry's names alone

    @property
    def alone(self) -> bool:
        """No other entry to lead (the ledger has one): the lead is infinite."""
        return math.isinf(self.lead)

    def why(self, half: str) -> str:
        said = "" if self.unit.kind == "query" else f" «{short(self.unit.text)}»"
        lead = ("" if self.view.role != "trigger" else ", no other entry" if self.alone
                else f", {self.lead:+.2f} over the next entry")
        return (f"{half + ' ' if half else ''}by meaning: the context{said} ~ {self.view.kind} "
                f"«{short(self.view.text)}» (cosine {self.score:.2f}{lead})")


def short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def semantic_evidence(context: Context, views: list[View], clause_offset: float,
                      margin: float = 0.0, ahead: frozenset = frozenset()
                      ) -> dict[int, SemanticHit]:
    """{owner: its best unit-view pair} over every candidate at once, with the pair's lead
    over the other owners on that unit and the unit's cosine to the owner's subject view.

    The calibration is the ledger itself: a cosine means little alone (MiniLM puts two
    unrelated errands at 0.3-0.5), but a unit much closer to one entry than to every
    other is that entry's moment. The best pair is the highest cosine among the units
    that lead by `margin`, else the highest of all (to say why it did not fire). A clause
    counts `clause_offset` less (a short text is a noisier vector). A trigger view is
    never matched by a vetoed unit (one whose clause says the event has not happened);
    "is the query about it" may be, and so may the owners in `ahead` by a unit that only
    says something is coming (see `looks_ahead`).
    """
    if context.vecs is None or not views:
        return {}
    import numpy as np

    dim = context.vecs.shape[1]
    views = [v for v in views if v.vec.shape == (dim,)]
    ranked = [v for v in views if v.role != "subject"]
    if not ranked:
        return {}
    sims = context.vecs @ np.stack([v.vec for v in ranked]).T  # units x views
    owners = sorted({v.owner for v in ranked})
    per_owner = np.full((len(context.units), len(owners)), -1.0)
    for col, view in enumerate(ranked):
        k = owners.index(view.owner)
        per_owner[:, k] = np.maximum(per_owner[:, k], sims[:, col])
    penalty = np.array([_pen(u, clause_offset) for u in context.units])
    vetoed = np.array([bool(u.veto) for u in context.units])
    pending = np.array([u.veto.startswith("pending") for u in context.units])
    subjects = {v.owner: v for v in views if v.role == "subject"}
    out: dict[int, SemanticHit] = {}
    for col, view in enumerate(ranked):
        others = np.delete(per_owner, owners.index(view.owner), axis=1)
        # An entry alone in the ledger has no rival to lead: the threshold alone decides.
        rival = others.max(axis=1) if others.shape[1] else np.full(len(penalty), -np.inf)
        lead = sims[:, col] - rival
        usable = np.ones(len(vetoed), bool)
        if view.role == "trigger":
            usable = ~(vetoed & ~pending) if view.owner in ahead else ~vetoed
        adjusted = np.where(usable, sims[:, col] - penalty, -np.inf)
        leading = np.where(lead >= margin, adjusted, -np.inf)
        pick = leading if np.isfinite(leading).any() else adjusted
        if not np.isfinite(pick).any():
            continue
        row = int(np.argmax(pick))
        hit = SemanticHit(float(sims[row, col]), context.units[row], view, float(lead[row]))
        if not _better(hit, out.get(view.owner), clause_offset, margin):
            continue
        subject = subjects.get(view.owner)
        near = float(context.vecs[row] @ subject.vec) if subject is not None else None
        out[view.owner] = SemanticHit(hit.score, hit.unit, view, hit.lead, near)
    return out


def _better(hit: SemanticHit, than: SemanticHit | None, clause_offset: float,
            margin: float) -> bool:
    """A pair that leads by `margin` beats one that does not; then the higher cosine."""
    if than is None:
        return True
    return _rank_key(hit, clause_offset, margin) > _rank_key(than, clause_offset, margin)


def _rank_key(hit: SemanticHit, clause_offset: float, margin: float) -> tuple[bool, float]:
    return hit.lead >= margin, hit.score - _pen(hit.unit, clause_offset)


def _pen(unit: Unit, clause_offset: float) -> float:
    return clause_offset if unit.kind == "clause" else 0.0


def best_matches(context: Context, views: list[View], thresholds: dict[str, float],
                 clause_offset: float, margin: float,
                 floors: dict[int, float] | None = None) -> dict[int, SemanticHit]:
    """{owner: its best unit-view pair} where that pair fires: the cosine reaches
    `thresholds[view.role]` (a clause `clause_offset` more), leads every other owner on
    that unit by `margin`, and reaches `floors[owner]` (see `commitments`: a share of the
    context's best cosine to a note the entry does not link)."""
    hits = semantic_evidence(context, views, clause_offset, margin)
    return {owner: hit for owner, hit in hits.items()
            if hit.score - _pen(hit.unit, clause_offset) >= thresholds[hit.view.role]
            and hit.lead >= margin and hit.score >= (floors or {}).get(owner, -1.0)}
