"""Team divisions (chess team tournaments): teams with rosters, matches of teams, lineups, board results.

A division whose file sets ``team_size`` is a team division
(:class:`~tmanager.events.model.TeamSettings`). Its teams are paired, not its
players: by the Berger tables (``round-robin``, teams in number order), by
FIDE's Swiss Team system (``team-swiss``,
:func:`~tmanager.pairing.teamswiss.pair_teams`) or by hand (``manual`` and
``force``). Each team gives its lineup for a round (``lineup``: players of its
roster in roster order, ``-`` for a board left empty) before the round is
paired or after, as long as its match has no result; a team that gives none
fields its roster's first boards when the round is paired. Once both lineups of a
match are in, its games are placed (:func:`~tmanager.events.teams.place_boards`:
the first team has white on the odd boards). Results are entered per game as
in any chess division, by ``MATCH.BOARD``, by the board's place in the round,
or by the two players. Standings rank teams by match points (or game points),
then the division's team tie-breaks (:mod:`tmanager.core.teamtiebreaks`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tmanager.core import teamtiebreaks
from tmanager.core.results import ByeKind
from tmanager.errors import PairingError, StateError, ascii_digits
from tmanager.events.checks import PRINTABLE_ONLY, text_fault
from tmanager.events.entries import BoardRef, Entry, ResultEntry
from tmanager.events.messages import Topic
from tmanager.events.model import MAX_TEAM_SIZE, Board, PairingSystem, Player, Round, Team, label
from tmanager.events.operations import find_player
from tmanager.events.reports.team import TeamReports
from tmanager.events.rules.base import PairOptions, Problem, parse_result
from tmanager.events.rules.chess import ChessRules, set_result
from tmanager.events.teams import (
    default_lineups,
    first_boards,
    lineup_open,
    lineup_round,
    match_boards,
    match_of_board,
    place_boards,
    settings,
    team_of,
)
from tmanager.events.teams import entrants as team_entrants
from tmanager.formats.trf_teams import MAX_NICKNAME, MAX_TEAM
from tmanager.pairing.teamswiss import pair_teams

#: A lineup's word for a board left empty.
EMPTY = ("-", "0")


def find_team(teams: Sequence[Team], text: str) -> Team:
    """A team by number or by a unique part of its name (case-insensitive)."""
    text = text.strip()
    if ascii_digits(text):
        found = [t for t in teams if t.number == int(text)]
    else:
        needle = text.casefold()
        found = [t for t in teams if t.name.casefold() == needle] or [t for t in teams if needle in t.name.casefold()]
    if len(found) == 1:
        return found[0]
    if not found:
        raise StateError(f"no team matches {text!r}; the teams: {', '.join(t.name for t in teams) or 'none yet'}",
                         hint="a team's number, or a part of its name" if teams else "add-team enters one")
    raise StateError(f"{text!r} matches {len(found)} teams: {', '.join(t.name for t in found)}",
                     hint="type more of the name, or the number")


def team_label(team: Team) -> str:
    """``"Rooks (2)"``: how messages name a team."""
    return f"{team.name} ({team.number})"


class TeamRules(ChessRules):
    """The rules of a team division."""

    systems = (PairingSystem.ROUND_ROBIN, PairingSystem.TEAM_SWISS, PairingSystem.MANUAL)
    board_notation = "round.match.board"
    explains = True
    awards_prizes = False  # its standings rank teams

    @property
    def team_size(self) -> int:
        """The boards of a match: the players of a team in each."""
        return settings(self.division).team_size

    # -- what the file may hold -------------------------------------------------------------------

    def problems(self) -> Iterator[Problem]:
        d = self.division
        s = settings(d)
        for problem in super().problems():
            if problem.key != "system":
                yield problem
        if not 1 <= s.team_size <= MAX_TEAM_SIZE:
            yield Problem(f"must be from 1 to {MAX_TEAM_SIZE:,} (the boards of a match), not {s.team_size:,}",
                          "team_size")  # fmt: skip
        if d.system not in self.systems:
            yield Problem(f"{str(d.system)!r} is not a pairing system of a team division", "system",
                          "round-robin, team-swiss or manual")  # fmt: skip
        win, draw, loss = s.match_points
        if not win >= draw >= loss:
            yield Problem("must be [win, draw, loss] with win >= draw >= loss, e.g. [2, 1, 0]", "match_points")
        for name in s.team_tiebreaks:
            if name not in teamtiebreaks.TEAM_TIEBREAKS:
                yield Problem(f"unknown team tie-break {name!r}", "team_tiebreaks",
                              "choose from " + ", ".join(teamtiebreaks.TEAM_TIEBREAKS))  # fmt: skip
        yield from self._team_problems()
        for r in d.rounds:
            yield from self._round_problems(r)

    def _team_problems(self) -> Iterator[Problem]:
        d = self.division
        numbers = [t.number for t in d.teams]
        names = [t.name.casefold() for t in d.teams]
        if len(set(numbers)) != len(numbers) or any(n < 1 for n in numbers):
            yield Problem("team numbers must be distinct and start at 1")
        if any(n > MAX_TEAM for n in numbers):  # a fourth digit would shift every column of TRF's team lines
            yield Problem(f"team number {max(numbers)} is beyond {MAX_TEAM} (TRF writes team numbers in three digits)")
        if len(set(names)) != len(names) or not all(n.strip() for n in names):
            yield Problem("every team needs a name of its own")
        for i, t in enumerate(d.teams, 1):  # a team's name and short name go on every report, as players' names do
            for key, text in (("name", t.name), ("short", t.short)):
                fault = text_fault(text)
                if fault is not None:
                    yield Problem(fault, f"team[{i}].{key}", PRINTABLE_ONLY)
            if len(t.short) > MAX_NICKNAME:  # TRF's 310 line has five columns for it: more was cut off there
                yield Problem(f"{t.short!r} is longer than {MAX_NICKNAME} characters", f"team[{i}].short",
                              "TRF's team nickname has 5 columns")  # fmt: skip
        known = {p.number for p in d.players}
        seen: set[int] = set()
        for t in d.teams:
            for p in t.players:
                if p not in known:
                    yield Problem(f"team {t.name!r} names unknown player {p}")
                if p in seen:
                    yield Problem(f"player {p} is on two teams' rosters")
                seen.add(p)

    def _round_problems(self, r: Round) -> Iterator[Problem]:
        d = self.division
        s = settings(d)
        teams = {t.number: t for t in d.teams}
        seated = [x for m in r.matches for x in m] + list(r.team_byes)
        if any(x not in teams for x in seated) or len(set(seated)) != len(seated):
            yield Problem(f"round {r.number}: matches and team byes must name known teams, each at most once")
        if any(t not in teams or (b and b not in teams) for t, b in r.forced_matches):
            yield Problem(f"round {r.number}: a forced match names an unknown team")
        for team, lineup in r.lineups.items():
            if team not in teams:
                yield Problem(f"round {r.number}: a lineup of unknown team {team}")
                continue
            roster = teams[team].players
            players = [p for p in lineup if p]
            if len(lineup) != s.team_size or len(set(players)) != len(players) or any(p not in roster for p in players):
                yield Problem(
                    f"round {r.number}: the lineup of team {teams[team].name!r} must name {s.team_size} board(s), "
                    "each a player of its roster (or 0 for an empty board), none twice"
                )
            elif players != sorted(players, key=roster.index):
                yield Problem(f"round {r.number}: the lineup of {teams[team].name!r} breaks its roster's board order")
        if any(k != ByeKind.FULL for k in r.byes.values()):
            yield Problem(f"round {r.number}: players' byes are not kept in a team division (teams have byes)")
        if r.paired:
            expected = {(w, b) for m in r.matches for _, _, w, b in match_boards(r, m) if w and b}
            if {(b.white, b.black) for b in r.boards} != expected:
                yield Problem(f"round {r.number}: its boards must be the games of its matches' lineups")

    # -- pairing -----------------------------------------------------------------------------------

    def pair(self, options: PairOptions) -> list[str]:
        """Pair the next round's teams by the division's system; games are placed for matches with both lineups."""
        division = self.division
        if len(division.teams) < 2:
            raise StateError("a team division pairs teams, and it has fewer than two", hint="add-team enters them")
        record = self.open_round(options)
        n = record.number
        messages: list[str] = []
        if division.system == PairingSystem.ROUND_ROBIN:
            self._pair_berger(record)
            if options.explain:
                messages.append(f"round {n} of the Berger tables (C.05 Annex 1), teams by number: nothing is chosen")
        elif division.system == PairingSystem.TEAM_SWISS:
            messages += self._pair_swiss(record, options)
        else:
            unseated = [t for t in division.teams if not _seated(record, t.number)]
            if unseated:
                names = ", ".join(team_label(t) for t in unseated)
                raise StateError(f"manual division: team(s) without a match or bye in round {n}: {names} (force)")
        record.paired = True
        given = [division.team(t) for m in record.matches for t in m if t in record.lineups]
        short = default_lineups(division, record)
        place_boards(division, record)
        byes = ", ".join(f"{team_label(division.team(t))} ({k})" for t, k in record.team_byes.items())
        messages.append(f"round {n} paired: {len(record.matches)} match(es)" + (f"; bye: {byes}" if byes else ""))
        named = f" ({', '.join(team_label(t) for t in given)}: as given)" if given else ""
        messages.append(f"lineups: each team's roster's first boards{named}; `lineup` changes one until its match "
                        "has a result")  # fmt: skip
        messages += [f"warning: {team_label(t)} has too few players for round {n}: its last boards are empty, lost "
                     "by forfeit" for t in short]  # fmt: skip
        return messages

    def _pair_berger(self, record: Round) -> None:
        division = self.division
        order = sorted(t.number for t in division.teams)
        table = self.berger(len(order), record.number)
        record.matches = [(order[w - 1], order[b - 1]) for w, b in table.boards]
        if table.bye is not None:
            record.team_byes[order[table.bye - 1]] = ByeKind.ZERO

    def _pair_swiss(self, record: Round, options: PairOptions) -> list[str]:
        division = self.division
        n = record.number
        messages: list[str] = []
        messages += self.settle_initial_colour(n, options, "the top-ranked team has {colour} on board 1")
        teams = [e for e in team_entrants(self.event, division, n) if not _seated(record, e.id)]
        try:
            done = pair_teams(
                teams,
                round_number=n,
                total_rounds=max(self.event.rounds, n),
                forbidden=division.forbidden,
                initial_colour=division.first_colour,
            )
        except PairingError as exc:
            raise PairingError(f"round {n} cannot be paired: {exc}", topic=Topic.UNPAIRABLE) from None
        record.matches += list(done.pairing.boards)
        if done.pairing.bye is not None:
            record.team_byes[done.pairing.bye] = ByeKind.PAIRING
        if options.explain:
            messages += done.explanation
        return messages

    def force(self, white: str, black: str) -> list[str]:
        """A match of the next round set before pairing (``white`` has white on board 1), or a team's bye."""
        division = self.division
        if division.system == PairingSystem.ROUND_ROBIN:
            raise StateError("round-robin matches are fixed by the Berger tables",
                             hint="force applies to Swiss and manual divisions")
        n = division.paired_rounds + 1
        total = self.event.total_rounds(division)
        if total and n > total:
            raise StateError(f"all {total} rounds are paired")
        record = division.round(n, create=True)
        first = find_team(division.teams, white)
        if _seated(record, first.number):
            raise StateError(f"{team_label(first)} already has a match or bye in round {n}", topic=Topic.ROUND_TAKEN)
        if black.lower() == "bye":
            earlier = [r.number for r in division.rounds if r.team_byes.get(first.number) == ByeKind.PAIRING]
            if earlier:
                raise StateError(
                    f"{team_label(first)} already had the bye in round {earlier[0]}", topic=Topic.SECOND_BYE
                )
            record.team_byes[first.number] = ByeKind.PAIRING
            record.forced_matches.append((first.number, 0))
            return [f"round {n}: {team_label(first)} has the bye"]
        second = find_team(division.teams, black)
        if second.number == first.number:
            raise StateError("a team cannot play itself", hint="name two different teams")
        if _seated(record, second.number):
            raise StateError(f"{team_label(second)} already has a match or bye in round {n}", topic=Topic.ROUND_TAKEN)
        met = [r.number for r in division.rounds if r.paired and {first.number, second.number} in map(set, r.matches)]
        if met:
            raise StateError(f"{team_label(first)} and {team_label(second)} met in round {met[0]}", topic=Topic.REMATCH)
        record.matches.append((first.number, second.number))
        record.forced_matches.append((first.number, second.number))
        return [f"round {n}: {team_label(first)} – {team_label(second)} set ({first.name} white on board 1)"]

    def unforce(self, white: str, black: str) -> list[str]:
        """Take back a match (the two teams in either order) or a team's bye set with :meth:`force`."""
        division = self.division
        n = division.paired_rounds + 1
        record = division.find_round(n) or Round(n)
        first = find_team(division.teams, white)
        second = None if black.lower() == "bye" else find_team(division.teams, black)
        wanted = {first.number, second.number if second else 0}
        match = next((m for m in record.forced_matches if set(m) == wanted), None)
        if match is None:
            what = f"forced match with {team_label(second)}" if second else "forced bye"
            raise StateError(f"{team_label(first)} has no {what} in round {n}")
        record.forced_matches.remove(match)
        if second:
            record.matches.remove(match)
            home, away = (first, second) if match[0] == first.number else (second, first)
            said = f"the forced match {team_label(home)} – {team_label(away)}"
        else:
            del record.team_byes[first.number]
            said = f"the forced bye of {team_label(first)}"
        division.drop_empty_rounds()
        return [f"round {n}: {said} is taken out"]

    def unpair(self) -> list[str]:
        """Take back the last round's pairing while none of its games has a result; lineups and forced matches
        stay."""
        division = self.division
        n = division.paired_rounds
        if not n:
            raise StateError("no round is paired")
        record = division.round(n)
        if any(not b.result.pending for b in record.boards):
            raise StateError(f"round {n} has results", topic=Topic.HAS_RESULTS,
                             hint="correct them to * first, or use undo")
        record.paired = False
        record.boards, record.byes = [], {}
        record.matches = [m for m in record.forced_matches if m[1]]
        record.team_byes = {t: ByeKind.PAIRING for t, b in record.forced_matches if not b}
        return [f"round {n} unpaired; {len(record.forced_matches)} forced match(es) and the lineups kept"]

    def request_bye(self, player: Player, round_number: int, kind: ByeKind) -> list[str]:
        raise StateError("a team division has no byes of players",
                         hint="leave the player out of the team's lineup (lineup)")

    # -- teams, rosters and lineups ------------------------------------------------------------------

    def joined(self, player: Player) -> list[str]:
        """A player entered with ``--team`` goes to the end of that team's roster."""
        if not player.team:
            return []
        team = find_team(self.division.teams, player.team)
        team.players.append(player.number)
        player.team = team.name
        return [f"{label(player)} is board {len(team.players)} on the roster of {team_label(team)}"]

    def add_team(self, name: str, *, number: int = 0, short: str = "", players: Sequence[str] = ()) -> list[str]:
        """A new team (number: the next free one), with its roster in board order."""
        division = self.division
        if not name.strip():
            raise StateError("a team needs a name", hint="give it one, e.g. \"Leiden 2\"")
        if any(t.name.casefold() == name.strip().casefold() for t in division.teams):
            raise StateError(f"there is already a team {name.strip()!r}", hint="give this one another name")
        number = number or max((t.number for t in division.teams), default=0) + 1
        if any(t.number == number for t in division.teams):
            raise StateError(f"team number {number} is taken", hint="leave the number out to take the next free one")
        if division.paired_rounds and division.system == PairingSystem.ROUND_ROBIN:
            raise StateError("a round robin cannot take a team once round 1 is paired",
                             hint="unpair round 1 first, before any result is in")
        team = Team(number, name.strip(), short=short)
        division.teams.append(team)
        messages = [f"added team {team_label(team)}"]
        if players:
            messages += self.roster(str(number), players)
        return messages

    def roster(self, text: str, players: Sequence[str]) -> list[str]:
        """A team's roster, in board order (it replaces the old one; lineups given must keep to it, and one that
        is the old roster's first boards follows it while its match has no result)."""
        division = self.division
        team = find_team(division.teams, text)
        chosen = [find_player(division, p) for p in players]
        numbers = [p.number for p in chosen]
        if len(set(numbers)) != len(numbers):
            raise StateError("a player appears twice in the roster", hint="name each player once, in board order")
        for p in chosen:
            other = team_of(division, p.number)
            if other is not None and other is not team:
                raise StateError(f"{label(p)} is on {team_label(other)}'s roster")
        followed = self._follow_roster(team, numbers)
        team.players = numbers
        for p in chosen:
            p.team = team.name
        boards = ", ".join(f"{i}. {p.name}" for i, p in enumerate(chosen, 1))
        moved = f"; round(s) {', '.join(map(str, followed))}: its lineup follows it" if followed else ""
        return [f"{team_label(team)} roster: {boards or 'empty'}{moved}"]

    def _follow_roster(self, team: Team, roster: list[int]) -> list[int]:
        """A lineup that was the old roster's first boards follows the new roster while its match has no result;
        the rounds it did so in."""
        division = self.division
        followed = []
        for record in division.rounds:
            lineup = record.lineups.get(team.number)
            if lineup is None or not lineup_open(record, team.number):
                continue
            if lineup == first_boards(division, team.players, record.number) and roster != team.players:
                record.lineups[team.number] = first_boards(division, roster, record.number)
                if record.paired:
                    place_boards(division, record)
                followed.append(record.number)
        return followed

    def lineup(self, text: str, words: Sequence[str], round_number: int | None) -> list[str]:
        """A team's lineup for a round (default: the last paired round while the team's match has no result,
        else the next): players of its roster in roster order, ``-`` for a board left empty. A team without one
        fields its roster's first boards when the round is paired."""
        division = self.division
        s = settings(division)
        team = find_team(division.teams, text)
        n = round_number if round_number is not None else lineup_round(division, team.number)
        total = self.event.total_rounds(division)
        if n < 1 or (total and n > total):
            raise StateError(f"there is no round {n}" + (f"; the event has {total}" if total else ""))
        if len(words) != s.team_size:
            raise StateError(f"a lineup names {s.team_size} board(s), not {len(words)}",
                             hint="name one player per board, in order, - for an empty board")
        chosen = [None if w in EMPTY else find_player(division, w) for w in words]
        for p in chosen:
            if p is not None and p.number not in team.players:
                raise StateError(f"{label(p)} is not on {team_label(team)}'s roster")
            if p is not None and not p.plays(n):
                raise StateError(f"{label(p)} is withdrawn from round {n}")
        numbers = [p.number if p else 0 for p in chosen]
        present = [x for x in numbers if x]
        if len(set(present)) != len(present):
            raise StateError("a player cannot play two boards", hint="name each player once, - for an empty board")
        if present != sorted(present, key=team.players.index):
            raise StateError("the lineup must keep the roster's board order",
                             hint=f"name them in the order of {team_label(team)}'s roster (roster shows it)")
        record = division.round(n, create=True)
        involved = set(present) | set(record.lineups.get(team.number, []))
        if any(not b.result.pending for b in record.boards if {b.white, b.black} & involved):
            raise StateError(f"{team_label(team)}'s match in round {n} has results", hint="correct them to * first")
        record.lineups[team.number] = numbers
        if record.paired:
            place_boards(division, record)
        boards = ", ".join(f"{i}. {p.name if p else '(empty)'}" for i, p in enumerate(chosen, 1))
        return [f"round {n}: {team_label(team)} lineup: {boards}"]

    def prepare_play(self, record: Round) -> None:
        """Each team still without a lineup fields its roster's first players who play the round."""
        default_lineups(self.division, record)
        place_boards(self.division, record)

    # -- results -----------------------------------------------------------------------------------

    def board_name(self, record: Round, board: Board) -> str:
        where = match_of_board(record, board)
        return f"{where[0]}.{where[1]}" if where else super().board_name(record, board)

    def seat_text(self, record: Round, number: int) -> str:
        """``round 3: board 2.1, white``: the board as ``MATCH.BOARD``, as results are entered."""
        board = record.seat(number)
        where = match_of_board(record, board) if board is not None else None
        if board is None or where is None:
            return super().seat_text(record, number)
        side = self.sides[0] if board.white == number else self.sides[1]
        return f"round {record.number}: board {where[0]}.{where[1]}, {side}"

    def parse_entry(self, words: Sequence[str]) -> Entry:
        """``MATCH.BOARD RESULT`` (``2.3 1-0``: board 3 of the round's second match), or a chess result line."""
        if len(words) != 2 or "." not in words[0]:
            return super().parse_entry(words)
        match_text, _, board_text = words[0].partition(".")
        if not (ascii_digits(match_text) and ascii_digits(board_text)):
            raise StateError(f"{words[0]!r} is not MATCH.BOARD", hint="write e.g. 2.3 for board 3 of match 2")
        return ResultEntry(BoardRef(int(board_text), match=int(match_text)), parse_result(words[1]))

    def enter(self, entry: Entry, round_number: int | None, *, correction: bool, confirm: bool = False) -> list[str]:
        if not isinstance(entry, ResultEntry) or not isinstance(entry.where, BoardRef) or entry.where.match is None:
            return super().enter(entry, round_number, correction=correction, confirm=confirm)
        d = self.division
        n = d.paired_rounds if round_number is None else round_number
        record = d.round(n)
        index, number = entry.where.match, entry.where.number
        if not record.paired or not 1 <= index <= len(record.matches):
            raise StateError(f"round {n} has matches 1-{len(record.matches)}; there is no match {index}",
                             topic=Topic.NO_BOARD)  # fmt: skip
        boards = match_boards(record, record.matches[index - 1])
        if not boards:
            raise StateError(f"match {index} of round {n} has no games yet", hint="give both lineups first")
        if not 1 <= number <= len(boards):
            raise StateError(f"a match has boards 1-{len(boards)}", topic=Topic.NO_BOARD)
        _, game, white, black = boards[number - 1]
        if game is None:
            empty = "both seats are" if not (white or black) else "a seat is"
            raise StateError(f"board {number} of match {index}: {empty} empty, the board is decided by forfeit")
        return set_result(self.event, d, n, game, entry.result, correction=correction, unrated=entry.unrated)

    @property
    def entry_shape(self) -> str:
        return "`MATCH.BOARD RESULT`, `BOARD RESULT` or `P1 P2 RESULT` (1-0 0-1 = +- -+ -- adj)"

    def bye_text(self, record: Round, number: int) -> str:
        return "won by forfeit: the opponent's board was empty"

    def reports(self) -> TeamReports:
        return TeamReports(self)


def _seated(record: Round, team: int) -> bool:
    return team in record.team_byes or any(team in m for m in record.matches)
