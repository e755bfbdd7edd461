"""Team divisions in TRF files of other programs: TRF-2026's team records and TRF-16's ``013`` lines without
tmanager's ``XTM`` lines, both ways, with the real ``tmanager event`` CLI."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.integration.test_event_scored import ok, refused
from tests.integration.test_event_teams import TEAMS, lineups, team_event
from tests.integration.test_event_trf import enter_players, xtm_numbers
from tmanager.core.results import Colour, TrfResult
from tmanager.events import api as ev
from tmanager.events.model import Division
from tmanager.formats import trf, trf_teams
from tmanager.pairing import Game


def played_league(tmp_path: Path) -> Path:
    """Two rounds of the team Swiss: round 1 with a forfeited match and an empty board, round 2 played out."""
    path = team_event(tmp_path, "team-swiss")
    ok("pair", path, "--colour", "white")  # not the lot: the refusals below are cut to this league's games
    record = ev.load(path).division().round(1)
    rooks_match = next(m for m in record.matches if 1 in m)
    ok("lineup", path, "Rooks", "-", "-")  # nobody came: the match is lost by forfeit
    for name, players in TEAMS.items():
        if name != "Rooks":
            ok("lineup", path, name, str(players[0]), "-" if name == "Knights" else str(players[1]))
    other = 1 if record.matches[1] == rooks_match else 2
    ok("result", path, f"{other}.1", "1-0")
    if ev.load(path).division().round(1).boards[1:]:
        ok("result", path, f"{other}.2", "=")
    ok("pair", path)
    lineups(path, 2)
    for match, board in itertools.product((1, 2), (1, 2)):
        ok("result", path, f"{match}.{board}", "1-0" if board == 1 else "=")
    return path


def foreign(exported: Path) -> Path:
    """The file as another program writes it: without tmanager's XTM lines."""
    bare = exported.with_name("foreign-" + exported.name)
    text = exported.read_text(encoding="utf-8")
    bare.write_text("".join(line for line in text.splitlines(keepends=True) if not line.startswith("XTM")),
                    encoding="utf-8")  # fmt: skip
    return bare


def team_view(division: Division) -> tuple[object, ...]:
    teams = sorted((t.number, t.name, tuple(t.players)) for t in division.teams)
    # TRF-16 cannot say which team of a forfeited match was named first: matches compare as pairs of teams.
    rounds = [({frozenset(m) for m in r.matches}, {t: tuple(x) for t, x in r.lineups.items()},
               {(b.white, b.black, b.result) for b in r.boards}) for r in division.rounds if r.paired]  # fmt: skip
    assert division.team_settings is not None
    return teams, rounds, division.team_settings.team_size, division.team_settings.match_points


def standings_table(path: Path) -> list[str]:
    return ok("standings", path).splitlines()[1:]  # the title names the event, which TRF-16 gives back too


@pytest.mark.parametrize("version", ["2026", "16"])
def test_team_trf_of_other_programs_round_trip(tmp_path: Path, version: str) -> None:
    path = played_league(tmp_path)
    exported = tmp_path / f"league-{version}.trf"
    ok("export-trf", path, exported, "--version", version)
    lines = exported.read_text(encoding="utf-8").splitlines()
    if version == "16":
        rosters = [line for line in lines if line.startswith("013")]
        assert rosters[0] == "013 Rooks" + " " * 27 + "   1    2    3"  # name in 5-36, players from 37 in 5 columns
        assert len(rosters) == 4 and not any(line.startswith("310") for line in lines)
    back = tmp_path / f"back-{version}.toml"
    ok("import-trf", back, foreign(exported))
    assert team_view(ev.load(back).division()) == team_view(ev.load(path).division())
    assert standings_table(back) == standings_table(path)
    # And the event so imported goes on: a third round pairs as the original's does.
    ok("pair", back)
    ok("pair", path)
    assert set(ev.load(back).division().round(3).matches) == set(ev.load(path).division().round(3).matches)


def test_foreign_team_trf_refused(tmp_path: Path) -> None:
    path = played_league(tmp_path)
    exported = tmp_path / "league.trf"
    ok("export-trf", path, exported)
    bare = foreign(exported)
    text = bare.read_text(encoding="utf-8")
    target = tmp_path / "back.toml"

    def refusal(changed: str) -> str:
        broken = tmp_path / "broken.trf"
        broken.write_text(changed, encoding="utf-8")
        message = refused(target, "import-trf", target, broken) if target.exists() else _refused_new(target, broken)
        assert message.startswith(f"tmanager: {broken}: ")
        return message

    # A player on two teams' rosters.
    rooks = next(line for line in text.splitlines() if line.startswith("310   1"))
    knights = next(line for line in text.splitlines() if line.startswith("310   2"))
    assert "rosters of 'Rooks' and 'Knights'" in refusal(text.replace(knights, knights + roster(1)))
    # A player who plays but is on no team.
    assert "no 310/013 line has them on a team" in refusal(text.replace(rooks, rooks[:72] + roster(1, 3)))
    # More players on a side than boards.
    assert "the 352 line gives 1 board(s)" in refusal(text.replace("\n352 WB\n", "\n352 W\n"))
    # A round whose games are no team matches: one Knights player moved to the Bishops' roster.
    bishops = next(line for line in text.splitlines() if line.startswith("310   3"))
    moved = text.replace(knights, knights[:72] + roster(4, 6)).replace(bishops, bishops + roster(5))
    assert "form no team matches" in refusal(moved)
    assert not target.exists()


def roster(*players: int) -> str:
    """Players of a 310 line after its first 72 columns: 74–77, 79–82, …"""
    return "".join(f" {p:4d}" for p in players)


def _refused_new(target: Path, broken: Path) -> str:
    """import-trf into a new file: exit 2, one line, no file made."""
    from tests.conftest import run_cli

    done = run_cli("event", "import-trf", target, broken)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not target.exists()
    return done.stderr.strip()


def derby(path: Path, board2: tuple[int, int], *, version: str) -> Path:
    """A TRF of one round of two teams of two boards, as another program writes it: no XTM lines. Board 1:
    1 (white) beats 3; board 2: ``board2`` (white, black) draw."""
    games = {1: Game(3, Colour.WHITE, TrfResult.WIN), 3: Game(1, Colour.BLACK, TrfResult.LOSS)}
    white, black = board2
    games |= {white: Game(black, Colour.WHITE, TrfResult.DRAW), black: Game(white, Colour.BLACK, TrfResult.DRAW)}
    points = {1: 10, 2: 5, 3: 0, 4: 5}
    players = tuple(
        trf.TrfPlayer(n, f"001 {n:4d}      {f'Player {n}':<33} {2300 - 10 * n:4d}", points[n], None, (games[n],))
        for n in (1, 2, 3, 4)
    )
    header: tuple[str, ...]
    records: dict[str, tuple[object, ...]]
    if version == "16":
        header, records = ("012 Derby", "XXR 1"), {"013": (trf_teams.TeamRoster("Town", (1, 2)),
                                                         trf_teams.TeamRoster("Gown", (3, 4)))}  # fmt: skip
    else:
        header = ("012 Derby", "142 1", "192 FIDE_TEAM_ROUNDROBIN", "202 MP,GP,BH/C1:MP")  # the teams' tie-breaks
        records = {"310": (trf_teams.TrfTeam(1, "Town", players=(1, 2)), trf_teams.TrfTeam(2, "Gown", players=(3, 4))),
                   "352": (trf_teams.ColourSequence("WB"),), "362": (trf_teams.TeamScoring(30, 10, 0),)}  # fmt: skip
    trf.write(path, trf.Tournament(players=players, lines=header, records=records))
    return path


@pytest.mark.parametrize("version", ["2026", "16"])
def test_a_team_file_written_elsewhere(tmp_path: Path, version: str) -> None:
    """Teams, boards, matches, colours by board and the match result from a small file not written by tmanager."""
    source = derby(tmp_path / "derby.trf", (4, 2), version=version)
    target = tmp_path / "derby.toml"
    ok("import-trf", target, source)
    division = ev.load(target).division()
    assert [(t.number, t.name, t.players) for t in division.teams] == [(1, "Town", [1, 2]), (2, "Gown", [3, 4])]
    record = division.round(1)
    assert record.matches == [(1, 2)] and record.lineups == {1: [1, 2], 2: [3, 4]}
    assert [(b.white, b.black, str(b.result)) for b in record.boards] == [(1, 3, "1-0"), (4, 2, "½-½")]
    assert division.team_settings is not None and division.team_settings.team_size == 2
    if version == "2026":
        assert division.system == "round-robin" and division.team_settings.match_points == (3, 1, 0)
        assert division.team_settings.team_tiebreaks == ["GP", "BH-C1:MP"]  # MP ranks first
    standings = ok("standings", target).splitlines()
    assert "Town" in standings[4] and f" {3 if version == '2026' else 2} " in standings[4]  # match points
    # Board 2 with the first team's player on white: not FIDE's alternating colours.
    wrong = derby(tmp_path / "wrong.trf", (2, 4), version=version)
    assert "do not alternate by board" in _refused_new(tmp_path / "wrong.toml", wrong)


def test_team_numbers_fit_trfs_three_digits(tmp_path: Path) -> None:
    """A team numbered 1000 (or 99999999999999999999) was entered, and its 310 and 300 lines lost their columns."""
    path = tmp_path / "league.toml"
    ok("new", path, "--name", "League", "--rounds", "3", "--boards", "2", "--system", "team-swiss")
    for i in range(1, 5):
        ok("add-player", path, f"Player{i}, X")
    ok("add-team", path, "Rooks", "1", "2")
    says = refused(path, "add-team", path, "Kings", "3", "4", "--number", "1000")
    assert says.endswith("division 'main': team number 1000 is beyond 999 (TRF writes team numbers in three digits)")
    ok("add-team", path, "Kings", "3", "4", "--number", "999")


def test_a_team_divisions_players_numbered_with_gaps(tmp_path: Path) -> None:
    """Player numbers with gaps were the starting ranks of the 001 lines and of the rosters (310, TRF-16's 013) and
    lineups (300), which pairing programs refuse; they are now ranks 1..N everywhere in the file, and the XTM player
    lines give the numbers back."""
    path = tmp_path / "league.toml"
    ok("new", path, "--name", "League", "--system", "team-swiss", "--boards", "2", "--rounds", "3")
    rosters = {"Rooks": (1, 2, 4), "Knights": (5, 7, 8), "Bishops": (10, 11), "Queens": (13, 14)}
    enter_players(path, {n: (f"P{n}, X", 2400 - 20 * n) for team in rosters.values() for n in team})
    for name, players in rosters.items():
        ok("add-team", path, name, *map(str, players))
    ok("pair", path, "--colour", "white")
    ok("lineup", path, "Rooks", "1", "4")  # not the roster's first boards: a 300 record
    for match, board in itertools.product((1, 2), (1, 2)):
        ok("result", path, f"{match}.{board}", "1-0" if board == 1 else "=")
    for version in ("2026", "16"):
        exported = tmp_path / f"league-{version}.trf"
        ok("export-trf", path, exported, "--version", version)
        tournament = trf.read(exported)
        assert sorted(p.id for p in tournament.players) == list(range(1, 11))
        number = xtm_numbers(exported.read_text(encoding="utf-8"))
        assert sorted(number.values()) == sorted(n for team in rosters.values() for n in team)
        named = [(t.name, t.players) for t in tournament.values(trf_teams.TEAMS)] or [
            (t.name, t.players) for t in tournament.values(trf_teams.TEAM_ROSTERS)
        ]
        assert [(name, tuple(number[p] for p in players)) for name, players in named] == list(rosters.items())
        lineups = [tuple(number[p] for p in x.players) for x in tournament.values(trf_teams.LINEUPS)]
        assert lineups == ([(1, 4)] if version == "2026" else [])
        back = tmp_path / f"back-{version}.toml"
        ok("import-trf", back, exported)
        assert back.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
