"""An exhaustive fuzzy matcher, to check the blocked `ledger_reconcile._match` against,
and a count of the pairs the blocked one compares.

It compares every remembered entry with every current one (quadratic: minutes at
5,000 entries). The blocked matcher must give the same identities; tests and
scripts/bench_ledger.py --reference compare the two. Not used by vaultmem itself.
"""

from __future__ import annotations

import difflib

from vaultmem.ledger_reconcile import (
    _MATCH_STAGES,
    FUZZY_CANDIDATES,
    MATCH_THRESHOLD,
    _bonus,
    _distinct_blocks,
    _pair_similar,
    greedy_pairs,
)


def similarity(a, b) -> float:
    """How likely ``b`` is an edit of ``a``: action ratio plus link and date bonuses, as
    the fuzzy stage scores a pair. Two different block ids mean two different
    commitments (0.0)."""
    if _distinct_blocks(a, b):
        return 0.0
    matcher = difflib.SequenceMatcher(None, a.action.lower(), b.action.lower(), autojunk=False)
    return matcher.ratio() + _bonus(a, b)


def match_exhaustive(known, current) -> dict[int, int]:
    """current index -> known index: the exact stages, then every pair compared."""
    pairs: dict[int, int] = {}
    stages = [s for s in _MATCH_STAGES if s is not _pair_similar] + [_pair_similar_exhaustive]
    for stage in stages:
        taken = set(pairs.values())
        free_k = [ki for ki in range(len(known)) if ki not in taken]
        free_c = [ci for ci in range(len(current)) if ci not in pairs]
        for ki, ci in stage(known, current, free_k, free_c):
            pairs[ci] = ki
    return pairs


def _pair_similar_exhaustive(known, current, free_k, free_c):
    """The same greedy assignment, over every known entry instead of a block."""
    return greedy_pairs(known, current, free_c,
                        lambda ci: _closest_exhaustive(known, current[ci], free_k))


def _closest_exhaustive(known, entry, free_k):
    matcher = difflib.SequenceMatcher(None, "", entry.action.lower(), autojunk=False)
    bounds = []
    for ki in free_k:
        old = known[ki].entry
        if _distinct_blocks(old, entry):
            continue
        matcher.set_seq1(old.action.lower())
        bonus = _bonus(old, entry)
        if matcher.real_quick_ratio() + bonus >= MATCH_THRESHOLD:
            bound = matcher.quick_ratio() + bonus
            if bound >= MATCH_THRESHOLD:
                bounds.append((-bound, ki, bonus))
    found = []
    for _, ki, bonus in sorted(bounds)[:FUZZY_CANDIDATES]:
        matcher.set_seq1(known[ki].entry.action.lower())
        score = matcher.ratio() + bonus
        if score >= MATCH_THRESHOLD:
            found.append((score, ki))
    return found


def reworded(bench, n: int) -> tuple[list, list]:
    """(the entries of a generated ledger of `n`, the same with every one reworded), from
    scripts/bench_ledger.py (`bench`), which knows which new line came from which."""
    lines = bench.make_ledger(n, seed=3)
    return (bench.entries(lines),
            bench.entries([line for _, line in bench.reword(lines, seed=4)]))


def pairs_compared(monkeypatch, match) -> int:
    """How many (remembered, current) pairs the fuzzy stage looks at while `match()`
    runs. Counted, not timed: every pair looked at passes through `_distinct_blocks`
    once. The exact ratio is stubbed out meanwhile: it does not decide which pairs are
    looked at, and the real one would take minutes on a large ledger."""
    from vaultmem import ledger_reconcile

    calls = 0
    real = ledger_reconcile._distinct_blocks

    def counted(a, b):
        nonlocal calls
        calls += 1
        return real(a, b)

    with monkeypatch.context() as patch:
        patch.setattr(ledger_reconcile, "_distinct_blocks", counted)
        patch.setattr(difflib.SequenceMatcher, "ratio", lambda self: 0.0)
        match()
    return calls
