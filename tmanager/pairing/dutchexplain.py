"""Why a Dutch round is paired as it is, in C.04.3's terms: what ``--explain`` prints.

:func:`explain` reads a finished pairing back bracket by bracket, from the top,
so the pairing itself (:mod:`.dutch`) never pays for it. What it does not know
is the matching's own weighing of whole brackets; where comparing a pair with
the natural one does not tell, it says so.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from tmanager.core.results import format_points
from tmanager.pairing.dutchcolours import allocate
from tmanager.pairing.dutchfield import DutchField, Entrant, Float, colour_fields
from tmanager.pairing.model import WHITE, Pairing, Reason


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


class _Reader:
    """The read-back of one finished pairing of ``field``."""

    def __init__(self, field: DutchField) -> None:
        self.field = field
        self.players = field.entrants

    def read(self, pairing: Pairing, *, accelerated: bool) -> DutchExplanation:
        """See :func:`explain`."""
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
            colour, why = allocate(p, o, initial_colour=self.field.initial_colour)
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

    def _clash(self, a: Entrant, b: Entrant) -> Reason | None:
        """The absolute criterion that keeps ``a`` and ``b`` apart, if any."""
        if b.id in self.field.forbidden[a.id]:
            if any(g.played and g.opponent == b.id for g in a.games):
                return Reason("C1", "{} and {} have played each other", (a.id, b.id))
            return Reason("C1", "{} and {} may not meet (a forbidden pair)", (a.id, b.id))
        if not self.field.compatible(a, b):
            assert a.pref is not None
            return Reason("C3", "{} and {} both have an absolute preference for " + a.pref.word, (a.id, b.id))
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

        def fields(pairs: list[tuple[Entrant, Entrant]]) -> list[int]:
            return [sum(f) for f in zip(*(colour_fields(*_lower_first(x, y)) for x, y in pairs), strict=True)]

        for field, (kept, lost) in enumerate(zip(fields(now), fields(then), strict=True)):
            if kept > lost:
                rule = f"C{10 + field}"
                x, y = next((x, y) for x, y in then if not colour_fields(*_lower_first(x, y))[field])
                return (_colour_reason(rule, x, y),)
        if a.score > n.score:
            for back, rule in ((0, "C15"), (1, "C17")):
                if n.floats[back] == Float.UP and b.floats[back] != Float.UP:
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
                if e.floats[back] == Float.DOWN:
                    when = "previous round" if back == 0 else "round before it"
                    why.append(Reason(rule, "{} floated down in the " + when + " too: every other choice failed "
                                      "a criterion of higher priority", (e.id,)))  # fmt: skip
        return tuple(why)

    def _why_bye(self, e: Entrant) -> tuple[Reason, ...]:
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


def explain(field: DutchField, pairing: Pairing, *, accelerated: bool) -> DutchExplanation:
    """Why ``pairing`` (what :func:`~tmanager.pairing.dutch.pair_round` returned for ``field``) is what it is, read
    back bracket by bracket from the top; ``accelerated``: the scores are pairing scores.

    A pair belongs to the bracket of its lower-ranked player: the matching
    fixed it there. What the matching weighed over the whole bracket and
    the next one (C5-C8, the order of the candidates) shows only as its
    outcome; a choice is traced to a criterion where comparing the pair
    with the natural one, two pairs at a time, tells.
    """
    return _Reader(field).read(pairing, accelerated=accelerated)


def _lower_first(x: Entrant, y: Entrant) -> tuple[Entrant, Entrant]:
    """The two players as the colour fields take them: the lower-ranked first."""
    return (x, y) if (x.score, -x.rank) < (y.score, -y.rank) else (y, x)


def _list(count: int) -> str:
    """A :class:`Reason` text's placeholders for ``count`` players."""
    return ", ".join(["{}"] * count)


def _colour_reason(rule: str, x: Entrant, y: Entrant) -> Reason:
    """What pairing ``x`` with ``y`` would cost by a colour criterion (C10-C13)."""
    wanted = x.pref.word if x.pref else "a colour"
    text = {
        "C10": "{} - {} would give a topscorer a colour difference beyond 2",
        "C11": "{} - {} would give a topscorer the same colour three times running",
        "C12": "{} and {} both prefer " + wanted,
        "C13": "{} and {} both have a strong preference for " + wanted,
    }[rule]
    return Reason(rule, text, (x.id, y.id))
