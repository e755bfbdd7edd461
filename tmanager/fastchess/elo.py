"""fastchess's counts of a match and its Elo estimates, computed as fastchess computes them.

:class:`Stats` is fastchess's ``Stats``: wins, losses and draws from one side,
and the six kinds of game pair (fastchess keeps WL and DD apart, for its WL/DD
ratio). :func:`estimate` is its ``EloWDL`` or ``EloPentanomial``: the same
formulas in the same order of operations, with C's arithmetic at the edges
(:mod:`tmanager.core.ieee`), so that every printed figure is fastchess's, the
``inf`` and ``-nan`` of a match without losses or without variance included.

tmanager's own statistics (:mod:`tmanager.core.stats`) guard those edges and
use cutechess's likelihood of superiority for single games; these are kept
apart because fastchess's users compare its lines digit by digit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tmanager.core import ieee

#: fastchess's two-sided 95 % quantile.
CI95_ZSCORE = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Stats:
    """fastchess's ``Stats``: game results and game-pair kinds from one player's side."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta_ww: int = 0
    penta_wd: int = 0
    penta_wl: int = 0
    penta_dd: int = 0
    penta_ld: int = 0
    penta_ll: int = 0

    def __add__(self, other: Stats) -> Stats:
        return Stats(*(a + b for a, b in zip(self.counts, other.counts, strict=True)))

    def __invert__(self) -> Stats:
        """The same games from the other side (fastchess's ``operator~``)."""
        return Stats(
            self.losses, self.wins, self.draws, self.penta_ll, self.penta_ld, self.penta_wl, self.penta_dd,
            self.penta_wd, self.penta_ww,
        )

    @property
    def counts(self) -> tuple[int, ...]:
        return (
            self.wins, self.losses, self.draws, self.penta_ww, self.penta_wd, self.penta_wl, self.penta_dd,
            self.penta_ld, self.penta_ll,
        )

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def pairs(self) -> int:
        return self.penta_ww + self.penta_wd + self.penta_wl + self.penta_dd + self.penta_ld + self.penta_ll

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def pentanomial(self) -> tuple[int, int, int, int, int]:
        """``[LL, LD, WL+DD, WD, WW]``, as ``Ptnml(0-2)`` prints it."""
        return self.penta_ll, self.penta_ld, self.penta_wl + self.penta_dd, self.penta_wd, self.penta_ww

    def points_ratio(self) -> float:
        """Points per game, in %."""
        return ieee.div(self.points, self.games) * 100

    def draw_ratio(self) -> float:
        """Drawn games, in % of the games."""
        return ieee.div(100.0 * self.draws, self.games)

    def draw_ratio_pairs(self) -> float:
        """Drawn pairs (WL and DD: one point each side), in % of the pairs: fastchess's ``DrawRatio``
        with pentanomial reports."""
        return ieee.div(self.penta_wl + self.penta_dd, self.pairs) * 100.0

    def pairs_ratio(self) -> float:
        """Pairs won (WW, WD) per pair lost (LD, LL)."""
        return ieee.div(self.penta_ww + self.penta_wd, self.penta_ld + self.penta_ll)

    def wl_dd_ratio(self) -> float:
        """Pairs of a win and a loss per pair of two draws."""
        return ieee.div(self.penta_wl, self.penta_dd)


@dataclass(frozen=True, slots=True)
class Estimate:
    """An Elo estimate as fastchess makes it: Elo and nElo with their 95 % margins, LOS, the score."""

    score: float
    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float

    def elo_text(self) -> str:
        """``-9.20 +/- 20.93``"""
        return f"{ieee.fixed(self.elo, 2)} +/- {ieee.fixed(self.elo_error, 2)}"

    def nelo_text(self) -> str:
        return f"{ieee.fixed(self.nelo, 2)} +/- {ieee.fixed(self.nelo_error, 2)}"

    def los_text(self) -> str:
        """``19.41 %``"""
        return f"{ieee.fixed(self.los * 100.0, 2)} %"


def _elo_from_score(score: float) -> float:
    return -400.0 * ieee.log10(ieee.div(1.0, score) - 1.0)


def estimate(stats: Stats, *, pentanomial: bool) -> Estimate:
    """fastchess's ``EloPentanomial`` (per game pair) or ``EloWDL`` (per game) of ``stats``."""
    if (stats.pairs if pentanomial else stats.games) == 0:
        # Nothing to estimate from: every figure is 0/0 at its root, which C prints "-nan" whatever the
        # compiler makes of the signs on the way.
        nan = ieee.DEFAULT_NAN
        return Estimate(score=nan, elo=nan, elo_error=nan, nelo=nan, nelo_error=nan, los=nan)
    values: tuple[float, ...]
    if pentanomial:
        n = float(stats.pairs)
        outcomes = (stats.penta_ww, stats.penta_wd, stats.penta_wl + stats.penta_dd, stats.penta_ld, stats.penta_ll)
        values = (1.0, 0.75, 0.5, 0.25, 0.0)
        fractions = [ieee.div(float(count), n) for count in outcomes]
        # fastchess sums WL and DD as two fractions; their sum is the one fraction only up to rounding.
        fractions[2] = ieee.div(float(stats.penta_wl), n) + ieee.div(float(stats.penta_dd), n)
        score = fractions[0] + 0.75 * fractions[1] + 0.5 * fractions[2] + 0.25 * fractions[3]
    else:
        n = float(stats.games)
        values = (1.0, 0.5, 0.0)
        fractions = [ieee.div(float(c), n) for c in (stats.wins, stats.draws, stats.losses)]
        score = fractions[0] + 0.5 * fractions[1]
    variance = 0.0
    for fraction, value in zip(fractions, values, strict=True):
        variance += fraction * math.pow(value - score, 2)
    per_unit = ieee.div(variance, n)
    spread = CI95_ZSCORE * ieee.sqrt(per_unit)
    upper, lower = score + spread, score - spread
    nelo_variance = 2 * variance if pentanomial else variance

    def nelo(s: float) -> float:
        return ieee.div(s - 0.5, ieee.sqrt(nelo_variance)) * (800 / math.log(10))

    return Estimate(
        score=score,
        elo=_elo_from_score(score),
        elo_error=(_elo_from_score(upper) - _elo_from_score(lower)) / 2.0,
        nelo=nelo(score),
        nelo_error=(nelo(upper) - nelo(lower)) / 2.0,
        los=(1 - math.erf(ieee.div(-(score - 0.5), ieee.sqrt(2.0 * per_unit)))) / 2.0,
    )
