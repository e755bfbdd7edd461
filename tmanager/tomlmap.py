"""Dataclasses to and from TOML: the one mapping behind the tourney file and the event file.

A dataclass says what a table holds: its fields are the keys, their type
hints the types, their defaults what a missing key means. :func:`from_table`
reads a parsed table into an instance, refusing unknown keys, wrong types and
missing required keys with a :class:`~tmanager.errors.ConfigError` that names
``FILE: SECTION.KEY``; :func:`to_table` turns an instance back into a table;
:func:`dumps` lays tables out as TOML text for reading and hand editing.

The types understood: ``bool``; ``int`` (never negative unless the field is
:data:`SIGNED`); ``float`` (finite, never negative unless :data:`SIGNED`); ``str`` (a TOML date reads
as its ISO text); ``Literal`` and :class:`~enum.Enum` (by value); unions such
as ``X | None``; ``list[X]``; ``tuple[X, ...]`` and ``tuple[X, Y]`` (an array of
that length); ``dict[int, X]`` (an array of ``[key, value]`` pairs, in order);
``Mapping[str, …]`` (a table of strings, whole numbers or booleans, such as
engine options); and dataclasses (a table, or an array of tables for a list).

Field metadata (``field(metadata=…)``) adjusts a field: :data:`SIGNED` lets a
number be negative; :data:`KEEP` writes it even at its default; :data:`OUTSIDE`
keeps it out of the table (the file holds it elsewhere: the caller reads and
writes it); :func:`key` gives it another name in the file. Nothing here knows
what the files mean.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import re
import types
import typing
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

from tmanager import files
from tmanager.errors import ConfigError

_T = TypeVar("_T")

#: Metadata: the integer may be negative (a spread, a score difference).
SIGNED: Mapping[str, object] = types.MappingProxyType({"signed": True})
#: Metadata: written even when it holds its default (a key people look for in the file).
KEEP: Mapping[str, object] = types.MappingProxyType({"keep": True})
#: Metadata: not a key of the table; the file keeps it elsewhere and the caller maps it.
OUTSIDE: Mapping[str, object] = types.MappingProxyType({"outside": True})


def key(name: str, **more: object) -> Mapping[str, object]:
    """Metadata: the field is called ``name`` in the file (``player`` for a list field ``players``)."""
    return types.MappingProxyType({"key": name, **more})


# --- reading -----------------------------------------------------------------------------------


def check_keys(table: Any, allowed: Collection[str], section: str, path: Path | None) -> None:
    """A table whose keys are all in ``allowed``; :class:`ConfigError` naming the first other one."""
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=path, field=section)
    for name in table:
        if name not in allowed:
            raise ConfigError(
                f"unknown key {name!r}", file=path, field=section, hint=f"known keys: {', '.join(sorted(allowed))}"
            )


def from_table(cls: type[_T], table: Any, section: str, path: Path | None) -> _T:
    """Instantiate dataclass ``cls`` from a TOML table, checking keys and value types."""
    fields = _fields(cls)
    check_keys(table, fields, section, path)
    hints = _hints(cls)
    values = {}
    for name, value in table.items():
        f = fields[name]
        where = f"{section}.{name}"
        if dataclasses.is_dataclass(_inner(hints[f.name])):
            values[f.name] = _nested(hints[f.name], value, where, path)
            continue
        try:
            values[f.name] = _coerce(value, hints[f.name], signed=bool(f.metadata.get("signed")))
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc), file=path, field=where) from None
    try:
        return cls(**values)
    except TypeError as exc:
        missing = str(exc).rsplit(":", 1)[-1].strip()
        raise ConfigError(f"missing required key {missing}", file=path, field=section) from None


def _fields(cls: type[Any]) -> dict[str, dataclasses.Field[Any]]:
    """The dataclass's fields by their name in the file, those kept outside the table left out."""
    return {f.metadata.get("key", f.name): f for f in dataclasses.fields(cls) if not f.metadata.get("outside")}


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:  # get_type_hints is slow, and every transaction reads the file
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _inner(hint: Any) -> Any:
    """The element type of ``list[X]``, else the type itself."""
    return get_args(hint)[0] if get_origin(hint) is list else hint


def _nested(hint: Any, value: Any, where: str, path: Path | None) -> Any:
    """A dataclass from a table, or a list of them from an array of tables (numbered from 1, as people count)."""
    if get_origin(hint) is not list:
        return from_table(hint, value, where, path)
    if not isinstance(value, list):
        raise ConfigError(f"must be an array of tables ([[{where}]])", file=path, field=where)
    element = get_args(hint)[0]
    return [from_table(element, item, f"{where}[{i}]", path) for i, item in enumerate(value, 1)]


def _coerce(value: Any, hint: Any, *, signed: bool = False) -> Any:
    origin = get_origin(hint)
    if origin is Literal:
        if value not in get_args(hint):
            raise ValueError(f"{_shown(value)} is not one of {', '.join(repr(a) for a in get_args(hint) if a)}")
        return value
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in get_args(hint):
            return None
        options = [a for a in get_args(hint) if a is not type(None)]
        errors = []
        for option in options:
            try:
                return _coerce(value, option, signed=signed)
            except (TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise ValueError(errors[0])
    if origin is tuple:
        return _tuple(value, get_args(hint), signed=signed)
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"must be a list, not {_shown(value)}")
        return [_element(v, get_args(hint)[0], i, signed=signed) for i, v in enumerate(value, 1)]
    if origin is dict and get_args(hint)[0] is int:
        return _pairs(value, get_args(hint)[1], signed=signed)
    if origin in (Mapping, dict):
        if not isinstance(value, dict) or not all(_is_text(v) or isinstance(v, int) for v in value.values()):
            raise ValueError("must be a table of strings, whole numbers or booleans")
        return dict(value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum(value, hint)
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, not {_shown(value)}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be int (a whole number), not {_shown(value)}")
        if value < 0 and not signed:
            raise ValueError(f"cannot be negative, not {value}")
        return value
    if hint is float:
        number = math.nan
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value) if abs(value) < 1e300 else math.inf  # float() overflows on huge integers
        if not math.isfinite(number):
            raise ValueError(f"must be a number, not {_shown(value)}")
        if number < 0 and not signed:
            raise ValueError(f"must be a non-negative number, not {_shown(value)}")
        return number
    if hint is str:
        if isinstance(value, datetime.date | datetime.datetime | datetime.time):
            return value.isoformat()
        if not isinstance(value, str):
            raise ValueError(f"must be str (text), not {_shown(value)}")
        if "\0" in value:
            raise ValueError("holds a NUL character")
        return value
    raise TypeError(f"unsupported type {hint}")  # a programming error in the model


def _element(value: Any, hint: Any, index: int, *, signed: bool) -> Any:
    try:
        return _coerce(value, hint, signed=signed)
    except ValueError as exc:
        raise ValueError(f"item {index}: {exc}") from None


def _tuple(value: Any, args: tuple[Any, ...], *, signed: bool) -> tuple[Any, ...]:
    if len(args) == 2 and args[1] is Ellipsis:
        if args[0] is str and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ValueError(f"must be a list of strings, not {_shown(value)}")
        if not isinstance(value, list):
            raise ValueError(f"must be a list, not {_shown(value)}")
        return tuple(_element(v, args[0], i, signed=signed) for i, v in enumerate(value, 1))
    if not isinstance(value, list) or len(value) != len(args):
        raise ValueError(f"must be a list of {len(args)} values, not {_shown(value)}")
    return tuple(_element(v, a, i, signed=signed) for i, (v, a) in enumerate(zip(value, args, strict=True), 1))


def _pairs(value: Any, hint: Any, *, signed: bool) -> dict[int, Any]:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise ValueError(f"must be a list of [number, value] pairs, not {_shown(value)}")
    return {_element(k, int, i, signed=False): _element(v, hint, i, signed=signed) for i, (k, v) in enumerate(value, 1)}


def _enum(value: Any, cls: type[enum.Enum]) -> enum.Enum:
    try:
        return cls(value)
    except ValueError:
        words = re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()
        article = "an" if words[0] in "aeiou" else "a"
        raise ValueError(f"{_shown(value)} is not {article} {words}") from None


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and "\0" not in value


def _shown(value: Any) -> str:
    """``repr(value)``, cut short: error messages stay one readable line whatever the file holds."""
    text = repr(value)
    return text if len(text) <= 60 else text[:50] + "…" + text[-6:]


def parse_value(text: str) -> Any:
    """A command-line value as TOML would read it (``10``, ``true``, ``"x"``), else the plain string."""
    try:
        return files.parse_toml(f"v = {text}", file=None)["v"]
    except ConfigError:
        return text


# --- writing -----------------------------------------------------------------------------------


def to_table(obj: Any, *, keep_defaults: bool) -> dict[str, Any]:
    """The dataclass instance ``obj`` as a TOML table: ``None`` left out, and values at their default
    too unless ``keep_defaults`` (or the field is :data:`KEEP`)."""
    table: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if value is None or f.metadata.get("outside"):
            continue
        if not keep_defaults and not f.metadata.get("keep") and value == _default(f):
            continue
        table[f.metadata.get("key", f.name)] = _plain(value, keep_defaults=keep_defaults)
    return table


def _default(f: dataclasses.Field[Any]) -> Any:
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def _plain(value: Any, *, keep_defaults: bool) -> Any:
    """A model value as TOML data: enums by value, tuples as arrays, ``dict[int, X]`` as pairs."""
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_table(value, keep_defaults=keep_defaults)
    if isinstance(value, list | tuple):
        return [_plain(v, keep_defaults=keep_defaults) for v in value]
    if isinstance(value, Mapping):
        if value and all(isinstance(k, int) for k in value):
            return [[k, _plain(v, keep_defaults=keep_defaults)] for k, v in value.items()]
        return dict(value)
    return value


def dumps(document: Mapping[str, Any], *, comment: str = "", multiline: Collection[str] = ()) -> str:
    """TOML text laid out for people: a table (or each table of an array) after a blank line, its values
    first, then the tables inside it, then its arrays of tables; arrays named in ``multiline`` one element a
    line."""
    lines = [f"# {comment}"] if comment else []
    for name, value in document.items():
        for header, table in _headed(name, value):
            _write_table(lines, header, name, table, multiline)
    return "\n".join(lines) + "\n"


def _headed(name: str, value: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if isinstance(value, list):
        yield from ((f"[[{name}]]", table) for table in value)
    else:
        yield f"[{name}]", value


def _write_table(
    lines: list[str], header: str, path: str, table: Mapping[str, Any], multiline: Collection[str]
) -> None:
    lines += ["", header] if lines else [header]
    arrays = []
    tables = []
    for name, value in table.items():
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            arrays.append((name, value))
        elif isinstance(value, Mapping):
            tables.append((name, value))
        elif name in multiline and value:
            lines.append(f"{_key(name)} = [")
            lines += [f"  {_value(v)}," for v in value]
            lines.append("]")
        else:
            lines.append(f"{_key(name)} = {_value(value)}")
    for name, inner in tables:  # a table inside the table: after its values, before its arrays of tables
        _write_table(lines, f"[{path}.{_key(name)}]", f"{path}.{_key(name)}", inner, multiline)
    for name, array in arrays:
        for element in array:
            _write_table(lines, f"[[{path}.{name}]]", f"{path}.{name}", element, multiline)


def _key(name: str) -> str:
    """A key as TOML writes it: bare when it may be (``U18``, ``2000-2199``), else quoted."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _value(name)


def _value(v: Any) -> str:
    if isinstance(v, enum.Enum):
        v = v.value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        # JSON's escapes are TOML's, except that TOML also wants DEL escaped.
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r}")
