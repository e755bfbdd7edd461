"""Check that an engine speaks its protocol as a tourney needs it, and say what is wrong.

ENGINE is an engine definition (see `engines/`), a program's path (a UCI
engine: `./dev`, `/usr/games/stockfish`), fastchess's keys
(`cmd=./dev,proto=xboard`), or a name for the engine given with --cmd and
--protocol. The engine is started as a game starts it and
taken through the UCI or XBoard steps a tourney relies on: the handshake, its
options (listed with valid defaults, each one settable, and those of the
definition and --option accepted), isready/ping, short searches from
positions that need castling and en passant right, stop during an infinite
search (XBoard: analyze, then exit) and quit. Each step prints "ok" or "FAIL"
with what was seen. Exit status 0 when the engine is compliant, 1 when it is
not, 2 when it cannot be found.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
from pathlib import Path

from tmanager.cli._dispatch import words
from tmanager.cli._engines import participant as engine_participant
from tmanager.cli._settings import parse_assignments
from tmanager.errors import ConfigError
from tmanager.tomlmap import FLOAT_MAGNITUDE
from tmanager.tourney.compliance import Step, check
from tmanager.tourney.engines import SPOKEN, Protocol
from tmanager.tourney.model import Participant, Settings
from tmanager.tourney.resolution import resolve_engine

EXAMPLES = """\
  tmanager check stockfish
  tmanager check fairymax --timeout 5
  tmanager check ./build/dev                          # a UCI engine's program
  tmanager check cmd=/usr/games/fairymax,proto=xboard
  tmanager check MyEngine --cmd ./myengine --protocol uci --option Hash=64
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "engine", help="an engine definition, a UCI engine's path, cmd=PATH,proto=uci|xboard, or the name with --cmd"
    )
    parser.add_argument("--cmd", help="the engine's command line, instead of a definition")
    parser.add_argument("--protocol", choices=words(SPOKEN), help="with --cmd")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="an engine option to set (repeat)"
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds for the handshake and each answer")


def command(args: argparse.Namespace) -> int:
    if bool(args.cmd) != bool(args.protocol):
        raise ConfigError("--cmd and --protocol go together", field="--cmd", hint="give both, or neither")
    if not 0 < args.timeout < FLOAT_MAGNITUDE:  # nan too: it failed every step, blamed on the engine
        raise ConfigError(f"must be a positive number of seconds, not {args.timeout:g}", field="--timeout",
                          hint="such as 10")
    try:
        # ENGINE as `new -e` takes it: a definition, a program's path (fastchess's --compliance takes that), or
        # fastchess's cmd=…,proto=… keys
        participant = (
            Participant(name=args.engine, cmd=args.cmd, protocol=Protocol(args.protocol)) if args.cmd
            else engine_participant(args.engine)
        )
        spec = resolve_engine(participant, Settings(handshake_timeout=args.timeout), directory=Path.cwd())
    except ConfigError as exc:
        raise exc.relocated(file=exc.file, field="ENGINE") from None
    spec = dataclasses.replace(spec, options={**spec.options, **dict(parse_assignments(args.option, flag="--option"))})
    spec.check_runnable()
    print(f"{spec.name}: {spec.protocol.upper()}, {' '.join(spec.command)}")
    logging.getLogger("chess").propagate = False  # what python-chess could not read is in the steps' notes
    steps = asyncio.run(check(spec, report=_print))
    failed = sum(step.ran and not step.passed for step in steps)
    skipped = sum(not step.ran for step in steps)
    if not failed:
        print(f"{spec.name}: compliant")
        return 0
    print(f"{spec.name}: not compliant, {failed} step{'s' * (failed > 1)} failed"
          + (f", {skipped} not run" if skipped else ""))
    return 1


def _print(step: Step) -> None:
    if not step.ran:
        print(f"  --    {step.name}: not run", flush=True)
        return
    said = "; ".join([*step.problems, *step.notes])
    print(f"  {'ok  ' if step.passed else 'FAIL'}  {step.name}" + (f": {said}" if said else ""), flush=True)
