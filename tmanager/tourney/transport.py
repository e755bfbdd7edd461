"""Engine processes whose output reaches their protocol as it is read.

asyncio's subprocess transport hands each read of a child's output to the
protocol one turn of the event loop later (``call_soon``), and on Python 3.11
waits for each child's exit on a thread of its own. Stockfish writes about seven
times a move, so a worker turns its loop seven more times a move for nothing:
40 to 65 µs of its CPU a move at 1000 nodes, 7 to 14 % of all it spends
(``tools/bench_transport.py``). :class:`EngineTransport` is the same
transport, built from asyncio's public parts: ``subprocess.Popen``, the loop's
pipe transports, whose reads go straight to the protocol, and a pidfd on the
event loop that tells of the exit (Linux 5.3 and later; elsewhere :func:`popen`
starts engines on the loop's own ``subprocess_exec``, in a process group of
their own: asyncio's loop is asked for one, uvloop's, which refuses a
``process_group``, for a session).

It knows only what engines need: the child's stdin and stdout are pipes, its
stderr goes to a file or nowhere (never a pipe), and it leads a process group
of its own. As asyncio's transport, it tells the protocol ``process_exited``
once the child is reaped and ``connection_lost`` once the child is reaped and
both pipes are closed; closing the transport kills a child still running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar

from tmanager.tourney import eventloop

ProtocolT = TypeVar("ProtocolT", bound=asyncio.SubprocessProtocol)


def _pidfds_work() -> bool:
    """Whether this kernel gives pidfds (``pidfd_open`` is Linux 5.3+; a sandbox may refuse it)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


PIDFDS = _pidfds_work()


async def popen(
    protocol_factory: Callable[[], ProtocolT],
    command: Sequence[str],
    *,
    cwd: str | None = None,
    stderr: int | IO[bytes] | None = None,
    preexec_fn: Callable[[], object] | None = None,
) -> tuple[asyncio.SubprocessTransport, ProtocolT]:
    """Start ``command`` in a process group of its own, connected to a new protocol made by
    ``protocol_factory``; ``OSError`` when it cannot start."""
    loop = asyncio.get_running_loop()
    if not PIDFDS and eventloop.name(loop) == "uvloop":
        # uvloop's subprocess_exec (0.23) refuses process_group=0 with a ValueError; a session of its own
        # is also a process group of its own.
        return await loop.subprocess_exec(
            protocol_factory, *command, cwd=cwd, stderr=stderr, preexec_fn=preexec_fn, start_new_session=True
        )
    if not PIDFDS:
        return await loop.subprocess_exec(
            protocol_factory, *command, cwd=cwd, stderr=stderr, preexec_fn=preexec_fn, process_group=0
        )
    process = subprocess.Popen(
        list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
        cwd=cwd, preexec_fn=preexec_fn, process_group=0, bufsize=0,
    )  # fmt: skip
    try:
        pidfd = os.pidfd_open(process.pid)
    except OSError:
        with process:  # closes the pipes and reaps it
            process.kill()
        raise
    protocol = protocol_factory()
    transport = EngineTransport(loop, protocol, process, pidfd)
    try:
        await transport.connect()
    except BaseException:
        transport.close()
        raise
    return transport, protocol


def _for_loop(loop: asyncio.AbstractEventLoop, pipe: IO[bytes]) -> IO[bytes]:
    """The file object of ``pipe`` to hand ``loop``'s pipe transport, which then owns the descriptor.

    uvloop (0.23; MagicStack/uvloop#763) gives libuv the descriptor of the file object it gets, and
    libuv closes it; then uvloop closes the file object too, and so the same number a second time.
    Meanwhile the worker's bookkeeping thread may have opened the tourney's journal and been given
    that number, which the second close then takes from it (and a write may land in another file).
    So uvloop gets a duplicate of the descriptor, in a file object that never closes it: libuv
    closes it, once; ``pipe`` itself is closed here, once. asyncio's transports close the file
    object they get, and nothing else, so they get ``pipe``.
    """
    if eventloop.name(loop) != "uvloop":
        return pipe
    duplicate = os.dup(pipe.fileno())
    pipe.close()
    return open(duplicate, pipe.mode, buffering=0, closefd=False)


class EngineTransport(asyncio.SubprocessTransport):
    """An engine process and its two pipes, for an engine's protocol (see the module docstring)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        protocol: asyncio.SubprocessProtocol,
        process: subprocess.Popen[bytes],
        pidfd: int,
    ) -> None:
        super().__init__({"subprocess": process})
        self._loop = loop
        self._protocol = protocol
        self._process = process
        self._pidfd: int | None = pidfd  # None once the child is reaped
        self._returncode: int | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._stdout: asyncio.ReadTransport | None = None
        self._connected = False
        self._early: list[bytes] = []  # output read before the protocol was told of the connection
        self._open_pipes = {0, 1}
        self._closed = False
        self._finished = False

    async def connect(self) -> None:
        """Connect the pipes and the exit's pidfd to the event loop, then the protocol to this transport.

        Cancelled (or the loop shut down) while the loop connects the pipes, it ends once they are
        connected, a few turns of the loop later (see :class:`_Uncancellable`).
        """
        assert self._pidfd is not None
        self._loop.add_reader(self._pidfd, self._reap)
        await _Uncancellable(self._connect_pipes(), loop=self._loop)
        self._connected = True
        self._protocol.connection_made(self)
        for data in self._early:
            self._protocol.pipe_data_received(1, data)
        self._early = []
        if self._returncode is not None:  # reaped while the pipes were being connected
            self._protocol.process_exited()
        self._try_finish()

    async def _connect_pipes(self) -> None:
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        # Each handed over just before its connection: one not yet handed is still closed by close().
        stdin = _for_loop(self._loop, process.stdin)
        self._stdin, _ = await self._loop.connect_write_pipe(lambda: _Pipe(self, 0), stdin)
        stdout = _for_loop(self._loop, process.stdout)
        self._stdout, _ = await self._loop.connect_read_pipe(lambda: _Pipe(self, 1), stdout)

    def _data_received(self, data: bytes) -> None:
        if self._connected:
            self._protocol.pipe_data_received(1, data)
        else:
            self._early.append(data)

    def _pipe_lost(self, fd: int, exc: Exception | None) -> None:
        self._open_pipes.discard(fd)
        if self._connected:  # a pipe lost before the protocol is connected is not reported
            self._protocol.pipe_connection_lost(fd, exc)
        self._try_finish()

    def _reap(self) -> None:
        """Take the exit status once the pidfd says the child has exited."""
        if self._returncode is not None:
            return
        returncode = self._process.poll()
        if returncode is None:
            return
        self._returncode = returncode
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        if self._connected:
            self._protocol.process_exited()
        self._try_finish()

    def _try_finish(self) -> None:
        if self._finished or not self._connected or self._returncode is None or self._open_pipes:
            return
        self._finished = True
        self._protocol.connection_lost(None)

    def get_pid(self) -> int:
        return self._process.pid

    def get_returncode(self) -> int | None:
        return self._returncode

    def get_pipe_transport(self, fd: int) -> asyncio.BaseTransport | None:
        return {0: self._stdin, 1: self._stdout}.get(fd)

    def send_signal(self, signal: int) -> None:
        self._process.send_signal(signal)

    def terminate(self) -> None:
        self._process.terminate()

    def kill(self) -> None:
        self._process.kill()

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the pipes and kill the child if it still runs; the exit is still reaped and reported."""
        if self._closed:
            return
        self._closed = True
        for fd, pipe, file in ((0, self._stdin, self._process.stdin), (1, self._stdout, self._process.stdout)):
            if pipe is not None:
                pipe.close()
            elif file is not None:  # never handed to the loop, or the loop failed to connect it
                file.close()
                self._open_pipes.discard(fd)
        if self._returncode is None and self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        else:
            self._loop.call_soon(self._reap)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._protocol

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        raise NotImplementedError("an engine's transport keeps its protocol")


class _Uncancellable(asyncio.Task[None]):
    """A task that no cancellation cuts short: a task awaiting it is cancelled once it is done.

    For the loop's connection of a pipe: a pipe handed to the loop is the loop's, and on
    cancellation uvloop closes its descriptor but leaves its file open, so that closing the file
    later closes the descriptor, or another file's opened meanwhile, a second time.
    """

    def cancel(self, msg: Any | None = None) -> bool:
        return False


class _Pipe(asyncio.Protocol):
    """One of the engine's pipes, reporting to its transport without a turn of the loop between."""

    def __init__(self, transport: EngineTransport, fd: int) -> None:
        self.transport = transport
        self.fd = fd

    def data_received(self, data: bytes) -> None:
        self.transport._data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport._pipe_lost(self.fd, exc)

    def __repr__(self) -> str:
        return f"<_Pipe fd={self.fd} of pid {self.transport.get_pid()}>"
