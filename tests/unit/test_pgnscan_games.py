"""Which games of a PGN the tag scanner counts: the checks on each game's tags, on small files (no process)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tmanager.core import crosstable, crosstableformats
from tmanager.errors import ConfigError
from tmanager.formats import pgnscan

SELF_PLAY = """\
[White "sf"]
[Black "sf"]
[Result "1-0"]

1. e4 1-0

[White "sf"]
[Black "sf"]
[Result "1/2-1/2"]

1. e4 1/2-1/2

[White "sf"]
[Black "x"]
[Result "1/2-1/2"]

1. e4 1/2-1/2
"""


def test_a_game_of_a_player_against_himself_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """Two games of sf against sf (a self-play PGN, or a database's "?" against "?") counted twice for sf: five
    games in the standings out of three, +60 Elo from one drawn game, and the two paired into a pentanomial 1.5/2
    of a match "sf vs x" that was one draw."""
    path = tmp_path / "self.pgn"
    path.write_text(SELF_PLAY)
    report = pgnscan.ScanReport()
    table = crosstable.build(pgnscan.scan(path, report))
    assert report.warnings == {"same-player": 2}
    assert report.examples[0] == f"{path}: game 1: White and Black are both 'sf'; game skipped"
    assert [(line.standing.name, line.standing.games, line.elo) for line in table.lines] == [
        ("sf", 1, 0.0),
        ("x", 1, 0.0),
    ]
    assert table.match is not None and table.match.stats.penta is None and table.match.stats.draws == 1


def test_numbers_too_long_for_int_are_no_numbers(tmp_path: Path) -> None:
    """A GameNumber, Pair or Round tag of 5,000 digits was int()'s ValueError (Python refuses more than 4,300
    digits): a traceback where a malformed game is a warning at most. Such a number names no game: unknown."""
    digits = "9" * 5000
    games = [
        f'[White "A"]\n[Black "B"]\n[Result "1-0"]\n[{tag} "{digits}"]\n\n1-0\n'
        for tag in ("GameNumber", "Pair", "Round")
    ]
    path = tmp_path / "digits.pgn"
    path.write_text("\n".join(games))
    read = list(pgnscan.scan(path))
    unknown = (None, None, "")
    assert [(g.game_number, g.pair, g.round) for g in read] == [unknown, unknown, (None, None, digits)]
    table = crosstable.build(read)
    assert table.tally.games == 3 and table.match is not None and table.match.stats.wins == 3
    text = crosstableformats.render(table, crosstable.Format.TEXT)
    assert text.count("111") == 1  # the grid, its games in round order


def test_a_compressed_pgn_is_refused_naming_its_compression(tmp_path: Path) -> None:
    """A games.pgn.gz read as text held no tag line: an empty table and "no game in the file(s) given", exit
    status 0, of a file of a million games."""
    path = tmp_path / "games.pgn.gz"
    path.write_bytes(gzip.compress(SELF_PLAY.encode()))
    with pytest.raises(ConfigError) as caught:
        list(pgnscan.scan(path))
    assert str(caught.value) == f"{path}: is gzip-compressed, not PGN text (decompress it first: gzip -dc {path} > " \
        f"{tmp_path / 'games.pgn'})"
    # Named as its text would be: 'gunzip -k games.pgn' was the way out given, which gunzip refuses (no .gz).
    disguised = tmp_path / "games.pgn"
    disguised.write_bytes(path.read_bytes())
    with pytest.raises(ConfigError) as caught:
        list(pgnscan.scan(disguised))
    assert caught.value.hint == f"decompress it first: gzip -dc {disguised} > {tmp_path / 'games-text.pgn'}"
