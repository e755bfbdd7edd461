"""Pairing events scored by points and spread, the tsh way (Scrabble and the like).

Results are game scores: a player's standing is wins (a tie is half a win),
then cumulative spread (points for minus points against). Who went first
("firsts") and second ("seconds") is tracked and balanced the way colours are
in chess.

Everything here is pure. A division's history comes in as :class:`Scorecard`
values (tsh's ``.t`` data: opponents with 0 for a bye, scores, ``p12``,
``off``); :func:`tally` turns them into ranked :class:`Entrant` standings as of
some round, with the opponents of every paired round for repeat checks; the
pairing systems take entrants and return a :class:`~tmanager.pairing.Pairing`
whose boards are ``(first, second)`` player ids (ranked order until
:func:`assign_firsts` orders each board by who starts).

Every system is repeat-aware: ``repeats`` is the allowance, how many times two
players may already have met and still be paired (0: no rematch; None:
unlimited), and a consecutive repeat (the last round's opponent again) is
avoided whenever the allowance leaves another way. Inactive entrants (``off``)
are left out of every pairing. With an odd field the bye goes to the
lowest-ranked among those with the fewest byes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tmanager.errors import PairingError
from tmanager.pairing.matching import max_weight_perfect_matching
from tmanager.pairing.model import Pairing, Reason

#: The opponent number of a bye (or forfeit win/loss without an opponent), as in tsh.
BYE = 0
#: ``p12`` codes: neither, first, second, to be drawn, not known yet.
NEITHER, FIRST, SECOND, DRAW, UNKNOWN = 0, 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class Scorecard:
    """A player's record, round by round, as tsh keeps it.

    ``opponents[i]`` is the opponent of round i+1: a player id, :data:`BYE`, or
    None when the player is not paired that round. ``scores[i]`` is the
    player's own score, or None when not entered yet; for a bye or forfeit
    it is the spread awarded (``+50``, ``-50``…). With spread-only entry, store
    the spread as the winner's score and 0 as the loser's. ``p12[i]`` is a
    ``p12`` code. ``off`` marks an inactive player (not paired any more) and
    is the spread to award per missed game.
    """

    id: int
    rating: int = 0
    opponents: tuple[int | None, ...] = ()
    scores: tuple[int | None, ...] = ()
    p12: tuple[int, ...] = ()
    off: int | None = None


@dataclass(frozen=True, slots=True)
class Entrant:
    """One line of the standings the pairing systems read.

    ``wins`` counts a tie as half a win and ``losses`` a tie as half a loss;
    a round without an opponent (bye, forfeit, round off) counts as a win or
    a loss by the sign of its spread, and as neither when it is 0 (tsh's
    ``off 0``). ``opponents`` lists every paired
    round's opponent (:data:`BYE` for a bye, None when unpaired), including
    rounds paired but not yet scored, so that repeats are always seen.
    """

    id: int
    wins: float = 0.0
    spread: int = 0
    losses: float = 0.0
    rating: int = 0
    firsts: int = 0
    seconds: int = 0
    opponents: tuple[int | None, ...] = ()
    active: bool = True

    @property
    def byes(self) -> int:
        """Rounds with a bye (or forfeit) instead of an opponent."""
        return self.opponents.count(BYE)

    def met(self, other: Entrant) -> int:
        """How many times this player has been paired with ``other``."""
        return self.opponents.count(other.id)

    def consecutive(self, other: Entrant) -> bool:
        """Pairing with ``other`` would repeat the last round's game."""
        return bool(self.opponents) and self.opponents[-1] == other.id

    @property
    def due(self) -> int:
        """+1 if due to start (fewer firsts than seconds), -1 if due to reply, 0 if balanced."""
        return (self.seconds > self.firsts) - (self.firsts > self.seconds)


def standing_key(entrant: Entrant) -> tuple[float, int, int, int]:
    """Sort key of the standings: wins, spread, then rating (all descending), then id."""
    return (-entrant.wins, -entrant.spread, -entrant.rating, entrant.id)


def ranked(entrants: Sequence[Entrant]) -> list[Entrant]:
    """The entrants in standings order."""
    return sorted(entrants, key=standing_key)


def tally(cards: Sequence[Scorecard], *, through: int | None = None) -> list[Entrant]:
    """Standings after round ``through`` (all rounds by default), in standings order.

    Only games whose scores are in count; a round without an opponent counts
    by the sign of its spread, and with spread 0 as neither a win nor a loss
    (the tsh manual: "off 0" will "record a missed game without assigning a
    win or loss"; tsh stores such a round as opponent 0 with score 0, as a
    0-spread bye). Opponents, firsts and seconds of
    every paired round are kept whatever ``through`` is, so Fontes pairings
    (standings of round n-2, history up to round n-1) see every repeat.
    """
    by_id = {card.id: card for card in cards}
    entrants = []
    for card in cards:
        wins = losses = 0.0
        spread = 0
        last = len(card.opponents) if through is None else min(through, len(card.opponents))
        for index in range(last):
            opponent = card.opponents[index]
            own = card.scores[index] if index < len(card.scores) else None
            if opponent is None or own is None:
                continue
            if opponent == BYE:
                margin = own
            else:
                other = by_id.get(opponent)
                if other is None:
                    raise PairingError(f"player {card.id} meets unknown player {opponent} in round {index + 1}")
                theirs = other.scores[index] if index < len(other.scores) else None
                if theirs is None:
                    continue
                margin = own - theirs
            spread += margin
            # A tied game is half a win and half a loss; a round without an opponent at 0 is neither.
            tie = 0.0 if opponent == BYE else 0.5
            wins += 1.0 if margin > 0 else tie if margin == 0 else 0.0
            losses += 1.0 if margin < 0 else tie if margin == 0 else 0.0
        entrants.append(
            Entrant(
                id=card.id,
                wins=wins,
                spread=spread,
                losses=losses,
                rating=card.rating,
                firsts=card.p12.count(FIRST),
                seconds=card.p12.count(SECOND),
                opponents=card.opponents,
                active=card.off is None,
            )
        )
    return ranked(entrants)


# -- firsts and seconds ------------------------------------------------------


def starter(a: Entrant, b: Entrant) -> int | None:
    """Who starts by the balance rule: fewer firsts, else fewer seconds; None when it goes by lot.

    This is the event specification's rule ("the player with fewer firsts
    starts; on a tie, fewer seconds; otherwise by lot"), not the NSA variant
    in which the one who has replied more often starts.
    """
    return _balance(a, b)[0]


def first_reason(a: Entrant, b: Entrant) -> Reason:
    """Why one of ``a`` and ``b`` starts (:func:`starter`'s rule), or that the lot decides."""
    return _balance(a, b)[1]


def _balance(a: Entrant, b: Entrant) -> tuple[int | None, Reason]:
    if a.firsts != b.firsts:
        low, high = (a, b) if a.firsts < b.firsts else (b, a)
        why = f"{{}} has gone first fewer times ({low.firsts}) than {{}} ({high.firsts})"
        return low.id, Reason("firsts", why, (low.id, high.id))
    if a.seconds != b.seconds:
        low, high = (a, b) if a.seconds < b.seconds else (b, a)
        why = (f"both went first {a.firsts} time(s); {{}} has gone second fewer times ({low.seconds}) than {{}} "
               f"({high.seconds})")  # fmt: skip
        return low.id, Reason("firsts", why, (low.id, high.id))
    return None, Reason("firsts", "{} and {} went first and second equally often: drawn by lot", (a.id, b.id))


def assign_firsts(pairing: Pairing, entrants: Sequence[Entrant], *, rng: random.Random) -> Pairing:
    """The same pairing with each board ordered ``(starter, replier)``, drawing lots on ties."""
    by_id = {e.id: e for e in entrants}
    boards = []
    for a, b in pairing.boards:
        first = starter(by_id[a], by_id[b])
        if first is None:
            first = rng.choice((a, b))
        boards.append((a, b) if first == a else (b, a))
    return Pairing(tuple(boards), pairing.bye)


def _firsts_clash(a: Entrant, b: Entrant) -> int:
    """1 when both are due to start or both due to reply: one of them will be out of turn."""
    return int(a.due != 0 and a.due == b.due)


# -- the matcher ---------------------------------------------------------------

#: A pairing criterion vector for players ``a`` and ``b`` at places ``i < j`` of
#: the list being paired; compared lexicographically, summed over boards.
Cost = Callable[[Entrant, Entrant, int, int], tuple[int, ...]]


def off_ideal(i: int, j: int, *, ideal: int, size: int) -> int:
    """How far places ``i < j`` are from the ideal separation, weighted so that higher boards come first.

    The squared miss is scaled by the number of places from ``i`` down, so the
    nearest available opponent goes to the higher-ranked player, as when
    pairing by hand from the top.
    """
    return (j - i - ideal) ** 2 * (size - i)


def allowed(a: Entrant, b: Entrant, repeats: int | None) -> bool:
    """Two players may meet under a repeat allowance (None: unlimited)."""
    return repeats is None or a.met(b) <= repeats


def match(players: Sequence[Entrant], cost: Cost, *, repeats: int | None) -> list[tuple[Entrant, Entrant]] | None:
    """The pairing of an even list that minimises the summed cost vectors; None if none exists.

    A minimum-cost perfect matching (Edmonds' blossom algorithm, integer
    weights) over the pairs the allowance permits. Cost vectors are packed into
    one integer whose digits are wide enough that no sum of a lower criterion
    can outweigh one unit of a higher one, so the order is strictly lexicographic.
    """
    n = len(players)
    if n % 2:
        raise ValueError("match() needs an even number of players")
    if n == 0:
        return []
    edges = [
        (i, j, cost(players[i], players[j], i, j))
        for i in range(n)
        for j in range(i + 1, n)
        if allowed(players[i], players[j], repeats)
    ]
    if not edges:
        return None
    width = len(edges[0][2])
    multipliers = [1] * width
    for k in range(width - 2, -1, -1):
        top = max(e[2][k + 1] for e in edges)
        multipliers[k] = multipliers[k + 1] * ((n // 2) * top + 1)
    packed = [(i, j, sum(c * m for c, m in zip(vector, multipliers, strict=True))) for i, j, vector in edges]
    matching = max_weight_perfect_matching(n, {(i, j): -p for i, j, p in packed})
    if matching is None:
        return None
    return [(players[i], players[j]) for i, j in matching]


def pairable(players: Sequence[Entrant], repeats: int | None) -> bool:
    """An even list can be paired among itself within the repeat allowance."""
    return match(players, lambda a, b, i, j: (0,), repeats=repeats) is not None


def minimum_repeats(players: Sequence[Entrant]) -> int:
    """The smallest allowance under which an even list can be paired among itself."""
    most = max((a.met(b) for a in players for b in players if a is not b), default=0)
    # Under the largest count every pair is allowed, so the search always ends.
    return next(repeats for repeats in range(most + 1) if pairable(players, repeats))


def bye_order(players: Sequence[Entrant]) -> list[Entrant]:
    """Candidates for the bye, best first: fewest byes, then lowest-ranked."""
    order = list(enumerate(players))
    order.sort(key=lambda item: (item[1].byes, -item[0]))
    return [player for _, player in order]


def active(entrants: Sequence[Entrant]) -> list[Entrant]:
    """The entrants not off, in standings order: those every pairing takes."""
    return [e for e in ranked(entrants) if e.active]


def _with_bye(
    players: list[Entrant], pair_even: Callable[[list[Entrant]], list[tuple[Entrant, Entrant]] | None], what: str
) -> Pairing:
    """Pair ``players`` (ranked), choosing the bye so that the rest can be paired."""
    candidates: list[Entrant | None] = list(bye_order(players)) if len(players) % 2 else [None]
    for bye in candidates:
        pairs = pair_even([p for p in players if p is not bye])
        if pairs is not None:
            return Pairing(tuple((a.id, b.id) for a, b in pairs), bye.id if bye else None)
    raise PairingError(f"{what}: no pairing within the repeat allowance (allow more repeats)")


# -- King of the Hill and factored pairings -----------------------------------


def factored(
    entrants: Sequence[Entrant], factor: int, *, repeats: int | None = 0, track_firsts: bool = True
) -> Pairing:
    """Factored pairings FP(f): 1 v 1+f, 2 v 2+f… in blocks of 2f (f=2: 1v3, 2v4, 5v7, 6v8).

    Where the ideal opponent is not allowed, the nearest one is taken
    (:func:`off_ideal`), avoiding consecutive repeats before anything else and then
    matching starters with repliers and minimising repeats.
    """
    if factor < 1:
        raise PairingError(f"the factor of factored pairings must be at least 1, not {factor}")

    def pair_even(rest: list[Entrant]) -> list[tuple[Entrant, Entrant]] | None:
        def cost(a: Entrant, b: Entrant, i: int, j: int) -> tuple[int, ...]:
            return (
                int(a.consecutive(b)),
                off_ideal(i, j, ideal=factor, size=len(rest)),
                _firsts_clash(a, b) if track_firsts else 0,
                a.met(b),
            )

        return match(rest, cost, repeats=repeats)

    return _with_bye(active(entrants), pair_even, f"FP({factor})")


def koth(entrants: Sequence[Entrant], *, repeats: int | None = 0, track_firsts: bool = True) -> Pairing:
    """King of the Hill: 1 v 2, 3 v 4… (factored pairings with factor 1)."""
    return factored(entrants, 1, repeats=repeats, track_firsts=track_firsts)


@dataclass(frozen=True, slots=True)
class FactoredExplanation:
    """Why a factored pairing (KOTH: factor 1) is what it is: the active players in standings order; per pair the
    higher-ranked player, the opponent, and, when the natural opponent (the first player ``factor`` places or more
    below who is not yet paired, pairing from the top) was not taken, who it was and why; the bye and why."""

    pairing: Pairing
    factor: int
    order: tuple[int, ...]
    pairs: tuple[tuple[int, int, int | None, tuple[Reason, ...]], ...]
    bye: tuple[int, tuple[Reason, ...]] | None

    def lines(self, name: Callable[[int], str] = str) -> tuple[str, ...]:
        """The explanation as text, players written by ``name``."""
        rule = "neighbours" if self.factor == 1 else f"{self.factor} places apart, in blocks of {2 * self.factor}"
        out = [f"standings order: {', '.join(map(name, self.order))}; pairs from the top, {rule}"]
        for high, low, natural, why in self.pairs:
            line = f"pair {name(high)} - {name(low)}"
            if natural is not None:
                line += f", not {name(high)} - {name(natural)} [{'; '.join(r.say(name) for r in why)}]"
            out.append(line)
        if self.bye is not None:
            out.append(f"bye: {name(self.bye[0])} [{'; '.join(r.say(name) for r in self.bye[1])}]")
        return tuple(out)


def explain_factored(
    entrants: Sequence[Entrant], factor: int, *, repeats: int | None = 0, track_firsts: bool = True
) -> FactoredExplanation:
    """Pair as :func:`factored` does (KOTH with ``factor`` 1), and say why, read back from the pairing."""
    pairing = factored(entrants, factor, repeats=repeats, track_firsts=track_firsts)
    order = active(entrants)
    bye: tuple[int, tuple[Reason, ...]] | None = None
    if pairing.bye is not None:
        candidates = bye_order(order)
        chosen = next(i for i, e in enumerate(candidates) if e.id == pairing.bye)
        least = candidates[chosen]
        told = [Reason("bye", f"{{}} has the fewest byes ({least.byes}) and ranks lowest among them", (least.id,))]
        if chosen:
            skipped = tuple(e.id for e in candidates[:chosen])
            told = [Reason("bye", "without " + ", ".join(["{}"] * len(skipped)) + " the rest could not be paired "
                          "within the repeat allowance", skipped),
                   Reason("bye", f"then {{}}: {least.byes} bye(s), the lowest-ranked left", (least.id,))]  # fmt: skip
        bye = (least.id, tuple(told))
    rest = [e for e in order if e.id != pairing.bye]
    place = {e.id: i for i, e in enumerate(rest)}
    mate = {a: b for board in pairing.boards for a, b in (board, board[::-1])}
    claimed: set[int] = set()
    pairs: list[tuple[int, int, int | None, tuple[Reason, ...]]] = []
    for a in rest:
        if a.id in claimed:
            continue
        b = rest[place[mate[a.id]]]
        below = [x for x in rest[place[a.id] + 1 :] if x.id not in claimed]
        natural = next((x for x in below if place[x.id] >= place[a.id] + factor), below[0])
        claimed.update((a.id, b.id))
        if natural is b:
            pairs.append((a.id, b.id, None, ()))
            continue
        why: list[Reason] = []
        other = rest[place[mate[natural.id]]]  # whom the natural opponent plays instead
        if not allowed(a, natural, repeats):
            why.append(Reason("repeats", f"{{}} and {{}} have met {a.met(natural)} time(s); the allowance is "
                              f"{repeats}", (a.id, natural.id)))  # fmt: skip
        elif other is not a and not allowed(b, other, repeats):
            why.append(Reason("repeats", f"with {{}} - {{}}, {{}} and {{}} would meet again (met {b.met(other)} "
                              f"time(s); the allowance is {repeats})", (a.id, natural.id, b.id, other.id)))  # fmt: skip
        elif a.consecutive(natural) and not a.consecutive(b):
            why.append(Reason("consecutive repeat", "{} and {} met in the last round", (a.id, natural.id)))
        elif other is not a and b.consecutive(other):
            why.append(Reason("consecutive repeat", "with {} - {}, {} and {} would meet again straight away",
                              (a.id, natural.id, b.id, other.id)))  # fmt: skip
        elif track_firsts and _firsts_clash(a, natural) and not _firsts_clash(a, b):
            due = "start" if a.due > 0 else "reply"
            why.append(Reason("firsts", "{} and {} are both due to " + due, (a.id, natural.id)))
        else:
            why.append(Reason("nearest", "the rest of the field is paired nearer to its ideal opponents this way "
                              "(higher boards first)", ()))  # fmt: skip
        pairs.append((a.id, b.id, natural.id, tuple(why)))
    return FactoredExplanation(pairing, factor, tuple(e.id for e in order), tuple(pairs), bye)


def random_pairing(entrants: Sequence[Entrant], *, rng: random.Random, repeats: int | None = 0) -> Pairing:
    """Random pairings (round 1): the field shuffled by ``rng``, then neighbours paired."""

    def shuffled(rest: list[Entrant]) -> list[tuple[Entrant, Entrant]] | None:
        order = list(rest)
        rng.shuffle(order)
        return match(
            order,
            lambda a, b, i, j: (int(a.consecutive(b)), off_ideal(i, j, ideal=1, size=len(order)), a.met(b)),
            repeats=repeats,
        )

    return _with_bye(active(entrants), shuffled, "random pairing")


# -- tsh Swiss -------------------------------------------------------------------


def pair_win_groups(
    players: Sequence[Entrant], *, repeats: int | None, track_firsts: bool = True
) -> list[tuple[Entrant, Entrant]] | None:
    """Swiss-pair an even ranked list: each win group's top half against its bottom half.

    Within a group the criteria are, in order: fewest repeats, no consecutive
    repeat, starters against repliers, and opponents as near as possible to
    half the group apart. An odd group takes the top player of the next group;
    a group that cannot be paired takes two more; when the bottom cannot be
    paired it merges with the group above. None when the whole list cannot be
    paired as one group. A group that can only be paired with a consecutive
    repeat is treated as unpairable while other players could still join it.
    """

    def pair_group(group: list[Entrant]) -> list[tuple[Entrant, Entrant]] | None:
        half = len(group) // 2
        return match(
            group,
            lambda a, b, i, j: (
                a.met(b),
                int(a.consecutive(b)),
                _firsts_clash(a, b) if track_firsts else 0,
                off_ideal(i, j, ideal=half, size=len(group)),
            ),
            repeats=repeats,
        )

    done: list[tuple[list[Entrant], list[tuple[Entrant, Entrant]]]] = []
    group: list[Entrant] = []
    rest = list(players)
    while rest or group:
        if not group:
            wins = rest[0].wins
            while rest and rest[0].wins == wins:
                group.append(rest.pop(0))
            if len(group) % 2:
                group.append(rest.pop(0))  # an even list leaves someone below an odd group
        pairs = pair_group(group)
        # A consecutive repeat is accepted only when the whole list left cannot avoid it.
        if pairs is not None and (not (rest or done) or not any(a.consecutive(b) for a, b in pairs)):
            done.append((group, pairs))
            group = []
        elif rest:
            group.extend(rest[:2])
            del rest[:2]
        elif done:
            group = done.pop()[0] + group
        else:
            return None
    return [pair for _, pairs in done for pair in pairs]


def tsh_swiss(entrants: Sequence[Entrant], *, repeats: int | None = 0, track_firsts: bool = True) -> Pairing:
    """tsh's Swiss ("NewSwiss"): win groups, top half against bottom half, within the repeat allowance."""
    return _with_bye(
        active(entrants), lambda rest: pair_win_groups(rest, repeats=repeats, track_firsts=track_firsts), "Swiss"
    )
