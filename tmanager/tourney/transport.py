"""Engine processes whose output reaches python-chess's protocol as it is read.

asyncio's subprocess transport hands each read of a child's output to the
protocol one turn of the event loop later (``call_soon``), and on Python 3.11
waits for each child's exit on a thread of its own. Stockfish writes about seven
times a move, so a worker turns its loop seven more times a move for nothing:
40 to 65 µs of its CPU a move at 1000 nodes, 7 to 14 % of all it spends
(``tools/bench_transport.py``). :class:`EngineTransport` is the same
transport, built from asyncio's public parts: ``subprocess.Popen``, the loop's
pipe transport for the engine's input, reads of its output that go straight to
the protocol (``add_reader``), and a pidfd on the event loop that tells of the
exit (Linux 5.3 and later; elsewhere :func:`popen` is python-chess's own
``popen``, over asyncio's ``subprocess_exec``).

It knows only what engines need: the child's stdin is a pipe, its stdout a
Unix socket (see below), its stderr goes to a file or nowhere (never a pipe),
and it leads a process group of its own. As asyncio's transport, it tells the
protocol ``process_exited`` once the child is reaped and ``connection_lost``
once the child is reaped and both its input and its output are closed; closing
the transport kills a child still running.

It also notes when the engine wrote what was last read
(:attr:`EngineTransport.read_at`), which is when an engine's move ended its
thinking. A pipe cannot tell: what is read from it was written at some time
before the read, and the read waits for the event loop, which a full pass of
Python's cycle collector, the other games of the worker or a core shared with
hundreds of engines can hold for tens of milliseconds. So the engine writes to a
``SOCK_SEQPACKET`` socket instead, which to the engine is a file descriptor
like a pipe (it writes to it, and a write blocks while too much waits unread:
about 200 KB, or some 270 short lines, where a pipe holds 64 KB), but on which
each write is one record that the kernel stamps with the time it arrived
(``SO_TIMESTAMPNS``). The costs: a read takes one record, not everything
written since the last read (an engine writes a few times a move), and a
single write larger than about 200 KB fails in the engine (``EMSGSIZE``),
which no engine's line comes near.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, TypeVar

import chess.engine

ProtocolT = TypeVar("ProtocolT", bound=chess.engine.Protocol)


def _pidfds_work() -> bool:
    """Whether this kernel gives pidfds (``pidfd_open`` is Linux 5.3+; a sandbox may refuse it)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


PIDFDS = _pidfds_work()

#: Linux's ``SO_TIMESTAMPNS`` (Python 3.11's ``socket`` does not name it): every record read comes with a
#: control message of this type holding the ``struct timespec`` (``CLOCK_REALTIME``) at which it arrived.
SO_TIMESTAMPNS = 35
_TIMESPEC = struct.Struct("@ll")
_STAMP_SPACE = socket.CMSG_SPACE(_TIMESPEC.size)
#: Records taken in one turn of the event loop; any others wait for the next turn, as the other games' work does.
RECORDS_PER_TURN = 64


def _output_socket() -> tuple[socket.socket, socket.socket]:
    """The manager's end and the engine's end of the engine's stdout: a stamping socket (module docstring)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    ours.setblocking(False)
    return ours, theirs


class _RecordBuffer(threading.local):
    """Room for the largest record an engine can write, one per thread: a read leaves nothing in it that a
    later read needs, and the event loops of two threads read at once (the read lets go of the GIL)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def of_size(self, size: int) -> memoryview:
        if len(self.buffer) < size:
            self.buffer = bytearray(size)
        return memoryview(self.buffer)


_RECORDS = _RecordBuffer()


async def popen(
    protocol_class: type[ProtocolT],
    command: Sequence[str],
    *,
    cwd: str | None = None,
    stderr: int | IO[bytes] | None = None,
    preexec_fn: Callable[[], object] | None = None,
) -> tuple[asyncio.SubprocessTransport, ProtocolT]:
    """Start ``command`` in a process group of its own, connected to a new ``protocol_class``, as
    ``protocol_class.popen(command, setpgrp=True, …)`` does; ``OSError`` when it cannot start."""
    if not PIDFDS:
        return await protocol_class.popen(list(command), setpgrp=True, cwd=cwd, stderr=stderr, preexec_fn=preexec_fn)
    loop = asyncio.get_running_loop()
    output, engine_output = _output_socket()
    try:
        process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=engine_output.fileno(), stderr=stderr,
            cwd=cwd, preexec_fn=preexec_fn, process_group=0, bufsize=0,
        )  # fmt: skip
    except BaseException:
        output.close()
        raise
    finally:
        record_size = engine_output.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        engine_output.close()  # the engine's own now: its end of file is when the engine's copy closes
    try:
        pidfd = os.pidfd_open(process.pid)
    except OSError:
        output.close()
        with process:  # closes stdin and reaps it
            process.kill()
        raise
    protocol = protocol_class()
    transport = EngineTransport(loop, protocol, process, pidfd, output, record_size=record_size)
    try:
        await transport.connect()
    except BaseException:
        transport.close()
        raise
    return transport, protocol


class EngineTransport(asyncio.SubprocessTransport):
    """An engine process, its input pipe and its output socket, for a python-chess protocol (see the
    module docstring)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        protocol: chess.engine.Protocol,
        process: subprocess.Popen[bytes],
        pidfd: int,
        output: socket.socket,
        *,
        record_size: int,
    ) -> None:
        super().__init__({"subprocess": process})
        self._loop = loop
        self._protocol = protocol
        self._process = process
        self._pidfd: int | None = pidfd  # None once the child is reaped
        self._returncode: int | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._output: socket.socket | None = output  # None once closed
        # The largest record the engine can write: its end's send buffer (a larger write fails in the engine).
        self._record_size = record_size
        #: When the engine wrote the output last read (``time.monotonic()``): when it arrived, as the kernel
        #: stamped it, or when it was read if it came unstamped.
        self.read_at = 0.0
        self._connected = False
        self._early: list[bytes] = []  # output read before the protocol was told of the connection
        self._open_pipes = {0, 1}
        self._closed = False
        self._finished = False

    async def connect(self) -> None:
        """Connect the input pipe, the output socket and the exit's pidfd to the event loop, then the protocol
        to this transport."""
        process = self._process
        assert process.stdin is not None and self._output is not None and self._pidfd is not None
        self._loop.add_reader(self._pidfd, self._reap)
        self._loop.add_reader(self._output.fileno(), self._read)
        self._stdin, _ = await self._loop.connect_write_pipe(lambda: _InputPipe(self), process.stdin)
        self._connected = True
        self._protocol.connection_made(self)
        for data in self._early:
            self._protocol.pipe_data_received(1, data)
        self._early = []
        if self._returncode is not None:  # reaped while the pipes were being connected
            self._protocol.process_exited()
        self._try_finish()

    def _read(self) -> None:
        """Hand the protocol what the engine wrote, one record (one write of the engine's) at a time, each
        with its time of arrival in :attr:`read_at`."""
        output = self._output
        for _ in range(RECORDS_PER_TURN):
            if output is None:  # closed by the protocol, on what it was handed
                return
            buffer = _RECORDS.of_size(self._record_size)
            try:
                size, ancillary, _, _ = output.recvmsg_into([buffer], _STAMP_SPACE)
            except BlockingIOError:
                return
            except OSError as exc:
                self._close_output(exc)
                return
            if not size:
                self._close_output(None)
                return
            self.read_at = _arrival(ancillary)
            self._data_received(bytes(buffer[:size]))
            output = self._output

    def _close_output(self, exc: Exception | None) -> None:
        """Stop reading the engine's output and report it lost, on the next turn of the loop as asyncio's
        pipe transports report theirs."""
        if self._output is None:
            return
        self._loop.remove_reader(self._output.fileno())
        self._output.close()
        self._output = None
        self._loop.call_soon(self._pipe_lost, 1, exc)

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
        """The transport of the engine's stdin (0); its stdout is a socket this transport reads itself."""
        return self._stdin if fd == 0 else None

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
        if self._stdin is not None:
            self._stdin.close()
        elif self._process.stdin is not None:  # not connected (a start cut short)
            self._process.stdin.close()
            self._open_pipes.discard(0)
        self._close_output(None)
        if self._returncode is None and self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        else:
            self._loop.call_soon(self._reap)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._protocol

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        raise NotImplementedError("an engine's transport keeps its protocol")


def _arrival(ancillary: list[tuple[int, int, bytes]]) -> float:
    """When a record arrived, on ``time.monotonic()``'s clock, from its kernel stamp; now if it has none."""
    now = time.monotonic()
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) == _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack(data)
            arrived: float = now - (time.time() - seconds - nanoseconds / 1e9)
            return min(now, arrived)
    return now


class _InputPipe(asyncio.Protocol):
    """The engine's stdin, reporting its loss to its transport."""

    def __init__(self, transport: EngineTransport) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport._pipe_lost(0, exc)

    def __repr__(self) -> str:
        return f"<_InputPipe of pid {self.transport.get_pid()}>"
