"""The files a tourney reads and writes beside itself, checked when it is read: refused now rather
than after the first game.

Outputs (the PGN, ``epd_out``, the engines' stderr logs) must be files that can be appended to, and
neither the tourney file nor the opening book: games appended to the book would become openings of
later games. The tablebase directories must exist. Paths are compared resolved, so a symlink to the
book is the book.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from tmanager.errors import ConfigError


def check_output(path: Path, *, tourney: Path, field: str, book: Path | None = None) -> None:
    """Refuse an output file that cannot be appended to: the tourney file itself, the opening ``book``,
    a directory, a FIFO or socket, or a path whose directory does not exist."""
    if _same(path, tourney):
        raise ConfigError("is the tourney file itself", file=tourney, field=field, hint="give it a name of its own")
    if book is not None and _same(path, book):
        raise ConfigError(
            f"is the opening book {str(book)!r}", file=tourney, field=field,
            hint="games written there would become openings: give it a file of its own",
        )
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        if not path.parent.is_dir():
            raise ConfigError(
                f"no directory {str(path.parent)!r} to hold it", file=tourney, field=field,
                hint="create the directory, or change the path",
            ) from None
        return
    except OSError as exc:
        raise ConfigError(f"cannot use {str(path)!r}: {exc.strerror}", file=tourney, field=field) from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{str(path)!r} is a directory", file=tourney, field=field, hint="name a file")
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise ConfigError(f"{str(path)!r} is a FIFO or socket, not a file", file=tourney, field=field)


def _same(path: Path, other: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or (both existing) the same inode."""
    if os.path.realpath(path) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def check_directories(directories: Iterable[str], *, base: Path, tourney: Path, field: str) -> None:
    """Refuse a tablebase directory (relative to ``base``) that is not a directory, naming it."""
    for directory in directories:
        if not (base / directory).is_dir():
            raise ConfigError(
                f"no directory {directory!r}", file=tourney, field=field,
                hint=f"give the directories of the Syzygy tables, separated by {os.pathsep!r}, "
                "relative to the tourney file",
            )
