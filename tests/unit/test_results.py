"""core.results: one vocabulary, converted to and from every spelling a file or a person uses."""

from __future__ import annotations

import pytest

from tmanager.core.results import ByeKind, Colour, Result, TrfResult, format_points


@pytest.mark.parametrize(("typed", "result"), [
    ("1-0", Result.WHITE_WINS), ("w", Result.WHITE_WINS), ("0:1", Result.BLACK_WINS), ("=", Result.DRAW),
    ("1/2-1/2", Result.DRAW), (" ½ ", Result.DRAW), ("+-", Result.WHITE_WINS_BY_FORFEIT), ("--", Result.DOUBLE_FORFEIT),
    ("Postponed", Result.ADJOURNED), ("*", Result.PENDING),
])  # fmt: skip
def test_what_arbiters_type(typed: str, result: Result) -> None:
    assert Result.parse(typed) is result


def test_a_typo_is_not_a_result() -> None:
    with pytest.raises(ValueError, match="'1-1' is not a result"):
        Result.parse("1-1")


@pytest.mark.parametrize("result", [Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW])
def test_games_played_go_through_pgn_and_xboard_and_trf_unchanged(result: Result) -> None:
    assert Result.from_pgn(result.pgn) is result
    assert Result.from_xboard(result.xboard) is result
    assert Result.from_trf(*result.trf_codes) is result


def test_the_engine_tourneys_alphabet() -> None:
    assert [Result.from_xboard(c) for c in "+-=* "] == [
        Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW, Result.PENDING, Result.PENDING,
    ]
    unplayed = (Result.WHITE_WINS_BY_FORFEIT, Result.DOUBLE_FORFEIT, Result.ADJOURNED)
    assert [r.xboard for r in unplayed] == ["+", " ", " "]
    assert Result.from_pgn("*") is Result.PENDING


def test_forfeits_in_pgn_and_trf() -> None:
    assert Result.BLACK_WINS_BY_FORFEIT.pgn == "0-1"
    assert Result.DOUBLE_FORFEIT.pgn == "*"
    assert Result.BLACK_WINS_BY_FORFEIT.trf_codes == ("-", "+")
    assert Result.from_trf(TrfResult.UNRATED_WIN, TrfResult.UNRATED_LOSS) is Result.WHITE_WINS
    assert Result.from_trf(TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_WIN) is None


def test_seen_from_the_other_side() -> None:
    assert Result.WHITE_WINS_BY_FORFEIT.reversed is Result.BLACK_WINS_BY_FORFEIT
    assert Result.DRAW.reversed is Result.DRAW
    assert Result.WHITE_WINS.reversed.reversed is Result.WHITE_WINS


def test_colours_and_byes() -> None:
    assert Colour.parse("white") is Colour.WHITE and Colour.parse("b") is Colour.BLACK
    assert Colour.WHITE.other is Colour.BLACK
    with pytest.raises(ValueError, match="write white or black"):
        Colour.parse("red")
    byes = [ByeKind.from_trf(TrfResult.parse(c)) for c in "UFHZ-"]
    assert byes == [ByeKind.PAIRING, ByeKind.FULL, ByeKind.HALF, ByeKind.ZERO, None]


def test_points_in_tenths() -> None:
    assert [format_points(t) for t in (0, 5, 35, 40, 23)] == ["0", "½", "3½", "4", "2.3"]
    assert format_points(35, decimal=True) == "3.5"
