"""Is this context the moment of that commitment? The matcher's rules (SPEC 5), over
evidence already computed: zero inference, arithmetic and word rules only.

A match is a cue, not a mention. Three kinds of evidence can say a condition holds, each
read only from the clauses that do not deny it (see `trigger.scoped_clauses`: "still no
word from the roofer", "drove past the shop" are no evidence at all):

* words: the condition's own words, weighed by how rare they are in the vault, with its
  most specific word among them, and not its names alone ("Ana" and "Porto" do not say
  Ana is back); a place ("when I'm at the bank") is named only where the context puts
  the person at it ("in the bank", not "a reply from the bank");
* meaning: the context (or one of its sentences or clauses) is much closer to this
  entry's condition than to any other entry's (the ledger is the calibration: MiniLM puts
  unrelated errands at 0.3-0.5 of each other), and closer than to the condition's names;
* event: the context names the condition's subject (its names, or a name only the notes
  it links carry) and says an event of the condition's kind happened (an arrival, a
  message, the weather; see `trigger.EVENT_KINDS`); or it names no one and tells such
  an event in words closer to this entry's linked notes than to any other entry's.

Meaning, or words and an event together, is a strong cue: the entry's notes are placed
at `fire_slot`. Words or an event alone is a weak cue: it fires (the entry is due), and
its notes get only the multiplier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import trigger
from .config import Settings

WEATHER = frozenset({"rain", "dry", "wind", "still"})


@dataclass(frozen=True)
class Cue:
    """The matcher's answer for one entry and one context: does the context fire the
    entry's trigger, how strongly, and why. `strong`: evidence enough for placement at
    `fire_slot`; a weak cue fires but gets only the multiplier. `evidence` says which
    evidence counted (words and their weight, meaning and its lead, the event, vetoes)."""

    fired: bool
    strong: bool
    strength: float
    why: str
    evidence: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Evidence:
    """What the context says of one condition, computed for every entry at once."""

    condition: str
    words: trigger.Words
    hit: trigger.SemanticHit | None = None  # the semantic half's best pair for this entry
    floor: float = -1.0  # the cosine meaning must reach (note_ratio of another note's)
    place: tuple[str, ...] = ()  # for "I'm at X": X's words the context puts one at
    place_words: tuple[str, ...] = ()  # all of X's words
    subject: tuple[str, ...] = ()  # the subject's names found (the condition's, its notes')
    said: frozenset = frozenset()  # event kinds told: the weather, or beside the subject
    keyword: str = ""  # a `keywords::` entry found whole
    dated: str = ""  # a date written in the condition that has arrived
    vetoes: tuple[str, ...] = ()  # the cues that vetoed clauses of the context
    measured: bool = True  # the store holds vectors in the context's model's space
    note: tuple[float, float] | None = None  # its linked notes: cosine, lead over others'
    denied: tuple[str, ...] = ()  # its words said only in vetoed clauses ("results" in…)
    owned: tuple[str, ...] = ()  # "Isla's school photos": what of the names' must be said
    owned_said: bool = True  # …and whether a told sentence naming the subject says it
    noted: tuple[str, ...] = ()  # the subject's names only its linked notes carry
    affirmed: tuple[str, ...] = ()  # its words (not names) said in clauses not vetoed
    topic: tuple[str, ...] = ()  # names said that the message is about, not its sender's
    told: frozenset = frozenset()  # event kinds told anywhere in the context (not denied)
    deferred: tuple[str, ...] = ()  # those of `denied` said as promised for later
    sentences: int = 1  # how many sentences the context has

    @property
    def kinds(self) -> frozenset:
        return frozenset(trigger.told_kinds(self.condition))


def decide(ev: Evidence, settings: Settings) -> Cue:
    """Apply the rules (module docstring) to one entry's evidence."""
    details = _details(ev)
    if ev.dated:  # a date in the condition: the window opened, no context needed
        return Cue(True, False, 1.0, ev.dated, {**details, "half": "date",
                                                  "confidence": None})
    against = _told_otherwise(ev)
    if against:
        return Cue(False, False, 0.0, against, {**details, "half": None, "confidence": None})
    held = {"keywords": _words_hold(ev, settings), "meaning": _meaning_holds(ev, settings),
            "event": _event_holds(ev, settings)}
    paths = [name for name, (ok, _) in held.items() if ok]
    if not paths:
        why = next((why for _, why in held.values() if why), "no evidence")
        return Cue(False, False, 0.0, why, {**details, "half": None, "confidence": None})
    lone = _lone_in_part(ev, paths, held, settings)
    if lone:
        return Cue(False, False, 0.0, lone, {**details, "half": None, "confidence": None})
    hit = ev.hit
    # Meaning that stands out from every other entry is the strongest single kind (the
    # ledger itself calibrates it); words or an event alone can be a likeness of the same
    # kind, so they are placed only when both agree.
    strong = "meaning" in paths or len(paths) >= 2
    confidence = "strong" if strong else "weak"
    strength = max(ev.words.coverage if "keywords" in paths else 0.0,
                   hit.score if hit is not None and "meaning" in paths else 0.0,
                   0.5 if "event" in paths else 0.0)
    why = f"trigger matched ({confidence} cue): " + "; ".join(held[name][1] for name in paths)
    return Cue(True, strong, strength, why, {**details, "half": "+".join(paths),
                                             "confidence": confidence})


# In a context of several sentences, where one kind of evidence alone may be found for it
# to fire (`lone_evidence` "whole"), as the unit of the context closest to the condition
# by meaning: for meaning, the whole context or one of its sentences; for words or an
# event, the whole context (or the whole less its denied clauses): the context as a whole
# is about the condition.
LONE_UNITS = {"meaning": ("query", "sentence"), "keywords": ("query", "affirmed"),
              "event": ("query", "affirmed")}
_UNIT_NAMES = {"clause": "one clause", "sentence": "one sentence",
               "affirmed": "the told part", "query": "the whole context"}


def _lone_in_part(ev: Evidence, paths: list[str], held: dict, settings: Settings) -> str:
    """Why one kind of evidence alone, in a context of several sentences that is not
    about the condition as a whole, does not fire by itself, else "". On weeks of
    commitments in competition written by people who never saw these rules, meaning alone
    on one clause of such a context, and a message, an arrival or the condition's words
    alone where a part of it was closer to the condition than the whole, were right less
    often than wrong; in a context of one sentence, about as often right as anywhere
    (docs/evaluation.md, round 7). A second kind of evidence is then needed. Taken as they
    are: a `keywords::` word found, a place the context puts the person at ("In Bishop's
    on Gloucester Road" for "when I'm at the hardware shop": a presence told), a context
    with no vectors to place the evidence, and an entry alone in its ledger: what fails is
    a part of a long context that happens to come closest to one of thirty entries; with
    no other entry to come close to, the threshold alone decides, as for meaning (the
    prospective evaluation's vaults, one commitment each, lost a third of their cues to
    the rule without it)."""
    if (settings.lone_evidence != "whole" or len(paths) != 1 or ev.hit is None
            or ev.hit.alone or ev.keyword or ev.sentences < 2
            or paths == ["keywords"] and ev.place_words):  # the words held as a place
        return ""
    path, unit = paths[0], ev.hit.unit.kind
    if unit in LONE_UNITS[path]:
        return ""
    part = f"{_UNIT_NAMES[unit]} «{trigger.short(ev.hit.unit.text)}»"
    where = (f"in {part} of a context of several sentences" if path == "meaning" else
             f"and the context is closer to the condition in {part} than as a whole")
    return f"{held[path][1]} alone, {where}: a second kind of evidence is needed"


def _told_otherwise(ev: Evidence) -> str:
    """Why the context says the condition does not hold now, else "": it tells the
    opposite weather ("blowing a gale" for "the wind drops"), or says the condition's own
    words only in clauses that deny them, none in one that does not, and tells no event of
    its kind ("results in a couple of days" for "the results come back": told as pending;
    "Plumber's finished. The bathroom needs paint next week" denies nothing)."""
    weather = ev.kinds & WEATHER
    opposite = {trigger.OPPOSITE[k] for k in weather if k not in ev.said} & ev.said
    if opposite:
        return f"the context tells the opposite weather ({', '.join(sorted(opposite))})"
    if set(ev.owned) & set(ev.denied):  # "Tilly's home; the photos come next week"
        return f"its {' '.join(ev.owned)} told as not happened"
    if ev.denied and not ev.affirmed and not ev.kinds & ev.said:
        # (an event of its kind told about the subject is its event, whatever the
        # context adds in a clause that denies: "Mr Okoro replied — Finn can move up a
        # set if the test goes well")
        return f"its event is told as not happened: {', '.join(ev.denied)}"
    if ev.denied and not ev.affirmed and set(ev.denied) <= set(ev.deferred):
        # …nor when all it says of the condition's own words is that they are promised
        # for later ("Nav texted: 'invoice to follow next week'" for "Nav sends his
        # invoice"): the message is about the thing to come, not the thing. (A promise
        # to do is not this: "Morag texted: fine, she'll swap" is the answer itself.)
        return f"its {', '.join(ev.denied)} told as promised for later"
    return ""


def _words_hold(ev: Evidence, settings: Settings) -> tuple[bool, str]:
    """The keyword half, or why it does not hold ("" when it has nothing to say)."""
    if ev.keyword:
        return True, f"keyword {ev.keyword}"
    if ev.place_words:
        if ev.place and set(ev.place) >= set(ev.place_words) or _linked_place(ev):
            where = ", ".join(ev.place) or ", ".join(ev.subject)
            return True, f"at {where}"
        if ev.words.found:
            return False, f"the place is named ({', '.join(ev.words.found)}), not where one is"
        return False, ""
    w = ev.words
    if not w.found or w.coverage < settings.keyword_threshold:
        return False, w.why() if w.found else ""
    if w.names_only or w.rarest:
        return False, w.why()
    if ev.denied:  # "the grant budget sheet… no decision for a few days"
        return False, f"{w.why()}, but its {', '.join(ev.denied)} told as not happened"
    thing = trigger.thing_stems(ev.condition)
    if thing and not thing & set(w.found):  # "a quiet morning" at school, "the house is quiet"
        return False, f"{w.why()}, but not what it is about ({', '.join(sorted(thing))})"
    # Meaning must not point at another entry; with no vectors in this model's space
    # (never embedded, or another model's), words are all there is to go on. A store that
    # has them but none of this entry's (not embedded yet) cannot say it does not.
    if ev.hit is None and ev.measured:
        return False, f"{w.why()}, but its meaning is not embedded yet to compare"
    if ev.hit is not None and ev.hit.lead < settings.support_margin:
        return False, f"{w.why()}, but the context is closer to another entry"
    return True, f"words {', '.join(w.found)} ({w.coverage:.0%} of its weight)"


def _linked_place(ev: Evidence) -> bool:
    """A linked note's own name that the context puts one at ("In Bishop's on Gloucester
    Road" for "when I'm at the hardware shop" linking [[Bishop's Ironmongery]])."""
    return bool(set(ev.subject) & set(ev.place))


def _meaning_holds(ev: Evidence, settings: Settings) -> tuple[bool, str]:
    """The semantic half, or why it does not hold."""
    hit = ev.hit
    if hit is None or hit.view.role != "trigger":
        return False, ""
    need = settings.semantic_threshold + (settings.clause_offset if hit.unit.kind == "clause"
                                          else 0.0)
    if hit.score < need:
        return False, ""
    if hit.lead < settings.match_margin + (need - settings.semantic_threshold):
        return False, (f"meaning not specific: cosine {hit.score:.2f}, {hit.lead:+.2f} over "
                       "the next entry")  # a clause, a noisier vector, needs more lead too
    if hit.score < ev.floor:
        return False, "meaning: the context is about another note"
    # The names explain the likeness only as far as the context says them: a paraphrase
    # that never names the subject ("the little one" for Leo) needs only to be closer to
    # the condition than to its names; one that names it, `subject_margin` closer.
    margin = settings.subject_margin if ev.subject or ev.topic else 0.0
    if hit.subject is not None and hit.score - hit.subject < margin:
        return False, (f"only its names: cosine {hit.score:.2f} to the condition, "
                       f"{hit.subject:.2f} to its names alone")
    return True, hit.why("")


def _event_holds(ev: Evidence, settings: Settings) -> tuple[bool, str]:
    """The event rule, or why it does not hold."""
    kinds = ev.kinds
    if not kinds:
        return False, ""
    weather = kinds & WEATHER
    said = kinds & ev.said
    if weather:  # no subject to name: the weather words are most of the condition
        if not weather <= ev.said:
            return False, ""
        rest = _beside_weather(ev.condition)
        if rest and not rest & (set(ev.affirmed) | set(ev.subject)):
            # "a spring tide comes in with a southerly wind": a windy day is not it
            return False, f"the weather, but nothing of {', '.join(sorted(rest))}"
        return True, f"the weather ({', '.join(sorted(weather))})"
    if not said:
        if kinds & ev.told and not ev.subject:
            return _unnamed(ev, kinds & ev.told, settings)
        return False, ""
    if not ev.subject:
        return False, ""
    if ev.owned and not ev.owned_said and not ev.noted and not said & {"message"}:
        # "Isla's school photos come home": Isla coming home is not her photos arriving
        return False, (f"{_a(said)} about {', '.join(ev.subject)}, not its "
                       f"{' '.join(ev.owned)}")
    about = f"{_a(said)} about {', '.join(ev.subject)}"
    if ev.hit is None or ev.hit.lead < -settings.support_margin:
        # The condition's words may be far from how the context puts it; its notes are
        # not ("Hillside's receptionist" is near the note on Dr Osei, not "her office").
        if _notes_lead(ev, settings):
            return True, f"{about}; {_note_why(ev)}"
        return False, f"{about}, but the context is closer to another entry"
    return True, about


# Words a weather condition may hold that say no more than the weather does ("it gets
# properly windy", "a dry, sunny afternoon": the moment is its time of day).
WEATHER_GENERIC = frozenset(trigger.content_stems("""day days afternoon morning evening night
today tonight tomorrow overnight lunch lunchtime noon dawn dusk later soon next properly
proper heavily heavy really enough again first week weekend time nice lovely bit little
spell monday tuesday wednesday thursday friday saturday sunday"""))


_WEATHER_STEMS = frozenset(trigger.content_stems(" ".join(
    w for kind in WEATHER for w in trigger.EVENT_KINDS[kind])))


def _beside_weather(condition: str) -> set[str]:
    """The content stems of a weather condition that are neither weather nor generic
    ("allotment" of "it's dry enough to work the allotment"; "tide" of "a spring tide
    comes in with a southerly wind"): some of them must be told too. The verb that ends
    a weather ("the rain stops", "the wind dies down") is the weather's own."""
    said = trigger.content_stems(trigger.ENDING.sub(" ", condition))
    return said - _WEATHER_STEMS - WEATHER_GENERIC - {"get", "come"}


def _unnamed(ev: Evidence, told: frozenset, settings: Settings) -> tuple[bool, str]:
    """An event of the condition's kind told of no one it names, in words its notes use
    ("the electrician's estimate landed" for "the quote from Sparks Ltd arrives", whose
    note says Sparks are the electricians): its cue when the context is closer to this
    entry's notes than to any other's by `unnamed_margin`, and meaning does not point at
    another entry. With no other entry's notes to compare, the rule has nothing to say."""
    if ev.note is None or math.isinf(ev.note[1]) or ev.note[1] < settings.unnamed_margin:
        return False, ""
    if ev.hit is None or ev.hit.lead < -settings.support_margin:
        return False, f"{_a(told)}, but the context is closer to another entry"
    return True, f"{_a(told)}; {_note_why(ev)}"


def _notes_lead(ev: Evidence, settings: Settings) -> bool:
    """The context names the subject as only the entry's notes do, and is closer to them
    than to any other entry's notes. (A subject the condition names itself is in the
    condition's own words: meaning closer to another entry then points elsewhere.)"""
    return bool(ev.noted) and ev.note is not None and ev.note[1] >= settings.note_margin


def _note_why(ev: Evidence) -> str:
    cosine, lead = ev.note
    return (f"its notes are the closest of the ledger's (cosine {cosine:.2f}"
            + ("" if math.isinf(lead) else f", {lead:+.2f} over another entry's") + ")")


def _a(kinds: frozenset) -> str:
    """"an arrival", "a message, rain": the kinds of event said, with their article."""
    said = ", ".join(sorted(kinds))
    return ("an " if said[:1] in "aeiou" else "a ") + said


def _details(ev: Evidence) -> dict:
    """Which evidence was there, for `due --json` and `--explain`."""
    hit = ev.hit
    out = {"keyword_score": round(ev.words.coverage, 3), "words": list(ev.words.found),
           "semantic_score": None if hit is None else round(hit.score, 3),
           "lead": None if hit is None or hit.alone else round(hit.lead, 3),
           "subject": list(ev.subject), "event": sorted(ev.kinds & ev.said),
           "veto": list(ev.vetoes),
           "note_lead": None if ev.note is None or math.isinf(ev.note[1])
           else round(ev.note[1], 3)}
    if hit is not None:
        out.update(view=hit.view.kind, view_text=hit.view.text, unit=hit.unit.kind,
                   unit_text=hit.unit.text)
    return out
