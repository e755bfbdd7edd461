"""Who a worker is, whether it still lives, and the engines it leaves behind when it does not.

A worker writes its identity (host, pid, process start time: a pid alone may be
reused; and the host's boot: after a reboot, a service started the same way may
get the same pid at the same time after boot) into its claims and its hooks'
takings, and into its engines' environment (:data:`ENGINE_TAG`), so that the
processes of a worker killed outright can be told apart from those of a live one
and killed (:func:`reap_engines`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tmanager.tourney.model import Claim

#: The environment variable that marks engines (and their children) with the worker they belong to.
ENGINE_TAG = "TMANAGER_ENGINE_OF"


@dataclass(frozen=True, slots=True)
class Owner:
    """The identity a worker writes into its claims."""

    host: str
    pid: int
    started: float
    boot: str = ""  #: :func:`boot_id` of its host when it ran ("" if unknown)

    @classmethod
    def me(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid(), since_boot(os.getpid()), boot_id())

    def owns(self, claim: Claim | None) -> bool:
        return claim is not None and (claim.host, claim.pid, claim.started, claim.boot) == self.key

    @property
    def key(self) -> tuple[str, int, float, str]:
        return (self.host, self.pid, self.started, self.boot)

    def engine_tag(self, tourney: Path) -> str:
        """The value of :data:`ENGINE_TAG` for this worker's engines in tourney ``tourney`` (a resolved path)."""
        return f"{tourney}|{self.host}|{self.pid}|{self.started}"


#: An owner's ``started`` above this is a time on the wall clock, as tmanager wrote it before 2 December 2026.
_WALL_CLOCK_STARTS = 1e9


def since_boot(pid: int) -> float:
    """When the process ``pid`` started, in seconds after this host booted (:class:`psutil.Error` if none runs).

    Not the wall clock: psutil gives a process's start as its ticks since boot plus the boot time, which
    the kernel derives from the wall clock, so that a clock adjustment moves it (by a second, seen in CI)
    and a live worker looked dead, its claims given back while it played. The start is read between two
    reads of the boot time, again should the boot time move meanwhile (it moves a second at most now and
    then: a third try is never needed).
    """
    import psutil  # here and below: `tmanager status` needs it only while games are being played

    for _ in range(3):
        boot: float = psutil.boot_time()
        created: float = psutil.Process(pid).create_time()  # a new Process: psutil keeps the first answer
        if psutil.boot_time() == boot:
            break
    return created - boot


@functools.cache
def boot_id() -> str:
    """This boot of this host: Linux's random boot id, new at every boot; "" where there is none."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as file:
            return file.read().strip()
    except (OSError, UnicodeDecodeError):
        return ""


def process_is_alive(pid: int, started: float, *, boot: str = "") -> bool:
    """Whether the process ``pid`` that started ``started`` seconds after this host booted still runs, in this
    boot of the host when ``boot`` names one (:func:`boot_id`; "" in files of older tmanagers, and where the host
    tells none). A start written by an older tmanager, a wall-clock time, is compared as it was written, a second
    either way."""
    import psutil  # here: `status` of a tourney with nothing in progress never needs it

    if boot and boot != boot_id():
        return False  # the host rebooted since: the pid and start may well be a new process's
    try:
        process = psutil.Process(pid)
        same_process: bool
        if started > _WALL_CLOCK_STARTS:
            same_process = abs(process.create_time() - started) < 1.5
        else:
            same_process = abs(since_boot(pid) - started) < 0.01
        return same_process and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def reap_engines(path: Path) -> int:
    """Kill the engine processes (children included) of tourney ``path`` whose worker is gone; returns how many.

    A killed worker's engines die with it (they ask the kernel to), but an
    engine's own children would survive: they are found by the worker's mark
    in their environment.
    """
    import psutil

    killed = 0
    prefix = f"{path}|{socket.gethostname()}|"
    for process in psutil.process_iter(["environ"]):
        with contextlib.suppress(psutil.Error, ValueError):
            tag = (process.info.get("environ") or {}).get(ENGINE_TAG, "")
            if tag.startswith(prefix):
                pid, started = tag[len(prefix) :].split("|")
                if not process_is_alive(int(pid), float(started)):
                    process.kill()
                    killed += 1
    return killed
