"""A worker's bookkeeping off its event loop: file transactions in a thread, retried until they can be made.

The engines' games run on the worker's event loop; every file transaction
(a claim, a record, a heartbeat, a hook taken) runs in a thread, so that the
loop never waits for the lock or the disk. :func:`transact` tries again while
the file is invalid (a hand edit half saved) or the lock is held; a stop never
loses what a transaction under way did (:func:`through_cancellation`). The
worker's one :class:`BookkeepingThread` runs them, and says when it is idle.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from tmanager.errors import ConfigError, LockTimeout

log = logging.getLogger("tmanager")

_R = TypeVar("_R")

#: Seconds between attempts to read a tourney file that is not valid right now.
RETRY_SECONDS = 2.0
#: Seconds between warnings while the lock stays taken (a process stopped while holding it), and between the
#: lines that say a file is still unfit.
LOCK_WARN_SECONDS = 30.0

class UnfitFiles:
    """What a worker said of the files its transactions wait for to be fixed: each error once, then every
    :data:`LOCK_WARN_SECONDS` while it lasts; another error (the file edited again) at once.

    One for all of a worker's transactions, its lanes' and its hooks': a line every :data:`RETRY_SECONDS` from
    each filled a worker's log, a line a second for a file left broken overnight.
    """

    def __init__(self) -> None:
        self._said: dict[str, float] = {}  # when each error was last said (monotonic seconds)

    def say(self, error: str) -> None:
        now = time.monotonic()
        last = self._said.get(error)
        if last is not None and now - last < LOCK_WARN_SECONDS:
            return
        if len(self._said) > 16:  # errors of edits long fixed
            self._said.clear()
        self._said[error] = now
        log.error("%s; waiting for the file to be fixed", error)


async def transact(
    transaction: Callable[..., _R], *args: Any, unfit: UnfitFiles, settled: Callable[[_R], None] | None = None,
    until: Callable[[], bool] = lambda: False,
) -> _R:
    """Run a file transaction in a thread; wait while the file is invalid or the lock is held.

    Someone may be editing the file by hand, or a process holding the lock may
    be stopped: a worker must neither die nor lose the game it just played, so
    it says what is wrong (through ``unfit``) and tries again. When cancelled (a clean stop), the
    attempt under way still finishes, since a thread cannot be stopped, and
    ``settled`` learns its outcome; the waiting between attempts ends at once.
    Once ``until()`` (a stop, for a caller that is not cancelled), an invalid file's error is raised, not waited
    out: a file that stays invalid held the worker for ever.
    """
    waiting_since: float | None = None
    warned = 0.0
    while True:
        attempt = asyncio.ensure_future(asyncio.to_thread(transaction, *args))
        try:
            return await asyncio.shield(attempt)
        except asyncio.CancelledError:
            with contextlib.suppress(ConfigError, LockTimeout):
                outcome = await through_cancellation(attempt)  # a second stop, too, must learn it
                if settled is not None:
                    settled(outcome)
            raise
        except ConfigError as exc:
            if until():
                raise
            unfit.say(str(exc))
            await asyncio.sleep(RETRY_SECONDS)
        except LockTimeout as exc:
            now = time.monotonic()
            waiting_since = waiting_since or now
            if now - warned >= LOCK_WARN_SECONDS and now - waiting_since >= LOCK_WARN_SECONDS:
                warned = now
                log.warning("%s; still waiting after %.0f s", exc, now - waiting_since)


async def through_cancellation(work: Awaitable[_R]) -> _R:
    """Await ``work`` to its end, even if the task awaiting it is cancelled meanwhile.

    For what a stop must still finish or learn the outcome of (a transaction's thread, which cannot
    be stopped; a give-back), where the exception under way must stay the one raised: the
    cancellations that arrive meanwhile are absorbed, since the task is ending anyway.
    """
    task = asyncio.ensure_future(work)
    while True:
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done() and not task.cancelled():
                return task.result()  # it ended as the stop came: its outcome stands, not the stop
            if task.done():
                raise
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()


class BookkeepingThread(concurrent.futures.ThreadPoolExecutor):
    """A worker's one thread for its bookkeeping (transactions, which the lock serializes anyway, PGN text,
    openings; each thread that wants the interpreter is one more the event loop may queue behind), which
    sets ``idle`` whenever it has nothing left to do. New games' clocks wait for that (see
    :class:`~tmanager.tourney.engine.EnginePool`'s ``settled``): at the end of a wave of games, a worker
    records and claims dozens at once, and games started meanwhile lost their first moves on time.

    Work is submitted from the event loop's thread, as ``asyncio.to_thread`` does. :func:`work` makes it the
    default executor of its worker's event loop.
    """

    def __init__(self, idle: asyncio.Event) -> None:
        super().__init__(1, thread_name_prefix="tmanager")
        self._loop = asyncio.get_running_loop()
        self._pending = 0
        self._idle = idle

    def submit(self, fn: Callable[..., _R], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[_R]:
        self._pending += 1
        self._idle.clear()
        future = super().submit(fn, *args, **kwargs)
        # Counted on the loop's thread alone, at the cost of one more wake-up an item: a lock shared with
        # the bookkeeping thread could leave the loop waiting for that thread to give up the interpreter.
        future.add_done_callback(lambda _: self._loop.call_soon_threadsafe(self._done))
        return future

    def _done(self) -> None:
        self._pending -= 1
        if not self._pending:
            self._idle.set()
