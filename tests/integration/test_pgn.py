"""Appending games to the tourney PGN: whole games only, fragments cut back, superseded games."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest

from tmanager.errors import ConfigError
from tmanager.formats import pgn

GAME = '[Event "t"]\n[White "A"]\n[Black "B"]\n[Result "{result}"]\n[GameNumber "{n}"]\n\n1. e4 e5 {result}\n'


def games_in(path: Path) -> list[chess.pgn.Game]:
    text = io.StringIO(path.read_text())
    games = []
    while (game := chess.pgn.read_game(text)) is not None:
        assert not game.errors
        games.append(game)
    return games


def test_a_fragment_left_by_a_dying_writer_is_cut_back(tmp_path: Path) -> None:
    path = tmp_path / "t.pgn"
    pgn.append_game(path, GAME.format(n=0, result="1-0"))
    pgn.append_game(path, GAME.format(n=1, result="0-1"))
    with open(path, "a") as f:  # a writer killed in the middle of game 2
        f.write(GAME.format(n=2, result="1/2-1/2")[:37])
    pgn.append_game(path, GAME.format(n=3, result="1/2-1/2"))
    games = games_in(path)
    assert [g.headers["GameNumber"] for g in games] == ["0", "1", "3"]
    assert path.read_text().endswith("1/2-1/2\n\n")


def test_a_fragment_with_no_complete_game_before_it(tmp_path: Path) -> None:
    path = tmp_path / "t.pgn"
    path.write_text('[Event "t"]\n[White "A"')
    pgn.append_game(path, GAME.format(n=5, result="1-0"))
    assert [g.headers["GameNumber"] for g in games_in(path)] == ["5"]


def test_a_fragment_is_not_found_though_its_tags_are_whole(tmp_path: Path) -> None:
    # A worker killed while appending game 2 left its tags and half its moves; the game must be
    # played again, not recovered from the fragment (the next append cuts the fragment off).
    path = tmp_path / "t.pgn"
    pgn.append_game(path, GAME.format(n=1, result="1-0"))
    whole = GAME.format(n=2, result="0-1")
    with path.open("a") as f:
        f.write(whole[: whole.index("\n\n") + 6])
    assert find_result(path, 2) is None
    assert find_result(path, 1) == "1-0"
    pgn.append_game(path, GAME.format(n=3, result="1/2-1/2"))
    assert [g.headers["GameNumber"] for g in games_in(path)] == ["1", "3"]
    with path.open("a") as f:
        f.write(whole.rstrip("\n") + "\n")  # all but the blank line that ends every game: whole, moves and result
    assert find_result(path, 2) == "0-1"
    pgn.append_game(path, GAME.format(n=4, result="1-0"))  # kept, and given its blank line back
    assert [g.headers["GameNumber"] for g in games_in(path)] == ["1", "3", "2", "4"]
    assert "0-1\n\n[" in path.read_text()


def test_a_game_is_whole_only_with_its_result_outside_a_comment(tmp_path: Path) -> None:
    """A game short of its blank line is kept (an editor trimmed it, or it was added by hand); one short of its
    result, or cut inside a comment that quotes one, is a fragment."""
    path = tmp_path / "t.pgn"
    pgn.append_game(path, GAME.format(n=1, result="1-0"))
    for tail, kept in (("1-0", True), ("1/2-1/2 \n", True), ("*", True), ("{ info 1-0", False),
                       ("2. Nf3", False), ("", False)):
        size = path.stat().st_size
        with path.open("a") as f:
            f.write('[Event "t"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 ' + tail)
        found = pgn.append_game(path, GAME.format(n=2, result="1-0"))
        assert (found.start > size + 60) == kept, tail
        assert path.read_text().endswith("1-0\n\n")
        pgn.cut_back(path, size)


@pytest.mark.parametrize("content", [
    bytes(range(256)) * 5000,  # a program named as the PGN: more than the megabyte looked back over
    b"#!/bin/sh\nexec engine\n",  # a script: no game at all (it was cut to nothing)
    b'[Event "t"]\n[Result "1-0"]\n\n1. e4 1-0\n\nnotes\n\n[link](x)\n',  # cut back to its last "\n\n["
])
def test_what_is_not_a_game_begun_is_never_cut_off(tmp_path: Path, content: bytes) -> None:
    """A file that is no PGN, or one whose end is not a game begun by a writer that died, was cut back to its last
    blank line before a bracket (or to nothing) and given the game: a PGN named by mistake lost its contents."""
    path = tmp_path / "t.pgn"
    path.write_bytes(content)
    for attempt in (pgn.check_appendable, lambda p: pgn.append_game(p, GAME.format(n=0, result="1-0"))):
        with pytest.raises(ConfigError, match=r"bytes that are not a whole game \(from byte \d"):
            attempt(path)
        assert path.read_bytes() == content
    pgn.check_appendable(tmp_path / "none.pgn")  # a PGN still to be made is fine


def find_result(path: Path, number: int, start: int = 0) -> str | None:
    found = pgn.find_game(path, number, start=start)
    return found.result if found else None


def test_find_game_and_superseded_games(tmp_path: Path) -> None:
    path = tmp_path / "t.pgn"
    results = [(0, "1-0"), (1, "0-1"), (2, "1/2-1/2")]
    offsets = [pgn.append_game(path, GAME.format(n=n, result=r))[0] for n, r in results]
    assert find_result(path, 1) == "0-1"
    found = pgn.find_game(path, 1)
    assert found is not None and (found.white, found.black) == ("A", "B")
    assert find_result(path, 1, start=offsets[1]) == "0-1"
    assert find_result(path, 1, start=offsets[2]) is None  # written before the claim: not this claim's game
    assert find_result(path, 7) is None
    assert find_result(tmp_path / "missing.pgn", 1) is None
    assert pgn.mark_superseded(path, {0, 2}, reason='A replaced by "C"') == 2
    assert find_result(path, 0) is None  # superseded games no longer count
    pgn.append_game(path, GAME.format(n=0, result="0-1"))
    assert find_result(path, 0) == "0-1"
    games = games_in(path)
    assert [g.headers.get("Superseded") for g in games] == ["A replaced by 'C'", None, "A replaced by 'C'", None]
    assert pgn.mark_superseded(path, {0, 2}, reason="again") == 1  # only the current game 0 is left to mark


def test_a_game_whose_last_comment_wraps_is_recovered_with_its_reason_whole(tmp_path: Path) -> None:
    from tests.integration.test_game_runner import play, spec

    record = play(spec("fault-slow", "Slow"), spec("random-uci", "Quick"), tc="0.5+0", tags={"GameNumber": "4"},
                  comments=True)
    assert record.termination == "time forfeit" and len(record.reason) > 80
    last_line = record.pgn.rstrip("\n").splitlines()[-1]
    assert "{" not in last_line and last_line.endswith("} 0-1")  # the reason's comment is wrapped over lines
    path = tmp_path / "t.pgn"
    pgn.append_game(path, record.pgn)
    found = pgn.find_game(path, 4)
    assert found is not None and (found.result, found.termination) == ("0-1", "time forfeit")
    assert found.reason == record.reason
