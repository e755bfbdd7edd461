"""The FIDE Dutch engine: hand-checked cases per criterion, and bbpPairings' pairings as regression vectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmanager.cli.pair import _round_view, format_pairing
from tmanager.core.results import Colour, TrfResult
from tmanager.errors import PairingError
from tmanager.formats import trf
from tmanager.pairing import Game, Pairing, PlayerState, PointsSystem, pair_round

DATA = Path(__file__).parents[1] / "data" / "bbp"
_SCORES = {"1-0": ("1", "0"), "0-1": ("0", "1"), "=": ("=", "="), "+-": ("+", "-")}


def history(
    players: int, rounds: list[list[tuple[int, int, str]]], byes: dict[int, dict[int, str]] | None = None
) -> list[PlayerState]:
    """Players 1..n after ``rounds`` of ``(white, black, result)``.

    ``byes[r][id]`` is an unplayed entry of round r+1.
    """
    byes = byes or {}
    games: dict[int, list[Game]] = {i: [] for i in range(1, players + 1)}
    for index in range(len(rounds) + 1):
        for white, black, result in rounds[index] if index < len(rounds) else []:
            w, b = _SCORES[result]
            games[white].append(Game(black, Colour.WHITE, TrfResult.parse(w)))
            games[black].append(Game(white, Colour.BLACK, TrfResult.parse(b)))
        for pid, code in byes.get(index, {}).items():
            games[pid].append(Game(None, None, TrfResult.parse(code)))
    return [PlayerState(id=i, games=tuple(g)) for i, g in games.items()]


def pair(players: list[PlayerState], rounds: int = 5, **kwargs: object) -> Pairing:
    number = max(len(p.games) for p in players if p.games) + 1 if any(p.games for p in players) else 1
    number = min(number, 1 + min(len(p.games) for p in players))
    return pair_round(players, round_number=number, total_rounds=rounds, **kwargs)  # type: ignore[arg-type]


def test_round_one_top_half_meets_bottom_half_with_alternating_colours() -> None:
    result = pair(history(6, []))
    assert result == Pairing(((1, 4), (5, 2), (3, 6)), None)
    assert pair(history(6, []), initial_colour=Colour.BLACK).boards == ((4, 1), (2, 5), (6, 3))


def test_odd_field_gives_the_bye_to_the_lowest_ranked() -> None:
    result = pair(history(5, []))
    assert result.bye == 5
    assert result.boards == ((1, 3), (4, 2))


def test_no_rematch_and_colour_preferences_decide_within_a_bracket() -> None:
    # All draws: one bracket {1,2,3,4}. 1-3 and 2-4 would be rematches; 1-2 and 3-4
    # satisfy every colour preference (1 and 4 had white).
    players = history(4, [[(1, 3, "="), (4, 2, "=")]])
    assert set(pair(players).boards) == {(2, 1), (3, 4)}


def test_no_second_pairing_allocated_bye() -> None:
    # Round 1: 5 had the bye. In round 2 the lowest scorer without a bye gets it.
    players = history(5, [[(1, 3, "1-0"), (4, 2, "0-1")]], byes={0: {5: "U"}})
    result = pair(players)
    assert result.bye != 5
    assert result.bye in (3, 4)


def test_no_bye_after_a_forfeit_win() -> None:
    # 5 won by forfeit in round 1: an unplayed win, so no pairing-allocated bye.
    players = history(5, [[(1, 2, "="), (5, 4, "+-")]], byes={0: {3: "U"}})
    assert pair(players).bye not in (5, 3)


def test_requested_bye_leaves_the_player_out() -> None:
    players = history(4, [[(1, 3, "1-0"), (4, 2, "0-1")]], byes={1: {2: "H"}})
    result = pair(players)
    assert 2 not in {p for board in result.boards for p in board}
    assert result.bye is not None


SIX = [[(1, 3, "1-0"), (2, 4, "1-0"), (6, 5, "1-0")], [(1, 5, "1-0"), (2, 6, "1-0"), (3, 4, "1-0")]]


def test_absolute_colour_preferences_never_clash() -> None:
    # 1 and 2 lead with 2/2 and both had white twice: both must have black.
    result = pair(history(6, SIX), rounds=5)
    assert all({1, 2} != set(b) for b in result.boards)
    assert {b[1] for b in result.boards} >= {1, 2}
    # Four players, only 1-2 and 3-4 left unplayed, and both pairs clash: no pairing.
    four = [[(1, 3, "1-0"), (2, 4, "1-0")], [(1, 4, "1-0"), (2, 3, "1-0")]]
    with pytest.raises(PairingError):
        pair(history(4, four), rounds=5)


def test_topscorers_may_break_absolute_colours_in_the_last_round() -> None:
    result = pair(history(6, SIX), rounds=3)
    assert any({1, 2} == set(b) for b in result.boards)


def test_forbidden_pairs_are_respected() -> None:
    result = pair(history(4, []), forbidden=[{1, 3}])
    assert all({1, 3} != set(b) for b in result.boards)
    assert len(result.boards) == 2


def test_no_valid_pairing_is_an_error() -> None:
    players = history(2, [[(1, 2, "1-0")]])
    with pytest.raises(PairingError):
        pair(players)


def test_equal_colour_histories_give_the_higher_ranked_player_his_preference() -> None:
    # 1 and 2 both played white then black: both prefer white, no round in which
    # their colours differed, so the higher ranked (1) gets white (C.04.3 E.4/E.5).
    rounds = [[(1, 3, "="), (2, 4, "=")], [(4, 1, "="), (3, 2, "=")]]
    assert (1, 2) in pair(history(4, rounds)).boards


def test_equal_preferences_alternate_from_the_last_round_with_different_colours() -> None:
    # Both prefer white (no imbalance, black last). Going back, round 2 is the latest
    # in which their colours differed (1 white, 2 black): so now 1 gets black (E.3).
    def player(pid: int, colours: str, first_opponent: int) -> PlayerState:
        games = tuple(Game(first_opponent + i, Colour(c), TrfResult.DRAW) for i, c in enumerate(colours))
        return PlayerState(id=pid, games=games)

    players = [player(1, "bwwb", 11), player(2, "wbwb", 21)]
    assert pair_round(players, round_number=5, total_rounds=9).boards == ((2, 1),)


def test_points_system_changes_score_groups() -> None:
    # With 3 points for a win and 1 for a draw a win outranks two draws.
    players = history(4, [[(1, 3, "1-0"), (4, 2, "=")]])
    football = PointsSystem(win=30, draw=10, pairing_bye=30)
    assert pair(players, points=football).boards[0] in ((1, 2), (2, 1), (4, 1), (1, 4))


def test_heterogeneous_bracket_pairs_the_downfloater_with_the_highest_resident() -> None:
    # After round 1 (1, 2, 3 won; 4, 5, 6 lost) the top group {1,2,3} is odd: 3 floats
    # down and meets 4, the highest player of the 0-point group it has not met.
    players = history(6, [[(1, 4, "1-0"), (5, 2, "0-1"), (3, 6, "1-0")]])
    result = pair(players)
    pairs = {frozenset(b) for b in result.boards}
    assert pairs == {frozenset((1, 2)), frozenset((3, 4)), frozenset((5, 6))}


@pytest.mark.parametrize("path", sorted(DATA.glob("random-*.trf")), ids=lambda p: p.stem)
def test_bbppairings_random_tournaments_are_reproduced(path: Path) -> None:
    """Every round of tournaments generated (and so paired) by bbpPairings, colours included."""
    tournament = trf.read(path)
    played = tournament.played_rounds
    for number in range(1, played + 1):
        states, actual = _round_view(tournament, number)
        ours = pair_round(
            states,
            round_number=number,
            total_rounds=tournament.total_rounds or played,
            forbidden=tournament.forbidden,
            points=tournament.points,
            initial_colour=tournament.first_colour(),
        )
        assert set(ours.boards) == set(actual.boards), f"round {number}"
        assert ours.bye == actual.bye, f"round {number}"


def test_next_round_output_matches_bbppairings_byte_for_byte() -> None:
    tournament = trf.read(DATA / "next-round.trf")
    assert tournament.total_rounds is not None
    result = pair_round(
        tournament.states(),
        round_number=tournament.played_rounds + 1,
        total_rounds=tournament.total_rounds,
        points=tournament.points,
        initial_colour=tournament.first_colour(),
    )
    assert format_pairing(result) == (DATA / "next-round.expected").read_text()
