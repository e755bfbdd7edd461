"""fastchess's lines, computed as fastchess computes them: every figure checked against fastchess's own output.

The expected texts are what fastchess 74deac23 printed: its report quoted by fishtest's worker, and for
the edge cases (no losses, no variance, no games) the Elo classes of its sources, built and run on these
counts (EloPentanomial, EloWDL, Stats). No process is started here.
"""

from __future__ import annotations

import pytest

from tmanager.core import ieee
from tmanager.core.results import Result
from tmanager.core.stats import SprtSettings
from tmanager.fastchess.elo import Stats, estimate
from tmanager.fastchess.output import Conditions, CutechessOutput, FastchessOutput, Report, reason_text, warning_text
from tmanager.fastchess.scoreboard import Scoreboard
from tmanager.tourney.announce import EngineWarning
from tmanager.tourney.outcome import Ending
from tmanager.tourney.pvcheck import PvProblem


def penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int, **games: int) -> Stats:
    return Stats(penta_ll=ll, penta_ld=ld, penta_wl=wl, penta_dd=dd, penta_wd=wd, penta_ww=ww, **games)


#: (pentanomial LL LD WL DD WD WW) -> Elo, nElo, LOS, DrawRatio (pairs), PairsRatio, WL/DD, as fastchess printed.
PENTANOMIAL = [
    ((43, 61, 119, 25, 55, 37), "-9.20 +/- 20.93", "-11.50 +/- 26.11", "19.41 %", "42.35", "0.88", "4.76"),
    ((0, 0, 0, 2, 0, 0), "-0.00 +/- 0.00", "-nan +/- -nan", "-nan %", "100.00", "-nan", "0.00"),
    ((0, 0, 0, 0, 0, 17), "inf +/- -nan", "inf +/- -nan", "100.00 %", "0.00", "inf", "-nan"),
    ((3, 0, 0, 0, 0, 0), "-inf +/- -nan", "-inf +/- -nan", "0.00 %", "0.00", "0.00", "-nan"),
    ((0, 0, 0, 0, 0, 0), "-nan +/- -nan", "-nan +/- -nan", "-nan %", "-nan", "-nan", "-nan"),
]


@pytest.mark.parametrize(("counts", "elo", "nelo", "los", "draws", "pairs", "wl_dd"), PENTANOMIAL)
def test_pentanomial_figures_are_fastchess_s(
    counts: tuple[int, int, int, int, int, int], elo: str, nelo: str, los: str, draws: str, pairs: str, wl_dd: str
) -> None:
    stats = penta(*counts)
    figures = estimate(stats, pentanomial=True)
    assert (figures.elo_text(), figures.nelo_text(), figures.los_text()) == (elo, nelo, los)
    assert ieee.fixed(stats.draw_ratio_pairs(), 2) == draws
    assert ieee.fixed(stats.pairs_ratio(), 2) == pairs
    assert ieee.fixed(stats.wl_dd_ratio(), 2) == wl_dd


#: (wins, draws, losses) -> Elo, nElo, LOS, DrawRatio (games), score, as fastchess printed.
TRINOMIAL = [
    ((332, 352, 316), "5.56 +/- 17.35", "6.91 +/- 21.53", "73.52 %", "35.20", "0.508"),
    ((27, 0, 1), "572.55 +/- nan", "869.23 +/- 128.69", "100.00 %", "0.00", "0.964"),
    ((0, 6, 0), "-0.00 +/- 0.00", "-nan +/- -nan", "-nan %", "100.00", "0.500"),
    ((0, 0, 4), "-inf +/- -nan", "-inf +/- -nan", "0.00 %", "0.00", "0.000"),
]


@pytest.mark.parametrize(("wdl", "elo", "nelo", "los", "draws", "score"), TRINOMIAL)
def test_trinomial_figures_are_fastchess_s(
    wdl: tuple[int, int, int], elo: str, nelo: str, los: str, draws: str, score: str
) -> None:
    wins, draws_, losses = wdl
    stats = Stats(wins=wins, draws=draws_, losses=losses)
    figures = estimate(stats, pentanomial=False)
    assert (figures.elo_text(), figures.nelo_text(), figures.los_text()) == (elo, nelo, los)
    assert ieee.fixed(stats.draw_ratio(), 2) == draws
    assert ieee.fixed(figures.score, 3) == score


def test_the_block_fishtest_reads_is_fastchess_s_to_the_character() -> None:
    """fishtest's worker quotes this block of fastchess's output in its parser; the same counts give it here."""
    board = Scoreboard(pentanomial=True)
    board.results["New", "Base"] = penta(43, 61, 119, 25, 55, 37, wins=248, losses=266, draws=166)
    report = Report(board, "New", "Base", ["New", "Base"], Conditions("0.601+0.006", "1t", "16MB", "UHO.epd"))
    assert FastchessOutput().interval(report) == [
        "-" * 50,
        "Results of New vs Base (0.601+0.006, 1t, 16MB, UHO.epd):",
        "Elo: -9.20 +/- 20.93, nElo: -11.50 +/- 26.11",
        "LOS: 19.41 %, DrawRatio: 42.35 %, PairsRatio: 0.88",
        "Games: 680, Wins: 248, Losses: 266, Draws: 166, Points: 331.0 (48.68 %)",
        "Ptnml(0-2): [43, 61, 144, 55, 37], WL/DD Ratio: 4.76",
        "-" * 50,
    ]


def played(board: Scoreboard, games: list[tuple[str, str, Result]], *, paired: bool = True) -> None:
    for number, (white, black, result) in enumerate(games):
        board.add(white, black, result, pair=number // 2 if paired else None)


def test_a_sprt_line_follows_the_figures() -> None:
    """fastchess 74deac23, `-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05`, after two drawn pairs."""
    board = Scoreboard(pentanomial=True)
    played(board, [("dev", "base", Result.DRAW), ("base", "dev", Result.DRAW)] * 2)
    report = Report(board, "dev", "base", ["dev", "base"], Conditions("2000 nodes", "1t", "16MB", "sample.epd"),
                    sprt=SprtSettings(0, 5, 0.05, 0.05))
    assert FastchessOutput().interval(report)[1:-1] == [
        "Results of dev vs base (2000 nodes, 1t, 16MB, sample.epd):",
        "Elo: -0.00 +/- 0.00, nElo: -nan +/- -nan",
        "LOS: -nan %, DrawRatio: 100.00 %, PairsRatio: -nan",
        "Games: 4, Wins: 0, Losses: 0, Draws: 4, Points: 2.0 (50.00 %)",
        "Ptnml(0-2): [0, 0, 2, 0, 0], WL/DD Ratio: 0.00",
        "LLR: -0.00 (-0.0%) (-2.94, 2.94) [0.00, 5.00]",
    ]


def test_a_pair_counts_when_both_its_games_are_in() -> None:
    board = Scoreboard(pentanomial=True)
    assert not board.add("dev", "base", Result.WHITE_WINS, pair=0).completed_pair
    assert board.head_to_head("dev", "base").games == 0  # fastchess counts whole pairs only
    assert board.add("base", "dev", Result.DRAW, pair=0).completed_pair
    stats = board.head_to_head("dev", "base")
    assert (stats.wins, stats.draws, stats.losses, stats.pentanomial) == (1, 1, 0, (0, 0, 0, 1, 0))
    assert board.head_to_head("base", "dev").pentanomial == (0, 1, 0, 0, 0)


def test_three_engines_get_fastchess_s_table() -> None:
    """fastchess 74deac23 with three engines, after each pair of games was a win for White each."""
    board = Scoreboard(pentanomial=True)
    played(board, [("a", "b", Result.WHITE_WINS), ("b", "a", Result.WHITE_WINS),
                   ("a", "c", Result.WHITE_WINS), ("c", "a", Result.WHITE_WINS),
                   ("b", "c", Result.WHITE_WINS), ("c", "b", Result.WHITE_WINS)])
    report = Report(board, "b", "c", ["a", "b", "c"], Conditions("1000 nodes", "1t", "16MB"))
    header = "Rank Name" + " " * 29 + "Elo        +/-       nElo        +/-      Games      Score       Draw "
    row = "{} {}                              -0.00       0.00       -nan       -nan          4      50.0%     100.0% "
    assert FastchessOutput().interval(report) == [
        "-" * 50,
        header + "          Ptnml(0-2)",
        row.format("   1", "a") + "     [0, 0, 2, 0, 0]",
        row.format("   2", "b") + "     [0, 0, 2, 0, 0]",
        row.format("   3", "c") + "     [0, 0, 2, 0, 0]",
        "-" * 50,
    ]


def test_cutechess_lines() -> None:
    """fastchess 74deac23 with `-output format=cutechess` and an SPRT, after six drawn games."""
    board = Scoreboard(pentanomial=False)
    output = CutechessOutput()
    lines = []
    for number in range(6):
        white, black = ("dev", "base") if number % 2 == 0 else ("base", "dev")
        board.add(white, black, Result.DRAW, pair=None)
        lines += output.score(board.head_to_head("dev", "base"), "dev", "base")
    assert lines[0] == "Score of dev vs base: 0 - 0 - 1  [0.500] 1"
    assert lines[-1] == "Score of dev vs base: 0 - 0 - 6  [0.500] 6"
    report = Report(board, "dev", "base", ["dev", "base"], Conditions("", "", ""), sprt=SprtSettings(0, 5))
    assert output.interval(report) == [
        "Elo difference: -0.00 +/- 0.00, LOS: -nan %, DrawRatio: 100.00 %",
        "SPRT: llr -0.00 (0.0%), lbound -2.94, ubound 2.94",
    ]


@pytest.mark.parametrize(
    ("ending", "result", "overstep", "text"),
    [
        (Ending.CHECKMATE, Result.BLACK_WINS, None, "Black mates"),
        (Ending.RESIGN_ADJUDICATION, Result.WHITE_WINS, None, "White wins by adjudication"),
        (Ending.DRAW_ADJUDICATION, Result.DRAW, None, "Draw by adjudication"),
        (Ending.MOVE_LIMIT, Result.DRAW, None, "Draw by adjudication"),
        (Ending.TABLEBASE_WIN, Result.BLACK_WINS, None, "Black wins by adjudication: SyzygyTB"),
        (Ending.TIME_FORFEIT, Result.BLACK_WINS, 153, "White loses on time (153ms overrun)"),
        (Ending.CRASH, Result.WHITE_WINS, None, "Black disconnects"),
        (Ending.STALL, Result.WHITE_WINS, None, "Black's connection stalls"),
        (Ending.ILLEGAL_MOVE, Result.BLACK_WINS, None, "White makes an illegal move"),
        (Ending.VARIANT_WIN, Result.WHITE_WINS, None, "tmanager's own words"),
    ],
)
def test_reasons_are_fastchess_s_words(ending: Ending, result: Result, overstep: int | None, text: str) -> None:
    """The words OpenBench's worker looks for in them: "disconnect", "stalls", "on time", "illegal"."""
    assert reason_text(ending, result, "tmanager's own words", overstep_ms=overstep) == text


def test_a_sign_mismatch_is_fastchess_s_lines() -> None:
    warning = EngineWarning(
        PvProblem.SIGN_MISMATCH, "A (White) and B (Black)", "1 and 1",
        "info depth 1 score mate 1 pv b1c3 ; info depth 1 score mate 1 pv f6g8", "startpos", ("b1c3", "f6g8"),
    )
    assert warning_text(warning, test_env=False).splitlines() == [
        "Warning; Sign mismatch in mate scores 1 and 1 from A (White) and B (Black)",
        "Infos; info depth 1 score mate 1 pv b1c3 ; info depth 1 score mate 1 pv f6g8",
        "Position; startpos",
        "Moves; b1c3 f6g8",
    ]


def test_a_search_without_a_score_is_one_line_as_fastchess_s() -> None:
    none = EngineWarning(PvProblem.NO_INFO_LINE, "dev", "", "", "startpos", ("e2e4",))
    assert warning_text(none, test_env=True) == "Warning; No info line available to extract score from engine dev"
    bad = EngineWarning(PvProblem.NO_SCORE, "dev", "", "Invalid score value: x1", "startpos", ())
    said = "Warning; Could not extract score from engine dev: Invalid score value: x1"
    assert warning_text(bad, test_env=False) == said
