"""Put another engine in a participant's place while the tourney runs (XBoard's Upgrade and Replace).

--upgrade: the new engine plays all future games under the participant's
name; results so far stay. The results, status, the dashboard, the PGN and
its cross-tables all show one player whose engine changed.
--replace: the old participant's finished games are reset to not played and
will be replayed by the new engine under its own name (NEW, or --name, never the name of an engine
replaced earlier: OLD's own, or a new one); their
PGN games stay in the file, tagged [Superseded], and cross-tables of the
tourney no longer count them. Replace is refused while the old participant is
playing. Either way the slot keeps its conditions (tc, st, nodes, depth,
ponder, restart, time_margin); the engine's options come from its definition
and --option. The number and order of participants never change, and running
workers pick the change up before their next game. Once a game of an SPRT test
is recorded, --upgrade would mix two engines' games in one verdict: refused
unless --force is given, and then recorded in the file as edit records it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.cli._dispatch import words
from tmanager.cli._settings import parse_assignments
from tmanager.errors import ConfigError
from tmanager.formats import pgn
from tmanager.tourney import amendments, store
from tmanager.tourney.editing import set_participant, substitute
from tmanager.tourney.engines import SPOKEN, Protocol
from tmanager.tourney.model import Participant
from tmanager.tourney.resolution import check_runnable

EXAMPLES = """\
  tmanager substitute gauntlet.toml SF-dev stockfish-dev2 --upgrade --option Hash=64
  tmanager substitute rr.toml Crafty fairymax --replace
  tmanager substitute rr.toml Old MyEngine --cmd ./myengine --protocol uci --replace
  tmanager substitute sprt.toml dev dev-fixed --upgrade --force   # an SPRT test under way: recorded
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument("old", help="the participant's name")
    parser.add_argument("new", help="an engine definition, or the new participant's name with --cmd")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--upgrade", action="store_true", help="the new engine plays the future games, under OLD's name")
    mode.add_argument("--replace", action="store_true", help="also replay the old participant's finished games")
    parser.add_argument("--name", help="with --replace: the new participant's name (default: NEW)")
    parser.add_argument("--cmd", help="the new engine's command line, instead of a definition")
    parser.add_argument("--protocol", choices=words(SPOKEN), help="with --cmd")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="an engine option of the new engine (repeat)"
    )
    parser.add_argument(
        "--force", action="store_true",
        help="upgrade an engine of an SPRT test with games recorded all the same, recorded in the file",
    )


def command(args: argparse.Namespace) -> int:
    if bool(args.cmd) != bool(args.protocol):
        raise ConfigError("--cmd and --protocol go together", field="--cmd", hint="give both, or neither")
    if args.upgrade and args.name not in (None, args.old):
        raise ConfigError(
            f"an upgrade keeps the name {args.old!r}, so that results and PGN show one player",
            field="--name",
            hint="leave out --name, or use --replace to replay the games under a new name",
        )
    name = args.old if args.upgrade else args.name or args.new
    new = (
        Participant(name=name, cmd=args.cmd, protocol=Protocol(args.protocol))
        if args.cmd
        else Participant(name=name, engine=args.new)
    )
    options = parse_assignments(args.option, flag="--option")
    with store.transaction(args.file, settings=True) as tourney:
        before = amendments.conditions(tourney)
        reset = substitute(tourney, args.old, new, replace=args.replace)
        for key, value in options:
            set_participant(tourney, name, f"options.{key}", value)
        check_runnable(tourney, tourney.participant_index(name))
        tourney.validate(engines=True)  # before the PGN is touched: a name that cannot be a tag value is refused first
        # A replace sets every game of the test back (each has both engines): nothing is left to mix
        made = amendments.guard(tourney, before, force=args.force)
        marked = pgn.mark_superseded(tourney.pgn_path, set(reset), reason=f"{args.old} replaced by {name}")
    engine = args.cmd or args.new
    if args.replace:
        print(f"{args.old} replaced by {name} ({engine}): {len(reset)} game(s) to replay, "
              f"{marked} PGN game(s) superseded")
    else:
        print(f"{args.old} now plays with {engine} in all future games")
    for amendment in made:
        print(f"  recorded as an amendment of the SPRT test: {amendment.describe()}")
    return 0
