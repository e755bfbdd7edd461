"""FIDE rating estimates against the figures of FIDE's Rating Regulations (2024)."""

from __future__ import annotations

import pytest

from tmanager.core import fide


@pytest.mark.parametrize(
    ("difference", "higher"),
    # Rows of table 8.1.2 as published: the first and last D of a row, and its PD.
    [(0, 0.50), (3, 0.50), (4, 0.51), (10, 0.51), (92, 0.63), (98, 0.63), (99, 0.64), (198, 0.76), (206, 0.76),
     (329, 0.88), (344, 0.88), (345, 0.89), (357, 0.89), (392, 0.92), (400, 0.92)],
)  # fmt: skip
def test_expected_score_table(difference: int, higher: float) -> None:
    assert fide.expected(2000 + difference, 2000) == higher
    assert fide.expected(2000, 2000 + difference) == pytest.approx(1 - higher)


def test_four_hundred_point_rule() -> None:
    # D above 400 counts as 400: 0.92 / 0.08, though the table goes on to 735.
    assert fide.expected(2700, 1800) == 0.92
    assert fide.expected(1800, 2700) == 0.08


def test_rating_change_of_a_tournament() -> None:
    # A player rated 2212 with K 20: wins against 2305 (D -93, PD .37) and 1750 (D 462 -> 400, PD .92),
    # draws against 2110 (D 102, PD .64). ΣΔR = 0.63 + 0.08 - 0.14 = 0.57; 20 × 0.57 = 11.4 -> 11.
    change = fide.rating_change(2212, [(2305, 1.0), (2110, 0.5), (1750, 1.0)], k=20)
    assert (change.games, change.score, change.expected) == (3, 2.5, 1.93)
    assert change.delta == pytest.approx(0.57)
    assert change.change == 11
    # Games against unrated opponents are not rated.
    assert fide.rating_change(2212, [(0, 1.0)], k=20).games == 0


def test_a_change_of_nothing_has_no_sign() -> None:
    """FIDE's calculations write no change as 0.00: '+0' and '+0.0' (or '-0.0' for -0.04) were written."""
    assert [fide.signed(x) for x in (12, -7, 0)] == ["+12", "-7", "0"]
    assert [fide.signed(x, 1) for x in (4.4, -3.6, 0.0, -0.04, 0.04)] == ["+4.4", "-3.6", "0.0", "0.0", "0.0"]
    assert fide.rating_change(2000, [(2000, 0.5)], k=20).shown == "0"


def test_rounding_half_away_from_zero() -> None:
    assert fide.round_half_away(2.5) == 3
    assert fide.round_half_away(-2.5) == -3
    assert fide.round_half_away(-2.4) == -2
    # A draw between 2450 and 2340 (D 110, PD .65 / .35) with K 10: -1.5 -> -2 and +1.5 -> +2.
    assert fide.rating_change(2450, [(2340, 0.5)], k=10).change == -2
    assert fide.rating_change(2340, [(2450, 0.5)], k=10).change == 2


@pytest.mark.parametrize(
    ("rating", "kwargs", "k"),
    [
        (1900, {"games_before": 12}, 40),  # new to the list: fewer than 30 games
        (2250, {"junior": True}, 40),  # until the end of the year of the 18th birthday, under 2300
        (2350, {"junior": True}, 20),
        (2399, {}, 20),
        (2400, {}, 10),
        (2380, {"reached_2400": True}, 10),  # once 2400, always 10
        (1900, {"games_before": 5, "games": 20}, 35),  # 40 × 20 > 700: the largest K with K × n <= 700
    ],
)
def test_k_factor(rating: int, kwargs: dict[str, object], k: int) -> None:
    assert fide.k_factor(rating, **kwargs) == k  # type: ignore[arg-type]


def test_initial_rating_of_an_unrated_player() -> None:
    # Opponents 1900, 2000, 2100 plus two hypothetical 1800s (draws): Ra = 9600 / 5 = 1920;
    # score 2 + 1 = 3 of 5 = 60 %, dp +72: Ru = 1992.
    assert fide.initial_rating([(1900, 1.0), (2000, 0.5), (2100, 0.5)]) == 1992
    # A zero score is disregarded; the initial rating is at most 2200.
    assert fide.initial_rating([(2000, 0.0), (2100, 0.0)]) is None
    assert fide.initial_rating([(2400, 1.0)] * 5) == 2200


def test_performance() -> None:
    # Average 2000 and 75 %: dp 193.
    assert fide.performance([(1900, 1.0), (2100, 0.5)]) == 2193
    assert fide.performance([(0, 1.0)]) is None
