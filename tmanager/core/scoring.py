"""A player's round as TRF enters it, and the points it scores: the vocabulary of pairing, files and events alike.

:class:`Game` is one round of one player's history (a TRF round entry: the
opponent, the colour, the result code); :class:`PointsSystem` says how many
tenths of a point each kind of entry scores (TRF's ``BBW BBD BBL BBZ BBF BBU``).
The pairing systems, the TRF files and an event's scoring all read them.
"""

from __future__ import annotations

from dataclasses import dataclass

from tmanager.core.results import Colour, Outcome, TrfResult


@dataclass(frozen=True, slots=True)
class Game:
    """One round of one player's history, as in a TRF round entry.

    ``opponent`` is None for a bye or an absence; ``colour`` is a :class:`Colour`
    or None; ``result`` is the round's :class:`TrfResult`. ``+``/``-`` with an
    opponent are forfeits; ``U`` is the pairing-allocated bye, ``H``/``F``/``Z``
    half-, full- and zero-point byes.
    """

    opponent: int | None
    colour: Colour | None
    result: TrfResult

    @property
    def played(self) -> bool:
        """A game over the board (forfeits and byes are not)."""
        return self.opponent is not None and self.result.played

    @property
    def paired(self) -> bool:
        """The player took part in the pairing of this round (game, forfeit or pairing-allocated bye)."""
        return self.opponent is not None or self.result.pairing_allocated

    @property
    def pairing_allocated_bye(self) -> bool:
        return self.opponent is None and self.result.pairing_allocated


@dataclass(frozen=True, slots=True)
class PointsSystem:
    """Points per kind of result, in tenths (TRF ``BBW BBD BBL BBZ BBF BBU``)."""

    win: int = 10
    draw: int = 5
    loss: int = 0
    zero_bye: int = 0
    forfeit_loss: int = 0
    pairing_bye: int = 10

    def points(self, game: Game) -> int:
        """The points a player scored for one round entry."""
        outcome = game.result.outcome
        if outcome is Outcome.DRAW:
            return self.draw
        if outcome is Outcome.WIN:
            return self.pairing_bye if game.pairing_allocated_bye else self.win
        if not game.paired:
            return self.zero_bye
        if game.result is TrfResult.NOT_PLAYED:
            return 0  # a game still to be played: it scores when its result is entered, not as a forfeit now
        return self.loss if game.played else self.forfeit_loss


#: 1 for a win, ½ for a draw, 1 for the pairing-allocated bye.
STANDARD = PointsSystem()
