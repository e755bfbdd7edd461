"""One engine's pipes as lines: the layer the UCI and XBoard clients share.

:class:`EngineLines` is the asyncio protocol of an engine process (started by
:mod:`~tmanager.tourney.transport`): it splits what the engine writes into
lines, each handed to the client's :meth:`~EngineLines.line_received` as it is
read, writes the client's lines to the engine, several at once in one write, and
tells of the process's end. A client asks a question with :meth:`expect` and
answers it from its line handler (:meth:`answer`); the engine's death fails the
question with :class:`EngineTerminated`.

It is kept lean for the move loop: while :attr:`EngineLines.skip_reports` is set
(a search whose reports nobody reads, and no engine log), UCI ``info`` lines are
dropped as bytes, before they are decoded or dispatched (Stockfish writes about
ten a move at 1,000 nodes, each read on its own). An :attr:`EngineLines.observer`
(the game's engine log) sees every line both ways.
"""

from __future__ import annotations

import asyncio
import logging
import time
import typing
from collections.abc import Callable
from typing import Any

LOGGER = logging.getLogger(__name__)

#: The arrows of a line sent to an engine and of one it wrote, as fastchess's engine log shows them.
SENT = "<---"
RECEIVED = "--->"

#: Called with :data:`SENT` or :data:`RECEIVED` and the line (without its newline).
LineObserver = Callable[[str, str], None]


class EngineError(Exception):
    """An engine said what cannot be read (an illegal move), or cannot do what it is asked (an option it
    refuses, a variant it does not play)."""


class EngineTerminated(EngineError):
    """The engine's process ended."""


class IllegalMove(EngineError):
    """The engine answered a search with a move that is not legal, or not a move at all; ``move`` is its
    word as it wrote it (fastchess names it in its ``Warning; Illegal move …``)."""

    def __init__(self, message: object, *, move: str) -> None:
        super().__init__(message)
        self.move = move

    def __reduce__(self) -> tuple[object, ...]:  # pickled (a cluster's game) with its move, a keyword
        return _illegal_move, (self.args[0], self.move)


def _illegal_move(message: object, move: str) -> IllegalMove:
    return IllegalMove(message, move=move)


class UnsupportedLimit(EngineError):
    """The engine cannot search with the limit it was given (XBoard's ``nps``, ``sd`` or ``st`` it refuses): the
    tourney's configuration is at fault, not the engine's play, so it is never scored as a game. ``hint`` says
    which limits to give it instead."""

    def __init__(self, message: str, *, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


class EngineLines(asyncio.SubprocessProtocol):
    """An engine process's pipes as lines, and one question to it at a time (see the module docstring)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.SubprocessTransport | None = None
        self.returncode: asyncio.Future[int] = self.loop.create_future()
        self.observer: LineObserver | None = None
        #: Drop ``info`` lines as they are read (see the module docstring); only while no observer watches.
        self.skip_reports = False
        #: When the answer to the last question came (``time.monotonic()``).
        self.answered_at = 0.0
        self._stdin: asyncio.WriteTransport | None = None
        self._partial = b""  # the start of a line whose end has not been read yet
        self._question: asyncio.Future[Any] | None = None

    def __repr__(self) -> str:
        pid = self.transport.get_pid() if self.transport is not None else "?"
        return f"<{type(self).__name__} (pid={pid})>"

    # --- asyncio's side ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Duck-typed: uvloop's transports are no subclasses of asyncio's (SubprocessTransport, WriteTransport).
        self.transport = typing.cast(asyncio.SubprocessTransport, transport)
        self._stdin = typing.cast(asyncio.WriteTransport, self.transport.get_pipe_transport(0))

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd != 1:
            return  # stderr is never a pipe
        if self._partial:
            data, self._partial = self._partial + data, b""
        skip = self.skip_reports and self.observer is None
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            raw = data[start:end]
            start = end + 1
            if raw[-1:] == b"\r":
                raw = raw[:-1]
            if skip and raw[:4] == b"info" and (len(raw) == 4 or raw[4] in b" \t"):
                continue
            line = raw.decode("utf-8", "replace")
            if self.observer is not None:
                self.observer(RECEIVED, line)
            try:
                self.line_received(line)
            except Exception as exc:  # no line of an engine may end the worker's loop
                # A line the client could not read is the engine's fault, told as its answer fails: the game
                # records it, where the exception would otherwise escape into the event loop and the
                # question wait until its timeout.
                LOGGER.warning("%s: unreadable line %r: %s", self, line, exc)
                LOGGER.debug("%s: the line's traceback", self, exc_info=True)
                self.fail(EngineError(f"unreadable line {line[:200]!r}: {exc}"))
        if start < len(data):
            self._partial = data[start:]

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        pass

    def process_exited(self) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        assert self.transport is not None
        code = self.transport.get_returncode()
        if code is None:  # asyncio's transport is lost once the child is reaped and its pipes closed
            code = -1
        if not self.returncode.done():
            self.returncode.set_result(code)
        self.fail(EngineTerminated(f"engine process died unexpectedly (exit code: {code})"))
        self.terminated()

    # --- the client's side ---------------------------------------------------------------------

    def line_received(self, line: str) -> None:
        """A line the engine wrote (its newline and a carriage return before it taken off)."""
        LOGGER.debug("%s: unexpected output: %r", self, line)

    def terminated(self) -> None:
        """The process has ended (what the client was waiting for has failed already)."""

    def send(self, *lines: str) -> None:
        """Write ``lines`` to the engine in one write: it wakes once for them. Nothing is written to an
        engine whose process has ended, or whose transport is closing (it is being killed)."""
        if self.observer is not None:
            for line in lines:
                self.observer(SENT, line)
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or self.returncode.done():
            return
        stdin.write(("\n".join(lines) + "\n").encode())

    @property
    def alive(self) -> bool:
        return not self.returncode.done()

    def expect(self) -> asyncio.Future[Any]:
        """A new question to the engine, to be answered by :meth:`answer` (or failed by :meth:`fail`);
        :class:`EngineTerminated` if the engine has ended already."""
        if self.returncode.done():
            raise EngineTerminated(f"engine process dead (exit code: {self.returncode.result()})")
        self._question = question = self.loop.create_future()
        return question

    @property
    def asking(self) -> bool:
        """Whether a question waits for its answer."""
        return self._question is not None and not self._question.done()

    def answer(self, value: object = None) -> None:
        """Answer the question asked last, if it still waits."""
        question, self._question = self._question, None
        self.answered_at = time.monotonic()
        if question is not None and not question.done():
            question.set_result(value)

    def fail(self, exc: Exception) -> None:
        """Fail the question asked last, if it still waits."""
        question, self._question = self._question, None
        if question is not None and not question.done():
            question.set_exception(exc)

    async def quit(self, word: str = "quit") -> None:
        """Ask the engine to quit and wait until its process has ended (the caller bounds the wait)."""
        if self.alive:
            self.send(word)
        await asyncio.shield(self.returncode)
