"""Results changed by hand in a tourney's results string, and their correction in its PGN (no process)."""

from __future__ import annotations

from pathlib import Path

from tmanager.formats.pgn import correct_results
from tmanager.tourney.resultchanges import HandEdits

GAME = """[Event "t"]
[White "{white}"]
[Black "{black}"]
[Result "{result}"]
[GameNumber "{number}"]

1. e4 e5 {{ {comment} }} {result}

"""


def test_hand_edits_tell_games_set_back_from_games_given_another_result() -> None:
    edits = HandEdits.between("+-=+*", "+ -= = ")  # 1 set back, 2 and 3 rescored, 4 was being played
    assert edits.replayed == (1,)
    assert edits.rescored == {2: ("1/2-1/2", "0-1"), 3: ("1-0", "1/2-1/2")}
    assert HandEdits.between("+-", "+-  ") == HandEdits()  # new games: not an edit of a played one


def test_correct_results_rewrites_the_tag_and_the_marker_of_current_games_only(tmp_path: Path) -> None:
    pgn = tmp_path / "t.pgn"
    played_before = GAME.format(white="A", black="B", result="1-0", number=0, comment="White mates 1-0")
    pgn.write_text(
        played_before.replace('[GameNumber "0"]', '[GameNumber "0"]\n[Superseded "replayed: set back by hand"]')
        + GAME.format(white="B", black="A", result="0-1", number=1, comment="Black mates")
        + GAME.format(white="A", black="B", result="0-1", number=0, comment="replayed")
    )
    assert correct_results(pgn, {0: ("0-1", "1/2-1/2"), 1: ("0-1", "1-0")}, reason="result set by hand") == 2
    first, second, third = pgn.read_text().split("\n\n[")
    assert '[Result "1-0"]' in first and first.endswith("{ White mates 1-0 } 1-0")  # superseded: as it was
    assert "Corrected" not in first
    assert '[Result "1-0"]' in second and '[Corrected "result set by hand, was 0-1"]' in second
    assert second.endswith("{ Black mates } 1-0")
    assert '[Result "1/2-1/2"]' in third and third.endswith("{ replayed } 1/2-1/2\n\n")
    assert correct_results(tmp_path / "none.pgn", {0: ("1-0", "0-1")}, reason="r") == 0
