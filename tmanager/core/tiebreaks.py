"""Tie-breaks of the FIDE Tie-Break Regulations (2023 onward), with their rules for unplayed rounds.

Pure functions over plain round-by-round data: for each player, one
:class:`RoundResult` per round. Names (FIDE's acronyms):

========  ==================================================================
``BH``    Buchholz: sum of the opponents' (adjusted) scores
``BH-C1`` Buchholz Cut-1: without the least significant value
``BH-M1`` Median Buchholz: without the least and the most significant value
``SB``    Sonneborn-Berger: opponents' scores weighted by the result against them
``DE``    direct encounter among the tied players
``WIN``   rounds won, with or without playing (forfeit wins and full-point byes count)
``WON``   games won over the board
``BPG``   games played with black
``BWG``   games won with black
``ARO``   average rating of the opponents met over the board (rounded)
``TPR``   tournament performance rating: ARO + FIDE's dp for the score
``PS``    progressive score: sum of the running score after each round
``EBH``   extended Buchholz (Chaos): sum of the opponents' Buchholz
========  ==================================================================

Unplayed rounds (Article 16): a *voluntarily unplayed round* (VUR: half- or
zero-point bye, forfeit loss, absence) is what a player chose not to play;
forfeit wins, pairing-allocated and full-point byes are not VURs.

* In the player's own Buchholz/SB, every round without an over-the-board
  opponent counts as a game against a dummy opponent whose score equals the
  player's own final score (Swiss); in a round robin, forfeits count the
  scheduled opponent as if played.
* An opponent's score enters others' Buchholz *adjusted*: the opponent's VURs
  after the last round in which he played or was paired count as draws.
* Cuts remove VURs first, then the lowest values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

RoundKind = Literal[
    "played", "forfeit-win", "forfeit-loss", "pairing-bye", "full-bye", "half-bye", "zero-bye", "absent"
]
_VUR = frozenset({"forfeit-loss", "half-bye", "zero-bye", "absent"})

TIEBREAKS = ("BH", "BH-C1", "BH-M1", "SB", "DE", "WIN", "WON", "BPG", "BWG", "ARO", "TPR", "PS", "EBH")

#: FIDE's conversion of a percentage score (0..100) to a rating difference dp.
_DP = (
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7, 0,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One player's round: the points scored, against whom, with which colour, and how."""

    points: float
    opponent: str | None = None
    colour: Literal["w", "b", ""] = ""
    kind: RoundKind = "played"

    @property
    def over_the_board(self) -> bool:
        return self.kind == "played" and self.opponent is not None

    @property
    def voluntary(self) -> bool:
        """A voluntarily unplayed round (VUR)."""
        return self.kind in _VUR


@dataclass(frozen=True, slots=True)
class Ranked:
    """One line of a ranking: the player, the score and the tie-break values in the order asked."""

    name: str
    points: float
    values: tuple[float, ...]


Event = Mapping[str, Sequence[RoundResult]]


def dp(fraction: float) -> int:
    """FIDE's rating difference for a score fraction (rounded to whole percent)."""
    percent = min(100, max(0, int(fraction * 100 + 0.5 + 1e-9)))
    return _DP[percent] if percent <= 50 else -_DP[100 - percent]


def _score(event: Event) -> dict[str, float]:
    return {name: sum(r.points for r in rounds) for name, rounds in event.items()}


def _adjusted(event: Event, *, draw: float, round_robin: bool) -> dict[str, float]:
    """Scores as they enter opponents' Buchholz: trailing VURs count as draws."""
    adjusted = {}
    for name, rounds in event.items():
        last = max((i for i, r in enumerate(rounds) if not r.voluntary), default=-1)
        total = 0.0
        for i, r in enumerate(rounds):
            trailing = i > last and r.opponent is None
            total += (0.0 if round_robin else draw) if trailing else r.points
        adjusted[name] = total
    return adjusted


def _contributions(
    event: Event, name: str, adjusted: Mapping[str, float], own: float, *, round_robin: bool
) -> list[tuple[float, float, bool]]:
    """Per round: (opponent's score, player's points, VUR?) as Buchholz and SB see it."""
    values = []
    for r in event[name]:
        if r.over_the_board or (round_robin and r.opponent is not None):
            values.append((adjusted.get(r.opponent or "", 0.0), r.points, False))
        elif not round_robin:
            values.append((own, r.points, r.voluntary))
    return values


def _cut(values: list[tuple[float, bool]], low: int, high: int) -> float:
    """Sum after cutting ``low`` least significant values (VURs first) and ``high`` highest ones."""
    rest = sorted(values, key=lambda v: (not v[1], v[0]))
    rest = rest[low:] if any(v[1] for v in rest[:low]) else sorted(values)[low:]
    rest = sorted(rest)
    if high:
        rest = rest[:-high] if len(rest) > high else []
    return sum(v[0] for v in rest)


def compute(
    event: Event,
    names: Sequence[str],
    *,
    ratings: Mapping[str, float] | None = None,
    round_robin: bool = False,
    win: float = 1.0,
    draw: float | None = None,
) -> dict[str, dict[str, float]]:
    """Every tie-break in ``names`` (except ``DE``, which depends on the tie) for every player.

    ``win`` and ``draw`` are what a win and a draw score (a draw: half a win unless given).
    """
    unknown = [n for n in names if n not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tie-break {unknown[0]!r}; choose from {', '.join(TIEBREAKS)}")
    score = _score(event)
    adjusted = _adjusted(event, draw=win / 2 if draw is None else draw, round_robin=round_robin)
    buchholz = {}
    per_player: dict[str, dict[str, float]] = {p: {} for p in event}
    for p in event:
        contributions = _contributions(event, p, adjusted, score[p], round_robin=round_robin)
        bh_values = [(opp, vur) for opp, _, vur in contributions]
        buchholz[p] = sum(v for v, _ in bh_values)
        table = per_player[p]
        table["BH"] = buchholz[p]
        table["BH-C1"] = _cut(bh_values, 1, 0)
        table["BH-M1"] = _cut(bh_values, 1, 1)
        table["SB"] = sum(opp * points / win for opp, points, _ in contributions)
        rounds = event[p]
        table["WIN"] = sum(1 for r in rounds if r.points >= win)
        table["WON"] = sum(1 for r in rounds if r.over_the_board and r.points >= win)
        table["BPG"] = sum(1 for r in rounds if r.over_the_board and r.colour == "b")
        table["BWG"] = sum(1 for r in rounds if r.over_the_board and r.colour == "b" and r.points >= win)
        running = progressive = 0.0
        for r in rounds:
            running += r.points
            progressive += running
        table["PS"] = progressive
        table["ARO"], table["TPR"] = _performance(rounds, ratings or {}, win)
    for p in event:
        per_player[p]["EBH"] = sum(buchholz.get(r.opponent or "", 0.0) for r in event[p] if r.over_the_board)
    return {p: {n: per_player[p][n] for n in names if n != "DE"} for p in event}


def _performance(rounds: Sequence[RoundResult], ratings: Mapping[str, float], win: float) -> tuple[float, float]:
    rated = [r for r in rounds if r.over_the_board and r.opponent in ratings]
    if not rated:
        return 0.0, 0.0
    aro = int(sum(ratings[r.opponent or ""] for r in rated) / len(rated) + 0.5 + 1e-9)
    fraction = sum(r.points for r in rated) / (win * len(rated))
    return float(aro), float(aro + dp(fraction))


def direct_encounter(event: Event, tied: Sequence[str], *, win: float = 1.0) -> dict[str, float]:
    """DE among ``tied`` players: a higher value ranks first; equal values stay tied.

    If all of them met, the points scored against each other (averaged when
    they met more than once) order them. If not, a player ranks ahead only
    when no other can still reach his value by winning the missing games.
    """
    group = set(tied)
    scored: dict[str, float] = {}
    met: dict[str, int] = {}
    for p in tied:
        per_opponent: dict[str, list[float]] = {}
        for r in event[p]:
            if r.over_the_board and r.opponent in group:
                per_opponent.setdefault(r.opponent or "", []).append(r.points)
        scored[p] = sum(sum(v) / len(v) for v in per_opponent.values())
        met[p] = len(per_opponent)
    if all(met[p] == len(tied) - 1 for p in tied):
        return scored
    best_possible = {p: scored[p] + (len(tied) - 1 - met[p]) * win for p in tied}
    order = sorted(tied, key=lambda p: (-scored[p], -best_possible[p]))
    values = dict.fromkeys(tied, 0.0)
    for position, p in enumerate(order):
        others = order[position + 1 :]
        if not others or scored[p] > max(best_possible[q] for q in others):
            values[p] = float(len(order) - position)
        else:
            break
    return values


def rank(
    event: Event,
    names: Sequence[str],
    *,
    ratings: Mapping[str, float] | None = None,
    round_robin: bool = False,
    win: float = 1.0,
    draw: float | None = None,
) -> list[Ranked]:
    """Players ordered by score, then by each tie-break of ``names`` in turn (see :func:`compute`)."""
    values = compute(event, names, ratings=ratings, round_robin=round_robin, win=win, draw=draw)
    score = _score(event)
    keys: dict[str, list[float]] = {p: [score[p]] for p in event}
    for name in names:
        if name == "DE":
            column: dict[str, float] = {}
            for group in _ties(list(event), keys):
                column.update(direct_encounter(event, group, win=win) if len(group) > 1 else {group[0]: 0.0})
        else:
            column = {p: values[p][name] for p in event}
        for p in event:
            keys[p].append(column[p])
    order = sorted(event, key=lambda p: [-k for k in keys[p]])
    return [Ranked(p, score[p], tuple(keys[p][1:])) for p in order]


def _ties(players: Sequence[str], keys: Mapping[str, list[float]]) -> list[list[str]]:
    """Players grouped by equal keys so far."""
    by_key: dict[tuple[float, ...], list[str]] = {}
    for p in players:
        by_key.setdefault(tuple(keys[p]), []).append(p)
    return list(by_key.values())
