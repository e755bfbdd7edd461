"""A result as the arbiter gives it, read into a typed entry by the division's rules, without a process or a file:
result lines of each kind of division (``parse_entry``) and a board's result form on the arbiter's page
(``EntryForm.entry``)."""

from __future__ import annotations

import pytest

from tmanager.core.results import Result
from tmanager.errors import StateError
from tmanager.events.entries import BoardRef, PlayersRef, ResultEntry, ScoreEntry
from tmanager.events.messages import Topic
from tmanager.events.model import Division, EntryMode, Event, PairingSystem, Player, ScoredSettings, TeamSettings
from tmanager.events.operations import find_player
from tmanager.events.rules import ChessRules, DivisionRules, ScoreRules, TeamRules, rules_for


def rules_of(division: Division) -> DivisionRules:
    return rules_for(Event(name="Entries", rounds=5, divisions=[division]), division)


def chess() -> DivisionRules:
    rules = rules_of(Division("A"))
    assert type(rules) is ChessRules
    return rules


def team() -> DivisionRules:
    rules = rules_of(Division("A", system=PairingSystem.TEAM_SWISS, team_settings=TeamSettings(team_size=4)))
    assert isinstance(rules, TeamRules)
    return rules


def scored(entry: EntryMode) -> DivisionRules:
    rules = rules_of(Division("A", system=PairingSystem.KOTH, scored=ScoredSettings(entry=entry)))
    assert isinstance(rules, ScoreRules)
    return rules


def refusal(rules: DivisionRules, *words: str) -> StateError:
    with pytest.raises(StateError) as caught:
        rules.parse_entry(words)
    return caught.value


def test_a_chess_line_names_a_board_or_two_players_then_the_result() -> None:
    rules = chess()
    assert rules.parse_entry(["4", "1-0"]) == ResultEntry(BoardRef(4), Result.WHITE_WINS)
    assert rules.parse_entry(["Smith", "12", "="]) == ResultEntry(PlayersRef("Smith", "12"), Result.DRAW)
    assert rules.parse_entry(["7", "-+"]) == ResultEntry(BoardRef(7), Result.BLACK_WINS_BY_FORFEIT)
    assert "'x' is not a board number" in str(refusal(rules, "x", "1-0"))
    assert "give BOARD RESULT or P1 P2 RESULT" in str(refusal(rules, "4"))
    assert "give BOARD RESULT or P1 P2 RESULT" in str(refusal(rules, "4", "1-0", "x", "y"))
    assert refusal(rules, "4", "9-9").topic == Topic.NOT_A_RESULT


def test_a_team_line_may_name_a_board_of_a_match() -> None:
    rules = team()
    assert rules.parse_entry(["2.3", "0-1"]) == ResultEntry(BoardRef(3, match=2), Result.BLACK_WINS)
    assert rules.parse_entry(["0.1", "="]) == ResultEntry(BoardRef(1, match=0), Result.DRAW)  # refused on entry
    assert rules.parse_entry(["4", "1-0"]) == ResultEntry(BoardRef(4), Result.WHITE_WINS)
    assert rules.parse_entry(["Ann", "Bob", "1-0"]) == ResultEntry(PlayersRef("Ann", "Bob"), Result.WHITE_WINS)
    assert "'2.x' is not MATCH.BOARD" in str(refusal(rules, "2.x", "1-0"))


def test_a_score_line_takes_the_numbers_of_the_entry_mode_first_player_first() -> None:
    scores, spread, both = scored(EntryMode.SCORES), scored(EntryMode.SPREAD), scored(EntryMode.BOTH)
    assert scores.parse_entry(["3", "412", "389"]) == ScoreEntry(BoardRef(3), (412, 389))
    assert scores.parse_entry(["7", "412", "12", "389"]) == ScoreEntry(PlayersRef("7", "12"), (412, 389))
    assert spread.parse_entry(["3", "-40"]) == ScoreEntry(BoardRef(3), (-40,))
    assert spread.parse_entry(["Ace", "50", "Baker"]) == ScoreEntry(PlayersRef("Ace", "Baker"), (50,))
    assert both.parse_entry(["3", "400", "350", "50"]) == ScoreEntry(BoardRef(3), (400, 350, 50))
    by_players = ScoreEntry(PlayersRef("Ace", "Cole"), (400, 350, 50))
    assert both.parse_entry(["Ace", "400", "Cole", "350", "50"]) == by_players


def test_a_score_line_may_give_a_forfeit_or_clear_the_result_instead() -> None:
    rules = scored(EntryMode.SCORES)
    assert rules.parse_entry(["3", "+-"]) == ResultEntry(BoardRef(3), Result.WHITE_WINS_BY_FORFEIT)
    assert rules.parse_entry(["Ace", "Baker", "--"]) == ResultEntry(PlayersRef("Ace", "Baker"), Result.DOUBLE_FORFEIT)
    assert rules.parse_entry(["3", "*"]) == ResultEntry(BoardRef(3), Result.PENDING)
    assert "'x' is not a board number" in str(refusal(rules, "x", "+-"))


def test_a_score_line_of_the_wrong_shape_is_refused_with_the_forms() -> None:
    rules = scored(EntryMode.SCORES)
    assert "give BOARD S1 S2 or P1 S1 P2 S2 (entry = 'scores')" in str(refusal(rules, "3", "1-0"))
    assert "give BOARD S1 S2 or P1 S1 P2 S2" in str(refusal(rules, "3", "412"))
    assert "'4x2' is not a score" in str(refusal(rules, "3", "4x2", "389"))
    assert "give BOARD SPREAD or P1 SPREAD P2" in str(refusal(scored(EntryMode.SPREAD), "3", "40", "5", "9"))


def test_a_chess_result_form_gives_its_chosen_result_for_its_board() -> None:
    form = chess().entry_form()
    assert form.entry(5, {"result": "="}) == ResultEntry(BoardRef(5), Result.DRAW)
    assert form.entry(2, {"result": "+-", "s1": "1"}) == ResultEntry(BoardRef(2), Result.WHITE_WINS_BY_FORFEIT)
    with pytest.raises(StateError):
        form.entry(5, {})


def test_a_score_form_gives_its_numbers_or_the_forfeit_chosen() -> None:
    form = scored(EntryMode.SCORES).entry_form()
    assert form.entry(2, {"s1": "412", "s2": " 389 ", "forfeit": ""}) == ScoreEntry(BoardRef(2), (412, 389))
    forfeit = ResultEntry(BoardRef(2), Result.BLACK_WINS_BY_FORFEIT)
    assert form.entry(2, {"s1": "", "s2": "", "forfeit": "-+"}) == forfeit
    # The fields as the page calls them (it said "s2 is empty").
    with pytest.raises(StateError, match=r"give the first player's score and .*; the second player's score is empty"):
        form.entry(2, {"s1": "412", "s2": " "})
    with pytest.raises(StateError, match="'a' is not a score"):
        form.entry(2, {"s1": "a", "s2": "389"})
    spread = scored(EntryMode.SPREAD).entry_form()
    assert spread.entry(1, {"spread": "-35"}) == ScoreEntry(BoardRef(1), (-35,))


FIVE = "A, P1 (1), A, P2 (2), A, P3 (3), A, P4 (4), A, P5 (5)"


@pytest.mark.parametrize(("players", "listed"), [(5, f"5 players: {FIVE} ("), (8, f"8 players: {FIVE}, … (")])
def test_a_name_many_players_share_lists_the_first_five_and_says_there_are_more(players: int, listed: str) -> None:
    """8 players matched were listed as 5, with nothing to say that the list was cut."""
    division = Division(name="A", players=[Player(number=n, name=f"A, P{n}") for n in range(1, players + 1)])
    with pytest.raises(StateError) as refused:
        find_player(division, "A, P")
    assert str(refused.value) == f"player: 'A, P' matches {listed}type more of the name, or the number)"
