"""The games run's reports cover (tourney.finishing): the first to finish, as the PGN took them."""

from __future__ import annotations

from pathlib import Path

from tmanager.tourney.engines import Protocol
from tmanager.tourney.finishing import Look, finished_since, without
from tmanager.tourney.model import Participant, PgnMark, Settings, Tourney


def tourney(tmp_path: Path, results: str, mark: PgnMark | None) -> Tourney:
    names = [Participant(name=f"p{i}", cmd="stockfish", protocol=Protocol.UCI) for i in range(2)]
    t = Tourney(path=tmp_path / "t.toml", settings=Settings(cycles=4), participants=names, results=results)
    t.pgn_mark = mark
    return t


def game(number: int) -> str:
    return f'[Event "?"]\n[GameNumber "{number}"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'


def test_the_games_finished_since_come_in_the_order_the_pgn_took_them(tmp_path: Path) -> None:
    pgn = tmp_path / "t.pgn"
    before = game(0)
    pgn.write_text(before + game(5) + game(2) + game(4))
    start = Look("+", PgnMark(str(pgn), len(before)))
    now = tourney(tmp_path, "+ +=++ ", PgnMark(str(pgn), pgn.stat().st_size))
    # Game 3 is not in the PGN (a result typed in by hand): after those that are. Game 6 is not finished.
    assert finished_since(start, now) == [5, 2, 4, 3]
    assert without(now, [4, 3]).results == "+ +  + "


def test_without_a_pgn_to_tell_the_order_the_games_come_by_number(tmp_path: Path) -> None:
    moved = tourney(tmp_path, "+-=", PgnMark(str(tmp_path / "other.pgn"), 10))
    assert finished_since(Look("", PgnMark(str(tmp_path / "t.pgn"), 5)), moved) == [0, 1, 2]
    assert finished_since(Look("+-=", None), moved) == []
