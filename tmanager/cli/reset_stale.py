"""Release the claims of workers that are gone, so that their games are played again.

Workers do this by themselves before every claim; this command does it by
hand, e.g. before inspecting a tourney whose workers were all killed. A game
that its dead worker had already written to the PGN keeps that result.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.tourney import store
from tmanager.tourney.claims import release_stale
from tmanager.tourney.model import UNPLAYED

EXAMPLES = """\
  tmanager reset-stale gauntlet.toml
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")


def command(args: argparse.Namespace) -> int:
    with store.transaction(args.file) as tourney:
        released = release_stale(tourney)
    for number, char in released:
        what = "released, will be replayed" if char == UNPLAYED else f"recovered {char!r} from the PGN"
        print(f"game {number}: {what}")
    if not released:
        print("no stale claims")
    return 0
