"""Reports of a division: built once as plain data, rendered as text, as printable pages and on the web.

A :class:`Report` is a title and blocks of tables and notes. Each kind of
division has its reports (:class:`DivisionReports`: chess in
:mod:`~tmanager.events.reports.chess`, score-based in
:mod:`~tmanager.events.reports.scored`, teams in :mod:`~tmanager.events.reports.team`), handed out by its rules
(:meth:`~tmanager.events.rules.base.DivisionRules.reports`);
:mod:`~tmanager.events.reports.render` turns any report into text and HTML
and publishes a set of them beside the event.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

from tmanager.errors import StateError
from tmanager.events.model import Player, Round

if TYPE_CHECKING:
    from tmanager.events.ranking import Group
    from tmanager.events.rules.base import DivisionRules


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of cells under a header; ``left`` are the left-aligned (name) columns; ``anchor`` an HTML id."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    left: frozenset[int] = frozenset({1})
    title: str = ""
    anchor: str = ""


@dataclass(frozen=True, slots=True)
class Report:
    """One report: ``key`` names its files (``standings-r3``), ``kind`` what it is (``standings``),
    ``blocks`` are tables and notes (strings); ``cards`` puts each table on a printed page of its own."""

    key: str
    title: str
    blocks: tuple[Table | str, ...]
    cards: bool = False
    kind: str = ""


@dataclass(frozen=True, slots=True)
class Seat:
    """Where a player sits now, as a sentence: ``before``, the ``side`` (emphasised), ``opponent``, ``after``."""

    before: str
    side: str = ""
    opponent: Player | None = None
    after: str = ""


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player at a glance: facts, score (``3½`` and ``points``), rank, seat now, rounds so far and a note."""

    player: Player
    facts: tuple[str, ...]
    score: str
    unit: str
    rank: int | None
    seat: Seat | None
    rounds: Table | None
    note: str = ""


class DivisionReports(ABC):
    """The reports one kind of division has; the web pages and ``event report`` show them."""

    #: Report kinds, in index order (``build``'s ``only`` names them).
    kinds: ClassVar[tuple[str, ...]]

    def __init__(self, rules: DivisionRules) -> None:
        self.rules = rules
        self.event = rules.event
        self.division = rules.division

    @property
    def heading(self) -> str:
        """The event's name, and the division's when there are several."""
        several = len(self.event.divisions) > 1
        return self.event.name + (f", division {self.division.name}" if several else "")

    @property
    def prefix(self) -> str:
        """What the keys start with: the division's name when the event has several."""
        return f"{slug(self.division.name)}-" if len(self.event.divisions) > 1 else ""

    def upto(self, upto: int | None) -> int:
        """Round ``upto`` (default: the last paired), which must be paired (or 0)."""
        paired = self.division.paired_rounds
        n = paired if upto is None else upto
        if not 0 <= n <= paired:
            # Before any round, "reports exist for rounds 0-0" named a range of one round, and no round at all.
            after = f"reports exist for rounds 0-{paired}" if paired else "no round is paired yet"
            raise StateError(f"round {n} is not paired; {after}", field="round")
        return n

    def paired_round(self, round_number: int | None) -> Round:
        """Round ``round_number`` (default: the one being played, :meth:`DivisionRules.result_round`: the last
        paired, but a Double-Swiss's game 1 while it lacks results), which must be paired."""
        # (a Double-Swiss pairs a match's two games at once: its pairings showed game 2, colours reversed, while the
        # players sat down to game 1)
        n = self.rules.result_round() if round_number is None else round_number
        if n == 0 and round_number is None:
            raise StateError("no round is paired yet; `pair` pairs round 1")
        record = self.division.round(n)
        if not record.paired:
            raise StateError(f"round {n} is not paired yet", field="round")
        return record

    @abstractmethod
    def build(self, only: Sequence[str] = (), round_number: int | None = None) -> list[Report]:
        """The reports of ``only`` (all :attr:`kinds` by default), after round ``round_number`` (default: last)."""

    @abstractmethod
    def pairings(self, round_number: int | None = None) -> list[Report]:
        """A round's pairings: by board first, then any other order."""

    @abstractmethod
    def standings(self, upto: int | None = None) -> Report:
        """The standings after round ``upto`` (default: the last paired)."""

    @abstractmethod
    def table(self, upto: int | None = None) -> Report:
        """The cross-table or wall chart after round ``upto``."""

    @abstractmethod
    def missing(self) -> Report:
        """The results still to enter."""

    @abstractmethod
    def summary(self, number: int) -> PlayerSummary:
        """Player ``number`` at a glance."""

    @abstractmethod
    def pairings_text(self, round_number: int | None = None) -> str:
        """A round's pairings for the terminal."""

    @abstractmethod
    def standings_text(self, upto: int | None = None, *, among: Group | None = None) -> str:
        """The standings for the terminal; ``among`` ranks one category or class of players (chess)."""

    def team_standings(self, upto: int | None = None) -> Report:
        """The teams ranked after round ``upto`` (default: the last paired): a team division's standings, tsh's
        TeamStandings of a score-based one; refused where players play on their own."""
        raise StateError(f"division {self.division.name!r} ranks players only: team standings need teams")


_D = TypeVar("_D", bound=DivisionReports)


def require_reports(reports: DivisionReports, kind: type[_D], refusal: str) -> _D:
    """``reports`` if they are of ``kind``; else :class:`StateError` ``refusal`` (a prize list of a team
    division…), as :func:`tmanager.events.rules.require` for the rules."""
    if not isinstance(reports, kind):
        raise StateError(refusal)
    return reports


def slug(text: str) -> str:
    """``Open A`` as ``open-a``: a name as part of a file name."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "x"


def tiebreak_values(values: Sequence[float | None]) -> tuple[str, ...]:
    """Tie-break values as people read them: ``3``, ``2.5``, ``0.33``; blank for none (DE outside a tie)."""
    return tuple("" if v is None else str(int(v)) if v == int(v) else f"{v:.2f}".rstrip("0") for v in values)


def check_kinds(only: Sequence[str], kinds: Sequence[str], what: str = "") -> None:
    """Refuse a report kind the division does not have."""
    unknown = [k for k in only if k not in kinds]
    if unknown:
        raise StateError(f"no report {unknown[0]!r}{what}; choose from {', '.join(kinds)}")
