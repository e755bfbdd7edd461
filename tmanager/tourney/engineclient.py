"""What the game runner and the compliance check ask of an engine, whatever protocol it speaks.

:class:`EngineClient` is the one interface of :class:`~tmanager.tourney.uciclient.UciClient`
and :class:`~tmanager.tourney.xboardclient.XBoardClient`: the handshake, options,
new games, moves, readiness, the end of a game, and the words the compliance
check uses. Whatever differs between the protocols is answered by these classes,
never by asking which one an engine speaks (``tests/unit/test_architecture.py``).
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

import chess

from tmanager.tourney.enginelines import EngineLines
from tmanager.tourney.engineoptions import EngineOption, OptionValue
from tmanager.tourney.search import Reply, SearchLimit, Wanted

if TYPE_CHECKING:
    from tmanager.core.timecontrol import TimeControl
    from tmanager.tourney.engines import EngineSpec


class EngineClient(EngineLines, abc.ABC):
    """One engine, spoken to in its protocol (see the module docstring)."""

    #: The end of the handshake, the question of readiness and its answer, as the compliance check names them.
    done_word: ClassVar[str]
    ready_command: ClassVar[str]
    ready_answer: ClassVar[str]
    #: What the engine says instead of a move when it has none (or claims a result).
    no_move: ClassVar[str]
    #: Whether fixed move times, depths and node counts are searched as asked (XBoard's are not reliably).
    fixed_limits: ClassVar[bool]
    #: The compliance check's step that cuts a long search short (:meth:`interruption_check`).
    interruption: ClassVar[str]
    #: Whether the lines of a search are reports whose score fastchess reads (UCI's ``info`` lines; an XBoard
    #: engine's thinking lines are not).
    scored_reports: ClassVar[bool]

    def __init__(self) -> None:
        super().__init__()
        self.name = ""  #: as the engine names itself
        self.author = ""
        #: The options the engine declares, by name, and the declarations that could not be read.
        self.options: dict[str, EngineOption] = {}
        self.unread_options: list[str] = []

    @classmethod
    def for_engine(cls, spec: EngineSpec) -> Self:
        """A client for the engine of ``spec`` (its definition may say more of the protocol than the engine)."""
        return cls()

    @classmethod
    def limit_problem(cls, spec: EngineSpec, limits: TimeControl) -> tuple[str, str] | None:
        """What keeps the engine of ``spec`` from searching with ``limits`` in any game (known before one
        starts), and how to give it limits it can search; or ``None``."""
        return None

    @abc.abstractmethod
    async def handshake(self) -> None:
        """Greet the engine and learn its name and options; the caller bounds the wait."""

    @abc.abstractmethod
    def configure(self, options: Mapping[str, OptionValue]) -> None:
        """Give the engine these option values; :class:`~tmanager.tourney.enginelines.EngineError` for an option
        it does not have, or a value it cannot take."""

    @abc.abstractmethod
    def check_variant(self, board: chess.Board, name: str) -> None:
        """Raise :class:`~tmanager.errors.ConfigError` (naming the participant ``name``) if the engine cannot
        play ``board``'s variant, or be given its start position: a configuration error must never be scored as
        a game."""

    @abc.abstractmethod
    async def new_game(self, *, ponder: bool = False) -> None:
        """Begin a new game: the next :meth:`play` is its first move."""

    @abc.abstractmethod
    async def play(
        self, board: chess.Board, limit: SearchLimit, *, wanted: Wanted = Wanted.NOTHING, keep_lines: bool = False,
        ponder: bool = False,
    ) -> Reply:
        """The engine's move in ``board`` (within a game, the previous call's board with moves pushed since);
        its report read as far as ``wanted``; with ``keep_lines``, the lines of its search."""

    @property
    def can_ping(self) -> bool:
        """Whether :meth:`ping` asks the engine (an XBoard engine without ``ping`` cannot be asked)."""
        return True

    @abc.abstractmethod
    async def ping(self) -> None:
        """Ask whether the engine listens, and wait for its answer (the caller bounds the wait)."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Ask the engine to end the search under way now (UCI's ``stop``, XBoard's ``?``)."""

    @property
    def behind(self) -> bool:
        """Whether the engine has yet to answer what it was asked after its last move (XBoard's ``ping``; never
        for UCI, whose engine is asked nothing then): :meth:`settle` waits for it."""
        return False

    @abc.abstractmethod
    async def settle(self) -> None:
        """Wait until a search the caller gave up on (or a ponder search) has ended."""

    @abc.abstractmethod
    async def game_over(self, board: chess.Board, result: str, reason: str) -> None:
        """The game in ``board`` ended with ``result`` (a PGN result) for ``reason``."""

    def own_options(self) -> dict[str, EngineOption]:
        """The options the engine declares for its own settings (not those the protocol manages)."""
        return {name: option for name, option in self.options.items() if not option.managed}

    @abc.abstractmethod
    def handshake_notes(self, *, took: str) -> tuple[list[str], list[str]]:
        """What the compliance check says of the handshake, which took ``took``: problems, and notes."""

    @abc.abstractmethod
    async def interruption_check(self, *, after: float, within: float) -> tuple[list[str], list[str]]:
        """The compliance check of a long search cut short ``after`` seconds: problems, and notes;
        ``TimeoutError`` (saying what did not come) when the engine does not answer ``within`` seconds."""


async def finishes(awaitable: asyncio.Future[Any], seconds: float) -> bool:
    """Whether ``awaitable`` ends within ``seconds`` (it goes on otherwise)."""
    try:
        await asyncio.wait_for(asyncio.shield(awaitable), seconds)
    except TimeoutError:
        return False
    return True


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"
