"""A TRF round's result code as one enum: read once where a TRF comes in, written back as its code, asked as members."""

from __future__ import annotations

import pytest

from tmanager.core.results import ByeKind, Colour, Outcome, Result, TrfResult
from tmanager.core.scoring import STANDARD, Game, PointsSystem
from tmanager.errors import ConfigError
from tmanager.formats import trf
from tmanager.formats.trf_records import ByeCode

#: Every code TRF-16 and TRF-2026 give a round, with the member it is read into.
CODES = {
    "1": TrfResult.WIN, "=": TrfResult.DRAW, "0": TrfResult.LOSS, "W": TrfResult.UNRATED_WIN,
    "D": TrfResult.UNRATED_DRAW, "L": TrfResult.UNRATED_LOSS, "+": TrfResult.FORFEIT_WIN,
    "-": TrfResult.FORFEIT_LOSS, "U": TrfResult.PAIRING_BYE, "F": TrfResult.FULL_BYE, "H": TrfResult.HALF_BYE,
    "Z": TrfResult.ZERO_BYE, " ": TrfResult.NOT_PLAYED,
}  # fmt: skip


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_read_into_its_member_and_written_back_as_it(code: str) -> None:
    member = TrfResult.parse(code)
    assert member is CODES[code] and member.value == code and f"{member}" == code


def test_the_enum_holds_the_codes_and_nothing_else() -> None:
    assert {m.value for m in TrfResult} == set(CODES)


@pytest.mark.parametrize("text", ["X", "u", "", "1 ", "½", "A"])
def test_another_text_is_not_a_code(text: str) -> None:
    with pytest.raises(ValueError, match=r"is not a TRF result; write one of 1 = 0 \+ - W D L H F U Z or a space"):
        TrfResult.parse(text)


def test_what_a_round_is_asked() -> None:
    assert {m for m in TrfResult if m.played} == {
        TrfResult.WIN, TrfResult.DRAW, TrfResult.LOSS, TrfResult.UNRATED_WIN, TrfResult.UNRATED_DRAW,
        TrfResult.UNRATED_LOSS,
    }  # fmt: skip
    assert {m for m in TrfResult if m.forfeit} == {TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_LOSS}
    assert {m for m in TrfResult if m.pairing_allocated} == {TrfResult.PAIRING_BYE, TrfResult.FORFEIT_WIN}
    assert {m for m in TrfResult if m.full_point_bye} == {TrfResult.PAIRING_BYE, TrfResult.FULL_BYE}
    assert {m for m in TrfResult if m.outcome is Outcome.WIN} == {
        TrfResult.WIN, TrfResult.UNRATED_WIN, TrfResult.FORFEIT_WIN, TrfResult.FULL_BYE, TrfResult.PAIRING_BYE,
    }  # fmt: skip
    assert {m for m in TrfResult if m.outcome is Outcome.DRAW} == {
        TrfResult.DRAW, TrfResult.UNRATED_DRAW, TrfResult.HALF_BYE,
    }  # fmt: skip
    assert {m: m.rated_score for m in TrfResult if m.rated_score is not None} == {
        TrfResult.WIN: 1.0, TrfResult.DRAW: 0.5, TrfResult.LOSS: 0.0,
    }  # fmt: skip


def test_the_opponent_s_code_for_the_same_game() -> None:
    pairs = [("1", "0"), ("=", "="), ("W", "L"), ("D", "D"), ("+", "-")]
    for mine, theirs in pairs:
        assert TrfResult.parse(mine).opposite is TrfResult.parse(theirs)
        assert TrfResult.parse(theirs).opposite is TrfResult.parse(mine)
    assert all(m.opposite is m for m in (TrfResult.HALF_BYE, TrfResult.ZERO_BYE, TrfResult.NOT_PLAYED))


def test_points_of_every_kind_of_round() -> None:
    three = PointsSystem(win=30, draw=10, loss=0, zero_bye=0, forfeit_loss=-10, pairing_bye=20)
    rounds = {
        Game(2, None, TrfResult.WIN): 30, Game(2, None, TrfResult.UNRATED_DRAW): 10, Game(2, None, TrfResult.LOSS): 0,
        Game(2, None, TrfResult.FORFEIT_WIN): 30, Game(2, None, TrfResult.FORFEIT_LOSS): -10,
        Game(None, None, TrfResult.PAIRING_BYE): 20, Game(None, None, TrfResult.FORFEIT_WIN): 20,
        Game(None, None, TrfResult.FULL_BYE): 30, Game(None, None, TrfResult.HALF_BYE): 10,
        Game(None, None, TrfResult.ZERO_BYE): 0, Game(None, None, TrfResult.FORFEIT_LOSS): 0,
        Game(2, Colour.WHITE, TrfResult.NOT_PLAYED): 0,  # paired, its result not in yet: no forfeit's -1
    }  # fmt: skip
    assert {game: three.points(game) for game in rounds} == rounds
    assert STANDARD.points(Game(None, None, TrfResult.HALF_BYE)) == 5


def test_results_and_byes_give_and_take_members() -> None:
    assert Result.WHITE_WINS_BY_FORFEIT.trf_codes == (TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_LOSS)
    assert all(type(code) is TrfResult for result in Result for code in result.trf_codes)
    assert [kind.trf_code for kind in ByeKind] == [TrfResult.parse(c) for c in "UFHZ-"]
    assert [code.result for code in ByeCode] == [TrfResult.FULL_BYE, TrfResult.HALF_BYE, TrfResult.ZERO_BYE]


def _line(pid: int, points: str, *blocks: str) -> str:
    head = (f"001 {pid:4d}".ljust(14) + f"Player {pid}").ljust(48) + "2000"
    return "  ".join([head.ljust(80) + f"{points:>4} {pid:4d}", *blocks]).rstrip()  # as TRF writers end a line


#: Every code in a file: games won, drawn and lost (rated or not), forfeits, the four byes, a game still to play.
EVERY_CODE = "\n".join([
    "012 Codes", "XXR 6",
    _line(1, "4.5", "   2 w 1", "   3 b W", "   4 w +", "0000 - U", "0000 - H", "   2 b  "),
    _line(2, "2.0", "   1 b 0", "   4 b D", "0000 - F", "   3 w =", "0000 - Z", "   1 w  "),
    _line(3, "1.0", "   4 w =", "   1 w L", "0000 - Z", "   2 b =", "   4 b -"),
    _line(4, "2.0", "   3 b =", "   2 w D", "   1 b -", "0000 - -", "   3 w +"),
]) + "\n"  # fmt: skip


def test_a_trf_s_codes_are_read_into_members_and_written_back_byte_for_byte() -> None:
    tournament = trf.parse(EVERY_CODE, file="codes.trf")
    read = [g.result for p in tournament.players for g in p.games]
    assert all(type(code) is TrfResult for code in read)
    assert set(read) == set(TrfResult)
    assert trf.dumps(tournament) == EVERY_CODE


@pytest.mark.parametrize("code", ["X", "?", "5"])
def test_an_unknown_code_in_a_trf_is_one_line_naming_the_file_and_field(code: str) -> None:
    text = "012 Codes\n" + _line(1, "1.0", f"   2 w {code}") + "\n" + _line(2, "0.0", "   1 b 0") + "\n"
    with pytest.raises(ConfigError) as raised:
        trf.parse(text, file="codes.trf")
    assert str(raised.value) == (
        f"codes.trf: line 2: round 1: bad colour 'w' or result '{code}' "
        "(colour is w, b or -; result one of 1 = 0 + - W D L H F U Z)"
    )
