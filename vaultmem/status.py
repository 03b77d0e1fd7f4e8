"""What is indexed: counts, last runs, unresolved links, warnings, effective settings."""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import appended
from .config import Settings
from .embed import fingerprints_for, multilingual_advice
from .errors import ModelError
from .schema import SCHEMA
from .store import Store, candidates, entries, items, notes, runs, vectors, writer_running
from .text.folder import printable
from .text.resolve import fold, names_attachment
from .text.rows import Item


def link_summary(store: Store) -> tuple[dict[str, int], list[tuple]]:
    """The link counts of live notes, counted one way for `status` and `index`, and the
    unresolved links themselves, (source, line, target, kind), by source and line.

    `unresolved_links` counts occurrences, `unresolved_targets` the distinct notes
    they name (case-insensitively); links to attachments (a name with an extension
    other than .md, such as an image) are not notes and are counted apart.
    """
    resolved, rows = store.link_rows()
    unresolved = [row for row in rows if not names_attachment(row[2])]
    counts = {
        "links": resolved + len(rows),
        "resolved_links": resolved,
        "unresolved_links": len(unresolved),
        "unresolved_targets": len({fold(row[2]) for row in unresolved}),
        "attachment_links": len(rows) - len(unresolved),
    }
    return counts, unresolved


def gather(store: Store, settings: Settings) -> Status:
    """The `vaultmem status` document; a damaged store is an error (StoreDamagedError)."""
    store.check()
    links, unresolved = link_summary(store)
    languages = store.language_counts()
    aliases = store.alias_paths()
    table = notes.counts(store)
    counts = {**{k: table[k] for k in ("notes", "deleted", "chunks", "vectors")}, **links,
              "tags": table["tags"], "ops": table["ops"]}  # the document's order
    return Status(
        vault=printable(str(settings.vault)), db=printable(str(settings.db)),
        counts=counts,
        last_runs={kind: last_run(store, kind) for kind in ("index", "salience")},
        # A link written with an alias stays unresolved (SPEC 2); say which note has it.
        unresolved_links=[UnresolvedLink(p, ln, t, k, aliases.get(fold(t), []))
                          for p, ln, t, k in unresolved],
        warnings=[StatusWarning(p, ln, m) for p, ln, m in notes.warnings(store)]
        + [StatusWarning(lost["ledger"], None, lost["message"]) for lost in appended.lost(store)],
        ledger=entries.status_counts(store),
        prospective=_prospective_counts(store),
        # found in notes (`ledger suggest`): open, accepted, rejected, retired
        candidates=candidates.status_counts(store),
        languages=languages,
        multilingual=multilingual_advice(languages, settings),
        models=vector_models(store, settings),
        config=settings.as_dict(),
    )


def vector_models(store: Store, settings: Settings) -> list[dict]:
    """The models the store holds vectors of: each fingerprint's model, its count, and
    whether the settings rank with it (the multilingual option ranks with two)."""
    try:
        used = fingerprints_for(settings)
    except ModelError:  # the option's engine is not installed: `index` says how
        used = ()
    return [{"model": fp.split("|", 1)[0], "fingerprint": fp, "vectors": n, "in_use": fp in used}
            for fp, n in vectors.counts_by_fingerprint(store).items()]


def _prospective_counts(store: Store) -> dict:
    """{kind: {status: count}} of prospective items still in the vault."""
    out: dict[str, dict[str, int]] = {}
    for kind, status, n in items.status_counts(store):
        out.setdefault(kind, {})[status] = n
    return out


def last_run(store: Store, kind: str) -> dict | None:
    """The last run of `kind`. One still marked running while no process holds the writer
    lock was killed (SIGKILL, a power cut): it is shown as interrupted, as the next run
    will record it (`Store.start_run`)."""
    row = runs.last(store, kind)
    if not row:
        return None
    status = row[3]
    if status == "running" and not writer_running(store.path):
        status = "interrupted"
    return {"kind": row[0], "started": row[1], "finished": row[2], "status": status,
            "counts": json.loads(row[4]) if row[4] else None}


@dataclass
class Status(Item):
    """`vaultmem status`: counts, last runs, unresolved links, warnings, the ledger's,
    prospective items' and candidates' counts, and every effective setting; each key of
    the document an attribute, the items of its lists typed."""

    vault: str
    db: str
    counts: dict
    last_runs: dict
    unresolved_links: list[UnresolvedLink]
    warnings: list[StatusWarning]
    ledger: dict
    prospective: dict
    candidates: dict
    languages: dict  # live notes per language ("" where it could not be told)
    multilingual: str | None  # advice when the notes are in several languages
    models: list[dict]  # the models whose vectors the store holds (`vector_models`)
    config: dict

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, **super().as_dict()}


@dataclass
class UnresolvedLink(Item):
    """A link naming no note: where it is written, and the notes that carry the name as
    an alias (aliases are no link targets)."""

    source: str
    line: int
    target: str
    kind: str
    alias_of: list[str]


@dataclass
class StatusWarning(Item):
    """A problem with one file (and line), kept until the file is fixed."""

    path: str
    line: int | None
    message: str
