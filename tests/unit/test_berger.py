"""Berger round-robin tables (FIDE C.05 Annex 1)."""

from __future__ import annotations

import itertools

import pytest

from tmanager.errors import ScheduleError
from tmanager.pairing import berger_round, round_robin

# FIDE's table for 5 or 6 players.
SIX = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]


@pytest.mark.parametrize("number", range(1, 6))
def test_six_players_match_the_fide_table(number: int) -> None:
    assert list(berger_round(6, number).boards) == SIX[number - 1]


def test_odd_field_gives_the_dummy_opponent_a_bye() -> None:
    for number in range(1, 6):
        pairing = berger_round(5, number)
        expected = [b for b in SIX[number - 1] if 6 not in b]
        assert list(pairing.boards) == expected
        assert pairing.bye is not None and pairing.bye not in {p for b in expected for p in b}


@pytest.mark.parametrize("players", [3, 4, 7, 8, 10, 13, 16])
def test_everyone_meets_everyone_once(players: int) -> None:
    met = [frozenset(b) for r in range(1, players - 1 + players % 2 + 1) for b in berger_round(players, r).boards]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(p) for p in itertools.combinations(range(1, players + 1), 2)), key=sorted
    )


@pytest.mark.parametrize("players", [4, 6, 8, 10])
def test_colours_never_three_in_a_row_within_a_cycle_and_balanced(players: int) -> None:
    colours: dict[int, str] = {p: "" for p in range(1, players + 1)}
    for r in range(1, players):
        for white, black in berger_round(players, r).boards:
            colours[white] += "w"
            colours[black] += "b"
    for seq in colours.values():
        assert "www" not in seq and "bbb" not in seq
        assert abs(seq.count("w") - seq.count("b")) <= 1


def test_double_round_robin_swaps_the_last_two_rounds_and_reverses_colours() -> None:
    assert round_robin(6, 4, cycles=2) == berger_round(6, 5)
    assert round_robin(6, 5, cycles=2) == berger_round(6, 4)
    second = round_robin(6, 6, cycles=2)
    assert second.boards == tuple((b, w) for w, b in berger_round(6, 1).boards)
    colours: dict[int, str] = {p: "" for p in range(1, 7)}
    for r in range(1, 11):
        for white, black in round_robin(6, r, cycles=2).boards:
            colours[white] += "w"
            colours[black] += "b"
    for seq in colours.values():
        assert "www" not in seq and "bbb" not in seq


def test_single_cycle_keeps_the_table_order() -> None:
    assert round_robin(6, 5) == berger_round(6, 5)


def test_out_of_range_rounds_are_refused() -> None:
    with pytest.raises(ScheduleError):
        berger_round(6, 6)
    with pytest.raises(ScheduleError):
        berger_round(1, 1)
    with pytest.raises(ScheduleError):
        round_robin(4, 7, cycles=2)
