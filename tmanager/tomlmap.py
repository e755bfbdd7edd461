"""Dataclasses to and from TOML: the one mapping behind the tourney file and the event file.

A dataclass says what a table holds: its fields are the keys, their type
hints the types, their defaults what a missing key means. :func:`from_table`
reads a parsed table into an instance, refusing unknown keys, wrong types and
missing required keys with a :class:`~tmanager.errors.ConfigError` that names
``FILE: SECTION.KEY``; :func:`to_table` turns an instance back into a table;
:func:`dumps` lays tables out as TOML text for reading and hand editing.

The types understood: ``bool``; ``int`` (never negative unless the field is
:data:`SIGNED`); ``float`` (finite, never negative unless :data:`SIGNED`); ``str`` (a TOML date reads
as its ISO text); ``Literal``, :class:`Choice` and :class:`~enum.Enum` (by value); unions such
as ``X | None``; ``list[X]``; ``tuple[X, ...]`` and ``tuple[X, Y]`` (an array of
that length); ``dict[int, X]`` (an array of ``[key, value]`` pairs, in order);
``Mapping[str, …]`` (a table of strings, whole numbers or booleans, such as
engine options); and dataclasses (a table, or an array of tables for a list).

Field metadata (``field(metadata=…)``) adjusts a field: :data:`SIGNED` lets a
number be negative; :data:`KEEP` writes it even at its default; :data:`OUTSIDE`
keeps it out of the table (the file holds it elsewhere: the caller reads and
writes it); :func:`key` gives it another name in the file; :func:`at_least` bounds a whole number. Nothing here knows
what the files mean.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import math
import re
import types
import typing
from collections.abc import Callable, Collection, Iterator, Mapping
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


class Choice(enum.StrEnum):
    """A kind the file spells as one of a few words (its members' values): read as the ``Literal`` of those
    words was, a value not among them refused as ``'x' is not one of 'a', 'b'`` (an empty value, which means
    "unset", left out of the list). Other enums are refused naming what they are (``is not a pairing system``)."""


def at_least(least: int, *, hint: str) -> Mapping[str, object]:
    """Metadata: the whole number must be at least ``least`` (a count of which 0 means nothing, such as cycles);
    ``hint`` says what to give. One wording for a value below, negative or not, in a file or from a command
    line (:func:`check_least`)."""
    return types.MappingProxyType({"least": least, "hint": hint})


def check_least(instance: Any, section: str, path: Path | None) -> None:
    """Refuse a field of dataclass ``instance`` below its :func:`at_least`: for one made without
    :func:`from_table` (from a command line's values), as :func:`from_table` refuses it in a file."""
    for f in dataclasses.fields(instance):
        _check_least(getattr(instance, f.name), f, f"{section}.{f.metadata.get('key', f.name)}", path)


def _check_least(value: Any, f: dataclasses.Field[Any], where: str, path: Path | None) -> None:
    least = f.metadata.get("least")
    if isinstance(least, int) and isinstance(value, int) and value < least:
        hint = str(f.metadata["hint"])
        raise ConfigError(f"must be at least {least}, not {value}", file=path, field=where, hint=hint)


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
            # A bound of its own (at_least) says what is wrong with a negative number in its own words.
            signed = bool(f.metadata.get("signed")) or "least" in f.metadata
            values[f.name] = _coerce(value, hints[f.name], signed=signed)
        except (TypeError, ValueError) as exc:
            raise ConfigError(str(exc), file=path, field=where) from None
        _check_least(values[f.name], f, where, path)
    try:
        return cls(**values)
    except TypeError:
        # Every key missing, and the way out: it said what was missing and no more.
        missing = [key for key, f in fields.items() if f.name not in values and f.init
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        keys = " and ".join(map(repr, missing))
        raise ConfigError(f"missing required key{'s' * (len(missing) > 1)} {keys}", file=path, field=section,
                          hint=f"add {'them' if len(missing) > 1 else 'it'} to {section}: "
                          + ", ".join(f"{key} = …" for key in missing)) from None


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
    """``value`` read as type ``hint``: :class:`ValueError` saying what is wrong when it is not one."""
    origin = get_origin(hint)
    if origin is not None:
        read = _GENERIC_READERS.get(origin)
        if read is None:
            raise TypeError(f"unsupported type {hint}")  # a programming error in the model
        return read(value, hint, signed)
    if isinstance(hint, type) and issubclass(hint, Choice):
        return _choice(value, hint)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum(value, hint)
    read_plain = _PLAIN_READERS.get(hint)
    if read_plain is None:
        raise TypeError(f"unsupported type {hint}")
    return read_plain(value, signed)


def _literal(value: Any, hint: Any, signed: bool) -> Any:
    return _one_of(value, get_args(hint))


def _choice(value: Any, cls: type[Choice]) -> Choice:
    return cls(_one_of(value, tuple(member.value for member in cls)))


def _one_of(value: Any, words: tuple[Any, ...]) -> Any:
    if value not in words:
        raise ValueError(f"{_shown(value)} is not one of {', '.join(repr(a) for a in words if a)}")
    return value


def _union(value: Any, hint: Any, signed: bool) -> Any:
    """The first of the union's types that ``value`` reads as (``None`` for ``X | None``)."""
    if value is None and type(None) in get_args(hint):
        return None
    errors = []
    for option in [a for a in get_args(hint) if a is not type(None)]:
        try:
            return _coerce(value, option, signed=signed)
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
    raise ValueError(errors[0])


def _list(value: Any, hint: Any, signed: bool) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"must be a list, not {_shown(value)}")
    return [_element(v, get_args(hint)[0], i, signed=signed) for i, v in enumerate(value, 1)]


def _mapping(value: Any, hint: Any, signed: bool) -> dict[Any, Any]:
    """``dict[int, X]``: an array of ``[key, value]`` pairs; otherwise a table of strings, whole numbers or booleans."""
    if _int_keyed(hint):
        return _pairs(value, get_args(hint)[1], signed=signed)
    if not isinstance(value, dict) or not all(_is_text(v) or isinstance(v, int) for v in value.values()):
        raise ValueError("must be a table of strings, whole numbers or booleans")
    for name, number in value.items():
        if isinstance(number, int):
            try:
                _check_width(number)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
    return dict(value)


def _check_width(value: int) -> None:
    """:class:`ValueError` for a whole number wider than TOML's (:data:`INT_LIMIT`)."""
    if not -INT_LIMIT <= value < INT_LIMIT:
        bound = "at most" if value > 0 else "at least"
        raise ValueError(f"must be {bound} {'-' * (value < 0)}{INT_LIMIT - (value > 0):,}, not {value:,} "
                         "(TOML's whole numbers are 64 bits)")


def _bool(value: Any, signed: bool) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {_shown(value)}")
    return value


#: TOML's integers are 64 bits wide (its specification): Python's reader takes wider ones, which tmanager would
#: write back into a file that other TOML readers refuse, and engines (a hash size, a seed) count in 64 bits too.
INT_LIMIT = 2**63


def _int(value: Any, signed: bool) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be int (a whole number), not {_shown(value)}")
    _check_width(value)
    if value < 0 and not signed:
        raise ValueError(f"cannot be negative, not {value}")
    return value


#: Numbers read as floats stay within ± this: float() overflows on huge integers, and no setting needs more.
FLOAT_MAGNITUDE = 1e300


def _float(value: Any, signed: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or (
        isinstance(value, float) and not math.isfinite(value)
    ):
        raise ValueError(f"must be a number, not {_shown(value)}")
    # 1e308 or 10**400 is a number, only too large: say so. The bound itself is within it (1e300 was refused as
    # too large for "a number within ±1e+300").
    if not abs(value) <= FLOAT_MAGNITUDE:
        raise ValueError(f"{_shown(value)} is too large (a number within ±{FLOAT_MAGNITUDE:g})")
    number = float(value)
    if number < 0 and not signed:
        raise ValueError(f"must be a non-negative number, not {_shown(value)}")
    return number


def _str(value: Any, signed: bool) -> str:
    if isinstance(value, datetime.date | datetime.datetime | datetime.time):
        return value.isoformat()
    if not isinstance(value, str):
        raise ValueError(f"must be str (text), not {_shown(value)}")
    if "\0" in value:
        raise ValueError("holds a NUL character")
    return value


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
        choices = ", ".join(repr(member.value) for member in cls)
        raise ValueError(f"{_shown(value)} is not {article} {words} (one of {choices})") from None


#: How a value of each generic type is read (``list[X]``, ``X | None``…), by the type's origin.
_GENERIC_READERS: dict[Any, Callable[[Any, Any, bool], Any]] = {
    Literal: _literal,
    types.UnionType: _union,
    typing.Union: _union,
    tuple: lambda value, hint, signed: _tuple(value, get_args(hint), signed=signed),
    list: _list,
    dict: _mapping,
    Mapping: _mapping,
}
#: How a value of each plain type is read.
_PLAIN_READERS: dict[Any, Callable[[Any, bool], Any]] = {bool: _bool, int: _int, float: _float, str: _str}


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


def given_as(cls: type[Any], name: str, value: Any) -> Any:
    """``value`` of a command line's ``--set``, as :func:`parse_value` read it, for field ``name`` of dataclass
    ``cls``: a number where the field is text is the text it stood for (``tc=10``, ``tc=inf``, ``event=2026``),
    which TOML read as a number; anything else as it is, for :func:`from_table` to check."""
    if _hints(cls).get(name) is str and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


# --- writing -----------------------------------------------------------------------------------


def to_table(obj: Any, *, keep_defaults: bool) -> dict[str, Any]:
    """The dataclass instance ``obj`` as a TOML table: ``None`` left out, and values at their default
    too unless ``keep_defaults`` (or the field is :data:`KEEP`)."""
    table: dict[str, Any] = {}
    hints = _hints(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if value is None or f.metadata.get("outside"):
            continue
        if not keep_defaults and not f.metadata.get("keep") and value == _default(f):
            continue
        table[f.metadata.get("key", f.name)] = _plain(value, keep_defaults=keep_defaults, hint=hints[f.name])
    return table


def _default(f: dataclasses.Field[Any]) -> Any:
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def _plain(value: Any, *, keep_defaults: bool, hint: Any = None) -> Any:
    """A model value (of type ``hint``, when known) as TOML data: enums by value, tuples as arrays,
    ``dict[int, X]`` as pairs (an empty one too, which as a table would not read back as pairs)."""
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_table(value, keep_defaults=keep_defaults)
    if isinstance(value, list | tuple):
        return [_plain(v, keep_defaults=keep_defaults) for v in value]
    if isinstance(value, Mapping):
        if _int_keyed(hint) or (value and all(isinstance(k, int) for k in value)):
            return [[k, _plain(v, keep_defaults=keep_defaults)] for k, v in value.items()]
        return dict(value)
    return value


def _int_keyed(hint: Any) -> bool:
    """Whether ``hint`` is ``dict[int, X]`` (or ``dict[int, X] | None``)."""
    if get_origin(hint) in (types.UnionType, typing.Union):
        return any(_int_keyed(option) for option in get_args(hint))
    return get_origin(hint) is dict and get_args(hint)[0] is int


def dumps(
    document: Mapping[str, Any], *, comment: str = "", multiline: Collection[str] = (), inline: Collection[str] = ()
) -> str:
    """TOML text laid out for people: a table (or each table of an array) after a blank line, its values
    first, then the tables inside it, then its arrays of tables; a table that holds only tables, those tables
    (``[faults.A]``); tables named in ``inline`` among the values (an engine's ``options = { Hash = 16 }``);
    arrays named in ``multiline`` one element a line.

    The one TOML writer of tmanager's files: tmanager lays the lines out, and strings and keys, where TOML
    escapes and quotes, are written by tomlkit (which also edits files keeping what a person wrote; see
    :mod:`tmanager.tourney.settings_text`). Numbers and booleans are written as Python writes them, which
    is TOML's own spelling of them. Writing tomlkit's whole document model instead costs 20 to 70 times
    as much, for files written at every result an arbiter enters.
    """
    lines = [f"# {comment}"] if comment else []
    layout = _Layout(multiline, inline)
    for name, value in document.items():
        for header, table in _headed(_key(name), value):
            layout.write_table(lines, header, table)
    return "\n".join(lines) + "\n"


def _headed(path: str, value: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The headed tables of ``value`` at ``path``: each of an array of tables, or a table (those of a table that
    holds only tables: a header of its own would be empty)."""
    if isinstance(value, list):
        yield from ((f"[[{path}]]", table) for table in value)
    elif value and all(isinstance(v, Mapping) for v in value.values()):
        for name, table in value.items():
            yield from _headed(f"{path}.{_key(name)}", table)
    else:
        yield f"[{path}]", value


@dataclasses.dataclass(frozen=True)
class _Layout:
    multiline: Collection[str]
    inline: Collection[str]

    def write_table(self, lines: list[str], header: str, table: Mapping[str, Any]) -> None:
        lines += ["", header] if lines else [header]
        path = header.strip("[]")
        tables, arrays = [], []
        for name, value in table.items():
            if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
                arrays.append((name, value))
            elif isinstance(value, Mapping) and name not in self.inline:
                tables.append((name, value))
            elif name in self.multiline and value:
                lines.append(f"{_key(name)} = [")
                lines += [f"  {_value(v)}," for v in value]
                lines.append("]")
            else:
                lines.append(f"{_key(name)} = {_value(value)}")
        for name, inner in tables:  # a table inside the table: after its values, before its arrays of tables
            for inner_header, inner_table in _headed(f"{path}.{_key(name)}", inner):
                self.write_table(lines, inner_header, inner_table)
        for name, array in arrays:
            for element in array:
                self.write_table(lines, f"[[{path}.{_key(name)}]]", element)


@functools.lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """A key, bare or quoted by tomlkit as TOML needs (``Hash``, ``"Move Overhead"``)."""
    import tomlkit  # here: reading a file never needs it (`tmanager status` starts without it)

    return tomlkit.key(name).as_string()


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
        return _string(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise TypeError(f"cannot write {v!r}")


#: What a multi-line literal string cannot hold as it is: control characters but the tab and line feed, and its
#: own closing quotes.
_NOT_LITERAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|'''")


@functools.lru_cache(maxsize=4096)
def _string(text: str) -> str:
    """A TOML basic string, escaped by tomlkit (the same names, keys and results recur: each is escaped once);
    text of several lines, as people paste it (an SPSA tune's parameters), as a multi-line literal string
    that reads as it was pasted, when it can be one."""
    if "\n" in text and not _NOT_LITERAL.search(text) and not text.endswith("'"):  # a quote there would end it
        return "'''\n" + text + "'''"
    import tomlkit

    return tomlkit.string(text).as_string()
