"""`vaultmem related NOTE`: the notes close to one note, each with the reasons it is.

Three kinds of evidence, each on a 0–1 scale, added:

    score_j = meaning_j + links_j + 0.5 · tags_j

* meaning: the cosine of the two notes' mean chunk vectors, over the closest note's
  cosine (so the closest note by meaning has 1.0, whatever the model's cosine range).
* links: a link either way (depth 1) counts 1 / (1 + ln(1 + d_j / 10)), d_j the number
  of notes j is linked with: a map of content linking forty notes says little about
  any one of them. Two links away (depth 2), through notes k, counts
  0.5 · (1 − e^(−Σ_k 1 / ln(1 + d_k))), the Adamic–Adar sum: a path through a small
  note says more than one through a hub. A link written with another note's alias
  ([[Mum]] where Ruth's note has `aliases: [Mum]`) is counted as a link to that note
  (it resolves to nothing, but says whom the writer meant), and says so.
* tags: the share of the note's tag information (Σ idf of its tags) that j shares;
  half weight, since tags are coarse.

Ledger notes are neither results nor paths between notes: they link every commitment's
notes, and the note's open commitments are listed on their own, each with what fires on
it now (the due set's reason, the same as `vaultmem due`). No model runs: the vectors
are the stored ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from . import commitments, ledger_view
from .config import Settings
from .notedoc import find
from .schema import SCHEMA
from .store import Store, notes
from .text.rows import Item, plain

TAG_WEIGHT = 0.5
DEPTH2_WEIGHT = 0.5
HUB_SCALE = 10  # a note linked with this many notes counts 1 / (1 + ln 2) ≈ 0.59 per link
REASON_KINDS = ("link", "two links", "tags", "meaning")  # the order reasons are given in


@dataclass
class Reason(Item):
    """Why a note is related: its `kind` (link, two links, tags, meaning), a sentence,
    and what the kind measured (the others are None, and left out of the JSON)."""

    kind: str
    why: str
    weight: float | None = None  # link, two links: what the link counted
    via: list[str] | None = None  # two links: the notes in between
    tags: list[str] | None = None  # tags: those shared
    cosine: float | None = None  # meaning

    def as_dict(self) -> dict:
        return {k: v for k, v in super().as_dict().items() if v is not None}


@dataclass
class FiringHere(Item):
    """A commitment linking a related note that fires now, and why."""

    id: str
    action: str
    why: str


@dataclass
class OpenCommitment(Item):
    """One of the note's open commitments: whether it fires now, and why (or when)."""

    id: str
    action: str
    condition: str | None
    due: str | None
    fires: bool
    group: str | None
    why: str


@dataclass
class Related(Item):
    """One related note, with its score and every reason for it."""

    rank: int
    path: str
    title: str
    score: float
    reasons: list[Reason]
    commitments: list[FiringHere] = field(default_factory=list)  # linking it, firing now


@dataclass
class RelatedResult:
    """`vaultmem related --json`: the note, its open commitments, the related notes."""

    path: str
    title: str
    now: datetime
    depth: int
    commitments: list[OpenCommitment]
    results: list[Related]

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "note": {"path": self.path, "title": self.title},
                "now": self.now.isoformat(timespec="seconds"), "depth": self.depth,
                "commitments": plain(self.commitments), "results": plain(self.results)}


@dataclass
class _Graph:
    """The undirected note graph without ledger notes: who links whom, and how."""

    out: dict[int, set[int]]  # note -> notes it links
    into: dict[int, set[int]]  # note -> notes linking it
    by_alias: dict[tuple[int, int], str]  # (source, target) -> the alias the link used

    def neighbours(self, note: int) -> set[int]:
        return self.out.get(note, set()) | self.into.get(note, set())


def related(store: Store, settings: Settings, name: str, now: datetime, fingerprint: str,
            dim: int, *, limit: int = 10, depth: int = 2) -> RelatedResult:
    """The `limit` notes most related to the note `name` (a path or a link-style name)."""
    from .salience import ledger_note_ids

    note, path = find(store, name)
    titles = store.note_titles()
    ledgers = ledger_note_ids(store, settings)
    skip = ledgers | {note}  # never a result
    graph = _graph(store, ledgers)
    scores: dict[int, float] = {}
    reasons: dict[int, list[Reason]] = {}
    for signal in (_links(graph, note, depth, titles), _tags(store, note, skip),
                   _meaning(store, note, skip, fingerprint, dim, limit)):
        for j, (value, reason) in signal.items():
            scores[j] = scores.get(j, 0.0) + value
            reasons.setdefault(j, []).append(reason)
    top = sorted((j for j in scores if j in titles), key=lambda j: (-scores[j], titles[j][0]))
    due = ledger_view.due_set(store, settings, now, None, fingerprint)
    results = [Related(rank, titles[j][0], titles[j][1], round(scores[j], 4),
                       sorted(reasons[j], key=lambda r: REASON_KINDS.index(r.kind)),
                       _firing_on(due, titles[j][0]))
               for rank, j in enumerate(top[:limit], start=1)]
    return RelatedResult(path, titles.get(note, (path, path))[1], now, depth,
                         _open_commitments(store, due, note), results)


def _graph(store: Store, skip: set[int]) -> _Graph:
    out: dict[int, set[int]] = {}
    into: dict[int, set[int]] = {}
    for source, target in store.resolved_pairs():
        if source != target and source not in skip and target not in skip:
            out.setdefault(source, set()).add(target)
            into.setdefault(target, set()).add(source)
    by_alias = _alias_links(store, skip)
    for (source, target) in by_alias:
        out.setdefault(source, set()).add(target)
        into.setdefault(target, set()).add(source)
    return _Graph(out, into, by_alias)


def _alias_links(store: Store, skip: set[int]) -> dict[tuple[int, int], str]:
    """Unresolved links naming exactly one note's alias: (source, that note) -> alias."""
    from .text.resolve import fold

    aliases = store.alias_paths()
    ids = store.path_ids()
    found = {}
    for source, raw in notes.unresolved_wiki_links(store):
        owners = aliases.get(fold(raw.strip()), [])
        if len(owners) == 1 and source not in skip and ids[owners[0]] not in skip \
                and ids[owners[0]] != source:
            found[(source, ids[owners[0]])] = raw.strip()
    return found


def _links(graph: _Graph, note: int, depth: int, titles) -> dict[int, tuple[float, Reason]]:
    """Depth 1: a link either way; depth 2: through notes linked with both."""
    def degree(k: int) -> int:
        return len(graph.neighbours(k))

    out: dict[int, tuple[float, Reason]] = {}
    near = graph.neighbours(note)
    for j in near:
        weight = 1.0 / (1.0 + math.log(1.0 + degree(j) / HUB_SCALE))
        out[j] = (weight, Reason("link", _direction(graph, note, j), round(weight, 4)))
    if depth < 2:
        return out
    through: dict[int, list[int]] = {}
    for k in near:
        for j in graph.neighbours(k) - near - {note}:
            through.setdefault(j, []).append(k)
    for j, via in through.items():
        strength = sum(1.0 / math.log(1.0 + degree(k)) for k in via)
        weight = DEPTH2_WEIGHT * (1.0 - math.exp(-strength))
        via = sorted(via, key=degree)
        names = ", ".join(titles[k][1] for k in via[:3] if k in titles)
        more = f" and {len(via) - 3} more" if len(via) > 3 else ""
        out[j] = (weight, Reason("two links", f"two links away, through {names}{more}",
                                 round(weight, 4), via=[titles[k][0] for k in via if k in titles]))
    return out


def _direction(graph: _Graph, note: int, j: int) -> str:
    forth = j in graph.out.get(note, set())
    back = note in graph.out.get(j, set())
    alias = graph.by_alias.get((note, j)) or graph.by_alias.get((j, note))
    said = f" (as [[{alias}]], its alias)" if alias else ""
    if forth and back:
        return f"they link to each other{said}"
    return f"this note links to it{said}" if forth else f"it links to this note{said}"


def _tags(store: Store, note: int, skip: set[int]) -> dict[int, tuple[float, Reason]]:
    """Shared tags, each weighted by its rarity (idf over live notes)."""
    rows = notes.live_tags(store)
    live = notes.live_count(store)
    holders: dict[str, set[int]] = {}
    for note_id, tag in rows:
        if note_id not in skip or note_id == note:
            holders.setdefault(tag, set()).add(note_id)
    mine = sorted(tag for tag, ids in holders.items() if note in ids)
    idf = {tag: math.log(max(live, 1) / len(holders[tag])) for tag in mine}
    total = sum(idf.values())
    shared: dict[int, list[str]] = {}
    for tag in mine:
        for j in holders[tag] - {note}:
            shared.setdefault(j, []).append(tag)
    if total <= 0:
        return {}
    return {j: (TAG_WEIGHT * sum(idf[t] for t in tags) / total,
                Reason("tags", "shares " + ", ".join(f"#{t}" for t in tags), tags=tags))
            for j, tags in shared.items()}


def _meaning(store: Store, note: int, skip: set[int], fingerprint: str, dim: int,
             limit: int) -> dict[int, tuple[float, Reason]]:
    """Every note's cosine to the note, by their mean chunk vectors, over the best."""
    if not dim:
        return {}
    m = store.matrix(fingerprint, dim)
    if not len(m.note_ids):
        return {}
    ids = m.note_ids[m.starts]
    counts = np.diff(np.append(m.starts, len(m.vectors)))
    means = np.add.reduceat(m.vectors, m.starts) / counts[:, None]
    means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
    row = np.flatnonzero(ids == note)
    if not len(row):
        return {}
    cosine = means @ means[row[0]]
    keep = ~np.isin(ids, np.fromiter(skip, np.int64, len(skip)))
    if not keep.any():
        return {}
    best = float(cosine[keep].max())
    order = np.argsort(-np.where(keep, cosine, -np.inf), kind="stable")
    place = {int(ids[i]): n for n, i in enumerate(order[: int(keep.sum())], start=1)}
    out = {}
    for i in np.flatnonzero(keep):
        j, c = int(ids[i]), float(cosine[i])
        value = max(c, 0.0) / best if best > 0 else 0.0
        out[j] = (value, Reason("meaning", f"close in meaning (cosine {c:.2f}, "
                                f"{_ordinal(place[j])} closest)", cosine=round(c, 4)))
    return out


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _firing_on(due: ledger_view.DueResult, path: str) -> list[FiringHere]:
    """The commitments linking the note at `path` that fire now (the due set's, not
    coming up)."""
    return [FiringHere(i.id, i.action, i.why) for i in due.firing if path in i.notes]


def _open_commitments(store: Store, due: ledger_view.DueResult, note: int
                      ) -> list[OpenCommitment]:
    """The note's open commitments, each with whether it fires now and why (or when it
    comes up), as `vaultmem due` would say."""
    said = {i.id: i for i in due.results}
    out = []
    for e in commitments.open_entries(store):
        if note not in e.note_ids:
            continue
        item = said.get(e.id)
        fires = item is not None and item.group != "upcoming"
        out.append(OpenCommitment(e.id, e.action, e.condition,
                                  e.due.isoformat() if e.due else None, fires,
                                  item.group if item else None,
                                  item.why if item else _waiting(e)))
    return out


def _waiting(entry: commitments.OpenEntry) -> str:
    if entry.condition:
        return f"waits for its moment: when {entry.condition}"
    if entry.fires_from:
        return f"window opens {entry.fires_from.isoformat()}"
    return "no date and no condition"
