"""Benchmark: ``tmanager.core.ratings.fit`` (numpy Newton) against the former pure-Python fit.

Generates fields of players whose strengths are spread normally (σ 400 Elo)
and who mostly meet opponents of similar strength (a band of ±20 places in
the ranking, as in rating lists), ``--games-per-player`` games each, white
advantage 30 Elo, draws likelier between close players. For each size it
prints the median of ``--runs`` fits of ours (with the white advantage
fitted) beside the former method: per-player Gauss-Seidel Newton sweeps to
1e-7 Elo and a pure-Python Gauss-Jordan inverse for the margins, kept below
as the baseline. The baseline runs once per size and only up to
``--baseline-max`` players; beyond that it is marked as not run (it took
over 300 s for 1000 players). Run: ``python tools/bench_ratings.py``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from tmanager.core import ratings, stats
from tmanager.core.results import Result
from tmanager.core.standings import GameResult, Tally


def band_field(players: int, games_per_player: int, seed: int = 1) -> Tally:
    rng = random.Random(seed)
    strength = sorted(rng.gauss(0, 400) for _ in range(players))
    tally = Tally(grid_limit=0)
    for _ in range(players * games_per_player // 2):
        a = rng.randrange(players)
        b = min(players - 1, max(0, a + rng.randint(-20, 20)))
        if a == b:
            continue
        p = stats.score_from_elo(strength[a] - strength[b] + 30)
        draw = 0.4 * (1 - abs(2 * p - 1))
        r = rng.random()
        result = Result.DRAW if r < draw else Result.WHITE_WINS if r < p + draw / 2 else Result.BLACK_WINS
        tally.add(GameResult(f"P{a}", f"P{b}", result))
    return tally


# The former implementation (pure Python), reduced to what the timing needs.

_K = math.log(10) / 400


def _expected(diff: float) -> float:
    return 1.0 / (1.0 + math.exp(-diff)) if diff >= 0 else math.exp(diff) / (1.0 + math.exp(diff))


def baseline_fit(tally: Tally) -> list[float]:
    """Strengths by Gauss-Seidel Newton sweeps, then the margins by a Gauss-Jordan inverse."""
    index = {name: i for i, name in enumerate(tally.players)}
    n = len(index)
    edges: list[list[tuple[int, float, float, int]]] = [[] for _ in range(n)]
    for (white, black), (ww, d, bw) in tally.pairs.items():
        played = float(ww + d + bw)
        edges[index[white]].append((index[black], played, ww + d / 2, +1))
        edges[index[black]].append((index[white], played, bw + d / 2, -1))
    beta, eta = [0.0] * n, 0.0
    for _ in range(5000):
        largest = 0.0
        for i, row in enumerate(edges):
            gradient = curvature = 0.0
            for j, games, score, colour in row:
                p = _expected(beta[i] - beta[j] + colour * eta)
                gradient += score - games * p
                curvature += games * p * (1 - p)
            if curvature > 0:
                beta[i] += gradient / curvature
                largest = max(largest, abs(gradient / curvature))
        gradient = curvature = 0.0
        for i, row in enumerate(edges):
            for j, games, score, colour in row:
                if colour > 0:
                    p = _expected(beta[i] - beta[j] + eta)
                    gradient += score - games * p
                    curvature += games * p * (1 - p)
        eta += gradient / curvature
        if max(largest, abs(gradient / curvature)) < 1e-7 * _K:
            break
    size = n  # players but the first, and the white advantage
    info = [[0.0] * size for _ in range(size)]
    for i, row in enumerate(edges):
        for j, games, _, colour in row:
            p = _expected(beta[i] - beta[j] + colour * eta)
            w = games * p * (1 - p)
            if i:
                info[i - 1][i - 1] += w
                if j:
                    info[i - 1][j - 1] -= w
                info[i - 1][-1] += colour * w
            if colour > 0:
                info[-1][-1] += w
    rows = [row[:] + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(info)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        if head[col] == 0:
            continue
        scale = 1.0 / head[col]
        head[:] = [x * scale for x in head]
        for r in range(size):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r][:] = [x - factor * y for x, y in zip(rows[r], head, strict=True)]
    return beta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 200, 1000, 3000])
    parser.add_argument("--games-per-player", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-max", type=int, default=200)
    args = parser.parse_args()
    print(f"{'players':>7} {'pairs':>7} {'games':>8} {'ours s':>9} {'former s':>9} {'ratio':>7}")
    for players in args.sizes:
        tally = band_field(players, args.games_per_player)
        ratings.fit(tally, white_advantage=True)  # warm up numpy and BLAS threads
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            ratings.fit(tally, white_advantage=True)
            times.append(time.perf_counter() - start)
        ours = statistics.median(times)
        former = ratio = "not run"
        if players <= args.baseline_max:
            start = time.perf_counter()
            baseline_fit(tally)
            elapsed = time.perf_counter() - start
            former, ratio = f"{elapsed:.4f}", f"{elapsed / ours:.0f}x"
        print(f"{players:>7} {len(tally.pairs):>7} {tally.games:>8} {ours:>9.4f} {former:>9} {ratio:>7}", flush=True)


if __name__ == "__main__":
    main()
