"""How a cross-table writes points and tie-breaks: every figure as it is, in every format."""

from __future__ import annotations

import csv
import io
import json

from tmanager.core import crosstable, crosstableformats, stats
from tmanager.core.results import Result
from tmanager.core.standings import GameResult, points_text

TIEBREAKS = ("SB", "EBH", "PS", "BH")


def _games() -> list[GameResult]:
    """Three engines, 1,201 games: tie-breaks of six digits and a half, EBH in the hundreds of millions."""
    games = []
    for white, black, wins, draws in (("A", "B", 300, 101), ("A", "C", 350, 49), ("B", "C", 250, 151)):
        games += [GameResult(white, black, Result.WHITE_WINS)] * wins + [GameResult(white, black, Result.DRAW)] * draws
    return games


def test_points_and_tiebreaks_are_written_whole_in_every_format() -> None:
    """``:g`` wrote PS 297062.5 as 297062 and EBH 308241174 as 3.08241e+08 in the CSV, text, markdown and HTML alike."""
    table = crosstable.build(_games(), tiebreak_names=TIEBREAKS)
    exact = {p["name"]: p for p in json.loads(crosstableformats.render(table, crosstable.Format.JSON))["players"]}
    assert any(not float(v).is_integer() and v > 10_000 for p in exact.values() for v in p["tiebreaks"].values())
    assert any(v >= 1e6 for p in exact.values() for v in p["tiebreaks"].values())
    rows = list(csv.DictReader(io.StringIO(crosstableformats.render(table, crosstable.Format.CSV))))
    text = crosstableformats.render(table, crosstable.Format.TEXT)
    text_rows = {line.split()[1]: line.split() for line in text.splitlines()[3:6]}
    for row in rows:
        player = exact[row["Name"]]
        assert float(row["Points"]) == player["points"]
        for name in TIEBREAKS:
            assert "e" not in row[name] and float(row[name]) == player["tiebreaks"][name]
        assert text_rows[row["Name"]][-len(TIEBREAKS):] == [row[name] for name in TIEBREAKS]


def test_points_text() -> None:
    assert [points_text(v) for v in (0.0, -0.0, 2.5, 3.0, 12556.25, 3926905.0, 1234567.5, 0.1 * 30, -4.5)] == [
        "0", "0", "2.5", "3", "12556.25", "3926905", "1234567.5", "3", "-4.5",
    ]  # fmt: skip


def test_an_elo_of_nothing_has_a_plus_sign_not_a_minus() -> None:
    """All draws gave ``Elo -0.0 ± 0.0`` beside ``nElo +0.0``: -400 log10(1) is -0.0, and a tiny loss rounds to it."""
    assert "Elo +0.0 ± 0.0, nElo +0.0" in crosstableformats.match_line("A", "B", stats.match_stats(0, 0, 10))
    assert "Elo +0.0 ±" in crosstableformats.match_line("A", "B", stats.match_stats(10_000, 10_001, 0))
    assert "Elo -0.2 ±" in crosstableformats.match_line("A", "B", stats.match_stats(10_000, 10_010, 0))


def test_markdown_writes_names_as_text() -> None:
    """Only '|' was escaped: a player "<b>x</b>" came out bold wherever the table was rendered, "*A*" in italics, a
    PGN named "my_*games*.pgn" as the title lost its stars, and a name with a backslash before its '|' ("A\\|B")
    ended the cell there."""
    games = [GameResult("<b>x</b>", "*A*", Result.WHITE_WINS, "1"), GameResult("*A*", "A\\|B", Result.DRAW, "2"),
             GameResult("A\\|B", "<b>x</b>", Result.BLACK_WINS, "3")]
    table = crosstable.build(games, title="my_*games*.pgn")
    text = crosstableformats.render(table, crosstable.Format.MARKDOWN)
    assert text.startswith("# my\\_\\*games\\*.pgn\n")
    rows = [line for line in text.splitlines() if line.startswith("| 1 |")]
    assert rows[0].startswith("| 1 | \\<b\\>x\\</b\\> | 2 |"), rows
    assert "| A\\\\\\|B |" in text and "| \\*A\\* |" in text
    header, _, *standings = text.splitlines()[2:7]
    assert all(line.count(" | ") == header.count(" | ") for line in standings)
