"""The reports of a chess division.

The list of players; the pairings of a round by board and alphabetically; the
standings with the event's tie-breaks after any round, also per flag
(junior, woman…); the cross-table (round robin) or wall chart (Swiss); the
table of progress (running scores); a card per player; the missing results;
FIDE rating estimates (:mod:`tmanager.core.fide`); title norms
(:mod:`tmanager.events.reports.norms`). Standings and running
scores are computed once per round asked for, whatever the number of reports.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tmanager.columns import aligned
from tmanager.core import fide
from tmanager.core.results import ByeKind, Colour, Result, TrfResult, format_points
from tmanager.core.scoring import Game
from tmanager.events.games import round_games, scores, virtual_points
from tmanager.events.model import Player, PlayerStatus, Round, absent_players, label, missing
from tmanager.events.ranking import (
    Group,
    TiebreakStanding,
    category,
    dropped_tiebreaks,
    flag,
    tiebreak_names,
    tiebreak_standings,
)
from tmanager.events.reports import (
    DivisionReports,
    PlayerSummary,
    Report,
    Seat,
    Table,
    check_kinds,
    slug,
    tiebreak_values,
)
from tmanager.events.reports.norms import norms_report
from tmanager.events.reports.prizes import prize_report

if TYPE_CHECKING:
    from tmanager.events.rules.base import DivisionRules

#: Report kinds in index order; ``crosstable`` is the cross-table of a round robin and the wall chart of a Swiss.
KINDS = (
    "players", "pairings", "pairings-alpha", "slips", "standings", "prizes", "crosstable", "progress", "cards",
    "missing", "ratings", "norms",
)  # fmt: skip
#: A round's result in a cross-table cell or a card.
_SYMBOLS = {
    TrfResult.WIN: "1", TrfResult.DRAW: "½", TrfResult.LOSS: "0", TrfResult.FORFEIT_WIN: "+",
    TrfResult.FORFEIT_LOSS: "-", TrfResult.NOT_PLAYED: "*", TrfResult.PAIRING_BYE: "+", TrfResult.FULL_BYE: "+",
    TrfResult.HALF_BYE: "½", TrfResult.ZERO_BYE: "0", TrfResult.UNRATED_WIN: "1", TrfResult.UNRATED_DRAW: "½",
    TrfResult.UNRATED_LOSS: "0",
}  # fmt: skip
#: A bye's wall-chart cell (any other round without an opponent is an absence, ``-``).
_BYE_CELLS = {
    TrfResult.PAIRING_BYE: "bye+", TrfResult.FULL_BYE: "bye+", TrfResult.HALF_BYE: "bye½", TrfResult.ZERO_BYE: "bye0",
}  # fmt: skip
BYE_NAMES = {
    ByeKind.PAIRING: "pairing-allocated bye", ByeKind.FULL: "full-point bye", ByeKind.HALF: "half-point bye",
    ByeKind.ZERO: "zero-point bye",
}  # fmt: skip
#: A flag that sets a player's K factor (``K40``) rather than a class to rank.
_K_FLAG = re.compile(r"[kK]=?(\d+)")


class ChessReports(DivisionReports):
    """The reports of one chess division."""

    kinds = KINDS

    def __init__(self, rules: DivisionRules) -> None:
        super().__init__(rules)
        self._standings: dict[tuple[int, str | None], list[TiebreakStanding]] = {}
        self._scores: dict[int, dict[int, int]] = {}
        self._cards: dict[int, Report] = {}

    # -- what every report needs, computed once ---------------------------------------------------

    def ranking(self, upto: int | None = None, *, among: Group | None = None) -> list[TiebreakStanding]:
        """The standings after round ``upto``: :func:`~tmanager.events.ranking.tiebreak_standings`, kept."""
        key = (self.upto(upto), among.name if among else None)
        if key not in self._standings:
            self._standings[key] = tiebreak_standings(self.event, self.division, key[0], among=among)
        return self._standings[key]

    def score(self, number: int, upto: int) -> int:
        """Player ``number``'s points in tenths after round ``upto``."""
        if upto not in self._scores:  # reports ask for every player after every round
            self._scores[upto] = scores(self.event, self.division, upto)
        return self._scores[upto][number]

    def points(self, number: int, upto: int) -> str:
        return format_points(self.score(number, upto))

    def pairing_points(self, number: int, round_number: int) -> str:
        """The score a player is paired on in a round: ``2½``, with accelerated pairings ``2½+1`` (the
        virtual points of the Baku method added for the pairing only)."""
        virtual = virtual_points(self.event, self.division, round_number).get(number, 0)
        return self.points(number, round_number - 1) + (f"+{format_points(virtual)}" if virtual else "")

    def _acceleration_note(self, round_number: int) -> list[str]:
        if not virtual_points(self.event, self.division, round_number):
            return []
        return ["Pts: the score before the round, +N the virtual points of the Baku acceleration (pairing only)"]

    def entries(self, upto: int) -> dict[int, dict[int, Game]]:
        """Round number -> player number -> TRF round entry, for the rounds up to ``upto``."""
        return {r.number: round_games(self.division, r) for r in self.division.rounds if r.paired and r.number <= upto}

    # -- the reports ------------------------------------------------------------------------------

    def build(self, only: Sequence[str] = (), round_number: int | None = None) -> list[Report]:
        """The reports of ``only`` (all of :data:`KINDS` by default); standings also per category and flag."""
        check_kinds(only, KINDS)
        upto = self.upto(round_number)
        makers: dict[str, Callable[[], list[Report]]] = {
            "players": lambda: [self.players()],
            "pairings": lambda: [self.by_board(round_number)] if upto else [],  # round 0 has none
            "pairings-alpha": lambda: [self.alphabetical(round_number)] if upto else [],
            "slips": lambda: [self.slips(round_number)] if upto else [],
            "prizes": lambda: [self.prizes(upto)],
            "standings": lambda: [self.standings(upto)] + [self.standings(upto, among=g) for g in self.groups()],
            "crosstable": lambda: [self.table(upto)],
            "progress": lambda: [self.progress(upto)],
            "cards": lambda: [self.cards(upto)],
            "missing": lambda: [self.missing()],
            "ratings": lambda: [self.ratings(upto)],
            "norms": lambda: [norms_report(self, upto)],
        }
        return [r for kind in (only or KINDS) for r in makers[kind]()]

    def groups(self) -> list[Group]:
        """The event's prize categories, then the flags of its players (not K factors), each a ranking."""
        flags = sorted({f for p in self.division.players for f in p.flags if not _K_FLAG.fullmatch(f)})
        named = {c.casefold() for c in self.event.categories}
        return [category(self.event, self.division, c) for c in self.event.categories] + [
            flag(self.division, f) for f in flags if f.casefold() not in named
        ]

    def legend(self) -> Table:
        """The event's tie-breaks with FIDE's names and what they count."""
        rows = tuple((t.name, t.description) for t in tiebreak_names(self.event))
        return Table(("Tie-break", "Meaning"), rows, frozenset({0, 1}), "Tie-breaks")

    def players(self) -> Report:
        """The list of players with their data and pairing rank: every field the arbiter checks at registration,
        title and sex among them (the women's categories and titles go by them)."""
        ranks = self.division.ranks()
        rows = tuple(
            (
                str(p.number), p.name, str(p.rating or ""), str(p.k or ""), str(ranks[p.number]), p.title, p.sex,
                p.federation, str(p.fide_id or ""), p.club, p.birth, ", ".join(p.flags), p.status,
            )
            for p in sorted(self.division.players, key=lambda p: p.number)
        )  # fmt: skip
        header = ("No", "Name", "Rtg", "K", "Rank", "Tit", "Sex", "Fed", "FIDE id", "Club", "Born", "Flags", "Status")
        return Report(
            self.prefix + "players",
            f"{self.heading}: players",
            (Table(header, rows, frozenset({1, 5, 6, 9, 11, 12})), f"{len(rows)} players"),
            kind="players",
        )

    def starting_list(self) -> Report:
        """The starting rank list: the players in pairing order with title, federation, FIDE ID, rating, club."""
        ranks = self.division.ranks()
        rows = tuple(
            (str(ranks[p.number]), str(p.number), p.title, p.name, p.federation, str(p.fide_id or ""),
             str(p.rating or ""), p.club)
            for p in sorted(self.division.players, key=lambda p: ranks[p.number])
        )  # fmt: skip
        header = ("Rank", "No", "Tit", "Name", "Fed", "FIDE ID", "Rtg", "Club")
        title = f"{self.heading}: starting rank list"
        return Report(f"{self.prefix}starting-ranks", title, (Table(header, rows, frozenset({3, 7})),), kind="start")

    def pairings(self, round_number: int | None = None) -> list[Report]:
        return [self.by_board(round_number), self.alphabetical(round_number)]

    def by_board(self, round_number: int | None = None) -> Report:
        """A round's boards: each player's number, title, name, federation, rating, score before the round and
        rank after the round before; the byes."""
        record = self.paired_round(round_number)
        before = {s.player.number: s.rank for s in self.ranking(record.number - 1)} if record.number > 1 else {}

        def side(number: int) -> tuple[str, ...]:
            p = self.division.player(number)
            points, rank = self.pairing_points(number, record.number), str(before.get(number, ""))
            return (str(number), p.title, p.name, p.federation, str(p.rating or ""), points, rank)

        rows = tuple((str(i), *side(b.white), b.result, *side(b.black)) for i, b in enumerate(record.boards, 1))
        header = ("Bd", "No", "Tit", "White", "Fed", "Rtg", "Pts", "Rk", "Result",
                  "No", "Tit", "Black", "Fed", "Rtg", "Pts", "Rk")  # fmt: skip
        blocks: list[Table | str] = [*self._when(record.number), Table(header, rows, frozenset({3, 11}))]
        if before:
            blocks.append(f"Rk: the rank after round {record.number - 1}")
        blocks += [f"bye: {label(self.division.player(n))}, {kind}" for n, kind in record.byes.items()]
        blocks += self._absent(record) + self._acceleration_note(record.number)
        return Report(
            f"{self.prefix}pairings-r{record.number}",
            f"{self.heading}: round {record.number} pairings",
            tuple(blocks),
            kind="pairings",
        )

    def _when(self, round_number: int) -> list[str]:
        """When the round starts, as the event's schedule says (nothing if it does not)."""
        time = self.event.round_time(round_number)
        return [f"round {round_number}: {time}"] if time else []

    def _absent(self, record: Round) -> list[str]:
        """The players on no board and without a bye in the round (withdrawn, absent), as one note."""
        absent = absent_players(self.division, record)
        return [f"absent: {', '.join(label(p) for p in absent)}"] if absent else []

    def slips(self, round_number: int | None = None) -> Report:
        """A result slip per board for the players to fill in and sign: round and time, board, both players."""
        record = self.paired_round(round_number)
        time = self.event.round_time(record.number)
        tables: list[Table | str] = []
        for i, b in enumerate(record.boards, 1):
            white, black = self.division.player(b.white), self.division.player(b.black)
            rows = (
                ("No", str(white.number), str(black.number)),
                ("Name", " ".join(x for x in (white.title, white.name) if x),
                 " ".join(x for x in (black.title, black.name) if x)),
                ("Result", "1-0    ½-½    0-1", ""),
                ("Signature", "", ""),
            )  # fmt: skip
            title = f"{self.heading} · round {record.number}" + (f" · {time}" if time else "") + f" · board {i}"
            tables.append(Table(("", "White", "Black"), rows, frozenset({0, 1, 2}), title))
        return Report(
            f"{self.prefix}slips-r{record.number}",
            f"{self.heading}: round {record.number} result slips",
            tuple(tables),
            kind="slips",
        )

    def prizes(self, upto: int | None = None) -> Report:
        """The prize list: the division's prize fund allocated (:mod:`~tmanager.events.reports.prizes`)."""
        return prize_report(self, upto)

    def alphabetical(self, round_number: int | None = None) -> Report:
        """Every player of a round in alphabetical order, with board, colour and opponent (or bye)."""
        record = self.paired_round(round_number)
        rows = []
        for p in sorted(self.division.players, key=lambda p: p.name.casefold()):
            board = record.seat(p.number)
            if board is not None:
                white = board.white == p.number
                other = board.black if white else board.white
                index = record.boards.index(board) + 1
                colour = Colour.WHITE if white else Colour.BLACK
                rows.append((p.name, str(p.number), str(index), colour.word, label(self.division.player(other))))
            elif p.number in record.byes:
                rows.append((p.name, str(p.number), "", "", BYE_NAMES[record.byes[p.number]]))
            else:
                rows.append((p.name, str(p.number), "", "", "not playing"))
        header = ("Name", "No", "Bd", "Colour", "Opponent")
        title = f"{self.heading}: round {record.number} pairings (alphabetical)"
        return Report(
            f"{self.prefix}pairings-alpha-r{record.number}",
            title,
            (Table(header, tuple(rows), frozenset({0, 3, 4})),),
            kind="pairings-alpha",
        )

    def standings(self, upto: int | None = None, *, among: Group | None = None) -> Report:
        """The ranking after ``upto`` by points and the event's tie-breaks, with their legend; with ``among``, one
        category or class."""
        n = self.upto(upto)
        rows = tuple(
            (
                str(s.rank), str(s.player.number), s.player.title, s.player.name + _withdrawn(s.player),
                str(s.player.rating or ""), s.player.federation, format_points(s.points), *tiebreak_values(s.values),
            )
            for s in self.ranking(n, among=among)
        )  # fmt: skip
        header = ("Rk", "No", "Tit", "Name", "Rtg", "Fed", "Pts", *(t.name for t in tiebreak_names(self.event)))
        pending = sum(1 for r, _ in missing(self.division) if r <= n)
        blocks: list[Table | str] = [Table(header, rows, frozenset({2, 3, 5}))]
        if pending:
            blocks.append(f"{pending} result(s) still missing: they count as nothing yet")
        blocks += self._dropped()
        blocks.append(self.legend())
        suffix = f"-{slug(among.name)}" if among else ""
        title = f"{self.heading}: standings after round {n}" + (f", {among.name}" if among else "")
        return Report(f"{self.prefix}standings{suffix}-r{n}", title, tuple(blocks), kind="standings")

    def _dropped(self) -> list[str]:
        """Why the rating-based tie-breaks C.07 drops are blank, if any are."""
        dropped = [t.name for t in dropped_tiebreaks(self.event, self.division)]
        if not dropped:
            return []
        return [f"{', '.join(dropped)} left blank: unrated players are present, and FIDE's tie-break regulations "
                "(C.07) drop a rating-based tie-break then unless the event gives them a rating (ARO-U1400 counts "
                "them at 1400)"]  # fmt: skip

    def table(self, upto: int | None = None) -> Report:
        """Round robin: the cross-table by player number; Swiss: the wall chart in standings order."""
        n = self.upto(upto)
        entries = self.entries(n)
        if self.division.round_robin:
            order = sorted(self.division.players, key=lambda p: p.number)
            place = {s.player.number: s.rank for s in self.ranking(n)}
            rows = []
            for p in order:
                cells = []
                for q in order:
                    if p.number == q.number:
                        cells.append("x")
                        continue
                    games = [
                        rg[p.number]
                        for _, rg in sorted(entries.items())
                        if rg.get(p.number) and rg[p.number].opponent == q.number
                    ]
                    cells.append("".join(_SYMBOLS[g.result] for g in games))
                rows.append(
                    (str(p.number), p.name, str(p.rating or ""), *cells, self.points(p.number, n), str(place[p.number]))
                )
            header = ("No", "Name", "Rtg", *(str(p.number) for p in order), "Pts", "Rk")
            title = f"{self.heading}: cross-table after round {n}"
            return Report(f"{self.prefix}crosstable-r{n}", title, (Table(header, tuple(rows)),), kind="crosstable")
        wall = [
            (
                str(s.rank), str(s.player.number), s.player.name, str(s.player.rating or ""),
                *(_cell(entries[r].get(s.player.number)) for r in sorted(entries)), format_points(s.points),
            )
            for s in self.ranking(n)
        ]  # fmt: skip
        header = ("Rk", "No", "Name", "Rtg", *(f"R{r}" for r in sorted(entries)), "Pts")
        note = (
            "cells: opponent's number, colour (w/b), result (1 ½ 0, + - forfeits, * not yet in); bye+ bye½ bye0: byes"
        )
        title = f"{self.heading}: wall chart after round {n}"
        return Report(
            f"{self.prefix}wallchart-r{n}",
            title,
            (Table(header, tuple(wall), frozenset({2})), note),
            kind="crosstable",
        )

    def progress(self, upto: int | None = None) -> Report:
        """The table of progress: every player's running score after each round, in standings order."""
        n = self.upto(upto)
        rounds = sorted(self.entries(n))
        rows = tuple(
            (str(s.rank), str(s.player.number), s.player.name, *(self.points(s.player.number, r) for r in rounds))
            for s in self.ranking(n)
        )
        header = ("Rk", "No", "Name", *(f"R{r}" for r in rounds))
        title = f"{self.heading}: table of progress after round {n}"
        return Report(f"{self.prefix}progress-r{n}", title, (Table(header, rows, frozenset({2})),), kind="progress")

    def cards(self, upto: int | None = None) -> Report:
        """A card per player: each round's opponent (title, federation, rating), colour and result, the running
        score and the rating change of the game; then the rating estimate of them all."""
        n = self.upto(upto)
        if n in self._cards:
            return self._cards[n]
        entries = self.entries(n)
        estimates = {e.player.number: e for e in self.estimate_ratings(n)}
        blocks: list[Table | str] = []
        for p in sorted(self.division.players, key=lambda p: p.number):
            estimate = estimates[p.number]
            k = estimate.change.k if estimate.change else 0
            rows = [self._card_row(p, r, game, k) for r in sorted(entries) if (game := entries[r].get(p.number))]
            rating = f", {p.rating}" if p.rating else ""
            title = f"{p.name} ({p.number}){rating}: {self.points(p.number, n)} pts"
            header = ("Rd", "Colour", "No", "Tit", "Opponent", "Fed", "Rtg", "Res", "Score", "Change")
            blocks.append(Table(header, tuple(rows), frozenset({1, 4}), title, f"p{p.number}"))
            blocks.append(estimate.summary)
        report = Report(
            f"{self.prefix}cards-r{n}",
            f"{self.heading}: player cards after round {n}",
            tuple(blocks),
            cards=True,
            kind="cards",
        )
        self._cards[n] = report
        return report

    def _card_row(self, p: Player, r: int, game: Game, k: int) -> tuple[str, ...]:
        """A round of a player's card; the rating change K × (score − expected) of a rated game (``k``: 0 for
        an unrated player)."""
        score = self.points(p.number, r)
        if game.opponent is None:
            return (str(r), "", "", "", _cell(game), "", "", _SYMBOLS[game.result], score, "")
        o = self.division.player(game.opponent)
        colour = Colour(game.colour).word if game.colour else ""
        change = ""
        if k and o.rating and (points := game.result.rated_score) is not None:
            change = fide.signed(k * (points - fide.expected(p.rating, o.rating)), 1)
        return (str(r), colour, str(o.number), o.title, o.name, o.federation, str(o.rating or ""),
                _SYMBOLS[game.result], score, change)  # fmt: skip

    def missing(self) -> Report:
        """Boards of paired rounds without a final result."""
        division = self.division
        rows = tuple(
            (
                str(n), str(division.round(n).boards.index(b) + 1), label(division.player(b.white)),
                label(division.player(b.black)), "adjourned" if b.result is Result.ADJOURNED else "no result",
            )
            for n, b in missing(division)
        )  # fmt: skip
        blocks: tuple[Table | str, ...] = (
            (Table(("Rd", "Bd", "White", "Black", "State"), rows, frozenset({2, 3, 4})),)
            if rows
            else (f"no results missing (round {division.paired_rounds} is the last paired)",)
        )
        return Report(f"{self.prefix}missing", f"{self.heading}: missing results", blocks, kind="missing")

    def estimate_ratings(self, upto: int | None = None) -> list[RatingEstimate]:
        """FIDE estimates for every player, from the games played over the board up to ``upto``."""
        n = self.upto(upto)
        division = self.division
        per_player: dict[int, list[tuple[int, float]]] = {p.number: [] for p in division.players}
        for entries in self.entries(n).values():
            for number, game in entries.items():
                if game.opponent is not None and (points := game.result.rated_score) is not None:
                    per_player[number].append((division.player(game.opponent).rating, points))
        estimates = []
        for p in sorted(division.players, key=lambda p: p.number):
            games = per_player[p.number]
            perf = fide.performance(games)
            if p.rating:
                change = fide.rating_change(p.rating, games, self._k(p, sum(1 for r, _ in games if r)))
                estimates.append(RatingEstimate(p, change, p.rating + change.change, perf))
            else:
                estimates.append(RatingEstimate(p, None, fide.initial_rating(games), perf))
        return estimates

    def _k(self, p: Player, games: int) -> int:
        """K from a ``K40``/``K20``/``K10`` flag (the arbiter's word), else the K of FIDE's list (it rests on the
        player's history: 30 games played, 2400 ever reached), else from the age (birth year) and the rating."""
        for f in p.flags:
            m = _K_FLAG.fullmatch(f)
            if m:
                return int(m[1])
        if p.k:
            return fide.capped_k(p.k, games=games)
        year = int((self.event.end or self.event.start or datetime.date.today().isoformat())[:4])
        junior = bool(p.birth) and year - int(p.birth[:4]) <= 18
        return fide.k_factor(p.rating, junior=junior, games=games)

    def ratings(self, upto: int | None = None) -> Report:
        """FIDE rating estimates: change (or initial rating) and performance of every player."""
        n = self.upto(upto)
        rows = []
        for e in self.estimate_ratings(n):
            c = e.change
            rated = (str(c.k), str(c.games), f"{c.score:g}", f"{c.expected:.2f}", c.shown) if c else ("",) * 5
            player = e.player
            rows.append(
                (str(player.number), player.name, str(player.rating or ""), *rated, str(e.new_rating or ""),
                 str(e.performance or ""))
            )  # fmt: skip
        header = ("No", "Name", "Rtg", "K", "Games", "Score", "Exp", "Change", "New", "Perf")
        notes = (
            "Games and scores count only games played over the board against rated opponents (FIDE 8.3.1). "
            "K: the FIDE list's, else 40, 20 or 10 by rating and birth year (juniors); a flag K40/K20/K10 overrides; "
            "K times the games at most 700. "
            "Unrated players: initial rating with two hypothetical draws against 1800, at most 2200."
        )
        title = f"{self.heading}: FIDE rating estimates after round {n}"
        pending = sum(1 for r, _ in missing(self.division) if r <= n)
        unsure = [f"{pending} result(s) still missing: these estimates are not final"] if pending else []
        return Report(f"{self.prefix}ratings-r{n}", title, (Table(header, tuple(rows)), notes, *unsure), kind="ratings")

    # -- a player at a glance, and the terminal's views -------------------------------------------

    def summary(self, number: int) -> PlayerSummary:
        """Data, score and rank, the current pairing (board and colour), every round so far, the rating estimate."""
        division = self.division
        p = division.player(number)
        paired = division.paired_rounds
        rank = next((s.rank for s in self.ranking() if s.player.number == p.number), None)
        facts = (
            p.title, f"no. {p.number}", *([f"rating {p.rating}"] if p.rating else []), *([f"K {p.k}"] if p.k else []),
            *([f"FIDE ID {p.fide_id}"] if p.fide_id else []), p.federation, p.club, *p.flags,
            *(["withdrawn"] if p.status == PlayerStatus.WITHDRAWN else []),
        )  # fmt: skip
        seat = None
        if paired:
            record = self.paired_round(None)  # the round being played, as the pairings show it
            board = record.seat(p.number)
            if board is not None:
                white = board.white == p.number
                opponent = division.player(board.black if white else board.white)
                after = "" if board.result.pending else f", result {board.result}"
                before = f"Round {record.number}: board {record.boards.index(board) + 1} with "
                seat = Seat(before, (Colour.WHITE if white else Colour.BLACK).word, opponent, after)
            else:
                seat = Seat(self.rules.seat_text(record, p.number) or f"round {record.number}: not paired")
        cards = self.cards()
        rounds = next(b for b in cards.blocks if isinstance(b, Table) and b.anchor == f"p{p.number}")
        estimate = cards.blocks[cards.blocks.index(rounds) + 1]
        return PlayerSummary(
            player=p,
            facts=tuple(f for f in facts if f),
            score=self.points(p.number, paired),
            unit=" points",
            rank=rank if paired else None,
            seat=seat,
            rounds=rounds,
            note=estimate if isinstance(estimate, str) else "",
        )

    def pairings_text(self, round_number: int | None = None) -> str:
        """``Spring Open, division main: round 3`` and a compact table of the boards, then the byes."""
        record = self.paired_round(round_number)
        division = self.division

        def side(number: int) -> list[str]:
            p = division.player(number)
            return [label(p), str(p.rating or ""), self.pairing_points(number, record.number)]

        rows = [[str(i), *side(b.white), b.result, *side(b.black)] for i, b in enumerate(record.boards, 1)]
        header = ["Bd", "White", "Rtg", "Pts", "Result", "Black", "Rtg", "Pts"]
        time = self.event.round_time(record.number)
        lines = [f"{self.event.name}, division {division.name}: round {record.number}" + (f", {time}" if time else "")]
        lines += aligned(header, rows, left={1, 4, 5})
        entries = round_games(division, record)
        for number, kind in record.byes.items():
            points = format_points(self.event.scoring.points(entries[number]))
            lines.append(f"bye: {label(division.player(number))}, {kind} ({points})")
        lines += self._absent(record) + self._acceleration_note(record.number)
        return "\n".join(lines) + "\n"

    def standings_text(self, upto: int | None = None, *, among: Group | None = None) -> str:
        """A title line (with the results still missing and the group), the standings as a compact table, and
        the legend of the tie-breaks."""
        n = self.upto(upto)
        pending = sum(1 for r, _ in missing(self.division) if r <= n)
        title = (
            f"{self.event.name}, division {self.division.name}: standings after round {n}"
            + (f" ({pending} result(s) still missing)" if pending else "")
            + (f", {among.name}" if among else "")
        )
        rows = [
            [str(s.rank), str(s.player.number), s.player.title, s.player.name + _withdrawn(s.player),
             str(s.player.rating or ""), format_points(s.points), *tiebreak_values(s.values)]
            for s in self.ranking(n, among=among)
        ]  # fmt: skip
        names = tiebreak_names(self.event)
        header = ["Rk", "No", "Tit", "Name", "Rtg", "Pts", *(t.name for t in names)]
        legend = [f"  {t.legend}" for t in names]
        lines = [title, *aligned(header, rows, left={2, 3}), *self._dropped(), "", "tie-breaks:", *legend]
        return "\n".join(lines) + "\n"


def _withdrawn(player: Player) -> str:
    return " (withdrawn)" if player.status == PlayerStatus.WITHDRAWN else ""


def _cell(game: Game | None) -> str:
    """A wall-chart cell: opponent, colour and result (``12w1``), or the kind of bye."""
    if game is None:
        return ""
    if game.opponent is None:
        return _BYE_CELLS.get(game.result, "-")
    return f"{game.opponent}{game.colour or '-'}{_SYMBOLS[game.result]}"


@dataclass(frozen=True, slots=True)
class RatingEstimate:
    """A player's FIDE estimate: the change (rated) or the initial rating (unrated), and the performance."""

    player: Player
    change: fide.RatingChange | None
    new_rating: int | None
    performance: int | None

    @property
    def summary(self) -> str:
        perf = f"performance {self.performance}" if self.performance is not None else "no rated opponent"
        if self.change is None:
            first = f"initial rating estimate {self.new_rating}" if self.new_rating else "no initial rating yet"
            return f"FIDE estimate: unrated; {first}; {perf}"
        c = self.change
        return (
            f"FIDE estimate: {c.games} rated game(s), score {c.score:g}, expected {c.expected:.2f}, "
            f"K {c.k}: {c.shown} → {self.new_rating}; {perf}"
        )
