"""`tmanager event` as real processes: the verbs, bad inputs, the journal and undo, concurrent commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.core.scoring import PointsSystem
from tmanager.events import api as ev


def make_event(tmp_path: Path, players: int = 6) -> Path:
    path = tmp_path / "club.toml"
    ev.create(path, ev.Event(name="Club Open", rounds=5, divisions=[ev.Division("Open")]))
    for i in range(1, players + 1):
        player = ev.Player(i, f"Name{i}, First", rating=2100 - 50 * i, team="Rooks" if i in (1, 4) else "")

        def enter(e: ev.Event, player: ev.Player = player) -> list[str]:
            return ev.add_player(e, e.division(), player)

        ev.apply(path, enter)
    return path


def ok(*args: str | Path) -> str:
    done = run_cli("event", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_verbs_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "spring.toml"
    out = ok("new", path, "--name", "Spring Open", "--rounds", "3", "--scoring", "3-1-0", "--start", "2026-04-10")
    assert "created" in out
    assert run_cli("event", "new", path, "--name", "Again").returncode == 2
    for name, rating in (("Carlsen, Magnus", "2830"), ("Caruana, Fabiano", "2800"), ("Nakamura, Hikaru", "2790")):
        ok("add-player", path, name, "--rating", rating, "--federation", "FID", "--flag", "senior")
    ok("add-player", path, "Ding, Liren", "--rating", "2780", "--birth", "1992-10-24", "--fide-id", "8603677")
    ok("add-player", path, "So, Wesley", "--rating", "2750")
    out = ok("edit-player", path, "Ding", "--rating", "2762", "--club", "Hangzhou")
    assert "changed club, rating of Ding, Liren (4)" in out
    out = ok("pair", path, "--colour", "white")
    assert "round 1 paired: 2 board(s); byes: So, Wesley (5) (pairing)" in out
    # Dutch round 1 of five: 1-3 and 4-2 and the bye for 5; the top player has white as asked.
    assert "Carlsen, Magnus (1)" in out.splitlines()[3] and "Nakamura, Hikaru (3)" in out.splitlines()[3]
    out = ok("result", path, "1", "1-0")
    assert out.strip() == "round 1: Carlsen, Magnus (1) 3 1-0 Nakamura, Hikaru (3) 0"
    # By players, read as first against second: Caruana (black) drew Ding.
    out = ok("result", path, "Caruana", "4", "=")
    assert "Ding, Liren (4) 1 ½-½ Caruana, Fabiano (2) 1" in out
    assert "no results missing" in ok("missing", path)
    ok("pair", path)
    assert "round 1 board 1" not in ok("missing", path)
    assert ok("missing", path).count("no result") == 2
    out = ok("unpair", path)
    assert "round 2 unpaired" in out
    ok("bye", path, "Nakamura", "--kind", "zero")
    ok("pair", path)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    round2 = data["division"][0]["round"][1]
    assert round2["byes"] == [[3, "zero"]] and len(round2["boards"]) == 2
    # The forfeit result "-+" is taken as a result, not as an option.
    ok("result", path, "1", "-+")
    ok("result", path, "2", "--")
    out = ok("correct", path, "--round", "1", "1", "0-1")
    assert "warning: round 2 was paired with the old result 1-0" in out
    standings = ok("standings", path, "--round", "2")
    assert standings.splitlines()[0] == "Spring Open, division main: standings after round 2"
    # 3-1-0: Carlsen lost round 1 (corrected) and won round 2 by forfeit; Nakamura won round 1, then a zero bye;
    # So had the pairing-allocated bye (3) and a double forfeit; Caruana and Ding drew, then forfeits. The event
    # starts after 1 March 2026: a round without a game counts no more than the absent opponent or all draws (2).
    rows = [line.split()[:2] + line.split()[-4:] for line in standings.splitlines()[2:7]]
    assert rows == [
        ["1", "1", "3", "4", "5", "3"],  # Nakamura 3 + his trailing zero bye as a draw (1); Caruana's 1 for the forfeit
        ["2", "3", "3", "3", "5", "9"],  # Carlsen's 3; his own bye capped at 2 draws
        ["3", "5", "3", "2", "3", "6"],  # the bye capped at 2; the double forfeit at Ding's 1
        ["4", "2", "1", "1", "2", "1"],
        ["4", "4", "1", "1", "2", "1"],
    ]
    pairings = ok("pairings", path, "--round", "2")
    assert "bye: Nakamura, Hikaru (3), zero (0)" in pairings
    assert "--" in pairings and "-+" in pairings
    juniors = ok("standings", path, "--flag", "senior")
    table, legend = juniors.split("\n\n")
    assert len(table.splitlines()) == 5  # title, header and the three seniors
    assert legend.splitlines()[:2] == [
        "tie-breaks:", "  BH-C1: Buchholz Cut-1: sum of the opponents' scores, the 1 least significant left out"
    ]
    out = ok("undo", path)
    assert "restored" in out
    assert tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["round"][0]["boards"][0][2] == "1-0"
    for verb in ("new", "add-player", "withdraw", "result", "correct", "standings", "shell", "undo"):
        help_text = ok(verb, "--help")
        assert "examples:" in help_text and f"tmanager event {verb}" in help_text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("result", "4", "1-0"), "board: round 1 has boards 1-3; there is no board 4"),
        (("result", "Zebra", "1", "1-0"), "player: no player matches 'Zebra' in division 'Open' (a number, or a part"),
        (("result", "Name", "1", "1-0"), "player: 'Name' matches 6 players: Name1, First (1), Name2, First (2), "
                                   "Name3, First (3), Name4, First (4), Name5, First (5), … (type more of the name, "
                                   "or the number)"),
        (("result", "1", "9-9"), "result: '9-9' is not a result"),
        (("result", "1", "2", "1-0"), "player: Name1, First (1) and"),
        # A player named twice was taken for the board's two players: the result was entered on their board.
        (("result", "Name1", "1", "1-0"), "player: Name1, First (1) is named twice (give the two "
                                           "players of the board)"),
        (("add-player", "name1, first"), "already has the name 'name1, first'"),
        # 0 stood for the next free number: typed, it was silently taken as that.
        (("add-player", "Zero, Zoe", "--number", "0"), "--number: must be at least 1, not 0"),
        (("pair",), "3 result(s) missing"),
        (("force", "1", "bye"), "round 2 already has a forced bye"),
        (("force", "2", "4"), "already met in round 1"),
        (("bye", "2", "--round", "1"), "round: round 1 is already paired (unpair it first)"),
        (("bye", "2", "--round", "9"), "round: the event has 5 rounds; there is no round 9 (name rounds from 1 to 5)"),
        (("result", "--round", "3", "1", "1-0"), "round: division 'Open': round 3 is not paired (only round 1 is"),
        (("withdraw", "99"), "player: division 'Open' has no player number 99"),
        (("return", "1"), "player: Name1, First (1) is not withdrawn"),
        (("withdraw", "2", "--rounds", "1"), "round: round 1 is already paired (enter a forfeit for Name2, First (2)"),
        (("withdraw", "6", "--rounds", "2"), "round: Name6, First (6) has a bye or a forced game in round 2 (remove"),
        (("forbid", "1", "1"), "player: forbid needs at least two different players"),
        # '²' (AltGr+2) passed str.isdigit() and then failed int(): a traceback.
        (("result", "\u00b2", "1-0"), "board: '\u00b2' is not a board number (give a board or two players"),
        (("withdraw", "\u00b2"), "player: no player matches '\u00b2'"),
        # "--" is protected as a result for every verb: elsewhere its protection showed ('\x00--').
        (("withdraw", "--"), "player: no player matches '--' in division 'Open'"),
        (("prize-fund", "overall", "--"), "amount: '--' is not an amount (write 1000 or 62.50)"),
        # A typo of a round beyond the event's 5 was taken (and a bye for it refused).
        (("withdraw", "2", "--rounds", "6"), "--rounds: the event has 5 rounds; there is no round 6 (name rounds from"),
        (("return", "2", "--rounds", "4,6"), "--rounds: the event has 5 rounds; there is no round 6 (name rounds from"),
        # int() took an Arabic-Indic 3 as round 3, and a number of 5,000 digits was its traceback.
        (("withdraw", "2", "--rounds", "\u0663"), "--rounds: '\u0663' is not whole numbers (write them separated by "
                                                   "commas, e.g. 3,4)"),
        (("withdraw", "2", "--rounds", "3," + "9" * 5000), "--rounds: '3,999"),
        (("standings", "--round", "4"), "round: round 4 is not paired; reports exist for rounds 0-1"),
        # --round 0 was taken as no --round: the last paired round's result was entered or corrected.
        (("result", "1", "1-0", "--round", "0"), "round: division 'Open': round 0 is not paired (only round 1"),
        (("correct", "--round", "0", "1", "0-1"), "round: division 'Open': round 0 is not paired"),
        (("pairings", "--round", "0"), "round: division 'Open': round 0 is not paired"),
        (("bye", "2", "--round", "0"), "round: rounds start at 1; there is no round 0 (name rounds from 1)"),
        (("withdraw", "2", "--rounds", "0"), "--rounds: rounds start at 1; there is no round 0 (name rounds from 1)"),
        # return --rounds said "will be paired again in round 1" of a round played, or one never withdrawn from.
        (("return", "2", "--rounds", "1"), "--rounds: round 1 is already paired (Name2, First (2) can return from "
                                           "round 2 on)"),
        (("return", "2", "--rounds", "3"), "--rounds: Name2, First (2) is not withdrawn from round 3 (they are "
                                           "withdrawn from no round)"),
        (("add-player", ""), 'a player needs a name (give it as "Last, First")'),
        # A player's field is named as it was typed, entered or edited alike (edit-player said edit-player.birth).
        (("add-player", "Laat, Karel", "--rating", "21050"), "--rating: 21050 is not a rating"),
        (("edit-player", "2", "--rating", "21050"), "--rating: 21050 is not a rating"),
        (("add-player", "Laat, Karel", "--birth", "1990-13-01"), "--birth: '1990-13-01' is not a real date"),
        (("edit-player", "2", "--birth", "1990-13-01"), "--birth: '1990-13-01' is not a real date"),
        (("add-player", "Laat, Karel", "--fide-id", "0"), "--fide-id: 0 is not a FIDE ID"),
        (("edit-player", "2", "--fide-id", "0"), "--fide-id: 0 is not a FIDE ID"),
        (("add-player", "Laat, Karel", "--club", "A\tB"), "--club: holds a control character (U+0009)"),
        (("edit-player", "2", "--club", "A\tB"), "--club: holds a control character (U+0009)"),
        (("add-player", "Laat\x1b, Karel"), "name: holds a control character (U+001B)"),
        (("edit-player", "2", "--name", "Laat\x1b, Karel"), "--name: holds a control character (U+001B)"),
        # Flags are printed in the player lists and a .t file's line: a line break or an escape was taken.
        (("add-player", "Laat, Karel", "--flag", "junior\x1b[31m"), "--flag: holds a control character (U+001B)"),
        (("edit-player", "2", "--flags", "junior,a\nb"), "--flags: holds a control character (U+000A)"),
        (("unforbid", "1", "2"), "are not a forbidden pair"),
        (("standings", "-d", "Nope"), "division: no division 'Nope'; the event has Open"),
        # These refusals said what was wrong and not how to mend it.
        (("export-t", "out.t"), "division 'Open' is not score-based (its file sets no entry) (name a score-based "
                                "division with -d DIVISION; a chess division is written with export-trf or "
                                "export-tou)"),
        (("off", "2"), "is not score-based (its file sets no entry) (name a score-based division with -d"),
        (("highs",), "is not score-based (its file sets no entry) (name a score-based division with -d"),
        (("roster", "1", "2"), "is not a team division (its file sets no team_size) (name a team division with -d"),
    ],
)
def test_bad_input_changes_nothing(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    path = make_event(tmp_path)

    def setup(e: ev.Event) -> list[str]:
        d = e.division()
        messages = ev.pair(e, d, colour="white")
        # Round 2 already has a forced bye: asking for another is "a second bye".
        return messages + ev.force(e, d, d.player(6), None)

    ev.apply(path, setup)
    d = ev.load(path).division()
    first = d.round(1).boards[0]
    if args[0] == "force" and args[1] == "2":
        args = ("force", str(first.white), str(first.black))
    if args[:2] == ("result", "1") and len(args) == 4:
        other = d.round(1).boards[1]
        args = ("result", str(first.white), str(other.white), "1-0")
    before = path.read_bytes()
    journal = sorted(os.listdir(tmp_path / "old"))
    done = run_cli("event", args[0], path, *args[1:])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    # The service's refusals named no file (the shell and the web pages share them): the line now names the event.
    assert lines[0].startswith(f"tmanager: {path}: "), lines[0]
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path / "old")) == journal


def test_malformed_files(tmp_path: Path) -> None:
    path = make_event(tmp_path)
    good = path.read_text(encoding="utf-8")

    def dated(lines: str) -> str:
        return good.replace('name = "Club Open"', f'name = "Club Open"\n{lines}')

    cases = {
        "not valid TOML": good.replace("[event]", "[event"),
        "unknown key 'ratting'": good.replace("rating = 2050", "ratting = 2050"),
        "player number 1 is used twice": good.replace("number = 2\n", "number = 1\n", 1),
        "have the same name": good.replace('"Name2, First"', '"Name1, First"'),
        "'dutsch' is not a pairing system (one of 'dutch',": good.replace('system = "dutch"', 'system = "dutsch"'),
        "division[1].player[1].rating: must be int": good.replace("rating = 2050", 'rating = "high"'),
        # Days that do not exist were taken by their shape alone, and written to TRF's 042 and 132 lines.
        "event.start: '2026-02-30' is not a date": dated('start = "2026-02-30"'),
        "event.end: 2026-04-09 is before the start, 2026-04-10": dated('start = "2026-04-10"\nend = "2026-04-09"'),
        "event.schedule: round 2: '2026-04-10 25:99' is not a date and time": dated(
            'schedule = ["2026-04-10 10:00", "2026-04-10 25:99"]'
        ),
        # Beyond TOML's 64-bit integers (other TOML readers refuse the file) and TRF's three-digit rounds.
        "event.rounds: must be at most 9,223,372,036,854,775,807, not 99,999,999,999,999,999,999": good.replace(
            "rounds = 5", "rounds = 99999999999999999999"
        ),
    }
    for message, text in cases.items():
        path.write_text(text, encoding="utf-8")
        done = run_cli("event", "standings", path)
        assert done.returncode == 2 and message in done.stderr, (message, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("options", "says"),
    [
        # Each named as typed: the option (it was the file's field, event.rounds), or --set's key.
        (["--rounds", "99999999999999999999"], "--rounds: must be from 0 to 999, not 99999999999999999999"),
        (["--system", "round-robin", "--cycles", "1000"], "--cycles: must be from 1 to 999, not 1000"),
        (["--set", "cycles=0"], "division[1].cycles: must be from 1 to 999, not 0"),
        (["--max-byes", "1000000"], "--max-byes: must be from 0 to 999 (the most rounds), not 1000000"),
        # A negative one was written, and every later command refused the file its reader would not take.
        (["--max-byes", "-1"], "--max-byes: must be from 0 to 999 (the most rounds), not -1"),
        (["--start", "2026-13-01"], "--start: '2026-13-01' is not a date (write YYYY-MM-DD)"),
        (["--set", "start=2026-13-01"], "event.start: '2026-13-01' is not a date"),
        (["--divisions", "A,b,a"], "--divisions: two divisions have the same name"),
        # An empty name was written: reports and pages without a title.
        (["--name", " "], "--name: is empty (an event needs a name"),
        (["--set", "prizes=10000"], "event.prizes: must be from 1 to 9999 (the most players), not 10000"),
        # The organising federation is TRF's 032 line: a line break split it, an escape acted on the terminal.
        (["--set", 'federation="NED\\u001b[2J"'], "event.federation: holds a control character (U+001B)"),
        # The same tie-break twice (as FIDE writes it and with '/'): two equal columns, one key in CSV and JSON.
        (["--tiebreaks", "BH-C1,BH/C1,SB"], "--tiebreaks: 'BH/C1' is named twice"),
        # --scoring as [scoring] reads it: inf ended in a traceback, 1.05 was taken as 1, 1-0.5-2 as it came.
        (["--scoring", "inf-0-0"], "scoring.win: must be a number, not inf"),
        (["--scoring", "1.05-0.5-0"], "scoring.win: 1.05 is not a multiple of 0.1 points"),
        (["--scoring", "1-0.5-2"], "scoring: 1-\u00bd-2: a win must score more than a loss, and a draw no more than"),
        (["--scoring", "100-50-0"], "scoring.win: 100 points is more than TRF writes (99.9)"),
        # The fix was in the message, not in the hint's parentheses.
        (["--scoring", "1-0"], "--scoring: '1-0' is not win-draw-loss points (write them like 1-0.5-0 or 3-1-0)\n"),
    ],
)
def test_new_refuses_settings_no_event_holds(tmp_path: Path, options: list[str], says: str) -> None:
    """A typing slip in a count was written as it came: numbers no TOML reader but Python's takes, and round
    numbers that TRF's three-digit records cannot hold."""
    path = tmp_path / "typo.toml"
    done = run_cli("event", "new", path, "--name", "Typo Open", *options)
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"tmanager: {path}: "), done.stderr
    assert not path.exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["new", "{path}", "--name", "X", "--entry", "bogus"], "(choose from 'scores', 'spread', 'both')"),
        (["new", "{path}", "--name", "X", "--system", "bogus"], "(choose from 'dutch', 'round-robin', 'manual',"),
        (["new", "{path}", "--name", "X", "--late-entry", "bogus"], "(choose from 'zero', 'half')"),
        (["prize-fund", "{path}", "overall", "10", "--sharing", "bogus"], "(choose from 'hort', 'split', 'tiebreak')"),
        (["import-t", "{path}", "x.t", "--system", "bogus"], "(choose from 'koth', 'factored', 'tsh-swiss', 'chew',"),
        (["export-trf", "{path}", "x.trf", "--version", "bogus"], "(choose from '2026', '16')"),
        # --sex is read as a CSV's cell is (f, F, M…): another word is the one line of the field's check.
        (["add-player", "{path}", "A, B", "--sex", "bogus"], "--sex: 'bogus' is not a sex as TRF writes it"),
    ],
)
def test_a_choice_not_offered_is_refused_naming_the_words_to_type(
    tmp_path: Path, args: list[str], says: str
) -> None:
    """Options whose values are an enum's members listed the members' reprs (``<EntryMode.SCORES: 'scores'>``)
    when refusing another word."""
    done = run_cli("event", *(a.format(path=tmp_path / "e.toml") for a in args))
    assert done.returncode == 2 and says in done.stderr and "<" not in done.stderr, done.stderr


def test_standings_of_a_category_or_flag_the_event_does_not_have(tmp_path: Path) -> None:
    """``standings --flag nope`` and ``--category U0`` printed an empty table and exited 0, as for a group with
    nobody in it: a slip of the name passed for an answer. A real category stays a table, empty or not, whether the
    event lists it or not (an arbiter ranks the U12 of an open ad hoc)."""
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "5", "--start", "2026-04-10", "--set", "categories=['U18','women']")
    ok("add-player", path, "Jong, Piet", "--rating", "1900", "--birth", "2012", "--flag", "junior")
    ok("add-player", path, "Oud, Kees", "--rating", "2100", "--birth", "1950", "--flag", "club")
    for args, says in (
        (("--flag", "nope"), "--flag: no player of division 'main' has the flag 'nope'; the players' flags are club, "
                             "junior"),
        (("--flag", "Junior"), "--flag: no player of division 'main' has the flag 'Junior'; the players' flags are "
                               "club, junior"),
        (("--category", "U0"), "--category: 'U0': an age category counts from 1 (U8, U18, S50)"),
        (("--category", "s0"), "--category: 's0': an age category counts from 1 (U8, U18, S50)"),
        (("--category", "juniors"), "--category: 'juniors' is not a category; write U18, S50, women, unrated"),
    ):
        done = run_cli("event", "standings", path, *args)
        assert done.returncode == 2 and done.stdout == "", done
        assert done.stderr.startswith(f"tmanager: {path}: {says}") and len(done.stderr.splitlines()) == 1, done.stderr
    assert "Jong, Piet" in ok("standings", path, "--category", "u18") and "Jong" in ok("standings", path, "--flag",
                                                                                        "junior")  # fmt: skip
    assert "Jong, Piet" in ok("standings", path, "--category", "U14"), "a category the event does not list"
    women = ok("standings", path, "--category", "women").splitlines()
    assert women[0].endswith("standings after round 0, women") and women[2] == "", "the columns, and nobody"


def test_a_cancelled_bye_leaves_no_trace(tmp_path: Path) -> None:
    """A requested bye cancelled by the player's withdrawal left its round behind, an empty [[division.round]]."""
    path = make_event(tmp_path)
    ok("pair", path, "--colour", "white")
    before = tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["round"]
    ok("bye", path, "2", "--round", "3")
    ok("bye", path, "3", "--round", "4")
    assert "their requested bye in round 3 is cancelled" in ok("withdraw", path, "2")
    rounds = tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["round"]
    assert [r["number"] for r in rounds] == [1, 4] and rounds[1]["byes"] == [[3, "half"]]
    assert "their requested bye in round 4 is cancelled" in ok("withdraw", path, "3")
    assert tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["round"] == before


def test_concurrent_commands_serialize(tmp_path: Path) -> None:
    """Eight processes add players at once: the lock serializes them and none is lost."""
    path = make_event(tmp_path, players=2)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tmanager", "event", "add-player", str(path), f"Racer{i}, Quick"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(8)
    ]
    for p in processes:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    d = ev.load(path).division()
    names = {p.name for p in d.players}
    assert {f"Racer{i}, Quick" for i in range(8)} <= names
    assert sorted(p.number for p in d.players) == list(range(1, 11))
    # Each change left the previous version in the journal: 2 setup adds + 8 concurrent ones.
    assert len([p for p in (tmp_path / "old").iterdir() if p.suffix in (".toml", ".delta")]) == 10
    # Undo steps back one change at a time.
    ok("undo", path)
    assert len(ev.load(path).division().players) == 9


def test_team_apart_and_late_entry_statement(tmp_path: Path) -> None:
    path = make_event(tmp_path)
    # Without the team rule, round 1 pairs 1 against 4, both of team Rooks.
    free = ev.load(path)
    ev.pair(free, free.division(), colour="black")
    assert {1, 4} in [{b.white, b.black} for b in free.division().round(1).boards]
    ok("forbid", path, "--teams", "on")
    ok("pair", path, "--colour", "black")
    d = ev.load(path).division()
    assert d.initial_colour == "black" and d.team_apart
    assert all({b.white, b.black} != {1, 4} for b in d.round(1).boards)
    out = ok("add-player", path, "Newcomer, Nora", "--rating", "2025", "--missed", "half")
    assert "late entry: round 1 scored as half-point bye" in out
    assert "pairing rank 2 of 7 by rating" in out


def test_the_first_colour_is_chosen_for_round_1_only(tmp_path: Path) -> None:
    """``pair --colour`` in a later round changed the recorded first colour without a word: the rounds already
    played kept theirs, while TRF's XXC (and 5.2.5 from then on) said the other one."""
    path = make_event(tmp_path)
    ok("pair", path, "--colour", "black")
    for board in (1, 2, 3):
        ok("result", path, str(board), "1-0")
    before = path.read_bytes()
    done = run_cli("event", "pair", path, "--colour", "white")
    assert done.returncode == 2 and path.read_bytes() == before
    assert done.stderr == (
        f"tmanager: {path}: --colour chooses the top-ranked's colour when round 1 is paired; round 1 was paired "
        "with black for the top-ranked, and round 2 keeps it (unpair back to round 1 to choose again)\n"
    )
    ok("pair", path, "--colour", "black")  # the colour it has: nothing to change
    assert ev.load(path).division().initial_colour == "black"
    robin = tmp_path / "robin.toml"
    ok("new", robin, "--name", "Robin", "--system", "round-robin")
    for name in ("A", "B", "C", "D"):
        ok("add-player", robin, name)
    done = run_cli("event", "pair", robin, "--colour", "black")
    assert done.returncode == 2 and "--colour is for Swiss divisions" in done.stderr, done.stderr


def test_shipped_examples_load_and_list() -> None:
    examples = sorted((Path(__file__).parents[2] / "tourneys" / "events").glob("*.toml"))
    assert [p.name for p in examples] == ["club-rr.toml", "small-open.toml"]
    for path in examples:
        event = ev.load(path)
        assert ev.dumps(event) == path.read_text(encoding="utf-8"), f"{path} is not in the written layout"
    assert "round 2 board 3" in ok("missing", examples[1])


def test_whole_surname_beats_a_longer_one_and_unforbid_takes_a_pair_out(tmp_path: Path) -> None:
    """Mistakes mended without undo: a name that is part of another's is still found; a forbidden pair goes again."""
    path = tmp_path / "names.toml"
    ok("new", path, "--name", "Names Open", "--rounds", "5")
    for name in ("Kuipers, Piet", "Kuiper, Jan", "de Vries, Anna", "de Vries-Bakker, Eva", "Jansen, Tom"):
        ok("add-player", path, name)
    assert "Kuiper, Jan (2)" in ok("forbid", path, "Kuiper", "Jansen")
    assert "Kuipers, Piet (1)" in ok("edit-player", path, "kuipers", "--rating", "1900")
    assert "de Vries, Anna (3)" in ok("edit-player", path, "de vries", "--rating", "1800")
    done = run_cli("event", "edit-player", path, "Vries", "--rating", "1700")
    assert done.returncode == 2 and "'Vries' matches 2 players" in done.stderr
    ok("forbid", path, "1", "3", "5")
    before = path.read_bytes()
    for args, message in (
        (("Kuiper", "de Vries"), "Kuiper, Jan (2) and de Vries, Anna (3) are not a forbidden pair"),
        (("Jansen", "Jansen"), "player: unforbid needs two different players (name each of the two once)"),
        (("Kuiper", "Nobody"), "player: no player matches 'Nobody' in division 'main' (a number, or a part of the "
                               "name)"),
    ):
        done = run_cli("event", "unforbid", path, *args)
        assert done.returncode == 2 and done.stderr.strip() == f"tmanager: {path}: {message}", done.stderr
        assert path.read_bytes() == before
    assert "may be paired against each other again" in ok("unforbid", path, "Jansen", "Kuiper")
    assert ev.load(path).division().forbidden == [[1, 3, 5]]
    ok("unforbid", path, "1", "5")  # the group of three keeps its other two pairs
    assert ev.load(path).division().forbidden == [[3, 5], [1, 3]]
    ok("undo", path)
    assert ev.load(path).division().forbidden == [[1, 3, 5]]


def test_no_round_is_paired_for_nobody(tmp_path: Path) -> None:
    """`pair` before any player was entered paired round 1 with no board, drew its colour, and made every
    player entered afterwards a late entry with a zero-point bye; so did a round with every player withdrawn."""
    path = make_event(tmp_path, players=0)
    for system in ("dutch", "manual", "double-swiss"):
        other = tmp_path / f"{system}.toml"
        assert run_cli("event", "new", other, "--name", "Empty", "--rounds", "4", "--system", system).returncode == 0
        done = run_cli("event", "pair", other)
        assert done.returncode == 2 and done.stderr == f"tmanager: {other}: round 1 cannot be paired: the division " \
            "has no players yet\n", done.stderr  # fmt: skip
    for name in ("Kuiper, Jan", "Bakker, Sanne"):
        assert run_cli("event", "add-player", path, name).returncode == 0
        assert run_cli("event", "withdraw", path, name).returncode == 0
    before = path.read_bytes()
    done = run_cli("event", "pair", path)
    assert done.returncode == 2 and "round 1 cannot be paired: every player is withdrawn from it" in done.stderr
    assert path.read_bytes() == before


def test_a_game_still_to_be_played_scores_nothing_where_a_forfeit_loss_scores(tmp_path: Path) -> None:
    """With 3-2-1 and a forfeit loss worth ½ (a loss is 1), the standings of a paired round gave every player ½
    before any result was in: a game without its result was scored as a forfeit loss."""
    path = tmp_path / "league.toml"
    scoring = PointsSystem(win=30, draw=20, loss=10, forfeit_loss=5)
    ev.create(path, ev.Event(name="League", rounds=3, divisions=[ev.Division("Open")], scoring=scoring))
    for i in range(1, 5):
        ok("add-player", path, f"Name{i}, First", "--rating", str(2100 - 50 * i))
    ok("pair", path)

    def points() -> dict[int, float]:
        table = json.loads(ok("standings", path, "--format", "json"))
        return {row["no"]: row["points"] for row in table["rows"]}

    assert points() == {1: 0, 2: 0, 3: 0, 4: 0}
    board = ev.load(path).division().round(1).boards[0]
    ok("result", path, "1", "-+")  # white did not come: ½ for the forfeit, 3 for the win; board 2 still to play
    others = {n: 0 for n in (1, 2, 3, 4) if n not in (board.white, board.black)}
    assert points() == {board.white: 0.5, board.black: 3, **others}


def test_a_requested_bye_is_cancelled_before_its_round_is_paired(tmp_path: Path) -> None:
    """A player who asked for a bye and then wants to play (or a bye typed for the wrong round or kind) could only
    be undone while it was the last change: `bye --cancel` takes it out, and a bye of another kind can follow."""
    path = make_event(tmp_path)
    ok("pair", path, "--colour", "white")
    before = path.read_text(encoding="utf-8")
    ok("bye", path, "2", "--round", "3")
    ok("bye", path, "3", "--round", "3", "--kind", "zero")
    ok("result", path, "1", "1-0")  # another change since: undo would take the result back first
    said = ok("bye", path, "2", "--round", "3", "--cancel")
    assert said.strip() == "Name2, First (2): half-point bye in round 3 cancelled"
    rounds = tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["round"]
    assert [r["number"] for r in rounds] == [1, 3] and rounds[1]["byes"] == [[3, "zero"]]
    assert "full-point bye in round 3" in ok("bye", path, "3", "--round", "3", "--cancel") + ok(
        "bye", path, "3", "--round", "3", "--kind", "full"
    )
    ok("bye", path, "3", "--round", "3", "--cancel")
    ok("correct", path, "--round", "1", "1", "*")
    assert path.read_text(encoding="utf-8") == before, "no empty round is left behind"
    for args, says in (
        (("4", "--round", "3", "--cancel"), "player: Name4, First (4) has no requested bye in round 3"),
        (("4", "--round", "1", "--cancel"), "round: round 1 is already paired (unpair it first)"),
        (("4", "--cancel", "--kind", "zero"), "--kind: a cancelled bye has no kind"),
    ):
        done = run_cli("event", "bye", path, *args)
        assert done.returncode == 2 and done.stdout == "", done
        assert done.stderr.startswith(f"tmanager: {path}: {says}") and len(done.stderr.splitlines()) == 1, done.stderr
        assert path.read_text(encoding="utf-8") == before


def test_a_bye_written_twice_by_hand_is_refused(tmp_path: Path) -> None:
    """Two byes of one player in one round, typed into the file by hand, were read as the last of them: the other
    was dropped without a word (and from the file at the next change)."""
    path = make_event(tmp_path)
    ok("bye", path, "2", "--round", "1", "--kind", "zero")
    text = path.read_text(encoding="utf-8")
    assert '[2, "zero"],\n' in text
    path.write_text(text.replace('[2, "zero"],\n', '[2, "zero"],\n  [2, "half"],\n'), encoding="utf-8")
    edited = path.read_text(encoding="utf-8")
    for verb in (("standings",), ("pair",)):
        done = run_cli("event", verb[0], path, *verb[1:])
        assert done.returncode == 2 and done.stdout == "", done
        assert done.stderr == (
            f"tmanager: {path}: division[1].round[1].byes[2]: a second bye of player 2 in this round (the first "
            "is 'zero') (keep one)\n"
        )
        assert path.read_text(encoding="utf-8") == edited


def test_a_forced_game_is_cancelled_before_its_round_is_paired(tmp_path: Path) -> None:
    """A game or bye set with `force` by mistake stayed, through `unpair` too, unless undo reached back to it:
    `force --cancel` takes it out (either order of the two players), and a withdrawal it blocked can follow."""
    path = make_event(tmp_path)
    before = path.read_text(encoding="utf-8")
    ok("force", path, "1", "4")
    ok("force", path, "2", "5")
    ok("force", path, "3", "bye")
    ok("edit-player", path, "6", "--club", "Rooks")  # another change since: undo would take it back first
    assert ok("force", path, "4", "1", "--cancel").strip() == (
        "round 1: the forced game Name1, First (1) – Name4, First (4) is taken out"
    )
    record = tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["round"][0]
    assert record["forced"] == [[2, 5]] and record["boards"] == [[2, 5, "*"]] and record["forced_bye"] == 3
    assert ok("force", path, "3", "bye", "--cancel").strip() == (
        "round 1: the forced bye of Name3, First (3) is taken out"
    )
    ok("force", path, "5", "2", "--cancel")
    ok("withdraw", path, "5")
    ok("return", path, "5")
    ok("edit-player", path, "6", "--club", "")
    assert path.read_text(encoding="utf-8") == before, "no empty round is left behind"
    for args, says in (
        (("1", "4"), "Name1, First (1) and Name4, First (4) have no forced game in round 1"),
        (("1", "bye"), "Name1, First (1) has no forced bye in round 1"),
    ):
        done = run_cli("event", "force", path, *args, "--cancel")
        assert done.returncode == 2 and done.stdout == "", done
        assert done.stderr == f"tmanager: {path}: {says}\n"
        assert path.read_text(encoding="utf-8") == before


def test_an_option_before_a_verbs_list_of_words_is_taken(tmp_path: Path) -> None:
    """``-d B`` (or any option) may come before a verb's words, as it may before ``result``'s: argparse took
    the words after it for a list already ended (``unrecognized arguments: overall 100 50``)."""
    path = tmp_path / "two.toml"
    ok("new", path, "--name", "Two", "--rounds", "3", "--divisions", "A,B")
    ok("add-player", path, "-d", "B", "Kuiper, Jan", "--rating", "2000")
    ok("add-player", path, "-d", "B", "Visser, Tom", "--rating", "1900")
    assert "overall: 100, 50" in ok("prize-fund", path, "-d", "B", "overall", "100", "50")
    assert "will not pair" in ok("forbid", path, "-d", "B", "Kuiper", "Visser")
    assert "Kuiper, Jan (1)" in ok("norms", path, "-d", "B", "Kuiper")
    division = tomllib.loads(path.read_text())["division"][1]
    assert division["prizes"]["overall"] == [100, 50] and division["forbidden"] == [[1, 2]]


@pytest.mark.parametrize("verb", ["export-trf", "export-tou", "export-t"])
def test_an_export_never_replaces_the_events_own_files(tmp_path: Path, verb: str) -> None:
    """`export-trf EVENT EVENT` wrote the TRF over the event file (its last change, which no journal entry holds,
    lost), and as readily over its lock file, its arbiter password or a journal entry: each is refused, naming it."""
    path = make_event(tmp_path)
    (tmp_path / "club.password").write_text("kept\n", encoding="utf-8")
    (tmp_path / "link.toml").symlink_to(path.name)
    own = {
        path: "is the event file itself",
        tmp_path / "link.toml": "is the event file itself",
        tmp_path / "club.toml.lock": "is the event's lock file",
        tmp_path / "club.password": "is the event's arbiter password file",
        tmp_path / "old" / "club.0002.toml": "is in the event's journal directory",
    }
    kept = {target: target.read_bytes() if target.exists() else None for target in own}
    for target, says in own.items():
        done = run_cli("event", verb, path, target, "--date", "2026-05-01") if verb == "export-tou" else (
            run_cli("event", verb, path, target))  # fmt: skip
        assert done.returncode == 2 and done.stderr == (
            f"tmanager: {target}: {says} (give the export a name of its own)\n"
        ), done.stderr
    assert {target: target.read_bytes() if target.exists() else None for target in own} == kept


def test_a_late_entrys_missed_rounds_are_no_requested_byes(tmp_path: Path) -> None:
    """max_byes counts the byes a player asked for: a late entry's byes of the rounds paired before it entered
    counted too, so that one entered after round 2 of an event allowing one bye could ask for none ('has had 2
    byes'). The rounds missed are kept (``missed``), through a TRF too."""
    path = make_event(tmp_path)
    ok("set", path, "max_byes=1")
    for _ in range(2):
        ev.apply(path, lambda e: ev.pair(e, e.division(), colour="white"))
        for board in range(1, 4):
            ok("result", path, str(board), "1-0")
    assert "late entry: rounds 1-2 scored as zero-point byes" in ok("add-player", path, "Laat, Karel")
    assert ok("bye", path, "Laat", "--round", "4") == "Laat, Karel (7): half-point bye in round 4\n"
    done = run_cli("event", "bye", path, "Laat", "--round", "5")
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {path}: Laat, Karel (7) has had 1 requested bye; the event allows 1 (max_byes) (raise the "
        "limit with set max_byes=N)\n"
    )
    trf, copy = tmp_path / "club.trf", tmp_path / "copy.toml"
    ok("export-trf", path, trf)
    ok("import-trf", copy, trf)
    assert ev.load(copy).division().player(7).missed == 2


def test_a_missing_file_to_read_says_to_check_its_path(tmp_path: Path) -> None:
    """An alias table, a .t file, a TRF or a player list not there said 'no such alias table file' and no more."""
    path = make_event(tmp_path)
    missing = tmp_path / "none.toml"
    done = run_cli("event", "export-tou", path, tmp_path / "o.TOU", "--aliases", missing, "--date", "2026-01-01")
    assert done.returncode == 2 and not (tmp_path / "o.TOU").exists()
    assert done.stderr == f"tmanager: {missing}: no such alias table file (check the path)\n"
    done = run_cli("event", "import-t", tmp_path / "t.toml", tmp_path / "none.t")
    assert done.stderr == f"tmanager: {tmp_path / 'none.t'}: no such .t file (check the path)\n"


def test_result_and_correct_mark_a_game_unrated_and_rated_again(tmp_path: Path) -> None:
    """No command marked a game played but not rated (TRF's W D L): it came from another program's TRF or a hand
    edit. --unrated marks it through result and correct, --rated takes it back; a forfeit is refused."""
    path = make_event(tmp_path, players=4)
    assert run_cli("event", "pair", path, "--colour", "white").returncode == 0
    first = ev.load(path).division().round(1).boards[0]
    before = path.read_bytes()
    done = run_cli("event", "result", path, "1", "+-", "--unrated")
    assert done.returncode == 2 and path.read_bytes() == before
    assert done.stderr == (f"tmanager: {path}: --unrated: a +- is not a game played over the board, which alone is "
                           "rated or not (give the result of the game played (1-0, 0-1, =))\n")  # fmt: skip
    done = run_cli("event", "result", path, "1", "1-0", "--unrated")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("(not rated)"), done.stdout
    assert ev.load(path).division().round(1).unrated == [(first.white, first.black)]
    assert run_cli("event", "result", path, "2", "=").returncode == 0
    trf = tmp_path / "out.trf"
    assert run_cli("event", "export-trf", path, trf, "--version", "16").returncode == 0
    lines = {int(line[4:8]): line for line in trf.read_text().splitlines() if line.startswith("001")}
    assert lines[first.white].rstrip().endswith(f"{first.black:4d} w W")
    assert lines[first.black].rstrip().endswith(f"{first.white:4d} b L")
    done = run_cli("event", "correct", path, "--round", "1", "1", "+-")
    assert done.returncode == 0 and "not rated" not in done.stdout, "a forfeit is no game to be rated or not"
    done = run_cli("event", "correct", path, "--round", "1", "1", "1-0", "--rated")
    assert done.returncode == 0 and "not rated" not in done.stdout
    assert ev.load(path).division().round(1).unrated == []


def test_unrated_is_refused_in_a_score_based_division(tmp_path: Path) -> None:
    source = tmp_path / "a.t"
    source.write_text("Alpha, A 1500; 2\nBeta, B 1400; 1\n")
    path = tmp_path / "s.toml"
    assert run_cli("event", "import-t", path, source).returncode == 0
    before = path.read_bytes()
    for entry in (("1", "400", "300"), ("1", "+-")):
        done = run_cli("event", "result", path, *entry, "--unrated")
        assert done.returncode == 2 and path.read_bytes() == before
        assert done.stderr == (f"tmanager: {path}: --unrated: division 'a' is score-based: its games are not rated "
                               "here (leave --unrated and --rated out: they mark a chess game's rating)\n")  # fmt: skip


def test_import_t_rounds_fewer_than_the_file_holds_is_refused_naming_the_option(tmp_path: Path) -> None:
    """The event file's check refused it naming the file still to be written: 'x.toml: division 'a': round 2 is
    paired but the event has 1 rounds'."""
    source = tmp_path / "a.t"
    source.write_text("Alpha, A 1500 400 350; 2 2\nBeta, B 1400 300 360; 1 1\n")
    path = tmp_path / "s.toml"
    for rounds in ("1", "-3", "1000"):
        done = run_cli("event", "import-t", path, source, "--rounds", rounds)
        assert done.returncode == 2 and not path.exists()
        said = f"--rounds: must be from 2 (the rounds {source} holds) to 999, not {rounds}"
        hint = "give the rounds planned, or leave --rounds out for the file's"
        assert done.stderr == f"tmanager: {path}: {said} ({hint})\n"
    assert run_cli("event", "import-t", path, source, "--rounds", "5").returncode == 0


def test_refusals_give_their_fix_in_parentheses(tmp_path: Path) -> None:
    """The fix was written into the message ('file exists; choose another name…', 'give BOARD RESULT or …'), or
    not given at all: now it is the hint, the parentheses of FILE: FIELD: what is wrong (how to fix it)."""
    path = tmp_path / "h.toml"
    assert run_cli("event", "new", path, "--name", "H", "--rounds", "3").returncode == 0
    done = run_cli("event", "new", path, "--name", "H")
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {path}: file exists (choose another name or remove it first)\n"
    )
    for name in ("A, X", "B, X"):
        assert run_cli("event", "add-player", path, name).returncode == 0
    assert run_cli("event", "pair", path).returncode == 0
    done = run_cli("event", "result", path, "1", "1-0", "x", "y")
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {path}: a result is entered by its board or its two players (give BOARD RESULT or P1 P2 RESULT, "
        "e.g. `4 1-0` or `12 7 =`)\n"
    )
    done = run_cli("event", "force", path, "1", "1")
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {path}: a player cannot play themself (name two different players)\n"
    )
