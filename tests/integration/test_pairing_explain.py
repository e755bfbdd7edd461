"""Why a pairing is what it is: `--explain` for the Dutch system and the Berger tables, as real processes.

The Dutch rounds are bbpPairings' random tournaments cut after some round (tests/data/bbp); the explanation is
read back from standard error and checked against the pairing on standard output.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from tests.conftest import run_cli
from tests.integration.test_event_scored import ok, refused
from tmanager.cli.pair import format_pairing
from tmanager.core.results import Colour, TrfResult
from tmanager.events import api as ev
from tmanager.formats import trf
from tmanager.pairing import Game, PlayerState, explain_round, explain_round_robin, pair_round, round_robin

DATA = Path(__file__).parents[1] / "data" / "bbp"
PAIR = re.compile(r"^  pair (\d+) - (\d+): (.*)$")
BOARD = re.compile(r"^board (\d+): (\d+) white, (\d+) black \[(5\.2\.\d): ")


def cut(name: str, rounds: int, directory: Path) -> tuple[Path, trf.Tournament]:
    """A random tournament's first ``rounds`` rounds as a TRF file (the next round is paired from it)."""
    tournament = trf.read(DATA / f"{name}.trf")
    short = dataclasses.replace(
        tournament,
        lines=(*tournament.lines, f"XXR {tournament.played_rounds}"),
        players=tuple(
            dataclasses.replace(p, games=p.games[:rounds], points=sum(map(tournament.points.points, p.games[:rounds])))
            for p in tournament.players
        ),
    )
    path = directory / f"{name}-{rounds}.trf"
    trf.write(path, short)
    return path, trf.read(path)


def test_dutch_explanations_name_every_pair_bye_float_and_colour_rule(tmp_path: Path) -> None:
    seen_rules: set[str] = set()
    origins: set[str] = set()
    floats = byes = 0
    # Round 1 (no colours yet: 5.2.5, a bye), and two later rounds between them showing 5.2.1-5.2.4,
    # transpositions, exchanges, floaters and a bye.
    for name, rounds in (("random-80", 0), ("random-80", 7), ("random-67", 5)):
        path, tournament = cut(name, rounds, tmp_path)
        plain = run_cli("pair", "--dutch", path, "-p")
        told = run_cli("pair", "--dutch", path, "-p", "--explain")
        assert plain.returncode == told.returncode == 0, told.stderr
        assert plain.stderr == ""
        # The explanation does not change the pairing, which is pair_round's.
        expected = pair_round(
            tournament.states(),
            round_number=rounds + 1,
            total_rounds=tournament.total_rounds or rounds + 1,
            forbidden=tournament.forbidden,
            points=tournament.points,
            initial_colour=tournament.first_colour(),
        )
        assert told.stdout == plain.stdout == format_pairing(expected)
        lines = told.stderr.splitlines()
        # Its pairs are the pairing's, each once; its boards and colours are the boards in order.
        pairs = [PAIR.match(line) for line in lines]
        assert sorted(sorted(map(int, m.groups()[:2])) for m in pairs if m) == sorted(map(sorted, expected.boards))
        origins |= {re.split(r",| \[", m.group(3))[0] for m in pairs if m}
        boards = [m for m in map(BOARD.match, lines) if m]
        assert [(int(m.group(2)), int(m.group(3))) for m in boards] == list(expected.boards)
        assert [int(m.group(1)) for m in boards] == list(range(1, len(expected.boards) + 1))
        seen_rules |= {m.group(4) for m in boards}
        bye = [line for line in lines if line.startswith("pairing-allocated bye: ")]
        if expected.bye is not None:
            assert bye == [bye[0]] and bye[0].startswith(f"pairing-allocated bye: {expected.bye} [C2: ")
            byes += 1
        else:
            assert not bye
        floats += sum(1 for line in lines if " floats down [C" in line)
        assert all(line.startswith(("bracket ", "  ", "pairing-allocated bye", "board ")) for line in lines)
    assert seen_rules == {"5.2.1", "5.2.2", "5.2.3", "5.2.4", "5.2.5"}
    assert origins == {
        "S1-S2 in natural order",
        "a transposition in S2",
        "an exchange between S1 and S2",
        "a moved-down player with a resident",
    }
    assert floats and byes == 2  # random-80 has 21 players, random-67 24


def test_dutch_explanation_by_hand() -> None:
    """Four players after round 1 (1 and 2 won, 3 and 4 lost): two brackets paired in natural order, colours by
    5.2.1; with 1 and 2 barred from meeting, 1 - 2 gives way to a moved-down pairing by C1."""
    tournament = trf.Tournament(
        players=tuple(
            trf.TrfPlayer(
                id=i, header=f"001 {i:4d}      {f'P{i}':<33} {2000 - i:4d}", points=points, rank=None, games=(game,)
            )
            for i, points, game in (
                (1, 10, Game(3, Colour.WHITE, TrfResult.WIN)),
                (2, 10, Game(4, Colour.BLACK, TrfResult.WIN)),
                (3, 0, Game(1, Colour.BLACK, TrfResult.LOSS)),
                (4, 0, Game(2, Colour.WHITE, TrfResult.LOSS)),
            )
        ),
        total_rounds=3,
    )
    explained = explain_round(tournament.states(), round_number=2, total_rounds=3)
    assert explained.pairing == pair_round(tournament.states(), round_number=2, total_rounds=3)
    lines = explained.lines()
    assert lines[0] == "bracket score 1: residents 1, 2"
    assert "  pair 1 - 2: S1-S2 in natural order" in lines
    assert any(line.startswith("board ") and "[5.2.1: both colour preferences granted" in line for line in lines)
    barred = explain_round(tournament.states(), round_number=2, total_rounds=3, forbidden=[{1, 2}])
    text = "\n".join(barred.lines())
    assert "1 floats down [C1: 1 may meet nobody else in the bracket" in text
    assert "pair 1 - 4: a moved-down player with a resident" in text
    assert "pair 2 - 4" not in text


def test_accelerated_brackets_are_pairing_scores() -> None:
    """Baku-style virtual points: the top half carries a point into round 1, so the brackets are 1 and 0."""
    players = [PlayerState(id=i, acceleration=(10,) if i <= 4 else ()) for i in range(1, 9)]
    explained = explain_round(players, round_number=1, total_rounds=5)
    assert explained.pairing == pair_round(players, round_number=1, total_rounds=5)
    assert explained.accelerated and [b.score for b in explained.brackets] == [10, 0]
    lines = explained.lines()
    assert lines[0] == "bracket pairing score 1: residents 1, 2, 3, 4"
    assert "  pair 1 - 3: S1-S2 in natural order" in lines and "  pair 5 - 7: S1-S2 in natural order" in lines


def test_berger_explanations(tmp_path: Path) -> None:
    first = explain_round_robin(5, 1)
    assert first.pairing == round_robin(5, 1) and first.size == 6 and first.pairing.bye == 1
    assert first.lines()[-1] == "bye: 1 meets the dummy number 6 (an odd field)"
    swapped = explain_round_robin(6, 5, cycles=2)
    assert swapped.pairing == round_robin(6, 5, cycles=2) and swapped.table_round == 4 and swapped.swapped
    second = explain_round_robin(6, 7, cycles=2)
    assert second.cycle == 2 and second.reversed and "colours reversed" in second.lines()[0]
    assert second.lines()[1] == (
        "board 1: 4 white, 6 black [number 6 keeps the table's board 1, alternating: white in this round, reversed]"
    )
    # tmanager pair --berger -p --explain: the same boards, the table's story on standard error.
    path, _ = cut("random-44", 0, tmp_path)
    plain, told = run_cli("pair", "--berger", path, "-p"), run_cli("pair", "--berger", path, "-p", "--explain")
    assert told.returncode == 0 and told.stdout == plain.stdout == format_pairing(round_robin(7, 1))
    assert told.stderr.splitlines()[0] == "round 1 of the Berger table for 8 (C.05 Annex 1), cycle 1"
    assert run_cli("pair", "--dutch", path, "-c", "--explain").stderr.strip() == (
        "tmanager: --explain: goes with -p, the pairing it explains (add -p, or leave --explain out)")


def test_event_pair_explains_dutch_round_robin_and_koth_divisions(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "3")
    for i in range(1, 6):
        ok("add-player", path, f"Player{i}, A", "--rating", str(2100 - 10 * i))
    plain = ok("pair", path, "--colour", "white")
    boards = [(b.white, b.black) for b in ev.load(path).division().round(1).boards]
    ok("unpair", path)
    told = ok("pair", path, "--colour", "white", "--explain")
    division = ev.load(path).division()
    assert [(b.white, b.black) for b in division.round(1).boards] == boards  # the explanation changes nothing
    assert "round 1 paired: 2 board(s)" in plain and "round 1 paired: 2 board(s)" in told
    assert "bracket score 0: residents Player1, A (1), Player2, A (2)" in told
    assert "pair Player1, A (1) - Player3, A (3): S1-S2 in natural order" in told
    assert "pairing-allocated bye: Player5, A (5) [C2: " in told
    assert "[5.2.5: no colour preferences: the higher-ranked Player1, A (1) has the odd pairing number 1" in told
    for board in (1, 2):
        ok("result", path, str(board), "1-0")
    assert "floats down" in ok("pair", path, "--explain")
    # A round robin: the table's round, each board's rule.
    robin = tmp_path / "club.toml"
    ok("new", robin, "--name", "Club", "--system", "round-robin")
    for i in range(1, 5):
        ok("add-player", robin, f"Member{i}, B")
    told = ok("pair", robin, "--explain")
    assert "round 1 of the Berger table for 4 (C.05 Annex 1), cycle 1" in told
    assert "board 1: Member1, B (1) #1 white, Member4, B (4) #4 black [number 4 keeps the table's board 1" in told
    # A score-based division: KOTH says who was paired with whom instead of the neighbour, and why.
    scored = tmp_path / "scrabble.toml"
    ok("new", scored, "--name", "Words", "--entry", "scores", "--system", "koth")
    for i in range(1, 6):
        ok("add-player", scored, f"Word{i}", "--rating", str(1900 - 10 * i))
    told = ok("pair", scored, "--explain")
    assert "pair Word1 (1) - Word2 (2)\npair Word3 (3) - Word4 (4)\nbye: Word5 (5) [bye: " in told
    ok("result", scored, "1", "400", "300")
    ok("result", scored, "2", "350", "360")
    plain = ok("pair", scored)
    boards = [(b.white, b.black) for b in ev.load(scored).division().round(2).boards]
    ok("unpair", scored)
    told = ok("pair", scored, "--explain")
    assert [(b.white, b.black) for b in ev.load(scored).division().round(2).boards] == boards
    assert plain.splitlines()[-1] in told
    assert (
        "pair Word1 (1) - Word4 (4), not Word1 (1) - Word5 (5) [repeats: with Word1 (1) - Word5 (5), Word4 (4) and "
        "Word3 (3) would meet again (met 1 time(s); the allowance is 0)]"
    ) in told
    ok("unpair", scored)
    assert "round 2 of the Berger table for 6" in ok("pair", scored, "--explain", "--system", "round-robin")
    ok("unpair", scored)
    # A system that cannot say refuses, in one line, and nothing changes.
    message = refused(scored, "pair", scored, "--explain", "--system", "tsh-swiss")
    assert ("the pairings of 'tsh-swiss' are not explained; those of koth, factored, round-robin, "
            "team-round-robin are") in message


def test_score_based_explanation_says_who_goes_first(tmp_path: Path) -> None:
    path = tmp_path / "firsts.toml"
    ok("new", path, "--name", "Words", "--entry", "scores", "--system", "koth",
       "--set", "track_firsts=true", "--set", "assign_firsts=true")  # fmt: skip
    for i in range(1, 5):
        ok("add-player", path, f"Word{i}", "--rating", str(1900 - 10 * i))
    assert "went first and second equally often: drawn by lot" in ok("pair", path, "--explain", "--seed", "3")
    ok("result", path, "1", "400", "300")
    ok("result", path, "2", "350", "360")
    told = ok("pair", path, "--explain")
    boards = ev.load(path).division().round(2).boards
    for board in boards:  # each board's first player is the one the reason names
        first, second = (f"Word{n} ({n})" for n in (board.white, board.black))
        assert f"{first} goes first against {second} [firsts: {first} has gone first fewer times (0)" in told
