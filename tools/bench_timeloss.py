#!/usr/bin/env python3
"""Time losses at a fast time control: Stockfish against itself, 2 games at a time, through `tmanager run`.

Default: 200 games at tc = 1+0.01 (about 6 minutes on 2 cores). Prints the
number of games lost on time, the worst overstep of any move in ms (thinking
time minus the time that was left; negative means time to spare), and the
time_margin in force. fastchess reports about 10 time losses in 20,000 games at
0.2+0.002 s; the goal here is zero.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess.pgn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--tc", default="1+0.01")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the tourney in this directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "timeloss.toml"
        subprocess.run(
            [sys.executable, "-m", "tmanager", "new", str(path), "--force", "-e", "stockfish:SF1",
             "-e", "stockfish:SF2", "--games", "2", "--cycles", str(args.games // 2), "--tc", args.tc],
            check=True, capture_output=True,
        )
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tmanager", "run", str(path), "--workers", str(args.workers)],
                       check=True, capture_output=True)
        elapsed = time.perf_counter() - started
        terminations: dict[str, int] = {}
        with open(path.with_suffix(".pgn")) as f:
            while (headers := chess.pgn.read_headers(f)) is not None:
                kind = headers.get("Termination", "?")
                terminations[kind] = terminations.get(kind, 0) + 1
        log = path.with_suffix(".log").read_text()
        oversteps = [int(m) for m in re.findall(r"\[worst overstep (-?\d+) ms\]", log)]
    print(f"{sum(terminations.values())} games of Stockfish vs Stockfish at tc {args.tc}, "
          f"{args.workers} at a time, in {elapsed:.0f} s")
    print(f"  terminations          : {terminations}")
    print(f"  games lost on time    : {terminations.get('time forfeit', 0)}")
    print(f"  worst overstep (move) : {max(oversteps)} ms  (negative = time to spare; time_margin 100 ms)")


if __name__ == "__main__":
    main()
