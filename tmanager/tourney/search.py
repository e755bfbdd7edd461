"""A search as the game runner asks for it and as engines report it: limits, scores, reports and replies.

The values both protocols share (:mod:`~tmanager.tourney.uciclient`,
:mod:`~tmanager.tourney.xboardclient`): a :class:`SearchLimit` is what a move
request says of the time; a :class:`Report` is what an engine said of its
search (the last value of each field wins, as it does in python-chess); a
:class:`Reply` is its answer to a move request. Reports are read only as far as
the caller asks (:class:`Wanted`): a score for adjudication is looked for from
the last line backwards and the rest is not parsed.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import chess

#: What a mate counts as in centipawns (less the moves to it), as python-chess and fastchess count it.
MATE_SCORE = 100_000


class Wanted(enum.Flag):
    """What of an engine's search reports the caller reads."""

    NOTHING = 0
    SCORE = enum.auto()
    #: depth, seldepth, nodes, nps, time, hashfull, tbhits
    BASIC = enum.auto()
    PV = enum.auto()
    ALL = SCORE | BASIC | PV


@dataclass(frozen=True, slots=True)
class SearchLimit:
    """How long a search may take: a fixed time, nodes or depth, and the clocks (seconds) when there are."""

    move_time: float | None = None
    nodes: int | None = None
    depth: int | None = None
    white_clock: float | None = None
    black_clock: float | None = None
    white_inc: float | None = None
    black_inc: float | None = None
    moves_to_go: int | None = None
    #: Until told to stop (UCI's ``go infinite``).
    infinite: bool = False

    @property
    def has_clocks(self) -> bool:
        return self.white_clock is not None or self.black_clock is not None


@dataclass(frozen=True, slots=True)
class Score:
    """A score from the mover's point of view: centipawns, or a mate in so many moves (negative: mated)."""

    cp: int | None = None
    mate: int | None = None

    def centipawns(self) -> int:
        """The score in centipawns, a mate as :data:`MATE_SCORE` less the moves to it, a mate against the
        mover (or ``mate 0``: mated) as its negative (python-chess's ``score(mate_score=100_000)``)."""
        if self.mate is None:
            return self.cp or 0
        return MATE_SCORE - self.mate if self.mate > 0 else -MATE_SCORE - self.mate

    def text(self) -> str:
        """``+0.25``, ``0.00``, ``-1.50``; a mate as ``+M5``/``-M4``, counted in plies, as fastchess writes scores."""
        if self.mate is not None:
            return f"+M{2 * self.mate - 1}" if self.mate > 0 else f"-M{-2 * self.mate}"
        return "0.00" if not self.cp else f"{self.cp / 100:+.2f}"


@dataclass(frozen=True, slots=True)
class Report:
    """What an engine said of a search; ``None`` (or empty) for what it did not say, or was not read."""

    score: Score | None = None
    depth: int | None = None
    seldepth: int | None = None
    nodes: int | None = None
    nps: int | None = None
    time: float | None = None  #: seconds
    hashfull: int | None = None
    tbhits: int | None = None
    pv: tuple[str, ...] = ()  #: the principal variation's moves as the engine wrote them


NO_REPORT = Report()


@dataclass(frozen=True, slots=True)
class Reply:
    """An engine's answer to a move request: its move (``None`` when it claimed a result instead, or said
    it has none), whether it resigned, and its report of the search."""

    move: chess.Move | None
    report: Report = NO_REPORT
    resigned: bool = False
    #: With ``keep_lines``, every line the engine wrote while it searched, the move aside.
    lines: Sequence[str] = field(default=(), compare=False)


#: The UCI ``info`` keywords that take one number.
_UCI_NUMBERS = {"depth", "seldepth", "nodes", "nps", "hashfull", "tbhits"}
#: A move in a PV, as python-chess reads one (a drop, or the null move).
_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][pnbrqk]?|[PNBRQK]@[a-h][1-8]|0000\Z")


def uci_report(lines: Sequence[str], wanted: Wanted) -> Report:
    """The report of a UCI search's ``info`` lines (without their ``info``), a later line's value winning.
    Read from the last line backwards and only as far as ``wanted`` needs: with the score alone, back to the
    last line that has one."""
    if not wanted:
        return NO_REPORT
    found: dict[str, Any] = {}
    score_only = wanted == Wanted.SCORE
    for line in reversed(lines):
        _read_uci_info(line, wanted, found)
        if score_only and "score" in found:
            break
    return dataclasses.replace(NO_REPORT, **found)


def _read_uci_info(line: str, wanted: Wanted, found: dict[str, Any]) -> None:
    """What ``line`` (an ``info`` line without its ``info``) says, as python-chess reads it, into ``found``
    where a later line (read before it) has not said it."""
    words = line.split()
    at, end = 0, len(words)
    while at < end - 1:
        word = words[at]
        at += 1
        value: object = None
        if word == "string":
            return  # the rest of the line is text
        if word in _UCI_NUMBERS and Wanted.BASIC in wanted:
            value = _int(words[at])
            at += 1
        elif word == "time" and Wanted.BASIC in wanted:
            milliseconds = _int(words[at])
            value = None if milliseconds is None else milliseconds / 1000
            at += 1
        elif word == "score" and Wanted.SCORE in wanted and at + 1 < end:
            value = _uci_score(words[at], words[at + 1])
            at += 2
        elif word == "pv":
            start = at
            while at < end and _MOVE.match(words[at]):
                at += 1
            value = tuple(words[start:at]) if Wanted.PV in wanted else None
        if value is not None:
            found.setdefault(word, value)


def _int(word: str) -> int | None:
    try:
        return int(word)
    except ValueError:
        return None


def _uci_score(kind: str, value: str) -> Score | None:
    number = _int(value)
    if number is None:
        return None
    return Score(cp=number) if kind == "cp" else Score(mate=number) if kind == "mate" else None


def xboard_report(line: str, wanted: Wanted) -> Report | None:
    """The report of an XBoard thinking line, ``depth score time nodes [seldepth [nps [tbhits]]] pv``
    (time in centiseconds; a score of ±100,000 and beyond a mate), or ``None`` if ``line`` is not one."""
    words = line.split()
    numbers: list[int] = []
    for word in words:
        number = _int(word)
        if number is None:
            break
        numbers.append(number)
    if len(numbers) < 4:
        return None
    depth, cp, centiseconds, nodes, *more = numbers
    extra = dict(zip(("seldepth", "nps"), more, strict=False))
    tbhits = more[-1] if len(more) > 2 else None
    pv = tuple(word for word in words[len(numbers):] if not word.rstrip(".").isdigit()) if Wanted.PV in wanted else ()
    return Report(
        score=_xboard_score(cp), depth=depth, time=centiseconds / 100, nodes=nodes, tbhits=tbhits, pv=pv, **extra
    )


def _xboard_score(cp: int) -> Score:
    """XBoard's score: a mate in N moves is 100,000 + N, a mate in N against the mover -100,000 - N."""
    if cp <= -MATE_SCORE:
        return Score(mate=cp + MATE_SCORE)
    if cp > MATE_SCORE:
        return Score(mate=cp - MATE_SCORE)
    return Score(cp=cp)
