"""Human events: players, rounds, pairing, results and corrections, stored in one TOML file per event.

The model is plain data: an :class:`Event` holds divisions, each with its
players and rounds; a round holds its boards ``(white, black, result)`` and its
byes. The operations (:func:`add_player`, :func:`pair`, :func:`set_result`…)
change a model in memory and return the messages to show; nothing here touches
a file except the thin layer at the end (:func:`load`, :func:`change`,
:func:`undo`), which takes the lock, keeps the previous version in the
journal directory ``old/`` beside the event and writes atomically.

Pairing reuses the core: a division's history is turned into
:class:`~tmanager.pairing.PlayerState` values with TRF result codes and given to
:func:`~tmanager.pairing.pair_round` (Dutch) or
:func:`~tmanager.pairing.round_robin` (Berger); standings go through
:mod:`tmanager.core.tiebreaks`. Player numbers are permanent; the pairing order
(rank) is by rating, then name, so a late entry is placed by rating without
renumbering anyone.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import filelock
import networkx as nx

from tmanager.core import tiebreaks
from tmanager.errors import ConfigError, PairingError, ScheduleError, StateError
from tmanager.files import atomic_write, lock, parse_toml, read_text
from tmanager.pairing import BLACK, WHITE, Game, PlayerState, PointsSystem, pair_round, round_robin

SYSTEMS = ("dutch", "round-robin", "manual")
#: Pairing systems of score-based divisions (:mod:`tmanager.event_scored`), beside round-robin and manual.
SCORED_SYSTEMS = ("koth", "factored", "tsh-swiss", "chew", "random")
#: How a score-based division enters results: both scores, the spread only, or both scores and the spread.
ENTRIES = ("scores", "spread", "both")
STATUSES = ("active", "withdrawn")
#: Bye kinds and their TRF codes: pairing-allocated, full-point, half-point, zero-point.
BYE_CODES = {"pairing": "U", "full": "F", "half": "H", "zero": "Z"}
#: Every bye kind a round may hold: score-based divisions also record a forfeit loss without an opponent.
BYE_KINDS = (*BYE_CODES, "forfeit")
#: Stored board results and the TRF codes of white and black. ``*`` is not yet
#: entered; ``adj`` is adjourned or postponed (still to be played).
RESULT_CODES = {
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "½-½": ("=", "="),
    "+-": ("+", "-"),
    "-+": ("-", "+"),
    "--": ("-", "-"),
    "*": (" ", " "),
    "adj": (" ", " "),
}
PENDING = frozenset({"*", "adj"})
#: Results of games not played over the board: a forfeit win for either side, or both lost.
FORFEITS = ("+-", "-+", "--")
_RESULT_ALIASES = {
    "1-0": "1-0", "1:0": "1-0", "w": "1-0",
    "0-1": "0-1", "0:1": "0-1", "b": "0-1",
    "½-½": "½-½", "=": "½-½", "1/2-1/2": "½-½", "1/2": "½-½", "½": "½-½", "0.5-0.5": "½-½", "d": "½-½",
    "+-": "+-", "+:-": "+-", "-+": "-+", "-:+": "-+", "--": "--", "-:-": "--",
    "*": "*", "adj": "adj", "adjourned": "adj", "postponed": "adj", "unplayed": "adj",
}  # fmt: skip
_REVERSED = {"1-0": "0-1", "0-1": "1-0", "+-": "-+", "-+": "+-"}
_KINDS = {"U": "pairing-bye", "F": "full-bye", "H": "half-bye", "Z": "zero-bye"}
_DATE = re.compile(r"^\d{4}(-\d{2}-\d{2})?$")
_JOURNAL = re.compile(r"^(?P<stem>.+)\.(?P<seq>\d{4,})\.toml$")


# -- the model -------------------------------------------------------------------


@dataclass
class Player:
    """One entrant. ``number`` is permanent; ``absent`` lists rounds the player withdrew from."""

    number: int
    name: str
    rating: int = 0
    fide_id: int | None = None
    federation: str = ""
    club: str = ""
    team: str = ""
    birth: str = ""
    flags: list[str] = field(default_factory=list)
    status: str = "active"
    absent: list[int] = field(default_factory=list)
    off: int | None = None  # score-based: spread per round missed while withdrawn (None: forfeit_spread)
    extensions: list[tuple[str, str]] = field(default_factory=list)  # score-based: other .t fields, kept verbatim

    def plays(self, round_number: int) -> bool:
        """Available for pairing in that round."""
        return self.status == "active" and round_number not in self.absent


@dataclass
class Board:
    """One game: player numbers and the stored result (``1-0``, ``½-½``, ``+-``, ``*``…).

    In a score-based division ``white`` went first and ``scores`` holds the two
    players' scores (the spreads awarded for a forfeit), in board order.
    """

    white: int
    black: int
    result: str = "*"
    scores: tuple[int, int] | None = None


@dataclass
class Round:
    """A round: paired, or still being prepared (requested byes, forced games).

    ``byes`` maps a player to a bye kind (:data:`BYE_CODES`); ``forced`` lists the
    games set before pairing and ``forced_bye`` a pairing-allocated bye so set.
    """

    number: int
    paired: bool = False
    boards: list[Board] = field(default_factory=list)
    byes: dict[int, str] = field(default_factory=dict)
    forced: list[tuple[int, int]] = field(default_factory=list)
    forced_bye: int | None = None
    spreads: dict[int, int] = field(default_factory=dict)  # score-based: the spread of a bye, by player
    # Score-based, from a .t file: board numbers and p12 codes that the boards' order does not give.
    board_numbers: dict[int, int] = field(default_factory=dict)
    p12: dict[int, int] = field(default_factory=dict)

    def seat(self, player: int) -> Board | None:
        """The board ``player`` plays on in this round, if any."""
        return next((b for b in self.boards if player in (b.white, b.black)), None)

    def board_number(self, board: Board) -> int:
        """The number shown for ``board``: its place from 1, unless a .t file gave another (``board_numbers``)."""
        return self.board_numbers.get(board.white) or self.boards.index(board) + 1


@dataclass
class ScoredRules:
    """The settings of a score-based division (Scrabble and the like), as tsh's configuration.

    ``initial`` pairs the opening rounds (``random``: round 1; ``init-fontes``:
    rounds 1 to ``initial_rounds`` at once); ``repeats`` and ``factor`` serve
    KOTH, factored and Swiss pairings; ``session_breaks`` and ``prize_bands``
    serve Fontes timing and Chew pairings (see :mod:`tmanager.event_scored`).
    """

    entry: str = "scores"
    bye_spread: int = 50
    forfeit_spread: int = -50
    track_firsts: bool = False
    assign_firsts: bool = False
    initial: str = ""
    initial_rounds: int = 3
    initial_snaked: bool = False
    repeats: int = 0
    factor: int = 2
    session_breaks: list[int] | None = None
    prize_bands: list[int] = field(default_factory=list)


@dataclass
class Division:
    """A group of players paired among themselves by one system; ``scored`` set for a score-based one."""

    name: str
    system: str = "dutch"
    cycles: int = 1
    initial_colour: str | None = None  # "white" or "black": the top-ranked player's colour in round 1
    forbidden: list[list[int]] = field(default_factory=list)
    team_apart: bool = False
    scored: ScoredRules | None = None
    players: list[Player] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    def player(self, number: int) -> Player:
        for p in self.players:
            if p.number == number:
                return p
        raise StateError(f"division {self.name!r} has no player number {number}")

    def round(self, number: int, *, create: bool = False) -> Round:
        """Round ``number``; an empty unpaired record is added when ``create`` is true."""
        for r in self.rounds:
            if r.number == number:
                return r
        if not create:
            raise StateError(f"division {self.name!r}: round {number} is not paired")
        record = Round(number)
        self.rounds.append(record)
        self.rounds.sort(key=lambda r: r.number)
        return record

    @property
    def paired_rounds(self) -> int:
        """The number of the last paired round (0 before round 1)."""
        return max((r.number for r in self.rounds if r.paired), default=0)

    def ranks(self) -> dict[int, int]:
        """Pairing order by rating (highest first), then name, then number."""
        order = sorted(self.players, key=lambda p: (-p.rating, p.name.casefold(), p.number))
        return {p.number: i for i, p in enumerate(order, 1)}


@dataclass
class Event:
    """An event file: event data, scoring, tie-breaks and divisions."""

    name: str
    rounds: int = 0
    site: str = ""
    start: str = ""
    end: str = ""
    arbiter: str = ""
    tiebreaks: list[str] = field(default_factory=lambda: ["BH-C1", "BH", "SB"])
    late_entry: str = "zero"  # "zero" or "half": how rounds missed before joining are scored
    max_byes: int | None = None  # requested byes allowed per player
    stylesheet: str = ""  # a CSS file for the HTML reports, relative to the event file
    hooks: dict[str, str] = field(default_factory=dict)  # HOOKS name -> shell command
    scoring: PointsSystem = field(default_factory=PointsSystem)
    divisions: list[Division] = field(default_factory=list)

    def division(self, name: str | None = None) -> Division:
        """The named division, or the only one."""
        if name is None:
            if len(self.divisions) == 1:
                return self.divisions[0]
            names = ", ".join(d.name for d in self.divisions)
            raise StateError(f"the event has several divisions ({names}); choose one with --division")
        for d in self.divisions:
            if d.name.casefold() == name.casefold():
                return d
        raise StateError(f"no division {name!r}; the event has {', '.join(d.name for d in self.divisions)}")

    def total_rounds(self, division: Division) -> int:
        """Planned rounds: the event's, or the Berger cycles of a round robin."""
        if division.system == "round-robin":
            n = len(division.players)
            return (n - 1 + n % 2) * division.cycles
        return self.rounds


# -- results and history ---------------------------------------------------------


def parse_result(text: str) -> str:
    """The stored form of a result as typed (``=`` → ``½-½``, ``w`` → ``1-0``…)."""
    result = _RESULT_ALIASES.get(text.strip().lower())
    if result is None:
        raise StateError(f"{text!r} is not a result; write 1-0, 0-1, = (draw), +-, -+, --, adj or *")
    return result


def reverse_result(result: str) -> str:
    """The same result seen from black's side."""
    return _REVERSED.get(result, result)


def round_games(division: Division, record: Round) -> dict[int, Game]:
    """Every entry of one round as a TRF round entry (absences of a paired round as ``-``)."""
    games: dict[int, Game] = {}
    for b in record.boards:
        w, k = RESULT_CODES[b.result]
        games[b.white] = Game(b.black, WHITE, w)
        games[b.black] = Game(b.white, BLACK, k)
    for number, kind in record.byes.items():
        games[number] = Game(None, None, BYE_CODES[kind])
    for p in division.players:
        if p.number not in games and (record.paired or not p.plays(record.number)):
            games[p.number] = Game(None, None, "-")
    return games


def history(division: Division, round_number: int) -> list[PlayerState]:
    """Every player's pairing view before ``round_number``, with this round's entries already fixed.

    Players with a requested bye, a forced game or an absence in ``round_number``
    get that entry, so the pairing engine leaves them out.
    """
    per_round = []
    for n in range(1, round_number + 1):
        record = next((r for r in division.rounds if r.number == n), Round(n, paired=n < round_number))
        per_round.append(round_games(division, record))
    ranks = division.ranks()
    states = []
    for p in division.players:
        games = [rg.get(p.number, Game(None, None, "-")) for rg in per_round[:-1]]
        if p.number in per_round[-1]:
            games.append(per_round[-1][p.number])
        states.append(PlayerState(p.number, tuple(games), p.rating, ranks[p.number]))
    return states


def scores(event: Event, division: Division, rounds: int | None = None) -> dict[int, int]:
    """Every player's points in tenths after ``rounds`` rounds (all paired rounds by default)."""
    upto = division.paired_rounds if rounds is None else rounds
    totals = {p.number: 0 for p in division.players}
    for record in division.rounds:
        if record.paired and record.number <= upto:
            for number, game in round_games(division, record).items():
                totals[number] = totals.get(number, 0) + event.scoring.points(game)
    return totals


def score(event: Event, division: Division, number: int, rounds: int | None = None) -> int:
    """One player's points in tenths after ``rounds`` rounds (see :func:`scores` for all of them)."""
    return scores(event, division, rounds).get(number, 0)


def format_points(tenths: int) -> str:
    """Points for people: ``3½``, ``½``, ``4``, ``2.3``."""
    whole, rest = divmod(tenths, 10)
    if rest == 5:
        return f"{whole}½" if whole else "½"
    return str(whole) if rest == 0 else f"{whole}.{rest}"


def label(player: Player) -> str:
    """``"Name (12)"``: how messages name a player."""
    return f"{player.name} ({player.number})"


# -- players ---------------------------------------------------------------------


def find_player(division: Division, text: str) -> Player:
    """A player by number or by a unique part of the name (case-insensitive)."""
    text = text.strip()
    if text.isdigit():
        return division.player(int(text))
    needle = text.casefold()
    matches = [p for p in division.players if needle in p.name.casefold()]
    exact = [p for p in matches if p.name.casefold() == needle]
    if len(exact) == 1 or len(matches) == 1:
        return (exact or matches)[0]
    if not matches:
        raise StateError(f"no player matches {text!r} in division {division.name!r}")
    some = ", ".join(label(p) for p in matches[:5])
    raise StateError(f"{text!r} matches {len(matches)} players ({some}); type more of the name or the number")


def _check_name(division: Division, name: str, number: int | None = None) -> None:
    if not name.strip():
        raise StateError('a player needs a name ("Last, First")')
    for p in division.players:
        if p.number != number and p.name.casefold() == name.strip().casefold():
            raise StateError(f"{label(p)} already has the name {name!r}; add a distinguishing initial or city")


def add_player(event: Event, division: Division, player: Player, *, missed: str | None = None) -> list[str]:
    """Enter a player; after round 1 a late entry, placed by rating.

    Rounds already paired are recorded as byes of kind ``missed`` (the event's
    ``late_entry``: zero- or half-point). If the current round has no result
    yet and has a pairing-allocated bye, the newcomer plays the player who had
    it instead (as Chaos does).
    """
    _check_name(division, player.name)
    if any(p.number == player.number for p in division.players):
        raise StateError(f"number {player.number} is taken by {label(division.player(player.number))}")
    if player.number < 1:
        raise StateError("player numbers start at 1")
    paired = division.paired_rounds
    if paired and division.system == "round-robin":
        raise StateError("a round robin cannot take a player once round 1 is paired")
    kind = missed or event.late_entry
    if kind not in ("zero", "half"):
        raise StateError(f"missed rounds are scored 'zero' or 'half', not {kind!r}")
    player.name = player.name.strip()
    division.players.append(player)
    messages = []
    if paired:
        current = division.round(paired)
        bye_holder = next((n for n, k in current.byes.items() if k == "pairing"), None)
        untouched = all(b.result in PENDING for b in current.boards)
        missed_rounds = list(range(1, paired + 1))
        if bye_holder is not None and untouched:
            missed_rounds.pop()
            del current.byes[bye_holder]
            holder = division.player(bye_holder)
            last = next((g.colour for g in reversed(_games_of(division, bye_holder, paired - 1)) if g.played), None)
            white, black = (player.number, bye_holder) if last == WHITE else (bye_holder, player.number)
            current.boards.append(Board(white, black))
            messages.append(f"plays round {paired} against {label(holder)}, who loses the pairing-allocated bye")
        for n in missed_rounds:
            division.round(n).byes[player.number] = kind
        if missed_rounds:
            span = _span(missed_rounds)
            messages.insert(0, f"late entry: round{span} scored as {kind}-point bye{'s' * (len(missed_rounds) > 1)}")
    rank = division.ranks()[player.number]
    messages.append(f"added {label(player)}, pairing rank {rank} of {len(division.players)} by rating")
    return messages


def _span(rounds: Sequence[int]) -> str:
    if len(rounds) == 1:
        return f" {rounds[0]}"
    return f"s {rounds[0]}-{rounds[-1]}" if rounds[-1] - rounds[0] == len(rounds) - 1 else f"s {rounds}"


def _games_of(division: Division, number: int, upto: int) -> list[Game]:
    return [round_games(division, r).get(number, Game(None, None, "-")) for r in division.rounds if r.number <= upto]


def edit_player(division: Division, player: Player, changes: dict[str, Any]) -> list[str]:
    """Change a player's data (not the number). Rating changes move the pairing rank."""
    if "name" in changes:
        _check_name(division, changes["name"], player.number)
        changes["name"] = changes["name"].strip()
    for key, value in changes.items():
        if key not in _PLAYER_FIELDS or key in ("number", "status", "absent"):
            raise StateError(f"edit-player cannot change {key!r}")
        setattr(player, key, value)
    _validate_player(player, "edit-player")
    return [f"changed {', '.join(sorted(changes))} of {label(player)}"] if changes else ["nothing to change"]


def withdraw(division: Division, player: Player, rounds: Sequence[int] = ()) -> list[str]:
    """Withdraw a player from the given future rounds, or for good (no rounds)."""
    nxt = division.paired_rounds + 1
    for n in rounds:
        if n < nxt:
            raise StateError(f"round {n} is already paired; enter a forfeit for {label(player)} instead")
    for n in rounds or [nxt]:
        record = next((r for r in division.rounds if r.number == n), None)
        if record and (player.number in record.byes or any(player.number in f for f in record.forced)):
            raise StateError(f"{label(player)} has a bye or a forced game in round {n}; remove it first (undo)")
    if rounds:
        player.absent = sorted(set(player.absent) | set(rounds))
        return [f"{label(player)} will not be paired in round{_span(sorted(set(rounds)))}"]
    if player.status == "withdrawn":
        raise StateError(f"{label(player)} is already withdrawn")
    player.status = "withdrawn"
    messages = [f"{label(player)} withdrawn from round {nxt} on"]
    for record in division.rounds:
        if not record.paired and player.number in record.byes:
            del record.byes[player.number]
            messages.append(f"their requested bye in round {record.number} is cancelled")
    current = next((r for r in division.rounds if r.number == nxt - 1), None)
    board = current.seat(player.number) if current else None
    if board and board.result in PENDING:
        messages.append(f"round {nxt - 1} is still paired for them: enter the game's result or a forfeit")
    return messages


def reinstate(division: Division, player: Player, rounds: Sequence[int] = ()) -> list[str]:
    """Undo a withdrawal: for the given rounds, or altogether."""
    if rounds:
        player.absent = [n for n in player.absent if n not in rounds]
        return [f"{label(player)} will be paired again in round{_span(sorted(set(rounds)))}"]
    if player.status == "active" and not player.absent:
        raise StateError(f"{label(player)} is not withdrawn")
    player.status = "active"
    player.absent = [n for n in player.absent if n <= division.paired_rounds]
    return [f"{label(player)} returns from round {division.paired_rounds + 1}"]


def request_bye(event: Event, division: Division, player: Player, round_number: int, kind: str) -> list[str]:
    """A requested bye (half-, zero- or full-point) for a round not yet paired."""
    if kind not in ("half", "zero", "full"):
        raise StateError(f"a requested bye is 'half', 'zero' or 'full', not {kind!r}")
    _check_future(event, division, round_number)
    if division.system == "round-robin":
        raise StateError("round-robin games are fixed by the Berger tables; enter the game as a forfeit instead")
    record = division.round(round_number, create=True)
    _check_free(division, record, player)
    if event.max_byes is not None:
        taken = sum(1 for r in division.rounds for n, k in r.byes.items() if n == player.number and k != "pairing")
        if taken >= event.max_byes:
            raise StateError(f"{label(player)} has had {taken} byes; the event allows {event.max_byes} (max_byes)")
    record.byes[player.number] = kind
    return [f"{label(player)}: {kind}-point bye in round {round_number}"]


def _check_future(event: Event, division: Division, round_number: int) -> None:
    if round_number <= division.paired_rounds:
        raise StateError(f"round {round_number} is already paired (unpair it first)")
    total = event.total_rounds(division)
    if total and round_number > total:
        raise StateError(f"the event has {total} rounds; there is no round {round_number}")


def _check_free(division: Division, record: Round, player: Player) -> None:
    """The player has nothing yet in this round and is available."""
    if not player.plays(record.number):
        raise StateError(f"{label(player)} is withdrawn from round {record.number}")
    if player.number in record.byes:
        raise StateError(
            f"{label(player)} already has a {record.byes[player.number]}-point bye in round {record.number}"
        )
    if record.forced_bye == player.number:
        raise StateError(f"{label(player)} already has the forced bye in round {record.number}")
    board = record.seat(player.number)
    if board:
        raise StateError(
            f"{label(player)} already has a game in round {record.number} (board {board.white}-{board.black})"
        )


def forbid(division: Division, players: Sequence[Player]) -> list[str]:
    """Players who must never be paired against each other."""
    numbers = sorted({p.number for p in players})
    if len(numbers) < 2:
        raise StateError("forbid needs at least two different players")
    if numbers not in division.forbidden:
        division.forbidden.append(numbers)
    return [f"will not pair {', '.join(label(p) for p in players)} against each other"]


def force(event: Event, division: Division, white: Player, black: Player | None) -> list[str]:
    """Set a game (``white`` has white) or, with ``black`` None, the pairing-allocated bye of the next round."""
    if division.system == "round-robin":
        raise StateError("round-robin games are fixed by the Berger tables; force applies to Swiss and manual")
    n = division.paired_rounds + 1
    _check_future(event, division, n)
    record = division.round(n, create=True)
    _check_free(division, record, white)
    if black is None:
        if record.forced_bye is not None:
            raise StateError(f"round {n} already has a forced bye ({label(division.player(record.forced_bye))})")
        earlier = [
            r.number for r in division.rounds if r.number < n and r.byes.get(white.number) in ("pairing", "full")
        ]
        if earlier:
            raise StateError(f"{label(white)} already had a full-point bye in round {earlier[0]}; no second one")
        record.forced_bye = white.number
        record.byes[white.number] = "pairing"
        return [f"round {n}: pairing-allocated bye set for {label(white)}"]
    if white.number == black.number:
        raise StateError("a player cannot play themself")
    _check_free(division, record, black)
    for r in division.rounds:
        b = r.seat(white.number)
        if r.number < n and b and black.number in (b.white, b.black) and b.result not in FORFEITS:
            raise StateError(f"{label(white)} and {label(black)} already met in round {r.number}; no rematch")
    if any({white.number, black.number} <= set(group) for group in division.forbidden):
        raise StateError(f"{label(white)} and {label(black)} are a forbidden pair")
    record.forced.append((white.number, black.number))
    record.boards.append(Board(white.number, black.number))
    return [f"round {n}: {label(white)} – {label(black)} set"]


def force_named(event: Event, division: Division, white: str, black: str) -> list[str]:
    """:func:`force` with the players as typed (number or unique part of the name); ``black`` ``bye`` sets the bye."""
    second = None if black.lower() == "bye" else find_player(division, black)
    return force(event, division, find_player(division, white), second)


# -- pairing ---------------------------------------------------------------------


def forbidden_groups(division: Division) -> list[frozenset[int]]:
    """Groups of players who must not meet: the ``forbidden`` lists and, with ``team_apart``, each team."""
    groups = [frozenset(g) for g in division.forbidden]
    if division.team_apart:
        teams: dict[str, set[int]] = {}
        for p in division.players:
            if p.team:
                teams.setdefault(p.team.casefold(), set()).add(p.number)
        groups += [frozenset(g) for g in teams.values() if len(g) > 1]
    return groups


def missing(division: Division) -> list[tuple[int, Board]]:
    """Boards of paired rounds without a final result: (round, board)."""
    return [(r.number, b) for r in division.rounds if r.paired for b in r.boards if b.result in PENDING]


def pair(event: Event, division: Division, *, colour: str | None = None, rng: random.Random | None = None) -> list[str]:
    """Pair the next round by the division's system.

    Round 1 of a Dutch division draws the initial colour by lot (``rng``)
    unless ``colour`` is given, and records it. A score-based division is
    paired by :func:`tmanager.event_scored.pair`.
    """
    if division.scored is not None:
        from tmanager import event_scored

        return event_scored.pair(event, division, rng=rng)
    n = division.paired_rounds + 1
    total = event.total_rounds(division)
    if total and n > total:
        raise StateError(f"all {total} rounds are paired")
    pending = missing(division)
    if pending:
        boards = ", ".join(f"{r}.{division.round(r).boards.index(b) + 1}" for r, b in pending[:8])
        raise StateError(
            f"{len(pending)} result(s) missing (round.board: {boards}); enter them before pairing round {n}"
        )
    record = division.round(n, create=True)
    messages: list[str] = []
    if division.system == "round-robin":
        _pair_berger(division, record)
    elif division.system == "dutch":
        if n == 1 and colour is None and division.initial_colour is None:
            division.initial_colour = (rng or random.SystemRandom()).choice(["white", "black"])
            messages.append(f"initial colour drawn by lot: the top-ranked player has {division.initial_colour}")
        elif colour is not None:
            division.initial_colour = colour
        _pair_dutch(event, division, record)
    else:
        unpaired = [
            p for p in division.players if p.plays(n) and p.number not in record.byes and not record.seat(p.number)
        ]
        if unpaired:
            names = ", ".join(label(p) for p in unpaired[:6])
            raise StateError(f"manual division: {len(unpaired)} player(s) have no game or bye in round {n}: {names}")
    record.paired = True
    _sort_boards(event, division, record)
    messages.append(f"round {n} paired: {len(record.boards)} board(s)" + _bye_note(division, record))
    return messages


def _bye_note(division: Division, record: Round) -> str:
    byes = [f"{label(division.player(p))} ({k})" for p, k in record.byes.items()]
    return "; byes: " + ", ".join(byes) if byes else ""


def _pair_dutch(event: Event, division: Division, record: Round) -> None:
    states = history(division, record.number)
    entrants = [s for s in states if len(s.games) < record.number]
    if len(entrants) == 1:
        raise PairingError(
            f"round {record.number} cannot be paired: only {label(division.player(entrants[0].id))} is left"
        )
    groups = forbidden_groups(division)
    try:
        pairing = pair_round(
            states,
            round_number=record.number,
            total_rounds=max(event.rounds, record.number),
            forbidden=groups,
            points=event.scoring,
            initial_colour=WHITE if division.initial_colour != "black" else BLACK,
        )
    except PairingError:
        raise PairingError(
            f"round {record.number} cannot be paired: {_why_unpairable(division, states, record.number, groups)}"
        ) from None
    record.boards += [Board(w, b) for w, b in pairing.boards]
    if pairing.bye is not None:
        record.byes[pairing.bye] = "pairing"


def _why_unpairable(division: Division, states: Sequence[PlayerState], n: int, groups: Sequence[frozenset[int]]) -> str:
    """A reason a Dutch round failed, in the arbiter's terms."""
    entrants = [s for s in states if len(s.games) < n]
    ids = {s.id for s in entrants}
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    met = {s.id: {g.opponent for g in s.games if g.played} for s in entrants}
    for a in ids:
        for b in ids:
            if a < b and b not in met[a] and not any({a, b} <= g for g in groups):
                graph.add_edge(a, b)
    lonely = [a for a in sorted(ids) if graph.degree(a) == 0]
    if lonely and len(lonely) == len(ids):
        return "all remaining opponents already met (or are forbidden pairs)"
    if len(lonely) > len(ids) % 2:
        return f"{label(division.player(lonely[0]))} has already met every remaining opponent"
    if len(ids) % 2:
        eligible = [s.id for s in entrants if not any(g.opponent is None and g.result in "UF" for g in s.games)]
        if not eligible:
            return "every remaining player has already had a full-point bye"
        graph.add_edges_from(("bye", e) for e in eligible)
    if 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) < graph.number_of_nodes():
        return "the remaining players cannot all be paired without a rematch or a forbidden pair"
    return "every pairing breaks the absolute colour rules (three times the same colour, or two more of one colour)"


def _pair_berger(division: Division, record: Round) -> None:
    order = sorted(p.number for p in division.players)
    try:
        table = round_robin(len(order), record.number, cycles=division.cycles)
    except ScheduleError as exc:
        raise StateError(str(exc)) from None
    for w, b in table.boards:
        white, black = division.player(order[w - 1]), division.player(order[b - 1])
        board = Board(white.number, black.number)
        # A withdrawn player's remaining games are lost by forfeit.
        if not white.plays(record.number) or not black.plays(record.number):
            board.result = {(False, True): "-+", (True, False): "+-"}.get(
                (white.plays(record.number), black.plays(record.number)), "--"
            )
        record.boards.append(board)
    if table.bye is not None:
        record.byes[order[table.bye - 1]] = "zero"


def _sort_boards(event: Event, division: Division, record: Round) -> None:
    """Boards in the Dutch order: higher score first, then the lower score, then the better rank."""
    ranks = division.ranks()
    points = scores(event, division, record.number - 1)

    def key(b: Board) -> tuple[int, int, int]:
        sides = sorted(((points[p], -ranks[p]) for p in (b.white, b.black)), reverse=True)
        return (-sides[0][0], -sides[1][0], -sides[0][1])

    if division.system != "round-robin":
        record.boards.sort(key=key)


def unpair(division: Division) -> list[str]:
    """Take back the last round's pairing while none of its results is in; forced games and requested byes stay."""
    n = division.paired_rounds
    if not n:
        raise StateError("no round is paired")
    record = division.round(n)
    done = [i for i, b in enumerate(record.boards, 1) if b.result not in PENDING]
    if done:
        raise StateError(f"round {n} has results (board {done[0]}); correct them to * first, or use undo")
    record.paired = False
    record.boards = [b for b in record.boards if (b.white, b.black) in record.forced]
    record.byes = {p: k for p, k in record.byes.items() if k != "pairing" or p == record.forced_bye}
    record.spreads = {p: v for p, v in record.spreads.items() if p in record.byes}
    record.board_numbers, record.p12 = {}, {}
    return [f"round {n} unpaired; {len(record.forced)} forced game(s) and the requested byes kept"]


# -- results ---------------------------------------------------------------------


def locate(division: Division, round_number: int, first: Player, second: Player | None = None) -> Board:
    """The board of ``first`` (and ``second``) in a paired round."""
    record = division.round(round_number)
    if not record.paired:
        raise StateError(f"round {round_number} is not paired yet")
    board = record.seat(first.number)
    if board is None:
        what = "has a bye" if first.number in record.byes else "is not paired"
        raise StateError(f"{label(first)} {what} in round {round_number}")
    if second is not None and second.number not in (board.white, board.black):
        raise StateError(f"{label(first)} and {label(second)} do not play each other in round {round_number}")
    return board


def board_at(division: Division, round_number: int, index: int) -> Board:
    """Board ``index`` (from 1) of a paired round."""
    record = division.round(round_number)
    if not record.paired:
        raise StateError(f"round {round_number} is not paired yet")
    if record.board_numbers:
        found = [b for b in record.boards if record.board_number(b) == index]
        if len(found) == 1:
            return found[0]
        numbers = ", ".join(str(record.board_number(b)) for b in record.boards)
        raise StateError(f"round {round_number} has boards {numbers}; there is no single board {index}")
    if not 1 <= index <= len(record.boards):
        raise StateError(f"round {round_number} has boards 1-{len(record.boards)}; there is no board {index}")
    return record.boards[index - 1]


def set_result(
    event: Event, division: Division, round_number: int, board: Board, result: str, *, correction: bool = False
) -> list[str]:
    """Enter (or, with ``correction``, change) a board's result; returns the echo and any warning."""
    if board.result not in PENDING and not correction:
        index = division.round(round_number).boards.index(board) + 1
        raise StateError(
            f"round {round_number} board {index} ({board.white}-{board.black}) already has {board.result}; "
            "use `correct` to change it"
        )
    old = board.result
    board.result = result
    white, black = division.player(board.white), division.player(board.black)
    upto = division.paired_rounds
    echo = (
        f"round {round_number}: {label(white)} {format_points(score(event, division, white.number, upto))} "
        f"{result} {label(black)} {format_points(score(event, division, black.number, upto))}"
    )
    messages = [echo]
    if correction and old != result and round_number < division.paired_rounds:
        later = list(range(round_number + 1, division.paired_rounds + 1))
        messages.append(
            f"warning: round{_span(later)} {'was' if len(later) == 1 else 'were'} paired with the old result "
            f"{old}; the pairings stand unless you unpair and pair again"
        )
    return messages


# -- standings -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings: rank (shared by exact ties), player, points in tenths, tie-break values."""

    rank: int
    player: Player
    points: int
    values: tuple[float, ...]


def round_results(event: Event, division: Division, upto: int) -> dict[str, list[tiebreaks.RoundResult]]:
    """Each player's rounds as the tie-break module takes them (keys are player numbers as text)."""
    table: dict[str, list[tiebreaks.RoundResult]] = {str(p.number): [] for p in division.players}
    for record in division.rounds:
        if not record.paired or record.number > upto:
            continue
        for number, game in round_games(division, record).items():
            points = event.scoring.points(game) / 10
            if game.opponent is None:
                kind = _KINDS.get(game.result, "absent")
                table[str(number)].append(tiebreaks.RoundResult(points, None, "", kind))  # type: ignore[arg-type]
                continue
            kind = "forfeit-win" if game.result == "+" else "forfeit-loss" if game.result == "-" else "played"
            colour = "w" if game.colour == WHITE else "b"
            table[str(number)].append(tiebreaks.RoundResult(points, str(game.opponent), colour, kind))  # type: ignore[arg-type]
    return table


def standings(event: Event, division: Division, upto: int | None = None, *, flag: str | None = None) -> list[Standing]:
    """The ranking after round ``upto`` (the last paired round by default) by points and the event's tie-breaks."""
    upto = division.paired_rounds if upto is None else upto
    if not 0 <= upto <= division.paired_rounds:
        raise StateError(f"round {upto} is not paired; standings exist for rounds 0-{division.paired_rounds}")
    table = round_results(event, division, upto)
    ratings = {str(p.number): float(p.rating) for p in division.players if p.rating}
    ranked = tiebreaks.rank(
        table,
        event.tiebreaks,
        ratings=ratings,
        round_robin=division.system == "round-robin",
        win=event.scoring.win / 10,
        draw=event.scoring.draw / 10,
    )
    by_number = {str(p.number): p for p in division.players}
    points = scores(event, division, upto)
    lines: list[Standing] = []
    previous: tuple[float, ...] | None = None
    shown = 0
    for r in ranked:
        player = by_number[r.name]
        if flag is not None and flag not in player.flags:
            continue
        shown += 1
        key = (r.points, *r.values)
        rank = lines[-1].rank if previous == key and lines else shown
        previous = key
        lines.append(Standing(rank, player, points[player.number], r.values))
    return lines


# -- reading and checking --------------------------------------------------------

_EVENT_FIELDS = {
    "name", "site", "start", "end", "arbiter", "rounds", "tiebreaks", "late_entry", "max_byes", "stylesheet",
}  # fmt: skip
#: Hook commands of the ``[hooks]`` table: after results are saved, and when a round's last result is in.
HOOKS = ("after_results", "round_complete")
_SCORING_FIELDS = {
    "win", "draw", "loss", "forfeit_win", "forfeit_loss", "pairing_bye", "full_bye", "half_bye", "zero_bye",
}  # fmt: skip
_SCORED_FIELDS = {
    "entry", "bye_spread", "forfeit_spread", "track_firsts", "assign_firsts", "initial", "initial_rounds",
    "initial_snaked", "repeats", "factor", "session_breaks", "prize_bands",
}  # fmt: skip
_DIVISION_FIELDS = {
    "name", "system", "cycles", "initial_colour", "forbidden", "team_apart", "player", "round", *_SCORED_FIELDS,
}  # fmt: skip
_PLAYER_FIELDS = {
    "number", "name", "rating", "fide_id", "federation", "club", "team", "birth", "flags", "status", "absent", "off",
    "extensions",
}  # fmt: skip
_ROUND_FIELDS = {"number", "paired", "boards", "byes", "forced", "forced_bye", "board_numbers", "p12"}


class _Reader:
    """Typed access to one TOML table, naming the file and the field in every error."""

    def __init__(self, data: Any, file: Path | None, where: str, known: set[str]) -> None:
        self.file, self.where = file, where
        if not isinstance(data, dict):
            raise self.error("must be a table")
        unknown = sorted(set(data) - known)
        if unknown:
            raise self.error(f"unknown key {unknown[0]!r}", hint="see docs/events.md for the fields")
        self.data: dict[str, Any] = data

    def error(self, message: str, key: str | None = None, hint: str | None = None) -> ConfigError:
        where = f"{self.where}.{key}" if key else self.where
        return ConfigError(message, file=self.file, field=where, hint=hint)

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        value = self.data.get(key, default)
        if isinstance(value, datetime.date) and kind is str:
            value = value.isoformat()
        if value is not None and (not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.error(f"must be {names}, not {value!r}", key)
        return value

    def required(self, key: str, kind: type) -> Any:
        if key not in self.data:
            raise self.error("is missing", key)
        return self.get(key, kind)

    def ints(self, key: str) -> list[int]:
        values = self.get(key, list, [])
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise self.error("must be a list of numbers", key)
        return list(values)


def _tenths(reader: _Reader, key: str, default: int) -> int:
    value: float | None = reader.get(key, (int, float))
    if value is None:
        return default
    tenths = round(value * 10)
    if abs(tenths - value * 10) > 1e-6 or tenths < 0:
        raise reader.error(f"{value} is not a multiple of 0.1 points", key)
    return tenths


def _scoring(data: Any, file: Path | None) -> PointsSystem:
    r = _Reader(data, file, "scoring", _SCORING_FIELDS)
    win = _tenths(r, "win", 10)
    draw = _tenths(r, "draw", 5)
    # The pairing core scores forfeit wins and full-point byes as wins and
    # half-point byes as draws (TRF BBW/BBD), so these may only repeat them.
    for key, same, what in (("forfeit_win", win, "win"), ("full_bye", win, "win"), ("half_bye", draw, "draw")):
        if _tenths(r, key, same) != same:
            raise r.error(f"must equal {what} ({format_points(same)})", key, hint="pairing scores it as a " + what)
    return PointsSystem(
        win=win,
        draw=draw,
        loss=_tenths(r, "loss", 0),
        forfeit_loss=_tenths(r, "forfeit_loss", 0),
        zero_bye=_tenths(r, "zero_bye", 0),
        pairing_bye=_tenths(r, "pairing_bye", win),
    )


def _hooks(data: Any, file: Path | None) -> dict[str, str]:
    r = _Reader(data, file, "hooks", set(HOOKS))
    return {name: r.get(name, str) for name in HOOKS if name in r.data}


def _date(r: _Reader, key: str) -> str:
    value: str = r.get(key, str, "")
    if value and not _DATE.match(value):
        raise r.error(f"{value!r} is not a date", key, hint="write YYYY-MM-DD")
    return value


def _validate_player(p: Player, where: str, file: Path | None = None) -> None:
    def bad(message: str, key: str) -> ConfigError:
        return ConfigError(message, file=file, field=f"{where}.{key}")

    if p.number < 1:
        raise bad("player numbers start at 1", "number")
    if not p.name.strip():
        raise bad('is empty; write "Last, First"', "name")
    if p.rating < 0:
        raise bad("a rating cannot be negative", "rating")
    if p.status not in STATUSES:
        raise bad(f"{p.status!r} is not a status; use active or withdrawn", "status")
    if p.birth and not _DATE.match(p.birth):
        raise bad(f"{p.birth!r} is not a date or a year", "birth")


def _player(data: Any, file: Path | None, where: str) -> Player:
    r = _Reader(data, file, where, _PLAYER_FIELDS)
    flags = r.get("flags", list, [])
    if not all(isinstance(f, str) for f in flags):
        raise r.error("must be a list of words", "flags")
    extensions = r.get("extensions", list, [])
    if not all(isinstance(x, list) and len(x) == 2 and all(isinstance(v, str) for v in x) for x in extensions):
        raise r.error('must be a list of [keyword, value] strings, e.g. [["lifeg", "50"]]', "extensions")
    player = Player(
        number=r.required("number", int),
        name=r.required("name", str),
        rating=r.get("rating", int, 0),
        fide_id=r.get("fide_id", int),
        federation=r.get("federation", str, ""),
        club=r.get("club", str, ""),
        team=r.get("team", str, ""),
        birth=_date(r, "birth"),
        flags=list(flags),
        status=r.get("status", str, "active"),
        absent=r.ints("absent"),
        off=r.get("off", int),
        extensions=[(k, v) for k, v in extensions],
    )
    _validate_player(player, where, file)
    return player


def _round(data: Any, file: Path | None, where: str) -> Round:
    r = _Reader(data, file, where, _ROUND_FIELDS)
    record = Round(r.required("number", int), paired=r.get("paired", bool, False), forced_bye=r.get("forced_bye", int))
    for i, item in enumerate(r.get("boards", list, []), 1):
        numbers = item[:2] + item[3:] if isinstance(item, list) else []
        if not (len(item) in (2, 3, 5) and all(isinstance(v, int) and not isinstance(v, bool) for v in numbers)):
            raise r.error("must be [white, black, result] or [first, second, result, score, score]", f"boards[{i}]")
        text = item[2] if len(item) >= 3 else "*"
        result = _RESULT_ALIASES.get(str(text).lower())
        if result is None:
            raise r.error(f"{text!r} is not a result", f"boards[{i}]", hint="1-0, 0-1, ½-½, +-, -+, --, adj or *")
        record.boards.append(Board(item[0], item[1], result, (item[3], item[4]) if len(item) == 5 else None))
    for i, item in enumerate(r.get("byes", list, []), 1):
        if not (
            isinstance(item, list)
            and len(item) in (2, 3)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item[:1] + item[2:])
            and item[1] in BYE_KINDS
        ):
            raise r.error(
                "must be [player, kind] (or [player, kind, spread]) with kind pairing, full, half, zero or forfeit",
                f"byes[{i}]",
            )
        record.byes[item[0]] = item[1]
        if len(item) == 3:
            record.spreads[item[0]] = item[2]
    for i, item in enumerate(r.get("forced", list, []), 1):
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(v, int) for v in item)):
            raise r.error("must be [white, black]", f"forced[{i}]")
        record.forced.append((item[0], item[1]))
    for key in ("board_numbers", "p12"):
        pairs = r.get(key, list, [])
        if not all(isinstance(x, list) and len(x) == 2 and all(type(v) is int for v in x) for x in pairs):
            raise r.error("must be a list of [player, number] pairs", key)
        getattr(record, key).update((x[0], x[1]) for x in pairs)
    return record


def from_toml(data: dict[str, Any], file: Path | None = None) -> Event:
    """Build and check an event from parsed TOML; :class:`ConfigError` names the field."""
    top = _Reader(data, file, "file", {"event", "scoring", "hooks", "division"})
    e = _Reader(top.required("event", dict), file, "event", _EVENT_FIELDS)
    tbs = e.get("tiebreaks", list, ["BH-C1", "BH", "SB"])
    for tb in tbs:
        if tb not in tiebreaks.TIEBREAKS:
            raise e.error(
                f"unknown tie-break {tb!r}", "tiebreaks", hint="choose from " + ", ".join(tiebreaks.TIEBREAKS)
            )
    event = Event(
        name=e.required("name", str),
        rounds=e.get("rounds", int, 0),
        site=e.get("site", str, ""),
        start=_date(e, "start"),
        end=_date(e, "end"),
        arbiter=e.get("arbiter", str, ""),
        tiebreaks=list(tbs),
        late_entry=e.get("late_entry", str, "zero"),
        max_byes=e.get("max_byes", int),
        stylesheet=e.get("stylesheet", str, ""),
        hooks=_hooks(data.get("hooks", {}), file),
        scoring=_scoring(data.get("scoring", {}), file),
    )
    if event.late_entry not in ("zero", "half"):
        raise e.error(f"{event.late_entry!r} must be zero or half", "late_entry")
    if event.rounds < 0:
        raise e.error("cannot be negative", "rounds")
    divisions = top.get("division", list, [])
    if not divisions:
        raise top.error("an event needs at least one [[division]]", "division")
    for i, d in enumerate(divisions, 1):
        event.divisions.append(_division(d, file, f"division[{i}]"))
    names = [d.name.casefold() for d in event.divisions]
    if len(set(names)) != len(names):
        raise top.error("two divisions have the same name", "division")
    for d in event.divisions:
        check_division(event, d, file)
    return event


def _division(data: Any, file: Path | None, where: str) -> Division:
    r = _Reader(data, file, where, _DIVISION_FIELDS)
    forbidden = r.get("forbidden", list, [])
    if not all(isinstance(g, list) and len(g) >= 2 and all(isinstance(v, int) for v in g) for g in forbidden):
        raise r.error("must be a list of player-number lists, e.g. [[3, 7]]", "forbidden")
    division = Division(
        name=r.required("name", str),
        system=r.get("system", str, "dutch"),
        cycles=r.get("cycles", int, 1),
        initial_colour=r.get("initial_colour", str),
        forbidden=[list(g) for g in forbidden],
        team_apart=r.get("team_apart", bool, False),
        scored=_scored_rules(r),
    )
    if division.scored is None and division.system not in SYSTEMS:
        raise r.error(
            f"{division.system!r} is not a pairing system",
            "system",
            hint="dutch, round-robin or manual; a score-based division (with entry) also " + ", ".join(SCORED_SYSTEMS),
        )
    if division.scored is not None and division.system not in (*SCORED_SYSTEMS, "round-robin", "manual"):
        raise r.error(
            f"{division.system!r} is not a pairing system of a score-based division",
            "system",
            hint=", ".join((*SCORED_SYSTEMS, "round-robin", "manual")),
        )
    if division.initial_colour not in (None, "white", "black"):
        raise r.error("must be white or black", "initial_colour")
    if division.cycles < 1:
        raise r.error("must be 1 or more", "cycles")
    division.players = [_player(p, file, f"{where}.player[{i}]") for i, p in enumerate(r.get("player", list, []), 1)]
    division.rounds = [_round(x, file, f"{where}.round[{i}]") for i, x in enumerate(r.get("round", list, []), 1)]
    return division


def _scored_rules(r: _Reader) -> ScoredRules | None:
    """The score-based settings of a division, or None for a chess division (no ``entry``)."""
    given = sorted(_SCORED_FIELDS & set(r.data))
    if not given:
        return None
    if "entry" not in r.data:
        raise r.error(f"{given[0]} needs entry", "entry", hint='set entry = "scores", "spread" or "both"')
    breaks = r.ints("session_breaks") if "session_breaks" in r.data else None
    rules = ScoredRules(
        entry=r.get("entry", str),
        bye_spread=r.get("bye_spread", int, 50),
        forfeit_spread=r.get("forfeit_spread", int, -50),
        track_firsts=r.get("track_firsts", bool, False),
        assign_firsts=r.get("assign_firsts", bool, False),
        initial=r.get("initial", str, ""),
        initial_rounds=r.get("initial_rounds", int, 3),
        initial_snaked=r.get("initial_snaked", bool, False),
        repeats=r.get("repeats", int, 0),
        factor=r.get("factor", int, 2),
        session_breaks=breaks,
        prize_bands=r.ints("prize_bands"),
    )
    if rules.entry not in ENTRIES:
        raise r.error(f"{rules.entry!r} is not an entry mode", "entry", hint="scores, spread or both")
    if rules.initial not in ("", "random", "init-fontes"):
        raise r.error(f"{rules.initial!r} is not an opening pairing", "initial", hint="random or init-fontes")
    if rules.initial_rounds < 1 or rules.initial_rounds % 2 == 0:
        raise r.error("must be an odd number of rounds (3: quads)", "initial_rounds")
    if rules.assign_firsts and not rules.track_firsts:
        raise r.error("assign_firsts needs track_firsts", "assign_firsts", hint="set track_firsts = true")
    if rules.repeats < 0:
        raise r.error("cannot be negative", "repeats")
    if rules.factor < 1:
        raise r.error("must be 1 or more", "factor")
    if any(b < 1 for b in rules.prize_bands) or rules.prize_bands != sorted(set(rules.prize_bands)):
        raise r.error("must be rising last ranks of the prize bands, e.g. [1, 2, 3]", "prize_bands")
    if breaks is not None and (not breaks or any(b < 1 for b in breaks)):
        raise r.error("must list round numbers (leave it out to pair from the round before)", "session_breaks")
    return rules


def check_division(event: Event, d: Division, file: Path | None = None) -> None:
    """Cross-checks: unique numbers and names, boards naming real players once per round, rounds in order."""
    where = f"division {d.name!r}"

    def bad(message: str) -> ConfigError:
        return ConfigError(message, file=file, field=where)

    seen: dict[int, str] = {}
    names: dict[str, int] = {}
    for p in d.players:
        if p.number in seen:
            raise bad(f"player number {p.number} is used twice")
        if p.name.casefold() in names:
            raise bad(f"players {names[p.name.casefold()]} and {p.number} have the same name {p.name!r}")
        seen[p.number] = p.name
        names[p.name.casefold()] = p.number
    for group in d.forbidden:
        unknown = [n for n in group if n not in seen]
        if unknown:
            raise bad(f"forbidden names unknown player {unknown[0]}")
    numbers = [r.number for r in d.rounds]
    if len(set(numbers)) != len(numbers) or any(n < 1 for n in numbers):
        raise bad("round numbers must be distinct and start at 1")
    paired = sorted(r.number for r in d.rounds if r.paired)
    if paired != list(range(1, len(paired) + 1)):
        raise bad(f"paired rounds must be 1..n without gaps, not {paired}")
    if any(not r.paired and r.number <= len(paired) for r in d.rounds):
        raise bad("an unpaired round comes before a paired one")
    total = event.total_rounds(d)
    if total and paired and paired[-1] > total:
        raise bad(f"round {paired[-1]} is paired but the event has {total} rounds")
    for r in d.rounds:
        taken: set[int] = set()
        for who in [n for b in r.boards for n in (b.white, b.black)] + list(r.byes):
            if who not in seen:
                raise bad(f"round {r.number} names unknown player {who}")
            if who in taken:
                raise bad(f"player {who} appears twice in round {r.number}")
            taken.add(who)
        if any(b.white == b.black for b in r.boards):
            raise bad(f"round {r.number} pairs a player against themself")
        pairs = {(b.white, b.black) for b in r.boards}
        if not set(r.forced) <= pairs:
            raise bad(f"round {r.number}: a forced game is not among its boards")
        if r.forced_bye is not None and r.byes.get(r.forced_bye) != "pairing":
            raise bad(f"round {r.number}: the forced bye is not among its byes")
        if not r.paired and any(b.result not in PENDING for b in r.boards):
            raise bad(f"round {r.number} is not paired but has results")
        for i, b in enumerate(r.boards, 1):
            problem = _scores_problem(d, b)
            if problem:
                raise bad(f"round {r.number} board {i}: {problem}")
        if d.scored is None and (
            r.spreads or r.board_numbers or r.p12 or "forfeit" in r.byes.values()
            or any(p.off is not None or p.extensions for p in d.players)
        ):  # fmt: skip
            raise bad("spreads, off, forfeit byes and .t data are for score-based divisions (set entry)")
        if not set(r.board_numbers) | set(r.p12) <= taken:
            raise bad(f"round {r.number}: board_numbers or p12 name a player without a game or bye in it")
        if not set(r.spreads) <= set(r.byes):
            raise bad(f"round {r.number}: a spread is given for a player without a bye")


def _scores_problem(d: Division, b: Board) -> str | None:
    """What is wrong with a board's scores, if anything: they must agree with the stored result."""
    if b.scores is None:
        if d.scored is not None and b.result not in PENDING and b.result not in FORFEITS:
            return f"the result {b.result} needs the two scores"
        return None
    if d.scored is None:
        return "scores are for score-based divisions (set entry)"
    if b.result in PENDING:
        return "scores without a result"
    if b.result in ("1-0", "0-1", "½-½"):
        s1, s2 = b.scores
        if b.result != ("1-0" if s1 > s2 else "0-1" if s1 < s2 else "½-½"):
            return f"the result {b.result} does not agree with the scores {s1}-{s2}"
    return None


# -- writing ---------------------------------------------------------------------


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r}")


def _points_value(tenths: int) -> int | float:
    return tenths // 10 if tenths % 10 == 0 else tenths / 10


def _table(lines: list[str], header: str, items: Sequence[tuple[str, Any]]) -> None:
    lines += ["", header] if lines else [header]
    for key, value in items:
        if value is None or value == "" or (value == [] and key not in ("boards",)):
            continue
        if key in ("boards", "byes", "forced") and value:
            lines.append(f"{key} = [")
            lines += [f"  {_value(v)}," for v in value]
            lines.append("]")
        else:
            lines.append(f"{key} = {_value(value)}")


def _scored_items(rules: ScoredRules | None) -> list[tuple[str, Any]]:
    """The score-based settings as written: ``entry`` always, the others when not the default."""
    if rules is None:
        return []
    default = ScoredRules()
    items: list[tuple[str, Any]] = [("entry", rules.entry)]
    for key in sorted(_SCORED_FIELDS - {"entry"}, key=list(ScoredRules.__dataclass_fields__).index):
        value = getattr(rules, key)
        if value != getattr(default, key):
            items.append((key, value))
    return items


def dumps(event: Event) -> str:
    """The event as TOML text, laid out for reading and hand editing."""
    lines: list[str] = ["# tmanager event file: see docs/events.md for every field"]
    _table(
        lines,
        "[event]",
        [
            ("name", event.name), ("site", event.site), ("start", event.start), ("end", event.end),
            ("arbiter", event.arbiter), ("rounds", event.rounds), ("tiebreaks", event.tiebreaks),
            ("late_entry", event.late_entry), ("max_byes", event.max_byes), ("stylesheet", event.stylesheet),
        ],
    )  # fmt: skip
    s = event.scoring
    _table(
        lines,
        "[scoring]",
        [(k, _points_value(v)) for k, v in (
            ("win", s.win), ("draw", s.draw), ("loss", s.loss), ("forfeit_loss", s.forfeit_loss),
            ("pairing_bye", s.pairing_bye), ("zero_bye", s.zero_bye),
        )],
    )  # fmt: skip
    if event.hooks:
        _table(lines, "[hooks]", [(name, event.hooks.get(name)) for name in HOOKS])
    for d in event.divisions:
        _table(
            lines,
            "[[division]]",
            [
                ("name", d.name), ("system", d.system), ("cycles", d.cycles if d.cycles != 1 else None),
                ("initial_colour", d.initial_colour), ("forbidden", d.forbidden),
                ("team_apart", d.team_apart or None), *_scored_items(d.scored),
            ],
        )  # fmt: skip
        for p in d.players:
            _table(
                lines,
                "[[division.player]]",
                [
                    ("number", p.number), ("name", p.name), ("rating", p.rating), ("fide_id", p.fide_id),
                    ("federation", p.federation), ("club", p.club), ("team", p.team), ("birth", p.birth),
                    ("flags", p.flags), ("status", p.status if p.status != "active" else None),
                    ("absent", p.absent), ("off", p.off), ("extensions", [list(x) for x in p.extensions]),
                ],
            )  # fmt: skip
        for r in d.rounds:
            _table(
                lines,
                "[[division.round]]",
                [
                    ("number", r.number), ("paired", r.paired),
                    ("boards", [[b.white, b.black, b.result, *(b.scores or ())] for b in r.boards]),
                    ("byes", [[n, k, *([r.spreads[n]] if n in r.spreads else [])] for n, k in r.byes.items()]),
                    ("forced", [list(f) for f in r.forced]), ("forced_bye", r.forced_bye),
                    ("board_numbers", [list(x) for x in sorted(r.board_numbers.items())]),
                    ("p12", [list(x) for x in sorted(r.p12.items())]),
                ],
            )  # fmt: skip
    return "\n".join(lines) + "\n"


def loads(text: str, file: Path | None = None) -> Event:
    """Parse event-file text."""
    return from_toml(parse_toml(text, file=file), file)


def validate(event: Event) -> None:
    """Check the whole model as a file would be checked (after an operation, before writing)."""
    loads(dumps(event))


# -- files: the thin I/O layer ---------------------------------------------------


def load(path: Path) -> Event:
    """Read an event file. Safe without the lock: writes are atomic renames."""
    return loads(read_text(path, kind="event", create="tmanager event new"), path)


def journal_dir(path: Path) -> Path:
    """``old/`` beside the event file."""
    return path.parent / "old"


def _journal(path: Path) -> list[tuple[int, Path]]:
    """Journal entries of this event, oldest first."""
    directory = journal_dir(path)
    if not directory.is_dir():
        return []
    entries = []
    for f in directory.iterdir():
        m = _JOURNAL.match(f.name)
        if m and m["stem"] == path.stem:
            entries.append((int(m["seq"]), f))
    return sorted(entries)


def _locked(path: Path) -> contextlib.AbstractContextManager[Any]:
    try:
        return lock(path).acquire()
    except filelock.Timeout:
        raise StateError(f"{path}: another tmanager holds {path}.lock; try again") from None


def create(path: Path, event: Event) -> None:
    """Write a new event file; refuses to overwrite."""
    validate(event)
    with _locked(path):
        if path.exists():
            raise StateError(f"{path}: file exists; choose another name or remove it first")
        atomic_write(path, dumps(event))


@contextlib.contextmanager
def change(path: Path) -> Iterator[Event]:
    """Lock, read, yield the model for changes, then journal the old text and write the new one atomically.

    An exception inside the block leaves the file and the journal untouched.
    """
    with _locked(path):
        try:
            old = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError("no such event file", file=path, hint="create one with `tmanager event new`") from None
        event = loads(old, path)
        yield event
        new = dumps(event)
        loads(new, path)
        if new == old:
            return
        entries = _journal(path)
        seq = entries[-1][0] + 1 if entries else 1
        directory = journal_dir(path)
        directory.mkdir(exist_ok=True)
        atomic_write(directory / f"{path.stem}.{seq:04d}.toml", old)
        atomic_write(path, new)


def last_change(path: Path) -> int:
    """The number of the event file's last change still on the journal (0: none)."""
    entries = _journal(path)
    return entries[-1][0] if entries else 0


def undo(path: Path, *, expected: int | None = None) -> str:
    """Step back to the previous version; the undone one is kept as ``old/<event>.undone.<seq>.toml``.

    With ``expected`` (a :func:`last_change` number), only if that change is still the last one:
    a page shown before someone else's change must not undo it.
    """
    with _locked(path):
        entries = _journal(path)
        if not entries:
            raise StateError(f"{path}: nothing to undo (no earlier version in {journal_dir(path)}/)")
        seq, previous = entries[-1]
        if expected is not None and seq != expected:
            raise StateError(f"the event has changed since this page was shown (change {seq}); reload and check it")
        text = previous.read_text(encoding="utf-8")
        loads(text, previous)
        if path.exists():
            atomic_write(journal_dir(path) / f"{path.stem}.undone.{seq:04d}.toml", path.read_text(encoding="utf-8"))
        atomic_write(path, text)
        os.unlink(previous)
        return f"restored the version before change {seq} ({len(entries) - 1} earlier version(s) left)"


Operation = Callable[[Event], list[str]]


def apply(path: Path, operation: Operation) -> list[str]:
    """Run one operation as one locked, journaled, atomic change; returns its messages."""
    with change(path) as event:
        return operation(event)
