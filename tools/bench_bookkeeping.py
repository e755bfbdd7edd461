"""Bookkeeping cost by tourney size: claim, release and record of one game, and `work --games 6`.

Tourneys of 100, 10,000 and 1,000,000 games are built with all but 20 games
recorded. Each round of measurements takes every size in turn (interleaved, so
that this noisy machine's slow minutes hit all sizes alike): a claim, its
release, a claim again and the record of a game (the real worker's
transactions, PGN append included). Medians are printed beside the 100-game
tourney's, as ratios: the goal is the same cost whatever the size (≤ 5 ms each).

``--work`` also times the whole ``tmanager work FILE --games 6`` (random
engines, short games) on the largest and the smallest tourney, interleaved;
the goal is ≤ 1.25x. ``--status`` times ``tmanager status`` of each size (goal:
≤ 1 s and ≤ 200 MB at a million games).

    python tools/bench_bookkeeping.py [--rounds 15] [--work] [--status]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tmanager.core.results import Result
from tmanager.core.schedule import RoundRobin
from tmanager.tourney import store
from tmanager.tourney.lanes import Claimed
from tmanager.tourney.model import Participant, Settings, Tourney
from tmanager.tourney.outcome import Ending
from tmanager.tourney.play import GameRecord
from tmanager.tourney.worker import Worker

ROOT = Path(__file__).resolve().parent.parent

LEFT = 20  #: games not yet recorded in each tourney
PLAYERS = 10
#: The final position of PGN, as the worker records it.
EPD = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - hmvc 0; fmvn 4;"
PGN = '[Event "bench"]\n[White "P0"]\n[Black "P1"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'


def build(directory: Path, games: int) -> Path:
    """A round robin of ``PLAYERS`` random engines with about ``games`` games, all but ``LEFT`` recorded."""
    per_cycle = RoundRobin(PLAYERS, games_per_pairing=2).games_per_cycle
    cycles = max(1, round(games / per_cycle))
    participants = [
        Participant(name=f"P{i}", engine="random-uci", args=("--seed", str(i))) for i in range(PLAYERS)
    ]
    path = directory / f"t{games}.toml"
    tourney = Tourney(
        path=path,
        settings=Settings(name=f"bench {games}", cycles=cycles, nodes=1, restart=False),
        participants=participants,
    )
    total = tourney.schedule().total_games
    rng = random.Random(games)
    tourney.results = "".join(rng.choice("+-=") for _ in range(total - LEFT))
    store.write_new(tourney)
    return path


def transactions(paths: dict[int, Path], rounds: int) -> dict[int, dict[str, list[float]]]:
    times: dict[int, dict[str, list[float]]] = {n: {"claim": [], "release": [], "record": []} for n in paths}
    workers = {n: Worker(path) for n, path in paths.items()}
    record = GameRecord(result=Result.WHITE_WINS, ending=Ending.CHECKMATE, reason="White mates", pgn=PGN, plies=7,
                        epd=EPD)
    for _ in range(rounds):
        for size, worker in workers.items():
            started = time.perf_counter()
            choice = worker.claim()
            times[size]["claim"].append(time.perf_counter() - started)
            assert isinstance(choice, Claimed), choice
            number = choice.game.number
            started = time.perf_counter()
            worker.release(number)
            times[size]["release"].append(time.perf_counter() - started)
            choice = worker.claim()
            assert isinstance(choice, Claimed), choice
            started = time.perf_counter()
            worker.record(choice.game.number, record, {})
            times[size]["record"].append(time.perf_counter() - started)
    return times


def work_games(paths: list[Path], rounds: int) -> dict[Path, list[float]]:
    times: dict[Path, list[float]] = {p: [] for p in paths}
    for _ in range(rounds):
        for path in paths:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "tmanager", "work", str(path), "--games", "6", "-q"],
                           check=True, capture_output=True)
            times[path].append(time.perf_counter() - started)
    return times


def status_runs(paths: dict[int, Path], rounds: int) -> dict[int, tuple[list[float], list[float]]]:
    """Wall seconds and peak resident megabytes of `tmanager status`, per size."""
    times: dict[int, tuple[list[float], list[float]]] = {n: ([], []) for n in paths}
    for _ in range(rounds):
        for size, path in paths.items():
            started = time.perf_counter()
            process = subprocess.Popen([sys.executable, "-m", "tmanager", "status", str(path)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            times[size][0].append(time.perf_counter() - started)
            times[size][1].append(usage.ru_maxrss / 1024)  # kilobytes on Linux
            assert process.returncode == 0
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15, help="measurements per size (at most 20)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 10_000, 1_000_000])
    parser.add_argument("--work", action="store_true", help="also time `tmanager work --games 6`")
    parser.add_argument("--status", action="store_true", help="also time `tmanager status`")
    args = parser.parse_args()
    rounds = min(args.rounds, LEFT // 2 - 1) if args.work else min(args.rounds, LEFT)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        paths = {size: build(directory, size) for size in args.sizes}
        smallest, largest = min(paths), max(paths)
        print(f"tourneys: {', '.join(f'{store.read(p).schedule().total_games:,}' for p in paths.values())} games, "
              f"{LEFT} left each; {rounds} interleaved rounds, medians")
        times = transactions(paths, rounds)
        for what in ("claim", "release", "record"):
            base = statistics.median(times[smallest][what])
            cells = []
            for size in paths:
                value = statistics.median(times[size][what])
                cells.append(f"{size:>9,}: {value * 1000:6.2f} ms ({value / base:4.2f}x)")
            print(f"{what:<8}" + "   ".join(cells))
        if args.status:
            results = status_runs(paths, 3)
            for size, (seconds, memory) in results.items():
                print(f"status {size:>9,} games: {statistics.median(seconds):.2f} s, peak {max(memory):.0f} MB")
        if args.work:
            played = work_games([paths[largest], paths[smallest]], 2)
            big, small = statistics.median(played[paths[largest]]), statistics.median(played[paths[smallest]])
            print(f"work --games 6: {largest:,} games {big:.2f} s, {smallest:,} games {small:.2f} s: "
                  f"{big / small:.2f}x (goal <= 1.25x)")


if __name__ == "__main__":
    main()
