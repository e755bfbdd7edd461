"""A position for an XBoard engine without ``setboard``: XBoard's ``edit`` sequence, as XBoard (``backend.c``)
sends it.

For a Black-to-move position the engine first gets ``a2a3`` (it has just had ``new`` and ``force``), as XBoard
does. ``edit`` cannot say "no castling" for a king and rook on their home squares; such a position is refused
with a clear :class:`~tmanager.tourney.enginelines.EngineError` rather than silently changed. The en-passant
square and the move counters are lost, as with XBoard.
"""

from __future__ import annotations

from collections.abc import Iterator

import chess

from tmanager.tourney.enginelines import EngineError


def edit_lines(fen: str, *, usermove: bool) -> Iterator[str]:
    """XBoard's ``edit`` sequence for ``fen``, sent right after ``new`` and ``force`` (``usermove``: the engine
    asked for ``usermove`` before its moves)."""
    board = chess.Board(fen, chess960=True)
    implied = _home_castling_rights(board)
    if implied != board.clean_castling_rights():
        assumed = board.copy(stack=False)
        assumed.castling_rights = implied
        raise EngineError(
            f"engine has no setboard (feature setboard=0) and edit cannot set up {fen!r}: it would assume "
            f"castling rights {assumed.castling_xfen()} from the king and rook squares, not {board.castling_xfen()}"
        )
    if board.turn == chess.BLACK:
        # Kludge from XBoard: one white move makes Black the side to move; edit keeps it.
        yield ("usermove " if usermove else "") + "a2a3"
    yield "edit"
    yield "#"
    for color in (chess.WHITE, chess.BLACK):
        if color == chess.BLACK:
            yield "c"
        for square in chess.SQUARES_180:
            piece = board.piece_at(square)
            if piece is not None and piece.color == color:
                yield f"{piece.symbol().upper()}{chess.square_name(square)}"
    yield "."


def _home_castling_rights(board: chess.Board) -> chess.Bitboard:
    """The castling rights an ``edit`` position implies: rooks at home beside their king at home."""
    rights = chess.BB_EMPTY
    if board.king(chess.WHITE) == chess.E1:
        rights |= board.pieces_mask(chess.ROOK, chess.WHITE) & (chess.BB_A1 | chess.BB_H1)
    if board.king(chess.BLACK) == chess.E8:
        rights |= board.pieces_mask(chess.ROOK, chess.BLACK) & (chess.BB_A8 | chess.BB_H8)
    return rights
