"""Engine logs: every line to and from one game's engines in a file, as fastchess's ``-log engine=true``."""

from __future__ import annotations

import contextvars
import datetime as dt
import logging
import os
import threading

from tmanager.errors import ConfigError


class EngineLog(logging.Handler):
    """Writes every line to and from one game's engines to a file, as fastchess's ``-log engine=true``::

        2026-11-23 12:00:00.123456 SF-A <--- go wtime 9800 btime 9750 winc 100 binc 100
        2026-11-23 12:00:00.201337 SF-A ---> bestmove e2e4 ponder e7e5

    python-chess logs each line at DEBUG level on the ``chess.engine`` logger, with the protocol
    object. Several games may share a thread (the lanes of a worker), so a game's lines are told
    by their protocol object: those of an engine acquired for this game (:attr:`names`), and
    before that, those logged in the context of this game's engine starts (:data:`GAME_LOG`; an
    engine's pipes keep the context they were opened in), named by :data:`ENGINE_NAME`, which
    the task starting the engine sets (the two engines start side by side).
    """

    def __init__(self, path: str) -> None:
        super().__init__(logging.DEBUG)
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            self.file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise ConfigError(f"cannot write the engine log: {exc.strerror}", file=path) from None
        self.thread = threading.get_ident()
        self.names: dict[int, str] = {}  # id of a protocol -> the participant it plays for

    @classmethod
    def open(cls, path: str, *, game: str) -> EngineLog:
        """The log at ``path``, headed by a line naming the ``game`` (``game 7: A - B``)."""
        log = cls(path)
        log.file.write(f"{dt.datetime.now():%Y-%m-%d %H:%M:%S.%f} game {game}\n")
        _ENGINE_LOGGER.hold()
        _ENGINE_LOGGER.logger.addHandler(log)
        return log

    def emit(self, record: logging.LogRecord) -> None:
        arrow = _ARROWS.get(str(record.msg))
        if arrow is None or record.thread != self.thread or not isinstance(record.args, tuple):
            return
        protocol, line = record.args
        name = self.names.get(id(protocol))
        if name is None:
            if GAME_LOG.get() is not self:
                return  # another game's engine
            name = self.names[id(protocol)] = ENGINE_NAME.get() or str(protocol)
        stamp = dt.datetime.fromtimestamp(record.created)
        self.file.write(f"{stamp:%Y-%m-%d %H:%M:%S.%f} {name} {arrow} {line}\n")
        self.file.flush()

    def close(self) -> None:
        _ENGINE_LOGGER.logger.removeHandler(self)
        _ENGINE_LOGGER.release()
        self.file.close()
        super().close()


#: python-chess's log formats for a line to an engine and from it, with fastchess's arrows.
_ARROWS = {"%s: << %s": "<---", "%s: >> %s": "--->"}
#: The participant whose engine the current task starts; the engine's pipes keep the context they
#: were opened in, so its lines are named even before the game knows its protocol object.
ENGINE_NAME: contextvars.ContextVar[str] = contextvars.ContextVar("tmanager_engine_name", default="")
#: The engine log of the game whose engines the current task starts (see :class:`EngineLog`).
GAME_LOG: contextvars.ContextVar[EngineLog | None] = contextvars.ContextVar("tmanager_game_log", default=None)


class _DebugWhileHeld:
    """A logger at DEBUG level while anyone holds it, at its own level otherwise: python-chess's
    records of every engine line cost time, so they are made only while a game writes a log."""

    def __init__(self, name: str) -> None:
        self.logger = logging.getLogger(name)
        self.lock = threading.Lock()
        self.holders = 0
        self.level = logging.NOTSET

    def hold(self) -> None:
        with self.lock:
            if self.holders == 0:
                self.level = self.logger.level
                self.logger.setLevel(logging.DEBUG)
            self.holders += 1

    def release(self) -> None:
        with self.lock:
            self.holders -= 1
            if self.holders == 0:
                self.logger.setLevel(self.level)


_ENGINE_LOGGER = _DebugWhileHeld("chess.engine")

