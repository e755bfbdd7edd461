"""Change settings of a tourney safely, even while workers run (they pick it up before their next game).

The file is rewritten under the lock after the same checks as on reading.
Changes that would give recorded results another meaning (type,
gauntlet_seeds, games_per_pairing once games are recorded; fewer cycles than
games recorded) are refused with the reason. Raising cycles of a finished
tourney reopens it: `tmanager run` then plays the new cycle; an edit that ends it (fewer cycles or
iterations, an SPRT's bounds that decide it) does what its last game's record would have done. Of a participant,
--option, --each and --set participants.NAME.FIELD change how its engine
plays (options, tc, st, nodes, depth, ponder, restart, time_margin, stderr),
from its next game on, a participant's own setting winning over --each; another
engine is `tmanager substitute`'s job. A changed book or variant is checked
against the book at once. Once a game of an SPRT test is recorded, its [sprt]
bounds, the limits (tc, st, nodes, depth, time_margin) and the [openings] stay
as they are unless --force is given; a forced change is recorded in the file
and shown by `tmanager status`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.cli._settings import add_participant_arguments, ordered_assignments
from tmanager.errors import ConfigError
from tmanager.tourney import amendments, store, tunecheck
from tmanager.tourney.editing import edit_setting
from tmanager.tourney.gamesetup import load_book
from tmanager.tourney.hookrun import conclude

EXAMPLES = """\
  tmanager edit gauntlet.toml --set cycles=4               # add cycles, also to a finished tourney
  tmanager edit gauntlet.toml --set tc=20+0.2 --set sync_after_round=true
  tmanager edit gauntlet.toml --set adjudication.max_moves=150 --set after_game='./crosstable.sh'
  tmanager edit match.toml --option dev:Hash=128 --each time_margin=0.2 --set participants.base.tc=20+0.2
  tmanager edit sprt.toml --set sprt.elo1=3 --force     # a test under way: recorded, shown by status
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="SECTION.FIELD=VALUE (section tourney by default, or openings, adjudication, participants.NAME)",
    )
    add_participant_arguments(parser)
    parser.add_argument(
        "--force", action="store_true",
        help="change an SPRT test's bounds, limits or book after its first recorded game, and record it",
    )


def _reads_the_book(key: str) -> bool:
    section, _, name = key.rpartition(".")
    return section == "openings" or (section in ("", "tourney") and name == "variant")


def command(args: argparse.Namespace) -> int:
    if not (args.set or args.option or args.each):
        raise ConfigError("nothing to change", field="--set", hint="give --set, --option or --each")
    with store.transaction(args.file, settings=True) as tourney:
        before, was_over = amendments.conditions(tourney), tourney.is_complete()
        assignments = ordered_assignments(args, [p.name for p in tourney.participants])
        for key, value in assignments.pairs:
            edit_setting(tourney, key, value)
        if any(_reads_the_book(key) for key, _ in assignments.pairs):
            load_book(tourney)  # a bad line is reported now (of a large book: in its first opening)
        if any(key.startswith("spsa.") for key, _ in assignments.pairs):
            tunecheck.check_options(tourney)  # as new does: an option the engine lacks stopped run at its first game
        made = amendments.guard(tourney, before, force=args.force)
        tourney.validate(settings=True, engines=True)  # as the transaction would, before the SPRT is asked
        if tourney.is_complete() and not was_over:  # no game will be recorded to end it
            conclude(tourney)
        total = tourney.schedule().total_games
    assignments.say_notes()
    print(f"{args.file}: updated; {total} games scheduled")
    for amendment in made:
        print(f"  recorded as an amendment of the SPRT test: {amendment.describe()}")
    return 0
