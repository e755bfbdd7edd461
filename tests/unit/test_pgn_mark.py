"""The PGN's mark: the size the PGN must have at least, after the last game recorded."""

from __future__ import annotations

from pathlib import Path

from tmanager.tourney.model import PgnMark

PGN = Path("/t/t.pgn")


def test_a_game_appended_moves_the_mark_by_its_length() -> None:
    assert PgnMark.after_append(None, PGN, start=0, end=500) == PgnMark(str(PGN), 500)
    assert PgnMark.after_append(PgnMark(str(PGN), 500), PGN, start=500, end=900) == PgnMark(str(PGN), 900)
    # the PGN grew otherwise since (superseded games tagged): the game's end is the mark
    assert PgnMark.after_append(PgnMark(str(PGN), 500), PGN, start=560, end=900) == PgnMark(str(PGN), 900)


def test_a_pgn_deleted_or_cut_as_a_game_was_appended_leaves_a_mark_no_new_file_satisfies() -> None:
    """The PGN deleted between the worker's check of its size and the append: the game went into a new file,
    at offset 0. The mark was the new file's size, 400, which it has: the 3,000 bytes of games deleted
    were never missed, and the tourney played on to its end without them."""
    before = PgnMark(str(PGN), 3000)
    assert PgnMark.after_append(before, PGN, start=0, end=400).size == 3400
    assert PgnMark.after_append(before, PGN, start=1000, end=1400).size == 3400  # cut to 1,000 bytes
    # a PGN named anew (edit --set pgn=...) starts a mark of its own
    assert PgnMark.after_append(before, Path("/t/other.pgn"), start=0, end=400).size == 400
