"""The SPRT of a two-participant tourney: counts from the results string, and the stopping rule."""

from __future__ import annotations

import random

import pytest

from tmanager.core import sprt, stats
from tmanager.core.schedule import Gauntlet, RoundRobin, Schedule
from tmanager.core.stats import SprtModel

SHAPES = [RoundRobin(2, games_per_pairing=g, cycles=c) for g in (1, 2, 3, 4) for c in (1, 2, 3, 5)] + [
    Gauntlet(2, seeds=1, games_per_pairing=3, cycles=3)
]


def _reference(schedule: Schedule, results: str) -> tuple[tuple[int, int, int], list[int], list[int], int]:
    """(losses, draws, wins), pentanomial counts, open games and games playing, game by game."""
    padded = results.ljust(schedule.total_games)
    points: dict[int, float] = {}
    for number, char in enumerate(padded):
        game = schedule.game(number)
        assert game is not None
        if char in "+-=":
            white_points = {"+": 1.0, "=": 0.5, "-": 0.0}[char]
            points[number] = white_points if game.white == 0 else 1.0 - white_points
    wdl = tuple(sum(1 for p in points.values() if p == value) for value in (0.0, 0.5, 1.0))
    penta = [0] * 5
    open_games = []
    for number, char in enumerate(padded):
        partner = schedule.partner(number)
        if partner is None:
            continue
        if number < partner and number in points and partner in points:
            penta[round(2 * (points[number] + points[partner]))] += 1
        if char == " " and padded[partner] != " ":
            open_games.append(number)
    return (wdl[0], wdl[1], wdl[2]), penta, open_games, padded.count("*")


@pytest.mark.parametrize(
    "schedule", SHAPES, ids=lambda s: f"{type(s).__name__}-g{s.games_per_pairing}-c{s.cycles}"
)
def test_counts_equal_a_game_by_game_reading(schedule: Schedule) -> None:
    rng = random.Random(schedule.games_per_pairing * 100 + schedule.cycles)
    for _ in range(50):
        length = rng.randint(0, schedule.total_games)
        results = "".join(rng.choice("+-=*  ") for _ in range(length)).rstrip()
        state = sprt.match_state(schedule, results)
        wdl, penta, open_games, playing = _reference(schedule, results)
        assert (state.losses, state.draws, state.wins) == wdl
        single_game_schedule = schedule.total_games == 1
        assert state.penta == (None if single_game_schedule else tuple(penta))
        assert list(state.open_games) == open_games
        assert state.playing == playing



@pytest.mark.parametrize("games_per_pairing", [1, 2, 3, 5])
def test_a_long_schedule_just_begun_is_counted_over_the_games_begun(games_per_pairing: int) -> None:
    """Counting covers the games begun and the partners of theirs that come after (an odd game of a
    pairing pairs with the next cycle's): the rest of the schedule changes nothing."""
    schedule = RoundRobin(2, games_per_pairing=games_per_pairing, cycles=500)
    rng = random.Random(games_per_pairing)
    for length in range(3 * games_per_pairing + 3):
        results = "".join(rng.choice("+-=* ") for _ in range(length))
        state = sprt.match_state(schedule, results)
        wdl, penta, open_games, playing = _reference(schedule, results)
        assert (state.losses, state.draws, state.wins, state.penta) == (*wdl, tuple(penta))
        assert (list(state.open_games), state.playing) == (open_games, playing)

def test_the_first_participant_is_the_one_tested() -> None:
    schedule = RoundRobin(2, games_per_pairing=2, cycles=2)
    # The first participant has white in games 0 and 2: it wins all four games.
    state = sprt.match_state(schedule, "+-+-")
    assert (state.wins, state.draws, state.losses, state.penta) == (4, 0, 0, (0, 0, 0, 0, 2))


LOGISTIC_200 = stats.SprtSettings(-200, 200, 0.1, 0.1, SprtModel.LOGISTIC)  # bounds ±2.20; two won pairs give 2.30


def test_decided_test_completes_its_begun_pairs_then_stops() -> None:
    schedule = RoundRobin(2, games_per_pairing=2, cycles=10)
    running = sprt.match_state(schedule, "+-+", LOGISTIC_200)
    assert not running.decided and running.claimable is None and not running.over
    # Two won pairs decide; game 4 has begun its pair (game 5 unplayed) and game 6 is playing.
    decided = sprt.match_state(schedule, "+-+-+ *", LOGISTIC_200)
    assert decided.decided and decided.sprt is not None and decided.sprt.verdict == "H1"
    assert decided.claimable == (5, 7) and not decided.over and decided.verdict is None
    assert "H1 reached" in (sprt.describe(decided) or "")
    over = sprt.match_state(schedule, "+-+-+-+=", LOGISTIC_200)
    assert over.over and over.claimable == ()
    assert over.sprt is not None and over.verdict is not None
    h1 = sprt.VerdictResult.H1
    assert over.verdict == sprt.Verdict(h1, over.sprt.llr, over.sprt.lower, over.sprt.upper, games=8, pairs=4)
    assert over.verdict.upper == pytest.approx(2.1972, abs=1e-4) and over.verdict.llr > over.verdict.upper
    assert "H1 accepted" in (sprt.describe(over) or "")


def test_wider_bounds_reopen_and_an_exhausted_schedule_is_undecided() -> None:
    schedule = RoundRobin(2, games_per_pairing=2, cycles=2)
    results = "+-+-"
    assert sprt.match_state(schedule, results, LOGISTIC_200).verdict is not None
    wider = stats.SprtSettings(-200, 200, 0.01, 0.01, SprtModel.LOGISTIC)
    state = sprt.match_state(RoundRobin(2, games_per_pairing=2, cycles=3), results, wider)
    assert not state.decided and not state.over and state.claimable is None
    exhausted = sprt.match_state(schedule, results, wider)
    assert exhausted.over and exhausted.verdict is not None and exhausted.verdict.result == "undecided"
    assert "no decision after all 4 games" in (sprt.describe(exhausted) or "")


def test_a_single_game_schedule_is_trinomial() -> None:
    state = sprt.match_state(RoundRobin(2, games_per_pairing=1), "+", LOGISTIC_200)
    assert state.penta is None and state.pairs == 0
    assert state.sprt == LOGISTIC_200.test(1, 0, 0)
