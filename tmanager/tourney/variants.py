"""Variants by name: which python-chess board a tourney's ``variant`` setting plays on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tmanager.errors import ConfigError

if TYPE_CHECKING:
    import chess

#: Names that select Chess960 (python-chess plays it as standard chess with ``chess960=True``).
CHESS960_NAMES = ("chess960", "fischerandom", "fischerrandom", "960")
#: The ``variant`` setting's default.
STANDARD = "chess"


def check_variant(variant: str) -> None:
    """Raise :class:`ConfigError` for a variant python-chess does not know. The default is known without
    loading python-chess (a third of what ``status`` of a small tourney would cost)."""
    if variant != STANDARD:
        variant_board(variant)


def variant_board(variant: str) -> tuple[type[chess.Board], bool]:
    """The python-chess board class and Chess960 flag for a tourney's ``variant`` setting."""
    import chess.variant  # here: reading a tourney file of standard chess never needs python-chess

    if variant.lower() in CHESS960_NAMES:
        return chess.Board, True
    try:
        return chess.variant.find_variant(variant), False
    except ValueError:
        known = ", ".join(["chess960", *dict.fromkeys(variant_name(v) for v in chess.variant.VARIANTS)])
        raise ConfigError(f"unknown variant {variant!r}", field="tourney.variant", hint=f"use one of {known}") from None


def variant_name(board_type: type[chess.Board]) -> str:
    """python-chess's UCI name of a board class (``chess`` for standard chess)."""
    return board_type.uci_variant or STANDARD
