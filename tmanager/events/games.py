"""A division's rounds as each player's TRF round entries: what pairing, points and TRF files read.

Each board gives its two players a :class:`~tmanager.core.scoring.Game` with the
TRF codes of its result, each bye the code of its kind, and each player
without either in a paired round (or absent from an unpaired one) an
absence ``-``. :func:`history` turns the rounds before one into the
:class:`~tmanager.pairing.PlayerState` values the pairing core takes;
:func:`scores` sums every player's points in tenths.
"""

from __future__ import annotations

import dataclasses

from tmanager.core.results import Colour, TrfResult
from tmanager.core.scoring import Game
from tmanager.events.model import Acceleration, Division, Event, Round
from tmanager.pairing import PlayerState
from tmanager.pairing.acceleration import baku_group, baku_points

#: The entry of a round without anything: an absence.
ABSENT = Game(None, None, TrfResult.FORFEIT_LOSS)


def round_games(division: Division, record: Round) -> dict[int, Game]:
    """Every entry of one round as a TRF round entry (absences of a paired round as ``-``)."""
    games: dict[int, Game] = {}
    for b in record.boards:
        w, k = b.result.trf_codes
        if (b.white, b.black) in record.unrated:
            w, k = w.unrated, k.unrated
        games[b.white] = Game(b.black, Colour.WHITE, w)
        games[b.black] = Game(b.white, Colour.BLACK, k)
    for number, kind in record.byes.items():
        games[number] = Game(None, None, kind.trf_code)
    for p in division.players:
        if p.number not in games and (record.paired or not p.plays(record.number)):
            games[p.number] = ABSENT
    return games


def virtual_points(event: Event, division: Division, round_number: int) -> dict[int, int]:
    """The virtual points (tenths) each player carries into ``round_number`` (Baku acceleration), by number;
    players without any are left out."""
    if division.acceleration is not Acceleration.BAKU or not division.players:
        return {}
    ranks = division.ranks()
    last = ranks[division.baku_last] if division.baku_last in ranks else baku_group(len(division.players))
    points = baku_points(round_number, event.total_rounds(division) or round_number, event.scoring)
    return {number: points for number, rank in ranks.items() if rank <= last} if points else {}


def accelerated(event: Event, division: Division, states: list[PlayerState], round_number: int) -> list[PlayerState]:
    """``states`` with the virtual points of rounds 1..``round_number`` (:func:`virtual_points`)."""
    per_round = [virtual_points(event, division, n) for n in range(1, round_number + 1)]
    if not any(per_round):
        return states
    return [dataclasses.replace(s, acceleration=tuple(v.get(s.id, 0) for v in per_round)) for s in states]


def history(division: Division, round_number: int) -> list[PlayerState]:
    """Every player's pairing view before ``round_number``, with this round's entries already fixed.

    Players with a requested bye, a forced game or an absence in ``round_number``
    get that entry, so the pairing engine leaves them out. Virtual points are
    :func:`accelerated`'s.
    """
    per_round = []
    for n in range(1, round_number + 1):
        record = division.find_round(n) or Round(n, paired=n < round_number)
        per_round.append(round_games(division, record))
    ranks = division.ranks()
    states = []
    for p in division.players:
        games = [rg.get(p.number, ABSENT) for rg in per_round[:-1]]
        if p.number in per_round[-1]:
            games.append(per_round[-1][p.number])
        states.append(PlayerState(p.number, tuple(games), p.rating, ranks[p.number]))
    return states


def games_of(division: Division, number: int, upto: int) -> list[Game]:
    """One player's entries of rounds 1..``upto``."""
    return [round_games(division, r).get(number, ABSENT) for r in division.rounds if r.number <= upto]


def scores(event: Event, division: Division, rounds: int | None = None) -> dict[int, int]:
    """Every player's points in tenths after ``rounds`` rounds (all paired rounds by default)."""
    upto = division.paired_rounds if rounds is None else rounds
    totals = {p.number: 0 for p in division.players}
    for record in division.rounds:
        if record.paired and record.number <= upto:
            for number, game in round_games(division, record).items():
                totals[number] = totals.get(number, 0) + event.scoring.points(game)
    return totals


def score(event: Event, division: Division, number: int, rounds: int | None = None) -> int:
    """One player's points in tenths after ``rounds`` rounds (see :func:`scores` for all of them)."""
    return scores(event, division, rounds).get(number, 0)
