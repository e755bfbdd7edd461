"""The event file on disk: each change one locked, journaled, atomic write, and undo.

:func:`change` takes the lock, reads the file, lets the caller change the
model, checks it as a reader would, keeps the previous text in the journal
directory ``old/`` beside the event (``<event>.0007.toml``) and replaces the
file atomically. :func:`undo` steps back through the journal. Reading needs
no lock: writes are atomic renames.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import filelock

from tmanager.errors import ConfigError, StateError
from tmanager.events.eventfile import check, dumps, loads
from tmanager.events.messages import Note, Topic
from tmanager.events.model import Event
from tmanager.files import atomic_write, lock, read_text

_JOURNAL = re.compile(r"^(?P<stem>.+)\.(?P<seq>\d{4,})\.toml$")

#: One change to an event in memory, returning the messages to show.
Operation = Callable[[Event], list[str]]


def load(path: Path) -> Event:
    """Read an event file."""
    return loads(read_text(path, kind="event", create="tmanager event new"), path)


def journal_dir(path: Path) -> Path:
    """``old/`` beside the event file."""
    return path.parent / "old"


def _journal(path: Path) -> list[tuple[int, Path]]:
    """Journal entries of this event, oldest first."""
    directory = journal_dir(path)
    if not directory.is_dir():
        return []
    entries = []
    for f in directory.iterdir():
        m = _JOURNAL.match(f.name)
        if m and m["stem"] == path.stem:
            entries.append((int(m["seq"]), f))
    return sorted(entries)


def _locked(path: Path) -> contextlib.AbstractContextManager[Any]:
    try:
        return lock(path).acquire()
    except filelock.Timeout:
        raise StateError(f"{path}: another tmanager holds {path}.lock; try again", topic=Topic.LOCKED) from None


def create(path: Path, event: Event) -> None:
    """Write a new event file; refuses to overwrite."""
    check(event)
    with _locked(path):
        if path.exists():
            raise StateError(f"{path}: file exists; choose another name or remove it first")
        atomic_write(path, dumps(event))


@contextlib.contextmanager
def change(path: Path) -> Iterator[Event]:
    """Lock, read, yield the model for changes, then journal the old text and write the new one atomically.

    An exception inside the block, or a model the checks refuse, leaves the file and the journal untouched.
    """
    with _locked(path):
        try:
            old = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError("no such event file", file=path, hint="create one with `tmanager event new`") from None
        event = loads(old, path)
        yield event
        check(event, path)
        new = dumps(event)
        if new == old:
            return
        entries = _journal(path)
        seq = entries[-1][0] + 1 if entries else 1
        directory = journal_dir(path)
        directory.mkdir(exist_ok=True)
        atomic_write(directory / f"{path.stem}.{seq:04d}.toml", old)
        atomic_write(path, new)


def apply(path: Path, operation: Operation) -> list[str]:
    """Run one operation as one locked, journaled, atomic change; returns its messages."""
    with change(path) as event:
        return operation(event)


def last_change(path: Path) -> int:
    """The number of the event file's last change still on the journal (0: none)."""
    entries = _journal(path)
    return entries[-1][0] if entries else 0


def undo(path: Path, *, expected: int | None = None) -> str:
    """Step back to the previous version; the undone one is kept as ``old/<event>.undone.<seq>.toml``.

    With ``expected`` (a :func:`last_change` number), only if that change is still the last one:
    a page shown before someone else's change must not undo it.
    """
    with _locked(path):
        entries = _journal(path)
        if not entries:
            raise StateError(
                f"{path}: nothing to undo (no earlier version in {journal_dir(path)}/)", topic=Topic.NOTHING_TO_UNDO
            )
        seq, previous = entries[-1]
        if expected is not None and seq != expected:
            raise StateError(f"the event has changed since this page was shown (change {seq}); reload and check it")
        text = previous.read_text(encoding="utf-8")
        loads(text, previous)
        if path.exists():
            atomic_write(journal_dir(path) / f"{path.stem}.undone.{seq:04d}.toml", path.read_text(encoding="utf-8"))
        atomic_write(path, text)
        os.unlink(previous)
        return Note(f"restored the version before change {seq} ({len(entries) - 1} earlier version(s) left)",
                    Topic.RESTORED)  # fmt: skip
