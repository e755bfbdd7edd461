"""What a rating fit gives (:class:`Rating`, :class:`RatingList`) and the logistic model's scale."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Natural-log units per Elo point: the expected score ``1 / (1 + 10^(-d / 400))`` is the logistic of ``d · PER_ELO``.
PER_ELO = math.log(10) / 400
#: A rating this far from its group's average (natural-log units) is taken as running away.
RUNAWAY = 3000 * PER_ELO
#: The most an anchor's rating may be from 0, either way: ratings are thousands, and far beyond a float keeps
#: no Elo difference (1e17 + 200 is 1e17) and the tie-breaks built on them (TPR, ARO) overflow.
ANCHOR_LIMIT = 100_000.0


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating and the half-width of its 95 % interval."""

    name: str
    elo: float
    error: float
    games: int
    points: float  #: score with draws as ½


@dataclass(frozen=True, slots=True)
class RatingList:
    """The result of a fit."""

    ratings: dict[str, Rating]
    white_advantage: float  #: Elo, 0 when not fitted
    white_advantage_error: float
    groups: int  #: connected groups of players; ratings are comparable only within one
    anchor: str | None
    anchor_elo: float
    #: False above :data:`tmanager.core.jointfit.DENSE_LIMIT` players: each margin then counts only that rating's
    #: own games
    exact_errors: bool = True

    def elo(self) -> dict[str, float]:
        return {name: r.elo for name, r in self.ratings.items()}
