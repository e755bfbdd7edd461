"""Files, with no knowledge of what they hold: locks, stamps, atomic replacement, reading with one-line errors.

Every module that writes a file it shares with other processes (tourney and
event files, reports, the PGN, passwords) does it through here, so that a
reader sees the old file or the new one and never a mix.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import filelock

from tmanager.errors import ConfigError, DiskError

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


def read_bytes(path: Path) -> bytes:
    """A regular file's bytes; :class:`ConfigError` for anything else (a FIFO never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ConfigError("no such tourney file", file=path, hint="create one with `tmanager new`") from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=path) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError("not a regular file", file=path, hint="give the path of a tourney file")
        chunks = []
        while chunk := os.read(fd, 1 << 22):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=path) from None
    finally:
        os.close(fd)


def disk_error(path: Path, exc: OSError) -> DiskError:
    """The one-line error for a write that failed, naming the file system and its free space."""
    free = ""
    with contextlib.suppress(OSError):
        free = f", {shutil.disk_usage(path.parent).free // 1024} kB free there"
    hint = "free some space, then run again" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "check the disk"
    return DiskError(f"{path}: cannot write ({exc.strerror or exc}{free}); nothing was recorded ({hint})")


def append_checked(path: Path, data: bytes, *, keep: Callable[[int], int] | None = None) -> int:
    """Append ``data`` to ``path`` and fsync; returns the offset where it starts. The caller holds the lock.

    ``keep(fd)`` may first cut off a fragment left by an earlier writer: it returns
    the size to keep. On any failure (a full disk, a short write) the file is cut
    back to its old size and :class:`~tmanager.errors.DiskError` says why.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as exc:
        raise disk_error(path, exc) from None
    try:
        size = os.fstat(fd).st_size
        if keep is not None:
            kept = keep(fd)
            if kept != size:
                os.ftruncate(fd, kept)
                size = kept
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                if written == 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[written:]
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise disk_error(path, exc) from None
        return size
    finally:
        os.close(fd)


def write_at(path: Path, edits: Sequence[tuple[int, bytes, bytes]], *, durable: bool) -> bool:
    """Overwrite bytes of ``path`` in place: each edit is (offset, old bytes, new bytes), short, so that it
    lands whole or not at all.

    Nothing is written, and ``False`` returned, unless the file still holds every
    edit's old bytes: someone may have replaced it or rewritten it in place (an
    editor's save) since the caller read it, and offsets into that text would
    damage the new one. With ``durable`` the file is fsynced; without, the caller
    has made the change durable elsewhere (a journal) and a power cut only loses
    a copy.
    """
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise disk_error(path, exc) from None
    try:
        if any(os.pread(fd, len(old), offset) != old for offset, old, _ in edits):
            return False
        for offset, _, new in edits:
            if os.pwrite(fd, new, offset) != len(new):
                raise OSError(errno.EIO, f"short write at byte {offset}")
        if durable:
            os.fsync(fd)
        return True
    except OSError as exc:
        raise disk_error(path, exc) from None
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that readers see the old or the new file, never a mix."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically: temporary file, fsync, rename, fsync of the directory."""
    directory = path.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise disk_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise disk_error(path, exc) from None
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
