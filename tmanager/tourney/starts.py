"""Engines starting on this host, as every tmanager process of this user sees them.

An engine's start-up (an interpreter's imports, a large hash cleared) takes the
cores from the games already playing, whichever process plays them: at 256
games at once, eight workers start 512 engines in the first seconds, and the
games whose engines were ready first lose on time meanwhile. A worker's own
:class:`~tmanager.tourney.engine.EnginePool` already holds its games' clocks
until its own engines have started; :class:`HostStarts` extends that to the
engines of the other processes on the host.

Each process holds a shared ``flock`` on one file while any of its engines
starts; a game about to start its clocks probes for an exclusive lock, which
it gets only when no process holds the shared one. The kernel drops a dead
process's lock, so a killed worker never holds the others up. Waiting is
bounded: engines restarted for every game would otherwise keep the gate shut
for good. The first games of a process wait longest (:data:`FIRST_WAIT_SECONDS`):
at a run's start every process starts its engines, and on a small machine that
storm lasts seconds; later games, once this process has waited once, wait at
most :data:`WAIT_SECONDS`. Where the file cannot be opened, there is no gate.

Only clocks need the gate: a game of nodes or depth alone plays the same moves
on busy cores, and starts without asking (:func:`~tmanager.tourney.play.play_game`).

What it does not know: engines started by other programs, or by tmanager
processes of other users.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import fcntl
import os
import tempfile
from pathlib import Path

#: The longest a game's clocks wait for other processes' engines to finish starting.
WAIT_SECONDS = 3.0
#: The same for the games that start before this process has waited once: the start-up storm of a run
#: (256 games on two cores: 512 engines, 5 to 10 s), whose first moves otherwise lose on time.
FIRST_WAIT_SECONDS = 20.0
#: How often the games of a process that wait look again (one probe serves them all).
PROBE_SECONDS = 0.02


class Wait(enum.Enum):
    """How :meth:`HostStarts.quiet` returned."""

    NONE = "quiet at once"
    ENDED = "quiet after a wait"
    TIMED_OUT = "not quiet within the bound"


def host_path() -> Path:
    """The file all of this user's tmanager processes on this host share."""
    return Path(tempfile.gettempdir()) / f"tmanager-{os.getuid()}.engine-starts"


class HostStarts:
    """This process's side of the gate: :meth:`begin` and :meth:`end` around a batch of engine starts,
    :meth:`quiet` before a game's clocks start. For one event loop; the file is opened at first use."""

    def __init__(
        self, path: Path | None = None, *, first_wait: float = FIRST_WAIT_SECONDS, wait: float = WAIT_SECONDS
    ) -> None:
        self.path = path or host_path()
        self._bound = first_wait  # the longest a game waits: ``wait`` once a wait has ended
        self._later_bound = wait
        self._held: int | None = None  # the descriptor holding the shared lock while this process starts engines
        self._probe: int | None = None  # another open file description: its lock would not merge with ours
        self._opened = False
        self._prober: asyncio.Future[None] | None = None  # the probe the waiting games share
        self._waiting = 0  # games waiting on it

    def _open(self) -> bool:
        if not self._opened:
            self._opened = True
            with contextlib.suppress(OSError):
                self._held = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                self._probe = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        return self._held is not None and self._probe is not None

    def begin(self) -> None:
        """Engines of this process start from now on."""
        if self._open():
            assert self._held is not None
            with contextlib.suppress(OSError):
                fcntl.flock(self._held, fcntl.LOCK_SH)  # at once: an exclusive lock is only ever probed for

    def end(self) -> None:
        """No engine of this process is starting any more."""
        if self._held is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._held, fcntl.LOCK_UN)

    async def quiet(self, *, within: float | None = None) -> Wait:
        """Return once no process on the host, this one included, is starting engines, or after ``within``
        seconds (by default the first wait's bound until a wait has ended, then the later one); says which.

        The games of this process that wait share one probe every :data:`PROBE_SECONDS`: each probing on
        its own, 256 games make 12,800 probes a second (a task's step and a system call each), on cores the
        engines they wait for need (32 games waiting 3 s: 99 ms of CPU on their own, 53 ms sharing)."""
        bound = self._bound if within is None else within
        if not self._open() or self._free():
            self._bound = self._later_bound
            return Wait.NONE
        if self._prober is None:
            self._prober = asyncio.ensure_future(self._until_free())
        prober = self._prober
        self._waiting += 1
        try:
            async with asyncio.timeout(bound):
                await asyncio.shield(prober)
            return Wait.ENDED
        except TimeoutError:
            return Wait.TIMED_OUT
        finally:
            self._bound = self._later_bound
            self._waiting -= 1
            if prober.done() or not self._waiting:
                prober.cancel()  # no game waits any more: stop probing (a done one is forgotten)
                if self._prober is prober:
                    self._prober = None

    def _free(self) -> bool:
        """Whether no process holds the shared lock now (a probe: never waits)."""
        assert self._probe is not None
        try:
            fcntl.flock(self._probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError:
            return True
        fcntl.flock(self._probe, fcntl.LOCK_UN)
        return True

    async def _until_free(self) -> None:
        while not self._free():
            await asyncio.sleep(PROBE_SECONDS)

    def close(self) -> None:
        if self._prober is not None:
            self._prober.cancel()
            self._prober = None
        for fd in (self._held, self._probe):
            if fd is not None:
                os.close(fd)
        self._held = self._probe = None
