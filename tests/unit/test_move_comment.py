"""A move's PGN comment as fastchess writes it (gamepgn.move_comment): its times in whole milliseconds."""

from __future__ import annotations

from tmanager.tourney.gamepgn import move_comment
from tmanager.tourney.search import Report, Score


def test_times_are_whole_milliseconds_with_no_negative_zero() -> None:
    # fastchess prints each time from an integer of milliseconds ("{:.3f}s" of ms / 1000): never "-0.000s",
    # which a latency a fraction of a millisecond below the engine's reported time printed here.
    report = Report(score=Score(cp=25), depth=12, time=0.1053)
    fields = ("timeleft", "latency")
    assert move_comment(report, 0.1050, fields, time_left=1.9996) == "+0.25/12 0.105s, tl=2.000s, latency=0.000s"
    assert move_comment(report, 0.1040, fields, time_left=-0.0002) == "+0.25/12 0.104s, tl=0.000s, latency=-0.001s"
