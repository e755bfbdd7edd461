"""Parsing ``--set KEY=VALUE`` arguments (new, clone, edit) and the per-participant ``--option`` and
``--each`` (new, edit) into plain assignments."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from tmanager.errors import ConfigError
from tmanager.tomlmap import parse_value

#: (participant name, participant key such as "tc" or "options.Hash", value)
ParticipantAssignment = tuple[str, str, Any]


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
        "restart or time_margin; an --option of the same KEY wins",
    )


def participant_assignments(args: argparse.Namespace, names: Sequence[str]) -> list[ParticipantAssignment]:
    """The ``--each`` assignments for every participant, then the ``--option`` ones (which win)."""
    each = [(name, key, value) for key, value in parse_assignments(args.each, flag="--each") for name in names]
    return each + [_option(item, names) for item in args.option]


def _option(item: str, names: Sequence[str]) -> ParticipantAssignment:
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
    return name, f"options.{key.strip()}", parse_value(value.strip())
