"""Reading and writing tourney files: one lock, atomic rewrites, the user's part left alone.

Every change goes through :func:`transaction`: take the lock, read the file
afresh, let the caller change the model, then write it back atomically
(temporary file, fsync, rename, fsync of the directory). Workers change only
the owned tail (``[swiss]``, ``[claims]``, ``[progress]``), so comments and
hand edits in the settings survive every game.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import filelock
import tomli_w

from tmanager.errors import ConfigError, StateError
from tmanager.tourney import OWNED_SECTIONS, Tourney, from_toml, owned_to_toml, settings_to_toml

_OWNED_HEADER = re.compile(r"^[ \t]*\[[ \t]*(?:" + "|".join(OWNED_SECTIONS) + r")[ \t]*[\].]", re.MULTILINE)

#: How long a command waits for the lock before giving up with a clear message.
LOCK_TIMEOUT = 60.0


def lock(path: Path, *, timeout: float = LOCK_TIMEOUT) -> filelock.BaseFileLock:
    """The lock guarding tourney file ``path`` (and its PGN)."""
    return filelock.FileLock(str(path) + ".lock", timeout=timeout)


def split(text: str) -> tuple[str, str]:
    """Split a tourney file into the user's settings and the owned tail."""
    match = _OWNED_HEADER.search(text)
    return (text[: match.start()], text[match.start() :]) if match else (text, "")


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


def read(path: Path) -> Tourney:
    """Read and validate a tourney file. Safe without the lock: writes are atomic renames."""
    return parse(read_text(path), path)


def parse(text: str, path: Path) -> Tourney:
    """Parse tourney-file text; :class:`ConfigError` says where it is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=path, hint="fix the syntax at that line") from None
    tourney = from_toml(data, path.resolve())
    tail = split(text)[1]
    if tail:
        try:
            tail_keys = set(tomllib.loads(tail))
        except tomllib.TOMLDecodeError:
            tail_keys = set(data)
        foreign = tail_keys - set(OWNED_SECTIONS)
        if foreign:
            raise ConfigError(
                f"section {sorted(foreign)[0]!r} comes after the progress sections",
                file=path,
                hint="[swiss], [claims], [faults] and [progress] must stay last; move settings above them",
            )
    return tourney


def render(tourney: Tourney, *, head: str | None = None) -> str:
    """The file text: ``head`` (the user's part as it stands) or regenerated settings, then the tail."""
    if head is None:
        head = tomli_w.dumps(settings_to_toml(tourney)) + "\n"
    elif head and not head.endswith("\n\n"):
        head = head.rstrip("\n") + "\n\n"
    return head + tomli_w.dumps(owned_to_toml(tourney))


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


def write_new(tourney: Tourney, *, overwrite: bool = False) -> None:
    """Write a whole tourney file from the model (``new``, ``clone``, ``import-xboard``)."""
    if tourney.path.exists() and not overwrite:
        raise StateError(f"{tourney.path}: file exists; choose another name or remove it first")
    with lock(tourney.path):
        atomic_write(tourney.path, render(tourney))


@contextlib.contextmanager
def transaction(path: Path, *, settings: bool = False, timeout: float = LOCK_TIMEOUT) -> Iterator[Tourney]:
    """Lock, read, yield the model for changes, write back atomically.

    Only the owned tail is rewritten, unless ``settings`` is true (edit,
    substitute), when the settings part is regenerated from the model too. An
    exception inside the block leaves the file untouched.
    """
    try:
        with lock(path, timeout=timeout):
            text = path.read_text(encoding="utf-8") if path.exists() else ""
            tourney = parse(text, path) if text else read(path)
            before = render(tourney, head=split(text)[0])
            yield tourney
            tourney.validate(settings=settings)
            after = render(tourney, head=None if settings else split(text)[0])
            if after != before or settings:
                atomic_write(path, after)
    except filelock.Timeout:
        raise StateError(
            f"{path}: could not take the lock within {timeout:g} s (another tmanager holds {path}.lock)"
        ) from None
