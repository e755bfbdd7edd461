"""Team events and the Double-Swiss through the real `tmanager event` command: chess team divisions (rosters,
lineups, team Swiss and team round robin, board colours, match and game points, FIDE's team tie-breaks, board
prizes, TRF-2026 team records), Double-Swiss divisions, and tsh's TeamRoundRobin and team standings."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integration.test_event_scored import ok, refused
from tmanager.core import teamtiebreaks
from tmanager.core.teams import MatchPoints, bye_round, match_rounds
from tmanager.events import api as ev
from tmanager.events.teams import settings
from tmanager.formats import trf, trf_records, trf_teams

# -- FIDE's team tie-breaks (C.07), by hand --------------------------------------------------------------


def test_team_tiebreaks_by_hand() -> None:
    """Three teams of two boards, one match a round and a drawn bye (1 MP, 1 GP) for the third: A beats B 1½-½,
    C beats A 1½-½, B beats C 2-0. Every team has 3 MP; the byes are dummy opponents with the team's own score."""
    scoring = MatchPoints(20, 10, 0)
    a1, b1 = match_rounds(1, 1, 2, [(10, 0), (5, 5)], scoring)
    a2, c2 = match_rounds(2, 1, 3, [(0, 10), (5, 5)], scoring)
    b3, c3 = match_rounds(3, 2, 3, [(10, 0), (10, 0)], scoring)
    rounds = {
        1: [a1, a2, bye_round(3, match_points=10, game_points=10)],
        2: [b1, bye_round(2, match_points=10, game_points=10), b3],
        3: [bye_round(1, match_points=10, game_points=10), c2, c3],
    }
    names = ["MP", "GP", "BH:GP", "BH-C1:GP", "SB:MP", "EMGSB", "WIN"]
    values = teamtiebreaks.compute(rounds, names)
    assert values[1] == {"MP": 3, "GP": 3, "BH:GP": 9, "BH-C1:GP": 6, "SB:MP": 9, "EMGSB": 9, "WIN": 1}
    # B: opponents A (3 GP), dummy (3.5), C (2.5); EMGSB: A's 3 MP × ½ + dummy 3 × 1 + C's 3 × 2.
    assert values[2] == {"MP": 3, "GP": 3.5, "BH:GP": 9, "BH-C1:GP": 5.5, "SB:MP": 9, "EMGSB": 10.5, "WIN": 1}
    assert values[3]["EMGSB"] == 7.5 and values[3]["GP"] == 2.5
    # A cycle: direct encounter leaves all three level; game points then order them B, A, C.
    assert len(set(teamtiebreaks.direct_encounter(rounds, [1, 2, 3]).values())) == 1
    ranked = teamtiebreaks.rank(rounds, ["GP", "EMGSB"])
    assert [r.team for r in ranked] == [2, 1, 3]
    with pytest.raises(ValueError, match="unknown team tie-break 'XX'"):
        teamtiebreaks.compute(rounds, ["XX"])


# -- TRF-2026 team records -----------------------------------------------------------------------------


def test_trf_team_records_round_trip() -> None:
    """Each record writes its columns and reads back to the same value; a bad field is a ValueError naming it."""
    team = trf_teams.TrfTeam(3, "Rooks of Reading", "ROO", 2310, 45, 115, 2, (1, 5, 9, 14))
    line = team.write()
    assert line.startswith("310   3 Rooks of Reading") and line[41:46] == "ROO  "
    assert line[47:53] == "  2310" and line[54:60] == "   4.5" and line[61:67] == "  11.5" and line[68:71] == "  2"
    assert line[73:77] == "   1" and line[88:92] == "  14"
    records: list[
        trf_teams.TrfTeam | trf_teams.TeamByes | trf_teams.Lineup | trf_teams.ColourSequence
        | trf_teams.TeamScoring | trf_teams.TeamSummary
    ] = [
        team,
        trf_teams.TeamByes(10, 10, (None, 4, None)),
        trf_teams.Lineup(4, 3, 1, (5, 0, 9)),
        trf_teams.ColourSequence.alternating(4),
        trf_teams.TeamScoring(30, 10, 0),
        trf_teams.TeamSummary(2, "KNI", 30, 25, (
            trf_teams.TeamRoundEntry(4, "b", 10), trf_teams.TeamRoundEntry("PAB", "", 10),
            trf_teams.TeamRoundEntry(1, "w", 15, forfeit=True),
        )),
    ]  # fmt: skip
    for record in records:
        assert type(record).read(record.write()) == record, record
    assert [r.write() for r in records[1:5]] == [
        "320  1.0  1.0 000 004 000", "300 004 003 001 0005 0000 0009", "352 WBWB", "362 TW  3.0 TD  1.0 TL  0.0",
    ]
    assert records[5].write() == "802   2 KNI      3.0    2.5    4 b  1.0   PAB    1.0     1 w  1.5f"
    assert trf_teams.TeamScoring.read("362 TW 3") == trf_teams.TeamScoring(30, 10, 0)
    with pytest.raises(ValueError, match=r"game points: 'x1\.5'"):
        trf_teams.TrfTeam.read(line[:61] + "  x1.5" + line[67:])
    with pytest.raises(ValueError, match="not a 352 line"):
        trf_teams.ColourSequence.read("362 WB")
    with pytest.raises(ValueError, match="14 players"):
        trf_teams.TrfTeam(1, "Big", players=tuple(range(1, 16))).write()


# -- chess team divisions ------------------------------------------------------------------------------

TEAMS = {"Rooks": (1, 2, 3), "Knights": (4, 5, 6), "Bishops": (7, 8, 9), "Queens": (10, 11)}


def test_boards_alone_make_a_team_swiss_and_a_count_beyond_bounds_is_refused(tmp_path: Path) -> None:
    """new --boards 2 without --system was refused, 'dutch' not being a team division's system; --boards 0 said the
    same, and team_size = 10**12 was taken (a round's pairing laid out that many boards, out of memory)."""
    path = tmp_path / "league.toml"
    assert "team-swiss" in ok("new", path, "--name", "League", "--boards", "2")
    assert settings(ev.load(path).divisions[0]).team_size == 2
    for boards in (0, 1001):
        done = run_cli("event", "new", tmp_path / "x.toml", "--name", "X", "--boards", str(boards))
        said = done.stderr.strip()
        fix = "give 1 at least" if boards == 0 else "give 1,000 at most: more is a typing slip"
        assert done.returncode == 2, said
        assert said.endswith(f"--boards: must be from 1 to 1,000, not {boards:,} ({fix})"), said
        assert not (tmp_path / "x.toml").exists()
    done = run_cli("event", "new", tmp_path / "y.toml", "--name", "Y", "--system", "team-swiss", "--set",
                   "team_size=1000000000000")  # fmt: skip
    assert done.returncode == 2 and done.stderr.strip().endswith(
        "division[1].team_size: must be from 1 to 1,000 (the boards of a match), not 1,000,000,000,000"
    ), done.stderr


def team_event(tmp_path: Path, system: str, rounds: int | None = 3) -> Path:
    path = tmp_path / "league.toml"
    extra = ("--rounds", str(rounds)) if rounds else ()
    ok("new", path, "--name", "League", "--system", system, "--boards", "2", *extra)
    for i in range(1, 12):
        ok("add-player", path, f"P{i}, X", "--rating", str(2400 - 20 * i))
    for name, players in TEAMS.items():
        ok("add-team", path, name, *map(str, players), *(("--short", "ROO") if name == "Rooks" else ()))
    return path


def lineups(path: Path, round_number: int) -> None:
    for name, players in TEAMS.items():
        ok("lineup", path, name, *map(str, players[:2]), "--round", str(round_number))


def test_team_swiss_end_to_end(tmp_path: Path) -> None:
    path = team_event(tmp_path, "team-swiss")
    assert "no player number 99" in refused(path, "add-team", path, "Bad", "99")
    # A short name TRF cut to five letters, a line break splitting the reports' lines, and --number 0 taken
    # as "the next free one" all went in.
    assert "team[5].short: 'PAWNSTER' is longer than 5 characters" in refused(path, "add-team", path, "Pawns",
                                                                              "--short", "PAWNSTER")  # fmt: skip
    assert "team[5].name: holds a control character (U+000A)" in refused(path, "add-team", path, "Paw\nns")
    assert "--number: must be at least 1, not 0" in refused(path, "add-team", path, "Pawns", "--number", "0")
    assert "roster" in refused(path, "lineup", path, "Rooks", "3", "1", "--round", "1")
    assert "no round 0" in refused(path, "lineup", path, "Rooks", "1", "3", "--round", "0")
    out = ok("pair", path, "--explain")
    assert "[3.6]" in out and "[4.3.1" in out and "round 1 paired: 2 match(es)" in out
    assert "lineups: each team's roster's first boards; `lineup` changes one until its match has a result" in out
    # No lineup given: each team fields its roster's first boards, with the games placed at once.
    defaults = {number: list(players[:2]) for number, players in enumerate(TEAMS.values(), 1)}
    assert ev.load(path).division().round(1).lineups == defaults and len(ev.load(path).division().round(1).boards) == 4
    ok("lineup", path, "Rooks", "1", "3")  # a lineup may leave out a roster player, in board order
    assert ev.load(path).division().round(1).lineups[1] == [1, 3]
    ok("undo", path)
    assert ev.load(path).division().round(1).lineups == defaults
    # A default lineup follows a new board order while its match has no result; a given one must keep to it.
    assert "round(s) 1: its lineup follows it" in ok("roster", path, "Rooks", "2", "1", "3")
    assert ev.load(path).division().round(1).lineups[1] == [2, 1]
    ok("undo", path)
    lineups(path, 1)
    division = ev.load(path).division()
    record = division.round(1)
    # Colours alternate by board: the first team named has white on board 1, black on board 2.
    for number, (first, second) in enumerate(record.matches):
        one, two = record.boards[2 * number : 2 * number + 2]
        assert one.white in division.team(first).players and one.black in division.team(second).players
        assert two.white in division.team(second).players and two.black in division.team(first).players
    assert "no match 9" in refused(path, "result", path, "9.1", "1-0")
    # A match, board or team of thousands of digits was int()'s ValueError traceback.
    assert "is not MATCH.BOARD" in refused(path, "result", path, "9" * 5000 + ".1", "1-0")
    assert "no team matches" in refused(path, "roster", path, "9" * 5000, "1")
    # The fix was in the message, or none was given: now in the parentheses of FILE: FIELD: what (fix).
    assert refused(path, "result", path, "1.x", "1-0") == (
        f"tmanager: {path}: '1.x' is not MATCH.BOARD (write e.g. 2.3 for board 3 of match 2)"
    )
    assert refused(path, "lineup", path, "Rooks", "1") == (
        f"tmanager: {path}: a lineup names 2 board(s), not 1 (name one player per board, in order, - for an empty "
        "board)"
    )
    assert refused(path, "add-team", path, "Rooks") == (
        f"tmanager: {path}: there is already a team 'Rooks' (give this one another name)"
    )
    for board, result in (("1.1", "1-0"), ("1.2", "="), ("2.1", "0-1"), ("2.2", "0-1")):
        ok("result", path, board, result)
    standings = ok("standings", path)
    first_match, _ = ev.load(path).division().round(1).matches
    winner = division.team(first_match[0]).name  # 1½-½ on the boards: 2 match points
    assert f"{winner} " in standings.splitlines()[4] and " 2 " in standings.splitlines()[4]
    # Lineups for round 2 may come before its pairing.
    ok("lineup", path, "Rooks", "1", "2", "--round", "2")
    ok("pair", path)
    lineups(path, 2)
    for match, board_number in itertools.product((1, 2), (1, 2)):
        ok("result", path, f"{match}.{board_number}", "1-0")
    met = {frozenset(m) for r in ev.load(path).division().rounds for m in r.matches}
    assert len(met) == 4  # no two teams meet twice
    ok("report", path)
    html = tmp_path / "html" / "league"
    boards = (html / "boards-r2.txt").read_text(encoding="utf-8")
    assert "Board 1" in boards and "Board 2" in boards and "prize_games" in boards
    assert "Match 1:" in (html / "pairings-r2.txt").read_text(encoding="utf-8")
    assert "Bd 1" in (html / "lineups-r2.txt").read_text(encoding="utf-8")
    # TRF: the team records after the players, and the event back from it.
    exported = tmp_path / "league.trf"
    ok("export-trf", path, exported)
    text = exported.read_text(encoding="utf-8")
    assert "092 Swiss system for teams (FIDE C.04.6)" in text
    assert "\n352 WB\n" in text and "\n362 TW  2.0 TD  1.0 TL  0.0\n" in text
    rooks = next(line for line in text.splitlines() if line.startswith("310   1"))
    assert trf_teams.TrfTeam.read(rooks).players == (1, 2, 3)
    assert "192 FIDE_TEAM_TYPEA_MP_GP" in text
    assert "\n202 MP,GP,EMGSB,BH:MP\n" in text, "the teams' tie-breaks, not the players'"
    parsed = trf.parse(text)  # the registry reads the team records into values
    assert [t.name for t in parsed.values(trf_teams.TEAMS)] == list(TEAMS)
    assert parsed.values(trf_teams.TEAM_SCORING) == [trf_teams.TeamScoring(20, 10, 0)]
    assert sum(1 for line in text.splitlines() if line.startswith("802")) == 4
    back = tmp_path / "back.toml"
    ok("import-trf", back, exported)
    assert ok("standings", back) == ok("standings", path)
    assert settings(ev.load(back).division()).team_tiebreaks == ["GP", "EMGSB", "BH:MP"]


def test_team_round_robin_division(tmp_path: Path) -> None:
    path = team_event(tmp_path, "round-robin", rounds=None)
    assert "round 1 of the Berger tables" in ok("pair", path, "--explain")
    ok("unpair", path)
    for n in (1, 2, 3):
        ok("pair", path)
        lineups(path, n)
        for match in (1, 2):
            ok("result", path, f"{match}.1", "1-0")
            ok("result", path, f"{match}.2", "=")
    assert "all 3 rounds are paired" in refused(path, "pair", path)
    met = [frozenset(m) for r in ev.load(path).division().rounds for m in r.matches]
    assert sorted(map(sorted, met)) == [sorted(p) for p in itertools.combinations(range(1, 5), 2)]


# -- Double-Swiss divisions ------------------------------------------------------------------------------


def test_double_swiss_division(tmp_path: Path) -> None:
    path = tmp_path / "ds.toml"
    ok("new", path, "--name", "DS", "--system", "double-swiss", "--rounds", "3")
    for i in range(1, 6):
        ok("add-player", path, f"D{i}", "--rating", str(2300 - 10 * i))
    out = ok("pair", path, "--explain")
    assert "match 1 paired: rounds 1 (game 1) and 2 (game 2, colours reversed)" in out
    assert "bye: 5" in out and "[3.4]" in out and "[4.3.1" in out
    division = ev.load(path).division()
    one, two = division.round(1), division.round(2)
    assert [(b.black, b.white) for b in two.boards] == [(b.white, b.black) for b in one.boards]
    # The pairings shown are of the game being played: game 1 while it lacks results (game 2's, the colours
    # reversed, were shown), in text and in JSON (the pages' /pairings.json).
    assert ok("pairings", path).startswith("DS, division main: round 1\n")
    assert json.loads(ok("pairings", path, "--format", "json"))["round"] == 1
    # Results without --round go to a board's game 1, then to its game 2 (while other boards' game 1 is out);
    # the hooks are told the round the result went to (they were told game 1's while it had results missing).
    path.write_text(path.read_text() + '\n[hooks]\nafter_results = "echo $TMANAGER_ROUND >> rounds.txt"\n')
    assert ok("result", path, "1", "1-0").startswith("round 1:")
    assert ok("result", path, "1", "=").startswith("round 2:")
    assert (tmp_path / "rounds.txt").read_text().split() == ["1", "2"]
    assert ok("pairings", path).startswith("DS, division main: round 1\n")  # board 2's game 1 is still out
    assert "enter them before pairing match 2" in refused(path, "pair", path)
    # By the two players (as P1 against P2, whoever has white): the same, game 1 then game 2.
    white, black = (division.player(n).name for n in (one.boards[1].white, one.boards[1].black))
    assert ok("result", path, white, black, "=").startswith(f"round 1: {white}")
    assert ok("result", path, white, black, "0-1").startswith(f"round 2: {black}")
    assert ev.load(path).division().round(2).boards[1].result == "1-0", "game 2: the second player, white, won"
    assert ok("pairings", path).startswith("DS, division main: round 2\n")  # game 1 complete
    # Game 1 is complete: a board that is not there is said to be missing from game 2, where the result would go.
    assert refused(path, "result", path, "3", "1-0") == (
        f"tmanager: {path}: board: round 2 has boards 1-2; there is no board 3"
    )
    assert refused(path, "result", path, "1", "0-1") == (
        f"tmanager: {path}: both games of that match have results: game 1 (round 1) 1-0, game 2 (round 2) ½-½; "
        "`correct --round R` changes one"
    )
    assert "match 1 has results" in refused(path, "unpair", path)
    ok("pair", path)
    assert ev.load(path).division().paired_rounds == 4
    ok("unpair", path)
    assert ev.load(path).division().paired_rounds == 2
    # The bye of a match: a game won and a game drawn.
    assert " 1½ " in next(line for line in ok("standings", path).splitlines() if "D5" in line)


# -- tsh teams in score-based divisions -------------------------------------------------------------------


def test_team_round_robin_and_team_standings(tmp_path: Path) -> None:
    path = tmp_path / "scrabble.toml"
    ok("new", path, "--name", "Scr", "--rounds", "6", "--entry", "scores", "--divisions", "A,B")
    for team, count, rating in (("Red", 3, 1800), ("Blue", 2, 1700)):
        for i in range(1, count + 1):
            ok("add-player", path, "-d", "A", f"{team}{i}", "--rating", str(rating - 10 * i))
            ok("edit-player", path, "-d", "A", f"{team}{i}", "--team", team)
    ok("add-player", path, "-d", "B", "Solo", "--rating", "1500")
    ok("edit-player", path, "-d", "B", "Solo", "--team", "Red")
    assert "two teams" in refused(path, "pair", path, "-d", "B", "--system", "team-round-robin")
    assert "event has 6 rounds" in refused(path, "pair", path, "-d", "A", "--system", "team-round-robin",
                                           "--repeats", "3")  # fmt: skip
    out = ok("pair", path, "-d", "A", "--system", "team-round-robin", "--repeats", "2", "--explain")
    assert out.count("(team-round-robin)") == 6
    # --explain: each round's rotation and game of the pairing, each player's place in their team, the bye.
    assert "round 3: rotation 2 of 3 (player #i of Red meets #i+1 of Blue, cyclically), game 1 of 2" in out
    assert "Red1 (1) (#1 of Red, by rating) meets Blue1 (4) (#1 of Blue, by rating)" in out
    assert out.count("has the bye: the other team is one player short") == 6
    rounds = ev.load(path).division("A").rounds
    red, blue = {1, 2, 3}, {4, 5}
    for r in rounds:
        assert all({b.white, b.black} & red and {b.white, b.black} & blue for b in r.boards)
    pairs = [frozenset((b.white, b.black)) for r in rounds for b in r.boards]
    assert all(pairs.count(frozenset((x, y))) == 2 for x in red for y in blue)
    # Each pairing twice in succession, with the first player swapped.
    for first, second in (rounds[0:2], rounds[2:4], rounds[4:6]):
        assert [(b.black, b.white) for b in second.boards] == [(b.white, b.black) for b in first.boards]
    for n, r in enumerate(rounds, 1):
        for b in r.boards:
            ok("result", path, "-d", "A", "--round", str(n), str(b.white), "400", str(b.black), "350")
    standings = ok("team-standings", path, "-d", "A")
    assert "Red" in standings and "Blue" in standings
    total = ok("team-standings", path, "--total")
    red_line = next(line for line in total.splitlines() if line.split()[1:2] == ["Red"])
    assert red_line.split()[2] == "4" and red_line.rstrip().endswith("A, B")  # Solo plays in B
    assert "undo" not in refused(path, "team-standings", path, "-d", "C")
    early = ok("team-standings", path, "--total", "--round", "1")
    # Round 1: Red's two games won and Red3's bye (a win with its spread, as tsh counts it).
    assert "after round 1" in early and next(x for x in early.splitlines() if " Red " in x).split()[3] == "3"
    ok("undo", path)  # the last result
    assert ev.load(path).division("A").paired_rounds == 6


def test_empty_boards_forfeits_and_what_is_missing(tmp_path: Path) -> None:
    path = team_event(tmp_path, "team-swiss")
    assert "on Queens (4)'s roster" in refused(path, "add-team", path, "Pawns", "11")
    ok("add-player", path, "Spare, S", "--rating", "1900")
    ok("add-team", path, "Pawns", "Spare")
    ok("undo", path)  # add-team is one change: the player stays, the team goes
    assert [t.name for t in ev.load(path).division().teams] == list(TEAMS)
    assert ev.load(path).division().player(12).name == "Spare, S"
    ok("pair", path)
    missing = ok("missing", path)
    assert "no lineup" not in missing and missing.count("no result") == 4, "the rosters' first boards play"
    record = ev.load(path).division().round(1)
    rooks_match = next(i for i, m in enumerate(record.matches, 1) if 1 in m)
    rooks_first = record.matches[rooks_match - 1][0] == 1
    ok("lineup", path, "Rooks", "-", "-")  # nobody came: the match is forfeited
    for name in ("Knights", "Bishops"):
        ok("lineup", path, name, str(TEAMS[name][0]), "-")  # board 2 left empty
    ok("lineup", path, "Queens", "10", "11")
    out = ok("pairings", path)
    assert "(empty)" in out
    other = 3 - rooks_match
    missing = ok("missing", path)
    assert "no lineup" not in missing and f"{other}.1" in missing and f"{rooks_match}.1" not in missing
    ok("result", path, f"{other}.1", "=")
    division = ev.load(path).division()
    opponent = next(t for t in record.matches[rooks_match - 1] if t != 1)
    standings = {line.split()[2]: line.split()[3] for line in ok("standings", path).splitlines()[4:8]}
    assert standings["Rooks"] == "0" and standings[division.team(opponent).name] == "2"  # a match won by forfeit
    exported = tmp_path / "forfeit.trf"
    ok("export-trf", path, exported)
    lines = exported.read_text(encoding="utf-8").splitlines()
    kind = "-+" if rooks_first else "+-"
    forfeit = next(trf_records.Forfeit.read(line) for line in lines if line.startswith("330"))
    assert (forfeit.kind, forfeit.round) == (kind, 1) and 1 in (forfeit.white, forfeit.black)
    assert any(line.startswith("300 001 001") and line.endswith("0000 0000") for line in lines)
    # The board order holds for the whole event once a lineup was given from it.
    assert "board order" in refused(path, "roster", path, "Queens", "11", "10")


def test_dry_runs_of_team_and_double_swiss_divisions(tmp_path: Path) -> None:
    """A dry run fields the rosters' first boards where lineups are missing, and plays both games of a match."""
    league = team_event(tmp_path, "team-swiss")
    before = league.read_bytes()
    out = ok("dry-run", league, "--seed", "4")
    assert "standings after round 3" in out and out.count("Match 2:") == 3 and "lineup(s) not given" not in out
    assert league.read_bytes() == before
    rapid = tmp_path / "rapid.toml"
    ok("new", rapid, "--name", "Rapid", "--system", "double-swiss", "--rounds", "2")
    for i in range(1, 6):
        ok("add-player", rapid, f"R{i}", "--rating", str(2000 - 10 * i))
    out = ok("dry-run", rapid, "--seed", "4")
    assert "standings after round 4" in out and "round 3" in out and "still missing" not in out
    assert ev.load(rapid).division().paired_rounds == 0


def test_a_forced_match_is_cancelled_in_team_and_double_swiss_divisions(tmp_path: Path) -> None:
    """`force --cancel` takes back a team's forced match or bye, and a Double-Swiss match with its game 2."""
    path = team_event(tmp_path, "team-swiss")
    before = path.read_text(encoding="utf-8")
    ok("force", path, "Rooks", "Knights")
    ok("force", path, "Bishops", "bye")
    assert "the forced match Rooks (1) – Knights (2) is taken out" in ok("force", path, "Knights", "Rooks", "--cancel")
    assert "the forced bye of Bishops (3) is taken out" in ok("force", path, "Bishops", "bye", "--cancel")
    assert path.read_text(encoding="utf-8") == before
    assert "Bishops (3) has no forced bye in round 1" in refused(path, "force", path, "Bishops", "bye", "--cancel")
    double = tmp_path / "ds.toml"
    ok("new", double, "--name", "DS", "--system", "double-swiss", "--rounds", "4")
    for i in range(1, 5):
        ok("add-player", double, f"D{i}", "--rating", str(2300 - 10 * i))
    ok("force", double, "1", "3")
    ok("force", double, "2", "4")
    ok("force", double, "3", "1", "--cancel")
    division = ev.load(double).division()
    assert [r.forced for r in division.rounds] == [[(2, 4)], [(4, 2)]]
    assert [[(b.white, b.black) for b in r.boards] for r in division.rounds] == [[(2, 4)], [(4, 2)]]
