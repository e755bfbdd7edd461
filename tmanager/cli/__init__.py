"""The ``tmanager`` command line: one sub-command per module, errors as one line and exit status 2.

Each command lives in the module that owns its concern and exposes two functions::

    def configure(parser: argparse.ArgumentParser) -> None   # add arguments
    def command(args: argparse.Namespace) -> int             # run it, return the exit status

The module's docstring first line is the command's help; an ``EXAMPLES``
string, if present, is shown at the end of ``--help``. The parser and the
running of a command are :mod:`tmanager.cli._dispatch`'s: this module imports
next to nothing, so that :func:`main` takes SIGTERM as early in the process as
it can (see there).
"""

from __future__ import annotations

import os
import signal
import sys

#: True to type checkers, which read any ``TYPE_CHECKING`` so: ``typing`` took half the time of importing
#: this module, before the handler of SIGTERM.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType

    from tmanager.errors import ConfigError

#: Commands that read their arguments themselves, in another program's syntax (fastchess's ``-engine …``,
#: which argparse would take for options of its own): ``tmanager fastchess ARG…`` calls ``play(ARGS)``.
RAW_COMMANDS = {"fastchess"}

#: The exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it), and its line.
INTERRUPTED = 130
INTERRUPTED_LINE = "tmanager: interrupted"


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _stop_again(unraisable: sys.UnraisableHookArgs) -> None:
    """A stop that landed in a finalizer (a weak reference's callback, a ``__del__``), where Python can only print
    it, with a traceback, and drop it: sent again a moment later, to land in the command's own code."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
        return
    import threading  # rarely needed: not imported before

    again = threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGTERM))
    again.daemon = True
    again.start()


def main(argv: Sequence[str] | None = None, *, told: Callable[[ConfigError], ConfigError] | None = None) -> int:
    """Entry point of the ``tmanager`` console script; ``told`` puts a configuration error in the terms of
    the command that started this one (`tmanager fastchess`'s workers speak of its command line)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in arguments if not a.startswith("-")), None)
    raw = command in RAW_COMMANDS and arguments[0] == command
    # SIGTERM ends a command as Ctrl-C does (one line, status 130), from the first instant it can: before
    # anything but this module is imported (argparse, the errors, the command's module: under load, most of a
    # second), which is why this module imports next to nothing. Commands that stop more gracefully install
    # their own handler. Not a raw command's: fastchess does not catch SIGTERM, so `tmanager fastchess` dies
    # by it, even while its module is still being imported.
    if not raw:
        signal.signal(signal.SIGTERM, _interrupt)
        sys.unraisablehook = _stop_again
    try:
        if not raw:  # one held back by whoever started this process (`run`, for its workers) is taken now
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        from tmanager.cli import _dispatch  # under the handler: an interrupted import is "interrupted" too

        return _dispatch.run(arguments, command=command, raw=raw, told=told)
    except KeyboardInterrupt:
        print(INTERRUPTED_LINE, file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
