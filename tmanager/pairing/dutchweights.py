"""The criteria of a Dutch round as the bit fields of the matching's edge weights, as bbpPairings spells them.

An edge's weight holds, from the highest bits down: completion and the bye,
the pairs and scores paired in the current and the next bracket, the bye
assignee's games played (C9), the colour criteria (C10-C13), then the floats
(C14-C21). :func:`remainder_fields` adds the low-order fields that rank a
bracket's remainder pairings in FIDE's order of candidates. The round driver
(:mod:`.dutch`) sets the bye's state as it settles brackets.
"""

from __future__ import annotations

from collections.abc import Sequence

from tmanager.pairing.dutchfield import DutchField, Entrant, Float, colour_fields


def _score_group_widths(entrants: Sequence[Entrant]) -> tuple[dict[int, int], int, int]:
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


class EdgeWeights:
    """The criteria fields of the round's edges, and the state of the bye they depend on."""

    def __init__(self, field: DutchField) -> None:
        self.field = field
        self.shift, self.sg_shift, self.sg_bits = _score_group_widths(field.entrants)
        #: The score group of the pairing-allocated bye's assignee (C5).
        self.bye_score = 0
        #: Whether the bye's assignee is chosen in the bracket being paired (none of it pairs lower): then the
        #: edges weigh its games played (C9).
        self.single_downfloater_bye = False
        #: Each count of games played in the bye's score group by its place among them, most first (C9).
        self.unplayed_rank: dict[int, int] = {}

    def _bye_candidate(self, e: Entrant) -> bool:
        return e.bye_eligible and e.score <= self.bye_score

    def completion(self, x: Entrant, y: Entrant) -> int:
        """The edge of ``x`` and the lower-ranked ``y`` when looking for the bye's score group alone: completion,
        the bye's eligibility, the scores of the pairs, the top score group paired (0: no edge)."""
        if not self.field.compatible(x, y):
            return 0
        w = 1 + (not x.bye_eligible) + (not y.bye_eligible)
        w = (w << self.sg_shift) | (self.shift[x.score] + self.shift[y.score])
        return (w << self.sg_bits) | (y.score >= self.field.entrants[0].score)

    def edge(self, high: Entrant, low: Entrant, *, current: bool, following: bool) -> int:
        """The criteria fields of one edge; ``low`` is the lower-ranked player, ``current`` and ``following`` say
        whether the edge lies in the bracket being paired or reaches into the next one (0: no edge)."""
        if not self.field.compatible(high, low):
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
        for bit in colour_fields(low, high):
            w = (w << sb) + (current and bit)
        return self._float_fields(w, high, low, current=current)

    def _float_fields(self, w: int, high: Entrant, low: Entrant, *, current: bool) -> int:
        """``w`` followed by the float criteria's fields (C14-C21) of the edge."""
        sb, ss, shift = self.sg_bits, self.sg_shift, self.shift
        backs = (1, 2)[: self.field.played_rounds]
        for back in backs:
            fh, fl = high.floats[back - 1], low.floats[back - 1]
            w <<= sb
            if current:
                w += (fl == Float.DOWN) + (high.score <= low.score and fh == Float.DOWN)
            w = (w << sb) + (current and not (high.score > low.score and fl == Float.UP))
        for back in backs:
            fh, fl = high.floats[back - 1], low.floats[back - 1]
            w <<= ss
            if current:
                w += ((fl == Float.DOWN) << shift[low.score]) + ((fh == Float.DOWN) << shift[high.score])
            w <<= ss
            if current and not (fl == Float.UP and high.score > low.score):
                w += 1 << shift[high.score]
        return w


def remainder_fields(
    remainder: Sequence[int], pairs: int, weights: Sequence[Sequence[int]]
) -> tuple[dict[tuple[int, int], int], int]:
    """Low-order fields ranking the remainder's pairings in FIDE's order, for the edges ``weights`` holds (the
    row of the later vertex, by the earlier one), and their width.

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
