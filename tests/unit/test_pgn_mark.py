"""The PGN's mark: the size the PGN must have at least, after the last game recorded, and the fingerprint of
the bytes before it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tmanager.formats.pgn import Appended, append_game, fingerprint_at, last_game_fingerprint
from tmanager.tourney.model import PgnMark

PGN = Path("/t/t.pgn")


def test_a_game_appended_moves_the_mark_by_its_length() -> None:
    assert PgnMark.after_append(None, PGN, Appended(0, 500, "f1"), finished=0) == PgnMark(str(PGN), 500, "f1")
    second = PgnMark.after_append(PgnMark(str(PGN), 500), PGN, Appended(500, 900, "f2"), finished=1)
    assert second == PgnMark(str(PGN), 900, "f2")
    # the PGN grew otherwise since (superseded games tagged): the game's end is the mark
    grown = PgnMark.after_append(PgnMark(str(PGN), 500), PGN, Appended(560, 900, "f3"), finished=1)
    assert grown == PgnMark(str(PGN), 900, "f3")


def test_a_pgn_deleted_or_cut_as_a_game_was_appended_leaves_a_mark_no_new_file_satisfies() -> None:
    """The PGN deleted between the worker's check of its size and the append: the game went into a new file,
    at offset 0. The mark was the new file's size, 400, which it has: the 3,000 bytes of games deleted
    were never missed, and the tourney played on to its end without them."""
    before = PgnMark(str(PGN), 3000, "f0")
    # past the game's end: the bytes before it are not the game's, so the mark has no fingerprint
    assert PgnMark.after_append(before, PGN, Appended(0, 400, "f1"), finished=9) == PgnMark(str(PGN), 3400, "")
    assert PgnMark.after_append(before, PGN, Appended(1000, 1400, "f1"), finished=9).size == 3400  # cut to 1,000 bytes
    # a PGN named anew (edit --set pgn=...) starts a mark of its own
    assert PgnMark.after_append(before, Path("/t/other.pgn"), Appended(0, 400, "f1"), finished=9) == PgnMark(
        "/t/other.pgn", 400, "f1", 0)  # and its games before are in the old one: not elsewhere


def test_a_mark_of_an_older_tmanager_has_no_fingerprint_and_an_older_one_reads_ours() -> None:
    assert PgnMark.from_json(["/t/t.pgn", 500]) == PgnMark(str(PGN), 500, "")
    written = PgnMark(str(PGN), 500, "ab12", 3).to_json()
    assert written[:2] == ["/t/t.pgn", 500] and PgnMark.from_json(written) == PgnMark(str(PGN), 500, "ab12", 3)


def test_the_first_game_into_an_empty_pgn_without_a_mark_counts_the_games_finished_elsewhere() -> None:
    """A file copied with cp (its journal, and so its mark, stay with the original) and given a new PGN: its
    4 finished games are in the original's PGN, and stay counted as its games go into its own."""
    first = PgnMark.after_append(None, PGN, Appended(0, 500, "f1"), finished=4)
    assert first.elsewhere == 4
    assert PgnMark.after_append(first, PGN, Appended(500, 900, "f2"), finished=5).elsewhere == 4
    assert first.replayed(3).elsewhere == 1 and first.replayed(9).elsewhere == 0
    # a PGN that held games already (an XBoard import's), or results typed in with the PGN kept: not elsewhere
    assert PgnMark.after_append(None, PGN, Appended(800, 1300, "f1"), finished=4).elsewhere == 0


def test_the_fingerprint_covers_the_whole_last_game_and_reads_an_older_one(tmp_path: Path) -> None:
    """Another tourney's PGN of as many games, the same engines run again under other names, ends with the same
    64 bytes: the older fingerprint of those bytes took it for this tourney's. The last game's tags differ."""
    ours, theirs = tmp_path / "ours.pgn", tmp_path / "theirs.pgn"
    moves = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 1/2-1/2"
    last = {}
    for path, white in ((ours, "R0"), (theirs, "S0")):
        for number in range(2):
            last[path] = append_game(path, f'[White "{white}"]\n[Black "R1"]\n[GameNumber "{number}"]\n\n{moves}')
    mark = PgnMark.after_append(None, ours, last[ours], finished=1)
    assert mark.size == ours.stat().st_size == theirs.stat().st_size
    assert fingerprint_at(ours, mark.size, like=mark.fingerprint) == mark.fingerprint
    assert fingerprint_at(theirs, mark.size, like=mark.fingerprint) not in ("", mark.fingerprint)
    assert last_game_fingerprint(ours, mark.size) == mark.fingerprint  # the PGN as it is, made the mark
    older = hashlib.blake2b(ours.read_bytes()[-64:], digest_size=8).hexdigest()  # a journal of an older tmanager
    assert fingerprint_at(ours, mark.size, like=older) == older == fingerprint_at(theirs, mark.size, like=older)
    assert fingerprint_at(ours, mark.size + 10, like=mark.fingerprint) == ""  # past the file's end
