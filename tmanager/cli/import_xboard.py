"""Convert an XBoard tourney file (.trn) into a tmanager tourney file.

Participants are mapped to engine definitions by name (case, spaces and
punctuation ignored: "Fairy-Max 4.8" finds fairymax48.toml or
fairy-max-4-8.toml); an unknown name is an error listing what to define. Type,
cycles, games per pairing, sync, save-game file, load-game/position file and
index, hooks, time control, pondering and the results string carry over (a
Polyglot book cannot); XBoard's numbering is ours, so the results keep their
meaning. Games XBoard was playing (`*`) become not played.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import same_file
from tmanager.tourney import store
from tmanager.tourney.trn import import_trn

EXAMPLES = """\
  tmanager import-xboard tourney.trn                 # writes tourney.toml
  tmanager import-xboard tourney.trn gauntlet.toml
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the XBoard tourney file")
    parser.add_argument("new_file", type=Path, nargs="?", help="the new tourney file (default: FILE.toml)")
    parser.add_argument("--force", action="store_true", help="overwrite NEW_FILE if it exists")


def command(args: argparse.Namespace) -> int:
    target: Path = (args.new_file or args.file.with_suffix(".toml")).resolve()
    if same_file(target, args.file):  # --force wrote the new tourney over the XBoard one, which XBoard may still run
        raise ConfigError(f"{str(target)!r} is the XBoard tourney file read", field="NEW_FILE",
                          hint=f"give the new tourney file a name of its own: {args.file.stem}-xboard.toml")
    tourney = import_trn(args.file, target)
    store.write_new(tourney, overwrite=args.force)
    done = tourney.finished_count
    print(f"{target}: {len(tourney.participants)} participants, {done} of {tourney.schedule().total_games} "
          "games played")
    return 0
