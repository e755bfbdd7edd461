"""Chew pairings with Gibsonization, as tsh pairs its default rounds.

The algorithm (tsh manual, "Chew Pairings"; the Dayton 2007 excerpt spells it
out step by step) pairs from the top of the standings down, one prize band at
a time:

1. Sort the players by their standing in the basis round.
2. While players remain unpaired:

   a. Count the Gibsons: leaders nobody can catch any more (:func:`count_gibsons`).
   b. Pair the Gibsons with each other KOTH, the odd one out with a victim out
      of contention, or give it the bye (:func:`pair_gibsons`).
   c. If an odd number of players is left, give the bye to the lowest-ranked
      of those with the fewest byes.
   d. Find the highest prize band still contended (:func:`contended_band`).
   e. Count its contenders, rounded up to even and capped (:func:`count_contenders`).
   f. Find the minimum repeats that pair the contenders among themselves
      (:func:`~tmanager.pairing.scored.minimum_repeats`).
   g. If everyone left contends, pair them all Swiss with that allowance; done.
   h. Otherwise split the contenders into the fewest leaders that still leave
      both parts pairable within that allowance (:func:`split_leaders`), pair
      the leaders top against the lowest-ranked who can catch them
      (:func:`pair_leaders`) and the rest Swiss; loop on the non-contenders.

"Catching" follows tsh's Gibson rule: a chaser is assumed to play the leader
in every remaining round and win each game, by 250 points in one round, 175 a
round over two, 150 a round over more (:func:`spread_allowance`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tmanager.errors import PairingError
from tmanager.pairing.model import Pairing
from tmanager.pairing.scored import (
    Entrant,
    bye_order,
    match,
    minimum_repeats,
    off_ideal,
    pair_win_groups,
    pairable,
    ranked,
    standing_key,
)


def spread_allowance(rounds: int) -> int:
    """The spread a chaser may hope to win over ``rounds`` games: 250, 2×175, then 150 a game."""
    if rounds <= 0:
        return 0
    if rounds == 1:
        return 250
    if rounds == 2:
        return 350
    return 150 * rounds


def can_catch(chaser: Entrant, leader: Entrant, rounds: int) -> bool:
    """``chaser`` can still finish level with or ahead of ``leader`` with ``rounds`` games left.

    The chaser plays the leader in each of those games and wins them all by
    :func:`spread_allowance`, so the spread gap closes by twice that. A tie
    counts as caught: a clinched leader must be strictly clear.
    """
    wins = chaser.wins + rounds
    if wins != leader.wins:
        return wins > leader.wins
    return chaser.spread + 2 * spread_allowance(rounds) >= leader.spread


def count_gibsons(players: Sequence[Entrant], rounds: int, *, prize_places: int) -> int:
    """Step 2a: how many players at the top of ``players`` (ranked) have clinched their place.

    The first player is a Gibson if no one below can catch them, the second if
    the first is and no one below the second can catch them, and so on, within
    the prize places (below the last prize nothing is at stake).
    """
    count = 0
    for index, leader in enumerate(players[: max(0, min(prize_places, len(players) - 1))]):
        if any(can_catch(chaser, leader, rounds) for chaser in players[index + 1 :]):
            break
        count += 1
    return count


def _koth_repeats_first(players: Sequence[Entrant]) -> list[tuple[Entrant, Entrant]]:
    """KOTH minimising repeats, then consecutive repeats, then distance (any repeats allowed)."""
    pairs = match(
        players,
        lambda a, b, i, j: (a.met(b), int(a.consecutive(b)), off_ideal(i, j, ideal=1, size=len(players))),
        repeats=None,
    )
    assert pairs is not None  # every pair is allowed with unlimited repeats
    return pairs


def pair_gibsons(
    gibsons: Sequence[Entrant],
    others: Sequence[Entrant],
    *,
    last_prize: int,
    rank: dict[int, int],
    odd_field: bool,
) -> tuple[list[tuple[Entrant, Entrant]], int | None]:
    """Step 2b: the Gibsons' boards and, when the odd Gibson takes it, the bye.

    An even number of Gibsons play each other KOTH (fewest repeats, then no
    consecutive repeat). Of an odd number, all but the lowest do so; the last
    gets the bye when the field is odd (``odd_field``), otherwise a victim among
    those who have played it least often: the highest-ranked in the lowest
    prize band (overall rank beyond ``last_prize``, ``rank`` giving overall
    ranks from 1) if any is left, else the lowest-ranked player.
    """
    pairs = _koth_repeats_first(gibsons[: len(gibsons) - len(gibsons) % 2])
    if len(gibsons) % 2 == 0:
        return pairs, None
    last = gibsons[-1]
    if odd_field:
        return pairs, last.id
    if not others:
        raise PairingError(f"nobody is left to play Gibson #{last.id}")
    beyond = [p for p in others if rank[p.id] > last_prize]
    pool = beyond or list(others)
    fewest = min(last.met(p) for p in pool)
    candidates = [p for p in pool if last.met(p) == fewest]
    victim = candidates[0] if beyond else candidates[-1]
    return [*pairs, (last, victim)], None


def contended_band(prize_bands: Sequence[int], places_above: int) -> int | None:
    """Step 2d: the last rank of the highest prize band open to players below ``places_above`` others.

    ``prize_bands`` lists the last rank of each band (tsh's ``prize_bands``,
    e.g. ``[2, 3, 4, 5]``: 1st–2nd, 3rd, 4th, 5th). None when every band is
    settled above: the rest play for nothing.
    """
    return next((end for end in sorted(prize_bands) if end > places_above), None)


def count_contenders(players: Sequence[Entrant], target: Entrant, *, rounds: int, rounds_to_pair: int) -> int:
    """Step 2e: how many of ``players`` (ranked) contend for the band whose last rank ``target`` holds now.

    Those standing at or above ``target`` contend, and so does anyone who can
    catch ``target`` with ``rounds`` games left. The count is made even
    (one added if odd) and capped at four times one less than the rounds still
    to pair, or two when pairing the final round; never more than the players left.
    """
    count = sum(1 for p in players if standing_key(p) <= standing_key(target) or can_catch(p, target, rounds))
    count += count % 2
    cap = 4 * (rounds_to_pair - 1) if rounds_to_pair > 1 else 2
    return min(count, cap, len(players) - len(players) % 2)


def split_leaders(contenders: Sequence[Entrant], repeats: int) -> int:
    """Step 2h: the fewest leaders (even, at least two) such that leaders and the rest each pair within ``repeats``."""
    for leaders in range(2, len(contenders) + 1, 2):
        if pairable(contenders[:leaders], repeats) and pairable(contenders[leaders:], repeats):
            return leaders
    return len(contenders)


def pair_leaders(leaders: Sequence[Entrant], *, repeats: int, rounds: int) -> list[tuple[Entrant, Entrant]]:
    """Step 2h: the top leader plays the lowest-ranked leader who can catch them, and so on down.

    Only opponents within ``repeats`` that leave the other leaders pairable are
    considered. Catchers come first, lowest-ranked first, avoiding a
    consecutive repeat where possible; if no one can catch the top leader, the
    nearest-ranked opponent is taken.
    """
    left = list(leaders)
    pairs = []
    while left:
        top, rest = left[0], left[1:]

        def preference(item: tuple[int, Entrant], top: Entrant = top) -> tuple[bool, bool, int]:
            index, p = item
            catches = can_catch(p, top, rounds)
            return (not catches, top.consecutive(p), -index if catches else index)

        for _, opponent in sorted(enumerate(rest), key=preference):
            remaining = [p for p in rest if p is not opponent]
            if top.met(opponent) <= repeats and pairable(remaining, repeats):
                pairs.append((top, opponent))
                left = remaining
                break
        else:
            raise PairingError(f"the leaders cannot be paired within {repeats} repeat(s)")
    return pairs


def chew(
    entrants: Sequence[Entrant],
    *,
    round_number: int,
    max_rounds: int,
    basis: int | None = None,
    prize_bands: Sequence[int] | None = None,
    track_firsts: bool = True,
) -> Pairing:
    """Chew pairings of round ``round_number`` from the standings of round ``basis`` (default: the previous).

    ``entrants`` carry the standings after ``basis`` (see
    :func:`~tmanager.pairing.scored.tally`); chasers have ``max_rounds - basis``
    games left to catch up. ``prize_bands`` default to every place in the top
    quarter of the field.
    """
    basis = round_number - 1 if basis is None else basis
    if not 0 <= basis < round_number <= max_rounds:
        raise PairingError(f"cannot pair round {round_number} of {max_rounds} from round {basis}'s standings")
    # Step 1: sort by standing; those set off take no part.
    field = [e for e in ranked(entrants) if e.active]
    rank = {e.id: index + 1 for index, e in enumerate(field)}
    bands = sorted(prize_bands) if prize_bands else list(range(1, max(1, len(field) // 4) + 1))
    rounds = max_rounds - basis
    rounds_to_pair = max_rounds - round_number + 1
    boards: list[tuple[Entrant, Entrant]] = []
    bye: int | None = None
    left = field
    # Step 2: one prize band per pass, from the top.
    while left:
        if len(left) == 1:
            bye = left[0].id
            break
        # 2a, 2b: Gibsons.
        gibsons = left[: count_gibsons(left, rounds, prize_places=bands[-1] - (rank[left[0].id] - 1))]
        if gibsons:
            others = left[len(gibsons) :]
            pairs, gibson_bye = pair_gibsons(
                gibsons, others, last_prize=bands[-1], rank=rank, odd_field=len(left) % 2 == 1
            )
            boards.extend(pairs)
            bye = gibson_bye if gibson_bye is not None else bye
            done = {p.id for pair in pairs for p in pair} | {gibson_bye}
            left = [p for p in left if p.id not in done]
        # 2c: the bye.
        if len(left) % 2:
            lowest = bye_order(left)[0]
            bye = lowest.id
            left = [p for p in left if p is not lowest]
        if not left:
            break
        # 2d, 2e: the band in play and its contenders.
        band_end = contended_band(bands, rank[left[0].id] - 1)
        if band_end is None:
            contenders = len(left)
        else:
            target = field[min(band_end, len(field)) - 1]
            contenders = count_contenders(left, target, rounds=rounds, rounds_to_pair=rounds_to_pair)
        group, left = left[:contenders], left[contenders:]
        # 2f: the allowance.
        repeats = minimum_repeats(group)
        if not left:
            # 2g: everyone left contends: one Swiss.
            boards.extend(_win_group_pairs(group, repeats, track_firsts))
            break
        # 2h: leaders against catchers, non-leaders Swiss.
        leaders = split_leaders(group, repeats)
        boards.extend(pair_leaders(group[:leaders], repeats=repeats, rounds=rounds))
        boards.extend(_win_group_pairs(group[leaders:], repeats, track_firsts))
    boards.sort(key=lambda pair: min(rank[pair[0].id], rank[pair[1].id]))
    return Pairing(tuple((a.id, b.id) for a, b in boards), bye)


def _win_group_pairs(players: Sequence[Entrant], repeats: int, track_firsts: bool) -> list[tuple[Entrant, Entrant]]:
    pairs = pair_win_groups(players, repeats=repeats, track_firsts=track_firsts)
    if pairs is None:
        raise PairingError(f"the contenders cannot be paired Swiss within {repeats} repeat(s)")
    return pairs
