"""Chess divisions: Dutch Swiss, Berger round robin or manual pairing; results 1-0, ½-½, forfeits; FIDE tie-breaks.

A division's history goes to the pure pairing core as
:class:`~tmanager.pairing.PlayerState` values with TRF result codes
(:func:`~tmanager.events.games.history`), to
:func:`~tmanager.pairing.pair_round` (Dutch) or
:func:`~tmanager.pairing.round_robin` (Berger); the standings go through
:mod:`tmanager.core.tiebreaks`. A new chess pairing system (Double-Swiss) is a
pure function in :mod:`tmanager.pairing` and one entry in
:meth:`ChessRules.pair`'s choice of system.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from tmanager.core import fide
from tmanager.core.results import ByeKind, Colour, Result, TrfResult, format_points
from tmanager.errors import PairingError, ScheduleError, StateError, ascii_digits
from tmanager.events.entries import BoardRef, Entry, PlayersRef, ResultEntry
from tmanager.events.games import accelerated, history, round_games, score, scores
from tmanager.events.messages import Note, Topic
from tmanager.events.model import (
    Acceleration,
    Board,
    Division,
    Event,
    InitialColour,
    PairingSystem,
    Round,
    label,
    missing,
)
from tmanager.events.operations import board_at, find_player, locate, refuse_entered, span
from tmanager.events.ranking import tiebreak_standings
from tmanager.events.reports import DivisionReports
from tmanager.events.reports.chess import ChessReports
from tmanager.events.rules.base import (
    DivisionRules,
    EntryForm,
    PairOptions,
    Problem,
    forfeit_result,
    parse_result,
)
from tmanager.formats.tou import TouGame, TouOutcome, TouPlayer, display_name
from tmanager.pairing import Pairing, PlayerState, explain_round, explain_round_robin, pair_round, round_robin
from tmanager.pairing.acceleration import baku_group, baku_rounds
from tmanager.pairing.matching import max_weight_perfect_matching

#: The results an arbiter chooses from, and what the menu says.
RESULT_CHOICES = (
    (Result.PENDING, "no result"),
    (Result.WHITE_WINS, "1-0"),
    (Result.DRAW, "½-½"),
    (Result.BLACK_WINS, "0-1"),
    (Result.WHITE_WINS_BY_FORFEIT, "1-0 forfeit (+-)"),
    (Result.BLACK_WINS_BY_FORFEIT, "0-1 forfeit (-+)"),
    (Result.DOUBLE_FORFEIT, "both forfeit (--)"),
    (Result.ADJOURNED, "adjourned"),
)
#: The rating assumed for unrated players in dry runs (FIDE's rating floor).
UNRATED = 1400
#: The draw probability of two equally rated players in dry runs; it shrinks with the expected score's distance from ½.
DRAW_RATE = 0.3
#: A round's TRF code as a .TOU outcome and score (AUPAIR: a bye scores 50 and counts as a win).
_TOU = {
    TrfResult.WIN: (TouOutcome.WIN, 0), TrfResult.FORFEIT_WIN: (TouOutcome.WIN, 0),
    TrfResult.DRAW: (TouOutcome.TIE, 0), TrfResult.LOSS: (TouOutcome.LOSS, 0),
    TrfResult.FORFEIT_LOSS: (TouOutcome.LOSS, 0), TrfResult.PAIRING_BYE: (TouOutcome.BYE, 50),
    TrfResult.FULL_BYE: (TouOutcome.BYE, 50), TrfResult.HALF_BYE: (TouOutcome.TIE, 0),
    TrfResult.ZERO_BYE: (TouOutcome.LOSS, 0), TrfResult.UNRATED_WIN: (TouOutcome.WIN, 0),
    TrfResult.UNRATED_DRAW: (TouOutcome.TIE, 0), TrfResult.UNRATED_LOSS: (TouOutcome.LOSS, 0),
}  # fmt: skip


class ChessRules(DivisionRules):
    """The rules of a chess division."""

    systems: ClassVar[tuple[PairingSystem, ...]] = (
        PairingSystem.DUTCH, PairingSystem.ROUND_ROBIN, PairingSystem.MANUAL,
    )  # fmt: skip
    sides = ("white", "black")
    side_titles = ("White", "Black")
    explains = True
    awards_prizes = True

    def problems(self) -> Iterator[Problem]:
        d = self.division
        if d.system not in self.systems:
            others = ", ".join(s for s in PairingSystem if s not in self.systems and s != PairingSystem.INIT_FONTES)
            yield Problem(
                f"{str(d.system)!r} is not a pairing system",
                "system",
                f"dutch, round-robin or manual; a score-based division (with entry) also {others}",
            )
        if any(
            r.spreads or r.board_numbers or r.p12 or ByeKind.FORFEIT in r.byes.values() for r in d.rounds
        ) or any(p.off is not None or p.extensions for p in d.players):
            yield Problem("spreads, off, forfeit byes and .t data are for score-based divisions (set entry)")
        for r in d.rounds:
            for i, b in enumerate(r.boards, 1):
                if b.scores is not None:
                    yield Problem(f"round {r.number} board {i}: scores are for score-based divisions (set entry)")
        if d.acceleration is not Acceleration.NONE and d.system != PairingSystem.DUTCH:
            yield Problem("accelerates Dutch divisions only", "acceleration")
        scoring = self.event.scoring
        if d.acceleration is Acceleration.BAKU and (scoring.loss != 0 or 2 * scoring.draw != scoring.win):
            yield Problem("the Baku method needs a draw to score half a win and a loss nothing", "acceleration")
        if d.baku_last is not None and all(p.number != d.baku_last for p in d.players):
            yield Problem(f"names no player of the division ({d.baku_last})", "baku_last")

    # -- pairing ---------------------------------------------------------------------------------

    def open_round(self, options: PairOptions) -> Round:
        """The record of the round to pair, once the score-based options are refused and every result before it
        is in."""
        if options.system is not None or options.repeats is not None:
            raise StateError("--system and --repeats are for score-based divisions (set entry)")
        n = self.next_round()
        self.refuse_missing(n - 1, f"enter them before pairing round {n}")
        return self.division.round(n, create=True)

    def berger(self, entrants: int, round_number: int) -> Pairing:
        """Round ``round_number`` of the Berger tables of ``entrants`` (players or teams, by rank in number order),
        for the division's cycles; a :class:`StateError` past its last round."""
        try:
            return round_robin(entrants, round_number, cycles=self.division.cycles)
        except ScheduleError as exc:
            raise StateError(str(exc)) from None

    def draws_first_colour(self, round_number: int) -> bool:
        division = self.division
        return round_number == 1 and division.system == PairingSystem.DUTCH and division.initial_colour is None

    def settle_initial_colour(self, n: int, options: PairOptions, wording: str) -> list[str]:
        """The top-ranked's colour in round 1: as ``--colour`` asks, else drawn by lot when round 1 is paired (a note
        in ``wording``, which places ``{colour}``)."""
        division = self.division
        recorded = division.initial_colour or InitialColour.WHITE
        if n > 1 and options.colour is not None and options.colour != recorded.colour:
            # It decides colours from round 1 on (5.2.5) and TRF's 152/XXC says it: a later round cannot change it.
            raise StateError(
                f"--colour chooses the top-ranked's colour when round 1 is paired; round 1 was paired with {recorded} "
                f"for the top-ranked, and round {n} keeps it",
                topic=Topic.COLOUR_BY_LOT,
                hint="unpair back to round 1 to choose again",
            )
        if n == 1 and options.colour is None and division.initial_colour is None:
            division.initial_colour = (options.rng or random.SystemRandom()).choice(list(InitialColour))
            return [Note(f"initial colour drawn by lot: {wording.format(colour=division.initial_colour)}",
                         Topic.COLOUR_BY_LOT)]  # fmt: skip
        if options.colour is not None:
            division.initial_colour = InitialColour.of(options.colour)
        return []

    def pair(self, options: PairOptions) -> list[str]:
        """Pair the next round by the division's system.

        Round 1 of a Dutch division draws the initial colour by lot
        (``options.rng``) unless ``options.colour`` is given, and records it.
        """
        division = self.division
        record = self.open_round(options)
        n = record.number
        messages: list[str] = []
        if options.colour is not None and division.system != PairingSystem.DUTCH:
            raise StateError(f"--colour is for Swiss divisions: a {division.system.value} division's colours are "
                             "the Berger tables' or the arbiter's (force)")  # fmt: skip
        if division.system == PairingSystem.ROUND_ROBIN:
            self._pair_berger(record)
            if options.explain:
                messages += self._explain_berger(record.number)
        elif division.system == PairingSystem.DUTCH:
            messages += self.settle_initial_colour(n, options, "the top-ranked player has {colour}")
            messages += self._pair_dutch(record, explain=options.explain)
        else:
            self.refuse_unseated(record)
            if options.explain:
                messages.append(f"round {n} is paired by hand: every board and bye was set by the arbiter (force)")
        record.paired = True
        self._sort_boards(record)
        messages.append(f"round {n} paired: {len(record.boards)} board(s)" + self.bye_note(record))
        return messages

    def _pair_dutch(self, record: Round, *, explain: bool) -> list[str]:
        """Pair a Dutch round; with ``explain``, why each pair and colour (:func:`~tmanager.pairing.explain_round`)."""
        division = self.division
        messages = self._baku(record.number) + self._unplanned()
        states = accelerated(self.event, division, history(division, record.number), record.number)
        entrants = [s for s in states if len(s.games) < record.number]
        if len(entrants) == 1:
            raise PairingError(
                f"round {record.number} cannot be paired: only {label(division.player(entrants[0].id))} is left",
                topic=Topic.UNPAIRABLE,
            )
        groups = division.forbidden_groups()
        settings: dict[str, Any] = {  # the same for the pairing and its explanation
            "round_number": record.number,
            "total_rounds": max(self.event.rounds, record.number),
            "forbidden": groups,
            "points": self.event.scoring,
            "initial_colour": division.first_colour,
        }
        try:
            if explain:
                explained = explain_round(states, **settings)
                pairing = explained.pairing
                messages += explained.lines(lambda number: label(division.player(number)))
            else:
                pairing = pair_round(states, **settings)
        except PairingError:
            raise PairingError(
                f"round {record.number} cannot be paired: {_why_unpairable(division, states, record.number, groups)}",
                topic=Topic.UNPAIRABLE,
            ) from None
        record.boards += [Board(w, b) for w, b in pairing.boards]
        if pairing.bye is not None:
            record.byes[pairing.bye] = ByeKind.PAIRING
        return messages

    def _unplanned(self) -> list[str]:
        """A warning when the event plans no rounds: the Dutch system's last-round rules (C.04.3 A.7's topscorers,
        who may then break an absolute colour preference) need to know which round is the last. Without it each
        round is paired as the last of as many rounds as are paired, and the arbiter was not told."""
        if self.event.total_rounds(self.division):
            return []
        return ["warning: the event plans no rounds (rounds = 0), so the Dutch system's last-round rules cannot "
                "apply as FIDE's do: each round is paired as if it were the last (plan them: tmanager event set "
                "EVENT rounds=N)"]  # fmt: skip

    def _baku(self, round_number: int) -> list[str]:
        """Round 1 of a Baku-accelerated division fixes GA's last player (C.04.5.1) and says what follows."""
        division = self.division
        if division.acceleration is not Acceleration.BAKU or round_number != 1:
            return []
        if not self.event.total_rounds(division):  # else round 1 alone was accelerated, whatever the event's length
            raise StateError("the Baku acceleration gives virtual points in the first half of the planned rounds, "
                             "and the event plans none",
                             hint="plan them: tmanager event set EVENT rounds=N")  # fmt: skip
        if division.baku_last is None:
            ranks = division.ranks()
            size = min(baku_group(len(division.players)), len(division.players))
            division.baku_last = next(number for number, rank in ranks.items() if rank == size)
        full, half = baku_rounds(self.event.total_rounds(division))
        last = division.player(division.baku_last)
        return [
            f"Baku acceleration: GA is the players ranked down to {label(last)}; one virtual point in "
            f"round{span(list(full))}, half a point in round{span(list(half))}"
        ] if half else [f"Baku acceleration: GA down to {label(last)}; one virtual point in round{span(list(full))}"]

    def _pair_berger(self, record: Round) -> None:
        division = self.division
        order = sorted(p.number for p in division.players)
        table = self.berger(len(order), record.number)
        for w, b in table.boards:
            white, black = division.player(order[w - 1]), division.player(order[b - 1])
            board = Board(white.number, black.number)
            # A withdrawn player's remaining games are lost by forfeit.
            if not white.plays(record.number) or not black.plays(record.number):
                board.result = forfeit_result(white.plays(record.number), black.plays(record.number))
            record.boards.append(board)
        if table.bye is not None:
            record.byes[order[table.bye - 1]] = ByeKind.ZERO

    def _explain_berger(self, round_number: int) -> list[str]:
        """Where round ``round_number`` comes from in the Berger tables (players numbered in number order)."""
        division = self.division
        order = sorted(p.number for p in division.players)
        explained = explain_round_robin(len(order), round_number, cycles=division.cycles)
        return list(explained.lines(lambda k: f"{label(division.player(order[k - 1]))} #{k}"))

    def _sort_boards(self, record: Round) -> None:
        """Boards in the Dutch order: higher score first, then the lower score, then the better rank."""
        division = self.division
        ranks = division.ranks()
        points = scores(self.event, division, record.number - 1)

        def key(b: Board) -> tuple[int, int, int]:
            sides = sorted(((points[p], -ranks[p]) for p in (b.white, b.black)), reverse=True)
            return (-sides[0][0], -sides[1][0], -sides[0][1])

        if division.system != PairingSystem.ROUND_ROBIN:
            record.boards.sort(key=key)

    # -- results ---------------------------------------------------------------------------------

    def parse_entry(self, words: Sequence[str]) -> Entry:
        """``BOARD RESULT`` or ``P1 P2 RESULT`` (the result read as P1 against P2)."""
        if len(words) == 2:
            if not ascii_digits(words[0]):
                raise StateError(f"{words[0]!r} is not a board number", field="board",
                                 hint="give a board or two players, then the result")
            return ResultEntry(BoardRef(int(words[0])), parse_result(words[1]))
        if len(words) == 3:
            return ResultEntry(PlayersRef(words[0], words[1]), parse_result(words[2]))
        raise StateError("a result is entered by its board or its two players",
                         hint="give BOARD RESULT or P1 P2 RESULT, e.g. `4 1-0` or `12 7 =`")

    def enter(self, entry: Entry, round_number: int | None, *, correction: bool, confirm: bool = False) -> list[str]:
        n = self.entry_round(entry, round_number, correction=correction)  # --round 0 is no default
        if n < 1 and round_number is None:
            raise StateError("no round is paired yet")
        board, result = self.locate_entry(entry, n)
        assert isinstance(entry, ResultEntry)  # locate_entry refuses a score entry
        return set_result(self.event, self.division, n, board, result, correction=correction,
                          paired_with=self.match_rounds(n)[-1], unrated=entry.unrated)  # fmt: skip

    def locate_entry(self, entry: Entry, n: int) -> tuple[Board, Result]:
        """The board of round ``n`` an entry names, and its result from white's side."""
        if not isinstance(entry, ResultEntry):
            raise StateError("a chess division takes results, not scores", hint="give 1-0 0-1 = +- -+ -- or adj")
        d, where = self.division, entry.where
        if isinstance(where, PlayersRef):
            first, second = find_player(d, where.first), find_player(d, where.second)
            board = locate(d, n, first, second)
            return board, entry.result.reversed if first.number == board.black else entry.result
        if where.match is not None:
            raise StateError(f"{where.match}.{where.number} names a board of a team match", hint="give BOARD RESULT")
        return board_at(d, n, where.number), entry.result

    @property
    def entry_shape(self) -> str:
        return "`BOARD RESULT` or `P1 P2 RESULT` (1-0 0-1 = +- -+ -- adj)"

    def entry_form(self) -> EntryForm:
        return EntryForm(inputs=(), choice="result", choice_label="result of board", choices=RESULT_CHOICES,
                         confirm=False)  # fmt: skip

    def entry_values(self, board: Board) -> dict[str, str]:
        return {"result": board.result}

    def random_entry(self, record: Round, board: Board, rng: random.Random) -> Entry:
        white, black = self.division.player(board.white), self.division.player(board.black)
        return ResultEntry(BoardRef(record.board_number(board)), random_result(white.rating, black.rating, rng))

    def result_text(self, board: Board) -> str:
        return board.result

    def bye_mark(self, record: Round, number: int) -> str:
        return record.byes[number]

    def bye_text(self, record: Round, number: int) -> str:
        kind = record.byes[number]
        return "pairing-allocated bye" if kind == ByeKind.PAIRING else f"{kind}-point bye"

    # -- standings, reports, files ------------------------------------------------------------------

    def scores_text(self) -> dict[int, str]:
        return {s.player.number: format_points(s.points) for s in tiebreak_standings(self.event, self.division)}

    def reports(self) -> DivisionReports:
        return ChessReports(self)

    def tou_players(self, aliases: Mapping[str, str]) -> list[TouPlayer]:
        """In player-number order, every paired round, white going first; a game's score is only its outcome."""
        division = self.division
        pending = missing(division)
        if pending:
            n, board = pending[0]
            raise StateError(
                f"round {n} board {division.round(n).boards.index(board) + 1} has no result, and .TOU needs every "
                "result", hint="enter it, or export before pairing the round"
            )
        order = sorted(division.players, key=lambda p: p.number)
        index = {p.number: i for i, p in enumerate(order, 1)}
        rounds = [round_games(division, r) for r in division.rounds if r.paired]
        players = []
        for p in order:
            games = []
            for entries in rounds:
                game = entries[p.number]
                outcome, points = _TOU[game.result]
                opponent = index[game.opponent] if game.opponent is not None else None
                games.append(TouGame(points, outcome, opponent, first=game.colour == Colour.WHITE))
            players.append(TouPlayer(display_name(p.name, aliases), tuple(games)))
        return players


def _why_unpairable(division: Division, states: Sequence[PlayerState], n: int, groups: Sequence[frozenset[int]]) -> str:
    """A reason a Dutch round failed, in the arbiter's terms."""
    entrants = [s for s in states if len(s.games) < n]
    ids = sorted({s.id for s in entrants})
    met = {s.id: {g.opponent for g in s.games if g.played} for s in entrants}
    edges = {
        (i, j): 0 for j, b in enumerate(ids) for i, a in enumerate(ids[:j])
        if b not in met[a] and not any({a, b} <= g for g in groups)
    }  # fmt: skip
    partnered = {v for edge in edges for v in edge}
    lonely = [a for i, a in enumerate(ids) if i not in partnered]
    if lonely and len(lonely) == len(ids):
        return "all remaining opponents already met (or are forbidden pairs)"
    if len(lonely) > len(ids) % 2:
        return f"{label(division.player(lonely[0]))} has already met every remaining opponent"
    if len(ids) % 2:
        eligible = {s.id for s in entrants if not any(g.opponent is None and g.result.full_point_bye for g in s.games)}
        if not eligible:
            return "every remaining player has already had a full-point bye"
        edges |= {(i, len(ids)): 0 for i, a in enumerate(ids) if a in eligible}  # the bye, one more vertex
    if max_weight_perfect_matching(len(ids) + len(ids) % 2, edges) is None:
        return "the remaining players cannot all be paired without a rematch or a forbidden pair"
    return "every pairing breaks the absolute colour rules (three times the same colour, or two more of one colour)"


# -- results ---------------------------------------------------------------------------------------


def set_result(
    event: Event, division: Division, round_number: int, board: Board, result: Result, *, correction: bool = False,
    paired_with: int | None = None, unrated: bool | None = None,
) -> list[str]:
    """Enter (or, with ``correction``, change) a board's result; returns the echo and any warning. ``paired_with``:
    the last round paired together with ``round_number`` (a Double-Swiss's game 2), which no result of it paired;
    ``unrated``: mark the game not rated (True), rated again (False), or leave it (None)."""
    result = Result(result)
    refuse_entered(division, round_number, board, correction=correction, shown=board.result)
    old = board.result
    _mark_rated(division.round(round_number), board, result, unrated)
    board.result = result
    white, black = division.player(board.white), division.player(board.black)
    upto = division.paired_rounds
    # A forfeit keeps the mark (the game is unrated again if corrected back to the one played), but is no game
    # over the board to be rated or not.
    marked = (board.white, board.black) in division.round(round_number).unrated
    not_rated = " (not rated)" if marked and not (result.forfeit or result.pending) else ""
    echo = (
        f"round {round_number}: {label(white)} {format_points(score(event, division, white.number, upto))} "
        f"{result} {label(black)} {format_points(score(event, division, black.number, upto))}{not_rated}"
    )
    messages = [echo]
    # Only the rounds paired after it were paired with the old result: a Double-Swiss's game 1 corrected warned that
    # game 2, paired with it before any result, was paired with the old result.
    together = round_number if paired_with is None else paired_with
    if correction and old != result and together < division.paired_rounds:
        later = list(range(together + 1, division.paired_rounds + 1))
        messages.append(
            Note(
                f"warning: round{span(later)} {'was' if len(later) == 1 else 'were'} paired with the old result "
                f"{old}; the pairings stand unless you unpair and pair again",
                Topic.OLD_RESULT,
            )
        )
    return messages


def _mark_rated(record: Round, board: Board, result: Result, unrated: bool | None) -> None:
    """Mark ``board`` of ``record`` not rated (``unrated``), rated again, or leave it (None). Only a game played
    over the board is rated or not: a forfeit, an adjourned game or no result is refused, before anything changes.
    An arbiter had no command for it: an unrated game came from another program's TRF or a hand edit."""
    if unrated is None:
        return
    game = (board.white, board.black)
    if unrated and (result.forfeit or result.pending):
        raise StateError(f"a {result} is not a game played over the board, which alone is rated or not",
                         field="--unrated", hint="give the result of the game played (1-0, 0-1, =)")  # fmt: skip
    if unrated and game not in record.unrated:
        record.unrated.append(game)
    elif not unrated and game in record.unrated:
        record.unrated.remove(game)


def random_result(white: int, black: int, rng: random.Random) -> Result:
    """A result for white rated ``white`` against ``black`` (0: unrated), drawn from FIDE's expected score."""
    expected = fide.expected(white or UNRATED, black or UNRATED)
    draw = DRAW_RATE * (1 - abs(2 * expected - 1))
    x = rng.random()
    if x < expected - draw / 2:
        return Result.WHITE_WINS
    return Result.DRAW if x < expected + draw / 2 else Result.BLACK_WINS
