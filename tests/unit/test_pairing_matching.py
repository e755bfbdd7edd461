"""The blossom matcher against networkx: warm-started after weight changes, and the one-off matchings the pairing
systems use (perfect, heaviest, most edges first) on random graphs. networkx is a test extra only: without it the
checks are skipped."""

from __future__ import annotations

import random

import pytest

from tmanager.pairing.matching import Matcher, NoPerfectMatching, max_weight_matching, max_weight_perfect_matching

nx = pytest.importorskip("networkx")

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


def random_graph(rng: random.Random) -> tuple[int, dict[tuple[int, int], int]]:
    """A graph of up to 13 vertices, sparse or dense, with weights of few or many values, negative ones too."""
    size = rng.randint(0, 13)
    density = rng.choice([0.15, 0.4, 0.8])
    top = rng.choice([1, 5, 1 << 70])
    low = rng.choice([0, -top])
    edges = {(a, b): rng.randint(low, top) for b in range(size) for a in range(b) if rng.random() < density}
    return size, edges


def networkx_matching(size: int, edges: dict[tuple[int, int], int], *, most_edges: bool) -> set[tuple[int, int]]:
    graph = nx.Graph()
    graph.add_nodes_from(range(size))
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in edges.items())
    return {(min(a, b), max(a, b)) for a, b in nx.max_weight_matching(graph, maxcardinality=most_edges)}


def is_matching(pairs: list[tuple[int, int]], edges: dict[tuple[int, int], int]) -> bool:
    ends = [v for pair in pairs for v in pair]
    return len(ends) == len(set(ends)) and all(pair in edges for pair in pairs) and pairs == sorted(pairs)


@pytest.mark.parametrize("seed", range(4))
def test_one_off_matchings_equal_networkx_on_random_graphs(seed: int) -> None:
    rng = random.Random(seed)
    perfect_seen = imperfect_seen = 0
    for _ in range(150):
        size, edges = random_graph(rng)
        for most_edges in (False, True):
            ours = max_weight_matching(size, edges, most_edges=most_edges)
            theirs = networkx_matching(size, edges, most_edges=most_edges)
            assert is_matching(ours, edges)
            assert sum(edges[p] for p in ours) == sum(edges[p] for p in theirs)
            if most_edges:
                assert len(ours) == len(theirs)
        perfect = max_weight_perfect_matching(size, edges)
        best = networkx_matching(size, edges, most_edges=True)
        if 2 * len(best) == size:
            perfect_seen += 1
            assert perfect is not None and is_matching(perfect, edges)
            assert sum(edges[p] for p in perfect) == sum(edges[p] for p in best)
        else:
            imperfect_seen += 1
            assert perfect is None
    assert perfect_seen > 10 and imperfect_seen > 10, "the random graphs cover both cases"
