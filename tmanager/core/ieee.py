"""C's double arithmetic where Python's raises, and C's ``%.Nf`` of every double.

fastchess computes its statistics in C++, where ``1/0`` is ``inf``, ``0/0``
and ``sqrt(-1)`` are NaN and ``log10(0)`` is ``-inf``; Python raises at each
of them. So that tmanager computes what fastchess computes, to the last digit
and through the same edge cases (a match of draws only has no variance), the
few operations that may meet them go through these functions. Everything else
is Python's own float arithmetic, which is C's: a NaN's sign bit travels
through it as it does in C (``-x`` flips it, ``1 - x`` keeps it).

x86's default NaN, which invalid operations produce, has its sign bit set:
C++'s ``fmt`` prints it ``-nan``, and :func:`fixed` does the same; Python's
own ``format`` prints every NaN as ``nan``. glibc's functions return NaNs of
their own sign (``log10`` of a negative number: ``nan``; ``log`` and ``sqrt``:
``-nan``), which these follow, as checked against fastchess's output.
"""

from __future__ import annotations

import math

#: The NaN an invalid operation gives on x86 (sign bit set), as C prints it: ``-nan``.
DEFAULT_NAN = -math.nan if math.copysign(1.0, math.inf - math.inf) < 0 else math.nan


def div(a: float, b: float) -> float:
    """``a / b`` as C divides doubles: by zero, ±inf (by the signs of both), or NaN for ``0/0`` and NaN."""
    if b != 0.0:
        return a / b
    if a == 0.0 or math.isnan(a):
        return a if math.isnan(a) else DEFAULT_NAN
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def sqrt(x: float) -> float:
    """C's ``sqrt``: NaN below zero."""
    return math.sqrt(x) if x >= 0.0 or math.isnan(x) else DEFAULT_NAN


def log(x: float) -> float:
    """C's ``log``: ``-inf`` at zero, NaN below."""
    if x > 0.0 or math.isnan(x):
        return math.log(x)
    return -math.inf if x == 0.0 else DEFAULT_NAN


def log10(x: float) -> float:
    """C's ``log10``: ``-inf`` at zero, and below zero glibc's NaN, which (unlike ``log``'s) has no sign bit."""
    if x > 0.0 or math.isnan(x):
        return math.log10(x)
    return -math.inf if x == 0.0 else math.nan


def log2(x: float) -> float:
    """C's ``log2``: ``-inf`` at zero, NaN below."""
    if x > 0.0 or math.isnan(x):
        return math.log2(x)
    return -math.inf if x == 0.0 else DEFAULT_NAN


def ceil(x: float) -> float:
    """C's ``ceil``, a double: NaN and the infinities as they are (Python's gives an int, and raises for them)."""
    return float(math.ceil(x)) if math.isfinite(x) else x


def pow(x: float, y: float) -> float:
    """C's ``pow``: ±inf beyond the range of a double and at 0's pole (Python's raises), NaN for a negative base
    to a fractional power."""
    odd = float(y).is_integer() and y % 2 == 1
    try:
        return math.pow(x, y)
    except OverflowError:
        return math.copysign(math.inf, x) if odd else math.inf
    except ValueError:
        if x == 0.0:
            return math.copysign(math.inf, x) if odd else math.inf
        return DEFAULT_NAN


def fixed(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals as C++'s ``fmt`` writes ``{:.Nf}``: ``inf``, ``-inf``, ``nan``
    and ``-nan`` (the sign bit of the NaN), else correctly rounded, ``-0.00`` included."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:.{digits}f}"
