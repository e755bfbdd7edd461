#!/usr/bin/env python3
"""Start-up: `tmanager --help`, `--version`, `status`, `new`, and `run` up to its first `go`, beside python-chess.

Each command runs as a fresh process, as a user runs it, and is timed from
before the process is created to its exit; `run` is timed up to the first
``go`` any engine receives. The baseline is ``python -c "import chess.pgn,
chess.engine"``, the least a Python program that reads games or drives engines
pays. The runs are interleaved (baseline, then each command, --repeat times)
and medians are compared; the goals are ``--help`` ≤ 1.0 × the baseline and
``status`` of a small tourney ≤ 1.5 ×.

Python's bytecode cache is used as an installed tmanager uses it: the
processes run without ``PYTHONDONTWRITEBYTECODE`` (which would make every
start compile the whole package again), after one warm-up round that is not
counted.

`run` is also timed with an opening book the size of fishtest's
``8moves_v3.pgn`` (--book-games PGN games of 16 plies), as is `new` given it:
a tester's usual book should cost the start-up nothing worth noting.

The engines are a tiny UCI script written by this tool: it stamps the wall
clock when it starts, when it sends ``uciok`` and when it receives ``go``, so
that the engines' own start-up can be told from tmanager's. Both games of the
tourney end after one move each (``max_moves = 1``).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn

ENGINE = textwrap.dedent(
    """
    import os, sys, time
    log = open(sys.argv[1], "a", buffering=1)
    log.write(f"{os.getpid()} exec {time.time()}\\n")
    moves = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name stamp\\nuciok", flush=True)
            log.write(f"{os.getpid()} uciok {time.time()}\\n")
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position":
            moves = words[words.index("moves") + 1:] if "moves" in words else []
        elif words[0] == "go":
            log.write(f"{os.getpid()} go {time.time()}\\n")
            print("bestmove " + ("e7e5" if moves else "e2e4"), flush=True)
        elif words[0] == "quit":
            break
    """
)

TMANAGER = [sys.executable, "-m", "tmanager"]
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str], *, cwd: Path) -> float:
    """Seconds from before the process is created until it has exited."""
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - started


def write_book(path: Path, games: int) -> None:
    """A PGN book of ``games`` games of 16 plies (1,000 different ones, over and over)."""
    rng = random.Random(1)
    different: list[str] = []
    while len(different) < 1000:
        board = chess.Board()
        while len(board.move_stack) < 16 and not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_game_over():
            different.append(str(chess.pgn.Game.from_board(board)))
    path.write_text("\n\n".join(different[i % len(different)] for i in range(games)) + "\n")


class Tourney:
    """A directory with the stamping engine's definition, an opening book, and fresh two-game tourneys."""

    def __init__(self, directory: Path, *, book_games: int) -> None:
        self.directory = directory
        self.stamps = directory / "stamps.log"
        (directory / "engines").mkdir()
        (directory / "stamp.py").write_text(ENGINE)
        (directory / "engines" / "stamp.toml").write_text(
            f'cmd = "{directory / "stamp.py"}"\nprotocol = "uci"\nargs = ["{self.stamps}"]\n'
        )
        write_book(directory / "book.pgn", book_games)

    def new_command(self, name: str, *, book: bool = False) -> list[str]:
        return [*TMANAGER, "new", name, "--force", "-e", "stamp:A", "-e", "stamp:B", "--games", "2",
                "--nodes", "1", "--set", "adjudication.max_moves=1", *(["--openings", "book.pgn"] if book else [])]

    def fresh(self, name: str, *, book: bool = False) -> Path:
        subprocess.run(self.new_command(name, book=book), cwd=self.directory, check=True, capture_output=True,
                       env=ENV)
        return self.directory / name

    def run_to_first_go(self, *, book: bool = False) -> tuple[float, float, float]:
        """Seconds from starting `tmanager run --workers 2` on a fresh tourney (with the book or
        without) to the first ``go``, how much of it the engine that got it spent starting (exec to
        ``uciok``), and the time from its ``uciok`` to that ``go``."""
        path = self.fresh("played.toml", book=book)
        for leftover in (path.with_suffix(".pgn"), path.with_suffix(".log"), self.stamps):
            leftover.unlink(missing_ok=True)
        started = time.time()
        subprocess.run([*TMANAGER, "run", path.name, "--workers", "2"], cwd=self.directory, check=True,
                       capture_output=True, env=ENV)
        stamps: dict[tuple[str, str], float] = {}
        for line in self.stamps.read_text().splitlines():
            pid, kind, stamp = line.split()
            stamps.setdefault((pid, kind), float(stamp))
        first_go, pid = min((stamp, pid) for (pid, kind), stamp in stamps.items() if kind == "go")
        return first_go - started, stamps[pid, "uciok"] - stamps[pid, "exec"], first_go - stamps[pid, "uciok"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs of each; medians are compared")
    parser.add_argument("--book-games", type=int, default=34000, help="games in the PGN opening book")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tourney = Tourney(Path(tmp), book_games=args.book_games)
        tourney.fresh("small.toml")
        engine_start: list[float] = []
        ready_to_go: list[float] = []

        def first_go() -> float:
            total, own, after_ready = tourney.run_to_first_go()
            engine_start.append(own)
            ready_to_go.append(after_ready)
            return total

        cases: dict[str, Callable[[], float]] = {
            'python -c "import chess.pgn, chess.engine"': lambda: timed(
                [sys.executable, "-c", "import chess.pgn, chess.engine"], cwd=tourney.directory
            ),
            "tmanager --help": lambda: timed([*TMANAGER, "--help"], cwd=tourney.directory),
            "tmanager --version": lambda: timed([*TMANAGER, "--version"], cwd=tourney.directory),
            "tmanager new (2 engines)": lambda: timed(tourney.new_command("new.toml"), cwd=tourney.directory),
            "tmanager status (new, 2 games)": lambda: timed([*TMANAGER, "status", "small.toml"],
                                                            cwd=tourney.directory),
            "tmanager run -> first go": first_go,
            "tmanager status (2 games played)": lambda: timed([*TMANAGER, "status", "played.toml"],
                                                              cwd=tourney.directory),
            f"tmanager new (book of {args.book_games} games)": lambda: timed(
                tourney.new_command("booked.toml", book=True), cwd=tourney.directory
            ),
            f"tmanager run -> first go (book of {args.book_games})": lambda: tourney.run_to_first_go(book=True)[0],
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for case in cases.values():  # warm-up: bytecode caches written, files in the page cache
            case()
        engine_start.clear()
        ready_to_go.clear()
        for _ in range(args.repeat):  # interleaved, so that machine noise hits all alike
            for name, case in cases.items():
                times[name].append(case())
    medians = {name: statistics.median(values) for name, values in times.items()}
    baseline = next(iter(medians.values()))
    print(f"start-up, medians of {args.repeat} interleaved runs (ratio to the first line)")
    for name, median in medians.items():
        print(f"  {name:44s} {median * 1000:7.0f} ms  {median / baseline:5.2f}")
    own = statistics.median(engine_start)
    go = medians["tmanager run -> first go"]
    print(f"  {'  of which the engine starting (exec->uciok)':44s} {own * 1000:7.0f} ms")
    print(f"  {'  engine ready (uciok) -> first go':44s} {statistics.median(ready_to_go) * 1000:7.0f} ms")
    print(f"  {'  run -> first go, less the engine start':44s} {(go - own) * 1000:7.0f} ms  (goal <= 300 ms)")


if __name__ == "__main__":
    main()
