"""Each engine against the field (tourney.tallies, core.fieldtable), and a match's live line: counted from a
results string as the games one by one count, printed as testers read them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.core import crosstableformats, fieldtable
from tmanager.core.schedule import Schedule
from tmanager.core.sprt import match_state
from tmanager.core.stats import SprtSettings
from tmanager.tourney.engines import Protocol
from tmanager.tourney.model import GameOrder, Participant, Settings, Tourney, TourneyType
from tmanager.tourney.tallies import field_records

WHITE_HALVES = {"+": 2, "=": 1, "-": 0}


def tourney(settings: Settings, players: int, results: str) -> Tourney:
    names = [Participant(name=f"p{i}", cmd="stockfish", protocol=Protocol.UCI) for i in range(players)]
    return Tourney(path=Path("/nonexistent/t.toml"), settings=settings, participants=names, results=results)


def one_by_one(schedule: Schedule, results: str, players: int) -> list[tuple[int, int, int, list[int]]]:
    """Each participant's W, D, L and complete pairs, game by game: what tallies counts by strides."""
    wdl = [[0, 0, 0] for _ in range(players)]
    penta = [[0] * 5 for _ in range(players)]
    for number, char in enumerate(results):
        if char not in WHITE_HALVES:
            continue
        game = schedule.game(number)
        assert game is not None
        halves = WHITE_HALVES[char]
        wdl[game.white][2 - halves] += 1
        wdl[game.black][halves] += 1
        partner = schedule.partner(number)
        if partner is None or partner < number or partner >= len(results) or results[partner] not in WHITE_HALVES:
            continue
        other = schedule.game(partner)
        assert other is not None
        theirs = WHITE_HALVES[results[partner]]
        first = halves + (theirs if other.white == game.white else 2 - theirs)
        penta[game.white][first] += 1
        penta[game.black][4 - first] += 1
    return [(w, d, lost, p) for (w, d, lost), p in zip(wdl, penta, strict=True)]


SHAPES = [
    Settings(type=TourneyType.ROUND_ROBIN, cycles=3, games_per_pairing=2),
    Settings(type=TourneyType.ROUND_ROBIN, cycles=3, games_per_pairing=1),
    Settings(type=TourneyType.GAUNTLET, gauntlet_seeds=2, cycles=4, games_per_pairing=2),
    Settings(type=TourneyType.ROUND_ROBIN, cycles=3, games_per_pairing=2, order=GameOrder.FASTCHESS),
    Settings(
        type=TourneyType.GAUNTLET, gauntlet_seeds=2, cycles=2, games_per_pairing=2, order=GameOrder.FASTCHESS,
        noswap=True,
    ),
]


@pytest.mark.parametrize("settings", SHAPES, ids=lambda s: f"{s.type}-{s.games_per_pairing}-{s.order}-{s.noswap}")
def test_strided_counts_are_the_game_by_game_counts(settings: Settings) -> None:
    rng = random.Random(7)
    empty = tourney(settings, 5, "")
    total = empty.schedule().total_games
    results = "".join(rng.choice("+-=+-= *") for _ in range(total - 3))
    t = tourney(settings, 5, results)
    expected = one_by_one(t.schedule(), results, 5)
    got = field_records(t)
    assert [(r.wins, r.draws, r.losses, list(r.penta or [0] * 5)) for r in got] == expected
    assert sum(r.games for r in got) == 2 * sum(c in WHITE_HALVES for c in results)


def test_the_table_puts_the_strongest_first_with_its_los() -> None:
    records = [
        fieldtable.FieldRecord("weak", 1, 2, 7, (3, 1, 1, 0, 0)),
        fieldtable.FieldRecord("strong", 7, 2, 1, (0, 0, 1, 1, 3)),
        fieldtable.FieldRecord("idle", 0, 0, 0, (0, 0, 0, 0, 0)),
    ]
    lines = fieldtable.render(records)
    assert [line.split()[1] for line in lines[1:]] == ["strong", "weak", "idle"]
    strong = lines[1]
    assert "[0, 0, 1, 1, 3]" in strong and "%" in strong and "+" in strong
    # An engine without games (a substitute not yet played) shows no figure: not +0.0 ± inf with a LOS of 50 %.
    assert lines[3].split()[1:] == ["idle", "-", "-", "-", "-", "-", "0", "-", "-", "-"]


def test_an_even_score_is_plus_zero_elo_as_in_the_match_line() -> None:
    """An even score is -400 log10(1) = -0.0 Elo: the table showed `-0.0 ± 0.0` beside nElo `+0.0` (one drawn
    game of a newcomer, a 1-1 record), where the match line and the cross-table say +0."""
    records = [fieldtable.FieldRecord("even", 1, 0, 1, None), fieldtable.FieldRecord("d", 0, 1, 0, None)]
    lines = fieldtable.render(records)
    for line in lines[1:]:
        elo, nelo = line.split()[2], line.split()[4]
        assert elo == "+0.0" and nelo == "+0.0", line


def test_a_match_s_line_has_los_drawn_pairs_pairs_ratio_wl_dd_and_the_llr_s_share() -> None:
    """p0 has white in the even games. Pairs from p0's side: "+-" WW, "==" DD twice, "++" WL, "=-" WD."""
    t = tourney(Settings(cycles=5, games_per_pairing=2), 2, "+-====++=-")
    state = match_state(t.schedule(), t.results, SprtSettings(0, 5))
    assert state.penta == (0, 0, 3, 1, 1) and state.double_draws == 2
    line = crosstableformats.match_line("p0", "p1", state.statistics(), state.settings)
    assert "DrawRatio 60.0 % of pairs" in line and "PairsRatio inf" in line and "WL/DD 0.50" in line
    assert "LOS " in line and " %) (-2.94, 2.94) [0, 5]" in line


def test_run_reports_at_each_multiple_the_games_finished_then(tmp_path: Path) -> None:
    """run looks at the file every 0.5 s, and these 8 games take about a second: a look may find the count past
    several multiples of 2. Still one report at each, as fastchess prints them, each of the games finished as the
    count reached it: the seed plays every game, so its count goes 2, 4, 6, 8."""
    path = tmp_path / "g.toml"
    made = run_cli("new", path, "--type", "gauntlet", "-e", "greedy-uci:seed", "-e", "random-uci:r1",
                   "-e", "random-uci:r2", "--nodes", "1", "--cycles", "2")
    assert made.returncode == 0, made.stderr
    ran = run_cli("run", path, "--report-every", "2")
    assert ran.returncode == 0, ran.stderr
    reports = ran.stderr.split("each against the field:\n")[1:]
    seeds = [next(line.split() for line in r.splitlines() if line.split()[1:2] == ["seed"]) for r in reports]
    assert [seed[7] for seed in seeds] == ["2", "4", "6", "8"], ran.stderr
    status = run_cli("status", path)
    table = status.stdout.split("each against the field:\n", 1)[1].splitlines()
    assert table[0].split()[:3] == ["Rank", "Name", "Elo"] and {table[i].split()[1] for i in (1, 2, 3)} == {
        "seed", "r1", "r2"}
