"""Values read back from tmanager's own JSON (the journal's lines), checked for the type each must have.

A journal damaged on disk or edited by hand can hold any JSON: each reader here
raises :class:`ValueError` for a value of the wrong type or out of range, so that
the line holding it is skipped whole (see :mod:`tmanager.tourney.journal`), never
applied in part nor taken in to fail later, in a command far from the journal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: The largest whole number taken: what a 64-bit count holds (a pid, an offset, a version).
LARGEST = (1 << 63) - 1


def whole(value: Any, *, least: int = 0, most: int = LARGEST) -> int:
    """``value`` if it is a whole number from ``least`` to ``most`` (``true`` is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise ValueError(f"not a whole number from {least} to {most}: {value!r}"[:200])
    return value


def finite(value: Any) -> float:
    """``value`` as a float if it is a finite number (JSON's ``NaN`` and ``Infinity`` are not)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}"[:200])
    return float(value)


def text(value: Any) -> str:
    """``value`` if it is a string."""
    if not isinstance(value, str):
        raise ValueError(f"not a string: {value!r}"[:200])
    return value


def table(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a JSON object."""
    if not isinstance(value, Mapping):
        raise ValueError(f"not an object: {value!r}"[:200])
    return value


def number_key(value: str) -> int:
    """A game's number as a key of a JSON object: ASCII digits only (not ``-1``, ``+2`` nor ``٢``)."""
    if not (value.isascii() and value.isdigit()):
        raise ValueError(f"not a game number: {value!r}"[:200])
    return whole(int(value))
