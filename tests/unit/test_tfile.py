"""tsh .t files: the manual's example line, lossless round trips, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmanager.errors import ConfigError
from tmanager.events import tshfile
from tmanager.events.model import Division, PairingSystem, ScoredSettings
from tmanager.events.rules import default_system
from tmanager.formats import tsh
from tmanager.pairing.scored import Scorecard, tally

SEED_LINE = "Chew, John   1850 400 450 350; 10 4 3; p12 1 2 2; board 1 1 3"

DIVISION = """\
Chew, John          1850 400 50 350; 2 0 3; p12 1 0 2; board 1 0 2; class A; team TOR; lifeg 312
Saint John, Sherrie 1300 380 00 50; 1 3 0; p12 2 1 0; board 1 2 0; class B
Chew, Kristen       1200 50 390 400; 0 2 1; p12 0 2 1; board 0 2 2; class B; password xyzzy
Agent 99,           1000 -50; 0 00; off -50; team TOR
"""


def test_seed_example_line() -> None:
    player = tsh.parse_line(SEED_LINE, 1)
    assert player.name == "Chew, John"
    assert player.card.rating == 1850
    assert player.card.opponents == (10, 4, 3)
    assert player.card.scores == (400, 450, 350)
    assert player.card.p12 == (1, 2, 2)
    assert player.boards == (1, 1, 3)
    assert player.card.off is None and player.player_class is None and player.team is None


def test_seed_example_firsts_and_seconds_reach_the_standings() -> None:
    chew = tsh.parse_line(SEED_LINE, 1).card
    entrant = next(e for e in tally([chew, *(Scorecard(id=i) for i in range(2, 11))]) if e.id == 1)
    assert (entrant.firsts, entrant.seconds) == (1, 2)


def test_division_fields() -> None:
    players = tsh.loads(DIVISION)
    john, sherrie, kristen, agent = players
    assert [p.card.id for p in players] == [1, 2, 3, 4]
    assert john.card.opponents == (2, 0, 3)
    assert john.card.scores == (400, 50, 350)
    assert john.card.p12 == (1, 0, 2)
    assert john.player_class == "A" and john.team == "TOR"
    assert john.extra == (("lifeg", "312"),)
    assert sherrie.name == "Saint John, Sherrie" and sherrie.card.scores == (380, None, 50)
    assert kristen.extra == (("password", "xyzzy"),)
    # A name ending in a digit carries tsh's escaping comma in the file, not in the name.
    assert agent.name == "Agent 99" and agent.card.off == -50 and agent.team == "TOR"
    assert agent.card.opponents == (0, None)


def test_round_trip_loses_nothing(tmp_path: Path) -> None:
    players = tsh.loads(DIVISION)
    path = tmp_path / "a.t"
    tsh.write(path, players)
    again = tsh.read(path)
    assert again == players
    assert tsh.dumps(again) == path.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.t"]  # the atomic write left no temporary file


def test_round_trip_of_odd_names_and_minimal_lines() -> None:
    players = [
        tsh.TPlayer("Number 7", Scorecard(id=1, rating=0)),
        tsh.TPlayer("Comma 7,", Scorecard(id=2, rating=1500)),
        tsh.TPlayer("Nobody", Scorecard(id=3, rating=1400, p12=(3,))),
    ]
    text = tsh.dumps(players)
    assert text.splitlines()[0] == "Number 7, 0"
    assert tsh.loads(text) == players


def test_spaces_are_tolerated() -> None:
    player = tsh.parse_line("  Chew,   John    1850   400 ;  10 ;   p12   1  ", 1)
    assert player.name == "Chew, John"
    assert (player.card.scores, player.card.opponents, player.card.p12) == ((400,), (10,), (1,))


def test_standings_from_a_t_file() -> None:
    standings = {e.id: e for e in tally([p.card for p in tsh.loads(DIVISION)])}
    # John beat Sherrie by 20, had a +50 bye, lost to Kristen by 50.
    assert (standings[1].wins, standings[1].spread) == (2.0, 20)
    # Kristen's bye and win count; her round 2 game has only one score so far.
    assert (standings[3].wins, standings[3].spread) == (2.0, 100)
    assert (standings[2].wins, standings[2].spread) == (1.0, 30)
    assert standings[4].active is False and (standings[4].wins, standings[4].spread) == (0.0, -50)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Chew, John 1850; 5\nOther 1500; 0\n", "opponent 5 is not another player"),
        ("Chew, John 1850; 1\n", "opponent 1 is not another player"),
        ("A 1850; 2\nB 1500; 0\n", "player 2 has opponent 0 in that round, not 1"),
        # Paired on one line alone was read, and import-t then refused it naming the event file it was to write
        # ('x.toml: division 'x': round 2: board_numbers or p12 name a player without a game or bye in it').
        ("A 1850; 2\nB 1500; 00\n", "player 2 has no opponent in that round, not 1"),
        ("A 1850; 0 2\nB 1500; 0\n", "line of player 1: round 2: player 2 has no opponent in that round, not 1"),
        # A score without its round's opponent was dropped on import, and lost from the file written back.
        ("A 1850 400 450; 2\nB 1500 350; 1\n", "line of player 1: round 2: a score (450) but no opponent"),
        ("A 1850 400 450; 2 00\nB 1500 350; 1\n", "line of player 1: round 2: a score (450) but no opponent"),
        ("A 1850 400; 2x\n", "'2x' is not a number"),
        ("1850 400\n", "needs a name followed by a rating"),
        ("Chew, John\n", "needs a name followed by a rating"),
        ("A 1850; 0; p12 7\n", "p12 codes are 0 to 4"),
        ("A 1850; 0; off -50 20\n", "off takes one number"),
        ("A 1850; 0; class A B\n", "needs one word"),
        ("A 1850; 0; p12 1; p12 2\n", "p12 is given twice"),
        # Other scripts' digits are no numbers ('٣' matches \d), and a number of thousands of digits was a
        # traceback from int().
        ("A 1850; \u0663\n", "'\u0663' is not a number"),
        ("A 1850 " + "9" * 5000 + "; 0\n", "has 5000 digits (at most 9)"),
    ],
)
def test_errors_name_the_line_and_the_fault(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        tsh.loads(text, file="d.t")
    assert message in str(error.value)
    assert str(error.value).startswith("d.t: line of player")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no such \.t file"):
        tsh.read(tmp_path / "none.t")


def _imported(text: str) -> Division:
    division = Division("x", system=PairingSystem(default_system(score_based=True)), scored=ScoredSettings())
    tshfile.from_t(tsh.loads(text, file="d.t"), division, file=Path("d.t"))
    return division


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Beyond the file's rounds: dropped on import, and export-t wrote the line back as 'p12 1 2'.
        ("A 1850 400 300; 2 2; p12 1 2 1 1\nB 1500 350 320; 1 1; p12 2 1\n",
         "d.t: line of player 1: p12: 1 for round 3, in which the player has no opponent (one p12 value per round "
         "played, or give the round's opponent, 0 for a bye)"),
        # In a round the others played: refused by the event file's check, naming the file still to be written.
        ("A 1850; 2 00; board 1 2\nB 1500; 1 3\nC 1400; 0 2\n", "d.t: line of player 1: board: 2 for round 2,"),
        # tsh's 00 is a score not assigned yet: the game read as pending, the 400 was dropped without a word and
        # export-t wrote 00 for both.
        ("A 1850 400; 2\nB 1500 00; 1\n", "d.t: line of player 2: scores: round 1: no score (00 or none) against "
                                        "player 1's 400 (enter both scores of the game, or neither while it is "
                                        "still to be entered)"),
        ("A 1850 400 00; 2 2\nB 1500 350 390; 1 1\n", "d.t: line of player 1: scores: round 2: no score (00 or "
                                                     "none) against player 2's 390"),
        # An unscored bye read as a pairing bye worth bye_spread (a win), and export-t wrote 50 for the 00.
        ("A 1850 400; 2\nB 1500 350; 1\nC 1400 00; 0\n", "d.t: line of player 3: scores: round 1: a bye "
                                                         "(opponent 0) without its spread (00 or none) (enter the "
                                                         "bye's spread first, e.g. 50, or -50 for a forfeit loss)"),
        ("A 1850 400; 2 0\nB 1500 350; 1 3\nC 1400 50; 0 2\n", "d.t: line of player 1: scores: round 2: a bye"),
    ],
)
def test_codes_of_rounds_not_played_and_games_half_entered_are_refused_naming_the_line(
        text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        _imported(text)
    assert str(error.value).startswith(message), str(error.value)


def test_zero_codes_of_rounds_not_played_say_nothing_and_are_read() -> None:
    """p12 0 (neither) and board 0 (no board) hold nothing for a round without an opponent: not refused."""
    division = _imported("A 1850; 2 00; p12 1 0; board 1 0\nB 1500 00 50; 1 0; p12 2 0 0; board 1\n")
    assert division.paired_rounds == 2
