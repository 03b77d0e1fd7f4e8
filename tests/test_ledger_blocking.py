"""The blocked identity matcher against an exhaustive one (tests/ledger_reference.py).

On generated ledgers with every entry reworded (scripts/bench_ledger.py makes them and
knows which old entry each new line came from), the blocked matcher must keep every
identity the exhaustive matcher kept. Where the exhaustive one kept none (its eight
candidates, chosen by letter counts among all entries, were all others), the blocked
one may keep one the matching rules allow; there must be few of those.
"""

from __future__ import annotations

import pytest

from vaultmem import ledger, ledger_reconcile

from .ledger_reference import match_exhaustive, similarity
from .test_hardening import load_script

bench = load_script("bench_ledger")


def _ledgers(n: int, seed: int):
    lines = bench.make_ledger(n, seed)
    known = [ledger_reconcile.Known(f"e{i}", e) for i, e in enumerate(bench.entries(lines))]
    truth, edited = zip(*bench.reword(lines, seed + 100), strict=True)
    return known, bench.entries(list(edited)), truth


@pytest.mark.parametrize(("n", "seed"), [(100, 1), (100, 2), (100, 3), (100, 4), (300, 1),
                                         (300, 2), (300, 4)])
def test_blocked_matcher_keeps_every_identity_the_exhaustive_one_kept(n, seed):
    known, current, truth = _ledgers(n, seed)
    old = match_exhaustive(known, current)
    new = ledger_reconcile._match(known, current)
    for ci, ki in old.items():
        assert new.get(ci) == ki, f"{current[ci].action!r}: was {known[ki].entry.action!r}"
    extra = new.keys() - old.keys()
    for ci in extra:
        assert similarity(known[new[ci]].entry, current[ci]) >= ledger_reconcile.MATCH_THRESHOLD
    assert len(extra) <= 0.01 * n
    assert sum(truth[ci] == ki for ci, ki in new.items()) >= 0.98 * n


def test_entries_sharing_no_word_link_or_date_are_never_compared():
    (a,), _ = ledger.parse_ledger("- [ ] Pay the plumber 📅 2026-08-15 [[Plumber]]")
    (b,), _ = ledger.parse_ledger("- [ ] Water tomatoes")
    blocks = ledger_reconcile._Blocks([a], [0])
    assert blocks.candidates(ledger_reconcile._Shape(b)) == []
    (c,), _ = ledger.parse_ledger("- [ ] Phone the plumber")
    assert blocks.candidates(ledger_reconcile._Shape(c)) == [0]


def test_a_common_key_alone_does_not_make_a_block():
    lines = "\n".join(f"- [ ] Pay bill {i}" for i in range(ledger_reconcile.BLOCK_CAP + 1))
    known, _ = ledger.parse_ledger(lines)
    blocks = ledger_reconcile._Blocks(known, list(range(len(known))))
    (entry,), _ = ledger.parse_ledger("- [ ] Pay bill 7 today")
    assert blocks.candidates(ledger_reconcile._Shape(entry)) == [7]
