"""A fastchess command's match: tmanager's workers play it, and fastchess's lines tell it as it goes.

The workers are ``tmanager run``'s (:class:`~tmanager.tourney.processes.Workers`):
forked processes that claim games under the file's lock, so a killed one
loses nothing and is replaced. Each announces its games on a pipe
(:mod:`tmanager.tourney.announce`); :class:`Match` reads the pipe and prints,
in the order the games start and end, what fastchess prints: the game lines,
the score and rating reports (:mod:`~tmanager.fastchess.output`), counted on
its own scoreboard as fastchess counts (by completed pairs), which begins
with the games of the file when the test is resumed.

A game stored by a worker killed before it could announce it is found in the
file, which is read every half second, and told as if announced (its reason
read back from the PGN). When the workers are done (every game played, or the
SPRT decided and the pairs begun are complete), the last report, the SPRT's
verdict and fastchess's closing lines follow.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from tmanager.core.results import Result
from tmanager.core.sprt import VerdictResult
from tmanager.errors import ConfigError
from tmanager.fastchess import output as fc
from tmanager.fastchess.config import MatchConfig
from tmanager.fastchess.limits import report_text
from tmanager.fastchess.scoreboard import Scoreboard
from tmanager.fastchess.unordered import iteration_order
from tmanager.formats import pgn
from tmanager.logs import TOLD
from tmanager.tourney import store
from tmanager.tourney.alphabet import FINISHED
from tmanager.tourney.announce import (
    EngineStarted,
    EngineWarning,
    GameFinished,
    GameStarted,
    Lines,
    OptionRefused,
    decode,
)
from tmanager.tourney.model import Tourney
from tmanager.tourney.outcome import Ending, Fault
from tmanager.tourney.processes import Main, Workers

LOGGER = logging.getLogger(__name__)

#: How often the file is read: for games stored but never announced, and for dead workers.
REFRESH_SECONDS = 0.5
#: A game found stored in the file but not announced is told after this long (its announcement may
#: still be on its way through the pipe).
UNANNOUNCED_SECONDS = 2.0
#: Endings that fastchess calls a stall or a disconnection: without -recover they end the match.
_FAULTS = {Ending.CRASH, Ending.STALL, Ending.NOT_STARTED}
#: Endings of a game whose loser fastchess finds not responsive, and warns of (fishtest's worker logs it).
_UNRESPONSIVE = {Ending.CRASH, Ending.STALL}


@dataclass(slots=True)
class _Tracker:
    """fastchess's tracker: each engine's time losses and crashes in this run, to close with (in the order
    they were first noted: its map's order comes of it)."""

    timeouts: dict[str, int] = field(default_factory=dict)
    crashes: dict[str, int] = field(default_factory=dict)

    def note(self, finished: GameFinished) -> None:
        loser = finished.black if finished.result is Result.WHITE_WINS else finished.white
        if finished.result is Result.DRAW:
            return
        if finished.ending == Ending.TIME_FORFEIT:
            self.timeouts[loser] = self.timeouts.get(loser, 0) + 1
            self.crashes.setdefault(loser, 0)
        elif finished.ending in _FAULTS:
            self.timeouts.setdefault(loser, 0)
            self.crashes[loser] = self.crashes.get(loser, 0) + 1

    def lines(self) -> list[str]:
        if not self.timeouts:
            return []
        lines = [""]
        for name in iteration_order(self.timeouts):  # fastchess's map of them, as it hands them back
            lines += [f"Player: {name}", f"  Timeouts: {self.timeouts[name]}", f"  Crashed: {self.crashes[name]}"]
        return [*lines, ""]


#: A results character as a byte: 1 for a finished game, 0 otherwise.
_FINISHED = bytes(1 if chr(code) in "+-=" else 0 for code in range(256))


class _Told:
    """The games whose Finished line is out (or that were played before this run): a byte a game, so that the
    file's finished games not yet told are found at memory speed however long the tourney."""

    def __init__(self, total: int) -> None:
        self.marks = bytearray(total)
        self.count = 0

    def __contains__(self, number: int) -> bool:
        return bool(self.marks[number])

    def __len__(self) -> int:
        return self.count

    def add(self, number: int) -> None:
        if not self.marks[number]:
            self.marks[number] = 1
            self.count += 1

    def missing(self, results: str) -> list[int]:
        """The games finished in ``results`` and not told."""
        finished = results.encode("ascii").translate(_FINISHED)
        size = len(finished)
        untold = (int.from_bytes(finished, "big") & ~int.from_bytes(self.marks[:size], "big")).to_bytes(size, "big")
        found, position = [], untold.find(1)
        while position >= 0:
            found.append(position)
            position = untold.find(1, position + 1)
        return found


class _Crc:
    """The CRC-32 of a file that only grows, read on from where it was last (from the start again if it shrank:
    a fragment cut off)."""

    def __init__(self) -> None:
        self.value = 0
        self.offset = 0

    def of(self, path: Path) -> int:
        with contextlib.suppress(FileNotFoundError), path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < self.offset:
                self.value = self.offset = 0
            handle.seek(self.offset)
            while chunk := handle.read(1 << 20):
                self.value = zlib.crc32(chunk, self.value)
                self.offset += len(chunk)
        return self.value


class Match:
    """One run of a fastchess command: its workers, its scoreboard and its lines."""

    def __init__(
        self, config: MatchConfig, tourney: Tourney, *, main: Main, write: Callable[[str], None],
        lanes: list[int], log_path: Path, cpus: list[tuple[int, ...]] | None = None, new: bool = False,
    ) -> None:
        self.config = config
        self.new = new  #: a test this run began: stopped before anything was recorded, its caller takes it back
        self.path = tourney.path
        self.schedule = tourney.schedule()
        self.names = [p.name for p in tourney.participants]
        self.write = write
        self.output = fc.make_output(config.output, pentanomial=config.report_penta)
        self.scoreboard = Scoreboard(pentanomial=config.report_penta)
        self.told = _Told(self.schedule.total_games)
        self.found_at: dict[int, float] = {}  # stored, not announced: when first seen in the file
        # Each engine's option values: as configured, then as it announced them when it started.
        self.options = {p.name: {k: str(v) for k, v in p.options.items()} for p in tourney.participants}
        self.tracker = _Tracker()
        self.pgn_path = tourney.pgn_path
        self.crc = _Crc()
        self.aborted = False  # a stall or crash without -recover
        #: Stopped by SIGTERM, which fastchess does not catch: the match ends with no closing line, and the
        #: command dies by the signal once its workers have given their games back.
        self.terminated = False
        self.read_end, self.write_end = os.pipe()
        self.workers = Workers(
            self.path, lanes, log_path, main=main, log_engines=config.log.engine, cpus=cpus,
            log_level=config.log.level.workers_level,
            announce_fd=self.write_end,
        )
        self.conditions = self._conditions(tourney)
        for number in self.told.missing(tourney.results):  # the games played before this run
            self._count(number, Result.from_xboard(tourney.results[number]))

    # --- the run ---------------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the workers are done (or a signal, or a fault without -recover); the exit status."""
        stopping = False

        def stop(signum: int, frame: FrameType | None) -> None:
            nonlocal stopping
            stopping = True
            self.terminated = self.terminated or signum == signal.SIGTERM

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        lines = Lines()
        status = 0
        try:
            self.workers.start()
            last_read = 0.0
            while not (stopping or self.aborted):
                # Back at once when a worker announces, exits or says something (an error it shows).
                heard = self.workers.wait(REFRESH_SECONDS, also=[self.read_end])
                if heard:
                    self._heard(lines, os.read(self.read_end, 1 << 16))
                if not heard or time.monotonic() - last_read >= REFRESH_SECONDS:
                    last_read = time.monotonic()
                    tourney = self._reread()
                    ended = self.workers.tend(tourney)
                    if ended is not None:
                        status = ended
                        break
        finally:
            self.workers.stop(graceful=not (stopping or self.aborted or status))
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._drain(lines)
            os.close(self.read_end)
            os.close(self.write_end)
        if status:
            return status
        if self.terminated:  # fastchess dies by SIGTERM, with no closing lines: its caller (play) does too
            return 1
        tourney = store.read(self.path)
        self._tell_unannounced(tourney, at_once=True)
        # Workers that all ended with games left (none should) leave the match as a stop does: resumable.
        interrupted = stopping or self.aborted or not tourney.is_complete()
        self._close(tourney, interrupted=interrupted)
        return 1 if interrupted else 0

    def _heard(self, lines: Lines, data: bytes) -> None:
        for line in lines.feed(data):
            announcement = decode(line)
            if isinstance(announcement, GameStarted):
                self._emit(self.output.start_game(
                    announcement.number + 1, self.schedule.total_games, announcement.white, announcement.black
                ))
            elif isinstance(announcement, GameFinished):
                self._finished(announcement)
            elif isinstance(announcement, EngineStarted):
                self.options[announcement.participant] = {**announcement.options}
            elif isinstance(announcement, EngineWarning):
                self._warn([fc.warning_text(announcement, test_env=self.config.test_env)])
            elif isinstance(announcement, OptionRefused):
                self._warn([fc.option_refused_text(announcement)])

    def _warn(self, lines: list[str]) -> None:
        self._emit(lines)
        for line in lines:  # fastchess's log keeps its warnings too (-log level=warn, its default, keeps only them)
            LOGGER.warning("%s", line, extra=TOLD)
        if self.config.strict:  # fastchess's -strict: any warning ends the match, exit status 1
            self.aborted = True

    def _drain(self, lines: Lines) -> None:
        """What the workers announced before they ended."""
        os.set_blocking(self.read_end, False)
        with contextlib.suppress(BlockingIOError):
            while data := os.read(self.read_end, 1 << 16):
                self._heard(lines, data)

    def _reread(self) -> Tourney | None:
        try:
            tourney = store.read(self.path)
        except ConfigError:  # a hand edit half saved: the next read will do
            return None
        self._tell_unannounced(tourney, at_once=False)
        return tourney

    def _tell_unannounced(self, tourney: Tourney, *, at_once: bool) -> None:
        """Tell the games stored in the file that no worker announced (it died first)."""
        now = time.monotonic()
        for number in self.told.missing(tourney.results):
            first_seen = self.found_at.setdefault(number, now)
            if at_once or now - first_seen >= UNANNOUNCED_SECONDS:
                char = tourney.results[number]
                game = self.schedule.game(number)
                assert game is not None, "a stored game is in the schedule"
                found = pgn.find_game(tourney.pgn_path, number)
                reason = found.reason.rpartition(", ")[2] if found is not None else "?"
                self._finished(GameFinished(
                    number, self.names[game.white], self.names[game.black], Result.from_xboard(char), "", reason,
                ))

    # --- a game's end, as fastchess's finish() tells it --------------------------------------------

    def _finished(self, game: GameFinished) -> None:
        if game.number in self.told:
            return
        if game.ending == Ending.NOT_STARTED and game.fault == Fault.HANDSHAKE:
            # fastchess's isready before the game timed out (-ucinewgame-ms): warned of as it waits, -recover or not
            self._warn([f"Warning; Engine {self._loser(game)} is not responsive"])
        aborts = not self.config.recover and game.ending in _FAULTS
        if aborts and not self.aborted:  # told once, as fastchess's atomic stop tells it
            self.write(f"Game {game.number + 1} stalled / disconnected and no recover option set for engine, "
                       "stopping tournament.")
            self.aborted = True
        elif game.ending in _UNRESPONSIVE:  # fastchess pings both engines after a game it goes on from
            self._warn([f"Warning; Engine {self._loser(game)} is not responsive"])
            # and restarts the one that does not answer before it reports: a report's head then reads NULL for
            # its Threads and Hash, until the engine tells its options again as it starts
            self.options[self._loser(game)] = {}
        if game.ending == Ending.ILLEGAL_MOVE:
            self._warn(fc.illegal_move_text(game.illegal_move, self._loser(game)))
        if not aborts:  # fastchess's playGame returns from the fault that stops it before its tracker counts it
            self.tracker.note(game)
        if self.config.crc_pgn and self.config.pgn.requested:
            name = self.config.pgn.file or self.pgn_path.name
            self._emit([f"File {name} has CRC32: {self.crc.of(self.pgn_path):#x}"])
        reason = fc.reason_text(game.ending, game.result, game.reason, overstep_ms=game.overstep_ms)
        self._emit(self.output.end_game(game.number + 1, game.white, game.black, game.result, reason))
        before = len(self.told)
        completed = self._count(game.number, game.result)
        first, second = self._pairing(game.number)
        last = len(self.told) == self.schedule.total_games
        if (before + 1) % self.config.score_interval == 0 or last:
            self._emit(self.output.score(self.scoreboard.head_to_head(first, second), first, second))
        if self.config.report_penta:
            due = completed and (game.number // 2 + 1) % self.config.rating_interval == 0
        else:
            due = (before + 1) % self.config.rating_interval == 0
        if due or last:
            self._emit(self.output.interval(self._report(first, second)))

    @staticmethod
    def _loser(game: GameFinished) -> str:
        return game.black if game.result is Result.WHITE_WINS else game.white

    def _count(self, number: int, result: Result) -> bool:
        """Count a finished game on the scoreboard; whether it completed its pair."""
        game = self.schedule.game(number)
        assert game is not None, "a finished game is in the schedule"
        partner = self.schedule.partner(number)
        self.told.add(number)
        self.found_at.pop(number, None)
        pair = None if partner is None else min(number, partner)
        finished = self.scoreboard.add(self.names[game.white], self.names[game.black], result, pair=pair)
        return finished.completed_pair

    def _pairing(self, number: int) -> tuple[str, str]:
        """The two engines of game ``number``'s pairing, in the order of the command line."""
        game = self.schedule.game(number)
        assert game is not None
        low, high = sorted((game.white, game.black))
        return self.names[low], self.names[high]

    def _report(self, first: str, second: str) -> fc.Report:
        return fc.Report(
            self.scoreboard, first, second, self.names, self._with_engine_options(self.conditions),
            sprt=self.config.sprt,
        )

    def _emit(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    # --- the end -----------------------------------------------------------------------------------

    def _close(self, tourney: Tourney, *, interrupted: bool) -> None:
        """What fastchess prints when a match ends: the SPRT's report and verdict, the engines' faults, and
        how to go on after an interruption."""
        verdict = tourney.verdict
        if (
            not interrupted and self.config.sprt is not None and verdict is not None
            and verdict.result is not VerdictResult.UNDECIDED
        ):
            first, second = self.names[0], self.names[1]
            self._emit(self.output.score(self.scoreboard.head_to_head(first, second), first, second))
            self._emit(self.output.interval(self._report(first, second)))
            self._emit(self.output.end_tournament(fc.verdict_message(self.config.sprt, verdict.result.value)))
        if self.output.format is fc.OutputFormat.FASTCHESS:
            self._emit(self.tracker.lines())
        taken_back = self.new and FINISHED.search(tourney.results) is None  # nothing to resume: see play()
        if interrupted and self.config.keeps_cut_short and not taken_back:
            self.write(f"Tournament was interrupted. To resume it, run the same command again (its state: {self.path})")
        elif interrupted:  # cleared away or taken back by its caller, as fastchess says it without a state to resume
            self.write("Tournament was interrupted.")

    def _conditions(self, tourney: Tourney) -> fc.Conditions:
        """The head of a two-engine report: the limits of both, and (filled in as engines start) threads
        and hash."""
        texts = []
        for index in range(min(2, len(tourney.participants))):
            tc = tourney.time_control(index)
            texts.append(report_text(tc))
        time_control = texts[0] if len(set(texts)) == 1 else " - ".join(texts)
        # A book of unknown format is named, as fastchess names it, though no game is played from it.
        book = tourney.openings or self.config.openings
        return fc.Conditions(time_control, "NULL", "NULL", Path(book.file).name if book and book.file else "")

    def _with_engine_options(self, conditions: fc.Conditions) -> fc.Conditions:
        """Threads and hash as the first two engines have them (``NULL`` for an engine without the option)."""
        def both(option: str, unit: str) -> str:
            values = []
            for name in self.names[:2]:
                value = self.options.get(name, {}).get(option)
                values.append("NULL" if value is None else f"{value}{unit}")
            return values[0] if values[0] == values[1] else " - ".join(values)

        return fc.Conditions(conditions.time_control, both("Threads", "t"), both("Hash", "MB"), conditions.book)
