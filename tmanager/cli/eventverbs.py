"""What every ``tmanager event`` verb is made of, for the modules that hold verbs (:mod:`tmanager.cli.event`,
:mod:`tmanager.cli.eventplayers`, :mod:`tmanager.cli.eventprizes`, :mod:`tmanager.cli.eventfiles`) and the shell
that runs them (:mod:`tmanager.cli.eventshell`): the :class:`Verb` record of the verb table and its parser, which
takes dashed results (``-+``, ``--``) as words, printing the messages of a change, the event and division a verb
names, ``--rounds`` lists, ``--set KEY=VALUE`` settings applied to a new event, and an export's output kept off
the event's own files."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from tmanager.cli._dispatch import Parser
from tmanager.cli._settings import parse_assignments
from tmanager.errors import ConfigError, StateError, TManagerError, ascii_digits
from tmanager.events import eventfile, journal
from tmanager.events.entries import Entry
from tmanager.events.model import Division, Event
from tmanager.events.rules import rules_for
from tmanager.files import linked_file, lock_path, same_file

# Results starting with "-" would be read as options (or the "--" separator):
# the verb parsers protect them with this mark, stripped again once parsed.
_MARK = "\x00"
_DASHED = frozenset({"-+", "--", "-:+", "-:-"})

Handler = Callable[[argparse.Namespace], int]


class Verb(NamedTuple):
    """A verb: its options, its handler, a line of help and example command lines; whether it takes
    ``--division`` (``new`` makes the divisions) and whether the shell offers it (not those that make a file
    or run the shell)."""

    configure: Callable[[argparse.ArgumentParser], None]
    handler: Handler
    help: str
    examples: tuple[str, ...]
    divisional: bool = True
    in_shell: bool = True


def verb_parser(parser: argparse.ArgumentParser, verb: Verb) -> None:
    """Give ``parser`` the options of ``verb`` (and ``--division``, if it takes one)."""
    verb.configure(parser)
    if verb.divisional:
        parser.add_argument("-d", "--division", help="division name (needed when there are several)")
    parser.set_defaults(verb_handler=verb.handler)


class VerbParser(Parser):
    """A verb's parser: results such as ``-+`` and ``--`` are taken as words, not options, and options may come
    anywhere among the words (``prize-fund open.toml -d B overall 100 50``): argparse alone took the words after
    an option for a list already ended before it (``unrecognized arguments: overall 100 50``)."""

    #: Inside :meth:`parse_known_intermixed_args`, whose two passes call :meth:`parse_known_args` again.
    _passes = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._passes:
            return super().parse_known_args(args, namespace)
        protected = [_MARK + a if a in _DASHED else a for a in (sys.argv[1:] if args is None else args)]
        self._passes = True
        try:
            parsed, rest = self.parse_known_intermixed_args(protected, namespace)
        finally:
            self._passes = False
        for key, value in vars(parsed).items():  # the words as typed, in whatever argument they landed
            if isinstance(value, str):
                setattr(parsed, key, value.replace(_MARK, ""))
            elif isinstance(value, list):
                setattr(parsed, key, [v.replace(_MARK, "") if isinstance(v, str) else v for v in value])
        return parsed, rest


def naming_the_file(exc: TManagerError, args: argparse.Namespace) -> TManagerError:
    """A verb's refusal as the command line says it, ``FILE: FIELD: what is wrong``. The service's refusals name
    no file, for the shell and the web pages share them (one event is open there, and its path is kept off the
    pages): said of the event file here. One that names its file already (a ConfigError's ``file``, or a message
    starting with one of the verb's files: the event's journal or lock, a CSV, a TRF, a FIDE list) is left alone."""
    if isinstance(exc, ConfigError):
        return exc if exc.file else exc.located(file=args.event)
    text = str(exc)
    files = [str(value) for value in vars(args).values() if isinstance(value, Path)]
    if any(text.startswith(f"{name}:") for name in files):
        return exc
    return StateError(f"{args.event}: {text}", topic=exc.topic)


def say(messages: Sequence[str]) -> None:
    """Messages to standard output, warnings to standard error."""
    for m in messages:
        print(m, file=sys.stderr if m.startswith("warning:") else sys.stdout)


def read_entry(args: argparse.Namespace) -> Entry:
    """The result line of ``result`` and ``correct`` (``args.entry``) read by the division's rules."""
    event, division = load_division(args)
    return rules_for(event, division).parse_entry(list(args.entry))


def load_division(args: argparse.Namespace) -> tuple[Event, Division]:
    """The event file the verb names, and its division (``--division``, or the only one)."""
    event = journal.load(args.event)
    return event, event.division(args.division)


def with_settings(event: Event, settings: Sequence[str], path: Path) -> Event:
    """The event with ``KEY=VALUE`` settings: an ``[event]`` field (categories, schedule…) there, any other key
    on every division; checked as the event file would be."""
    if not settings:
        return event
    data = eventfile.to_toml(event)
    event_keys = {f.name for f in dataclasses.fields(Event)}
    for key, value in parse_assignments(list(settings)):
        if key in event_keys:
            data["event"][key] = value
            continue
        for division in data["division"]:
            division[key] = value
    return eventfile.from_toml(data, path)


def check_export(args: argparse.Namespace) -> None:
    """Refuse an export's ``args.output`` that is one of the event's own files: the event file (a TRF written over
    it lost the event's last change, which no journal entry holds), its lock file, its arbiter password, or a file
    of its journal (which undo rebuilds the versions from)."""
    from tmanager.web.auth import password_path

    event, output = args.event, args.output
    own = {
        linked_file(event): "the event file itself",
        lock_path(event): "the event's lock file",
        password_path(event): "the event's arbiter password file",
    }
    what = next((what for path, what in own.items() if same_file(output, path)), None)
    if what is None and same_file(Path(os.path.realpath(output)).parent, journal.journal_dir(event)):
        what = "in the event's journal directory"
    if what is not None:
        raise ConfigError(f"is {what}", file=output, hint="give the export a name of its own")


def whole_numbers(text: str, option: str) -> list[int]:
    """A comma-separated list of whole numbers as typed (``3, 4``), in its order: ``int`` alone also takes '٣'
    and '1_000', and a number of thousands of digits is its traceback (:func:`ascii_digits`)."""
    words = [x for x in text.replace(" ", "").split(",") if x]
    if not all(ascii_digits(x) for x in words):
        raise StateError(
            f"{text[:40]!r} is not whole numbers", field=option, hint="write them separated by commas, e.g. 3,4"
        )
    return [int(x) for x in words]


def parse_rounds(text: str | None) -> list[int]:
    """A ``--rounds`` list (``3,4``): the rounds in order, none when not given."""
    if not text:
        return []
    rounds = sorted(set(whole_numbers(text, "--rounds")))
    if any(r < 1 for r in rounds):
        raise StateError("rounds start at 1; there is no round 0", field="--rounds", hint="name rounds from 1")
    return rounds


def no_options(p: argparse.ArgumentParser) -> None:
    """The options of a verb that takes none beyond the event file (and ``--division``)."""

