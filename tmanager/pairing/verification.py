"""Checking Double-Swiss pairings: random tournaments to pair, and a checker that pairs each round again.

As bbpPairings' ``-g`` and ``-c`` do for the Dutch system:
:func:`random_double_swiss` plays a whole tournament with random ratings and
results (and a few absences and forfeits), paired by
:func:`~tmanager.pairing.doubleswiss.pair_double_swiss`;
:func:`check_double_swiss` takes any tournament's history, pairs every match
again from the matches before it, and lists where the tournament differs. So
another program's Double-Swiss can be checked against ours, and ours against
itself after a change.

Histories are game entries, two per match (game 1 first), as a TRF file with
two rounds per match holds them. What this module does not know: files.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from tmanager.core import fide
from tmanager.core.results import Colour, TrfResult
from tmanager.core.scoring import STANDARD, Game, PointsSystem
from tmanager.errors import PairingError
from tmanager.pairing.doubleswiss import pair_double_swiss
from tmanager.pairing.model import BLACK, WHITE, Pairing, PlayerState

#: How often, per player and match, a generated tournament has an absence (not paired) or a forfeited match.
ABSENCE = 0.02
FORFEIT = 0.02
#: Draws between equals, in generated results; fewer as the expected score moves from ½.
DRAW_RATE = 0.35


def random_double_swiss(
    count: int, matches: int, rng: random.Random, *, points: PointsSystem = STANDARD
) -> list[PlayerState]:
    """A tournament of ``count`` players over ``matches`` matches, paired by our Double-Swiss, random results.

    Ratings are drawn between 1400 and 2700 and give the pairing numbers
    (highest first); game results follow FIDE's expected score. Now and then a
    player is absent for a match (not paired) or forfeits it (both games).

    A field too small for ``matches`` runs out of pairings: the tournament is then played again from the same
    random numbers over the matches that could be paired, so that its last match is paired as a last match
    (C.04.5 lets the float criteria lapse there) and the history is one that :func:`check_double_swiss` with
    its real number of matches pairs again as it stands.
    """
    if count < 2 or matches < 1:
        raise ValueError("a tournament needs 2 players and 1 match")
    start = rng.getstate()
    players = _play(count, matches, rng, points)
    while 0 < (played := max(len(p.games) for p in players) // 2) < matches:
        matches = played  # fewer each time round, so this ends
        rng.setstate(start)
        players = _play(count, matches, rng, points)
    return players


def _play(count: int, matches: int, rng: random.Random, points: PointsSystem) -> list[PlayerState]:
    """:func:`random_double_swiss`'s tournament, ended by the first match that cannot be paired."""
    ratings = sorted((rng.randrange(1400, 2700) for _ in range(count)), reverse=True)
    games: dict[int, list[Game]] = {i: [] for i in range(1, count + 1)}
    for match in range(1, matches + 1):
        absent = [pid for pid in games if rng.random() < ABSENCE]
        states = [
            PlayerState(pid, tuple(g) + (_ABSENT if pid in absent else ()), ratings[pid - 1], pid)
            for pid, g in games.items()
        ]
        try:
            pairing = pair_double_swiss(states, round_number=match, total_rounds=matches, points=points).pairing
        except PairingError:
            break  # too many matches for the field: the tournament ends here, its absences unrecorded
        for pid in absent:
            games[pid] += _ABSENT
        for white, black in pairing.boards:
            first, second = _match_result(ratings[white - 1], ratings[black - 1], rng)
            games[white] += [Game(black, WHITE, first), Game(black, BLACK, second)]
            games[black] += [Game(white, BLACK, first.opposite), Game(white, WHITE, second.opposite)]
        if pairing.bye is not None:
            games[pairing.bye] += [Game(None, None, TrfResult.PAIRING_BYE), Game(None, None, TrfResult.HALF_BYE)]
    return [PlayerState(pid, tuple(g), ratings[pid - 1], pid) for pid, g in games.items()]


#: A match missed: both games unpaired, no points (TRF's ``Z``).
_ABSENT = (Game(None, None, TrfResult.ZERO_BYE), Game(None, None, TrfResult.ZERO_BYE))


def _match_result(white: int, black: int, rng: random.Random) -> tuple[TrfResult, TrfResult]:
    """Game 1's and game 2's result for the player with white in game 1 (``+``: the other forfeited)."""
    if rng.random() < FORFEIT:
        won = rng.random() < 0.5
        return (TrfResult.FORFEIT_WIN,) * 2 if won else (TrfResult.FORFEIT_LOSS,) * 2
    return _game(white, black, rng), _game(black, white, rng).opposite


def _game(white: int, black: int, rng: random.Random) -> TrfResult:
    expected = fide.expected(white, black)
    draw = DRAW_RATE * (1 - abs(2 * expected - 1))
    x = rng.random()
    return TrfResult.WIN if x < expected - draw / 2 else TrfResult.DRAW if x < expected + draw / 2 else TrfResult.LOSS


@dataclass(frozen=True, slots=True)
class Difference:
    """How one match of a tournament differs from our pairing of it: a sentence."""

    match: int
    text: str


def check_double_swiss(
    players: Sequence[PlayerState],
    *,
    matches: int,
    forbidden: Iterable[Collection[int]] = (),
    points: PointsSystem = STANDARD,
    initial_colour: Colour = WHITE,
) -> list[Difference]:
    """Pair every match of the history again from the matches before it; what differs from the history.

    Boards compare as ``(white, black)`` of game 1; a player without an
    opponent in game 1 and not on the pairing-allocated bye took no part in
    the pairing (a requested bye or an absence). An empty list: every match is
    ours.
    """
    differences: list[Difference] = []
    played = max((len(p.games) for p in players), default=0) // 2
    for match in range(1, min(played, matches) + 1):
        before = [_before(p, match) for p in players]
        actual = _actual(players, match)
        try:
            ours = pair_double_swiss(
                before,
                round_number=match,
                total_rounds=matches,
                forbidden=forbidden,
                points=points,
                initial_colour=initial_colour,
            ).pairing
        except PairingError as exc:
            differences.append(Difference(match, f"no valid pairing: {exc}"))
            continue
        for white, black in sorted(set(ours.boards) - set(actual.boards)):
            differences.append(Difference(match, f"expected {white} {black}, the tournament has not"))
        for white, black in sorted(set(actual.boards) - set(ours.boards)):
            differences.append(Difference(match, f"the tournament has {white} {black}, not expected"))
        if ours.bye != actual.bye:
            differences.append(
                Difference(match, f"bye: expected {ours.bye or 'none'}, the tournament has {actual.bye or 'none'}")
            )
    return differences


def _before(p: PlayerState, match: int) -> PlayerState:
    """The player as the pairing of ``match`` saw it: earlier matches, and this match's entry if not paired."""
    games = p.games[: 2 * match - 2]
    entry = p.games[2 * match - 2] if len(p.games) >= 2 * match - 1 else _ABSENT[0]
    if entry.opponent is None and entry.result is not TrfResult.PAIRING_BYE:
        games += (entry,)  # not paired: a requested bye or an absence
    return PlayerState(p.id, games, p.rating, p.rank)


def _actual(players: Sequence[PlayerState], match: int) -> Pairing:
    """The tournament's pairing of ``match``: game 1's boards and the bye."""
    boards = []
    bye = None
    for p in players:
        if len(p.games) < 2 * match - 1:
            continue
        game = p.games[2 * match - 2]
        if game.opponent is None:
            bye = p.id if game.result is TrfResult.PAIRING_BYE else bye
        elif game.colour == WHITE:
            boards.append((p.id, game.opponent))
    return Pairing(tuple(boards), bye)
