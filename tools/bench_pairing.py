"""Time one Dutch round of a 200-player and a 500-player Swiss, beside bbpPairings if given.

    python tools/bench_pairing.py [--bbp PATH] [--runs N] [--rounds R] [--sizes 200,500]

The history is synthetic but valid: R rounds paired greedily down the standings
(no rematches, alternating colours) with seeded random results, so the round
timed has many score groups, floaters and colour preferences. Goals: 200 players
in 2 s, 500 in 15 s. Medians over ``--runs`` runs; with ``--bbp`` the same TRF is
paired by bbpPairings and the ratio printed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tmanager.core.results import Colour, TrfResult
from tmanager.core.scoring import STANDARD, Game
from tmanager.formats import trf
from tmanager.pairing import PlayerState, pair_round


def synthetic(players: int, rounds: int, seed: int) -> list[PlayerState]:
    """A plausible Swiss history: greedy pairings by score, random results."""
    rng = random.Random(seed)
    games: dict[int, list[Game]] = {i: [] for i in range(1, players + 1)}
    for _ in range(rounds):
        score = {i: sum(STANDARD.points(g) for g in gs) for i, gs in games.items()}
        order = sorted(games, key=lambda i: (-score[i], i))
        free = list(order)
        while len(free) > 1:
            a = free.pop(0)
            met = {g.opponent for g in games[a]}
            b = next((x for x in free if x not in met), free[0])
            free.remove(b)
            whites = sum(g.colour is Colour.WHITE for g in games[a])
            white, black = (a, b) if whites * 2 <= len(games[a]) else (b, a)
            result = rng.choice([TrfResult.WIN, TrfResult.LOSS, TrfResult.DRAW, TrfResult.WIN, TrfResult.LOSS])
            games[white].append(Game(black, Colour.WHITE, result))
            games[black].append(Game(white, Colour.BLACK, result.opposite))
        for a in free:
            games[a].append(Game(None, None, TrfResult.PAIRING_BYE))
    return [PlayerState(id=i, games=tuple(g)) for i, g in games.items()]


def to_trf(states: list[PlayerState], total: int) -> str:
    players = tuple(
        trf.TrfPlayer(s.id, f"001 {s.id:4d}".ljust(80), s.score(STANDARD), None, s.games) for s in states
    )
    lines = (f"XXR {total}",)
    tournament = trf.Tournament(players=players, total_rounds=total, initial_colour=Colour.WHITE, lines=lines)
    return trf.dumps(tournament)


def time_ours(states: list[PlayerState], rounds: int, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        pair_round(states, round_number=rounds + 1, total_rounds=rounds + 3)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_bbp(binary: str, text: str, runs: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "t.trf"
        source.write_text(text)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([binary, "--dutch", str(source), "-p", str(Path(tmp) / "out")], check=True)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bbp", help="path of a bbpPairings binary to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5, help="rounds already played")
    parser.add_argument("--sizes", default="200,500")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        states = synthetic(size, args.rounds, seed=size)
        ours = time_ours(states, args.rounds, args.runs)
        line = f"{size} players, round {args.rounds + 1}: tmanager {ours:.2f} s"
        if args.bbp:
            theirs = time_bbp(args.bbp, to_trf(states, args.rounds + 3), args.runs)
            line += f", bbpPairings {theirs:.2f} s, ratio {ours / theirs:.1f}x"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
