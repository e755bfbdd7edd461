"""How a game ended, as a value: what the result string, the PGN, the logs and fastchess's lines are made from.

An :class:`Ending` says what happened (a mate, an adjudication, an engine that
crashed); with the result it says who won. The words people read are made
from it where they are shown: tmanager's own reasons (``White loses on time
(153 ms overrun: …)``) by the game runner, fastchess's (``White loses on time
(153ms overrun)``) by :mod:`tmanager.fastchess`. A :class:`GameOver` holds the
three, and the :class:`EngineFault` of the engine that lost by misbehaving.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tmanager.core.results import Result

if TYPE_CHECKING:  # only the types: reading a tourney file, which imports this, loads no python-chess
    import chess


class Termination(enum.StrEnum):
    """The PGN ``Termination`` tag's value."""

    NORMAL = "normal"
    TIME_FORFEIT = "time forfeit"
    ADJUDICATION = "adjudication"
    RULES_INFRACTION = "rules infraction"
    ABANDONED = "abandoned"


class Ending(enum.StrEnum):
    """What ended a game."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient material"
    REPETITION = "threefold repetition"
    FIFTY_MOVES = "fifty-move rule"
    VARIANT_WIN = "variant win"  #: a variant's own goal reached (a third check, an exploded king…)
    VARIANT_DRAW = "variant draw"
    RESIGNATION = "resignation"  #: an engine resigned (XBoard's ``resign``)
    RESIGN_ADJUDICATION = "resign adjudication"
    DRAW_ADJUDICATION = "draw adjudication"
    MOVE_LIMIT = "move limit"
    TABLEBASE_WIN = "tablebase win"
    TABLEBASE_DRAW = "tablebase draw"
    TIME_FORFEIT = "time forfeit"
    CRASH = "crash"  #: the engine's process ended
    STALL = "stall"  #: no move within the move timeout of a game without clocks
    NOT_STARTED = "not started"  #: the engine failed to start, or to get ready for the game
    ILLEGAL_MOVE = "illegal move"
    FALSE_CLAIM = "false claim"  #: a result claimed that the position does not give (XBoard)

    @property
    def termination(self) -> Termination:
        return _TERMINATIONS.get(self, Termination.NORMAL)


_TERMINATIONS = {
    Ending.RESIGN_ADJUDICATION: Termination.ADJUDICATION,
    Ending.DRAW_ADJUDICATION: Termination.ADJUDICATION,
    Ending.MOVE_LIMIT: Termination.ADJUDICATION,
    Ending.TABLEBASE_WIN: Termination.ADJUDICATION,
    Ending.TABLEBASE_DRAW: Termination.ADJUDICATION,
    Ending.TIME_FORFEIT: Termination.TIME_FORFEIT,
    Ending.CRASH: Termination.ABANDONED,
    Ending.STALL: Termination.ABANDONED,
    Ending.NOT_STARTED: Termination.ABANDONED,
    Ending.ILLEGAL_MOVE: Termination.RULES_INFRACTION,
    Ending.FALSE_CLAIM: Termination.RULES_INFRACTION,
}


class Fault(enum.StrEnum):
    """How an engine misbehaved; the values are the words of the tourney file's ``[faults]`` table."""

    CRASH = "crash"
    HANDSHAKE = "handshake"
    STALL = "stall"
    ILLEGAL_MOVE = "illegal move"
    FALSE_CLAIM = "false claim"
    TIME_FORFEIT = "time forfeit"


@dataclass(frozen=True, slots=True)
class EngineFault:
    """The engine of ``color`` lost the game by a fault of ``kind``."""

    color: chess.Color
    kind: Fault


@dataclass(frozen=True, slots=True)
class GameOver:
    """The end of a game: its result, what ended it, the reason people read, and the engine at fault (if any)."""

    result: Result
    ending: Ending
    reason: str
    fault: EngineFault | None = None

    @property
    def termination(self) -> Termination:
        return self.ending.termination

    @property
    def winner(self) -> chess.Color | None:
        """The colour that won (``chess.WHITE`` is ``True``), ``None`` for a draw."""
        return {Result.WHITE_WINS: True, Result.BLACK_WINS: False}.get(self.result)


def side(color: chess.Color) -> str:
    """``White`` or ``Black``, as a reason names a side."""
    return "White" if color else "Black"


def win(color: chess.Color, ending: Ending, reason: str) -> GameOver:
    """``color`` wins the game."""
    return GameOver(Result.WHITE_WINS if color else Result.BLACK_WINS, ending, reason)


def loss(color: chess.Color, ending: Ending, reason: str, *, fault: Fault | None = None) -> GameOver:
    """``color`` loses the game, by a ``fault`` of its engine if one is given."""
    return GameOver(
        Result.BLACK_WINS if color else Result.WHITE_WINS, ending, reason,
        None if fault is None else EngineFault(color, fault),
    )


def draw(ending: Ending, reason: str) -> GameOver:
    return GameOver(Result.DRAW, ending, reason)
