"""TRF reading and writing, and the ``tmanager pair`` command line (exit codes, output, checker)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from tmanager.cli import pair
from tmanager.core.results import Colour, TrfResult
from tmanager.errors import ConfigError
from tmanager.formats import trf
from tmanager.pairing import Game, PointsSystem

DATA = Path(__file__).parents[1] / "data" / "bbp"

HEADER = "012 Test\nXXR 5\nXXC white1\n"


def line(pid: int, points: str, *blocks: str) -> str:
    head = (f"001 {pid:4d}".ljust(14) + f"Player {pid}").ljust(48) + "2000"
    head = head.ljust(80) + f"{points:>4} {pid:4d}"
    return "  ".join([head, *blocks])


TWO_ROUNDS = HEADER + "\n".join(
    [
        line(1, "2.0", "   3 w 1", "   2 b 1"),
        line(2, "1.0", "   4 w 1", "   1 w 0"),
        line(3, "0.5", "   1 b 0", "0000 - H"),
        line(4, "0.0", "   2 b 0", "0000 - Z"),
    ]
)


def run(*argv: str) -> tuple[int, str, str]:
    """Run ``tmanager pair`` in a real process (its own module, as a sub-command would)."""
    code = (
        "import argparse, sys\n"
        "from tmanager.cli import pair\n"
        "p = argparse.ArgumentParser(); pair.configure(p)\n"
        "sys.exit(pair.command(p.parse_args(sys.argv[1:])))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def test_parse_reads_players_rounds_and_codes() -> None:
    t = trf.parse(TWO_ROUNDS)
    assert t.total_rounds == 5 and t.initial_colour == "w" and t.played_rounds == 2
    first = t.players[0]
    assert first.id == 1 and first.name == "Player 1" and first.rating == 2000 and first.points == 20
    assert first.games == (Game(3, Colour.WHITE, TrfResult.WIN), Game(2, Colour.BLACK, TrfResult.WIN))
    assert t.players[2].games[1] == Game(None, None, TrfResult.HALF_BYE)


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_line_endings_are_all_accepted(ending: str) -> None:
    assert trf.parse(TWO_ROUNDS.replace("\n", ending)).players == trf.parse(TWO_ROUNDS).players


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    """A TRF saved by Notepad starts with a UTF-8 byte-order mark: it hid the first line's code, so that the
    012 name (or, in a file starting with its players, the first player) was lost."""
    for text in (TWO_ROUNDS, TWO_ROUNDS.removeprefix(HEADER)):
        path = tmp_path / "notepad.trf"
        path.write_bytes(b"\xef\xbb\xbf" + text.encode())
        assert trf.read(path) == trf.parse(text)


def test_round_trip_keeps_every_line() -> None:
    t = trf.parse(TWO_ROUNDS)
    again = trf.parse(trf.dumps(t))
    assert again == t
    assert trf.dumps(again) == trf.dumps(t)


def test_generated_files_round_trip() -> None:
    for path in sorted(DATA.glob("*.trf")):
        t = trf.read(path)
        assert trf.parse(trf.dumps(t)).players == t.players


def test_points_column_is_checked_against_results() -> None:
    bad = TWO_ROUNDS.replace(line(2, "1.0", "   4 w 1", "   1 w 0"), line(2, "1.5", "   4 w 1", "   1 w 0"))
    with pytest.raises(ConfigError, match=r"player 2 has 1\.5 points but the results give 1\.0"):
        trf.parse(bad)


def test_points_system_lines() -> None:
    text = HEADER + "BBW  3.0\nBBD  1.0\n" + "\n".join(
        [line(1, "3.0", "   2 w 1"), line(2, "0.0", "   1 b 0")]
    )
    t = trf.parse(text)
    assert t.points == PointsSystem(win=30, draw=10, pairing_bye=30)
    with pytest.raises(ConfigError):
        trf.parse(text.replace("BBW  3.0", "BBW  2.0"))


def test_contradicting_opponents_are_refused() -> None:
    bad = TWO_ROUNDS.replace("   1 b 0", "   1 w 0", 1)
    with pytest.raises(ConfigError, match="contradicts") as refused:
        trf.parse(bad)
    assert refused.value.hint == "make the two agree: each names the other, one with w and one with b"


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        # '²' passed str.isdigit() and then failed int(): a traceback instead of the line's fault.
        ("001    2", "001    \u00b2", "line 5: bad starting rank '\u00b2' in columns 5-8"),
        ("   4 w 1", "   \u00b2 w 1", "bad opponent"),
        ("XXR 5", "XXR \u00b2", "XXR wants the number of rounds"),
    ],
)
def test_unicode_digits_are_not_numbers(old: str, new: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        trf.parse(TWO_ROUNDS.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("001    2", "001    x", "line 5: bad starting rank 'x' in columns 5-8 (write the player's starting rank"),
        (line(4, "0.0", "   2 b 0", "0000 - Z"), line(4, "0.0")[:70],
         "line 7: player line ends before the points column (81-84) (write the player's points in columns 81-84"),
        ("   4 w 1", "   x w 1", "line 5: round 1: bad opponent '   x' (the round's first four columns hold"),
        ("   4 w 1", "   2 w 1", "line 5: round 1: player is paired against themself (give the opponent's"),
        ("0000 - H", "0000 w H", "line 6: round 2: a colour without an opponent (give the opponent's starting"),
        ("   4 w 1", "   4 w H", "line 5: round 1: bye code 'H' with an opponent (a bye (H F U Z) has opponent"),
        ("   4 w 1", "   4 - 1", "line 5: round 1: a played game without a colour (give the player's colour"),
        ("XXR 5", "XXR five", "line 2: XXR wants the number of rounds (write it as 'XXR 9', the rounds planned)"),
        ("XXR 5", "XXR 5\n152 X", "line 3: 152 wants the initial colour, W or B (write '152 W' or '152 B'"),
        ("XXR 5", "XXR 5\nXXP 3", "line 3: XXP wants two or more starting ranks (write e.g. 'XXP 3 17'"),
        ("001    4", "001    3", "001 lines: two player lines have the starting rank 3 (give each player line its"),
    ],
)
def test_a_malformed_trf_is_refused_saying_how_to_mend_it(old: str, new: str, says: str) -> None:
    """These refusals said what was wrong and not how to mend it ('player line ends before the points column')."""
    with pytest.raises(ConfigError) as error:
        trf.parse(TWO_ROUNDS.replace(old, new, 1), file="x.trf")
    assert str(error.value).startswith(f"x.trf: {says}"), str(error.value)


def test_forbidden_pairs_and_initial_colour() -> None:
    t = trf.parse("XXR 3\nXXC black1\nXXP 1 2\n" + "\n".join(line(i, "0.0") for i in (1, 2, 3, 4)))
    assert t.forbidden == (frozenset({1, 2}),)
    assert t.first_colour() == "b"
    pairing = pair._pair(t, 1, berger=False)
    assert all({1, 2} != set(b) for b in pairing.boards)


def test_with_round_enters_a_pairing(tmp_path: Path) -> None:
    t = trf.parse(TWO_ROUNDS)
    entered = t.with_round([(1, 3)], 2, 3)
    assert entered.players[0].games[2] == Game(3, Colour.WHITE, TrfResult.NOT_PLAYED)
    assert entered.players[1].games[2] == Game(None, None, TrfResult.PAIRING_BYE)
    trf.write(tmp_path / "t.trf", entered)
    assert trf.read(tmp_path / "t.trf").played_rounds == 3


def test_pair_writes_the_javafo_format(tmp_path: Path) -> None:
    source = tmp_path / "t.trf"
    source.write_text(TWO_ROUNDS)
    status, out, err = run("--dutch", str(source), "-p")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert int(lines[0]) == len(lines) - 1 == 2
    assert {frozenset(map(int, x.split())) for x in lines[1:]} == {frozenset({1, 4}), frozenset({2, 3})}
    status, _, _ = run("--dutch", str(source), "-p", str(tmp_path / "out.txt"))
    assert status == 0 and (tmp_path / "out.txt").read_text() == out


def test_pair_output_names_the_bye_with_zero() -> None:
    status, out, _ = run("--dutch", str(DATA / "next-round.trf"), "-p")
    assert status == 0
    assert out == (DATA / "next-round.expected").read_text()
    assert out.splitlines()[-1].endswith(" 0")


def test_exit_codes(tmp_path: Path) -> None:
    impossible = tmp_path / "impossible.trf"
    impossible.write_text("XXR 3\n" + line(1, "1.0", "   2 w 1") + "\n" + line(2, "0.0", "   1 b 0") + "\n")
    status, out, err = run("--dutch", str(impossible), "-p")
    assert (status, out) == (1, "") and err == (
        f"tmanager: {impossible}: no pairing satisfies the absolute criteria (no rematch, no second bye, no absolute "
        "colour preference broken: pair the round by hand)\n"
    )
    invalid = tmp_path / "invalid.trf"
    invalid.write_text(TWO_ROUNDS.replace("   3 w 1", "   3 w ?"))
    status, _, err = run("--dutch", str(invalid), "-p")
    assert status == 3 and "round 1" in err and len(err.splitlines()) == 1
    status, _, err = run("--dutch", str(tmp_path / "missing.trf"), "-p")
    assert status == 5 and len(err.splitlines()) == 1


def test_a_rating_that_is_no_number_is_refused(tmp_path: Path) -> None:
    """A rating with a letter in it ('20x0') was read as 0: the player was paired as unrated, down the order,
    without a word; it is refused as import-trf refuses it (one check for both)."""
    typo = tmp_path / "typo.trf"
    typo.write_text(TWO_ROUNDS.replace(line(2, "1.0")[:52], line(2, "1.0")[:48] + "20x0", 1))
    status, out, err = run("--dutch", str(typo), "-p")
    assert (status, out) == (3, "")
    assert err == (f"tmanager: {typo}: player 2: rating: '20x0' in columns 49-52 is not a number (write it in "
                   "digits; blank for an unrated player)\n")  # fmt: skip
    assert trf.parse(TWO_ROUNDS.replace("2000", "    ")).players[1].rating == 0, "blank: unrated"


def test_checker_reports_no_difference_on_bbppairings_files(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(input=DATA / "random-49.trf", check=True, berger=False, dutch=True, output=None)
    assert pair.command(args) == 0
    out = capsys.readouterr().out
    assert out.count("Round #") == 10
    assert "expected" not in out and "file has" not in out


def test_checker_reports_a_changed_pairing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Swap colours of round 1 board 1-3: the checker must notice.
    changed = TWO_ROUNDS.replace("   3 w 1", "   3 b 1").replace("   1 b 0", "   1 w 0")
    path = tmp_path / "changed.trf"
    path.write_text(changed)
    args = argparse.Namespace(input=path, check=True, berger=False, dutch=True, output=None)
    assert pair.command(args) == 0
    assert "expected 1 3, file has not" in capsys.readouterr().out


def test_berger_pairs_a_round_robin_trf(tmp_path: Path) -> None:
    path = tmp_path / "rr.trf"
    path.write_text("XXR 5\n" + "\n".join(line(i, "0.0") for i in range(1, 7)) + "\n")
    status, out, _ = run("--berger", str(path), "-p")
    assert status == 0 and out == "3\n1 6\n2 5\n3 4\n"


def test_a_file_past_its_xxr_is_refused_as_bbppairings_refuses_it(tmp_path: Path) -> None:
    """XXR 1 over two rounds played was paired (round 3 of a tournament of 1) and checked as if the tournament
    went on, its last-round rules at the wrong round; XXR 2 was paired a third round. bbpPairings refuses both
    ('The number of rounds is larger than the reported number of rounds'): so does pair, as invalid input."""
    past = tmp_path / "past.trf"
    past.write_text(TWO_ROUNDS.replace("XXR 5", "XXR 1"))
    says = (f"tmanager: {past}: XXR: the file has 2 rounds, more than the 1 of XXR (set XXR (or 142) to the rounds "
            "planned)\n")
    for system, action in (("--dutch", "-p"), ("--dutch", "-c"), ("--berger", "-p"), ("--berger", "-c")):
        assert run(system, str(past), action) == (3, "", says), (system, action)
    done = tmp_path / "done.trf"
    done.write_text(TWO_ROUNDS.replace("XXR 5", "XXR 2"))
    says = f"tmanager: {done}: XXR: all 2 rounds are paired (raise XXR (or 142) to pair another round)\n"
    for system in ("--dutch", "--berger"):
        assert run(system, str(done), "-p") == (3, "", says), system
    status, out, err = run("--dutch", str(done), "-c")  # a finished tournament is checked whole
    assert (status, err, out.count("Round #")) == (0, "", 2)


def test_pair_refusals_are_one_line_saying_the_fix(tmp_path: Path) -> None:
    """A TRF that was a directory, no TRF, --explain without -p, -g without --double-swiss or with too few players
    were refused without a way out (`tmanager: /x: is a directory`, `tmanager: --explain goes with -p`); -g with
    10,000 players or more wrote starting ranks of five digits, a file that pair then read wrongly."""
    explain = "--explain: goes with -p, the pairing it explains (add -p, or leave --explain out)"
    for arguments, says in (
        (("--dutch", str(tmp_path), "-p"), f"{tmp_path}: is a directory (give the path of the TRF file)"),
        (("--dutch", "-p"),
         "INPUT: no TRF file given (name the file to pair or check: tmanager pair --dutch t.trf -p)"),
        (("--dutch", str(DATA / "next-round.trf"), "-c", "--explain"), explain),
        (("--dutch", "-g", str(tmp_path / "g.trf")),
         "-g: generates Double-Swiss tournaments only (add --double-swiss)"),
        (("--double-swiss", "-g", str(tmp_path / "g.trf"), "--players", "10000"),
         "--players: 10000 players, not 2 to 9999 (a TRF numbers them in four columns; e.g. --players 30)"),
        (("--double-swiss", "-g", str(tmp_path / "g.trf"), "--rounds", "0"),
         "--rounds: 0 matches, not 1 or more (e.g. --rounds 7)"),
    ):
        status, out, err = run(*arguments)
        assert (out, err) == ("", f"tmanager: {says}\n"), arguments
        assert status == (5 if arguments[1] == str(tmp_path) else 3), arguments
    assert not (tmp_path / "g.trf").exists()


def test_berger_refuses_a_starting_rank_without_a_player(tmp_path: Path) -> None:
    """Players 1 and 5 alone were paired as a round robin of five: boards 2-5 and 3-4 named players the file has
    not. bbpPairings refuses the file ('A pairing number is missing'); the Dutch system pairs it as it is."""
    path = tmp_path / "gap.trf"
    path.write_text("XXR 5\n" + line(1, "0.0") + "\n" + line(5, "0.0") + "\n")
    says = (f"tmanager: {path}: 001 lines: no player line for starting ranks 2, 3, 4 (a Berger table pairs starting "
            "ranks 1 to N: number the players without a gap)\n")
    for action in ("-p", "-c"):
        assert run("--berger", str(path), action) == (3, "", says), action
    assert run("--dutch", str(path), "-p") == (0, "1\n1 5\n", "")


def test_pair_never_writes_its_output_over_the_trf_it_reads(tmp_path: Path) -> None:
    """`-p t.trf` (the input named again by a slip, or a link to it) replaced the tournament's file with the
    pairing; an output that was a directory, or in a missing one, was said after the pairing was made, the missing
    directory as the disk's fault ('nothing was recorded (check the disk)')."""
    source = tmp_path / "t.trf"
    source.write_text(TWO_ROUNDS)
    (tmp_path / "link.trf").symlink_to(source)
    for output in ("t.trf", "link.trf"):
        said = f"tmanager: -p: {str(tmp_path / output)!r} is the TRF file read (give the pairing a file of its own)\n"
        assert run("--dutch", str(source), "-p", str(tmp_path / output)) == (3, "", said)
    assert source.read_text() == TWO_ROUNDS
    for target, says in ((tmp_path, f"{str(tmp_path)!r} is a directory (name a file)"),
                         (tmp_path / "no" / "p.txt", f"no directory {str(tmp_path / 'no')!r} to hold it (create the "
                                                     "directory, or change the path)")):
        assert run("--dutch", str(source), "-p", str(target)) == (5, "", f"tmanager: -p: {says}\n")
        assert run("--double-swiss", "-g", str(target)) == (5, "", f"tmanager: -g: {says}\n")


def test_a_double_swiss_match_without_its_second_game_says_how_to_enter_it(tmp_path: Path) -> None:
    """It said what was wrong without a way out."""
    path = tmp_path / "half.trf"
    path.write_text("XXR 6\n" + "\n".join([line(1, "1.0", "   3 w 1"), line(2, "1.0", "   4 w 1"),
                                            line(3, "0.0", "   1 b 0"), line(4, "0.0", "   2 b 0")]) + "\n")
    status, out, err = run("--double-swiss", str(path), "-p")
    assert (status, out) == (3, ""), err
    assert err == (f"tmanager: {path}: round 1 is game 1 of a match whose game 2 is missing (enter game 2 as round 2, "
                   "each pair with the colours reversed)\n")
