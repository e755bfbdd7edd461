"""HeldBack: a move that came too soon to be reported is reported when its time comes, its clock run down."""

from __future__ import annotations

import asyncio

import chess

from tmanager.tourney.live import HeldBack


def _held(board: chess.Board, *, cancel: bool = False, clocks: tuple[float, float] = (30.0, 20.0)
          ) -> list[tuple[str, float, float]]:
    reported: list[tuple[str, float, float]] = []

    def report(shown: chess.Board, white_clock: float, black_clock: float) -> None:
        reported.append((shown.fen(), white_clock, black_clock))

    async def main() -> None:
        held = HeldBack()
        held.hold(0.01, report, board, *clocks)
        if cancel:
            held.cancel()
        await asyncio.sleep(0.05)

    asyncio.run(main())
    return reported


def test_the_move_held_back_is_reported_with_the_clock_of_the_side_to_move_run_down() -> None:
    """The report came late with the clocks of the move: a view counting the side to move's clock down from the
    report's time showed it with the time since the move added back (up to 8 s with hundreds of games)."""
    board = chess.Board()
    board.push_san("e4")  # Black to move: Black's clock has run since
    [(fen, white, black)] = _held(board)
    assert fen == board.fen() and white == 30.0 and 10.0 < black < 20.0
    board.push_san("e5")
    [(_, white, black)] = _held(board)
    assert 20.0 < white < 30.0 and black == 20.0


def test_a_move_held_back_is_not_reported_after_a_cancel() -> None:
    assert _held(chess.Board(), cancel=True) == []


def test_a_clock_runs_down_to_zero_at_most() -> None:
    """A game without a clock reports 0 for both sides: run down, it was shown below zero (-0.023)."""
    board = chess.Board()
    assert _held(board, clocks=(0.0, 0.0)) == [(board.fen(), 0.0, 0.0)]
