#!/usr/bin/env python3
"""Throughput: `tmanager run` against the naive python-chess loop and, given its binary, fastchess; same workload.

Workload A: N games (default 40) of Stockfish against itself, 1000 nodes per
move, 16 MB hash, no book, two games at a time (--concurrency).

- **tmanager**: ``tmanager run FILE --workers C`` on a tourney made by
  ``tmanager new`` (not timed), with everything it always does: lock, claims,
  atomic file writes, PGN, heartbeats, live files.
- **naive loop**: what a tester writes: C processes, each starting two
  ``chess.engine.SimpleEngine``\\ s once and playing its share of the games
  with them, ``board.is_game_over(claim_draw=True)`` after every move, a new
  ``game`` (so ``ucinewgame``) per game, no files.
- **fastchess** (``--fastchess PATH``): ``fastchess -engine cmd=stockfish
  name=a -engine cmd=stockfish name=b -each tc=inf nodes=1000 option.Hash=16
  -rounds N/2 -games 2 -concurrency C -pgnout file=…``.

Each contender runs --repeat times, interleaved so that machine noise hits all
alike. Wall time is measured around the run; CPU time is the user+system time
of everything it started (``RUSAGE_CHILDREN`` deltas; this process is a child
subreaper, so engines a contender fails to wait for are counted too). Medians
are printed with the ratios tmanager/fastchess and tmanager/naive; the goals
are wall ≤ 1.10 × and CPU ≤ 1.25 × fastchess, and ≤ 0.60 × the naive loop.

fastchess's wall time holds up to a second of waiting: its main thread looks
whether the games are over once a second (``RoundRobin::start`` in
``roundrobin.cpp``), so it exits up to a second after its last game ended. The
time from the start to the last game's end (when the PGN file was last
written) is therefore printed too, as *last game*, with its own ratio: it is
the fairer comparison of the two managers. The naive loop writes no file; its
last game ends when it exits.
The total plies played are printed too: the games are deterministic, so every
contender should show the same number. Needs Debian's stockfish.

tmanager's processes run without ``PYTHONDONTWRITEBYTECODE``, as an installed
tmanager runs (with its bytecode cached).
"""

from __future__ import annotations

import argparse
import ctypes
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import psutil

from tmanager.tourney import eventloop

STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games") or "stockfish"
NODES = 1000
HASH_MB = 16
TMANAGER = [sys.executable, "-m", "tmanager"]
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Measured:
    wall: float
    cpu: float
    plies: int
    last_game: float  #: seconds from the start to the end of the last game (its PGN written)


#: What a contender's run gives: the plies played, and its PGN file (``None``: it writes none).
Run = Callable[[Path], tuple[int, Path | None]]


def measure(run: Run, directory: Path) -> Measured:
    """Run one contender in ``directory``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started_at = time.time()  # the epoch, as the PGN file's modification time
    started = time.perf_counter()
    plies, pgn = run(directory)
    wall = time.perf_counter() - started
    last_game = pgn.stat().st_mtime - started_at if pgn is not None else wall
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measured(wall, cpu, plies, last_game)


def _reap_orphans() -> None:
    # Descendants a contender left behind were re-parented to us (child subreaper): kill them and
    # wait for them, so that their CPU time counts and they disturb no later run.
    orphans = psutil.Process().children()
    for orphan in orphans:
        if orphan.status() != psutil.STATUS_ZOMBIE:
            print(f"  warning: {orphan.name()} (pid {orphan.pid}) outlived the contender; killed", flush=True)
            orphan.kill()
    psutil.wait_procs(orphans)


def pgn_plies(path: Path) -> int:
    plies = 0
    with path.open() as f:
        while (headers := chess.pgn.read_headers(f)) is not None:
            plies += int(headers.get("PlyCount", "0"))
    return plies


# --- the naive loop ------------------------------------------------------------------------------


def naive_games(count: int, plies: multiprocessing.sharedctypes.Synchronized[int]) -> None:
    """One process of the naive loop: two engines, started once, for all ``count`` games."""
    white = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    black = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    for engine in (white, black):
        engine.configure({"Hash": HASH_MB, "Threads": 1})
    played = 0
    for _ in range(count):
        board, game = chess.Board(), object()
        while not board.is_game_over(claim_draw=True):
            engine = white if board.turn == chess.WHITE else black
            move = engine.play(board, chess.engine.Limit(nodes=NODES), game=game).move
            assert move is not None
            board.push(move)
        played += len(board.move_stack)
    white.quit()
    black.quit()
    with plies.get_lock():
        plies.value += played


def run_naive(games: int, concurrency: int) -> Run:
    def run(directory: Path) -> tuple[int, Path | None]:
        plies = multiprocessing.Value("i", 0)
        shares = [games // concurrency + (i < games % concurrency) for i in range(concurrency)]
        processes = [multiprocessing.Process(target=naive_games, args=(share, plies)) for share in shares]
        for process in processes:
            process.start()
        for process in processes:
            process.join()
            assert process.exitcode == 0
        return int(plies.value), None

    return run


# --- tmanager ------------------------------------------------------------------------------------


def run_tmanager(games: int, concurrency: int) -> Run:
    def run(directory: Path) -> tuple[int, Path | None]:
        path = directory / "bench.toml"
        subprocess.run([*TMANAGER, "run", str(path), "--workers", str(concurrency)], check=True,
                       capture_output=True, env=ENV)
        return pgn_plies(path.with_suffix(".pgn")), path.with_suffix(".pgn")

    return run


def new_tourney(directory: Path, games: int) -> None:
    """The tourney `tmanager run` plays (the stockfish definition sets Hash = 16, Threads = 1)."""
    subprocess.run(
        [*TMANAGER, "new", str(directory / "bench.toml"), "-e", "stockfish:SF1", "-e", "stockfish:SF2",
         "--games", "2", "--cycles", str(games // 2), "--nodes", str(NODES)],
        check=True, capture_output=True, env=ENV,
    )


# --- fastchess -----------------------------------------------------------------------------------


def run_fastchess(binary: Path, games: int, concurrency: int) -> Run:
    def run(directory: Path) -> tuple[int, Path | None]:
        pgn = directory / "fastchess.pgn"
        subprocess.run(
            [str(binary), "-engine", f"cmd={STOCKFISH}", "name=a", "-engine", f"cmd={STOCKFISH}", "name=b",
             "-each", "tc=inf", f"nodes={NODES}", f"option.Hash={HASH_MB}", "-rounds", str(games // 2),
             "-games", "2", "-concurrency", str(concurrency), "-pgnout", f"file={pgn}"],
            check=True, capture_output=True, cwd=directory,
        )
        return pgn_plies(pgn), pgn

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per run (even)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at a time")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; medians are compared")
    parser.add_argument("--fastchess", type=Path, help="a fastchess binary, to compare with")
    args = parser.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # Bytecode written once, as an installed tmanager has it, before anything is timed.
    subprocess.run([sys.executable, "-c", "import tmanager.cli.run, tmanager.cli.work, tmanager.cli.new"],
                   check=True, env=ENV)
    contenders: dict[str, Run] = {
        f"tmanager run --workers {args.concurrency}": run_tmanager(args.games, args.concurrency),
        "naive python-chess loop": run_naive(args.games, args.concurrency),
    }
    if args.fastchess:
        contenders["fastchess"] = run_fastchess(args.fastchess.resolve(), args.games, args.concurrency)
    results: dict[str, list[Measured]] = {name: [] for name in contenders}
    ours = next(iter(contenders))
    for repeat in range(args.repeat):  # interleaved, so that machine noise hits all alike
        for name, run in contenders.items():
            with tempfile.TemporaryDirectory() as tmp:
                if name == ours:
                    new_tourney(Path(tmp), args.games)
                m = measure(run, Path(tmp))
            results[name].append(m)
            print(f"run {repeat + 1}: {name}: {m.wall:.2f} s wall, last game {m.last_game:.2f} s, "
                  f"{m.cpu:.2f} s CPU, {m.plies} plies", flush=True)
    wall = {name: statistics.median(m.wall for m in ms) for name, ms in results.items()}
    cpu = {name: statistics.median(m.cpu for m in ms) for name, ms in results.items()}
    last = {name: statistics.median(m.last_game for m in ms) for name, ms in results.items()}
    print(f"\n{args.games} games, Stockfish nodes={NODES}, Hash={HASH_MB}, concurrency {args.concurrency}, "
          f"medians of {args.repeat} runs; tmanager's workers on {eventloop.kind()}'s event loop")
    print(f"  {'':34s} {'wall':>8s} {'CPU':>8s} {'last game':>10s}")
    for name in contenders:
        print(f"  {name:34s} {wall[name]:7.2f}s {cpu[name]:7.2f}s {last[name]:9.2f}s")
    goals = {"fastchess": "goals: wall <= 1.10, CPU <= 1.25", "naive python-chess loop": "goal: <= 0.60"}
    for other, goal in goals.items():
        if other in contenders:
            label = f"ratio tmanager / {other.split()[0]}"
            print(f"  {label:34s} {wall[ours] / wall[other]:7.2f}  {cpu[ours] / cpu[other]:7.2f}  "
                  f"{last[ours] / last[other]:9.2f}   ({goal})")


if __name__ == "__main__":
    main()
