"""How a game ended, as a value: what the result string, the PGN, the logs and fastchess's lines are made from.

An :class:`Ending` says what happened (a mate, an adjudication, an engine that
crashed); with the result it says who won. The words people read are made
from it where they are shown: tmanager's own reasons (``White loses on time
(153 ms overrun: …)``) by the game runner, fastchess's (``White loses on time
(153ms overrun)``) by :mod:`tmanager.fastchess`. A :class:`GameOver` holds the
three, and the :class:`EngineFault` of the engine that lost by misbehaving.

:func:`rules_outcome` says whether the rules of chess (or of the game's variant)
end the game in a position; :class:`Repetitions` counts the positions for
threefold repetition as the game goes, without replaying it. Both read the board
through python-chess's public API only, and this module imports no python-chess
at run time: reading a tourney file imports it.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Hashable
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
    ILLEGAL_MOVE = "illegal move"  #: fastchess's word for a rules infraction that is an illegal move


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
    """The engine of ``color`` lost the game by a fault of ``kind``; ``move`` is the illegal move it lost by,
    as it wrote it (empty for other faults)."""

    color: chess.Color
    kind: Fault
    move: str = ""


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


def loss(color: chess.Color, ending: Ending, reason: str, *, fault: Fault | None = None, move: str = "") -> GameOver:
    """``color`` loses the game, by a ``fault`` of its engine if one is given (by its illegal ``move``)."""
    return GameOver(
        Result.BLACK_WINS if color else Result.WHITE_WINS, ending, reason,
        None if fault is None else EngineFault(color, fault, move),
    )


def draw(ending: Ending, reason: str) -> GameOver:
    return GameOver(Result.DRAW, ending, reason)


def rules_outcome(board: chess.Board, repetitions: int) -> GameOver | None:
    """The end of the game in ``board`` by the rules, or ``None``; ``repetitions`` is how often its
    position has occurred (:class:`Repetitions`). A game ends by threefold repetition and the fifty-move
    rule at once, as fastchess and cutechess end it, without a claim."""
    # A variant's own result comes first, as in python-chess's Board.outcome(): after a third check
    # or an exploded king the position may also look like a mate, and an antichess stalemate is a win.
    if board.is_variant_win() or board.is_variant_loss() or board.is_variant_draw():
        return variant_outcome(board)
    # is_checkmate() and is_stalemate() would each look for a legal move; one look serves both.
    if not any(board.generate_legal_moves()):
        if board.is_check():
            winner = not board.turn
            return win(winner, Ending.CHECKMATE, f"{side(winner)} mates")
        return draw(Ending.STALEMATE, "Draw by stalemate")
    if board.is_insufficient_material():
        return draw(Ending.INSUFFICIENT_MATERIAL, "Draw by insufficient mating material")
    if repetitions >= 3:
        return draw(Ending.REPETITION, "Draw by 3-fold repetition")
    if board.halfmove_clock >= 100:
        return draw(Ending.FIFTY_MOVES, "Draw by fifty moves rule")
    return None


#: What ends a game of each variant, by python-chess's UCI variant name: {winner} and {loser} are colours.
_VARIANT_WINS = {
    "3check": "{winner} wins by giving a third check",
    "atomic": "{winner} wins by exploding {loser}'s king",
    "kingofthehill": "{winner} wins by bringing its king to the centre",
    "racingkings": "{winner} wins the race: its king reaches the eighth rank first",
    "horde": "{winner} wins by capturing the whole horde",
}
_ANTICHESS = ("antichess", "giveaway", "suicide")


def variant_outcome(board: chess.Board) -> GameOver:
    """The end of a game by its variant's own rule (a variant win, loss or draw), named after what happened."""
    variant = board.uci_variant or ""
    if board.is_variant_draw():
        if variant == "racingkings":
            return draw(Ending.VARIANT_DRAW, "Draw: both kings reach the eighth rank")
        return draw(Ending.VARIANT_DRAW, f"Draw by the rules of {variant}")
    winner = board.turn if board.is_variant_win() else not board.turn
    if variant in _ANTICHESS:
        template = (
            "{winner} wins by losing all its pieces" if not board.occupied_co[winner]
            else f"{{winner}} wins: {side(board.turn)} has no legal move"
        )
    else:
        template = _VARIANT_WINS.get(variant, "{winner} wins by the rules of the variant")
    return win(winner, Ending.VARIANT_WIN, template.format(winner=side(winner), loser=side(not winner)))


def position_key(board: chess.Board) -> Hashable:
    """What makes two positions the same for threefold repetition, as python-chess counts them: the pieces,
    the side to move, the castling rights, an en passant capture that can be made, and in Three-check
    each side's checks to go."""
    key = (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[True], board.occupied_co[False], board.turn, board.clean_castling_rights(),
        board.ep_square if board.has_legal_en_passant() else None,
    )
    checks: list[int] | None = getattr(board, "remaining_checks", None)  # a ThreeCheckBoard's
    return key if checks is None else (key, *checks)


class Repetitions:
    """Threefold repetition without replaying the move stack (python-chess's check does, per move).

    The positions since the last capture or pawn move (no earlier one can recur) are counted once
    from the board's history, the opening's moves included, then one more with each move.
    """

    def __init__(self, board: chess.Board) -> None:
        history = board.copy(stack=min(board.halfmove_clock, len(board.move_stack)))
        self.seen: Counter[Hashable] = Counter([position_key(history)])
        while history.move_stack:
            history.pop()
            self.seen[position_key(history)] += 1

    def now(self, board: chess.Board) -> int:
        """How often the position of ``board`` (the board counted last) has occurred."""
        return self.seen[position_key(board)]

    def count(self, board: chess.Board, *, irreversible: bool) -> int:
        """Count the position of ``board``, reached by a move (``irreversible``: a capture or pawn move, after
        which no earlier position can recur); how often it has occurred."""
        if irreversible:
            self.seen.clear()
        key = position_key(board)
        self.seen[key] += 1
        return self.seen[key]
