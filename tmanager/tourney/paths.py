"""The files a tourney reads and writes beside itself, checked when it is read: refused now rather
than after the first game.

Outputs (the PGN, ``epd_out``, the engines' stderr logs) must be files that can be appended to, and
neither the tourney file nor the opening book: games appended to the book would become openings of
later games. The tablebase directories must exist. Paths are compared resolved, so a symlink to the
book is the book.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import expect_file


def check_output(path: Path, *, tourney: Path, field: str, book: Path | None = None) -> None:
    """Refuse an output file that cannot be appended to: the tourney file itself, the opening ``book``,
    anything but a regular file (a directory, a FIFO, a device: see :func:`~tmanager.files.expect_file`),
    a file or directory that cannot be written, or a path whose directory does not exist."""
    if _same(path, tourney):
        raise ConfigError("is the tourney file itself", file=tourney, field=field, hint="give it a name of its own")
    if book is not None and _same(path, book):
        raise ConfigError(
            f"is the opening book {str(book)!r}", file=tourney, field=field,
            hint="games written there would become openings: give it a file of its own",
        )
    try:
        exists = expect_file(path)
    except ConfigError as exc:
        raise ConfigError(f"{str(path)!r} {exc.message}", file=tourney, field=field, hint="name a file") from None
    if not exists and not path.parent.is_dir():
        raise ConfigError(
            f"no directory {str(path.parent)!r} to hold it", file=tourney, field=field,
            hint="create the directory, or change the path",
        )
    if not os.access(path if exists else path.parent, os.W_OK | (0 if exists else os.X_OK)):
        where = str(path if exists else path.parent)
        raise ConfigError(f"cannot write to {where!r}", file=tourney, field=field, hint="check its permissions")


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
