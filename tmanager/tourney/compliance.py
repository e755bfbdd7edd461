"""A protocol compliance check of one engine, UCI or XBoard: what `tmanager check` runs.

:func:`check` starts the engine as a game does (its own process group, the
handshake within ``handshake_timeout``) and takes it through what a tourney
relies on: the handshake, its options (listed with valid defaults, each one
settable), readiness (``isready``, ``ping``), short searches from positions that
need castling and en passant right, a search cut short (UCI: ``stop`` during an
infinite search; XBoard: ``?`` during a long one), and ``quit``. Each step gives
a :class:`Step`: passed, or failed with what is wrong, plus notes worth knowing
that break nothing. Once the engine has died or stopped answering, the remaining
steps are not run. What differs between the protocols, the engine's client
(:class:`~tmanager.tourney.engineclient.EngineClient`) says.

It knows nothing of tourney files: it takes an :class:`EngineSpec`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import chess

from tmanager.errors import ConfigError, first_line
from tmanager.tourney.engine import Engine, client_class
from tmanager.tourney.engineclient import EngineClient, milliseconds
from tmanager.tourney.enginelines import EngineError, EngineTerminated
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.search import Reply, SearchLimit, Wanted

#: What a search may take beyond its time limit before it counts as too slow.
SEARCH_MARGIN = 0.5
#: How long an infinite (XBoard: long) search runs before it is cut short.
INFINITE_SECONDS = 0.3

#: After 1. e4 Nf6 2. e5 d5: the en passant capture exd6 is legal, and every castling right is there.
EN_PASSANT_FEN = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
#: From the start: an en passant capture (e5xd6) and both sides castling short, sent as moves.
CASTLING_MOVES = ("e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "e7d6", "g1f3", "f8e7", "f1c4", "e8g8", "e1g1")
BLACK_TO_MOVE_FEN = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
#: 1 s + 0.1 s on both clocks.
CLOCKS = SearchLimit(white_clock=1.0, black_clock=1.0, white_inc=0.1, black_inc=0.1)


@dataclass(frozen=True, slots=True)
class Search:
    """One search of the check: where from, with which limit, and how it is described."""

    what: str
    fen: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()
    limit: SearchLimit = CLOCKS
    #: A fixed time, depth or node count, which only engines that search such limits as asked are given.
    fixed: bool = False

    def board(self) -> chess.Board:
        board = chess.Board(self.fen)
        for move in self.moves:
            board.push_uci(move)
        return board

    def seconds(self, timeout: float) -> float:
        """How long the engine may take: the time limit plus :data:`SEARCH_MARGIN`, else ``timeout``."""
        limit = self.limit
        if limit.move_time is not None:
            return limit.move_time + SEARCH_MARGIN
        if limit.white_clock is not None:
            return limit.white_clock + SEARCH_MARGIN
        return timeout


SEARCHES = (
    Search("from the start position, 1 s + 0.1 s on the clock"),
    Search("Black to move, from a FEN, 0.2 s a move", fen=BLACK_TO_MOVE_FEN, limit=SearchLimit(move_time=0.2),
           fixed=True),
    Search("Black to move, from a FEN, 1 s + 0.1 s on the clock", fen=BLACK_TO_MOVE_FEN),
    Search("after an en passant capture and both sides castling, sent as moves", moves=CASTLING_MOVES),
    Search("en passant capture possible, all castling rights, from a FEN", fen=EN_PASSANT_FEN),
    Search("to depth 4", fen=EN_PASSANT_FEN, limit=SearchLimit(depth=4), fixed=True),
    Search("1,000 nodes", limit=SearchLimit(nodes=1000), fixed=True),
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
        self.client_class = client_class(spec)

    @property
    def client(self) -> EngineClient:
        assert self.engine is not None
        return self.engine.client

    def steps(self) -> list[tuple[str, Callable[[], Awaitable[Step]]]]:
        client = self.client_class
        searches = [s for s in SEARCHES if client.fixed_limits or not s.fixed]
        return [
            ("start and handshake", self.handshake),
            ("options listed", self.options_listed),
            ("options settable", self.options_settable),
            (client.ready_command, self.ready),
            *((f"search {search.what}", _bind(self.search, search)) for search in searches),
            (client.interruption, self.interrupt),
            ("quit", self.quit),
        ]

    async def answer(self, awaitable: Awaitable[object], seconds: float, what: str) -> float:
        """Wait for ``awaitable``; the seconds it took. The engine is gone if it does not answer."""
        started = time.monotonic()
        try:
            await asyncio.wait_for(awaitable, seconds)
        except TimeoutError:
            raise _EngineGone(f"no answer to {what} in {seconds:g} s") from None
        except EngineTerminated:
            raise _EngineGone(f"the engine exited ({self.exit_status()})") from None
        return time.monotonic() - started

    def exit_status(self) -> str:
        code = self.engine.transport.get_returncode() if self.engine is not None else None
        if code is None:
            return "still running"
        return f"signal {-code}" if code < 0 else f"status {code}"

    async def handshake(self) -> Step:
        started = time.monotonic()
        try:
            self.engine = await Engine.start(dataclasses.replace(self.spec, options={}))
        except TimeoutError:
            raise _EngineGone(f"no {self.client_class.done_word} in {self.timeout:g} s") from None
        except (EngineError, OSError) as exc:
            raise _EngineGone(f"it failed to start: {first_line(exc)}") from None
        problems, notes = self.client.handshake_notes(took=milliseconds(time.monotonic() - started))
        return Step("", tuple(problems), tuple(notes))

    async def options_listed(self) -> Step:
        options = self.client.own_options()
        problems = []
        for option in options.values():
            if not option.kind.takes_value:
                continue
            if option.default is None and option.kind in ("check", "spin", "combo"):
                problems.append(f"option {option.name!r} ({option.kind}) has no default")
                continue
            try:
                option.parse(option.default)
            except EngineError as exc:
                problems.append(f"option {option.name!r}: its default is not valid: {exc}")
        notes = [f"{len(options)} option{'s' * (len(options) != 1)}: {', '.join(options) or 'none'}"]
        if self.client.unread_options:
            notes.append(f"declarations not understood (their options cannot be set): "
                         f"{'; '.join(self.client.unread_options)}")
        return Step("", tuple(problems), tuple(notes))

    async def options_settable(self) -> Step:
        client = self.client
        settable = {
            name: option.default for name, option in client.own_options().items()
            if option.kind.takes_value and option.default is not None
        }
        client.configure(settable)
        await self.answer(client.ping(), self.timeout, f"{client.ready_command} after setting the options")
        notes = [f"{len(settable)} set to their defaults, then {client.ready_answer} answered"]
        problems = []
        if self.spec.options:
            try:
                client.configure(self.spec.options)
                await self.answer(client.ping(), self.timeout, client.ready_command)
            except EngineError as exc:
                problems.append(f"the options given refused: {first_line(exc)}")
            else:
                notes.append(f"the options given accepted: {', '.join(self.spec.options)}")
        return Step("", tuple(problems), tuple(notes))

    async def ready(self) -> Step:
        client = self.client
        if not client.can_ping:
            return Step("", (), (f"no {client.ready_command} feature: not checked",))
        took = await self.answer(client.ping(), self.timeout, client.ready_command)
        return Step("", (), (f"{client.ready_answer} in {milliseconds(took)}",))

    async def search(self, search: Search) -> Step:
        board, client = search.board(), self.client
        seconds = search.seconds(self.timeout)
        started = time.monotonic()
        try:
            await asyncio.wait_for(client.new_game(), self.timeout)
            reply = await asyncio.wait_for(client.play(board, search.limit, wanted=Wanted.ALL), seconds)
        except TimeoutError:
            raise _EngineGone(f"no move in {seconds:g} s") from None
        except EngineTerminated:
            raise _EngineGone(f"the engine exited ({self.exit_status()})") from None
        except EngineError as exc:
            return Step("", (f"an illegal or unreadable move: {first_line(exc)}",))
        return _searched(board, reply, client, took=milliseconds(time.monotonic() - started))

    async def interrupt(self) -> Step:
        """A long search cut short: its client knows how (UCI: ``stop`` during ``go infinite``; XBoard: ``?``)."""
        try:
            problems, notes = await self.client.interruption_check(after=INFINITE_SECONDS, within=self.timeout)
        except TimeoutError as exc:
            raise _EngineGone(str(exc)) from None
        except EngineTerminated:
            raise _EngineGone(f"the engine exited ({self.exit_status()})") from None
        return Step("", tuple(problems), tuple(notes))

    async def quit(self) -> Step:
        client = self.client
        started = time.monotonic()
        client.send("quit")
        try:
            await asyncio.wait_for(asyncio.shield(client.returncode), self.timeout)
        except TimeoutError:
            return Step("", (f"still running {self.timeout:g} s after quit (killed)",))
        return Step("", (), (f"exited with {self.exit_status()} in {milliseconds(time.monotonic() - started)}",))


def _searched(board: chess.Board, reply: Reply, client: EngineClient, *, took: str) -> Step:
    """The step of a search that gave ``reply`` after ``took``."""
    move = reply.move
    if move is None:
        return Step("", (f"no move ({client.no_move})",))
    if not move or move not in board.legal_moves:
        return Step("", (f"an illegal move: {move.uci()}",))
    report = reply.report
    said = board.san(move)
    if report.score is not None:
        said += f", score {report.score.text()}"
    if report.depth is not None:
        said += f", depth {report.depth}"
    notes = [f"{said}, in {took}"]
    if report.score is None:
        notes.append("no score with it: resign and draw adjudication cannot use this engine")
    return Step("", (), tuple(notes))


def _bind(method: Callable[[Search], Awaitable[Step]], search: Search) -> Callable[[], Awaitable[Step]]:
    return lambda: method(search)


async def check(spec: EngineSpec, *, report: Callable[[Step], None] | None = None) -> list[Step]:
    """Check ``spec``'s engine step by step (``report`` sees each step as it ends); the engine's
    process group is killed at the end whatever happened. ``handshake_timeout`` bounds each answer."""
    checker = _Check(spec)
    steps: list[Step] = []
    gone = ""
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
                except EngineError as exc:
                    step = Step(name, (first_line(exc),))
            steps.append(step)
            if report is not None:
                report(step)
    finally:
        if checker.engine is not None:
            await checker.engine.kill()
    return steps

