"""The FIDE Dutch system (handbook C.04.3, rules in force from February 2026), with accelerated pairings.

The pairing is computed as bbpPairings does it: a maximum-weight matching over
all players still to pair, whose integer edge weights spell the criteria as bit
fields in FIDE's order of priority (completion and the bye first, then the pairs
and scores paired in the current and next bracket, colours, floats…). Brackets
are settled from the top: each one is matched with its own fields switched on,
and its pairs are fixed before the next bracket is looked at, so every decision
also keeps the rest of the round pairable.

Accelerated pairings (C.04.5: Baku, or any acceleration TRF ``250`` records
describe) give players virtual points: every score the rules look at (the
brackets, floats, the bye's score group, topscorers) is the pairing score, the
points plus the virtual points of that round, as bbpPairings counts them.

Where the rules choose among equally good pairings by the order of the players
(which moved-down players to pair and with whom, the exchanges in S1 and S2, the
transpositions), the choice is lexicographic; it is encoded as further low-order
fields, one slot per player, so a bracket needs two matchings, not one per
player.

:func:`explain_round` pairs the same way and then says why, in C.04.3's terms
(:class:`~tmanager.pairing.dutchexplain.DutchExplanation`): it reads the
finished pairing back bracket by bracket, so :func:`pair_round` never pays for
it.

This module drives the round: the brackets from the top, each matched and
settled. The players as the criteria see them are in :mod:`.dutchfield`, the
criteria as edge weights in :mod:`.dutchweights`, the colours in
:mod:`.dutchcolours` and the explanation in :mod:`.dutchexplain`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from tmanager.core.results import Colour
from tmanager.core.scoring import STANDARD, PointsSystem
from tmanager.errors import PairingError
from tmanager.pairing.dutchcolours import allocate
from tmanager.pairing.dutchexplain import DutchExplanation, explain
from tmanager.pairing.dutchfield import DutchField
from tmanager.pairing.dutchweights import EdgeWeights, remainder_fields
from tmanager.pairing.matching import Matcher, NoPerfectMatching, max_weight_matching
from tmanager.pairing.model import WHITE, Pairing, PlayerState


class _DutchRound:
    """One round's pairing; see the module docstring. Vertex ``i`` of the matching is ``field.entrants[i]``."""

    def __init__(self, field: DutchField) -> None:
        self.field = field
        self.players = field.entrants
        self.criteria = EdgeWeights(field)
        n = len(self.players)
        self.weights: list[list[int]] = [[0] * i for i in range(n)]
        # What the matcher saw last, to tell it which vertices' edges changed.
        self.last_weights: list[list[int]] = [[0] * i for i in range(n)]
        self.last_low: dict[tuple[int, int], int] = {}
        self.low_shift = 0
        self.matcher = Matcher(n + 1)

    def _match(self, active: Sequence[int], low: dict[tuple[int, int], int], low_bits: int) -> list[int]:
        """A maximum-weight matching of the active vertices; ``mate[v] == v`` when unmatched.

        The warm-started matcher needs a perfect matching: an odd field gets a
        dummy vertex joined to everybody by weight 0, which takes the bye. The
        low-order fields may sit higher than ``low_bits`` asks (the shift only
        grows, so the matcher can rescale its duals): the order is the same.
        """
        n = len(self.players)
        weights = self.weights
        grow = max(0, low_bits - self.low_shift)
        shift = self.low_shift = self.low_shift + grow
        changed = {b for b in active if weights[b] != self.last_weights[b]}
        changed.update(a for (a, b), x in low.items() if self.last_low.get((a, b)) != x)
        changed.update(a for (a, b), x in self.last_low.items() if low.get((a, b)) != x)
        self.last_weights = [row[:] for row in weights]
        self.last_low = dict(low)
        size = n + 1
        matrix: list[list[int | None]] = [[None] * size for _ in range(size)]
        for j, b in enumerate(active):
            row, out = weights[b], matrix[b]
            for a in active[:j]:
                if row[a]:
                    out[a] = matrix[a][b] = ((row[a] << shift) + low.get((a, b), 0)) << 1
        vertices = list(active)
        if len(active) % 2:
            vertices.append(n)
            for v in active:
                matrix[n][v] = matrix[v][n] = 0
        mate = list(range(n))
        try:
            found = self.matcher.solve(vertices, matrix, changed=changed, grow=grow)
        except NoPerfectMatching:
            # No perfect matching: some player beyond the bye stays unpaired.
            edges = {
                (i, j): weight for j, b in enumerate(active) for i, a in enumerate(active[:j])
                if (weight := matrix[a][b]) is not None
            }  # fmt: skip
            for i, j in max_weight_matching(len(active), edges):
                mate[active[i]], mate[active[j]] = active[j], active[i]
            return mate
        for v in active:
            if found[v] != n:
                mate[v] = found[v]
        return mate

    def _set_all(self, current: bool) -> None:
        ps = self.players
        for b in range(len(ps)):
            row = self.weights[b]
            for a in range(b):
                row[a] = self.criteria.edge(ps[a], ps[b], current=current, following=False)

    def _initial(self) -> None:
        """Check that a pairing exists; find the bye assignee's score group (C5/C9)."""
        ps = self.players
        n = len(ps)
        if n % 2:
            for b in range(n):
                for a in range(b):
                    self.weights[b][a] = self.criteria.completion(ps[a], ps[b])
        else:
            # An even field needs no bye: an impossible pairing shows at the end.
            self._set_all(False)
            return
        mate = self._match(list(range(n)), {}, 0)
        unmatched = [v for v in range(n) if mate[v] == v]
        if len(unmatched) > 1 or (unmatched and not ps[unmatched[0]].bye_eligible):
            raise PairingError("no pairing satisfies the absolute criteria")
        criteria = self.criteria
        criteria.bye_score = ps[unmatched[0]].score
        top = ps[0].score
        criteria.single_downfloater_bye = criteria.bye_score >= top and all(
            ps[mate[v]].score >= top for v in range(n) if ps[v].score >= top
        )
        played = sorted((e.played_games for e in ps if e.score == criteria.bye_score), reverse=True)
        criteria.unplayed_rank = {g: i for i, g in enumerate(played)}
        self._set_all(False)

    def _group_end(self, start: int) -> int:
        """The vertex after the score group that begins at ``start``."""
        ps = self.players
        end = start
        while end < len(ps) and ps[end].score >= ps[start].score:
            end += 1
        return end

    def pair(self) -> Pairing:
        ps = self.players
        n = len(ps)
        if n == 0:
            return Pairing(())
        self._initial()
        mate_of: dict[int, int] = {}
        active = list(range(n))
        nxt = self._group_end(0)
        bracket = list(range(nxt))
        movers = 0  # moved-down players at the head of ``bracket``
        first = 0  # first vertex of the current score group
        while len(bracket) > 1 or nxt < n:
            end = len(bracket)
            group_end = first + end - movers
            group_start = nxt
            if nxt < n:
                nxt = self._group_end(nxt)
                bracket.extend(range(group_start, nxt))
            mate, active, paired = self._pair_bracket(
                bracket, movers=movers, end=end, first=first, group_end=group_end, active=active, mate_of=mate_of
            )
            floaters = [v for v in bracket[movers:end] if v not in paired]
            for j, b in enumerate(floaters):
                for a in floaters[:j]:
                    self.weights[b][a] = 0
            new_bracket = [v for v in bracket[:end] if v not in paired]
            movers = len(new_bracket)
            bracket = new_bracket + bracket[end:]
            first = group_end
            if group_start == n and len(bracket) > 1:
                raise PairingError("no pairing satisfies the absolute criteria")
            if n % 2 and group_start < n:
                s = ps[group_start].score
                self.criteria.single_downfloater_bye = self.criteria.bye_score >= s and all(
                    ps[mate[v]].score >= s for v in bracket
                )
            else:
                self.criteria.single_downfloater_bye = False
        return self._result(mate_of, ps[bracket[0]].id if bracket else None)

    def _pair_bracket(
        self,
        bracket: list[int],
        *,
        movers: int,
        end: int,
        first: int,
        group_end: int,
        active: list[int],
        mate_of: dict[int, int],
    ) -> tuple[list[int], list[int], set[int]]:
        """Pair the bracket ``bracket[:end]`` (its ``movers`` moved-down players first; the next score group
        follows), whose score group spans the vertices ``first`` to ``group_end``, and put its pairs in
        ``mate_of``. The matching's mates, the vertices still ``active``, and those the bracket paired."""
        ps, weights = self.players, self.weights
        for j in range(movers, len(bracket)):
            b = bracket[j]
            for i in range(j):
                a = bracket[i]
                weights[b][a] = self.criteria.edge(ps[a], ps[b], current=j < end, following=j >= end)

        # Phase 1: which moved-down players to pair, and with whom (lexicographic).
        low: dict[tuple[int, int], int] = {}
        residents = end - movers
        slot = residents.bit_length()
        for i in range(movers):
            a = bracket[i]
            select = 1 << (movers - 1 - i + movers * slot)
            for j in range(movers, end):
                b = bracket[j]
                if weights[b][a]:
                    low[a, b] = select + ((end - j) << ((movers - 1 - i) * slot))
        paired: set[int] = set()
        settled = False
        if not movers and residents > 1:
            # A homogeneous bracket: guess that it pairs completely, which
            # makes the remainder fields valid at once; check the guess.
            mate = self._match(active, *remainder_fields(bracket[:end], residents // 2, weights))
            settled = sum(1 for v in bracket[:end] if first <= mate[v] < v) == residents // 2
            if not settled:
                mate = self._match(active, {}, 0)
        else:
            mate = self._match(active, low, movers * (slot + 1))
        for i in range(movers):
            a = bracket[i]
            if first <= mate[a] < group_end:
                paired.update((a, mate[a]))
                mate_of[a], mate_of[mate[a]] = mate[a], a
        remainder = [v for v in bracket[movers:end] if v not in paired]
        pairs = sum(1 for v in remainder if first <= mate[v] < v)

        # Phase 2: the remainder, by exchanges and transpositions.
        active = [v for v in active if v not in paired]
        if pairs:
            if not settled:
                mate = self._match(active, *remainder_fields(remainder, pairs, weights))
            for v in remainder:
                if v < mate[v] < group_end:
                    paired.update((v, mate[v]))
                    mate_of[v], mate_of[mate[v]] = mate[v], v
            active = [v for v in active if v not in paired]
        return mate, active, paired

    def _result(self, mate_of: dict[int, int], bye: int | None) -> Pairing:
        ps = self.players
        boards = []
        for v, m in mate_of.items():
            if v < m:
                p, o = ps[v], ps[m]
                if p.id > o.id:
                    p, o = o, p
                colour, _ = allocate(p, o, initial_colour=self.field.initial_colour)  # article 5.2
                boards.append((p.id, o.id) if colour == WHITE else (o.id, p.id))
        by_id = {e.id: e for e in ps}

        def order(board: tuple[int, int]) -> tuple[int, int, int]:
            a, b = by_id[board[0]], by_id[board[1]]
            high, low = (a, b) if (a.score, -a.rank) > (b.score, -b.rank) else (b, a)
            return (-high.score, -low.score, high.rank)

        boards.sort(key=order)
        return Pairing(tuple(boards), bye)


def pair_round(
    players: Sequence[PlayerState],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[Collection[int]] = (),
    points: PointsSystem = STANDARD,
    initial_colour: Colour = WHITE,
) -> Pairing:
    """Pair round ``round_number`` by the FIDE Dutch system.

    ``players`` are all players of the tournament; those who already have an
    entry for this round (a requested bye, an absence) are left out. Each set in
    ``forbidden`` names players who must not meet. ``initial_colour`` is the
    colour of the top-ranked player in round 1 (TRF ``XXC``). Raises
    :class:`~tmanager.errors.PairingError` when no pairing satisfies the
    absolute criteria.
    """
    field = DutchField.of(players, round_number=round_number, total_rounds=total_rounds, forbidden=forbidden,
                          points=points, initial_colour=initial_colour)  # fmt: skip
    return _DutchRound(field).pair()


def explain_round(
    players: Sequence[PlayerState],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[Collection[int]] = (),
    points: PointsSystem = STANDARD,
    initial_colour: Colour = WHITE,
) -> DutchExplanation:
    """Pair round ``round_number`` exactly as :func:`pair_round` does (same arguments), and say why.

    The explanation costs a pass over the finished pairing; :func:`pair_round`
    itself never computes it.
    """
    field = DutchField.of(players, round_number=round_number, total_rounds=total_rounds, forbidden=forbidden,
                          points=points, initial_colour=initial_colour)  # fmt: skip
    return explain(field, _DutchRound(field).pair(), accelerated=any(p.virtual(round_number) for p in players))
