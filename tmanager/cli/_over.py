"""Why a tourney that is over has nothing to play, and how to go on: what `run` and `work` say of one."""

from __future__ import annotations

from pathlib import Path

from tmanager.core import sprt
from tmanager.tourney.model import Tourney
from tmanager.tourney.progress import sprt_state


def why_over(tourney: Tourney, path: Path) -> str:
    """Why a tourney that is over has nothing to play, and how to go on."""
    state = sprt_state(tourney)
    decision = sprt.describe(state) if state is not None and state.decided else None
    if decision:
        return f"{decision}; to go on, change its bounds (tmanager edit {path.name} --set sprt.elo1=…)"
    if tourney.spsa is not None:  # a tune's cycles stay 1: its iterations make its length
        return (f"every step of the tune is played; to go on, raise its iterations (tmanager edit {path.name} "
                "--set spsa.iterations=…)")
    return f"every game is played; to go on, raise cycles (tmanager edit {path.name} --set cycles=…)"
