"""What is indexed: counts, last runs, unresolved links, warnings, effective settings."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .config import Settings
from .schema import SCHEMA
from .store import Store

ATTACHMENT_HINT = "target_raw NOT GLOB '*.[a-zA-Z0-9]*' OR lower(target_raw) GLOB '*.md'"


def gather(store: Store, settings: Settings) -> dict:
    """The `vaultmem status` document."""
    q = store.execute

    def one(sql: str, params=()) -> int:
        return q(sql, params).fetchone()[0]

    unresolved = q(
        "SELECT n.path, l.line, l.target_raw, l.kind FROM links l "
        "JOIN notes n ON n.id = l.source_id "
        f"WHERE n.deleted = 0 AND l.target_id IS NULL AND ({ATTACHMENT_HINT}) "
        "ORDER BY n.path, l.line"
    ).fetchall()
    counts = {
        "notes": one("SELECT count(*) FROM notes WHERE deleted = 0"),
        "deleted": one("SELECT count(*) FROM notes WHERE deleted = 1"),
        "chunks": one("SELECT count(*) FROM chunks c JOIN notes n ON n.id = c.note_id "
                      "WHERE n.deleted = 0"),
        "vectors": one("SELECT count(*) FROM vectors"),
        "links": one("SELECT count(*) FROM links l JOIN notes n ON n.id = l.source_id "
                     "WHERE n.deleted = 0"),
        "unresolved_links": len(unresolved),
        "tags": one("SELECT count(DISTINCT tag) FROM tags"),
        "ops": one("SELECT count(*) FROM ops"),
    }
    return {
        "vault": str(settings.vault), "db": str(settings.db), "counts": counts,
        "last_runs": {kind: _last_run(store, kind) for kind in ("index", "salience")},
        "unresolved_links": [{"source": p, "line": ln, "target": t, "kind": k}
                             for p, ln, t, k in unresolved],
        "warnings": [{"path": p, "line": ln, "message": m} for p, ln, m in q(
            "SELECT path, line, message FROM warnings ORDER BY path, line")],
        "ledger": _ledger_counts(store),
        "prospective": _prospective_counts(store),
        "candidates": _candidate_counts(store),
        "config": settings.as_dict(),
    }


def _ledger_counts(store: Store) -> dict:
    rows = store.execute("SELECT CASE WHEN present = 1 THEN status ELSE 'removed' END, count(*) "
                         "FROM entries GROUP BY 1")
    return dict(rows.fetchall())


def _candidate_counts(store: Store) -> dict:
    """Commitments found in notes (`ledger suggest`): open, accepted, rejected, retired."""
    rows = store.execute("SELECT CASE WHEN present = 1 OR status != 'open' THEN status "
                         "ELSE 'retired' END, count(*) FROM candidates GROUP BY 1")
    return dict(rows.fetchall())


def _prospective_counts(store: Store) -> dict:
    """{kind: {status: count}} of prospective items still in the vault."""
    out: dict[str, dict[str, int]] = {}
    for kind, status, n in store.execute(
            "SELECT kind, status, count(*) FROM prospective WHERE present = 1 GROUP BY 1, 2"):
        out.setdefault(kind, {})[status] = n
    return out


def _last_run(store: Store, kind: str) -> dict | None:
    row = store.execute(
        "SELECT kind, started, finished, status, counts FROM runs WHERE kind = ? "
        "ORDER BY id DESC LIMIT 1", [kind]).fetchone()
    if not row:
        return None
    return {"kind": row[0], "started": row[1], "finished": row[2], "status": row[3],
            "counts": json.loads(row[4]) if row[4] else None}


@dataclass
class Status:
    """`vaultmem status`: the document `gather` builds, versioned."""

    doc: dict

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, **self.doc}
