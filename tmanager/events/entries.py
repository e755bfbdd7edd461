"""A result as the arbiter gives it, read into typed parts: which board, and what happened on it.

A result line (``4 1-0``, ``12 Smith =``, ``2.3 0-1``, ``7 412 12 389``) or a
board's form on the arbiter's page becomes one :data:`Entry`: where the game
is (:class:`BoardRef`: a board of the round, or of a team match;
:class:`PlayersRef`: two players as typed, found when the entry is made) and
what the arbiter says of it (:class:`ResultEntry`: a result, from the first
named player's side; :class:`ScoreEntry`: a score-based division's numbers, in
the order its ``entry`` mode takes them). Reading words into an entry is the
division's rules' (:meth:`~tmanager.events.rules.base.DivisionRules.parse_entry`),
and so is making it (:meth:`~tmanager.events.rules.base.DivisionRules.enter`);
nothing here reads the event.
"""

from __future__ import annotations

from dataclasses import dataclass

from tmanager.core.results import Result


@dataclass(frozen=True, slots=True)
class BoardRef:
    """Board ``number`` of the round, or, with ``match``, board ``number`` of the round's match ``match``."""

    number: int
    match: int | None = None


@dataclass(frozen=True, slots=True)
class PlayersRef:
    """The board where ``first`` and ``second`` meet, each a number or a unique part of a name as typed."""

    first: str
    second: str


Where = BoardRef | PlayersRef


@dataclass(frozen=True, slots=True)
class ResultEntry:
    """A game's result from the side of the first player named (by board: white, or who went first); ``unrated``:
    True marks a game played over the board as not rated (TRF's ``W D L``), False rated again, None leaves it."""

    where: Where
    result: Result
    unrated: bool | None = None


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    """A score-based game's numbers as the division's ``entry`` mode takes them: the two scores, a spread, or the
    two scores and their spread; the first player's first."""

    where: Where
    values: tuple[int, ...]


Entry = ResultEntry | ScoreEntry


@dataclass(frozen=True, slots=True)
class ShownBoard:
    """A board as the page that sent a result for it showed it: its players in order and its result. A form from
    a page shown before the round was paired again, or the result changed, is refused rather than applied to
    another game (:func:`tmanager.events.operations.refuse_changed`)."""

    white: int
    black: int
    result: Result
