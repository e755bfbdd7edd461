"""Engine processes: starting one (its own process group, dying with this process), its handshake and
options, the moves asked of it, and its end; the pool that keeps idle engines between games and gates
how many start at once.

An :class:`Engine` is one running process with its protocol. Whatever goes wrong with it (a crash, a
stall, an unreadable move) is raised to the game, which turns it into a result; an engine that refuses
its options is a :class:`~tmanager.errors.ConfigError`, never a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import random
import shutil
import signal
import subprocess
from collections.abc import Callable, Coroutine, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import chess

from tmanager.errors import ConfigError
from tmanager.files import open_file
from tmanager.tourney.engineclient import EngineClient
from tmanager.tourney.enginelines import EngineError, LineObserver
from tmanager.tourney.engineoptions import MANAGED, RefusedOption, option_text, unconverted
from tmanager.tourney.engines import EngineSpec, Protocol
from tmanager.tourney.outcome import GameOver
from tmanager.tourney.search import Reply, SearchLimit, Wanted
from tmanager.tourney.starts import HostStarts, Wait
from tmanager.tourney.transport import popen
from tmanager.tourney.uciclient import UciClient
from tmanager.tourney.xboardclient import XBoardClient

_PR_SET_PDEATHSIG = 1
# libc as this process already has it loaded (ctypes.util.find_library would run ldconfig at
# every start); None where there is no prctl (not Linux).
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send this process ``signum`` when its parent dies, even by ``kill -9`` (Linux;
    elsewhere nothing). Engines get SIGKILL, so that no orphan keeps a core busy; `run`'s workers
    SIGTERM, so that they give their games back."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signum)


#: util-linux's setpriv, which asks the kernel the same (``--pdeathsig KILL``) and then becomes the
#: engine. Preferred to :func:`die_with_parent`: a child that runs Python code before its exec
#: cannot be started with vfork, and blocks the event loop, every game of the worker with it, for
#: several milliseconds per engine (a start-up storm of hundreds of engines: seconds).
_SETPRIV = shutil.which("setpriv") if _prctl is not None else None


def _dying_with_parent(command: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """``command`` and the ``preexec_fn`` of its ``Popen`` that make the engine die with this process."""
    if _SETPRIV is not None:
        return [_SETPRIV, "--pdeathsig", "KILL", "--", *command], None
    return command, die_with_parent


#: Seconds an engine found crashed, stalled or unresponsive gets to quit before it is killed: it has
#: already shown that it does not answer, and its lane's next game waits for it.
BROKEN_ENGINE_QUIT = 0.5

#: Seconds an engine whose move was cut off gets to end that search (``bestmove`` after ``stop``), as
#: fastchess gives it, before the ping: one still searching then is replaced, not waited on a whole ping.
STOP_GRACE = 10.0


@dataclass(frozen=True, slots=True)
class EngineIdentity:
    """What an engine says of itself: its name and author, and each option's value (given, or its default)."""

    name: str
    author: str
    options: Mapping[str, str]


#: The client of each protocol: the one place an engine's protocol is told apart.
CLIENTS: Mapping[Protocol, type[EngineClient]] = {Protocol.UCI: UciClient, Protocol.XBOARD: XBoardClient}


def client_class(spec: EngineSpec) -> type[EngineClient]:
    """The client class that speaks to ``spec``'s engine."""
    return CLIENTS[spec.protocol]


def _configure(client: EngineClient, spec: EngineSpec) -> tuple[RefusedOption, ...]:
    """Give the engine ``spec``'s options; the values it refused and is left without, with
    ``spec.warn_refused_options`` (one at a time then, as fastchess sets them), else :class:`EngineError` at the
    first. An option the runner sets itself is refused either way: the game could not be played as asked."""
    if not spec.warn_refused_options:
        client.configure(spec.options)
        return ()
    declared = {name.lower(): option for name, option in client.options.items()}
    refused = []
    for name, value in spec.options.items():
        try:
            client.configure({name: value})
        except EngineError:
            if name.lower() in MANAGED:
                raise
            option, text = declared.get(name.lower()), option_text(value)
            refused.append(RefusedOption(
                name, text, missing=option is None, unconverted="" if option is None else unconverted(option, text)
            ))
    return tuple(refused)


class Engine:
    """A running engine process: its client (:class:`~tmanager.tourney.engineclient.EngineClient`) and the
    process group to kill."""

    def __init__(self, spec: EngineSpec, transport: asyncio.SubprocessTransport, client: EngineClient) -> None:
        self.spec = spec
        self.transport = transport
        self.client = client
        self.pid = transport.get_pid()
        self._getting_ready: asyncio.Task[None] | None = None  # begun by get_ready(), awaited by ready()
        #: The options it refused and plays without (``EngineSpec.warn_refused_options``).
        self.refused: tuple[RefusedOption, ...] = ()

    @classmethod
    async def start(cls, spec: EngineSpec, *, observer: LineObserver | None = None) -> Engine:
        """Start ``spec`` and finish its handshake, its lines shown to ``observer`` from the first;
        :class:`~tmanager.tourney.enginelines.EngineError`, ``OSError`` or ``TimeoutError`` when the engine
        fails, :class:`ConfigError` when its program is gone or cannot be run, its stderr log cannot be
        opened, or it refuses its options."""
        # Checked at each start, not only when the tourney was read: a program deleted or rebuilt under way
        # would otherwise start as the launcher's exit 127 and lose game after game as a crash.
        spec.check_runnable()
        stderr: int | IO[bytes] = subprocess.DEVNULL
        if spec.stderr_log:
            try:
                # Checked and opened without blocking: one made a FIFO since the tourney was read held the worker
                # for ever (a device is never another program's to write).
                hint = "check the path of stderr"
                fd = open_file(Path(spec.stderr_log), os.O_WRONLY | os.O_CREAT | os.O_APPEND, hint=hint)
                stderr = os.fdopen(fd, "ab")
            except OSError as exc:
                raise ConfigError(
                    f"cannot open the stderr log {spec.stderr_log!r} of engine {spec.name!r}: {exc.strerror}",
                    hint="check the path of stderr",
                ) from None
        try:
            engine = await asyncio.wait_for(_open(spec, stderr=stderr, observer=observer),
                                            timeout=spec.handshake_timeout)
        finally:
            if not isinstance(stderr, int):
                stderr.close()
        try:
            engine.refused = _configure(engine.client, spec)
        except EngineError as exc:
            await engine.close()
            # Whole, not cut at 120 characters as first_line would: the list of the options the engine has is the help.
            raise ConfigError(
                f"engine {spec.name!r} refuses its options: {exc}",
                hint="fix the options of the participant or of its engine definition",
            ) from None
        return engine

    def identity(self) -> EngineIdentity:
        """The engine's name, author and option values, as its handshake gave them and it was configured."""
        client, given = self.client, self.spec.options
        options = {
            name: option_text(given.get(name, option.default))
            for name, option in client.options.items()
            if given.get(name, option.default) is not None and option.kind.takes_value
        }
        return EngineIdentity(client.name, client.author, options)

    def watch(self, observer: LineObserver | None) -> None:
        """Show the engine's lines, both ways, to ``observer`` (a game's engine log), or to no one."""
        self.client.observer = observer

    def check_variant(self, board: chess.Board) -> None:
        """Raise :class:`ConfigError` if the engine cannot play ``board``'s variant, or be given its start."""
        self.client.check_variant(board, self.spec.name)

    def play(
        self, board: chess.Board, limit: SearchLimit, *, wanted: Wanted = Wanted.NOTHING, keep_lines: bool = False
    ) -> Coroutine[Any, Any, Reply]:
        """The engine's move in ``board``, the game's board moved on since this engine's previous move (the
        client's coroutine itself: one frame less a move)."""
        return self.client.play(board, limit, wanted=wanted, keep_lines=keep_lines, ponder=self.spec.ponder)

    async def caught_up(self) -> bool:
        """Whether the engine answered, within its ``ping_timeout``, what it was asked after its last move (XBoard's
        ``ping``): awaited before its clock runs, as it is no thinking of its own."""
        if not self.client.behind:  # every UCI move, and XBoard's without ping: no timer a move for nothing
            return True
        try:
            async with asyncio.timeout(self.spec.ping_within):
                await self.client.settle()
        except TimeoutError:
            return False
        return True

    def get_ready(self) -> None:
        """Begin :meth:`ready`'s work for the engine's next game now: the engine clears its hash for it
        while its worker records the game just played, not while the next game waits."""
        if self._getting_ready is None:
            self._getting_ready = asyncio.create_task(self.client.new_game(ponder=self.spec.ponder))

    async def ready(self) -> None:
        """Be ready for a new game's first move: wait for what :meth:`get_ready` began, or do it now."""
        begun, self._getting_ready = self._getting_ready, None
        await (begun if begun is not None else self.client.new_game(ponder=self.spec.ponder))

    def answered_at(self, started: float) -> float:
        """When the engine's answer to a request sent at ``started`` was read (``time.monotonic()``): the
        end of its thinking as far as the manager can tell. A game resumes later than that when its
        worker's event loop has other games' work queued before it, and that is not the engine's time."""
        return max(self.client.answered_at, started)

    async def responsive(self, *, within: float) -> bool:
        """Whether the engine, whose move request was cut off (it was told to stop), ends that search within
        :data:`STOP_GRACE` seconds (or ``within``, if less) and then answers a ping within ``within``.
        fastchess asks the same after every move: such an engine may play the next game, which a restart
        would only delay."""
        if not self.client.can_ping:
            return False  # no way to tell whether it still listens
        try:
            await asyncio.wait_for(self.client.settle(), timeout=min(STOP_GRACE, within))
            await asyncio.wait_for(self.client.ping(), timeout=within)
        except (TimeoutError, EngineError):
            return False
        return True

    async def game_over(self, board: chess.Board, over: GameOver) -> None:
        """Tell the engine how its game ended (an XBoard engine may learn or log it), for half a second at most."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.client.game_over(board, over.result.pgn, over.reason), timeout=0.5)

    async def close(self, *, healthy: bool = True) -> None:
        """Ask the engine to quit, then make sure it and its children are gone.

        A healthy engine gets its ``handshake_timeout`` to exit: an engine may save what it learnt or
        flush its logs as it quits, and hundreds quitting at once on a busy machine each take longer
        (fastchess waits up to 60 s). One found crashed, stalled or unresponsive gets
        :data:`BROKEN_ENGINE_QUIT` seconds.
        """
        if self.transport.get_returncode() is None:
            grace = self.spec.handshake_timeout if healthy else BROKEN_ENGINE_QUIT
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.quit(), timeout=grace)
        await self.kill()

    async def kill(self) -> None:
        """Kill the engine's whole process group at once and wait until the process is reaped."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        self.transport.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.client.returncode), timeout=2.0)
        begun, self._getting_ready = self._getting_ready, None
        if begun is not None:  # its outcome no longer matters, but is taken, so that nothing reports it lost
            begun.cancel()
            await asyncio.gather(begun, return_exceptions=True)


async def _open(spec: EngineSpec, *, stderr: int | IO[bytes], observer: LineObserver | None) -> Engine:
    """Start the engine in its own process group, dying with us, and do its handshake;
    an engine that fails (or is cancelled) on the way is killed with its group and reaped."""
    command, preexec_fn = _dying_with_parent(list(spec.command))
    make = client_class(spec).for_engine

    def client() -> EngineClient:
        made = make(spec)
        made.observer = observer  # from the first line on
        return made

    transport, protocol = await popen(client, command, cwd=spec.workdir, stderr=stderr, preexec_fn=preexec_fn)
    engine = Engine(spec, transport, protocol)
    try:
        await protocol.handshake()
    except BaseException:
        await engine.kill()
        raise
    return engine


#: Engines one pool starts at once (the others wait their turn before their handshake's time starts):
#: hundreds started together would share the cores and miss their ``handshake_timeout``.
START_LIMIT = 2 * (os.cpu_count() or 1)
#: The games held back together start their clocks at random moments over RELEASE_STEP seconds per game, and
#: RELEASE_SPREAD at most (:meth:`EnginePool.quiet`; tools/bench_concurrency.py: 256 games released at once at
#: st 0.1 lost their first moves on time).
RELEASE_STEP = 0.01
RELEASE_SPREAD = 0.25
#: The longest a game's clocks wait for the other work of its process (an :class:`EnginePool`'s ``settled``).
SETTLE_SECONDS = 1.0


class EnginePool:
    """Engines kept between games (``restart = false``), and the gate through which engines start.

    Several idle processes may be kept per participant: a worker playing K games at
    once needs up to K of each, and every game gets processes of its own. At most
    ``start_limit`` engines start at once; an engine's ``handshake_timeout`` runs
    from the moment its own start begins, not while it waits for its turn. The
    engines other processes start on this host are told apart through
    ``host_starts``, and the process's other work that takes the cores from
    new games through ``settled`` (see :meth:`quiet`). An event loop of its own
    per pool (a worker's, or a Dask thread's).
    """

    def __init__(
        self, *, start_limit: int = START_LIMIT, host_starts: HostStarts | None = None,
        settled: asyncio.Event | None = None, on_start: Callable[[Engine], None] | None = None,
    ) -> None:
        self._idle: dict[Hashable, list[Engine]] = {}  # by EngineSpec.key
        self._starting = asyncio.Semaphore(start_limit)
        self._starts = 0  # engines starting or waiting to
        self._quiet = asyncio.Event()
        self._quiet.set()
        self._host_starts = host_starts or HostStarts()
        self._settled = settled
        self._holding = 0  # games waiting in quiet() now
        self._on_start = on_start  # told of every engine process started

    async def acquire(self, spec: EngineSpec, *, observer: LineObserver | None = None) -> Engine:
        """An engine of ``spec``: one kept idle, else one started now; its lines shown to ``observer``."""
        idle = self._idle.get(spec.key, [])
        while idle:
            engine = idle.pop()
            if engine.transport.get_returncode() is None:
                engine.watch(observer)
                return engine
            await engine.kill()
        self._starts += 1
        if self._starts == 1:
            self._host_starts.begin()
        self._quiet.clear()
        try:
            async with self._starting:
                engine = await Engine.start(spec, observer=observer)
            if self._on_start is not None:
                self._on_start(engine)
            return engine
        finally:
            self._starts -= 1
            if not self._starts:
                self._host_starts.end()
                self._quiet.set()

    async def quiet(self) -> None:
        """Return once no engine of this pool is starting or waiting to start, and none of another process
        on this host (for at most :data:`~tmanager.tourney.starts.WAIT_SECONDS`, or
        :data:`~tmanager.tourney.starts.FIRST_WAIT_SECONDS` for the first games): a game's clocks wait
        for it, since engines starting take the cores from those already playing (a start-up storm).
        They wait likewise for the pool's ``settled`` event, if it has one, for at most
        :data:`SETTLE_SECONDS`: a worker's bookkeeping, which at the end of a wave of games records
        and claims dozens at once. A game held back then waits a random share of :data:`RELEASE_STEP` per
        game held back with it, :data:`RELEASE_SPREAD` at most."""
        self._holding += 1
        try:
            held = not self._quiet.is_set()
            await self._quiet.wait()
            if self._settled is not None and not self._settled.is_set():
                held = True
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(SETTLE_SECONDS):
                        await self._settled.wait()
            if await self._host_starts.quiet() is not Wait.NONE or held:
                # The games held back are released together, and would make their first moves (at fixed move
                # times, every move) in lockstep: more moves at once than the cores take in time. A game held
                # back alone (a worker's other lane recording its game) has no one to make way for.
                spread = min(RELEASE_SPREAD, self._holding * RELEASE_STEP)
                await asyncio.sleep(random.uniform(0.0, spread))
        finally:
            self._holding -= 1

    async def release(self, engine: Engine, *, healthy: bool, get_ready: bool = True) -> None:
        """Keep a healthy engine for a next game, unless its spec asks for a restart; with ``get_ready``,
        it begins to get ready for that game at once (:meth:`Engine.get_ready`)."""
        engine.watch(None)
        if healthy and not engine.spec.restart:
            if get_ready:
                engine.get_ready()
            self._idle.setdefault(engine.spec.key, []).append(engine)
        else:
            await engine.close(healthy=healthy)

    async def close(self) -> None:
        engines = [engine for idle in self._idle.values() for engine in idle]
        self._idle = {}
        await asyncio.gather(*(e.close() for e in engines), return_exceptions=True)
        self._host_starts.close()

