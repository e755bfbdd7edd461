"""Schedules: XBoard's numbering, gauntlets, odd fields, sync."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from tmanager.core.schedule import (
    DONE,
    WAIT,
    FastchessOrder,
    Gauntlet,
    RoundRobin,
    ScheduledGame,
    SwissSchedule,
    next_game,
)
from tmanager.errors import ConfigError, ScheduleError


def pairs(schedule: RoundRobin | Gauntlet) -> list[tuple[int, int]]:
    games = [schedule.game(n) for n in range(schedule.total_games)]
    assert all(isinstance(g, ScheduledGame) for g in games)
    return [(g.white, g.black) for g in games if g is not None]


def test_xboard_worked_example() -> None:
    # The example: 4 participants, 2 games per pairing, 1 cycle.
    assert pairs(RoundRobin(4, games_per_pairing=2)) == [
        (2, 1), (1, 2), (0, 3), (3, 0),
        (2, 0), (0, 2), (3, 1), (1, 3),
        (1, 0), (0, 1), (2, 3), (3, 2),
    ]  # fmt: skip


def test_xboard_pgn_round_tag() -> None:
    schedule = RoundRobin(4, games_per_pairing=2, cycles=2)
    game = schedule.game(13)
    assert game is not None
    # cycle 1, round 0, pairing 0, game 1: (1*3 + 0)*2 + 1 + 1
    assert (game.cycle, game.round, game.pairing, game.game) == (1, 0, 0, 1)
    assert game.pgn_round == 8


@pytest.mark.parametrize("n", range(2, 12))
@pytest.mark.parametrize("games", [1, 2, 3])
def test_round_robin_everyone_meets_everyone_once_per_cycle(n: int, games: int) -> None:
    schedule = RoundRobin(n, games_per_pairing=games, cycles=2)
    meetings = Counter(frozenset(p) for p in pairs(schedule))
    assert set(meetings) == {frozenset(p) for p in itertools.combinations(range(n), 2)}
    assert set(meetings.values()) == {2 * games}
    # An odd field's bye slot is skipped: nobody plays itself, nobody plays twice in a round.
    for r in range(schedule.total_rounds):
        players = [p for n_ in schedule.games_of_round(r) for p in pairs_of(schedule, n_)]
        assert len(players) == len(set(players)) * games


def pairs_of(schedule: RoundRobin, number: int) -> tuple[int, int]:
    game = schedule.game(number)
    assert game is not None
    return game.white, game.black


@pytest.mark.parametrize("n", range(2, 9))
def test_colours_balance_over_two_games(n: int) -> None:
    schedule = RoundRobin(n, games_per_pairing=2)
    result = pairs(schedule)
    for a, b in zip(result[::2], result[1::2], strict=True):
        assert a == (b[1], b[0])


def test_gauntlet_single_seed() -> None:
    schedule = Gauntlet(4, seeds=1, games_per_pairing=2)
    assert schedule.total_games == 6
    assert {frozenset(p) for p in pairs(schedule)} == {frozenset((0, k)) for k in (1, 2, 3)}


def test_multi_gauntlet() -> None:
    schedule = Gauntlet(5, seeds=2, games_per_pairing=2, cycles=2)
    meetings = Counter(frozenset(p) for p in pairs(schedule))
    expected = {frozenset((s, k)) for s in (0, 1) for k in (2, 3, 4)}
    assert set(meetings) == expected
    assert set(meetings.values()) == {4}
    assert schedule.total_games == 2 * 3 * 2 * 2


def test_bad_shapes() -> None:
    with pytest.raises(ConfigError, match="at least 2 participants"):
        RoundRobin(1)
    with pytest.raises(ConfigError, match="gauntlet_seeds"):
        Gauntlet(3, seeds=3)
    with pytest.raises(ScheduleError):
        RoundRobin(4).game(6)


def test_next_game_without_sync_takes_lowest_free() -> None:
    schedule = RoundRobin(4, games_per_pairing=2)
    choice = next_game(schedule, "+*-")
    assert isinstance(choice, ScheduledGame) and choice.number == 3
    assert next_game(schedule, "+" * 12) == DONE
    assert next_game(schedule, "+" * 11 + "*") == DONE


def test_next_game_sync_after_round_waits_for_round() -> None:
    schedule = RoundRobin(4, games_per_pairing=2)  # 4 games per round
    assert next_game(schedule, "+=-*", sync_after_round=True) == WAIT
    choice = next_game(schedule, "+=-=", sync_after_round=True)
    assert isinstance(choice, ScheduledGame) and choice.number == 4
    choice = next_game(schedule, "+=* ", sync_after_round=True)
    assert isinstance(choice, ScheduledGame) and choice.number == 3


def test_next_game_sync_after_cycle() -> None:
    schedule = RoundRobin(4, games_per_pairing=2, cycles=2)  # 12 games per cycle
    assert next_game(schedule, "+" * 11 + "*", sync_after_cycle=True) == WAIT
    choice = next_game(schedule, "+" * 3 + "*", sync_after_cycle=True)
    assert isinstance(choice, ScheduledGame) and choice.number == 4


def test_next_game_only_among_the_allowed_games() -> None:
    schedule = RoundRobin(2, games_per_pairing=3, cycles=2)  # pairs (0, 1), (3, 4) and (2, 5)
    choice = next_game(schedule, "+-+", only=[5])
    assert isinstance(choice, ScheduledGame) and choice.number == 5
    assert next_game(schedule, "+-+", only=[]) == DONE
    assert next_game(schedule, "+-+  *", only=[5]) == DONE  # an allowed game already playing is not free
    # Sync waits for the games that will be played, not for those left out.
    choice = next_game(schedule, "+-+", only=[5], sync_after_round=True)
    assert isinstance(choice, ScheduledGame) and choice.number == 5
    assert next_game(schedule, "+-*", only=[5], sync_after_cycle=True) == WAIT


def test_swiss_pairs_only_within_a_cycle() -> None:
    # The last game of an odd pairing would pair with the next cycle, which the Swiss pairs afresh.
    swiss = SwissSchedule(4, rounds=1, paired=[[(0, 1), (2, 3)], [(1, 3), (0, 2)]], games_per_pairing=3, cycles=2)
    assert [swiss.partner(n) for n in range(6)] == [1, 0, None, 4, 3, None]
    assert RoundRobin(4, games_per_pairing=3, cycles=2).partner(2) == 20


def test_fastchess_order_is_fastchess_s_scheduler() -> None:
    """fastchess's RoundRobinScheduler: rounds of every pair (i, j), i < j, in order, two games each, the first
    white in fastchess's odd game numbers (even ones here, counted from 0); a pair shares an opening and a Round."""
    schedule = FastchessOrder(3, games_per_pairing=2, cycles=2)
    games = [schedule.game(n) for n in range(schedule.total_games)]
    assert [(g.white, g.black) for g in games if g is not None] == [
        (0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)] * 2
    assert [g.pgn_round for g in games if g is not None] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert [schedule.opening_key(n) for n in range(6)] == [0, 0, 1, 1, 2, 2]
    assert [schedule.partner(n) for n in range(4)] == [1, 0, 3, 2]


def test_a_fastchess_gauntlet_s_seeds_also_meet_each_other() -> None:
    schedule = FastchessOrder(4, seeds=2, games_per_pairing=1, cycles=1)
    pairs = [(g.white, g.black) for n in range(schedule.total_games) if (g := schedule.game(n)) is not None]
    # fastchess's GauntletScheduler: player1 among the seeds, player2 after it; one game per pairing, so the
    # colours follow the game number across pairings
    assert pairs == [(0, 1), (2, 0), (0, 3), (2, 1), (1, 3)]
    assert [schedule.partner(n) for n in range(5)] == [None] * 5  # fastchess counts no pairs of single games
    assert [schedule.opening_key(n) for n in range(5)] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("noswap", "reverse", "whites"), [(False, False, [0, 1]), (True, False, [0, 0]), (False, True, [1, 0]),
                                      (True, True, [1, 1])],
)
def test_noswap_and_reverse_set_the_colours(noswap: bool, reverse: bool, whites: list[int]) -> None:
    for schedule in (FastchessOrder(2, cycles=1, noswap=noswap, reverse=reverse),
                     RoundRobin(2, games_per_pairing=2, noswap=noswap, reverse=reverse)):
        assert [g.white for n in range(2) if (g := schedule.game(n)) is not None] == whites
