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
(:class:`DutchExplanation`): it reads the finished pairing back bracket by
bracket, so :func:`pair_round` never pays for it. What it does not know is the
matching's own weighing of whole brackets; where comparing a pair with the
natural one does not tell, it says so.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from tmanager.core.results import Colour, format_points
from tmanager.core.scoring import STANDARD, Game, PointsSystem
from tmanager.errors import PairingError
from tmanager.pairing.matching import Matcher, NoPerfectMatching, max_weight_matching
from tmanager.pairing.model import BLACK, WHITE, Pairing, PlayerState, Reason, invert

_DOWN = "D"
_UP = "U"


class PairOrigin(enum.StrEnum):
    """Where a pair of a bracket comes from in the rules' sequence of candidates."""

    NATURAL = "S1-S2 in natural order"
    TRANSPOSITION = "a transposition in S2"
    EXCHANGE = "an exchange between S1 and S2"
    MOVED_DOWN = "a moved-down player with a resident"


@dataclass(frozen=True, slots=True)
class PairExplanation:
    """A pair of a bracket: ``high`` is the higher-ranked player; ``instead_of`` the opponent the natural order gave
    ``high`` when another was chosen, and ``reasons`` why."""

    high: int
    low: int
    origin: PairOrigin
    instead_of: int | None = None
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True, slots=True)
class BracketExplanation:
    """One bracket: its (pairing) score, its residents and moved-down players (MDPs) in rank order, the S1 and S2
    of the remainder the residents paired among themselves, its pairs, and who floated down from it and why."""

    score: int
    residents: tuple[int, ...]
    moved_down: tuple[int, ...]
    s1: tuple[int, ...]
    s2: tuple[int, ...]
    pairs: tuple[PairExplanation, ...]
    downfloaters: tuple[tuple[int, tuple[Reason, ...]], ...]


@dataclass(frozen=True, slots=True)
class DutchExplanation:
    """Why a Dutch round is paired as it is: the brackets from the top, the pairing-allocated bye, and the colours
    of each board (in ``pairing.boards`` order). ``accelerated``: the scores are pairing scores (virtual points
    included)."""

    pairing: Pairing
    brackets: tuple[BracketExplanation, ...]
    bye: tuple[int, tuple[Reason, ...]] | None
    colours: tuple[Reason, ...]
    accelerated: bool = False

    def lines(self, name: Callable[[int], str] = str) -> tuple[str, ...]:
        """The explanation as text, players written by ``name``."""

        def names(ids: Iterable[int]) -> str:
            return ", ".join(map(name, ids)) or "none"

        def reasons(why: Iterable[Reason]) -> str:
            return "; ".join(r.say(name) for r in why)

        kind = "pairing score" if self.accelerated else "score"
        out = []
        for b in self.brackets:
            head = f"bracket {kind} {format_points(b.score)}: residents {names(b.residents)}"
            out.append(head + (f"; moved down into it: {names(b.moved_down)}" if b.moved_down else ""))
            if b.s1:
                out.append(f"  remainder S1 {names(b.s1)}; S2 {names(b.s2)}")
            for pair in b.pairs:
                line = f"  pair {name(pair.high)} - {name(pair.low)}: {pair.origin}"
                if pair.instead_of is not None:
                    line += f", not {name(pair.high)} - {name(pair.instead_of)}"
                out.append(line + (f" [{reasons(pair.reasons)}]" if pair.reasons else ""))
            for player, floated in b.downfloaters:
                out.append(f"  {name(player)} floats down [{reasons(floated)}]")
        if self.bye is not None:
            out.append(f"pairing-allocated bye: {name(self.bye[0])} [{reasons(self.bye[1])}]")
        for board, ((white, black), why) in enumerate(zip(self.pairing.boards, self.colours, strict=True), 1):
            out.append(f"board {board}: {name(white)} white, {name(black)} black [{why.say(name)}]")
        return tuple(out)


@dataclass(slots=True)
class _Entrant:
    """A player to pair, with the quantities the criteria look at."""

    id: int
    rank: int
    score: int
    games: tuple[Game, ...]
    played_games: int
    pref: str | None
    imbalance: int
    repeated: str | None
    strong: bool
    bye_eligible: bool
    floats: tuple[str | None, str | None]

    @property
    def abs_imbalance(self) -> bool:
        return self.imbalance > 1

    @property
    def abs_pref(self) -> bool:
        return self.imbalance > 1 or self.repeated is not None


def _colour_state(games: Sequence[Game]) -> tuple[str | None, int, str | None, bool, int]:
    """Colour preference, imbalance, repeated colour (two or more in a row), strength, games played."""
    whites = blacks = run = 0
    last: str | None = None
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
    pref: str | None
    if imbalance > 1:
        pref = lower
    elif run > 1:
        pref = invert(last) if last else None
    elif imbalance > 0:
        pref = lower
    else:
        pref = invert(last) if last else None
    repeated = last if run > 1 else None
    strong = not (imbalance > 1 or repeated is not None) and imbalance > 0
    return pref, imbalance, repeated, strong, whites + blacks


def _compatible_prefs(a: str | None, b: str | None) -> bool:
    return a != b or a is None or b is None


def _forbidden_opponents(entrants: Sequence[_Entrant], forbidden: Iterable[Collection[int]]) -> dict[int, set[int]]:
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


def _score_group_widths(entrants: Sequence[_Entrant]) -> tuple[dict[int, int], int, int]:
    """Score-group bit widths: each group gets enough bits to count its members, lower scores in the lower bits.
    The shift of each score's field, the width of all the fields, and the bits of the largest group."""
    counts: dict[int, int] = {}
    for e in entrants:
        counts[e.score] = counts.get(e.score, 0) + 1
    shift: dict[int, int] = {}
    total = 0
    for score in sorted(counts):
        shift[score] = total
        total += counts[score].bit_length()
    return shift, total, max(counts.values(), default=1).bit_length()


class _DutchRound:
    """One round's pairing; see the module docstring."""

    def __init__(
        self,
        players: Sequence[PlayerState],
        round_number: int,
        total_rounds: int,
        forbidden: Iterable[Collection[int]],
        points: PointsSystem,
        initial_colour: str,
    ) -> None:
        self.points = points
        self.played_rounds = pr = round_number - 1
        self.total_rounds = total_rounds
        self.initial_colour = initial_colour
        by_id = {p.id: p for p in players}
        if len(by_id) != len(players):
            raise PairingError("two players share a pairing number")
        # The points of a win or a draw, for the topscorer threshold.
        self.top_threshold = (pr * max(points.win, points.draw)) >> 1

        def padded(p: PlayerState) -> tuple[Game, ...]:
            games = p.games[:pr]
            return games + (Game(None, None, "Z"),) * (pr - len(games))

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
            pref, imbalance, repeated, strong, played = _colour_state(games)
            floats = tuple(self._float(p.id, games, k, score_before) for k in (1, 2))
            entrants.append(
                _Entrant(
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
                        not g.played and (points.points(g) >= points.win or g.pairing_allocated_bye)
                        for g in games
                    ),
                    floats=(floats[0], floats[1]),
                )
            )
        entrants.sort(key=lambda e: (-e.score, e.rank))
        self.players = entrants
        self.forbidden = _forbidden_opponents(entrants, forbidden)
        self.shift, self.sg_shift, self.sg_bits = _score_group_widths(entrants)
        self.bye_score = 0
        self.single_downfloater_bye = False
        self.unplayed_rank: dict[int, int] = {}
        n = len(entrants)
        self.weights: list[list[int]] = [[0] * i for i in range(n)]
        # What the matcher saw last, to tell it which vertices' edges changed.
        self.last_weights: list[list[int]] = [[0] * i for i in range(n)]
        self.last_low: dict[tuple[int, int], int] = {}
        self.low_shift = 0
        self.matcher = Matcher(n + 1)

    def _float(
        self, pid: int, games: Sequence[Game], rounds_back: int, score_before: Callable[[int, int], int]
    ) -> str | None:
        """Float direction in the round ``rounds_back`` rounds ago."""
        if self.played_rounds < rounds_back:
            return None
        game = games[self.played_rounds - rounds_back]
        if not game.played:
            return _DOWN if self.points.points(game) > self.points.loss else None
        assert game.opponent is not None
        mine, theirs = score_before(pid, rounds_back), score_before(game.opponent, rounds_back)
        return _DOWN if mine > theirs else _UP if mine < theirs else None

    # -- criteria ---------------------------------------------------------------

    def _compatible(self, a: _Entrant, b: _Entrant) -> bool:
        """The absolute criteria: no rematch or forbidden pair, no clash of absolute colours."""
        if b.id in self.forbidden[a.id]:
            return False
        if not (a.abs_pref and b.abs_pref and a.pref == b.pref):
            return True
        # Topscorers in the last round may break an absolute colour preference.
        return self.played_rounds >= self.total_rounds - 1 and (
            a.score > self.top_threshold or b.score > self.top_threshold
        )

    def _bye_candidate(self, e: _Entrant) -> bool:
        return e.bye_eligible and e.score <= self.bye_score

    def _base_weight(self, high: _Entrant, low: _Entrant, current: bool, following: bool) -> int:
        """The criteria fields of one edge; ``low`` is the lower-ranked player (0: no edge)."""
        if not self._compatible(high, low):
            return 0
        sb, ss, shift = self.sg_bits, self.sg_shift, self.shift
        w = 1 + (not self._bye_candidate(high)) + (not self._bye_candidate(low))
        # Pairs, then scores, paired in the current bracket and in the next.
        w = (w << sb) + current
        w = (w << ss) + ((1 << shift[high.score]) if current else 0)
        w = (w << sb) + following
        w = (w << ss) + ((1 << shift[high.score]) if following else 0)
        # The bye assignee should have played as many games as possible (C9).
        w <<= 2 * sb
        if self.single_downfloater_bye:
            for e in (high, low):
                if e.score == self.bye_score:
                    w += self.unplayed_rank[e.played_games]
        for bit in self._colour_fields(low, high):
            w = (w << sb) + (current and bit)
        for back in (1, 2)[: self.played_rounds]:
            fh, fl = high.floats[back - 1], low.floats[back - 1]
            w <<= sb
            if current:
                w += (fl == _DOWN) + (high.score <= low.score and fh == _DOWN)
            w = (w << sb) + (current and not (high.score > low.score and fl == _UP))
        for back in (1, 2)[: self.played_rounds]:
            fh, fl = high.floats[back - 1], low.floats[back - 1]
            w <<= ss
            if current:
                w += ((fl == _DOWN) << shift[low.score]) + ((fh == _DOWN) << shift[high.score])
            w <<= ss
            if current and not (fl == _UP and high.score > low.score):
                w += 1 << shift[high.score]
        return w

    @staticmethod
    def _colour_fields(p: _Entrant, o: _Entrant) -> tuple[bool, bool, bool, bool]:
        """Absolute imbalance, absolute preference, preference, strong preference satisfied."""
        same = p.pref == o.pref
        absolute_imbalance = not (p.abs_imbalance and o.abs_imbalance and same)
        if not (p.abs_pref and o.abs_pref and same):
            absolute = True
        elif p.imbalance == o.imbalance:
            absolute = p.repeated is None or p.repeated != o.repeated
        else:
            worse = o if p.imbalance > o.imbalance else p
            absolute = p.pref is not None and worse.repeated != invert(p.pref)
        strong = (
            (not p.strong and not p.abs_pref)
            or (not o.strong and not o.abs_pref)
            or (p.abs_pref and o.abs_pref)
            or not same
        )
        return absolute_imbalance, absolute, _compatible_prefs(p.pref, o.pref), strong

    # -- matching ---------------------------------------------------------------

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
                row[a] = self._base_weight(ps[a], ps[b], current, False)

    def _initial(self) -> None:
        """Check that a pairing exists; find the bye assignee's score group (C5/C9)."""
        ps = self.players
        n = len(ps)
        if n % 2:
            top = ps[0].score
            for b in range(n):
                for a in range(b):
                    x, y = ps[a], ps[b]
                    if not self._compatible(x, y):
                        self.weights[b][a] = 0
                        continue
                    w = 1 + (not x.bye_eligible) + (not y.bye_eligible)
                    w = (w << self.sg_shift) | (self.shift[x.score] + self.shift[y.score])
                    self.weights[b][a] = (w << self.sg_bits) | (y.score >= top)
        else:
            # An even field needs no bye: an impossible pairing shows at the end.
            self._set_all(False)
            return
        mate = self._match(list(range(n)), {}, 0)
        unmatched = [v for v in range(n) if mate[v] == v]
        if len(unmatched) > 1 or (unmatched and not ps[unmatched[0]].bye_eligible):
            raise PairingError("no pairing satisfies the absolute criteria")
        self.bye_score = ps[unmatched[0]].score
        top = ps[0].score
        self.single_downfloater_bye = self.bye_score >= top and all(
            ps[mate[v]].score >= top for v in range(n) if ps[v].score >= top
        )
        played = sorted((e.played_games for e in ps if e.score == self.bye_score), reverse=True)
        self.unplayed_rank = {g: i for i, g in enumerate(played)}
        self._set_all(False)

    def pair(self) -> Pairing:
        ps = self.players
        n = len(ps)
        if n == 0:
            return Pairing(())
        self._initial()
        weights = self.weights
        mate_of: dict[int, int] = {}
        active = list(range(n))
        nxt = 0
        while nxt < n and ps[nxt].score >= ps[0].score:
            nxt += 1
        bracket = list(range(nxt))
        movers = 0  # moved-down players at the head of ``bracket``
        first = 0  # first vertex of the current score group
        while len(bracket) > 1 or nxt < n:
            end = len(bracket)
            group_end = first + end - movers
            group_start = nxt
            if nxt < n:
                s = ps[nxt].score
                while nxt < n and ps[nxt].score >= s:
                    bracket.append(nxt)
                    nxt += 1
            for j in range(movers, len(bracket)):
                b = bracket[j]
                for i in range(j):
                    a = bracket[i]
                    weights[b][a] = self._base_weight(ps[a], ps[b], j < end, j >= end)

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
                mate = self._match(active, *self._remainder_fields(bracket[:end], residents // 2))
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
                    mate = self._match(active, *self._remainder_fields(remainder, pairs))
                for v in remainder:
                    if v < mate[v] < group_end:
                        paired.update((v, mate[v]))
                        mate_of[v], mate_of[mate[v]] = mate[v], v
                active = [v for v in active if v not in paired]
            floaters = [v for v in remainder if v not in paired]
            for j, b in enumerate(floaters):
                for a in floaters[:j]:
                    weights[b][a] = 0
            new_bracket = [v for v in bracket[:end] if v not in paired]
            movers = len(new_bracket)
            bracket = new_bracket + bracket[end:]
            first = group_end
            if group_start == n and len(bracket) > 1:
                raise PairingError("no pairing satisfies the absolute criteria")
            if n % 2 and group_start < n:
                s = ps[group_start].score
                self.single_downfloater_bye = self.bye_score >= s and all(
                    ps[mate[v]].score >= s for v in bracket
                )
            else:
                self.single_downfloater_bye = False
        return self._result(mate_of, ps[bracket[0]].id if bracket else None)

    def _remainder_fields(self, remainder: Sequence[int], pairs: int) -> tuple[dict[tuple[int, int], int], int]:
        """Low-order fields ranking the remainder's pairings in FIDE's order.

        Fewest exchanges, smallest BSN difference, the lowest S1 players and the
        highest S2 players exchanged first, then each S1 player with the highest
        possible opponent.
        """
        size = len(remainder)
        s2 = size - pairs
        slot = size.bit_length()
        w5 = size * slot
        w4 = s2 + 1
        c3 = 1 << pairs
        w3 = (size * c3).bit_length()
        w2 = (size * size).bit_length()
        w1 = size.bit_length()
        low: dict[tuple[int, int], int] = {}
        weights = self.weights
        for i, p in enumerate(remainder):
            in_s1 = i < pairs
            head = (int(in_s1) << w2) + (size - i)
            head = (head << w3) + (c3 - (1 << i) if in_s1 else c3)
            head = (head << w4) + (0 if in_s1 else 1 << (s2 - 1 - (i - pairs)))
            head <<= w5
            shift = (size - 1 - i) * slot
            for k in range(i + 1, size):
                o = remainder[k]
                if weights[o][p]:
                    low[p, o] = head + ((size - k) << shift)
        return low, w1 + w2 + w3 + w4 + w5

    # -- explanation ------------------------------------------------------------

    def explain(self, pairing: Pairing, *, accelerated: bool) -> DutchExplanation:
        """Why ``pairing`` (what :meth:`pair` returned) is what it is, read back bracket by bracket from the top.

        A pair belongs to the bracket of its lower-ranked player: the matching
        fixed it there. What the matching weighed over the whole bracket and
        the next one (C5-C8, the order of the candidates) shows only as its
        outcome; a choice is traced to a criterion where comparing the pair
        with the natural one, two pairs at a time, tells.
        """
        ps = self.players
        at = {e.id: i for i, e in enumerate(ps)}
        mate: dict[int, int] = {}
        for white, black in pairing.boards:
            mate[at[white]], mate[at[black]] = at[black], at[white]
        bye = at[pairing.bye] if pairing.bye is not None else None
        brackets = []
        movers: list[int] = []
        start = 0
        while start < len(ps):
            end = start
            while end < len(ps) and ps[end].score == ps[start].score:
                end += 1
            members = list(range(start, end))
            brackets.append(self._explain_bracket(movers, members, mate, None if end < len(ps) else bye))
            inside = set(movers) | set(members)
            movers = [v for v in movers + members if mate.get(v, -1) not in inside]
            start = end
        colours = []
        for white, black in pairing.boards:
            p, o = ps[at[min(white, black)]], ps[at[max(white, black)]]
            colour, why = self._allocate(p, o)
            assert (p.id == white) == (colour == WHITE)
            colours.append(why)
        return DutchExplanation(
            pairing,
            tuple(brackets),
            (ps[bye].id, self._why_bye(ps[bye])) if bye is not None else None,
            tuple(colours),
            accelerated,
        )

    def _explain_bracket(
        self, movers: Sequence[int], members: Sequence[int], mate: dict[int, int], bye: int | None
    ) -> BracketExplanation:
        """One bracket: ``movers`` moved down into it, ``members`` its residents (indices), ``bye`` the
        pairing-allocated bye's when this is the last bracket."""
        ps = self.players
        inside = set(movers) | set(members)
        pairs = []
        taken: list[int] = []
        for i, m in enumerate(v for v in movers if mate.get(v, -1) in members):
            resident = mate[m]
            natural = members[i]
            if resident == natural:
                pairs.append(PairExplanation(ps[m].id, ps[resident].id, PairOrigin.MOVED_DOWN))
            else:
                pairs.append(PairExplanation(ps[m].id, ps[resident].id, PairOrigin.MOVED_DOWN, ps[natural].id,
                                             self._why_not(m, natural, resident, mate)))  # fmt: skip
            taken.append(resident)
        remainder = [v for v in members if v not in taken]
        among = [(v, mate[v]) for v in remainder if v < mate.get(v, -1) and mate[v] in remainder]
        s1, s2 = remainder[: len(among)], remainder[len(among) :]
        for high, low in among:
            if high in s1 and low in s2 and low == s2[s1.index(high)]:
                pairs.append(PairExplanation(ps[high].id, ps[low].id, PairOrigin.NATURAL))
                continue
            origin = PairOrigin.TRANSPOSITION if high in s1 and low in s2 else PairOrigin.EXCHANGE
            if high in s1:
                natural = s2[s1.index(high)]
                why = self._why_not(high, natural, low, mate)
                pairs.append(PairExplanation(ps[high].id, ps[low].id, origin, ps[natural].id, why))
            else:
                out = [ps[v].id for v in s1 if not any(v == h for h, _ in among)]
                why = (Reason("D", "{} moved from S2 to S1 for " + _list(len(out)), (ps[high].id, *out)),)
                pairs.append(PairExplanation(ps[high].id, ps[low].id, origin, None, why))
        floaters = tuple(
            (ps[v].id, self._why_float(v, inside, mate))
            for v in sorted(inside)
            if mate.get(v, -1) not in inside and v != bye
        )
        return BracketExplanation(
            score=ps[members[0]].score,
            residents=tuple(ps[v].id for v in members),
            moved_down=tuple(ps[v].id for v in movers),
            s1=tuple(ps[v].id for v in s1),
            s2=tuple(ps[v].id for v in s2),
            pairs=tuple(pairs),
            downfloaters=floaters,
        )

    def _clash(self, a: _Entrant, b: _Entrant) -> Reason | None:
        """The absolute criterion that keeps ``a`` and ``b`` apart, if any."""
        if b.id in self.forbidden[a.id]:
            if any(g.played and g.opponent == b.id for g in a.games):
                return Reason("C1", "{} and {} have played each other", (a.id, b.id))
            return Reason("C1", "{} and {} may not meet (a forbidden pair)", (a.id, b.id))
        if not self._compatible(a, b):
            assert a.pref is not None
            return Reason("C3", "{} and {} both have an absolute preference for " + _word(a.pref), (a.id, b.id))
        return None

    def _why_not(self, high: int, natural: int, chosen: int, mate: dict[int, int]) -> tuple[Reason, ...]:
        """Why ``high`` plays ``chosen`` and not its natural opponent: the pair itself, else the two pairs that
        swapping opponents would make (indices)."""
        ps = self.players
        a, n, b = ps[high], ps[natural], ps[chosen]
        clash = self._clash(a, n)
        if clash is not None:
            return (clash,)
        other = ps[mate[natural]] if natural in mate else None  # who the natural opponent plays instead
        if other is not None:
            clash = self._clash(b, other)
            if clash is not None:
                return (Reason(clash.rule, "with {} - {}, " + clash.text, (a.id, n.id, *clash.players)),)
        now = [(a, b)] + ([(n, other)] if other is not None else [])
        then = [(a, n)] + ([(b, other)] if other is not None else [])

        def fields(pairs: list[tuple[_Entrant, _Entrant]]) -> list[int]:
            return [sum(f) for f in zip(*(self._colour_fields(*_lower_first(x, y)) for x, y in pairs), strict=True)]

        for field, (kept, lost) in enumerate(zip(fields(now), fields(then), strict=True)):
            if kept > lost:
                rule = f"C{10 + field}"
                x, y = next((x, y) for x, y in then if not self._colour_fields(*_lower_first(x, y))[field])
                return (_colour_reason(rule, x, y),)
        if a.score > n.score:
            for back, rule in ((0, "C15"), (1, "C17")):
                if n.floats[back] == _UP and b.floats[back] != _UP:
                    when = "previous round" if back == 0 else "round before it"
                    return (Reason(rule, "{} floated up in the " + when + ", {} did not", (n.id, b.id)),)
        return (Reason("C5-C21", "no pairing of this bracket and the next with {} - {} is as good; the difference "
                       "lies beyond these two pairs", (a.id, n.id)),)  # fmt: skip

    def _why_float(self, v: int, inside: set[int], mate: dict[int, int]) -> tuple[Reason, ...]:
        """Why player ``v`` (an index) leaves its bracket (``inside``) unpaired."""
        ps = self.players
        e = ps[v]
        others = [ps[u] for u in sorted(inside) if u != v]
        free = [ps[u] for u in sorted(inside) if u != v and mate.get(u, -1) not in inside]
        why: list[Reason] = []
        if not others:
            why.append(Reason("C6", "{} is alone in the bracket", (e.id,)))
        elif all(self._clash(e, u) is not None for u in others):
            why.append(Reason("C1", "{} may meet nobody else in the bracket (played, forbidden or absolute "
                              "colours)", (e.id,)))  # fmt: skip
        elif not any(self._clash(e, u) is None for u in free):
            if len(inside) % 2:
                text = f"the bracket has {len(inside)} players, an odd number: its best pairs leave {{}} over"
            else:
                text = "the bracket's best pairs leave {} without an opponent it may meet"
            why.append(Reason("C6", text, (e.id,)))
        else:
            names = [u.id for u in free if self._clash(e, u) is None]
            why.append(Reason("C4-C8", "pairing {} with " + _list(len(names)) + " here would cost the rest of the "
                              "round more (its completion, the bye's score, the next bracket's pairs)",
                              (e.id, *names)))  # fmt: skip
        if why[0].rule != "C1" and ps[v].score == ps[max(inside)].score:
            for back, rule in ((0, "C14"), (1, "C16")):
                if e.floats[back] == _DOWN:
                    when = "previous round" if back == 0 else "round before it"
                    why.append(Reason(rule, "{} floated down in the " + when + " too: every other choice failed "
                                      "a criterion of higher priority", (e.id,)))  # fmt: skip
        return tuple(why)

    def _why_bye(self, e: _Entrant) -> tuple[Reason, ...]:
        """Why ``e`` has the pairing-allocated bye."""
        ps = self.players
        why = [Reason("C2", "{} has had no pairing-allocated bye and no win without playing", (e.id,))]
        below = [u for u in ps if u.score < e.score]
        barred = [u.id for u in below if not u.bye_eligible]
        able = [u.id for u in below if u.bye_eligible]
        if not below:
            why.append(Reason("C5", "{} is in the lowest score group", (e.id,)))
        if barred:
            why.append(Reason("C2", _list(len(barred)) + " scored less but may not have it", tuple(barred)))
        if able:
            why.append(Reason("C4", "giving it to " + _list(len(able)) + ", who scored less, would leave the round "
                              "incomplete", tuple(able)))  # fmt: skip
        same = [u for u in ps if u.score == e.score and u is not e and u.bye_eligible]
        fewer = [u.id for u in same if u.played_games < e.played_games]
        if fewer:
            why.append(Reason("C9", "{} has played more games than " + _list(len(fewer)), (e.id, *fewer)))
        lower = [u.id for u in same if u.rank > e.rank and u.played_games >= e.played_games]
        if lower:
            why.append(Reason("C6-C8", "the lower-ranked " + _list(len(lower)) + " were needed for pairs",
                              tuple(lower)))  # fmt: skip
        else:
            why.append(Reason("order", "{} is the lowest-ranked player eligible in its score group", (e.id,)))
        return tuple(why)

    # -- colours ----------------------------------------------------------------

    def _result(self, mate_of: dict[int, int], bye: int | None) -> Pairing:
        ps = self.players
        boards = []
        for v, m in mate_of.items():
            if v < m:
                p, o = ps[v], ps[m]
                if p.id > o.id:
                    p, o = o, p
                colour = self._colour(p, o)
                boards.append((p.id, o.id) if colour == WHITE else (o.id, p.id))
        by_id = {e.id: e for e in ps}

        def order(board: tuple[int, int]) -> tuple[int, int, int]:
            a, b = by_id[board[0]], by_id[board[1]]
            high, low = (a, b) if (a.score, -a.rank) > (b.score, -b.rank) else (b, a)
            return (-high.score, -low.score, high.rank)

        boards.sort(key=order)
        return Pairing(tuple(boards), bye)

    def _colour(self, p: _Entrant, o: _Entrant) -> str:
        """The colour of ``p`` against ``o`` (C.04.3 article 5.2)."""
        return self._allocate(p, o)[0]

    def _allocate(self, p: _Entrant, o: _Entrant) -> tuple[str, Reason]:
        """The colour of ``p`` against ``o``, and the rule of article 5.2 that gave it."""
        pair = (p.id, o.id)
        if _compatible_prefs(p.pref, o.pref):
            if p.pref is not None and o.pref is not None:
                return p.pref, Reason("5.2.1", "both colour preferences granted ({} " + _word(p.pref)
                                      + ", {} " + _word(o.pref) + ")", pair)  # fmt: skip
            if p.pref is not None:
                return p.pref, Reason("5.2.1", "{}'s colour preference (" + _word(p.pref) + ") granted; {} has none",
                                      pair)  # fmt: skip
            if o.pref is not None:
                return invert(o.pref), Reason("5.2.1", "{1}'s colour preference (" + _word(o.pref)
                                              + ") granted; {0} has none", pair)  # fmt: skip
        else:
            decided = _stronger(p, o)
            if decided is not None:
                return decided
            # Alternate from the latest round in which their colours differed.
            mine = [g.colour for g in reversed(p.games) if g.played]
            theirs = [g.colour for g in reversed(o.games) if g.played]
            for a, b in zip(mine, theirs, strict=False):
                if a != b:
                    if a is None or b is None:
                        break  # a played game without a colour: nothing to alternate from
                    return b, Reason("5.2.3", "alternating from their latest games with different colours ({} had "
                                     + _word(a) + ", {} " + _word(b) + ")", pair)  # fmt: skip
        p_lower = (p.score, o.rank) < (o.score, p.rank)
        high = o if p_lower else p
        if p.pref is None:
            odd = not high.rank & 1  # ranks count from 0: pairing number rank + 1
            colour = self.initial_colour if odd else invert(self.initial_colour)
            why = Reason("5.2.5", f"no colour preferences: the higher-ranked {{}} has the {'odd' if odd else 'even'} "
                         f"pairing number {high.rank + 1}, so {_word(colour)} (initial colour "
                         f"{_word(self.initial_colour)})", (high.id,))  # fmt: skip
            return (invert(colour) if p_lower else colour), why
        assert high.pref is not None
        why = Reason("5.2.4", "the higher-ranked {}'s preference (" + _word(high.pref) + ")", (high.id,))
        return (invert(high.pref) if p_lower else high.pref), why


def _word(colour: str) -> str:
    return Colour(colour).word


def _lower_first(x: _Entrant, y: _Entrant) -> tuple[_Entrant, _Entrant]:
    """The two players as the colour fields take them: the lower-ranked first."""
    return (x, y) if (x.score, -x.rank) < (y.score, -y.rank) else (y, x)


def _list(count: int) -> str:
    """A :class:`Reason` text's placeholders for ``count`` players."""
    return ", ".join(["{}"] * count)


def _colour_reason(rule: str, x: _Entrant, y: _Entrant) -> Reason:
    """What pairing ``x`` with ``y`` would cost by a colour criterion (C10-C13)."""
    wanted = _word(x.pref) if x.pref else "a colour"
    text = {
        "C10": "{} - {} would give a topscorer a colour difference beyond 2",
        "C11": "{} - {} would give a topscorer the same colour three times running",
        "C12": "{} and {} both prefer " + wanted,
        "C13": "{} and {} both have a strong preference for " + wanted,
    }[rule]
    return Reason(rule, text, (x.id, y.id))


def _stronger(p: _Entrant, o: _Entrant) -> tuple[str, Reason] | None:
    """Article 5.2.2: the stronger of two equal preferences (the absolute, then the wider difference, then the
    strong one), as ``p``'s colour; None when neither is stronger."""
    for first, second in ((p, o), (o, p)):
        assert first.pref is not None
        colour = first.pref if first is p else invert(first.pref)
        pair = (first.id, second.id)
        if first.abs_pref and not second.abs_pref:
            return colour, Reason("5.2.2", "{}'s absolute preference (" + _word(first.pref)
                                  + ") is stronger than {}'s", pair)  # fmt: skip
        if first.abs_pref and first.imbalance > second.imbalance:
            return colour, Reason("5.2.2", f"both preferences are absolute; {{}}'s colour difference "
                                  f"({first.imbalance}) is wider than {{}}'s ({second.imbalance})", pair)  # fmt: skip
    for first, second in ((p, o), (o, p)):
        assert first.pref is not None
        if first.strong and not second.strong:
            colour = first.pref if first is p else invert(first.pref)
            return colour, Reason("5.2.2", "{}'s strong preference (" + _word(first.pref)
                                  + ") is stronger than {}'s mild one", (first.id, second.id))  # fmt: skip
    return None


def pair_round(
    players: Sequence[PlayerState],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[Collection[int]] = (),
    points: PointsSystem = STANDARD,
    initial_colour: str = WHITE,
) -> Pairing:
    """Pair round ``round_number`` by the FIDE Dutch system.

    ``players`` are all players of the tournament; those who already have an
    entry for this round (a requested bye, an absence) are left out. Each set in
    ``forbidden`` names players who must not meet. ``initial_colour`` is the
    colour of the top-ranked player in round 1 (TRF ``XXC``). Raises
    :class:`~tmanager.errors.PairingError` when no pairing satisfies the
    absolute criteria.
    """
    return _DutchRound(players, round_number, total_rounds, forbidden, points, initial_colour).pair()


def explain_round(
    players: Sequence[PlayerState],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[Collection[int]] = (),
    points: PointsSystem = STANDARD,
    initial_colour: str = WHITE,
) -> DutchExplanation:
    """Pair round ``round_number`` exactly as :func:`pair_round` does (same arguments), and say why.

    The explanation costs a pass over the finished pairing; :func:`pair_round`
    itself never computes it.
    """
    dutch = _DutchRound(players, round_number, total_rounds, forbidden, points, initial_colour)
    return dutch.explain(dutch.pair(), accelerated=any(p.virtual(round_number) for p in players))
