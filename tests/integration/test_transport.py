"""EngineTransport with real processes: output straight to the protocol, exits reaped, nothing left behind."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import shutil
import subprocess
import sys
import threading
import traceback
from pathlib import Path

import chess
import psutil
import pytest

from tests.conftest import run_async
from tmanager.tourney import transport as transport_module
from tmanager.tourney.enginelines import EngineError, EngineTerminated
from tmanager.tourney.engines import command_line, find_definition, load_definition
from tmanager.tourney.search import SearchLimit
from tmanager.tourney.transport import PIDFDS, popen
from tmanager.tourney.uciclient import UciClient

pytestmark = [
    pytest.mark.skipif(not PIDFDS, reason="this kernel gives no pidfds: asyncio's transport is used"),
    pytest.mark.usefixtures("each_event_loop"),
]


class _Recording(UciClient):
    """A UCI client that notes every line and whether it came straight from the pipe's read."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.read_directly: list[bool] = []

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        # Straight from the read: our pipe protocol's data_received is a caller, with no turn of the loop between.
        self.read_directly.append(any(frame.name == "data_received" for frame in traceback.extract_stack()))
        super().pipe_data_received(fd, data)

    def line_received(self, line: str) -> None:
        self.lines.append(line)
        super().line_received(line)


#: A program that starts and says nothing for a minute: an engine still running whenever a test closes it.
_SILENT = [sys.executable, "-c", "import time; time.sleep(60)"]


def _engine() -> list[str]:
    data = load_definition(find_definition("random-uci"))
    return list(command_line(data["cmd"], [*data.get("args", []), "--seed", "3"]))


def _engine_fds() -> set[str]:
    """This process's pipes and pidfds: what an engine's transport opens. (Not every descriptor: uvloop's
    loop opens one of its own, /dev/null, the first time it reads, and keeps it as long as the loop.)"""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(("pipe:", "anon_inode:[pidfd]")):
                found.add(f"{fd} {target}")
    return found


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


async def _plays(engine: UciClient, moves: int) -> None:
    """``engine`` plays ``moves`` legal moves of one game, both sides."""
    board = chess.Board()
    for _ in range(moves):
        result = await engine.play(board, SearchLimit(nodes=1))
        assert result.move is not None
        assert result.move in board.legal_moves
        board.push(result.move)


def test_an_engine_plays_quits_and_is_reaped_with_no_thread_and_no_descriptor_left() -> None:
    async def main() -> None:
        fds, threads = _engine_fds(), threading.active_count()
        transport, engine = await popen(_Recording, _engine())
        pid = transport.get_pid()
        assert len(_engine_fds() - fds) == 3, "its stdin, its stdout and its pidfd"
        assert os.getpgid(pid) == pid, "the engine leads a process group of its own"
        assert threading.active_count() == threads, "no thread waits for the child"
        await engine.handshake()
        await _plays(engine, 6)
        assert engine.read_directly and all(engine.read_directly)
        assert "uciok" in engine.lines and sum(line.startswith("bestmove") for line in engine.lines) == 6
        await engine.quit()
        assert await asyncio.wait_for(engine.returncode, 5) == 0
        assert transport.get_returncode() == 0 and _reaped(pid)
        transport.close()
        await asyncio.sleep(0)  # the closed pipe transports let go of their files at the next turn
        assert _engine_fds() == fds

    run_async(main())


def test_without_pidfds_an_engine_starts_through_the_loops_own_subprocess_transport(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the kernel gives no pidfds (macOS, Linux before 5.3, a sandbox that refuses them), engines
    start through the event loop's ``subprocess_exec``: on uvloop not as python-chess's ``popen`` asks
    (``process_group``, which uvloop refuses with a ValueError), in a process group of its own all the same."""
    monkeypatch.setattr(transport_module, "PIDFDS", False)

    async def main() -> None:
        transport, engine = await popen(_Recording, _engine(), preexec_fn=lambda: os.nice(1))
        pid = transport.get_pid()
        assert os.getpgid(pid) == pid, "the engine leads a process group of its own"
        assert psutil.Process(pid).nice() == os.nice(0) + 1, "the preexec_fn ran in the child"
        await engine.handshake()
        await _plays(engine, 4)
        await engine.quit()
        assert await asyncio.wait_for(engine.returncode, 5) == 0
        transport.close()

    run_async(main())


def test_closing_kills_a_running_engine_and_its_end_is_reported() -> None:
    async def main() -> None:
        transport, engine = await popen(_Recording, _SILENT)
        assert transport.get_returncode() is None and not transport.is_closing()
        transport.close()
        assert transport.is_closing()
        assert await asyncio.wait_for(engine.returncode, 5) == -9
        assert _reaped(transport.get_pid())

    run_async(main())


def test_an_engine_that_writes_and_exits_at_once_is_heard_to_the_end() -> None:
    async def main() -> None:
        code = "import sys; print('id name early'); print('uciok'); sys.exit(3)"
        transport, engine = await popen(_Recording, [sys.executable, "-c", code])
        assert await asyncio.wait_for(engine.returncode, 5) == 3
        assert engine.lines == ["id name early", "uciok"]
        with pytest.raises(EngineTerminated):
            await engine.ping()
        transport.close()

    run_async(main())


class _Unreadable(UciClient):
    """A client that cannot read the line ``boom``, as a parser meeting what nobody foresaw."""

    def line_received(self, line: str) -> None:
        if line == "boom":
            raise ValueError("no reading this")
        super().line_received(line)


def test_a_line_the_client_cannot_read_fails_the_question_as_the_engines_error() -> None:
    """The exception reaches the question, which the game then records as the engine's fault; escaped into the
    event loop, it was printed there as a traceback and the question waited until its timeout."""
    async def main() -> None:
        code = "import sys; sys.stdin.readline(); print('boom', flush=True); sys.stdin.readline()"
        transport, engine = await popen(_Unreadable, [sys.executable, "-c", code])
        question = engine.expect()
        engine.send("isready")
        with pytest.raises(EngineError, match="unreadable line 'boom': no reading this"):
            await asyncio.wait_for(question, 5)
        transport.close()

    run_async(main())


def test_a_missing_program_is_an_oserror_and_leaves_nothing_open() -> None:
    async def main() -> None:
        fds = _engine_fds()
        with pytest.raises(FileNotFoundError):
            await popen(_Recording, ["/nonexistent/engine"])
        assert _engine_fds() == fds

    run_async(main())


def test_a_start_cancelled_at_any_turn_of_its_connection_closes_each_pipe_once_and_reaps_the_engine() -> None:
    """A start cancelled at any turn of the loop while its pipes are being connected (a stop as a game
    begins) ends in CancelledError alone: no error from closing a descriptor twice, nothing left open."""
    async def turns_to_start() -> int:
        start, turns = asyncio.ensure_future(popen(_Recording, _SILENT)), 0
        while not start.done():
            await asyncio.sleep(0)
            turns += 1
        transport, engine = start.result()
        transport.close()
        await asyncio.wait_for(engine.returncode, 5)
        return turns

    async def main() -> None:
        errors: list[dict[str, object]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))
        # A child of an earlier test may still be there, terminated, and reaped meanwhile: only the test's count.
        fds, children = _engine_fds(), set(psutil.Process().children())
        turns = await turns_to_start()
        assert turns > 1, "the start yields while it connects its pipes"
        for cancelled_after in range(1, turns):
            start = asyncio.ensure_future(popen(_Recording, _SILENT))
            for _ in range(cancelled_after):
                await asyncio.sleep(0)
            assert not start.done()
            start.cancel()
            with pytest.raises(asyncio.CancelledError):
                await start
        for _ in range(100):  # the pipes close and the killed engines are reaped over the next turns
            if _engine_fds() == fds and set(psutil.Process().children()) <= children:
                break
            await asyncio.sleep(0.01)
        assert _engine_fds() == fds
        assert set(psutil.Process().children()) - children == set(), "every engine is killed and reaped"
        assert not errors

    run_async(main())


def test_a_start_left_running_when_the_loop_shuts_down_ends_quietly_and_closes_its_pipes() -> None:
    """The loop's shutdown cancels a start while the loop connects its pipes: no error from closing
    a pipe twice, and no pipe left open. (Whether the killed engine is reaped before the loop closes
    is left to chance.)"""
    errors: list[dict[str, object]] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))
        start = asyncio.ensure_future(popen(_Recording, _SILENT))
        await asyncio.sleep(0)
        assert not start.done(), "it is still connecting its pipes as the loop shuts down"

    run_async(asyncio.sleep(0))  # uvloop's first loop opens pipes of its own, kept for the process
    pipes = {fd for fd in _engine_fds() if "pipe:" in fd}
    run_async(main())
    gc.collect()  # a file left open on a descriptor closed twice would be closed again here
    assert not errors
    assert {fd for fd in _engine_fds() if "pipe:" in fd} == pipes


CLOSING = """
import asyncio, sys
from tmanager.tourney import eventloop, transport
from tmanager.tourney.uciclient import UciClient

transport.PIDFDS = True  # the test sets it: this kernel's pidfds, or the loop's own subprocess transport

async def main() -> None:
    for _ in range(5):
        engine, protocol = await transport.popen(UciClient, ["cat"])
        engine.close()
        await protocol.returncode

eventloop.run(main())
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (tools/test.sh installs it)")
@pytest.mark.parametrize("pidfds", [True, False], ids=["pidfds", "no-pidfds"])
def test_each_pipe_descriptor_is_closed_once(tmp_path: Path, pidfds: bool) -> None:
    """uvloop closes a pipe's descriptor, then the file object it was given: the same number twice
    (MagicStack/uvloop#763). A file the bookkeeping thread had opened in between under that number
    lost its descriptor (a worker stopped on EBADF from its journal). Traced, no close fails."""
    trace = tmp_path / "trace"
    script = tmp_path / "closing.py"
    script.write_text(CLOSING.replace("PIDFDS = True", f"PIDFDS = {pidfds}"))
    done = subprocess.run(["strace", "-f", "-e", "trace=close", "-o", str(trace), sys.executable, str(script)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = trace.read_text().splitlines()
    manager = lines[0].split()[0]  # the traced process; its engines are others
    closes = [line for line in lines if line.split()[0] == manager and "close(" in line]
    assert len(closes) > 20  # the trace saw the engines' pipes closed
    assert [line for line in closes if "EBADF" in line] == []
