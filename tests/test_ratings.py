"""Joint maximum-likelihood Elo: agreement with the match formula, anchoring, bounds, white advantage."""

from __future__ import annotations

import math

import pytest

from tmanager import ratings, stats
from tmanager.errors import ConfigError
from tmanager.standings import GameResult, Tally

FLIP = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1/2-1/2"}


def _match(wins: int, losses: int, draws: int) -> Tally:
    """A vs B with colours alternating; results from A's side."""
    tally = Tally()
    results = ["1-0"] * wins + ["0-1"] * losses + ["1/2-1/2"] * draws
    for i, result in enumerate(results):
        tally.add(GameResult("A", "B", result) if i % 2 else GameResult("B", "A", FLIP[result]))
    return tally


def test_two_players_reproduce_the_match_elo() -> None:
    fitted = ratings.fit(_match(332, 316, 352), anchor="B")
    a = fitted.ratings["A"]
    expected = stats.elo(332, 316, 352)
    assert a.elo == pytest.approx(expected.value, abs=1e-6)
    assert a.error == pytest.approx(expected.margin, rel=0.01)
    assert fitted.ratings["B"].elo == 0 and fitted.ratings["B"].error == 0


def test_average_anchor_splits_the_difference() -> None:
    fitted = ratings.fit(_match(60, 20, 20), anchor_elo=1500)
    a, b = fitted.ratings["A"], fitted.ratings["B"]
    assert (a.elo + b.elo) / 2 == pytest.approx(1500)
    assert a.elo - b.elo == pytest.approx(stats.elo(60, 20, 20).value, abs=1e-6)
    assert a.error == pytest.approx(stats.elo(60, 20, 20).margin / 2, rel=0.02)


def test_named_anchor_and_unknown_anchor() -> None:
    tally = _match(5, 5, 0)
    assert ratings.fit(tally, anchor="A", anchor_elo=2800).ratings["A"].elo == 2800
    with pytest.raises(ConfigError, match="anchor"):
        ratings.fit(tally, anchor="Nobody")


def test_perfect_and_zero_scores_are_bounded() -> None:
    fitted = ratings.fit(_match(10, 0, 0), anchor="B")
    # Each player gets one virtual draw: 11/12 for A.
    assert fitted.ratings["A"].elo == pytest.approx(400 * math.log10(11), abs=1e-6)
    assert math.isfinite(fitted.ratings["A"].error)


def test_three_player_round_robin_is_transitive() -> None:
    tally = Tally()
    for _ in range(20):
        tally.add(GameResult("A", "B", "1-0"))
        tally.add(GameResult("B", "A", "1/2-1/2"))
        tally.add(GameResult("B", "C", "1-0"))
        tally.add(GameResult("C", "B", "1/2-1/2"))
        tally.add(GameResult("A", "C", "1-0"))
        tally.add(GameResult("C", "A", "0-1"))
    fitted = ratings.fit(tally)
    elo = fitted.elo()
    assert elo["A"] > elo["B"] > elo["C"]
    assert sum(elo.values()) == pytest.approx(0, abs=1e-6)
    # Maximum likelihood: each player's expected score equals the actual score.
    for name in "ABC":
        expected = sum(
            n * stats.score_from_elo(elo[name] - elo[other])
            for other in "ABC"
            if other != name
            for n in [tally.record(name, other).games]
        )
        assert expected == pytest.approx(fitted.ratings[name].points, abs=1e-6)


def test_white_advantage_is_fitted() -> None:
    tally = Tally()
    for _ in range(30):  # white scores 75 % whoever plays it
        tally.add(GameResult("A", "B", "1-0"))
        tally.add(GameResult("A", "B", "1/2-1/2"))
        tally.add(GameResult("B", "A", "1-0"))
        tally.add(GameResult("B", "A", "1/2-1/2"))
    fitted = ratings.fit(tally, white_advantage=True)
    assert fitted.white_advantage == pytest.approx(stats.elo_from_score(0.75), abs=1e-4)
    assert fitted.ratings["A"].elo == pytest.approx(0, abs=1e-6)
    assert fitted.white_advantage_error > 0
    assert ratings.fit(tally).white_advantage == 0


def test_disconnected_groups_are_reported() -> None:
    tally = Tally()
    tally.add(GameResult("A", "B", "1-0"))
    tally.add(GameResult("B", "A", "1/2-1/2"))
    tally.add(GameResult("C", "D", "0-1"))
    tally.add(GameResult("D", "C", "1/2-1/2"))
    assert ratings.fit(tally).groups == 2


def test_many_players_fit_quickly_enough_to_finish() -> None:
    tally = Tally()
    players = [f"P{i}" for i in range(120)]
    for i, white in enumerate(players):
        for j, black in enumerate(players):
            if i != j and (i + j) % 3 == 0:
                tally.add(GameResult(white, black, "1-0" if i < j else "1/2-1/2"))
    fitted = ratings.fit(tally)
    assert len(fitted.ratings) == 120
    assert all(math.isfinite(r.elo) and math.isfinite(r.error) for r in fitted.ratings.values())
