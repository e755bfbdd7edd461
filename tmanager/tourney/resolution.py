"""What each participant plays as: its engine resolved from its definition and overrides, its limits and margin.

A participant names an engine definition (see :mod:`tmanager.tourney.engines`) or
gives its command; the tourney's settings fill in what it leaves out. Errors
name the participant's field in the tourney file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tmanager.core.timecontrol import TimeControl
from tmanager.errors import ConfigError
from tmanager.tourney.engines import SPOKEN, EngineSpec, Protocol, command_line, find_definition, load_definition
from tmanager.tourney.settings import Participant, Settings

if TYPE_CHECKING:
    from tmanager.tourney.model import Tourney


def engine_spec(tourney: Tourney, index: int) -> EngineSpec:
    """Resolve participant ``index`` to a startable engine (definition merged with overrides)."""
    return resolve_engine(
        tourney.participants[index], tourney.settings, directory=tourney.directory, file=tourney.path,
        where=f"participants[{index}]",
    )


def check_runnable(tourney: Tourney, index: int) -> None:
    """Check that participant ``index``'s program and working directory exist (before playing)."""
    engine_spec(tourney, index).check_runnable(file=tourney.path, where=f"participants[{index}]")


def time_control(tourney: Tourney, index: int) -> TimeControl:
    """The limits that participant ``index`` plays with (its own, else the tourney's)."""
    p, s = tourney.participants[index], tourney.settings
    try:
        return TimeControl.parse(
            p.tc or s.tc,
            move_time=p.st if p.st is not None else s.st,
            nodes=p.nodes if p.nodes is not None else s.nodes,
            depth=p.depth if p.depth is not None else s.depth,
            increment_at_start=s.increment_at_start,
        )
    except ConfigError as exc:
        key = exc.field or "tc"
        own = {"tc": p.tc or None, "st": p.st, "nodes": p.nodes, "depth": p.depth}
        where = f"participants[{index}]" if own.get(key) is not None else "tourney"
        raise exc.relocated(file=tourney.path, field=f"{where}.{key}") from None


def resolve_all(tourney: Tourney) -> list[tuple[EngineSpec, TimeControl]]:
    """Every participant's engine and limits, resolved once for the checks that ask both (each participant's
    limits checked before its engine, so that the first error found is the same as one by one)."""
    resolved = []
    for index in range(len(tourney.participants)):
        limits = time_control(tourney, index)
        resolved.append((engine_spec(tourney, index), limits))
    return resolved


def time_margin(tourney: Tourney, index: int) -> float:
    """Seconds participant ``index`` may overstep its clock (its own margin, else the tourney's)."""
    own = tourney.participants[index].time_margin
    return own if own is not None else tourney.settings.time_margin


def plays_on_a_clock(tourney: Tourney, name: str) -> bool:
    """Whether the participant called ``name`` has a clock (true for a name no longer taking part)."""
    try:
        return time_control(tourney, tourney.participant_index(name)).has_clock
    except ConfigError:
        return True


def resolve_engine(
    p: Participant, settings: Settings, *, directory: Path, file: Path | None = None, where: str = "participant"
) -> EngineSpec:
    """Resolve participant ``p`` to a startable engine: its definition (searched from ``directory``,
    see :func:`~tmanager.tourney.engines.engine_dirs`) merged with its overrides and ``settings``.

    Needs no tourney file, so a remote worker resolves the same definition names with its own
    commands; ``file`` and ``where`` only locate errors.
    """
    base: dict[str, Any] = {}
    if p.engine:
        try:
            base = load_definition(find_definition(p.engine, directory))
        except ConfigError as exc:
            if exc.file is not None:  # the definition file is at fault, with its own fields
                raise
            raise exc.located(file=file, field=f"{where}.engine") from None
    cmd = p.cmd or base.get("cmd")
    word = p.protocol.value or base.get("protocol", "")  # a definition's word, read here: said as it is written
    if not cmd:
        raise ConfigError(
            f"participant {p.name!r} has neither engine nor cmd",
            file=file,
            field=where,
            hint='add engine = "<definition>" or cmd = "<program>" with protocol',
        )
    if word not in SPOKEN:
        raise ConfigError(
            f"protocol must be \"uci\" or \"xboard\", not {word!r}",
            file=file,
            field=f"{where}.protocol",
        )
    workdir = p.dir or base.get("dir") or str(directory)
    if not Path(workdir).is_absolute():
        workdir = str(directory / workdir)
    try:
        command = command_line(cmd, [*base.get("args", []), *p.args], exec_scripts=settings.exec_scripts)
    except ConfigError as exc:
        raise exc.relocated(file=file, field=f"{where}.cmd") from None
    return EngineSpec(
        name=p.name,
        command=command,
        protocol=Protocol(word),
        workdir=workdir,
        options={**base.get("options", {}), **p.options},
        xboard_features=dict(base.get("xboard_features", {})),
        ponder=p.ponder if p.ponder is not None else settings.ponder,
        restart=p.restart if p.restart is not None else settings.restart,
        stderr_log=str(directory / p.stderr) if p.stderr else None,
        handshake_timeout=settings.handshake_timeout,
        ready_timeout=settings.ready_timeout,
        ping_timeout=settings.ping_timeout,
        warn_refused_options=settings.warn_refused_options,
    )
