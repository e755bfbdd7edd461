"""The .TOU export against the worked example of the NASPA wiki page (seed 002), byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.core.results import Result
from tmanager.core.scoring import PointsSystem
from tmanager.errors import StateError
from tmanager.events import api as ev
from tmanager.formats import tou

# The seed's A.TOU. The wiki page collapses runs of blanks; its text says the
# third line is 39 blanks and the digit zero, which is restored here.
SEED_TOU = (
    "*M2010-12-31 Your Tournament Name\n"
    "*A\n" + " " * 39 + "0\n"
    "David Wiegand 2400 +2 1350 1 2444 3\n"
    "Sam Kantimathi 300 1 1502 +3 1350 2\n"
    "Stu Goldman 1350 3 1502 2 333 +1\n"
    "*** END OF FILE ***\n"
)
# The seed's NASPA submission: name, opponents (0: bye), scores, first (1) or second (2) per round.
SEED_CARDS = [
    ("Wiegand, Dave", (2, 0, 3), (400, 50, 444), (1, 0, 2)),
    ("Kantimathi, Sam", (1, 3, 0), (300, 502, 50), (2, 1, 0)),
    ("Goldman, Stuart", (0, 2, 1), (50, 502, 333), (0, 2, 1)),
]
ALIASES = {"Wiegand, Dave": "David Wiegand", "Goldman, Stuart": "Stu Goldman"}


def test_seed_example_byte_exact() -> None:
    cards = [
        tou.ScoreCard(name, opps, scores, tuple(f == 1 for f in first)) for name, opps, scores, first in SEED_CARDS
    ]
    players = tou.from_scores(cards, ALIASES)
    text = tou.dumps(name="Your Tournament Name", date="2010-12-31", division="A", players=players)
    assert text.encode() == SEED_TOU.encode()


def test_names_without_alias_are_turned_around() -> None:
    assert tou.display_name("Kantimathi, Sam") == "Sam Kantimathi"
    assert tou.display_name("Wiegand, Dave", ALIASES) == "David Wiegand"
    assert tou.display_name("Madonna") == "Madonna"


def test_chess_event_export(tmp_path: Path) -> None:
    """A chess event: white went first, outcomes only, byes with the player's own number."""
    path = tmp_path / "club.toml"
    e = ev.Event(name="Club", rounds=3, end="2026-05-01", divisions=[ev.Division("A")])
    d = e.division()
    for i, (name, rating) in enumerate(
        (("Wiegand, Dave", 2000), ("Kantimathi, Sam", 1800), ("Goldman, Stuart", 1600)), 1
    ):
        ev.add_player(e, d, ev.Player(i, name, rating=rating))
    ev.pair(e, d, colour="white")
    ev.set_result(e, d, 1, d.round(1).boards[0], Result.WHITE_WINS)
    ev.pair(e, d)
    ev.set_result(e, d, 2, d.round(2).boards[0], Result.DRAW)
    ev.create(path, e)
    aliases = tmp_path / "names.toml"
    aliases.write_text('"Wiegand, Dave" = "David Wiegand"\n"Goldman, Stuart" = "Stu Goldman"\n')
    out = tmp_path / "A.TOU"
    done = run_cli("event", "export-tou", path, out, "--aliases", aliases)
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[:3] == ["*M2026-05-01 Club", "*A", " " * 39 + "0"]
    assert lines[-1] == "*** END OF FILE ***"
    # The *M date and the * letter are checked: 2026-02-30, a year alone or two letters went into the file.
    for option, says in (
        (["--date", "2026-02-30"], f"tmanager: {path}: --date: '2026-02-30' is not a day (write YYYY-MM-DD)"),
        (["--date", "2026"], f"tmanager: {path}: --date: '2026' is not a day (write YYYY-MM-DD)"),
        (["--letter", "ab"], f"tmanager: {path}: --letter: 'AB' is not a division letter (one letter, A to Z)"),
    ):
        done = run_cli("event", "export-tou", path, tmp_path / "C.TOU", *option)
        assert done.returncode == 2 and done.stderr.strip() == says, done.stderr
        assert not (tmp_path / "C.TOU").exists()
    r1, r2 = d.round(1), d.round(2)
    byes = {1: next(iter(r1.byes)), 2: next(iter(r2.byes))}
    w1, w2 = r1.boards[0], r2.boards[0]
    for n, line in zip((1, 2, 3), lines[3:6], strict=True):
        cells = line.split()
        name = " ".join(cells[:2])
        assert name == tou.display_name(
            d.player(n).name, {"Wiegand, Dave": "David Wiegand", "Goldman, Stuart": "Stu Goldman"}
        )
        rounds = [cells[2:4], cells[4:6]]
        for r, board in enumerate((w1, w2), 1):
            score, opponent = rounds[r - 1]
            if byes[r] == n:
                assert (score, opponent) == ("1350", str(n))
            elif board.white == n:
                assert (score, opponent) == ("2000" if r == 1 else "1000", f"+{board.black}")
            else:
                assert (score, opponent) == ("0" if r == 1 else "1000", str(board.white))
    # Results missing: refused with one line, nothing written.
    ev.apply(path, lambda e: ev.pair(e, e.division()))
    done = run_cli("event", "export-tou", path, tmp_path / "B.TOU")
    assert done.returncode == 2 and "has no result" in done.stderr
    assert not (tmp_path / "B.TOU").exists()


def test_scores_that_would_read_as_another_outcome_are_refused(tmp_path: Path) -> None:
    """A reader takes 2000 and more for a win, 1000-1999 for a tie, less for a loss: a losing 1020 was written
    as 1020, a tie, and a tie of 1000 as 2000, a win, in a file that rating officers take as it is."""

    def written(mine: int, theirs: int) -> str:
        cards = [tou.ScoreCard("A, B", (2,), (mine,), (True,)), tou.ScoreCard("C, D", (1,), (theirs,), (False,))]
        return tou.dumps(name="T", date="2026-01-01", division="A", players=tou.from_scores(cards))

    assert "B A 3040 +2\nD C 990 1\n" in written(1040, 990)  # a win over 1000 still reads as a win
    assert "B A 2400 +2\nD C -5 1\n" in written(400, -5)
    for mine, theirs, says in (
        (1040, 1020, "C, D: the loss's score 1020 cannot be written"),
        (1000, 1000, "the tie's score 1000 cannot be written to .TOU: 2000 would read as a win"),
    ):
        with pytest.raises(StateError) as error:
            written(mine, theirs)
        assert says.split(": ", 1)[-1] in str(error.value)
    # From the command line: one line, no file.
    path = tmp_path / "s.toml"
    for args in (
        ("new", path, "--name", "S", "--rounds", "1", "--entry", "scores", "--system", "koth"),
        ("add-player", path, "A, B"),
        ("add-player", path, "C, D"),
        ("pair", path),
        ("result", path, "1", "1040", "1020", "--yes"),
    ):
        assert run_cli("event", *args).returncode == 0
    done = run_cli("event", "export-tou", path, tmp_path / "A.TOU", "--date", "2026-01-01")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "1020 would read as a tie" in done.stderr
    assert not (tmp_path / "A.TOU").exists()


def test_export_refusals_name_the_field_and_the_fix(tmp_path: Path) -> None:
    """An export refused for what the event holds said `e.toml: the event has no date: give --date YYYY-MM-DD`,
    not `FILE: FIELD: what is wrong (how to fix it)`; so did export-trf's scoring and export-t's names."""
    path = tmp_path / "e.toml"
    scoring = PointsSystem(win=10, draw=5, loss=0, forfeit_loss=2)  # TRF-2026 scores it as a zero-point bye (0)
    ev.create(path, ev.Event(name="E", rounds=1, divisions=[ev.Division("A")], scoring=scoring))
    assert run_cli("event", "add-player", path, "Able; Ann").returncode == 0
    scored = tmp_path / "c.toml"
    assert run_cli("event", "new", scored, "--name", "C", "--rounds", "1", "--entry", "scores").returncode == 0
    assert run_cli("event", "add-player", scored, "Able; Ann").returncode == 0
    out = tmp_path / "out"
    for event, args, line in (
        (path, ("export-tou", out), f"tmanager: {path}: --date: the event has no date for the *M line (give --date "
                                    f"YYYY-MM-DD, or tmanager event set {path} start=YYYY-MM-DD)\n"),
        (path, ("export-trf", out), f"tmanager: {path}: event.scoring: TRF-2026 scores a forfeit loss and a "
                                    "zero-point bye alike (A): it cannot be written as TRF-2026 (export with "
                                    "--version 16)\n"),
        (scored, ("export-t", out), f"tmanager: {scored}: Able; Ann (1): a .t file takes no ';' in names and one-word "
                                   "teams (edit the player's name or team)\n"),
    ):
        done = run_cli("event", args[0], event, *args[1:])
        assert (done.returncode, done.stderr) == (2, line)
        assert not out.exists()
    assert run_cli("event", "export-tou", path, out, "--date", "2026-04-12").returncode == 0
