"""Put another engine in a participant's place while the tourney runs (XBoard's Upgrade and Replace).

--upgrade: the new engine plays all future games; results so far stay.
--replace: the old participant's finished games are reset to not played and
will be replayed by the new engine; their PGN games stay in the file, tagged
[Superseded], and cross-tables of the tourney no longer count them. Replace is
refused while the old participant is playing. The number and order of
participants never change, and running workers pick the change up before
their next game.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.formats import pgn
from tmanager.tourney import store
from tmanager.tourney.model import Participant

EXAMPLES = """\
  tmanager substitute gauntlet.toml SF-dev stockfish --name SF-dev2 --upgrade
  tmanager substitute rr.toml Crafty fairymax --replace
  tmanager substitute rr.toml Old MyEngine --cmd ./myengine --protocol uci --replace
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument("old", help="the participant's name")
    parser.add_argument("new", help="an engine definition, or the new participant's name with --cmd")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--upgrade", action="store_true", help="the new engine plays the future games")
    mode.add_argument("--replace", action="store_true", help="also replay the old participant's finished games")
    parser.add_argument("--name", help="the new participant's name (default: NEW)")
    parser.add_argument("--cmd", help="the new engine's command line, instead of a definition")
    parser.add_argument("--protocol", choices=["uci", "xboard"], help="with --cmd")


def command(args: argparse.Namespace) -> int:
    if bool(args.cmd) != bool(args.protocol):
        raise ConfigError("--cmd and --protocol go together", field="--cmd", hint="give both, or neither")
    name = args.name or args.new
    new = (
        Participant(name=name, cmd=args.cmd, protocol=args.protocol)
        if args.cmd
        else Participant(name=name, engine=args.new)
    )
    with store.transaction(args.file, settings=True) as tourney:
        reset = tourney.substitute(args.old, new, replace=args.replace)
        tourney.check_runnable(tourney.participant_index(name))
        tourney.validate()  # before the PGN is touched: a name that cannot be a tag value is refused first
        marked = pgn.mark_superseded(tourney.pgn_path, set(reset), reason=f"{args.old} replaced by {name}")
    if args.replace:
        print(f"{args.old} replaced by {name}: {len(reset)} game(s) to replay, {marked} PGN game(s) superseded")
    else:
        print(f"{args.old} upgraded to {name} for all future games")
    return 0
