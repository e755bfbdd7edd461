"""The owned part of a tourney file as text: where it starts, how it is laid out, written and read.

A tourney file ends with the part tmanager owns (``[swiss]``, ``[faults]``,
``[verdict]``, ``[amendments.N]``, then ``[progress]``; see
:mod:`tmanager.tourney.model`). :func:`render_owned` lays ``[progress]`` out so that
the results string and the version can be changed in place, at fixed offsets
(:class:`Layout`), and :func:`parse_owned` reads an owned part in that layout
without parsing its results string as TOML (it may be millions of characters
long); the rest of the part is parsed once per distinct text. An owned part of
another layout (a hand-made or older file) is read as TOML.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmanager.errors import ConfigError
from tmanager.files import decode, parse_toml
from tmanager.tomlmap import dumps
from tmanager.tourney.amendments import fingerprint
from tmanager.tourney.model import OWNED_SECTIONS, RESHAPING_KEYS, UNPLAYED, Tourney
from tmanager.tourney.serialising import owned_sections_to_toml

_OWNED_HEADER = re.compile(rb"^[ \t]*\[[ \t]*(?:" + "|".join(OWNED_SECTIONS).encode() + rb")[ \t]*[\].]", re.MULTILINE)
PROGRESS_HEADER = re.compile(rb"^\[progress\][ \t]*\n", re.MULTILINE)
_RESULTS_KEY = b'\nresults = "'
_VERSION_LINE = re.compile(rb"^version = (\d+) *$", re.MULTILINE)
IDENTITY_LINE = re.compile(rb'^id = "([0-9a-f]*)"$', re.MULTILINE)
_RESULT_BYTES = b"+-=* "

#: Room for the version's digits, so that it is rewritten in place.
VERSION_WIDTH = 12


def split(text: str) -> tuple[str, str]:
    """Split a tourney file into the user's settings and the owned tail."""
    data = text.encode("utf-8")
    start = owned_start(data)
    return data[:start].decode("utf-8"), data[start:].decode("utf-8")


def owned_start(data: bytes) -> int:
    """Where the owned part of a file's text begins (its length when there is none)."""
    match = _OWNED_HEADER.search(data)
    return match.start() if match else len(data)


def new_identity() -> str:
    """A tourney file's identity: random, written in its ``[progress]`` and its journal's checkpoint, so that
    a journal is never applied to another file of the same name (one written by hand after the first was
    deleted, or copied over it)."""
    return secrets.token_hex(8)


def render_owned(tourney: Tourney, *, version: int, identity: str) -> str:
    """The owned part at ``version``: sections, then ``[progress]`` laid out for changes in place, with the
    ``identity`` the file shares with its journal."""
    names = [p.name for p in tourney.participants]
    progress: dict[str, Any] = {"participants": names, "schedule": write_shape(shape_of(tourney)), "id": identity}
    if tourney.sprt is not None:  # what its games were played under, so that a hand edit of it is told
        progress["conditions"] = [list(pair) for pair in fingerprint(tourney).items()]
    lines = ("participants", "rounds", "history", "begun", "drawn", "conditions")  # one element a line
    text = dumps({**owned_sections_to_toml(tourney), "progress": progress}, multiline=lines)
    results = tourney.results.ljust(tourney.schedule().total_games, UNPLAYED)
    return f'{text}version = {version:<{VERSION_WIDTH}d}\nresults = "{results}"\n'


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the fields changed in place sit in an owned part's text (byte offsets within it)."""

    line_at: int  #: the start of the results line
    line_end: int  #: just after it (its newline included)
    results_at: int
    results_end: int
    version_at: int

    @property
    def padded(self) -> int:
        """The length of the results string as written."""
        return self.results_end - self.results_at

    @classmethod
    def find(cls, owned: bytes | bytearray) -> Layout | None:
        """The layout of ``owned`` if it is the one :func:`render_owned` writes, else ``None``.

        Found with ``find`` rather than a regular expression: the results string may
        be millions of characters long, and ``find`` crosses it at memory speed.
        """
        progress = PROGRESS_HEADER.search(owned)
        if progress is None:
            return None
        line_at = owned.find(_RESULTS_KEY, progress.end() - 1) + 1
        if line_at == 0:
            return None
        results_at = line_at + len(_RESULTS_KEY) - 1
        results_end = owned.find(b'"', results_at)
        line_end = owned.find(b"\n", results_end) + 1 or len(owned)
        if results_end < 0 or owned[results_end + 1 : line_end].strip():
            return None
        if owned[line_end:].strip():  # written after the results line: read it all as TOML, which checks it
            return None
        version = _VERSION_LINE.search(owned, progress.end(), line_at)
        if version is None or len(version.group(1)) > VERSION_WIDTH:
            return None
        return cls(line_at, line_end, results_at, results_end, version.start(1))


@dataclass(frozen=True, slots=True)
class OwnedPart:
    """The owned part of a file as read."""

    sections: Mapping[str, Any]  #: every owned section but ``[progress]``
    sections_text: bytes  #: their text, as a cache key
    names: tuple[str, ...] | None  #: the participants the results were recorded with
    shape: dict[str, str] | None  #: the settings they were recorded with (:func:`shape_of`)
    #: an SPRT test's conditions its games were played under (:func:`~tmanager.tourney.amendments.fingerprint`)
    conditions: dict[str, str] | None
    identity: str | None  #: the ``id`` it shares with its journal (``None`` in files of older versions)
    version: int | None
    results: str  #: without its padding
    padded: int  #: length of the results string as written
    layout: Layout | None  #: set when results and version can be changed in place


@dataclass(frozen=True, slots=True)
class _Frame:
    """An owned part's text apart from its results and version, parsed: the same from one change to the next."""

    sections: Mapping[str, Any]
    sections_text: bytes
    names: tuple[str, ...] | None
    shape: dict[str, str] | None
    conditions: dict[str, str] | None
    identity: str | None


_frames: dict[bytes, _Frame] = {}


def parse_owned(owned: bytes, path: Path, *, lines_before: int = 0) -> OwnedPart:
    """Read an owned part, which starts after ``lines_before`` lines of the file (an error names the file's
    line); in tmanager's own layout without parsing the results string as TOML."""
    layout = Layout.find(owned)
    if layout is None:  # another layout (a hand-made or older file): read it all as TOML
        data = read_toml(owned, path, lines_before=lines_before)
        progress = data.pop("progress", {})
        if not isinstance(progress, dict):
            raise ConfigError("must be a table", file=path, field="progress")
        results = progress.get("results", "")
        if not isinstance(results, str):
            raise ConfigError("must be str (text)", file=path, field="progress.results")
        parsed = _frame(data, json.dumps(data, sort_keys=True, default=str).encode(), progress, path)
        encoded = results.encode("utf-8")
        return _owned(parsed, progress.get("version"), _results(encoded, path), len(encoded), None, path)
    return parse_laid_out(owned, layout, path, lines_before=lines_before)


def parse_laid_out(
    owned: bytes | bytearray, layout: Layout, path: Path, *, results: str | None = None, lines_before: int = 0
) -> OwnedPart:
    """Read an owned part in tmanager's own layout; its ``results`` without padding if known (they are
    then taken as valid: they are the journal's)."""
    version_end = owned.index(b"\n", layout.version_at)
    key = b"".join((owned[: layout.version_at], owned[version_end : layout.results_at], owned[layout.results_end :]))
    frame = _frames.get(key)
    if frame is None:
        progress_at = PROGRESS_HEADER.search(owned)
        assert progress_at is not None
        sections_text = bytes(owned[: progress_at.start()])
        sections_lines = lines_before + owned.count(b"\n", 0, progress_at.start())
        progress_text = bytes(owned[progress_at.start() : layout.line_at])
        progress = read_toml(progress_text, path, lines_before=sections_lines).get("progress", {})
        if "results" in progress:
            raise ConfigError("results is given twice", file=path, field="progress.results")
        frame = _frame(read_toml(sections_text, path, lines_before=lines_before), sections_text, progress, path)
        if len(_frames) > 16:
            _frames.clear()
        _frames[key] = frame
    version = int(owned[layout.version_at : version_end])
    if results is None:
        results = _results(bytes(owned[layout.results_at : layout.results_end]), path)
    return _owned(frame, version, results, layout.padded, layout, path)


def _frame(sections: dict[str, Any], sections_text: bytes, progress: dict[str, Any], path: Path) -> _Frame:
    unknown = set(progress) - {"results", "version", "participants", "schedule", "conditions", "id"}
    if unknown:
        raise ConfigError(
            f"unknown key {sorted(unknown)[0]!r}", file=path, field="progress",
            hint="known keys: participants, schedule, conditions, id, version, results",
        )
    shape = progress.get("schedule")
    if shape is not None and not isinstance(shape, str):
        raise ConfigError("must be str (text)", file=path, field="progress.schedule")
    identity = progress.get("id")
    if identity is not None and not isinstance(identity, str):
        raise ConfigError("must be str (text)", file=path, field="progress.id")
    names = progress.get("participants")
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        raise ConfigError("must be a list of names", file=path, field="progress.participants")
    names_read = tuple(names) if names is not None else None
    shape_read = None if shape is None else read_shape(shape)
    return _Frame(sections, sections_text, names_read, shape_read, _conditions(progress, path), identity)


def _conditions(progress: dict[str, Any], path: Path) -> dict[str, str] | None:
    """``[progress]``'s ``conditions``: pairs of texts, ``[["sprt.elo1", "5.0"], …]``."""
    pairs = progress.get("conditions")
    if pairs is None:
        return None
    if not isinstance(pairs, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(text, str) for text in pair) for pair in pairs
    ):
        raise ConfigError("must be a list of [key, value] pairs of texts", file=path, field="progress.conditions")
    return dict(pairs)


def shape_of(tourney: Tourney) -> dict[str, str]:
    """The values of :data:`~tmanager.tourney.model.RESHAPING_KEYS` (``section.field`` to its text): what the
    results string's characters mean, kept beside it so that a hand edit of one of them is told rather than
    obeyed."""
    sections = {"tourney": tourney.settings, "spsa": tourney.spsa}
    shape = {}
    for section, key in sorted(RESHAPING_KEYS):
        holder = sections[section]
        if holder is not None:
            value = getattr(holder, key)
            value = getattr(value, "value", value)  # an enum's value
            shape[f"{section}.{key}"] = str(value).lower() if isinstance(value, bool) else str(value)
    return shape


def write_shape(shape: dict[str, str]) -> str:
    """:func:`shape_of` as ``[progress]``'s ``schedule``: ``tourney.type=round-robin …``."""
    return " ".join(f"{key}={value}" for key, value in shape.items())


def read_shape(text: str) -> dict[str, str]:
    """``[progress]``'s ``schedule`` as :func:`shape_of` gives it (a word without ``=`` is kept whole)."""
    return dict(word.partition("=")[::2] for word in text.split())


def _results(results: bytes, path: Path) -> str:
    """A results string as written, checked, without its padding."""
    if results.translate(None, _RESULT_BYTES):
        index = next(i for i, c in enumerate(results) if c not in _RESULT_BYTES)
        # The character whole (UTF-8's up to four bytes, the bytes before it all results): its first byte alone
        # showed any letter beyond ASCII as '\ufffd'.
        foreign = results[index:index + 4].decode("utf-8", "replace")[0]
        raise ConfigError(
            f"foreign character {foreign!r} at game {index}",
            file=path,
            field="progress.results",
            hint='use only "+", "-", "=", "*" and space',
        )
    return results.decode("ascii").rstrip(UNPLAYED)


def _owned(frame: _Frame, version: Any, results: str, padded: int, layout: Layout | None, path: Path) -> OwnedPart:
    if version is not None and (
        isinstance(version, bool) or not isinstance(version, int) or not 0 <= version < 10**VERSION_WIDTH
    ):
        # Past VERSION_WIDTH digits a version is no longer rewritten in place, and the journal's checkpoint of it
        # was read as damaged: every change after warned so, and rewrote the whole file.
        raise ConfigError(
            f"must be a whole number from 0 to {10**VERSION_WIDTH - 1:,}, not {version!r}", file=path,
            field="progress.version", hint="put back the version tmanager wrote: it counts the file's changes",
        )
    return OwnedPart(
        sections=frame.sections,
        sections_text=frame.sections_text,
        names=frame.names,
        shape=frame.shape,
        conditions=frame.conditions,
        identity=frame.identity,
        version=version,
        results=results,
        padded=padded,
        layout=layout if version is not None else None,
    )


def read_toml(data: bytes, path: Path, *, lines_before: int = 0) -> dict[str, Any]:
    """``data``, a part of file ``path`` after its first ``lines_before`` lines, as TOML; an error names the
    file's line (blank lines before it cost TOML nothing)."""
    return parse_toml("\n" * lines_before + decode(data, path), file=path)
