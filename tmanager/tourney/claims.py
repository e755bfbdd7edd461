"""Who owns a claimed game, and whether they still play it.

A claim records its owner (host, pid, process start time) and a heartbeat. On
the owner's host, the process table says whether it lives; elsewhere only the
heartbeat can, within the tourney's lease. What this module does not know:
how a stale claim is released (that is :func:`tmanager.tourney.worker.release_stale`,
under the lock).
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tmanager.tourney.model import Claim, Tourney


@dataclass(frozen=True, slots=True)
class Owner:
    """The identity a worker writes into its claims."""

    host: str
    pid: int
    started: float

    @classmethod
    def me(cls) -> Owner:
        import psutil  # here and below: `tmanager status` needs it only while games are being played

        return cls(socket.gethostname(), os.getpid(), psutil.Process().create_time())

    def owns(self, claim: Claim | None) -> bool:
        return claim is not None and (claim.host, claim.pid, claim.started) == (self.host, self.pid, self.started)

    @property
    def key(self) -> tuple[str, int, float]:
        return (self.host, self.pid, self.started)


def process_is_alive(pid: int, started: float) -> bool:
    """Whether the process ``pid`` that started at ``started`` (this host's clock) still runs."""
    import psutil  # here: `status` of a tourney with nothing in progress never needs it

    try:
        process = psutil.Process(pid)
        same_process: bool = abs(process.create_time() - started) < 0.01
        return same_process and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def claim_is_alive(claim: Claim, *, lease: float, now: float, host: str | None = None) -> bool:
    """Whether a claim's owner may still be playing: a live process on this host, or a fresh heartbeat."""
    if claim.host != (host or socket.gethostname()):
        return now - claim.heartbeat < lease
    return process_is_alive(claim.pid, claim.started)


def stale_games(tourney: Tourney, *, now: float | None = None) -> list[int]:
    """Games marked ``*`` whose owner is gone (or unknown, as in a file written by XBoard)."""
    now = time.time() if now is None else now
    lease = tourney.settings.lease
    host = socket.gethostname()
    # One look per owner: the claims of one process's lanes share their owner, whose process table
    # entry answers for all of them. Each claim has a heartbeat of its own (set when it was made), which
    # decides only for owners on other hosts.
    verdicts: dict[tuple[str, int, float, float], bool] = {}

    def stale(number: int) -> bool:
        claim = tourney.claims.get(number)
        if claim is None:
            return True
        key = (claim.host, claim.pid, claim.started, claim.heartbeat if claim.host != host else 0.0)
        if key not in verdicts:
            verdicts[key] = claim_is_alive(claim, lease=lease, now=now, host=host)
        return not verdicts[key]

    return [n for n in tourney.playing() if stale(n)]
