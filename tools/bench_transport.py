#!/usr/bin/env python3
"""The engine transport: the manager's CPU per move over asyncio's subprocess transport and over tmanager's.

Both contenders play the same games with the same protocol
(``tmanager.tourney.uciclient.UciClient``) against two Stockfish processes at
1000 nodes a move (16 MB hash), as workload A of ``bench_throughput.py`` does;
they differ only in how the engines' output reaches the protocol:

- **asyncio**: ``loop.subprocess_exec``, what python-chess's ``popen`` gives
  every user: each read is handed to the protocol one turn of the event loop
  later, and a thread waits for each child's exit;
- **tmanager**: ``tmanager.tourney.transport.popen``, as the game runner starts
  engines: each read goes straight to the protocol, and a pidfd on the event
  loop tells of the exit.

Stockfish writes about seven times a move, so the difference is per read.
Printed: the manager process's CPU time per move (``time.process_time``, all
its threads) and its wall time per move, medians of interleaved rounds, and the
ratio tmanager / asyncio.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time
from collections.abc import Awaitable, Callable

import chess

from tmanager.tourney.search import SearchLimit
from tmanager.tourney.transport import popen
from tmanager.tourney.uciclient import UciClient

STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games") or "stockfish"
LIMIT = SearchLimit(nodes=1000)

Start = Callable[[], Awaitable[tuple[asyncio.SubprocessTransport, UciClient]]]


def asyncio_transport() -> Awaitable[tuple[asyncio.SubprocessTransport, UciClient]]:
    return asyncio.get_running_loop().subprocess_exec(UciClient, STOCKFISH, process_group=0)


def tmanager_transport() -> Awaitable[tuple[asyncio.SubprocessTransport, UciClient]]:
    return popen(UciClient, [STOCKFISH])


async def games(start: Start, count: int) -> tuple[float, float]:
    """CPU and wall seconds per move over ``count`` games of one engine pair, started by ``start``."""
    engines = []
    for _ in range(2):
        _, engine = await start()
        await engine.handshake()
        engine.configure({"Hash": 16, "Threads": 1})
        engines.append(engine)
    moves = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        board = chess.Board()
        for engine in engines:
            await engine.new_game()
        while not board.is_game_over() and board.ply() < 400:
            engine = engines[board.ply() % 2]
            result = await engine.play(board, LIMIT)
            assert result.move is not None
            board.push(result.move)
            moves += 1
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    for engine in engines:
        await engine.quit()
    return cpu / moves, wall / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="games per contender and round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds; medians are printed")
    args = parser.parse_args()
    contenders: dict[str, Start] = {"asyncio": asyncio_transport, "tmanager": tmanager_transport}
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    for round_ in range(args.rounds):
        for name, start in contenders.items():
            per_move = asyncio.run(games(start, args.games))
            measured[name].append(per_move)
            print(f"round {round_ + 1}: {name}: {per_move[0] * 1e6:.0f} us CPU, {per_move[1] * 1e6:.0f} us wall "
                  "per move", flush=True)
    cpu = {name: statistics.median(m[0] for m in runs) * 1e6 for name, runs in measured.items()}
    wall = {name: statistics.median(m[1] for m in runs) * 1e6 for name, runs in measured.items()}
    print(f"\nper move, Stockfish at {LIMIT.nodes} nodes, {args.games} games x {args.rounds} rounds, medians")
    for name in contenders:
        print(f"  {name:10s} {cpu[name]:6.0f} us CPU  {wall[name]:6.0f} us wall")
    print(f"  {'ratio':10s} {cpu['tmanager'] / cpu['asyncio']:6.2f}         {wall['tmanager'] / wall['asyncio']:6.2f}"
          "   (tmanager / asyncio)")


if __name__ == "__main__":
    main()
