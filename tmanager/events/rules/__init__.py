"""The rules of a division, chosen once from its data: chess, Double-Swiss, team or score-based.

:func:`rules_for` is the one place that tells the kinds of division apart (a
division whose file sets ``entry`` is score-based, one that sets ``team_size`` a
team division, a chess division paired by the Double-Swiss plays matches of two
games); everything else asks the rules object it returns. A new kind is a new
:class:`~tmanager.events.rules.base.DivisionRules` implementation chosen here.
"""

from __future__ import annotations

import random
from typing import TypeVar

from tmanager.core.results import Colour
from tmanager.errors import StateError
from tmanager.events.model import Division, Event, PairingSystem
from tmanager.events.rules.base import DivisionRules, EntryForm, PairOptions, Problem, parse_system
from tmanager.events.rules.chess import ChessRules
from tmanager.events.rules.doubleswiss import DoubleSwissRules
from tmanager.events.rules.scored import ScoreRules
from tmanager.events.rules.team import TeamRules

__all__ = [
    "SYSTEMS",
    "ChessRules",
    "DivisionRules",
    "DoubleSwissRules",
    "EntryForm",
    "PairOptions",
    "Problem",
    "ScoreRules",
    "TeamRules",
    "default_system",
    "pair",
    "parse_system",
    "require",
    "rules_for",
]

_R = TypeVar("_R", bound=DivisionRules)

#: Every system a division may be paired by: the chess systems, then the score-based ones.
SYSTEMS = tuple(
    dict.fromkeys((*ChessRules.systems, *DoubleSwissRules.systems, *TeamRules.systems, *ScoreRules.systems))
)


def rules_for(event: Event, division: Division) -> DivisionRules:
    """The rules of ``division``: score-based with score-based settings, a team division with team settings, else
    chess (Double-Swiss by its system)."""
    if division.scored is not None:
        return ScoreRules(event, division)
    if division.team_settings is not None:
        return TeamRules(event, division)
    if division.system == PairingSystem.DOUBLE_SWISS:
        return DoubleSwissRules(event, division)
    return ChessRules(event, division)


def default_system(*, score_based: bool, team: bool = False) -> PairingSystem:
    """A new division's pairing system when none is named: Chew's for a score-based one (tsh's default), FIDE's
    team Swiss for a team one (Dutch, the players' default, is no team division's), else FIDE's Dutch."""
    if score_based:
        return PairingSystem.CHEW
    return PairingSystem.TEAM_SWISS if team else PairingSystem.DUTCH


def require(rules: DivisionRules, kind: type[_R], refusal: str, hint: str | None = None) -> _R:
    """``rules`` if they are of ``kind``; else :class:`StateError` ``refusal`` with ``hint``, how to fix it (a TRF of
    a score-based division…)."""
    if not isinstance(rules, kind):
        raise StateError(refusal, hint=hint)
    return rules


def pair(
    event: Event,
    division: Division,
    *,
    colour: Colour | str | None = None,
    system: str | None = None,
    repeats: int | None = None,
    rng: random.Random | None = None,
) -> list[str]:
    """Pair the next round of ``division`` by its rules; ``colour`` as ``white``/``black`` (or ``w``/``b``)."""
    options = PairOptions(
        colour=Colour.parse(colour) if colour is not None else None,
        system=parse_system(system) if system is not None else None,
        repeats=repeats,
        rng=rng,
    )
    return rules_for(event, division).pair(options)
