"""A protocol compliance check of one engine, UCI or XBoard: what `tmanager check` runs.

:func:`check` starts the engine as a game does (its own process group, the
handshake within ``handshake_timeout``) and takes it through what a tourney
relies on: the handshake, its options (listed with valid defaults, each one
settable), ``isready``/``ping``, short searches from positions that need
castling and en passant right, ``stop`` during an infinite search (XBoard:
``?`` during a long search), and ``quit``. Each step gives a :class:`Step`:
passed, or failed with what is wrong, plus notes worth knowing that break
nothing. Once the engine has died or stopped answering, the remaining steps
are not run.

It knows nothing of tourney files: it takes an :class:`EngineSpec`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import chess
import chess.engine

from tmanager.errors import ConfigError, first_line
from tmanager.tourney.engine import Engine
from tmanager.tourney.engines import EngineSpec

#: What a search may take beyond its time limit before it counts as too slow.
SEARCH_MARGIN = 0.5
#: How long an infinite (XBoard: long) search runs before ``stop`` (``?``).
INFINITE_SECONDS = 0.3
#: An XBoard move that comes later than this after ``?`` was the engine's own decision.
MOVE_NOW_SECONDS = 0.5
#: Option types python-chess knows; an XBoard declaration read as another type had a space in its name.
_OPTION_TYPES = ("check", "spin", "combo", "button", "reset", "save", "string", "file", "path")



def _clock() -> chess.engine.Limit:
    return chess.engine.Limit(white_clock=1.0, black_clock=1.0, white_inc=0.1, black_inc=0.1)


#: After 1. e4 Nf6 2. e5 d5: the en passant capture exd6 is legal, and every castling right is there.
EN_PASSANT_FEN = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
#: From the start: an en passant capture (e5xd6) and both sides castling short, sent as moves.
CASTLING_MOVES = ("e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7d6", "g1f3", "f8e7", "f1c4", "e8g8", "e1g1")
BLACK_TO_MOVE_FEN = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


@dataclass(frozen=True, slots=True)
class Search:
    """One search of the check: where from, with which limit, and how it is described."""

    what: str
    fen: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()
    limit: chess.engine.Limit = field(default_factory=_clock)
    uci_only: bool = False

    def board(self) -> chess.Board:
        board = chess.Board(self.fen)
        for move in self.moves:
            board.push_uci(move)
        return board

    def seconds(self, timeout: float) -> float:
        """How long the engine may take: the time limit plus :data:`SEARCH_MARGIN`, else ``timeout``."""
        limit = self.limit
        if limit.time is not None:
            return limit.time + SEARCH_MARGIN
        if limit.white_clock is not None:
            return limit.white_clock + SEARCH_MARGIN
        return timeout


SEARCHES = (
    Search("from the start position, 1 s + 0.1 s on the clock"),
    Search("Black to move, from a FEN, 0.2 s a move", fen=BLACK_TO_MOVE_FEN, limit=chess.engine.Limit(time=0.2),
           uci_only=True),
    Search("Black to move, from a FEN, 1 s + 0.1 s on the clock", fen=BLACK_TO_MOVE_FEN),
    Search("after an en passant capture and both sides castling, sent as moves", moves=CASTLING_MOVES),
    Search("en passant capture possible, all castling rights, from a FEN", fen=EN_PASSANT_FEN),
    Search("to depth 4", fen=EN_PASSANT_FEN, limit=chess.engine.Limit(depth=4), uci_only=True),
    Search("1,000 nodes", limit=chess.engine.Limit(nodes=1000), uci_only=True),
)


@dataclass(frozen=True, slots=True)
class Step:
    """The outcome of one step of the check."""

    name: str
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: False when the step could not run (the engine had died or stopped answering before it).
    ran: bool = True

    @property
    def passed(self) -> bool:
        return self.ran and not self.problems


class _EngineGone(Exception):
    """The engine died or stopped answering: the remaining steps cannot run."""


class _Check:
    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.timeout = spec.handshake_timeout
        self.engine: Engine | None = None

    @property
    def protocol(self) -> chess.engine.Protocol:
        assert self.engine is not None
        return self.engine.protocol

    def steps(self) -> list[tuple[str, Callable[[], Awaitable[Step]]]]:
        searches = [s for s in SEARCHES if self.spec.protocol == "uci" or not s.uci_only]
        return [
            ("start and handshake", self.handshake),
            ("options listed", self.options_listed),
            ("options settable", self.options_settable),
            ("isready" if self.spec.protocol == "uci" else "ping", self.ready),
            *((f"search {search.what}", _bind(self.search, search)) for search in searches),
            ("stop during an infinite search" if self.spec.protocol == "uci" else "? during a long search", self.stop),
            ("quit", self.quit),
        ]

    async def answer(self, awaitable: Awaitable[object], seconds: float, what: str) -> float:
        """Wait for ``awaitable``; the seconds it took. The engine is gone if it does not answer."""
        started = time.monotonic()
        try:
            await asyncio.wait_for(awaitable, seconds)
        except TimeoutError:
            raise _EngineGone(f"no answer to {what} in {seconds:g} s") from None
        except chess.engine.EngineTerminatedError:
            raise _EngineGone(f"the engine exited ({self.exit_status()})") from None
        return time.monotonic() - started

    def exit_status(self) -> str:
        code = self.engine.transport.get_returncode() if self.engine is not None else None
        if code is None:
            return "still running"
        return f"signal {-code}" if code < 0 else f"status {code}"

    async def handshake(self) -> Step:
        spec, started = self.spec, time.monotonic()
        try:
            self.engine = await Engine.start(dataclasses.replace(spec, options={}))
        except TimeoutError:
            raise _EngineGone(f"no {'uciok' if spec.protocol == 'uci' else 'done=1'} in {self.timeout:g} s") from None
        except (chess.engine.EngineError, OSError) as exc:
            raise _EngineGone(f"it failed to start: {first_line(exc)}") from None
        took = f"in {_ms(time.monotonic() - started)}"
        protocol = self.protocol
        if isinstance(protocol, chess.engine.UciProtocol):
            name, author = protocol.id.get("name"), protocol.id.get("author")
            problems = tuple(f"no 'id {what}'" for what, value in (("name", name), ("author", author)) if not value)
            return Step("", problems, (f"uciok {took}", f"{name or '?'} by {author or '?'}"))
        features = getattr(protocol, "features", {})
        notes = [f"feature done=1 {took}" if features.get("done") else f"no 'feature done=1': went on after {took}"]
        notes += [f"name {features['myname']}"] if features.get("myname") else []
        notes += [
            f"declares no {feature} (python-chess alone refuses it; tmanager copes)"
            for feature in ("setboard", "ping")
            if not features.get(feature)
        ]
        return Step("", (), tuple(notes))

    async def options_listed(self) -> Step:
        options = self.declared_options()
        problems, unreadable = [], []
        for option in options.values():
            if option.type not in _OPTION_TYPES:
                unreadable.append(option.name)
                continue
            if option.type in ("button", "reset", "save"):
                continue
            if option.default is None and option.type in ("check", "spin", "combo"):
                problems.append(f"option {option.name!r} ({option.type}) has no default")
                continue
            try:
                option.parse(option.default)
            except chess.engine.EngineError as exc:
                problems.append(f"option {option.name!r}: its default is not valid: {exc}")
        notes = [f"{len(options)} option{'s' * (len(options) != 1)}: {', '.join(options) or 'none'}"]
        if unreadable:  # python-chess 1.11 reads an XBoard option's name up to its first space
            notes.append(f"python-chess cannot read the declarations of {', '.join(unreadable)} "
                         "(names with spaces): they cannot be set")
        return Step("", tuple(problems), tuple(notes))

    async def options_settable(self) -> Step:
        settable = {
            name: option.default
            for name, option in self.declared_options().items()
            if option.type in _OPTION_TYPES and option.type not in ("button", "reset", "save")
            and option.default is not None
        }
        await self.answer(self.protocol.configure(settable), self.timeout, "setoption")
        await self.answer(self.protocol.ping(), self.timeout, "isready after setting the options")
        notes = [f"{len(settable)} set to their defaults, then {self.ready_word()} answered"]
        problems = []
        if self.spec.options:
            try:
                await self.answer(self.protocol.configure(dict(self.spec.options)), self.timeout, "setoption")
            except chess.engine.EngineError as exc:
                problems.append(f"the options given refused: {first_line(exc)}")
            else:
                notes.append(f"the options given accepted: {', '.join(self.spec.options)}")
        return Step("", tuple(problems), tuple(notes))

    async def ready(self) -> Step:
        if isinstance(self.protocol, chess.engine.XBoardProtocol) and not self.protocol.features.get("ping"):
            return Step("", (), ("no ping feature: not checked",))
        took = await self.answer(self.protocol.ping(), self.timeout, self.ready_word().split()[0])
        return Step("", (), (f"{self.ready_word()} in {_ms(took)}",))

    async def search(self, search: Search) -> Step:
        board = search.board()
        seconds = search.seconds(self.timeout)
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(
                self.protocol.play(board, search.limit, game=object(), info=chess.engine.INFO_ALL), seconds
            )
        except TimeoutError:
            raise _EngineGone(f"no move in {seconds:g} s") from None
        except chess.engine.EngineTerminatedError:
            raise _EngineGone(f"the engine exited ({self.exit_status()})") from None
        except chess.engine.EngineError as exc:
            return Step("", (f"an illegal or unreadable move: {first_line(exc)}",))
        took = _ms(time.monotonic() - started)
        move = result.move
        if move is None:
            return Step("", (f"no move ({'a result claim' if self.spec.protocol == 'xboard' else '(none)'})",))
        if not move or move not in board.legal_moves:
            return Step("", (f"an illegal move: {move.uci()}",))
        info = result.info
        report = f"{board.san(move)}"
        if "score" in info:
            report += f", score {info['score'].relative}"
        if "depth" in info:
            report += f", depth {info['depth']}"
        notes = [f"{report}, in {took}"]
        if "score" not in info:
            notes.append("no score with it: resign and draw adjudication cannot use this engine")
        return Step("", (), tuple(notes))

    async def stop(self) -> Step:
        if isinstance(self.protocol, chess.engine.XBoardProtocol):
            return await self.move_now()
        board = chess.Board()
        analysis = await self.protocol.analysis(board)
        problems = []
        if await self.finishes(analysis.wait(), INFINITE_SECONDS):
            problems.append("it ended the infinite search by itself, before stop")
        analysis.stop()
        took = await self.answer(analysis.wait(), self.timeout, "stop")
        best = await analysis.wait()
        if best.move is None or not best.move or best.move not in board.legal_moves:
            problems.append(f"bestmove after stop is not a legal move: {best.move}")
        return Step("", tuple(problems), (f"bestmove {best.move} {_ms(took)} after stop",))

    async def move_now(self) -> Step:
        """XBoard has no infinite search to stop in a game: ``?`` asks for the move now (an engine may
        ignore it, says the protocol; then it moves in its own time, a minute on the clock)."""
        board = chess.Board()
        minute = chess.engine.Limit(white_clock=60, black_clock=60)
        search = asyncio.ensure_future(self.protocol.play(board, minute, game=object()))
        try:
            if await self.finishes(search, INFINITE_SECONDS):
                return Step("", (), (f"moved within {_ms(INFINITE_SECONDS)} with a minute: '?' not checked",))
            self.protocol.send_line("?")
            # An engine that ignores ? moves in its own time, which its minute bounds.
            took = await self.answer(asyncio.shield(search), 60 + SEARCH_MARGIN, "? (nor a move in its minute)")
        except chess.engine.EngineError as exc:
            return Step("", (), (f"it does not know ? ({first_line(exc)}): tmanager never sends it",))
        finally:
            search.cancel()
        move = search.result().move
        if move is None or not move or move not in board.legal_moves:
            return Step("", (f"its move after ? is not legal: {move}",))
        heeded = "" if took < MOVE_NOW_SECONDS else " (it seems to ignore ?, which the protocol allows)"
        return Step("", (), (f"move {move.uci()} {_ms(took)} after ?{heeded}",))

    async def finishes(self, awaitable: Awaitable[object], seconds: float) -> bool:
        """Whether ``awaitable`` ends within ``seconds`` (it goes on otherwise)."""
        try:
            await asyncio.wait_for(asyncio.shield(awaitable), seconds)
        except TimeoutError:
            return False
        except chess.engine.EngineTerminatedError:
            raise _EngineGone(f"the engine exited ({self.exit_status()})") from None
        return True

    async def quit(self) -> Step:
        assert self.engine is not None
        started = time.monotonic()
        self.protocol.send_line("quit")
        try:
            await asyncio.wait_for(asyncio.shield(self.protocol.returncode), self.timeout)
        except TimeoutError:
            return Step("", (f"still running {self.timeout:g} s after quit (killed)",))
        return Step("", (), (f"exited with {self.exit_status()} in {_ms(time.monotonic() - started)}",))

    def declared_options(self) -> dict[str, chess.engine.Option]:
        """The engine's own options (python-chess adds pseudo-options for XBoard's own commands)."""
        options = self.protocol.options
        if isinstance(self.protocol, chess.engine.XBoardProtocol):
            return {k: o for k, o in options.items() if k not in _XBOARD_COMMANDS}
        return {k: o for k, o in options.items() if not o.is_managed()}

    def ready_word(self) -> str:
        return "readyok" if self.spec.protocol == "uci" else "pong"


#: Options python-chess's XBoard protocol lists for commands of the protocol itself, not the engine's.
_XBOARD_COMMANDS = ("random", "computer", "name", "engine_rating", "opponent_rating", "memory", "cores", "egtpath")


def _bind(method: Callable[[Search], Awaitable[Step]], search: Search) -> Callable[[], Awaitable[Step]]:
    return lambda: method(search)


async def check(spec: EngineSpec, *, report: Callable[[Step], None] | None = None) -> list[Step]:
    """Check ``spec``'s engine step by step (``report`` sees each step as it ends); the engine's
    process group is killed at the end whatever happened. ``handshake_timeout`` bounds each answer.
    What python-chess could not read from the engine (its errors) is noted with the step."""
    checker = _Check(spec)
    steps: list[Step] = []
    gone = ""
    unread = _Errors()
    logging.getLogger("chess").addHandler(unread)
    try:
        for name, run in checker.steps():
            if gone:
                step = Step(name, ran=False)
            else:
                try:
                    step = dataclasses.replace(await run(), name=name)
                except _EngineGone as exc:
                    gone = str(exc)
                    step = Step(name, (gone,))
                except ConfigError as exc:
                    step = Step(name, (exc.message,))
                except chess.engine.EngineError as exc:
                    step = Step(name, (first_line(exc),))
            step = dataclasses.replace(step, notes=step.notes + tuple(f"python-chess: {m}" for m in unread.take()))
            steps.append(step)
            if report is not None:
                report(step)
    finally:
        logging.getLogger("chess").removeHandler(unread)
        if checker.engine is not None:
            await checker.engine.kill()
    return steps


class _Errors(logging.Handler):
    """Collects python-chess's errors: lines of the engine it could not read (an illegal PV…)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage().splitlines()[0])

    def take(self) -> list[str]:
        taken, self.messages = self.messages, []
        return taken


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"
