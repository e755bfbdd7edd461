"""Adjudication ends a game at the same ply as fastchess does, with the same result.

Every case below was played by fastchess (HEAD 74deac23, 2026-07-29) with the
same engines, start position and rules, e.g. for the first one::

    fastchess -engine cmd=python args="engines/pyengine.py --seed 1 --score 0" name=A \\
              -engine cmd=python args="engines/pyengine.py --seed 2 --score 0" name=B \\
              -each tc=inf nodes=100 restart=on -rounds 4 -games 2 -concurrency 1 \\
              -openings file=book.epd format=epd order=sequential -draw movenumber=5 movecount=3 score=10

pyengine with a seed plays the same moves for the same positions, so both
managers see the same game; its scores are constant (``--score``) or the
material balance. fastchess's PlyCount and Result are the expected values.
"""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from tests.conftest import pgn_games, run_cli
from tmanager.core.timecontrol import TimeControl
from tmanager.tourney.adjudication import Adjudication, TablebaseResults
from tmanager.tourney.engines import EngineSpec, Protocol, command_line
from tmanager.tourney.play import GameSpec, play_game

START = chess.STARTING_FEN
RUY_LOPEZ = "r1bqkb1r/1ppp1ppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 5"
NAJDORF = "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6"
PAWNS = "8/5k2/8/3p4/3P4/8/5K2/8 w - - 0 40"  # the move number carries on from the FEN
KQR_KQ = "4k3/8/8/3q4/8/8/3R4/3QK3 w - - 0 1"
KPB_KP = "8/2k5/8/8/3pP3/8/5K2/3B4 w - - 0 30"
KBN_KN = "8/8/3k4/8/2n5/8/1B1K4/5N2 b - - 0 1"
KN_KN = "8/4k3/8/8/3n4/8/2NK4/8 w - - 0 12"

DRAW = {"draw_from_move": 5, "draw_moves": 3, "draw_score": 10}
RESIGN = {"resign_score": 500, "resign_moves": 3}
ALL = {"draw_from_move": 20, "draw_moves": 5, "draw_score": 50, "resign_score": 400, "resign_moves": 3,
       "max_moves": 100}
TB = {"syzygy_pieces": 4, "max_moves": 60}

# (engine A's arguments, engine B's, start position, A has white, rules, fastchess's plies and result)
CASES: list[tuple[str, str, str, bool, dict[str, Any], int, str]] = [
    # -draw movenumber=5 movecount=3 score=10, both engines always 0.00: only captures and pawn moves reset the count.
    ("--seed 1 --score 0", "--seed 2 --score 0", START, True, DRAW, 26, "1/2-1/2"),
    ("--seed 1 --score 0", "--seed 2 --score 0", RUY_LOPEZ, True, DRAW, 7, "1/2-1/2"),
    ("--seed 1 --score 0", "--seed 2 --score 0", RUY_LOPEZ, False, DRAW, 38, "1/2-1/2"),
    ("--seed 1 --score 0", "--seed 2 --score 0", PAWNS, True, DRAW, 6, "1/2-1/2"),
    # -draw movenumber=10 movecount=4 score=100 with the material balance as the score.
    ("--seed 3", "--seed 4", START, True, {"draw_from_move": 10, "draw_moves": 4, "draw_score": 100}, 115, "1/2-1/2"),
    ("--seed 3", "--seed 4", PAWNS, True, {"draw_from_move": 10, "draw_moves": 4, "draw_score": 100}, 8, "1/2-1/2"),
    # -resign movecount=3 score=500: one-sided, the losing engine's own scores are enough.
    ("--seed 1 --score -1000", "--seed 2 --score 0", START, True, RESIGN, 5, "0-1"),
    ("--seed 1 --score -1000", "--seed 2 --score 0", START, False, RESIGN, 6, "1-0"),
    # twosided=true: the winner must agree, for as many moves.
    ("--seed 1 --score -1000", "--seed 2 --score 1000", START, True, {**RESIGN, "resign_twosided": True}, 7, "0-1"),
    ("--seed 1 --score -1000", "--seed 2 --score 1000", START, False, {**RESIGN, "resign_twosided": True}, 6, "1-0"),
    ("--seed 1 --score -1000", "--seed 2 --score 0", START, True,
     {**RESIGN, "resign_twosided": True, "max_moves": 12}, 24, "1/2-1/2"),
    # -resign movecount=2 score=300 on material scores (a greedy engine against a random one).
    ("--seed 5 --style greedy", "--seed 6", START, False, {"resign_score": 300, "resign_moves": 2}, 13, "0-1"),
    # -maxmoves 15 counts the engines' moves, not the FEN's move number.
    ("--seed 7", "--seed 8", RUY_LOPEZ, True, {"max_moves": 15}, 30, "1/2-1/2"),
    # All rules at once.
    ("--seed 9 --style greedy", "--seed 10 --style greedy", RUY_LOPEZ, True, ALL, 21, "0-1"),
    ("--seed 9 --style greedy", "--seed 10 --style greedy", PAWNS, True, ALL, 10, "1/2-1/2"),
]

# -tb DIR -tbpieces 4 [-tbadjudicate WIN_LOSS|DRAW] -maxmoves 60: probed right after captures and pawn moves.
TB_CASES: list[tuple[str, str, str, bool, dict[str, Any], int, str]] = [
    ("--seed 11", "--seed 12", KQR_KQ, False, TB, 5, "1-0"),
    ("--seed 11", "--seed 12", KN_KN, True, TB, 0, "1/2-1/2"),
    ("--seed 11", "--seed 12", KPB_KP, True, TB, 19, "1-0"),
    ("--seed 13", "--seed 14", KQR_KQ, True, {**TB, "syzygy_adjudicate": TablebaseResults.WIN_LOSS}, 4, "0-1"),
    ("--seed 13", "--seed 14", KBN_KN, False, {**TB, "syzygy_adjudicate": TablebaseResults.WIN_LOSS}, 8, "1/2-1/2"),
    ("--seed 15", "--seed 16", KPB_KP, True, {**TB, "syzygy_adjudicate": TablebaseResults.DRAW}, 6, "1/2-1/2"),
]


def pyengine(name: str, args: str) -> EngineSpec:
    return EngineSpec(name, command_line("engines/pyengine.py", args.split()), Protocol.UCI, restart=True)


def play(a: str, b: str, fen: str, a_white: bool, rules: dict[str, Any]) -> tuple[int, str, str]:
    engines = (pyengine("A", a), pyengine("B", b))
    white, black = engines if a_white else engines[::-1]
    limits = TimeControl.parse("inf", nodes=100)
    spec = GameSpec(white=white, black=black, white_limits=limits, black_limits=limits, start_fen=fen,
                    adjudication=Adjudication(**rules))
    record = asyncio.run(play_game(spec))
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None
    assert record.plies == len(list(game.mainline_moves()))
    return record.plies, record.result.pgn, record.reason


@pytest.mark.parametrize(("a", "b", "fen", "a_white", "rules", "plies", "result"), CASES)
def test_ends_where_fastchess_ends(
    a: str, b: str, fen: str, a_white: bool, rules: dict[str, Any], plies: int, result: str
) -> None:
    assert play(a, b, fen, a_white, rules)[:2] == (plies, result)


@pytest.mark.parametrize(("a", "b", "fen", "a_white", "rules", "plies", "result"), TB_CASES)
def test_tablebase_ends_where_fastchess_ends(
    a: str, b: str, fen: str, a_white: bool, rules: dict[str, Any], plies: int, result: str
) -> None:
    syzygy = os.environ.get("TMANAGER_TEST_SYZYGY", "")
    if not syzygy:
        pytest.skip("TMANAGER_TEST_SYZYGY not set: tools/test.sh provides the tables")
    assert play(a, b, fen, a_white, {**rules, "syzygy": syzygy})[:2] == (plies, result)


def test_reasons_name_the_rule() -> None:
    one_sided = play("--seed 1 --score -1000", "--seed 2 --score 0", START, True, RESIGN)[2]
    assert one_sided == "White resigns: its engine scored it at or below -500 cp for 3 moves"
    rules = {**RESIGN, "resign_twosided": True}
    two_sided = play("--seed 1 --score -1000", "--seed 2 --score 1000", START, True, rules)
    assert two_sided[2] == "White resigns: both engines scored it at or below -500 cp for 3 moves"
    draw = play("--seed 1 --score 0", "--seed 2 --score 0", PAWNS, True, DRAW)[2]
    assert draw == "Draw by adjudication: both engines scored within 10 cp for 3 moves"


def test_tablebases_from_a_path_list_are_all_probed(tmp_path: Path) -> None:
    """``syzygy = "DIR:DIR"``, fastchess's ``-tb PATHS``: the tables of both directories decide."""
    tables = Path(os.environ.get("TMANAGER_TEST_SYZYGY", ""))
    if not tables.name:
        pytest.skip("TMANAGER_TEST_SYZYGY not set: tools/test.sh provides the tables")
    for name, wanted in (("queens", lambda t: t.startswith("KQvK.")), ("minors", lambda t: not t.startswith("KQvK."))):
        (tmp_path / name).mkdir()
        for table in tables.iterdir():
            if wanted(table.name):
                os.symlink(table, tmp_path / name / table.name)
    # KQ v K, in the first directory only: won before the first move; KN v KN, in the second only: drawn.
    book = tmp_path / "book.epd"
    book.write_text("8/8/8/4k3/8/8/8/KQ6 b - - 0 1\n8/8/3k4/3n4/8/3N4/3K4/8 w - - 0 1\n")
    path = tmp_path / "tb.toml"
    created = run_cli("new", path, "-e", "random-uci:A", "-e", "random-uci:B", "--nodes", "1", "--cycles", "2",
                      "--openings", book, "--set", f"adjudication.syzygy=queens{os.pathsep}minors",
                      "--set", "adjudication.max_moves=30")
    assert created.returncode == 0, created.stderr
    assert run_cli("run", path).returncode == 0
    games = pgn_games(path.with_suffix(".pgn"))
    assert [(g["Result"], g["PlyCount"], g["Termination"]) for g in games] == [
        ("1-0", "0", "adjudication"), ("1-0", "0", "adjudication"),
        ("1/2-1/2", "0", "adjudication"), ("1/2-1/2", "0", "adjudication"),
    ]  # fmt: skip
    before = path.read_bytes()
    done = run_cli("edit", path, "--set", f"adjudication.syzygy=queens{os.pathsep}nowhere{os.pathsep}minors")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{path}: adjudication.syzygy: no directory 'nowhere'" in done.stderr
    assert path.read_bytes() == before


@pytest.mark.parametrize(("make", "says"), [
    (os.mkfifo, "is not a regular file but a FIFO (put the table itself there, or move it away)"),
    (os.mkdir, "is a directory (put the table itself there, or move it away)"),
    (lambda path: os.symlink("gone.rtbw", path), "is a symbolic link to nothing (put the table itself there, or "),
], ids=["FIFO", "directory", "link to nothing"])
def test_a_table_that_is_not_a_file_is_refused(tmp_path: Path, make: Any, says: str) -> None:
    """python-chess passed over a KQvK.rtbw that was a FIFO, a directory or a dangling link without a word: the
    tourney was taken, and its KQ v K endings played on unadjudicated, as if the table had not been given."""
    (tmp_path / "tables").mkdir()
    make(tmp_path / "tables" / "KQvK.rtbw")
    os.mkfifo(tmp_path / "tables" / "notes.txt")  # not a table: python-chess never looks at it
    path = tmp_path / "tb.toml"
    made = run_cli("new", path, "-e", "random-uci:A", "-e", "random-uci:B", "--nodes", "1")
    assert made.returncode == 0, made.stderr
    before = path.read_bytes()
    new: list[str | Path] = ["new", tmp_path / "other.toml", "-e", "random-uci:A", "-e", "random-uci:B", "--nodes", "1"]
    edit: list[str | Path] = ["edit", path]
    for command, told in ((new, ""), (edit, f"{path}: ")):  # new's file is not written: not named
        done = run_cli(*command, "--set", "adjudication.syzygy=tables")
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"tmanager: {told}adjudication.syzygy: KQvK.rtbw in 'tables' {says}"), \
            done.stderr
    assert path.read_bytes() == before and not (tmp_path / "other.toml").exists()
