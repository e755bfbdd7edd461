"""FIDE rating estimates for one event: rating changes, initial ratings of unrated players, performance.

The rules of the FIDE Rating Regulations (effective 1 March 2024), section 8:

* **Expected score.** Table 8.1.2 turns the rating difference D into the score
  probability PD of the higher-rated player (the lower-rated one gets 1 − PD).
  A difference of more than 400 points counts as 400.
* **Rating change** of a rated player: for each game *over the board* against a
  *rated* opponent, ΔR = score − PD; the change is K × ΣΔR, rounded to the
  nearest whole number with 0.5 away from zero. Games against unrated
  opponents, forfeits and byes do not count.
* **K** is 40 for a player new to the list (fewer than 30 games) and for players
  until the end of the year of their 18th birthday while rated under 2300; 10
  once the published rating has reached 2400; 20 otherwise. When n games times
  K exceed 700, K is the largest whole number with K × n ≤ 700.
* **Initial rating** of an unrated player: the rated opponents plus two
  hypothetical opponents rated 1800, with draws against them. Ra is the average
  rating of all of them, p the score fraction, and Ru = Ra + dp(p) (table 8.1.1),
  rounded, at most 2200. A zero score against rated opponents is disregarded.
* **Performance** (as the tie-break TPR): the average rating of the rated
  opponents met over the board, plus dp of the score fraction.

Everything here is pure: ratings and ``(opponent rating, score)`` pairs in,
numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Table 8.1.2: the largest rating difference D for each PD of the higher-rated
#: player, from 0.50 (D 0–3) to 0.99 (D 620–735); beyond 735, PD is 1.00.
_PD_UPPER = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162, 170, 179, 188,
    197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374, 391, 411, 432, 456, 484, 517,
    559, 619, 735,
)  # fmt: skip
#: Table 8.1.1: the rating difference dp for a score fraction, by whole percent from 0 to 50 (above 50: -dp(1 - p)).
_DP = (
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7, 0,
)  # fmt: skip
#: A rating difference above this counts as this much (8.3.1).
MAX_DIFFERENCE = 400
#: K × games may not exceed this in one rating period (8.3.3).
MAX_K_TIMES_GAMES = 700
HYPOTHETICAL_OPPONENT = 1800
MAX_INITIAL_RATING = 2200


def dp(fraction: float) -> int:
    """Table 8.1.1: the rating difference for a score fraction (rounded to whole percent)."""
    percent = min(100, max(0, int(fraction * 100 + 0.5 + 1e-9)))
    return _DP[percent] if percent <= 50 else -_DP[100 - percent]


def expected(rating: int, opponent: int, *, limit: int | None = MAX_DIFFERENCE) -> float:
    """The score probability PD of ``rating`` against ``opponent`` (table 8.1.2): a difference above ``limit``
    counts as ``limit`` (the 400-point rule of rating; the tie-break PTP uses the table without it)."""
    difference = abs(rating - opponent) if limit is None else min(abs(rating - opponent), limit)
    index = next((i for i, upper in enumerate(_PD_UPPER) if difference <= upper), len(_PD_UPPER))
    higher = (50 + index) / 100
    return higher if rating >= opponent else round(1 - higher, 2)


def round_half_away(value: float) -> int:
    """Round to the nearest whole number, 0.5 away from zero (8.3.4)."""
    return int(math.copysign(math.floor(abs(value) + 0.5 + 1e-9), value))


def k_factor(
    rating: int, *, games_before: int | None = None, junior: bool = False, reached_2400: bool = False, games: int = 0
) -> int:
    """K for a rated player (8.3.3).

    ``games_before`` is the number of rated games before the event (None:
    unknown, taken as established); ``junior`` means until the end of the year
    of the 18th birthday; ``games`` is the number of rated games in the period,
    for the 700 cap.
    """
    if (games_before is not None and games_before < 30) or (junior and rating < 2300):
        k = 40
    elif reached_2400 or rating >= 2400:
        k = 10
    else:
        k = 20
    return capped_k(k, games=games)


def capped_k(k: int, *, games: int) -> int:
    """``k`` (as 8.3.3 assigns it, or as FIDE's list gives it) for ``games`` rated games in the period: the largest
    whole number not above ``k`` whose product with ``games`` does not exceed 700."""
    return MAX_K_TIMES_GAMES // games if games and k * games > MAX_K_TIMES_GAMES else k


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A rated player's estimate: rated games, score and expected score against rated opponents, K and the change."""

    games: int
    score: float
    expected: float
    k: int
    change: int

    @property
    def delta(self) -> float:
        """ΣΔR: the score minus the expected score."""
        return self.score - self.expected

    @property
    def shown(self) -> str:
        """The change as a report shows it (:func:`signed`): ``+12``, ``-7``, ``0``."""
        return signed(self.change)


def rating_change(rating: int, games: Sequence[tuple[int, float]], k: int) -> RatingChange:
    """The change of a rated player from ``(opponent rating, score)`` of games played over the board.

    Opponents rated 0 (unrated) are left out, as the regulations rate only
    games against rated players.
    """
    rated = [(opponent, points) for opponent, points in games if opponent > 0]
    score = sum(points for _, points in rated)
    expect = sum(expected(rating, opponent) for opponent, _ in rated)
    return RatingChange(len(rated), score, round(expect, 2), k, round_half_away(k * (score - expect)))


def initial_rating(games: Sequence[tuple[int, float]]) -> int | None:
    """The rating of an unrated player from this event alone, or None (no rated game, or a zero score)."""
    rated = [(opponent, points) for opponent, points in games if opponent > 0]
    score = sum(points for _, points in rated)
    if not rated or score == 0:
        return None
    opponents = [opponent for opponent, _ in rated] + [HYPOTHETICAL_OPPONENT] * 2
    average = sum(opponents) / len(opponents)
    value = round_half_away(average + dp((score + 1) / len(opponents)))
    return min(value, MAX_INITIAL_RATING)


def performance(games: Sequence[tuple[int, float]]) -> int | None:
    """Tournament performance: average rating of the rated opponents (rounded) plus dp of the score fraction."""
    rated = [(opponent, points) for opponent, points in games if opponent > 0]
    if not rated:
        return None
    average = round_half_away(sum(opponent for opponent, _ in rated) / len(rated))
    return average + dp(sum(points for _, points in rated) / len(rated))


def signed(change: float, digits: int = 0) -> str:
    """A rating change as a report shows it: ``+12``, ``-7``, and no change as ``0``, not ``+0``: FIDE's published
    calculations give a sign to no zero (``0.00``); with ``digits``, that many decimals (``+4.4``, ``0.0``)."""
    text = f"{change:+.{digits}f}"
    return text[1:] if float(text) == 0 else text
