"""tsh's entry and report commands in the event shell of a score-based division (the tsh manual's command
reference): the names translated, then a session typed into a real `tmanager event shell`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_event_scored import ok
from tmanager.cli.tshcommands import COMMANDS, find, translate
from tmanager.errors import StateError
from tmanager.events import api as ev


def words(line: str, divisions: tuple[str, ...] = ("A", "B")) -> tuple[str, list[str], str | None]:
    name, *rest = line.split()
    command = find(name)
    assert command is not None, name
    done = translate(command, rest, divisions)
    return done.command, done.words, done.division


def test_tsh_names_and_arguments_become_the_shells() -> None:
    # Each command by its capitals and by its whole name, in any case.
    assert {c.abbreviation for c in COMMANDS} >= {"a", "es", "crs", "missing", "sc", "sp", "st", "rs", "rat", "wc",
                                                  "rosters", "ts", "tts", "hw", "hl", "lw", "huh", "q"}  # fmt: skip
    assert find("ShowPairings") is find("SP") is find("sp")
    assert find("pair") is None, "tsh's PAIR (two players by hand) would shadow the shell's pair"
    # Arguments in tsh's order; the division may be left out (the current one), as with one division in tsh.
    assert words("sp 3 b") == ("pairings", ["--round", "3"], "b")
    assert words("sp 3") == ("pairings", ["--round", "3"], None)
    assert words("rs 5 A") == ("standings", ["--round", "5"], "A")
    assert words("st") == ("standings", [], None)
    assert words("a 2") == ("enter", ["2"], None)
    assert words("es b 4 2") == ("corrections", ["2"], "b"), "EditScore's player is where tsh starts: not needed"
    assert words("missing 3") == ("missing", [], None), "missing lists every round"
    assert words("hw 5 b") == ("highs", ["--count", "5"], "b")
    assert words("sc b ann") == ("card", ["ann"], "b")
    assert words("sc 4") == ("card", ["4"], None)
    assert words("tts") == ("team-standings", ["--total"], None)
    assert words("wc") == ("report", ["--only", "crosstable"], None)
    with pytest.raises(StateError, match=r"sp r d: r is a number, not 'x' \(tsh's ShowPairings\)"):
        words("sp x")
    with pytest.raises(StateError, match="too many words for tsh's STandings"):
        words("st a b")


def test_a_tsh_session_in_the_shell(tmp_path: Path) -> None:
    path = tmp_path / "club.toml"
    ok("new", path, "--name", "Club Scrabble", "--rounds", "3", "--entry", "scores", "--divisions", "A,B",
       "--set", "system=koth")  # fmt: skip
    for division, names in (("A", ("Ann", "Bob", "Cat", "Dan")), ("B", ("Eve", "Fay"))):
        for i, name in enumerate(names):
            ok("add-player", path, f"{name}, X", "--rating", str(1600 - 10 * i), "-d", division)
    ok("pair", path, "-d", "A")  # KOTH: Ann (1) v Bob (2), Cat (3) v Dan (4)
    typed = [
        "a 1",  # Addscore: result entry for round 1
        "1 452 380", "2 390 392", "",
        "sp 1",  # ShowPairings: the boards with their scores
        "rs 1",  # RoundStandings
        "sc ann",  # showScoreCard
        "es a 1 1",  # EditScore: a correction
        "1 460 380", "",
        "hw 1",  # HighWin
        "missing 1",
        "st b",  # STandings of division B, whose players have played nothing
        "rosters",
        "q",
    ]
    out = shell(path, "\n".join(typed) + "\n", "-d", "A")
    assert "error:" not in out, out
    prompts = out.split("A r1> ")
    entry, shown, standings, card, corrected, highs, missing, division_b, rosters = prompts[1:10]
    assert "452-380" in entry and "390-392" in entry
    assert "round 1 pairings" in shown and "452-380" in shown
    assert "standings after round 1" in standings and standings.index("Ann, X") < standings.index("Dan, X")
    assert card.startswith("Ann, X (1): no. 1 · rating 1600\n1-0 +72, rank 1 after round 1\n")
    assert "correction: " in corrected and "460-380" in corrected
    assert "high wins" in highs and "460  Ann, X (1)" in highs
    assert missing == "no results missing (round 1 is the last paired)\n"
    assert "division B: standings after round 0" in division_b and "Fay, X" in division_b
    assert "Dan, X" in rosters and prompts[10:] == [""], "q left the shell"
    d = ev.load(path).division("A")
    assert [b.scores for b in d.round(1).boards] == [(460, 380), (390, 392)]


def test_tsh_names_in_a_chess_division_say_where_they_belong(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "5")
    ok("add-player", path, "Ann, X")
    out = shell(path, "sp 1\nquit\n")
    assert (
        "error: 'sp' is tsh's ShowPairings, a command of score-based divisions (type help for this division's "
        "commands)"
    ) in out


def shell(path: Path, text: str, *options: str) -> str:
    """`tmanager event shell` with ``text`` typed on standard input; what it printed."""
    done = subprocess.run([sys.executable, "-m", "tmanager", "event", "shell", str(path), *options], input=text,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout
