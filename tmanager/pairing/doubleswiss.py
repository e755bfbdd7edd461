"""FIDE's Double-Swiss system (C.04.5, applied from 1 February 2026): every pairing is a match of two games.

The two games are played in succession with colours alternating, and each game
scores its own points: a match ends 2-0, 1½-½, 1-1… The pairing is the
top-scoregroup procedure it shares with the Swiss Team system
(:mod:`tmanager.pairing.topscore`), with one bracket criterion, then the colours
of game 1 by Article 4.

A history arrives as :class:`~tmanager.pairing.model.PlayerState` values with
one :class:`~tmanager.core.scoring.Game` per game, as a TRF file holds them:
match ``m`` is games ``2m-1`` and ``2m`` (TRF rounds), game 1 first. From the
two games of a match this module reads what the rules ask (:func:`match_of`):

* a match is forfeited only when a player forfeited both games (Preface); any
  other match is a meeting ([C1]) and counts as played (3.4.3);
* the player's colour in it is game 1's, if at least one game was played (1.6);
* a floater (1.5) met, in the previous round, an opponent whose score differed;
* [C2] bars from the bye a player who had one, won a match by forfeit or had a
  full-point bye.

The score is the sum of the games' points (a ``PointsSystem`` in tenths); the
pairing-allocated bye is worth a game won and a game drawn (1.4), which the
caller records as the entries ``U`` and ``H`` of its two games.

Boards are ordered as the General Handling Rules order them: by the higher
score of the pair, then the lower, then the higher-ranked player's TPN.
What this module does not know: names, files, when a round may be paired.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from tmanager.core.results import Colour, TrfResult, format_points
from tmanager.core.scoring import STANDARD, Game, PointsSystem
from tmanager.errors import PairingError
from tmanager.pairing.model import Pairing, PlayerState
from tmanager.pairing.topscore import Contender, ExplainedPairing, PairCriterion, pair_round

#: The game entry of a round without anything: an absence (zero-point bye).
_ABSENT = Game(None, None, TrfResult.ZERO_BYE)


@dataclass(frozen=True, slots=True)
class MatchEntry:
    """One player's match as the rules read it from its two games."""

    opponent: int | None
    colour: Colour | None  # game 1's colour, when a game was played (1.6)
    points: int  # tenths, both games
    meeting: bool  # [C1] and 3.4.3: not forfeited as a whole
    bars_bye: bool  # [C2]: a bye, a full-point bye or a match won by forfeit


def match_of(first: Game, second: Game, points: PointsSystem = STANDARD) -> MatchEntry:
    """The match of two game entries (see the module docstring)."""
    opponent = first.opponent if first.opponent is not None else second.opponent
    total = points.points(first) + points.points(second)
    if opponent is None:
        return MatchEntry(None, None, total, False, any(g.result.full_point_bye for g in (first, second)))
    forfeited = first.result.forfeit and second.result.forfeit
    played = [g for g in (first, second) if g.result.played]
    colour = Colour(first.colour) if played and first.colour else None
    if colour is None and played and second.colour:  # game 1 unplayed: its colour is the other of game 2's
        colour = Colour(second.colour).other
    won_by_forfeit = first.result is TrfResult.FORFEIT_WIN and second.result is TrfResult.FORFEIT_WIN
    return MatchEntry(opponent, colour, total, not forfeited, won_by_forfeit)


def matches_of(games: Sequence[Game], count: int, points: PointsSystem = STANDARD) -> list[MatchEntry]:
    """The first ``count`` matches of a player's game entries (missing games are absences)."""
    padded = tuple(games[: 2 * count]) + (_ABSENT,) * max(0, 2 * count - len(games))
    return [match_of(padded[2 * i], padded[2 * i + 1], points) for i in range(count)]


def pair_double_swiss(
    players: Sequence[PlayerState],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: Iterable[Collection[int]] = (),
    points: PointsSystem = STANDARD,
    initial_colour: Colour = Colour.WHITE,
) -> ExplainedPairing:
    """Pair match ``round_number`` of ``total_rounds`` from the players' game entries.

    A player who already has an entry for game 1 of this match (a requested
    bye, an absence) is not paired. ``initial_colour`` is what the
    higher-ranked player of an odd TPN gets in a first match (4.3.1).
    """
    if round_number < 1:
        raise PairingError("matches are numbered from 1")
    played = round_number - 1
    last = round_number >= total_rounds
    history, contenders = _field(players, played=played, points=points)
    by_id = {c.id: c for c in contenders}

    def opponent_floated(top: Contender, bottom: Contender, upfloaters: frozenset[int]) -> bool:
        """[C8]: an upfloater's opponent who floated in the previous round (not in the last round)."""
        if last or (top.id in upfloaters) == (bottom.id in upfloaters):
            return False
        resident = bottom if top.id in upfloaters else top
        return resident.floated

    criteria: list[PairCriterion] = [("C8", opponent_floated)]
    round_pairing = pair_round(
        contenders,
        criteria=criteria,
        forbidden=forbidden,
        float_criteria_lapse=last,
        score_text=lambda s: format_points(s),
    )
    colours = [allocate(by_id[a], by_id[b], history, initial_colour=initial_colour) for a, b in round_pairing.pairs]
    colours.sort(key=lambda c: _board_key(by_id[c[0]], by_id[c[1]]))
    lines = list(round_pairing.notes)
    for bracket in round_pairing.brackets:
        lines += bracket.notes
    for board, (white, black, why) in enumerate(colours, 1):
        lines.append(f"board {board}: {white} has white in game 1, {black} black [{why}]")
    boards = tuple((white, black) for white, black, _ in colours)
    return ExplainedPairing(Pairing(boards, round_pairing.bye), tuple(lines))


def _field(
    players: Sequence[PlayerState], *, played: int, points: PointsSystem
) -> tuple[dict[int, list[MatchEntry]], list[Contender]]:
    """The players to pair (those without an entry for this match yet) as the criteria see them: each one's
    matches so far, and as a :class:`Contender` (TPN, score, opponents met, 1.5's float)."""
    history: dict[int, list[MatchEntry]] = {}
    tpn: dict[int, int] = {}
    for order, p in enumerate(sorted(players, key=lambda p: (p.rank if p.rank is not None else p.id, p.id)), 1):
        if len(p.games) > 2 * played:
            continue  # already has this match's entry
        history[p.id] = matches_of(p.games, played, points)
        tpn[p.id] = order
    score = {pid: sum(m.points for m in entries) for pid, entries in history.items()}

    def score_before(pid: int, match: int) -> int:
        return sum(m.points for m in history[pid][:match]) if pid in history else 0

    def floated(pid: int) -> bool:
        """1.5: met, in the previous round, an opponent whose score before it was different."""
        if not played:
            return False
        previous = history[pid][-1]
        if not previous.meeting or previous.opponent is None or previous.opponent not in history:
            return False
        return score_before(pid, played - 1) != score_before(previous.opponent, played - 1)

    contenders = [
        Contender(
            id=pid,
            tpn=tpn[pid],
            score=score[pid],
            matches=sum(1 for m in entries if m.meeting),
            met=frozenset(m.opponent for m in entries if m.meeting and m.opponent is not None),
            bye_barred=any(m.bars_bye for m in entries),
            floated=floated(pid),
        )
        for pid, entries in history.items()
    ]
    return history, contenders


def _board_key(a: Contender, b: Contender) -> tuple[int, int, int]:
    high, low = (a, b) if (-a.score, a.tpn) <= (-b.score, b.tpn) else (b, a)
    return (-high.score, -low.score, high.tpn)


def allocate(
    a: Contender, b: Contender, history: dict[int, list[MatchEntry]], *, initial_colour: Colour
) -> tuple[int, int, str]:
    """Article 4: who has white in game 1, and the rule that decided. The higher-ranked player (HRP) has the higher
    score, then the smaller TPN (4.2)."""
    high, other = (a, b) if (-a.score, a.tpn) <= (-b.score, b.tpn) else (b, a)

    def gets(colour: Colour, why: str) -> tuple[int, int, str]:
        return (high.id, other.id, why) if colour == Colour.WHITE else (other.id, high.id, why)

    mine = [m.colour for m in history[high.id] if m.colour is not None]
    theirs = [m.colour for m in history[other.id] if m.colour is not None]
    if not any(m.meeting for m in history[high.id]) and not any(m.meeting for m in history[other.id]):
        colour = initial_colour if high.tpn % 2 else initial_colour.other
        parity = "odd" if high.tpn % 2 else "even"
        return gets(colour, f"4.3.1: first match, the higher-ranked player's TPN {high.tpn} is {parity}")
    whites = (mine.count(Colour.WHITE), theirs.count(Colour.WHITE))
    if whites[0] != whites[1]:
        return gets(Colour.WHITE if whites[0] < whites[1] else Colour.BLACK, "4.3.2: fewer whites")
    for x, y in zip(reversed(mine), reversed(theirs), strict=False):
        if x != y:
            return gets(x.other, "4.3.3: alternating from the most recent match where their colours differed")
    if mine:
        return gets(mine[-1].other, "4.3.4: the higher-ranked player alternates")
    if theirs:
        return gets(theirs[-1], "4.3.5: the opponent alternates")
    colour = initial_colour if high.tpn % 2 else initial_colour.other
    return gets(colour, f"4.3.1: neither has had a colour, the higher-ranked player's TPN {high.tpn}")
