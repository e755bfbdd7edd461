"""An event's TRF export, line by line: the columns the pairing programs read their fields from."""

from __future__ import annotations

from tmanager.core.results import Result
from tmanager.core.scoring import PointsSystem
from tmanager.events import api as ev
from tmanager.events import trffile as event_trf
from tmanager.formats import trf


def small_event(scoring: PointsSystem) -> ev.Event:
    """Five players, round 1 of 3 paired and played."""
    event = ev.Event(name="Open", rounds=3, scoring=scoring, divisions=[ev.Division("main")])
    d = event.division()
    for number in range(1, 6):
        ev.add_player(event, d, ev.Player(number, f"P{number}, X", rating=2000 - 10 * number))
    ev.pair(event, d, colour="white")
    for board in d.round(1).boards:
        ev.set_result(event, d, 1, board, Result.WHITE_WINS)
    return event


def test_trf16_points_lines_have_the_points_in_columns_5_to_8() -> None:
    """``BBW 3.0`` was written: bbpPairings reads the points in columns 5-8 (``BBW  3.0``, its README) and refused
    the whole file (``Invalid line "BBW 3.0"``, status 3), so no event scored 3-1-0 could be checked or paired by it
    from tmanager's TRF-16; found exporting a 3-1-0 event and running ``bbpPairings --dutch -c`` on it."""
    event = small_event(PointsSystem(win=30, draw=10, loss=0, pairing_bye=30))
    text = event_trf.dumps(event, event.division(), version=trf.Version.TRF_16)
    lines = {line[:3]: line for line in text.splitlines() if line.startswith("BB")}
    assert lines == {"BBW": "BBW  3.0", "BBD": "BBD  1.0", "BBL": "BBL  0.0", "BBZ": "BBZ  0.0",
                     "BBF": "BBF  0.0", "BBU": "BBU  3.0"}  # fmt: skip
    assert trf.parse(text).points == event.scoring
