"""The ``tmanager`` command line's parser, and a command run from it: its errors as one line and exit status 2.

Imported by :func:`tmanager.cli.main` once it has taken SIGTERM, not before: see there.
"""

from __future__ import annotations

import argparse
import ast
import enum
import errno
import importlib
import importlib.util
import os
import sys
import tokenize
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import NoReturn

from tmanager import __version__
from tmanager.cli._output import check_standard_output, silence_standard_output
from tmanager.errors import ConfigError, OutputError, TManagerError, bounded, printable

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
    """A parser whose refusal is one line, as every other error is: ``PROG: OPTION: what is wrong (how to fix
    it)``, what was typed echoed :func:`~tmanager.errors.bounded` (``--round`` given thousands of characters by
    mistake), exit status 2; its subcommands' parsers are of its class. (argparse's own refusal printed the whole
    usage first, four lines and more before the one that said what was wrong.)"""

    #: The program whose ``--help`` tells how to fix a refusal: the command's, for the words after a command that
    #: the top parser refuses (``tmanager run FILE --bogus``).
    help_prog = ""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {refusal(bounded(message), self.help_prog or self.prog)}\n")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """argparse's, but words no parser took are refused pointing at the ``--help`` of the verb they followed
        (``tmanager event missing EVENT --round 3``: ``tmanager event missing --help``, where it was the list of
        verbs of ``tmanager event --help``)."""
        parsed, rest = self.parse_known_args(args, namespace)
        if rest:
            verb = getattr(parsed, "verb", None)
            if self.help_prog and isinstance(verb, str):
                self.help_prog = f"{self.help_prog} {verb}"
            self.error(f"unrecognized arguments: {' '.join(rest)}")
        return parsed


def refusal(message: str, prog: str) -> str:
    """argparse's ``message`` as ``OPTION: what is wrong (how to fix it)``: ``argument -w/--workers: invalid int
    value: 'x'`` names the option by its long name, ``--workers: invalid int value: 'x' (see `tmanager run
    --help`)``; a message that already says how to fix it (``invalid choice: … (choose from …)``) keeps its own."""
    if message.startswith("argument ") and ": " in message:
        names, message = message.removeprefix("argument ").split(": ", 1)
        message = f"{names.split('/')[-1]}: {message}"
    return message if message.endswith(")") else f"{message} (see `{prog} --help`)"


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
        parser.help_prog = command_parser.prog
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


def run(
    arguments: Sequence[str], *, command: str | None, raw: bool, told: Callable[[ConfigError], ConfigError] | None,
) -> int:
    """Run ``command``, the first word of ``arguments`` that is no option (``raw``: one that reads its arguments
    itself, see :data:`~tmanager.cli.RAW_COMMANDS`); its exit status, and an error told in one line with status
    2 (``told`` puts a configuration error in the terms of the command that started this one)."""
    check_standard_output()
    try:
        if raw and command is not None:
            played: int = importlib.import_module(COMMANDS[command]).play(arguments[1:])
            return played
        parser = build_parser(command if command in COMMANDS else None)
        args = parser.parse_args(arguments)
        from tmanager.logs import warnings_to_stderr  # not for --help, which imports next to nothing

        warnings_to_stderr()
        status: int = args.handler(args)
        # Piped output is buffered: a reader that left early (`| head`) shows up here, not at exit.
        sys.stdout.flush()
    except OutputError as exc:
        silence_standard_output()  # what is still buffered has nowhere to go either
        print(f"tmanager: {exc}", file=sys.stderr)
        return 2
    except TManagerError as exc:
        return _refused(exc, told)
    except BrokenPipeError:
        return _reader_gone()
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        # pathlib's is_file(), exists() and is_symlink() let this error through (Python 3.11) wherever a name
        # given is looked at (a tourney file, an engine's program or definition): before, a traceback.
        from tmanager.files import name_too_long  # here: the dispatcher starts every command, and loads no more

        return _refused(name_too_long(os.fsdecode(exc.filename or "")), told)
    return status


def _refused(exc: TManagerError, told: Callable[[ConfigError], ConfigError] | None) -> int:
    """Say ``exc`` in one line (in the terms of the command that started this one, through ``told``): status 2."""
    if told is not None and isinstance(exc, ConfigError):
        exc = told(exc)
    print(f"tmanager: {printable(str(exc))}", file=sys.stderr)
    return 2


def _reader_gone() -> int:
    """The reader of standard output went away (``tmanager … | head``): stop quietly, as Python's
    documentation advises (signal module, "Note on SIGPIPE"): what is still buffered goes to
    /dev/null, so that flushing it at exit raises nothing more."""
    silence_standard_output()
    return 1
