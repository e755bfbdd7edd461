"""Parsing ``--set KEY=VALUE`` arguments (new, clone, edit) and the per-participant ``--option`` and
``--each`` (new, edit) into plain assignments, ordered so that a participant's own setting wins."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmanager.errors import ConfigError
from tmanager.files import file_size
from tmanager.tomlmap import parse_value
from tmanager.tourney.editing import PARTICIPANTS


def parse_assignments(items: list[str], *, flag: str = "--set") -> list[tuple[str, Any]]:
    """``["cycles=3", "tc=10+0.1"]`` → ``[("cycles", 3), ("tc", "10+0.1")]``."""
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{flag} {item!r} is not KEY=VALUE", field=flag, hint="e.g. --set cycles=3")
        pairs.append((key.strip(), parse_value(value.strip())))
    return pairs


def add_participant_arguments(parser: argparse.ArgumentParser) -> None:
    """``--option NAME:KEY=VALUE`` and ``--each KEY=VALUE``, as fastchess's ``-engine … option.KEY=VALUE``
    and ``-each``."""
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME:KEY=VALUE",
        help="engine option KEY of participant NAME (repeat), e.g. SF-B:Hash=64",
    )
    parser.add_argument(
        "--each", action="append", default=[], metavar="KEY=VALUE",
        help="for every participant (repeat): option.KEY (an engine option), tc, st, nodes, depth, ponder, "
        "restart or time_margin; a participant's own --option or --set participants.NAME.KEY wins, and says so",
    )


@dataclass(frozen=True, slots=True)
class Assignments:
    """What ``--set``, ``--each`` and ``--option`` ask, as ``(key, value)`` pairs in the order to apply them
    (a participant's keys as ``participants.NAME.FIELD``), and a note for each per-engine setting that wins
    over an ``--each``."""

    pairs: list[tuple[str, Any]]
    notes: list[str]

    def say_notes(self) -> None:
        for note in self.notes:
            print(f"tmanager: note: {note}", file=sys.stderr)


def ordered_assignments(args: argparse.Namespace, names: Sequence[str]) -> Assignments:
    """The settings of ``--set``, ``--each`` and ``--option`` in the order that makes a participant's own
    setting win over ``--each``, whatever their order on the command line (fastchess applies ``-each`` to
    every engine before its own ``-engine`` keys): the tourney's ``--set`` first, then ``--each`` for every
    participant, then ``--option`` and ``--set participants.NAME.FIELD``."""
    sets = parse_assignments(args.set)
    tourney = [(key, value) for key, value in sets if not key.startswith(PARTICIPANTS)]
    each: list[tuple[str, Any]] = []
    set_by_each: dict[str, str] = {}  # participants.NAME.FIELD -> the --each that set it, as written
    for item, (key, value) in zip(args.each, parse_assignments(args.each, flag="--each"), strict=True):
        for name in names:
            each.append((_key(name, key), value))
            set_by_each.update(dict.fromkeys(_spellings(name, key), item.strip()))
    own = [(_option(item, names), f"--option {item}") for item in args.option]
    own += [(pair, item.strip()) for item, pair in zip(args.set, sets, strict=True) if pair[0].startswith(PARTICIPANTS)]
    notes = [f"{said} wins over --each {set_by_each[key]}" for (key, _), said in own if key in set_by_each]
    return Assignments([*tourney, *each, *(pair for pair, _ in own)], notes)


def _key(name: str, key: str) -> str:
    return f"{PARTICIPANTS}{name}.{key}"


def _spellings(name: str, key: str) -> tuple[str, ...]:
    """The ways ``--set`` may name participant ``name``'s ``key``: an engine option as ``option.X`` or ``options.X``."""
    field, dot, option = key.partition(".")
    if dot and field in ("option", "options"):
        return _key(name, f"option.{option}"), _key(name, f"options.{option}")
    return (_key(name, key),)


def _option(item: str, names: Sequence[str]) -> tuple[str, Any]:
    # Names may hold ':' and '=': the longest participant name followed by ':' is the one.
    name = next((n for n in sorted(names, key=len, reverse=True) if item.startswith(n + ":")), None)
    if name is None:
        raise ConfigError(
            f"--option {item!r} names no participant", field="--option",
            hint=f"NAME:KEY=VALUE, NAME one of {', '.join(names)}",
        )
    key, sep, value = item[len(name) + 1 :].partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--option {item!r} is not NAME:KEY=VALUE", field="--option", hint="e.g. SF-B:Hash=64")
    return _key(name, f"options.{key.strip()}"), parse_value(value.strip())


def note_shared_pgn(pgn: Path) -> None:
    """Say that a new tourney's games will follow those already in its PGN file (as XBoard and fastchess append
    to theirs): a PGN left by an earlier tourney of the same name would otherwise mix two tourneys' games, with
    the same game numbers, into the file that ``crosstable`` reads."""
    size = file_size(pgn)  # 0 when not there yet: the first game creates it
    if size:
        print(f"tmanager: note: {pgn} already holds {size:,} bytes; this tourney's games are appended to it "
              "(remove it first, or name another PGN file, to keep them apart)", file=sys.stderr)
