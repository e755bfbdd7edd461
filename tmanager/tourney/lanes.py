"""A worker's lanes: how many play, when one claims, when one retires, and whose turn it is meanwhile.

A worker plays on lanes, each claiming, playing and recording one game at a
time (:class:`~tmanager.tourney.worker.Lane`). What the lanes share is kept
here, by one :class:`LaneScheduler`: how many lanes are wanted (``--concurrency``,
or a Dask cluster's size) and how many stay, how many games they claimed
(never more than ``--games``), the stop, and the turns that waiting lanes take
to claim again (:class:`WaitingLanes`). A claim answers :class:`Claimed` or
:class:`~tmanager.core.schedule.NoGame`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tmanager.core.schedule import DONE, NoGame, ScheduledGame
from tmanager.tourney.model import Tourney

log = logging.getLogger("tmanager")

#: How often one of a worker's waiting lanes claims again when the tourney has not changed (a claim may
#: have gone stale with its owner, which changes nothing in the file).
POLL_SECONDS = 0.25
#: How often a worker whose lanes wait looks whether the tourney changed (two ``stat`` calls, no lock): a
#: game recorded elsewhere, the round's last, or the tourney's, lets a lane claim at once.
WATCH_SECONDS = 0.02


@dataclass(frozen=True, slots=True)
class Claimed:
    """A claim that found a game: the game, and the tourney as the claim's transaction left it."""

    tourney: Tourney
    game: ScheduledGame


#: What a worker's claim answers: a game, or why there is none now (wait) or any more (done).
ClaimAnswer = Claimed | NoGame


class LaneScheduler:
    """The counters and turns of one worker's lanes, which they share and nothing else changes.

    A lane asks :meth:`claim` for a game: it retires instead when there are more
    lanes than wanted (the surplus ones end as they come to claim), when the
    games claimed reached ``max_games``, or on a stop; else it claims, and while
    no game is free, waits for its turn to claim again.
    """

    def __init__(self, stamp: Callable[[], object], *, max_games: int | None = None) -> None:
        self.max_games = max_games
        self.wanted = 0  #: lanes wanted
        self.staying = 0  #: lanes that have not retired
        #: games claimed (counted before the claim, so that lanes never claim past ``max_games``)
        self.claimed = 0
        self.stopping = False
        self.waiting = WaitingLanes(stamp)

    def resize(self, wanted: int) -> int:
        """Aim at ``wanted`` lanes; returns how many more to start (the surplus ones retire when they can)."""
        self.wanted = wanted
        missing = max(0, wanted - self.staying)
        self.staying += missing
        return missing

    def stop(self) -> None:
        """Every lane retires as it next comes to claim."""
        self.stopping = True

    def retire(self) -> bool:
        """Whether a lane about to claim should end instead (it is then counted gone). Never with a game in hand."""
        surplus = self.staying > self.wanted
        if not (surplus or self.stopping or (self.max_games is not None and self.claimed >= self.max_games)):
            return False
        self.staying -= 1
        if surplus:
            log.info("a lane retired: %d left", self.staying)
        return True

    async def claim(self, attempt: Callable[[], Awaitable[ClaimAnswer]], *, idle: Callable[[], None]) -> ClaimAnswer:
        """Claim with ``attempt`` until it finds a game, taking turns with the other waiting lanes; ``idle`` is
        called each time a lane starts to wait. :data:`~tmanager.core.schedule.DONE` when no game is left, or
        the lane retires."""
        while not self.retire():
            self.claimed += 1
            seen = self.waiting.stamp()
            answer = await attempt()
            if isinstance(answer, Claimed):
                self.waiting.pass_on()  # there may be more games free: the next waiting lane claims at once
                return answer
            self.claimed -= 1
            if answer is DONE:
                break
            idle()
            await self.waiting.turn(seen)
        self.waiting.pass_on()  # the tourney is done, or lanes retire: the next waiting lane sees it at once
        return DONE


class WaitingLanes:
    """The lanes of a worker that wait for a game to be free (a sync barrier, a Swiss round, others'
    games), taking turns to claim again.

    When the tourney changes (``stamp`` says so, looked at every :data:`WATCH_SECONDS`), or else every
    :data:`POLL_SECONDS`, the lane that has waited longest claims again: a game may have been freed
    meanwhile (a round recorded, a game given back, a claim gone stale with its owner). A lane whose
    claim found a game, or the end of the tourney, hands the turn on at once (:meth:`pass_on`), since
    there may be more for the others. So a change wakes as many lanes as it has games for, and one
    more; were every waiting lane to claim again at each change, the end of a tourney of 256 games at
    once would make hundreds of claims a second, each under the one lock.
    """

    def __init__(self, stamp: Callable[[], object]) -> None:
        self._stamp = stamp
        self._waiting: dict[asyncio.Future[None], None] = {}  # in the order the lanes came
        self._ticker: asyncio.Task[None] | None = None
        self._seen: object = None  # the tourney's stamp when a lane last got its turn

    def stamp(self) -> object:
        """The tourney's stamp now: take it before a claim, and wait with it (:meth:`turn`)."""
        return self._stamp()

    async def turn(self, since: object) -> None:
        """Return when it is this lane's turn to claim again; ``since`` is the :meth:`stamp` taken before
        its claim that found nothing, so that a change during that claim is not missed."""
        wake = asyncio.get_running_loop().create_future()
        self._waiting[wake] = None
        if self._ticker is None or self._ticker.done():
            self._seen = since
            self._ticker = asyncio.create_task(self._tick())
        try:
            await wake
        finally:
            self._waiting.pop(wake, None)

    def pass_on(self) -> None:
        """Give the turn to the lane that has waited longest, now."""
        for wake in self._waiting:
            del self._waiting[wake]
            if not wake.done():
                wake.set_result(None)
            return

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + POLL_SECONDS
        while self._waiting:
            await asyncio.sleep(WATCH_SECONDS)
            now = self._stamp()
            if now != self._seen or loop.time() >= due:
                # The lane woken claims after this look: only a later change wakes another.
                self._seen = now
                due = loop.time() + POLL_SECONDS
                self.pass_on()
