"""How far a tourney is: over or not, a match's state and its SPRT's verdict, the games still to begin.

Read from the results string (and ``[sprt]``) at every claim and record: a
tourney is over when every scheduled game has a result, or when its SPRT has
decided and the game pairs begun are complete (:mod:`tmanager.core.sprt`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from tmanager.core import sprt
from tmanager.core.sprt import MatchState
from tmanager.tourney.alphabet import PLAYING, UNPLAYED
from tmanager.tourney.settings import SWISS_TYPES

if TYPE_CHECKING:
    from tmanager.tourney.model import Tourney


def is_complete(tourney: Tourney) -> bool:
    """Whether the tourney is over: every scheduled game has a result (the results string is never
    longer than the schedule), or its SPRT has decided and the pairs begun are complete."""
    results = tourney.results  # memchr-fast searches: this is asked at every claim and record
    if len(results) == tourney.schedule().total_games and PLAYING not in results and UNPLAYED not in results:
        return True
    state = sprt_state(tourney)
    return state is not None and state.over


def match_state(tourney: Tourney) -> MatchState | None:
    """The match so far of a two-participant round robin or gauntlet, from the first participant's
    side, with its SPRT (see :mod:`tmanager.core.sprt`); ``None`` for other tourneys."""
    if len(tourney.participants) != 2 or tourney.settings.type in SWISS_TYPES:
        return None
    return sprt.match_state(tourney.schedule(), tourney.results, tourney.sprt)


def sprt_state(tourney: Tourney) -> MatchState | None:
    """:func:`match_state` of a tourney with ``[sprt]``; ``None`` without (numpy is not even loaded)."""
    return match_state(tourney) if tourney.sprt is not None else None


def claimable(tourney: Tourney) -> Collection[int] | None:
    """The only games a worker may still begin, or ``None`` for any unplayed game: once the SPRT
    has decided, the unplayed games of pairs already begun (the test ends on whole pairs)."""
    state = sprt_state(tourney)
    return None if state is None else state.claimable


def games_left(tourney: Tourney) -> int:
    """The games still to begin: every unplayed one, or once the SPRT has decided, only those of the pairs
    begun (the rest will never be played, so they are not "left")."""
    allowed = claimable(tourney)
    if allowed is not None:
        return len(allowed)
    return tourney.schedule().total_games - tourney.finished_count - tourney.results.count(PLAYING)


def games_planned(tourney: Tourney) -> int:
    """The games the tourney will have played when it is over: all scheduled, or once its SPRT has decided,
    those played, in progress and of the pairs begun."""
    return tourney.finished_count + tourney.results.count(PLAYING) + games_left(tourney)


def update_verdict(tourney: Tourney) -> None:
    """Record the SPRT's verdict once the test is over, and drop one that no longer holds: the bounds were
    changed (before the first game, or forced by ``edit --force``: by hand after it they are refused, see
    :func:`~tmanager.tourney.amendments.check_hand_edit`) or the cycles were, or ``[sprt]`` was removed."""
    state = sprt_state(tourney)
    tourney.verdict = None if state is None else state.verdict
