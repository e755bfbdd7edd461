"""Which games finished first: what ``run --report-every N`` reports on, as fastchess does, at each multiple of N.

fastchess prints its report as the N-th, 2N-th, … game finishes, each covering
the games finished at that moment. ``run`` looks at the file every half second,
and may find several multiples passed since its last look; so each report is of
the first k·N games to finish, told from the results string as it was at the last
look and the games written to the PGN since (it takes each game as its result is
recorded, so in the order they finished; the ``GameNumber`` tag says which).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tmanager.formats import pgn
from tmanager.tourney.alphabet import FINISHED, FINISHED_CHARS, UNPLAYED
from tmanager.tourney.model import PgnMark, Tourney


@dataclass(frozen=True, slots=True)
class Look:
    """What one look at the file found: the results string, and the PGN's mark (its size after the last game)."""

    results: str
    mark: PgnMark | None

    @classmethod
    def of(cls, tourney: Tourney) -> Look:
        return cls(tourney.results, tourney.pgn_mark)


def finished_since(before: Look, now: Tourney) -> list[int]:
    """The games finished in ``now`` that were not in ``before``, in the order they finished: as the PGN took them
    between the two looks' marks, then any not found there (a result typed in by hand) by number."""
    old = before.results
    numbers = (m.start() for m in FINISHED.finditer(now.results))
    new = [n for n in numbers if n >= len(old) or old[n] not in FINISHED_CHARS]
    if not new:
        return []
    rank = {number: at for at, number in enumerate(_written(before.mark, now.pgn_mark))}  # the last writing counts
    unknown = len(rank)
    return sorted(new, key=lambda number: (rank.get(number, unknown), number))


def _written(before: PgnMark | None, now: PgnMark | None) -> list[int]:
    """The game numbers the PGN took from mark ``before`` to mark ``now``, in order (none if it changed files)."""
    if now is None or (before is not None and before.path != now.path):
        return []
    return pgn.numbers_written(Path(now.path), start=before.size if before else 0, end=now.size)


def without(tourney: Tourney, games: Iterable[int]) -> Tourney:
    """``tourney`` as if ``games`` were not played yet: a report of the games finished before them."""
    results = list(tourney.results)
    for number in games:
        results[number] = UNPLAYED
    return dataclasses.replace(tourney, results="".join(results))
