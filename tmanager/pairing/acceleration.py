"""Accelerated pairings: the Baku Acceleration Method (FIDE C.04.5.1), as virtual points.

Before round 1 the players are split in two groups: GA, the first half of the
pairing list rounded up to an even number (``2 × ⌈n / 4⌉``), and GB the rest.
The accelerated rounds are the first half of the event, rounded up; GA players
carry one virtual point (a win's points) into the first half of those rounds,
rounded up, and half a point (a draw's) into the others. Virtual points count
in the pairing score only (:attr:`~tmanager.pairing.PlayerState.acceleration`),
never in the standings. The method needs the standard proportions of points:
a draw half a win, a loss nothing.

A nine-round event accelerates rounds 1-5: one virtual point in rounds 1-3,
half a point in rounds 4-5. What this module does not know: who is in GA after
late entries (the last GA player stays the same, C.04.5.1; the event keeps him).
"""

from __future__ import annotations

from tmanager.core.scoring import PointsSystem
from tmanager.errors import PairingError


def baku_group(players: int) -> int:
    """How many players GA holds: the first half of ``players``, rounded up to an even number."""
    return 2 * -(-players // 4)


def baku_points(round_number: int, total_rounds: int, points: PointsSystem) -> int:
    """The virtual points (tenths) a GA player carries into ``round_number`` of a ``total_rounds`` event."""
    if points.loss != 0 or 2 * points.draw != points.win:
        raise PairingError("the Baku method needs a draw to score half a win and a loss nothing (C.04.5.1)")
    full, half = baku_rounds(total_rounds)
    return points.win if round_number in full else points.draw if round_number in half else 0


def baku_rounds(total_rounds: int) -> tuple[range, range]:
    """The rounds with a full virtual point and those with half a point."""
    accelerated = -(-total_rounds // 2)
    full = -(-accelerated // 2)
    return range(1, full + 1), range(full + 1, accelerated + 1)
