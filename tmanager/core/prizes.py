"""Prize allocation as arbiters do it: prize lists by place, one prize per player, shared prizes.

An event's prize fund is a set of :class:`PrizeList` values: the overall
prizes and those of each category, each an amount per place (in cents,
never rising with the place). Each list ranks its own players (the final
standings, the category's players among themselves). :func:`allocate`
gives every player at most one prize:

* **One prize per player, the highest.** The prize a player would have in
  each list is worked out as the lists stand; the largest amount anywhere
  goes first, then the next, each list re-ranked without the players already
  given a prize in another list (they leave it, and everyone below moves up).
  Equal amounts go by the lists' order of preference (the caller's order:
  overall first, unless the event's regulations say otherwise), then by
  rank. A player's amount never falls as others leave a list, so the choice
  made for them stays the best one.
* **Shared prizes** (:class:`Sharing`): players level on points share the
  prizes of the places they occupy together, either equally (``split``) or
  by the Hort system (``hort``: half of those prizes equally, the other half
  by their tie-break order, each the half of the prize of their own place);
  or prizes follow the tie-break order alone (``tiebreak``), where only
  players level on every tie-break share. Players level on every tie-break
  always share what the tie-break order would give them. A share is paid in
  whole cents, the group's shares adding up to its places' prizes.

Pure: rankings and amounts in, awards out.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import groupby, pairwise


class Sharing(enum.StrEnum):
    """How players level on points share the prizes of their places."""

    HORT = "hort"
    SPLIT = "split"
    TIEBREAK = "tiebreak"


@dataclass(frozen=True, slots=True)
class Ranked:
    """A player in a list's ranking: points in tenths and the rank (shared only by players level on every
    tie-break)."""

    player: int
    points: int
    rank: int


@dataclass(frozen=True, slots=True)
class PrizeList:
    """One list of prizes: its name (``overall``, ``U18``), the amount of each place in cents (place 1 first)
    and its players in ranking order."""

    name: str
    amounts: tuple[int, ...]
    ranking: tuple[Ranked, ...]

    def __post_init__(self) -> None:
        if any(later > earlier for earlier, later in pairwise(self.amounts)):
            raise ValueError(f"{self.name}: a prize may not be larger than the prize of the place before it")
        if any(amount < 0 for amount in self.amounts):
            raise ValueError(f"{self.name}: a prize cannot be negative")


@dataclass(frozen=True, slots=True)
class Award:
    """A player's prize: the list, the places shared (``first`` to ``last``, the same place if not shared),
    how many players share them, and the amount in cents (a fraction when shared, by :func:`shares`; whole
    cents once allocated, by :func:`allocate`)."""

    player: int
    prize_list: str
    first: int
    last: int
    sharers: int
    amount: Fraction


def shares(amounts: Sequence[int], ranking: Sequence[Ranked], sharing: Sharing) -> list[Award]:
    """What each player of ``ranking`` gets from one list of ``amounts`` by ``sharing`` (nothing: left out)."""
    awards: list[Award] = []
    place = 1
    level = (lambda r: r.rank) if sharing == Sharing.TIEBREAK else (lambda r: r.points)
    for _, members in groupby(ranking, key=level):
        group = list(members)
        if place > len(amounts):
            break
        money = [amounts[p - 1] if p <= len(amounts) else 0 for p in range(place, place + len(group))]
        total = Fraction(sum(money))
        offset = 0
        for _, tied in groupby(group, key=lambda r: r.rank):
            exact = list(tied)  # level on every tie-break too: they share what the tie-break order gives them
            by_tiebreak = Fraction(sum(money[offset : offset + len(exact)]), len(exact))
            for r in exact:
                if sharing == Sharing.HORT:
                    amount = total / (2 * len(group)) + by_tiebreak / 2
                elif sharing == Sharing.SPLIT:
                    amount = total / len(group)
                else:
                    amount = by_tiebreak
                if amount > 0:
                    awards.append(Award(r.player, "", place, place + len(group) - 1, len(group), amount))
            offset += len(exact)
        place += len(group)
    return awards


def allocate(lists: Sequence[PrizeList], sharing: Sharing) -> list[Award]:
    """Every prize of ``lists`` (in their order of preference) given, one per player, as the module says; the
    awards list by list, place by place."""
    chosen: dict[int, int] = {}  # player -> the index of the list whose prize they have

    def standing(index: int) -> list[Ranked]:
        return [r for r in lists[index].ranking if chosen.get(r.player, index) == index]

    while True:
        best: tuple[Fraction, int, int, int] | None = None  # (-amount, preference, position, player)
        for index, prize_list in enumerate(lists):
            ranking = standing(index)
            positions = {r.player: i for i, r in enumerate(ranking)}
            for award in shares(prize_list.amounts, ranking, sharing):
                if award.player not in chosen:
                    key = (-award.amount, index, positions[award.player], award.player)
                    best = key if best is None or key < best else best
        if best is None:
            break
        chosen[best[3]] = best[1]
    return _to_the_cent([
        Award(a.player, prize_list.name, a.first, a.last, a.sharers, a.amount)
        for index, prize_list in enumerate(lists)
        for a in shares(prize_list.amounts, standing(index), sharing)
        if chosen.get(a.player) == index
    ])


def _to_the_cent(awards: list[Award]) -> list[Award]:
    """The awards in whole cents, each group sharing places paid exactly what its places are worth: a share
    rounded down to the cent, and the cents left over one each to the largest remainders (equal remainders:
    the better ranked first). Rounded each on its own, six shares of 100 would pay 16.67 six times, 100.02."""
    paid: list[Award] = []
    for _, group in groupby(awards, key=lambda a: (a.prize_list, a.first, a.last)):
        shared = list(group)
        floors = [math.floor(a.amount) for a in shared]
        left = round(sum(a.amount for a in shared)) - sum(floors)
        by_remainder = sorted(range(len(shared)), key=lambda i: (floors[i] - shared[i].amount, i))
        extra = set(by_remainder[:left])
        paid += [dataclasses.replace(a, amount=Fraction(floors[i] + (i in extra))) for i, a in enumerate(shared)]
    return paid
