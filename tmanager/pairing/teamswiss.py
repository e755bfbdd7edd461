"""FIDE's Swiss Team system (C.04.6, applied from 1 February 2026): teams paired by their primary score.

The pairing is the top-scoregroup procedure shared with the Double-Swiss
(:mod:`tmanager.pairing.topscore`) with the system's bracket criteria: [C8]
fewest pairs of teams wanting the same colour, [C10] fewest upfloaters' opponents
who floated in the previous round (the float criteria lapse in the last two
rounds). A team's colour is the one it had on board 1; the colour preference
is the text's Type A (1.7.1: only strong preferences, from a colour difference
beyond one, or two matches in a row with the same colour at a difference of at
most one). Article 4 then gives board 1's colours: to the first team (the
higher primary score, then secondary score, then the smaller TPN) unless a
rule before says otherwise. Teams with no colour preference type (or Type B's
mild preferences) are not read here.

What this module does not know: players, boards beyond the first, files.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from tmanager.core.results import Colour, format_points
from tmanager.pairing.model import Pairing
from tmanager.pairing.topscore import Contender, ExplainedPairing, PairCriterion, pair_round


@dataclass(frozen=True, slots=True)
class TeamEntrant:
    """A team to pair: ``tpn`` its pairing number, its primary and secondary scores (tenths), its board-1
    colours in the matches it played, whom it met, matches played, whether [C2] bars it from the bye, and
    whether it floated in the previous round (met a team with another primary score)."""

    id: int
    tpn: int
    primary: int
    secondary: int = 0
    colours: tuple[Colour, ...] = ()
    met: frozenset[int] = frozenset()
    matches: int = 0
    bye_barred: bool = False
    floated: bool = False

    @property
    def difference(self) -> int:
        """The colour difference: whites minus blacks."""
        return self.colours.count(Colour.WHITE) - self.colours.count(Colour.BLACK)

    @property
    def preference(self) -> Colour | None:
        """Type A (1.7.1): white when the difference is below -1, or -1 or 0 after two blacks in a row; black
        likewise; else none."""
        cd, last = self.difference, self.colours[-2:]
        if cd < -1 or (cd in (-1, 0) and last == (Colour.BLACK, Colour.BLACK)):
            return Colour.WHITE
        if cd > 1 or (cd in (0, 1) and last == (Colour.WHITE, Colour.WHITE)):
            return Colour.BLACK
        return None


def pair_teams(
    teams: Sequence[TeamEntrant],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[Collection[int]] = (),
    initial_colour: Colour = Colour.WHITE,
) -> ExplainedPairing:
    """Pair round ``round_number`` of ``total_rounds``; a :class:`~tmanager.errors.PairingError` if it cannot be."""
    by_id = {t.id: t for t in teams}
    lapse = round_number > total_rounds - 2

    def same_preference(top: Contender, bottom: Contender, upfloaters: frozenset[int]) -> bool:
        """[C8]: both teams want the same colour."""
        a, b = by_id[top.id].preference, by_id[bottom.id].preference
        return a is not None and a == b

    def opponent_floated(top: Contender, bottom: Contender, upfloaters: frozenset[int]) -> bool:
        """[C10]: an upfloater's opponent who floated in the previous round."""
        if lapse or (top.id in upfloaters) == (bottom.id in upfloaters):
            return False
        return (bottom if top.id in upfloaters else top).floated

    criteria: list[PairCriterion] = [("C8", same_preference), ("C10", opponent_floated)]
    contenders = [
        Contender(t.id, t.tpn, t.primary, t.matches, t.met, t.bye_barred, t.floated) for t in teams
    ]
    done = pair_round(
        contenders, criteria=criteria, forbidden=forbidden, float_criteria_lapse=lapse,
        score_text=lambda s: format_points(s),
    )  # fmt: skip
    lines = list(done.notes)
    for bracket in done.brackets:
        lines += bracket.notes
    coloured = [allocate(by_id[a], by_id[b], initial_colour=initial_colour) for a, b in done.pairs]
    coloured.sort(key=lambda c: _board_key(by_id[c[0]], by_id[c[1]]))
    for number, (white, black, why) in enumerate(coloured, 1):
        lines.append(f"match {number}: team {white} has white on board 1, team {black} black [{why}]")
    return ExplainedPairing(Pairing(tuple((w, b) for w, b, _ in coloured), done.bye), tuple(lines))


def _board_key(a: TeamEntrant, b: TeamEntrant) -> tuple[int, int, int]:
    """The General Handling Rules' order: the higher score of the pair, then their sum, then the smaller TPN."""
    return (-max(a.primary, b.primary), -(a.primary + b.primary), min(a.tpn, b.tpn))


def allocate(a: TeamEntrant, b: TeamEntrant, *, initial_colour: Colour) -> tuple[int, int, str]:
    """Article 4.3 (Type A): who has white on board 1, and the rule that decided."""
    first, other = (a, b) if (-a.primary, -a.secondary, a.tpn) <= (-b.primary, -b.secondary, b.tpn) else (b, a)

    def gets(colour: Colour, why: str) -> tuple[int, int, str]:
        return (first.id, other.id, why) if colour == Colour.WHITE else (other.id, first.id, why)

    mine, theirs = first.preference, other.preference
    if not first.matches and not other.matches:
        colour = initial_colour if first.tpn % 2 else initial_colour.other
        return gets(colour, f"4.3.1: first match, the first team's TPN {first.tpn}")
    if (mine is None) != (theirs is None):
        return gets(mine if mine is not None else (theirs or Colour.WHITE).other, "4.3.2: only one colour preference")
    if mine is not None and theirs is not None and mine != theirs:
        return gets(mine, "4.3.3: opposite colour preferences")
    if first.difference != other.difference:
        lower = Colour.WHITE if first.difference < other.difference else Colour.BLACK
        return gets(lower, "4.3.5: the lower colour difference has white")
    for x, y in zip(reversed(first.colours), reversed(other.colours), strict=False):
        if x != y:
            return gets(x.other, "4.3.6: alternating from the latest match where their colours differed")
    if mine is not None:
        return gets(mine, "4.3.7: the first team's preference")
    if first.colours:
        return gets(first.colours[-1].other, "4.3.8: the first team alternates")
    if other.colours:
        return gets(other.colours[-1], "4.3.9: the other team alternates")
    colour = initial_colour if first.tpn % 2 else initial_colour.other
    return gets(colour, f"4.3.1: neither has had a colour, the first team's TPN {first.tpn}")
