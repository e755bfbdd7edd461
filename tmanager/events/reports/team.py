"""The reports of a team division.

The teams with their rosters; a round's matches, each with the results of its
boards under it; each team's lineup of a round; the team standings by match
points (or game points) and the team tie-breaks; the team cross-table (a round
robin) or the table of every team's rounds (a Swiss); the board prizes (the
best score on each board); the players with their team, board and points; the
results and lineups still missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tmanager.core.results import Colour, Result, format_points
from tmanager.core.teams import TeamRoundKind
from tmanager.errors import StateError
from tmanager.events.games import scores
from tmanager.events.model import label, missing
from tmanager.events.reports import DivisionReports, PlayerSummary, Report, Seat, Table, check_kinds
from tmanager.events.reports.render import text
from tmanager.events.teams import board_prizes, match_boards, match_of_board, settings, standings, team_of, team_rounds

if TYPE_CHECKING:
    from tmanager.events.ranking import Group
    from tmanager.events.rules.base import DivisionRules

#: Report kinds in index order.
KINDS = ("teams", "pairings", "lineups", "standings", "crosstable", "boards", "players", "missing")
_NOT_GIVEN = "(lineup not given)"


class TeamReports(DivisionReports):
    """The reports of one team division."""

    kinds = KINDS

    def __init__(self, rules: DivisionRules) -> None:
        super().__init__(rules)
        self.settings = settings(self.division)

    def build(self, only: Sequence[str] = (), round_number: int | None = None) -> list[Report]:
        check_kinds(only, KINDS, " for a team division")
        upto = self.upto(round_number)
        paired = bool(upto)  # round 0 has no matches
        makers: dict[str, Callable[[], list[Report]]] = {
            "teams": lambda: [self.teams()],
            "pairings": lambda: [self.matches(round_number)] if paired else [],
            "lineups": lambda: [self.lineups(round_number)] if paired else [],
            "standings": lambda: [self.standings(upto)],
            "crosstable": lambda: [self.table(upto)],
            "boards": lambda: [self.boards(upto)],
            "players": lambda: [self.players(upto)],
            "missing": lambda: [self.missing()],
        }
        return [r for kind in (only or KINDS) for r in makers[kind]()]

    def _team(self, number: int) -> str:
        return f"{self.division.team(number).name} ({number})"

    def teams(self) -> Report:
        """Each team's roster in board order."""
        blocks: list[Table | str] = []
        for t in sorted(self.division.teams, key=lambda t: t.number):
            rows = tuple(
                (str(i), str(p.number), p.name, str(p.rating or ""), p.federation)
                for i, p in enumerate((self.division.player(n) for n in t.players), 1)
            )
            short = f" [{t.short}]" if t.short else ""
            title = f"{t.name} ({t.number}){short}"
            blocks.append(Table(("Bd", "No", "Name", "Rtg", "Fed"), rows, frozenset({2}), title))
        blocks.append(f"{len(self.division.teams)} teams, {self.settings.team_size} board(s) a match")
        return Report(self.prefix + "teams", f"{self.heading}: teams", tuple(blocks), kind="teams")

    # -- a round -----------------------------------------------------------------------------------

    def pairings(self, round_number: int | None = None) -> list[Report]:
        return [self.matches(round_number), self.lineups(round_number)]

    def matches(self, round_number: int | None = None) -> Report:
        """A round's matches: a line with both teams and the game points, the boards' results under it."""
        record = self.paired_round(round_number)
        rounds = team_rounds(self.event, self.division, record.number)
        blocks: list[Table | str] = []
        for index, match in enumerate(record.matches, 1):
            first, second = match
            mine = next(r for r in rounds[first] if r.round == record.number)
            own, other = format_points(mine.game_points), format_points(mine.opponent_game_points)
            title = f"Match {index}: {self._team(first)} {own} – {other} {self._team(second)}"
            rows = []
            for number, game, white, black in match_boards(record, match):
                result = game.result if game is not None else _empty_result(white, black)
                rows.append((f"{index}.{number}", self._seat(white), result, self._seat(black)))
            if not rows:
                waiting = ", ".join(self._team(t) for t in match if t not in record.lineups)
                blocks.append(f"{title}: lineup(s) not given yet: {waiting}")
                continue
            blocks.append(Table(("Bd", "White", "Result", "Black"), tuple(rows), frozenset({1, 3}), title))
        blocks += [f"bye: {self._team(t)} ({kind})" for t, kind in record.team_byes.items()]
        blocks.append("boards: MATCH.BOARD; the first team named has white on the odd boards")
        return Report(
            f"{self.prefix}pairings-r{record.number}",
            f"{self.heading}: round {record.number} matches",
            tuple(blocks),
            kind="pairings",
        )

    def _seat(self, number: int) -> str:
        return label(self.division.player(number)) if number else "(empty)"

    def lineups(self, round_number: int | None = None) -> Report:
        """Each team's lineup for a round, board by board (the teams in matches first, then the others)."""
        record = self.paired_round(round_number)
        boards = self.settings.team_size
        rows = []
        playing = [t for m in record.matches for t in m]
        others = [t.number for t in sorted(self.division.teams, key=lambda t: t.number) if t.number not in playing]
        for team in playing + others:
            lineup = record.lineups.get(team)
            seats = [self._seat(p) for p in lineup] if lineup is not None else [_NOT_GIVEN] + [""] * (boards - 1)
            rows.append((self._team(team), *seats))
        header = ("Team", *(f"Bd {i}" for i in range(1, boards + 1)))
        return Report(
            f"{self.prefix}lineups-r{record.number}",
            f"{self.heading}: round {record.number} lineups",
            (Table(header, tuple(rows), frozenset(range(boards + 1))),),
            kind="lineups",
        )

    # -- standings and tables -----------------------------------------------------------------------

    def standings(self, upto: int | None = None) -> Report:
        """Teams by their primary score and the team tie-breaks."""
        n = self.upto(upto)
        rows = tuple(
            (
                str(s.rank), str(s.team.number), s.team.name, format_points(s.totals.match_points),
                format_points(s.totals.game_points), str(s.totals.won), str(s.totals.drawn), str(s.totals.lost),
                *_values(s.values),
            )
            for s in standings(self.event, self.division, n)
        )  # fmt: skip
        header = ("Rk", "No", "Team", "MP", "GP", "W", "D", "L", *self.settings.team_tiebreaks)
        blocks: list[Table | str] = [Table(header, rows, frozenset({2}))]
        open_matches = sum(1 for s in standings(self.event, self.division, n) if s.totals.open)
        if open_matches:
            blocks.append("a match with a game still to finish counts its game points so far and no match points")
        ranked = f"ranked by {self.settings.primary.value} points, then: "
        blocks.append(ranked + ", ".join(self.settings.team_tiebreaks))
        return Report(f"{self.prefix}standings-r{n}", f"{self.heading}: standings after round {n}", tuple(blocks),
                      kind="standings")  # fmt: skip

    def table(self, upto: int | None = None) -> Report:
        """Round robin: the team cross-table (game points of each match); Swiss: each team's rounds."""
        n = self.upto(upto)
        rounds = team_rounds(self.event, self.division, n)
        order = sorted(self.division.teams, key=lambda t: t.number)
        places = {s.team.number: s.rank for s in standings(self.event, self.division, n)}
        if self.division.round_robin:
            rows = []
            for t in order:
                cells = []
                for u in order:
                    scored = [format_points(r.game_points) for r in rounds[t.number] if r.opponent == u.number]
                    cells.append("x" if t is u else " ".join(scored))
                mp = sum(r.match_points or 0 for r in rounds[t.number])
                rows.append((str(t.number), t.name, *cells, format_points(mp), str(places[t.number])))
            header = ("No", "Team", *(str(t.number) for t in order), "MP", "Rk")
            title = f"{self.heading}: cross-table after round {n}"
            note = "cells: game points scored against the team of that column"
            return Report(f"{self.prefix}crosstable-r{n}", title, (Table(header, tuple(rows)), note), kind="crosstable")
        rows = []
        for t in sorted(order, key=lambda t: places[t.number]):
            cells = []
            for r in rounds[t.number]:
                if r.opponent is None:
                    cells.append("bye" if r.kind is TeamRoundKind.BYE else "-")
                    continue
                cells.append(f"{r.opponent}{r.board_one} {format_points(r.game_points)}")
            mp = sum(r.match_points or 0 for r in rounds[t.number])
            rows.append((str(places[t.number]), str(t.number), t.name, *cells, format_points(mp)))
        header = ("Rk", "No", "Team", *(f"R{i}" for i in range(1, n + 1)), "MP")
        note = "cells: opponent, colour on board 1, game points scored"
        title = f"{self.heading}: table after round {n}"
        return Report(f"{self.prefix}wallchart-r{n}", title, (Table(header, tuple(rows), frozenset({2})), note),
                      kind="crosstable")  # fmt: skip

    def boards(self, upto: int | None = None) -> Report:
        """Board prizes: on each board, the best percentage of the games played there."""
        n = self.upto(upto)
        blocks: list[Table | str] = []
        for board, lines in board_prizes(self.event, self.division, n).items():
            rows = tuple(
                (str(i), str(s.player), self.division.player(s.player).name, self._team(s.team) if s.team else "",
                 format_points(s.points), str(s.games), f"{s.percentage:.1f}")
                for i, s in enumerate(lines, 1)
            )  # fmt: skip
            header = ("Rk", "No", "Name", "Team", "Pts", "Games", "%")
            blocks.append(Table(header, rows, frozenset({2, 3}), f"Board {board}"))
        blocks.append(
            f"games played over the board on that board; at least {self.settings.prize_games} game(s) "
            "(prize_games); ranked by percentage, then points"
        )
        return Report(f"{self.prefix}boards-r{n}", f"{self.heading}: board prizes after round {n}", tuple(blocks),
                      kind="boards")  # fmt: skip

    def players(self, upto: int | None = None) -> Report:
        """Every player with team, roster board and points."""
        n = self.upto(upto)
        points = scores(self.event, self.division, n)
        rows = []
        for p in sorted(self.division.players, key=lambda p: p.number):
            team = team_of(self.division, p.number)
            place = str(team.players.index(p.number) + 1) if team else ""
            rows.append((str(p.number), p.name, str(p.rating or ""), team.name if team else "", place,
                         format_points(points[p.number])))  # fmt: skip
        header = ("No", "Name", "Rtg", "Team", "Bd", "Pts")
        table = Table(header, tuple(rows), frozenset({1, 3}))
        return Report(f"{self.prefix}players", f"{self.heading}: players", (table,), kind="players")

    def missing(self) -> Report:
        """Games without a result, and lineups not given, of the paired rounds."""
        division = self.division
        rows: list[tuple[str, ...]] = []
        for n, board in missing(division):
            record = division.round(n)
            where = match_of_board(record, board)
            at = f"{where[0]}.{where[1]}" if where else str(record.boards.index(board) + 1)
            rows.append((str(n), at, label(division.player(board.white)), label(division.player(board.black)),
                         "adjourned" if board.result is Result.ADJOURNED else "no result"))  # fmt: skip
        for record in division.rounds:
            if record.paired:
                rows += [
                    (str(record.number), "", self._team(t), "", "no lineup")
                    for m in record.matches for t in m if t not in record.lineups
                ]  # fmt: skip
        blocks: tuple[Table | str, ...] = (
            (Table(("Rd", "Bd", "White", "Black", "State"), tuple(rows), frozenset({2, 3, 4})),)
            if rows
            else (f"nothing missing (round {division.paired_rounds} is the last paired)",)
        )
        return Report(f"{self.prefix}missing", f"{self.heading}: missing results and lineups", blocks, kind="missing")

    # -- a player, and the terminal --------------------------------------------------------------------

    def summary(self, number: int) -> PlayerSummary:
        """A player: team and board, points, the current game, every game so far."""
        division = self.division
        p = division.player(number)
        team = team_of(division, number)
        paired = division.paired_rounds
        points = scores(self.event, division, paired)
        rows = []
        for record in division.rounds:
            if not record.paired:
                continue
            board = record.seat(number)
            if board is not None:
                white = board.white == number
                other = division.player(board.black if white else board.white)
                where = match_of_board(record, board)
                at = f"{where[0]}.{where[1]}" if where else ""
                colour = (Colour.WHITE if white else Colour.BLACK).word
                result = board.result if white else board.result.reversed
                rows.append((str(record.number), at, colour, label(other), str(result)))
            elif number in record.byes:
                rows.append((str(record.number), "", "", self.rules.bye_text(record, number), "+"))
        seat = None
        if paired:
            record = division.round(paired)
            board = record.seat(number)
            if board is not None:
                white = board.white == number
                opponent = division.player(board.black if white else board.white)
                where = match_of_board(record, board)
                before = f"Round {paired}: board {where[0]}.{where[1]} with " if where else f"Round {paired}: "
                seat = Seat(before, (Colour.WHITE if white else Colour.BLACK).word, opponent)
            else:
                seat = Seat(self.rules.seat_text(record, number) or f"round {paired}: not in the lineup")
        facts = (f"no. {p.number}", *([f"rating {p.rating}"] if p.rating else []),
                 *([f"{team.name}, board {team.players.index(number) + 1}"] if team else []))  # fmt: skip
        table = Table(("Rd", "Bd", "Colour", "Opponent", "Res"), tuple(rows), frozenset({3})) if rows else None
        return PlayerSummary(p, facts, format_points(points[number]), " points", None, seat, table)

    def pairings_text(self, round_number: int | None = None) -> str:
        return text(self.matches(round_number))

    def team_standings(self, upto: int | None = None) -> Report:
        return self.standings(upto)  # a team division's standings rank its teams

    def standings_text(self, upto: int | None = None, *, among: Group | None = None) -> str:
        if among is not None:
            raise StateError(f"{among.name}: categories and flags rank players; a team division ranks its teams")
        return text(self.standings(upto))


def _empty_result(white: int, black: int) -> str:
    """An empty board's result: won by forfeit by the player who is there."""
    if white and not black:
        return "+-"
    if black and not white:
        return "-+"
    return "--"


def _values(values: Sequence[float]) -> tuple[str, ...]:
    return tuple(str(int(v)) if v == int(v) else f"{v:.2f}".rstrip("0") for v in values)
