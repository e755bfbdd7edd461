"""When the runner ends a game itself: resignation, draw and move-count rules, tablebases.

Plain settings (the tourney file's ``[adjudication]``); :mod:`tmanager.tourney.play`
applies them move by move. Kept apart from it so that reading a tourney file
does not load the engine layer.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

TablebaseResults = Literal["both", "win_loss", "draw"]


@dataclass(frozen=True, slots=True)
class Adjudication:
    """When the runner ends a game itself (the tourney file's ``[adjudication]``), as fastchess does.

    Scores are centipawns from the mover's point of view, counts are moves;
    ``None`` turns a rule off. ``syzygy`` holds the tablebase directories, separated by
    ``os.pathsep`` (``:``) as fastchess's ``-tb PATHS``. Each field mirrors a fastchess option
    (README, "From fastchess").
    """

    resign_score: int | None = None  # -resign score=
    resign_moves: int = 3  # -resign movecount=
    resign_twosided: bool = False  # -resign twosided=
    draw_from_move: int = 40  # -draw movenumber=
    draw_score: int | None = None  # -draw score=
    draw_moves: int = 8  # -draw movecount=
    max_moves: int | None = None  # -maxmoves
    syzygy: str = ""  # -tb
    syzygy_pieces: int = 7  # -tbpieces
    syzygy_ignore50: bool = False  # -tbignore50
    syzygy_adjudicate: TablebaseResults = "both"  # -tbadjudicate

    @property
    def syzygy_paths(self) -> tuple[str, ...]:
        """The tablebase directories, as written (empty entries of the list left out)."""
        return tuple(path for path in self.syzygy.split(os.pathsep) if path)

    def resolved(self, base: Path) -> Adjudication:
        """These rules with the tablebase directories made absolute from ``base`` (the tourney's directory)."""
        return dataclasses.replace(self, syzygy=os.pathsep.join(str(base / path) for path in self.syzygy_paths))
