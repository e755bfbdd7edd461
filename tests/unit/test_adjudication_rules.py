"""Each adjudication rule on boards built by hand, move by move with the scores engines would give. No process.

The games against engines, ending where fastchess ends them, are in tests/integration/test_adjudication.py.
"""

from __future__ import annotations

from collections.abc import Iterable

import chess
import pytest

from tmanager.core.results import Result
from tmanager.tourney.adjudication import (
    Adjudication,
    Adjudicator,
    DrawRule,
    MoveLimitRule,
    ResignRule,
    Rule,
    TablebaseResults,
    TablebaseRule,
)
from tmanager.tourney.outcome import Ending, GameOver

#: Knights out and back, both sides: four plies that capture nothing and move no pawn, as often as wanted.
SHUFFLE = ("g1f3", "g8f6", "f3g1", "f6g8")


def verdicts(rule: Rule, board: chess.Board, moves: Iterable[tuple[str, int | None]]) -> list[GameOver | None]:
    """Each move pushed and counted with its score (the mover's), and the rule's verdict after it."""
    said = []
    for uci, score in moves:
        mover = board.turn
        board.push_uci(uci)
        rule.count(board, mover, score)
        said.append(rule.verdict(board))
    return said


def first_end(said: list[GameOver | None]) -> tuple[int, GameOver] | None:
    """The ply (from 1) of the first verdict that ends the game, and the verdict."""
    return next(((ply, over) for ply, over in enumerate(said, 1) if over is not None), None)


def test_resign_one_sided_takes_the_losers_own_scores_in_a_row() -> None:
    rule = ResignRule(500, 3, twosided=False)
    # White scores itself lost at its 1st, 2nd, 4th, 5th and 6th moves; the 3rd breaks the row.
    white = [-600, -500, -499, -800, -900, -700]
    moves = list(zip(SHUFFLE * 3, [score for own in white for score in (own, 0)], strict=True))
    ended = first_end(verdicts(rule, chess.Board(), moves))
    assert ended is not None
    ply, over = ended
    assert ply == 11  # White's 6th move: its third in a row at or below -500
    assert (over.result, over.ending, over.fault) == (Result.BLACK_WINS, Ending.RESIGN_ADJUDICATION, None)
    assert over.reason == "White resigns: its engine scored it at or below -500 cp for 3 moves"


def test_resign_two_sided_waits_for_the_winner_to_agree() -> None:
    rule = ResignRule(300, 2, twosided=True)
    # Black scores itself lost from its first move; White agrees only from its third.
    white, black = [0, 100, 300, 350], [-300, -400, -500, -600]
    moves = list(zip(SHUFFLE * 2, [score for pair in zip(white, black, strict=True) for score in pair], strict=True))
    ended = first_end(verdicts(rule, chess.Board(), moves))
    assert ended is not None and ended[0] == 8  # Black's 4th move, once White has agreed twice in a row
    assert ended[1].result is Result.WHITE_WINS
    assert ended[1].reason == "Black resigns: both engines scored it at or below -300 cp for 2 moves"


def test_a_move_without_a_score_breaks_a_resign_row() -> None:
    rule = ResignRule(500, 2, twosided=False)
    moves = [("g1f3", -900), ("g8f6", 0), ("f3g1", None), ("f6g8", 0), ("g1f3", -900), ("g8f6", 0)]
    assert first_end(verdicts(rule, chess.Board(), moves)) is None


def test_draw_counts_quiet_plies_from_the_given_move_afresh_after_a_pawn_move_or_capture() -> None:
    rule = DrawRule(10, 2, from_move=3)
    # Within ±10 cp from the start; 2. … the knights are home again, move 3 begins after 4 plies.
    said = verdicts(rule, chess.Board(), [(uci, 5) for uci in SHUFFLE])
    assert said == [None] * 4  # four quiet plies, but the game has not reached move 3
    moves = [(uci, 5) for uci in (*SHUFFLE, "e2e4", "e7e5", "g1f3", "g8f6", "f3g1")]
    ended = first_end(verdicts(rule, board := chess.Board(), moves))
    assert ended is not None and ended[0] == 9, "counted afresh from 3. e4 (each pawn move a quiet ply itself)"
    assert board.fullmove_number - 1 >= 3
    over = ended[1]
    assert (over.result, over.ending) == (Result.DRAW, Ending.DRAW_ADJUDICATION)
    assert over.reason == "Draw by adjudication: both engines scored within 10 cp for 2 moves"


def test_draw_wants_both_scores_within_the_margin() -> None:
    def said(*scores: int | None) -> list[GameOver | None]:
        return verdicts(DrawRule(10, 1, from_move=0), chess.Board(), zip(("g1f3", "g8f6"), scores, strict=True))

    assert said(11, 0) == [None, None]
    assert said(-10, 10)[1] is not None
    assert said(0, None) == [None, None]


def test_the_move_limit_counts_engine_moves_only() -> None:
    board = chess.Board()
    for uci in ("e2e4", "e7e5"):  # opening moves: not counted
        board.push_uci(uci)
    rule = MoveLimitRule(2)
    said = verdicts(rule, board, [(uci, None) for uci in SHUFFLE])
    assert said[:3] == [None] * 3
    assert said[3] == GameOver(Result.DRAW, Ending.MOVE_LIMIT, "Draw by adjudication: 2 moves reached")


def test_the_adjudicator_holds_the_rules_turned_on_in_fastchess_order(syzygy: str) -> None:
    assert Adjudicator(Adjudication()).rules == ()
    settings = Adjudication(max_moves=1, draw_score=5, resign_score=400, syzygy=syzygy)
    adjudicator = Adjudicator(settings)
    try:
        assert [type(rule) for rule in adjudicator.rules] == [TablebaseRule, ResignRule, DrawRule, MoveLimitRule]
        # Black's engine has scored itself lost long enough to resign, and the move limit is reached.
        board = chess.Board("8/8/8/4k3/8/8/2q5/KQ6 b - - 0 60")
        for _ in range(3):
            adjudicator.count(board, chess.BLACK, -500)
        board.push_uci("c2c1")  # no capture: the tablebases are not probed, the resign rule comes next
        over = adjudicator.verdict(board)
        assert over is not None and over.ending is Ending.RESIGN_ADJUDICATION and over.result is Result.WHITE_WINS
        board.pop()
        board.push_uci("c2b1")  # the queen takes the queen, and White's king takes it back: a tablebase draw
        over = adjudicator.verdict(board)
        assert over is not None and over.ending is Ending.TABLEBASE_DRAW
    finally:
        adjudicator.close()


@pytest.mark.parametrize(
    ("fen", "adjudicate", "expected"),
    [
        ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", TablebaseResults.BOTH, (Result.WHITE_WINS, Ending.TABLEBASE_WIN)),
        ("8/8/8/4K3/8/8/8/kq6 w - - 0 1", TablebaseResults.BOTH, (Result.BLACK_WINS, Ending.TABLEBASE_WIN)),
        ("8/8/3k4/3n4/8/3N4/3K4/8 w - - 0 1", TablebaseResults.BOTH, (Result.DRAW, Ending.TABLEBASE_DRAW)),
        ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", TablebaseResults.DRAW, None),
        ("8/8/3k4/3n4/8/3N4/3K4/8 w - - 0 1", TablebaseResults.WIN_LOSS, None),
        ("8/8/8/4k3/8/8/8/KQ6 b - - 1 1", TablebaseResults.BOTH, None),  # the fifty-move counter has run: not probed
        ("8/p7/8/4k3/8/8/8/KQ3B2 b - - 0 1", TablebaseResults.BOTH, None),  # five pieces, more than the limit of four
    ],
)
def test_tablebase_verdicts(
    syzygy: str, fen: str, adjudicate: TablebaseResults, expected: tuple[Result, Ending] | None
) -> None:
    rule = TablebaseRule(Adjudication(syzygy=syzygy, syzygy_pieces=4, syzygy_adjudicate=adjudicate))
    try:
        over = rule.verdict(chess.Board(fen))
    finally:
        rule.close()
    assert (None if over is None else (over.result, over.ending)) == expected
