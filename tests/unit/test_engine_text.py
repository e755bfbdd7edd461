"""What engines write, read without a process: search reports (UCI ``info``, XBoard thinking) and option
declarations. The clients against real engines are in test_uci.py, test_xboard_engines.py and test_game_runner.py."""

from __future__ import annotations

import pytest

from tmanager.tourney.enginelines import EngineError
from tmanager.tourney.engineoptions import EngineOption, OptionKind, uci_option, unconverted, xboard_option
from tmanager.tourney.search import MATE_SCORE, Report, Score, Wanted, uci_report, xboard_report

SEARCH = [
    "depth 1 seldepth 1 multipv 1 score cp 20 nodes 20 nps 20000 tbhits 0 time 1 pv e2e4",
    "depth 2 seldepth 3 multipv 1 score cp 35 upperbound nodes 120 nps 60000 hashfull 1 time 2 pv e2e4 e7e5",
    "depth 2 currmove d2d4 currmovenumber 2",
    "string score cp 999 pv a2a3 is not a report",
]


def test_a_uci_report_takes_each_fields_last_value() -> None:
    report = uci_report(SEARCH, Wanted.ALL)
    assert report == Report(score=Score(cp=35), depth=2, seldepth=3, nodes=120, nps=60000, time=0.002, hashfull=1,
                            tbhits=0, pv=("e2e4", "e7e5"))


def test_a_uci_report_reads_only_what_is_wanted() -> None:
    assert uci_report(SEARCH, Wanted.NOTHING) == Report()
    assert uci_report(SEARCH, Wanted.SCORE) == Report(score=Score(cp=35))
    assert uci_report(SEARCH, Wanted.BASIC).score is None and uci_report(SEARCH, Wanted.BASIC).pv == ()
    # With the score alone, the lines before the last score are not read: their fields are not needed.
    assert uci_report(["depth 9 score cp 1", "garbage score mate -3"], Wanted.SCORE) == Report(score=Score(mate=-3))


def test_a_pv_stops_at_the_first_word_that_is_no_move() -> None:
    assert uci_report(["depth 3 pv e7e8q P@e4 0000 string x"], Wanted.PV).pv == ("e7e8q", "P@e4", "0000")
    assert uci_report(["depth 3 pv e2e4 score cp 5"], Wanted.ALL) == Report(score=Score(cp=5), depth=3,
                                                                           pv=("e2e4",))


def test_unreadable_values_are_left_out() -> None:
    assert uci_report(["depth x score cp y nodes 7 time"], Wanted.ALL) == Report(nodes=7)


@pytest.mark.parametrize(
    ("score", "centipawns", "text"),
    [
        (Score(cp=25), 25, "+0.25"), (Score(cp=0), 0, "0.00"), (Score(cp=-150), -150, "-1.50"),
        (Score(mate=3), MATE_SCORE - 3, "+M5"), (Score(mate=-2), -MATE_SCORE + 2, "-M4"),
        (Score(mate=0), -MATE_SCORE, "-M0"),
    ],
)  # fmt: skip
def test_scores_as_adjudication_counts_them_and_fastchess_writes_them(score: Score, centipawns: int, text: str) -> None:
    assert (score.centipawns(), score.text()) == (centipawns, text)


def test_xboard_thinking_output() -> None:
    report = xboard_report(" 7   -31    104    8123 12 90000 0 Nf3 d5 2. d4", Wanted.ALL)
    assert report == Report(score=Score(cp=-31), depth=7, time=1.04, nodes=8123, seldepth=12, nps=90000, tbhits=0,
                            pv=("Nf3", "d5", "d4"))
    assert xboard_report("3 100005 10 500 e2e4", Wanted.SCORE) == Report(score=Score(mate=5), depth=3, time=0.1,
                                                                           nodes=500)
    assert xboard_report("3 -100002 10 500 e2e4", Wanted.SCORE).score == Score(mate=-2)  # type: ignore[union-attr]
    assert xboard_report("move e2e4", Wanted.ALL) is None
    assert xboard_report("1 2 3", Wanted.ALL) is None  # fewer than four numbers: no thinking line


def test_uci_option_declarations() -> None:
    assert uci_option("name Hash type spin default 16 min 1 max 33554432") == EngineOption(
        "Hash", OptionKind.SPIN, 16, 1, 33554432)
    assert uci_option("name UCI_Variant type combo default chess var chess var atomic var 3check") == EngineOption(
        "UCI_Variant", OptionKind.COMBO, "chess", choices=("chess", "atomic", "3check"))
    assert uci_option("name Clear Hash type button") == EngineOption("Clear Hash", OptionKind.BUTTON)
    assert uci_option("name Ponder type check default false") == EngineOption("Ponder", OptionKind.CHECK, False)
    assert uci_option("name Debug Log File type string default <empty>").default == "<empty>"  # type: ignore[union-attr]
    assert uci_option("name Odd type colour default red") is None


def test_xboard_option_declarations_with_spaces_in_names() -> None:
    assert xboard_option("Resign Threshold -spin 800 200 1200") == EngineOption(
        "Resign Threshold", OptionKind.SPIN, 800, 200, 1200)
    assert xboard_option("Dummy Slider Example -slider 20 0 100") == EngineOption(
        "Dummy Slider Example", OptionKind.SPIN, 20, 0, 100)
    assert xboard_option("Resign -check 0") == EngineOption("Resign", OptionKind.CHECK, False)
    assert xboard_option("Dummy String Example -string happy birthday!") == EngineOption(
        "Dummy String Example", OptionKind.STRING, "happy birthday!")
    assert xboard_option("Style -combo Solid /// *Normal /// Risky") == EngineOption(
        "Style", OptionKind.COMBO, "Normal", choices=("Solid", "Normal", "Risky"))
    assert xboard_option("Makruk rules -combo makruk /// Cambodian /// Ai-wok").default == "makruk"  # type: ignore[union-attr]
    assert xboard_option("Info -button") == EngineOption("Info", OptionKind.BUTTON)
    assert xboard_option("-spin 1 2 3") is None and xboard_option("NoType here") is None


def test_option_values_are_checked() -> None:
    spin = EngineOption("Hash", OptionKind.SPIN, 16, 1, 1024)
    assert spin.parse("64") == 64
    with pytest.raises(EngineError, match="at most 1024"):
        spin.parse(4096)
    with pytest.raises(EngineError, match="expected integer"):
        spin.parse("many")
    combo = EngineOption("Style", OptionKind.COMBO, "Normal", choices=("Solid", "Normal"))
    with pytest.raises(EngineError, match="invalid value for combo option 'Style', got: Wild"):
        combo.parse("Wild")
    assert EngineOption("Ponder", OptionKind.CHECK).parse("false") is False
    assert EngineOption("Ponder", OptionKind.CHECK).parse(True) is True
    with pytest.raises(EngineError, match="line-break"):
        EngineOption("Name", OptionKind.STRING).parse("a\nb")
    assert EngineOption("MultiPV", OptionKind.SPIN).managed and not spin.managed


@pytest.mark.parametrize(("text", "failed"), [
    ("abc", "stoi"), ("", "stoi"), ("+", "stoi"), ("0x10", ""), (" 12abc", ""), ("1.5", ""), ("-7", ""),
    ("2147483647", ""), ("2147483648", "stoi"), ("-2147483648", ""), ("-2147483649", "stoi"),
    ("99999999999", "stoi"),
])
def test_a_spin_value_fastchess_cannot_read_as_a_number(text: str, failed: str) -> None:
    """fastchess reads a spin's value with std::stoi: what stoi throws on (no number first, or one beyond a C++ int)
    it warns of as "Failed to set option … : stoi"; a number it reads (from the start of ' 12abc') is in range or
    not, and other words are printed then."""
    hash_option = EngineOption("Hash", OptionKind.SPIN, 16, 1, 65536)
    assert unconverted(hash_option, text) == failed
    assert unconverted(EngineOption("Style", OptionKind.STRING, "x"), text) == ""
