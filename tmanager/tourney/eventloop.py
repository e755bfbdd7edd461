"""The event loop that plays a worker's games: uvloop's, or asyncio's own where uvloop cannot be imported.

uvloop, one of tmanager's dependencies (but on Windows, which it does not support), is libuv under
asyncio's interface. On the same games a worker spends less CPU a move on it (2 to 18 % alone; 5 to
43 % at 256 fixed-time games at once on two cores, where it also lost fewer games on time:
docs/performance-log.md, 27 November 2026).
Nothing else changes: the engines' transport, signals, timers and the bookkeeping thread work the
same on both loops, and the tests of workers and of the game runner run on both.

``TMANAGER_LOOP`` chooses: ``auto`` (the default), ``uvloop`` (an error if it is not installed) or
``asyncio``. Being an environment variable, the choice reaches every process a run starts, Dask's
workers included. This module does not know whether uvloop suits a given machine; that is measured,
not decided here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from tmanager.errors import ConfigError

VARIABLE = "TMANAGER_LOOP"
CHOICES = ("auto", "uvloop", "asyncio")

LoopFactory = Callable[[], asyncio.AbstractEventLoop]
T = TypeVar("T")


def chosen() -> str:
    """The choice in the environment; :class:`ConfigError` if it is none of :data:`CHOICES`."""
    choice = os.environ.get(VARIABLE, "").strip().lower() or "auto"
    if choice not in CHOICES:
        raise ConfigError(
            f"must be {', '.join(CHOICES[:-1])} or {CHOICES[-1]}, not {os.environ[VARIABLE]!r}",
            field=VARIABLE, hint="or unset it for auto",
        )  # fmt: skip
    return choice


def factory() -> LoopFactory:
    """What makes the workers' event loops, as the environment chooses; :class:`ConfigError` if it
    asks for uvloop where it is not installed."""
    choice = chosen()
    if choice == "asyncio":
        return asyncio.new_event_loop
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise ConfigError(
                "uvloop is not installed", field=VARIABLE, hint="pip install uvloop, or set it to auto"
            ) from None
        return asyncio.new_event_loop
    return uvloop.new_event_loop


#: The signals that stop a worker.
STOPS = frozenset({signal.SIGINT, signal.SIGTERM})


def run(
    main: Coroutine[Any, Any, T], *, loop_factory: LoopFactory | None = None,
    on_stop: Callable[[], object] | None = None,
) -> T:
    """``asyncio.run(main)`` on a loop of ``loop_factory``, by default on the one :func:`factory` chooses
    now. A caller that must refuse a bad choice before it changes anything calls :func:`factory` first
    and passes what it returned. ``main``, if it never started, is closed, not warned of as never awaited.

    With ``on_stop``, SIGINT and SIGTERM call it on the loop while ``main`` runs, and are held back from the
    moment the loop is made until its handlers are in place, and again from the moment ``main`` ends until the
    loop is closed: one held back lands on the loop's handler, or, once the loop is gone, on the handler that
    was there before it (a loop's closing leaves the system's default, which killed the process). Let through,
    a stop's exception (the command line's handler raises ``KeyboardInterrupt``) landed inside the loop's own
    machinery: in asyncio's constructor, it left a loop half made whose collection wrote a traceback
    (``'_UnixSelectorEventLoop' object has no attribute '_signal_handlers'``); in uvloop's start, as it set up
    its signals, a loop marked as running for ever, which could not be closed (``RuntimeError: Cannot close a
    running event loop``)."""
    with _held(STOPS) if on_stop is not None and _CAN_HOLD else contextlib.nullcontext():
        try:
            with asyncio.Runner(loop_factory=loop_factory or factory()) as runner:
                return runner.run(main if on_stop is None else _stoppable(main, on_stop))
        finally:
            main.close()


async def _stoppable(main: Coroutine[Any, Any, T], on_stop: Callable[[], object]) -> T:
    """``main``, with ``on_stop`` the loop's handler of :data:`STOPS`, which :func:`run` holds back but while
    ``main`` runs."""
    loop = asyncio.get_running_loop()
    for sig in STOPS:
        loop.add_signal_handler(sig, on_stop)
    with _let_through(STOPS):
        return await main


#: Whether signals can be held back here (not on Windows, which tmanager's workers do not run on anyway).
_CAN_HOLD = hasattr(signal, "pthread_sigmask")


@contextlib.contextmanager
def _held(signals: frozenset[signal.Signals]) -> Iterator[None]:
    """``signals`` held back while the block runs, and their handlers put back as they were before it, so that
    one that came meanwhile lands on them as the block ends."""
    handlers = {sig: signal.getsignal(sig) for sig in signals}
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            if handler is not None:  # None: not set from Python, so not to be set back from it
                signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextlib.contextmanager
def _let_through(signals: frozenset[signal.Signals]) -> Iterator[None]:
    if not _CAN_HOLD:
        yield
        return
    signal.pthread_sigmask(signal.SIG_UNBLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, signals)


def kind() -> str:
    """``uvloop`` or ``asyncio``: what :func:`factory` makes here (for the benchmarks' headings)."""
    return "asyncio" if factory() is asyncio.new_event_loop else "uvloop"


def name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio``: which kind ``loop`` is (for the log and the tests)."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


@contextlib.contextmanager
def pidfd_child_watcher(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Have asyncio learn of engines' exits through pidfds on this loop while the worker runs.

    Python 3.11 waits for each child in a thread of its own, and starting that thread stalls the
    event loop for milliseconds per engine (hundreds start at once); 3.12 watches pidfds by default,
    so there this does nothing, nor on uvloop, which watches its children itself. The previous
    watcher is back afterwards.
    """
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open") or name(loop) != "asyncio":
        yield
        return
    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(loop)
    asyncio.set_child_watcher(watcher)
    try:
        yield
    finally:
        asyncio.set_child_watcher(asyncio.ThreadedChildWatcher())  # closes ours
