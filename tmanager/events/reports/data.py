"""A chess division's standings and pairings as data for other programs: JSON and CSV.

The rows are plain dictionaries, the same for ``event standings --format
json|csv``, ``event pairings --format json|csv`` and the web pages' JSON
routes (``standings.json``, ``pairings.json``). A player is named by the TRF
start number (``no``: the number printed everywhere), points are numbers
(``2.5``), and each tie-break is a column under the code FIDE writes for it
(``BH-C1``, ``DE``); a tie-break without a value (DE outside a tie) is null in
JSON and empty in CSV. JSON also carries the tie-breaks' legend, the round's
time and the absent players; CSV is one table (the boards, then the byes as
rows without a board number).
"""

from __future__ import annotations

import csv
import enum
import io
import json
from collections.abc import Sequence
from typing import Any

from tmanager.core.results import Result
from tmanager.events.games import round_games, virtual_points
from tmanager.events.model import Player, PlayerStatus, absent_players, missing
from tmanager.events.ranking import Group, tiebreak_names
from tmanager.events.reports.chess import BYE_NAMES, ChessReports


class ReportFormat(enum.StrEnum):
    """How ``pairings`` and ``standings`` print: as text, or as rows for other programs (``--format``)."""

    TEXT = "text"
    JSON = "json"
    CSV = "csv"


Row = dict[str, Any]


def _number(tenths: int) -> int | float:
    return tenths // 10 if tenths % 10 == 0 else tenths / 10


def _value(value: float | None) -> int | float | None:
    """A tie-break value as a number: whole when it is whole, else to two decimals."""
    if value is None:
        return None
    return int(value) if value == int(value) else round(value, 2)


def _player(player: Player) -> Row:
    return {
        "no": player.number, "title": player.title, "name": player.name, "rating": player.rating or None,
        "federation": player.federation, "fide_id": player.fide_id,
    }  # fmt: skip


def standings(reports: ChessReports, upto: int | None = None, *, among: Group | None = None) -> Row:
    """The standings after round ``upto``: event, division, round, group, the legend and a row per player."""
    n = reports.upto(upto)
    names = tiebreak_names(reports.event)
    rows = [
        {
            "rank": s.rank, **_player(s.player), "withdrawn": s.player.status is PlayerStatus.WITHDRAWN,
            "points": _number(s.points), **{t.name: _value(v) for t, v in zip(names, s.values, strict=True)},
        }
        for s in reports.ranking(n, among=among)
    ]  # fmt: skip
    return {
        "event": reports.event.name,
        "division": reports.division.name,
        "after_round": n,
        "category": among.name if among else None,
        "missing_results": sum(1 for r, _ in missing(reports.division) if r <= n),
        "tiebreaks": [{"code": t.name, "meaning": t.description} for t in names],
        "rows": rows,
    }


def pairings(reports: ChessReports, round_number: int | None = None) -> Row:
    """A round: its time, each board (both players with their points before the round and the virtual points of
    an accelerated round, the result, ``adj`` for a game adjourned or postponed, or null until one is entered),
    the byes with the points they give, and the players absent from it."""
    record = reports.paired_round(round_number)
    before = record.number - 1

    virtual = virtual_points(reports.event, reports.division, record.number)

    def side(number: int) -> Row:
        player = _player(reports.division.player(number))
        points = _number(reports.score(number, before))
        return {**player, "points": points, "virtual_points": _number(virtual.get(number, 0))}

    boards = [
        {"board": i, "white": side(b.white), "black": side(b.black),
         "result": None if b.result is Result.PENDING else b.result}  # "adj": to be played, not just unentered
        for i, b in enumerate(record.boards, 1)
    ]
    entries = round_games(reports.division, record)
    byes = [
        {**_player(reports.division.player(n)), "bye": BYE_NAMES[kind],
         "points": _number(reports.event.scoring.points(entries[n]))}
        for n, kind in record.byes.items()
    ]  # fmt: skip
    return {
        "event": reports.event.name,
        "division": reports.division.name,
        "round": record.number,
        "time": reports.event.round_time(record.number) or None,
        "boards": boards,
        "byes": byes,
        "absent": [_player(p) for p in absent_players(reports.division, record)],
    }


def to_json(data: Row) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def standings_csv(data: Row) -> str:
    """The standings rows as CSV, a column per tie-break under its code."""
    return _csv(data["rows"])


def pairings_csv(data: Row) -> str:
    """One row per board (``white_``/``black_`` columns), then one per bye with the board left empty."""
    rows: list[Row] = []
    for b in data["boards"]:
        row: Row = {"board": b["board"]}
        for side in ("white", "black"):
            row.update({f"{side}_{k}": v for k, v in b[side].items()})
        row["result"] = b["result"]
        rows.append(row)
    for bye in data["byes"]:
        rows.append({"board": None, **{f"white_{k}": v for k, v in bye.items() if k not in ("bye", "points")},
                     "white_points": bye["points"], "result": bye["bye"]})  # fmt: skip
    return _csv(rows)


def _csv(rows: Sequence[Row]) -> str:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: "" if v is None else int(v) if isinstance(v, bool) else v for k, v in row.items()}
                     for row in rows)  # fmt: skip
    return out.getvalue()

