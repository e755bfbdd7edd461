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
- **minimal Python loop**: the least a manager written in Python can do and still
  play correct games: C processes, each starting two Stockfish processes once
  and speaking UCI to them over plain pipes (``position startpos moves …`` and
  ``go nodes`` a move, lines read as they come until ``bestmove``), each move
  checked legal on a ``chess.Board``, the game ended by the rules (mate,
  stalemate, insufficient material, 50 moves, threefold repetition counted on
  a position key), no clock, no file. Its manager CPU is the floor of any
  Python manager on this workload: the interpreter, the board and the wake-ups
  for the engines' lines, nothing else.
- **minimal loop on an event loop**: the same on tmanager's event loop
  (uvloop's when installed), each answer awaited with a deadline: the floor of a
  Python manager that, as tmanager does, plays many games in one process and
  never waits for an engine without a bound. The Python loops' processes are
  forked from this one, so their figures hold neither the interpreter's start
  nor ``import chess`` (together about 0.07 s a process).
- **minimal loop, bounded reads** (``--bounded-reads``): the minimal Python
  loop with each wait for the engine bounded, as a manager's must be: ``poll``
  with the answer's deadline, then ``read`` what has come. What a blocking loop
  pays for the bound: a system call more for each write of the engine.
- **minimal loop, alarm-bounded reads** (``--alarm-reads``): the minimal Python
  loop with each answer's blocking reads bounded by an alarm (``SIGALRM``,
  armed and disarmed once an answer): a bound without a system call a line,
  for a loop on a process's main thread, one game at a time.
- **minimal loop, reader threads** (``--reader-threads``): the minimal loop on
  an event loop with a thread reading each engine's output, which hands the
  loop only the awaited line: whether a loop that wakes once an answer, and not
  once a line, costs less (it did not on 2 December 2026: docs/performance.md).
- **tmanager in one process** (``--one-process``): ``tmanager run FILE --workers 1
  --concurrency C``, the C games at a time played by one worker process on one
  event loop (``--workers C`` starts C processes of one game each).
- **fastchess** (``--fastchess PATH``): ``fastchess -engine cmd=stockfish
  name=a -engine cmd=stockfish name=b -each tc=inf nodes=1000 option.Hash=16
  -rounds N/2 -games 2 -concurrency C -pgnout file=…``.

With ``--affinity``, ``tmanager run --affinity`` and ``fastchess
-use-affinity`` run too (each game at a time bound to a CPU of its own, with
its engines), interleaved with the others and compared with each other.

With ``--split FEWER``, every contender also plays runs of FEWER games,
interleaved with the others; the line through the medians of the manager's CPU
at both counts splits it into a part per game and a fixed part (start-up and
end: the interpreter, imports, engines' start, the final report).

Each contender runs --repeat times, interleaved so that machine noise hits all
alike. Wall time is measured around the run; CPU time is the user+system time
of everything it started (``RUSAGE_CHILDREN`` deltas; this process is a child
subreaper, so engines a contender fails to wait for are counted too). Medians
are printed with the ratios tmanager/fastchess, tmanager/naive and against the
minimal loop; the goals are wall ≤ 1.10 ×, CPU ≤ 1.25 × and the manager's own
CPU ≤ 1.5 × fastchess's, and ≤ 0.60 × the naive loop.

fastchess's wall time holds up to a second of waiting: its main thread looks
whether the games are over once a second (``RoundRobin::start`` in
``roundrobin.cpp``), so it exits up to a second after its last game ended. The
time from the start to the last game's end (when the PGN file was last
written) is therefore printed too, as *last game*, with its own ratio: it is
the fairer comparison of the two managers. The naive loop writes no file; its
last game ends when it exits.
The total plies played are printed too: the games are deterministic, so every
contender should show the same number. Needs Debian's stockfish.

The engines' own CPU time is measured too, and what is left of the CPU time is
the manager's. Every contender starts Stockfish through the same small shell
script, which runs it, waits for it and then appends bash's ``times``
(its children's user and system time) to a file: the engines' CPU, taken as the
kernel counts it when each exits. Their CPU divided by the games played at a
time is the *floor*: the wall time of a manager that costs nothing and never
keeps an engine waiting. The wall and the last game are printed as multiples
of it too; the aim, a manager within about 10 % of the engines' own CPU, is
a last game of at most 1.10 x the floor. (With fewer cores than games
at a time, the floor is their CPU over the cores.)

tmanager's processes run without ``PYTHONDONTWRITEBYTECODE``, as an installed
tmanager runs (with its bytecode cached).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ctypes
import multiprocessing
import os
import resource
import select
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import typing
from collections.abc import Awaitable, Callable
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
NAIVE, MINIMAL, FASTCHESS = "naive python-chess loop", "minimal Python loop", "fastchess"
MINIMAL_ON_LOOP = "minimal loop on an event loop"
MINIMAL_READER_THREADS = "minimal loop, reader threads"
MINIMAL_BOUNDED = "minimal loop, bounded reads"
MINIMAL_ALARM = "minimal loop, alarm-bounded reads"
ANSWER_TIMEOUT = 60.0  #: seconds the bounded minimal loops wait for an answer
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Measured:
    wall: float
    cpu: float  #: of everything the contender started, the engines too
    engines_cpu: float  #: of the engines alone
    plies: int
    last_game: float  #: seconds from the start to the end of the last game (its PGN written)


#: What a contender's run gives: the plies played, and its PGN file (``None``: it writes none).
Run = Callable[[Path], tuple[int, Path | None]]


def measure(run: Run, directory: Path, engines: EngineTimes) -> Measured:
    """Run one contender in ``directory``, its engines started through ``engines``."""
    engines.reset()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started_at = time.time()  # the epoch, as the PGN file's modification time
    started = time.perf_counter()
    plies, pgn = run(directory)
    wall = time.perf_counter() - started
    last_game = pgn.stat().st_mtime - started_at if pgn is not None else wall
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Measured(wall, cpu, engines.total(), plies, last_game)


class EngineTimes:
    """Stockfish behind a shell script that appends the engine's CPU time to a file when it exits.

    The script runs Stockfish as its child (not ``exec``), waits, and appends the
    second line of bash's ``times`` as a line of its own: its children's user
    and system time, as the kernel counted them, to the millisecond. Every
    contender starts its engines by :attr:`command`.
    """

    def __init__(self, directory: Path) -> None:
        self.log = directory / "engine-cpu.txt"
        self.command = directory / "stockfish"
        log = shlex.quote(str(self.log))
        self.command.write_text(
            f'#!/bin/bash\n{shlex.quote(STOCKFISH)} "$@"\nstatus=$?\n'
            # Builtins only: a subshell would have no children. The children's line is appended in
            # one write, so that engines ending together append whole lines.
            f'times > {log}.$$\n{{ read -r; read -r children; }} < {log}.$$\nrm {log}.$$\n'
            f'echo "$children" >> {log}\nexit $status\n'
        )
        self.command.chmod(0o755)

    def reset(self) -> None:
        self.log.unlink(missing_ok=True)

    def total(self) -> float:
        """The CPU seconds of the engines that exited since the last :meth:`reset`."""
        if not self.log.exists():
            return 0.0
        # A line an engine: user and system time, as bash's ``times`` writes them ("0m1.234s 0m0.040s").
        return sum(_seconds(word) for line in self.log.read_text().splitlines() for word in line.split())

    def exited(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


def _seconds(text: str) -> float:
    minutes, seconds = text.rstrip("s").split("m")
    return 60 * float(minutes) + float(seconds)


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


def naive_games(command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]) -> None:
    """One process of the naive loop: two engines, started once, for all ``count`` games."""
    white = chess.engine.SimpleEngine.popen_uci(command)
    black = chess.engine.SimpleEngine.popen_uci(command)
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


# --- the minimal Python loop ----------------------------------------------------------------------


#: What the minimal loops write to an engine: after ``uci``, then for each game, then for each move.
SET_UP = f"setoption name Hash value {HASH_MB}\nsetoption name Threads value 1\nisready\n"
NEW_GAME = "ucinewgame\nisready\n"


def go(moves: list[str]) -> str:
    return f"position startpos moves {' '.join(moves)}\ngo nodes {NODES}\n"


class PipeEngine:
    """A UCI engine over plain pipes: each line written in one write, lines read as the engine flushes them."""

    def __init__(self, command: str) -> None:
        self.process = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.handshake()

    def handshake(self) -> None:
        """``uci``, then the options and ``isready``."""
        self.ask("uci\n", b"uciok")
        self.ask(SET_UP, b"readyok")

    def ask(self, text: str, answer: bytes) -> bytes:
        """Write ``text``, then read lines until one starts with ``answer``; that line."""
        self.stdin.write(text.encode())
        self.stdin.flush()
        while not (line := self.stdout.readline()).startswith(answer):
            if not line:
                raise RuntimeError("the engine exited")
        return line

    def quit(self) -> None:
        self.stdin.write(b"quit\n")
        self.stdin.flush()
        self.process.wait()


#: Positions seen in a game, by a key of what makes positions the same for repetitions.
Seen = dict[tuple[str, bool, int, int | None], int]


def minimal_game(engines: tuple[PipeEngine, PipeEngine]) -> int:
    """One game from the start position; its plies."""
    board, moves, seen = chess.Board(), list[str](), Seen()
    for engine in engines:
        engine.ask(NEW_GAME, b"readyok")
    while True:
        engine = engines[len(moves) % 2]
        line = engine.ask(go(moves), b"bestmove")
        moves.append(line.split()[1].decode())
        if ends(board, seen, moves[-1]):
            return len(moves)


def ends(board: chess.Board, seen: Seen, move: str) -> bool:
    """Play ``move`` (:class:`ValueError` if it is illegal); whether the rules end the game there."""
    board.push(board.parse_uci(move))
    key = (board.board_fen(), board.turn, board.castling_rights, board.ep_square)
    seen[key] = seen.get(key, 0) + 1
    return seen[key] >= 3 or board.halfmove_clock >= 100 or board.is_checkmate() or board.is_stalemate() \
        or board.is_insufficient_material()


def minimal_games(command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]) -> None:
    """One process of the minimal loop: two engines, started once, for all ``count`` games."""
    pipe_games(PipeEngine, command, count, plies)


def bounded_read_games(command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]) -> None:
    """One process of the minimal loop with bounded reads."""
    pipe_games(BoundedPipeEngine, command, count, plies)


def pipe_games(
    kind: type[PipeEngine], command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]
) -> None:
    """One process of a blocking minimal loop: two engines of ``kind``, started once, for all ``count`` games."""
    engines = (kind(command), kind(command))
    played = sum(minimal_game(engines) for _ in range(count))
    for engine in engines:
        engine.quit()
    with plies.get_lock():
        plies.value += played


class BoundedPipeEngine(PipeEngine):
    """The minimal loop's engine, each wait bounded: ``poll`` until the answer's deadline, then ``read`` what
    has come (``--bounded-reads``): what a blocking loop pays for never waiting without a bound."""

    def __init__(self, command: str) -> None:
        self.partial, self.lines = b"", collections.deque[bytes]()
        self.poller = select.poll()
        super().__init__(command)

    def handshake(self) -> None:
        self.poller.register(self.stdout, select.POLLIN)  # the engine has just started
        super().handshake()

    def ask(self, text: str, answer: bytes) -> bytes:
        """Write ``text``, then read until a line starts with ``answer`` (:class:`TimeoutError` after
        :data:`ANSWER_TIMEOUT` s); that line."""
        self.stdin.write(text.encode())
        self.stdin.flush()
        stdout = self.stdout.fileno()  # read directly: its buffer stays empty
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            while self.lines:
                if (line := self.lines.popleft()).startswith(answer):
                    return line
            if not self.poller.poll(max(deadline - time.monotonic(), 0.0) * 1000):
                raise TimeoutError(f"no {answer.decode()} in {ANSWER_TIMEOUT:g} s")
            if not (data := os.read(stdout, 1 << 16)):
                raise RuntimeError("the engine exited")
            *lines, self.partial = (self.partial + data).split(b"\n")
            self.lines.extend(lines)


class AlarmPipeEngine(PipeEngine):
    """The minimal loop's engine, each wait bounded by an alarm: ``SIGALRM`` after :data:`ANSWER_TIMEOUT` s
    interrupts the blocking reads (``--alarm-reads``). A bound for two system calls an answer (the alarm armed
    and disarmed), not one a line; only a process's main thread gets signals, so it plays one game at a time.
    It takes ``SIGALRM`` for its process."""

    def __init__(self, command: str) -> None:
        signal.signal(signal.SIGALRM, _time_out)
        super().__init__(command)

    def ask(self, text: str, answer: bytes) -> bytes:
        """:meth:`PipeEngine.ask`; :class:`TimeoutError` after :data:`ANSWER_TIMEOUT` s."""
        signal.setitimer(signal.ITIMER_REAL, ANSWER_TIMEOUT)
        try:
            return super().ask(text, answer)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _time_out(signum: int, frame: object) -> None:
    raise TimeoutError(f"no answer in {ANSWER_TIMEOUT:g} s")


def alarm_read_games(command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]) -> None:
    """One process of the minimal loop with reads bounded by an alarm."""
    pipe_games(AlarmPipeEngine, command, count, plies)


# --- the minimal loop on an event loop ------------------------------------------------------------


class LoopEngine(asyncio.SubprocessProtocol):
    """The minimal loop's engine on an event loop: its lines split as they are read, each answer awaited
    within :data:`ANSWER_TIMEOUT` (a manager that must never hang bounds every wait)."""

    def __init__(self) -> None:
        self.partial = b""
        self.awaited = b""
        self.answer: asyncio.Future[bytes] | None = None
        self.exited = asyncio.get_running_loop().create_future()
        self.stdin: asyncio.WriteTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        stdin = typing.cast(asyncio.SubprocessTransport, transport).get_pipe_transport(0)
        self.stdin = typing.cast(asyncio.WriteTransport, stdin)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        *lines, self.partial = (self.partial + data).split(b"\n")
        for line in lines:
            if line.startswith(self.awaited) and self.answer is not None and not self.answer.done():
                self.answer.set_result(line)

    def process_exited(self) -> None:
        self.exited.set_result(None)

    @classmethod
    async def start(cls, command: str) -> LoopEngine:
        _, engine = await asyncio.get_running_loop().subprocess_exec(cls, command, stderr=None)
        await engine.ask("uci\n", b"uciok")
        await engine.ask(SET_UP, b"readyok")
        return engine

    async def ask(self, text: str, answer: bytes) -> bytes:
        """Write ``text``; the first line read then that starts with ``answer``."""
        assert self.stdin is not None
        self.awaited, self.answer = answer, asyncio.get_running_loop().create_future()
        self.stdin.write(text.encode())
        async with asyncio.timeout(ANSWER_TIMEOUT):
            return await self.answer

    async def quit(self) -> None:
        assert self.stdin is not None
        self.stdin.write(b"quit\n")
        await self.exited


class AsksOnLoop(typing.Protocol):
    """An engine of a minimal loop on an event loop."""

    async def ask(self, text: str, answer: bytes) -> bytes: ...

    async def quit(self) -> None: ...


async def minimal_loop_game(engines: tuple[AsksOnLoop, AsksOnLoop]) -> int:
    """:func:`minimal_game` on an event loop."""
    board, moves, seen = chess.Board(), list[str](), Seen()
    for engine in engines:
        await engine.ask(NEW_GAME, b"readyok")
    while True:
        engine = engines[len(moves) % 2]
        line = await engine.ask(go(moves), b"bestmove")
        moves.append(line.split()[1].decode())
        if ends(board, seen, moves[-1]):
            return len(moves)


def games_on_loop(
    start: Callable[[str], Awaitable[AsksOnLoop]], command: str, count: int,
    plies: multiprocessing.sharedctypes.Synchronized[int],
) -> None:
    """One process of a minimal loop on tmanager's event loop (uvloop's when installed), its two engines
    started by ``start``."""

    async def main() -> int:
        engines = (await start(command), await start(command))
        played = 0
        for _ in range(count):
            played += await minimal_loop_game(engines)
        for engine in engines:
            await engine.quit()
        return played

    played = eventloop.run(main())
    with plies.get_lock():
        plies.value += played


def minimal_loop_games(command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]) -> None:
    """One process of the minimal loop on an event loop."""
    games_on_loop(LoopEngine.start, command, count, plies)


# --- the minimal loop on an event loop, its engines read by threads -------------------------------


class ReaderThreadEngine:
    """The minimal loop's engine on an event loop, its output read by a thread of its own that hands the
    loop only the awaited line: the loop wakes once an answer, not once a line (the ``info`` lines stay in
    the thread). Whether that costs less than the loop's own reads (``--reader-threads``)."""

    def __init__(self, command: str) -> None:
        self.loop = asyncio.get_running_loop()
        self.process = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin.fileno(), self.process.stdout.fileno()
        self.awaited = b""
        self.answer: asyncio.Future[bytes] | None = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        partial = b""
        while data := os.read(self.stdout, 1 << 16):
            *lines, partial = (partial + data).split(b"\n")
            for line in lines:
                if line.startswith(self.awaited):
                    self.loop.call_soon_threadsafe(self._deliver, line)

    def _deliver(self, line: bytes) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_result(line)

    @classmethod
    async def start(cls, command: str) -> ReaderThreadEngine:
        engine = cls(command)
        await engine.ask("uci\n", b"uciok")
        await engine.ask(SET_UP, b"readyok")
        return engine

    async def ask(self, text: str, answer: bytes) -> bytes:
        """Write ``text``; the first line read then that starts with ``answer``."""
        self.awaited, self.answer = answer, self.loop.create_future()
        os.write(self.stdin, text.encode())
        async with asyncio.timeout(ANSWER_TIMEOUT):
            return await self.answer

    async def quit(self) -> None:
        os.write(self.stdin, b"quit\n")
        await asyncio.to_thread(self.process.wait)
        self.reader.join()


def minimal_reader_thread_games(
    command: str, count: int, plies: multiprocessing.sharedctypes.Synchronized[int]
) -> None:
    """One process of the minimal loop on an event loop whose engines are read by threads."""
    games_on_loop(ReaderThreadEngine.start, command, count, plies)


def run_in_processes(
    target: Callable[[str, int, multiprocessing.sharedctypes.Synchronized[int]], None],
    games: int, concurrency: int, stockfish: Path,
) -> Run:
    """A loop that plays ``games`` in ``concurrency`` processes, each calling ``target`` for its share."""

    def run(directory: Path) -> tuple[int, Path | None]:
        plies = multiprocessing.Value("i", 0)
        shares = [games // concurrency + (i < games % concurrency) for i in range(concurrency)]
        processes = [multiprocessing.Process(target=target, args=(str(stockfish), share, plies)) for share in shares]
        for process in processes:
            process.start()
        for process in processes:
            process.join()
            assert process.exitcode == 0
        return int(plies.value), None

    return run


# --- tmanager ------------------------------------------------------------------------------------


def run_tmanager(games: int, concurrency: int, stockfish: Path, *, pinned: bool, one_process: bool = False) -> Run:
    """``tmanager run --workers C`` (C processes of a game at a time), or with ``one_process``
    ``tmanager run --workers 1 --concurrency C`` (one process of C games at a time)."""
    # The engine definition's command, ``stockfish``, is found on the PATH: the timing script first.
    env = {**ENV, "PATH": f"{stockfish.parent}{os.pathsep}{ENV.get('PATH', '')}"}
    how = ["--workers", "1", "--concurrency", str(concurrency)] if one_process else ["--workers", str(concurrency)]

    def run(directory: Path) -> tuple[int, Path | None]:
        path = directory / "bench.toml"
        subprocess.run([*TMANAGER, "run", str(path), *how, *(["--affinity"] * pinned)],
                       check=True, capture_output=True, env=env)
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


def run_fastchess(binary: Path, games: int, concurrency: int, stockfish: Path, *, pinned: bool) -> Run:
    def run(directory: Path) -> tuple[int, Path | None]:
        pgn = directory / "fastchess.pgn"
        subprocess.run(
            [str(binary), "-engine", f"cmd={stockfish}", "name=a", "-engine", f"cmd={stockfish}", "name=b",
             "-each", "tc=inf", f"nodes={NODES}", f"option.Hash={HASH_MB}", "-rounds", str(games // 2),
             "-games", "2", "-concurrency", str(concurrency), "-pgnout", f"file={pgn}",
             *(["-use-affinity"] * pinned)],
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
    parser.add_argument("--affinity", action="store_true",
                        help="also tmanager run --affinity and fastchess -use-affinity (each game at a time bound "
                             "to a CPU), compared with each other")
    parser.add_argument("--split", type=int, metavar="FEWER",
                        help="also run each contender with FEWER games (even, fewer than --games), interleaved, and "
                             "split the manager's CPU into a part per game and a fixed part (start-up and end)")
    parser.add_argument("--one-process", action="store_true",
                        help="also tmanager run --workers 1 --concurrency C: the C games at a time in one worker "
                             "process, on one event loop")
    parser.add_argument("--bounded-reads", action="store_true",
                        help="also the minimal Python loop with each read bounded (poll with a deadline, then read)")
    parser.add_argument("--alarm-reads", action="store_true",
                        help="also the minimal Python loop with each answer's blocking reads bounded by an alarm")
    parser.add_argument("--reader-threads", action="store_true",
                        help="also the minimal loop on an event loop with a thread reading each engine, which "
                             "hands the loop only the answers")
    args = parser.parse_args()
    if args.split is not None and not (2 <= args.split < args.games and args.split % 2 == 0):
        parser.error(f"--split {args.split}: must be even, at least 2 and fewer than --games ({args.games})")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    # Bytecode written once, as an installed tmanager has it, before anything is timed.
    subprocess.run([sys.executable, "-c", "import tmanager.cli.run, tmanager.cli.work, tmanager.cli.new"],
                   check=True, env=ENV)
    with tempfile.TemporaryDirectory() as scratch:
        engines = EngineTimes(Path(scratch))
        main_runs = contenders(args.games, args, engines)
        runs = {name: (args.games, run) for name, run in main_runs.items()}
        if args.split is not None:
            runs |= {fewer(name, args.split): (args.split, run)
                     for name, run in contenders(args.split, args, engines).items()}
        results = play(runs, concurrency=args.concurrency, repeat=args.repeat, engines=engines)
    summarise({name: results[name] for name in main_runs}, games=args.games, concurrency=args.concurrency,
              repeat=args.repeat)
    if args.split is not None:
        summarise_split(results, list(main_runs), games=args.games, split=args.split)


def contenders(games: int, args: argparse.Namespace, engines: EngineTimes) -> dict[str, Run]:
    """Each contender's run of ``games`` games, by name, tmanager's first."""
    ours = f"tmanager run --workers {args.concurrency}"
    runs: dict[str, Run] = {ours: run_tmanager(games, args.concurrency, engines.command, pinned=False)}
    if args.affinity:
        runs[f"{ours} --affinity"] = run_tmanager(games, args.concurrency, engines.command, pinned=True)
    if args.one_process:
        runs[one_process_name(args.concurrency)] = run_tmanager(
            games, args.concurrency, engines.command, pinned=False, one_process=True
        )
    runs[NAIVE] = run_in_processes(naive_games, games, args.concurrency, engines.command)
    runs[MINIMAL] = run_in_processes(minimal_games, games, args.concurrency, engines.command)
    runs[MINIMAL_ON_LOOP] = run_in_processes(minimal_loop_games, games, args.concurrency, engines.command)
    if args.bounded_reads:
        runs[MINIMAL_BOUNDED] = run_in_processes(bounded_read_games, games, args.concurrency, engines.command)
    if args.alarm_reads:
        runs[MINIMAL_ALARM] = run_in_processes(alarm_read_games, games, args.concurrency, engines.command)
    if args.reader_threads:
        runs[MINIMAL_READER_THREADS] = run_in_processes(
            minimal_reader_thread_games, games, args.concurrency, engines.command
        )
    if args.fastchess:
        binary = args.fastchess.resolve()
        runs[FASTCHESS] = run_fastchess(binary, games, args.concurrency, engines.command, pinned=False)
        if args.affinity:
            runs[f"{FASTCHESS} -use-affinity"] = run_fastchess(
                binary, games, args.concurrency, engines.command, pinned=True
            )
    return runs


def one_process_name(concurrency: int) -> str:
    """The contender of ``--one-process``."""
    return f"tmanager run --workers 1 --concurrency {concurrency}"


def fewer(name: str, games: int) -> str:
    """The name of a contender's runs of fewer games (``--split``)."""
    return f"{name}, {games} games"


def play(
    runs: dict[str, tuple[int, Run]], *, concurrency: int, repeat: int, engines: EngineTimes
) -> dict[str, list[Measured]]:
    """Each run (its games and how to play them, by name) ``repeat`` times, interleaved."""
    results: dict[str, list[Measured]] = {name: [] for name in runs}
    for round_ in range(repeat):  # interleaved, so that machine noise hits all alike
        for name, (games, run) in runs.items():
            with tempfile.TemporaryDirectory() as tmp:
                if name.startswith("tmanager"):
                    new_tourney(Path(tmp), games)
                m = measure(run, Path(tmp), engines)
            if engines.exited() != 2 * concurrency:  # each game at a time has its two engines
                print(f"  warning: {engines.exited()} engines told their CPU time, not {2 * concurrency}", flush=True)
            results[name].append(m)
            print(f"run {round_ + 1}: {name}: {m.wall:.2f} s wall, last game {m.last_game:.2f} s, "
                  f"{m.cpu:.2f} s CPU, of it the engines' {m.engines_cpu:.2f} s, {m.plies} plies", flush=True)
    return results


def summarise(results: dict[str, list[Measured]], *, games: int, concurrency: int, repeat: int) -> None:
    def median(name: str, field: str) -> float:
        return statistics.median(float(getattr(m, field)) for m in results[name])

    names = list(results)
    ours = names[0]
    print(f"\n{games} games, Stockfish nodes={NODES}, Hash={HASH_MB}, concurrency {concurrency}, "
          f"medians of {repeat} runs; tmanager's workers on {eventloop.kind()}'s event loop")
    print(f"  {'':38s} {'wall':>8s} {'CPU':>8s} {'last game':>10s} {'engines':>8s} {'manager':>8s} "
          f"{'floor':>7s} {'wall / floor':>12s} {'last / floor':>12s}")

    for name in names:
        wall, cpu, last, engines = (median(name, f) for f in ("wall", "cpu", "last_game", "engines_cpu"))
        floor = engines / min(concurrency, os.cpu_count() or 1)
        print(f"  {name:38s} {wall:7.2f}s {cpu:7.2f}s {last:9.2f}s {engines:7.2f}s {manager_cpu(results, name):7.2f}s "
              f"{floor:6.2f}s {wall / floor:12.2f} {last / floor:12.2f}")
    pinned = f"{ours} --affinity"
    comparisons = [
        (ours, FASTCHESS, "tmanager / fastchess", "goals: wall <= 1.10, CPU <= 1.25, manager <= 1.5"),
        (MINIMAL, FASTCHESS, "minimal Python loop / fastchess", "a Python manager's floor"),
        (MINIMAL_ON_LOOP, FASTCHESS, "minimal on a loop / fastchess", "the floor on an event loop"),
        (MINIMAL_READER_THREADS, MINIMAL_ON_LOOP, "reader threads / minimal on a loop", "what the threads change"),
        (MINIMAL_BOUNDED, MINIMAL, "bounded reads / minimal Python loop", "what bounding each wait costs"),
        (MINIMAL_ALARM, MINIMAL, "alarm-bounded / minimal Python loop", "what an alarm's bound costs"),
        (ours, MINIMAL, "tmanager / minimal Python loop", "what tmanager does beyond it"),
        (ours, MINIMAL_ON_LOOP, "tmanager / minimal on a loop", "what tmanager does beyond it"),
        (pinned, f"{FASTCHESS} -use-affinity", "tmanager / fastchess, both bound", "--affinity, -use-affinity"),
        (one_process_name(concurrency), FASTCHESS, "one process / fastchess", "goal: manager <= 1.5"),
        (one_process_name(concurrency), ours, "one process / a process a game", "what one process changes"),
        (ours, NAIVE, "tmanager / naive", "goal: <= 0.60"),
        (pinned, ours, "tmanager bound / unbound", "what --affinity changes"),
    ]
    for mine, other, label, goal in comparisons:
        if mine in results and other in results:
            wall, cpu, last = (median(mine, f) / median(other, f) for f in ("wall", "cpu", "last_game"))
            print(f"  {'ratio ' + label:38s} {wall:7.2f}  {cpu:7.2f}  {last:9.2f}  {'':8s} "
                  f"{manager_cpu(results, mine) / manager_cpu(results, other):7.2f}   ({goal})")
    print("  floor: the engines' CPU time over the games played at a time, or the cores if fewer: the wall time of\n"
          "  a manager that costs nothing and never keeps an engine waiting; goal: the last game within 1.10 x it")


def manager_cpu(results: dict[str, list[Measured]], name: str) -> float:
    """The median of the manager's CPU (everything but the engines) over the runs of ``name``."""
    return statistics.median(m.cpu - m.engines_cpu for m in results[name])


def per_game(cost: float, fewer_cost: float, *, games: int, fewer: int) -> tuple[float, float]:
    """A cost of ``games`` games and of ``fewer`` games split into the part per game and the fixed part: the
    line through both."""
    slope = (cost - fewer_cost) / (games - fewer)
    return slope, fewer_cost - slope * fewer


def summarise_split(results: dict[str, list[Measured]], names: list[str], *, games: int, split: int) -> None:
    """The manager's CPU of each contender (medians of its runs of ``games`` and of ``split`` games) as a part
    per game and a fixed part, with the ratios of tmanager's to the others'."""

    parts = {
        name: per_game(manager_cpu(results, name), manager_cpu(results, fewer(name, split)), games=games, fewer=split)
        for name in names
    }
    print(f"\nthe manager's CPU split by the runs of {split} and {games} games (medians):")
    print(f"  {'':38s} {'per game':>10s} {'fixed':>8s} {f'at {games} games':>14s}")
    for name, (each, fixed) in parts.items():
        print(f"  {name:38s} {each * 1000:7.1f} ms {fixed:7.2f}s {manager_cpu(results, name):13.2f}s")
    ours = names[0]
    for other in (MINIMAL_ON_LOOP, MINIMAL, FASTCHESS):
        if other in parts:
            print(f"  {'ratio tmanager / ' + other:38s} {parts[ours][0] / parts[other][0]:10.2f}  (per game)")


if __name__ == "__main__":
    main()
