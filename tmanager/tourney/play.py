"""The game runner: play one game between two engines and describe its outcome.

A :class:`Game` takes a :class:`GameSpec` (plain data: engines, limits,
opening, adjudication) and its :meth:`Game.run` returns a :class:`GameRecord`
(result, termination, PGN text, faults); :func:`play_game` does both. It knows
nothing of tourney types, files or locks, so a local worker and a remote one run
the same function.

The runner keeps both clocks itself: every move request is wrapped in a deadline
of the remaining time plus a margin. A misbehaving engine loses the game, is
killed with its whole process group and is restarted for its next game.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import chess

from tmanager.core.results import Result
from tmanager.core.timecontrol import Clock, TimeControl
from tmanager.errors import ConfigError, first_line
from tmanager.formats.pgn import Notation
from tmanager.tourney.adjudication import Adjudication, Adjudicator
from tmanager.tourney.engine import Engine, EnginePool
from tmanager.tourney.enginelines import EngineError, EngineTerminated, IllegalMove, UnsupportedLimit
from tmanager.tourney.enginelog import EngineLog
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.gamepgn import SelfNamed, game_pgn, move_comment, push_notated
from tmanager.tourney.outcome import Ending, Fault, GameOver, Repetitions, Termination, loss, rules_outcome, side
from tmanager.tourney.pvcheck import (
    PvWarning,
    check_search,
    last_info_line,
    matching_lines,
    mate_sign_mismatch,
    score_problem,
)
from tmanager.tourney.search import Reply, Report, SearchLimit, Wanted
from tmanager.tourney.settings import PvChecks
from tmanager.tourney.variants import STANDARD, variant_board

LOG = logging.getLogger("tmanager")


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything needed to play one game: plain, picklable data."""

    white: EngineSpec
    black: EngineSpec
    white_limits: TimeControl
    black_limits: TimeControl
    start_fen: str | None = None
    #: UCI moves played from the start position before the engines take over: legal moves, which are not
    #: checked again (an opening book's, checked as the book is read).
    opening_moves: tuple[str, ...] = ()
    variant: str = STANDARD
    adjudication: Adjudication = field(default_factory=Adjudication)
    #: Seconds each side may overstep its clock (or fixed move time) before it loses on time.
    white_time_margin: float = 0.1
    black_time_margin: float = 0.1
    move_timeout: float = 60.0
    #: Per-move comments ("+0.25/12 0.105s"), with ``comment_fields`` (see :data:`COMMENT_FIELDS`) added.
    comments: bool = False
    comment_fields: tuple[str, ...] = ()
    notation: Notation = Notation.SAN
    #: Only the seven tags (and GameNumber, Pair, FEN), no comments: fastchess's ``-pgnout min=true``.
    minimal: bool = False
    #: A game lost by an illegal move is terminated by fastchess's ``illegal move``, not ``rules infraction``.
    illegal_move_termination: bool = False
    #: A file to append every line to and from the engines to, with timestamps ("" for none).
    engine_log: str = ""
    tags: Mapping[str, str] = field(default_factory=dict)
    #: Check the engines' PVs as fastchess does (:mod:`tmanager.tourney.pvcheck`; UCI engines that do not ponder).
    pv_checks: PvChecks = PvChecks.OFF
    #: Regular expressions: each engine move's comment quotes the last line of its search that each matches
    #: (fastchess's ``-pgnout match_line=``; UCI engines that do not ponder).
    match_lines: tuple[str, ...] = ()
    #: Log each engine move's latency (measured time less the time the engine reports), as fastchess's -show-latency.
    log_latency: bool = False
    #: An engine that fails to start is a configuration error (the game is no game), not a loss.
    stop_on_start_failure: bool = False
    #: Each clock starts with one increment added to its base time, as fastchess's does.
    increment_at_start: bool = False
    #: Seconds a move is still awaited past the time and margin, only to tell how late it came.
    late_move_wait: float = 0.0


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The outcome of one game."""

    result: Result
    ending: Ending
    reason: str
    pgn: str
    plies: int
    #: The final position as EPD with its move counters (``… hmvc 0; fmvn 41;``), as fastchess's -epdout.
    epd: str
    faults: Mapping[str, Fault] = field(default_factory=dict)
    #: Per engine, the largest (thinking time - time it had) over its moves under a clock or a
    #: fixed move time, the losing move included, in seconds: negative is time to spare.
    oversteps: Mapping[str, float] = field(default_factory=dict)
    #: What :attr:`GameSpec.pv_checks` found wrong with the engines' PVs, move by move.
    pv_warnings: tuple[PvWarning, ...] = ()
    #: The illegal move the game was lost by, as its engine wrote it (empty if none, or none was read).
    illegal_move: str = ""

    @property
    def termination(self) -> Termination:
        return self.ending.termination

    @property
    def worst_overstep(self) -> float | None:
        """The largest overstep of either engine; ``None`` when no move was played against time."""
        return max(self.oversteps.values(), default=None)


#: Called after every move with the board and both clocks' remaining seconds (white, black);
#: must be quick (it runs between the engines' moves).
MoveObserver = Callable[[chess.Board, float, float], None]


async def play_game(
    spec: GameSpec, pool: EnginePool | None = None, *, on_move: MoveObserver | None = None
) -> GameRecord:
    """Play one game (:meth:`Game.run`) with engines from ``pool``, or with engines of its own."""
    if pool is not None:
        return await Game(spec, pool, on_move=on_move).run()
    pool = EnginePool()
    try:
        return await Game(spec, pool, on_move=on_move).run()
    finally:
        await pool.close()


@dataclass(slots=True)
class _Side:
    """One side of a game: its engine's spec, limits and clock, and how its engine fares."""

    spec: EngineSpec
    limits: TimeControl
    margin: float  #: seconds it may overstep its clock
    increment_at_start: bool  #: its clock starts with one increment added (GameSpec.increment_at_start)
    clock: Clock = field(init=False)
    #: The limit of every move when there is no clock (and then the same object each move).
    fixed: SearchLimit = field(init=False)
    engine: Engine | None = None
    healthy: bool = True  #: False once its engine crashed, stalled or misbehaved: not kept for another game
    overstep: float | None = None  #: its worst (thinking time - time it had), see GameRecord.oversteps

    def __post_init__(self) -> None:
        self.clock = self.limits.new_clock(increment_at_start=self.increment_at_start)
        limits = self.limits
        self.fixed = SearchLimit(move_time=limits.move_time, nodes=limits.nodes, depth=limits.depth)

    def self_named(self) -> SelfNamed:
        """What its engine calls itself (nothing if it never started)."""
        engine = self.engine
        return SelfNamed() if engine is None else SelfNamed(engine.client.name, engine.client.author)

    def note(self, overstep: float) -> None:
        self.overstep = overstep if self.overstep is None else max(self.overstep, overstep)


class Game:
    """One game between two engines, as fastchess's ``Match`` and cutechess's ``ChessGame`` play it: :meth:`run`."""

    def __init__(self, spec: GameSpec, pool: EnginePool, *, on_move: MoveObserver | None = None) -> None:
        self.spec, self.pool, self.on_move = spec, pool, on_move
        self.sides = {
            chess.WHITE: _Side(spec.white, spec.white_limits, spec.white_time_margin, spec.increment_at_start),
            chess.BLACK: _Side(spec.black, spec.black_limits, spec.black_time_margin, spec.increment_at_start),
        }
        self.adjudicator = Adjudicator(spec.adjudication)
        self.movetext: list[str] = []  # the engines' moves as the PGN writes them
        self.comments: list[str] = []
        self.keep_lines = spec.pv_checks is not PvChecks.OFF or bool(spec.match_lines)
        self.pv_warnings: list[PvWarning] = []
        #: The last scored line of the search of the game's last move, ``None`` before the engines' first.
        self.last_info: str | None = None
        self.wanted = _wanted(spec)
        self.log: EngineLog | None = None
        self.board = chess.Board()
        self.repetitions = Repetitions(self.board)

    async def run(self) -> GameRecord:
        """Play the game: engine faults become results; a configuration error (an engine that refuses its
        options or the variant) raises :class:`~tmanager.errors.ConfigError` before any move, and is never a
        game."""
        begun = _now()
        if len(self.spec.opening_moves) > REPLAYED_ON_LOOP:
            # A long opening takes milliseconds to replay (2.5 ms for 512 plies, up to three times that on a
            # loaded machine), which every game playing on this event loop would otherwise wait through.
            self.board, self.repetitions = await asyncio.to_thread(_start, self.spec)
        else:
            self.board, self.repetitions = _start(self.spec)
        opening_plies = len(self.board.move_stack)
        self.log = _open_log(self.spec)
        try:
            over = await self._begin()
            while over is None:
                over = await self._move()
            for board_side in self.sides.values():
                if board_side.engine is not None and board_side.healthy:
                    await board_side.engine.game_over(self.board, over)
        finally:
            self.adjudicator.close()
            for board_side in self.sides.values():
                if board_side.engine is not None:
                    # With an engine log, each game's log holds its own ucinewgame: its engines get ready at its start.
                    await self.pool.release(board_side.engine, healthy=board_side.healthy, get_ready=self.log is None)
            if self.log is not None:
                self.log.close()
        return await self._record(over, begun=begun, opening_plies=opening_plies)

    async def _begin(self) -> GameOver | None:
        """Start both engines (or take them from the pool) and have them ready for the game: it is over before
        its first move when one of them fails, or when the start position ends it already."""
        over = await self._acquire_both()
        if over is not None:
            return over
        for board_side in self.sides.values():
            assert board_side.engine is not None
            board_side.engine.check_variant(self.board)
        if self.spec.white_limits.is_timed or self.spec.black_limits.is_timed:
            # Only a clock is hurt by the engines starting elsewhere; a game of nodes or depth alone
            # plays the same moves however loaded the cores are, and starts at once.
            await self.pool.quiet()
        over = await self._ready_both()
        if over is not None:
            return over
        return rules_outcome(self.board, self.repetitions.now(self.board)) or self.adjudicator.verdict(self.board)

    async def _move(self) -> GameOver | None:
        """The side to move plays its engine's move; the game is over if the move, or the position it
        reaches, ends it."""
        board, spec = self.board, self.spec
        mover = board.turn
        answer = await self._ask(mover)
        if isinstance(answer, GameOver):
            return answer
        reply, elapsed, quoted = answer
        move = reply.move
        if reply.resigned:
            return loss(mover, Ending.RESIGNATION, f"{side(mover)} resigns")
        if move is None:
            return loss(mover, Ending.FALSE_CLAIM, f"{side(mover)} makes a false result claim", fault=Fault.FALSE_CLAIM)
        if not move:  # "0000" (UCI) or "@@@@" (XBoard) reads as a null move, which is never legal in a game
            return loss(
                mover, Ending.ILLEGAL_MOVE, f"{side(mover)} makes an illegal move (a null move)",
                fault=Fault.ILLEGAL_MOVE, move=move.uci(),
            )
        irreversible = board.is_zeroing(move)
        self.movetext.append(push_notated(board, move, spec.notation))
        if spec.pv_checks is not PvChecks.OFF:
            self._check_mate_signs(mover, reply.lines)
        if spec.comments and not spec.minimal:
            own = self.sides[mover]
            left = own.clock.remaining if own.limits.has_clock else None
            comment = move_comment(reply.report, elapsed, spec.comment_fields, time_left=left, quoted=quoted)
            self.comments.append(comment)
        over = rules_outcome(board, self.repetitions.count(board, irreversible=irreversible))
        if over is not None:
            return over
        if self.on_move is not None:
            self.on_move(board, self.sides[chess.WHITE].clock.remaining, self.sides[chess.BLACK].clock.remaining)
        self.adjudicator.count(board, mover, _centipawns(reply.report))
        return self.adjudicator.verdict(board)

    async def _ask(self, mover: chess.Color) -> tuple[Reply, float, list[str]] | GameOver:
        """``mover``'s engine's answer, the seconds it took by its clock, and the lines of its search quoted
        in the PGN; or the end of the game, when the engine fails to answer in time, crashes or says
        what cannot be read."""
        own, board = self.sides[mover], self.board
        engine = own.engine
        assert engine is not None
        if not await engine.caught_up():
            own.healthy = False
            return loss(mover, Ending.STALL, f"{side(mover)}'s engine did not answer the ping after its move in "
                        f"{engine.spec.ping_within:g} s", fault=Fault.STALL)
        deadline = own.clock.deadline(own.margin)
        allowed = None if deadline is None else deadline - own.margin  # the time it has
        limit = _limit(self.sides, mover)
        started = time.monotonic()
        try:
            # A timeout scope, not wait_for: no task per move, and a cancellation is never lost.
            # (a late move's wait, longer than the timer's slack, keeps the margin's promise by itself)
            wait = None if deadline is None else deadline + max(self.spec.late_move_wait, _TIMER_SLACK)
            async with asyncio.timeout(self.spec.move_timeout if wait is None else wait):
                reply = await engine.play(board, limit, wanted=self.wanted, keep_lines=self.keep_lines)
        except TimeoutError:
            own.healthy = False
            if allowed is None:
                timeout = self.spec.move_timeout
                return loss(mover, Ending.STALL, f"{side(mover)}'s engine stalls: no move in {timeout:g} s",
                            fault=Fault.STALL)
            elapsed = time.monotonic() - started
            own.note(elapsed - allowed)
            # An engine that was merely late is kept, as fastchess keeps it: restarting it would
            # add its start-up to a machine that is already short of time.
            own.healthy = await engine.responsive(within=engine.spec.ping_within)
            return _time_loss(mover, elapsed, allowed=allowed, margin=own.margin, moved=False)
        except EngineTerminated:
            own.healthy = False
            return loss(mover, Ending.CRASH, f"{side(mover)}'s engine crashed", fault=Fault.CRASH)
        except UnsupportedLimit as exc:
            own.healthy = False  # still searching what it took for another limit
            raise ConfigError(f"engine {own.spec.name!r} {exc}", hint=exc.hint) from None
        except EngineError as exc:
            own.healthy = False
            return loss(mover, Ending.ILLEGAL_MOVE,
                        f"{side(mover)} makes an illegal or unreadable move ({first_line(exc)})",
                        fault=Fault.ILLEGAL_MOVE, move=exc.move if isinstance(exc, IllegalMove) else "")
        elapsed = engine.answered_at(started) - started
        if allowed is not None:
            own.note(elapsed - allowed)
            if elapsed > allowed + own.margin:
                return _time_loss(mover, elapsed, allowed=allowed, margin=own.margin, moved=True)
        own.clock.spend(elapsed)
        if self.spec.log_latency and reply.report.time is not None:
            _log_latency(own.spec.name, elapsed, reply.report.time)
        quoted: list[str] = []
        if self.keep_lines:
            lines = list(reply.lines)
            self.pv_warnings += _pv_warnings(self.spec, board, lines, reply.move, engine)
            quoted = matching_lines(lines, self.spec.match_lines)
        return reply, elapsed, quoted

    def _check_mate_signs(self, mover: chess.Color, lines: Sequence[str]) -> None:
        """fastchess's check after each move, made here with the PV checks: the engine that moved and its
        opponent, who moved before it, do not both see their own mate, nor both their own loss."""
        line = last_info_line(lines)
        previous, self.last_info = self.last_info, line
        finding = None if previous is None else mate_sign_mismatch(previous, line)
        if finding is None:
            return
        them, us = self.sides[not mover].spec.name, self.sides[mover].spec.name
        engines = f"{them} ({side(not mover)}) and {us} ({side(mover)})"
        moves = tuple(m.uci() for m in self.board.move_stack)
        self.pv_warnings.append(PvWarning(finding, engines, _start_text(self.spec, self.board), moves))

    async def _acquire_both(self) -> GameOver | None:
        """Start (or take from the pool) both engines side by side, keeping each that starts, also when the
        other one fails or the game is cancelled meanwhile (:meth:`run` releases them); the first failure,
        White's before Black's, ends the game."""
        tasks = {color: asyncio.create_task(self._acquire(color)) for color in self.sides}
        try:
            await asyncio.wait(tasks.values())
        finally:
            for task in tasks.values():
                task.cancel()  # only a start still under way (we are cancelled): it kills its engine
            await asyncio.wait(tasks.values())
            for color, task in tasks.items():
                if not task.cancelled() and task.exception() is None:
                    self.sides[color].engine = task.result()
        self._neither_started([task.exception() for task in tasks.values()])
        for color, task in tasks.items():
            failure = task.exception()
            if isinstance(failure, _NotStarted) and self.spec.stop_on_start_failure:
                raise ConfigError(f"engine {self.sides[color].spec.name!r} {failure}",
                                  hint="see that it runs, e.g. with tmanager check")
            if isinstance(failure, _NotStarted):
                return failure.over
            if failure is not None:
                raise failure
        return None

    async def _acquire(self, color: chess.Color) -> Engine:
        spec = self.sides[color].spec
        observer = None if self.log is None else self.log.observer(spec.name)
        try:
            return await self.pool.acquire(spec, observer=observer)
        except TimeoutError:
            raise _NotStarted(color, f"did not finish its handshake in {spec.handshake_timeout:g} s",
                              Fault.HANDSHAKE) from None
        except (EngineError, OSError) as exc:
            raise _NotStarted(color, f"failed to start ({first_line(exc)})", Fault.CRASH) from None

    async def _ready_both(self) -> GameOver | None:
        """:meth:`_ready` for both engines side by side: each may clear its hash (Stockfish's 16 MB take
        a millisecond), which one after the other would keep both waiting twice. An engine that fails is
        not kept; the first failure, White's before Black's, ends the game."""
        colors = tuple(self.sides)
        outcomes = await asyncio.gather(*(self._ready(color) for color in colors), return_exceptions=True)
        for color, outcome in zip(colors, outcomes, strict=True):
            if isinstance(outcome, _NotStarted):
                self.sides[color].healthy = False
        self._neither_started(outcomes)
        for outcome in outcomes:
            if isinstance(outcome, _NotStarted):
                return outcome.over
            if isinstance(outcome, BaseException):
                raise outcome
        return None

    def _neither_started(self, failures: Sequence[object]) -> None:
        """Refuse (:class:`ConfigError`) a game neither of whose engines could start or get ready: no side played,
        so neither lost (the first checked was scored the loss); both failing at once is seldom the engines' own
        fault, rather the host's (no memory, a library gone, a shared path), and the worker stops, the game unplayed."""
        if not all(isinstance(failure, _NotStarted) for failure in failures):
            return
        said = "; ".join(f"{self.sides[f.color].spec.name!r} {f}" for f in failures if isinstance(f, _NotStarted))
        raise ConfigError(f"neither engine could play, so no game is scored: {said}",
                          hint="see that they run, e.g. with tmanager check")

    async def _ready(self, color: chess.Color) -> None:
        """Have the engine ready for the game (:meth:`Engine.ready`) before its clock runs, within its
        ``ready_timeout``: getting ready for a game is start-up, not thinking."""
        engine = self.sides[color].engine
        assert engine is not None
        try:
            async with asyncio.timeout(engine.spec.ready_within):
                await engine.ready()
        except TimeoutError:
            raise _NotStarted(color, f"did not answer isready in {engine.spec.ready_within:g} s",
                              Fault.HANDSHAKE) from None
        except EngineTerminated:
            raise _NotStarted(color, "crashed", Fault.CRASH) from None

    async def _record(self, over: GameOver, *, begun: dt.datetime, opening_plies: int) -> GameRecord:
        """The game as it is recorded: its PGN, its final position, and what each engine did wrong."""
        board, spec = self.board, self.spec
        faults = {} if over.fault is None else {self.sides[over.fault.color].spec.name: over.fault.kind}
        termination = over.termination
        if spec.illegal_move_termination and over.ending is Ending.ILLEGAL_MOVE:
            termination = Termination.ILLEGAL_MOVE
        # Off the event loop: a long opening is replayed to be written (milliseconds), and the other games' clocks run.
        pgn = await asyncio.to_thread(
            game_pgn, spec, board, result=over.result.pgn, termination=termination, reason=over.reason,
            movetext=self.movetext, comments=self.comments, opening_plies=opening_plies, started=begun, ended=_now(),
            engines=(self.sides[chess.WHITE].self_named(), self.sides[chess.BLACK].self_named()),
        )
        return GameRecord(
            result=over.result,
            ending=over.ending,
            reason=over.reason,
            pgn=pgn,
            plies=len(board.move_stack) - opening_plies,
            epd=board.epd(hmvc=board.halfmove_clock, fmvn=board.fullmove_number),
            faults=faults,
            oversteps={s.spec.name: s.overstep for s in self.sides.values() if s.overstep is not None},
            pv_warnings=tuple(self.pv_warnings),
            illegal_move="" if over.fault is None else over.fault.move,
        )


class _NotStarted(Exception):
    """``color`` loses before its first move: its engine ``what`` (failed to start or get ready)."""

    def __init__(self, color: chess.Color, what: str, fault: Fault) -> None:
        super().__init__(what)
        self.color = color
        self.over = loss(color, Ending.NOT_STARTED, f"{side(color)}'s engine {what}", fault=fault)


def _open_log(spec: GameSpec) -> EngineLog | None:
    """The game's engine log, if it writes one, headed by the game's number and engines."""
    if not spec.engine_log:
        return None
    game = f"{spec.tags.get('GameNumber', '?')}: {spec.white.name} - {spec.black.name}"
    return EngineLog.open(spec.engine_log, game=game)


def _wanted(spec: GameSpec) -> Wanted:
    """What the engines' search reports are read for: the comments show what they are asked to show,
    adjudication needs the score alone (and a UCI engine's last score is read without the rest)."""
    if spec.comments and not spec.minimal:
        return Wanted.BASIC | Wanted.SCORE | (Wanted.PV if "pv" in spec.comment_fields else Wanted.NOTHING)
    basic = Wanted.BASIC if spec.log_latency else Wanted.NOTHING  # the time the engine reports
    return Wanted.SCORE | basic if spec.adjudication.needs_scores else basic


def _limit(sides: Mapping[chess.Color, _Side], mover: chess.Color) -> SearchLimit:
    """The limit of ``mover``'s search: its fixed one, or with the clocks as they are now."""
    own = sides[mover]
    limits = own.limits
    if not limits.has_clock:
        return own.fixed
    white, black = sides[chess.WHITE].clock, sides[chess.BLACK].clock
    return SearchLimit(
        move_time=limits.move_time, nodes=limits.nodes, depth=limits.depth,
        white_clock=max(white.remaining, 0.001), black_clock=max(black.remaining, 0.001),
        white_inc=white.control.increment, black_inc=black.control.increment, moves_to_go=own.clock.moves_left,
    )


def _centipawns(report: Report) -> int | None:
    return None if report.score is None else report.score.centipawns()


def _log_latency(engine: str, elapsed: float, reported: float) -> None:
    """fastchess's -show-latency line, in the worker's log: the time measured less the time reported."""
    elapsed_ms, reported_ms = round(elapsed * 1000), round(reported * 1000)
    LOG.info("engine %s latency: %d ms (elapsed: %d, reported: %d)", engine, elapsed_ms - reported_ms, elapsed_ms,
             reported_ms)


def _pv_warnings(
    spec: GameSpec, board: chess.Board, lines: list[str], move: chess.Move | None, engine: Engine
) -> list[PvWarning]:
    """What :mod:`~tmanager.tourney.pvcheck` finds wrong with one search of ``engine`` in ``board``."""
    if spec.pv_checks is PvChecks.OFF:
        return []
    infos = [line for line in lines if line.startswith("info")]
    findings = check_search(board, infos, move.uci() if move else "", mates=spec.pv_checks is PvChecks.MATES)
    # fastchess reads the score first; of a UCI engine's whole search (a ponder hit's lines are only the last)
    unscored = score_problem(lines) if engine.client.scored_reports and not engine.spec.ponder else None
    if unscored is not None:
        findings = [unscored, *findings]
    if not findings:
        return []
    start, moves = _start_text(spec, board), tuple(m.uci() for m in board.move_stack)
    return [PvWarning(finding, engine.spec.name, start, moves) for finding in findings]


def _start_text(spec: GameSpec, board: chess.Board) -> str:
    """The game's start as fastchess's warnings give it: ``startpos``, or ``fen …``."""
    root = board.root()
    return "startpos" if spec.start_fen is None else f"fen {root.fen(shredder=root.chess960)}"


# uvloop's timers count whole milliseconds from a truncated clock and fire up to 1.5 ms early; the
# margin is a promise, so the flag waits that long more.
_TIMER_SLACK = 0.002


def _time_loss(mover: chess.Color, elapsed: float, *, allowed: float, margin: float, moved: bool) -> GameOver:
    """``mover`` loses on time, with the figures: how long it thought, the time it had, the margin."""
    what = "moved" if moved else "no move"
    return loss(
        mover, Ending.TIME_FORFEIT,
        f"{side(mover)} loses on time ({_ms(elapsed - allowed)} overrun: {what} after {_ms(elapsed)} "
        f"with {_ms(allowed)} left, margin {_ms(margin)})",
        fault=Fault.TIME_FORFEIT,
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def start_board(variant: str, start_fen: str | None) -> chess.Board:
    """The position a game of ``variant`` starts from (``start_fen``, else the usual one), before the opening."""
    board_class, chess960 = variant_board(variant)
    if start_fen:
        return board_class(start_fen, chess960=chess960)
    return board_class(chess960=chess960)


#: Openings of up to this many plies are replayed on the event loop (about 0.3 ms); a longer one on a thread.
REPLAYED_ON_LOOP = 64


def after_opening(spec: GameSpec) -> chess.Board:
    """The board the engines start from: the start position with the opening's moves pushed unchecked.

    Opening moves come from a book, which checked every move as it read it
    (:meth:`OpeningBook.load <tmanager.tourney.openings.OpeningBook.load>`). Checked again here,
    they would cost 2.5 times as much (15 ms against 6 for 1,000 plies), for each of the hundreds
    of games that may start together.
    """
    board = start_board(spec.variant, spec.start_fen)
    for uci in spec.opening_moves:
        board.push(chess.Move.from_uci(uci))
    return board


def _start(spec: GameSpec) -> tuple[chess.Board, Repetitions]:
    """The board after the opening, and its positions counted for threefold repetition."""
    board = after_opening(spec)
    return board, Repetitions(board)


def _now() -> dt.datetime:
    """The local time, with its zone (the PGN's ``GameStartTime`` and ``GameEndTime``)."""
    return dt.datetime.now().astimezone()
