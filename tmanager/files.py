"""Files, with no knowledge of what they hold: locks, stamps, atomic replacement, reading with one-line errors.

Every module that writes a file it shares with other processes (tourney and
event files, reports, the PGN, passwords) does it through here, so that a
reader sees the old file or the new one and never a mix.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import filelock

from tmanager.errors import ConfigError

#: How long a command waits for a lock before giving up with a clear message.
LOCK_TIMEOUT = 60.0


def lock(path: Path, *, timeout: float = LOCK_TIMEOUT) -> filelock.BaseFileLock:
    """The lock guarding ``path`` (and the files that belong to it, such as a tourney's PGN)."""
    return filelock.FileLock(str(path) + ".lock", timeout=timeout)


Stamp = tuple[int, int, int] | None


def stamp(path: Path) -> Stamp:
    """What changes whenever the file is rewritten (atomic renames give a new inode), or ``None`` if absent."""
    try:
        s = os.stat(path)
    except OSError:
        return None
    return (s.st_ino, s.st_mtime_ns, s.st_size)


def read_text(path: Path, *, kind: str = "tourney", create: str = "tmanager new") -> str:
    """A tourney or event file's text; :class:`ConfigError` (saying how to create one) when unreadable."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no such {kind} file", file=path, hint=f"create one with `{create}`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", file=path) from None


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that readers see the old or the new file, never a mix."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically: temporary file, fsync, rename, fsync of the directory."""
    directory = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def append_line(path: Path, line: str) -> None:
    """Append one line with one write and an fsync, the caller holding the lock of ``path``'s owner.

    A file that does not end in a newline (a writer died mid-line) is first cut back to its last
    complete line, so a reader never meets half a line.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            start = max(0, size - (1 << 16))
            tail = os.pread(fd, size - start, start)
            os.ftruncate(fd, start + tail.rfind(b"\n") + 1)
        os.write(fd, line.rstrip("\n").encode("utf-8") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
