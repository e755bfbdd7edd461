"""How a game ended, as a value: what the result string, the PGN, the logs and fastchess's lines are made from.

An :class:`Ending` says what happened (a mate, an adjudication, an engine that
crashed); with the result it says who won. The words people read are made
from it where they are shown: tmanager's own reasons (``White loses on time
(153 ms overrun: …)``) by the game runner, fastchess's (``White loses on time
(153ms overrun)``) by :mod:`tmanager.fastchess`.
"""

from __future__ import annotations

import enum


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
