"""Run one more worker on a tourney, e.g. from another terminal; it joins the workers already running.

The worker claims the next free game under the file lock, plays it, records it
and repeats until the tourney is finished; with --concurrency K it does so in K
lanes at once. Ctrl-C or SIGTERM gives its games in progress back (they will be
played by another worker). It plays on uvloop's event loop (one of tmanager's
dependencies), or on asyncio's where uvloop cannot be imported; the environment
variable TMANAGER_LOOP=asyncio (or uvloop, or auto) chooses.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
from pathlib import Path

from tmanager.cli import INTERRUPTED
from tmanager.cli._bounds import MAX_GAMES, MAX_GAMES_AT_ONCE, check_count
from tmanager.cli._over import why_over
from tmanager.errors import ConfigError
from tmanager.logs import LOG_LEVELS, setup_logging
from tmanager.tourney import affinity, store
from tmanager.tourney.worker import work

EXAMPLES = """\
  tmanager work gauntlet.toml              # help a running `tmanager run` from another terminal
  tmanager work gauntlet.toml --games 10   # play at most 10 games, then stop
  tmanager work gauntlet.toml --concurrency 16   # 16 games at once in this one process
  tmanager work gauntlet.toml --affinity 3       # this worker and its engines on CPU 3
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    parser.add_argument(
        "-c", "--concurrency", type=int, default=1, metavar="K",
        help="games played at once by this one process (its lanes share engines, claims' heartbeat and stop)",
    )
    parser.add_argument(
        "--affinity", metavar="CPUS", default=None,
        help="bind this worker and its engines to CPUS (0,2,4-7): one for each game at once, as fastchess's "
        "-use-affinity",
    )
    parser.add_argument(
        "--log", type=Path, default=None,
        help="append log lines to this file instead of stderr (warnings are told on stderr too)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    parser.add_argument(
        "--log-level", choices=LOG_LEVELS, default=None,
        help="with --log, not -q: the least severe lines the file keeps (warnings are told on stderr all the same)",
    )
    parser.add_argument(
        "--log-engines", action="store_true",
        help="write every line to and from the engines to FILE.engine-logs/game-N.log (as log_engines = true)",
    )
    parser.add_argument(
        "--announce-fd", type=int, default=None, metavar="FD",
        help="write a JSON line to file descriptor FD (a pipe) as each game starts and ends and each engine "
        "starts, for a program that follows the run (tmanager fastchess does)",
    )


def command(args: argparse.Namespace) -> int:
    check_count(args.games, option="--games", most=MAX_GAMES)
    check_count(args.concurrency, option="--concurrency", most=MAX_GAMES_AT_ONCE)
    _check_announce_fd(args.announce_fd)
    if args.log_level is not None and args.log is None:
        # Ignored, every info line on stderr, while the user meant fewer of them.
        raise ConfigError("only with --log", field="--log-level",
                          hint="name the log file it sets the level of, or -q for warnings only on stderr")
    if args.log_level is not None and args.quiet:
        # -q keeps warnings only before the file's level is asked: `-q --log-level info` kept no info line.
        raise ConfigError("and -q both set the log's level", field="--log-level",
                          hint="give one: -q keeps warnings only, --log-level keeps the level you name and above")
    cpus = None if args.affinity is None else affinity.parse(args.affinity)
    if cpus is not None:
        affinity.check(cpus, games=args.concurrency)
    level = logging.getLevelNamesMapping()[args.log_level.upper()] if args.log_level else logging.NOTSET
    setup_logging(args.log, quiet=args.quiet, file_level=level)
    if cpus is not None:
        affinity.bind(cpus)  # the engines, started later, inherit it
    done = work(
        args.file, max_games=args.games, log_engines=args.log_engines, concurrency=args.concurrency,
        announce_fd=args.announce_fd,
    )
    # On stdout: under `run` (which stops its workers itself) it goes nowhere.
    stop = "; stopped by a signal" if done.stopped else ""
    given_back = f", {done.given_back} game(s) in progress given back" if done.given_back else ""
    print(f"{done.played} game(s) played{stop}{given_back}{_why_none(args.file) if not done.played else ''}")
    return INTERRUPTED if done.stopped else 0


def _check_announce_fd(fd: int | None) -> None:
    """Refuse a descriptor that is not open for writing: the worker went on silent (its announcements are
    dropped once the follower is gone), or ended in a traceback at its first game (one too large for a C int)."""
    if fd is None:
        return
    try:
        writable = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
    except (OSError, OverflowError, ValueError):  # ValueError: a negative one
        writable = None
    if not writable:
        what = "open for reading only" if writable is False else "not an open file descriptor"
        raise ConfigError(f"{fd} is {what}", field="--announce-fd",
                          hint="give the write end of a pipe this process inherits")


def _why_none(path: Path) -> str:
    """Why a worker found nothing to play, when the tourney is over (and not, say, stopped or full of claims)."""
    tourney = store.read(path)
    return f"; nothing to play: {why_over(tourney, tourney.path)}" if tourney.is_complete() else ""
