"""The files a tourney reads and writes beside itself, checked when it is read: refused now rather
than after the first game.

Outputs (the PGN, ``epd_out``, the engines' stderr logs) must be files that can be appended to, and
neither the tourney file nor the opening book: games appended to the book would become openings of
later games. The tablebase directories must exist, and hold no table that is not a file. Paths are
compared resolved, so a symlink to the book is the book.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import expect_file, expect_output, linked_file, same_file


def journal_path(path: Path) -> Path:
    """The journal beside tourney file ``path`` (beside the file a symbolic link names, as its lock is)."""
    file = linked_file(path)
    return file.with_name(f".{file.name}.journal")


def check_output(path: Path, *, tourney: Path, field: str, book: Path | None = None) -> None:
    """Refuse an output file that cannot be appended to: the tourney file itself, the opening ``book``,
    anything but a regular file (a directory, a FIFO, a device: see :func:`~tmanager.files.expect_file`),
    or a path whose directory does not exist. Whether it may be written is asked before games are played
    (:func:`~tmanager.files.check_access`), not when a file is read."""
    if same_file(path, tourney):
        raise ConfigError("is the tourney file itself", file=tourney, field=field, hint="give it a name of its own")
    if book is not None and same_file(path, book):
        raise ConfigError(
            f"is the opening book {str(book)!r}", file=tourney, field=field,
            hint="games written there would become openings: give it a file of its own",
        )
    expect_output(path, file=tourney, field=field)


def check_apart(outputs: Sequence[tuple[Path, str]], *, own: Mapping[Path, str], tourney: Path) -> None:
    """Refuse an output (path, field) that is one of tmanager's ``own`` files (path: what it is), or the PGN or
    ``epd_out`` that is another output too: an EPD line appended to the PGN left it without its last game's
    blank line, and the next game cut that game off the file. (Engines may share a stderr log.)"""
    for i, (path, field) in enumerate(outputs):
        for kept, what in own.items():
            if same_file(path, kept):
                raise ConfigError(f"is {what}", file=tourney, field=field, hint="give it a name of its own")
        for other, other_field in outputs[:i]:
            if not (field.endswith(".stderr") and other_field.endswith(".stderr")) and same_file(path, other):
                raise ConfigError(f"is {other_field} too", file=tourney, field=field,
                                  hint="give each its own file")


def check_directories(directories: Iterable[str], *, base: Path, tourney: Path, field: str) -> None:
    """Refuse a tablebase directory (relative to ``base``) that is not a directory, naming it, or that holds a
    table that is not a file (:func:`check_tables`)."""
    for directory in directories:
        if not (base / directory).is_dir():
            raise ConfigError(
                f"no directory {directory!r}", file=tourney, field=field,
                hint=f"give the directories of the Syzygy tables, separated by {os.pathsep!r}, "
                "relative to the tourney file",
            )
        check_tables(base / directory, shown=directory, file=tourney, field=field)


#: The suffixes of chess's WDL and DTZ tables, the files python-chess's ``add_directory`` loads.
TABLE_SUFFIXES = (".rtbw", ".rtbz")


def check_tables(directory: Path, *, shown: str, file: Path | None, field: str) -> None:
    """Refuse a table of ``directory`` (``shown`` as the user gave it) that is not a regular file: a FIFO, a
    directory, a device, a link to nothing. python-chess passes such a name over in silence, and the games
    reaching its material then go on unadjudicated, as if the table had never been given."""
    import chess.syzygy  # here: only a tourney with tables loads the prober

    try:
        with os.scandir(directory) as entries:
            tables = sorted(entry.name for entry in entries if not entry.is_file()
                            and entry.name.endswith(TABLE_SUFFIXES) and chess.syzygy.is_tablename(entry.name[:-5]))
    except OSError as exc:  # unreadable: python-chess's add_directory would fail in every game
        raise ConfigError(f"cannot read {shown!r}: {exc.strerror}", file=file, field=field,
                          hint="let this user read the tables' directory") from None
    hint = "put the table itself there, or move it away"
    for name in tables:
        try:
            if expect_file(directory / name, hint=hint):
                continue  # a file by now
        except ConfigError as exc:
            raise ConfigError(f"{name} in {shown!r} {exc.message}", file=file, field=field, hint=exc.hint) from None
        raise ConfigError(f"{name} in {shown!r} is a symbolic link to nothing", file=file, field=field, hint=hint)
