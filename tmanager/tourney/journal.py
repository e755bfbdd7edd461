"""A tourney file's journal: each change of its results, claims and hooks as one line, after a checkpoint.

The journal ``.NAME.journal`` beside the file starts with a checkpoint (the
owned part at a version, with the claims, the pending hooks and the PGN's mark)
and goes on with one JSON line per change (see :mod:`tmanager.tourney.store`).
A process keeps each journal it has read folded (:class:`Journal`), and reads
only the lines appended since (:class:`JournalReader`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tmanager.errors import ConfigError
from tmanager.files import READ_LIMIT, atomic_write_bytes, expect_file, open_file, read_bytes
from tmanager.tourney.jsonvalues import number_key, table, text, whole
from tmanager.tourney.model import RESULT_CHARS, UNPLAYED, Claim, PendingHook, PgnMark
from tmanager.tourney.ownedpart import (
    IDENTITY_LINE,
    PROGRESS_HEADER,
    VERSION_WIDTH,
    Layout,
    OwnedPart,
    parse_laid_out,
    parse_owned,
)
from tmanager.tourney.paths import journal_path

log = logging.getLogger("tmanager")

Key = TypeVar("Key")
Value = TypeVar("Value")

#: The most bytes of a journal read: its checkpoint holds an owned part (the results string of the largest
#: tourney is 100 MB), and it is folded into a new checkpoint once it grows past twice the file's size.
JOURNAL_READ_LIMIT = 4 * READ_LIMIT
#: Bytes of a journal's first line that tell it from the journal it replaced: its checkpoint's version
#: and the start of its owned part (file systems give a new file the inode number just freed).
_JOURNAL_HEAD = 256
#: Bytes before a reader's offset that tell a journal grown by appends from one cut by hand below that offset
#: and written again since: the end of the last line read, with its version, claims' heartbeats or hooks'
#: takers, which no line written after the cut repeats at that place (versions only grow).
_JOURNAL_TAIL = 256


def damaged_path(path: Path) -> Path:
    """Where the unreadable lines of tourney file ``path``'s journal are set aside, as they were, before the
    journal is written afresh without them (:func:`set_aside`)."""
    journal = journal_path(path)
    return journal.with_name(f"{journal.name}.damaged")


def set_aside(path: Path, damaged: list[bytes]) -> None:
    """Append ``damaged``, the unreadable lines of tourney file ``path``'s journal, to :func:`damaged_path`,
    under the tourney's lock, before the caller replaces the journal by a checkpoint: they are kept for whoever
    wants to see what was there, and no command warns of them again."""
    aside = damaged_path(path)
    kept = b""
    if expect_file(aside):  # a directory, a FIFO there: said in one line, never replaced
        kept = read_bytes(aside, kind="journal's damaged lines", create=None, limit=JOURNAL_READ_LIMIT)
    atomic_write_bytes(aside, kept + b"".join(line + b"\n" for line in damaged))
    log.warning(
        "%s: %d unreadable line(s) set aside in %s; the journal is written afresh without them",
        journal_path(path), len(damaged), aside.name,
    )


@dataclass(slots=True)
class Journal:
    """A journal folded up to its end: the owned part at its checkpoint, with every change since applied.

    Changed in place as lines are read (a million games' owned part is not copied for
    each): whoever gets one reads it before the next read of the journal.
    """

    inode: int
    head: bytes  #: the start of its first line (a journal replaced may get the inode of the one before)
    offset: int  #: bytes read so far (complete lines only)
    checkpoint: int  #: the version of the checkpoint line
    version: int  #: the version after the last change
    owned: bytearray  #: the owned part's text now
    layout: Layout | None
    claims: dict[int, Claim]
    hooks: dict[str, PendingHook]
    #: the results of ``owned`` without padding, decoded when first asked for after a line changed them
    results: str | None = None
    pgn_mark: PgnMark | None = None  #: the PGN's size after the last game recorded
    tail: bytes = b""  #: the journal's last bytes read, up to ``offset`` (see :data:`_JOURNAL_TAIL`)
    #: the lines skipped as unreadable, as they were: the next transaction sets them aside (:func:`set_aside`)
    damaged: list[bytes] = field(default_factory=list)

    def continues(self, fd: int, *, inode: int, size: int) -> bool:
        """Whether the journal open as ``fd`` (of ``inode`` and ``size``) is this one, grown by appends alone:
        its first line and the end of what was read are still there. A journal cut by hand below what was read
        is not: folded further, its lines written since would be read from the middle of one, and what the
        cut took away (claims, results, hooks) would stay in this fold."""
        if inode != self.inode or size < self.offset:
            return False
        at = self.offset - len(self.tail)
        return os.pread(fd, len(self.head), 0) == self.head and os.pread(fd, len(self.tail), at) == self.tail

    def read_up_to(self, data: bytes, end: int) -> None:
        """Note that ``data[:end]``, read from ``offset``, is folded in: the offset and tail move past it."""
        self.tail = (self.tail + data[max(0, end - _JOURNAL_TAIL) : end])[-_JOURNAL_TAIL:]
        self.offset += end

    @property
    def identity(self) -> str | None:
        """The ``id`` of the file whose journal this is (``None``: a journal of an older version)."""
        progress = PROGRESS_HEADER.search(self.owned)
        found = IDENTITY_LINE.search(self.owned, progress.end()) if progress else None
        return found.group(1).decode("ascii") if found else None

    def apply(self, line: Any) -> None:
        """Fold in one change line. A damaged one (a value of the wrong type or out of range: a journal edited
        by hand, or damaged on disk) raises :class:`ValueError`, :class:`KeyError` or :class:`TypeError` and
        changes nothing: every value is checked before the first is applied."""
        line = table(line)
        version = whole(line["v"], most=10**VERSION_WIDTH - 1)  # more digits would shift the results string
        results = self._result_changes(line.get("results", {}))
        mark = PgnMark.from_json(line["pgn"]) if "pgn" in line else self.pgn_mark
        claims = _changes(line.get("claims", {}), Claim.from_json, number_key)
        hooks = _changes(line.get("hooks", {}), PendingHook.from_json, text)
        if self.layout is not None:
            if results:
                self.results = None
            for at, byte in results:
                self.owned[at] = byte
            self.owned[self.layout.version_at : self.layout.version_at + VERSION_WIDTH] = (
                f"{version:<{VERSION_WIDTH}d}".encode()
            )
        self.version = version
        self.pgn_mark = mark
        _merge(self.claims, claims)
        _merge(self.hooks, hooks)

    def _result_changes(self, changes: Any) -> list[tuple[int, int]]:
        """A line's changes of results as (offset in ``owned``, byte): each a game of the results string and
        a character of its alphabet."""
        if self.layout is None:
            return []
        found = []
        for number, char in table(changes).items():
            game = number_key(number)
            if game >= self.layout.padded or not (isinstance(char, str) and len(char) == 1 and char in RESULT_CHARS):
                raise ValueError(f"not a result of one of the {self.layout.padded} games: {number!r}: {char!r}"[:200])
            found.append((self.layout.results_at + game, ord(char)))
        return found

    def parsed(self, path: Path) -> OwnedPart:
        """The owned part, parsed (the results string decoded only when a line has changed it)."""
        if self.layout is None:
            return parse_owned(bytes(self.owned), path)
        if self.results is None:
            at, end = self.layout.results_at, self.layout.results_end
            self.results = str(memoryview(self.owned)[at:end], "ascii").rstrip(UNPLAYED)
        return parse_laid_out(self.owned, self.layout, path, results=self.results)


def _changes(changes: Any, make: Callable[[Any], Value], key: Callable[[str], Key]) -> list[tuple[Key, Value | None]]:
    """A line's changes of claims or hooks, each read (``None``: the key is gone)."""
    return [(key(name), None if value is None else make(value)) for name, value in table(changes).items()]


def _merge(target: dict[Key, Value], changes: list[tuple[Key, Value | None]]) -> None:
    for name, value in changes:
        if value is None:
            target.pop(name, None)
        else:
            target[name] = value


class JournalReader:
    """Reads journals incrementally: only the lines appended since the last read are parsed."""

    def __init__(self) -> None:
        self.cache: dict[Path, Journal] = {}
        self.told: set[tuple[int, int]] = set()  #: the unreadable lines warned of, by inode and offset

    def read(self, path: Path) -> Journal | None:
        """The folded journal of tourney file ``path``; ``None`` when there is none or it is unreadable.

        It is this reader's own, folded further by its next read of ``path``.
        """
        hint = f"move it away: tmanager keeps the journal of {path.name} there"
        try:
            fd = open_file(journal_path(path), hint=hint)
        except OSError:  # none yet, or unreadable: the file is taken as it is
            self.cache.pop(path, None)
            return None
        try:
            info = os.fstat(fd)
            inode, size = info.st_ino, info.st_size
            if size > JOURNAL_READ_LIMIT:
                raise ConfigError(f"{size:,} bytes, more than a journal grows to", file=journal_path(path), hint=hint)
            state = self.cache.get(path)
            if state is None or not state.continues(fd, inode=inode, size=size):
                state = self._start(fd, inode, path)
            if state is None:
                self.cache.pop(path, None)
                return None
            data = _read_from(fd, state.offset)
        finally:
            os.close(fd)
        end = data.rfind(b"\n") + 1  # a line still being written, or cut off by a kill, is not read yet
        at = state.offset
        for raw in data[:end].splitlines(keepends=True):
            try:
                state.apply(json.loads(raw))
            except (ValueError, KeyError, TypeError):
                self._skipped(path, state, raw, at)
            at += len(raw)
        state.read_up_to(data, end)
        self.cache[path] = state
        return state

    def appended(
        self, path: Path, journal: Journal, line: Mapping[str, Any], *, text: bytes, at: int, results: str
    ) -> None:
        """Fold ``line`` into ``journal``, read from ``path``'s journal: this process has just appended
        it as ``text`` (its bytes, newline included) at offset ``at``, leaving the results string ``results``
        (unpadded). So its next read has nothing to read back nor to decode, unless another process has
        written since."""
        if self.cache.get(path) is not journal or journal.offset != at:
            self.cache.pop(path, None)  # not appended where the reading stopped (after a fragment?): read afresh
            return
        journal.apply(line)
        journal.read_up_to(text, len(text))
        journal.results = results

    def _skipped(self, path: Path, state: Journal, raw: bytes, at: int) -> None:
        """Keep an unreadable line to be set aside, and say so once a process: the same journal read under
        another name of its file (relative, then absolute) is folded apart, but its line is one."""
        state.damaged.append(raw.rstrip(b"\r\n"))
        if (state.inode, at) in self.told:
            return
        self.told.add((state.inode, at))
        log.warning(
            "%s: an unreadable line was skipped (at byte %d; the next change of the tourney sets it aside in %s)",
            journal_path(path), at, damaged_path(path).name,
        )

    @staticmethod
    def _start(fd: int, inode: int, path: Path) -> Journal | None:
        data = _read_from(fd, 0)
        first, newline, _ = data.partition(b"\n")
        if not newline:
            return None
        try:
            head = table(json.loads(first))
            owned = bytearray(text(head["owned"]).encode("utf-8"))
            checkpoint = whole(head["checkpoint"], most=10**VERSION_WIDTH - 1)
            return Journal(
                inode=inode,
                head=first[:_JOURNAL_HEAD],
                tail=data[max(0, len(first) + 1 - _JOURNAL_TAIL) : len(first) + 1],
                offset=len(first) + 1,
                checkpoint=checkpoint,
                version=checkpoint,
                owned=owned,
                layout=Layout.find(owned),
                claims={number_key(k): Claim.from_json(v) for k, v in table(head.get("claims", {})).items()},
                hooks={text(k): PendingHook.from_json(v) for k, v in table(head.get("hooks", {})).items()},
                pgn_mark=PgnMark.from_json(head.get("pgn")),
            )
        except (ValueError, KeyError, TypeError):
            log.warning("%s: unreadable; the tourney file is taken as it is", journal_path(path))
            return None


def _read_from(fd: int, offset: int) -> bytes:
    chunks = []
    while chunk := os.pread(fd, 1 << 22, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


journals = JournalReader()


def owned_at(path: Path, journal: Journal, version: int) -> bytes:
    """The journal's owned part as it was at ``version`` (its checkpoint and the changes up to it)."""
    try:
        lines = read_bytes(journal_path(path), kind="journal", limit=JOURNAL_READ_LIMIT).split(b"\n")
        first = table(json.loads(lines[0]))
        owned = bytearray(text(first["owned"]).encode("utf-8"))
        checkpoint = whole(first["checkpoint"])
        past = Journal(0, b"", 0, checkpoint, checkpoint, owned, Layout.find(owned), {}, {})
        for raw in lines[1:]:
            line = table(json.loads(raw)) if raw else None
            if line is None or whole(line["v"]) > version:
                break
            past.apply(line)
    except (ConfigError, ValueError, KeyError, TypeError):
        return b""
    return bytes(past.owned)
