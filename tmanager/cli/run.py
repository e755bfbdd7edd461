"""Play every remaining game of a tourney with concurrent workers, showing live progress.

Each worker is a process of its own that claims games under the file lock, so
`tmanager work FILE` can add more from other terminals at any time; each plays
one game at a time, or several with --concurrency (its lanes). The workers are
forked from `run`, so they start without a new interpreter, and they stop
cleanly when `run` dies, even by ``kill -9``. Ctrl-C or SIGTERM stops all
workers cleanly: their games in progress are given back unplayed. Running the
command again resumes where the tourney stopped; games of workers that were
killed outright are detected and replayed. The statistics are printed every
--report-every games, one report at each multiple of N of the first games to
finish (as fastchess): a match's line (Elo, nElo, LOS, pentanomial, LLR), or a
table of each engine against the field; with [sprt] a match stops once the
test decides (on whole game pairs) and prints the verdict. A tune ([spsa])
prints each parameter's value and path every --report-every pairs.
The workers play on uvloop's event loop where it is installed, else on
asyncio's (TMANAGER_LOOP chooses, as for `tmanager work`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from tmanager.cli import INTERRUPTED, main
from tmanager.cli._bounds import MAX_GAMES, MAX_GAMES_AT_ONCE, MAX_WORKERS, check_count
from tmanager.cli._over import why_over
from tmanager.cli.status import report, report_lines
from tmanager.core.standings import points_text
from tmanager.errors import ConfigError, ascii_digits
from tmanager.files import check_writable
from tmanager.logs import ERASE_LINE, setup_logging
from tmanager.tourney import affinity, eventloop, store, tuning
from tmanager.tourney.claims import stale_games
from tmanager.tourney.finishing import Look, finished_since, without
from tmanager.tourney.gamesetup import preflight, read_ahead
from tmanager.tourney.model import PLAYING, Tourney
from tmanager.tourney.processes import Workers, split, trimmed
from tmanager.tourney.progress import games_left, games_planned
from tmanager.tourney.tallies import tally

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
        help="print the statistics every N games (a match of two: Elo, nElo, LOS, pentanomial, LLR; more "
        "participants: each against the field), or a tune's values every N pairs; 0: never",
    )
    parser.add_argument(
        "--log-engines", action="store_true",
        help="write every line to and from the engines to FILE.engine-logs/game-N.log (as log_engines = true)",
    )


def command(args: argparse.Namespace) -> int:
    _check_options(args)
    tourney = store.read(args.file)  # before anything else looks at the path: it may not be a file at all
    path = tourney.path  # resolved
    asked = split(workers=args.workers, concurrency=args.concurrency)
    left = games_left(tourney) + tourney.results.count(PLAYING)  # (a dead worker's claims are played again)
    lanes = trimmed(asked, left)
    cpus: list[tuple[int, ...]] | None = None
    if args.affinity is not None:
        cpus = affinity.assign(affinity.parse(args.affinity) if args.affinity else (), lanes)
    if args.dask is None:
        preflight(tourney)  # with --dask, the engines are checked on the cluster's hosts
        eventloop.factory()  # an error in TMANAGER_LOOP is told here once, not by every worker
        read_ahead(tourney, games=2 * sum(lanes))  # the workers, forked, inherit what it read
    log_path = args.log or path.with_suffix(".log")
    check_writable(log_path, what="log file")  # here, once, not by each worker started
    setup_logging(None)
    monitor = Progress(path, interactive=sys.stderr.isatty(), report_every=args.report_every, start=tourney)
    if monitor.finished(tourney) and not tourney.hooks:
        # No worker will take what was changed by hand: a result goes into the PGN now, and an SPRT decided by
        # results typed in is recorded, its after_tourney due (the workers then run it).
        tourney = store.settle(path)
        if not tourney.hooks:
            monitor.final(tourney)
            print(f"tmanager: nothing to play: {why_over(tourney, path)}", file=sys.stderr)
            return 0
    if args.dask is None and sum(lanes) < sum(asked) and left:
        print(f"tmanager: note: {left} game(s) left: {sum(lanes)} at once, not {sum(asked)}", file=sys.stderr)
    workers = (
        Workers(path, lanes, log_path, main=main, log_engines=args.log_engines, cpus=cpus) if args.dask is None
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
            read: Tourney | None = None
            try:
                read = store.read(path)
            except ConfigError:
                pass  # a hand edit half saved: the workers wait for it too
            else:
                monitor.show(read)
            ended = workers.tend(read)
            if ended is not None:
                failure = ended
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
    if not monitor.finished(tourney):
        left = tourney.schedule().total_games - tourney.finished_count
        print(f"tmanager: {path}: the workers ended with {left} games unplayed (see {log_path}; run the same "
              "command again to resume)", file=sys.stderr)
        return 1
    return 0


def _check_options(args: argparse.Namespace) -> None:
    """Refuse counts out of range and options that do not go together, before anything is read."""
    check_count(args.workers, option="--workers", most=MAX_WORKERS)
    check_count(args.concurrency, option="--concurrency", most=MAX_GAMES_AT_ONCE)
    check_count(args.dask_concurrency, option="--dask-concurrency", most=MAX_GAMES_AT_ONCE)
    if args.workers is not None and args.concurrency is not None:
        check_count(args.workers * args.concurrency, option="--workers × --concurrency", most=MAX_GAMES_AT_ONCE)
    if args.dask is not None and (args.concurrency is not None or args.workers is not None):
        option = "--concurrency" if args.concurrency is not None else "--workers"
        raise ConfigError("not with --dask", field=option, hint="the cluster's threads, or --dask-concurrency, "
                          "say how many games it plays at once")
    if args.dask is not None:
        port = args.dask.rpartition("://")[2].rpartition(":")[2]
        # '²' is a digit to str.isdigit, and distributed's own error then leaves coroutines never awaited;
        # a port beyond 65535 is tried for 10 s
        if not ascii_digits(port) or not 0 < int(port) < 65536:
            raise ConfigError(f"{args.dask!r} is not a scheduler address", field="--dask",
                              hint="e.g. tcp://10.0.0.1:8786")
    if args.dask_concurrency is not None and args.dask is None:
        # Ignored, the games were played here, by local workers, while the user meant the cluster.
        raise ConfigError("only with --dask", field="--dask-concurrency",
                          hint="give the scheduler's address, or --concurrency for games at once here")
    # 0 is never; more games than a tourney holds is a slip (and never a report too)
    check_count(args.report_every, option="--report-every", least=0, most=MAX_GAMES)
    if args.affinity is not None and args.dask is not None:
        raise ConfigError("not with --dask", field="--affinity", hint="each host's worker binds its own")
    if args.log_engines and args.dask is not None:
        raise ConfigError(
            "not with --dask", field="--log-engines",
            hint="set log_engines = true in the tourney file: each game's log is written on the host that plays it",
        )


def _coordinator(args: argparse.Namespace, path: Path, log_path: Path) -> Coordinator:
    try:
        from tmanager.tourney.cluster import Coordinator
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in ("dask", "distributed"):
            raise
        hint = "pip install -e '.[dask]' in tmanager's checkout"
        raise ConfigError("needs Dask distributed", field="--dask", hint=hint) from None
    return Coordinator(path, args.dask, log_path=log_path, concurrency=args.dask_concurrency)


class Progress:
    """Live progress: a rewritten line on a terminal, a log line per finished game otherwise."""

    def __init__(self, path: Path, *, interactive: bool, report_every: int = 0, start: Tourney) -> None:
        self.path = path
        self.interactive = interactive
        self.report_every = report_every
        self.started = time.monotonic()
        self.done_at_start = start.finished_count  # the games finished before this run
        self.last_done = -1
        # A report each time the count passes a multiple of report_every in this run: not at the first look,
        # whatever it finds already done (on a slow machine, two games were, and a third report came out).
        self.last_report = reported(start) // report_every if report_every else 0
        self.last_look = Look.of(start)

    @staticmethod
    def finished(tourney: Tourney) -> bool:
        return tourney.is_complete()

    def line(self, tourney: Tourney) -> str:
        total = tourney.schedule().total_games
        done = tourney.finished_count
        playing = tourney.results.count(PLAYING)
        elapsed = time.monotonic() - self.started
        new = done - self.done_at_start
        # a decided SPRT plays only the games of its pairs begun: the rest of the schedule takes no time
        eta = _clock(elapsed / new * (games_planned(tourney) - done)) if new else "?"
        text = f"{done}/{total} done, {playing} playing, elapsed {_clock(elapsed)}, left ~{eta}"
        points = tally(tourney)
        if done:
            best = max(range(len(points)), key=points.__getitem__)
            text += f", leader {tourney.participants[best].name} {points_text(points[best])}"
        stale = stale_games(tourney)
        if stale:
            text += f", {len(stale)} stale"
        return text

    def show(self, tourney: Tourney) -> None:
        done = tourney.finished_count
        self._print_reports(tourney)
        if self.interactive:
            sys.stderr.write(ERASE_LINE + self.line(tourney))
            sys.stderr.flush()
        elif done != self.last_done:
            print(self.line(tourney), file=sys.stderr, flush=True)
        self.last_done = done

    def _print_reports(self, tourney: Tourney) -> None:
        for lines in self._reports(tourney):
            # The match's statistics stay on the screen, above the rewritten progress line.
            for line in lines:
                print((ERASE_LINE if self.interactive else "") + line, file=sys.stderr, flush=True)
        self.last_look = Look.of(tourney)

    def _reports(self, tourney: Tourney) -> list[list[str]]:
        """A report for each multiple of report_every the count passed since the last look, each of the first
        games to finish up to that multiple, as fastchess prints them; a tune's values only as they are now."""
        if not self.report_every:
            return []
        count = reported(tourney)
        due = range(self.last_report + 1, count // self.report_every + 1)
        self.last_report = count // self.report_every
        if not due or tourney.spsa is not None:
            return [report_lines(tourney)] if due else []
        new = finished_since(self.last_look, tourney)
        earlier = count - len(new)
        return [report_lines(without(tourney, new[max(0, k * self.report_every - earlier) :])) for k in due]

    def final(self, tourney: Tourney) -> None:
        self._print_reports(tourney)  # the multiples the last games passed after the last look
        if self.interactive:
            sys.stderr.write(ERASE_LINE)
        print(report(tourney))


def reported(tourney: Tourney) -> int:
    """What --report-every counts: a tune's pairs applied, any other tourney's games finished."""
    if tourney.spsa is not None:
        return tuning.state(tourney, tourney.spsa).pairs
    return tourney.finished_count


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"
