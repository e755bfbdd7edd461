"""Play a match from fastchess's command line, printing fastchess's output: a drop-in for fastchess.

`tmanager fastchess ARG…` takes the options fastchess's manual documents
(-engine, -each, -openings, -sprt, -concurrency, -pgnout, -output format=cutechess,
-config…), plays the match with tmanager's workers, and prints what fastchess
prints, line for line: "Started game N of M (A vs B)", "Finished game N (A vs B):
1-0 {White mates}", the report block every -ratinginterval games, the SPRT's
verdict, "Finished match". OpenBench's and fishtest's workers, and scripts written
for fastchess, read it as they read fastchess.

The test is kept in a tourney file (fastchess-XXXXXXXX.toml, or -config
outname=NAME): the same command run again after a crash or Ctrl-C resumes it,
no game lost, none doubled. What tmanager cannot do as fastchess does is refused
with one line (exit status 2); what it does otherwise is in docs/fastchess.md.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tmanager import __version__
from tmanager.cli import main
from tmanager.errors import ConfigError, FileExists
from tmanager.fastchess import commandline, tourneyfile
from tmanager.fastchess.commandline import Action
from tmanager.fastchess.config import MatchConfig
from tmanager.fastchess.runner import Match
from tmanager.files import check_writable
from tmanager.logs import setup_logging
from tmanager.tourney import affinity, eventloop, store
from tmanager.tourney.gamesetup import preflight, read_ahead
from tmanager.tourney.model import Tourney
from tmanager.tourney.processes import Main, split
from tmanager.tourney.settings import BookOrder

EXAMPLES = """\
  tmanager fastchess -engine cmd=./dev name=dev -engine cmd=./base name=base -each tc=10+0.1 option.Hash=16 \\
      -openings file=book.epd format=epd order=random -rounds 500 -concurrency 2 \\
      -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05
  tmanager fastchess -engine cmd=stockfish name=a -engine cmd=stockfish name=b -each tc=inf nodes=1000 \\
      -rounds 20 -output format=cutechess -pgnout file=games.pgn
"""

#: The fastchess whose command line and output this command speaks.
FASTCHESS_VERSION = "1.8.2"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="fastchess's options, as its manual gives them")


def command(args: argparse.Namespace) -> int:
    return play(args.arguments)


def play(argv: Sequence[str]) -> int:
    """Run fastchess's command line ``argv`` (without the program's name); the exit status."""
    started = time.monotonic()
    # fastchess does not catch SIGTERM, from its first instant to its last: neither does this command (not
    # `tmanager`'s "interrupted", status 130; `tmanager.cli.main` leaves it alone), but while its match plays
    # (Match.run), to stop its workers first. Until then no engine runs, and a kill leaves what kill -9
    # leaves: nothing, or a test to resume.
    parsed = commandline.parse(argv)
    if parsed == Action.VERSION:
        print(f"fastchess alpha {FASTCHESS_VERSION} (tmanager {__version__})")
        return 0
    if parsed == Action.HELP:
        print(f"{__doc__.strip()}\n\nexamples:\n{EXAMPLES}\nOptions and what differs from fastchess: docs/fastchess.md")
        return 0
    assert isinstance(parsed, MatchConfig)
    config = parsed
    for name, key, mine, theirs in config.overridden:
        print(f"tmanager: note: -each {key}={theirs} overrides -engine name={name} {key}={mine}", file=sys.stderr)
    lanes = split(workers=None, concurrency=config.concurrency)
    prepared, cpus, attendance = _begun(config, lanes)
    tourney = prepared.tourney
    if config.state.file:
        config = tourneyfile.adopted(config, tourney)
    log_path = _log_path(config, tourney)
    try:
        try:
            status, match = _match(config, prepared, log_path=log_path, lanes=lanes, cpus=cpus)
        except KeyboardInterrupt:  # Ctrl-C before the match took the signal (its first milliseconds)
            _take_back(config, prepared, log_path, attendance)
            raise
        # A new test that stopped (a signal, or a configuration error found as its first game began) with
        # nothing recorded is taken back; one where anything was is kept, or cleared away as it ends.
        taken_back = status != 0 and _take_back(config, prepared, log_path, attendance)
        errored = status == 2 and not match.terminated
        if not (taken_back or errored) and (status == 0 or not config.keeps_cut_short) and _alone(attendance):
            _clear_away(config, tourney, log_path, cut_short=status != 0)
        if match.terminated:
            _die_by_sigterm()
    finally:
        if attendance is not None:
            os.close(attendance)
    _say("Finished match")
    minutes, seconds = divmod(int(time.monotonic() - started), 60)
    hours, minutes = divmod(minutes, 60)
    _say(f"Total Time: {hours:02}:{minutes:02}:{seconds:02} (hours:minutes:seconds)\n")
    return status


def _match(
    config: MatchConfig, prepared: tourneyfile.Prepared, *, log_path: Path, lanes: list[int],
    cpus: list[tuple[int, ...]] | None,
) -> tuple[int, Match]:
    """Say the beginning, play the test's match, and return its exit status and the match."""
    tourney = prepared.tourney
    _say_beginning(config, tourney, resumed=prepared.resumed)
    read_ahead(tourney, games=2 * sum(lanes))
    if config.log.file and not config.log.append and log_path.is_file():
        os.truncate(log_path, 0)
    # This process logs fastchess's warnings as it prints them (Match), to the log its workers write
    level = logging.getLevelNamesMapping()[config.log.level.workers_level.upper()]
    setup_logging(log_path, quiet=True, file_level=level)
    workers_main = _workers_main(config, new=not prepared.resumed)
    match = Match(config, tourney, main=workers_main, write=_say, lanes=lanes, log_path=log_path, cpus=cpus,
                  new=not prepared.resumed)
    return match.run(), match


#: How often a run looks for its test, at most: once, and again each time another run of the same command wrote
#: it (or began it again, or cleared it away) as this one went to. Runs begun at once each need a look more for
#: each of the others at most; a bound, so that a stream of them cannot keep one looking for ever.
LOOKS = 8


def _begun(
    config: MatchConfig, lanes: list[int],
) -> tuple[tourneyfile.Prepared, list[tuple[int, ...]] | None, int | None]:
    """The command's test (written if new), the CPUs of its lanes, and this run's attendance at it
    (:func:`_attend`). The same command run at once here may have begun the test (again) since this run
    looked, or, once it played it out, cleared it away before this run attended: this run then looks again
    (:data:`LOOKS` times at most), and plays the test with the others, or again."""
    joining = False
    for _ in range(LOOKS):
        prepared, cpus = _checked(config, lanes, joining=joining)
        eventloop.factory()  # an error in TMANAGER_LOOP is told here once, not by every worker
        try:
            tourneyfile.write(config, prepared)
        except FileExists:
            joining = True
            continue
        attendance = _attend(prepared.tourney)
        if joining or not prepared.resumed or prepared.tourney.path.exists():
            return prepared, cpus, attendance
        if attendance is not None:
            os.close(attendance)
        joining = True
    raise FileExists(f"{prepared.tourney.path}: written by other runs of this command each time this one looked, "
                     f"{LOOKS} times; run the command again")


def _checked(
    config: MatchConfig, lanes: list[int], *, joining: bool = False,
) -> tuple[tourneyfile.Prepared, list[tuple[int, ...]] | None]:
    """The command's test, and the CPUs of its lanes with -use-affinity, once everything that can be checked
    before a game is (engines, book, outputs, CPUs): a new test's file is not written before, so that a
    mistake leaves nothing behind. Its errors are told in the command line's terms (not with -config file=,
    whose file holds the test). ``joining``: see :func:`tourneyfile.prepare`."""
    cwd = Path.cwd()
    try:
        prepared = tourneyfile.prepare(config, cwd=cwd, joining=joining)
        cpus = None if config.affinity is None else affinity.assign(config.affinity, lanes)
        preflight(prepared.tourney)
        check_writable(_log_path(config, prepared.tourney), what="log file")
    except ConfigError as exc:
        if config.state.file:
            raise
        raise tourneyfile.told_as_options(exc, config, cwd=cwd) from None
    return prepared, cpus


def _workers_main(config: MatchConfig, *, new: bool) -> Main:
    """The workers' entry point: `tmanager work`, whose errors (an engine that fails to start or refuses its
    options, found as a game begins) are told in the command line's terms, as :func:`_checked` tells those
    found before, and not as errors of a file the user never named (a new test's, taken back at once)."""
    if config.state.file:  # the user named the test's file: its terms are the user's
        return main
    cwd = Path.cwd()

    def work(argv: Sequence[str]) -> int:
        return main(argv, told=lambda exc: tourneyfile.told_as_options(exc, config, cwd=cwd, new=new))

    return work


def _take_back(config: MatchConfig, prepared: tourneyfile.Prepared, log_path: Path, attendance: int | None) -> bool:
    """Whether a new test that stopped before anything was recorded (Ctrl-C or SIGTERM before its first game,
    an engine refusing its options as it began, told on stderr) was taken back, with the log it began (not one
    -log file= named): fastchess leaves no state then, and a mistake leaves nothing behind. Not one resumed,
    one where anything was recorded, nor one another run attends."""
    if prepared.resumed or not _alone(attendance) or not store.remove_unplayed(prepared.tourney.path):
        return False
    if not config.log.file:
        log_path.unlink(missing_ok=True)
    return True


def _attend(tourney: Tourney) -> int | None:
    """This run's presence at its test: a shared lock (``flock``) on the directory of its games in progress,
    held while it plays. The same command run twice at once in one directory plays one test; the run that
    ends first must not clear it away under the other (whose workers would wait for ever for its file).
    ``None`` where the lock cannot be had: the test is then kept."""
    try:
        tourney.live_dir.mkdir(exist_ok=True)
        descriptor = os.open(tourney.live_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def _alone(attendance: int | None) -> bool:
    """Whether no other run attends this run's test (:func:`_attend`): the last run to end clears it away."""
    if attendance is None:
        return False
    try:
        fcntl.flock(attendance, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _clear_away(config: MatchConfig, tourney: Tourney, log_path: Path, *, cut_short: bool) -> None:
    """A test played out (or ``cut_short`` where it is not kept, :attr:`MatchConfig.keeps_cut_short`) under a
    name of the command's making (``fastchess-XXXXXXXX.toml``) is removed with its state, and the log and PGN
    no option asked for: fastchess leaves one config.json, and a worker that runs a new command every batch
    (fishtest's SPSA) would otherwise fill its directory. The command run again plays it again, as it would
    over the file. A file named by ``-config`` is the user's, and stays."""
    if config.state.file or config.state.outname or not store.remove_finished(tourney.path, cut_short=cut_short):
        return
    if not config.log.file:
        log_path.unlink(missing_ok=True)
    if not config.pgn.requested:
        tourney.pgn_path.unlink(missing_ok=True)


def _die_by_sigterm() -> None:
    """End as fastchess ends on SIGTERM, which it does not catch: killed by the signal (status 143 in a shell,
    -15 to Python's subprocess), with no closing line. The test stays resumable: the workers have given
    their games back."""
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()  # the signal is on its way; nothing below runs


def _say(line: str) -> None:
    """One line of fastchess's output, flushed at once: a worker reading the pipe sees each as it comes."""
    print(line, flush=True)


def _say_beginning(config: MatchConfig, tourney: Tourney, *, resumed: bool) -> None:
    """fastchess's first lines: the config loaded, the book indexed, or the lack of one."""
    if config.state.file:
        _say(f"Loading config file: {tourney.path}")
    for warning in config.warnings:
        _say(warning)
    if resumed and (not config.pgn.append or not config.epd.append):
        played = sum(1 for char in tourney.results if char in "+-=")
        for asked, append, option in ((config.pgn.requested, config.pgn.append, "-pgnout"),
                                      (config.epd.requested, config.epd.append, "-epdout")):
            if asked and not append:
                _say(f"Resuming from {played} games, ignoring {option} append=false.")
    if tourney.openings is not None:
        if tourney.openings.order is BookOrder.RANDOM:
            _say("Indexing opening suite...")
    elif not (config.openings and config.openings.file):  # one of unknown format was warned of with the others
        _say("Warning: No opening book specified! Consider using one, otherwise all games will be played from the "
             "starting position.")


def _log_path(config: MatchConfig, tourney: Tourney) -> Path:
    """The workers' log: -log file=NAME, else beside the tourney file."""
    return Path(config.log.file).resolve() if config.log.file else tourney.path.with_suffix(".log")
