"""Start a new tourney with the settings and participants of another, and no results.

For repeating a gauntlet with a new engine version: clone, then change what
differs with --set (any setting) or `tmanager substitute --upgrade`. The PGN
path becomes the new file's own unless --set pgn=… says otherwise.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tmanager import files
from tmanager.cli._settings import note_shared_pgn, parse_assignments
from tmanager.errors import ConfigError
from tmanager.tourney import store
from tmanager.tourney.editing import apply_setting
from tmanager.tourney.model import Tourney

EXAMPLES = """\
  tmanager clone gauntlet-v1.toml gauntlet-v2.toml
  tmanager clone gauntlet-v1.toml gauntlet-v2.toml --set name="Gauntlet v2" --set cycles=20
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file to copy")
    parser.add_argument("new_file", type=Path, help="the new tourney file")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="change a setting")
    parser.add_argument("--force", action="store_true", help="overwrite NEW_FILE if it exists")


def command(args: argparse.Namespace) -> int:
    path: Path = args.new_file.resolve()
    if files.same_file(args.file, path):  # --force would wipe the results of the very tourney being copied
        raise ConfigError("is the tourney being cloned", file=args.new_file, hint="give the clone a name of its own")
    source = store.read(args.file)
    clone = Tourney(
        path=path,
        settings=source.settings,
        participants=list(source.participants),
        openings=source.openings,
        adjudication=source.adjudication,
        sprt=source.sprt,
        spsa=source.spsa,  # the tune afresh, from its start (NAME.spsa.txt's lines start from where it ended)
    )
    apply_setting(clone, "pgn", path.with_suffix(".pgn").name)
    if source.openings is not None:  # keep the book reachable from the new file's directory
        apply_setting(clone, "openings.file", _relative(source.directory / source.openings.file, path.parent))
    for key, value in parse_assignments(args.set):
        apply_setting(clone, key, value)
    clone.validate()
    store.write_new(clone, overwrite=args.force)
    note_shared_pgn(clone.pgn_path)
    print(f"{path}: {len(clone.participants)} participants, {clone.schedule().total_games} games, no results")
    return 0


def _relative(target: Path, start: Path) -> str:
    files.expect_file(target)  # a directory, a FIFO, a loop of links: said now, not when the clone plays
    return os.path.relpath(os.path.realpath(target), os.path.realpath(start))
