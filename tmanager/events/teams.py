"""A team division's rounds as team matches: boards from lineups, match results, standings and board prizes.

A round of a team division holds its matches ``(first, second)`` by team
number and each team's lineup (player numbers in board order, 0 for a board
left empty). Once both lineups of a paired match are in, :func:`place_boards`
makes its games: on board ``i`` the first team's player has white when ``i`` is
odd (FIDE's alternating colours: the first team has white on boards 1, 3, …), a
player facing an empty board wins it by forfeit (a full-point bye in the
player's record). The games are ordinary boards of the round, so results are
entered, kept and reported as in any chess division; :func:`team_rounds` reads
them back as each team's :class:`~tmanager.core.teams.TeamRound`, and
:func:`standings` and :func:`board_prizes` rank teams and players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tmanager.core import teamtiebreaks
from tmanager.core.results import ByeKind
from tmanager.core.teams import (
    MatchPoints,
    TeamRound,
    TeamRoundKind,
    TeamScore,
    TeamTotals,
    bye_round,
    forfeited,
    match_rounds,
    totals,
)  # fmt: skip
from tmanager.errors import StateError
from tmanager.events.games import round_games
from tmanager.events.model import Board, Division, Event, Round, Team, TeamBye, TeamSettings
from tmanager.pairing.teamswiss import TeamEntrant


def settings(division: Division) -> TeamSettings:
    """The division's team settings; a :class:`StateError` for a division without teams."""
    if division.team_settings is None:
        raise StateError(f"division {division.name!r} is not a team division (its file sets no team_size)")
    return division.team_settings


def scoring(division: Division) -> MatchPoints:
    win, draw, loss = settings(division).match_points
    return MatchPoints(10 * win, 10 * draw, 10 * loss)


def team_of(division: Division, player: int) -> Team | None:
    """The team whose roster holds ``player``, if any."""
    return next((t for t in division.teams if player in t.players), None)


def team_ranks(division: Division) -> dict[int, int]:
    """Teams' pairing numbers: by the average rating of their first ``boards`` players (highest first), then
    by team number."""
    boards = settings(division).team_size

    def strength(team: Team) -> float:
        ratings = [division.player(p).rating for p in team.players[:boards]]
        return sum(ratings) / len(ratings) if ratings else 0.0

    order = sorted(division.teams, key=lambda t: (-strength(t), t.number))
    return {t.number: i for i, t in enumerate(order, 1)}


# -- a round's boards ------------------------------------------------------------------------------


def pairing_of(first: Sequence[int], second: Sequence[int]) -> list[tuple[int, int, int]]:
    """A match's boards as ``(board, white, black)``, 0 for an empty seat: odd boards give the first team white."""
    seats = []
    for i, (a, b) in enumerate(zip(first, second, strict=True), 1):
        seats.append((i, a, b) if i % 2 else (i, b, a))
    return seats


def place_boards(division: Division, record: Round) -> None:
    """The round's games from its matches and lineups, match by match in board order; a board whose two players
    are unchanged keeps its result. A match waiting for a lineup has no games yet."""
    results = {(b.white, b.black): b.result for b in record.boards}
    record.boards = []
    record.byes = {p: k for p, k in record.byes.items() if k != ByeKind.FULL}
    for first, second in record.matches:
        if first not in record.lineups or second not in record.lineups:
            continue
        for _, white, black in pairing_of(record.lineups[first], record.lineups[second]):
            if white and black:
                board = Board(white, black)
                board.result = results.get((white, black), board.result)
                record.boards.append(board)
            elif white or black:
                record.byes[white or black] = ByeKind.FULL  # facing an empty board: won by forfeit


def first_boards(division: Division, roster: Sequence[int], round_number: int) -> list[int]:
    """A roster's first boards in a round: its first players who play the round, then empty boards (0) if too
    few do."""
    size = settings(division).team_size
    present = [p for p in roster if division.player(p).plays(round_number)][:size]
    return present + [0] * (size - len(present))


def default_lineups(division: Division, record: Round) -> list[Team]:
    """Give each team of the round's matches that has no lineup its roster's first boards; the teams short of
    players, to warn."""
    short = []
    for team in (division.team(t) for m in record.matches for t in m if t not in record.lineups):
        record.lineups[team.number] = first_boards(division, team.players, record.number)
        if 0 in record.lineups[team.number]:
            short.append(team)
    return short


def lineup_open(record: Round, team: int) -> bool:
    """Whether a team's lineup in a round may still change: its match there (if paired) has no result."""
    match = next((m for m in record.matches if team in m), None)
    return match is None or all(b is None or b.result.pending for _, b, _, _ in match_boards(record, match))


def lineup_round(division: Division, team: int) -> int:
    """The round a team's lineup goes to when none is named: the last paired one while the team's match there
    has no result yet (its lineup may still change), else the next."""
    if division.paired_rounds:
        record = division.round(division.paired_rounds)
        if any(team in m for m in record.matches) and lineup_open(record, team):
            return record.number
    return division.paired_rounds + 1


def match_boards(record: Round, match: tuple[int, int]) -> list[tuple[int, Board | None, int, int]]:
    """Each board of a match: ``(board number, the game or None, white, black)`` (0: an empty seat)."""
    first, second = match
    if first not in record.lineups or second not in record.lineups:
        return []
    seats = pairing_of(record.lineups[first], record.lineups[second])
    return [(i, record.seat(w) if w and b else None, w, b) for i, w, b in seats]


def match_of_board(record: Round, board: Board) -> tuple[int, int] | None:
    """The ``(match index from 1, board number)`` of a game of the round."""
    for index, match in enumerate(record.matches, 1):
        for number, game, _, _ in match_boards(record, match):
            if game is board:
                return index, number
    return None


# -- team rounds, standings ---------------------------------------------------------------------------


def team_rounds(event: Event, division: Division, upto: int | None = None) -> dict[int, list[TeamRound]]:
    """Every team's rounds up to ``upto`` (default: the last paired), as the standings read them."""
    last = division.paired_rounds if upto is None else upto
    rules = settings(division)
    points = scoring(division)
    table: dict[int, list[TeamRound]] = {t.number: [] for t in division.teams}
    for record in division.rounds:
        if not record.paired or record.number > last:
            continue
        games = round_games(division, record)
        for first, second in record.matches:
            boards: list[tuple[int | None, int | None]] = [(None, None)] * rules.team_size
            empty = [0, 0]
            if first in record.lineups and second in record.lineups:
                boards = []
                for mine, theirs in zip(record.lineups[first], record.lineups[second], strict=True):
                    game = record.seat(mine) if mine and theirs else None
                    sides: list[int | None] = []
                    for side, player in enumerate((mine, theirs)):
                        if not player:
                            empty[side] += 1
                            sides.append(0)
                        elif game is not None and game.result.pending:
                            sides.append(None)
                        else:
                            sides.append(event.scoring.points(games[player]))
                    boards.append((sides[0], sides[1]))
            a, b = match_rounds(record.number, first, second, boards, points)
            if empty[0] == rules.team_size and empty[1] < rules.team_size:
                a, b = forfeited(a, won=False), forfeited(b, won=True)
            elif empty[1] == rules.team_size and empty[0] < rules.team_size:
                a, b = forfeited(a, won=True), forfeited(b, won=False)
            table[first].append(a)
            table[second].append(b)
        for team, kind in record.team_byes.items():
            table[team].append(team_bye_round(event, division, record.number, kind))
        seated = {t for m in record.matches for t in m} | set(record.team_byes)
        for team in table:
            if team not in seated:
                table[team].append(TeamRound(record.number, None, 0, 0, points.loss, TeamRoundKind.ABSENT))
    return table


def team_bye_round(event: Event, division: Division, round_number: int, kind: ByeKind) -> TeamRound:
    """A team's bye: the pairing-allocated one counts as the division's ``team_bye``; the others as they say."""
    rules, points = settings(division), scoring(division)
    requested = {ByeKind.FULL: TeamBye.WIN, ByeKind.HALF: TeamBye.DRAW}
    outcome = rules.team_bye if kind == ByeKind.PAIRING else requested.get(kind, TeamBye.LOSS)
    per_board = {TeamBye.WIN: event.scoring.win, TeamBye.DRAW: event.scoring.draw, TeamBye.LOSS: 0}[outcome]
    match = {TeamBye.WIN: points.win, TeamBye.DRAW: points.draw, TeamBye.LOSS: points.loss}[outcome]
    return bye_round(round_number, match_points=match, game_points=per_board * rules.team_size)


@dataclass(frozen=True, slots=True)
class TeamStanding:
    """One line of the team standings: rank (shared by exact ties), the team, its totals, its tie-break values."""

    rank: int
    team: Team
    totals: TeamTotals
    values: tuple[float, ...]


def standings(event: Event, division: Division, upto: int | None = None) -> list[TeamStanding]:
    """Teams by primary score and the division's team tie-breaks after round ``upto`` (default: the last paired)."""
    last = division.paired_rounds if upto is None else upto
    if not 0 <= last <= division.paired_rounds:
        raise StateError(f"round {last} is not paired; standings exist for rounds 0-{division.paired_rounds}")
    rules = settings(division)
    rounds = team_rounds(event, division, last)
    ranked = teamtiebreaks.rank(rounds, rules.team_tiebreaks, primary=rules.primary, win=scoring(division).win)
    lines: list[TeamStanding] = []
    previous: tuple[float, ...] | None = None
    for place, r in enumerate(ranked, 1):
        key = (r.score, *r.values)
        rank = lines[-1].rank if lines and key == previous else place
        previous = key
        lines.append(TeamStanding(rank, division.team(r.team), totals(rounds[r.team]), r.values))
    return lines


def entrants(event: Event, division: Division, round_number: int) -> list[TeamEntrant]:
    """The teams as the team Swiss pairs them before ``round_number``: scores, board-1 colours, floats."""
    rules = settings(division)
    rounds = team_rounds(event, division, round_number - 1)
    ranks = team_ranks(division)

    def score(team: int, upto: int, kind: TeamScore) -> int:
        kept = [r for r in rounds[team] if r.round <= upto]
        if kind is TeamScore.MATCH:
            return sum(r.match_points or 0 for r in kept)
        return sum(r.game_points for r in kept)

    entries = []
    for team in division.teams:
        own = rounds[team.number]
        previous = own[-1] if own else None
        floated = bool(
            previous and previous.met and previous.opponent is not None
            and score(team.number, round_number - 2, rules.primary)
            != score(previous.opponent, round_number - 2, rules.primary)
        )  # fmt: skip
        entries.append(
            TeamEntrant(
                id=team.number,
                tpn=ranks[team.number],
                primary=score(team.number, round_number - 1, rules.primary),
                secondary=score(team.number, round_number - 1, rules.primary.other),
                colours=tuple(r.board_one for r in own if r.met),
                met=frozenset(r.opponent for r in own if r.met and r.opponent is not None),
                matches=sum(1 for r in own if r.met),
                bye_barred=any(r.kind in (TeamRoundKind.BYE, TeamRoundKind.FORFEIT_WIN) for r in own),
                floated=floated,
            )
        )
    return entries


# -- board prizes ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardScore:
    """A player's games on one board: points (tenths) and games played over the board."""

    board: int
    player: int
    team: int
    points: int
    games: int

    @property
    def percentage(self) -> float:
        return 100 * self.points / (10 * self.games) if self.games else 0.0


def board_prizes(event: Event, division: Division, upto: int | None = None) -> dict[int, list[BoardScore]]:
    """For each board, the players who played on it (games over the board only), best first: the highest
    percentage, then the most points, then the player's number. Players with fewer than ``prize_games`` games
    on a board are left out of its list."""
    last = division.paired_rounds if upto is None else upto
    rules = settings(division)
    scores: dict[tuple[int, int], list[int]] = {}
    team_by_player = {p: t.number for t in division.teams for p in t.players}
    for record in division.rounds:
        if not record.paired or record.number > last:
            continue
        games = round_games(division, record)
        for match in record.matches:
            for number, game, white, black in match_boards(record, match):
                if game is None or game.result.pending or game.result.forfeit:
                    continue
                for player in (white, black):
                    entry = scores.setdefault((number, player), [0, 0])
                    entry[0] += event.scoring.points(games[player])
                    entry[1] += 1
    table: dict[int, list[BoardScore]] = {n: [] for n in range(1, rules.team_size + 1)}
    for (board, player), (points, played) in scores.items():
        if played >= rules.prize_games and board in table:
            table[board].append(BoardScore(board, player, team_by_player.get(player, 0), points, played))
    for lines in table.values():
        lines.sort(key=lambda s: (-s.percentage, -s.points, s.player))
    return table
