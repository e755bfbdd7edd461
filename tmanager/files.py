"""Files, with no knowledge of what they hold: locks, stamps, atomic replacement, reading with one-line errors.

Every module that writes a file it shares with other processes (tourney and
event files, reports, the PGN, passwords) does it through here, so that a
reader sees the old file or the new one and never a mix.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import re
import secrets
import shutil
import stat
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tmanager.errors import ConfigError, DiskError, LockTimeout

#: How long a command waits for a lock before giving up with a clear message.
LOCK_TIMEOUT = 60.0


@contextlib.contextmanager
def lock(path: Path, *, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the lock guarding ``path`` (and the files that belong to it, such as a tourney's PGN).

    :class:`LockTimeout` when another process holds it for more than ``timeout`` seconds;
    :class:`ConfigError` when ``path``'s directory does not exist: the lock file goes beside
    ``path``, and a lock must not create directories that a mistyped path names.
    """
    import filelock  # here: commands that only read (status, --help) never load it

    if not path.parent.is_dir():
        raise ConfigError(f"cannot use: {path.parent} is not a directory", file=path, hint="check the path")
    check_lock(path)
    expect_file(path)  # a directory, a FIFO or a device is refused before its lock file is made beside it
    lock_file = lock_path(path)
    deadline = time.monotonic() + timeout
    while True:
        held = filelock.FileLock(str(lock_file), on_acquired=_still_named(lock_file))
        try:
            held.acquire(timeout=max(0.0, deadline - time.monotonic()))
        except _Unlinked:
            continue  # filelock gave the stale lock back: take the one the path names now
        except filelock.Timeout:
            raise lock_timeout(path, timeout) from None
        except OSError as exc:
            raise _cannot_lock(lock_file, exc) from None
        break
    try:
        yield
    finally:
        held.release()


def _cannot_lock(lock_file: Path, exc: OSError) -> ConfigError:
    """The error of a lock that could not be taken. A file system without ``flock`` (Lustre mounted noflock, NFS
    without its lock daemon) is refused, not worked around with filelock's soft lock (a marker file whose
    existence is the lock, which ``on_acquired`` disables anyway): a holder killed on another host would leave
    the marker held for ever, and a lock file removed while held (:func:`remove_lock_file`) would read as its
    release; the engines' starts and `tmanager fastchess`'s runs need ``flock`` as well."""
    if exc.errno in (errno.ENOSYS, errno.ENOLCK, errno.EOPNOTSUPP):
        return ConfigError(
            f"cannot take the lock: this file system does not lock files ({_reason(exc)})", file=lock_file,
            hint="tmanager locks with flock: keep the tourney's directory on a local disk, or on a network file "
            "system mounted with locking",
        )
    return ConfigError(f"cannot take the lock: {_reason(exc)}", file=lock_file)


class _Unlinked(Exception):
    """The lock was taken on a lock file no longer at its path: removed (:func:`remove_lock_file`) by the
    holder this process waited for, maybe made anew by a third that holds it now."""


def _still_named(lock_file: Path) -> Callable[[int], None]:
    """filelock's ``on_acquired`` check: the descriptor locked is the file ``lock_file`` names (else
    :class:`_Unlinked`, and filelock releases it)."""
    def check(descriptor: int) -> None:
        try:
            named = os.stat(lock_file)
        except FileNotFoundError:
            raise _Unlinked from None
        if not os.path.samestat(named, os.fstat(descriptor)):
            raise _Unlinked
    return check


def remove_lock_file(path: Path) -> None:
    """Remove ``path``'s lock file, the lock being held (by :func:`lock`): a process waiting for it finds,
    once it takes it, that its path no longer names it, and takes the lock again on a new file (see
    :func:`_still_named`); without that check the waiter and a third process could hold one lock each."""
    lock_path(path).unlink(missing_ok=True)


def lock_path(path: Path) -> Path:
    """The lock file of ``path``, beside the file it names (see :func:`linked_file`): a link to a file and the
    file itself take one lock."""
    file = linked_file(path)
    return file.with_name(file.name + ".lock")


def linked_file(path: Path) -> Path:
    """The file ``path`` names, through a symbolic link if it is one: what a rewrite replaces and what its lock
    and journal go beside. Replacing the link itself would cut it from the file it names, which would then
    keep its old content."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def check_lock(path: Path) -> None:
    """:class:`ConfigError` when ``path``'s lock file is there but is not a regular file (see :func:`expect_file`),
    or is a symbolic link to nothing, which the lock cannot be taken through (a worker waited for ever)."""
    lock_file, hint = lock_path(path), f"move it away: tmanager locks {path.name} with it"
    if not expect_file(lock_file, hint=hint) and os.path.islink(lock_file):
        raise ConfigError("is a symbolic link to nothing", file=lock_file, hint=hint)


def lock_timeout(path: Path, timeout: float) -> LockTimeout:
    """What a command says when ``path``'s lock stayed taken for ``timeout`` seconds."""
    return LockTimeout(f"{path}: could not take the lock within {timeout:g} s (another tmanager holds {path}.lock)")


Stamp = tuple[int, int, int] | None


def stamp(path: Path) -> Stamp:
    """What changes whenever the file is rewritten (atomic renames give a new inode), or ``None`` if absent."""
    try:
        s = os.stat(path)
    except OSError:
        return None
    return (s.st_ino, s.st_mtime_ns, s.st_size)


#: The most bytes :func:`read_bytes` reads unless told otherwise: more than any tourney file holds
#: (a results string of :data:`~tmanager.tourney.model.MAX_GAMES` characters is 100 MB), far more
#: than an event, TRF or engine definition; a file beyond it was named by mistake.
READ_LIMIT = 256 << 20

#: What a path holds, for the one-line errors about what is not a regular file.
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _what(mode: int) -> str:
    """What a stat's ``mode`` says a path holds, in words."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    return next((name for test, name in _KINDS if test(mode)), "neither a file nor a directory")


def _not_a_file(path: Path, mode: int, hint: str | None) -> ConfigError:
    """The error for ``path`` holding something other than a regular file (``mode`` from its stat)."""
    what = "is a directory" if stat.S_ISDIR(mode) else f"is not a regular file but {_what(mode)}"
    # Without a hint of the caller's it said no way out ("tmanager: /tmp: is a directory"), which every refusal says.
    return ConfigError(what, file=path, hint=hint or "name a regular file, or move this away")


def _loop(path: Path, hint: str | None) -> ConfigError:
    return ConfigError("is a loop of symbolic links", file=path, hint=hint or "point the link at a file")


def check_link_directory(path: Path, *, hint: str | None = None) -> None:
    """:class:`ConfigError` when ``path`` is a symbolic link into a directory that is not there: no file can be
    made through it, and the write's failure read as the disk's ("check the disk"). A link to a file still to be
    made in a directory that is there is written through, as a link to a file is."""
    if os.path.islink(path):
        into = Path(os.path.realpath(path)).parent
        if not into.is_dir():
            raise ConfigError(f"is a symbolic link into {into}, which is not a directory", file=path,
                              hint=hint or "make that directory, or remove the link")


def _mode(path: Path, hint: str | None) -> int | None:
    """The mode of what ``path`` leads to, or ``None`` when nothing is there (its directory neither)."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _loop(path, hint) from None
        if exc.errno == errno.ENAMETOOLONG:
            raise name_too_long(path) from None
        raise ConfigError(f"cannot use: {_reason(exc)}", file=path) from None


def name_too_long(path: str | Path) -> ConfigError:
    """What is said of a path the file system refuses as too long."""
    return ConfigError("file name too long", file=path, hint="a name has at most 255 bytes, a path 4,096")


def expect_file(path: Path, *, hint: str | None = None) -> bool:
    """Whether ``path`` exists; :class:`ConfigError` when what is there (through symbolic links) is not a
    regular file: a directory, a FIFO, a socket, a device, or a loop of links.

    The one check before tmanager replaces a file or lets another program write to it (atomic
    rewrites, lock files, the files engines append to): such a thing is never replaced nor written to.
    A path whose directory is missing counts as absent; creating it then fails with its own error.
    """
    mode = _mode(path, hint)
    if mode is not None and not stat.S_ISREG(mode):
        raise _not_a_file(path, mode, hint)
    return mode is not None


def check_writable(path: Path, *, file: Path | None = None, field: str | None = None, what: str = "file") -> None:
    """Refuse an output that cannot be written: anything but a regular file, a path whose directory is missing
    (:func:`expect_output`), or a file or directory without write permission (:func:`check_access`). Said
    before any work is done, not after it when the output is written (or, for a log, by each worker started).

    Told as ``field`` of ``file`` (a tourney's setting, a command's option), or without a ``field`` as the
    path itself (a log named on the command line); ``what`` the path should name, for the hint."""
    expect_output(path, file=file, field=field, what=what)
    check_access(path, file=file, field=field)


def expect_output(path: Path, *, file: Path | None = None, field: str | None = None, what: str = "file") -> None:
    """:func:`check_writable`'s look at what is there, without asking for permissions: for a look at what would
    be written there, which writes nothing (and a read-only archive must be readable)."""
    hint = f"name a {what}"
    try:
        exists = expect_file(path, hint=hint)
    except ConfigError as exc:
        if field is None:
            raise
        raise ConfigError(f"{str(path)!r} {exc.message}", file=file, field=field, hint=hint) from None
    if not exists and not path.parent.is_dir():
        raise ConfigError(
            f"no directory {str(path.parent)!r} to hold it", file=path if field is None else file, field=field,
            hint="create the directory, or change the path",
        )


def check_access(path: Path, *, file: Path | None = None, field: str | None = None) -> None:
    """Refuse an output this process may not write: the file, or if there is none yet, its directory. The rest
    of :func:`check_writable`, for an output whose kind :func:`expect_output` has looked at already."""
    exists = os.path.exists(path)
    if not os.access(path if exists else path.parent, os.W_OK | (0 if exists else os.X_OK)):
        where = str(path if exists else path.parent)
        raise ConfigError(
            f"cannot write to {where!r}", file=path if field is None else file, field=field,
            hint="check its permissions",
        )


def file_size(path: Path | str) -> int:
    """``path``'s size in bytes; 0 when there is no file there to look at (not yet made, or removed)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def same_file(path: Path, other: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or (both existing) the same inode."""
    if os.path.realpath(path) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def expect_directory(path: Path, *, hint: str | None = None) -> bool:
    """Whether directory ``path`` exists; :class:`ConfigError` when something else is there, a symbolic link to
    nothing too (no directory can be made there: a tourney's games in progress went unshown, without a word)."""
    mode = _mode(path, hint)
    if mode is not None and not stat.S_ISDIR(mode):
        raise ConfigError(f"is not a directory but {_what(mode)}", file=path, hint=hint)
    if mode is None and os.path.islink(path):
        raise ConfigError("is a symbolic link to nothing", file=path, hint=hint)
    return mode is not None


def make_directory(path: Path, *, hint: str | None = None) -> None:
    """Create directory ``path`` and its parents where missing: a :class:`ConfigError` naming the first of them
    that is something else (a file, a FIFO), a :class:`DiskError` when one cannot be made."""
    for directory in [*reversed(path.parents), path]:
        expect_directory(directory, hint=hint)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise disk_error(path, exc) from None


def open_file(path: Path, flags: int = os.O_RDONLY, *, hint: str | None = None, mode: int = 0o644) -> int:
    """Open ``path`` (``flags`` as for :func:`os.open`) and check that it is a regular file: the one check of
    every file tmanager reads or writes in place. Returns the descriptor, the caller's to close.

    It is opened without blocking, so that a FIFO or a device named by mistake is refused at once
    instead of hanging the command; :class:`ConfigError` says what it is instead (with ``hint`` as the
    way out). Other failures (a missing file, no permission, a full disk) raise their ``OSError``.
    """
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _loop(path, hint) from None
        if exc.errno in (errno.EISDIR, errno.ENXIO):  # a directory opened for writing; a FIFO without reader
            expect_file(path, hint=hint)  # says which
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            check_link_directory(path, hint=hint)
        raise
    try:
        file_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(file_mode):
            raise _not_a_file(path, file_mode, hint)
    except BaseException:
        os.close(fd)
        raise
    return fd


def missing_file(path: Path, *, kind: str = "tourney", create: str | None = "tmanager new") -> ConfigError:
    """What is said of a ``kind`` file that is not there, and how to ``create`` one (if given; else: check the path,
    the file is one to be given, an alias table, a .t file…)."""
    return ConfigError(
        f"no such {kind} file", file=path, hint=f"create one with `{create}`" if create else "check the path"
    )


def expect_existing(path: Path, *, kind: str = "tourney", create: str | None = "tmanager new") -> None:
    """Refuse a ``kind`` file that is not there (:func:`missing_file`) or is not a regular file
    (:func:`expect_file`), before its lock is taken: the lock file a mistyped name would get beside it is never
    made. A path under no directory is left to :func:`lock`, which says so."""
    if not expect_file(path) and path.parent.is_dir():
        raise missing_file(path, kind=kind, create=create)


#: What to do of a file the system cannot read (no permission, an I/O error).
UNREADABLE = "check the file's permissions and its disk"


def read_bytes(
    path: Path, *, kind: str = "tourney", create: str | None = "tmanager new", limit: int | None = READ_LIMIT
) -> bytes:
    """A regular file's bytes; :class:`ConfigError` (saying how to create one, if ``create`` is
    given) when it is missing, unreadable, not a regular file (see :func:`open_file`), or larger
    than ``limit`` bytes (``None``: no limit), which is then not read at all.
    """
    try:
        fd = open_file(path, hint=f"give the path of the {kind} file")  # a directory, a FIFO: the way out said too
    except FileNotFoundError:
        raise missing_file(path, kind=kind, create=create) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {_reason(exc)}", file=path, hint=UNREADABLE) from None
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            raise ConfigError(
                f"{size:,} bytes, more than a {kind} file holds ({limit >> 20} MB)", file=path,
                hint="name the right file",
            )
        with open(fd, "rb", closefd=False) as f:
            return f.read()
    except OSError as exc:  # a disk's or a network file system's error
        raise ConfigError(f"cannot read: {_reason(exc)}", file=path, hint=UNREADABLE) from None
    finally:
        os.close(fd)


def read_text(
    path: Path, *, kind: str = "tourney", create: str | None = "tmanager new", limit: int | None = READ_LIMIT
) -> str:
    """A tourney, event or definition file's text (see :func:`read_bytes`); also refused when not UTF-8."""
    return decode(read_bytes(path, kind=kind, create=create, limit=limit), path)


def decode(data: bytes, path: Path) -> str:
    """A file's bytes as text: UTF-8, with or without the byte-order mark some editors write."""
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"not UTF-8 text (byte {data[exc.start]:#04x} on line {line})", file=path, hint="save the file as UTF-8"
        ) from None


def _reason(exc: OSError) -> str:
    """An OS error's reason without the file name that the one-line error already gives."""
    reason = exc.strerror or type(exc).__name__
    return reason[:1].lower() + reason[1:]


#: More parts than any real file has in one dotted key; tomllib's memory grows with the square
#: of a key's parts (a 40 kB key of 20,000 parts takes 1.5 GB), so such keys are refused unread.
MAX_KEY_PARTS = 100

# A bare part starts at a word's start and is taken whole (no backtracking into long runs of
# word characters such as a results string): the search stays linear.
_KEY_PART = r"""(?:(?<![\w"'-])[\w-]++|"[^"\n]*+"|'[^'\n]*+')"""
_DEEP_KEY = re.compile(_KEY_PART + rf"(?:[ \t]*+\.[ \t]*+{_KEY_PART}){{{MAX_KEY_PARTS}}}")


def _has_deep_key(text: str) -> bool:
    """Whether a line holds a dotted key of more than :data:`MAX_KEY_PARTS` parts; only lines
    with that many dots are searched (a key cannot span lines)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text.count(".", start, end) >= MAX_KEY_PARTS and _DEEP_KEY.search(text, start, end):
            return True
        start = end + 1
    return False


def parse_toml(text: str, *, file: str | Path | None) -> dict[str, Any]:
    """TOML text as data; :class:`ConfigError` when it is not valid TOML or is nested too deeply
    to read safely (arrays or tables within each other hundreds of times, dotted keys of
    more than :data:`MAX_KEY_PARTS` parts)."""
    too_deep = ConfigError(
        "not valid TOML: nested too deeply", file=file, hint="settings nest tables and arrays only a few levels"
    )
    if text.count(".") >= MAX_KEY_PARTS and _has_deep_key(text):
        raise too_deep
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=file, hint="fix the syntax at that line") from None
    except ValueError:  # not a TOMLDecodeError: an integer of more digits than Python converts
        raise ConfigError("not valid TOML: a number too long to read", file=file) from None
    except RecursionError:
        raise too_deep from None


def disk_error(path: Path, exc: OSError) -> DiskError:
    """The one-line error for a write that failed, naming the file system and its free space."""
    free = ""
    with contextlib.suppress(OSError):
        free = f", {shutil.disk_usage(path.parent).free // 1024} kB free there"
    hint = "free some space, then run again" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "check the disk"
    return DiskError(f"{path}: cannot write ({exc.strerror or exc}{free}); nothing was recorded ({hint})")


def append_checked(path: Path, data: bytes, *, keep: Callable[[int], tuple[int, bytes]] | None = None) -> int:
    """Append ``data`` to ``path`` and fsync; returns the offset where it starts. The caller holds the lock.

    ``keep(fd)`` may first cut off a fragment left by an earlier writer: it returns
    the size to keep, and the bytes that must come between what is kept and ``data``
    (a separator a hand edit removed). On any failure (a full disk, a short write) the file is cut
    back to its old size and :class:`~tmanager.errors.DiskError` says why.
    """
    try:
        fd = open_file(path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    except OSError as exc:
        raise disk_error(path, exc) from None
    try:
        size, lead = os.fstat(fd).st_size, b""
        if keep is not None:
            kept, lead = keep(fd)
            if kept != size:
                os.ftruncate(fd, kept)
                size = kept
        start, data = size + len(lead), lead + data
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
        return start
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
        fd = open_file(path, os.O_RDWR)
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


def atomic_write(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``text`` so that readers see the old or the new file, never a mix."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically: temporary file, fsync, rename, fsync of the directory.

    ``mode`` gives the file's permissions; by default it keeps those of the file it replaces,
    and a new file gets the user's usual mode (0666 less the umask: 0644 under umask 022).
    """
    check_link_directory(path)
    path = linked_file(path)
    directory = path.parent
    if expect_file(path) and mode is None:  # never replaces a directory, a FIFO, a device...
        with contextlib.suppress(FileNotFoundError):
            mode = path.stat().st_mode & 0o777
    try:
        fd, tmp = _new_temporary(path, 0o666 if mode is None else mode)
    except OSError as exc:
        raise disk_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)  # exactly this mode, whatever the umask
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
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


def _new_temporary(path: Path, mode: int) -> tuple[int, Path]:
    """A new, empty temporary file beside ``path``, open for writing, created with ``mode``
    less the umask (``tempfile.mkstemp`` gives 0600 whatever the umask), so that its
    content is never readable by more users than the finished file will be."""
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode), tmp


def append_line(path: Path, line: str, *, ended_by_hand: bool = False) -> tuple[int, int]:
    """Append one line of text, checked and fsynced (see :func:`append_checked`); returns the offsets where
    it starts and where it ends. The caller holds the lock.

    A file that does not end in a newline (a writer died mid-line) is first cut back to its last
    complete line, so a reader never meets half a line; or, ``ended_by_hand`` (a file that is the user's to
    edit, written in one short write that a kill does not split), its last line is kept and given its newline
    (an editor saved it without one).
    """
    data = line.rstrip("\n").encode("utf-8") + b"\n"
    start = append_checked(path, data, keep=_ended_lines if ended_by_hand else _complete_lines)
    return start, start + len(data)


def _ended_lines(fd: int) -> tuple[int, bytes]:
    """The whole file, and the newline its last line lacks, if it does."""
    size = os.fstat(fd).st_size
    return size, b"" if not size or os.pread(fd, 1, size - 1) == b"\n" else b"\n"


def _complete_lines(fd: int) -> tuple[int, bytes]:
    """The size of the file up to the end of its last complete line (and nothing to put after it)."""
    size = os.fstat(fd).st_size
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return size, b""
    start = max(0, size - (1 << 16))
    return start + os.pread(fd, size - start, start).rfind(b"\n") + 1, b""
