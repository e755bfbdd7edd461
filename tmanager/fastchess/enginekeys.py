"""An engine's ``key=value`` pairs of ``-engine`` and ``-each``, read as fastchess's ``parseEngineKeyValues``
reads them, and ``-each``'s applied after every ``-engine`` (fastchess defers them, so they win: where one
overrides what ``-engine`` set, it is listed, to be said).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from tmanager.errors import ConfigError
from tmanager.fastchess import limits
from tmanager.fastchess.config import EngineConfig
from tmanager.fastchess.values import integer, replaced, unknown
from tmanager.tourney.engines import SPOKEN, Protocol

#: An ``-each`` pair that overrode ``-engine``'s: the engine's name, the key, ``-engine``'s value, ``-each``'s.
Overridden = tuple[str, str, str, str]

_TEXT_KEYS = ("cmd", "name", "dir", "args")
_NUMBER_KEYS = {"timemargin": "timemargin_ms", "nodes": "nodes", "plies": "plies", "depth": "plies"}


def engine_setting(engine: EngineConfig, key: str, value: str) -> EngineConfig:
    """``engine`` with one ``key=value`` of ``-engine``/``-each`` (fastchess's ``parseEngineKeyValues``)."""
    if key in _TEXT_KEYS:
        return replaced(engine, **{key: value})
    if key in _NUMBER_KEYS:
        return replaced(engine, **{_NUMBER_KEYS[key]: integer(value, minimum=0, maximum=limits.INT64_MAX)})
    if key.startswith("option."):
        name = key.removeprefix("option.")
        return dataclasses.replace(engine, options=(*((k, v) for k, v in engine.options if k != name), (name, value)))
    if key == "tc":
        return dataclasses.replace(engine, tc=limits.parse_tc(value))
    if key == "st":
        return dataclasses.replace(engine, st_ms=limits.duration_ms(value))
    if key == "restart":
        if value not in ("on", "off"):
            raise ConfigError(f"restart={value}: write on or off")
        return dataclasses.replace(engine, restart=value == "on")
    if key == "proto":
        if value not in SPOKEN:
            raise ConfigError(f"proto={value}: not a protocol", hint="proto=uci (or, in tmanager, proto=xboard)")
        return dataclasses.replace(engine, protocol=Protocol(value))
    raise unknown("engine", key, value)


def with_each(
    engines: Sequence[EngineConfig], each: Sequence[tuple[str, str]]
) -> tuple[tuple[EngineConfig, ...], tuple[Overridden, ...]]:
    """``engines`` with ``-each``'s pairs applied to every one, and where they overrode ``-engine``'s values:
    compared with the engine as ``-engine`` left it (a second ``-each`` of a key overrides the first, not
    ``-engine``), each key once, with the last value ``-each`` gave it."""
    done, overridden = [], []
    last = dict(each)
    for given in engines:
        engine = given
        for key, value in each:
            try:
                engine = engine_setting(engine, key, value)
            except ConfigError as exc:
                raise exc.relocated(field="-each") from None
        for key, value in last.items():
            mine, theirs = _engine_value(given, key), _engine_value(engine, key)
            if mine is not None and mine != theirs:
                overridden.append((given.name or given.cmd, key, mine, value))
        done.append(engine)
    return tuple(done), tuple(overridden)


def _engine_value(engine: EngineConfig, key: str) -> str | None:
    """What ``engine`` has for ``key`` when ``-engine`` set it, written as the key takes it (``tc=40/90+0.5``,
    ``st=0.5``, ``restart=on``); None where it has fastchess's default."""
    if key.startswith("option."):
        return dict(engine.options).get(key.removeprefix("option."))
    attribute = {"st": "st_ms", "proto": "protocol", **_NUMBER_KEYS}.get(key, key)
    value = getattr(engine, attribute, None)
    if value is None or value == getattr(EngineConfig(), attribute, None):
        return None
    if isinstance(value, limits.TimeLimit):
        return value.tmanager_text()
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Protocol):
        return value.value
    return limits.shortest(value / 1000) if key == "st" else str(value)
