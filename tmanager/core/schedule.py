"""Schedules: which two participants meet in game N.

The numbering is XBoard's (``backend.c``: ``Pairing`` and ``NextMatchGame``), so a
results string written by an XBoard tourney means the same games here. With n
participants, G games per pairing and participants numbered from 0::

    cycle, rest   = divmod(N, games_per_cycle)
    round, rest   = divmod(rest, games_per_round)
    pairing, game = divmod(rest, G)

A round robin has ``(n-1)|1`` rounds of ``n//2`` pairings per cycle (with an odd
field the bye slot simply never comes up); a gauntlet with s seeds has ``n-s``
rounds of ``s`` pairings. The first participant of a pairing has white iff
``((game + cycle*G + 1) & 1) ^ (round & 1)``.

**Game numbers.** Everywhere in tmanager a game's number is its index N in the
results string, counted from 0: the PGN ``GameNumber`` tag, the logs, the
hooks' ``TMANAGER_GAME``, ``status``, the dashboard, the cluster and crash
recovery all use it. Only the PGN ``Round`` tag counts from 1 (XBoard's
``(cycle*rounds_per_cycle + round)*G + game + 1``).

**Game pairs.** The two games the schedule makes together, same pairing and
colours reversed, form a pair (both play the same opening, see
:meth:`Schedule.opening_key`): games ``2j`` and ``2j+1`` of a
pairing; with an odd G the last game of a pairing pairs with the same game of
the next cycle (cycles 0-1, 2-3, …; not in a Swiss, which pairs each cycle
afresh), and stays single in the last cycle of an odd number of cycles.
:meth:`Schedule.partner` answers it; the worker writes
the pair into the PGN (``Pair`` tag: the number of the pair's first game), so
that a reader pairs games without knowing the schedule.

A schedule is pure: it knows participant indices, not engines or files.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass

from tmanager.errors import ConfigError, ScheduleError


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule. ``white`` and ``black`` are participant indices."""

    number: int
    cycle: int
    round: int
    pairing: int
    game: int
    white: int
    black: int
    games_per_pairing: int
    rounds_per_cycle: int
    #: The PGN ``Round`` tag (XBoard's, or fastchess's for its order; see :meth:`Schedule.round_tag`).
    pgn_round: int


class Schedule(ABC):
    """Base tournament type, in the manner of cutechess's ``Tournament``.

    Subclasses say how many rounds and pairings a cycle has and who meets in a
    pairing; this class does the XBoard index arithmetic and colour rule.
    """

    def __init__(
        self, participants: int, *, games_per_pairing: int = 1, cycles: int = 1, noswap: bool = False,
        reverse: bool = False,
    ) -> None:
        if participants < 2:
            raise ConfigError(
                f"a tourney needs at least 2 participants, not {participants}",
                field="participants",
                hint="add [[participants]] entries",
            )
        if games_per_pairing < 1:
            raise ConfigError(f"must be at least 1, not {games_per_pairing}", field="tourney.games_per_pairing")
        if cycles < 1:
            raise ConfigError(f"must be at least 1, not {cycles}", field="tourney.cycles")
        self.participants = participants
        self.games_per_pairing = games_per_pairing
        self.cycles = cycles
        #: fastchess's -noswap (the first of a pairing has white in every game) and -reverse (the other
        #: colours than the rule gives; with noswap, the first has black in every game).
        self.noswap = noswap
        self.reverse = reverse

    @property
    @abstractmethod
    def rounds_per_cycle(self) -> int: ...

    @property
    @abstractmethod
    def pairings_per_round(self) -> int: ...

    @abstractmethod
    def pair(self, cycle: int, round: int, pairing: int) -> tuple[int, int] | None:
        """The two participants of a pairing, or ``None`` when it is not known yet
        (a Swiss round not yet paired)."""

    def first_is_white(self, cycle: int, round: int, game: int, *, number: int) -> bool:
        """Whether the first participant of the pairing has white in game ``number`` (XBoard's rule), before
        :attr:`noswap` and :attr:`reverse`."""
        return bool(((game + cycle * self.games_per_pairing + 1) & 1) ^ (round & 1))

    @property
    def games_per_round(self) -> int:
        return self.pairings_per_round * self.games_per_pairing

    @property
    def games_per_cycle(self) -> int:
        return self.rounds_per_cycle * self.games_per_round

    @property
    def total_games(self) -> int:
        return self.cycles * self.games_per_cycle

    @property
    def total_rounds(self) -> int:
        return self.cycles * self.rounds_per_cycle

    def locate(self, number: int) -> tuple[int, int, int, int]:
        """``(cycle, round, pairing, game)`` of game ``number``."""
        if not 0 <= number < self.total_games:
            raise ScheduleError(f"game {number} is outside the schedule (0..{self.total_games - 1})")
        cycle, rest = divmod(number, self.games_per_cycle)
        round_, rest = divmod(rest, self.games_per_round)
        pairing, game = divmod(rest, self.games_per_pairing)
        return cycle, round_, pairing, game

    def partner(self, number: int) -> int | None:
        """The other game of game ``number``'s pair (see the module's docstring), or ``None`` if it has none."""
        cycle, _, _, game = self.locate(number)
        g = self.games_per_pairing
        if g % 2 == 0 or game < g - 1:
            return number - game + (game ^ 1)
        other = number + self.games_per_cycle if cycle % 2 == 0 else number - self.games_per_cycle
        return other if other < self.total_games else None

    def game(self, number: int) -> ScheduledGame | None:
        """Who plays game ``number`` and with which colours, or ``None`` to wait."""
        cycle, round_, pairing, game = self.locate(number)
        pair = self.pair(cycle, round_, pairing)
        if pair is None:
            return None
        first, second = pair
        first_white = self.noswap or self.first_is_white(cycle, round_, game, number=number)
        round_tag = self.round_tag(cycle, round_, game, number=number)
        white, black = (first, second) if first_white != self.reverse else (second, first)
        return ScheduledGame(
            number=number,
            cycle=cycle,
            round=round_,
            pairing=pairing,
            game=game,
            white=white,
            black=black,
            games_per_pairing=self.games_per_pairing,
            rounds_per_cycle=self.rounds_per_cycle,
            pgn_round=round_tag,
        )

    def round_tag(self, cycle: int, round: int, game: int, *, number: int) -> int:
        """The PGN ``Round`` tag of game ``number``: XBoard's, where the games of a pairing count as
        consecutive rounds."""
        return (cycle * self.rounds_per_cycle + round) * self.games_per_pairing + game + 1

    @property
    def period(self) -> int:
        """Games after which the schedule repeats itself, colours included: a cycle, or two when a
        pairing's colours alternate from one cycle to the next (an odd ``games_per_pairing``)."""
        return self.games_per_cycle * (1 if self.games_per_pairing % 2 == 0 else 2)

    def opening_key(self, number: int) -> int:
        """The opening key of game ``number``: the two games of a colour-reversed pair share it
        (:meth:`~tmanager.tourney.openings.OpeningBook.opening_for` turns it into an opening).

        With XBoard's colour rule, games ``2j`` and ``2j+1`` of a pairing have
        reversed colours; with an even ``games_per_pairing`` that pairs every game
        and the key is ``number // 2``. With an odd one, the last game of a pairing
        is left over in each cycle, and colours flip from one cycle to the next: it
        pairs with the same game of the following cycle (only the last cycle of an
        odd number of cycles leaves it single).

        Keys are dense and grow with the game number: a sequential book is used in
        order, without gaps. In each block of two cycles the first cycle's pairs come
        first (the in-pairing pairs then the cross-cycle one, pairing by pairing),
        then the second cycle's in-pairing pairs.
        """
        g = self.games_per_pairing
        if g % 2 == 0:
            return number // 2
        cycle, rest = divmod(number, self.games_per_cycle)
        pairing, game = divmod(rest, g)
        block = (cycle // 2) * self.games_per_cycle
        if cycle % 2 == 0 or game == g - 1:
            return block + pairing * (g + 1) // 2 + game // 2
        pairings = self.games_per_cycle // g
        return block + pairings * (g + 1) // 2 + pairing * (g - 1) // 2 + game // 2

    def games_of_round(self, absolute_round: int) -> range:
        """Game numbers of one round, counted across cycles."""
        start = absolute_round * self.games_per_round
        return range(start, start + self.games_per_round)


class RoundRobin(Schedule):
    """Everyone plays everyone once per cycle (XBoard ``-tourneyType 0``)."""

    @property
    def rounds_per_cycle(self) -> int:
        return (self.participants - 1) | 1

    @property
    def pairings_per_round(self) -> int:
        return self.participants // 2

    def pair(self, cycle: int, round: int, pairing: int) -> tuple[int, int]:
        n = self.participants
        half = (n - 1) // 2
        if pairing == half:
            return round, n - 1
        modulus = n - 1 + (n & 1)
        return (round - half + pairing) % modulus, (round + half - pairing) % modulus


class Gauntlet(Schedule):
    """The first ``seeds`` participants each play all the others (XBoard ``-tourneyType N``)."""

    def __init__(
        self, participants: int, *, seeds: int, games_per_pairing: int = 1, cycles: int = 1, noswap: bool = False,
        reverse: bool = False,
    ) -> None:
        super().__init__(
            participants, games_per_pairing=games_per_pairing, cycles=cycles, noswap=noswap, reverse=reverse
        )
        if not 1 <= seeds < participants:
            raise ConfigError(
                f"{seeds} seeds with {participants} participants",
                field="tourney.gauntlet_seeds",
                hint=f"use 1 to {participants - 1}: the seeds play everyone after them",
            )
        self.seeds = seeds

    @property
    def rounds_per_cycle(self) -> int:
        return self.participants - self.seeds

    @property
    def pairings_per_round(self) -> int:
        return self.seeds

    def pair(self, cycle: int, round: int, pairing: int) -> tuple[int, int]:
        if self.seeds == 1:
            return pairing, round + self.seeds
        return round + self.seeds, pairing


class FastchessOrder(Schedule):
    """fastchess's schedule: round after round (each a cycle here), every pairing of the round in turn.

    A round's pairings are the pairs ``(i, j)``, ``i < j``, in order, ``i``
    among the first ``seeds`` participants (a gauntlet; unlike XBoard's, its
    seeds also meet each other) or all of them (a round robin). The first of a
    pairing has white in the even-numbered games of the schedule (fastchess's
    odd game numbers: it counts from 1), so with two games per pairing, in the
    first of each. All the games of a pairing share an opening (fastchess takes
    a new one for each pairing), and with two games they are a pair.
    """

    def __init__(
        self, participants: int, *, seeds: int | None = None, games_per_pairing: int = 2, cycles: int = 1,
        noswap: bool = False, reverse: bool = False,
    ) -> None:
        super().__init__(
            participants, games_per_pairing=games_per_pairing, cycles=cycles, noswap=noswap, reverse=reverse
        )
        if seeds is not None and not 1 <= seeds < participants:
            raise ConfigError(
                f"{seeds} seeds with {participants} participants", field="tourney.gauntlet_seeds",
                hint=f"use 1 to {participants - 1}",
            )
        leaders = participants - 1 if seeds is None else seeds
        self.pairs = [(i, j) for i in range(leaders) for j in range(i + 1, participants)]

    @property
    def rounds_per_cycle(self) -> int:
        return 1

    @property
    def pairings_per_round(self) -> int:
        return len(self.pairs)

    def pair(self, cycle: int, round: int, pairing: int) -> tuple[int, int]:
        return self.pairs[pairing]

    def first_is_white(self, cycle: int, round: int, game: int, *, number: int) -> bool:
        return number % 2 == 0

    def round_tag(self, cycle: int, round: int, game: int, *, number: int) -> int:
        """fastchess's: the games of a pairing share it, the pairing's number in the schedule from 1."""
        return number // self.games_per_pairing + 1

    def partner(self, number: int) -> int | None:
        """Games ``2j`` and ``2j+1`` of a pairing; the last of an odd number of games has none (fastchess
        counts pairs only with two games per pairing)."""
        game = number % self.games_per_pairing
        other = game ^ 1
        return number - game + other if other < self.games_per_pairing else None

    def opening_key(self, number: int) -> int:
        """A pairing's games share one opening, and each pairing of the schedule has the next."""
        return number // self.games_per_pairing

    @property
    def period(self) -> int:
        """A round, or two when the number of games of a round is odd (colours follow the game number)."""
        return self.games_per_cycle * (1 if self.games_per_cycle % 2 == 0 else 2)


class NoGame(enum.Enum):
    """Why :func:`next_game` (and a worker's claim) gives no game."""

    WAIT = "wait"  #: nothing can start now, but games remain
    DONE = "done"  #: every game is finished or being played


WAIT, DONE = NoGame.WAIT, NoGame.DONE


def next_game(
    schedule: Schedule,
    results: str,
    *,
    sync_after_round: bool = False,
    sync_after_cycle: bool = False,
    only: Collection[int] | None = None,
) -> ScheduledGame | NoGame:
    """The lowest-numbered game that may start now, or why none may: :attr:`NoGame.WAIT` or :attr:`NoGame.DONE`.

    ``results`` is in XBoard's alphabet: ``+``, ``-``, ``=`` finished, ``*``
    being played, space (or beyond the string) not played. With sync, a game
    waits until every game of the earlier rounds (or cycles) is finished; a
    Swiss round waits until it has been paired. With ``only``, no other
    unplayed game will be played (a decided SPRT completes its pairs): the
    choice is among those, and sync does not wait for the others.
    """
    if only is not None:  # every other unplayed game counts as finished here
        padded = results.ljust(schedule.total_games, " ")
        kept = [n for n in only if padded[n] == " "]
        results = padded.replace(" ", "+")
        for n in kept:
            results = results[:n] + " " + results[n + 1 :]
    # str.find crosses a results string at memory speed (a tourney may have millions of games), and
    # the string is not padded to the schedule's length: that would copy it.
    number = results.find(" ")
    if number < 0:
        if len(results) >= schedule.total_games:
            return DONE
        number = len(results)
    if sync_after_round or sync_after_cycle:
        playing = results.find("*")
        first_open = number if playing < 0 else min(number, playing)
        block = schedule.games_per_round if sync_after_round else schedule.games_per_cycle
        if number // block > first_open // block:
            return WAIT
    game = schedule.game(number)
    return WAIT if game is None else game


class SwissSchedule(Schedule):
    """Rounds paired one at a time from the results so far (FIDE Dutch system).

    ``paired`` holds the boards of every round paired so far, counted across
    cycles, white first; a round not yet paired makes its games wait. Each
    cycle is a Swiss of its own: pairings look only at that cycle's games. An
    odd field leaves one participant with a bye each round, so a round always
    has ``participants // 2`` pairings.
    """

    def __init__(
        self,
        participants: int,
        *,
        rounds: int,
        paired: list[list[tuple[int, int]]],
        games_per_pairing: int = 1,
        cycles: int = 1,
    ) -> None:
        super().__init__(participants, games_per_pairing=games_per_pairing, cycles=cycles)
        if not rounds:  # the setting's default: a Swiss has no natural number of rounds
            raise ConfigError(
                "a Swiss tourney needs its rounds per cycle", field="tourney.swiss_rounds",
                hint=f"set swiss_rounds = N from 1 to {participants - 1}, or give tmanager new --rounds N",
            )
        if not 1 <= rounds < participants:
            raise ConfigError(
                f"{rounds} Swiss rounds with {participants} participants",
                field="tourney.swiss_rounds",
                hint=f"use 1 to {participants - 1}: more rounds would need rematches",
            )
        self.rounds = rounds
        self.paired = paired

    @property
    def rounds_per_cycle(self) -> int:
        return self.rounds

    @property
    def pairings_per_round(self) -> int:
        return self.participants // 2

    def pair(self, cycle: int, round: int, pairing: int) -> tuple[int, int] | None:
        absolute = cycle * self.rounds + round
        return self.paired[absolute][pairing] if absolute < len(self.paired) else None

    def first_is_white(self, cycle: int, round: int, game: int, *, number: int) -> bool:
        """The pairing's white (as the pairing rules chose) has white in its even games."""
        return game % 2 == 0

    @property
    def period(self) -> int:
        """A Swiss never repeats: each round is paired anew."""
        return self.total_games

    def partner(self, number: int) -> int | None:
        """As :meth:`Schedule.partner`, but only within a cycle: the next cycle is paired afresh, so
        the last game of an odd pairing has no colour-reversed partner."""
        other = super().partner(number)
        same_cycle = other is not None and other // self.games_per_cycle == number // self.games_per_cycle
        return other if same_cycle else None
