"""The offline salience job (SPEC 4) on small, hand-computable temp vaults.

Each component is checked against its definition with the arithmetic written
out: importance from front matter or type, ACT-R activation over the ops log,
PageRank over the link graph, prospective linkage to open ledger entries, and
recency from the file's mtime; then normalisation by the corpus maximum and the
weighted sum (default and configured weights).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import networkx as nx
import pytest

from vaultmem import config
from vaultmem.salience import COMPONENTS, importance, run_salience
from vaultmem.store import Store

from .conftest import open_vault

INDEXED = datetime(2026, 8, 1)
NOW = datetime(2026, 8, 10)
DEFAULT_WEIGHTS = {"importance": 0.30, "activation": 0.25, "centrality": 0.20,
                   "prospective": 0.15, "recency": 0.10}


def decay(days: float) -> float:
    """(d+1)^-0.5, written out again so the tests do not borrow the code's helper."""
    return (days + 1.0) ** -0.5


def write_vault(root: Path, files: dict[str, tuple[str, datetime]]) -> None:
    """Write {path: (text, mtime)} under root, with each file's mtime set exactly."""
    for rel, (text, mtime) in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        stamp = mtime.timestamp()
        os.utime(path, (stamp, stamp))


def open_indexed(vault: Path, now: datetime = INDEXED):
    """The vault at `vault` opened through the shared harness and indexed at `now`."""
    opened = open_vault(vault, index_at=now)
    return opened.settings, opened.store


def rows_by_path(store: Store) -> dict[str, dict]:
    rows = store.execute(
        "SELECT n.path, s.importance, s.activation, s.centrality, s.prospective, s.recency, "
        "s.score, s.computed_at FROM salience s JOIN notes n ON n.id = s.note_id").fetchall()
    keys = (*COMPONENTS, "score", "computed_at")
    return {r[0]: dict(zip(keys, r[1:], strict=True)) for r in rows}


def ids_by_path(store: Store) -> dict[str, int]:
    return dict(store.execute("SELECT path, id FROM notes"))


# -- the hand-computable vault -------------------------------------------------------
#
# Links (all resolved):  Home -> Alpha, Beta, Gamma   (and [[Nowhere]], unresolved)
#                        Alpha -> Beta
#                        Ledger -> Alpha (open entry), Done (done entry)
#                        daily/2026-08-01 -> Alpha

FILES = {
    "Home.md": ("---\ntype: moc\n---\n# Home\n[[Alpha]] [[Beta]] [[Gamma]] [[Nowhere]]\n",
                datetime(2026, 7, 27)),
    "Alpha.md": ("---\nimportance: high\n---\n# Alpha\nSee [[Beta]].\n", datetime(2026, 8, 10)),
    "Beta.md": ("---\nimportance: 0.3\nproject: House\n---\n# Beta\nPlain words.\n",
                datetime(2026, 8, 9)),
    "Gamma.md": ("---\nimportance: medium\n---\n# Gamma\nSome text #project/House\n",
                 datetime(2026, 8, 7)),
    "Done.md": ("---\ntype: log\n---\n# Done\nFinished.\n", datetime(2026, 8, 1)),
    "daily/2026-08-01.md": ("Walked to [[Alpha]].\n", datetime(2026, 8, 1)),
    "Ledger.md": ("- [ ] Fix the gutter 📅 2026-08-20 [[Alpha]] [project:: house]\n"
                  "- [x] Old thing [[Done]] ✅ 2026-07-01\n", datetime(2026, 8, 6)),
}
# Ledger links are commitments (P), not graph edges or mentions: Ledger.md -> Alpha and
# Ledger.md -> Done are left out of PageRank and of activation.
EDGES = [("Home.md", "Alpha.md"), ("Home.md", "Beta.md"), ("Home.md", "Gamma.md"),
         ("Alpha.md", "Beta.md"), ("daily/2026-08-01.md", "Alpha.md")]
# Mentions added by hand on top of the index run's own ops (all at 2026-08-01).
EXTRA_OPS = [
    ("2026-08-09T00:00:00", "retrieved", "Alpha.md"),  # d = 1
    ("2026-08-09T12:00:00", "surfaced", "Alpha.md"),  # d = 0.5
    ("2026-08-10T00:00:00", "retrieved", "Alpha.md"),  # d = 0
    ("2026-08-12T00:00:00", "retrieved", "Alpha.md"),  # after now: not yet a mention
    ("2026-08-09T00:00:00", "moved", "Alpha.md"),  # not a mention op
    ("2026-08-08T00:00:00", "deleted", "Beta.md"),  # not a mention op
    ("2026-08-05T00:00:00", "modified", "Gamma.md"),  # d = 5
]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    vault = tmp_path_factory.mktemp("sal") / "vault"
    write_vault(vault, FILES)
    settings, store = open_indexed(vault)
    ids = ids_by_path(store)
    with store.atomic():
        for ts, op, path in EXTRA_OPS:
            store.add_op(ts, op, ids[path])
    report = run_salience(store, settings, NOW)
    yield store, report, rows_by_path(store)
    store.close()


@pytest.mark.parametrize(("raw", "note_type", "path", "expected"), [
    ("high", None, "a.md", 1.0),
    ("Medium", None, "a.md", 0.6),
    (" LOW ", None, "a.md", 0.3),
    ("1.0", None, "a.md", 1.0),
    ("0.6", None, "a.md", 0.6),
    ("0.3", None, "a.md", 0.3),
    ("0", "moc", "a.md", 0.0),  # an explicit number wins over the type default
    ("high", "log", "daily/2026-08-01.md", 1.0),
    (None, "index", "a.md", 1.0),
    (None, "MOC", "a.md", 1.0),
    (None, "reference", "a.md", 1.0),
    (None, "log", "a.md", 0.3),
    (None, None, "daily/2026-08-01.md", 0.3),
    (None, None, "journal/2026-08-01 standup.md", 0.3),
    (None, "moc", "2026-08-01.md", 1.0),
    (None, None, "notes/budget 2026-08-01.md", 0.6),  # a date later in the name is no daily
    (None, None, "a.md", 0.6),
    (None, "project", "a.md", 0.6),
    ("unheard-of", None, "a.md", 0.6),  # unreadable importance falls back to the type
])
def test_importance_words_numbers_and_type_defaults(raw, note_type, path, expected):
    assert importance(raw, note_type, path) == expected


def test_every_live_note_gets_one_row_stamped_with_now(small):
    store, report, rows = small
    assert sorted(rows) == sorted(FILES)
    assert report.notes == len(FILES)
    assert report.computed_at == "2026-08-10T00:00:00"
    assert {r["computed_at"] for r in rows.values()} == {"2026-08-10T00:00:00"}


def test_importance_component(small):
    _, report, rows = small
    expected = {"Home.md": 1.0, "Alpha.md": 1.0, "Beta.md": 0.3, "Gamma.md": 0.6,
                "Done.md": 0.3, "daily/2026-08-01.md": 0.3, "Ledger.md": 0.6}
    assert {p: r["importance"] for p, r in rows.items()} == pytest.approx(expected, abs=1e-12)
    assert report.maxima["importance"] == 1.0


def test_activation_sums_power_decay_over_mention_ops(small):
    _, report, rows = small
    d9 = decay(9)  # every op of the index run on 2026-08-01 is 9 days before now
    raw = {
        # created, linked from Home and the daily note (the ledger's link is no mention);
        # plus three later mentions
        "Alpha.md": 3 * d9 + decay(1) + decay(0.5) + decay(0),
        "Beta.md": 3 * d9,  # created, linked from Home and Alpha ("deleted" is no mention)
        "Gamma.md": 2 * d9 + decay(5),  # created, linked from Home, modified on the 5th
        "Home.md": d9,
        "Done.md": d9,  # created (linked only from the ledger)
        "daily/2026-08-01.md": d9,
    }
    top = raw["Alpha.md"]
    assert report.maxima["activation"] == pytest.approx(top, abs=1e-12)
    got = {p: rows[p]["activation"] for p in raw}
    assert got == pytest.approx({p: v / top for p, v in raw.items()}, abs=1e-12)


def test_ledger_entries_are_not_mentions_of_the_ledger_note(tmp_path):
    write_vault(tmp_path, {
        "Ledger.md": ("- [ ] One thing to do\n- [ ] Another thing to do\n"
                      "- [ ] A third thing to do\n", INDEXED),
        "Plain.md": ("# Plain\nNothing links here.\n", INDEXED),
    })
    settings, store = open_indexed(tmp_path)
    run_salience(store, settings, NOW)
    rows = rows_by_path(store)
    # Both notes were created once, on the same day, and nothing links to either.
    assert rows["Ledger.md"]["activation"] == rows["Plain.md"]["activation"] == 1.0


def test_centrality_is_networkx_pagerank_over_resolved_links(small):
    _, report, rows = small
    graph = nx.DiGraph()
    graph.add_nodes_from(FILES)
    graph.add_edges_from(EDGES)
    rank = nx.pagerank(graph, alpha=0.85)
    top = max(rank.values())
    assert report.maxima["centrality"] == pytest.approx(top, abs=1e-6)
    got = {p: r["centrality"] for p, r in rows.items()}
    assert got == pytest.approx({p: v / top for p, v in rank.items()}, abs=1e-6)
    assert got["Beta.md"] == 1.0  # the most linked-to note is the maximum


def test_prospective_linked_shares_project_or_neither(small):
    _, _, rows = small
    expected = {
        "Alpha.md": 1.0,  # linked from the open entry
        "Beta.md": 0.6,  # front matter project: House, same as the open entry's (any case)
        "Gamma.md": 0.6,  # tag #project/House
        "Done.md": 0.0,  # linked only from a done entry
        "Home.md": 0.0,
        "daily/2026-08-01.md": 0.0,
        "Ledger.md": 0.0,
    }
    assert {p: r["prospective"] for p, r in rows.items()} == expected


def test_recency_decays_with_days_since_mtime(small):
    _, _, rows = small
    expected = {p: decay((NOW - mtime).days) for p, (_, mtime) in FILES.items()}
    assert expected["Alpha.md"] == 1.0 and expected["Home.md"] == 15 ** -0.5
    got = {p: r["recency"] for p, r in rows.items()}
    assert got == pytest.approx(expected, abs=1e-12)


def test_score_is_the_default_weighted_sum_of_the_stored_components(small):
    _, _, rows = small
    for path, row in rows.items():
        expected = sum(DEFAULT_WEIGHTS[name] * row[name] for name in COMPONENTS)
        assert row["score"] == pytest.approx(expected, abs=1e-12), path
    assert rows["Alpha.md"]["score"] == pytest.approx(
        0.30 + 0.25 + 0.20 * rows["Alpha.md"]["centrality"] + 0.15 + 0.10, abs=1e-12)


def test_each_component_is_divided_by_its_corpus_maximum(tmp_path):
    write_vault(tmp_path, {
        "a.md": ("---\nimportance: low\n---\nA\n", datetime(2026, 8, 7)),  # d = 3
        "b.md": ("---\nimportance: 0.15\n---\nB\n", datetime(2026, 7, 26)),  # d = 15
    })
    settings, store = open_indexed(tmp_path)
    report = run_salience(store, settings, NOW)
    rows = rows_by_path(store)
    assert report.maxima["importance"] == 0.3
    assert rows["a.md"]["importance"] == 1.0
    assert rows["b.md"]["importance"] == pytest.approx(0.5, abs=1e-12)
    assert report.maxima["recency"] == 0.5
    assert rows["a.md"]["recency"] == 1.0
    assert rows["b.md"]["recency"] == pytest.approx(0.25 / 0.5, abs=1e-12)
    # No open ledger entry anywhere: a zero maximum gives zeros, not a division by zero.
    assert report.maxima["prospective"] == 0.0
    assert rows["a.md"]["prospective"] == rows["b.md"]["prospective"] == 0.0


def test_configured_weights_from_the_salience_table(tmp_path):
    write_vault(tmp_path, FILES)
    (tmp_path / ".vaultmem").mkdir()
    (tmp_path / ".vaultmem" / "config.toml").write_text(
        "[salience]\nimportance = 0.5\nactivation = 0\ncentrality = 0\n"
        "prospective = 0.5\nrecency = 0.0\n", encoding="utf-8")
    settings, store = open_indexed(tmp_path)
    assert settings.salience == {"importance": 0.5, "activation": 0.0, "centrality": 0.0,
                                 "prospective": 0.5, "recency": 0.0}
    run_salience(store, settings, NOW)
    scores = {p: r["score"] for p, r in rows_by_path(store).items()}
    assert scores == pytest.approx({
        "Alpha.md": 0.5 * 1.0 + 0.5 * 1.0, "Beta.md": 0.5 * 0.3 + 0.5 * 0.6,
        "Gamma.md": 0.5 * 0.6 + 0.5 * 0.6, "Home.md": 0.5 * 1.0, "Done.md": 0.5 * 0.3,
        "daily/2026-08-01.md": 0.5 * 0.3, "Ledger.md": 0.5 * 0.6}, abs=1e-12)


def test_a_partial_salience_table_keeps_the_other_defaults(tmp_path):
    (tmp_path / ".vaultmem").mkdir()
    (tmp_path / ".vaultmem" / "config.toml").write_text("[salience]\nrecency = 0.4\n",
                                                        encoding="utf-8")
    settings = config.load(tmp_path)
    assert settings.salience == {**DEFAULT_WEIGHTS, "recency": 0.4}


def test_deleted_notes_get_no_row(make_vault, tmp_path):
    write_vault(tmp_path, FILES)
    vault = make_vault(root=tmp_path, index_at=INDEXED)
    settings, store = vault.settings, vault.store
    (tmp_path / "Gamma.md").unlink()
    vault.index(now=datetime(2026, 8, 2))
    run_salience(store, settings, NOW)
    assert sorted(rows_by_path(store)) == sorted(set(FILES) - {"Gamma.md"})
    # The deleted note is still in the store (history), just without a salience row.
    assert store.execute("SELECT deleted FROM notes WHERE path = 'Gamma.md'").fetchone() == (1,)


def test_a_note_with_all_zero_components_keeps_its_zero_row(tmp_path):
    write_vault(tmp_path, {
        "Zero.md": ("---\nimportance: 0\n---\nZero\n", INDEXED),
        "Some.md": ("---\nimportance: low\n---\nSome\n", INDEXED),
    })
    (tmp_path / ".vaultmem").mkdir()
    (tmp_path / ".vaultmem" / "config.toml").write_text(
        "[salience]\nimportance = 1\nactivation = 0\ncentrality = 0\nprospective = 0\n"
        "recency = 0\n", encoding="utf-8")
    settings, store = open_indexed(tmp_path)
    run_salience(store, settings, NOW)
    scores = {p: r["score"] for p, r in rows_by_path(store).items()}
    assert scores == {"Zero.md": 0.0, "Some.md": 1.0}


def test_two_runs_at_the_same_now_store_identical_rows(tmp_path):
    write_vault(tmp_path, FILES)
    settings, store = open_indexed(tmp_path)
    first = run_salience(store, settings, NOW)
    rows = store.execute("SELECT * FROM salience ORDER BY note_id").fetchall()
    second = run_salience(store, settings, NOW)
    assert store.execute("SELECT * FROM salience ORDER BY note_id").fetchall() == rows
    assert first.maxima == second.maxima
    assert len(rows) == len(FILES)


def test_an_empty_vault_gets_no_rows(tmp_path):
    settings, store = open_indexed(tmp_path)
    report = run_salience(store, settings, NOW)
    assert report.notes == 0
    assert report.maxima == dict.fromkeys(COMPONENTS, 0.0)
    assert store.execute("SELECT count(*) FROM salience").fetchone() == (0,)


def test_a_high_priority_open_entry_lifts_its_notes_importance(tmp_path):
    when = datetime(2026, 8, 1)
    files = {
        "a.md": ("# A\n", when), "b.md": ("# B\n", when), "c.md": ("# C\n", when),
        "d.md": ("---\nimportance: low\n---\n# D\n", when),
        "Ledger.md": ("- [ ] Call about A ⏫ [[a]]\n- [ ] Call about B 🔽 [[b]]\n"
                      "- [x] Call about C 🔺 ✅ 2026-07-01 [[c]]\n"
                      "- [ ] Call about D [priority:: highest] [[d]]\n", when),
    }
    write_vault(tmp_path / "v", files)
    settings, store = open_indexed(tmp_path / "v")
    run_salience(store, settings, NOW)
    rows = rows_by_path(store)
    store.close()
    # Normalised by the corpus maximum (1.0): a and d are lifted to "high"; b keeps its own
    # importance (low priority never lowers it); c's entry is done, so no lift.
    assert {p: rows[p]["importance"] for p in ("a.md", "b.md", "c.md", "d.md")} == {
        "a.md": 1.0, "b.md": 0.6, "c.md": 0.6, "d.md": 1.0}
