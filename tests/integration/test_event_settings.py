"""`tmanager event set`: the [event] settings changed after `event new` (there was no verb: the file was edited
by hand), journaled and undone like any change, those the paired rounds were made with refused once paired."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.events import api as ev


def make_event(tmp_path: Path) -> Path:
    path = tmp_path / "spring.toml"
    ev.create(path, ev.Event(name="Spring Open", rounds=5, divisions=[ev.Division("Open")]))
    for i in range(1, 7):

        def enter(e: ev.Event, i: int = i) -> list[str]:
            return ev.add_player(e, e.division(), ev.Player(i, f"Name{i}, First", rating=2100 - 50 * i))

        ev.apply(path, enter)
    return path


def settings(path: Path) -> dict[str, object]:
    return dict(tomllib.loads(path.read_text(encoding="utf-8"))["event"])


def test_set_changes_the_settings_as_typed_and_undo_takes_them_back(tmp_path: Path) -> None:
    path = make_event(tmp_path)
    before = path.read_text(encoding="utf-8")
    done = run_cli("event", "set", path, "time_control=5400+30", "site=Leiden, NED", "federation=ned",
                   "schedule=2026-04-01 10:00, 2026-04-02 10:00", "deputies=Jansen, Piet", "deputies=Smit, Eva",
                   "max_byes=2", "rounds=7", "rating_list=rapid", "tiebreaks=BH,SB")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("changed time_control '5400+30' (was none); site 'Leiden, NED' (was none)")
    assert "rating_list 'rapid' (was 'standard')" in done.stdout
    got = settings(path)
    assert got["time_control"] == "5400+30" and got["federation"] == "NED" and got["rounds"] == 7
    assert got["schedule"] == ["2026-04-01 10:00", "2026-04-02 10:00"]
    assert got["deputies"] == ["Jansen, Piet", "Smit, Eva"] and got["tiebreaks"] == ["BH", "SB"]
    assert got["max_byes"] == 2 and got["rating_list"] == "rapid"
    assert run_cli("event", "set", path, "max_byes=").returncode == 0
    assert "max_byes" not in settings(path), "max_byes= takes the limit away"
    # Each change is one journaled change: undo says what it undid, and steps back through both.
    undone = run_cli("event", "undo", path)
    assert undone.returncode == 0 and "it undid: changed max_byes none (was 2)" in undone.stdout
    assert run_cli("event", "undo", path).returncode == 0
    assert path.read_text(encoding="utf-8") == before
    same = run_cli("event", "set", path, "rounds=5")
    assert same.returncode == 0 and "nothing to change" in same.stdout


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        (["time_control=90min"], "time_control: '90min' is not FIDE's encoded time control"),
        (["schedule=2026-04-31 10:00"], "schedule: round 1: '2026-04-31 10:00' is not a date and time"),
        (["start=2026-05-01", "end=2026-04-01"], "end: 2026-04-01 is before the start, 2026-05-01"),
        (["rounds=seven"], "rounds: 'seven' is not a whole number (e.g. rounds=7)"),
        (["tiebreaks=BH,XX"], "tiebreaks: unknown tie-break 'XX'"),
        (["late_entry=full"], "late_entry: 'full' is not one of 'zero', 'half'"),
        (["federation=XYZ"], "federation: 'XYZ' is not a FIDE federation code"),
        (["name="], "name: is empty (an event needs a name"),
        (["arbiter=Vos\x1b[31m"], "arbiter: holds a control character (U+001B)"),
        (["seats=3"], "seats: is not a setting of [event] or of a division ([event]'s: name, site,"),
        (["acceleration=fast"], "acceleration: 'fast' is not one of 'baku'"),
        (["cycles=0"], "cycles: must be from 1 to 999, not 0"),
        (["system=dutch", "initial_colour=red"], "initial_colour: 'red' is not one of 'white', 'black'"),
        (["repeats=2"], "repeats: is a setting of a score-based division, and division 'Open' is not one (entry=…"),
        (["team_tiebreaks=GP"], "team_tiebreaks: is a setting of a team division, and division 'Open' is not one"),
        (["-d", "Open", "rounds=7"], "rounds: is not a setting of a division (an [event] setting: give it without -d;"),
        (["-d", "Reserves", "cycles=2"], "division: no division 'Reserves'; the event has Open"),
        (["site=Leiden", "time_control"], "settings: 'time_control' is not KEY=VALUE"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it_and_changes_nothing(tmp_path: Path, typed: list[str], says: str) -> None:
    path = make_event(tmp_path)
    before, journal = path.read_bytes(), sorted(os.listdir(tmp_path / "old"))
    done = run_cli("event", "set", path, *typed)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"tmanager: {path}: {says}"), done.stderr
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path / "old")) == journal


@pytest.mark.parametrize(("name", "says"), [("missing.css", "no such stylesheet file"), ("fifo.css", "FIFO")])
def test_a_stylesheet_that_cannot_be_read_is_refused_when_set(tmp_path: Path, name: str, says: str) -> None:
    """set stylesheet=missing.css was taken, and only the next report refused it."""
    path = make_event(tmp_path)
    os.mkfifo(tmp_path / "fifo.css")
    before = path.read_bytes()
    done = run_cli("event", "set", path, f"stylesheet={name}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"tmanager: {tmp_path / name}: "
                                                                             f"stylesheet: "), done.stderr
    assert says in lines[0] and path.read_bytes() == before
    (tmp_path / "own.css").write_text("h1 { color: teal }\n")
    assert run_cli("event", "set", path, "stylesheet=own.css").returncode == 0
    assert run_cli("event", "report", path).returncode == 0
    assert "teal" in (tmp_path / "html" / "spring" / "custom.css").read_text()


def test_what_the_rounds_were_paired_with_stays_once_a_round_is_paired(tmp_path: Path) -> None:
    path = make_event(tmp_path)
    assert run_cli("event", "pair", path, "--colour", "white").returncode == 0
    before = path.read_bytes()
    for typed, old in (("rounds=7", "5"), ("rating_list=rapid", "'standard'")):
        done = run_cli("event", "set", path, "site=Leiden", typed)
        key = typed.partition("=")[0]
        assert done.returncode == 2 and done.stderr.startswith(
            f"tmanager: {path}: {key}: stays {old} once a round is paired (round 1 is): "
        ), done.stderr
        assert "(it can change before round 1 is paired)" in done.stderr
        assert path.read_bytes() == before, "nothing changed, not even the site"
    done = run_cli("event", "set", path, "time_control=5400+30", "rounds=5", "prizes=5", "categories=U18,women")
    assert done.returncode == 0, done.stderr
    assert settings(path)["categories"] == ["U18", "women"] and settings(path)["prizes"] == 5
    # Fewer rounds than are paired is this refusal too, not the file check's of the division it would make.
    for board in range(1, 4):
        assert run_cli("event", "result", path, str(board), "1-0").returncode == 0
    assert run_cli("event", "pair", path).returncode == 0
    done = run_cli("event", "set", path, "rounds=1")
    assert done.returncode == 2 and done.stderr.startswith(
        f"tmanager: {path}: rounds: stays 5 once a round is paired (round 2 is): "
    ), done.stderr


def test_rounds_of_a_round_robin_once_paired_is_refused_saying_it_is_unused(tmp_path: Path) -> None:
    """The refusal gave the Swiss reasons (the last rounds' pairing rules, Baku acceleration) for a round robin,
    whose rounds are the Berger table's and which uses no rounds setting."""
    path = tmp_path / "rr.toml"
    assert run_cli("event", "new", path, "--name", "RR", "--system", "round-robin").returncode == 0
    for name in ("A, X", "B, X", "C, X", "D, X", "E, X"):
        assert run_cli("event", "add-player", path, name, "--rating", "1500").returncode == 0
    assert run_cli("event", "pair", path).returncode == 0
    before = path.read_bytes()
    done = run_cli("event", "set", path, "rounds=3")
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {path}: rounds: is not used by a round robin: its rounds are its players' and cycles' (5 in "
        "division 'main'), whatever rounds says (change cycles, or enter or withdraw players, before round 1 is "
        "paired)\n"
    )
    assert path.read_bytes() == before


def test_an_event_paired_without_planned_rounds_may_plan_them(tmp_path: Path) -> None:
    """rounds stayed 0 once a round was paired ('stays 0 … the rounds were paired for this many'), though none
    were, and export-trf wrote a file without the 142/XXR line, saying nothing: now it warns, and rounds may be
    set, to no fewer than are paired. Each Dutch pairing warns that the last-round rules cannot apply (each round
    was paired as if it were the last, without a word) until the rounds are planned."""
    path = tmp_path / "nr.toml"
    assert run_cli("event", "new", path, "--name", "NR").returncode == 0
    for name in ("A, X", "B, X", "C, X", "D, X"):
        assert run_cli("event", "add-player", path, name, "--rating", "1500").returncode == 0
    unplanned = (
        "warning: the event plans no rounds (rounds = 0), so the Dutch system's last-round rules cannot apply as "
        "FIDE's do: each round is paired as if it were the last (plan them: tmanager event set EVENT rounds=N)\n"
    )
    for _ in range(2):  # said by each pairing, once; it paired with no word of it
        done = run_cli("event", "pair", path)
        assert done.returncode == 0 and done.stderr == unplanned, done.stderr
        for board in ("1", "2"):
            assert run_cli("event", "result", path, board, "1-0").returncode == 0
    done = run_cli("event", "export-trf", path, tmp_path / "nr.trf")
    assert done.returncode == 0 and (
        f"warning: {path}: event.rounds: the event plans no number of rounds, so the TRF has no 142 line, which "
        f"pairing programs and rating officers read (tmanager event set {path} rounds=N)"
    ) in done.stderr, done.stderr
    before = path.read_bytes()
    done = run_cli("event", "set", path, "rounds=1")
    assert done.returncode == 2 and path.read_bytes() == before
    assert done.stderr == f"tmanager: {path}: rounds: 1 is fewer than the 2 rounds paired (plan 2 rounds or more)\n"
    assert run_cli("event", "set", path, "rounds=5").returncode == 0 and settings(path)["rounds"] == 5
    done = run_cli("event", "export-trf", path, tmp_path / "nr.trf")
    assert done.returncode == 0 and "event.rounds" not in done.stderr
    assert "142 5\n" in (tmp_path / "nr.trf").read_text()
    done = run_cli("event", "pair", path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "stays 5 once a round is paired" in run_cli("event", "set", path, "rounds=6").stderr


def test_set_in_the_shell(tmp_path: Path) -> None:
    """The shell gives its division to the verbs of a division, not to set: `set name=…` would have renamed the
    division; a division's settings need -d."""
    path = make_event(tmp_path)
    typed = 'set "schedule=2026-04-01 10:00,2026-04-02 10:00" arbiter="Vos, Anna" "name=Autumn Open"\n' \
            "set -d Open team_apart=true\nquit\n"
    done = subprocess.run([sys.executable, "-m", "tmanager", "event", "shell", str(path)], input=typed,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0 and "changed schedule '2026-04-01 10:00; 2026-04-02 10:00'" in done.stdout, done
    assert "changed division 'Open': team_apart True (was False)" in done.stdout, done
    assert settings(path)["arbiter"] == "Vos, Anna"
    assert settings(path)["name"] == "Autumn Open" and division(path)["name"] == "Open"


# --- a division's settings ------------------------------------------------------------------------------------


def division(path: Path, number: int = 1) -> dict[str, object]:
    table: dict[str, object] = tomllib.loads(path.read_text(encoding="utf-8"))["division"][number - 1]
    return table


def test_set_changes_a_divisions_settings_and_those_it_was_paired_with_stay(tmp_path: Path) -> None:
    """A division's system, acceleration and round 1's colour were set by `new` or by a hand edit alone."""
    path = make_event(tmp_path)
    done = run_cli("event", "set", path, "acceleration=baku", "initial_colour=white", "site=Leiden")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["changed site 'Leiden' (was none)", "changed division 'Open': acceleration "
                                        "'baku' (was none); initial_colour 'white' (was none)"]  # fmt: skip
    assert division(path)["acceleration"] == "baku" and division(path)["initial_colour"] == "white"
    assert run_cli("event", "pair", path).returncode == 0
    paired = ev.load(path).division()
    assert paired.baku_last is not None and paired.round(1).boards[0].white == 1  # accelerated, the top with white
    before = path.read_bytes()
    for typed, old in (("acceleration=", "'baku'"), ("initial_colour=black", "'white'"), ("system=burstein", "'dutch'"),
                       ("cycles=2", "1")):  # fmt: skip
        done = run_cli("event", "set", path, "team_apart=true", typed)
        key = typed.partition("=")[0]
        assert done.returncode == 2 and done.stderr == (
            f"tmanager: {path}: {key}: stays {old} once a round of division 'Open' is paired (round 1 is): its rounds "
            "were paired and scored with it (it can change before the division's round 1 is paired)\n"
        ), done.stderr
        assert path.read_bytes() == before, "nothing changed, not even team_apart"
    done = run_cli("event", "set", path, "-d", "open", "name=Main", "team_apart=true", "acceleration=baku")
    assert done.returncode == 0 and done.stdout == "changed division 'Open': name 'Main' (was 'Open'); team_apart " \
        "True (was False)\n", done
    assert division(path)["name"] == "Main" and settings(path)["name"] == "Spring Open"
    undone = run_cli("event", "undo", path)
    assert undone.returncode == 0 and "it undid: changed division 'Open': name 'Main'" in undone.stdout
    assert division(path)["name"] == "Open"


def test_a_division_of_several_is_named_and_the_others_keep_theirs(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    assert run_cli("event", "new", path, "--name", "Two", "--rounds", "5", "--divisions", "A,B Group").returncode == 0
    before = path.read_bytes()
    done = run_cli("event", "set", path, "acceleration=baku")
    assert done.returncode == 2 and "the event has several divisions (A, B Group); choose one with --division" in \
        done.stderr and path.read_bytes() == before, done.stderr
    assert run_cli("event", "set", path, "-d", "B Group", "acceleration=baku", "cycles=2").returncode == 0
    assert division(path, 2)["acceleration"] == "baku" and division(path, 2)["cycles"] == 2
    assert "acceleration" not in division(path, 1) and "cycles" not in division(path, 1)
    same = run_cli("event", "set", path, "-d", "B Group", "cycles=2")
    assert same.stdout == "nothing to change: the settings of division 'B Group' are as given\n", same


def test_a_score_based_and_a_team_divisions_own_settings(tmp_path: Path) -> None:
    scored, team = tmp_path / "s.toml", tmp_path / "t.toml"
    assert run_cli("event", "new", scored, "--name", "S", "--rounds", "8", "--entry", "spread").returncode == 0
    done = run_cli("event", "set", scored, "repeats=2", "session_breaks=4, 6", "prize_bands=2,4")
    assert done.returncode == 0, done.stderr
    got = division(scored)
    assert (got["repeats"], got["session_breaks"], got["prize_bands"]) == (2, [4, 6], [2, 4])
    assert run_cli("event", "set", scored, "session_breaks=").returncode == 0 and "session_breaks" not in \
        division(scored)
    done = run_cli("event", "set", scored, "bye_spread=x")
    assert done.returncode == 2 and done.stderr.startswith(f"tmanager: {scored}: bye_spread: "), done.stderr
    assert run_cli("event", "new", team, "--name", "T", "--rounds", "5", "--boards", "4").returncode == 0
    done = run_cli("event", "set", team, "match_points=3,1,0", "team_tiebreaks=GP,EMGSB")
    assert done.returncode == 0, done.stderr
    assert division(team)["match_points"] == [3, 1, 0] and division(team)["team_tiebreaks"] == ["GP", "EMGSB"]
