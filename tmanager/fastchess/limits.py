"""fastchess's time controls: ``tc=40/1:30+0.5``, ``st=0.5``, as fastchess reads and prints them.

fastchess keeps a clock in whole milliseconds: ``[moves/]time[+increment]``
with the time as seconds (``10``, ``10s``) or minutes and seconds (``1:30``),
``inf`` for none. A report's head names a side's limit as fastchess's
``getTime`` does: ``40/90+0.5``, ``0.5/move``, ``12 plies``, ``2000 nodes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from tmanager.core.timecontrol import TimeControl
from tmanager.errors import ConfigError, ascii_digits

#: The largest ``int64_t``, which fastchess keeps a clock's milliseconds in (and an engine's nodes and plies).
INT64_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class TimeLimit:
    """fastchess's ``TimeControl::Limits`` of a clock: moves per period (0: the whole game), time, increment."""

    moves: int = 0
    time_ms: int = 0
    increment_ms: int = 0

    @property
    def is_set(self) -> bool:
        return self.time_ms + self.increment_ms > 0

    def tmanager_text(self) -> str:
        """The same clock in a tourney file's ``tc`` (seconds): ``40/90+0.5``, or ``inf``."""
        if not self.is_set:
            return "inf"
        moves = f"{self.moves}/" if self.moves else ""
        increment = f"+{_seconds(self.increment_ms)}" if self.increment_ms else ""
        return f"{moves}{_seconds(self.time_ms)}{increment}"


def _seconds(ms: int) -> str:
    return shortest(ms / 1000)


def shortest(value: float) -> str:
    """A double as C++'s ``fmt`` writes ``{}``: the shortest text that reads back, without ``.0``."""
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def duration_ms(text: str, *, unit_ms: int = 1000) -> int:
    """A non-negative duration in ``unit_ms`` (seconds, which may end in ``s``), as whole milliseconds."""
    if unit_ms == 1000 and len(text) > 1 and text.endswith("s"):
        text = text[:-1]
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{text!r} is not a duration") from None
    if not math.isfinite(value) or value < 0 or text.strip() != text:
        raise ConfigError(f"{text!r} is not a duration")
    if value * unit_ms > INT64_MAX:
        raise ConfigError(f"{text!r} is beyond a clock's {INT64_MAX // 1000:,} seconds")
    return long_double_product(value, unit_ms)


def long_double_product(value: float, factor: int) -> int:
    """``value * factor`` cut to a whole number as fastchess's ``parseDuration`` computes it: in x86-64's
    ``long double``, whose 64-bit significand keeps the double's error, so that ``1.23`` s (1.22999…) is
    1229 ms, not the 1230 of a product of doubles, which rounds the error away."""
    exact = Fraction(value) * factor
    if exact <= 0:
        return 0
    # The power of two that puts the product's first bit at bit 63, then the product rounded (to even) to
    # 64 bits at that scale, as the x87 unit rounds it.
    scale = Fraction(2) ** (exact.numerator.bit_length() - exact.denominator.bit_length() - 63)
    while exact / scale >= 2**64:
        scale *= 2
    while exact / scale < 2**63:
        scale /= 2
    return math.floor(round(exact / scale) * scale)


def parse_tc(text: str) -> TimeLimit:
    """fastchess's ``parseTc``: ``inf``, or ``[moves/]time[+increment]`` with ``time`` as ``seconds`` or
    ``minutes:seconds``."""
    if "hg" in text:
        raise ConfigError(f"tc={text}: hourglass time controls are not supported (nor are they by fastchess)")
    if text in ("inf", "infinite"):
        return TimeLimit()
    if not text:
        raise ConfigError("tc is empty")
    moves, rest = 0, text
    if "/" in rest:
        count, rest = _halves(rest, "/", text)
        if count not in ("inf", "infinite"):
            moves = _positive(count, text)
    increment = 0
    if "+" in rest:
        rest, extra = _halves(rest, "+", text)
        increment = duration_ms(extra)
    if ":" in rest:
        minutes, seconds = _halves(rest, ":", text)
        time = duration_ms(minutes, unit_ms=60_000) + duration_ms(seconds)
    else:
        time = duration_ms(rest)
    return TimeLimit(moves=moves, time_ms=time, increment_ms=increment)


def _halves(text: str, separator: str, whole: str) -> tuple[str, str]:
    left, _, right = text.partition(separator)
    if not left or not right or separator in right:
        raise ConfigError(f"tc={whole}: not a time control", hint="write moves/seconds+increment, as 40/60+0.6")
    return left, right


def _positive(text: str, whole: str) -> int:
    if not ascii_digits(text) or int(text) <= 0:  # '²' is a digit to str.isdigit, not to int()
        raise ConfigError(f"tc={whole}: the number of moves must be positive")
    return int(text)


def report_text(tc: TimeControl) -> str:
    """One side's limits as a report's head names them (fastchess's ``getTime``): the clock first, then the
    time per move, the depth, the nodes."""
    if tc.has_clock:
        moves = f"{tc.moves}/" if tc.moves else ""
        increment = f"+{tc.increment:.2g}" if tc.increment > 0 else ""
        return f"{moves}{shortest(tc.base)}{increment}"
    if tc.move_time:
        return f"{shortest(tc.move_time)}/move"
    if tc.depth:
        return f"{tc.depth} plies"
    if tc.nodes:
        return f"{tc.nodes} nodes"
    return ""
