"""The index run's flags (store/runs.py) keep the stored form every earlier store has."""

from vaultmem.store import Store
from vaultmem.store.runs import LINKS_DIRTY, SETTLED, RunFlags


def test_links_pending_gathers_note_ids_until_everything_is_asked(tmp_path):
    store = Store.open(tmp_path / "s.db", create=True)
    flags = RunFlags(store)
    assert flags.links_pending() is None
    flags.add_links({3})
    flags.add_links({1})
    assert store.get_meta(LINKS_DIRTY) == "[1, 3]" and flags.links_pending() == {1, 3}
    flags.add_links(None)
    assert store.get_meta(LINKS_DIRTY) == "1" and flags.links_pending() == "all"
    flags.add_links({2})  # "all" stays all
    assert flags.links_pending() == "all"
    store.set_meta(LINKS_DIRTY, "not json")
    assert flags.links_pending() == "all"  # unreadable: resolve everything
    flags.links_resolved()
    assert flags.links_pending() is None
    store.close()


def test_settled_reads_back_what_was_settled_and_unsettle_clears_it(tmp_path):
    store = Store.open(tmp_path / "s.db", create=True)
    flags = RunFlags(store)
    assert flags.settled() is None and not flags.is_settled
    flags.settle({"fingerprint": "f", "links": {}})
    assert flags.settled() == {"fingerprint": "f", "links": {}} and flags.is_settled
    flags.unsettle()
    assert store.get_meta(SETTLED) == "" and flags.settled() is None
    store.set_meta(SETTLED, "{broken")
    assert flags.settled() is None
    store.close()
