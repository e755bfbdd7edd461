"""Standard output that says in one line when it cannot be written.

Redirected to a full disk (``tmanager status t.toml > report.txt``) or to a device that refuses writes
(``/dev/full``), a command's ``print`` raised Python's ``OSError`` wherever its buffer filled: a traceback, from
any command. :func:`check_standard_output` puts a file object under ``sys.stdout`` whose failed writes raise
:class:`~tmanager.errors.OutputError` instead, which the dispatcher tells as bad input is. A reader gone
(``| head``) is still Python's ``BrokenPipeError``, which the dispatcher ends quietly.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING

from tmanager.errors import OutputError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class _CheckedOutput(io.FileIO):
    """File descriptor 1, whose failed write is an :class:`OutputError`."""

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"standard output: cannot write: {exc.strerror or exc} (free some space, or send the "
                              "output elsewhere)") from None


def check_standard_output() -> None:
    """Put :class:`_CheckedOutput` under ``sys.stdout``, kept as it was (encoding, buffering); not where
    ``sys.stdout`` was replaced already (a test capturing it)."""
    stdout = sys.__stdout__
    if stdout is None or sys.stdout is not stdout:
        return
    try:
        descriptor = stdout.fileno()
    except (OSError, ValueError):  # closed, or no descriptor
        return
    stdout.flush()
    raw = _CheckedOutput(descriptor, "w", closefd=False)
    unbuffered = isinstance(stdout.buffer, io.RawIOBase)  # python -u, PYTHONUNBUFFERED
    sys.stdout = io.TextIOWrapper(
        raw if unbuffered else io.BufferedWriter(raw), encoding=stdout.encoding, errors=stdout.errors,
        line_buffering=stdout.line_buffering, write_through=stdout.write_through,
    )


def silence_standard_output() -> None:
    """Send what standard output still buffers to /dev/null, so that flushing it at exit raises nothing more (a
    reader gone, or a disk full: what is buffered can no longer go anywhere)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
