"""Workers: claim a game under the lock, play it, record it, run its hooks, repeat.

Any number of workers, in any number of processes and terminals, cooperate on
one tourney file. A claim marks the game ``*`` and records its owner (host,
pid, process start time, heartbeat, size of the PGN) in the journal; a claim
whose owner is gone is released and its game replayed, unless the owner had
already appended the game to the PGN, in which case its result is recovered
from there (and its hooks become due).

Hooks run exactly once. Recording a game records its ``after_game`` hook (and,
for the last game, ``after_tourney``) as pending, in the same transaction.
Whoever holds the lock next may take a pending hook: it marks the hook taken,
leaves a marker file of that taking, runs the hook and then removes it. The
hook's shell removes the marker as its first act and goes on only if that
worked. A hook whose taker died is run again only if its marker is still there
(the hook never started): the marker is removed first, so that a shell of the
dead taker that starts late gives up. Removing a file succeeds once, so
exactly one of the two goes on; a hook that started ran, or is running on its
own, and is done.

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
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Collection, Iterator
from pathlib import Path
from typing import Any, TypeVar

import chess

from tmanager import hooks
from tmanager.core.results import Result
from tmanager.core.schedule import DONE, WAIT, ScheduledGame, next_game
from tmanager.errors import ConfigError, LockTimeout, TManagerError
from tmanager.files import Stamp, append_line, stamp
from tmanager.formats import pgn
from tmanager.tourney import eventloop, store, swiss
from tmanager.tourney.announce import Announcer, EngineStarted, EngineWarning, GameFinished, GameStarted
from tmanager.tourney.claims import Owner, process_is_alive, stale_games
from tmanager.tourney.engine import Engine, EnginePool
from tmanager.tourney.live import LiveGame, LivePace
from tmanager.tourney.model import PLAYING, UNPLAYED, Claim, PendingHook, PgnMark, Settings, Tourney
from tmanager.tourney.openings import Opening, OpeningBook
from tmanager.tourney.outcome import Ending
from tmanager.tourney.play import GameRecord, GameSpec, MoveObserver, play_game
from tmanager.tourney.pvcheck import PvChecks

log = logging.getLogger("tmanager")

_R = TypeVar("_R")

#: How often one of a worker's waiting lanes claims again when the tourney has not changed (a claim may
#: have gone stale with its owner, which changes nothing in the file).
POLL_SECONDS = 0.25
#: How often a worker whose lanes wait looks whether the tourney changed (two ``stat`` calls, no lock): a
#: game recorded elsewhere, the round's last, or the tourney's, lets a lane claim at once.
WATCH_SECONDS = 0.02
#: Seconds a worker's transaction waits for the lock before it tries again (so a stop is prompt).
LOCK_POLL = 1.0
#: Seconds between warnings while the lock stays taken (a process stopped while holding it).
LOCK_WARN_SECONDS = 30.0
#: The environment variable that marks engines (and their children) with the worker they belong to.
ENGINE_TAG = "TMANAGER_ENGINE_OF"
#: The longest a thread of a worker (a transaction, a game's PGN being written) holds the interpreter
#: before the event loop may run again. The loop lets it go at every system call (each read, write and
#: poll), and while the bookkeeping thread computes, each time costs the loop up to this long to get it
#: back: a move against an engine that answers at once took 1.2 ms at 1 ms, 0.3 ms at 0.1 ms (Python's
#: default, 5 ms, would be charged to the clocks).
SWITCH_INTERVAL = 0.0001
#: How often a worker whose lanes follow something (the Dask coordinator: the cluster's size) looks again.
FOLLOW_SECONDS = 2.0


def release_stale(tourney: Tourney) -> list[tuple[int, str]]:
    """Release every stale claim; a game already in the PGN keeps its result and gets its hooks.

    Returns (game, new results character) for each. Claims left on games no longer
    marked ``*`` (a hand edit) are dropped, and engines of dead workers are killed.
    """
    released = [(number, give_back(tourney, number)) for number in stale_games(tourney)]
    for number in [n for n in tourney.claims if tourney.result(n) != PLAYING]:
        del tourney.claims[number]
    if released:
        reap_engines(tourney.path)
    return released


def give_back(tourney: Tourney, number: int) -> str:
    """End the claim on game ``number``: the game is not played, unless it is already in the PGN (its
    worker died, or failed to write, after appending it): then it keeps that result and gets its hooks.
    Returns the game's new results character."""
    claim = tourney.claims.get(number)
    found = pgn.find_game(tourney.pgn_path, number, start=claim.pgn_offset if claim else 0)
    char = Result.from_pgn(found.result).xboard if found else UNPLAYED
    tourney.set_result(number, char)
    if found is not None and char != UNPLAYED:
        add_hooks(tourney, number, game_env(number, found.result, found.termination, found.reason, found.white,
                                            found.black))
    LiveGame.remove(tourney, number)
    return char


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


def game_env(number: int, result: str, termination: str, reason: str, white: str, black: str) -> dict[str, str]:
    """What an ``after_game`` hook learns of its game."""
    return {
        "TMANAGER_GAME": str(number),
        "TMANAGER_RESULT": result,
        "TMANAGER_TERMINATION": termination,
        "TMANAGER_REASON": reason,
        "TMANAGER_WHITE": white,
        "TMANAGER_BLACK": black,
    }


def add_hooks(tourney: Tourney, number: int, env: dict[str, str]) -> None:
    """Record the hooks that game ``number``'s result calls for as pending."""
    s = tourney.settings
    if s.after_game:
        tourney.hooks[f"after_game:{number}"] = PendingHook("after_game", s.after_game, env, game=number)
    if tourney.is_complete():
        add_after_tourney(tourney)


def add_after_tourney(tourney: Tourney) -> None:
    """Record ``after_tourney`` as pending (with an SPRT's verdict in its environment), if there is one."""
    if tourney.settings.after_tourney:
        tourney.hooks["after_tourney"] = PendingHook(
            "after_tourney", tourney.settings.after_tourney, verdict_environment(tourney)
        )


def hook_marker(tourney: Tourney, key: str, taker: tuple[str, int, float]) -> Path:
    """The file of ``taker``'s taking of hook ``key`` that the hook's shell removes as its first act:
    present means the hook never started."""
    _host, pid, started = taker
    return tourney.live_dir / f"hook-{key.replace(':', '-')}-{pid}-{started:.3f}"


def settle_hooks(tourney: Tourney) -> None:
    """Free the hooks whose taker died before starting them; drop those it started (they ran or still run)."""
    host = socket.gethostname()
    for key, hook in list(tourney.hooks.items()):
        if hook.taken_by is None:
            continue
        taker_host, pid, started = hook.taken_by
        if taker_host != host or process_is_alive(pid, started):
            continue
        try:  # the dead taker's shell may yet start: whichever removes the marker first goes on
            hook_marker(tourney, key, hook.taken_by).unlink()
        except FileNotFoundError:
            del tourney.hooks[key]
        else:
            tourney.hooks[key] = dataclasses.replace(hook, taken_by=None)


def next_hook(tourney: Tourney) -> str | None:
    """The pending hook to run next: ``after_game`` hooks by game, then ``after_tourney`` once they are done."""
    free = [key for key, hook in tourney.hooks.items() if hook.taken_by is None]
    games = sorted((tourney.hooks[k].game, k) for k in free if tourney.hooks[k].name == "after_game")
    if games:
        return games[0][1]
    if "after_tourney" in free and not any(h.name == "after_game" for h in tourney.hooks.values()):
        return "after_tourney"
    return None


def run_hook(hook: PendingHook, *, marker: Path, tourney_path: Path, pgn_path: Path) -> None:
    """Run a pending hook in the tourney's directory (see :mod:`tmanager.hooks`); a failure is logged, never
    fatal. Its shell removes ``marker`` first: from then on the hook counts as started."""
    variables = {
        "TMANAGER_TOURNEY": str(tourney_path),
        "TMANAGER_PGN": str(pgn_path),
        "TMANAGER_HOOK_MARKER": str(marker),
        ENGINE_TAG: "",  # a hook is not an engine: it must outlive its worker, not be killed with it
        **hook.env,
    }
    # Without the marker, the hook was given to another taker: this one must not run it too.
    script = f'rm -- "$TMANAGER_HOOK_MARKER" 2>/dev/null || exit 0\n{hook.command}'
    problem = hooks.run(script, name=hook.name, directory=tourney_path.parent, variables=variables)
    if problem is not None:
        marker.unlink(missing_ok=True)
        log.warning("%s hook %r %s", hook.name, hook.command, problem)


def game_spec(
    tourney: Tourney, game: ScheduledGame, book: OpeningBook | None, *, log_engines: bool = False
) -> GameSpec:
    """Everything the game runner needs to play scheduled ``game`` of ``tourney``; with ``log_engines``
    (or the tourney's setting) the engines' lines go to the game's file in ``engine_logs_dir``."""
    s, a = tourney.settings, tourney.adjudication
    start_fen: str | None = None
    moves: tuple[str, ...] = ()
    tags = {
        "Event": s.event or s.name,
        "Round": str(game.pgn_round),
        "GameNumber": str(game.number),
    }
    schedule = tourney.schedule()
    partner = schedule.partner(game.number)
    if partner is not None:  # so that a reader finds the pairs without knowing the schedule
        tags["Pair"] = str(min(game.number, partner))
    if s.site:
        tags["Site"] = s.site
    if book is not None:
        opening = opening_of(tourney, game.number, book)
        start_fen, moves = opening.fen, opening.moves
    return GameSpec(
        white=tourney.engine_spec(game.white),
        black=tourney.engine_spec(game.black),
        white_limits=tourney.time_control(game.white),
        black_limits=tourney.time_control(game.black),
        start_fen=start_fen,
        opening_moves=moves,
        variant=s.variant,
        adjudication=a.resolved(tourney.directory),
        white_time_margin=tourney.time_margin(game.white),
        black_time_margin=tourney.time_margin(game.black),
        move_timeout=s.move_timeout,
        comments=s.pgn_comments,
        comment_fields=s.pgn_comment_fields,
        notation=s.pgn_notation,
        minimal=s.pgn_minimal,
        engine_log=str(tourney.engine_logs_dir / f"game-{game.number}.log") if s.log_engines or log_engines else "",
        tags=tags,
        pv_checks=PvChecks(s.pv_checks),
        match_lines=s.pgn_match_lines,
        log_latency=s.log_latency,
    )


def opening_of(tourney: Tourney, number: int, book: OpeningBook) -> Opening:
    """The opening game ``number`` of ``tourney`` plays from ``book``, the tourney's book."""
    schedule = tourney.schedule()
    settings = tourney.openings
    assert settings is not None, "a tourney without [openings] has no book"
    key = schedule.opening_key(number)
    return book.opening_for(key, order=settings.order, seed=settings.seed, start=settings.start)


#: The longest `run` reads openings before its workers start (see :func:`read_ahead`).
READ_AHEAD_SECONDS = 2.0


def read_ahead(tourney: Tourney, *, games: int, seconds: float = READ_AHEAD_SECONDS) -> int:
    """Read the openings of the next ``games`` games to be claimed (the lowest-numbered unplayed ones)
    for at most ``seconds``, and no more than the book keeps; returns how many games' openings were read.

    A large book's openings are read as their games come (see :class:`OpeningBook`). `run` reads
    ahead the openings of its first two waves of games before it forks its workers, which inherit
    them: those games start together, hundreds at once on a big machine, first when the engines are
    ready and again when the first ones end, and a long opening takes milliseconds to read.
    """
    book = load_book(tourney)
    if book is None:
        return 0
    deadline = time.monotonic() + seconds
    total = tourney.schedule().total_games
    results = tourney.results  # shorter than the schedule when its last games are unplayed
    number = -1
    read = 0
    while read < min(games, book.KEPT) and time.monotonic() < deadline:
        found = results.find(UNPLAYED, number + 1)
        number = found if found >= 0 else max(number + 1, len(results))
        if number >= total:
            break
        opening_of(tourney, number, book)
        read += 1
    return read


def verdict_environment(tourney: Tourney) -> dict[str, str]:
    """``after_tourney``'s SPRT variables, from the verdict in the file (none without an SPRT)."""
    v = tourney.verdict
    if v is None:
        return {}
    return {
        "TMANAGER_SPRT_RESULT": v.result,
        "TMANAGER_SPRT_LLR": f"{v.llr:.4f}",
        "TMANAGER_SPRT_LOWER": f"{v.lower:.4f}",
        "TMANAGER_SPRT_UPPER": f"{v.upper:.4f}",
        "TMANAGER_SPRT_GAMES": str(v.games),
        "TMANAGER_SPRT_PAIRS": str(v.pairs),
    }


#: Seconds between attempts to read a tourney file that is not valid right now.
RETRY_SECONDS = 2.0


class StopRequested(Exception):
    """Raised between two moves when the worker was asked to stop."""


async def transact(transaction: Callable[..., _R], *args: Any, settled: Callable[[_R], None] | None = None) -> _R:
    """Run a file transaction in a thread; wait while the file is invalid or the lock is held.

    Someone may be editing the file by hand, or a process holding the lock may
    be stopped: a worker must neither die nor lose the game it just played, so
    it says what is wrong and tries again. When cancelled (a clean stop), the
    attempt under way still finishes, since a thread cannot be stopped, and
    ``settled`` learns its outcome; the waiting between attempts ends at once.
    """
    waiting_since: float | None = None
    warned = 0.0
    while True:
        attempt = asyncio.ensure_future(asyncio.to_thread(transaction, *args))
        try:
            return await asyncio.shield(attempt)
        except asyncio.CancelledError:
            with contextlib.suppress(ConfigError, LockTimeout):
                outcome = await _through_cancellation(attempt)  # a second stop, too, must learn it
                if settled is not None:
                    settled(outcome)
            raise
        except ConfigError as exc:
            log.error("%s; waiting for the file to be fixed", exc)
            await asyncio.sleep(RETRY_SECONDS)
        except LockTimeout as exc:
            now = time.monotonic()
            waiting_since = waiting_since or now
            if now - warned >= LOCK_WARN_SECONDS and now - waiting_since >= LOCK_WARN_SECONDS:
                warned = now
                log.warning("%s; still waiting after %.0f s", exc, now - waiting_since)


async def _through_cancellation(work: Awaitable[_R]) -> _R:
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


class Worker:
    """One worker process's play: its lanes, each playing one game at a time, on one event loop.

    A lane (:class:`Lane`) claims a game, plays it, records it, and claims the
    next. The lanes share what belongs to the process: the owner identity in their
    claims (a killed process's claims all go stale together), the stop, one
    :class:`~tmanager.tourney.engine.EnginePool`, one heartbeat for all their claims, turns
    to claim again while they wait (:class:`WaitingLanes`), and one task that runs
    the pending hooks. Its file transactions are here; each is short, run in a
    thread, and serialised with the others of the process by the store's lock.
    The Dask coordinator is a worker whose lanes play on the cluster.
    """

    def __init__(
        self, path: Path, *, max_games: int | None = None, log_engines: bool = False,
        lane: Callable[[Worker], Lane] | None = None, announcer: Announcer | None = None,
    ) -> None:
        self.path = path.resolve()
        self.owner = Owner.me()
        self.max_games = max_games
        self.log_engines = log_engines
        self.announcer = announcer
        self.bookkeeping_idle = asyncio.Event()  # cleared by a BookkeepingThread (work() makes one) while it works
        self.bookkeeping_idle.set()
        self.pool = EnginePool(settled=self.bookkeeping_idle, on_start=self._engine_started if announcer else None)
        self.waiting = WaitingLanes(functools.partial(store.stamp, self.path))
        self.make_lane: Callable[[Worker], Lane] = lane or Lane
        self.lanes: list[Lane] = []
        self.tasks: list[asyncio.Task[int]] = []
        self.wanted = 0
        self.staying = 0  # lanes that have not retired
        self.claimed = 0  # games claimed (counted before the claim, so that lanes never claim past max_games)
        self.lease = Settings().lease  # the tourney's, as of the last claim
        self.stopping = False
        self._hooks_due = asyncio.Event()
        self._lanes_done = False
        self._books: dict[tuple[Path, str, int, str], OpeningBook | None] = {}
        self.live_pace = LivePace()  # shared by the live files of its lanes' games

    def stop(self) -> None:
        """Stop soon: each lane's move under way is its last, its game is given back (call from the event loop)."""
        self.stopping = True
        self._hooks_due.set()  # the hook runner ends too, once the hook it runs (if any) is over
        for task in self.tasks:
            task.cancel()

    def playing(self) -> list[int]:
        """The games this worker's lanes hold."""
        return [lane.playing for lane in self.lanes if lane.playing is not None]

    # --- file transactions (each one short, under the lock) ---------------------------------

    def claim(self) -> tuple[Tourney, ScheduledGame] | str:
        """Claim the next game, or say :data:`~tmanager.core.schedule.WAIT` or ``DONE``."""
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            tourney.check_pgn()  # a PGN cut by hand stops the tourney here, before more is written
            self.lease = tourney.settings.lease
            for number, char in release_stale(tourney):
                what = "recovered from the PGN" if char != UNPLAYED else "will be replayed"
                log.warning("game %d: its worker is gone; the game %s", number, what)
            if swiss.pair_next_round(tourney):
                log.info("Swiss round %d paired: %s", len(tourney.swiss), tourney.swiss[-1])
            decided = tourney.verdict
            tourney.update_verdict()
            if tourney.verdict is not None and tourney.verdict != decided and tourney.is_complete():
                add_after_tourney(tourney)  # decided without a game recorded (an edit of its bounds)
            choice = next_game(
                tourney.schedule(),
                tourney.results,
                sync_after_round=tourney.settings.sync_after_round,
                sync_after_cycle=tourney.settings.sync_after_cycle,
                only=tourney.claimable(),
            )
            if isinstance(choice, str):
                if choice == DONE and (PLAYING in tourney.results or tourney.hooks):
                    return WAIT  # others are playing (or their hooks are due): stay to take over should they die
                return choice
            now = time.time()
            tourney.set_result(choice.number, PLAYING)
            tourney.claims[choice.number] = Claim(
                host=self.owner.host, pid=self.owner.pid, started=self.owner.started, claimed=now, heartbeat=now,
                pgn_offset=_size(tourney.pgn_path),
            )
            self._seen(tourney)
            return tourney, choice

    def record(self, number: int, record: GameRecord, env: dict[str, str]) -> tuple[Tourney, bool] | None:
        """Write the game to the PGN and its result and hooks to the file; ``None`` if the game is no longer ours.

        The second value says whether this result completed the tourney. A game
        released meanwhile and not claimed by another worker is still recorded: it
        was played in full.
        """
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            char = tourney.result(number)
            if not (char == UNPLAYED or (char == PLAYING and self.owner.owns(tourney.claims.get(number)))):
                log.warning("game %d: recorded or claimed by another worker meanwhile; this result is discarded",
                            number)
                return None
            tourney.check_pgn()
            at = pgn.append_game(tourney.pgn_path, record.pgn)
            if tourney.settings.epd_out:
                try:
                    append_line(tourney.directory / tourney.settings.epd_out, record.epd)
                except TManagerError:
                    pgn.cut_back(tourney.pgn_path, at)  # the game is recorded whole, or not at all
                    raise
            tourney.pgn_mark = PgnMark(str(tourney.pgn_path), _size(tourney.pgn_path))
            tourney.set_result(number, record.result.xboard)
            tourney.update_verdict()
            add_hooks(tourney, number, env)
            LiveGame.remove(tourney, number)
            for engine, kind in record.faults.items():
                tourney.count_fault(engine, kind)
            for engine, seconds in record.oversteps.items():
                tourney.note_overstep(engine, seconds)
            self._seen(tourney)
            return tourney, tourney.is_complete()

    def release(self, number: int) -> str | None:
        """Give a claimed game back (clean stop): unplayed, or recorded if its game made it to the PGN.
        Returns its new results character (``None`` if it was no longer ours)."""
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            if self.owner.owns(tourney.claims.get(number)) and tourney.result(number) == PLAYING:
                return give_back(tourney, number)
            return None

    def heartbeat(self, numbers: Collection[int]) -> None:
        """Refresh the heartbeat of this worker's claims on games ``numbers``, all in one transaction."""
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            now = time.time()
            for number in numbers:
                claim = tourney.claims.get(number)
                if self.owner.owns(claim) and claim is not None:
                    tourney.claims[number] = dataclasses.replace(claim, heartbeat=now)
            self._seen(tourney)

    def _engine_started(self, engine: Engine) -> None:
        if self.announcer is not None:
            identity = engine.identity()
            self.announcer.announce(EngineStarted(engine.spec.name, identity.name, identity.author, identity.options))

    def announce_finished(self, game: ScheduledGame, spec: GameSpec, record: GameRecord) -> None:
        """Tell the follower of this run (if any) that ``game`` ended and is stored."""
        if self.announcer is None:
            return
        for warning in record.pv_warnings:
            finding = warning.finding
            self.announcer.announce(EngineWarning(
                finding.problem, warning.engine, finding.move, finding.info, warning.start, warning.moves
            ))
        loser = spec.black.name if record.result is Result.WHITE_WINS else spec.white.name
        overstep = record.oversteps.get(loser) if record.ending is Ending.TIME_FORFEIT else None
        self.announcer.announce(GameFinished(
            game.number, spec.white.name, spec.black.name, record.result, record.ending,
            record.reason, None if overstep is None else round(overstep * 1000),
        ))

    def _seen(self, tourney: Tourney) -> None:
        """Note how many games are in progress (every worker's), for the pace of the live files."""
        self.live_pace.claims = len(tourney.claims)

    def take_hook(self) -> tuple[str, PendingHook, Path, Path, Path] | None:
        """Take the next pending hook, if any: (key, hook, marker, tourney file, PGN)."""
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            settle_hooks(tourney)
            key = next_hook(tourney)
            if key is None:
                return None
            marker = hook_marker(tourney, key, self.owner.key)
            marker.parent.mkdir(exist_ok=True)
            marker.touch()  # before the transaction commits: a taker that dies after it leaves the marker
            hook = tourney.hooks[key] = dataclasses.replace(tourney.hooks[key], taken_by=self.owner.key)
            return key, hook, marker, tourney.path, tourney.pgn_path

    def finish_hook(self, key: str) -> None:
        with store.transaction(self.path, timeout=LOCK_POLL) as tourney:
            hook = tourney.hooks.get(key)
            if hook is not None and hook.taken_by == self.owner.key:
                del tourney.hooks[key]

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
            while self.tasks:
                await asyncio.wait(
                    [*self.tasks, *([] if hooks.done() else [hooks])],
                    timeout=None if follow is None else FOLLOW_SECONDS, return_when=asyncio.FIRST_COMPLETED,
                )
                if hooks.done() and not hooks.cancelled() and hooks.exception() is not None:
                    await hooks  # raises its error
                for lane in [task for task in self.tasks if task.done()]:
                    self.tasks.remove(lane)
                    played += await lane  # a lane's error is raised here
                if follow is not None and self.tasks:
                    await follow()
            self._lanes_done = True
            self._hooks_due.set()
            await hooks  # the hooks of the last games
        finally:
            if self.tasks:  # a lane failed, or this worker is cancelled: the others give their games back
                self.stop()
                results = await asyncio.gather(*self.tasks, return_exceptions=True)
                played += sum(r for r in results if isinstance(r, int))
            beat.cancel()
            hooks.cancel()
            # What they ended with: an error of theirs after a lane's (a full disk hits all) is no news, and
            # left unretrieved, asyncio would print it as a traceback.
            await asyncio.gather(beat, hooks, return_exceptions=True)
            await self.pool.close()
        return played

    def resize(self, wanted: int, *, why: str) -> None:
        """Aim at ``wanted`` lanes: start the missing ones; the surplus ones retire when they can."""
        if wanted != self.wanted:
            log.info("%s: playing %d game%s at once", why, wanted, "" if wanted == 1 else "s")
        self.wanted = self.live_pace.lanes = wanted
        while self.staying < wanted:
            self.staying += 1
            lane = self.make_lane(self)
            self.lanes.append(lane)
            self.tasks.append(asyncio.create_task(lane.run()))

    def retire(self, lane: Lane) -> bool:
        """Whether ``lane``, about to claim a game, should end instead: there are too many lanes, or
        ``max_games`` are claimed, or a stop. Never with a game in hand."""
        surplus = self.staying > self.wanted
        if not (surplus or self.stopping or (self.max_games is not None and self.claimed >= self.max_games)):
            return False
        self.staying -= 1
        self.lanes.remove(lane)
        if surplus:
            log.info("a lane retired: %d left", self.staying)
        return True

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
                while not self.stopping:
                    taken = await transact(self.take_hook)
                    if taken is None:
                        break
                    key, hook, marker, path, pgn_path = taken
                    run = functools.partial(run_hook, hook, marker=marker, tourney_path=path, pgn_path=pgn_path)
                    await loop.run_in_executor(hook_thread, run)
                    await transact(self.finish_hook, key)
                if self._lanes_done or self.stopping:
                    return
        finally:
            hook_thread.shutdown(wait=False)

    def game_spec(self, tourney: Tourney, game: ScheduledGame) -> GameSpec:
        """:func:`game_spec` of ``game`` with this worker's book and engine logging."""
        return game_spec(tourney, game, self.book(tourney), log_engines=self.log_engines)

    def book(self, tourney: Tourney) -> OpeningBook | None:
        """The tourney's opening book, loaded again only when its settings change."""
        o = tourney.openings
        if o is None:
            return None
        key = (tourney.directory / o.file, o.format, o.plies, tourney.settings.variant)
        if key not in self._books:
            self._books[key] = load_book(tourney)
        return self._books[key]


class Lane:
    """One lane of a :class:`Worker`: claims a game, plays it, records it, and claims the next.

    It plays its games here, publishing them live; a subclass may play them
    elsewhere (:class:`~tmanager.tourney.cluster.ClusterLane`).
    """

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.playing: int | None = None

    async def run(self) -> int:
        """Play until no game is left for this lane (or a stop); returns the games played."""
        worker = self.worker
        played = 0
        try:
            while True:
                choice = await self._claim()
                if isinstance(choice, str):
                    break
                tourney, game = choice
                self.playing = game.number
                await self._play(tourney, game)
                self.playing = None
                played += 1
                if tourney.settings.wait:  # fastchess's -wait: a pause before the next game
                    await asyncio.sleep(tourney.settings.wait)
        except (asyncio.CancelledError, StopRequested):
            if not worker.stopping:
                raise
        finally:
            if self.playing is not None:
                # A stop arriving now (a second signal, a sibling lane's error) must neither cut the
                # give-back short nor replace the error or stop this lane is ending with.
                await _through_cancellation(self._give_back(self.playing))
        return played

    async def _claim(self) -> tuple[Tourney, ScheduledGame] | str:
        """Claim a game, waiting (taking turns with the worker's other waiting lanes) for one to be
        free; ``DONE`` when none is left or the lane retires."""
        worker = self.worker
        while not worker.retire(self):
            worker.claimed += 1
            seen = worker.waiting.stamp()
            # What a claim cut short by a stop took must be known, so that the clean stop can give it back.
            choice = await transact(worker.claim, settled=self._remember)
            if not isinstance(choice, str):
                worker.waiting.pass_on()  # there may be more games free: the next waiting lane claims at once
                return choice
            worker.claimed -= 1
            if choice == DONE:
                break
            worker.hooks_due()  # others' hooks may be what keeps the tourney open
            await worker.waiting.turn(seen)
        worker.waiting.pass_on()  # the tourney is done, or lanes retire: the next waiting lane sees it at once
        return DONE

    def _remember(self, choice: tuple[Tourney, ScheduledGame] | str) -> None:
        if not isinstance(choice, str):
            self.playing = choice[1].number

    async def _give_back(self, number: int) -> None:
        try:
            # One attempt: a stop must be prompt even when another process holds the lock for long.
            char = await asyncio.to_thread(self.worker.release, number)
            if char == UNPLAYED:
                log.info("game %d released unplayed", number)
            elif char is not None:
                log.info("game %d recorded from the PGN, where it was written before the stop", number)
        except TManagerError as exc:  # an invalid file, a held lock, a full disk
            log.error("%s; game %d stays claimed and will be played again", exc, number)

    async def _play(self, tourney: Tourney, game: ScheduledGame) -> None:
        worker = self.worker
        try:
            # On the bookkeeping thread: an opening of a large book is read now, and a long one costs
            # milliseconds that the games playing on this loop would otherwise wait through.
            spec = await asyncio.to_thread(worker.game_spec, tourney, game)
            log.info("game %d: %s - %s started", game.number, spec.white.name, spec.black.name)
            if worker.announcer is not None:
                worker.announcer.announce(GameStarted(game.number, spec.white.name, spec.black.name))
            record = await self._run_game(tourney, game, spec)
        except ConfigError as exc:
            # A bad opening (each is read when its game comes), or an engine that refuses its options
            # or the variant: no game was played. run() gives the game back, and the worker stops
            # with this error (exit status 2).
            log.error("game %d not played: %s", game.number, exc)
            raise exc.located(file=tourney.path) from None
        env = game_env(game.number, record.result.pgn, record.termination, record.reason, spec.white.name,
                       spec.black.name)
        outcome = await transact(worker.record, game.number, record, env)
        self.playing = None
        if outcome is None:
            return
        worker.announce_finished(game, spec, record)
        overstep = "" if record.worst_overstep is None else f" [worst overstep {record.worst_overstep * 1000:.0f} ms]"
        log.info(
            "game %d: %s - %s %s (%s)%s",
            game.number,
            spec.white.name,
            spec.black.name,
            record.result.pgn,
            record.reason,
            overstep,
        )
        if outcome[0].hooks:
            worker.hooks_due()

    async def _run_game(self, tourney: Tourney, game: ScheduledGame, spec: GameSpec) -> GameRecord:
        """Play the claimed game here, publishing it live; a subclass may play it elsewhere."""
        live = LiveGame(tourney, game, spec, pace=self.worker.live_pace)
        return await play_game(spec, self.worker.pool, on_move=self._until_stopped(live))

    def _until_stopped(self, observer: MoveObserver) -> MoveObserver:
        """``observer``, stopping the game between two moves once a stop was asked for (should the
        cancellation have been lost, as ``asyncio.wait_for`` can)."""

        def watch(board: chess.Board, white_clock: float, black_clock: float) -> None:
            if self.worker.stopping:
                raise StopRequested
            observer(board, white_clock, black_clock)

        return watch


def preflight(tourney: Tourney) -> None:
    """Check what can fail before any game is claimed: every engine resolves and can be
    started, and the opening book loads and fits the settings (a large book: its first opening;
    the others are read as their games come)."""
    for index in range(len(tourney.participants)):
        tourney.check_runnable(index)
    load_book(tourney)
    tourney.check_pgn()


#: The book last read from each file, with the file's stamp and the settings it was read with:
#: :func:`preflight` and the games of a worker (or coordinator) read a book once, not twice.
_books: dict[Path, tuple[tuple[Stamp, str, int, str], OpeningBook]] = {}


def load_book(tourney: Tourney) -> OpeningBook | None:
    """The tourney's opening book, checked against its settings (a large one: its ``start`` and
    first opening, see :class:`OpeningBook`); ``None`` without ``[openings]``.

    Loaded again only when the book file or the settings it is read with change.
    """
    o = tourney.openings
    if o is None:
        return None
    path = tourney.directory / o.file
    key = (stamp(path), o.format, o.plies, tourney.settings.variant)
    try:
        cached = _books.get(path)
        if cached is None or cached[0] != key or key[0] is None:
            cached = (key, OpeningBook.load(path, format=o.format, plies=o.plies, variant=tourney.settings.variant))
            _books[path] = cached
        book = cached[1]
        book.opening_for(0, order=o.order, seed=o.seed, start=o.start)
    except ConfigError as exc:
        raise exc.located(file=tourney.path) from None
    return book


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


@contextlib.contextmanager
def _pidfd_child_watcher(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Have asyncio learn of engines' exits through pidfds on this loop while the worker runs.

    Python 3.11 waits for each child in a thread of its own, and starting that thread stalls the
    event loop for milliseconds per engine (hundreds start at once); 3.12 watches pidfds by default,
    so there this does nothing, nor on uvloop, which watches its children itself. The previous
    watcher is back afterwards.
    """
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open") or eventloop.name(loop) != "asyncio":
        yield
        return
    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(loop)
    asyncio.set_child_watcher(watcher)
    try:
        yield
    finally:
        asyncio.set_child_watcher(asyncio.ThreadedChildWatcher())  # closes ours


def work(
    path: Path, *, max_games: int | None = None, log_engines: bool = False, concurrency: int = 1,
    announce_fd: int | None = None,
) -> tuple[int, bool]:
    """Run one worker of ``concurrency`` lanes in this process until the tourney is done; SIGINT/SIGTERM
    stop every lane cleanly. ``log_engines`` writes engine logs as the tourney's ``log_engines`` setting does;
    with ``announce_fd``, its games are announced on that descriptor (:mod:`tmanager.tourney.announce`).

    Returns the games played and whether a signal stopped it.
    """
    if concurrency < 1:
        raise ConfigError(f"must be at least 1, not {concurrency}", field="--concurrency")
    tourney = store.read(path)  # before anything else looks at the path: it may not be a file at all
    preflight(tourney)
    loop_factory = eventloop.factory()
    path = tourney.path  # resolved
    announcer = None if announce_fd is None else Announcer(announce_fd)
    worker = Worker(path, max_games=max_games, log_engines=log_engines, announcer=announcer)
    # Engines inherit this mark, and their children too: see reap_engines.
    os.environ[ENGINE_TAG] = f"{path}|{worker.owner.host}|{worker.owner.pid}|{worker.owner.started}"
    reap_engines(path)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        log.info("event loop: %s", eventloop.name(loop))
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, worker.stop)
        loop.set_default_executor(BookkeepingThread(worker.bookkeeping_idle))
        with _pidfd_child_watcher(loop):
            return await worker.run(concurrency)

    # What exists now (modules, engine definitions) lives as long as the process: kept out of the cycle
    # collector's sight, its full collections, which stop every lane of this worker, take less time.
    gc.freeze()
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        played = eventloop.run(main(), loop_factory=loop_factory)
    finally:
        sys.setswitchinterval(switch_interval)
    if worker.stopping:
        log.info("worker stopped by signal")
    return played, worker.stopping
