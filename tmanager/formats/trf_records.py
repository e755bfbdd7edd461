"""The record lines of a TRF file beyond the players and the header, each read and written by a registered
:class:`RecordType`: TRF-2026's byes (``240``), acceleration (``250``), prohibited pairings (``260``) and forfeited
matches (``330``), and TRF-16's per-player acceleration (``XXA``, as JaVaFo and bbpPairings read it).

:func:`register` files a type under its code; :func:`tmanager.formats.trf.parse` hands every line of a registered
code to its type, and :func:`tmanager.formats.trf.dumps` writes the values back through it (the records of team
events are registered the same way by :mod:`tmanager.formats.trf_teams`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tmanager.core.results import TrfResult, format_points
from tmanager.errors import ascii_digits

_SCORE = re.compile(r"^\d{1,3}(\.\d)?$")

_V = TypeVar("_V")


@dataclass(frozen=True, slots=True)
class RecordType(Generic[_V]):
    """How one kind of record line reads and writes: its code, the type of its values, and the two directions.

    ``read`` gets the whole line and raises :class:`ValueError` saying what is wrong with it.
    """

    code: str
    value_type: type[_V]
    read: Callable[[str], _V]
    write: Callable[[_V], str]


#: The record types the reader and the writer (:mod:`tmanager.formats.trf`) know, by code, in writing order.
RECORD_TYPES: dict[str, RecordType[Any]] = {}


def register(record_type: RecordType[_V]) -> RecordType[_V]:
    """Make :func:`tmanager.formats.trf.parse` and :func:`~tmanager.formats.trf.dumps` read and write the records of
    ``record_type.code``."""
    RECORD_TYPES[record_type.code] = record_type
    return record_type


def _field(line: str, start: int, end: int) -> str:
    """Columns ``start``..``end`` (counted from 1, as the TRF tables count them)."""
    return line[start - 1 : end].strip()


def _whole(text: str, what: str) -> int:
    if not ascii_digits(text):
        raise ValueError(f"{what} {text!r} is not a whole number")
    return int(text)


def tenths(text: str, what: str) -> int:
    text = text.strip()
    if not _SCORE.match(text):
        raise ValueError(f"{what} {text!r} is not a score such as 1.5")
    whole, _, tenth = text.partition(".")
    return int(whole) * 10 + int(tenth or 0)


def _ids(text: str, what: str) -> tuple[int, ...]:
    """Numbers in 5-column steps (``PPPP`` and a space), as 240 and 260 list them."""
    ids = tuple(_whole(x, what) for x in text.split())
    if not ids:
        raise ValueError(f"no {what}")
    return ids


# -- TRF-2026 records --------------------------------------------------------------------------------------

class ByeCode(enum.StrEnum):
    """A ``240`` bye's type: full-, half- or zero-point."""

    FULL = "F"
    HALF = "H"
    ZERO = "Z"

    @property
    def result(self) -> TrfResult:
        """The round entry of the bye (the same code)."""
        return TrfResult(self.value)


@dataclass(frozen=True, slots=True)
class Bye:
    """``240``: players with a full-, half- or zero-point bye (``F H Z``) in a round."""

    kind: ByeCode
    round: int
    players: tuple[int, ...]

    @classmethod
    def read(cls, line: str) -> Bye:
        code = _field(line, 5, 5)
        if code not in tuple(ByeCode):
            raise ValueError(f"bye type {code!r} is not F, H or Z")
        return cls(ByeCode(code), _whole(_field(line, 7, 9), "round"), _ids(line[10:], "player"))

    def write(self) -> str:
        return f"240 {self.kind.value} {self.round:03d} " + " ".join(f"{p:4d}" for p in self.players)


@dataclass(frozen=True, slots=True)
class Acceleration:
    """``250``: virtual points (tenths) given to the players ``first_player``..``last_player`` (starting ranks)
    in the rounds ``first_round``..``last_round``; ``match_points`` is for team events."""

    points: int
    first_round: int
    last_round: int
    first_player: int
    last_player: int
    match_points: int | None = None

    @classmethod
    def read(cls, line: str) -> Acceleration:
        match = _field(line, 5, 8)
        points = tenths(_field(line, 10, 13), "points")
        if points == 0 and match == "":
            raise ValueError("the virtual points of an individual event must not be 0.0")
        value = cls(
            points, _whole(_field(line, 15, 17), "first round"), _whole(_field(line, 19, 21), "last round"),
            _whole(_field(line, 23, 26), "first player"), _whole(_field(line, 28, 31), "last player"),
            tenths(match, "match points") if match else None,
        )  # fmt: skip
        if value.first_round > value.last_round or value.first_player > value.last_player:
            raise ValueError("a range ends before it starts")
        return value

    def write(self) -> str:
        match = format_points(self.match_points, decimal=True) if self.match_points is not None else ""
        return (
            f"250 {match:>4} {format_points(self.points, decimal=True):>4} {self.first_round:03d} "
            f"{self.last_round:03d} {self.first_player:4d} {self.last_player:4d}"
        )

    def applies(self, player: int, round_number: int) -> bool:
        return self.first_player <= player <= self.last_player and self.first_round <= round_number <= self.last_round


@dataclass(frozen=True, slots=True)
class Prohibited:
    """``260``: players (or teams) who must not meet in the rounds ``first_round``..``last_round``."""

    first_round: int
    last_round: int
    players: tuple[int, ...]

    @classmethod
    def read(cls, line: str) -> Prohibited:
        value = cls(_whole(_field(line, 5, 7), "first round"), _whole(_field(line, 9, 11), "last round"),
                    _ids(line[12:], "player"))  # fmt: skip
        if len(value.players) < 2:
            raise ValueError("a prohibited pairing names two or more players")
        return value

    def write(self) -> str:
        return f"260 {self.first_round:03d} {self.last_round:03d} " + " ".join(f"{p:4d}" for p in self.players)


class ForfeitCode(enum.StrEnum):
    """A ``330`` forfeited match's type: white wins, black wins, or both lose."""

    WHITE_WINS = "+-"
    BLACK_WINS = "-+"
    BOTH_LOSE = "--"


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``330``: a forfeited match (team events): ``+-`` white wins, ``-+`` black wins, ``--`` both lose."""

    kind: ForfeitCode
    round: int
    white: int
    black: int

    @classmethod
    def read(cls, line: str) -> Forfeit:
        code = _field(line, 5, 6)
        if code not in tuple(ForfeitCode):
            raise ValueError(f"forfeit type {code!r} is not +-, -+ or --")
        return cls(ForfeitCode(code), _whole(_field(line, 8, 10), "round"), _whole(_field(line, 12, 14), "white"),
                   _whole(_field(line, 16, 18), "black"))  # fmt: skip

    def write(self) -> str:
        return f"330 {self.kind.value} {self.round:03d} {self.white:3d} {self.black:3d}"


@dataclass(frozen=True, slots=True)
class PlayerAcceleration:
    """``XXA`` (TRF-16, JaVaFo's TRF(x) extension as bbpPairings reads it): one player's virtual points (tenths) in
    rounds 1, 2, … by starting rank; each value fills columns 10-13, 15-18, … (blank: none)."""

    player: int
    points: tuple[int, ...]

    @classmethod
    def read(cls, line: str) -> PlayerAcceleration:
        player = _whole(_field(line, 5, 8), "player")
        if line[8:9].strip():
            raise ValueError("column 9 must be blank")
        fields = [line[start : start + 5] for start in range(8, len(line.rstrip()), 5)]
        return cls(player, tuple(tenths(f, "points") if f.strip() else 0 for f in fields))

    def write(self) -> str:
        return f"XXA {self.player:4d}" + "".join(f" {format_points(p, decimal=True):>4}" for p in self.points)

    def at(self, round_number: int) -> int:
        return self.points[round_number - 1] if round_number <= len(self.points) else 0


BYES = register(RecordType("240", Bye, Bye.read, Bye.write))
ACCELERATION = register(RecordType("250", Acceleration, Acceleration.read, Acceleration.write))
PROHIBITED = register(RecordType("260", Prohibited, Prohibited.read, Prohibited.write))
FORFEITS = register(RecordType("330", Forfeit, Forfeit.read, Forfeit.write))
PLAYER_ACCELERATION = register(
    RecordType("XXA", PlayerAcceleration, PlayerAcceleration.read, PlayerAcceleration.write)
)
