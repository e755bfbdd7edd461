"""Which games two results strings tell apart: what a transaction journals, and what a hand edit changed.

:func:`changed_results` finds the results characters that differ at memory speed, however long the strings;
the store journals them (:mod:`tmanager.tourney.store`), and :class:`HandEdits` takes from them the played games
a hand edit of the results string set back or gave another result, to bring the PGN in line.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tmanager.core.results import Result
from tmanager.formats import pgn
from tmanager.tourney.model import FINISHED_CHARS, UNPLAYED

log = logging.getLogger("tmanager")

_PLAYED = re.compile(r"[^ ]")


def changed_results(before: str, after: str) -> dict[int, str]:
    """Results characters that differ (beyond a string's end counts as not played).

    Equal stretches compare at memory speed: blocks of ``after`` against ``before`` in
    place, then sub-blocks, then characters, so a change of one game in a million costs
    a few comparisons, and neither string is padded or copied but a block at a time.
    Past the shorter string's end, the games played in the longer one differ. A game
    claimed after the last one played, or the last one released, changes only that:
    one comparison tells.
    """
    common = min(len(before), len(after))
    shorter, longer = (before, after) if len(before) == common else (after, before)
    changes: dict[int, str] = {}
    # No reference cycle (a recursive closure) may hold the strings: freed at once, their memory is reused.
    stretches = [] if len(longer) > common and longer.startswith(shorter) else [(0, common, 1 << 16)]
    while stretches:
        start, end, step = stretches.pop()
        for at in range(start, end, step):
            block = after[at : min(at + step, end)]
            if not before.startswith(block, at):
                if step == 1:
                    changes[at] = block
                else:
                    stretches.append((at, min(at + step, end), max(1, step // 64)))
    for match in _PLAYED.finditer(longer, common):
        changes[match.start()] = match.group() if longer is after else UNPLAYED
    return changes


def recorded_since(before: str, after: str) -> tuple[int, ...]:
    """The games finished in results string ``after`` that were not in ``before``."""
    return tuple(
        n for n, char in sorted(changed_results(before, after).items())
        if char in FINISHED_CHARS and (n >= len(before) or before[n] not in FINISHED_CHARS)
    )


@dataclass(frozen=True, slots=True)
class HandEdits:
    """The games played by the journal's account whose result a hand edit of the results string changed."""

    #: set back to not played, to be played again
    replayed: tuple[int, ...] = ()
    #: given another result: game number -> (the PGN result recorded, the PGN result the edit gives)
    rescored: Mapping[int, tuple[str, str]] = dataclasses.field(default_factory=dict)

    @classmethod
    def between(cls, played: str, edited: str) -> HandEdits:
        """The hand edits that turned results string ``played`` into ``edited``."""
        replayed, rescored = [], {}
        for n, char in sorted(changed_results(played, edited).items()):
            if n >= len(played) or played[n] not in FINISHED_CHARS:
                continue
            if char == UNPLAYED:
                replayed.append(n)
            elif char in FINISHED_CHARS:
                rescored[n] = (Result.from_xboard(played[n]).pgn, Result.from_xboard(char).pgn)
        return cls(tuple(replayed), rescored)

    def apply_to_pgn(self, path: Path, pgn_path: Path) -> int:
        """Bring the PGN in line: a game set back stays for the record, superseded, as ``substitute --replace``
        leaves one; a game given another result says so, so that ``crosstable`` counts what ``status`` does.
        Returns how many of the games set back had no game there (their games are in another PGN)."""
        absent = 0
        if self.replayed:
            marked = pgn.mark_superseded(pgn_path, set(self.replayed), reason="replayed: set back by hand")
            log.warning("%s: game(s) %s set back to not played by hand: %d PGN game(s) superseded", path,
                        ", ".join(map(str, self.replayed)), marked)
            absent = max(0, len(self.replayed) - marked)
        if self.rescored:
            corrected = pgn.correct_results(pgn_path, self.rescored, reason="result set by hand")
            log.warning("%s: game(s) %s given another result by hand: %d PGN game(s) corrected", path,
                        ", ".join(map(str, self.rescored)), corrected)
        return absent
