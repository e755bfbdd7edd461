"""Change settings of a tourney safely, even while workers run (they pick it up before their next game).

The file is rewritten under the lock after the same checks as on reading.
Changes that would give recorded results another meaning (type,
gauntlet_seeds, games_per_pairing once games are recorded; fewer cycles than
games recorded) are refused with the reason. Raising cycles of a finished
tourney reopens it: `tmanager run` then plays the new cycle.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.cli._settings import parse_assignments
from tmanager.tourney import store
from tmanager.tourney.model import edit_setting
from tmanager.tourney.worker import load_book

EXAMPLES = """\
  tmanager edit gauntlet.toml --set cycles=4               # add cycles, also to a finished tourney
  tmanager edit gauntlet.toml --set tc=20+0.2 --set sync_after_round=true
  tmanager edit gauntlet.toml --set adjudication.max_moves=150 --set after_game='./crosstable.sh'
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument(
        "--set", action="append", default=[], required=True, metavar="KEY=VALUE",
        help="SECTION.FIELD=VALUE (section tourney by default, or openings, adjudication)",
    )


def _reads_the_book(key: str) -> bool:
    section, _, name = key.rpartition(".")
    return section == "openings" or (section in ("", "tourney") and name == "variant")


def command(args: argparse.Namespace) -> int:
    assignments = parse_assignments(args.set)
    with store.transaction(args.file, settings=True) as tourney:
        for key, value in assignments:
            edit_setting(tourney, key, value)
        if any(_reads_the_book(key) for key, _ in assignments):
            load_book(tourney)  # a bad book line is reported now, with the book's file and line
        total = tourney.schedule().total_games
    print(f"{args.file}: updated; {total} games scheduled")
    return 0
