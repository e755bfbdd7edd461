#!/usr/bin/env python3
"""Hundreds of games at once on a few cores: `tmanager run --concurrency C` beside fastchess, engines that sleep.

The engines are ``engines/sleeper.py`` (run as ``python3 -S -I``): each ``go`` is
answered after sleeping (the fixed move time, or a share of the clock), with the
next move of one fixed legal game, so a game costs the cores almost nothing but
the manager's own work. Two participants, A and B, play --games games in
colour-reversed pairs; pair j starts from the sleeper's game after 2j plies,
and games stop after --max-moves moves of each engine (``max_moves``,
fastchess's ``-maxmoves``). The book is walked in order. By default it is an
EPD book, the position after those plies, as testers' books mostly are
(fishtest's and OpenBench's UHO books); ``--book pgn`` gives the plies as a PGN
book instead, openings of 2 to 998 plies (500 on average) that each manager
reads and replays for every game: a stress of the per-game work that no real
book makes. Both write their PGN in UCI notation: with such openings, SAN would
cost a Python manager milliseconds per game that have nothing to do with
concurrency. For each --concurrency
C and each mode (``st``: a fixed move time; ``clock``: a time control), both
managers get the same games, time margin and concurrency:

- **tmanager**: ``tmanager run FILE --concurrency C`` (its own split into
  processes and lanes; ``--workers N`` to choose N processes of C lanes each);
- **fastchess** (``--fastchess PATH``): ``fastchess -engine … -each proto=uci
  st=…|tc=… timemargin=… -openings … order=sequential -maxmoves M -rounds G/2
  -games 2 -repeat -concurrency C -force-concurrency -pgnout file=… notation=uci``.

Printed per run: games per minute (wall clock from the command's start to its
end), the manager's latency from one engine's ``bestmove`` to the other's next
``go`` as the engines stamp them on ``CLOCK_MONOTONIC`` (median, p99, max, in
ms; every move but each game's first), the games lost on time, and the peak
resident memory of the manager (all its processes, the engines not counted,
sampled every 0.2 s), and the CPU time per move (user + system) of the manager's
processes and of the engines. The issue's goals at C = 256: p99 ≤ 10 ms, no time
loss in 2,000 games at 10+0.1 with a 50 ms margin, memory ≤ 2 GB, games per
minute within 10 % of fastchess.

Develop with tiny sizes (``--concurrency 4 --games 8 --max-moves 10``); the
figures mean something only on a quiet machine.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn
import psutil

from tmanager.tourney import eventloop

ROOT = Path(__file__).resolve().parent.parent
SLEEPER = ROOT / "engines" / "sleeper.py"
TMANAGER = [sys.executable, "-m", "tmanager"]
#: How often the managers' memory is sampled.
SAMPLE_SECONDS = 0.2
#: How often the list of the managers' descendants is read again (new processes are told apart once).
RESCAN_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class Setting:
    """One run's conditions, the same for both managers."""

    concurrency: int
    mode: str  # "st" or "clock"
    games: int
    st: float
    tc: str
    margin: float
    max_moves: int
    workers: int | None
    book: str  # "epd" or "pgn"

    @property
    def pairs(self) -> int:
        return self.games // 2


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run of one manager measured."""

    manager: str
    setting: Setting
    games: int
    wall: float
    latencies_ms: list[float]
    time_losses: int
    peak_rss_mb: float
    #: CPU seconds (user + system) of the manager's processes and of the engines, over the run.
    manager_cpu: float
    engine_cpu: float

    def row(self) -> str:
        lat = sorted(self.latencies_ms) or [float("nan")]
        moves = len(self.latencies_ms) + self.games  # each game's first move has no latency
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        return (f"{self.manager:<9} {self.setting.concurrency:>5} {self.setting.mode:<5} {self.games:>6} "
                f"{self.games / self.wall * 60:>9.1f} {statistics.median(lat):>8.2f} {p99:>8.2f} {lat[-1]:>8.2f} "
                f"{len(self.latencies_ms):>7} {self.time_losses:>6} {self.peak_rss_mb:>9.0f} "
                f"{self.manager_cpu / moves * 1e6:>10.0f} {self.engine_cpu / moves * 1e6:>10.0f}")


HEADER = (f"{'manager':<9} {'conc':>5} {'mode':<5} {'games':>6} {'games/min':>9} {'lat med':>8} {'lat p99':>8} "
          f"{'lat max':>8} {'moves':>7} {'tloss':>6} {'RSS MB':>9} {'mgr µs/mv':>10} {'eng µs/mv':>10}")


def sleeper_game() -> list[str]:
    """The sleeper's fixed game, read from its source as data."""
    tree = ast.parse(SLEEPER.read_text())
    game = next(node for node in tree.body if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "GAME")
    assert isinstance(game.value, ast.Call) and isinstance(game.value.func, ast.Attribute)
    return str(ast.literal_eval(game.value.func.value)).split()


def write_book(directory: Path, setting: Setting) -> str:
    """The book's file name, written into ``directory``: opening j (from 1) is the sleeper's game after 2j plies,
    as the FEN of that position (an EPD book) or as the moves from the start position (a PGN book)."""
    moves = sleeper_game()
    name = f"book.{setting.book}"
    with open(directory / name, "w") as book:
        board = chess.Board()
        for j in range(1, openings_for(setting) + 1):
            for uci in moves[2 * j - 2 : 2 * j]:
                board.push_uci(uci)
            if setting.book == "epd":
                print(board.fen(), file=book)
            else:
                print(chess.pgn.Game.from_board(board), file=book, end="\n\n")
    return name


def openings_for(setting: Setting) -> int:
    """Distinct openings: at least as many as pairs play at once (so that the engines' logs tell the games
    apart), as many as the sleeper's game leaves room for."""
    room = (len(sleeper_game()) - 2 * setting.max_moves) // 2 - 1
    wanted = max(setting.concurrency, 1)
    if room < wanted:
        raise SystemExit(f"--max-moves {setting.max_moves} leaves room for {room} openings, fewer than "
                         f"--concurrency {setting.concurrency}: lower --max-moves")
    return min(room, max(wanted, setting.pairs))


def sleeper_args(log_dir: Path, name: str) -> list[str]:
    return ["-S", "-I", str(SLEEPER), "--log", str(log_dir), "--name", name]


def watch(command: Sequence[str], *, cwd: Path) -> tuple[float, float, float, float]:
    """Run ``command``; its wall time, the peak resident memory (MB) of it and its descendants but the
    engines, and the CPU seconds of those processes and of the engines.

    The CPU of all descendants comes from the kernel once they are reaped (``RUSAGE_CHILDREN``); the
    manager's share is its processes' own, sampled with the memory (they live through the run, so at
    most a last sample's interval of a process that is ending goes uncounted); the engines' is the rest.

    The watching must not load the machine it measures: listing hundreds of engines and reading each
    one's command line at every sample cost this process a quarter of a core. So each process is told
    apart once (manager or engine), the list of descendants is read again only every
    :data:`RESCAN_SECONDS`, and a sample reads the manager's few processes alone.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    root = psutil.Process(process.pid)
    managers: dict[int, psutil.Process] = {root.pid: root}
    engines: set[int] = set()
    peak = 0
    manager_cpu: dict[int, float] = {}
    rescanned = 0.0
    while process.poll() is None:
        if time.monotonic() - rescanned >= RESCAN_SECONDS:
            rescanned = time.monotonic()
            with contextlib.suppress(psutil.Error):
                for member in root.children(recursive=True):
                    if member.pid in managers or member.pid in engines:
                        continue
                    with contextlib.suppress(psutil.Error):
                        if str(SLEEPER) in " ".join(member.cmdline()):
                            engines.add(member.pid)
                        else:
                            managers[member.pid] = member
        total = 0
        for pid, member in list(managers.items()):
            try:
                with member.oneshot():
                    total += member.memory_info().rss
                    times = member.cpu_times()
                manager_cpu[pid] = times.user + times.system
            except psutil.Error:
                del managers[pid]  # it has ended: its last sample stays counted
        peak = max(peak, total)
        time.sleep(SAMPLE_SECONDS)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        print(f"  {command[0]} … exited with status {process.returncode}", file=sys.stderr)
    everything = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    manager = sum(manager_cpu.values())
    return wall, peak / 2**20, manager, everything - manager


def latencies(log_dir: Path) -> list[float]:
    """Milliseconds from each bestmove to the opponent's next go: same opening, next ply, other engine."""
    goes: dict[tuple[str, int, int], list[int]] = {}
    bests: list[tuple[str, int, int, int]] = []
    for log in log_dir.glob("*.log"):
        for line in log.read_text().splitlines():
            name, *numbers = line.split()
            opening, ply, go, best = map(int, numbers)
            goes.setdefault((name, opening, ply), []).append(go)
            bests.append((name, opening, ply, best))
    gaps = []
    for name, opening, ply, best in bests:
        other = "B" if name == "A" else "A"
        after = [go - best for go in goes.get((other, opening, ply + 1), []) if go >= best]
        if after:
            gaps.append(min(after) / 1e6)
    return gaps


def games_and_time_losses(pgn_path: Path) -> tuple[int, int]:
    games = losses = 0
    with open(pgn_path, encoding="utf-8") as pgn:
        while (headers := chess.pgn.read_headers(pgn)) is not None:
            games += 1
            losses += "time" in headers.get("Termination", "").lower()
    return games, losses


def run_tmanager(setting: Setting, directory: Path) -> Outcome:
    logs = directory / "logs"
    logs.mkdir()
    book = write_book(directory, setting)
    limit = f"st = {setting.st}" if setting.mode == "st" else f'tc = "{setting.tc}"'
    participants = "".join(
        f'\n[[participants]]\nname = "{name}"\ncmd = "{sys.executable}"\nargs = {sleeper_args(logs, name)!r}\n'
        f'protocol = "uci"\n'.replace("'", '"')
        for name in ("A", "B")
    )
    path = directory / "bench.toml"
    path.write_text(
        f'[tourney]\nname = "bench"\ngames_per_pairing = 2\ncycles = {setting.pairs}\n{limit}\n'
        f'time_margin = {setting.margin}\npgn_notation = "uci"\n'
        f'[openings]\nfile = "{book}"\nformat = "{setting.book}"\norder = "sequential"\n'
        f"[adjudication]\nmax_moves = {setting.max_moves}\n{participants}"
    )
    split = ["--concurrency", str(setting.concurrency)]
    if setting.workers is not None:
        split += ["--workers", str(setting.workers)]
    wall, rss, manager_cpu, engine_cpu = watch([*TMANAGER, "run", str(path), *split], cwd=directory)
    games, losses = games_and_time_losses(directory / "bench.pgn")
    return Outcome("tmanager", setting, games, wall, latencies(logs), losses, rss, manager_cpu, engine_cpu)


def run_fastchess(binary: Path, setting: Setting, directory: Path) -> Outcome:
    logs = directory / "logs"
    logs.mkdir()
    book = write_book(directory, setting)
    limit = f"st={setting.st}" if setting.mode == "st" else f"tc={setting.tc}"
    engines = []
    for name in ("A", "B"):
        engines += ["-engine", f"cmd={sys.executable}", f"args={' '.join(sleeper_args(logs, name))}", f"name={name}"]
    command = [
        str(binary), *engines, "-each", "proto=uci", limit, f"timemargin={round(setting.margin * 1000)}",
        "-openings", f"file={book}", f"format={setting.book}", "order=sequential",
        *(["plies=10000"] if setting.book == "pgn" else []),
        "-maxmoves", str(setting.max_moves), "-rounds", str(setting.pairs), "-games", "2", "-repeat",
        "-concurrency", str(setting.concurrency), "-force-concurrency", "-pgnout", "file=fc.pgn", "notation=uci",
    ]
    wall, rss, manager_cpu, engine_cpu = watch(command, cwd=directory)
    games, losses = games_and_time_losses(directory / "fc.pgn")
    return Outcome("fastchess", setting, games, wall, latencies(logs), losses, rss, manager_cpu, engine_cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[128, 256], help="games at once (each)")
    parser.add_argument("--games", type=int, default=2000, help="games per run (even)")
    parser.add_argument("--modes", nargs="+", choices=["st", "clock"], default=["st", "clock"])
    parser.add_argument("--st", type=float, default=0.1, help="fixed move time of mode st (s)")
    parser.add_argument("--tc", default="10+0.1", help="time control of mode clock")
    parser.add_argument("--margin", type=float, default=0.05, help="time margin (s)")
    parser.add_argument("--max-moves", type=int, default=100, help="moves of each engine per game")
    parser.add_argument("--book", choices=["epd", "pgn"], default="epd",
                        help="openings as positions (epd) or as the moves that reach them (pgn: long openings)")
    parser.add_argument("--workers", type=int, default=None, help="tmanager processes (default: run's own split)")
    parser.add_argument("--fastchess", type=Path, default=None, help="fastchess binary, to run beside tmanager")
    parser.add_argument("--keep", type=Path, default=None, help="keep the runs' files in this directory")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even and at least 2")
    print(f"sleeper engines; {args.games} games per run; max_moves {args.max_moves}; {args.book} book; "
          f"margin {args.margin * 1000:g} ms; st {args.st:g} s; tc {args.tc}; {os.cpu_count()} cores; "
          f"tmanager's workers on {eventloop.kind()}'s event loop")
    print(HEADER)
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-concurrency-"))
    for concurrency in args.concurrency:
        for mode in args.modes:
            setting = Setting(concurrency, mode, args.games, args.st, args.tc, args.margin, args.max_moves,
                              args.workers, args.book)
            directory = base / f"tmanager-{concurrency}-{mode}"
            directory.mkdir(parents=True)
            print(run_tmanager(setting, directory).row(), flush=True)
            if args.fastchess is not None:
                directory = base / f"fastchess-{concurrency}-{mode}"
                directory.mkdir(parents=True)
                print(run_fastchess(args.fastchess.resolve(), setting, directory).row(), flush=True)
    if args.keep is None:
        print(f"(files in {base})")


if __name__ == "__main__":
    main()
