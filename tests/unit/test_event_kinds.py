"""The arbiter side's kinds are enums read once where their text comes in: an event file's words, TRF codes, the
team scores' codes. A good word becomes its member; another is refused in the one wording it always had."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from tmanager import tomlmap
from tmanager.core.playerfields import RatingKind, Sex
from tmanager.core.results import REQUESTED_BYES, ByeKind, Colour
from tmanager.core.teams import TeamScore
from tmanager.errors import ConfigError, StateError
from tmanager.events.model import (
    Acceleration,
    Division,
    Event,
    InitialColour,
    Opening,
    Player,
    ScoredSettings,
    TeamBye,
    TeamSettings,
)
from tmanager.events.operations import request_bye
from tmanager.formats.trf_records import Bye, ByeCode, Forfeit, ForfeitCode

#: (the class, the table without the field, the field, a good word, its member, the words another is refused with)
FIELDS: list[tuple[type[Any], dict[str, Any], str, str, enum.Enum, str]] = [
    (Event, {"name": "X"}, "rating_list", "rapid", RatingKind.RAPID, "'standard', 'rapid', 'blitz'"),
    (Division, {"name": "A"}, "acceleration", "baku", Acceleration.BAKU, "'baku'"),
    (Division, {"name": "A"}, "initial_colour", "black", InitialColour.BLACK, "'white', 'black'"),
    (TeamSettings, {"team_size": 4}, "primary", "game", TeamScore.GAME, "'match', 'game'"),
    (TeamSettings, {"team_size": 4}, "team_bye", "win", TeamBye.WIN, "'win', 'draw', 'loss'"),
    (ScoredSettings, {}, "initial", "init-fontes", Opening.INIT_FONTES, "'random', 'init-fontes'"),
    (Player, {"number": 1, "name": "A, B"}, "sex", "w", Sex.WOMAN, "'m', 'w'"),
]  # fmt: skip


@pytest.mark.parametrize(("cls", "table", "name", "word", "member", "refusal"), FIELDS)
def test_a_file_word_is_read_into_its_member_and_written_back_as_the_word(
    cls: type[Any], table: dict[str, Any], name: str, word: str, member: enum.Enum, refusal: str
) -> None:
    read = tomlmap.from_table(cls, {**table, name: word}, "x", None)
    assert getattr(read, name) is member
    written = tomlmap.to_table(read, keep_defaults=True)[name]
    assert written == word and type(written) is str


@pytest.mark.parametrize(("cls", "table", "name", "word", "member", "refusal"), FIELDS)
def test_another_word_is_refused_in_one_line(
    cls: type[Any], table: dict[str, Any], name: str, word: str, member: enum.Enum, refusal: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        tomlmap.from_table(cls, {**table, name: "bogus"}, "x", None)
    assert str(caught.value) == f"x.{name}: 'bogus' is not one of {refusal}"


def test_the_defaults_are_members() -> None:
    division = Division("A", team_settings=TeamSettings(team_size=4), scored=ScoredSettings())
    assert division.acceleration is Acceleration.NONE and division.initial_colour is None
    assert division.team_settings is not None and division.team_settings.primary is TeamScore.MATCH
    assert division.team_settings.team_bye is TeamBye.DRAW
    assert division.scored is not None and division.scored.initial is Opening.NONE
    assert Event("X").rating_list is RatingKind.STANDARD and Player(1, "A, B").sex is Sex.NONE


def test_trf_bye_and_forfeit_records_read_into_members() -> None:
    bye = Bye.read("240 H 003    7   12")
    assert bye.kind is ByeCode.HALF and bye.write() == "240 H 003    7   12"
    forfeit = Forfeit.read("330 -+ 002   1   4")
    assert forfeit.kind is ForfeitCode.BLACK_WINS and forfeit.write() == "330 -+ 002   1   4"
    with pytest.raises(ValueError, match=r"^bye type 'X' is not F, H or Z$"):
        Bye.read("240 X 003    7")
    with pytest.raises(ValueError, match=r"^forfeit type '\+\+' is not \+-, -\+ or --$"):
        Forfeit.read("330 ++ 002   1   4")


def test_a_team_score_by_word_and_by_code() -> None:
    assert [(s.code, s.other) for s in TeamScore] == [("MP", TeamScore.GAME), ("GP", TeamScore.MATCH)]
    assert TeamScore.from_code("MP") is TeamScore.MATCH and TeamScore.from_code("GP") is TeamScore.GAME


@pytest.mark.parametrize(("text", "sex"), [("m", Sex.MAN), ("M", Sex.MAN), ("F", Sex.WOMAN), ("w", Sex.WOMAN),
                                           (" ", Sex.NONE), ("", Sex.NONE), ("x", Sex.NONE)])  # fmt: skip
def test_a_sex_as_trf_and_fide_lists_write_it(text: str, sex: Sex) -> None:
    assert Sex.read(text) is sex


def test_the_initial_colour_word_and_its_colour() -> None:
    assert [InitialColour.of(c).colour for c in Colour] == list(Colour)
    assert Division("A").first_colour is Colour.WHITE
    assert Division("A", initial_colour=InitialColour.BLACK).first_colour is Colour.BLACK


@pytest.mark.parametrize("kind", [ByeKind.HALF, ByeKind.ZERO, ByeKind.FULL])
def test_a_requested_bye_is_read_from_its_word(kind: ByeKind) -> None:
    assert kind in REQUESTED_BYES and ByeKind.requested(kind.value) is kind


@pytest.mark.parametrize("word", ["pairing", "forfeit", "Half", "double", ""])
def test_a_bye_nobody_may_ask_for_is_refused_by_its_word(word: str) -> None:
    with pytest.raises(ValueError, match=f"^a requested bye is 'half', 'zero' or 'full', not '{word}'$"):
        ByeKind.requested(word)


@pytest.mark.parametrize("kind", [ByeKind.PAIRING, ByeKind.FORFEIT])
def test_a_bye_nobody_may_ask_for_is_refused_as_a_member_too(kind: ByeKind) -> None:
    event = Event(name="X", divisions=[Division(name="A", players=[Player(number=1, name="A, B")])])
    division = event.division()
    with pytest.raises(StateError, match=f"^a requested bye is 'half', 'zero' or 'full', not '{kind.value}'$"):
        request_bye(event, division, division.player(1), 1, kind)
    assert not any(r.byes for r in division.rounds)
