"""Play every remaining game of a tourney with concurrent workers, showing live progress.

Each worker is a process of its own that claims games under the file lock, so
`tmanager work FILE` can add more from other terminals at any time; each plays
one game at a time, or several with --concurrency (its lanes). The workers are
forked from `run`, so they start without a new interpreter, and they stop
cleanly when `run` dies, even by ``kill -9``. Ctrl-C or SIGTERM stops all
workers cleanly: their games in progress are given back unplayed. Running the
command again resumes where the tourney stopped; games of workers that were
killed outright are detected and replayed. A match of two
participants prints its statistics every --report-every games; with [sprt] it
stops once the test decides (on whole game pairs) and prints the verdict.
The workers play on uvloop's event loop where it is installed, else on
asyncio's (TMANAGER_LOOP chooses, as for `tmanager work`).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from tmanager.cli import INTERRUPTED
from tmanager.cli._bounds import MAX_GAMES_AT_ONCE, MAX_WORKERS, check_count
from tmanager.cli.status import match_lines, report
from tmanager.core import sprt
from tmanager.errors import ConfigError, TManagerError
from tmanager.logs import setup_logging
from tmanager.tourney import affinity, eventloop, store
from tmanager.tourney.claims import stale_games
from tmanager.tourney.model import PLAYING, Tourney
from tmanager.tourney.play import die_with_parent
from tmanager.tourney.worker import preflight, read_ahead, release_stale

if TYPE_CHECKING:
    from tmanager.tourney.cluster import Coordinator

EXAMPLES = """\
  tmanager run tourneys/demo.toml                 # one game at a time
  tmanager run gauntlet.toml --workers 2          # two games at once
  tmanager run gauntlet.toml --workers 2 --log gauntlet.log
  tmanager run gauntlet.toml --concurrency 64     # 64 games at once, in a few processes (one per core)
  tmanager run gauntlet.toml --workers 4 --concurrency 16  # 4 processes of 16 games each
  tmanager run gauntlet.toml --workers 2 --affinity       # each game's processes on a CPU of their own
  tmanager run gauntlet.toml --dask tcp://10.0.0.1:8786  # on a Dask cluster (docs/cluster.md)
  tmanager run sprt.toml --workers 2 --report-every 20    # an SPRT match: Elo, nElo and LLR every 20 games
"""

#: How often the progress display reads the tourney file.
REFRESH_SECONDS = 0.5


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument(
        "-w", "--workers", type=int, default=None, metavar="N",
        help="worker processes (default: 1; with --concurrency alone, one per core)",
    )
    parser.add_argument(
        "-c", "--concurrency", type=int, default=None, metavar="K",
        help="games at once: with --workers, in each process; alone, in all, split over min(K, cores) processes "
        "(more where one would get over 32)",
    )
    parser.add_argument(
        "--affinity", nargs="?", const="", default=None, metavar="CPUS",
        help="bind each worker and its engines to CPUs of their own, one for each game it plays at once, as "
        "fastchess's -use-affinity: from CPUS (0,2,4-7), or all this process may use",
    )
    parser.add_argument(
        "--log", type=Path, default=None, help="workers' log file (default: FILE with suffix .log)"
    )
    parser.add_argument(
        "--dask", metavar="ADDRESS", default=None,
        help="play the games on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786) "
        "instead of in local processes",
    )
    parser.add_argument(
        "--dask-concurrency", type=int, default=None, metavar="N",
        help="games at once on the cluster (default: its threads, growing as workers join)",
    )
    parser.add_argument(
        "--report-every", type=int, default=10, metavar="N",
        help="a match of two: print its statistics (Elo, nElo, pentanomial, LLR) every N games; 0: never",
    )
    parser.add_argument(
        "--log-engines", action="store_true",
        help="write every line to and from the engines to FILE.engine-logs/game-N.log (as log_engines = true)",
    )


def command(args: argparse.Namespace) -> int:
    check_count(args.workers, option="--workers", most=MAX_WORKERS)
    check_count(args.concurrency, option="--concurrency", most=MAX_GAMES_AT_ONCE)
    check_count(args.dask_concurrency, option="--dask-concurrency", most=MAX_GAMES_AT_ONCE)
    if args.workers is not None and args.concurrency is not None:
        check_count(args.workers * args.concurrency, option="--workers × --concurrency", most=MAX_GAMES_AT_ONCE)
    if args.dask is not None and (args.concurrency is not None or args.workers is not None):
        option = "--concurrency" if args.concurrency is not None else "--workers"
        raise ConfigError("not with --dask", field=option, hint="the cluster's threads, or --dask-concurrency, "
                          "say how many games it plays at once")
    if args.report_every < 0:
        raise ConfigError(f"must not be negative, not {args.report_every}", field="--report-every")
    if args.affinity is not None and args.dask is not None:
        raise ConfigError("not with --dask", field="--affinity", hint="each host's worker binds its own")
    if args.log_engines and args.dask is not None:
        raise ConfigError(
            "not with --dask", field="--log-engines",
            hint="set log_engines = true in the tourney file: each game's log is written on the host that plays it",
        )
    tourney = store.read(args.file)  # before anything else looks at the path: it may not be a file at all
    path = tourney.path  # resolved
    lanes = split(workers=args.workers, concurrency=args.concurrency)
    cpus: list[tuple[int, ...]] | None = None
    if args.affinity is not None:
        chosen = affinity.parse(args.affinity) if args.affinity else affinity.available()
        affinity.check(chosen, games=sum(lanes))
        cpus = affinity.share(chosen, lanes)
    if args.dask is None:
        preflight(tourney)  # with --dask, the engines are checked on the cluster's hosts
        eventloop.factory()  # an error in TMANAGER_LOOP is told here once, not by every worker
        read_ahead(tourney, games=2 * sum(lanes))  # the workers, forked, inherit what it read
    log_path = args.log or path.with_suffix(".log")
    setup_logging(None)
    monitor = Progress(path, interactive=sys.stderr.isatty(), report_every=args.report_every)
    if monitor.finished(tourney) and not tourney.hooks:
        monitor.final(tourney)
        print(f"tmanager: nothing to play: {_why_over(tourney, path)}", file=sys.stderr)
        return 0
    workers = (
        Workers(path, lanes, log_path, log_engines=args.log_engines, cpus=cpus) if args.dask is None
        else _coordinator(args, path, log_path)
    )
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    failure = 0
    try:
        workers.start()
        while not stopping:
            workers.wait(REFRESH_SECONDS)
            try:
                tourney = store.read(path)
            except ConfigError:
                continue  # a hand edit half saved: the workers wait for it too
            monitor.show(tourney)
            failure = workers.replace_dead(tourney)
            if failure or workers.all_exited():
                break
    finally:
        workers.stop(graceful=not stopping and not failure)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    tourney = store.read(path)
    monitor.final(tourney)
    if failure:
        return failure
    if stopping:
        print("stopped; run the same command again to resume", file=sys.stderr)
        return INTERRUPTED
    return 0 if monitor.finished(tourney) else 1


def _why_over(tourney: Tourney, path: Path) -> str:
    """Why a tourney that is over has nothing to play, and how to go on."""
    state = tourney.sprt_state()
    decision = sprt.describe(state) if state is not None and state.decided else None
    if decision:
        return f"{decision}; to go on, change its bounds (tmanager edit {path.name} --set sprt.elo1=…)"
    return f"every game is played; to go on, raise cycles (tmanager edit {path.name} --set cycles=…)"


def _coordinator(args: argparse.Namespace, path: Path, log_path: Path) -> Coordinator:
    try:
        from tmanager.tourney.cluster import Coordinator
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in ("dask", "distributed"):
            raise
        raise ConfigError("needs Dask distributed", field="--dask", hint="pip install 'tmanager[dask]'") from None
    return Coordinator(path, args.dask, log_path=log_path, concurrency=args.dask_concurrency)


#: The most games `run --concurrency C` gives one process: a process's pauses (its cycle collector's
#: full collections, the bookkeeping of games ending together) stop all its games at once and grow
#: with them, while the kernel runs processes side by side (tools/bench_concurrency.py: at 256 games
#: on 2 cores, 8 processes of 32 lost far fewer games on time than 2 of 128).
LANES_PER_PROCESS = 32


def split(*, workers: int | None, concurrency: int | None, cores: int | None = None) -> list[int]:
    """The lanes of each worker process `run` starts for ``--workers`` and ``--concurrency``.

    Both: that many processes of that many lanes. ``--concurrency C`` alone: C
    games in all, over min(C, cores) processes (one Python process tops out
    near a few thousand moves a second, so a big machine wants several), or
    more where that would give a process over :data:`LANES_PER_PROCESS` games,
    the lanes as even as can be. Neither, or ``--workers`` alone: one lane each.
    """
    if concurrency is None:
        return [1] * (workers or 1)
    if workers is not None:
        return [concurrency] * workers
    processes = max(min(concurrency, cores or os.cpu_count() or 1), -(-concurrency // LANES_PER_PROCESS))
    share, extra = divmod(concurrency, processes)
    return [share + 1] * extra + [share] * (processes - extra)


def _worker(argv: list[str], stderr: int) -> None:
    """A forked worker: `tmanager work ARGV`, as if started on its own, in a session of its own (the
    terminal's Ctrl-C reaches only `run`, which stops its workers in order, each giving its games back),
    stopped by SIGTERM when `run` dies. What it says on standard error goes to ``stderr`` (see
    :class:`ErrorLines`)."""
    from tmanager.cli import main  # here: nothing imports the command line at module level

    os.setsid()
    die_with_parent(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # `run`'s own handlers stay with `run`
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # "N game(s) played" is for a terminal of its own
    os.dup2(stderr, sys.stderr.fileno())
    sys.exit(main(argv))


class ErrorLines:
    """The standard error of `run`'s workers, through one pipe that `run` reads: each line reaches `run`'s
    own standard error, and a ``tmanager: …`` line only once, however many workers say it (a full disk
    stops them all, with the same line)."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self._said: set[str] = set()
        self._partial = b""

    def show(self) -> None:
        """Print what the workers have said since the last call."""
        chunks = [self._partial]
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self.read_end, 1 << 16):
                chunks.append(chunk)
        *lines, self._partial = b"".join(chunks).split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if line.startswith("tmanager: "):
                if line in self._said:
                    continue
                self._said.add(line)
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        self.show()
        for end in (self.read_end, self.write_end):
            os.close(end)


#: Workers are forked: `run` has already imported all they need, so each starts at once.
_FORK = multiprocessing.get_context("fork")


class Workers:
    """The worker processes of one `run`: a worker that dies while games or hooks remain is replaced
    by one of as many lanes."""

    #: A worker that keeps failing (status 1, an unexpected error) is replaced at most this often per minute.
    MAX_FAILURES_PER_MINUTE = 5
    #: Seconds a stopped worker has to give its game back before it is killed.
    STOP_SECONDS = 5.0

    def __init__(
        self, path: Path, lanes: list[int], log_path: Path, *, log_engines: bool = False,
        cpus: list[tuple[int, ...]] | None = None,
    ) -> None:
        self.path = path
        self.lanes = lanes
        self.cpus = cpus  # each worker's, with --affinity
        self.log_path = log_path
        self.log_engines = log_engines
        self.processes: list[BaseProcess] = []
        self.failures: list[float] = []
        self.errors = ErrorLines()

    def _spawn(self, index: int) -> BaseProcess:
        lanes = self.lanes[index]
        argv = ["work", str(self.path), "--log", str(self.log_path), "--concurrency", str(lanes),
                *(["--log-engines"] if self.log_engines else []),
                *(["--affinity", affinity.format_cpus(self.cpus[index])] if self.cpus else [])]
        process = _FORK.Process(
            target=_worker, args=(argv, self.errors.write_end), name=f"tmanager work ({lanes} lanes)"
        )
        process.start()
        return process

    def start(self) -> None:
        self.processes = [self._spawn(index) for index in range(len(self.lanes))]

    def all_exited(self) -> bool:
        return all(p.exitcode is not None for p in self.processes)

    def wait(self, timeout: float) -> None:
        """Wait ``timeout`` seconds, or less if a worker exits (the last one's end is seen at once) or says
        something, which is shown."""
        running = [p.sentinel for p in self.processes if p.exitcode is None]
        multiprocessing.connection.wait([*running, self.errors.read_end], timeout)
        self.errors.show()

    def replace_dead(self, tourney: Tourney) -> int:
        """Replace the workers that died while work remains; returns a status to exit with, or 0.

        A worker that exited with 0 found nothing left to do. One that was killed,
        or stopped on its own, is replaced. A configuration error (status 2) ends
        the run: the worker has printed it. Repeated unexpected failures too.
        """
        remaining = not tourney.is_complete() or bool(tourney.hooks)
        for i, process in enumerate(self.processes):
            status = process.exitcode
            if status is None or status == 0:
                continue
            if status == 2:
                return 2
            if not remaining:
                continue
            if status == 1:
                now = time.monotonic()
                self.failures = [t for t in self.failures if now - t < 60] + [now]
                if len(self.failures) > self.MAX_FAILURES_PER_MINUTE:
                    print(f"tmanager: workers keep failing; see {self.log_path}", file=sys.stderr)
                    return 1
            why = f"was killed (signal {-status})" if status < 0 else f"exited with status {status}"
            print(f"worker {process.pid} {why}; starting another", file=sys.stderr)
            self.processes[i] = self._spawn(i)
        return 0

    def stop(self, *, graceful: bool) -> None:
        """Stop the workers. A graceful stop first lets them finish (they exit once the tourney is done);
        the others give their games back, and what a killed one left claimed is released here."""
        if graceful:
            deadline = time.monotonic() + 10
            for process in self.processes:
                process.join(timeout=max(0.1, deadline - time.monotonic()))
        for process in self.processes:
            if process.exitcode is None:
                process.terminate()  # SIGTERM
        deadline = time.monotonic() + self.STOP_SECONDS
        killed = False
        for process in self.processes:
            process.join(timeout=max(0.1, deadline - time.monotonic()))
            if process.exitcode is None and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.join()
                killed = True
        self.errors.close()
        if killed or any(p.exitcode is not None and p.exitcode < 0 for p in self.processes):
            with contextlib.suppress(TManagerError), store.transaction(self.path) as tourney:
                release_stale(tourney)


class Progress:
    """Live progress: a rewritten line on a terminal, a log line per finished game otherwise."""

    def __init__(self, path: Path, *, interactive: bool, report_every: int = 0) -> None:
        self.path = path
        self.interactive = interactive
        self.report_every = report_every
        self.started = time.monotonic()
        self.done_at_start: int | None = None
        self.last_done = -1

    @staticmethod
    def finished(tourney: Tourney) -> bool:
        return tourney.is_complete()

    def line(self, tourney: Tourney) -> str:
        total = tourney.schedule().total_games
        done = tourney.finished_count
        playing = tourney.results.count(PLAYING)
        if self.done_at_start is None:
            self.done_at_start = done
        elapsed = time.monotonic() - self.started
        new = done - self.done_at_start
        eta = _clock(elapsed / new * (total - done)) if new else "?"
        text = f"{done}/{total} done, {playing} playing, elapsed {_clock(elapsed)}, left ~{eta}"
        points = tourney.tally()
        if done:
            best = max(range(len(points)), key=points.__getitem__)
            text += f", leader {tourney.participants[best].name} {points[best]:g}"
        stale = stale_games(tourney)
        if stale:
            text += f", {len(stale)} stale"
        return text

    def show(self, tourney: Tourney) -> None:
        done = tourney.finished_count
        if self.report_every and done // self.report_every != self.last_done // self.report_every:
            # The match's statistics stay on the screen, above the rewritten progress line.
            for line in match_lines(tourney):
                print(("\r\x1b[K" if self.interactive else "") + line, file=sys.stderr, flush=True)
        if self.interactive:
            sys.stderr.write("\r\x1b[K" + self.line(tourney))
            sys.stderr.flush()
        elif done != self.last_done:
            print(self.line(tourney), file=sys.stderr, flush=True)
        self.last_done = done

    def final(self, tourney: Tourney) -> None:
        if self.interactive:
            sys.stderr.write("\r\x1b[K")
        print(report(tourney))


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"
