"""Round-robin pairing by the Berger tables (FIDE handbook C.05, Annex 1).

Players are numbered 1..n. An odd field plays as n+1 with a dummy: whoever
meets the dummy has the bye that round. In round 1 player k meets n+1-k (the
top half has white, except that the last player always sits on board 1 and
alternates colours: black in odd rounds, white in even ones). Each next round
is the previous one rotated by n/2 places: a player's number p becomes
``p + n/2`` modulo n-1 (numbers 1..n-1).

For a double round robin the second cycle repeats the first with colours
reversed; FIDE recommends swapping the last two rounds of the first cycle so
that nobody has the same colour three times running across the junction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tmanager.errors import ScheduleError
from tmanager.pairing.model import Pairing


@dataclass(frozen=True, slots=True)
class BergerExplanation:
    """Where a round of a round robin comes from: round ``table_round`` of the Berger table of ``size`` numbers
    (the players, and a dummy for an odd field), in cycle ``cycle`` (from 1), with the colours of the table
    (``reversed``: every second cycle) and, with ``swapped``, one of the first cycle's last two rounds played in
    the other's place."""

    pairing: Pairing
    size: int
    table_round: int
    cycle: int
    reversed: bool
    swapped: bool

    def lines(self, name: Callable[[int], str] = str) -> tuple[str, ...]:
        """The explanation as text, pairing numbers written by ``name``."""
        where = f"round {self.table_round} of the Berger table for {self.size} (C.05 Annex 1), cycle {self.cycle}"
        if self.swapped:
            where += "; the last two rounds of the cycle swapped, so nobody has one colour three times running"
        out = [where + ("; colours reversed in this cycle" if self.reversed else "")]
        for board, (white, black) in enumerate(self.pairing.boards, 1):
            first, second = (black, white) if self.reversed else (white, black)
            if self.size in (first, second):
                colour = "black" if self.table_round % 2 else "white"
                rule = f"number {self.size} keeps the table's board 1, alternating: {colour} in this round"
            else:
                rule = f"the table pairs {first} - {second}, the first with white"
            if self.reversed:
                rule += ", reversed"
            out.append(f"board {board}: {name(white)} white, {name(black)} black [{rule}]")
        if self.pairing.bye is not None:
            out.append(f"bye: {name(self.pairing.bye)} meets the dummy number {self.size} (an odd field)")
        return tuple(out)


def berger_round(players: int, round_number: int) -> Pairing:
    """Round ``round_number`` (from 1) of a single round robin of ``players`` (numbered from 1)."""
    if players < 2:
        raise ScheduleError("a round robin needs at least two players")
    n = players + players % 2
    rounds = n - 1
    if not 1 <= round_number <= rounds:
        raise ScheduleError(f"round {round_number} is out of range 1..{rounds} for {players} players")
    # Each round rotates the seats of players 1..n-1 by n/2 places.
    half = n // 2
    offset = (round_number - 1) * half

    def seat(i: int) -> int:
        """The player at seat i (0-based, seats 0..n-2 rotate)."""
        return (i + offset) % (n - 1) + 1

    boards: list[tuple[int, int]] = []
    # Board 1: the last player against seat 0, colours alternate by round.
    first = seat(0)
    boards.append((first, n) if round_number % 2 else (n, first))
    for k in range(1, half):
        boards.append((seat(k), seat(n - 1 - k)))
    bye = None
    if players % 2:
        real = []
        for white, black in boards:
            if n in (white, black):
                bye = black if white == n else white
            else:
                real.append((white, black))
        boards = real
    return Pairing(tuple(boards), bye)


def round_robin(players: int, round_number: int, *, cycles: int = 1) -> Pairing:
    """Round ``round_number`` (from 1) of a round robin of ``cycles`` cycles.

    Later cycles repeat the first with colours reversed in every other cycle.
    With two or more cycles the last two rounds of each odd-numbered cycle are
    swapped (C.05 Annex 1), so no player has the same colour three times in a row.
    """
    cycle, index, _ = _position(players, round_number, cycles)
    pairing = berger_round(players, index + 1)
    if cycle % 2:
        pairing = Pairing(tuple((b, w) for w, b in pairing.boards), pairing.bye)
    return pairing


def explain_round_robin(players: int, round_number: int, *, cycles: int = 1) -> BergerExplanation:
    """Round ``round_number`` as :func:`round_robin` gives it, and where it comes from in the table."""
    pairing = round_robin(players, round_number, cycles=cycles)
    cycle, index, swapped = _position(players, round_number, cycles)
    return BergerExplanation(pairing, players + players % 2, index + 1, cycle + 1, bool(cycle % 2), swapped)


def _position(players: int, round_number: int, cycles: int) -> tuple[int, int, bool]:
    """The cycle (from 0) and the table's round (from 0) of ``round_number``, and whether the swap moved it."""
    per_cycle = players - 1 + players % 2
    if cycles < 1 or not 1 <= round_number <= per_cycle * cycles:
        raise ScheduleError(f"round {round_number} is out of range for {cycles} cycle(s) of {players} players")
    cycle, index = divmod(round_number - 1, per_cycle)
    if cycles > 1 and cycle % 2 == 0 and cycle + 1 < cycles and index >= per_cycle - 2 and per_cycle >= 2:
        return cycle, 2 * per_cycle - 3 - index, True
    return cycle, index, False
