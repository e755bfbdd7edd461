"""Time controls: parsing ``"40/60+0.6"``, ``"10+0.1"``, ``"inf"`` and keeping clocks.

A :class:`TimeControl` is an immutable value; a :class:`Clock` is the mutable
per-side state the game runner updates after every move.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from tmanager.errors import ConfigError

#: The most nodes or plies a limit may give: engines count them in 64 bits, and TOML's integers are as wide.
MAX_COUNT = 2**63 - 1
#: The longest time a clock or a move may be given, in seconds: engines read times in 64-bit milliseconds (a
#: longer one was sent as a number they cannot read, and Stockfish thought for ever); a round number below
#: 2**63 ms, which float seconds cannot name exactly.
MAX_SECONDS = 10**15

_TC_RE = re.compile(
    r"""^\s*(?:(?P<moves>\d+)/)?
        (?P<base>\d+(?:\.\d+)?)(?::(?P<sec>\d{1,2}(?:\.\d+)?))?
        (?:\+(?P<inc>\d+(?:\.\d+)?))?\s*$""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A game's limits for one side.

    ``base`` and ``increment`` are seconds; ``moves`` is the length of a
    repeating period (``40/60`` gives 60 s for every 40 moves), ``None`` for
    sudden death. ``move_time``, ``nodes`` and ``depth`` are per-move limits that
    may be combined with a clock or stand alone. ``infinite`` means no clock.
    """

    base: float = 0.0
    increment: float = 0.0
    moves: int | None = None
    move_time: float | None = None
    nodes: int | None = None
    depth: int | None = None

    @property
    def has_clock(self) -> bool:
        return self.base > 0 or self.increment > 0

    @property
    def is_timed(self) -> bool:
        """Whether the side's thinking time is limited (a clock or a time per move): then a machine
        short of cores costs it moves, or the game on time, and when its clock starts matters."""
        return self.has_clock or self.move_time is not None

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        move_time: float | None = None,
        nodes: int | None = None,
        depth: int | None = None,
        increment_at_start: bool = False,
    ) -> TimeControl:
        """Parse ``[moves/]base[:seconds][+increment]`` or ``inf``.

        ``base`` is in seconds, except that ``m:ss`` gives minutes and seconds. A base of 0 (``0+0.1``, a clock
        of its increments alone) only for a clock that starts with one increment (``increment_at_start``,
        fastchess's clock, which plays it): XBoard's would start empty, and lose the first move on time.
        Raises :class:`ConfigError` (field ``tc``) for anything else.
        """
        stripped = text.strip().lower()
        if stripped in ("inf", "infinite", "-", ""):
            tc = cls(move_time=move_time, nodes=nodes, depth=depth)
        else:
            match = _TC_RE.match(stripped)
            if not match:
                raise ConfigError(
                    f"bad time control {text!r}",
                    field="tc",
                    hint='write "moves/seconds+increment" such as "40/60+0.6", "10+0.1", "2:30+1" or "inf"',
                )
            base = float(match["base"])
            if match["sec"] is not None:
                base = base * 60 + float(match["sec"])
            moves = int(match["moves"]) if match["moves"] else None
            increment = float(match["inc"] or 0)
            if (base <= 0 and not (increment > 0 and increment_at_start)) or (moves is not None and moves <= 0):
                hint = 'use "inf" for no clock'
                if base <= 0 < increment:
                    hint = "give it a base time, or set increment_at_start = true: fastchess's clock, which starts " \
                           "with one increment"
                raise ConfigError(
                    f"bad time control {text!r}: time and moves must be positive", field="tc", hint=hint
                )
            tc = cls(
                base=base,
                increment=increment,
                moves=moves,
                move_time=move_time,
                nodes=nodes,
                depth=depth,
            )
        tc.validate()
        return tc

    def validate(self) -> None:
        """Refuse limits that allow a game never to end."""
        for name, value in (("st", self.move_time), ("nodes", self.nodes), ("depth", self.depth)):
            if value is not None and (value <= 0 or (isinstance(value, float) and not math.isfinite(value))):
                what = "positive" if value <= 0 else "a finite number"  # inf, nan: never an end to a move
                raise ConfigError(f"{name} must be {what}, not {value}", field=name)
            if isinstance(value, int) and value > MAX_COUNT:
                raise ConfigError(f"{name} must be at most {MAX_COUNT:,}, not {value:,}", field=name,
                                  hint="engines count in 64 bits, and so does TOML")
        for name, seconds in (("tc", self.base), ("tc", self.increment), ("st", self.move_time)):
            if seconds is not None and seconds > MAX_SECONDS:
                raise ConfigError(f"{seconds:.6g} s is more than an engine's clock holds (at most {MAX_SECONDS:.0e} s)",
                                  field=name, hint="engines read times in 64-bit milliseconds; no clock: tc = \"inf\"")
        if not self.is_timed and self.nodes is None and self.depth is None:
            raise ConfigError(
                "no limit at all: with tc = \"inf\" engines would think for ever",
                field="tc",
                hint="give a clock, or st, nodes or depth",
            )

    def __str__(self) -> str:
        """The ``tc`` string this control was parsed from, in canonical form."""
        if not self.has_clock:
            return "inf"
        text = f"{self.moves}/{_num(self.base)}" if self.moves else _num(self.base)
        return f"{text}+{_num(self.increment)}" if self.increment else text

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` tag value as fastchess writes it: ``40/60+0.6``, ``10+0.1``, ``8``
        (seconds to six significant digits), ``0.5/move`` for a fixed time a move (which fastchess
        writes alone, even beside a clock), ``-`` for no clock (nodes or depth only)."""
        if self.move_time is not None:
            return f"{self.move_time:.8g}/move"
        if not self.has_clock:
            return "-"
        period = f"{self.moves}/{self.base:.6g}" if self.moves else f"{self.base:.6g}"
        return f"{period}+{self.increment:.6g}" if self.increment else period

    def new_clock(self, *, increment_at_start: bool = False) -> Clock:
        """A clock at the start of a game: its base time, plus one increment with ``increment_at_start``
        (fastchess's clock, which gives the first move's increment before it)."""
        extra = self.increment if increment_at_start and self.has_clock else 0.0
        return Clock(self, remaining=self.base + extra, moves_left=self.moves)


@dataclass(slots=True)
class Clock:
    """One side's clock during a game."""

    control: TimeControl
    remaining: float
    moves_left: int | None = field(default=None)

    def deadline(self, margin: float) -> float | None:
        """Seconds the engine may think before it is flagged, or ``None`` when unlimited."""
        limits = []
        if self.control.has_clock:
            limits.append(self.remaining + margin)
        if self.control.move_time is not None:
            limits.append(self.control.move_time + margin)
        return min(limits) if limits else None

    def spend(self, seconds: float) -> None:
        """Charge a move's thinking time, then add the increment and start new periods."""
        if not self.control.has_clock:
            return
        self.remaining -= seconds
        self.remaining += self.control.increment
        if self.moves_left is not None:
            self.moves_left -= 1
            if self.moves_left == 0:
                self.moves_left = self.control.moves
                self.remaining += self.control.base


def _num(value: float) -> str:
    return f"{value:g}"
