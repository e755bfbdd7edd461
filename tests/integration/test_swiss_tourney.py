"""Swiss engine tourneys: rounds paired by the Dutch system as results come in, stored in the file."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from tests.conftest import assert_consistent, run_cli
from tests.integration.test_workers import slow_tourney
from tmanager.pairing import PointsSystem
from tmanager.tourney import store, tallies
from tmanager.tourney.tallies import byes, tally


def test_swiss_odd_field_two_cycles(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "sw.toml", players=5, games=2, cycles=2,
                        extra='type = "swiss"\nswiss_rounds = 3\nbye_points = 1.5')
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    tourney = store.read(path)
    assert len(tourney.swiss) == 6 and len(games) == 6 * 2 * 2
    for cycle in range(2):
        rounds = tourney.swiss[cycle * 3 : cycle * 3 + 3]
        meetings = [frozenset(board) for boards in rounds for board in boards]
        assert len(meetings) == len(set(meetings)), "a rematch within a cycle"
        given = byes(tourney)[cycle * 3 : cycle * 3 + 3]
        assert len(set(given)) == 3, "a second bye within a cycle"
    # Points: games plus 1.5 per bye; the results string is the only other source.
    assert sum(tally(tourney)) == len(games) + 1.5 * 6
    # status's standings count the byes too: they showed the games alone, ranking otherwise than the pairings did.
    table = tallies.crosstable(tourney)
    names = [p.name for p in tourney.participants]
    shown_points = {line.standing.name: line.standing.points for line in table.lines}
    assert shown_points == dict(zip(names, tally(tourney), strict=True))
    shown = run_cli("status", path)
    assert shown.returncode == 0 and "note: points include those of byes: " in shown.stdout
    # Sync is implied: the log shows each round paired only after the previous one finished.
    log = path.with_suffix(".log").read_text()
    assert log.count("Swiss round") == 6


def test_swiss_round_one_pairs_top_half_against_bottom_half(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "r1.toml", players=6, games=1, extra='type = "swiss"\nswiss_rounds = 1')
    assert run_cli("run", path).returncode == 0
    tourney = store.read(path)
    # Dutch round 1: 1-4, 5-2, 3-6 (participant order is the seeding).
    assert tourney.swiss == [[(0, 3), (4, 1), (2, 5)]]
    assert_consistent(path)


def test_swiss_pairings_survive_a_restart(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "st.toml", players=4, games=1, extra='type = "swiss"\nswiss_rounds = 3')
    assert run_cli("work", path, "--games", "3").returncode == 0
    first = store.read(path).swiss
    assert len(first) == 2  # round 2 was paired once round 1 finished
    assert run_cli("run", path).returncode == 0
    final = store.read(path)
    assert final.swiss[:2] == first and len(final.swiss) == 3
    pairs = [frozenset(b) for boards in final.swiss for b in boards]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, map(frozenset, itertools.combinations(range(4), 2))))
    assert_consistent(path)


def test_swiss_rounds_must_allow_no_rematch(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "bad.toml", players=4, extra='type = "swiss"\nswiss_rounds = 4')
    done = run_cli("status", path)
    assert done.returncode == 2
    assert "bad.toml: tourney.swiss_rounds: 4 Swiss rounds with 4 participants" in done.stderr


def test_double_swiss_pairs_matches_of_two_games_as_natural_pairs(tmp_path: Path) -> None:
    """type = "double-swiss": each pairing is FIDE's two-game match, colours reversed, one opening (a PGN pair),
    paired by game points; the bye is worth a game won and a game drawn."""
    from tmanager.pairing.doubleswiss import pair_double_swiss
    from tmanager.tourney.swiss import game_history

    path = slow_tourney(tmp_path / "ds.toml", players=5, games=2, extra='type = "double-swiss"\nswiss_rounds = 3')
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    tourney = store.read(path)
    assert len(tourney.swiss) == 3 and len(games) == 3 * 2 * 2
    meetings = [frozenset(b) for boards in tourney.swiss for b in boards]
    assert len(meetings) == len(set(meetings)), "a rematch"
    assert len(set(byes(tourney))) == 3
    assert sum(tally(tourney)) == len(games) + 1.5 * 3
    # Each match is the schedule's natural pair: the PGN's Pair tag joins its two games, colours reversed.
    by_number = {int(g["GameNumber"]): g for g in games}
    for number in range(0, len(games), 2):
        first, second = by_number[number], by_number[number + 1]
        assert first["Pair"] == second["Pair"] == str(number)
        assert (first["White"], first["Black"]) == (second["Black"], second["White"])
    # Every round is what the Double-Swiss pairs from the games before it (the file's white is game 1's).
    for r in range(1, 3):
        again = pair_double_swiss(game_history(tourney, 0, r), round_number=r + 1, total_rounds=3,
                                  points=PointsSystem(pairing_bye=10))
        assert [(w - 1, b - 1) for w, b in again.pairing.boards] == tourney.swiss[r]


def test_double_swiss_needs_matches_of_two_games(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "ds3.toml", players=4, games=3, extra='type = "double-swiss"\nswiss_rounds = 2')
    done = run_cli("status", path)
    assert done.returncode == 2
    assert "ds3.toml: tourney.games_per_pairing: a Double-Swiss match is 2 games, not 3" in done.stderr


def test_a_played_rounds_pairings_changed_by_hand_are_refused(tmp_path: Path) -> None:
    """A round's results belong to its pairings: changed (or the round removed) by hand, they were credited to
    other engines in silence, and the next round paired on them; refused as a participant list changed is."""
    path = slow_tourney(tmp_path / "sw.toml", players=4, games=2, extra='type = "swiss"\nswiss_rounds = 3')
    assert run_cli("work", path, "--games", "2").returncode == 0  # round 1, both games of one pairing
    played = store.read(path).swiss[0]
    assert len(played) == 2
    text = path.read_text()
    written = f"[[{played[0][0]}, {played[0][1]}], [{played[1][0]}, {played[1][1]}]]"
    assert written in text
    swapped = f"[[{played[0][0]}, {played[1][0]}], [{played[0][1]}, {played[1][1]}]]"
    for pairings in (swapped, ""):
        path.write_text(text.replace(written + ",", pairings + ("," if pairings else "")))
        before = path.read_bytes()
        for command in ("status", "work"):
            done = run_cli(command, path, timeout=60)
            assert done.returncode == 2, done.stderr
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
            assert "swiss.rounds[0]: round 1 has results, which were recorded with its pairings" in lines[0]
            assert path.read_bytes() == before
    # Its results set back as well, the round is the user's to pair again, and its games are played anew.
    path.write_text(re.sub(r'results = "[-+=]{2}', 'results = "  ', text.replace(written + ",", swapped + ",")))
    assert run_cli("status", path).returncode == 0
    assert run_cli("work", path, "--games", "2").returncode == 0
    assert store.read(path).swiss[0] == [(played[0][0], played[1][0]), (played[0][1], played[1][1])]
