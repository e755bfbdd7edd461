"""The rules interface: how one kind of division is checked, paired, given results, ranked and reported.

A division is a chess division (:class:`~tmanager.events.rules.chess.ChessRules`:
Dutch, Berger, manual; points and FIDE tie-breaks) or a score-based one
(:class:`~tmanager.events.rules.scored.ScoreRules`: tsh's systems; wins and
spread). :func:`~tmanager.events.rules.rules_for` picks the implementation
once, from the division's data; everything else asks the rules object and
never tests which kind it has. A new kind of division (team events) is a new
implementation of :class:`DivisionRules` registered there.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from tmanager.core.results import ByeKind, Colour, Result
from tmanager.errors import StateError
from tmanager.events import operations
from tmanager.events.entries import BoardRef, Entry, ResultEntry, ScoreEntry
from tmanager.events.messages import Topic
from tmanager.events.model import Board, Division, Event, PairingSystem, Player, Round, label, missing

if TYPE_CHECKING:
    from tmanager.events.reports import DivisionReports
    from tmanager.formats.tou import TouPlayer


#: Each system as pages name it.
SYSTEM_TITLES = {
    PairingSystem.DUTCH: "Swiss (FIDE Dutch)", PairingSystem.ROUND_ROBIN: "round robin",
    PairingSystem.MANUAL: "manual pairing", PairingSystem.KOTH: "King of the Hill",
    PairingSystem.FACTORED: "factored pairings", PairingSystem.TSH_SWISS: "Swiss (tsh)",
    PairingSystem.CHEW: "Chew pairings", PairingSystem.RANDOM: "random pairings",
    PairingSystem.DOUBLE_SWISS: "Double-Swiss (FIDE, matches of two games)",
    PairingSystem.TEAM_SWISS: "team Swiss (FIDE)",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class PairOptions:
    """What the arbiter may ask of one pairing beyond the division's settings."""

    colour: Colour | None = None  # chess, round 1: the top-ranked player's colour instead of a lot
    system: PairingSystem | None = None  # score-based: this round by another system
    repeats: int | None = None  # score-based: how often two players may have met (this round)
    rng: random.Random | None = None  # the lots (colours, random pairings, firsts); default: the system's
    explain: bool = False  # add why each pair and colour was chosen (the systems that can say)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something a division of this kind may not hold: ``key`` names the field, else the division as a whole."""

    message: str
    key: str | None = None
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class EntryForm:
    """A result as a form: numbers typed in ``inputs``, or one of ``choices`` (``""``: the inputs)."""

    inputs: tuple[tuple[str, str], ...]  # (field name, what it is)
    choice: str  # the field name of the choice
    choice_label: str
    choices: tuple[tuple[str, str], ...]  # (value, what the menu says)
    confirm: bool  # a box confirming an unusual score

    def entry(self, board: int, form: Mapping[str, str]) -> Entry:
        """The entry a submitted form gives for board ``board`` of its round: the result chosen, or the numbers
        typed; a :class:`StateError` names what is missing or wrong.

        A choice left as the page showed it (the form's ``was``: a forfeit on the board stays selected in its
        menu) gives way to numbers typed: they were ignored, and the forfeit recorded again as "nothing changed"."""
        chosen = form.get(self.choice, "")
        typed = any(form.get(name, "").strip() for name, _ in self.inputs)
        if not self.inputs or (chosen and not (typed and chosen == form.get("was"))):
            return ResultEntry(BoardRef(board), parse_result(chosen))
        # What the page calls each field ("first player's score"), never its name in the form ("s1").
        empty = [what for name, what in self.inputs if not form.get(name, "").strip()]
        if empty:
            wanted = " and ".join(what for _, what in self.inputs)
            raise StateError(f"give the {wanted} (or choose a forfeit); the {empty[0]} is empty")
        return ScoreEntry(BoardRef(board), tuple(whole_number(form[name].strip(), "score") for name, _ in self.inputs))


class DivisionRules(ABC):
    """The rules of one division of an event, bound to both (short-lived: make one per use)."""

    #: The systems a division of this kind may be paired by (``system``).
    systems: ClassVar[tuple[PairingSystem, ...]]
    #: What the two players of a board are called, and their titles on forms.
    sides: ClassVar[tuple[str, str]]
    side_titles: ClassVar[tuple[str, str]]
    #: How a result still missing is named when a pairing waits for it: ``2.3`` (:meth:`board_name` after the round).
    board_notation: ClassVar[str] = "round.board"
    #: Whether :meth:`pair` can say why each pair and colour was chosen (``PairOptions.explain``).
    explains: ClassVar[bool] = False
    #: Whether the division ranks players by points (a chess division of players): its prize fund is allocated.
    awards_prizes: ClassVar[bool] = False
    #: Whether the division is score-based, as tsh runs one: tsh's commands and its team standings apply.
    score_based: ClassVar[bool] = False

    def __init__(self, event: Event, division: Division) -> None:
        self.event = event
        self.division = division

    @property
    def system_title(self) -> str:
        """The division's pairing system as pages name it."""
        return SYSTEM_TITLES[self.division.system]

    @property
    def team_size(self) -> int | None:
        """The boards of a match in a team division (the players of a team in each); None where players meet
        players."""
        return None

    @property
    def paired_by_hand(self) -> bool:
        """Every game of a round is forced by the arbiter: nothing pairs it (a manual division)."""
        return self.division.system == PairingSystem.MANUAL

    def draws_first_colour(self, round_number: int) -> bool:
        """Whether pairing ``round_number`` draws the top-ranked player's colour by lot unless the arbiter
        chooses it (a form offers the choice)."""
        return False

    @abstractmethod
    def problems(self) -> Iterator[Problem]:
        """What the division holds that this kind does not allow."""

    @abstractmethod
    def pair(self, options: PairOptions) -> list[str]:
        """Pair the next round; the messages to show."""

    @abstractmethod
    def parse_entry(self, words: Sequence[str]) -> Entry:
        """A result line's words (``BOARD RESULT``, ``P1 P2 RESULT``, the kind's own forms) read into an entry;
        nothing is looked up: the players and the board are found when the entry is made."""

    @abstractmethod
    def enter(self, entry: Entry, round_number: int | None, *, correction: bool, confirm: bool = False) -> list[str]:
        """Enter (or, with ``correction``, change) a result; the echo and any warning."""

    @property
    @abstractmethod
    def entry_shape(self) -> str:
        """What a result line looks like, for prompts."""

    @abstractmethod
    def entry_form(self) -> EntryForm:
        """A result as a form."""

    @abstractmethod
    def entry_values(self, board: Board) -> dict[str, str]:
        """What ``board``'s result form shows now, by field name."""

    @abstractmethod
    def random_entry(self, record: Round, board: Board, rng: random.Random) -> Entry:
        """A plausible entry for ``board`` of round ``record`` (dry runs)."""

    @abstractmethod
    def result_text(self, board: Board) -> str:
        """A board's result as people read it."""

    @abstractmethod
    def bye_mark(self, record: Round, number: int) -> str:
        """A bye in a list of byes: its kind, or the spread it gives."""

    @abstractmethod
    def bye_text(self, record: Round, number: int) -> str:
        """A bye where a player's seat would be named."""

    @abstractmethod
    def scores_text(self) -> dict[int, str]:
        """Each player's score now, by number, as lists show it beside the name."""

    @abstractmethod
    def reports(self) -> DivisionReports:
        """The reports of the division."""

    @abstractmethod
    def tou_players(self, aliases: Mapping[str, str]) -> list[TouPlayer]:
        """The division as players of an AUPAIR ``.TOU`` file."""

    # -- changes before a round whose reach depends on the kind ------------------------------------

    def match_rounds(self, round_number: int) -> list[int]:
        """The rounds of the file that one pairing spans: the round itself (a Double-Swiss: its match's two)."""
        return [round_number]

    def prepare_play(self, record: Round) -> None:
        """Complete what a simulated round needs before its games are played (:mod:`~tmanager.events.dryrun`):
        nothing, unless the kind says otherwise (a team division: the lineups still missing)."""
        return

    def result_round(self) -> int:
        """The round a result goes to when none is named: the last paired (a Double-Swiss: game 1 of the last
        match while it has results missing)."""
        last = self.division.paired_rounds
        pending = {r for r, _ in missing(self.division)}
        return next((n for n in self.match_rounds(last) if n in pending), last) if last else last

    def entry_round(self, entry: Entry, round_number: int | None, *, correction: bool) -> int:
        """The round an entry goes to: ``round_number`` when given, else :meth:`result_round` (a Double-Swiss:
        the game of the match that the entry's board is at)."""
        return self.result_round() if round_number is None else round_number

    def request_bye(self, player: Player, round_number: int, kind: ByeKind) -> list[str]:
        """A requested bye of ``kind`` in round ``round_number`` (and the other rounds of its match)."""
        return [
            m for n in self.match_rounds(round_number)
            for m in operations.request_bye(self.event, self.division, player, n, kind)
        ]  # fmt: skip

    def cancel_bye(self, player: Player, round_number: int) -> list[str]:
        """Take back a requested bye of round ``round_number`` (and of the other rounds of its match)."""
        return [
            m for n in self.match_rounds(round_number)
            for m in operations.cancel_bye(self.event, self.division, player, n)
        ]  # fmt: skip

    def force(self, white: str, black: str) -> list[str]:
        """A game of the next round set before pairing (``black`` ``bye``: the pairing-allocated bye)."""
        return operations.force_named(self.event, self.division, white, black)

    def unforce(self, white: str, black: str) -> list[str]:
        """Take back a game (``black`` ``bye``: the bye) of the next round set with :meth:`force`."""
        return operations.unforce(self.event, self.division, *operations.players_named(self.division, white, black))

    def unpair(self) -> list[str]:
        """Take back the last round's pairing while none of its results is in."""
        return operations.unpair(self.division)

    def joined(self, player: Player) -> list[str]:
        """What the division does with a player just entered (a team division puts them on their team)."""
        return []

    def board_name(self, record: Round, board: Board) -> str:
        """A board of round ``record`` as results name it: its number (a team division: ``MATCH.BOARD``)."""
        return str(record.board_number(board))

    def seat_text(self, record: Round, number: int) -> str:
        """Where a player sits in a round: ``round 3: board 4, white`` (or ``first``), a bye, or nothing."""
        board = record.seat(number)
        if board is not None:
            side = self.sides[0] if board.white == number else self.sides[1]
            return f"round {record.number}: board {record.board_number(board)}, {side}"
        if number in record.byes:
            return f"round {record.number}: {self.bye_text(record, number)}"
        return ""

    def bye_note(self, record: Round) -> str:
        """``; byes: Name (3) (pairing)``: the byes of a round just paired, for its message."""
        byes = [f"{label(self.division.player(p))} ({self.bye_mark(record, p)})" for p in record.byes]
        return "; byes: " + ", ".join(byes) if byes else ""

    # -- what every kind's pairing checks first ---------------------------------------------------

    def next_round(self) -> int:
        """The round to pair next; a :class:`StateError` once every planned round is paired, or when no player is
        available for it (a round of no boards would be paired, and every player entered later be a late entry)."""
        n = self.division.paired_rounds + 1
        total = self.event.total_rounds(self.division)
        if total and n > total:
            raise StateError(f"all {total} rounds are paired")
        if not any(p.plays(n) for p in self.division.players):
            why = "every player is withdrawn from it" if self.division.players else "the division has no players yet"
            raise StateError(f"round {n} cannot be paired: {why}", topic=Topic.UNPAIRABLE)
        return n

    def results_needed(self) -> int:
        """The last round whose results must all be in before the next round is paired by the division's own
        system: the round before it (a score-based division with session breaks: the round of its standings)."""
        return self.division.paired_rounds

    def refuse_missing(self, upto: int, then: str) -> None:
        """Refuse to pair while a result of rounds 1..``upto`` is missing; ``then`` ends the message."""
        pending = [(r, b) for r, b in missing(self.division) if r <= upto]
        if pending:
            # Each board as results name it: a team division's were numbered through the round (1.3 for match 2's
            # first board, which `result 1.3` reads as match 1's third).
            where = ", ".join(f"{r}.{self.board_name(self.division.round(r), b)}" for r, b in pending[:8])
            where += ", …" if len(pending) > 8 else ""  # the first 8, and that there are more
            raise StateError(
                f"{len(pending)} result(s) missing ({self.board_notation}: {where}); {then}",
                topic=Topic.RESULTS_MISSING,
            )

    def refuse_unseated(self, record: Round) -> None:
        """A manually paired round must give every available player a game or a bye."""
        division = self.division
        unpaired = [
            p for p in division.players
            if p.plays(record.number) and p.number not in record.byes and not record.seat(p.number)
        ]  # fmt: skip
        if unpaired:
            names = ", ".join(label(p) for p in unpaired[:6])
            raise StateError(
                f"manual division: {len(unpaired)} player(s) have no game or bye in round {record.number}: {names}"
            )


def forfeit_result(white_plays: bool, black_plays: bool) -> Result:
    """The result of a fixed game (a round robin's) when a side is withdrawn: a forfeit for the one who plays."""
    if white_plays == black_plays:
        return Result.DOUBLE_FORFEIT
    return Result.WHITE_WINS_BY_FORFEIT if white_plays else Result.BLACK_WINS_BY_FORFEIT


def parse_result(text: str) -> Result:
    """The stored form of a result as typed (``=`` is ``½-½``, ``w`` is ``1-0``…)."""
    try:
        return Result.parse(text)
    except ValueError as exc:
        raise StateError(str(exc), topic=Topic.NOT_A_RESULT, field="result") from None


#: A whole number as typed: the digits 0-9, at most six of them (no score, spread or board number needs more),
#: perhaps signed. ``int`` alone also takes '٣٠٠', '1_000' and numbers too long for the event file's TOML.
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,6}")


def whole_number(text: str, what: str) -> int:
    """``text`` as a whole number; a :class:`StateError` calling it ``what`` otherwise."""
    if not _WHOLE_NUMBER.fullmatch(text):
        raise StateError(f"{text[:24]!r} is not a {what}", hint="write a whole number: digits 0-9, at most 6 of them")
    return int(text)


def parse_system(text: str) -> PairingSystem:
    """A pairing system by name; :class:`StateError` listing them for any other word."""
    try:
        return PairingSystem(text)
    except ValueError:
        raise StateError(f"{text!r} is not a pairing system", hint=f"choose from {', '.join(PairingSystem)}") from None
