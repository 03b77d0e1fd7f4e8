"""Commitments at query time: what fires now, and why (Filter, Decide). The documents
built on it (the due set, the ledger listing, an entry's history) are `ledger_view`.

The ledger is read into the store at index time (`ledger_sync`, the Revise step);
this module only reads the store, so a query never imports the markdown parser.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np

from . import clock, cue, trigger
from .config import Settings
from .cue import Cue
from .store import Store
from .store import entries as entry_rows
from .store import notes as note_rows
from .text.rows import Item
from .text.words import WORD

# -- firing -------------------------------------------------------------------

NEAREST = 32  # notes kept per context for `note_ratio`: more than any entry links

@dataclass
class OpenEntry:
    id: str
    action: str
    condition: str | None
    keywords: tuple[str, ...]
    fires_from: date | None
    due: date | None
    cond_hash: str | None
    note_ids: list[int]
    project: str | None
    line: int
    ledger_path: str


@dataclass
class Firing:
    entry: OpenEntry
    why: str
    kind: str  # "date" | "trigger": what opened it
    details: dict = field(default_factory=dict)
    grounded: bool = False  # fires on the query (its moment), not just in the background
    strength: float = 0.0  # the match's score; grounded firings are ordered by it
    strong: bool = False  # a grounded match strong enough to be placed at fire_slot

    def as_dict(self, notes: list[str]) -> dict:
        """The firing lane's row (SPEC 1): what fires, on the query or in the background."""
        return self.row(notes).as_dict()

    @property
    def confidence(self) -> str | None:
        """"strong" (placed at fire_slot) or "weak" (the multiplier alone) for a grounded
        firing; None for an ambient one."""
        return ("strong" if self.strong else "weak") if self.grounded else None

    def row(self, notes: list[str]) -> FiringRow:
        """The firing lane's typed row, with the paths of the notes it links."""
        return FiringRow(self.entry.id, self.entry.action, self.grounded, self.kind,
                         round(self.strength, 3), self.confidence, notes, self.why)


@dataclass
class FiringRow(Item):
    """One item of a query's `firing` lane: an open entry firing now, and why."""

    id: str
    action: str
    grounded: bool
    kind: str
    strength: float
    confidence: str | None  # "strong": placed at fire_slot; "weak": the multiplier alone
    notes: list[str]
    why: str


def may_fire_on(store: Store, now: datetime) -> bool:
    """Whether any open entry could fire on a query (a condition, or a window open):
    only then is the context split into units, each embedded."""
    return entry_rows.any_may_fire(store, now.date().isoformat())


def open_entries(store: Store) -> list[OpenEntry]:
    return [OpenEntry(r[0], r[1], r[2], tuple(json.loads(r[3] or "[]")), _day(r[4]), _day(r[5]),
                      r[6], [int(x) for x in (r[10] or "").split(",") if x], r[7], r[8], r[9])
            for r in entry_rows.open_rows(store)]


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def fire(entries: list[OpenEntry], now: datetime, settings: Settings,
         context: trigger.Context | None, views: dict[str, list[tuple[str, str, np.ndarray]]],
         nearest: list[tuple[int, float]] = (), weights: dict[str, float] | None = None,
         rare=None, measured: bool = True) -> list[Firing]:
    """Which open entries fire at `now` for `context`, each with its reason and kind.

    `views`: {entry id: [(view kind, text, vector or None)]}, computed at index time.
    `nearest`: the notes closest to the whole context, (note id, cosine), best first.
    `weights`: {stem: IDF over the vault} for the conditions' words (1 where missing);
    `rare`, `measured`: see `cues_for`.
    Grounded firings (the context is the entry's moment, or is about a dated entry whose
    window is open) come first, strongest first; then ambient ones (a date named in a
    condition arrived, then a window open), most urgent first.
    """
    today = now.date()
    cues = cues_for(entries, settings, context, views, nearest, weights or {}, today, rare,
                    measured)
    text = context.text if context else ""
    semantic = _semantic(entries, today, settings, context, views, nearest)
    grounded, ambient = [], []
    for i, entry in enumerate(entries):
        firing = _fire_one(entry, today, settings, text, cues.get(entry.id), semantic.get(i),
                           views.get(entry.id, []))
        if firing is None:
            continue
        (grounded if firing.grounded else ambient).append(firing)
    grounded.sort(key=lambda f: -f.strength)
    ambient.sort(key=lambda f: (f.kind != "trigger", _urgency(f.entry, today)))
    return grounded + ambient


def _urgency(entry: OpenEntry, today: date) -> date:
    """Most urgent first: the earliest due date (the longest overdue), else the window's
    start."""
    return entry.due or entry.fires_from or today


def _in_window(entry: OpenEntry, today: date) -> bool:
    return entry.fires_from is not None and entry.fires_from <= today


def _semantic(entries, today, settings, context, views, nearest
              ) -> dict[int, trigger.SemanticHit]:
    """The semantic half of "is the query about this dated entry" (its own text, for
    entries whose window is open), with every open entry's views in competition.

    A context much closer to some note than to any view of an entry is a question about
    that note, not the entry's moment: a view must reach `note_ratio` of the context's
    best cosine to a note the entry does not link (its own notes do not count against it).
    """
    if context is None or context.vecs is None:
        return {}
    candidates = _candidates(entries, today, views)
    need = {"trigger": 2.0, "about": settings.about_threshold}  # triggers: see cues_for
    return trigger.best_matches(context, candidates, need, settings.clause_offset, 0.0,
                                _floors(entries, candidates, settings, nearest))


def _candidates(entries, today, views) -> list[trigger.View]:
    out = []
    for i, entry in enumerate(entries):
        for kind, text, vec in views.get(entry.id, []):
            if vec is None:
                continue
            if entry.condition and kind in trigger.TRIGGER_VIEWS:
                out.append(trigger.View(i, kind, text, vec, "trigger"))
            elif entry.condition and kind == "subject":
                out.append(trigger.View(i, kind, text, vec, "subject"))
            elif _in_window(entry, today) and kind in trigger.ABOUT_VIEWS:
                out.append(trigger.View(i, kind, text, vec, "about"))
    return out


def _floors(entries, candidates, settings, nearest) -> dict[int, float]:
    return {i: settings.note_ratio * _best_other(nearest, entries[i].note_ids)
            for i in {v.owner for v in candidates}}


def _best_other(nearest, linked) -> float:
    """The best cosine among `nearest` notes that are not in `linked` (0 if none)."""
    return next((cos for note_id, cos in nearest if note_id not in linked), 0.0)


def cues_for(entries: list[OpenEntry], settings: Settings, context: trigger.Context | None,
             views: dict[str, list[tuple[str, str, np.ndarray]]],
             nearest: list[tuple[int, float]], weights: dict[str, float],
             today: date | None = None, rare=None, measured: bool = True
             ) -> dict[str, Cue]:
    """{entry id: its Cue} for every open entry with a trigger condition, all at once:
    the semantic half calibrates each entry against all the others, and a name a linked
    note carries is the entry's only if no other entry's notes carry it.

    `rare(stems) -> set`: those of the stems rare enough in the vault to name something
    (see `rare_stems`); None takes every stem as rare. `measured`: whether the store holds
    vectors in the context's model's space at all (`cue.Evidence.measured`)."""
    if context is None:  # a date written in a condition fires without any context
        return {e.id: cue.decide(cue.Evidence(e.condition, trigger.Words(0.0),
                                              dated=_condition_date(e.condition, today)),
                                 settings)
                for e in entries if _condition_date(e.condition, today)}
    if not any(e.condition for e in entries):  # only conditions have cues
        return {}
    hits: dict[int, trigger.SemanticHit] = {}
    ahead = frozenset(i for i, e in enumerate(entries) if trigger.looks_ahead(e.condition))
    if context.vecs is not None:
        candidates = [v for v in _candidates(entries, date.min, views) if v.role != "about"]
        hits = trigger.semantic_evidence(context, candidates, settings.clause_offset,
                                         settings.match_margin, ahead)
    floors = _floors(entries, [trigger.View(i, "", "", np.zeros(0)) for i in hits], settings,
                     nearest)
    noted = note_leads(entries, nearest)
    told = {False: _Told(context.text, False), True: _Told(context.text, True)}
    vetoes = tuple(c.veto for c in trigger.scoped_clauses(context.text) if c.veto)
    subjects = {k: _subject_names(entries, views, t.named, rare) for k, t in told.items()}
    sentences = trigger.sentence_count(context.text)
    return {entry.id: cue.decide(_evidence(
        entry, told[i in ahead], subjects[i in ahead].get(entry.id, set()), hits.get(i),
        floors.get(i, -1.0), views, weights, vetoes, today, measured, noted.get(i),
        sentences), settings)
        for i, entry in enumerate(entries) if entry.condition}


def note_leads(entries: list[OpenEntry], nearest: list[tuple[int, float]]
               ) -> dict[int, tuple[float, float]]:
    """{entry index: (the context's best cosine to a note it links, its lead over the
    best cosine to a note only other conditioned entries link)}, from the stored chunk
    vectors (`nearest`: per note, its best chunk's cosine to the context).

    What a linked note says of the condition's subject (Dr Osei works at Hillside
    Clinic) is evidence the context speaks of that subject in words the condition never
    uses ("Hillside's receptionist"), when the context is closer to this entry's notes
    than to every other entry's: a note several entries link leads for none of them. A
    note outside `nearest` is no closer than its last cosine."""
    cosine = dict(nearest)
    floor = nearest[-1][1] if nearest else 0.0
    linked = {i: set(e.note_ids) for i, e in enumerate(entries) if e.condition and e.note_ids}
    out = {}
    shared = {n for i, notes in linked.items() for n in notes
              if any(n in other for j, other in linked.items() if j != i)}
    for i, notes in linked.items():
        mine = notes - shared
        best = max((cosine[n] for n in mine if n in cosine), default=None)
        if best is None:
            continue
        theirs = set().union(*(n for j, n in linked.items() if j != i)) - notes
        rival = max((cosine.get(n, floor) for n in theirs), default=-math.inf)
        out[i] = (best, best - rival)
    return out


def _evidence(entry: OpenEntry, told: _Told, noted: set[str], hit, floor: float, views,
              weights: dict[str, float], vetoes: tuple[str, ...], today,
              measured: bool = True, note: tuple[float, float] | None = None,
              sentences: int = 1) -> cue.Evidence:
    """One entry's evidence from what the context tells (`noted`: the names only its
    linked notes carry that the context says)."""
    names = trigger.name_stems(entry.condition)
    topic = trigger.topic_stems(entry.condition) & told.named
    subject = (names & told.named) - topic | noted
    owned = trigger.owned_stems(entry.condition)
    # its own words (not its names) that the context says only where it denies them
    denied = (trigger.content_stems(entry.condition) - names) & told.vetoed - told.stems
    place = trigger.place_of(entry.condition)
    place_words = tuple(sorted(trigger.content_stems(place)))
    placed = told.placed & (set(place_words) | _titled(subject, views, entry)) if place else ()
    return cue.Evidence(
        entry.condition, trigger.word_evidence(entry.condition, told.text, weights), hit,
        floor, tuple(sorted(placed)), place_words, tuple(sorted(subject)),
        _said(told.sentences, subject), _keywords_found(entry.keywords, told.stems),
        _condition_date(entry.condition, today), vetoes, measured, note,
        tuple(sorted(denied)), tuple(sorted(owned)), _owned_said(told, owned, subject),
        tuple(sorted(noted)),
        tuple(sorted((trigger.content_stems(entry.condition) - names) & told.stems)),
        tuple(sorted(topic)), told.kinds, tuple(sorted(set(denied) & told.deferred)),
        sentences)


class _Told:
    """What a context tells, without its vetoed clauses (`ahead`: keeping the ones that
    only say something is coming): its text, stems, the places it puts one at, and per
    sentence the names it says and the kinds of event it speaks of."""

    def __init__(self, text: str, ahead: bool):
        self.text = trigger.affirmed_text(text, ahead)
        self.stems = trigger.content_stems(self.text)
        # what the context denies: a hedge ("maybe four or five meals left") does not
        self.vetoed = trigger.content_stems(" ".join(
            c.text for c in trigger.scoped_clauses(text)
            if trigger.vetoes(c.veto, ahead) and not trigger.hedged(c)))
        # …and what it says is promised for later ("invoice to follow next week")
        self.deferred = trigger.content_stems(" ".join(
            c.text for c in trigger.scoped_clauses(text)
            if trigger.vetoes(c.veto, ahead) and trigger.deferred(c.veto)))
        self.placed = trigger.placed_stems(text, ahead)
        told = trigger.told_sentences(text, ahead)
        names = [trigger.name_stems_in(s) for s in told]
        self.sentences = [(n, frozenset(trigger.told_kinds(s))) for n, s in zip(names, told,
                                                                                 strict=True)]
        self.named = set().union(*names) if names else set()
        self.kinds = frozenset().union(*(k for _, k in self.sentences))
        # per told sentence, the names it says and its stems (what it says of them)
        self.said = [(n, trigger.content_stems(s)) for n, s in zip(names, told, strict=True)]


def _owned_said(told: _Told, owned: set[str], subject: set[str]) -> bool:
    """Whether a told sentence that names the subject says what of theirs the condition
    waits for ("Tilly's back. Printed some photos of the garden": the photos are not
    Tilly's)."""
    return any(names & subject and owned & stems for names, stems in told.said)


def _titled(names: set[str], views, entry: OpenEntry) -> set[str]:
    """Those of `names` that are in the title (or an alias) of a note the entry links: a
    presence condition's place may be named by its note ("In Bishop's" for "I'm at the
    hardware shop" linking [[Bishop's Ironmongery]]), not by any name the note mentions."""
    titles = " ".join(t for k, t, _ in views.get(entry.id, []) if k in ("title", "alias"))
    return names & trigger.content_stems(titles)


def _said(sentences: list[tuple[set[str], frozenset]], subject: set[str]) -> frozenset:
    """The event kinds the context tells: the weather anywhere, any other kind only in a
    sentence that names the subject (a parcel arriving is not Finn coming back because
    Finn is named two sentences later)."""
    out = set()
    for names, kinds in sentences:
        out |= kinds & cue.WEATHER
        if names & subject:
            out |= kinds
    return frozenset(out)


def _subject_names(entries, views, named: set[str], rare) -> dict[str, set[str]]:
    """{entry id: the names its linked notes carry that the context names (`named`: the
    stems of its capitalised words), that no other entry's notes carry, and that are rare
    in the vault}."""
    names = {e.id: trigger.content_stems(" ".join(t for k, t, _ in views.get(e.id, [])
                                                  if k == "names"))
             - trigger.content_stems(e.condition or "") for e in entries if e.condition}
    kinds = {e.id: _kinds_of(e.condition) for e in entries if e.condition}
    found = {}
    for entry_id, mine in names.items():
        others = set().union(*(v for k, v in names.items()
                               if k != entry_id and _compete(kinds[entry_id], kinds[k])))
        found[entry_id] = (mine - others) & named
    wanted = set().union(*found.values()) if found else set()
    keep = rare(wanted) if rare is not None and wanted else wanted
    return {k: v & keep for k, v in found.items() if v & keep}


def _kinds_of(condition: str) -> frozenset:
    """The kinds of event a condition waits for; "presence" for "I'm at X"."""
    kinds = frozenset(trigger.told_kinds(condition))
    return kinds | {"presence"} if trigger.place_of(condition) else kinds


def _compete(mine: frozenset, theirs: frozenset) -> bool:
    """Whether a name both entries' notes carry could be told for either: unless both wait
    for events of known, different kinds (a name in a message says which of two replies
    came, not which of a reply and a delivery). A place's name is a place for anyone
    ("at Millbrook" may be the school as well as the garden centre)."""
    if not mine or not theirs or "presence" in mine | theirs:
        return True
    return bool(mine & theirs)


def _keywords_found(keywords: tuple[str, ...], stems: set[str]) -> str:
    """The first `keywords::` entry whose every word the context says."""
    for kw in keywords:
        wanted = trigger.content_stems(kw)
        if wanted and wanted <= stems:
            return kw
    return ""


def _condition_date(condition: str | None, today: date | None) -> str:
    """The reason a date written in the condition has arrived, else ""."""
    match = trigger.keyword_match(condition, (), "", 2.0, today) if today else None
    return match.why if match and match.fired else ""


def _fire_one(entry, today, settings, text, found: Cue | None, hit, views) -> Firing | None:
    if found is not None and found.fired:
        by_date = found.evidence.get("half") == "date"
        return Firing(entry, found.why, "trigger", found.evidence, grounded=not by_date,
                      strength=found.strength, strong=found.strong)
    window = _date_reason(entry, today)
    if window is None:
        return None
    about, share = _about_keywords(entry, text, views, settings.keyword_threshold)
    if about:
        return Firing(entry, f"{window}; the query is about it: {about}", "date",
                      _details(share, hit, "keywords"), grounded=True, strength=share,
                      strong=True)
    if hit is not None and hit.view.role == "about":
        return Firing(entry, f"{window}; the query is about it: {hit.why('matched')}", "date",
                      _details(0.0, hit, "meaning"), grounded=True, strength=hit.score,
                      strong=True)
    return Firing(entry, window, "date", _details(0.0, None, "date"))


def _about_keywords(entry, text, views, threshold) -> tuple[str, float]:
    """The keyword half of "is the query about this entry": its `keywords::`, the stems
    of its action (their share, as for a condition), or every stem of a linked note's
    title or alias; with the share of words found."""
    if not text:
        return "", 0.0
    match = trigger.keyword_match(entry.action, entry.keywords, text, threshold)
    if match.fired:
        return match.why.replace("trigger matched", "action words"), match.keyword_score
    stems = trigger.content_stems(text)
    for kind, view_text, _ in views:
        wanted = trigger.content_stems(view_text)
        if kind in ("title", "alias") and wanted and wanted <= stems:
            return f"{kind} named: {view_text}", 1.0
    return "", 0.0


def _details(keyword_score: float, hit, half: str) -> dict:
    out = {"half": half, "keyword_score": round(keyword_score, 3),
           "semantic_score": None if hit is None else round(hit.score, 3)}
    if hit is not None and half == "meaning":
        out.update(view=hit.view.kind, view_text=hit.view.text, unit=hit.unit.kind,
                   unit_text=hit.unit.text)
    return out


def _date_reason(entry: OpenEntry, today: date) -> str | None:
    if entry.fires_from is None or entry.fires_from > today:
        return None
    if entry.due and entry.due < today:
        return f"overdue since {entry.due.isoformat()}"
    if entry.due == today:
        return f"due today ({today.isoformat()})"
    return f"window open since {entry.fires_from.isoformat()}" + (
        f", due {entry.due.isoformat()}" if entry.due else "")


def entry_views(store: Store, fingerprint: str, entries: list[OpenEntry]
                ) -> dict[str, list[tuple[str, str, np.ndarray]]]:
    """{entry id: [(view kind, text, vector or None)]}: vectors under `fingerprint` for
    the embedded views. A store indexed before views existed still has its conditions."""
    ids = [e.id for e in entries]
    if not ids:
        return {}
    out: dict[str, list] = {}
    for entry_id, kind, text, blob in entry_rows.view_vectors(store, fingerprint, ids):
        vec = None if blob is None else np.frombuffer(blob, np.float32)
        out.setdefault(entry_id, []).append((kind, text, vec))
    missing = [e for e in entries if e.id not in out and e.cond_hash]
    vecs = store.vectors_for(fingerprint, [e.cond_hash for e in missing])
    for e in missing:
        if e.cond_hash in vecs:
            out[e.id] = [("condition", e.condition, vecs[e.cond_hash])]
    return out


def firing_now(store: Store, settings: Settings, now: datetime,
               context: trigger.Context | None, fingerprint: str,
               nearest: list[tuple[int, float]] | None = None) -> list[Firing]:
    """Load open entries and their views' vectors, then decide what fires.

    `nearest`: the notes closest to the context, best first, if the caller has ranked
    them already (a query has); else they are computed here from the stored vectors.
    """
    found = _inputs(store, context, fingerprint, nearest)
    return fire(found.entries, now, settings, context, found.views, found.nearest,
                found.weights, found.rare, found.measured)


def cues_now(store: Store, settings: Settings, now: datetime, context: trigger.Context,
             fingerprint: str) -> dict[str, Cue]:
    """{entry id: Cue} for every open entry with a trigger condition: does `context` fire
    it, how strongly, and why. The matcher's one public answer: `due`, `query` and
    `nudge --context` all decide by it."""
    found = _inputs(store, context, fingerprint, None)
    return cues_for(found.entries, settings, context, found.views, found.nearest,
                    found.weights, clock.local_naive(now).date(), found.rare, found.measured)


@dataclass
class _Inputs:
    entries: list[OpenEntry]
    views: dict
    nearest: list[tuple[int, float]]
    weights: dict[str, float]
    rare: object
    measured: bool = True  # the store holds vectors in the context's space (chunks or views)


def _inputs(store: Store, context, fingerprint: str, nearest) -> _Inputs:
    """The open entries, their views, the notes nearest the context and the words'
    weights: everything the matcher weighs, read once."""
    entries = open_entries(store)
    views = entry_views(store, fingerprint, entries) if entries else {}
    chunks = 0
    if entries and context is not None and context.vec is not None:
        m = store.matrix(fingerprint, context.vec.shape[0])
        chunks = len(m.chunk_ids)
        if nearest is None:
            nearest = nearest_notes(m.note_ids[m.starts], np.maximum.reduceat(
                m.vectors @ context.vec, m.starts)) if len(m.note_ids) else []
    weights = word_weights(store, entries, chunks) if context is not None else {}
    measured = context is not None and context.vec is not None and (chunks > 0 or any(
        vec is not None for found in views.values() for _, _, vec in found))
    return _Inputs(entries, views, nearest or [], weights,
                   lambda stems: rare_stems(store, stems, chunks), measured)


def word_weights(store: Store, entries: list[OpenEntry], chunks: int) -> dict[str, float]:
    """{stem: IDF over the vault's chunks} for every content word of the open conditions
    (SPEC 5: a rare word of a condition is evidence, an everyday one hardly)."""
    words: dict[str, str] = {}
    for entry in entries:
        for word in WORD.findall(entry.condition or ""):
            stem = trigger.content_stems(word)
            if stem:
                words.setdefault(next(iter(stem)), word.lower().replace("'s", ""))
    if not words or chunks <= 0:
        return {}
    df = store.stem_frequencies(words, trigger.stem)
    return {stem: trigger.idf(min(n, chunks), chunks) for stem, n in df.items()}


# A linked note's name says what the note is about only if few chunks of the vault carry
# it: "Janine" (the care coordinator) does, "Home" (of "Brightwell Home Care") does not.
NAME_SHARE = 0.05
# In a small vault 5% of its chunks is fewer than the chunks that speak of one person: the
# note about them (its title and its body) and a note that mentions them.
NAME_CHUNKS = 3


def rare_stems(store: Store, stems: set[str], chunks: int) -> set[str]:
    """Those of `stems` in at most NAME_SHARE of the vault's chunks (and at least
    NAME_CHUNKS)."""
    if not stems or chunks <= 0:
        return set()
    df = store.stem_frequencies({s: s for s in stems}, trigger.stem)
    most = max(NAME_CHUNKS, NAME_SHARE * chunks)
    return {s for s in stems if df.get(s, 0) <= most}


def nearest_notes(note_ids: np.ndarray, cosine: np.ndarray, k: int = NEAREST
                  ) -> list[tuple[int, float]]:
    """The `k` notes of highest cosine, best first (an entry links only a few of them)."""
    k = min(k, len(cosine))
    top = np.argpartition(-cosine, k - 1)[:k] if k else np.array([], int)
    top = top[np.argsort(-cosine[top], kind="stable")]
    return [(int(note_ids[i]), float(cosine[i])) for i in top]


def paths_by_id(store: Store, ids: set[int]) -> dict[int, str]:
    """Each live note's vault path by its id (a deleted note has none: it names no result)."""
    return note_rows.live_paths(store, ids)


def note_paths(store: Store, ids: list[int]) -> list[str]:
    paths = paths_by_id(store, set(ids))
    return [paths[i] for i in ids if i in paths]
