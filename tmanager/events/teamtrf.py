"""A team division as TRF records, and back: the team records tmanager writes (TRF-2026's ``352``, ``362``,
``310``, ``320``, ``330``, ``300`` and ``802``; TRF-16's ``013``), and the team division of a TRF another program
wrote, rebuilt from those records and the players' games (:func:`teams_from_trf`).

The records' syntax is :mod:`tmanager.formats.trf_teams`'s; the division's matches, boards and standings are
:mod:`tmanager.events.teams`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tmanager.core.results import ByeKind, Colour, TrfResult
from tmanager.core.teams import TeamRoundKind, TeamScore, totals
from tmanager.errors import ConfigError
from tmanager.events.model import Division, Event, Round, Team, TeamBye, TeamSettings
from tmanager.events.teams import place_boards, scoring, settings, standings, team_bye_round, team_rounds
from tmanager.formats import trf, trf_records, trf_teams

#: A team's rounds of a forfeited match, won or lost.
_FORFEITED = frozenset({TeamRoundKind.FORFEIT_WIN, TeamRoundKind.FORFEIT_LOSS})


def _ranked(players: Sequence[int], starting: Mapping[int, int]) -> tuple[int, ...]:
    """A roster or lineup by starting rank; an empty board (0) stays 0."""
    return tuple(starting[p] if p else 0 for p in players)


def trf16_team_records(division: Division, starting: Mapping[int, int]) -> dict[str, tuple[Any, ...]]:
    """TRF-16's team records: an ``013`` line per team, by team number, with its roster in board order (players by
    ``starting`` rank)."""
    numbered = sorted(division.teams, key=lambda t: t.number)
    rosters = tuple(trf_teams.TeamRoster(t.name, _ranked(t.players, starting)) for t in numbered)
    return {trf_teams.TEAM_ROSTERS.code: rosters}


def trf_team_records(event: Event, division: Division, starting: Mapping[int, int]) -> dict[str, tuple[Any, ...]]:
    """The team records of TRF-2026 for a team division, by code (:mod:`tmanager.formats.trf_teams`, and
    :class:`~tmanager.formats.trf_records.Forfeit`): ``352``, ``362``, a ``310`` per team, ``320`` for the
    pairing-allocated byes, ``330`` per forfeited match, ``300`` per lineup that is not the roster's first boards
    in order, and an ``802`` per team. Players are named by their ``starting`` ranks, the file's."""
    rules = settings(division)
    points = scoring(division)
    last = division.paired_rounds
    rounds = team_rounds(event, division, last)
    places = {s.team.number: s.rank for s in standings(event, division, last)}
    numbered = sorted(division.teams, key=lambda t: t.number)
    teams = []
    for t in numbered:
        total = totals(rounds[t.number])
        ratings = [division.player(p).rating for p in t.players[: rules.team_size]]
        teams.append(trf_teams.TrfTeam(
            number=t.number, name=t.name, nickname=t.short,
            strength=sum(ratings) // len(ratings) if ratings else 0,
            match_points=total.match_points, game_points=total.game_points, rank=places[t.number],
            players=_ranked(t.players[: trf_teams.ROSTER_LIMIT], starting),
        ))  # fmt: skip
    paired = [r for r in division.rounds if r.paired]
    byes = tuple(next((t for t, k in r.team_byes.items() if k == ByeKind.PAIRING), None) for r in paired)
    bye = team_bye_round(event, division, 0, ByeKind.PAIRING)
    forfeits: list[trf_records.Forfeit] = []
    lineups: list[trf_teams.Lineup] = []
    for record in paired:
        for first, second in record.matches:
            mine = next(r for r in rounds[first] if r.round == record.number)
            if mine.kind in _FORFEITED:
                theirs = next(r for r in rounds[second] if r.round == record.number)
                kind = trf_records.ForfeitCode.WHITE_WINS
                if mine.kind is TeamRoundKind.FORFEIT_LOSS:
                    kind = (
                        trf_records.ForfeitCode.BLACK_WINS if theirs.kind is TeamRoundKind.FORFEIT_WIN
                        else trf_records.ForfeitCode.BOTH_LOSE
                    )  # fmt: skip
                forfeits.append(trf_records.Forfeit(kind, record.number, first, second))
        for first, second in record.matches:
            for team, opponent in ((first, second), (second, first)):
                lineup = record.lineups.get(team)
                if lineup is not None and lineup != division.team(team).players[: rules.team_size]:
                    lineups.append(trf_teams.Lineup(record.number, team, opponent, _ranked(lineup, starting)))
    bye_types = {ByeKind.PAIRING: "PAB", ByeKind.FULL: "FPB", ByeKind.HALF: "HPB"}
    summaries = []
    for t in numbered:
        total = totals(rounds[t.number])
        entries = []
        for record, r in zip(paired, rounds[t.number], strict=True):
            if r.opponent is None:
                bye_type = bye_types.get(record.team_byes.get(t.number, ByeKind.ZERO), "ZPB")
                entries.append(trf_teams.TeamRoundEntry(bye_type, "", r.game_points))
                continue
            forfeit = r.kind in _FORFEITED
            entries.append(trf_teams.TeamRoundEntry(r.opponent, r.board_one, r.game_points,
                                                    forfeit))  # fmt: skip
        summaries.append(trf_teams.TeamSummary(t.number, t.short, total.match_points, total.game_points,
                                               tuple(entries)))  # fmt: skip
    return {
        trf_teams.COLOUR_SEQUENCE.code: (trf_teams.ColourSequence.alternating(rules.team_size),),
        trf_teams.TEAM_SCORING.code: (trf_teams.TeamScoring(points.win, points.draw, points.loss),),
        trf_teams.TEAMS.code: tuple(teams),
        trf_teams.TEAM_BYES.code: (trf_teams.TeamByes(bye.match_points or 0, bye.game_points, byes),)
        if any(byes) else (),
        trf_records.FORFEITS.code: tuple(forfeits),
        trf_teams.LINEUPS.code: tuple(lineups),
        trf_teams.TEAM_SUMMARIES.code: tuple(summaries),
    }  # fmt: skip


# -- teams from another program's TRF -------------------------------------------------------------------

#: A TRF result without an opponent that wins the board: a player facing an empty board.
_UNOPPOSED_WINS = (TrfResult.FORFEIT_WIN, TrfResult.FULL_BYE)


def teams_from_trf(
    tournament: trf.Tournament,
    division: Division,
    *,
    primary: TeamScore,
    tiebreaks: list[str] | None,
    file: Path | None,
) -> None:
    """Make ``division`` (players and rounds read from the player lines) the team division of a TRF written by
    another program, without tmanager's ``XTM`` lines: teams and rosters from the ``310`` (TRF-2026) or ``013``
    (TRF-16) records, the boards from the ``352`` colour sequence (else the most players a team fielded), match
    points from ``362``, team byes from ``320``; each round's matches from which team's players met which, the
    lineups from who played (in roster order, ``300`` where it says otherwise), empty boards from unopposed wins
    and ``330`` forfeited matches (without one, as in TRF-16, the one team of a round that won unopposed against
    nobody named met the one team that did not play); ``tiebreaks`` are the team tie-breaks the header names
    (None: the defaults). It does not read the header itself (the system, ``primary``: the caller does). A
    ``ConfigError`` names what does not make team matches."""
    teams = [Team(t.number, t.name, list(t.players), t.nickname) for t in tournament.values(trf_teams.TEAMS)]
    teams += [Team(i, t.name, list(t.players)) for i, t in enumerate(tournament.values(trf_teams.TEAM_ROSTERS),
                                                                        len(teams) + 1)]  # fmt: skip
    numbers = [t.number for t in teams]
    if len(set(numbers)) != len(numbers):
        raise ConfigError("two 310 lines have the same team number", file=file, field="310",
                          hint="number the teams 1, 2, …")  # fmt: skip
    team_of_player: dict[int, Team] = {}
    known = {p.number for p in division.players}
    for team in teams:
        for player in team.players:
            if player not in known:
                raise ConfigError(f"team {team.name!r} names starting rank {player}, which no 001 line has",
                                  file=file, field="310/013",
                                  hint="list the team's players by starting rank")  # fmt: skip
            other = team_of_player.setdefault(player, team)
            if other is not team:
                raise ConfigError(f"player {player} is on the rosters of {other.name!r} and {team.name!r}",
                                  file=file, field="310/013", hint="keep each player on one team")  # fmt: skip
    colours = tournament.values(trf_teams.COLOUR_SEQUENCE)
    scoring = tournament.values(trf_teams.TEAM_SCORING)
    points = scoring[0] if scoring else trf_teams.TeamScoring()
    if any(v % 10 for v in (points.win, points.draw, points.loss)):
        raise ConfigError("tmanager counts match points in whole points", file=file, field="362",
                          hint="give TW, TD and TL as whole numbers")  # fmt: skip
    division.teams = teams
    byes = tournament.values(trf_teams.TEAM_BYES)
    bye_teams = dict(enumerate(byes[0].teams, 1)) if byes else {}
    rounds = [_team_round(tournament, division, team_of_player, r, bye_teams.get(r.number), file)
              for r in division.rounds]  # fmt: skip
    widest = max((len(boards) for matches in rounds for boards in matches.values()), default=1)
    size = len(colours[0].colours) if colours else widest
    if widest > size:
        raise ConfigError(f"a team fields {widest} players in a match; the 352 line gives {size} board(s)",
                          file=file, field="352", hint="one W or B per board")  # fmt: skip
    team_bye = TeamBye.DRAW
    if byes:
        team_bye = TeamBye.WIN if byes[0].match_points == points.win else TeamBye.LOSS \
            if byes[0].match_points == points.loss else TeamBye.DRAW  # fmt: skip
    division.team_settings = TeamSettings(team_size=size, primary=primary, team_bye=team_bye,
                                          match_points=(points.win // 10, points.draw // 10, points.loss // 10))
    if tiebreaks and tiebreaks[0] == primary.code:
        tiebreaks = tiebreaks[1:]  # the primary score itself, as PTS in a players' 202
    if tiebreaks:
        division.team_settings.team_tiebreaks = tiebreaks
    for record, matches in zip(division.rounds, rounds, strict=True):
        record.matches = list(matches)
        record.lineups = {}
        for (first, second), boards in matches.items():
            boards = boards + [(0, 0)] * (size - len(boards))
            record.lineups[first] = [a for a, _ in boards]
            record.lineups[second] = [b for _, b in boards]
        bye = bye_teams.get(record.number)
        record.team_byes = {bye: ByeKind.PAIRING} if bye else {}
        record.byes = {}
        place_boards(division, record)


def _team_round(
    tournament: trf.Tournament, division: Division, team_of_player: dict[int, Team], record: Round, bye: int | None,
    file: Path | None,
) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Round ``record``'s matches ``(first, second)`` (the first has white on board 1), each with its boards
    ``(first's player, second's player)``, 0 for an empty seat; ``bye`` is the team with the pairing bye."""
    n = record.number
    where = f"round {n}"

    def team(player: int) -> int:
        found = team_of_player.get(player)
        if found is None:
            raise ConfigError(f"player {player} plays, but no 310/013 line has them on a team", file=file,
                              field=where, hint="add the player to their team's roster line")  # fmt: skip
        return found.number

    opponents: dict[int, int] = {}
    named: list[tuple[int, int]] = []  # matches the records name: forfeited (330) and given lineups (300)

    def meet(a: int, b: int) -> None:
        if a == b:
            raise ConfigError(f"players of team {a} meet each other", file=file, field=where,
                              hint="the games of a round must be matches of two teams")  # fmt: skip
        for x, y in ((a, b), (b, a)):
            if opponents.setdefault(x, y) != y:
                raise ConfigError(f"team {x}'s players meet players of teams {opponents[x]} and {y}: the games form "
                                  "no team matches", file=file, field=where,
                                  hint="each team meets one team a round")  # fmt: skip

    colour_of: dict[int, Colour] = {}
    for board in record.boards:
        meet(team(board.white), team(board.black))
        colour_of[board.white], colour_of[board.black] = Colour.WHITE, Colour.BLACK
    for forfeit in tournament.values(trf_records.FORFEITS):
        if forfeit.round == n:
            meet(forfeit.white, forfeit.black)
            named.append((forfeit.white, forfeit.black))
    given: dict[int, tuple[int, ...]] = {}
    for lineup in tournament.values(trf_teams.LINEUPS):
        if lineup.round == n:
            meet(lineup.team, lineup.opponent)
            given[lineup.team] = lineup.players
    unopposed: dict[int, list[int]] = {}
    for p in tournament.players:
        game = p.games[n - 1] if len(p.games) >= n else None
        if game is not None and game.opponent is None and game.result in _UNOPPOSED_WINS and p.id in team_of_player:
            unopposed.setdefault(team(p.id), []).append(p.id)
    if bye is not None:
        unopposed.pop(bye, None)
    # TRF-16 has no 330: a lone team that won unopposed and a lone team that did not come met in a forfeited match.
    alone = [t for t in unopposed if t not in opponents]
    absent = [t.number for t in division.teams if t.number not in opponents and t.number not in unopposed
              and t.number != bye]  # fmt: skip
    if len(alone) == 1 and len(absent) == 1:
        meet(alone[0], absent[0])
        named.append((alone[0], absent[0]))
    for t, players in unopposed.items():
        if t not in opponents:
            raise ConfigError(f"players {', '.join(map(str, players))} of team {t} won unopposed, but no game, 330 or "
                              "300 line names their team's opponent", file=file, field=where,
                              hint="add the 330 line of the forfeited match")  # fmt: skip
    matches: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in sorted({tuple(sorted(m)) for m in opponents.items()}):
        seats = _seats(division, a, b, record, given, unopposed, where, file)
        first = next((a if (i % 2 == 1) == (colour_of[x] is Colour.WHITE) else b for i, (x, y) in enumerate(seats, 1)
                      if x and y), next((w for w, k in named if {w, k} == {a, b}), a))  # fmt: skip
        if first != a:
            seats = [(y, x) for x, y in seats]
        for i, (x, y) in enumerate(seats, 1):
            if x and y and colour_of[x] is not (Colour.WHITE if i % 2 else Colour.BLACK):
                raise ConfigError(f"the colours of team {first} against team {a + b - first} do not alternate by "
                                  "board", file=file, field=where,
                                  hint="tmanager keeps FIDE's colours: the first team has white on boards 1, 3, "
                                  "…")  # fmt: skip
        matches[(first, a + b - first)] = seats
    return matches


def _seats(
    division: Division, a: int, b: int, record: Round, given: dict[int, tuple[int, ...]],
    unopposed: dict[int, list[int]], where: str, file: Path | None,
) -> list[tuple[int, int]]:
    """The boards of teams ``a`` and ``b``'s match ``(a's player, b's player)``: as the ``300`` lines give them,
    else both teams' players in roster order, a player who won unopposed facing an empty seat."""
    rosters = {t: division.team(t).players for t in (a, b)}
    if a in given and b in given:
        if len(given[a]) != len(given[b]):
            raise ConfigError(f"the 300 lines of teams {a} and {b} name different numbers of boards", file=file,
                              field=where, hint="one player (or 0000) per board")  # fmt: skip
        return list(zip(given[a], given[b], strict=True))
    games = {x: y for g in record.boards for x, y in ((g.white, g.black), (g.black, g.white))}
    sides = [sorted([p for p in rosters[t] if p in games or p in unopposed.get(t, ())], key=rosters[t].index)
             for t in (a, b)]  # fmt: skip
    seats: list[tuple[int, int]] = []
    mine, theirs = sides
    i = j = 0
    while i < len(mine) or j < len(theirs):
        x = mine[i] if i < len(mine) else 0
        y = theirs[j] if j < len(theirs) else 0
        if x and y and games.get(x) == y:
            seats.append((x, y))
            i, j = i + 1, j + 1
        elif x and x not in games:
            seats.append((x, 0))
            i += 1
        elif y and y not in games:
            seats.append((0, y))
            j += 1
        else:
            raise ConfigError(f"the games of team {a} against team {b} do not pair their players board by board in "
                              "roster order", file=file, field=where,
                              hint="give the lineups as 300 lines, or the rosters (310/013) in board "
                              "order")  # fmt: skip
    return seats
