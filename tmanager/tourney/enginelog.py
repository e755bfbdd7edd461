"""Engine logs: every line to and from one game's engines in a file, as fastchess's ``-log engine=true``::

    2026-11-23 12:00:00.123456 SF-A <--- go wtime 9800 btime 9750 winc 100 binc 100
    2026-11-23 12:00:00.201337 SF-A ---> bestmove e2e4 ponder e7e5

A game's engines show their lines to the log while they play for it (from the
first line of an engine started for the game, from its acquisition for one kept
from an earlier game): each gets an observer (:meth:`EngineLog.observer`) that
writes its lines under its participant's name.

The log is a view, not the record: a write that fails (a full disk, a file-size
limit) is warned of once, the log is given up and the game goes on, recorded as
ever (it ended the worker in a traceback).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import open_file
from tmanager.tourney.enginelines import LineObserver

_HINT = "move it away: each game with log_engines writes its engines' lines there"
LOG = logging.getLogger("tmanager")


class EngineLog:
    """One game's engine log, a file appended to (see the module docstring)."""

    def __init__(self, path: str) -> None:
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            # Checked as a regular file, opened without blocking: a FIFO there held the worker for ever (deaf to
            # SIGTERM), and a device (a link to /dev/full) ended the game in a traceback.
            fd = open_file(Path(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, hint=_HINT)
            self.fd: int | None = fd  #: ``None`` once a write failed
        except OSError as exc:
            raise ConfigError(f"cannot write the engine log: {exc.strerror}", file=path) from None
        self.path = path

    @classmethod
    def open(cls, path: str, *, game: str) -> EngineLog:
        """The log at ``path``, headed by a line naming the ``game`` (``game 7: A - B``)."""
        log = cls(path)
        log.write(f"{dt.datetime.now():%Y-%m-%d %H:%M:%S.%f} game {game}\n")
        return log

    def observer(self, name: str) -> LineObserver:
        """What writes the lines of the engine playing for participant ``name``."""

        def write(arrow: str, line: str) -> None:
            self.write(f"{dt.datetime.now():%Y-%m-%d %H:%M:%S.%f} {name} {arrow} {line}\n")

        return write

    def write(self, text: str) -> None:
        """Append ``text`` unbuffered (nothing is left to fail at the close); a failure gives the log up."""
        data = text.encode()
        try:
            while data and self.fd is not None:
                data = data[os.write(self.fd, data) :]
        except OSError as exc:
            LOG.warning("%s: engine log given up, the game goes on: %s", self.path, exc.strerror)
            self.close()

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)
