"""The event file on disk: each change one locked, journaled, atomic write, and undo.

:func:`change` takes the lock, reads the file, lets the caller change the
model, checks it as a reader would, keeps the previous text in the journal
directory ``old/`` beside the event and replaces the file atomically.
:func:`undo` steps back through the journal. Reading needs no lock: writes are
atomic renames.

The journal is compact: an entry is the previous text either whole
(``old/<event>.0001.toml``, the first entry and then one in every
:data:`KEYFRAME`) or as the lines that differ from the entry before it
(``old/<event>.0002.delta``, JSON), so that a 9-round open keeps a few hundred
small files instead of hundreds of whole copies. Whole entries a journal
written before deltas holds are turned into deltas at the next change; undo
rebuilds an entry from the whole one before it, so it works the same across
either form. What an entry holds never depends on the file after it, so a
hand edit between two changes undoes as exactly as a command's change. Beside
each entry a change made through :func:`commit` leaves what it said
(``old/<event>.0002.note``), so that :func:`undo` can say what it undid.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tmanager.errors import ConfigError, LockTimeout, StateError
from tmanager.events.eventfile import check, dumps, loads
from tmanager.events.messages import Note, Topic
from tmanager.events.model import Event
from tmanager.files import (
    atomic_write,
    expect_existing,
    expect_file,
    linked_file,
    lock,
    make_directory,
    missing_file,
    read_text,
    remove_lock_file,
)

_JOURNAL = re.compile(r"^(?P<stem>.+)\.(?P<seq>\d{4,})\.(?P<form>toml|delta)$")
#: One journal entry in this many is kept whole; the others are deltas from the entry before them.
KEYFRAME = 50

#: One change to an event in memory, returning the messages to show.
Operation = Callable[[Event], list[str]]


def load(path: Path) -> Event:
    """Read an event file."""
    return loads(_event_text(path), path)


def _event_text(path: Path) -> str:
    return read_text(path, kind="event", create="tmanager event new")


def journal_dir(path: Path) -> Path:
    """``old/`` beside the event file (beside the file a symbolic link names, as its lock is)."""
    return linked_file(path).parent / "old"


def _stem(path: Path) -> str:
    """What the event's entries in :func:`journal_dir` are named after."""
    return linked_file(path).stem


def _journal(path: Path) -> list[tuple[int, Path]]:
    """Journal entries of this event, oldest first (whole ``.toml`` or ``.delta``)."""
    directory = journal_dir(path)
    if not directory.is_dir():
        return []
    entries = []
    for f in directory.iterdir():
        m = _JOURNAL.match(f.name)
        if m and m["stem"] == _stem(path):
            entries.append((int(m["seq"]), f))
    return sorted(entries)


def _whole(entry: Path) -> bool:
    return entry.suffix == ".toml"


def _keyframes(entries: list[tuple[int, Path]]) -> set[int]:
    """The entries to keep whole: the first, then the first one :data:`KEYFRAME` entries after the last kept."""
    kept: set[int] = set()
    since = KEYFRAME
    for seq, _ in entries:
        if since >= KEYFRAME:
            kept.add(seq)
            since = 0
        since += 1
    return kept


def _delta(before: str, after: str) -> str:
    """``after`` as a JSON list of line ranges of ``before`` (``[i, j]``) and new text (strings)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops: list[list[int] | str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops.append([i1, i2])
        elif j2 > j1:
            ops.append("".join(new[j1:j2]))
    return json.dumps(ops, ensure_ascii=False, separators=(",", ":")) + "\n"


def _patched(before: str, delta: str, entry: Path) -> str:
    """The text :func:`_delta` stored in ``entry``, rebuilt from the text before it."""
    old = before.splitlines(keepends=True)
    try:
        ops = json.loads(delta)
        return "".join("".join(old[op[0] : op[1]]) if isinstance(op, list) else op for op in ops)
    except (ValueError, TypeError, IndexError):
        raise ConfigError("is not a journal delta", file=entry, hint="restore it from a backup or remove it") from None


def _text(entries: list[tuple[int, Path]], index: int) -> str:
    """The text of ``entries[index]``: its whole copy, or the deltas since the last whole one applied in turn."""
    start = index
    while not _whole(entries[start][1]):
        start -= 1
        if start < 0:
            raise ConfigError(
                "the journal has no whole version before this delta", file=entries[index][1],
                hint="the entries before it were removed; delete the deltas up to the next .toml entry",
            )  # fmt: skip
    text = _entry_text(entries[start][1])
    for _, entry in entries[start + 1 : index + 1]:
        text = _patched(text, _entry_text(entry), entry)
    return text


def _entry_text(entry: Path) -> str:
    return read_text(entry, kind="journal entry", create=None)


def _note(path: Path, seq: int) -> Path:
    """Where change ``seq`` says what it did: ``old/<event>.<seq>.note``."""
    return journal_dir(path) / f"{_stem(path)}.{seq:04d}.note"


def _record(path: Path, old: str, what: Sequence[str]) -> int:
    """Journal ``old`` as the next entry (with ``what`` the change said, if anything), then turn whole entries
    that are not keyframes into deltas; returns the entry's number."""
    entries = _journal(path)
    seq = entries[-1][0] + 1 if entries else 1
    directory = journal_dir(path)
    make_directory(directory, hint=f"move it away: tmanager keeps the journal of {path.name} there")
    note = _note(path, seq)
    if what:
        atomic_write(note, "\n".join(what) + "\n")
    elif note.exists():  # left by a change that was undone by hand: not this one's
        os.unlink(note)
    atomic_write(directory / f"{_stem(path)}.{seq:04d}.toml", old)
    entries = _journal(path)
    keep = _keyframes(entries)
    texts: dict[int, str] = {}
    for i, (number, entry) in enumerate(entries):
        if number in keep or not _whole(entry):
            continue
        texts[i] = _entry_text(entry)
        before = texts.get(i - 1)
        if before is None:
            before = _text(entries, i - 1)
        atomic_write(entry.with_suffix(".delta"), _delta(before, texts[i]))
        os.unlink(entry)
        entries[i] = (number, entry.with_suffix(".delta"))
    return seq


@contextlib.contextmanager
def _locked(path: Path, *, existing: bool = True) -> Iterator[None]:
    """Hold the event file's lock; refuse first an ``existing`` file that is not there, whose lock file a
    mistyped name must not get."""
    if existing:
        expect_existing(path, kind="event", create="tmanager event new")
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(lock(path))
        except LockTimeout:
            raise StateError(f"{path}: another tmanager holds {path}.lock; try again", topic=Topic.LOCKED) from None
        yield


def create(path: Path, event: Event) -> None:
    """Write a new event file; refuses to overwrite."""
    check(event)
    with _locked(path, existing=False):
        if path.exists():
            raise StateError(f"{path}: file exists", hint="choose another name or remove it first")
        atomic_write(path, dumps(event))


@contextlib.contextmanager
def change(path: Path, what: Sequence[str] = ()) -> Iterator[Event]:
    """Lock, read, yield the model for changes, then journal the old text and write the new one atomically;
    ``what`` (filled in the block, if the caller likes) is what the change said, kept for :func:`undo`.

    An exception inside the block, or a model the checks refuse, leaves the file and the journal untouched.
    """
    with _locked(path):
        old = _event_text(path)
        event = loads(old, path)
        yield event
        _write(path, old, event, what)


def _write(path: Path, old: str, event: Event, what: Sequence[str]) -> int:
    """Check ``event``, journal ``old`` and write ``event`` in its place (under the lock); the journal entry's
    number, 0 if the event is unchanged (nothing is written)."""
    check(event, path)
    new = dumps(event)
    if new == old:
        return 0
    number = _record(path, old, what)
    atomic_write(path, new)
    return number


@dataclass(frozen=True, slots=True)
class Committed:
    """What a change said, and its journal number (what :func:`undo`'s ``expected`` takes; 0: nothing changed;
    for an undo, the number undone)."""

    said: tuple[str, ...]
    number: int


def commit(path: Path, operation: Operation) -> Committed:
    """Run one operation as one locked, journaled, atomic change (what it said is kept for undo)."""
    with _locked(path):
        old = _event_text(path)
        event = loads(old, path)
        said = operation(event)
        return Committed(tuple(said), _write(path, old, event, said))


def apply(path: Path, operation: Operation) -> list[str]:
    """:func:`commit`, for its messages alone (scripts and tests)."""
    return list(commit(path, operation).said)


def last_change(path: Path) -> int:
    """The number of the event file's last change still on the journal (0: none)."""
    entries = _journal(path)
    return entries[-1][0] if entries else 0


def undo(path: Path, *, expected: int | None = None) -> Committed:
    """Step back to the previous version; the undone one is kept as ``old/<event>.undone.<seq>.toml``; what it
    says, and the number of the change undone.

    With ``expected`` (a :func:`last_change` number), only if that change is still the last one:
    a page shown before someone else's change must not undo it. An event file deleted is brought back from its
    journal, which is listed once, under the lock (a listing before it could be stale by the time it is taken);
    a name with neither file nor journal is refused there, its lock file taken away again: a mistyped name
    leaves none.
    """
    with _locked(path, existing=False):
        entries = _journal(path)
        if not entries and not expect_file(path):
            remove_lock_file(path)
            raise missing_file(path, kind="event", create="tmanager event new")
        if not entries:
            raise StateError(
                f"{path}: nothing to undo (no earlier version in {journal_dir(path)}/)", topic=Topic.NOTHING_TO_UNDO
            )
        seq, previous = entries[-1]
        if expected is not None and seq != expected:
            raise StateError(f"the event has changed since this page was shown (change {seq})",
                             hint="reload the page and check it")
        text = _text(entries, len(entries) - 1)
        loads(text, previous)
        if path.exists():
            atomic_write(journal_dir(path) / f"{_stem(path)}.undone.{seq:04d}.toml", _event_text(path))
        atomic_write(path, text)
        os.unlink(previous)
        what = _undone(path, seq)
        left = f"{len(entries) - 1} earlier version(s) left"
        said = Note(f"restored the version before change {seq} ({left}); it undid: {what}", Topic.RESTORED)
        return Committed((said,), seq)


def _undone(path: Path, seq: int) -> str:
    """What change ``seq`` said, on one line (its note taken away with it), or that nobody knows."""
    note = _note(path, seq)
    if not note.exists():
        return "a change that left no note (a hand edit, or made before notes were kept)"
    lines = [line for line in read_text(note, kind="journal note", create=None).splitlines() if line.strip()]
    os.unlink(note)
    shown = "; ".join(lines)
    return shown if len(shown) <= 300 else shown[:297] + "…"
