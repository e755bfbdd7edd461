"""Reading and writing tourney files: one lock, atomic rewrites, the user's part left alone.

Every change goes through :func:`transaction`: take the lock, read the file
afresh, let the caller change the model, then write it back atomically
(temporary file, fsync, rename, fsync of the directory). Workers change only
the owned tail (``[swiss]``, ``[claims]``, ``[progress]``), so comments and
hand edits in the settings survive every game.
"""

from __future__ import annotations

import contextlib
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import filelock
import tomli_w

from tmanager.errors import ConfigError, StateError
from tmanager.files import LOCK_TIMEOUT, atomic_write, lock, parse_toml, read_text
from tmanager.tourney.model import OWNED_SECTIONS, Tourney, from_toml, owned_to_toml, settings_to_toml

_OWNED_HEADER = re.compile(r"^[ \t]*\[[ \t]*(?:" + "|".join(OWNED_SECTIONS) + r")[ \t]*[\].]", re.MULTILINE)


def split(text: str) -> tuple[str, str]:
    """Split a tourney file into the user's settings and the owned tail."""
    match = _OWNED_HEADER.search(text)
    return (text[: match.start()], text[match.start() :]) if match else (text, "")


def read(path: Path) -> Tourney:
    """Read and validate a tourney file. Safe without the lock: writes are atomic renames."""
    return parse(read_text(path), path)


def parse(text: str, path: Path) -> Tourney:
    """Parse tourney-file text; :class:`ConfigError` says where it is wrong."""
    data = parse_toml(text, file=path)
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
            text = read_text(path)
            tourney = parse(text, path)
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
