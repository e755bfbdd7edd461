"""Pairing systems: the FIDE Dutch Swiss system and Berger round-robin tables.

The public API is pure: players and their history in, a :class:`Pairing` out.
"""

from tmanager.pairing.berger import berger_round, round_robin
from tmanager.pairing.dutch import pair_round
from tmanager.pairing.model import BLACK, WHITE, Game, Pairing, PlayerState, PointsSystem

__all__ = [
    "BLACK",
    "WHITE",
    "Game",
    "Pairing",
    "PlayerState",
    "PointsSystem",
    "berger_round",
    "pair_round",
    "round_robin",
]
