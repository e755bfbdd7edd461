"""The top-scoregroup procedure of FIDE's Double-Swiss (C.04.5) and Swiss Team (C.04.6) systems, articles 3.3–3.6.

Both systems pair a round the same way and differ only in what they count per
pair and in their colours (their own modules): first the pairing-allocated bye
(3.4), then, as long as anyone is left, the top scoregroup of those still
unpaired together with the upfloaters chosen for it (3.5), paired by the first
pairing identifier that complies with the criteria (3.6).

* **The bye (3.4).** Among contenders that [C2] does not bar (a bye, a match
  won by forfeit or a full-point bye before), the one with the lowest score,
  then the most matches played, then the largest TPN, whose absence leaves the
  others pairable ([C1], [C3]).
* **Upfloaters (3.5).** The set that keeps the round completable ([C3]) with
  the fewest upfloaters ([C4]), taken from scores as high as possible ([C5]:
  fewest from the lowest score first), leaving the next scoregroup needing as
  few upfloaters as possible ([C6], read as a count to minimise), with the
  fewest who floated in the previous round ([C7], not in the last rounds); among
  equally good sets, the first in lexicographic order of the candidates sorted
  by score (descending) and TPN (3.5.3, 3.5.4).
* **The bracket (3.6).** Its members in TPN order; a pairing's identifier lists
  its top members (the smaller TPN of each pair) in order, then their opponents
  in the same order. The first identifier in lexicographic order that has no
  rematch or forbidden pair ([C1]) and the fewest failures of the system's pair
  criteria (in priority order) is the pairing.

"Best" is decided as bbpPairings decides the Dutch system: each criterion is a
digit of one integer cost, a minimum-cost perfect matching gives the best value
reachable, and the lexicographic choice is made greedily, one contender at a
time, keeping only choices from which that value is still reachable. Each
decision is written down as a plain sentence (``notes``), so that a pairing can
be explained and checked by hand.

What this module does not know: games, colours, points systems (scores arrive
as integers) and what a criterion means; the systems give it that.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from tmanager.errors import PairingError
from tmanager.pairing.matching import Matcher, NoPerfectMatching
from tmanager.pairing.model import Pairing


@dataclass(frozen=True, slots=True)
class Contender:
    """A player or team to pair: ``tpn`` orders it (tournament pairing number), ``score`` is its primary score
    (any integer unit), ``matches`` the matches it played, ``met`` whom it may not meet again, ``bye_barred`` [C2],
    ``floated`` whether it met an opponent of another score in the previous round (1.5)."""

    id: int
    tpn: int
    score: int
    matches: int = 0
    met: frozenset[int] = frozenset()
    bye_barred: bool = False
    floated: bool = False


#: A pair criterion: its name (``"C8"``) and whether a pair ``(top, bottom)`` fails it, given the upfloaters' ids.
PairCriterion = tuple[str, Callable[[Contender, Contender, frozenset[int]], bool]]


@dataclass(frozen=True, slots=True)
class Bracket:
    """One bracket: its score, residents and upfloaters (ids), its pairs ``(top, bottom)`` and why."""

    score: int
    residents: tuple[int, ...]
    upfloaters: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """A round before colours: the pairing-allocated bye (or None), the brackets, and why the bye went where it did."""

    bye: int | None
    brackets: tuple[Bracket, ...]
    notes: tuple[str, ...]

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple(p for b in self.brackets for p in b.pairs)


@dataclass(frozen=True, slots=True)
class ExplainedPairing:
    """A round paired with colours: ``pairing.boards`` are ``(white, black)`` (game 1's, board 1's) in board order;
    ``explanation`` says why, line by line."""

    pairing: Pairing
    explanation: tuple[str, ...]


def pair_round(
    contenders: Sequence[Contender],
    *,
    criteria: Sequence[PairCriterion] = (),
    forbidden: Iterable[Collection[int]] = (),
    float_criteria_lapse: bool = False,
    score_text: Callable[[int], str] = str,
) -> RoundPairing:
    """Pair ``contenders`` by articles 3.3–3.6; a :class:`PairingError` when the round cannot be completed (3.3.3).

    ``criteria`` are the system's bracket criteria in priority order (3.6.4);
    ``float_criteria_lapse`` switches off [C7] (the last round or rounds);
    ``score_text`` writes a score in the notes.
    """
    return _Round(contenders, criteria, forbidden, float_criteria_lapse, score_text).pair()


class _Round:
    def __init__(
        self,
        contenders: Sequence[Contender],
        criteria: Sequence[PairCriterion],
        forbidden: Iterable[Collection[int]],
        lapse: bool,
        score_text: Callable[[int], str],
    ) -> None:
        self.by_id = {c.id: c for c in contenders}
        if len(self.by_id) != len(contenders):
            raise PairingError("two contenders share an id")
        self.criteria = criteria
        self.lapse = lapse
        self.score_text = score_text
        self.apart: dict[int, set[int]] = {c.id: set(c.met) for c in contenders}
        self.forbidden: dict[int, set[int]] = {c.id: set() for c in contenders}
        for group in forbidden:
            for a in group:
                if a in self.forbidden:
                    self.forbidden[a].update(b for b in group if b != a)

    def may_meet(self, a: int, b: int) -> bool:
        """[C1]: no rematch, no forbidden pair."""
        return b not in self.apart[a] and a not in self.apart[b] and b not in self.forbidden[a]

    def why_apart(self, a: int, b: int) -> str:
        return "a forbidden pair" if b in self.forbidden[a] else "already met"

    # -- the round ------------------------------------------------------------------------------

    def pair(self) -> RoundPairing:
        unpaired = sorted(self.by_id.values(), key=lambda c: (-c.score, c.tpn))
        bye: int | None = None
        notes: list[str] = []
        if len(unpaired) % 2:
            bye, notes = self.choose_bye(unpaired)
            unpaired = [c for c in unpaired if c.id != bye]
        elif _cheapest([c.id for c in unpaired], lambda a, b: 0 if self.may_meet(a, b) else None) is None:
            raise PairingError("the round cannot be completed: no pairing avoids rematches and forbidden pairs")
        brackets = []
        while unpaired:
            top = unpaired[0].score
            residents = [c for c in unpaired if c.score == top]
            lower = [c for c in unpaired if c.score != top]
            upfloaters, chosen_notes = self.choose_upfloaters(residents, lower)
            members = sorted(residents + [self.by_id[u] for u in upfloaters], key=lambda c: c.tpn)
            pairs, pair_notes = self.pair_bracket(members, frozenset(upfloaters))
            brackets.append(
                Bracket(
                    top, tuple(c.id for c in residents), tuple(upfloaters), tuple(pairs),
                    tuple(chosen_notes + pair_notes),
                )
            )  # fmt: skip
            done = {c.id for c in members}
            unpaired = [c for c in unpaired if c.id not in done]
        return RoundPairing(bye, tuple(brackets), tuple(notes))

    def choose_bye(self, contenders: Sequence[Contender]) -> tuple[int, list[str]]:
        """3.4: the first contender in bye order that [C2] allows and whose absence leaves a pairing."""
        order = sorted(contenders, key=lambda c: (c.score, -c.matches, -c.tpn))
        notes = []
        for c in order:
            if c.bye_barred:
                notes.append(f"{c.id} cannot have the bye: a bye, a forfeit win or a full-point bye before [C2]")
                continue
            rest = [x.id for x in contenders if x.id != c.id]
            if _cheapest(rest, lambda a, b: 0 if self.may_meet(a, b) else None) is None:
                notes.append(f"{c.id} cannot have the bye: the others could not all be paired [3.4.1]")
                continue
            notes.append(
                f"bye: {c.id}, score {self.score_text(c.score)}, {c.matches} match(es) played, TPN {c.tpn} "
                "(lowest score, then most matches played, then largest TPN [3.4])"
            )
            return c.id, notes
        raise PairingError("the round cannot be completed: no contender may have the pairing-allocated bye")

    # -- 3.5: the upfloaters ------------------------------------------------------------------------

    def choose_upfloaters(
        self, residents: Sequence[Contender], lower: Sequence[Contender]
    ) -> tuple[list[int], list[str]]:
        levels = sorted({c.score for c in lower})  # [C5]: the lowest score weighs most
        following = levels[-1] if levels else None
        resident_ids = {c.id for c in residents}
        # Digits: C4, one per score level (lowest first), C6, C7.
        width = len(levels) + 3
        base = len(residents) + len(lower) + 1
        weight = _place_values(base, width)
        c6, c7 = weight[-2], weight[-1]
        must: dict[int, bool] = {}  # True: floats; False: stays below

        def cost(a: int, b: int) -> int | None:
            if not self.may_meet(a, b):
                return None
            a_res, b_res = a in resident_ids, b in resident_ids
            if a_res and b_res:
                return 0
            if not a_res and not b_res:
                if must.get(a) or must.get(b):
                    return None
                split = (self.by_id[a].score == following) != (self.by_id[b].score == following)
                return c6 if split else 0
            u = self.by_id[b if a_res else a]
            if must.get(u.id) is False:
                return None
            return weight[0] + weight[1 + levels.index(u.score)] + (c7 if u.floated and not self.lapse else 0)

        ids = [c.id for c in residents] + [c.id for c in lower]
        best = _cheapest(ids, cost)
        if best is None:
            raise PairingError(
                f"the round cannot be completed: the players on {self.score_text(residents[0].score)} "
                "cannot be paired without a rematch or a forbidden pair"
            )
        target, mate = best

        def floaters(mate: dict[int, int]) -> set[int]:
            return {v for v in mate if v not in resident_ids and mate[v] in resident_ids}

        known = floaters(mate)
        count = len(known)
        candidates = sorted(lower, key=lambda c: (-c.score, c.tpn))
        chosen: list[int] = []
        for c in candidates:
            if len(chosen) == count:
                break
            must[c.id] = True
            if c.id not in known:
                found = _cheapest(ids, cost)
                if found is not None and found[0] == target:
                    known = floaters(found[1])
                else:
                    must[c.id] = False
                    continue
            chosen.append(c.id)
        notes = [
            f"bracket {self.score_text(residents[0].score)}: residents "
            + (", ".join(str(c.id) for c in sorted(residents, key=lambda c: c.tpn)))
        ]
        if chosen:
            digits = _digits(target, base, width)
            taken = ", ".join(f"{self.score_text(s)} ×{n}" for s, n in zip(levels, digits[1:-2], strict=True) if n)
            why = [f"{count}, the fewest that keep the round completable [C3, C4]", f"from {taken} [C5]"]
            if digits[-2]:
                why.append(f"leaving {digits[-2]} player(s) of the next scoregroup to pair lower down [C6]")
            if digits[-1]:
                why.append(f"{digits[-1]} of them floated in the previous round [C7]")
            notes.append(
                f"upfloaters {', '.join(str(u) for u in chosen)}: " + "; ".join(why)
                + "; the first such set by score and TPN [3.5.4]"
            )  # fmt: skip
        return chosen, notes

    # -- 3.6: pairing the bracket -------------------------------------------------------------------

    def pair_bracket(
        self, members: Sequence[Contender], upfloaters: frozenset[int]
    ) -> tuple[list[tuple[int, int]], list[str]]:
        order = {c.id: i for i, c in enumerate(members)}  # TPN order
        ids = [c.id for c in members]
        base = len(members) + 1
        width = max(1, len(self.criteria))
        weight = _place_values(base, width)
        top: dict[int, bool] = {}  # True: a top member (partner later in TPN order)
        fixed: dict[int, int] = {}

        def failures(a: int, b: int) -> list[str]:
            first, second = (a, b) if order[a] < order[b] else (b, a)
            return [
                name
                for name, fails in self.criteria
                if fails(self.by_id[first], self.by_id[second], upfloaters)
            ]

        def cost(a: int, b: int) -> int | None:
            if not self.may_meet(a, b):
                return None
            first, second = (a, b) if order[a] < order[b] else (b, a)
            if top.get(first) is False or top.get(second) is True:
                return None
            if fixed.get(first, second) != second or fixed.get(second, first) != first:
                return None
            names = failures(a, b)
            return sum(weight[i] for i, (name, _) in enumerate(self.criteria) if name in names)

        best = _cheapest(ids, cost)
        if best is None:  # the upfloaters were chosen so that this cannot happen
            raise PairingError("the bracket cannot be paired")
        target, known = best

        def reach() -> bool:
            nonlocal known
            if all(cost(a, known[a]) is not None for a in known):
                return True
            found = _cheapest(ids, cost)
            if found is None or found[0] != target:
                return False
            known = found[1]
            return True

        for c in ids:  # the top members: each as early as possible
            top[c] = sum(top.values()) < len(ids) // 2
            if top[c] and not reach():
                top[c] = False
        notes: list[str] = []
        pairs: list[tuple[int, int]] = []
        for a in [c for c in ids if top[c]]:
            passed: list[str] = []
            for b in ids:
                if top[b] or b in fixed or order[b] < order[a]:
                    continue
                if not self.may_meet(a, b):
                    passed.append(f"{b} ({self.why_apart(a, b)})")
                    continue
                fixed[a], fixed[b] = b, a
                if reach():
                    break
                del fixed[a], fixed[b]
                passed.append(f"{b} (the rest of the bracket would fare worse)")
            pairs.append((a, fixed[a]))
            failed = failures(a, fixed[a])
            line = f"{a}-{fixed[a]}: the first opponent in TPN order"
            if passed:
                line += " after " + ", ".join(passed)
            if failed:
                line += f"; fails {', '.join(failed)}, as every pairing of the bracket must"
            notes.append(line + " [3.6]")
        return pairs, notes


def _place_values(base: int, width: int) -> list[int]:
    """The weights of ``width`` digits in ``base``, most significant first."""
    values = [1]
    for _ in range(width - 1):
        values.insert(0, values[0] * base)
    return values


def _digits(value: int, base: int, width: int) -> list[int]:
    """``value`` written in ``base`` as ``width`` digits, most significant first."""
    digits = []
    for _ in range(width):
        value, d = divmod(value, base)
        digits.append(d)
    return digits[::-1]


def _cheapest(ids: Sequence[int], cost: Callable[[int, int], int | None]) -> tuple[int, dict[int, int]] | None:
    """A minimum-cost perfect matching of ``ids`` (``cost`` None: no edge): its cost and mates, or None."""
    n = len(ids)
    if n == 0:
        return 0, {}
    costs: dict[tuple[int, int], int] = {}
    for i in range(n):
        for j in range(i + 1, n):
            c = cost(ids[i], ids[j])
            if c is not None:
                costs[i, j] = c
    ceiling = max(costs.values(), default=0) + 1
    w: list[list[int | None]] = [[None] * n for _ in range(n)]
    for (i, j), c in costs.items():
        w[i][j] = w[j][i] = 2 * (ceiling - c)
    try:
        mate = Matcher(n).solve(range(n), w, changed=range(n), grow=0)
    except NoPerfectMatching:
        return None
    return sum(costs[i, mate[i]] for i in range(n) if i < mate[i]), {ids[i]: ids[mate[i]] for i in range(n)}
