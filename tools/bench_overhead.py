#!/usr/bin/env python3
"""Per-move overhead: from one engine's ``bestmove`` to the opponent receiving its ``go``.

Two instances of a tiny UCI engine (written to a temporary file by this
script) stamp the wall clock when they send ``bestmove`` and when they receive
``go``; the gap between the two is everything the manager does between moves:
reading the move, its own bookkeeping (clocks, rules, adjudication), and
sending ``position`` and ``go`` to the opponent. Measured for tmanager's game
runner and, in the same run, for a plain python-chess ``SimpleEngine`` loop.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

import chess
import chess.engine

from tmanager.core.timecontrol import TimeControl
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.play import Adjudication, GameSpec, play_game

ENGINE = textwrap.dedent(
    """
    import random, sys, time
    import chess
    log = open(sys.argv[1], "a")
    choose = random.Random(sys.argv[1]).choice
    position = []
    for line in sys.stdin:
        now = time.time_ns()
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name stamp\\nuciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position":
            position = words  # parsed once go is stamped: the engine's own work is no overhead
        elif words[0] == "go":
            log.write(f"go {now}\\n")
            board = chess.Board()
            if "moves" in position:
                for move in position[position.index("moves") + 1:]:
                    board.push_uci(move)
            move = choose(sorted(board.legal_moves, key=lambda m: m.uci()))
            log.write(f"bestmove {time.time_ns()}\\n")
            print(f"bestmove {move.uci()}", flush=True)
        elif words[0] == "quit":
            break
    log.flush()
    """
)


def gaps(logs: list[Path]) -> list[float]:
    """Milliseconds from each bestmove to the next go, across both engines' stamps."""
    events = sorted(
        (int(stamp), kind) for log in logs for kind, stamp in (line.split() for line in log.read_text().splitlines())
    )
    result = []
    for (t0, k0), (t1, k1) in itertools.pairwise(events):
        if k0 == "bestmove" and k1 == "go":
            result.append((t1 - t0) / 1e6)
    return result


def with_tmanager(engine: Path, logs: list[Path], plies: int) -> None:
    specs = [EngineSpec(name=f"S{i}", command=(sys.executable, str(engine), str(log)), protocol="uci")
             for i, log in enumerate(logs)]
    limits = TimeControl.parse("inf", nodes=1)
    asyncio.run(play_game(GameSpec(white=specs[0], black=specs[1], white_limits=limits, black_limits=limits,
                                   adjudication=Adjudication(max_moves=plies // 2))))


def with_simple_engine(engine: Path, logs: list[Path], plies: int) -> None:
    engines = [chess.engine.SimpleEngine.popen_uci([sys.executable, str(engine), str(log)]) for log in logs]
    board = chess.Board()
    while not board.is_game_over(claim_draw=True) and board.ply() < plies:
        result = engines[board.ply() % 2].play(board, chess.engine.Limit(nodes=1))
        assert result.move is not None
        board.push(result.move)
    for e in engines:
        e.quit()


def summary(values: list[float]) -> str:
    cuts = statistics.quantiles(values, n=100)
    return f"median {statistics.median(values):.3f} ms, p90 {cuts[89]:.3f} ms, p99 {cuts[98]:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=200, help="plies per game")
    parser.add_argument("--games", type=int, default=5, help="games per contender, interleaved")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = Path(tmp) / "stamp.py"
        engine.write_text(ENGINE)
        measured: dict[str, list[float]] = {"tmanager": [], "SimpleEngine": []}
        for game in range(args.games):
            for name, play in (("tmanager", with_tmanager), ("SimpleEngine", with_simple_engine)):
                logs = [Path(tmp) / f"{name}-{game}-{side}.log" for side in ("w", "b")]
                play(engine, logs, args.plies)
                measured[name] += gaps(logs)
    ours, theirs = measured["tmanager"], measured["SimpleEngine"]
    print(f"bestmove -> opponent's go, {len(ours)} and {len(theirs)} moves ({args.games} games of {args.plies} plies)")
    print(f"  tmanager game runner : {summary(ours)}")
    print(f"  SimpleEngine loop    : {summary(theirs)}")
    print(f"  ratio of medians     : {statistics.median(ours) / statistics.median(theirs):.2f}")


if __name__ == "__main__":
    main()
