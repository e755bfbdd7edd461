"""Value objects shared by the pairing systems: games, players, points, pairings.

Scores are integers in tenths of a point (a win is 10 by default), as in the TRF
points column, so that sums and comparisons are exact for any points system.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tmanager.core.results import PLAYED_CODES, Colour

WHITE = Colour.WHITE
BLACK = Colour.BLACK

_WINS = frozenset("1W+FU")
_DRAWS = frozenset("=DH")


def invert(colour: str) -> Colour:
    """The other colour."""
    return Colour(colour).other


@dataclass(frozen=True, slots=True)
class Game:
    """One round of one player's history, as in a TRF round entry.

    ``opponent`` is None for a bye or an absence; ``colour`` is ``"w"``, ``"b"``
    or None; ``result`` is a TRF result code (``1 = 0 + - W D L H F U Z`` or a
    space). ``+``/``-`` with an opponent are forfeits; ``U`` is the
    pairing-allocated bye, ``H``/``F``/``Z`` half-, full- and zero-point byes.
    """

    opponent: int | None
    colour: str | None
    result: str

    @property
    def played(self) -> bool:
        """A game over the board (forfeits and byes are not)."""
        return self.opponent is not None and self.result in PLAYED_CODES

    @property
    def paired(self) -> bool:
        """The player took part in the pairing of this round (game, forfeit or pairing-allocated bye)."""
        return self.opponent is not None or self.result in "U+"

    @property
    def pairing_allocated_bye(self) -> bool:
        return self.opponent is None and self.result in "U+"

    @property
    def outcome(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` as far as scoring goes."""
        if self.result in _WINS:
            return "win"
        return "draw" if self.result in _DRAWS else "loss"


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
        outcome = game.outcome
        if outcome == "draw":
            return self.draw
        if outcome == "win":
            return self.pairing_bye if game.pairing_allocated_bye else self.win
        if not game.paired:
            return self.zero_bye
        return self.loss if game.played else self.forfeit_loss


#: 1 for a win, ½ for a draw, 1 for the pairing-allocated bye.
STANDARD = PointsSystem()


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player and the history the pairing rules look at.

    ``id`` is the pairing number (TRF starting rank); ``rank`` orders players of
    equal score (defaults to ``id``). ``games[i]`` is round i+1; a player who
    already has an entry for the round being paired (a requested bye, an
    absence) is not paired. ``acceleration[i]`` is the virtual points (tenths)
    the player carries into round i+1 (accelerated pairings; none by default):
    they count in the pairing score of that round, never in the standings.
    """

    id: int
    games: tuple[Game, ...] = ()
    rating: int = 0
    rank: int | None = None
    acceleration: tuple[int, ...] = ()

    def virtual(self, round_number: int) -> int:
        """The virtual points carried into ``round_number``."""
        return self.acceleration[round_number - 1] if 0 < round_number <= len(self.acceleration) else 0

    def score(self, points: PointsSystem, rounds: int | None = None) -> int:
        """Points in tenths after the first ``rounds`` rounds (all of them by default)."""
        return sum(points.points(g) for g in self.games[:rounds])


@dataclass(frozen=True, slots=True)
class Pairing:
    """The pairing of one round: boards as ``(white, black)`` ids, and the bye."""

    boards: tuple[tuple[int, int], ...]
    bye: int | None = None



@dataclass(frozen=True, slots=True)
class Reason:
    """One rule applied to a pairing: its name or number (``"C1"``, ``"5.2.3"``, ``"repeats"``) and what it found,
    each ``{}`` in ``text`` standing for one of ``players`` (ids), in order."""

    rule: str
    text: str
    players: tuple[int, ...] = ()

    def say(self, name: Callable[[int], str] = str) -> str:
        return f"{self.rule}: " + self.text.format(*map(name, self.players))
