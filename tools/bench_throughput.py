#!/usr/bin/env python3
"""Throughput: `tmanager run --workers 2` against a naive python-chess loop, same workload, one run.

Workload: N games (default 40) of Stockfish against itself at nodes=1000,
two games at a time. The naive loop is what a tester writes in ten minutes:
two processes, each playing its half of the games with ``SimpleEngine``
(two engines started per game), ``board.is_game_over(claim_draw=True)`` after
every move, no files. tmanager does everything it always does: lock, claims,
atomic file rewrites, PGN, heartbeats.

Prints the median wall time of each over --repeat runs and the ratio
(goal: tmanager ≤ 0.7 × naive). Needs Debian's stockfish.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parent.parent
STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games") or "stockfish"
NODES = 1000


def naive_games(count: int) -> int:
    plies = 0
    for _ in range(count):
        white = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
        black = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
        for engine in (white, black):
            engine.configure({"Hash": 16, "Threads": 1})
        board = chess.Board()
        while not board.is_game_over(claim_draw=True):
            engine = white if board.turn == chess.WHITE else black
            board.push(engine.play(board, chess.engine.Limit(nodes=NODES)).move)  # type: ignore[arg-type]
        plies += len(board.move_stack)
        white.quit()
        black.quit()
    return plies


def run_naive(games: int) -> float:
    started = time.perf_counter()
    with multiprocessing.Pool(2) as pool:
        pool.map(naive_games, [games // 2, games - games // 2])
    return time.perf_counter() - started


def run_tmanager(games: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tmanager",
                "new",
                str(path),
                "-e",
                "stockfish:SF1",
                "-e",
                "stockfish:SF2",
                "--games",
                "2",
                "--cycles",
                str(games // 2),
                "--nodes",
                str(NODES),
            ],
            check=True,
            capture_output=True,
        )
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"], check=True, capture_output=True
        )
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; medians are compared")
    args = parser.parse_args()
    ours, naive = [], []
    for run in range(args.repeat):  # interleaved, so that machine noise hits both alike
        ours.append(run_tmanager(args.games))
        naive.append(run_naive(args.games))
        print(f"run {run + 1}: tmanager {ours[-1]:.2f} s, naive {naive[-1]:.2f} s", flush=True)
    ours_median, naive_median = statistics.median(ours), statistics.median(naive)
    print(f"{args.games} games, Stockfish nodes={NODES}, concurrency 2, medians of {args.repeat} runs")
    print(f"  tmanager run --workers 2 : {ours_median:7.2f} s")
    print(f"  naive python-chess loop  : {naive_median:7.2f} s")
    print(f"  ratio tmanager / naive   : {ours_median / naive_median:7.2f}  (goal <= 0.70)")


if __name__ == "__main__":
    main()
