"""An option's values as fastchess reads them: its ``parseScalar`` whole and decimal numbers, its booleans,
``key=value`` pairs, and its error for an unknown key. :mod:`.commandline` and :mod:`.enginekeys` read with them.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any, TypeVar

from tmanager.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A frozen dataclass of a config (an option's rule, its engine), changed by field names read at run time.
Dataclass = TypeVar("Dataclass", bound="DataclassInstance")


def replaced(value: Dataclass, **changes: Any) -> Dataclass:
    """``value``, a frozen dataclass, with ``changes`` (fields named at run time, as the option keys)."""
    return dataclasses.replace(value, **changes)


def pairs(values: list[str]) -> list[tuple[str, str]]:
    """``key=value`` words as (key, value): the value runs to the word's end, ``=`` and all."""
    return [(key, value) for key, _, value in (v.partition("=") for v in values)]


#: The largest value of the other integer types fastchess reads its options into (``parseScalar<int>``,
#: ``<uint64_t>``; ``<int64_t>``'s is :data:`limits.INT64_MAX`): it refuses a number beyond its option's.
INT_MAX, UINT64_MAX = 2**31 - 1, 2**64 - 1


def integer(text: str, *, minimum: int | None = None, maximum: int = INT_MAX) -> int:
    """A whole number as fastchess's ``parseScalar<int>`` reads it: digits and a sign, nothing else, at
    most ``maximum`` (its type's largest value)."""
    if not re.fullmatch(r"[+-]?\d+", text):
        raise ConfigError(f"{text!r} is not a whole number")
    value = int(text)
    if minimum is not None and value < minimum:
        raise ConfigError(f"must be at least {minimum}, not {value}")
    if value > maximum:
        raise ConfigError(f"must be at most {maximum}, not {value}")
    return value


def number(text: str) -> float:
    """A finite decimal number without spaces (fastchess's ``parseScalar<double>``)."""
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or text.strip() != text:
        raise ConfigError(f"{text!r} is not a number")
    return value


def boolean(key: str, text: str) -> bool:
    """``true`` or ``false``, as fastchess spells them (the error names ``key``)."""
    if text not in ("true", "false"):
        raise ConfigError(f"{key}={text}: write true or false")
    return text == "true"


def unknown(option: str, key: str, value: str) -> ConfigError:
    """fastchess's words for a key its option does not have."""
    return ConfigError(f"unrecognized {option} option {key!r} with value {value!r}")
