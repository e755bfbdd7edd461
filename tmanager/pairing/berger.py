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

from tmanager.errors import ScheduleError
from tmanager.pairing.model import Pairing


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
    per_cycle = players - 1 + players % 2
    if cycles < 1 or not 1 <= round_number <= per_cycle * cycles:
        raise ScheduleError(f"round {round_number} is out of range for {cycles} cycle(s) of {players} players")
    cycle, index = divmod(round_number - 1, per_cycle)
    if cycles > 1 and cycle % 2 == 0 and cycle + 1 < cycles and index >= per_cycle - 2 and per_cycle >= 2:
        index = 2 * per_cycle - 3 - index
    pairing = berger_round(players, index + 1)
    if cycle % 2:
        pairing = Pairing(tuple((b, w) for w, b in pairing.boards), pairing.bye)
    return pairing
