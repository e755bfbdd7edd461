"""FIDE's Double-Swiss (C.04.5): the top-scoregroup procedure, Article 4's colours, the random tournaments and the
checker, and `tmanager pair --double-swiss` (-p, -c, -g, --explain) as a real process."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.core.results import Colour, TrfResult
from tmanager.core.scoring import Game
from tmanager.errors import PairingError
from tmanager.formats import trf
from tmanager.pairing.doubleswiss import match_of, pair_double_swiss
from tmanager.pairing.model import PlayerState
from tmanager.pairing.topscore import Contender, pair_round
from tmanager.pairing.verification import check_double_swiss, random_double_swiss

REVERSED = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}


def play(games: dict[int, list[Game]], white: int, black: int, first: str, second: str) -> None:
    """A match: ``white`` has white in game 1; ``first`` and ``second`` are white's results in games 1 and 2."""
    codes = [TrfResult.parse(c) for c in (first, second, REVERSED[first], REVERSED[second])]
    games[white] += [Game(black, Colour.WHITE, codes[0]), Game(black, Colour.BLACK, codes[1])]
    games[black] += [Game(white, Colour.BLACK, codes[2]), Game(white, Colour.WHITE, codes[3])]


def states(games: dict[int, list[Game]]) -> list[PlayerState]:
    return [PlayerState(pid, tuple(g), rank=pid) for pid, g in games.items()]


def test_first_match_pairs_top_half_against_bottom_half_and_alternates_colours() -> None:
    players = [PlayerState(i, rank=i) for i in range(1, 9)]
    result = pair_double_swiss(players, round_number=1, total_rounds=5)
    assert result.pairing.boards == ((1, 5), (6, 2), (3, 7), (8, 4))
    assert result.pairing.bye is None
    black = pair_double_swiss(players, round_number=1, total_rounds=5, initial_colour=Colour.BLACK)
    assert black.pairing.boards == ((5, 1), (2, 6), (7, 3), (4, 8))
    assert "board 1: 1 has white in game 1, 5 black [4.3.1: first match, the higher-ranked player's TPN 1 is odd]" in (
        result.explanation
    )


def test_the_bye_goes_to_the_lowest_score_then_most_matches_then_largest_tpn_and_only_once() -> None:
    games: dict[int, list[Game]] = {i: [] for i in range(1, 6)}
    first = pair_double_swiss(states(games), round_number=1, total_rounds=4)
    assert first.pairing.bye == 5
    assert "bye: 5, score 0, 0 match(es) played, TPN 5" in first.explanation[0]
    play(games, 1, 3, "1", "1")  # 1 beats 3 2-0
    play(games, 4, 2, "0", "0")  # 2 beats 4 2-0
    games[5] += [Game(None, None, TrfResult.PAIRING_BYE), Game(None, None, TrfResult.HALF_BYE)]
    second = pair_double_swiss(states(games), round_number=2, total_rounds=4)
    # 3 and 4 have nothing; 5 had the bye [C2]; of 3 and 4 (one match each), the larger TPN.
    assert second.pairing.bye == 4
    assert "5 cannot have the bye" not in "\n".join(second.explanation)  # 5 is not among the lowest scores
    # [C2] in the procedure: the lowest contender had a bye; [3.4.1]: the next one's absence strands 1.
    c = [
        Contender(1, 1, 20, met=frozenset({2, 3})), Contender(2, 2, 10, met=frozenset({1, 3})),
        Contender(3, 3, 10, met=frozenset({1, 2})), Contender(4, 4, 5), Contender(5, 5, 0, bye_barred=True),
    ]  # fmt: skip
    done = pair_round(c)
    assert done.bye == 3
    assert done.notes[0] == "5 cannot have the bye: a bye, a forfeit win or a full-point bye before [C2]"
    assert done.notes[1] == "4 cannot have the bye: the others could not all be paired [3.4.1]"


def test_scores_are_game_points_and_a_match_won_on_games_makes_an_upfloater() -> None:
    games: dict[int, list[Game]] = {i: [] for i in range(1, 7)}
    play(games, 1, 4, "1", "1")  # 1: 2
    play(games, 5, 2, "=", "0")  # 2: 1½, 5: ½
    play(games, 3, 6, "=", "=")  # 3, 6: 1
    result = pair_double_swiss(states(games), round_number=2, total_rounds=3)
    boards = {frozenset(b) for b in result.pairing.boards}
    # 1 (2 points) alone at the top: one upfloater, from the highest score below (2, with 1½) [C5].
    assert frozenset({1, 2}) in boards
    text = "\n".join(result.explanation)
    assert "bracket 2: residents 1" in text and "upfloaters 2: 1, the fewest" in text and "from 1½ ×1 [C5]" in text


def test_no_rematch_unless_the_match_was_forfeited_as_a_whole() -> None:
    won = Game(2, Colour.WHITE, TrfResult.FORFEIT_WIN), Game(2, Colour.BLACK, TrfResult.FORFEIT_WIN)
    assert not match_of(*won).meeting
    assert match_of(*won).bars_bye  # a match won by forfeit [C2]
    single = match_of(Game(2, Colour.WHITE, TrfResult.FORFEIT_LOSS), Game(2, Colour.BLACK, TrfResult.WIN))
    assert single.meeting and single.colour == "w" and single.points == 10
    unplayed = match_of(Game(2, Colour.WHITE, TrfResult.FORFEIT_LOSS), Game(2, Colour.BLACK, TrfResult.FORFEIT_LOSS))
    assert not unplayed.meeting and unplayed.colour is None
    games: dict[int, list[Game]] = {i: [] for i in range(1, 3)}
    play(games, 1, 2, "+", "+")  # 2 did not come: 1 won the match by forfeit
    again = pair_double_swiss(states(games), round_number=2, total_rounds=2)
    assert again.pairing.boards in (((1, 2),), ((2, 1),))
    games = {i: [] for i in range(1, 3)}
    play(games, 1, 2, "1", "+")  # game 2 forfeited: the match counts as played
    with pytest.raises(PairingError, match="cannot be completed"):
        pair_double_swiss(states(games), round_number=2, total_rounds=2)


def test_colours_fewer_whites_then_the_latest_difference_then_alternation() -> None:
    games: dict[int, list[Game]] = {i: [] for i in range(1, 5)}
    play(games, 1, 2, "=", "=")
    play(games, 3, 4, "=", "=")
    # All on 1 point. 1 and 3 had white: 1-3 and 2-4 cannot both alternate; a pair's higher-ranked alternates.
    result = pair_double_swiss(states(games), round_number=2, total_rounds=3)
    lines = [line for line in result.explanation if line.startswith("board")]
    assert result.pairing.boards == ((3, 1), (2, 4))
    assert lines == [
        "board 1: 3 has white in game 1, 1 black [4.3.4: the higher-ranked player alternates]",
        "board 2: 2 has white in game 1, 4 black [4.3.4: the higher-ranked player alternates]",
    ]
    play(games, 3, 1, "=", "=")
    play(games, 2, 4, "=", "=")
    # 1: w b, 2: b w, 3: w w, 4: b b. 1-4: fewer whites (4 has none); 2-3: 2 has fewer whites.
    result = pair_double_swiss(states(games), round_number=3, total_rounds=3)
    assert set(result.pairing.boards) == {(4, 1), (2, 3)}
    assert all("4.3.2: fewer whites" in line for line in result.explanation if line.startswith("board"))


def test_upfloaters_the_first_set_by_score_and_tpn_and_the_bracket_by_identifier_order() -> None:
    # Residents 1, 2 met; the lower ones 3, 4, 5, 6 (equal scores): two upfloaters, the first set {3, 4};
    # then 1-3, 2-4 by identifier order (tops 1, 2; bottoms 3, 4).
    c = [Contender(1, 1, 20, met=frozenset({2})), Contender(2, 2, 20, met=frozenset({1}))]
    c += [Contender(i, i, 10) for i in range(3, 7)]
    done = pair_round(c)
    assert done.brackets[0].upfloaters == (3, 4)
    assert done.brackets[0].pairs == ((1, 3), (2, 4))
    assert "3 (already met)" not in "\n".join(done.brackets[0].notes)
    # 3 may not meet 1 or 2 (forbidden): the next set that keeps the round completable is {4, 5}.
    done = pair_round(c, forbidden=[{1, 3}, {2, 3}])
    assert done.brackets[0].upfloaters == (4, 5)
    assert done.brackets[1].pairs == ((3, 6),)
    # A bracket's top member takes the first opponent it may meet; the notes say which it passed and why.
    c = [Contender(1, 1, 0, met=frozenset({3})), Contender(2, 2, 0), Contender(3, 3, 0, met=frozenset({1})),
         Contender(4, 4, 0)]  # fmt: skip
    pairs = pair_round(c).brackets[0]
    assert pairs.pairs == ((1, 4), (2, 3))
    assert "1-4: the first opponent in TPN order after 3 (already met) [3.6]" in pairs.notes


def test_generated_tournaments_keep_the_absolute_rules_and_check_clean() -> None:
    for seed in range(4):
        players = random_double_swiss(17, 7, random.Random(seed))
        byes = Counter(p.id for p in players for g in p.games[::2] if g.result == "U")
        assert max(byes.values(), default=0) <= 1
        for p in players:
            pairs = zip(p.games[::2], p.games[1::2], strict=True)
            met = [first.opponent for first, second in pairs if match_of(first, second).meeting]
            assert len(met) == len(set(met)), f"seed {seed}: a rematch for {p.id}"
        assert check_double_swiss(players, matches=7) == []


def test_a_generated_tournament_ends_with_its_last_paired_match() -> None:
    # 10 players cannot be paired for 10 matches: the match that fails leaves no absence behind (a player once
    # had two games more than the others, and the file -g wrote was refused by -p as a match cut in half).
    players = random_double_swiss(10, 10, random.Random(1))
    assert {len(p.games) for p in players} == {16}
    assert check_double_swiss(players, matches=8) == [], "paired as a tournament of the 8 matches it has"


def test_a_generated_file_says_the_matches_it_holds(tmp_path: Path) -> None:
    """-g wrote the XXR asked for (XXR 20 for 10 matches) over a field that ran out of pairings after 8: the file
    claimed two matches to come that no pairing exists for (-p: "the round cannot be completed"). Its XXR is
    now the 8 matches really paired, each paired for a tournament of 8, so -p says all are paired and -c
    finds each as it stands."""
    path = tmp_path / "short.trf"
    done = run_cli("pair", "--double-swiss", "-g", path, "--players", "10", "--rounds", "10", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert "10 players, 8 match(es) of 2 games (XXR 16); 10 asked, the field ran out of pairings" in done.stdout
    assert "XXR 16" in path.read_text().splitlines()
    assert {len(p.games) for p in trf.read(path).players} == {16}
    paired = run_cli("pair", "--double-swiss", path, "-p")
    assert paired.returncode == 1 and "all 8 matches are paired (XXR 16)" in paired.stderr, paired.stderr
    checked = run_cli("pair", "--double-swiss", path, "-c")
    assert checked.returncode == 0 and checked.stdout.endswith("0 difference(s)\n"), checked.stdout


def test_the_checker_finds_a_deliberately_broken_pairing() -> None:
    players = {p.id: p for p in random_double_swiss(12, 5, random.Random(7))}
    match = 3
    column = 2 * match - 2
    whites = [p for p in players.values() if p.games[column].colour == "w" and p.games[column].opponent]
    a, c = whites[0], whites[1]
    b, d = players[a.games[column].opponent or 0], players[c.games[column].opponent or 0]

    def swap(p: PlayerState, old: int, new: int) -> PlayerState:
        games = list(p.games)
        for i in (column, column + 1):
            assert games[i].opponent == old
            games[i] = dataclasses.replace(games[i], opponent=new)
        return dataclasses.replace(p, games=tuple(games))

    players[a.id], players[c.id] = swap(a, b.id, d.id), swap(c, d.id, b.id)
    players[b.id], players[d.id] = swap(b, a.id, c.id), swap(d, c.id, a.id)
    differences = check_double_swiss(list(players.values()), matches=5)
    assert differences and all(d.match >= match for d in differences)
    texts = [d.text for d in differences if d.match == match]
    assert f"the tournament has {a.id} {d.id}, not expected" in texts
    assert f"expected {a.id} {b.id}, the tournament has not" in texts


def test_pair_double_swiss_command(tmp_path: Path) -> None:
    path = tmp_path / "random.trf"
    done = run_cli("pair", "--double-swiss", "-g", path, "--players", "13", "--rounds", "4", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "13 players, 4 match(es) of 2 games (XXR 8)" in done.stdout
    checked = run_cli("pair", "--double-swiss", path, "-c")
    assert checked.returncode == 0 and checked.stdout.endswith("0 difference(s)\n"), checked.stdout
    assert checked.stdout.count("Match #") == 4
    # The first three matches of the file; the fourth is paired again, as -p writes it.
    tournament = trf.read(path)
    cut = dataclasses.replace(
        tournament,
        players=tuple(
            dataclasses.replace(p, games=p.games[:6], points=sum(tournament.points.points(g) for g in p.games[:6]))
            for p in tournament.players
        ),
    )
    trf.write(tmp_path / "three.trf", cut)
    paired = run_cli("pair", "--double-swiss", tmp_path / "three.trf", "-p", "--explain")
    assert paired.returncode == 0, paired.stderr
    lines = paired.stdout.splitlines()
    ours = pair_double_swiss(cut.states(), round_number=4, total_rounds=4).pairing
    bye = [f"{ours.bye} 0"] if ours.bye else []
    assert lines == [str(len(lines) - 1), *(f"{w} {b}" for w, b in ours.boards), *bye]
    if not any(p.games[6].result == "Z" for p in tournament.players):  # nobody was absent: the file's match 4
        assert {tuple(map(int, line.split())) for line in lines[1:] if not line.endswith(" 0")} == {
            (p.id, p.games[6].opponent) for p in tournament.players if p.games[6].colour == "w"
        }
    assert "[3.6]" in paired.stderr and "has white in game 1" in paired.stderr
    # Bad requests: one line each, JaVaFo's status for invalid input.
    for args, message in (
        (("pair", "--dutch", "-g", tmp_path / "x.trf"), "-g: generates Double-Swiss tournaments only"),
        (("pair", "--double-swiss", path, "-c", "--explain"), "--explain: goes with -p"),
        (("pair", "--double-swiss", path, "-p"), "all 4 matches are paired"),
    ):
        bad = run_cli(*args)
        assert bad.returncode in (1, 3) and message in bad.stderr and len(bad.stderr.splitlines()) == 1
    odd = tmp_path / "odd.trf"
    odd.write_text(path.read_text().replace("XXR 8", "XXR 7"))
    bad = run_cli("pair", "--double-swiss", odd, "-c")
    assert bad.returncode == 3 and "XXR with twice the number of matches" in bad.stderr
