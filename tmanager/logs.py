"""Logging set-up shared by the command line and the cluster coordinator: one timestamped line per event."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from tmanager.errors import printable
from tmanager.files import expect_file


def setup_logging(path: Path | None = None, *, quiet: bool = False) -> None:
    """Log to ``path`` (appending) or to stderr, one timestamped line per event."""
    if path is not None:
        expect_file(path, hint="name a log file")  # a FIFO would hang the first line logged
    handler: logging.Handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        _Printable("%(asctime)s.%(msecs)03d %(process)d %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S")
    )
    root = logging.getLogger("tmanager")
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING if quiet else logging.INFO)
    # python-chess's own loggers (PGN reading, tablebases): only its errors.
    handler.addFilter(_errors_only_from_chess)
    engine_log = logging.getLogger("chess")
    engine_log.handlers[:] = [handler]
    engine_log.setLevel(logging.ERROR)
    engine_log.propagate = False


class _Printable(logging.Formatter):
    """One line per message: control characters (an engine's output, a name) written as escapes."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = printable(record.message)
        return super().formatMessage(record)


def _errors_only_from_chess(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.ERROR or not record.name.startswith("chess")
