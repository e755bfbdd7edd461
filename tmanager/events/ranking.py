"""The standings of a division: chess by points and FIDE tie-breaks, score-based by wins and spread.

:func:`tiebreak_standings` hands each player's rounds to :mod:`tmanager.core.tiebreaks`
(:func:`round_results` is that bridge); :func:`wins_standings` ranks the pure
core's tally of the scorecards (:func:`tmanager.pairing.scored.tally`). Players
level on everything share a rank.
"""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass

from tmanager.core import tiebreaknames, tiebreaks
from tmanager.core.categories import Category
from tmanager.core.playerfields import Sex
from tmanager.core.results import TrfResult, format_points
from tmanager.core.tiebreaks import RoundKind
from tmanager.errors import StateError
from tmanager.events.games import round_games, scores
from tmanager.events.model import Division, Event, Player
from tmanager.events.scorecards import check_upto, scorecards, scored_games
from tmanager.pairing.scored import Entrant, tally

#: Tie-break kinds of the rounds without an opponent, by TRF code (anything else is an absence).
_ROUND_KINDS = {
    TrfResult.PAIRING_BYE: RoundKind.PAIRING_BYE, TrfResult.FULL_BYE: RoundKind.FULL_BYE,
    TrfResult.HALF_BYE: RoundKind.HALF_BYE, TrfResult.ZERO_BYE: RoundKind.ZERO_BYE,
}  # fmt: skip
#: Tie-break kinds of the rounds with an opponent but no game (anything else was played).
_FORFEIT_KINDS = {TrfResult.FORFEIT_WIN: RoundKind.FORFEIT_WIN, TrfResult.FORFEIT_LOSS: RoundKind.FORFEIT_LOSS}


# -- chess divisions ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TiebreakStanding:
    """One line of a chess division's standings: rank (shared by exact ties), player, points in tenths,
    tie-break values in the event's order."""

    rank: int
    player: Player
    points: int
    values: tuple[float | None, ...]


@dataclass(frozen=True, slots=True)
class Group:
    """Players ranked among themselves: a prize category of the event, or a flag (a free class)."""

    name: str
    members: frozenset[int]


def event_year(event: Event) -> int:
    """The year categories count ages in: the event's start (or end), else this year."""
    date = event.start or event.end
    return int(date[:4]) if date else datetime.date.today().year


def category(event: Event, division: Division, name: str) -> Group:
    """The players of ``division`` in category ``name`` (U18, S50, women, unrated, 1800-1999…)."""
    try:
        found = Category.parse(name)
    except ValueError as exc:
        raise StateError(str(exc)) from None
    year = event_year(event)
    members = frozenset(
        p.number for p in division.players
        if found.includes(year=year, birth_year=p.birth_year, sex=Sex.WOMAN if p.woman else p.sex, rating=p.rating)
    )  # fmt: skip
    return Group(found.name, members)


def flag(division: Division, name: str) -> Group:
    """The players of ``division`` with flag ``name``."""
    return Group(name, frozenset(p.number for p in division.players if name in p.flags))


def tiebreak_names(event: Event) -> tuple[tiebreaknames.Tiebreak, ...]:
    """The event's tie-breaks, as FIDE writes them."""
    return tuple(tiebreaknames.parse_all(event.tiebreaks))


def _ratings(division: Division) -> dict[str, float]:
    """The ratings the tie-breaks count, by player number as text; an unrated player has none."""
    return {str(p.number): float(p.rating) for p in division.players if p.rating}


def dropped_tiebreaks(event: Event, division: Division) -> list[tiebreaknames.Tiebreak]:
    """The event's rating-based tie-breaks that C.07 drops in ``division`` (unrated players, and no ``Un``)."""
    return tiebreaks.dropped(tiebreak_names(event), (str(p.number) for p in division.players), _ratings(division))


def round_results(
    event: Event, division: Division, upto: int, *, pending: bool = False
) -> dict[str, list[tiebreaks.RoundResult]]:
    """Each player's rounds as the tie-break module takes them (keys are player numbers as text). A game still
    being played counts as nothing yet, neither a game lost nor a round unplayed: it is left out, but ``pending``
    (Fore Buchholz's rounds, where every game of the last round counts as a draw)."""
    table: dict[str, list[tiebreaks.RoundResult]] = {str(p.number): [] for p in division.players}
    for record in division.rounds:
        if not record.paired or record.number > upto:
            continue
        for number, game in round_games(division, record).items():
            points = event.scoring.points(game) / 10
            if game.opponent is None:
                kind = _ROUND_KINDS.get(game.result, RoundKind.ABSENT)
                table[str(number)].append(tiebreaks.RoundResult(points, None, None, kind))
                continue
            if game.result is TrfResult.NOT_PLAYED and not pending:
                continue
            played = _FORFEIT_KINDS.get(game.result, RoundKind.PLAYED)
            table[str(number)].append(tiebreaks.RoundResult(points, str(game.opponent), game.colour, played))
    return table


def tiebreak_standings(
    event: Event, division: Division, upto: int | None = None, *, among: Group | None = None
) -> list[TiebreakStanding]:
    """The ranking after round ``upto`` (the last paired round by default) by points and the event's tie-breaks;
    with ``among``, only that group's players (ranked among themselves)."""
    upto = division.paired_rounds if upto is None else upto
    if not 0 <= upto <= division.paired_rounds:
        raise StateError(f"round {upto} is not paired; standings exist for rounds 0-{division.paired_rounds}",
                         field="round")
    table = round_results(event, division, upto)
    final = upto > 0 and upto == event.total_rounds(division)
    ranked = tiebreaks.rank(
        table,
        event.tiebreaks,
        ratings=_ratings(division),
        round_robin=division.round_robin,
        win=event.scoring.win / 10,
        draw=event.scoring.draw / 10,
        final=final,
        rules=tiebreaknames.rules_for(event.start),
        fore_event=round_results(event, division, upto, pending=True) if final else None,
    )
    by_number = {str(p.number): p for p in division.players}
    points = scores(event, division, upto)
    lines: list[TiebreakStanding] = []
    previous: tuple[float | None, ...] | None = None
    shown = 0
    for r in ranked:
        player = by_number[r.name]
        if among is not None and player.number not in among.members:
            continue
        shown += 1
        key = (r.points, *r.values)
        rank = lines[-1].rank if previous == key and lines else shown
        previous = key
        lines.append(TiebreakStanding(rank, player, points[player.number], r.values))
    return _outside_a_tie(lines, tiebreak_names(event)) if among is not None else lines


def _outside_a_tie(
    lines: list[TiebreakStanding], names: tuple[tiebreaknames.Tiebreak, ...]
) -> list[TiebreakStanding]:
    """A group's lines with DE blank where the player ties nobody of the group: DE is the place within the tied
    players, blank outside a tie, and a player tied overall with others outside the group showed their 0 (not
    separated) alone in the group's list."""
    for i, tb in enumerate(names):
        if tb.code != "DE":
            continue
        tied: dict[tuple[object, ...], int] = {}
        for line in lines:
            key = (line.points, *line.values[:i])
            tied[key] = tied.get(key, 0) + 1
        lines = [
            line if tied[(line.points, *line.values[:i])] > 1
            else dataclasses.replace(line, values=(*line.values[:i], None, *line.values[i + 1:]))
            for line in lines
        ]  # fmt: skip
    return lines


# -- score-based divisions ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreStanding:
    """One line of a score-based division's standings: wins, losses and spread from the core; averages of the
    games played."""

    rank: int
    player: Player
    entrant: Entrant
    scored: int  # points scored in games played over the board
    conceded: int
    games: int

    @property
    def losses(self) -> float:
        """Games lost, a tie counting ½; a round without an opponent by the sign of its spread."""
        return self.entrant.losses

    @property
    def average(self) -> float | None:
        """Average score per game played (not byes or forfeits)."""
        return self.scored / self.games if self.games else None

    @property
    def opponents_average(self) -> float | None:
        """Average score of the opponents in those games."""
        return self.conceded / self.games if self.games else None


def wins_standings(division: Division, upto: int | None = None) -> list[ScoreStanding]:
    """The standings after round ``upto`` (default: the last paired): wins, then spread, rating, number.

    Players level on wins and spread share a rank. Results not entered yet count as nothing.
    """
    last = check_upto(division, upto)
    entrants = tally(scorecards(division, last))
    totals = {p.number: [0, 0, 0] for p in division.players}
    for _, _, b in scored_games(division, last):
        assert b.scores is not None
        for number, own, other in ((b.white, *b.scores), (b.black, *reversed(b.scores))):
            totals[number][0] += own
            totals[number][1] += other
            totals[number][2] += 1
    lines: list[ScoreStanding] = []
    for place, e in enumerate(entrants, 1):
        tied = bool(lines) and (lines[-1].entrant.wins, lines[-1].entrant.spread) == (e.wins, e.spread)
        scored, conceded, games = totals[e.id]
        lines.append(
            ScoreStanding(lines[-1].rank if tied else place, division.player(e.id), e, scored, conceded, games)
        )
    return lines


def record_text(line: ScoreStanding) -> str:
    """``3½-1½ +240``: wins, losses and spread."""
    return f"{format_points(round(line.entrant.wins * 10))}-{format_points(round(line.losses * 10))} " + (
        f"{line.entrant.spread:+d}"
    )
