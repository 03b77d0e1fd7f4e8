"""Query ranking (SPEC 5): cosine x (1 + W*s) x (1 + W_fire*b), the floor, the filters."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from vaultmem import rank
from vaultmem.embed import embed_text
from vaultmem.errors import UsageError
from vaultmem.rank import QueryOptions, coverage_exponent, meaning_floor
from vaultmem.store import Store

from .conftest import FakeEmbedder

NOW = datetime(2026, 8, 15)
QUERY = "vendor quote arrives"

FILES = {
    "projects/kitchen.md": "# Kitchen\nThe kitchen renovation budget and the cabinet quote.\n",
    "projects/garden.md": "# Garden\nPlant tomatoes and prune the hedge.\n",
    "notes/valve.md": "# Valve\nShower valve part numbers.\n",
    "notes/estimate.md": "# June estimate\nFigures for tiles and labour.\n",
    "notes/gutter.md": "# Gutter\nDownpipe brackets.\n",
    "archive/old.md": "---\nimportance: low\n---\n# Old\nA vendor quote from last year.\n",
    "Ledger.md": (
        "- [ ] Reconcile the figures [when:: vendor quote arrives] [[estimate]]\n"
        "- [ ] Replace the shower valve 📅 2026-08-10 [[valve]]\n"
        "- [ ] Check the gutter 🛫 2026-08-01 📅 2026-08-30 [[gutter]]\n"
        "- [ ] Renew the kitchen insurance 📅 2026-09-01 [[kitchen]]\n"
        "- [x] Pay the garden invoice 📅 2026-08-01 ✅ 2026-08-05 [[garden]]\n"
        "- [-] When the vendor quote arrives, call the gardener [[garden]] ❌ 2026-08-02\n"
    ),
}
# Firing at NOW for QUERY, in firing order: the trigger first (grounded: the query is
# its moment), then dated entries by how long their window has been open (gutter since
# the 1st, valve since the 10th; ambient: the query is not about them).
FIRING = ["notes/estimate.md", "notes/gutter.md", "notes/valve.md"]
GROUNDED = ["notes/estimate.md"]


def build(make_vault, files: dict[str, str] = FILES, config_toml: str | None = None):
    """A vault of `files` (mtime noon of August 1) indexed on the 1st, salience at NOW."""
    vault = make_vault(files, config_toml=config_toml, mtime=datetime(2026, 8, 1, 12),
                       index_at=datetime(2026, 8, 1))
    vault.salience(now=NOW)
    return vault


@pytest.fixture
def vault(make_vault):
    return build(make_vault)


def query(vault, text: str = QUERY, **opts):
    opts.setdefault("limit", 50)
    opts.setdefault("log_mentions", 0)
    opts.setdefault("mode", "dense")  # the blend arithmetic over cosine; hybrid tested below
    return vault.query(text, now=NOW, **opts)


def true_cosine(store: Store, embedder: FakeEmbedder, path: str, text: str) -> float:
    """The best chunk's cosine, recomputed from the chunk texts (not the stored vectors)."""
    chunks = store.execute(
        "SELECT n.title, c.heading, c.text FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE n.path = ?", [path]).fetchall()
    vectors = embedder.embed([embed_text(*row) for row in chunks])
    return float(np.max(vectors @ embedder.embed([text])[0]))


def stored_salience(store: Store, path: str) -> float:
    return store.execute("SELECT s.score FROM salience s JOIN notes n ON n.id = s.note_id "
                         "WHERE n.path = ?", [path]).fetchone()[0]


def live_paths(store: Store) -> set[str]:
    return {r[0] for r in store.execute("SELECT path FROM notes WHERE deleted = 0")}


@pytest.mark.parametrize(("weight", "fire_weight"), [(0.3, 1.0), (0.5, 2.0)])
def test_score_is_cosine_times_salience_times_firing(vault, weight, fire_weight):
    store, embedder = vault.store, vault.embedder
    result = query(vault, weight=weight, fire_weight=fire_weight)
    assert (result.weight, result.fire_weight) == (weight, fire_weight)
    hits = {h.path: h for h in result.results}
    for path, hit in hits.items():
        cos, sal = true_cosine(store, embedder, path, QUERY), stored_salience(store, path)
        b = 1.0 if path in FIRING else 0.0
        assert hit.firing is (path in FIRING), path
        assert hit.cosine == pytest.approx(round(cos, 4), abs=1e-9), path
        assert hit.salience == pytest.approx(round(sal, 4), abs=1e-9), path
        expected = cos * (1 + weight * sal) * (1 + fire_weight * b)
        assert hit.score == pytest.approx(round(expected, 4), abs=1e-9), path
        # the same identity from the returned (rounded) numbers, to their precision
        assert hit.score == pytest.approx(
            hit.cosine * (1 + weight * hit.salience) * (1 + fire_weight * b), abs=3e-4)
    estimate = hits["notes/estimate.md"]
    assert estimate.salience > 0 and estimate.firing
    assert [c["id"] for c in estimate.commitments] == ["c-reconcile-figures"]
    assert estimate.commitments[0]["why"] == (
        "trigger matched (strong cue): words arriv, vendor, quot (100% of its weight); by "
        "meaning: the context ~ condition «vendor quote arrives» (cosine 1.00, no other "
        "entry)")  # words rarest first (IDF over this vault)


def test_results_are_sorted_by_score_apart_from_placed_grounded_notes(vault):
    unplaced = query(vault, fire_slot=1000).results
    scores = [h.score for h in unplaced]
    assert scores == sorted(scores, reverse=True)
    placed = query(vault).results  # fire_slot 1: the grounded note leads
    assert placed[0].path == GROUNDED[0]
    rest = [h.score for h in placed[1:]]
    assert rest == sorted(rest, reverse=True)
    assert [h.rank for h in placed] == list(range(1, len(placed) + 1))


def test_no_prospective_is_the_pure_cosine_baseline(vault):
    store, embedder = vault.store, vault.embedder
    result = query(vault, prospective=False)
    assert (result.weight, result.fire_weight) == (0.0, 0.0)
    for hit in result.results:
        assert hit.score == hit.cosine
        assert hit.cosine == pytest.approx(
            round(true_cosine(store, embedder, hit.path, QUERY), 4), abs=1e-9)
        assert (hit.firing, hit.pinned, hit.commitments) == (False, False, [])
    scores = [h.score for h in result.results]
    assert scores == sorted(scores, reverse=True)


def test_floor_pins_only_grounded_notes(vault):
    result = query(vault, floor=True, limit=5)
    assert [h.path for h in result.results[:1]] == GROUNDED
    assert [h.pinned for h in result.results] == [True, False, False, False, False]
    assert [h.rank for h in result.results] == [1, 2, 3, 4, 5]
    # ambient firing notes (gutter, valve) are boosted where they stand, never pinned
    ambient = [h for h in query(vault, floor=True).results if h.path in FIRING[1:]]
    assert [(h.firing, h.pinned) for h in ambient] == [(True, False), (True, False)]
    rest = result.results[1:]
    assert [h.score for h in rest] == sorted((h.score for h in rest), reverse=True)


def test_floor_keeps_every_pinned_note_even_past_the_limit(vault):
    both = query(vault, floor=True, limit=1, text="vendor quote arrives: replace the valve?")
    # the trigger matched by its words (strength 1.0), the valve entry is what the query
    # is about (its action's words): both grounded, both pinned, strongest first
    assert [(h.path, h.pinned) for h in both.results] == [("notes/estimate.md", True),
                                                          ("notes/valve.md", True)]
    assert [(f["id"], f["grounded"]) for f in both.firing] == [
        ("c-reconcile-figures", True), ("c-replace-shower-valve", True),
        ("c-check-gutter", False)]
    nothing = query(vault, floor=True, limit=1, text="prune hedge")
    assert [(h.path, h.pinned) for h in nothing.results] == [("projects/garden.md", False)]


def test_without_floor_firing_notes_are_only_boosted_not_pinned(vault):
    hits = query(vault).results
    assert not any(h.pinned for h in hits)
    assert {h.path for h in hits if h.firing} == set(FIRING)


def test_resolved_entries_never_boost_their_note(vault):
    # garden.md is linked from a done entry whose date has passed and from a cancelled
    # entry whose trigger matches the query word for word.
    store, embedder = vault.store, vault.embedder
    [garden] = [h for h in query(vault).results if h.path == "projects/garden.md"]
    assert (garden.firing, garden.commitments) == (False, [])
    sal = stored_salience(store, "projects/garden.md")
    cos = true_cosine(store, embedder, "projects/garden.md", QUERY)
    assert garden.score == pytest.approx(round(cos * (1 + 0.3 * sal), 4), abs=1e-9)
    floored = query(vault, floor=True)
    assert [h.path for h in floored.results if h.pinned] == GROUNDED


def test_an_entry_whose_date_has_not_come_does_not_boost(vault):
    [kitchen] = [h for h in query(vault).results if h.path == "projects/kitchen.md"]
    assert (kitchen.firing, kitchen.pinned) == (False, False)


def test_salience_never_removes_a_result(make_vault):
    files = {**FILES, "notes/nothing.md": "---\nimportance: 0\n---\nZebra xylophone.\n"}
    weights = ("[salience]\nimportance = 1\nactivation = 0\ncentrality = 0\n"
               "prospective = 0\nrecency = 0\n")
    vault = build(make_vault, files, weights)
    store = vault.store
    assert stored_salience(store, "notes/nothing.md") == 0.0
    result = vault.query(QUERY, now=NOW, limit=100, log_mentions=0, mode="dense",
                         include_ledger=True)  # the ledger note is left out by default
    assert {h.path for h in result.results} == live_paths(store)
    assert len(result.results) == result.candidates == len(files)
    [nothing] = [h for h in result.results if h.path == "notes/nothing.md"]
    assert nothing.salience == 0.0
    assert nothing.score == nothing.cosine


def test_limit_cuts_the_ranked_list(vault):
    full = query(vault).results
    top3 = query(vault, limit=3).results
    assert [h.path for h in top3] == [h.path for h in full[:3]]


@pytest.mark.parametrize("folder", ["projects", "projects/", "/projects/"])
def test_a_folder_keeps_only_notes_under_it(vault, folder):
    result = query(vault, folders=folder)
    assert sorted(h.path for h in result.results) == ["projects/garden.md",
                                                      "projects/kitchen.md"]
    assert result.candidates == 2


def test_a_folder_is_a_folder_not_a_string_prefix(vault):
    with pytest.raises(UsageError, match=r"`folders` 'proj': no indexed note is under it"):
        query(vault, folders="proj")
    assert [h.path for h in query(vault, folders=["notes"], floor=True).results
            if h.pinned] == [
        "notes/estimate.md"]


def test_deleted_notes_are_never_returned(vault):
    root, store = vault.settings.vault, vault.store
    (root / "notes" / "valve.md").unlink()
    (root / "archive" / "old.md").unlink()
    vault.index(now=datetime(2026, 8, 14))
    vault.salience(now=NOW)
    result = query(vault, floor=True, include_ledger=True)
    paths = [h.path for h in result.results]
    assert "notes/valve.md" not in paths and "archive/old.md" not in paths
    assert sorted(paths) == sorted(live_paths(store))
    assert len(paths) == len(FILES) - 2
    assert [h.path for h in result.results if h.pinned] == ["notes/estimate.md"]


def test_top_results_are_logged_as_mentions(vault):
    store = vault.store
    top = [h.path for h in query(vault, log_mentions=2).results[:2]]
    rows = store.execute(
        "SELECT o.ts, n.path, o.detail FROM ops o JOIN notes n ON n.id = o.note_id "
        "WHERE o.op = 'retrieved' ORDER BY o.id").fetchall()
    assert [(ts, path) for ts, path, _ in rows] == [("2026-08-15T00:00:00", p) for p in top]
    assert rows[0][2] == '{"rank": 1, "query": "vendor quote arrives"}'
    assert query(vault, log_mentions=0).results
    assert store.execute("SELECT count(*) FROM ops WHERE op = 'retrieved'").fetchone() == (2,)


def test_closed_prospective_items_need_include_closed(make_vault):
    files = {
        "plans/open.md": "---\ntype: plan\n---\n# Open plan\nVendor quote plan.\n",
        "plans/closed.md": "---\ntype: plan\nstatus: closed\n---\n# Closed plan\n"
                           "Vendor quote plan.\n",
    }
    vault = build(make_vault, files)

    def paths(include_closed: bool) -> list[str]:
        return sorted(h.path for h in vault.query(QUERY, now=NOW, limit=10, log_mentions=0,
                                                  include_closed=include_closed).results)

    assert paths(include_closed=True) == ["plans/closed.md", "plans/open.md"]
    assert paths(include_closed=False) == ["plans/open.md"]


@pytest.mark.parametrize("fusion", ["score", "rrf"])
def test_hybrid_score_is_fused_relevance_times_the_same_multipliers(vault, fusion):
    hits = query(vault, mode="hybrid", fusion=fusion, explain=True, weight=0.5,
                 fire_weight=2.0).results
    assert hits
    for hit in hits:
        e = hit.explain
        expected = e["relevance"] * (1 + 0.5 * e["salience"]) * (1 + 2.0 * e["firing"])
        assert hit.score == pytest.approx(expected, rel=1e-3)  # explain rounds to 4 places
        assert 0.0 <= e["relevance"] <= 1.0 + 1e-9
        assert e["dense_rank"] >= 1


def test_hybrid_never_drops_a_note_and_lexical_finds_exact_words(vault):
    store = vault.store
    every = query(vault, mode="hybrid", limit=100, include_ledger=True).results
    assert {h.path for h in every} == live_paths(store)
    lexical = query(vault, text="valve", mode="lexical").results
    assert lexical and all(h.explain is None for h in lexical)
    assert all("valve" in (h.snippet + h.title).lower() or h.firing for h in lexical[:1])


def test_the_query_path_does_not_import_the_markdown_parser():
    """A cold `vaultmem query` pays for what it uses: parsing is index-time work."""
    from .conftest import modules_loaded

    assert modules_loaded("import vaultmem.rank, vaultmem.commitments",
                          ("markdown_it", "frontmatter", "yaml", "vaultmem.text.parse",
                           "vaultmem.ledger")) == []


def test_the_query_alone_is_embedded_when_nothing_could_fire(make_vault):
    files = {"notes/a.md": "# A\nAlpha. Beta gamma.\n",
             "Ledger.md": "- [ ] Renew the kitchen insurance 📅 2026-09-01 [[a]]\n"}
    vault = build(make_vault, files)
    embedder = vault.embedder
    text = "First sentence here. Second sentence there."
    embedder.calls.clear()
    vault.query(text, now=NOW, log_mentions=0)
    assert embedder.calls == [[text]]  # the one entry's window opens in September
    vault.query(text, now=datetime(2026, 9, 2), log_mentions=0)
    assert embedder.calls[-1][:3] == [text, "First sentence here.", "Second sentence there."]


@pytest.mark.parametrize("power", [0.0, 2.0])
def test_hybrid_weights_each_lexical_score_by_the_share_of_the_query_it_holds(vault, power):
    """relevance = (1 − α)·cosine/best + α·coverage^p·BM25/best BM25, for a note that
    no open commitment links (those keep their dense term as a lexical floor)."""
    text = "garden hedge trimmer warranty"  # the garden note holds two words of four
    hits = query(vault, text=text, mode="hybrid", explain=True, limit=100,
                 lexical_coverage=power, prospective=False).results
    best_cos = max(h.explain["cosine"] for h in hits)
    best_bm25 = max(-h.explain["bm25"] for h in hits if h.explain["bm25"] is not None)
    garden = next(h for h in hits if h.path == "projects/garden.md").explain
    assert garden["coverage"] == 0.5
    expected = 0.5 * garden["cosine"] / best_cos + 0.5 * 0.5 ** power * (
        -garden["bm25"] / best_bm25)
    assert garden["relevance"] == pytest.approx(expected, abs=2e-4)


# Filler words no note holds: they lengthen a context without adding evidence.
FILLER = ("zephyr quorum lattice marmot quibble vortex pylon sorrel yodel wicket fennel "
          "tundra gable cobalt").split()


def kitchen_terms(vault, text: str) -> tuple[dict, float, float]:
    """The kitchen note's explain row (an open commitment links it; it holds none of the
    words below), its dense term, and the largest lexical term of the query."""
    hits = query(vault, text=text, mode="hybrid", explain=True, limit=100, prospective=False,
                 lexical_coverage=3.0, coverage_words=8).results
    e = {h.path: h.explain for h in hits}
    best_cos = max(x["cosine"] for x in e.values())
    best_bm25 = max(-x["bm25"] for x in e.values() if x["bm25"] is not None)
    power = coverage_exponent(text, QueryOptions(lexical_coverage=3.0, coverage_words=8))
    lex = {p: (-x["bm25"] / best_bm25) * x["coverage"] ** power if x["bm25"] is not None
           else 0.0 for p, x in e.items()}
    kitchen = e["projects/kitchen.md"]
    assert kitchen["bm25"] is None
    return kitchen, kitchen["cosine"] / best_cos, max(lex.values())


def test_a_long_context_gives_a_note_found_by_meaning_its_dense_term_on_the_lexical_scale(
        vault):
    """Sixteen words or more: no note holds much of a long context, so the kitchen note
    (linked from an open commitment) gets its dense term times the largest lexical term
    as its own lexical term: found by meaning, never behind for lack of words, and
    lifted by weak word evidence no more than the notes that hold the words."""
    text = "garden hedge " + " ".join(FILLER)  # 16 words
    kitchen, dense, speaks = kitchen_terms(vault, text)
    assert kitchen["relevance"] == pytest.approx(0.5 * dense + 0.5 * dense * speaks, abs=3e-4)
    assert kitchen["relevance"] > 0.5 * dense


def test_a_short_question_does_not_lift_a_note_for_being_linked_from_a_commitment(vault):
    """Fails on the earlier rule, which gave the floor at every length: a question of up
    to `coverage_words` words is weighed by its words, and the kitchen note holds none
    of them, so its relevance is its dense term alone, as for any note without the
    words. (The earlier rule lifted such a note on every unrelated question asked while
    its commitment was open: eval_prospective.py's unrelated queries, 3-8 words, found
    the constraint note in the top 5 more often.)"""
    kitchen, dense, _ = kitchen_terms(vault, "garden hedge trimmer warranty")
    assert kitchen["lexical_term"] == 0.0
    assert kitchen["relevance"] == pytest.approx(0.5 * dense, abs=3e-4)


def test_in_between_the_floor_holds_part_way(vault):
    """Twelve words: the coverage exponent has faded by half, and the floor holds half."""
    text = "garden hedge " + " ".join(FILLER[:10])
    kitchen, dense, speaks = kitchen_terms(vault, text)
    assert kitchen["relevance"] == pytest.approx(0.5 * dense + 0.5 * 0.5 * dense * speaks,
                                                 abs=3e-4)


def test_the_floor_holds_where_the_coverage_exponent_has_faded():
    opts = QueryOptions(lexical_coverage=3.0, coverage_words=8)
    assert meaning_floor("garden hedge trimmer", opts) == 0.0
    assert meaning_floor(" ".join(FILLER[:8]), opts) == 0.0
    assert meaning_floor(" ".join(FILLER[:12]), opts) == pytest.approx(0.5)
    assert meaning_floor(" ".join(FILLER[:14] + ["garden", "hedge"]), opts) == 1.0
    # plain score fusion (no coverage rule): the floor at every length, as before
    assert meaning_floor("garden", QueryOptions(lexical_coverage=0.0)) == 1.0


def test_what_needs_no_vector_is_read_before_the_query_is_embedded(make_vault, monkeypatch):
    """The model loads in the background while a cold query starts (`embed.query_embedder`):
    the lexical leg, titles, filters and salience are read, and the snippets' stems
    computed, before the ranking waits for the query's vector, so that time overlaps the
    load. Fails on the earlier order, which
    embedded the query first."""
    vault = build(make_vault)
    seen: list[str] = []
    lexical_hits = Store.lexical_hits
    monkeypatch.setattr(Store, "lexical_hits",
                        lambda self, *a: seen.append("lexical") or lexical_hits(self, *a))
    embed = vault.embedder.embed
    monkeypatch.setattr(vault.embedder, "embed", lambda texts: seen.append("embed") or
                        embed(texts))
    stems = rank.query_stems
    monkeypatch.setattr(rank, "query_stems", lambda text: seen.append("stems") or stems(text))
    query(vault, mode="hybrid")
    assert seen == ["lexical", "stems", "embed"]


def test_a_tag_no_note_has_is_reported_before_the_model_is_asked(make_vault, monkeypatch):
    vault = build(make_vault)
    monkeypatch.setattr(vault.embedder, "embed", lambda texts: pytest.fail("embedded"))
    with pytest.raises(UsageError, match="no indexed note carries it"):
        query(vault, tags=["no-such-tag"])


def test_the_matcher_is_not_run_when_no_entry_could_fire(make_vault, monkeypatch):
    """No open entry has a condition or an open window: nothing can fire, so the matcher
    (its views, its weights, the context's clauses) is not run at all. Fails on the
    earlier code, which ran it on every query."""
    files = {"notes/a.md": "# A\nAlpha. Beta gamma.\n",
             "Ledger.md": "- [ ] Renew the kitchen insurance 📅 2026-09-01 [[a]]\n"}
    vault = build(make_vault, files)
    monkeypatch.setattr("vaultmem.commitments.firing_now",
                        lambda *a, **k: pytest.fail("the matcher ran"))
    assert query(vault, "alpha").firing == []


def test_dated_entries_alone_are_never_read_for_cues(make_vault, monkeypatch):
    """Only a condition has a cue: with dated entries alone (one due, so the query runs
    the matcher) the context is never read for one. Fails on the earlier code, which
    read it whatever the entries were."""
    files = {"notes/a.md": "# A\nAlpha. Beta gamma.\n",
             "Ledger.md": "- [ ] Renew the kitchen insurance 📅 2026-08-01 [[a]]\n"}
    vault = build(make_vault, files)
    monkeypatch.setattr("vaultmem.commitments._Told",
                        lambda *a: pytest.fail("the context was read for cues"))
    result = query(vault, "alpha")
    assert [(f["id"], f["grounded"]) for f in result.firing] == [
        ("c-renew-kitchen-insurance", False)]


AMBIENT = {  # fake-embedder cosines to "alpha beta gamma delta" in the comments
    "answer.md": "# Answer\nalpha beta gamma delta\n",  # 0.55
    "mid.md": "# Mid\nalpha beta rr rr\n",  # 0.38
    "bg1.md": "# Bg1\nalpha yy yy yy\n",  # 0.11
    "bg2.md": "# Bg2\nbeta xx xx xx\n",  # 0.11
    "amb.md": "# Amb\ngamma zz zz zz zz zz\n",  # 0.08: below a quarter of the best
    "comp.md": "# Comp\nbeta gamma qq qq\n",  # 0.26: comparably relevant
    "Ledger.md": "- [ ] Renew the permit 📅 2026-08-10 [[amb]]\n"
                 "- [ ] Book the ferry 📅 2026-08-10 [[comp]]\n",
}


@pytest.mark.parametrize("band", [0.25, 0.0])
def test_ambient_firing_lifts_a_note_only_among_comparably_relevant_ones(make_vault, band):
    """SPEC 5: an ambient note rises among comparably relevant notes, never from nowhere.
    comp (a quarter of the best relevance or more) is doubled past mid; amb (below) keeps
    its doubled score but is placed by its score without the factor, behind the two
    background notes it would otherwise pass. `ambient_band` 0: the earlier rule, every
    ambient note ranked by its score. Fails on the earlier code (amb 4th, no placement)."""
    vault = build(make_vault, AMBIENT, config_toml="about_threshold = 0.99\n")  # no "about"
    result = query(vault, "alpha beta gamma delta", explain=True, weight=0.0,
                   ambient_band=band)
    assert {(f["id"], f["grounded"]) for f in result.firing} == {
        ("c-book-ferry", False), ("c-renew-permit", False)}
    hits = {h.path: h for h in result.results}
    amb, comp = hits["amb.md"], hits["comp.md"]
    for hit in (amb, comp):  # the score is the formula's, b = 1, either way
        assert hit.firing and hit.score == pytest.approx(2 * hit.explain["relevance"],
                                                         abs=2e-4)
    assert comp.rank < hits["mid.md"].rank and comp.explain["placement"] is None
    if band:
        assert [h.path for h in result.results] == ["answer.md", "comp.md", "mid.md",
                                                    "bg1.md", "bg2.md", "amb.md"]
        assert amb.explain["placement"] == (
            f"ambient, from nowhere: relevance {amb.explain['relevance']:.3f} < 0.25 × the "
            f"best = {0.25 * hits['answer.md'].explain['relevance']:.3f}; by its score "
            f"without the firing factor, {amb.explain['relevance']:.3f}")
    else:
        assert amb.rank < hits["bg1.md"].rank and amb.explain["placement"] is None


def test_a_grounded_note_is_never_from_nowhere(make_vault):
    """The query is about a grounded entry: its notes keep the multiplier (and their
    placement) however low their relevance."""
    ledger = AMBIENT["Ledger.md"].replace("Renew the permit", "Renew the alpha beta permit")
    vault = build(make_vault, {**AMBIENT, "Ledger.md": ledger},
                  config_toml="about_threshold = 0.99\n")
    result = query(vault, "alpha beta gamma delta", explain=True, weight=0.0)
    amb = next(h for h in result.results if h.path == "amb.md")
    assert [f["grounded"] for f in amb.commitments] == [True]
    assert not amb.explain["placement"].startswith("ambient")
