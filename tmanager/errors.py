"""The exception hierarchy: every failure a user can cause is a :class:`TManagerError`.

The CLI prints ``str(error)`` as one line and exits with status 2; nothing else
escapes to the user as a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path

#: Characters a terminal may act on rather than show (line breaks, ESC starting a colour or an
#: operating-system command, C1 controls), and the Unicode line and paragraph separators.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``, ``\\x1b``): a message
    stays one line, and a file or player name cannot move the cursor or recolour the terminal."""
    return CONTROL_CHARACTERS.sub(lambda m: repr(m.group())[1:-1], text)


#: The most digits of a number as typed: more is no number anyone means (board, round, player, team, version…),
#: and ``int`` of some 4,300 digits raises, a traceback where ``ascii_digits`` promised a number.
MOST_DIGITS = 18


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is a whole number as typed: one to :data:`MOST_DIGITS` of the digits 0-9, so that
    ``int(text)`` cannot fail. ``str.isdigit`` also takes '²' (AltGr+2 on many keyboards) and other Unicode
    digits, which ``int`` then refuses with a traceback."""
    return text.isascii() and text.isdigit() and len(text) <= MOST_DIGITS


class TManagerError(Exception):
    """Base class for all errors tmanager reports to its user.

    ``topic`` may name what the error is about, so that a longer explanation
    can be found for it (the event shell's ``why``) without reading its words.
    """

    def __init__(self, *args: object, topic: str | None = None) -> None:
        super().__init__(*args)
        self.topic = topic


class ConfigError(TManagerError):
    """A file (tourney, event, engine definition, opening book…) is malformed.

    Formats as ``FILE: FIELD: what is wrong (how to fix it)``.
    """

    def __init__(
        self, message: str, *, file: str | Path | None = None, field: str | None = None, hint: str | None = None
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.field = field
        self.hint = hint
        super().__init__(self._format())

    def _format(self) -> str:
        parts = [p for p in (self.file, self.field) if p]
        text = ": ".join([*parts, self.message])
        return f"{text} ({self.hint})" if self.hint else text

    def located(self, *, file: str | Path | None = None, field: str | None = None) -> ConfigError:
        """The same error, with a file or field filled in where it was unknown."""
        return ConfigError(
            self.message,
            file=self.file or file,
            field=self.field or field,
            hint=self.hint,
        )


class EngineError(TManagerError):
    """An engine cannot be configured or run where it should (options it refuses, no Dask worker has it).

    A definition or program that cannot be found is a :class:`ConfigError` of the tourney file.
    """


class ScheduleError(TManagerError):
    """A request that the schedule cannot satisfy (game number out of range and the like)."""


class PairingError(TManagerError):
    """No valid pairing exists for the requested round."""


class DiskError(TManagerError):
    """A write did not land in full (a full disk, a read-only or vanished file system); nothing was recorded."""


class StateError(TManagerError):
    """An operation refused because of the tourney's current state (a game in progress…)."""


class LockTimeout(StateError):
    """The lock of a file stayed taken for longer than a command would wait."""


def first_line(exc: BaseException) -> str:
    """The first line of what an exception says (at most 120 characters), or its type's name."""
    lines = str(exc).strip().splitlines()
    return lines[0][:120] if lines else type(exc).__name__
