"""The reports of a score-based division, tsh style.

The players; a round's pairings with who goes first and the scores; the
standings by wins and spread with average scores and firsts; the wall chart
of scorecards; tsh's HighWin, HighLoss and LowWin lists; the missing results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tmanager.core.results import ByeKind, format_points
from tmanager.errors import StateError
from tmanager.events.model import Division, EntryMode, Event, PlayerStatus, label, missing
from tmanager.events.ranking import Group, record_text, wins_standings
from tmanager.events.reports import DivisionReports, PlayerSummary, Report, Seat, Table, check_kinds
from tmanager.events.reports.render import text
from tmanager.events.scorecards import bye_spread, high_scores, off_spread, result_text, scorecards, settings_of
from tmanager.events.scoredteams import TeamRecord, team_standings

#: Report kinds of a score-based division, in index order (``teams``: when players name their teams).
KINDS = ("players", "pairings", "standings", "teams", "crosstable", "highs", "missing")
#: Entries of the high-score lists.
HIGHS = 10


class ScoredReports(DivisionReports):
    """The reports of one score-based division."""

    kinds = KINDS

    def build(self, only: Sequence[str] = (), round_number: int | None = None) -> list[Report]:
        check_kinds(only, KINDS, " for a score-based division")
        upto = round_number if round_number is not None else self.division.paired_rounds
        makers: dict[str, Callable[[], list[Report]]] = {
            "players": lambda: [self.players()],
            "pairings": lambda: self.pairings(round_number) if upto else [],  # round 0 has none
            "standings": lambda: [self.standings(upto)],
            "teams": lambda: [self.team_standings(upto)] if any(p.team for p in self.division.players) or only else [],
            "crosstable": lambda: [self.table(upto)],
            "highs": lambda: [self.highs(upto)],
            "missing": lambda: [self.missing()],
        }
        return [r for kind in (only or KINDS) for r in makers[kind]()]

    def players(self) -> Report:
        """The players with rating, team, flags and whether they are off."""
        division = self.division
        rows = tuple(
            (
                str(p.number), p.name, str(p.rating or ""), p.team, ", ".join(p.flags),
                f"off {off_spread(division, p):+d}" if p.status == PlayerStatus.WITHDRAWN else "",
            )
            for p in sorted(division.players, key=lambda p: p.number)
        )  # fmt: skip
        header = ("No", "Name", "Rtg", "Team", "Flags", "Status")
        table = Table(header, rows, frozenset({1, 3, 4, 5}))
        return Report(self.prefix + "players", f"{self.heading}: players", (table,), kind="players")

    def pairings(self, round_number: int | None = None) -> list[Report]:
        """A round's boards in order: who goes first, records before the round, and the result entered."""
        division = self.division
        record = self.paired_round(round_number)
        n = record.number
        before = {line.player.number: record_text(line) for line in wins_standings(division, n - 1)}

        def side(number: int) -> tuple[str, ...]:
            p = division.player(number)
            return (str(number), p.name, str(p.rating or ""), before[number])

        rows = tuple(
            (str(record.board_number(b)), *side(b.white), result_text(division, b), *side(b.black))
            for b in record.boards
        )
        first, second = ("First", "Second") if settings_of(division).track_firsts else ("Player", "Opponent")
        header = ("Bd", "No", first, "Rtg", "Record", "Result", "No", second, "Rtg", "Record")
        blocks: list[Table | str] = [Table(header, rows, frozenset({2, 7}))]
        blocks += [
            f"{'forfeit loss' if kind == ByeKind.FORFEIT else 'bye'}: {label(division.player(p))}, "
            f"spread {bye_spread(division, record, p):+d}"
            for p, kind in record.byes.items()
        ]
        title = f"{self.heading}: round {n} pairings"
        return [Report(f"{self.prefix}pairings-r{n}", title, tuple(blocks), kind="pairings")]

    def standings(self, upto: int | None = None) -> Report:
        """Wins, losses, spread; average score and opponents' average (game scores only); firsts and seconds."""
        division = self.division
        rules = settings_of(division)
        lines = wins_standings(division, upto)
        n = division.paired_rounds if upto is None else upto
        averages = rules.entry != EntryMode.SPREAD
        rows = []
        for line in lines:
            e = line.entrant
            name = line.player.name + (" (off)" if line.player.status == PlayerStatus.WITHDRAWN else "")
            cells = [
                str(line.rank), str(line.player.number), name, str(line.player.rating or ""),
                format_points(round(e.wins * 10)), format_points(round(line.losses * 10)), f"{e.spread:+d}",
            ]  # fmt: skip
            if averages:
                cells += [_average(line.average), _average(line.opponents_average)]
            if rules.track_firsts:
                cells += [str(e.firsts), str(e.seconds)]
            rows.append(tuple(cells))
        header = ["Rk", "No", "Name", "Rtg", "W", "L", "Spread"]
        header += ["Avg", "OppAvg"] if averages else []
        header += ["1st", "2nd"] if rules.track_firsts else []
        blocks: list[Table | str] = [Table(tuple(header), tuple(rows), frozenset({2}))]
        pending = sum(1 for r, _ in missing(division) if r <= n)
        if pending:
            blocks.append(f"{pending} result(s) still missing: they count as nothing yet")
        blocks.append(
            "ranked by wins (a tie is half a win), then cumulative spread; byes and forfeits count their spread, "
            "a win if positive, a loss if negative, neither at 0"
        )
        title = f"{self.heading}: standings after round {n}"
        return Report(f"{self.prefix}standings-r{n}", title, tuple(blocks), kind="standings")

    def team_standings(self, upto: int | None = None) -> Report:
        """tsh's TeamStandings: the division's teams by their members' average record."""
        n = self.division.paired_rounds if upto is None else upto
        title = f"{self.heading}: team standings after round {n}"
        return team_report(f"{self.prefix}teams-r{n}", title, team_standings([self.division], n))

    def table(self, upto: int | None = None) -> Report:
        """Scorecards in standings order: per round the opponent, W/L/T and the spread (byes and forfeits: ``bye±``)."""
        division = self.division
        lines = wins_standings(division, upto)
        n = division.paired_rounds if upto is None else upto
        cards = {c.id: c for c in scorecards(division, n)}
        rows = []
        for line in lines:
            card = cards[line.player.number]
            cells = []
            for i, opponent in enumerate(card.opponents):
                theirs = cards[opponent].scores[i] if opponent else None
                cells.append(_cell(opponent, card.scores[i], theirs))
            rows.append((str(line.rank), str(line.player.number), line.player.name, *cells, record_text(line)))
        header = ("Rk", "No", "Name", *(f"R{r}" for r in range(1, n + 1)), "Record")
        note = "cells: opponent's number, W/L/T and the spread; bye±N: a bye, forfeit or round off; * not yet entered"
        title = f"{self.heading}: wall chart after round {n}"
        blocks = (Table(header, tuple(rows), frozenset({2})), note)
        return Report(f"{self.prefix}wallchart-r{n}", title, blocks, kind="crosstable")

    def highs(self, upto: int | None = None, count: int = HIGHS) -> Report:
        """tsh's HighWin, HighLoss and LowWin lists: the top ``count`` of each."""
        division = self.division
        n = division.paired_rounds if upto is None else upto
        blocks: list[Table | str] = []
        for title, games in high_scores(division, n).items():
            rows = tuple(
                (str(g.round), str(g.board), str(g.winner_score), label(g.winner), str(g.loser_score), label(g.loser))
                for g in games[:count]
            )
            blocks.append(Table(("Rd", "Bd", "Win", "Winner", "Loss", "Loser"), rows, frozenset({3, 5}), title))
        if settings_of(division).entry == EntryMode.SPREAD:
            blocks = ["no game scores: this division enters spreads only"]
        title = f"{self.heading}: high wins, high losses and low wins after round {n}"
        return Report(f"{self.prefix}highs-r{n}", title, tuple(blocks), kind="highs")

    def missing(self) -> Report:
        """Boards of paired rounds without a result."""
        division = self.division
        rows = tuple(
            (str(n), str(division.round(n).board_number(b)), label(division.player(b.white)),
             label(division.player(b.black)))
            for n, b in missing(division)
        )  # fmt: skip
        blocks: tuple[Table | str, ...] = (
            (Table(("Rd", "Bd", "Player", "Opponent"), rows, frozenset({2, 3})),)
            if rows
            else (f"no results missing (round {division.paired_rounds} is the last paired)",)
        )
        return Report(f"{self.prefix}missing", f"{self.heading}: missing results", blocks, kind="missing")

    def summary(self, number: int) -> PlayerSummary:
        """Record, rank, the current pairing and the player's wall-chart row."""
        division = self.division
        p = division.player(number)
        line = next(x for x in wins_standings(division) if x.player.number == p.number)
        paired = division.paired_rounds
        seat = None
        if paired:
            record = division.round(paired)
            board = record.seat(p.number)
            where = self.rules.seat_text(record, p.number)
            if board is not None:
                other = division.player(board.black if board.white == p.number else board.white)
                after = "" if board.result.pending else f", result {result_text(division, board)}"
                seat = Seat(where, opponent=other, after=after)
            else:
                seat = Seat(where or f"round {paired}: not paired")
        chart = self.table().blocks[0]
        assert isinstance(chart, Table)
        row = next(r for r in chart.rows if r[1] == str(p.number))
        facts = (
            f"no. {p.number}", *([f"rating {p.rating}"] if p.rating else []), p.team, *p.flags,
            *(["off"] if p.status == PlayerStatus.WITHDRAWN else []),
        )  # fmt: skip
        return PlayerSummary(
            player=p,
            facts=tuple(f for f in facts if f),
            score=record_text(line),
            unit="",
            rank=line.rank if paired else None,
            seat=seat,
            rounds=Table(chart.header, (row,), chart.left) if paired else None,
        )

    def pairings_text(self, round_number: int | None = None) -> str:
        return text(self.pairings(round_number)[0])

    def standings_text(self, upto: int | None = None, *, among: Group | None = None) -> str:
        if among is not None:
            raise StateError("--flag and --category rank chess classes; a score-based division has one ranking")
        return text(self.standings(upto))


def team_report(key: str, title: str, lines: Sequence[TeamRecord], *, divisions: bool = False) -> Report:
    """Team standings as a report (:func:`~tmanager.events.scoredteams.team_standings`); ``divisions`` adds
    where each team plays (the total team standings)."""
    rows = tuple(
        (
            str(t.rank), t.team, str(t.players), format_points(round(t.wins * 10)),
            format_points(round(t.losses * 10)), f"{t.spread:+d}", f"{t.percentage:.1f}", f"{t.average_spread:+.1f}",
            *((", ".join(t.divisions),) if divisions else ()),
        )
        for t in lines
    )  # fmt: skip
    where = ("Divisions",) if divisions else ()
    header = ("Rk", "Team", "Players", "W", "L", "Spread", "Win %", "Avg spread", *where)
    note = "ranked by the members' average record: wins per round played, then spread per round"
    blocks: tuple[Table | str, ...] = (Table(header, rows, frozenset({1, 8})), note) if rows else (
        "no player names a team (edit-player --team, or a .t file's team field)",)  # fmt: skip
    return Report(key, title, blocks, kind="teams")


def total_team_report(event: Event, divisions: Sequence[Division], upto: int | None = None) -> Report:
    """tsh's TotalTeamStandings: every team across ``divisions`` (the event's score-based ones), after round
    ``upto`` of each (default: its last paired)."""
    title = f"{event.name}: total team standings" + (f" after round {upto}" if upto is not None else "")
    return team_report("total-teams", title, team_standings(divisions, upto), divisions=True)


def _average(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _cell(card_opponent: int | None, own: int | None, theirs: int | None) -> str:
    if card_opponent is None:
        return ""
    if own is None:
        return "bye*" if card_opponent == 0 else f"{card_opponent}*"
    if card_opponent == 0:
        return f"bye{own:+d}"
    if theirs is None:
        return f"{card_opponent}*"
    spread = own - theirs
    return f"{card_opponent}{'W' if spread > 0 else 'L' if spread < 0 else 'T'}{spread:+d}"
