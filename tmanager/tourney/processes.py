"""The worker processes of a run: how many games each plays at once, and keeping them going.

`tmanager run` (and `tmanager fastchess`) fork `tmanager work` processes, each of
one or more lanes (:func:`split`), and replace any that dies while games remain
(:class:`Workers`). The workers are forked, so they start without a new
interpreter, each in a session of its own, and die with the process that
started them, even by ``kill -9``.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.process import BaseProcess
from pathlib import Path

from tmanager.errors import TManagerError
from tmanager.logs import line_start
from tmanager.tourney import affinity, store
from tmanager.tourney.claims import release_stale
from tmanager.tourney.engine import die_with_parent
from tmanager.tourney.model import Tourney

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


def trimmed(lanes: list[int], games: int) -> list[int]:
    """``lanes`` cut to ``games`` lanes in all (at least one, which settles hooks and results typed by hand): a
    lane beyond the games left finds nothing to play, and `run --workers 1024` on a tourney of 6 games started
    1,024 processes to do so."""
    kept: list[int] = []
    room = max(1, games)
    for lane_count in lanes:
        if room <= 0:
            break
        kept.append(min(lane_count, room))
        room -= kept[-1]
    return kept


#: The command line's entry point, `tmanager ARGV`, as the command that starts workers passes it down
#: (nothing below the command line imports it).
Main = Callable[[Sequence[str]], int]


def _worker(main: Main, argv: list[str], stderr: int) -> None:
    """A forked worker: `tmanager work ARGV`, as if started on its own, in a session of its own (the
    terminal's Ctrl-C reaches only `run`, which stops its workers in order, each giving its games back),
    stopped by SIGTERM when `run` dies. What it says on standard error goes to ``stderr`` (see
    :class:`ErrorLines`)."""
    os.setsid()
    die_with_parent(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # `run`'s own handlers stay with `run`
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # "N game(s) played" is for a terminal of its own
    os.dup2(stderr, sys.stderr.fileno())
    sys.exit(main(argv))


class ErrorLines:
    """The standard error of the workers, through one pipe that their starter reads: each line reaches its
    own standard error, and a ``tmanager: FILE: what is wrong`` line only once, however many workers say it
    of any file in that folder (a full disk stops them all, each at the file it was writing: the PGN, the
    journal; one line says what to do)."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self._said: set[tuple[str, str]] = set()
        self._partial = b""

    def show(self) -> None:
        """Print what the workers have said since the last call (on a terminal, over `run`'s progress line,
        which is drawn again below)."""
        erase = line_start()
        chunks = [self._partial]
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self.read_end, 1 << 16):
                chunks.append(chunk)
        *lines, self._partial = b"".join(chunks).split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if line == INTERRUPTED:
                continue
            if line.startswith("tmanager: "):
                fault = _fault(line)
                if fault in self._said:
                    continue
                self._said.add(fault)
            print(erase + line, file=sys.stderr, flush=True)

    def close(self) -> None:
        self.show()
        for end in (self.read_end, self.write_end):
            os.close(end)


#: The command line's line for a command stopped by Ctrl-C or SIGTERM (:func:`tmanager.cli.main`): a worker says it
#: when its starter stops it outside its event loop (as it starts, or once its loop is closed), and says nothing
#: when stopped inside it. Its starter stopped it, and says so itself: not shown.
INTERRUPTED = "tmanager: interrupted"


def _fault(line: str) -> tuple[str, str]:
    """What a ``tmanager: FILE: what is wrong`` line says is wrong, and in which folder; its figures left out
    (each worker saw a full disk with its own ``N kB free there``)."""
    where, _, what = line.removeprefix("tmanager: ").partition(": ")
    return (os.path.dirname(where), re.sub(r"\d+", "#", what)) if what else ("", where)


#: Workers are forked: `run` has already imported all they need, so each starts at once.
_FORK = multiprocessing.get_context("fork")

#: What every worker imports and its starter may not have: the worker with the engine layer, the file lock of
#: its transactions (loaded on a first write) and psutil (its identity). :meth:`Workers.start` imports them
#: before the fork, once, where each worker would import them again for itself (about 50 ms of CPU each).
WORKER_MODULES = ("tmanager.tourney.worker", "filelock", "psutil")


class Workers:
    """The worker processes of one `run`: a worker that dies while games or hooks remain is replaced
    by one of as many lanes."""

    #: A worker that keeps failing (status 1, an unexpected error) is replaced at most this often per minute.
    MAX_FAILURES_PER_MINUTE = 5
    #: Seconds a stopped worker has to give its game back before it is killed.
    STOP_SECONDS = 5.0

    def __init__(
        self, path: Path, lanes: list[int], log_path: Path, *, main: Main, log_engines: bool = False,
        cpus: list[tuple[int, ...]] | None = None, announce_fd: int | None = None, log_level: str | None = None,
    ) -> None:
        self.main = main
        self.path = path
        self.lanes = lanes
        self.cpus = cpus  # each worker's, with --affinity
        self.log_path = log_path
        self.log_engines = log_engines
        self.log_level = log_level  # the least severe line the log keeps (`tmanager work --log-level`)
        self.announce_fd = announce_fd  # inherited by every worker: they announce their games on it
        self.processes: list[BaseProcess] = []
        self.failures: list[float] = []
        self.errors = ErrorLines()

    def _spawn(self, index: int) -> BaseProcess:
        lanes = self.lanes[index]
        argv = ["work", str(self.path), "--log", str(self.log_path), "--concurrency", str(lanes),
                *(["--log-engines"] if self.log_engines else []),
                *(["--log-level", self.log_level] if self.log_level else []),
                *(["--announce-fd", str(self.announce_fd)] if self.announce_fd is not None else []),
                *(["--affinity", affinity.format_cpus(self.cpus[index])] if self.cpus else [])]
        process = _FORK.Process(
            target=_worker, args=(self.main, argv, self.errors.write_end), name=f"tmanager work ({lanes} lanes)"
        )
        # SIGTERM is held back from the fork until the worker has a handler of its own (tmanager.cli.main lets it
        # through): the child starts with `run`'s handler, which only notes a stop in `run`, and a SIGTERM there
        # (`run` stopped as it starts its workers) was lost: the worker played on until it was killed 5 s later.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        return process

    def start(self) -> None:
        for name in WORKER_MODULES:
            importlib.import_module(name)
        self.processes = [self._spawn(index) for index in range(len(self.lanes))]

    def wait(self, timeout: float, *, also: Sequence[int] = ()) -> list[object]:
        """Wait ``timeout`` seconds, or less if a worker exits (the last one's end is seen at once) or says
        something, which is shown, or one of the descriptors ``also`` is ready to read: those that are."""
        running = [p.sentinel for p in self.processes if p.exitcode is None]
        ready = multiprocessing.connection.wait([*running, self.errors.read_end, *also], timeout)
        self.errors.show()
        return [r for r in ready if r in also]

    def tend(self, tourney: Tourney | None) -> int | None:
        """Replace the workers that died while work remains; ``None`` while any worker runs, else the
        status to end the run with (0: they finished).

        A worker that exited with 0 found nothing left to do. One that was killed,
        or stopped on its own, is replaced. A configuration error (status 2) ends
        the run: the worker has printed it. Repeated unexpected failures too.
        ``tourney`` is ``None`` when the file could not be read just now (a hand
        edit half saved): nothing is replaced until it can be.

        Each worker's state is read once, here: one that dies after this look is
        seen at the next, never taken for one that finished (a worker killed
        between two looks would otherwise end the run with its game unplayed).
        """
        remaining = tourney is None or not tourney.is_complete() or bool(tourney.hooks)
        running = False
        for i, process in enumerate(self.processes):
            status = process.exitcode
            if status is None:
                running = True
                continue
            if status == 0:
                continue
            if status == 2:
                return 2
            if not remaining:
                continue
            if tourney is None:
                running = True  # replaced once the file can be read
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
            running = True
        return None if running else 0

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
