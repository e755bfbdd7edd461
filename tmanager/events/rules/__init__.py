"""The rules of a division, chosen once from its data: chess or score-based.

:func:`rules_for` is the one place that tells the kinds of division apart
(a division whose file sets ``entry`` is score-based); everything else asks
the rules object it returns. A new kind (team round robin, team Swiss) is a
new :class:`~tmanager.events.rules.base.DivisionRules` implementation chosen
here.
"""

from __future__ import annotations

import random
from typing import TypeVar

from tmanager.core.results import Colour
from tmanager.errors import StateError
from tmanager.events.model import Division, Event
from tmanager.events.rules.base import DivisionRules, EntryForm, PairOptions, Problem, parse_system
from tmanager.events.rules.chess import ChessRules
from tmanager.events.rules.scored import ScoreRules

__all__ = [
    "ChessRules",
    "DivisionRules",
    "EntryForm",
    "PairOptions",
    "Problem",
    "ScoreRules",
    "pair",
    "parse_system",
    "require",
    "rules_for",
]

_R = TypeVar("_R", bound=DivisionRules)


def rules_for(event: Event, division: Division) -> DivisionRules:
    """The rules of ``division``: score-based when it has score-based settings, else chess."""
    if division.scored is not None:
        return ScoreRules(event, division)
    return ChessRules(event, division)


def require(rules: DivisionRules, kind: type[_R], refusal: str) -> _R:
    """``rules`` if they are of ``kind``; else :class:`StateError` ``refusal`` (a TRF of a score-based division…)."""
    if not isinstance(rules, kind):
        raise StateError(refusal)
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
