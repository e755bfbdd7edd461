"""The game runner: play one game between two engines and describe its outcome.

:func:`play_game` takes a :class:`GameSpec` (plain data: engines, limits,
opening, adjudication) and returns a :class:`GameRecord` (result, termination,
PGN text, faults). It knows nothing of tourney types, files or locks, so a
local worker and a remote one run the same function.

The runner keeps both clocks itself: python-chess never times out when it is
given clock limits, so every ``play()`` is wrapped in a deadline of the
remaining time plus a margin. A misbehaving engine loses the game, is killed
with its whole process group and is restarted for its next game.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import datetime as dt
import os
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Literal

import chess
import chess.engine
import chess.pgn
import chess.syzygy

from tmanager.core.timecontrol import Clock, TimeControl
from tmanager.errors import EngineError
from tmanager.formats.pgn import tag_value
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.openings import variant_board
from tmanager.tourney.uci import UciEngine
from tmanager.tourney.xboard import popen_xboard

Termination = Literal["normal", "time forfeit", "adjudication", "rules infraction", "abandoned"]
#: Kinds of engine fault, counted per engine in the tourney's status.
Fault = Literal["crash", "handshake", "stall", "illegal move", "false claim", "time forfeit"]


@dataclass(frozen=True, slots=True)
class Adjudication:
    """When the runner ends a game itself (the tourney file's ``[adjudication]``).

    Scores are centipawns, counts are moves; ``None`` turns a rule off.
    ``syzygy`` is a tablebase directory.
    """

    resign_score: int | None = None
    resign_moves: int = 3
    draw_from_move: int = 40
    draw_score: int | None = None
    draw_moves: int = 8
    max_moves: int | None = None
    syzygy: str = ""
    syzygy_pieces: int = 7


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything needed to play one game: plain, picklable data."""

    white: EngineSpec
    black: EngineSpec
    white_limits: TimeControl
    black_limits: TimeControl
    start_fen: str | None = None
    opening_moves: tuple[str, ...] = ()
    variant: str = "chess"
    adjudication: Adjudication = field(default_factory=Adjudication)
    time_margin: float = 0.1
    move_timeout: float = 60.0
    comments: bool = False
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The outcome of one game."""

    result: str
    termination: Termination
    reason: str
    pgn: str
    plies: int
    faults: Mapping[str, Fault] = field(default_factory=dict)
    #: The largest (thinking time - time left) over the game's clocked moves, in seconds:
    #: negative is time to spare; ``None`` when no move was played under a clock.
    worst_overstep: float | None = None


class _GameOver(Exception):
    """Raised inside the move loop to end the game."""

    def __init__(
        self, result: str, termination: Termination, reason: str, *, fault: tuple[chess.Color, Fault] | None = None
    ) -> None:
        super().__init__(reason)
        self.result = result
        self.termination: Termination = termination
        self.reason = reason
        self.fault = fault


def _loss(color: chess.Color) -> str:
    return "0-1" if color == chess.WHITE else "1-0"


def _name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


# --- engine processes ----------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1
# libc as this process already has it loaded (ctypes.util.find_library would run ldconfig at
# every start); None where there is no prctl (not Linux).
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)


def _die_with_parent() -> None:
    # Runs in the engine's child process: if the manager is killed with -9, the
    # kernel kills the engine too, so no orphan keeps a core busy.
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class Engine:
    """A running engine process: python-chess protocol plus the process group to kill."""

    def __init__(self, spec: EngineSpec, transport: asyncio.SubprocessTransport, protocol: chess.engine.Protocol):
        self.spec = spec
        self.transport = transport
        self.protocol = protocol
        self.pid = transport.get_pid()

    @classmethod
    async def start(cls, spec: EngineSpec) -> Engine:
        """Start ``spec`` and finish its handshake; :class:`chess.engine.EngineError`, ``OSError``
        or ``TimeoutError`` when the engine fails, :class:`EngineError` when its options are wrong."""
        stderr: int | IO[bytes] = subprocess.DEVNULL
        if spec.stderr_log:
            stderr = open(spec.stderr_log, "ab")  # noqa: SIM115 - the child owns it once started
        try:
            engine = cls(spec, *await asyncio.wait_for(_open(spec, stderr=stderr), timeout=spec.handshake_timeout))
        finally:
            if not isinstance(stderr, int):
                stderr.close()
        try:
            options: chess.engine.ConfigMapping = dict(spec.options)
            await asyncio.wait_for(engine.protocol.configure(options), timeout=spec.handshake_timeout)
        except chess.engine.EngineError as exc:
            await engine.close()
            raise EngineError(f"engine {spec.name!r}: {exc} (fix options in its definition or participant)") from None
        except BaseException:
            await engine.kill()
            raise
        return engine

    async def play(
        self, board: chess.Board, limit: chess.engine.Limit, *, game: object, info: chess.engine.Info
    ) -> chess.engine.PlayResult:
        """The engine's move in ``board``: ``game``'s board, moved on since this engine's previous move
        (see :meth:`UciEngine.play_on`)."""
        if isinstance(self.protocol, UciEngine) and not self.spec.ponder:
            return await self.protocol.play_on(board, limit, game=game, info=info)
        return await self.protocol.play(board, limit, game=game, info=info, ponder=self.spec.ponder)

    async def close(self) -> None:
        """Ask the engine to quit, then make sure it and its children are gone."""
        if self.transport.get_returncode() is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.protocol.quit(), timeout=0.5)
        await self.kill()

    async def kill(self) -> None:
        """Kill the engine's whole process group at once and wait until the process is reaped."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        self.transport.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.protocol.returncode), timeout=2.0)


async def _open(
    spec: EngineSpec, *, stderr: int | IO[bytes]
) -> tuple[asyncio.SubprocessTransport, chess.engine.Protocol]:
    """Start the engine in its own process group, dying with us, and do its handshake;
    an engine that fails (or is cancelled) on the way is killed with its group and reaped."""
    command = list(spec.command)
    popen_args: dict[str, Any] = {"cwd": spec.workdir, "stderr": stderr, "preexec_fn": _die_with_parent}
    if spec.protocol == "xboard":
        transport, xboard = await popen_xboard(command, features=spec.xboard_features, setpgrp=True, **popen_args)
        return transport, xboard
    transport, uci = await UciEngine.popen(command, setpgrp=True, **popen_args)
    try:
        await uci.initialize()
    except BaseException:
        await Engine(spec, transport, uci).kill()
        raise
    return transport, uci


class EnginePool:
    """Engines kept between games (``restart = false``), one process per participant."""

    def __init__(self) -> None:
        # Keyed by the spec's repr: specs hold dicts and are not hashable, and an
        # upgraded participant with the same name must not get the old process.
        self._idle: dict[str, Engine] = {}

    async def acquire(self, spec: EngineSpec) -> Engine:
        engine = self._idle.pop(repr(spec), None)
        if engine is not None and engine.transport.get_returncode() is None:
            return engine
        if engine is not None:
            await engine.kill()
        return await Engine.start(spec)

    async def release(self, engine: Engine, *, healthy: bool) -> None:
        """Keep a healthy engine for the next game, unless its spec asks for a restart."""
        if healthy and not engine.spec.restart and repr(engine.spec) not in self._idle:
            self._idle[repr(engine.spec)] = engine
        else:
            await engine.close()

    async def close(self) -> None:
        engines, self._idle = list(self._idle.values()), {}
        await asyncio.gather(*(e.close() for e in engines), return_exceptions=True)


# --- the game ------------------------------------------------------------------------------------


class _Adjudicator:
    """Tracks engine scores move by move and decides when rules end the game."""

    def __init__(self, rules: Adjudication) -> None:
        self.rules = rules
        self.resign_streak = {chess.WHITE: 0, chess.BLACK: 0}  # moves in a row a side saw itself lost
        self.win_streak = {chess.WHITE: 0, chess.BLACK: 0}
        self.draw_streak = 0
        self.tablebase: chess.syzygy.Tablebase | None = None
        if rules.syzygy:
            self.tablebase = chess.syzygy.open_tablebase(rules.syzygy)

    def close(self) -> None:
        if self.tablebase is not None:
            self.tablebase.close()

    def after_move(self, board: chess.Board, mover: chess.Color, score: int | None) -> None:
        """Raise :class:`_GameOver` if a rule ends the game after ``mover``'s move scored ``score``
        (centipawns from ``mover``'s point of view, ``None`` when the engine gave none)."""
        rules = self.rules
        if rules.resign_score is not None:
            lost = score is not None and score <= -rules.resign_score
            won = score is not None and score >= rules.resign_score
            self.resign_streak[mover] = self.resign_streak[mover] + 1 if lost else 0
            self.win_streak[mover] = self.win_streak[mover] + 1 if won else 0
            for loser in (chess.WHITE, chess.BLACK):
                if (
                    self.resign_streak[loser] >= rules.resign_moves
                    and self.win_streak[not loser] >= rules.resign_moves
                ):
                    raise _GameOver(
                        _loss(loser),
                        "adjudication",
                        f"{_name(loser)} resigns: both engines scored it below -{rules.resign_score} cp "
                        f"for {rules.resign_moves} moves",
                    )
        if rules.draw_score is not None:
            # The number of the move just made (the counter moved on after a black move).
            move_number = board.fullmove_number - (1 if mover == chess.BLACK else 0)
            late = move_number > rules.draw_from_move
            quiet = late and score is not None and abs(score) <= rules.draw_score
            self.draw_streak = self.draw_streak + 1 if quiet else 0
            if self.draw_streak >= 2 * rules.draw_moves:
                raise _GameOver(
                    "1/2-1/2",
                    "adjudication",
                    f"Draw by adjudication: both engines scored within {rules.draw_score} cp "
                    f"for {rules.draw_moves} moves after move {rules.draw_from_move}",
                )
        if rules.max_moves is not None and board.ply() >= 2 * rules.max_moves:
            raise _GameOver("1/2-1/2", "adjudication", f"Draw by adjudication: {rules.max_moves} moves reached")
        if (
            self.tablebase is not None
            and chess.popcount(board.occupied) <= rules.syzygy_pieces
            and not board.castling_rights
        ):
            with contextlib.suppress(KeyError, chess.syzygy.MissingTableError):
                wdl = self.tablebase.probe_wdl(board)
                if wdl == 0 or abs(wdl) == 1:  # draws and cursed wins/blessed losses under the 50-move rule
                    raise _GameOver("1/2-1/2", "adjudication", "Draw by tablebase adjudication")
                winner = board.turn if wdl > 0 else not board.turn
                raise _GameOver(
                    "1-0" if winner == chess.WHITE else "0-1",
                    "adjudication",
                    f"{_name(winner)} wins by tablebase adjudication",
                )


class _Repetitions:
    """Threefold repetition without replaying the move stack (python-chess's check does, per move)."""

    def __init__(self, board: chess.Board) -> None:
        self.seen: Counter[Hashable] = Counter([board._transposition_key()])

    def count(self, board: chess.Board, *, irreversible: bool) -> int:
        if irreversible:
            self.seen.clear()
        key = board._transposition_key()
        self.seen[key] += 1
        return self.seen[key]


def _rules_outcome(board: chess.Board, repetitions: int) -> _GameOver | None:
    # is_checkmate() and is_stalemate() would each look for a legal move; one look serves both.
    if not any(board.generate_legal_moves()):
        if board.is_check():
            winner = not board.turn
            return _GameOver("1-0" if winner == chess.WHITE else "0-1", "normal", f"{_name(winner)} mates")
        if not board.is_variant_end():
            return _GameOver("1/2-1/2", "normal", "Draw by stalemate")
    if board.is_insufficient_material():
        return _GameOver("1/2-1/2", "normal", "Draw by insufficient mating material")
    if repetitions >= 3:
        return _GameOver("1/2-1/2", "normal", "Draw by 3-fold repetition")
    if board.halfmove_clock >= 100:
        return _GameOver("1/2-1/2", "normal", "Draw by fifty moves rule")
    if board.is_variant_end():
        result = board.result()
        return _GameOver(result, "normal", "Variant rules end the game")
    return None


def _info_wanted(spec: GameSpec) -> chess.engine.Info:
    """What the engines' search reports are read for: the comments show depth, nodes and score,
    adjudication needs the score alone (and a UCI engine's last score is read without the rest)."""
    if spec.comments:
        return chess.engine.INFO_BASIC | chess.engine.INFO_SCORE
    if spec.adjudication.resign_score is not None or spec.adjudication.draw_score is not None:
        return chess.engine.INFO_SCORE
    return chess.engine.INFO_NONE


def _limit(own: TimeControl, clocks: Mapping[chess.Color, Clock], mover: chess.Color) -> chess.engine.Limit:
    white, black = clocks[chess.WHITE], clocks[chess.BLACK]
    limit = chess.engine.Limit(time=own.move_time, nodes=own.nodes, depth=own.depth)
    if own.has_clock:
        limit.white_clock = max(white.remaining, 0.001)
        limit.black_clock = max(black.remaining, 0.001)
        limit.white_inc = white.control.increment
        limit.black_inc = black.control.increment
        limit.remaining_moves = clocks[mover].moves_left
    return limit


def _centipawns(info: chess.engine.InfoDict) -> int | None:
    score = info.get("score")
    if score is None:
        return None
    return score.relative.score(mate_score=100_000)


def _comment(info: chess.engine.InfoDict, seconds: float) -> str:
    parts = []
    score = info.get("score")
    if score is not None:
        relative = score.relative
        mate = relative.mate()
        parts.append(f"#{mate}" if mate is not None else f"{relative.score(mate_score=100_000) / 100:+.2f}")
    if "depth" in info:
        parts.append(f"d={info['depth']}")
    parts.append(f"t={seconds * 1000:.0f}ms")
    if "nodes" in info:
        parts.append(f"n={info['nodes']}")
    return " ".join(parts)


def start_board(spec: GameSpec) -> chess.Board:
    """The position the game starts from, before the opening moves."""
    board_class, chess960 = variant_board(spec.variant)
    if spec.start_fen:
        return board_class(spec.start_fen, chess960=chess960)
    return board_class(chess960=chess960)


#: Called after every move with the board and both clocks' remaining seconds (white, black);
#: must be quick (it runs between the engines' moves).
MoveObserver = Callable[[chess.Board, float, float], None]


async def play_game(
    spec: GameSpec, pool: EnginePool | None = None, *, on_move: MoveObserver | None = None
) -> GameRecord:
    """Play one game. Engine faults become results; only configuration errors raise."""
    own_pool = pool is None
    pool = pool or EnginePool()
    board = start_board(spec)
    for uci in spec.opening_moves:
        board.push_uci(uci)
    opening_plies = len(board.move_stack)
    limits = {chess.WHITE: spec.white_limits, chess.BLACK: spec.black_limits}
    clocks = {color: limits[color].new_clock() for color in (chess.WHITE, chess.BLACK)}
    specs = {chess.WHITE: spec.white, chess.BLACK: spec.black}
    engines: dict[chess.Color, Engine] = {}
    healthy = {chess.WHITE: True, chess.BLACK: True}
    comments: list[str] = []
    worst_overstep: float | None = None
    adjudicator = _Adjudicator(spec.adjudication)
    game_id = object()
    try:
        try:
            await _acquire_both(pool, specs, engines)
            repetitions = _Repetitions(board)
            ending = _rules_outcome(board, 1)
            if ending is not None:
                raise ending
            info_flags = _info_wanted(spec)
            while True:
                mover = board.turn
                engine, clock = engines[mover], clocks[mover]
                limit = _limit(limits[mover], clocks, mover)
                deadline = clock.deadline(spec.time_margin)
                has_deadline = deadline is not None
                started = time.monotonic()
                try:
                    # A timeout scope, not wait_for: no task per move, and a cancellation is never lost.
                    async with asyncio.timeout(deadline if has_deadline else spec.move_timeout):
                        result = await engine.play(board, limit, game=game_id, info=info_flags)
                except TimeoutError:
                    healthy[mover] = False
                    if has_deadline:
                        raise _GameOver(
                            _loss(mover), "time forfeit", f"{_name(mover)} loses on time",
                            fault=(mover, "time forfeit"),
                        ) from None
                    raise _GameOver(
                        _loss(mover), "abandoned",
                        f"{_name(mover)}'s engine stalls: no move in {spec.move_timeout:g} s",
                        fault=(mover, "stall"),
                    ) from None
                except chess.engine.EngineTerminatedError:
                    healthy[mover] = False
                    raise _GameOver(
                        _loss(mover), "abandoned", f"{_name(mover)}'s engine crashed", fault=(mover, "crash")
                    ) from None
                except chess.engine.EngineError as exc:
                    healthy[mover] = False
                    raise _GameOver(
                        _loss(mover), "rules infraction",
                        f"{_name(mover)} makes an illegal or unreadable move ({_first_line(exc)})",
                        fault=(mover, "illegal move"),
                    ) from None
                elapsed = time.monotonic() - started
                if has_deadline and elapsed > clock.remaining + spec.time_margin and limits[mover].has_clock:
                    raise _GameOver(
                        _loss(mover), "time forfeit", f"{_name(mover)} loses on time", fault=(mover, "time forfeit")
                    )
                if limits[mover].has_clock:
                    overstep = elapsed - clock.remaining
                    worst_overstep = overstep if worst_overstep is None else max(worst_overstep, overstep)
                clock.spend(elapsed)
                if result.resigned:
                    raise _GameOver(_loss(mover), "normal", f"{_name(mover)} resigns")
                if result.move is None:
                    raise _GameOver(
                        _loss(mover), "rules infraction", f"{_name(mover)} makes a false result claim",
                        fault=(mover, "false claim"),
                    )
                irreversible = board.is_zeroing(result.move)
                board.push(result.move)
                if spec.comments:
                    comments.append(_comment(result.info, elapsed))
                ending = _rules_outcome(board, repetitions.count(board, irreversible=irreversible))
                if ending is not None:
                    raise ending
                if on_move is not None:
                    on_move(board, clocks[chess.WHITE].remaining, clocks[chess.BLACK].remaining)
                adjudicator.after_move(board, mover, _centipawns(result.info))
        except _GameOver as over:
            ending = over
        for color, engine in engines.items():
            if healthy[color] and engine.spec.protocol == "xboard":
                # XBoard engines expect to hear how the game ended (they may learn or log it).
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        engine.protocol.send_game_result(board, _winner(ending.result), ending.reason), timeout=0.5
                    )
    finally:
        adjudicator.close()
        for color, engine in engines.items():
            await pool.release(engine, healthy=healthy[color])
        if own_pool:
            await pool.close()
    faults: dict[str, Fault] = {}
    if ending.fault is not None:
        faults[specs[ending.fault[0]].name] = ending.fault[1]
    pgn = _pgn(spec, board, ending, comments=comments, opening_plies=opening_plies)
    return GameRecord(
        result=ending.result,
        termination=ending.termination,
        reason=ending.reason,
        pgn=pgn,
        plies=len(board.move_stack) - opening_plies,
        faults=faults,
        worst_overstep=worst_overstep,
    )


async def _acquire_both(
    pool: EnginePool, specs: Mapping[chess.Color, EngineSpec], engines: dict[chess.Color, Engine]
) -> None:
    """Start (or take from ``pool``) both engines side by side and put them into ``engines``, also
    when the other one fails or the game is cancelled meanwhile (the caller releases them); then
    raise the first failure, White's before Black's."""
    tasks = {color: asyncio.create_task(_acquire(pool, specs[color], color)) for color in (chess.WHITE, chess.BLACK)}
    try:
        await asyncio.wait(tasks.values())
    finally:
        for task in tasks.values():
            task.cancel()  # only a start still under way (we are cancelled): it kills its engine
        await asyncio.wait(tasks.values())
        for color, task in tasks.items():
            if not task.cancelled() and task.exception() is None:
                engines[color] = task.result()
    for task in tasks.values():
        failure = task.exception()
        if failure is not None:
            raise failure


async def _acquire(pool: EnginePool, spec: EngineSpec, color: chess.Color) -> Engine:
    try:
        return await pool.acquire(spec)
    except TimeoutError:
        raise _GameOver(
            _loss(color), "abandoned",
            f"{_name(color)}'s engine did not finish its handshake in {spec.handshake_timeout:g} s",
            fault=(color, "handshake"),
        ) from None
    except (chess.engine.EngineError, OSError) as exc:
        raise _GameOver(
            _loss(color), "abandoned", f"{_name(color)}'s engine failed to start ({_first_line(exc)})",
            fault=(color, "crash"),
        ) from None


def _winner(result: str) -> chess.Color | None:
    return chess.WHITE if result == "1-0" else chess.BLACK if result == "0-1" else None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:120] if text else type(exc).__name__


def _pgn(spec: GameSpec, board: chess.Board, ending: _GameOver, *, comments: list[str], opening_plies: int) -> str:
    game = chess.pgn.Game.from_board(board)
    now = dt.datetime.now()
    headers = game.headers
    headers["Event"] = spec.tags.get("Event", "?")
    headers["Site"] = spec.tags.get("Site") or socket.gethostname()
    headers["Date"] = now.strftime("%Y.%m.%d")
    headers["Round"] = spec.tags.get("Round", "?")
    headers["White"] = spec.white.name
    headers["Black"] = spec.black.name
    headers["Result"] = ending.result
    for key, value in spec.tags.items():
        if key not in headers or headers[key] in ("?", ""):
            headers[key] = value
    headers["TimeControl"] = spec.white_limits.pgn_tag()
    if spec.black_limits != spec.white_limits:
        headers["WhiteTimeControl"] = spec.white_limits.pgn_tag()
        headers["BlackTimeControl"] = spec.black_limits.pgn_tag()
    headers["Termination"] = ending.termination
    headers["PlyCount"] = str(len(board.move_stack))
    for key in list(headers):  # names are checked when the tourney file is read; this holds whatever comes
        headers[key] = tag_value(headers[key])
    node: chess.pgn.GameNode = game
    for ply in range(len(board.move_stack)):
        node = node.variations[0]
        if ply < opening_plies:
            node.comment = "book" if ply == opening_plies - 1 else ""
        elif spec.comments and ply - opening_plies < len(comments):
            node.comment = comments[ply - opening_plies]
    node.comment = (node.comment + " " if node.comment else "") + ending.reason
    if node is game:
        game.comment = ending.reason
    return str(game) + "\n\n"
