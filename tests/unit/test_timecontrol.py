"""Time-control strings and clocks."""

from __future__ import annotations

import math

import pytest

from tmanager.core.timecontrol import TimeControl
from tmanager.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "base", "inc", "moves", "tag"),
    [
        ("40/60+0.6", 60, 0.6, 40, "40/60+0.6"),
        ("10+0.1", 10, 0.1, None, "10+0.1"),
        ("1+0.01", 1, 0.01, None, "1+0.01"),
        ("2:30+1", 150, 1, None, "150+1"),
        ("40/5:00", 300, 0, 40, "40/300"),
        ("60", 60, 0, None, "60"),
    ],
)
def test_parse(text: str, base: float, inc: float, moves: int | None, tag: str) -> None:
    tc = TimeControl.parse(text)
    assert (tc.base, tc.increment, tc.moves) == (base, inc, moves)
    assert tc.pgn_tag() == tag
    assert TimeControl.parse(str(tc)) == tc


@pytest.mark.parametrize("text", ["fast", "10+", "+1", "40/", "0", "10+0.1+2", "-5"])
def test_bad_strings_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError, match="tc"):
        TimeControl.parse(text)


def test_inf_needs_another_limit() -> None:
    with pytest.raises(ConfigError, match="no limit"):
        TimeControl.parse("inf")
    tc = TimeControl.parse("inf", nodes=1000)
    assert not tc.has_clock and tc.nodes == 1000 and tc.pgn_tag() == "-"
    assert TimeControl.parse("inf", move_time=0.5).pgn_tag() == "0.5/move"  # fastchess's spelling


@pytest.mark.parametrize("limit", ["nodes", "depth"])
def test_counts_fit_in_64_bits(limit: str) -> None:
    def parse(count: int) -> TimeControl:
        return TimeControl.parse("inf", nodes=count) if limit == "nodes" else TimeControl.parse("inf", depth=count)

    assert getattr(parse(2**63 - 1), limit) == 2**63 - 1
    with pytest.raises(ConfigError, match=f"{limit} must be at most 9,223,372,036,854,775,807"):
        parse(2**63)


@pytest.mark.parametrize(
    ("text", "move_time", "tag"),
    [
        ("8+0.08", None, "8+0.08"),
        ("0.25+0.0025", None, "0.25+0.0025"),
        ("40/60+0.6", None, "40/60+0.6"),
        ("60:00+30", None, "3600+30"),
        ("123456.7+1", None, "123457+1"),  # C++'s {:.6g}: six significant digits
        ("inf", 0.05, "0.05/move"),
        ("10+0.1", 1.25, "1.25/move"),  # fastchess writes a fixed move time alone, even beside a clock
        ("inf", 1 / 3, "0.33333333/move"),  # {:.8g}
    ],
)
def test_pgn_tag_is_fastchess_s_spelling(text: str, move_time: float | None, tag: str) -> None:
    assert TimeControl.parse(text, move_time=move_time).pgn_tag() == tag


def test_repeating_period_clock() -> None:
    clock = TimeControl.parse("2/10+1").new_clock()
    clock.spend(4)  # 10 - 4 + 1
    assert clock.remaining == 7 and clock.moves_left == 1
    clock.spend(2)  # 7 - 2 + 1, then a new period of 10
    assert clock.remaining == 16 and clock.moves_left == 2
    assert clock.deadline(0.1) == pytest.approx(16.1)


def test_move_time_deadline() -> None:
    clock = TimeControl.parse("inf", move_time=0.5).new_clock()
    assert clock.deadline(0.1) == pytest.approx(0.6)
    assert TimeControl.parse("inf", nodes=5).new_clock().deadline(0.1) is None


@pytest.mark.parametrize(("move_time", "says"), [(0.0, "st must be positive, not 0.0"),
                                                 (math.inf, "st must be a finite number, not inf"),
                                                 (math.nan, "st must be a finite number, not nan")])
def test_a_move_time_without_an_end_is_told_for_what_it_is(move_time: float, says: str) -> None:
    """`new --st inf` said 'st must be positive, not inf'."""
    with pytest.raises(ConfigError, match=says):
        TimeControl.parse("inf", move_time=move_time)


def test_a_clock_may_start_with_one_increment_as_fastchess_s_does() -> None:
    control = TimeControl.parse("40/60+0.5")
    assert control.new_clock().remaining == 60
    assert control.new_clock(increment_at_start=True).remaining == 60.5
    assert TimeControl.parse("inf", nodes=100).new_clock(increment_at_start=True).remaining == 0


def test_a_clock_of_increments_alone_only_where_it_starts_with_one() -> None:
    """fastchess plays `tc=0+0.1` (fishtest's tc of "0+N" scaled): its clock starts with one increment. XBoard's
    would start empty, so that the first move is lost on time: refused there, with the way out."""
    with pytest.raises(ConfigError, match="must be positive") as refused:
        TimeControl.parse("0+0.1")
    assert "increment_at_start = true" in (refused.value.hint or "")
    control = TimeControl.parse("0+0.1", increment_at_start=True)
    assert control.has_clock and (control.base, control.increment) == (0, 0.1)
    assert (str(control), control.pgn_tag()) == ("0+0.1", "0+0.1")  # fastchess's TimeControl tag
    clock = control.new_clock(increment_at_start=True)
    assert clock.remaining == 0.1 and clock.deadline(0.0) == 0.1
    clock.spend(0.06)
    assert clock.remaining == pytest.approx(0.14)
    with pytest.raises(ConfigError, match="must be positive"):
        TimeControl.parse("0", increment_at_start=True)  # no time at all, still


@pytest.mark.parametrize(("text", "move_time", "field"), [("99999999999999999999", None, "tc"),
                                                           ("10+2000000000000000", None, "tc"),
                                                           ("inf", 1e299, "st")])  # fmt: skip
def test_a_time_beyond_an_engines_64_bit_milliseconds_is_refused(text: str, move_time: float | None,
                                                                  field: str) -> None:
    """`tc = "99999999999999999999"` was sent as a millisecond count no engine reads: Stockfish thought for ever."""
    with pytest.raises(ConfigError, match=r"s is more than an engine's clock holds \(at most 1e\+15 s\)") as refused:
        TimeControl.parse(text, move_time=move_time)
    assert refused.value.field == field
    assert TimeControl.parse("1000000000000000+1").base == 1e15  # the longest, exactly
