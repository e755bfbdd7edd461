"""CPUs of their own for a worker's games, as fastchess's ``-use-affinity`` gives them: one per game at once.

A worker bound to CPUs (``sched_setaffinity``) starts its engines there: they
inherit the binding, and so do their own children. A game's two engines take
turns to think and its worker runs between their moves, so one CPU per game
keeps each game's processes together: an engine's output wakes its worker on
the CPU the engine runs on, not by a wake-up sent to another CPU, which on a
virtual machine is dear (``tools/bench_throughput.py --affinity``).

What it does not know: other programs on the machine, which may be bound to the
same CPUs; engines of several threads, which one CPU a game would starve (give
such a worker more CPUs than games).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from tmanager.errors import ConfigError

FIELD = "--affinity"
#: The highest CPU number Linux gives (its CONFIG_NR_CPUS is at most 8192).
MAX_CPU = 8191

log = logging.getLogger(__name__)


def parse(text: str) -> tuple[int, ...]:
    """CPUs written as fastchess and ``taskset -c`` write them, ``0,2,4-7``: in the order given, each once."""
    cpus: dict[int, None] = {}
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise ConfigError(f"{text!r} is not a list of CPUs", field=FIELD,
                              hint="numbers and ranges, such as 0,2,4-7") from None
        if low < 0 or high < low:
            raise ConfigError(f"{part.strip()!r} is not a range of CPUs", field=FIELD,
                              hint="such as 4-7, from the lower to the higher")
        if high > MAX_CPU:
            raise ConfigError(f"CPU {high} does not exist", field=FIELD, hint=f"Linux numbers them up to {MAX_CPU}")
        cpus.update(dict.fromkeys(range(low, high + 1)))
    return tuple(cpus)


def available() -> tuple[int, ...]:
    """The CPUs this process may run on, in order."""
    if not hasattr(os, "sched_getaffinity"):
        raise ConfigError("this system cannot bind processes to CPUs", field=FIELD, hint="leave it out")
    return tuple(sorted(os.sched_getaffinity(0)))


def check(cpus: Sequence[int], *, games: int) -> None:
    """Raise :class:`ConfigError` unless ``cpus`` are all available and give each of ``games`` at once a CPU."""
    usable = available()
    missing = [cpu for cpu in cpus if cpu not in usable]
    if missing:
        raise ConfigError(
            f"CPU {missing[0]} is not available to this process", field=FIELD,
            hint=f"it may run on {format_cpus(usable)}",
        )
    if len(cpus) < games:
        raise ConfigError(
            f"{games} games at once need {games} CPUs, {len(cpus)} given", field=FIELD,
            hint="give more CPUs, or play fewer games at once",
        )


def assign(cpus: Sequence[int], lanes: Sequence[int]) -> list[tuple[int, ...]]:
    """The CPUs of each worker of ``lanes`` games at once, from ``cpus`` (every available one when empty),
    once :func:`check` finds a CPU for each game."""
    chosen = cpus or available()
    check(chosen, games=sum(lanes))
    return share(chosen, lanes)


def share(cpus: Sequence[int], lanes: Sequence[int]) -> list[tuple[int, ...]]:
    """The CPUs of each worker of ``lanes`` games at once: the next ``lanes[k]`` of ``cpus`` for the k-th."""
    shares, start = [], 0
    for count in lanes:
        shares.append(tuple(cpus[start : start + count]))
        start += count
    return shares


def bind(cpus: Sequence[int]) -> None:
    """Bind this process, and every process it starts from now on (engines, hooks), to ``cpus``."""
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as exc:  # a CPU taken offline since the check
        raise ConfigError(f"cannot bind to CPUs {format_cpus(cpus)}: {exc.strerror}", field=FIELD,
                          hint="choose CPUs this process may run on") from None
    log.info("bound to CPUs %s, with the engines it starts", format_cpus(cpus))


def format_cpus(cpus: Sequence[int]) -> str:
    """``cpus`` as :func:`parse` reads them, runs of consecutive CPUs as ranges."""
    runs: list[list[int]] = []
    for cpu in cpus:
        if runs and cpu == runs[-1][-1] + 1:
            runs[-1].append(cpu)
        else:
            runs.append([cpu])
    return ",".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
