"""Value objects shared by the pairing systems: players, pairings and the reasons for them (a player's
round entries and the points system are the core's: :mod:`tmanager.core.scoring`).

Scores are integers in tenths of a point (a win is 10 by default), as in the TRF
points column, so that sums and comparisons are exact for any points system.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tmanager.core.results import Colour
from tmanager.core.scoring import Game, PointsSystem

WHITE = Colour.WHITE
BLACK = Colour.BLACK


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
