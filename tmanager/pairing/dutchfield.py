"""The players of one FIDE Dutch round as its criteria see them (C.04.3).

:class:`Entrant` holds what the criteria look at for one player: the pairing
score, colour preference and its strength, floats, whether the
pairing-allocated bye is still open to the player. :class:`DutchField` holds
the round's entrants in the order the pairing takes them (score, then rank),
whom each may not meet, and answers the absolute criteria; :func:`colour_fields`
says which colour criteria a pair satisfies. The pairing (:mod:`.dutch`), its
edge weights (:mod:`.dutchweights`), the colour allocation (:mod:`.dutchcolours`)
and ``--explain`` (:mod:`.dutchexplain`) all read the round from here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from tmanager.core.results import Colour, TrfResult
from tmanager.core.scoring import Game, PointsSystem
from tmanager.errors import PairingError
from tmanager.pairing.model import BLACK, WHITE, PlayerState


class Float(enum.StrEnum):
    """Which way a player floated in an earlier round: down to a lower score, or up to a higher one."""

    DOWN = "D"
    UP = "U"


@dataclass(slots=True)
class Entrant:
    """A player to pair, with the quantities the criteria look at."""

    id: int
    rank: int
    score: int
    games: tuple[Game, ...]
    played_games: int
    pref: Colour | None
    imbalance: int
    repeated: Colour | None
    strong: bool
    bye_eligible: bool
    floats: tuple[Float | None, Float | None]

    @property
    def abs_imbalance(self) -> bool:
        return self.imbalance > 1

    @property
    def abs_pref(self) -> bool:
        return self.imbalance > 1 or self.repeated is not None


def colour_state(games: Sequence[Game]) -> tuple[Colour | None, int, Colour | None, bool, int]:
    """Colour preference, imbalance, repeated colour (two or more in a row), strength, games played."""
    whites = blacks = run = 0
    last: Colour | None = None
    for game in games:
        if not game.played:
            continue
        if game.colour == WHITE:
            whites += 1
        else:
            blacks += 1
        run = 1 if run == 0 or game.colour != last else run + 1
        last = game.colour
    lower = BLACK if whites > blacks else WHITE
    imbalance = abs(whites - blacks)
    pref: Colour | None
    if imbalance > 1:
        pref = lower
    elif run > 1:
        pref = last.other if last else None
    elif imbalance > 0:
        pref = lower
    else:
        pref = last.other if last else None
    repeated = last if run > 1 else None
    strong = not (imbalance > 1 or repeated is not None) and imbalance > 0
    return pref, imbalance, repeated, strong, whites + blacks


def compatible_prefs(a: Colour | None, b: Colour | None) -> bool:
    """Whether two colour preferences can both be granted."""
    return a != b or a is None or b is None


def colour_fields(p: Entrant, o: Entrant) -> tuple[bool, bool, bool, bool]:
    """Absolute imbalance, absolute preference, preference, strong preference satisfied."""
    same = p.pref == o.pref
    absolute_imbalance = not (p.abs_imbalance and o.abs_imbalance and same)
    if not (p.abs_pref and o.abs_pref and same):
        absolute = True
    elif p.imbalance == o.imbalance:
        absolute = p.repeated is None or p.repeated != o.repeated
    else:
        worse = o if p.imbalance > o.imbalance else p
        absolute = p.pref is not None and worse.repeated != p.pref.other
    strong = (
        (not p.strong and not p.abs_pref)
        or (not o.strong and not o.abs_pref)
        or (p.abs_pref and o.abs_pref)
        or not same
    )
    return absolute_imbalance, absolute, compatible_prefs(p.pref, o.pref), strong


def _forbidden_opponents(entrants: Sequence[Entrant], forbidden: Iterable[Collection[int]]) -> dict[int, set[int]]:
    """Whom each entrant may not meet: the opponents of its games played, and the other members of each group of
    ``forbidden``."""
    barred: dict[int, set[int]] = {e.id: set() for e in entrants}
    for e in entrants:
        for g in e.games:
            if g.played and g.opponent is not None:
                barred[e.id].add(g.opponent)
    for group in forbidden:
        for a in group:
            if a in barred:
                barred[a].update(b for b in group if b != a)
    return barred


def _floats(
    pid: int,
    games: Sequence[Game],
    *,
    played_rounds: int,
    points: PointsSystem,
    score_before: Callable[[int, int], int],
) -> tuple[Float | None, Float | None]:
    """Which way the player floated in the previous round and in the round before it."""

    def direction(rounds_back: int) -> Float | None:
        if played_rounds < rounds_back:
            return None
        game = games[played_rounds - rounds_back]
        if not game.played:
            return Float.DOWN if points.points(game) > points.loss else None
        assert game.opponent is not None
        mine, theirs = score_before(pid, rounds_back), score_before(game.opponent, rounds_back)
        return Float.DOWN if mine > theirs else Float.UP if mine < theirs else None

    return direction(1), direction(2)


@dataclass(frozen=True, slots=True)
class DutchField:
    """One round's entrants by score, then rank (``entrants[i]`` is the pairing's vertex ``i``), whom each may
    not meet, and what the absolute criteria ask of the round."""

    entrants: tuple[Entrant, ...]
    forbidden: dict[int, set[int]]
    played_rounds: int
    total_rounds: int
    #: The score a topscorer exceeds: half the points of a win (or a draw, if more) in every round played.
    top_threshold: int
    initial_colour: Colour

    @classmethod
    def of(
        cls,
        players: Sequence[PlayerState],
        *,
        round_number: int,
        total_rounds: int,
        forbidden: Iterable[Collection[int]],
        points: PointsSystem,
        initial_colour: Colour,
    ) -> DutchField:
        """The field of round ``round_number``: every player without an entry for it yet (see
        :func:`~tmanager.pairing.dutch.pair_round`)."""
        pr = round_number - 1
        by_id = {p.id: p for p in players}
        if len(by_id) != len(players):
            raise PairingError("two players share a pairing number")

        def padded(p: PlayerState) -> tuple[Game, ...]:
            games = p.games[:pr]
            return games + (Game(None, None, TrfResult.ZERO_BYE),) * (pr - len(games))

        valid = [p for p in players if len(p.games) <= pr or any(g.paired for g in p.games)]
        valid.sort(key=lambda p: (p.rank if p.rank is not None else p.id, p.id))
        rank_of = {p.id: i for i, p in enumerate(valid)}

        def score_before(pid: int, rounds_back: int) -> int:
            """The pairing score of the round ``rounds_back`` rounds before this one (virtual points included)."""
            if pid not in by_id:
                return 0
            player = by_id[pid]
            return player.score(points, pr - rounds_back) + player.virtual(pr - rounds_back + 1)

        entrants = []
        for p in players:
            if len(p.games) > pr:
                continue
            games = padded(p)
            pref, imbalance, repeated, strong, played = colour_state(games)
            entrants.append(
                Entrant(
                    id=p.id,
                    rank=rank_of[p.id],
                    score=sum(points.points(g) for g in games) + p.virtual(round_number),
                    games=games,
                    played_games=played,
                    pref=pref,
                    imbalance=imbalance,
                    repeated=repeated,
                    strong=strong,
                    bye_eligible=not any(
                        not g.played and (points.points(g) >= points.win or g.pairing_allocated_bye) for g in games
                    ),
                    floats=_floats(p.id, games, played_rounds=pr, points=points, score_before=score_before),
                )
            )
        entrants.sort(key=lambda e: (-e.score, e.rank))
        return cls(
            entrants=tuple(entrants),
            forbidden=_forbidden_opponents(entrants, forbidden),
            played_rounds=pr,
            total_rounds=total_rounds,
            top_threshold=(pr * max(points.win, points.draw)) >> 1,
            initial_colour=initial_colour,
        )

    def compatible(self, a: Entrant, b: Entrant) -> bool:
        """The absolute criteria: no rematch or forbidden pair, no clash of absolute colours."""
        if b.id in self.forbidden[a.id]:
            return False
        if not (a.abs_pref and b.abs_pref and a.pref == b.pref):
            return True
        # Topscorers in the last round may break an absolute colour preference.
        return self.played_rounds >= self.total_rounds - 1 and (
            a.score > self.top_threshold or b.score > self.top_threshold
        )
