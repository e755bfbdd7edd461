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
import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn
import chess.syzygy

from tmanager.core.timecontrol import Clock, TimeControl
from tmanager.errors import ConfigError, first_line
from tmanager.formats.pgn import COMMENT_FIELDS, Notation
from tmanager.tourney.adjudication import Adjudication, Adjudicator
from tmanager.tourney.engine import Engine, EnginePool
from tmanager.tourney.enginelog import ENGINE_NAME, GAME_LOG, EngineLog
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.gamepgn import game_pgn, push_notated
from tmanager.tourney.outcome import Ending, Fault, GameOver, Repetitions, Termination, loss, rules_outcome, side
from tmanager.tourney.pvcheck import PvChecks, PvWarning, check_search, matching_lines
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
    notation: Notation = "san"
    #: Only the seven tags (and GameNumber, Pair, FEN), no comments: fastchess's ``-pgnout min=true``.
    minimal: bool = False
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


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The outcome of one game."""

    result: str
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

    @property
    def termination(self) -> Termination:
        return self.ending.termination

    @property
    def worst_overstep(self) -> float | None:
        """The largest overstep of either engine; ``None`` when no move was played against time."""
        return max(self.oversteps.values(), default=None)


class _Ended(Exception):
    """Raised inside the move loop to end the game."""

    def __init__(self, over: GameOver) -> None:
        super().__init__(over.reason)
        self.over = over


# --- the game ------------------------------------------------------------------------------------


def _info_wanted(spec: GameSpec) -> chess.engine.Info:
    """What the engines' search reports are read for: the comments show what they are asked to show,
    adjudication needs the score alone (and a UCI engine's last score is read without the rest)."""
    if spec.comments and not spec.minimal:
        pv = chess.engine.INFO_PV if "pv" in spec.comment_fields else chess.engine.INFO_NONE
        return chess.engine.INFO_BASIC | chess.engine.INFO_SCORE | pv
    basic = chess.engine.INFO_BASIC if spec.log_latency else chess.engine.INFO_NONE  # the time the engine reports
    if spec.adjudication.resign_score is not None or spec.adjudication.draw_score is not None:
        return chess.engine.INFO_SCORE | basic
    return basic


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


def _comment(
    info: chess.engine.InfoDict, seconds: float, fields: tuple[str, ...], *, time_left: float | None,
    quoted: Sequence[str] = (),
) -> str:
    """A move's comment as fastchess writes it: ``+0.25/12 0.105s``, then the chosen ``fields`` the
    engine reported (``n=…``, ``pv="…"``), in :data:`COMMENT_FIELDS`' order, then the ``quoted`` lines of
    the engine (``line="info string …"``)."""
    head = _score_text(info["score"].relative) if "score" in info else ""
    if "depth" in info:
        head += f"/{info['depth']}"
    values: dict[str, object] = {
        "timeleft": None if time_left is None else f"{time_left:.3f}s",
        "latency": f"{seconds - info['time']:.3f}s" if "time" in info else None,
        "nodes": info.get("nodes"),
        "seldepth": info.get("seldepth"),
        "nps": info.get("nps"),
        "hashfull": info.get("hashfull"),
        "tbhits": info.get("tbhits"),
        "pv": f'"{" ".join(move.uci() for move in info["pv"])}"' if "pv" in info else None,
    }
    shown = {"timeleft": "tl", "nodes": "n", "seldepth": "sd"}
    parts = [f"{head} {seconds:.3f}s".lstrip()]
    parts += [f"{shown.get(f, f)}={values[f]}" for f in COMMENT_FIELDS if f in fields and values[f] is not None]
    parts += [f'line="{line}"' for line in quoted]
    return ", ".join(parts)


def _score_text(score: chess.engine.Score) -> str:
    """``+0.25``, ``0.00``, ``-1.50``; a mate as ``+M5``/``-M4``, counted in plies, as fastchess writes scores."""
    mate = score.mate()
    if mate is not None:
        return f"+M{2 * mate - 1}" if mate > 0 else f"-M{-2 * mate}"
    cp = score.score()
    return "0.00" if not cp else f"{cp / 100:+.2f}"


def start_board(variant: str, start_fen: str | None) -> chess.Board:
    """The position a game of ``variant`` starts from (``start_fen``, else the usual one), before the opening."""
    board_class, chess960 = variant_board(variant)
    if start_fen:
        return board_class(start_fen, chess960=chess960)
    return board_class(chess960=chess960)


#: Openings of up to this many plies are replayed on the event loop (about 0.3 ms); a longer one on a thread.
REPLAYED_ON_LOOP = 64


def _after_opening(spec: GameSpec) -> chess.Board:
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
    board = _after_opening(spec)
    return board, Repetitions(board)


#: Called after every move with the board and both clocks' remaining seconds (white, black);
#: must be quick (it runs between the engines' moves).
MoveObserver = Callable[[chess.Board, float, float], None]


async def play_game(
    spec: GameSpec, pool: EnginePool | None = None, *, on_move: MoveObserver | None = None
) -> GameRecord:
    """Play one game. Engine faults become results; a configuration error (an engine that refuses
    its options or the variant) raises :class:`ConfigError` before any move, and is never a game."""
    begun = _now()
    if len(spec.opening_moves) > REPLAYED_ON_LOOP:
        # A long opening takes milliseconds to replay (2.5 ms for 512 plies, up to three times that on a
        # loaded machine), which every game playing on this event loop would otherwise wait through.
        board, repetitions = await asyncio.to_thread(_start, spec)
    else:
        board, repetitions = _start(spec)
    own_pool = pool is None
    pool = pool or EnginePool()
    opening_plies = len(board.move_stack)
    limits = {chess.WHITE: spec.white_limits, chess.BLACK: spec.black_limits}
    clocks = {color: limits[color].new_clock() for color in (chess.WHITE, chess.BLACK)}
    specs = {chess.WHITE: spec.white, chess.BLACK: spec.black}
    engines: dict[chess.Color, Engine] = {}
    healthy = {chess.WHITE: True, chess.BLACK: True}
    comments: list[str] = []
    movetext: list[str] = []  # the engines' moves as the PGN writes them
    keep_lines = spec.pv_checks is not PvChecks.OFF or bool(spec.match_lines)
    pv_warnings: list[PvWarning] = []
    margins = {chess.WHITE: spec.white_time_margin, chess.BLACK: spec.black_time_margin}
    oversteps: dict[chess.Color, float] = {}
    adjudicator = Adjudicator(spec.adjudication)
    game_name = f"{spec.tags.get('GameNumber', '?')}: {spec.white.name} - {spec.black.name}"
    log = EngineLog.open(spec.engine_log, game=game_name) if spec.engine_log else None
    log_context = GAME_LOG.set(log)
    game_id = object()
    try:
        try:
            await _acquire_both(pool, specs, engines)
            for color, engine in engines.items():
                if log is not None:  # an engine kept from an earlier game said nothing while acquired
                    log.names[id(engine.protocol)] = specs[color].name
                _check_variant(engine, board)
            if spec.white_limits.is_timed or spec.black_limits.is_timed:
                # Only a clock is hurt by the engines starting elsewhere; a game of nodes or depth alone
                # plays the same moves however loaded the cores are, and starts at once.
                await pool.quiet()
            await _ready_both(engines, healthy, game_id)
            over = rules_outcome(board, repetitions.now(board)) or adjudicator.verdict(board)
            if over is not None:
                raise _Ended(over)
            info_flags = _info_wanted(spec)
            while True:
                mover = board.turn
                engine, clock = engines[mover], clocks[mover]
                limit = _limit(limits[mover], clocks, mover)
                margin = margins[mover]
                deadline = clock.deadline(margin)
                allowed = None if deadline is None else deadline - margin  # the time it has
                started = time.monotonic()
                try:
                    # A timeout scope, not wait_for: no task per move, and a cancellation is never lost.
                    async with asyncio.timeout(deadline if deadline is not None else spec.move_timeout):
                        result = await engine.play(board, limit, game=game_id, info=info_flags, keep_lines=keep_lines)
                except TimeoutError:
                    healthy[mover] = False
                    if allowed is not None:
                        elapsed = time.monotonic() - started
                        _note(oversteps, mover, elapsed - allowed)
                        # An engine that was merely late is kept, as fastchess keeps it: restarting it would
                        # add its start-up to a machine that is already short of time.
                        healthy[mover] = await engine.responsive(within=engine.spec.ping_within)
                        raise _time_loss(mover, elapsed, allowed=allowed, margin=margin, moved=False) from None
                    raise _Ended(loss(
                        mover, Ending.STALL, f"{side(mover)}'s engine stalls: no move in {spec.move_timeout:g} s",
                        fault=Fault.STALL,
                    )) from None
                except chess.engine.EngineTerminatedError:
                    healthy[mover] = False
                    raise _Ended(
                        loss(mover, Ending.CRASH, f"{side(mover)}'s engine crashed", fault=Fault.CRASH)
                    ) from None
                except chess.engine.EngineError as exc:
                    healthy[mover] = False
                    raise _Ended(loss(
                        mover, Ending.ILLEGAL_MOVE,
                        f"{side(mover)} makes an illegal or unreadable move ({first_line(exc)})",
                        fault=Fault.ILLEGAL_MOVE,
                    )) from None
                elapsed = engine.answered_at(started) - started
                if allowed is not None:
                    _note(oversteps, mover, elapsed - allowed)
                    if elapsed > allowed + margin:
                        raise _time_loss(mover, elapsed, allowed=allowed, margin=margin, moved=True)
                clock.spend(elapsed)
                if spec.log_latency and "time" in result.info:
                    _log_latency(specs[mover].name, elapsed, result.info["time"])
                quoted: list[str] = []
                if keep_lines:
                    lines = engine.search_lines()
                    pv_warnings += _pv_warnings(spec, board, lines, result.move, specs[mover].name)
                    quoted = matching_lines(lines, spec.match_lines)
                if result.resigned:
                    raise _Ended(loss(mover, Ending.RESIGNATION, f"{side(mover)} resigns"))
                if result.move is None:
                    raise _Ended(loss(
                        mover, Ending.FALSE_CLAIM, f"{side(mover)} makes a false result claim", fault=Fault.FALSE_CLAIM
                    ))
                if not result.move:  # python-chess reads "0000" as a null move, which is never legal in a game
                    raise _Ended(loss(
                        mover, Ending.ILLEGAL_MOVE, f"{side(mover)} makes an illegal move (a null move)",
                        fault=Fault.ILLEGAL_MOVE,
                    ))
                irreversible = board.is_zeroing(result.move)
                movetext.append(push_notated(board, result.move, spec.notation))
                if spec.comments and not spec.minimal:
                    left = clock.remaining if limits[mover].has_clock else None
                    comments.append(
                        _comment(result.info, elapsed, spec.comment_fields, time_left=left, quoted=quoted)
                    )
                over = rules_outcome(board, repetitions.count(board, irreversible=irreversible))
                if over is not None:
                    raise _Ended(over)
                if on_move is not None:
                    on_move(board, clocks[chess.WHITE].remaining, clocks[chess.BLACK].remaining)
                adjudicator.count(board, mover, _centipawns(result.info))
                over = adjudicator.verdict(board)
                if over is not None:
                    raise _Ended(over)
        except _Ended as ended:
            ending = ended.over
        for color, engine in engines.items():
            if healthy[color] and engine.spec.protocol == "xboard":
                # XBoard engines expect to hear how the game ended (they may learn or log it).
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        engine.protocol.send_game_result(board, ending.winner, ending.reason), timeout=0.5
                    )
    finally:
        adjudicator.close()
        for color, engine in engines.items():
            # With an engine log, each game's log holds its own ucinewgame: its engines get ready at its start.
            await pool.release(engine, healthy=healthy[color], get_ready=log is None)
        if own_pool:
            await pool.close()
        GAME_LOG.reset(log_context)
        if log is not None:
            log.close()
    faults: dict[str, Fault] = {}
    if ending.fault is not None:
        faults[specs[ending.fault.color].name] = ending.fault.kind
    # Off the event loop: a long opening is replayed to be written (milliseconds), and the other games' clocks run.
    pgn = await asyncio.to_thread(
        game_pgn, spec, board, result=ending.result.pgn, termination=ending.termination, reason=ending.reason,
        movetext=movetext, comments=comments, opening_plies=opening_plies, started=begun, ended=_now(),
    )
    return GameRecord(
        result=ending.result.pgn,
        ending=ending.ending,
        reason=ending.reason,
        pgn=pgn,
        plies=len(board.move_stack) - opening_plies,
        epd=board.epd(hmvc=board.halfmove_clock, fmvn=board.fullmove_number),
        faults=faults,
        oversteps={specs[color].name: seconds for color, seconds in oversteps.items()},
        pv_warnings=tuple(pv_warnings),
    )


def _log_latency(engine: str, elapsed: float, reported: float) -> None:
    """fastchess's -show-latency line, in the worker's log: the time measured less the time reported."""
    elapsed_ms, reported_ms = round(elapsed * 1000), round(reported * 1000)
    LOG.info("engine %s latency: %d ms (elapsed: %d, reported: %d)", engine, elapsed_ms - reported_ms, elapsed_ms,
             reported_ms)


def _pv_warnings(
    spec: GameSpec, board: chess.Board, lines: list[str], move: chess.Move | None, engine: str
) -> list[PvWarning]:
    """What :mod:`~tmanager.tourney.pvcheck` finds wrong with one search of ``engine`` in ``board``."""
    if spec.pv_checks is PvChecks.OFF:
        return []
    infos = [line for line in lines if line.startswith("info")]
    findings = check_search(board, infos, move.uci() if move else "", mates=spec.pv_checks is PvChecks.MATES)
    if not findings:
        return []
    root = board.root()
    start = "startpos" if spec.start_fen is None else f"fen {root.fen(shredder=root.chess960)}"
    moves = tuple(m.uci() for m in board.move_stack)
    return [PvWarning(finding, engine, start, moves) for finding in findings]


def _note(oversteps: dict[chess.Color, float], mover: chess.Color, overstep: float) -> None:
    oversteps[mover] = max(overstep, oversteps.get(mover, overstep))


def _time_loss(mover: chess.Color, elapsed: float, *, allowed: float, margin: float, moved: bool) -> _Ended:
    """``mover`` loses on time, with the figures: how long it thought, the time it had, the margin."""
    what = "moved" if moved else "no move"
    return _Ended(loss(
        mover, Ending.TIME_FORFEIT,
        f"{side(mover)} loses on time ({_ms(elapsed - allowed)} overrun: {what} after {_ms(elapsed)} "
        f"with {_ms(allowed)} left, margin {_ms(margin)})",
        fault=Fault.TIME_FORFEIT,
    ))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _check_variant(engine: Engine, board: chess.Board) -> None:
    """Raise :class:`ConfigError` if ``engine`` cannot play ``board``'s variant: python-chess would
    only find out when asked for a move, and a configuration error must never be scored as a game."""
    protocol, name = engine.protocol, engine.spec.name
    hint = "choose another engine or variant"
    if isinstance(protocol, chess.engine.UciProtocol):
        wanted, option = type(board).uci_variant or "chess", protocol.options.get("UCI_Variant")
        if wanted != "chess" and (option is None or (option.type == "combo" and wanted not in (option.var or []))):
            offered = ", ".join(option.var or []) if option is not None else "none: it has no UCI_Variant option"
            raise ConfigError(f"engine {name!r} does not play variant {wanted} (it offers {offered})", hint=hint)
        if board.chess960 and "UCI_Chess960" not in protocol.options:
            raise ConfigError(f"engine {name!r} does not play Chess960 (it has no UCI_Chess960 option)", hint=hint)
    elif isinstance(protocol, chess.engine.XBoardProtocol):
        wanted = "fischerandom" if board.chess960 else type(board).xboard_variant or "normal"
        variants = [v for v in str(protocol.features.get("variants", "")).split(",") if v]
        if wanted != "normal" and wanted not in variants:
            shown = ", ".join(variants) or "none"
            raise ConfigError(f"engine {name!r} does not play variant {wanted} (it offers {shown})", hint=hint)


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


async def _ready_both(
    engines: Mapping[chess.Color, Engine], healthy: dict[chess.Color, bool], game: object
) -> None:
    """:func:`_ready` for both engines side by side: each may clear its hash (Stockfish's 16 MB take
    a millisecond), which one after the other would keep both waiting twice. An engine that fails is
    marked in ``healthy``; the first failure, White's before Black's, is raised."""
    colors = (chess.WHITE, chess.BLACK)
    outcomes = await asyncio.gather(*(_ready(engines[color], color, game) for color in colors), return_exceptions=True)
    for color, outcome in zip(colors, outcomes, strict=True):
        if isinstance(outcome, _Ended):
            healthy[color] = False
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome


async def _ready(engine: Engine, color: chess.Color, game: object) -> None:
    """Have the engine ready for ``game`` (:meth:`Engine.ready`) before its clock runs, within its
    ``ready_timeout``: getting ready for a game is start-up, not thinking."""
    try:
        async with asyncio.timeout(engine.spec.ready_within):
            await engine.ready(game)
    except TimeoutError:
        raise _not_started(color, f"did not answer isready in {engine.spec.ready_within:g} s",
                           Fault.HANDSHAKE) from None
    except chess.engine.EngineTerminatedError:
        raise _not_started(color, "crashed", Fault.CRASH) from None


async def _acquire(pool: EnginePool, spec: EngineSpec, color: chess.Color) -> Engine:
    ENGINE_NAME.set(spec.name)  # this task's own context: names the engine's lines in an engine log
    try:
        return await pool.acquire(spec)
    except TimeoutError:
        raise _not_started(color, f"did not finish its handshake in {spec.handshake_timeout:g} s",
                           Fault.HANDSHAKE) from None
    except (chess.engine.EngineError, OSError) as exc:
        raise _not_started(color, f"failed to start ({first_line(exc)})", Fault.CRASH) from None


def _not_started(color: chess.Color, what: str, fault: Fault) -> _Ended:
    """``color`` loses before its first move: its engine ``what`` (failed to start or get ready)."""
    return _Ended(loss(color, Ending.NOT_STARTED, f"{side(color)}'s engine {what}", fault=fault))


def _now() -> dt.datetime:
    """The local time, with its zone (the PGN's ``GameStartTime`` and ``GameEndTime``)."""
    return dt.datetime.now().astimezone()
