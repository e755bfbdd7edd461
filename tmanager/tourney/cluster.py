"""Play one tourney on many hosts: a coordinator that hands its games to a Dask distributed cluster.

The coordinator (``tmanager run FILE --dask tcp://HOST:8786``) keeps the tourney
file on its own disk, where the lock is reliable. Each of its *lanes* is a
:class:`~tmanager.tourney.worker.Worker`: it claims, heartbeats, records and runs the
hooks exactly as a local worker does, but its game is played by
:func:`play_remote`, a Dask task, on whichever host the scheduler picks. The
task gets the participants as written in the tourney file and resolves them on
its own host (same definition names, that host's commands), so the hosts need
the engines, not the tourney file.

Failures: a Dask worker that dies mid-game has its task run again elsewhere by
the scheduler (and after Dask's own retries, the coordinator submits it again);
only the coordinator records, once per claim, so no game is recorded twice. The
claims carry the coordinator's pid: when it is killed they go stale like a local
worker's, and the next `run` or `work` replays them. A task notices within a
move that its coordinator has gone or stopped, and ends its game.

Games in progress are published live as local workers publish theirs
(:class:`~tmanager.tourney.live.LiveGame`): a task reports its position through Dask's
event topics (:data:`LIVE_TOPIC`), and the coordinator writes the file, for as
long as it awaits that very task. Lanes follow the cluster's thread count,
retiring between games when workers leave; waiting lanes take turns to claim
again (:class:`~tmanager.tourney.worker.WaitingLanes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import chess
import distributed
from distributed.client import FutureCancelledError

from tmanager.core.schedule import ScheduledGame
from tmanager.errors import ConfigError, EngineError, StateError, TManagerError
from tmanager.logs import setup_logging
from tmanager.tourney import eventloop, store
from tmanager.tourney.engine import EnginePool
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.gamesetup import load_book
from tmanager.tourney.live import HeldBack, LiveGame, PositionView
from tmanager.tourney.model import Participant, Settings, Tourney
from tmanager.tourney.play import GameRecord, GameSpec, play_game
from tmanager.tourney.resolution import resolve_engine
from tmanager.tourney.validation import check_outputs, games_elsewhere
from tmanager.tourney.worker import Lane, Worker

log = logging.getLogger("tmanager")

#: How long the coordinator tries to reach the scheduler before giving up.
CONNECT_SECONDS = 10.0
#: Times the coordinator submits a game again after Dask gave up on it (its workers kept dying).
MAX_RESUBMITS = 3
#: How long stopping waits for the coordinator to give its games back.
STOP_SECONDS = 30.0
#: The Dask event topic on which tasks report their games' positions (each coordinator keeps its own tasks').
LIVE_TOPIC = "tmanager-live"
#: What ends the coordinator whose scheduler died, whichever request of its learnt it (a game's, the cluster's size).
SCHEDULER_LOST = ("lost the connection to the Dask scheduler; the games in progress were given back (restart the "
                  "scheduler and its workers, then run the same command)")
#: Least seconds between two position reports of one game: every report crosses the scheduler.
LIVE_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Played:
    """What a Dask task returns: the finished game and the worker that played it."""

    record: GameRecord
    worker: str


class EngineMissing(EngineError):
    """A Dask worker cannot run a participant's engine: unknown definition or program on its host."""

    def __init__(self, worker: str, engine: str, reason: str) -> None:
        super().__init__(worker, engine, reason)  # plain args: the exception travels pickled
        self.worker, self.engine, self.reason = worker, engine, reason

    def __str__(self) -> str:
        return f"Dask worker {self.worker} cannot run engine {self.engine!r}: {self.reason}"


class GameReleased(Exception):
    """Raised inside a task whose coordinator no longer wants the game (it stopped or died)."""


# --- on the Dask workers ---------------------------------------------------------------------------


def resolve_here(p: Participant, settings: Settings, directory: str) -> EngineSpec:
    """Resolve and check ``p`` on this host: definitions and relative paths start from the tourney's
    directory when this host has it (a shared or copied tree), else from the current directory."""
    home = Path(directory) if Path(directory).is_dir() else Path.cwd()
    spec = resolve_engine(p, settings, directory=home)
    spec.check_runnable()
    return spec


def engine_problems(participants: Sequence[Participant], settings: Settings, directory: str) -> dict[str, str]:
    """Participants this host cannot run, with the reason (run on every worker before the first game)."""
    problems = {}
    for p in participants:
        try:
            resolve_here(p, settings, directory)
        except TManagerError as exc:
            problems[p.name] = str(exc)
    return problems


_thread = threading.local()


def _engine_loop() -> tuple[asyncio.AbstractEventLoop, EnginePool]:
    # One event loop and engine pool per Dask thread, kept between tasks, so that engines
    # with restart = false stay running between games as with a local worker. Engines die
    # with the thread that started them (see play.die_with_parent).
    if not hasattr(_thread, "loop"):
        _thread.loop = eventloop.factory()()
        _thread.pool = EnginePool()
    return _thread.loop, _thread.pool


def play_remote(
    spec: GameSpec, white: Participant, black: Participant, settings: Settings, *, directory: str, task_key: str
) -> Played:
    """The Dask task (whose key is ``task_key``): resolve both engines on this host, play the game, return it.

    ``spec`` was built by the coordinator; its engines are replaced by the ones
    resolved here. :class:`EngineMissing` says this host lacks one of them.
    """
    worker = distributed.get_worker()
    engines = []
    for p in (white, black):
        try:
            engines.append(resolve_here(p, settings, directory))
        except TManagerError as exc:
            raise EngineMissing(worker.address, p.name, str(exc)) from None

    reported = -LIVE_SECONDS
    view = PositionView()
    held = HeldBack()  # a report that came too soon is made when its time comes (see HeldBack)

    def report(board: chess.Board, white_clock: float, black_clock: float) -> None:
        nonlocal reported
        held.cancel()
        reported = time.monotonic()
        worker.log_event(LIVE_TOPIC, {"key": task_key, "position": view(board, white_clock, black_clock)})

    def on_move(board: chess.Board, white_clock: float, black_clock: float) -> None:
        # The scheduler cancels the task when its coordinator releases it or disconnects.
        task = worker.state.tasks.get(task_key)
        if task is None or task.state == "cancelled":
            raise GameReleased(task_key)
        wait = reported + LIVE_SECONDS - time.monotonic()
        if wait > 0:
            held.hold(wait, report, board, white_clock, black_clock)
        else:
            report(board, white_clock, black_clock)

    loop, pool = _engine_loop()
    try:
        record = loop.run_until_complete(
            play_game(replace(spec, white=engines[0], black=engines[1]), pool, on_move=on_move)
        )
    finally:
        held.cancel()  # the loop is the thread's next task's too
    return Played(record, worker.address)


# --- on the coordinator ----------------------------------------------------------------------------


class Cluster:
    """The coordinator's view of the Dask cluster, shared by its lanes: the client, which
    engines each worker lacks (its games go to the others), and the live files of the games
    its tasks are playing."""

    def __init__(self, client: distributed.Client, directory: Path) -> None:
        self.client = client
        self.directory = directory
        self.lacking: dict[str, dict[str, str]] = {}  # worker address -> engine name -> reason
        self.live: dict[str, LiveGame] = {}  # key of an awaited task -> its game's live file

    async def threads(self) -> dict[str, int]:
        """The connected workers and their thread counts (asked of the scheduler)."""
        try:
            threads: dict[str, int] = await self.client.nthreads()  # type: ignore[no-untyped-call]
        except OSError:  # the scheduler died while asked (distributed's CommClosedError): as a game's end says it
            raise StateError(SCHEDULER_LOST) from None
        return threads

    def publish(self, event: tuple[float, Any]) -> None:
        """Write the live file of the game a task reports on (the handler of :data:`LIVE_TOPIC`).

        Only the tasks being awaited are written: a report that arrives after its game
        was recorded, released or submitted again (from a dead worker, another coordinator)
        is dropped, so it cannot bring back a removed file.
        """
        message = event[1]
        live = self.live.get(message.get("key", "")) if isinstance(message, dict) else None
        if live is None:
            return
        try:
            live.write(message["position"])
        except OSError as exc:  # a view only: the game goes on, the next report tries again
            log.warning("%s not written: %s", live.path, exc)

    def lacks(self, worker: str, engine: str, reason: str) -> None:
        """Remember (and report, once) that ``worker`` cannot run ``engine``."""
        if engine not in self.lacking.setdefault(worker, {}):
            self.lacking[worker][engine] = reason
            log.warning("Dask worker %s cannot run engine %r: %s; its games go to other workers",
                        worker, engine, reason)

    async def check_engines(self, tourney: Tourney) -> None:
        """Ask every connected worker which participants it can run; fail if one runs nowhere."""
        found: Mapping[str, dict[str, str]] = await self.client.run(
            engine_problems, tourney.participants, tourney.settings, str(self.directory)
        )
        for worker, problems in found.items():
            for engine, reason in problems.items():
                self.lacks(worker, engine, reason)
        for p in tourney.participants:
            reasons = [problems[p.name] for problems in found.values() if p.name in problems]
            if found and len(reasons) == len(found):
                raise EngineError(f"no Dask worker can run engine {p.name!r}: {reasons[0]}")

    def _allowed(self, workers: Sequence[str], engines: set[str]) -> list[str] | None:
        """The workers that may play a game of ``engines``; ``None`` when any may (none lacks them)."""
        allowed = [w for w in workers if not engines & self.lacking.get(w, {}).keys()]
        return None if len(allowed) == len(workers) else allowed

    async def play(self, spec: GameSpec, white: Participant, black: Participant, settings: Settings,
                   *, number: int, live: LiveGame) -> Played:
        """Play game ``number`` on the cluster until a worker returns it, publishing it in ``live``."""
        resubmits = 0
        while True:
            allowed = self._allowed(list(await self.threads()), {white.name, black.name})
            if allowed == []:
                raise EngineError(
                    f"game {number}: no connected Dask worker can run both {white.name!r} and {black.name!r} "
                    "(install the engines on a worker, or start one that has them, then run again)"
                )
            key = f"tmanager-game-{number}-{uuid.uuid4().hex[:8]}"
            future = self.client.submit(
                play_remote, spec, white, black, settings, directory=str(self.directory), task_key=key,
                key=key, pure=False, workers=allowed, allow_other_workers=False,
            )
            self.live[key] = live
            try:
                played: Played = await future
                return played
            except EngineMissing as exc:
                self.lacks(exc.worker, exc.engine, exc.reason)
            except distributed.KilledWorker:
                resubmits += 1
                if resubmits > MAX_RESUBMITS:
                    raise StateError(f"game {number}: every Dask worker that played it died; "
                                     "look at the workers' logs, then run again") from None
                log.warning("game %d: the Dask workers playing it kept dying; submitting it again", number)
            except FutureCancelledError as exc:
                if exc.reason == "scheduler-connection-lost":
                    raise StateError(SCHEDULER_LOST) from None
                reason = " ".join(str(exc).split())
                raise StateError(f"game {number}: {reason} (check the Dask scheduler, then run again)") from None
            finally:
                del self.live[key]  # before the game is recorded or released, which removes the file
                future.release()  # type: ignore[no-untyped-call]  # a game given up mid-way is cancelled on its worker


class ClusterLane(Lane):
    """One lane of the coordinator: claims and records like a local worker's lane; the cluster plays."""

    def __init__(self, worker: Worker, cluster: Cluster) -> None:
        super().__init__(worker)
        self.cluster = cluster

    async def _run_game(self, tourney: Tourney, game: ScheduledGame, spec: GameSpec) -> GameRecord:
        played = await self.cluster.play(
            spec, tourney.participants[game.white], tourney.participants[game.black], tourney.settings,
            number=game.number, live=LiveGame(tourney, game, spec),
        )
        log.info("game %d: played on Dask worker %s", game.number, played.worker)
        return played.record


async def coordinate(
    path: Path, address: str, *, concurrency: int | None = None, on_ready: Callable[[], None] | None = None
) -> int:
    """Play the remaining games of tourney ``path`` on the Dask cluster at ``address``.

    Plays ``concurrency`` games at once, or as many as the cluster has threads
    (growing as workers join). ``on_ready`` is called once the cluster is
    reached and its engines checked. Returns the number of games played.
    """
    if concurrency is not None and concurrency < 1:
        raise ConfigError("must be at least 1", field="--dask-concurrency")
    path = path.resolve()
    tourney = store.read(path)
    check_outputs(tourney)  # the coordinator writes them; the engines are checked on the cluster's hosts
    load_book(tourney)
    try:
        client = await distributed.Client(  # type: ignore[no-untyped-call]
            address, asynchronous=True, timeout=CONNECT_SECONDS
        )
    except (OSError, ValueError) as exc:
        raise StateError(
            f"cannot reach the Dask scheduler at {address}: {exc} (start it with `dask scheduler`, "
            "or check the address)"
        ) from None
    if (elsewhere := games_elsewhere(tourney)) is not None:
        log.warning("%s", elsewhere)
    async with client:
        cluster = Cluster(client, tourney.directory)
        await cluster.check_engines(tourney)
        client.subscribe_topic(LIVE_TOPIC, cluster.publish)
        if on_ready is not None:
            on_ready()
        worker = Worker(path, lane=lambda worker: ClusterLane(worker, cluster))

        async def follow() -> None:
            threads = sum((await cluster.threads()).values())
            worker.resize(max(1, threads), why=f"the cluster has {threads} thread{'' if threads == 1 else 's'}")

        if concurrency is not None:
            return await worker.run(concurrency, why="--dask-concurrency")
        return await worker.run(0, follow=follow)


class Coordinator:
    """`tmanager run --dask`: :func:`coordinate` in a thread of the `run` process, so the claims
    carry run's pid, with the interface of run's local worker processes (start, stop…)."""

    def __init__(self, path: Path, address: str, *, log_path: Path, concurrency: int | None = None) -> None:
        self.path = path
        self.address = address
        self.log_path = log_path
        self.concurrency = concurrency
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[int] | None = None
        self._thread = threading.Thread(target=self._main, name="tmanager-dask", daemon=True)

    def _main(self) -> None:
        async def main() -> int:
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
            return await coordinate(self.path, self.address, concurrency=self.concurrency,
                                    on_ready=self._ready.set)

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            log.info("coordinator stopped; its games were given back")
        except BaseException as exc:
            self.error = exc
        finally:
            self._ready.set()

    def start(self) -> None:
        """Connect and check the engines on the workers; errors are raised here."""
        # Its warnings (an engine missing on a host) also go to the terminal; distributed's own (a lost scheduler,
        # with its traceback) to the log file only: what they mean ends the run as one tmanager line.
        setup_logging(self.log_path, libraries=("distributed", "tornado"))
        self._thread.start()
        self._ready.wait()
        if self.error is not None:
            self._thread.join()
            raise self.error

    def wait(self, timeout: float) -> None:
        """Wait ``timeout`` seconds, or less if the coordinator ends."""
        self._thread.join(timeout)

    def tend(self, tourney: Tourney | None) -> int | None:
        """``None`` while the coordinator runs, else 0 (what made it fail is raised by :meth:`stop`). Nothing
        to replace: Dask replays the games of its dead workers itself."""
        return None if self._thread.is_alive() else 0

    def stop(self, *, graceful: bool) -> None:
        """Stop the lanes (each gives its game back) and raise what made the coordinator fail, if
        anything. A graceful stop first lets them finish (their last hooks run once the tourney is done)."""
        if graceful:
            self._thread.join(timeout=STOP_SECONDS)
        if self._loop is not None and self._task is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already finished
                self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(timeout=STOP_SECONDS)
        if self.error is not None:
            raise self.error
