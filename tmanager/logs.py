"""Logging set-up shared by the command line and the cluster coordinator: one timestamped line per event."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from tmanager.errors import ConfigError, printable
from tmanager.files import check_writable

#: A terminal's carriage return and erase to the end of the line: a line written over `run`'s progress line,
#: which it rewrites in place.
ERASE_LINE = "\r\x1b[K"


def line_start() -> str:
    """What a line on stderr begins with: :data:`ERASE_LINE` on a terminal (the progress line may stand
    there, drawn again below), nothing elsewhere."""
    return ERASE_LINE if sys.stderr.isatty() else ""


#: The levels a log file may keep from (``tmanager work --log-level``), least severe first.
LOG_LEVELS = ("info", "warning", "error", "critical")


#: The ``extra`` of a log record whose news the command tells on stderr itself (its last line, as it ends):
#: a log to a file does not echo it there too.
TOLD = {"told": True}


def setup_logging(
    path: Path | None = None, *, quiet: bool = False, libraries: Sequence[str] = (), file_level: int = logging.NOTSET,
) -> None:
    """Log to ``path`` (appending) or to stderr, one timestamped line per event. With a ``path``, warnings and
    errors are also told on stderr, a line each (``tmanager: warning: …``): `run`'s workers log to a file,
    and `run` shows what they say there on its terminal, each kind once; ``file_level`` is the least severe
    line the file keeps (fastchess's ``-log level=``), whatever is told on stderr. The loggers of ``libraries``
    (``distributed``) write their warnings and errors to the same place, a line each, and never to the terminal
    on their own: what matters of them reaches the user as tmanager's own message."""
    handler: logging.Handler = logging.StreamHandler(sys.stderr)
    echo: logging.Handler | None = None
    if path is not None:
        check_writable(path, what="log file")  # a FIFO would hang the first line logged
        try:
            handler = logging.FileHandler(path)
        except OSError as exc:  # no permission, a read-only file system
            raise ConfigError(f"cannot append to it: {exc.strerror or exc}", file=path,
                              hint="name a log file you may write") from None
        handler.setLevel(file_level)
        echo = logging.StreamHandler(sys.stderr)
        echo.setLevel(logging.WARNING)
        echo.setFormatter(_warning_line())
        echo.addFilter(lambda record: not getattr(record, "told", False))
    handler.setFormatter(
        _Printable("%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    root = logging.getLogger("tmanager")
    root.handlers[:] = [handler] if echo is None else [handler, echo]
    root.setLevel(logging.WARNING if quiet else logging.INFO)
    # python-chess's own loggers (PGN reading, tablebases): only its errors.
    handler.addFilter(_errors_only_from_chess)
    engine_log = logging.getLogger("chess")
    engine_log.handlers[:] = [handler]
    engine_log.setLevel(logging.ERROR)
    engine_log.propagate = False
    for name in libraries:
        library = logging.getLogger(name)
        library.handlers[:] = [_OneLine(handler)]
        library.setLevel(logging.WARNING)
        library.propagate = False
        # Its own loggers below it (distributed.client) may hold handlers of their own, to the terminal.
        for below in [logger for key, logger in logging.root.manager.loggerDict.items() if key.startswith(f"{name}.")]:
            if isinstance(below, logging.Logger):
                below.handlers[:] = []
                below.propagate = True


def warnings_to_stderr() -> None:
    """Tell tmanager's warnings on stderr as a command's own warnings are told (``tmanager: warning: FILE: …``),
    for a command that keeps no log (`status`, `edit`…): with no handler, Python's last resort wrote the bare
    message. A command that keeps one replaces this with :func:`setup_logging`."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_warning_line())
    logging.getLogger("tmanager").handlers[:] = [handler]


def _warning_line() -> logging.Formatter:
    return _Printable(line_start() + "tmanager: warning: %(message)s")


class _OneLine(logging.Handler):
    """Hands a library's records to ``target`` with their traceback folded into their line (the exception's
    type and message): the log stays one line an event."""

    def __init__(self, target: logging.Handler) -> None:
        super().__init__()
        self.target = target

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            error, message = record.exc_info[1], record.getMessage()
            text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            record.msg, record.args = f"{message} ({text})" if message else text, None
            record.exc_info, record.exc_text = None, None
        self.target.handle(record)


class _Printable(logging.Formatter):
    """One line per message: control characters (an engine's output, a name) written as escapes."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = printable(record.message)
        return super().formatMessage(record)


def _errors_only_from_chess(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.ERROR or not record.name.startswith("chess")
