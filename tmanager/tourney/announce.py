"""Announcements of a worker's games as they start and end, for a program that follows a run.

``tmanager fastchess`` prints a line as each game starts and ends, as fastchess
does; its games are played by worker processes. Each worker it starts gets
the write end of a pipe (``tmanager work --announce-fd N``) and writes to it
one JSON line per event, in one ``write`` of at most ``PIPE_BUF`` bytes, which
the kernel never interleaves with another's: the follower reads whole lines
from all its workers at once.

An announcement follows the fact: a game is announced finished after its
result is stored (a worker killed in between leaves a stored game that was
never announced, which the follower finds in the tourney file). Announcements
are a courtesy to the follower, never the record: a worker whose follower has
gone (its pipe closed) plays on and stops announcing.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tmanager.core.results import Result

#: The most bytes one announcement takes: the kernel writes that much to a pipe at once (POSIX's PIPE_BUF
#: is at least 512; Linux's 4096).
MAX_LINE = min(select.PIPE_BUF, 4096)
#: Longer texts (a reason, a warning) are cut to this many characters.
MAX_TEXT = 1000


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Game ``number`` (counted from 0, as everywhere in tmanager) began."""

    number: int
    white: str
    black: str


@dataclass(frozen=True, slots=True)
class GameFinished:
    """Game ``number`` ended, and its result is stored. ``ending`` is the kind of end
    (:class:`~tmanager.tourney.outcome.Ending`'s value); ``overstep_ms`` how far the loser of a
    game lost on time went over its time; ``illegal_move`` the illegal move it was lost by, as the
    engine wrote it; ``fault`` the loser's fault, if it lost by one (:class:`~tmanager.tourney.outcome.Fault`'s
    value)."""

    number: int
    white: str
    black: str
    result: Result
    ending: str
    reason: str
    overstep_ms: int | None = None
    illegal_move: str = ""
    fault: str = ""


@dataclass(frozen=True, slots=True)
class EngineStarted:
    """A participant's engine process started: the name it gives itself and its options' values, those
    it was given and the defaults of the others (fastchess names threads and hash in its reports)."""

    participant: str
    id_name: str = ""
    id_author: str = ""
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EngineWarning:
    """A problem of an engine's PV (:mod:`tmanager.tourney.pvcheck`), with the game that shows it: fastchess
    prints such a ``Warning; …``, and fishtest stops a test for it."""

    problem: str  #: :class:`~tmanager.tourney.pvcheck.PvProblem`'s value
    engine: str
    move: str  #: the move at fault, if one is
    info: str  #: the engine's ``info`` line
    start: str  #: ``startpos`` or ``fen …``
    moves: tuple[str, ...]  #: the game's moves before the search


@dataclass(frozen=True, slots=True)
class OptionRefused:
    """An option value ``engine`` refused and plays its game without (``Settings.warn_refused_options``): fastchess
    prints ``Warning; dev doesn't have option X``, ``Warning; Invalid value for option X; V`` or ``Warning; Failed
    to set option X with value V for engine dev: stoi``, and fishtest stops a test for it."""

    engine: str
    option: str
    value: str
    missing: bool  #: the engine has no such option (else the value is one it cannot take)
    #: the C++ conversion that fastchess's reading of the value fails in (``stoi``), if it does
    unconverted: str = ""


Announcement = GameStarted | GameFinished | EngineStarted | EngineWarning | OptionRefused
_KINDS: dict[str, type[Announcement]] = {
    "started": GameStarted, "finished": GameFinished, "engine": EngineStarted, "warning": EngineWarning,
    "option": OptionRefused,
}  # fmt: skip
_NAMES = {kind: name for name, kind in _KINDS.items()}


def encode(announcement: Announcement) -> bytes:
    """One line of JSON, within :data:`MAX_LINE` bytes: texts are cut to :data:`MAX_TEXT` characters, and
    while the line is longer, its longest text, list or table is halved (a list keeps its end)."""
    data: dict[str, Any] = {"kind": _NAMES[type(announcement)]}
    for name in announcement.__dataclass_fields__:
        value = getattr(announcement, name)
        if isinstance(value, Mapping):
            value = dict(value)
        data[name] = value[:MAX_TEXT] if isinstance(value, str) else value
    line = json.dumps(data, ensure_ascii=False).encode() + b"\n"
    while len(line) > MAX_LINE:
        name = max((k for k, v in data.items() if isinstance(v, str | tuple | list | dict)), key=lambda k: len(data[k]))
        value = data[name]
        half = len(value) // 2
        data[name] = dict(list(value.items())[:half]) if isinstance(value, dict) else value[len(value) - half:]
        line = json.dumps(data, ensure_ascii=False).encode() + b"\n"
    return line


def decode(line: bytes) -> Announcement | None:
    """The announcement of one line; ``None`` for a line that is not one (cut, or from elsewhere)."""
    try:
        data = json.loads(line)
        kind = _KINDS[data.pop("kind")]
        if kind is GameFinished:
            data["result"] = Result(data["result"])
        if kind is EngineWarning:
            data["moves"] = tuple(data["moves"])
        return kind(**data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class Announcer:
    """Writes announcements to a file descriptor (a pipe's write end), one line per write."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd

    def announce(self, announcement: Announcement) -> None:
        if self.fd is None:
            return
        try:
            os.write(self.fd, encode(announcement))
        except OSError:  # the follower is gone (EPIPE) or the descriptor was never a pipe: play on, silent
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


class Lines:
    """Splits what is read from a pipe into whole lines, keeping a line begun for the next read."""

    def __init__(self) -> None:
        self._rest = b""

    def feed(self, data: bytes) -> Iterator[bytes]:
        lines = (self._rest + data).split(b"\n")
        self._rest = lines.pop()
        yield from lines
