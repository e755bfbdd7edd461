"""engines/sleeper.py, the engine of the concurrency benchmark: its fixed game is legal and never ends by
a rule, it plays it through python-chess, and it stays small (the standard library only)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import chess
import chess.engine

from tests.conftest import ROOT

SLEEPER = ROOT / "engines" / "sleeper.py"


def sleeper_game() -> list[str]:
    """The sleeper's game, read from its source as data (the engine is not a module of the package)."""
    tree = ast.parse(SLEEPER.read_text())
    game = next(node for node in tree.body if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "GAME")
    assert isinstance(game.value, ast.Call) and isinstance(game.value.func, ast.Attribute)
    return str(ast.literal_eval(game.value.func.value)).split()


def logging_sleeper(log_dir: Path) -> chess.engine.SimpleEngine:
    """A sleeper named S that logs its moves into ``log_dir``."""
    return chess.engine.SimpleEngine.popen_uci([sys.executable, "-S", "-I", str(SLEEPER), "--log", str(log_dir),
                                                "--name", "S"])


def test_the_fixed_game_is_legal_and_no_rule_ends_it_before_its_last_move() -> None:
    moves = sleeper_game()
    assert len(moves) == 1200
    board = chess.Board()
    for uci in moves:
        assert not board.is_game_over(claim_draw=True), board.fen()
        board.push_uci(uci)  # raises on an illegal move


def test_it_imports_only_the_standard_library_modules_it_names() -> None:
    tree = ast.parse(SLEEPER.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"__future__", "itertools", "os", "select", "sys", "time"}


def test_it_plays_its_game_from_an_opening_and_logs_each_move(tmp_path: Path) -> None:
    moves = sleeper_game()
    engine = logging_sleeper(tmp_path)
    try:
        board = chess.Board()
        for uci in moves[:4]:  # an opening of four plies
            board.push_uci(uci)
        for _ in range(6):
            clock = chess.engine.Limit(white_clock=1, black_clock=1)
            move = engine.play(board, chess.engine.Limit(time=0.01) if board.ply() % 2 else clock).move
            assert move is not None
            board.push(move)
        assert [m.uci() for m in board.move_stack] == moves[:10]
        board.push(next(m for m in board.legal_moves if m.uci() != moves[10]))  # off its game: it knows no move
        assert not engine.play(board, chess.engine.Limit(time=0.01)).move
    finally:
        engine.quit()
    lines = [line.split() for line in next(tmp_path.glob("*.log")).read_text().splitlines()]
    assert [(name, int(o), int(p)) for name, o, p, _, _ in lines[:6]] == [("S", 2, ply) for ply in range(4, 10)]
    assert all(int(go) <= int(best) for _, _, _, go, best in lines)


def test_it_plays_its_game_from_the_fen_of_a_position_of_it(tmp_path: Path) -> None:
    moves = sleeper_game()
    board = chess.Board()
    for uci in moves[:6]:
        board.push_uci(uci)
    engine = logging_sleeper(tmp_path)
    try:
        board = chess.Board(board.fen())  # an EPD book's opening: the position alone, its counters at ply 6
        for _ in range(4):
            move = engine.play(board, chess.engine.Limit(time=0.01)).move
            assert move is not None
            board.push(move)
        assert [m.uci() for m in board.move_stack] == moves[6:10]
    finally:
        engine.quit()
    lines = [line.split() for line in next(tmp_path.glob("*.log")).read_text().splitlines()]
    assert [(name, int(o), int(p)) for name, o, p, _, _ in lines[:4]] == [("S", 3, ply) for ply in range(6, 10)]
