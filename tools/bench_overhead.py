#!/usr/bin/env python3
"""Per-move overhead, layer by layer: from python-chess's bare round trip up to a tmanager worker.

Against an engine that answers at once, what a manager spends per move is
all there is to measure. The engine here (written to a temporary file by this
tool) replays one fixed legal game of --plies plies, so its own work is a line
split, and stamps the clock when it receives ``go`` and when it sends
``bestmove``. For each layer this prints:

- **CPU per move**: the manager process's CPU time (``time.process_time``,
  all its threads) over the games, per move; on a machine whose cores the
  engines keep busy, this is what the manager takes from them;
- **bestmove -> go**: the median and 90th percentile of the gap from one
  engine's ``bestmove`` to the opponent's ``go``, everything the manager does
  between two moves as the engines see it.

The layers, each measured over --games games per round, rounds interleaved:

1. ``UciProtocol.play``: python-chess's async protocol alone, ``play`` and
   ``push`` (the floor the issue names);
2. ``UciClient.play``: tmanager's UCI client (``tmanager/tourney/uciclient.py``);
3. ``play_game``: the game runner: clocks, rules, adjudication, PGN;
4. ``Worker``: a worker playing a tourney of those games: claims, records,
   PGN appends, live files, engine definitions (as ``tmanager work``, in this
   process);
5. ``SimpleEngine`` loop: what a tester writes, with
   ``board.is_game_over(claim_draw=True)`` after every move.

With ``--info-lines N`` the engine searches instead: before each move it writes
N ``info`` lines, one at a time 0.1 ms apart (Stockfish writes about seven a move
at 1000 nodes, each on its own). Each line wakes the manager: the difference to a
run without is what a search's reports cost each layer, per move.

Layers 2 to 4 run on the event loop a worker plays on here (uvloop's where it
is installed; ``TMANAGER_LOOP=asyncio`` for asyncio's), layer 1 on asyncio's,
as python-chess's users run it.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import chess
import chess.engine

from tmanager.core.timecontrol import TimeControl
from tmanager.tourney import eventloop
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.engine import EnginePool
from tmanager.tourney.engines import EngineSpec, Protocol
from tmanager.tourney.play import GameSpec, play_game
from tmanager.tourney.search import SearchLimit
from tmanager.tourney.transport import popen
from tmanager.tourney.uciclient import UciClient
from tmanager.tourney.worker import Worker

ENGINE = textwrap.dedent(
    """
    import sys, time
    moves = open(sys.argv[1]).read().split()
    log = open(sys.argv[2], "a")
    searching = int(sys.argv[3])  # info lines a move, written one by one before it
    REPORT_SECONDS = 0.0001
    ply = 0
    for line in sys.stdin:
        now = time.time_ns()
        words = line.split()
        if not words:
            continue
        if words[0] == "position":
            ply = len(words) - words.index("moves") - 1 if "moves" in words else 0
        elif words[0] == "go":
            log.write(f"go {now}\\n")
            for depth in range(1, searching + 1):  # a search's reports, each written as it comes
                time.sleep(REPORT_SECONDS)
                print(f"info depth {depth} seldepth {depth + 2} multipv 1 score cp 20 nodes {100 * depth} "
                      f"nps 500000 hashfull 0 tbhits 0 time 1 pv {moves[ply]}", flush=True)
            log.write(f"bestmove {time.time_ns()}\\n")
            report = "" if searching else f"info depth 1 score cp 0 nodes 1 pv {moves[ply]}\\n"
            print(f"{report}bestmove {moves[ply]}", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "uci":
            print("id name replay\\noption name Hash type spin default 16 min 1 max 1024\\nuciok", flush=True)
        elif words[0] == "quit":
            break
    log.close()
    """
)


def long_game(plies: int) -> list[str]:
    """A random legal game of ``plies`` plies that no rule ends before its last move (fixed seeds)."""
    for seed in range(10_000):
        rng, board = random.Random(seed), chess.Board()
        while board.ply() < plies and not board.is_game_over(claim_draw=True):
            board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
        if board.ply() == plies and not board.is_game_over(claim_draw=True):
            return [move.uci() for move in board.move_stack]
    raise SystemExit(f"no random game of {plies} plies found")


class Bench:
    def __init__(self, directory: Path, plies: int, games: int, info_lines: int = 0) -> None:
        self.directory, self.plies, self.games, self.info_lines = directory, plies, games, info_lines
        self.script = directory / "replay.py"
        self.script.write_text(ENGINE)
        self.moves = directory / "game.txt"
        self.moves.write_text(" ".join(long_game(plies)))
        self.round = 0

    def logs(self, layer: str) -> list[Path]:
        return [self.directory / f"{layer}-{self.round}-{side}.log" for side in ("w", "b")]

    def command(self, log: Path) -> list[str]:
        return [sys.executable, str(self.script), str(self.moves), str(log), str(self.info_lines)]

    async def _games(
        self, move: Callable[[int, chess.Board], Awaitable[chess.Move | None]], new_game: Callable[[], Awaitable[None]]
    ) -> float:
        """CPU seconds of --games games, each begun by ``new_game``, each move ``move(side, board)``."""
        started = time.process_time()
        for _ in range(self.games):
            board = chess.Board()
            await new_game()
            while board.ply() < self.plies:
                played = await move(board.ply() % 2, board)
                assert played is not None
                board.push(played)
        return time.process_time() - started

    async def _python_chess(self, logs: list[Path]) -> float:
        engines = []
        for log in logs:
            _, engine = await chess.engine.UciProtocol.popen(self.command(log))
            await engine.initialize()
            engines.append(engine)
        limit, game = chess.engine.Limit(nodes=1), [object()]

        async def move(side: int, board: chess.Board) -> chess.Move | None:
            return (await engines[side].play(board, limit, game=game[0])).move

        async def new_game() -> None:
            game[0] = object()

        cpu = await self._games(move, new_game)
        for engine in engines:
            await engine.quit()
        return cpu

    async def _client(self, logs: list[Path]) -> float:
        clients = []
        for log in logs:
            _, client = await popen(UciClient, self.command(log))
            await client.handshake()
            clients.append(client)
        limit = SearchLimit(nodes=1)

        async def move(side: int, board: chess.Board) -> chess.Move | None:
            return (await clients[side].play(board, limit)).move

        async def new_game() -> None:
            for client in clients:
                await client.new_game()

        cpu = await self._games(move, new_game)
        for client in clients:
            await client.quit()
        return cpu

    def floor(self, logs: list[Path]) -> float:
        return asyncio.run(self._python_chess(logs))

    def client(self, logs: list[Path]) -> float:
        return eventloop.run(self._client(logs))

    def runner(self, logs: list[Path]) -> float:
        async def games() -> float:
            limits = TimeControl.parse("inf", nodes=1)
            white, black = (EngineSpec(name=f"E{i}", command=tuple(self.command(log)), protocol=Protocol.UCI)
                            for i, log in enumerate(logs))
            spec = GameSpec(white=white, black=black, white_limits=limits, black_limits=limits,
                            adjudication=Adjudication(max_moves=self.plies // 2))
            pool = EnginePool()
            for engine in (white, black):  # started before the clock runs, as in the other layers
                await pool.release(await pool.acquire(engine), healthy=True)
            started = time.process_time()
            for _ in range(self.games):
                record = await play_game(spec, pool)
                assert record.plies == self.plies, record.reason
            cpu = time.process_time() - started
            await pool.close()
            return cpu

        return eventloop.run(games())

    def worker(self, logs: list[Path]) -> float:
        directory = self.directory / f"worker-{self.round}"
        (directory / "engines").mkdir(parents=True)
        for name, log in zip(("white", "black"), logs, strict=True):
            (directory / "engines" / f"{name}.toml").write_text(
                f'cmd = "{self.script}"\nprotocol = "uci"\nargs = ["{self.moves}", "{log}", "{self.info_lines}"]\n'
            )
        path = directory / "t.toml"
        subprocess.run(
            [sys.executable, "-m", "tmanager", "new", str(path), "-e", "white", "-e", "black", "--games", "1",
             "--cycles", str(self.games), "--nodes", "1", "--set", f"adjudication.max_moves={self.plies // 2}"],
            check=True, capture_output=True,
        )
        started = time.process_time()
        played = eventloop.run(Worker(path).run())
        cpu = time.process_time() - started
        assert played == self.games
        return cpu

    def simple_engine(self, logs: list[Path]) -> float:
        engines = [chess.engine.SimpleEngine.popen_uci(self.command(log)) for log in logs]
        started = time.process_time()
        for _ in range(self.games):
            board, game = chess.Board(), object()
            while not board.is_game_over(claim_draw=True) and board.ply() < self.plies:
                result = engines[board.ply() % 2].play(board, chess.engine.Limit(nodes=1), game=game)
                assert result.move is not None
                board.push(result.move)
        cpu = time.process_time() - started
        for engine in engines:
            engine.quit()
        return cpu


def gaps(logs: list[Path]) -> list[float]:
    """Microseconds from each bestmove to the next go, across both engines' stamps."""
    events = sorted((int(stamp), kind) for log in logs for kind, stamp in map(str.split, log.read_text().splitlines()))
    return [(t1 - t0) / 1000 for (t0, k0), (t1, k1) in itertools.pairwise(events) if (k0, k1) == ("bestmove", "go")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=150, help="plies per game")
    parser.add_argument("--games", type=int, default=4, help="games per layer and round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are printed")
    parser.add_argument("--info-lines", type=int, default=0, metavar="N",
                        help="the engine searches: N info lines a move, 0.1 ms apart, then the move "
                             "(0: the move at once, with one info line in the same write)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(Path(tmp), args.plies, args.games, args.info_lines)
        layers: dict[str, Callable[[list[Path]], float]] = {
            "UciProtocol.play (python-chess)": bench.floor,
            "UciClient.play": bench.client,
            "play_game (the runner)": bench.runner,
            "Worker (tmanager work)": bench.worker,
            "SimpleEngine loop (a tester's)": bench.simple_engine,
        }
        cpu: dict[str, list[float]] = {name: [] for name in layers}
        latency: dict[str, list[float]] = {name: [] for name in layers}
        for bench.round in range(args.rounds):
            for name, layer in layers.items():
                logs = bench.logs(name.split()[0])
                cpu[name].append(layer(logs) / (args.games * args.plies) * 1e6)
                latency[name] += gaps(logs)
    floor = statistics.median(cpu["UciProtocol.play (python-chess)"])
    engine = (f"an engine that writes {args.info_lines} info lines a move, one by one" if args.info_lines
              else "an engine that answers at once")
    print(f"per move, {args.games} games of {args.plies} plies x {args.rounds} rounds, {engine};"
          f" tmanager's layers on {eventloop.kind()}'s event loop")
    print(f"  {'layer':34s} {'CPU/move':>9s} {'/floor':>7s} {'bestmove->go':>13s} {'p90':>7s}")
    for name in layers:
        median_cpu = statistics.median(cpu[name])
        deciles = statistics.quantiles(latency[name], n=10)
        print(f"  {name:34s} {median_cpu:7.0f}us {median_cpu / floor:7.2f} "
              f"{statistics.median(latency[name]):11.0f}us {deciles[8]:5.0f}us")


if __name__ == "__main__":
    main()
