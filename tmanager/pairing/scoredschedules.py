"""Score-based pairings fixed ahead of the results, the tsh way: a round robin of seeded entrants by the Berger
tables, tsh's TeamRoundRobin and InitFontes (the opening rounds paired at once, in round-robin groups), and the
round whose standings pair a round under Fontes timing (:func:`fontes_basis`).

Pure, like :mod:`tmanager.pairing.scored`, whose :class:`~tmanager.pairing.scored.Entrant` standings they take.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from fractions import Fraction

from tmanager.errors import PairingError
from tmanager.pairing.berger import round_robin as berger_schedule
from tmanager.pairing.model import Pairing
from tmanager.pairing.scored import Entrant, active


def seeded_round_robin(seeds: Sequence[Entrant], round_number: int, *, cycles: int = 1) -> Pairing:
    """Round ``round_number`` of a round robin among ``seeds`` (in seeding order) by the Berger tables."""
    pairing = berger_schedule(len(seeds), round_number, cycles=cycles)
    ids = [e.id for e in seeds]
    return Pairing(
        tuple((ids[a - 1], ids[b - 1]) for a, b in pairing.boards), ids[pairing.bye - 1] if pairing.bye else None
    )


def team_round_robin(first: Sequence[int], second: Sequence[int], *, repeats: int = 1) -> list[Pairing]:
    """tsh's TeamRoundRobin: every player of one team meets every player of the other, ``repeats`` times in
    succession; a round for each player of the larger team (times ``repeats``).

    Round ``r`` pairs the ``i``-th player of ``first`` with the ``(i + r)``-th of
    ``second`` (cyclically); when one team has one player less, the player its
    gap meets has the bye. The team going first alternates from one round to the
    next, so that repeated games swap who starts.
    """
    if abs(len(first) - len(second)) > 1 or not first or not second:
        raise PairingError(
            f"TeamRoundRobin needs two teams of equal size (or one player apart), not {len(first)} and {len(second)}"
        )
    if repeats < 1:
        raise PairingError("TeamRoundRobin plays each pairing at least once")
    size = max(len(first), len(second))
    a: list[int | None] = [*first, *([None] * (size - len(first)))]
    b: list[int | None] = [*second, *([None] * (size - len(second)))]
    rounds = []
    for r in range(size):
        pairs = [(a[i], b[(i + r) % size]) for i in range(size)]
        for k in range(repeats):
            swap = (r * repeats + k) % 2 == 1
            boards = tuple((y, x) if swap else (x, y) for x, y in pairs if x is not None and y is not None)
            bye = next((x or y for x, y in pairs if (x is None) != (y is None)), None)
            rounds.append(Pairing(boards, bye))
    return rounds


def init_fontes(
    entrants: Sequence[Entrant], rounds: int = 3, *, rng: random.Random, snaked: bool = False
) -> list[Pairing]:
    """tsh's InitFontes: ``rounds`` fixed rounds of round robins in groups of ``rounds + 1``.

    Players (by rating) are dealt into groups one from each quantile (quartile
    for quads), at random within each band or boustrophedonically when
    ``snaked`` (tsh's ``initial_snaked``). When the field does not divide,
    one group is larger and plays a partial round robin (a group of six plays
    three of its five rounds). An odd field gets a phantom below everyone:
    whoever meets it has the bye.
    """
    if rounds < 1 or rounds % 2 == 0:
        raise PairingError(f"InitFontes needs an odd number of rounds, not {rounds}")
    field: list[Entrant | None] = [*sorted(active(entrants), key=lambda e: (-e.rating, e.id))]
    if len(field) < 2:
        raise PairingError("InitFontes needs at least two active players")
    if len(field) % 2:
        field.append(None)
    size = rounds + 1
    count = max(1, len(field) // size)
    sizes = [size] * count
    sizes[-1] += len(field) - size * count
    groups: list[list[Entrant | None]] = [[] for _ in sizes]
    for index, player in enumerate(field):
        # Deal to the least-filled groups (relative to their size); ties in band order.
        fill = [Fraction(len(g), s) if len(g) < s else Fraction(2) for g, s in zip(groups, sizes, strict=True)]
        open_groups = [k for k, f in enumerate(fill) if f == min(fill)]
        backwards = (index // count) % 2 == 1
        chosen = (open_groups[-1] if backwards else open_groups[0]) if snaked else rng.choice(open_groups)
        groups[chosen].append(player)
    schedule = []
    for r in range(1, rounds + 1):
        boards: list[tuple[int, int]] = []
        bye = None
        for group in groups:
            cycles = -(-rounds // (len(group) - 1)) if len(group) > 1 else 1
            seats = berger_schedule(len(group), r, cycles=cycles)
            for a, b in seats.boards:
                real = [p for p in (group[a - 1], group[b - 1]) if p is not None]
                if len(real) == 2:
                    boards.append((real[0].id, real[1].id))
                elif real:
                    bye = real[0].id
        schedule.append(Pairing(tuple(boards), bye))
    return schedule


def fontes_basis(round_number: int, *, session_breaks: Collection[int] | None) -> int:
    """The round whose standings pair ``round_number``.

    Fontes pairing uses round n-2, except right after a session break (listed
    like tsh's ``session_breaks``: rounds after which there is time to wait for
    every result), where round n-1 is used. Without session breaks every round
    is paired from the round before it.
    """
    if round_number < 1:
        raise PairingError(f"round {round_number} is not a round number")
    previous = round_number - 1
    if session_breaks is None or previous == 0 or previous in session_breaks:
        return previous
    return previous - 1
