"""Benchmark: tmanager's PGN tag scanner against python-chess's read_headers, on one generated file.

Generates a PGN of short games with cutechess-like tags (Event, Site, Date,
Round, White, Black, Result, GameDuration, GameEndTime, PlyCount,
TimeControl, sometimes Termination or FEN/SetUp), move comments such as
``{+0.31/12 0.05s}`` and ``{[%clk 0:01:00]}``, and now and then a multi-line
comment holding a fake tag line. Then times, in one run:

* ours: ``pgnscan.scan`` over the whole file, into a standings tally, median
  of ``--runs`` runs, with one process per core (the default for big files)
  and with ``jobs=1``;
* python-chess: ``chess.pgn.read_headers`` over the first ``--baseline-games``
  games (all by default), extrapolated linearly to the whole file when fewer;

and prints both with the ratio. Run: ``python tools/bench_crosstable.py --games 1000000``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import chess.pgn

from tmanager.core.standings import Tally
from tmanager.formats import pgnscan

MOVES = ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3", "O-O")
RESULTS = ("1-0", "0-1", "1/2-1/2", "1/2-1/2")


def generate(path: Path, games: int, *, seed: int = 1) -> None:
    """Write ``games`` short games to ``path``."""
    rng = random.Random(seed)
    players = [f"Engine {i:02d} v1.{i}" for i in range(16)]
    with open(path, "w", encoding="utf-8") as out:
        for number in range(games):
            white, black = rng.sample(players, 2)
            result = rng.choice(RESULTS)
            plies = rng.randint(8, len(MOVES))
            tags = [
                ("Event", "Bench gauntlet"),
                ("Site", "bench.local"),
                ("Date", "2026.11.03"),
                ("Round", str(number + 1)),
                ("White", white),
                ("Black", black),
                ("Result", result),
            ]
            if number % 4 == 0:
                tags += [("FEN", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"), ("SetUp", "1")]
            tags += [
                ("GameDuration", "00:00:03"),
                ("GameEndTime", "2026-11-03T10:00:00.000 UTC"),
                ("PlyCount", str(plies)),
                ("TimeControl", "10+0.1"),
            ]
            if number % 5 == 0:
                tags.append(("Termination", "adjudication"))
            movetext = []
            for ply in range(plies):
                if ply % 2 == 0:
                    movetext.append(f"{ply // 2 + 1}.")
                movetext.append(MOVES[ply])
                if number % 3 == 0 and ply < 4:
                    movetext.append(f"{{{rng.randint(-50, 50) / 100:+.2f}/{ply + 8} 0.05s}}")
                elif number % 50 == 0 and ply == 5:
                    movetext.append("{[%clk 0:01:00]}")
            if number % 997 == 0:
                movetext.append('{a long note\n[White "Not a tag"]\n[Result "0-1"]\nend}')
            movetext.append(result)
            out.write("".join(f'[{k} "{v}"]\n' for k, v in tags) + "\n" + " ".join(movetext) + "\n\n")


def time_ours(path: Path, jobs: int | None) -> tuple[float, int]:
    start = time.perf_counter()
    tally = Tally().update(pgnscan.scan(path, jobs=jobs))
    return time.perf_counter() - start, tally.games


def time_python_chess(path: Path, limit: int) -> tuple[float, int]:
    start = time.perf_counter()
    count = 0
    with open(path, encoding="utf-8") as handle:
        while count < limit and chess.pgn.read_headers(handle) is not None:
            count += 1
    return time.perf_counter() - start, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5, help="runs of our scanner (median reported)")
    parser.add_argument("--baseline-games", type=int, default=0, help="python-chess reads this many (0: all)")
    parser.add_argument("--file", type=Path, help="reuse or keep the generated PGN here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.file or Path(tmp) / "bench.pgn"
        if not path.exists():
            started = time.perf_counter()
            generate(path, args.games)
            size = path.stat().st_size / 1e6
            print(f"generated {args.games} games, {size:.0f} MB in {time.perf_counter() - started:.1f} s")
        runs = [time_ours(path, None) for _ in range(args.runs)]
        ours = statistics.median(t for t, _ in runs)
        games = runs[0][1]
        one_process = statistics.median(time_ours(path, 1)[0] for _ in range(args.runs))
        limit = args.baseline_games or games
        theirs, read = time_python_chess(path, limit)
        theirs_all = theirs * games / read
        cores = os.cpu_count()
        note = "" if read == games else f" (read {read} games, extrapolated)"
        print(f"tmanager pgnscan:          {ours:7.2f} s for {games} games (median of {args.runs}, {cores} processes)")
        print(f"tmanager pgnscan, jobs=1:  {one_process:7.2f} s")
        print(f"python-chess read_headers: {theirs_all:7.2f} s{note}")
        print(f"ratio: tmanager is {theirs_all / ours:.1f}x faster")


if __name__ == "__main__":
    main()
