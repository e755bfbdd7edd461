"""The ``tmanager`` command line: one sub-command per module, errors as one line and exit status 2.

Each command lives in the module that owns its concern and exposes two functions::

    def configure(parser: argparse.ArgumentParser) -> None   # add arguments
    def command(args: argparse.Namespace) -> int             # run it, return the exit status

The module's docstring first line is the command's help; an ``EXAMPLES``
string, if present, is shown at the end of ``--help``.
"""

from __future__ import annotations

import argparse
import ast
import enum
import importlib
import importlib.util
import os
import signal
import sys
import tokenize
from collections.abc import Callable, Iterable, Sequence
from types import FrameType, ModuleType
from typing import NoReturn

from tmanager import __version__
from tmanager.errors import ConfigError, TManagerError, bounded, printable

#: command name -> module implementing it.
COMMANDS: dict[str, str] = {
    "new": "tmanager.cli.new",
    "run": "tmanager.cli.run",
    "work": "tmanager.cli.work",
    "status": "tmanager.cli.status",
    "pair": "tmanager.cli.pair",
    "reset-stale": "tmanager.cli.reset_stale",
    "edit": "tmanager.cli.edit",
    "clone": "tmanager.cli.clone",
    "substitute": "tmanager.cli.substitute",
    "check": "tmanager.cli.check",
    "import-xboard": "tmanager.cli.import_xboard",
    "crosstable": "tmanager.cli.crosstable",
    "event": "tmanager.cli.event",
    "serve": "tmanager.cli.serve",
    "fastchess": "tmanager.cli.fastchess",
}
#: Commands that read their arguments themselves, in another program's syntax (fastchess's ``-engine …``,
#: which argparse would take for options of its own): ``tmanager fastchess ARG…`` calls ``play(ARGS)``.
RAW_COMMANDS = {"fastchess"}


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Examples kept as written, and each option's default told, once: not where its help already tells it
    (``(default: 1)``), nor a default that is no value (``None``, an empty string or list), which argparse wrote
    as ``(default: None)``, ``(default: )`` and ``(default: [])``, nor a flag's ``(default: False)``."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_text = action.help or ""
        no_value = action.default is None or action.default == "" or action.default == []
        if no_value or action.nargs == 0 or "default" in help_text:
            return help_text
        return super()._get_help_string(action)


def words(members: Iterable[enum.StrEnum]) -> list[str]:
    """``choices`` of an option that takes an enum's member: its values, which argparse shows as they are
    typed (given the members, its usage and its ``invalid choice`` refusal showed ``<EntryMode.SCORES: 'scores'>``).
    """
    return [member.value for member in members]


class Parser(argparse.ArgumentParser):
    """A parser whose refusal echoes what was typed :func:`~tmanager.errors.bounded`, as every other error
    does (``--round`` given thousands of characters by mistake); its subcommands' parsers are of its class."""

    def error(self, message: str) -> NoReturn:
        super().error(bounded(message))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that command is loaded (the others are bare names), and
    without, every command is listed with its summary and none is loaded: running or listing
    commands never imports the modules of all of them."""
    parser = Parser(
        prog="tmanager",
        description="Tournament manager for chess engines and human events.",
        formatter_class=HelpFormatter,
        epilog="Run `tmanager COMMAND --help` for a command's options and examples.",
    )
    parser.add_argument("--version", action="version", version=f"tmanager {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
        if only is None:
            sub.add_parser(name, help=_summary(module_name) or name)
            continue
        if name != only:
            sub.add_parser(name)
            continue
        module = importlib.import_module(module_name)
        doc = (module.__doc__ or "").strip()
        summary = doc.splitlines()[0] if doc else name
        command_parser = sub.add_parser(
            name,
            help=summary,
            description=doc,
            epilog=_examples(module),
            formatter_class=HelpFormatter,
        )
        module.configure(command_parser)
        command_parser.set_defaults(handler=module.command)
    return parser


def _summary(module_name: str) -> str:
    """The first line of a command module's docstring, read from its source without importing it
    (importing every command, with numpy, networkx and the web stack, only to list them took most
    of a second)."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        return ""
    with tokenize.open(spec.origin) as source:
        for token in tokenize.generate_tokens(source.readline):
            if token.type == tokenize.STRING:
                lines = str(ast.literal_eval(token.string)).strip().splitlines()
                return lines[0] if lines else ""
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
                break
    return ""


def _examples(module: ModuleType) -> str | None:
    examples = getattr(module, "EXAMPLES", None)
    return f"examples:\n{examples.rstrip()}" if examples else None


#: The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
INTERRUPTED = 130


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None, *, told: Callable[[ConfigError], ConfigError] | None = None) -> int:
    """Entry point of the ``tmanager`` console script; ``told`` puts a configuration error in the terms of
    the command that started this one (`tmanager fastchess`'s workers speak of its command line)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in arguments if not a.startswith("-")), None)
    raw = command if command in RAW_COMMANDS and arguments[0] == command else None
    # SIGTERM ends a command as Ctrl-C does (one line, status 130), from the first instant on; commands that
    # stop more gracefully install their own handler. Not a raw command's: fastchess does not catch SIGTERM,
    # so `tmanager fastchess` dies by it, even while its module is still being imported.
    if raw is None:
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        if raw is not None:
            played: int = importlib.import_module(COMMANDS[raw]).play(arguments[1:])
            return played
        parser = build_parser(command if command in COMMANDS else None)
        args = parser.parse_args(arguments)
        status: int = args.handler(args)
        # Piped output is buffered: a reader that left early (`| head`) shows up here, not at exit.
        sys.stdout.flush()
    except TManagerError as exc:
        if told is not None and isinstance(exc, ConfigError):
            exc = told(exc)
        print(f"tmanager: {printable(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tmanager: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        return _reader_gone()
    return status


def _reader_gone() -> int:
    """The reader of standard output went away (``tmanager … | head``): stop quietly, as Python's
    documentation advises (signal module, "Note on SIGPIPE"): what is still buffered goes to
    /dev/null, so that flushing it at exit raises nothing more."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


if __name__ == "__main__":
    sys.exit(main())
