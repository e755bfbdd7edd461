"""How games end by the rules, and threefold repetition counted as a game goes, on boards built by hand. No process."""

from __future__ import annotations

import pickle
import random

import chess
import chess.variant
import pytest

from tmanager.core.results import Result
from tmanager.tourney.enginelines import IllegalMove
from tmanager.tourney.outcome import (
    Ending,
    EngineFault,
    Fault,
    GameOver,
    Repetitions,
    Termination,
    loss,
    position_key,
    rules_outcome,
)


def outcome(fen: str, board_class: type[chess.Board] = chess.Board, repetitions: int = 1) -> tuple[Result, str] | None:
    over = rules_outcome(board_class(fen), repetitions)
    return None if over is None else (over.result, over.reason)


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", (Result.BLACK_WINS, "Black mates")),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", (Result.DRAW, "Draw by stalemate")),
        ("8/8/3k4/8/8/3NK3/8/8 w - - 0 1", (Result.DRAW, "Draw by insufficient mating material")),
        ("8/8/3k4/8/8/3QK3/8/8 w - - 99 80", None),
        ("8/8/3k4/8/8/3QK3/8/8 w - - 100 80", (Result.DRAW, "Draw by fifty moves rule")),
        # A mate given by the move that reaches a hundred half-moves is a mate.
        ("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80", (Result.WHITE_WINS, "White mates")),
    ],
)
def test_the_rules_of_chess(fen: str, expected: tuple[Result, str] | None) -> None:
    assert outcome(fen) == expected


def test_a_third_occurrence_is_a_draw_unless_the_position_ends_the_game_otherwise() -> None:
    assert outcome(chess.STARTING_FEN, repetitions=2) is None
    assert outcome(chess.STARTING_FEN, repetitions=3) == (Result.DRAW, "Draw by 3-fold repetition")
    assert outcome("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", repetitions=3) == (Result.DRAW, "Draw by stalemate")


@pytest.mark.parametrize(
    ("board_class", "fen", "expected"),
    [
        (chess.variant.ThreeCheckBoard, "rnbqkbnr/pppp1ppp/8/8/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 0+3 0 3",
         (Result.WHITE_WINS, "White wins by giving a third check")),
        (chess.variant.AtomicBoard, "8/8/8/8/8/8/8/4R1K1 b - - 0 1", (Result.WHITE_WINS,
                                                                     "White wins by exploding Black's king")),
        (chess.variant.KingOfTheHillBoard, "8/8/8/8/4K3/8/8/k7 b - - 0 1",
         (Result.WHITE_WINS, "White wins by bringing its king to the centre")),
        (chess.variant.RacingKingsBoard, "K6k/8/8/8/8/8/8/8 w - - 0 1",
         (Result.DRAW, "Draw: both kings reach the eighth rank")),
        (chess.variant.HordeBoard, "4k3/8/8/8/8/8/8/3q4 w - - 0 1",
         (Result.BLACK_WINS, "Black wins by capturing the whole horde")),
        (chess.variant.AntichessBoard, "8/8/8/8/8/1p6/8/8 w - - 0 1",
         (Result.WHITE_WINS, "White wins by losing all its pieces")),
        (chess.variant.AntichessBoard, "8/8/8/8/p7/P7/8/8 b - - 0 1",
         (Result.BLACK_WINS, "Black wins: Black has no legal move")),
    ],
)
def test_a_variants_own_end_is_named_after_what_happened(
    board_class: type[chess.Board], fen: str, expected: tuple[Result, str]
) -> None:
    over = rules_outcome(board_class(fen), 1)
    assert over is not None and (over.result, over.reason) == expected
    assert over.ending in (Ending.VARIANT_WIN, Ending.VARIANT_DRAW) and over.termination is Termination.NORMAL


def test_a_game_over_knows_its_winner_and_the_engine_at_fault() -> None:
    over = loss(chess.BLACK, Ending.CRASH, "Black's engine crashed", fault=Fault.CRASH)
    assert over.result is Result.WHITE_WINS and over.winner == chess.WHITE
    assert over.fault == EngineFault(chess.BLACK, Fault.CRASH) and over.termination is Termination.ABANDONED
    assert loss(chess.WHITE, Ending.RESIGNATION, "White resigns").fault is None
    assert GameOver(Result.DRAW, Ending.STALEMATE, "").winner is None


def _random_game(board: chess.Board, rng: random.Random, plies: int) -> list[chess.Board]:
    """A random game that often takes back its side's previous move (so that positions recur), position by position."""
    positions = []
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        before = board.move_stack[-2] if len(board.move_stack) >= 2 else None
        back = [m for m in moves if before is not None and (m.from_square, m.to_square) == (before.to_square,
                                                                                            before.from_square)]
        board.push(rng.choice(back) if back and rng.random() < 0.7 else rng.choice(moves))
        positions.append(board.copy())
    return positions


@pytest.mark.parametrize("board_class", [chess.Board, chess.variant.ThreeCheckBoard, chess.variant.CrazyhouseBoard])
def test_repetitions_are_counted_as_python_chess_counts_them(board_class: type[chess.Board]) -> None:
    """Over random games rich in repetitions (and castling rights lost, en passant captures that can or cannot be
    made), a position's count reaches two and three exactly when python-chess's own replay says so."""
    rng = random.Random(48)
    checked = 0
    for _ in range(30):
        start = board_class()
        repetitions = Repetitions(start)
        for board in _random_game(start, rng, 60):
            count = repetitions.count(board, irreversible=board.halfmove_clock == 0)
            assert (count >= 2, count >= 3) == (board.is_repetition(2), board.is_repetition(3)), board.fen()
            checked += count >= 3
    assert checked > 20, "the games repeated positions often enough to tell"


def test_repetitions_count_the_openings_positions_since_its_last_capture_or_pawn_move() -> None:
    board = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "e2e4", "g8f6", "g1f3", "f6g8", "f3g1"):
        board.push_uci(uci)
    repetitions = Repetitions(board)
    assert repetitions.now(board) == 2  # after 1. e4 (the start position is out of reach)
    board.push_uci("g8f6")
    assert repetitions.count(board, irreversible=False) == 2


def test_an_en_passant_capture_that_cannot_be_made_does_not_tell_positions_apart() -> None:
    # After 1. e4 the e3 square is in the FEN, but no black pawn can take on it: the same position as
    # one with no en passant square.
    def key(fen: str) -> object:
        return position_key(chess.Board(fen))

    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq {} 0 1"
    assert key(after_e4.format("e3")) == key(after_e4.format("-"))
    black_may_take = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq {} 0 1"
    assert key(black_may_take.format("e3")) != key(black_may_take.format("-"))


def test_in_three_check_the_checks_given_tell_positions_apart() -> None:
    board = chess.variant.ThreeCheckBoard("4k3/8/8/8/8/8/8/R3K3 w - - 3+3 0 1")
    repetitions = Repetitions(board)
    for uci in ("a1a8", "e8e7", "a8a1", "e7e8"):  # a check given: the pieces come back, the position does not
        board.push_uci(uci)
        repetitions.count(board, irreversible=False)
    assert repetitions.now(board) == 1 and not board.is_repetition(2)
    for uci in ("a1a2", "e8e7", "a2a1", "e7e8"):
        board.push_uci(uci)
        repetitions.count(board, irreversible=False)
    assert repetitions.now(board) == 2 and board.is_repetition(2)


def test_an_illegal_move_survives_pickling_with_its_word() -> None:
    # A cluster's game comes back pickled; the engine's word is what fastchess's warning names.
    error = pickle.loads(pickle.dumps(IllegalMove("illegal uci: 'b1b2' in startpos", move="b1b2")))
    assert isinstance(error, IllegalMove) and error.move == "b1b2" and str(error) == "illegal uci: 'b1b2' in startpos"
