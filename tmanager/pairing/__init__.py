"""Pairing systems: the FIDE Dutch Swiss system and Berger round-robin tables.

The public API is pure: players and their history in, a :class:`Pairing` out
(or, from the ``explain_`` functions, the pairing and why it is what it is).
"""

from tmanager.core.results import TrfResult
from tmanager.core.scoring import Game, PointsSystem
from tmanager.pairing.berger import BergerExplanation, berger_round, explain_round_robin, round_robin
from tmanager.pairing.dutch import explain_round, pair_round
from tmanager.pairing.dutchexplain import DutchExplanation
from tmanager.pairing.model import BLACK, WHITE, Pairing, PlayerState

__all__ = [
    "BLACK",
    "WHITE",
    "BergerExplanation",
    "DutchExplanation",
    "Game",
    "Pairing",
    "PlayerState",
    "PointsSystem",
    "TrfResult",
    "berger_round",
    "explain_round",
    "explain_round_robin",
    "pair_round",
    "round_robin",
]
