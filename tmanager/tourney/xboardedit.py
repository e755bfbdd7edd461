"""A position for an XBoard engine without ``setboard``: XBoard's ``edit`` sequence, as XBoard (``backend.c``)
sends it.

For a Black-to-move position the engine first gets ``a2a3`` (it has just had ``new`` and ``force``), as XBoard
does. ``edit`` cannot say "no castling" for a king and rook on their home squares; such a position is refused
(:func:`edit_refusal` says why) rather than silently changed: a game's start before the game, by the runner's
variant check, as a configuration error; a position asked for anyway, with an
:class:`~tmanager.tourney.enginelines.EngineError`. The en-passant
square and the move counters are lost, as with XBoard.
"""

from __future__ import annotations

from collections.abc import Iterator

import chess

from tmanager.tourney.enginelines import EngineError


def edit_lines(fen: str, *, usermove: bool) -> Iterator[str]:
    """XBoard's ``edit`` sequence for ``fen``, sent right after ``new`` and ``force`` (``usermove``: the engine
    asked for ``usermove`` before its moves)."""
    refusal = edit_refusal(fen)
    if refusal is not None:
        raise EngineError(f"engine cannot be given the position {fen!r}: {refusal}")
    board = chess.Board(fen, chess960=True)
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


def edit_refusal(fen: str) -> str | None:
    """Why ``edit`` cannot set up ``fen`` for an engine without ``setboard``, or ``None`` when it can: the engine
    assumes the castling rights of every king and rook on their home squares."""
    board = chess.Board(fen, chess960=True)
    implied = _home_castling_rights(board)
    if implied == board.clean_castling_rights():
        return None
    assumed = board.copy(stack=False)
    assumed.castling_rights = implied
    return (f"it has no setboard (feature setboard=0), and edit would give it castling rights "
            f"{assumed.castling_xfen()} from the king and rook squares, not {board.castling_xfen()}")


def _home_castling_rights(board: chess.Board) -> chess.Bitboard:
    """The castling rights an ``edit`` position implies: rooks at home beside their king at home."""
    rights = chess.BB_EMPTY
    if board.king(chess.WHITE) == chess.E1:
        rights |= board.pieces_mask(chess.ROOK, chess.WHITE) & (chess.BB_A1 | chess.BB_H1)
    if board.king(chess.BLACK) == chess.E8:
        rights |= board.pieces_mask(chess.ROOK, chess.BLACK) & (chess.BB_A8 | chess.BB_H8)
    return rights
