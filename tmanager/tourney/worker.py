"""Workers: claim a game under the lock, play it, record it, run its hooks, repeat.

Any number of workers, in any number of processes and terminals, cooperate on
one tourney file. A claim marks the game ``*`` and records its owner (host,
pid, process start time, heartbeat, size of the PGN) in the journal; a claim
whose owner is gone is given back (:mod:`tmanager.tourney.claims`). Recording a
game records its hooks as pending, and each is run exactly once by whichever
worker takes it (:mod:`tmanager.tourney.hookrun`).

A worker process may play several games at once: each of its lanes claims,
plays and records one game at a time, on one event loop, and the lanes share
the process's identity, engines, heartbeat and stop (:class:`Worker`).

A stop (SIGINT, SIGTERM) ends the worker promptly: the move being thought
about is the last, the claimed games are given back unplayed, and engines and
their children are killed. Engines carry their worker's identity in their
environment, so those of a worker killed outright are found and killed too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import gc
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Collection, Iterator
from pathlib import Path

import chess

from tmanager.core.results import Result
from tmanager.core.schedule import DONE, WAIT, NoGame, ScheduledGame, next_game
from tmanager.errors import ConfigError, DiskError, LockTimeout, TManagerError
from tmanager.files import append_line, file_size
from tmanager.formats import pgn
from tmanager.logs import TOLD
from tmanager.tourney import eventloop, store, swiss, tuning
from tmanager.tourney.announce import Announcer
from tmanager.tourney.bookkeeping import BookkeepingThread, UnfitFiles, through_cancellation, transact
from tmanager.tourney.claims import give_back, give_back_strays, release_stale
from tmanager.tourney.engine import EnginePool
from tmanager.tourney.following import Announcements
from tmanager.tourney.gamesetup import Books, game_spec, preflight
from tmanager.tourney.hookrun import (
    TakenHook,
    add_hooks,
    finish_hook,
    game_env,
    note_verdict,
    take_hook,
)
from tmanager.tourney.lanes import ClaimAnswer, Claimed, LaneScheduler
from tmanager.tourney.live import LiveGame, LivePace
from tmanager.tourney.model import FINISHED_CHARS, PLAYING, UNPLAYED, Claim, PgnMark, Settings, Tourney
from tmanager.tourney.owners import ENGINE_TAG, Owner, reap_engines
from tmanager.tourney.play import GameRecord, GameSpec, MoveObserver, play_game
from tmanager.tourney.progress import claimable, update_verdict
from tmanager.tourney.validation import check_pgn, games_elsewhere

log = logging.getLogger("tmanager")

#: Seconds a worker's transaction waits for the lock before it tries again (so a stop is prompt).
LOCK_POLL = 1.0
#: The longest a thread of a worker (a transaction, a game's PGN being written) holds the interpreter
#: before the event loop may run again. The loop lets it go at every system call (each read, write and
#: poll), and while the bookkeeping thread computes, each time costs the loop up to this long to get it
#: back: a move against an engine that answers at once took 1.2 ms at 1 ms, 0.3 ms at 0.1 ms (Python's
#: default, 5 ms, would be charged to the clocks).
SWITCH_INTERVAL = 0.0001
#: How often a worker whose lanes follow something (the Dask coordinator: the cluster's size) looks again.
FOLLOW_SECONDS = 2.0


class StopRequested(Exception):
    """Raised between two moves when the worker was asked to stop."""


class Worker:
    """One worker process's play: its lanes, each playing one game at a time, on one event loop.

    A lane (:class:`Lane`) claims a game, plays it, records it, and claims the
    next. The lanes share what belongs to the process: the owner identity in their
    claims (a killed process's claims all go stale together), one
    :class:`~tmanager.tourney.engine.EnginePool`, one heartbeat for all their claims, one
    :class:`~tmanager.tourney.lanes.LaneScheduler` (how many lanes, the games claimed, the
    stop, turns to claim again while they wait), and one task that runs the pending hooks.
    Its file transactions are here; each is short, run in a thread, and serialised with the
    others of the process by the store's lock. The Dask coordinator is a worker whose lanes
    play on the cluster.
    """

    def __init__(
        self, path: Path, *, max_games: int | None = None, log_engines: bool = False,
        lane: Callable[[Worker], Lane] | None = None, announcer: Announcer | None = None,
    ) -> None:
        self.path = path.resolve()
        self.owner = Owner.me()
        self.log_engines = log_engines
        self.announcements = Announcements(announcer)
        self.bookkeeping_idle = asyncio.Event()  # cleared by a BookkeepingThread (work() makes one) while it works
        self.bookkeeping_idle.set()
        self.pool = EnginePool(settled=self.bookkeeping_idle, on_start=self.announcements.engine_started)
        self.scheduler = LaneScheduler(functools.partial(store.stamp, self.path), max_games=max_games)
        self.make_lane: Callable[[Worker], Lane] = lane or Lane
        self.lanes: dict[asyncio.Task[int], Lane] = {}  # those that have not ended
        self.lease = Settings().lease  # the tourney's, as of the last claim
        self._hooks_due = asyncio.Event()
        self._lanes_done = False
        self.books = Books()
        self.live_pace = LivePace()  # shared by the live files of its lanes' games
        self.unfit = UnfitFiles()  # what its transactions said of the files they wait for
        self.given_back = 0  #: games a stop gave back unplayed
        #: The games its lanes hold claims on, kept by its transactions as they commit them: a lane learns of its
        #: claim only after the transaction, and another lane's may come between.
        self.held: set[int] = set()

    @property
    def stopping(self) -> bool:
        """Whether a stop was asked for."""
        return self.scheduler.stopping

    def stop(self) -> None:
        """Stop soon: each lane's move under way is its last, its game is given back (call from the event loop)."""
        self.scheduler.stop()
        self._hooks_due.set()  # the hook runner ends too, once the hook it runs (if any) is over
        for task in self.lanes:
            task.cancel()

    def playing(self) -> list[int]:
        """The games this worker's lanes hold."""
        return [lane.playing for lane in self.lanes.values() if lane.playing is not None]

    # --- file transactions (each one short, under the lock) ---------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Tourney]:
        """:func:`~tmanager.tourney.store.transaction`, whose wait for the lock is short (a stop must be prompt)."""
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            yield tourney

    def claim(self) -> ClaimAnswer:
        """Claim the next game, or say why there is none: :data:`~tmanager.core.schedule.WAIT` or ``DONE``."""
        with self._transaction() as tourney:
            # A PGN cut by hand stops the tourney here, before more is written (one stat: a PGN replaced by a
            # longer one is told at the game's record, by the bytes before the mark, one small read a game).
            check_pgn(tourney, contents=False)
            self.lease = tourney.settings.lease
            self._give_back_strays(tourney, stale=True)
            if swiss.pair_next_round(tourney):
                log.info("Swiss round %d paired: %s", len(tourney.swiss), tourney.swiss[-1])
            note_verdict(tourney)
            choice = next_game(
                tourney.schedule(),
                tourney.results,
                sync_after_round=tourney.settings.sync_after_round,
                sync_after_cycle=tourney.settings.sync_after_cycle,
                only=claimable(tourney),
            )
            if isinstance(choice, NoGame):
                if choice is DONE and (PLAYING in tourney.results or tourney.hooks):
                    return WAIT  # others are playing (or their hooks are due): stay to take over should they die
                return choice
            now = time.time()
            tourney.set_result(choice.number, PLAYING)
            tuning.begin(tourney, choice.number)
            tourney.claims[choice.number] = Claim(
                host=self.owner.host, pid=self.owner.pid, started=self.owner.started, claimed=now, heartbeat=now,
                pgn_offset=file_size(tourney.pgn_path), boot=self.owner.boot,
            )
            self.held.add(choice.number)
            self._seen(tourney)
            return Claimed(tourney, choice)

    def record(self, number: int, record: GameRecord, env: dict[str, str]) -> Tourney | None:
        """Write the game to the PGN and its result and hooks to the file, and return the tourney so changed;
        ``None`` if the game is no longer ours, or was given a result by hand. A game released meanwhile and not
        claimed by another worker is still recorded: it was played in full. So is one in progress without a
        claim (its claim's line was cut from the journal by hand)."""
        with self._transaction() as tourney:
            recorded = self._record_in(tourney, number, record, env)
        self.held.discard(number)  # once committed: a transaction tried again must find it held still
        return recorded

    def _record_in(self, tourney: Tourney, number: int, record: GameRecord, env: dict[str, str]) -> Tourney | None:
        """:meth:`record`'s changes, in its transaction."""
        char, claim = tourney.result(number), tourney.claims.get(number)
        if char in FINISHED_CHARS and self.owner.owns(claim):  # an arbiter's decision (a forfeit): it stands
            log.warning("game %d: given the result %s by hand while this worker played it: the hand's result "
                        "stands, this worker's game is discarded", number, Result.from_xboard(char).pgn)
            del tourney.claims[number]
            LiveGame.remove(tourney, number)
            return None
        if not (char == UNPLAYED or (char == PLAYING and (claim is None or self.owner.owns(claim)))):
            log.warning("game %d: recorded or claimed by another worker meanwhile; this result is discarded", number)
            return None
        check_pgn(tourney)
        appended = pgn.append_game(tourney.pgn_path, record.pgn)
        if tourney.settings.epd_out:
            try:
                append_line(tourney.directory / tourney.settings.epd_out, record.epd, ended_by_hand=True)
            except TManagerError:
                pgn.cut_back(tourney.pgn_path, appended.start)  # the game is recorded whole, or not at all
                raise
        tourney.pgn_mark = PgnMark.after_append(
            tourney.pgn_mark, tourney.pgn_path, appended, finished=tourney.finished_count
        )
        tourney.set_result(number, record.result.xboard)
        update_verdict(tourney)
        tuning.advance(tourney)
        add_hooks(tourney, number, env)
        LiveGame.remove(tourney, number)
        for engine, kind in record.faults.items():
            tourney.count_fault(engine, kind)
        for engine, seconds in record.oversteps.items():
            tourney.note_overstep(engine, seconds)
        self._seen(tourney)
        return tourney

    def release(self, number: int) -> str | None:
        """Give a claimed game back (clean stop): unplayed, or recorded if its game made it to the PGN.
        Returns its new results character (``None`` if it was no longer ours)."""
        with self._transaction() as tourney:
            mine = self.owner.owns(tourney.claims.get(number)) and tourney.result(number) == PLAYING
            char = give_back(tourney, number) if mine else None
        self.held.discard(number)
        return char

    def heartbeat(self, numbers: Collection[int]) -> None:
        """Refresh the heartbeat of this worker's claims on games ``numbers``, all in one transaction."""
        with self._transaction() as tourney:
            now = time.time()
            for number in numbers:
                claim = tourney.claims.get(number)
                if self.owner.owns(claim) and claim is not None:
                    tourney.claims[number] = dataclasses.replace(claim, heartbeat=now)
            self._seen(tourney)

    def _give_back_strays(self, tourney: Tourney, *, stale: bool) -> None:
        """Give back this worker's claims that none of its lanes holds (and, with ``stale``, those of workers
        gone), saying so: at each claim, and as the worker ends, which claims no more."""
        gone = [(number, char, "its worker is gone") for number, char in release_stale(tourney)] if stale else []
        strays = [(number, char, "this worker claimed it, and no longer plays it")
                  for number, char in give_back_strays(tourney, self.owner, held=self.held)]
        for number, char, why in gone + strays:
            what = "recovered from the PGN" if char != UNPLAYED else "will be replayed"
            log.warning("game %d: %s; the game %s", number, why, what)

    def end(self) -> None:
        """As a stopped worker ends: give back its claims that no lane holds (its lanes gave theirs back)."""
        with self._transaction() as tourney:
            self._give_back_strays(tourney, stale=False)

    def _seen(self, tourney: Tourney) -> None:
        """Note how many games are in progress (every worker's), for the pace of the live files."""
        self.live_pace.claims = len(tourney.claims)

    def take_hook(self) -> TakenHook | None:
        """Take the next pending hook, if any (see :func:`~tmanager.tourney.hookrun.take_hook`)."""
        with self._transaction() as tourney:
            if self._lanes_done:  # no claim is left to give its strays back: these takes do, and run their hooks
                self._give_back_strays(tourney, stale=False)
            return take_hook(tourney, self.owner)

    def finish_hook(self, key: str) -> None:
        with self._transaction() as tourney:
            finish_hook(tourney, key, self.owner)

    # --- the lanes ---------------------------------------------------------------------------

    async def run(self, concurrency: int = 1, *, why: str = "--concurrency",
                  follow: Callable[[], Awaitable[None]] | None = None) -> int:
        """Play with ``concurrency`` lanes until the tourney is done (or ``max_games`` are claimed, or a
        stop); returns the games played. ``follow``, if given, is called at once and then every
        :data:`FOLLOW_SECONDS`, and may :meth:`resize` the lanes. A lane that fails stops the others
        (each gives its game back), and its error is raised here."""
        beat = asyncio.create_task(self._heartbeats())
        hooks = asyncio.create_task(self._hook_runner())
        self._hooks_due.set()  # hooks left pending by others (a worker killed before running them)
        played = 0
        try:
            self.resize(concurrency, why=why)
            if follow is not None:
                await follow()
            while self.lanes:
                await asyncio.wait(
                    [*self.lanes, *([] if hooks.done() else [hooks])],
                    timeout=None if follow is None else FOLLOW_SECONDS, return_when=asyncio.FIRST_COMPLETED,
                )
                if hooks.done() and not hooks.cancelled() and hooks.exception() is not None:
                    await hooks  # raises its error
                for lane in [task for task in self.lanes if task.done()]:
                    del self.lanes[lane]
                    played += await lane  # a lane's error is raised here
                if follow is not None and self.lanes:
                    await follow()
            self._lanes_done = True
            self._hooks_due.set()
            await hooks  # the hooks of the last games
        finally:
            if self.lanes:  # a lane failed, or this worker is cancelled: the others give their games back
                self.stop()
                results = await asyncio.gather(*self.lanes, return_exceptions=True)
                played += sum(r for r in results if isinstance(r, int))
            beat.cancel()
            hooks.cancel()
            # What they ended with: an error of theirs after a lane's (a full disk hits all) is no news, and
            # left unretrieved, asyncio would print it as a traceback.
            await asyncio.gather(beat, hooks, return_exceptions=True)
            if self.stopping:
                await through_cancellation(self._end())
            await self.pool.close()
        return played

    async def _end(self) -> None:
        try:  # one attempt, as a lane's give-back: a stop must be prompt
            await asyncio.to_thread(self.end)
        except TManagerError as exc:  # the lanes' give-backs have said so (a held lock, a full disk) if it matters
            log.info("%s; this worker's claims that no lane holds stay until they are found stale", exc)

    def resize(self, wanted: int, *, why: str) -> None:
        """Aim at ``wanted`` lanes: start the missing ones; the surplus ones retire when they can."""
        if wanted != self.scheduler.wanted:
            log.info("%s: playing %d game%s at once", why, wanted, "" if wanted == 1 else "s")
        self.live_pace.lanes = wanted
        for _ in range(self.scheduler.resize(wanted)):
            lane = self.make_lane(self)
            self.lanes[asyncio.create_task(lane.run())] = lane

    async def _heartbeats(self) -> None:
        """Refresh all of this worker's claims every ``lease/4`` s, in one transaction."""
        while True:
            await asyncio.sleep(self.lease / 4)
            games = self.playing()
            if not games:
                continue
            try:
                await asyncio.to_thread(self.heartbeat, games)
            except (ConfigError, LockTimeout) as exc:  # a half-saved hand edit, a held lock: the next beat will do
                log.warning("heartbeat skipped: %s", exc)

    def hooks_due(self) -> None:
        """Say that pending hooks may be there to run (a game was recorded, or a lane waits)."""
        self._hooks_due.set()

    async def _hook_runner(self) -> None:
        """Run the pending hooks, one at a time, whenever some may be due, until the lanes are done.

        A hook waits in a thread of its own: the bookkeeping's thread must not wait for it."""
        hook_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="tmanager-hook")
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self._hooks_due.wait()
                self._hooks_due.clear()
                ending = self._lanes_done  # as read before the takes, which then give back the lanes' strays
                while not self.stopping:
                    try:
                        taken = await transact(self.take_hook, unfit=self.unfit, until=lambda: self.stopping)
                        if taken is None:
                            break
                        await loop.run_in_executor(hook_thread, taken.run)
                        await transact(self.finish_hook, taken.key, unfit=self.unfit, until=lambda: self.stopping)
                    except ConfigError:  # raised once stopping: the file stays unfit, and a stop must end
                        return
                if ending or self.stopping:
                    return
        finally:
            hook_thread.shutdown(wait=False)

    def game_spec(self, tourney: Tourney, game: ScheduledGame) -> GameSpec:
        """:func:`~tmanager.tourney.gamesetup.game_spec` of ``game`` with this worker's books and engine logging."""
        return game_spec(tourney, game, self.books.book(tourney), log_engines=self.log_engines)


class Lane:
    """One lane of a :class:`Worker`: claims a game, plays it, records it, and claims the next.

    It plays its games here, publishing them live; a subclass may play them
    elsewhere (:class:`~tmanager.tourney.cluster.ClusterLane`).
    """

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.playing: int | None = None
        self.played = 0  #: games recorded

    async def run(self) -> int:
        """Play until no game is left for this lane (or a stop); returns the games played."""
        worker = self.worker
        try:
            while isinstance(claimed := await self._claim(), Claimed):
                self.playing = claimed.game.number
                await self._play(claimed.tourney, claimed.game)
                if claimed.tourney.settings.wait:  # fastchess's -wait: a pause before the next game
                    await asyncio.sleep(claimed.tourney.settings.wait)
        except (asyncio.CancelledError, StopRequested):
            if not worker.stopping:
                raise
        finally:
            if self.playing is not None:
                # A stop arriving now (a second signal, a sibling lane's error) must neither cut the
                # give-back short nor replace the error or stop this lane is ending with.
                await through_cancellation(self._give_back(self.playing))
        return self.played

    async def _claim(self) -> ClaimAnswer:
        """Claim a game, waiting (taking turns with the worker's other waiting lanes) for one to be
        free; ``DONE`` when none is left or the lane retires."""
        worker = self.worker
        # What a claim cut short by a stop took must be known, so that the clean stop can give it back.
        attempt = functools.partial(transact, worker.claim, unfit=worker.unfit, settled=self._remember)
        # While lanes wait, others' hooks may be what keeps the tourney open.
        return await worker.scheduler.claim(attempt, idle=worker.hooks_due)

    def _remember(self, answer: ClaimAnswer) -> None:
        if isinstance(answer, Claimed):
            self.playing = answer.game.number

    def _recorded(self, outcome: Tourney | None) -> None:
        """The game's record is done: it is no longer this lane's to give back, and played unless discarded."""
        self.playing = None
        self.played += outcome is not None

    async def _give_back(self, number: int) -> None:
        try:
            # One attempt: a stop must be prompt even when another process holds the lock for long.
            char = await asyncio.to_thread(self.worker.release, number)
            if char == UNPLAYED:
                self.worker.given_back += 1
                log.info("game %d released unplayed", number)
            elif char is not None:
                log.info("game %d recorded from the PGN, where it was written before the stop", number)
        except TManagerError as exc:  # an invalid file, a held lock, a full disk
            # A full disk ends the worker, which says so as it ends: the log has the game's fate, stderr one line.
            told = TOLD if isinstance(exc, DiskError) else None
            log.error("%s; game %d stays claimed and will be played again", exc, number, extra=told)

    async def _play(self, tourney: Tourney, game: ScheduledGame) -> None:
        worker = self.worker
        try:
            # On the bookkeeping thread: an opening of a large book is read now, and a long one costs
            # milliseconds that the games playing on this loop would otherwise wait through.
            spec = await asyncio.to_thread(worker.game_spec, tourney, game)
            log.info("game %d: %s - %s started", game.number, spec.white.name, spec.black.name)
            worker.announcements.game_started(game.number, spec)
            record = await self._run_game(tourney, game, spec)
        except ConfigError as exc:
            # A bad opening (each is read when its game comes), or an engine that refuses its options
            # or the variant: no game was played. run() gives the game back, and the worker stops
            # with this error (exit status 2).
            log.error("game %d not played: %s", game.number, exc, extra=TOLD)
            raise exc.located(file=tourney.path) from None
        result = record.result.pgn
        env = game_env(game.number, result, record.termination, record.reason, spec.white.name, spec.black.name)
        # A stop during the record learns its outcome too (its thread goes on regardless): a game recorded is
        # a game played and counted, not one to give back.
        outcome = await transact(worker.record, game.number, record, env, unfit=worker.unfit, settled=self._recorded)
        self._recorded(outcome)
        if outcome is None:
            return
        worker.announcements.game_finished(game.number, spec, record)
        overstep = "" if record.worst_overstep is None else f" [worst overstep {record.worst_overstep * 1000:.0f} ms]"
        log.info(
            "game %d: %s - %s %s (%s)%s",
            game.number,
            spec.white.name,
            spec.black.name,
            result,
            record.reason,
            overstep,
        )
        if outcome.hooks:
            worker.hooks_due()

    async def _run_game(self, tourney: Tourney, game: ScheduledGame, spec: GameSpec) -> GameRecord:
        """Play the claimed game here, publishing it live; a subclass may play it elsewhere."""
        live = LiveGame(tourney, game, spec, pace=self.worker.live_pace)
        try:
            return await play_game(spec, self.worker.pool, on_move=self._until_stopped(live))
        finally:
            live.close()

    def _until_stopped(self, observer: MoveObserver) -> MoveObserver:
        """``observer``, stopping the game between two moves once a stop was asked for (should the
        cancellation have been lost, as ``asyncio.wait_for`` can)."""

        def watch(board: chess.Board, white_clock: float, black_clock: float) -> None:
            if self.worker.stopping:
                raise StopRequested
            observer(board, white_clock, black_clock)

        return watch


@dataclasses.dataclass(frozen=True, slots=True)
class WorkDone:
    """What a worker did before it ended."""

    played: int
    #: A signal stopped it (else nothing was left for it to play).
    stopped: bool
    #: Games in progress the stop gave back unplayed (a stop while the last hooks ran gives back none).
    given_back: int = 0


def work(
    path: Path, *, max_games: int | None = None, log_engines: bool = False, concurrency: int = 1,
    announce_fd: int | None = None,
) -> WorkDone:
    """Run one worker of ``concurrency`` lanes in this process until the tourney is done; SIGINT/SIGTERM
    stop every lane cleanly. ``log_engines`` writes engine logs as the tourney's ``log_engines`` setting does;
    with ``announce_fd``, its games are announced on that descriptor (:mod:`tmanager.tourney.announce`)."""
    if concurrency < 1:
        raise ConfigError(f"must be at least 1, not {concurrency}", field="--concurrency")
    tourney = store.read(path)  # before anything else looks at the path: it may not be a file at all
    preflight(tourney)
    if (elsewhere := games_elsewhere(tourney)) is not None:
        log.warning("%s", elsewhere)
    loop_factory = eventloop.factory()
    path = tourney.path  # resolved
    announcer = None if announce_fd is None else Announcer(announce_fd)
    worker = Worker(path, max_games=max_games, log_engines=log_engines, announcer=announcer)
    # Engines inherit this mark, and their children too: see reap_engines.
    os.environ[ENGINE_TAG] = worker.owner.engine_tag(path)
    reap_engines(path)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        log.info("event loop: %s", eventloop.name(loop))
        loop.set_default_executor(BookkeepingThread(worker.bookkeeping_idle))
        with eventloop.pidfd_child_watcher(loop):
            return await worker.run(concurrency)

    # What exists now (modules, engine definitions) lives as long as the process: kept out of the cycle
    # collector's sight, its full collections, which stop every lane of this worker, take less time.
    gc.freeze()
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        played = eventloop.run(main(), loop_factory=loop_factory, on_stop=worker.stop)
    finally:
        sys.setswitchinterval(switch_interval)
    if worker.stopping:
        log.info("worker stopped by signal")
    return WorkDone(played, stopped=worker.stopping, given_back=worker.given_back)
