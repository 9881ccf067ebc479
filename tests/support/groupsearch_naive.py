"""Plain-Python references for the group search (issue 13): textbook tree searches and an
exhaustive search over every ordering, with a slow, obvious conservative placement."""

from __future__ import annotations

import itertools


def korf_lds(n: int) -> list[tuple[int, ...]]:
    """Korf's improved LDS (AAAI-96) on the permutation tree of n jobs in heuristic order 0..n-1:
    iteration k = 0, 1, ... visits the paths with exactly k discrepancies, the heuristic child
    first (``if depth > k: ILDS(left, k)``; ``if k > 0: ILDS(right, k - 1)``); a discrepancy is
    any non-first child, and a level has only one child left at the bottom."""
    out: list[tuple[int, ...]] = []

    def ilds(prefix: list[int], rest: list[int], k: int) -> None:
        if not rest:
            out.append(tuple(prefix))
            return
        levels_below = max(0, len(rest) - 2)  # levels under this one that have a choice
        if levels_below >= k:  # the heuristic child can still spend k discrepancies further down
            ilds(prefix + [rest[0]], rest[1:], k)
        if k > 0:
            for i in range(1, len(rest)):
                ilds(prefix + [rest[i]], rest[:i] + rest[i + 1:], k - 1)

    for k in range(max(1, n)):
        ilds([], list(range(n)), k)
    return out


def walsh_dds(n: int) -> list[tuple[int, ...]]:
    """Walsh's depth-bounded discrepancy search (IJCAI-97): iteration 0 is the heuristic path;
    iteration k >= 1 takes any child above depth k-1, a non-first child at depth k-1 and the
    heuristic child below."""
    out: list[tuple[int, ...]] = []

    def probe(prefix: list[int], rest: list[int], depth: int, k: int) -> None:
        if not rest:
            out.append(tuple(prefix))
            return
        if k == 0 or depth >= k:
            kids = rest[:1]
        elif depth == k - 1:
            kids = rest[1:]
        else:
            kids = rest
        for c in kids:
            i = rest.index(c)
            probe(prefix + [c], rest[:i] + rest[i + 1:], depth + 1, k)

    for k in range(max(1, n)):
        probe([], list(range(n)), 0, k)
    return out


def place(order, widths, ests, m, busy):
    """Conservative placement: each job at the earliest time >= 0 where its width is free for its
    run time, given ``busy`` = [(width, until)] and the jobs placed before it; returns the starts."""
    placed: list[tuple[float, float, int]] = [(0.0, until, wd) for wd, until in busy]
    starts = []
    for j in order:
        cands = sorted({0.0} | {e for _, e, _ in placed})
        for s in cands:
            e = s + ests[j]
            points = sorted({s} | {a for a, _, _ in placed if s < a < e})
            if all(m - sum(wd for a, b, wd in placed if a <= x < b) >= widths[j] for x in points):
                break
        placed.append((s, s + ests[j], widths[j]))
        starts.append(s)
    return starts


def total_bsld(order, widths, ests, wait0, m, busy, inv_share=1.0, tau=600.0):
    starts = place(order, widths, ests, m, busy)
    return sum(max(1.0, (wait0[j] + (s + ests[j]) * inv_share) / max(ests[j], tau)) for j, s in zip(order, starts))


def exhaustive_best(widths, ests, wait0, m, busy, inv_share=1.0, tau=600.0):
    """The least total bounded slowdown over every ordering."""
    return min(total_bsld(o, widths, ests, wait0, m, busy, inv_share, tau)
               for o in itertools.permutations(range(len(widths))))
