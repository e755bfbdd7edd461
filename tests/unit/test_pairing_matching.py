"""The warm-started blossom matcher against networkx, cold and after weight changes."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from tmanager.pairing.matching import Matcher, NoPerfectMatching

Matrix = list[list[int | None]]


def best_total(active: list[int], w: Matrix) -> int | None:
    graph = nx.Graph()
    graph.add_nodes_from(active)
    graph.add_weighted_edges_from(
        (a, b, w[a][b]) for i, a in enumerate(active) for b in active[:i] if w[a][b] is not None
    )
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(active):
        return None
    return sum(w[a][b] or 0 for a, b in matching)


def solve_total(matcher: Matcher, active: list[int], w: Matrix, changed: set[int], grow: int) -> int | None:
    try:
        mate = matcher.solve(active, w, changed=changed, grow=grow)
    except NoPerfectMatching:
        return None
    assert all(mate[mate[v]] == v and w[v][mate[v]] is not None for v in active)
    return sum(w[v][mate[v]] or 0 for v in active if v < mate[v])


@pytest.mark.parametrize("seed", range(6))
def test_optimum_equals_networkx_through_warm_restarts(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        n = rng.choice([2, 6, 10, 16])
        top = rng.choice([3, 1 << 200])  # few distinct weights make many blossoms
        w: Matrix = [[None] * n for _ in range(n)]
        for a in range(n):
            for b in range(a):
                if rng.random() < 0.7:
                    w[a][b] = w[b][a] = 2 * rng.randint(0, top)
        matcher = Matcher(n)
        active = list(range(n))
        changed, grow = set(active), 0
        for _ in range(4):
            expected = best_total(active, w)
            assert solve_total(matcher, active, w, changed, grow) == expected
            if expected is None:
                break
            # Rescale everything, change the edges of a few vertices, drop a matched pair.
            grow = rng.choice([0, 2])
            w = [[None if x is None else x << grow for x in row] for row in w]
            changed = set(rng.sample(active, min(len(active), 3)))
            for a in changed:
                for b in active:
                    if b != a and rng.random() < 0.5:
                        w[a][b] = w[b][a] = None if rng.random() < 0.2 else 2 * rng.randint(0, top << grow)
            if len(active) > 2:
                v = rng.choice(active)
                pair = (v, matcher.mate[v])
                active = [x for x in active if x not in pair]
