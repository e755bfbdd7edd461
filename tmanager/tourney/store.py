"""The tourney file and its journal: locked transactions whose cost does not grow with the tourney.

A tourney file has two parts. The user's part (settings, participants) comes
first, and tmanager never rewrites it during play. The owned part comes last:
``[swiss]``, ``[faults]``, ``[verdict]``, ``[amendments.N]`` (changes forced on
an SPRT test under way), then ``[progress]`` with the participants' names,
a ``version`` and the ``results`` string in XBoard's alphabet, padded with
spaces to the length of the schedule.

Every change goes through :func:`transaction`: take the lock, read the file
and its journal, let the caller change the model, then store the change:

* A change of results, claims or pending hooks only (a claim, a heartbeat, a
  recorded game, a release) is appended to the journal ``.NAME.journal``
  beside the file (one JSON line, fsynced: the commit point), then applied to
  the file in place: the changed results characters and the version, at fixed
  offsets (not fsynced: the journal line is the durable record). Neither write
  depends on the size of the tourney.
* Anything else (settings, Swiss pairings, fault counts, a schedule that grows)
  is a *checkpoint*: the journal is replaced by one line holding the whole
  owned part, then the file is rewritten atomically.

Claims, pending hooks and the PGN's size after the last game recorded live
only in the journal; the file holds what a user reads and may edit by hand.
Reading compares the two. A journal belongs to one file: both hold the same
``id`` in ``[progress]``, and a journal of another (a deleted file's) is set
aside. A file whose version is behind the journal's was saved from a stale copy
(an editor) or was cut off between the two writes: it gets the journal's owned
part back, the user's part kept. A file ahead of its journal (cut by hand) keeps
its results, and the hooks of the games whose lines the journal lost are due
again (:func:`~tmanager.tourney.hookrun.restore_hooks`). A file at the journal's version with other
contents was edited by hand, and the edit stands (a game set back to not played
is superseded in the PGN). So a kill at any instant loses nothing, and a stale
save is merged, never obeyed.

A process keeps each journal it has read folded, with its results string
decoded, and folds in the lines it appends itself (:mod:`tmanager.tourney.journal`;
the owned part's text and layout are :mod:`tmanager.tourney.ownedpart`'s). So a transaction reads the
file (an editor may have saved it) and compares it with the journal, then
finds the results characters changed, each at memory speed; the results are
decoded again only after another process has changed them.

Readers (``status``, dashboards) need no lock: each write is an atomic rename
or an in-place write of a few bytes, and whatever a reader sees resolves to a
consistent state. This module stores the
:class:`~tmanager.tourney.model.Tourney` model; it knows nothing of engines or
games, and of hooks only that a cut journal makes some due again (in the one
place every change passes through, so that no caller can forget them).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import logging
import shutil
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tmanager.errors import ConfigError, FileExists
from tmanager.files import (
    LOCK_TIMEOUT,
    Stamp,
    append_line,
    atomic_write,
    check_lock,
    decode,
    expect_existing,
    expect_file,
    file_size,
    lock,
    lock_path,
    lock_timeout,
    read_bytes,
    remove_lock_file,
    write_at,
)
from tmanager.files import stamp as file_stamp
from tmanager.tomlmap import dumps
from tmanager.tourney.amendments import check_hand_edit, fingerprint
from tmanager.tourney.hookrun import conclude_hand_ending, note_verdict, restore_hooks
from tmanager.tourney.journal import Journal, damaged_path, journals, owned_at, set_aside
from tmanager.tourney.model import OWNED_SECTIONS, UNPLAYED, Claim, PendingHook, PgnMark, Tourney
from tmanager.tourney.ownedpart import (
    VERSION_WIDTH,
    OwnedPart,
    new_identity,
    owned_start,
    parse_owned,
    read_toml,
    render_owned,
    shape_of,
)
from tmanager.tourney.ownedpart import split as split
from tmanager.tourney.parsing import from_toml
from tmanager.tourney.paths import journal_path as journal_path
from tmanager.tourney.resultchanges import HandEdits, changed_results, recorded_since
from tmanager.tourney.serialising import owned_sections_to_toml, settings_to_toml
from tmanager.tourney.validation import check_pairings_kept

log = logging.getLogger("tmanager")

#: A journal grown past this (and past the file's size) is folded into a checkpoint.
JOURNAL_LIMIT = 1 << 20


def stamp(path: Path) -> tuple[Stamp, Stamp]:
    """What every change of tourney file ``path`` changes, without the lock or a read: the stamps of the
    file (a hand edit) and of its journal (every transaction that changes something appends to it or
    replaces it)."""
    return file_stamp(path), file_stamp(journal_path(path))


# --- reading: the file and its journal resolved into one state ---------------------------------------


@dataclass(frozen=True, slots=True)
class _Template:
    """The model of the user's part and the owned sections, parsed and validated once per distinct text."""

    key: bytes
    tourney: Tourney


_templates: dict[Path, _Template] = {}


@dataclass(slots=True)
class _State:
    """What a transaction starts from: the file as it is, and the resolved model."""

    size: int
    head: bytes
    owned: OwnedPart  #: the owned part as the file has it
    journal: Journal | None
    tourney: Tourney
    #: why the file must be checkpointed before anything else ("" when it is current)
    repair: str
    #: what a hand edit changed of the games played by the journal's account
    hand_edits: HandEdits
    #: games the file has recorded whose lines the journal lost (cut by hand): their hooks are due again
    cut: tuple[int, ...]
    #: the settings the results string's characters depend on, as the file has them (:func:`shape_of`)
    shape: dict[str, str]


def _load(path: Path) -> _State:
    data = read_bytes(path)
    start = owned_start(data)
    head = data[:start]
    journal = journals.read(path)
    # The usual case, told at memory speed without copying the owned part: the file holds the journal's.
    if journal is not None and len(data) - start == len(journal.owned) and data.endswith(journal.owned):
        return _resolved(path, len(data), head, journal.parsed(path), journal, repair="", hand_edits=HandEdits())
    owned_text = data[start:]
    owned = parse_owned(owned_text, path, lines_before=head.count(b"\n"))
    repair = ""
    hand_edits = HandEdits()
    cut: tuple[int, ...] = ()
    if journal is not None and journal.identity != owned.identity:
        if owned.identity is None and _pgn_kept(journal.pgn_mark):
            # Not a new file under an old name (its tourney's PGN would be gone with it): this file without its
            # [progress] was cut short (an editor's save in progress) or had the section removed by hand.
            repair, owned = "lost", journal.parsed(path)
        else:
            journal, repair = None, "foreign"  # a journal left by another file of this name: not this file's
    elif journal is None:
        layout_ok = owned.layout is not None and owned.version is not None
        repair = "journal" if layout_ok else "layout"  # "layout": an XBoard import, a hand-made or older file
    elif owned.version is not None and owned.version == journal.version:
        repair = "hand edit"
        hand_edits = HandEdits.between(journal.parsed(path).results, owned.results)
    elif owned.version is None or owned.version < journal.version:
        # Cut off between the journal and the file: one change behind, and exactly as before it.
        interrupted = owned.version == journal.version - 1 and owned.version >= journal.checkpoint and (
            owned_text == owned_at(path, journal, owned.version)
        )
        repair = "behind" if interrupted else "stale"
        owned = journal.parsed(path)
    else:  # the file is newer than its journal (the journal was replaced, or cut by hand): the file wins
        repair = "journal"
        cut = recorded_since(journal.parsed(path).results, owned.results)
    return _resolved(path, len(data), head, owned, journal, repair=repair, hand_edits=hand_edits, cut=cut)


def _pgn_kept(mark: PgnMark | None) -> bool:
    """Whether the PGN of the games a journal recorded (``mark``) still holds games."""
    return mark is not None and file_size(mark.path) > 0


def _resolved(
    path: Path, size: int, head: bytes, owned: OwnedPart, journal: Journal | None, *, repair: str,
    hand_edits: HandEdits, cut: tuple[int, ...] = (),
) -> _State:
    """The state of a file of ``size`` bytes read with ``journal``: its ``head`` and the owned part that holds."""
    tourney = _model(path, head, owned)
    if journal is not None:
        tourney.claims.update(journal.claims)
        tourney.hooks = dict(journal.hooks)
        tourney.pgn_mark = journal.pgn_mark
    tourney.version = max(owned.version or 0, journal.version if journal else 0)
    shape = shape_of(tourney)
    _check_names(tourney, owned, path, shape=shape)
    check_hand_edit(tourney, owned.conditions, path)
    if journal is not None and repair in ("hand edit", "journal"):  # the file's owned part over the journal's
        check_pairings_kept(tourney, journal.parsed(path).sections.get("swiss"))
    return _State(size, head, owned, journal, tourney, repair, hand_edits, cut, shape)


def _model(path: Path, head: bytes, owned: OwnedPart) -> Tourney:
    """The model from the user's part and an owned part (the settings are parsed once per distinct text)."""
    key = head + b"\0" + owned.sections_text
    template = _templates.get(path)
    if template is None or template.key != key:
        data = read_toml(head, path)
        misplaced = set(data) & set(OWNED_SECTIONS)
        if misplaced:
            raise ConfigError(
                f"section {sorted(misplaced)[0]!r} is written by tmanager", file=path,
                hint="[swiss], [faults], [verdict], [amendments], [tuning] and [progress] come after the settings, "
                "last in the file",
            )
        foreign = set(owned.sections) & set(data)  # settings after the owned part; unknown ones fail below
        foreign |= set(owned.sections) & {"tourney", "openings", "adjudication", "participants"}
        if foreign:
            raise ConfigError(
                f"section {sorted(foreign)[0]!r} comes after the progress sections",
                file=path,
                hint="[swiss], [faults], [verdict], [amendments], [tuning] and [progress] must stay last; move "
                "settings above them",
            )
        template = _Template(key, from_toml({**data, **owned.sections}, path.resolve()))
        _templates[path] = template
    model = template.tourney
    tourney = dataclasses.replace(
        model,
        participants=list(model.participants),
        swiss=copy.deepcopy(model.swiss),
        claims=dict(model.claims),  # claims in an older tmanager's [claims] section
        faults=copy.deepcopy(model.faults),
        hooks={},
        results=owned.results,
    )
    tourney.validate(settings=False)
    return tourney


def _check_names(tourney: Tourney, owned: OwnedPart, path: Path, *, shape: dict[str, str]) -> None:
    """Refuse a participant list or a schedule (its ``shape``) changed by hand while results exist: they would
    credit the wrong engines, or stand for other games."""
    if not tourney.results.strip(UNPLAYED):
        return
    recorded = owned.shape or {}
    changed = next((key for key, value in recorded.items() if shape.get(key, value) != value), None)
    if changed is not None:
        raise ConfigError(
            f"the results were recorded with {changed.partition('.')[2]} = {recorded[changed]}, not {shape[changed]}",
            file=path,
            field=changed,
            hint="put it back: the results string would mean other games; to play another schedule, clone the "
            "tourney (tmanager clone --set)",
        )
    names = tuple(p.name for p in tourney.participants)
    if owned.names is not None and names != owned.names:
        raise ConfigError(
            f"the participants differ from those the results were recorded with ({', '.join(owned.names)})",
            file=path,
            field="participants",
            hint="restore the list; change engines with `tmanager substitute`, settings with `tmanager edit`",
        )


def read(path: Path) -> Tourney:
    """Read a tourney file with its journal; safe without the file lock."""
    check_lock(path)  # a worker would wait for ever to take a lock that is a directory
    with _in_process(path):  # the caches must not be changed by two threads at once
        return _load(path).tourney


def settle(path: Path) -> Tourney:
    """Take what was edited by hand into the files now, as the next change would (a result changed by hand
    into the PGN, the journal brought up to date, the hooks of games a cut journal lost due again, an SPRT
    decided by results typed in by hand recorded with its hook): for a command that has nothing to change, on a
    tourney that will see no other change (``run`` of a finished one). The tourney as it is then."""
    with transaction(path) as tourney:
        note_verdict(tourney)
    return tourney


#: One lock per tourney file for the threads of this process (see :func:`_in_process`).
_process_locks: dict[Path, threading.RLock] = {}
_process_locks_guard = threading.Lock()


@contextlib.contextmanager
def _in_process(path: Path, *, timeout: float = -1) -> Iterator[None]:
    """Hold ``path``'s in-process lock: the threads of one process (a worker's lanes, a Dask
    coordinator beside `run`'s display) take their turns here, in front of the file lock, since the
    caches of this module are not thread-safe and the file lock must not interleave two threads'
    reads and writes. Re-entrant: a read inside a transaction of the same thread waits for nothing."""
    key = path.absolute()
    with _process_locks_guard:
        guard = _process_locks.setdefault(key, threading.RLock())
    if not guard.acquire(timeout=timeout):
        raise lock_timeout(path, timeout)
    try:
        yield
    finally:
        guard.release()


# --- writing -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seen:
    """Tourney file ``path`` as a caller saw it before it chose to write a new one there (its :func:`stamp`:
    ``None`` for a file or journal that was not there): :func:`write_new` replaces only that, not what
    another process wrote since (the same `tmanager fastchess` command run twice at once, each finding the
    test played out, each beginning it again)."""

    stamps: tuple[Stamp, Stamp]

    @classmethod
    def now(cls, path: Path) -> Seen:
        """``path`` as it is now: taken before it is read, so that a change while it is read is seen too."""
        return cls(stamp(path))


def write_new(tourney: Tourney, *, overwrite: bool | Seen = False) -> None:
    """Write a whole tourney file from the model (``new``, ``clone``, ``import-xboard``); :class:`FileExists`
    when one is there and not to be overwritten: ``overwrite`` any (``--force``), none, or only the file
    :class:`Seen` (or its absence), if it is so still."""
    _refuse_existing(tourney.path, overwrite=overwrite)  # before the lock, whose file a refused path must not get
    with lock(tourney.path):
        # Again: another process may have made it since (the same `tmanager fastchess` command run at once).
        _refuse_existing(tourney.path, overwrite=overwrite)
        tourney.validate(engines=True)
        _checkpoint(tourney.path, None, tourney, version=0, identity=None)


def _refuse_existing(path: Path, *, overwrite: bool | Seen) -> None:
    exists = expect_file(path, hint="choose another name for the new tourney file")  # refused, --force or not
    keeper = _tourney_kept_by(path)
    if keeper is not None:  # --force or not: `new .t.toml.journal --force` wrote over t.toml's journal
        raise ConfigError(f"is {keeper}", file=path, hint="choose another name: tmanager keeps that file's state there")
    if isinstance(overwrite, Seen):
        if stamp(path) != overwrite.stamps:
            raise FileExists(f"{path}: written by another process since it was read; run the command again")
    elif exists and not overwrite:
        raise FileExists(f"{path}: file exists (choose another name, or --force to write over it)")


def _tourney_kept_by(path: Path) -> str | None:
    """What ``path`` is to another file beside it, if its journal or its lock file (``None``: neither)."""
    name = path.name
    # The file whose journal or lock a name would be, confirmed by the functions that name them.
    candidates = (
        (name.removeprefix(".").removesuffix(".journal"), journal_path, "the journal"),
        (name.removesuffix(".lock"), lock_path, "the lock file"),
    )
    for owner_name, kept_at, what in candidates:
        if owner_name in ("", name):
            continue
        owner = path.with_name(owner_name)
        if (owner.exists() or owner.is_symlink()) and kept_at(owner) == path:
            return f"{what} of {owner_name}"
    return None


def remove_unplayed(path: Path) -> bool:
    """Remove tourney file ``path`` and the files that keep its state (:func:`_remove`), under its lock, if
    nothing was ever recorded there (no result, claim or hook); ``False``, and nothing removed, otherwise.
    A command that made the file for itself takes it back this way when it fails before its first game (a
    fastchess command line whose engine refuses its options)."""
    with _in_process(path), lock(path):
        tourney = _load(path).tourney
        if tourney.results.strip(UNPLAYED) or tourney.claims or tourney.hooks:
            return False
        _remove(tourney)
        return True


def remove_finished(path: Path, *, cut_short: bool = False) -> bool:
    """Remove tourney file ``path`` and the files that keep its state (:func:`_remove`), under its lock, if
    it is played out (or ``cut_short``: stopped before its end, by a caller that will never resume it) with
    nothing claimed or pending; ``False``, and nothing removed, otherwise. A command that made the file for
    itself and whose user has no use for it once it is over (a fastchess command line) clears it away this
    way: its outputs (PGN, EPD, log) are the caller's to keep or remove."""
    with _in_process(path), lock(path):
        tourney = _load(path).tourney
        if not (cut_short or tourney.is_complete()) or tourney.claims or tourney.hooks:
            return False
        _remove(tourney)
        return True


def _remove(tourney: Tourney) -> None:
    """Remove ``tourney``'s file, its journal, the directory of its games in progress and, last, its lock file
    (held by the caller; a process waiting for it takes the lock again on a new one, see
    :func:`~tmanager.files.remove_lock_file`)."""
    for leftover in (tourney.path, journal_path(tourney.path), damaged_path(tourney.path)):
        leftover.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # not a directory of tmanager's making (a link): left as it is
        shutil.rmtree(tourney.live_dir)
    remove_lock_file(tourney.path)


def _checkpoint(path: Path, head: bytes | None, tourney: Tourney, *, version: int, identity: str | None) -> None:
    """Replace the journal by the owned part at ``version``, then rewrite the file (keeping ``head`` if given).

    The journal comes first: a kill between the two leaves a file behind its
    journal, which the next reader restores. A file without an ``identity`` (new,
    hand-made, or of an older version) gets one, and is written first: the
    journal there is not its own (if any), so a kill between the two leaves the
    file as it is to be, with a journal the next reader sets aside.
    """
    owned = render_owned(tourney, version=version, identity=identity or new_identity())
    line = {
        "checkpoint": version,
        "owned": owned,
        "claims": {str(n): c.to_json() for n, c in sorted(tourney.claims.items())},
        "hooks": {k: h.to_json() for k, h in sorted(tourney.hooks.items())},
        "pgn": tourney.pgn_mark.to_json() if tourney.pgn_mark else None,
    }
    text = head.decode("utf-8") if head is not None else dumps(settings_to_toml(tourney), inline=("options",))
    if text.strip() and not text.endswith("\n\n"):
        text = text.rstrip("\n") + "\n\n"
    writes = [(journal_path(path), json.dumps(line, ensure_ascii=False) + "\n"), (path, text + owned)]
    for target, content in writes if identity else reversed(writes):
        atomic_write(target, content)
    tourney.version = version


def _changed(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> dict[str, Any]:
    """A journal line's entries for a mapping of claims or hooks: changed values, and ``None`` for removals."""
    changed: dict[str, Any] = {str(k): v.to_json() for k, v in after.items() if before.get(k) != v}
    changed.update({str(k): None for k in before if k not in after})
    return changed


@dataclass(frozen=True, slots=True)
class _Before:
    """The model as a transaction found it, to tell what changed and how to store it."""

    settings: Any
    participants: list[Any]
    openings: Any
    adjudication: Any
    sections: dict[str, Any]
    results: str
    claims: dict[int, Claim]
    hooks: dict[str, PendingHook]
    pgn_mark: PgnMark | None

    @classmethod
    def of(cls, tourney: Tourney) -> _Before:
        return cls(
            tourney.settings,
            list(tourney.participants),
            tourney.openings,
            tourney.adjudication,
            copy.deepcopy(owned_sections_to_toml(tourney)),
            tourney.results,
            dict(tourney.claims),
            dict(tourney.hooks),
            tourney.pgn_mark,
        )

    def unchanged(self, tourney: Tourney) -> bool:
        # The results last: they may be millions of characters, and claims change with them.
        return (
            self.claims == tourney.claims and self.hooks == tourney.hooks and self.pgn_mark == tourney.pgn_mark
            and self.results == tourney.results
        )

    def structure_changed(self, tourney: Tourney) -> bool:
        """Whether anything but results, claims and hooks changed: that takes a checkpoint."""
        return (
            self.settings != tourney.settings
            or self.participants != tourney.participants
            or self.openings != tourney.openings
            or self.adjudication != tourney.adjudication
            or self.sections != owned_sections_to_toml(tourney)
        )


def _append(path: Path, state: _State, tourney: Tourney, before: _Before) -> bool:
    """Store a change of results, claims and hooks: a journal line, then the file in place.

    ``False`` when it cannot be done that way (the caller checkpoints instead).
    """
    owned, journal = state.owned, state.journal
    total = tourney.schedule().total_games
    if journal is None or owned.layout is None or owned.padded != total:
        return False
    if (owned.names is not None and owned.names != tuple(p.name for p in tourney.participants)) or (
        owned.shape is not None and owned.shape != state.shape  # as read: a change of settings checkpoints
    ) or (tourney.sprt is not None and owned.conditions != fingerprint(tourney)):
        # The list, the schedule or an SPRT test's conditions were changed by hand before any result (or the file
        # is older than its conditions): the first result is recorded with them.
        return False
    if journal.offset > max(JOURNAL_LIMIT, 2 * state.size):
        return False  # fold the journal into a checkpoint from time to time
    version = tourney.version + 1
    changes = changed_results(before.results, tourney.results)
    line: dict[str, Any] = {"v": version}
    if changes:
        line["results"] = {str(n): c for n, c in sorted(changes.items())}
    if claims := _changed(before.claims, tourney.claims):
        line["claims"] = claims
    if hooks := _changed(before.hooks, tourney.hooks):
        line["hooks"] = hooks
    if tourney.pgn_mark != before.pgn_mark:
        line["pgn"] = tourney.pgn_mark.to_json() if tourney.pgn_mark else None
    text = json.dumps(line, ensure_ascii=False)
    at, _end = append_line(journal_path(path), text)  # after a fragment a power cut left, cut off first
    journals.appended(
        path, journal, line, text=f"{text}\n".encode(), at=at, results=tourney.results.rstrip(UNPLAYED)
    )
    base = len(state.head)
    results_at, version_at = base + owned.layout.results_at, base + owned.layout.version_at
    old = before.results
    edits = [
        (results_at + n, (old[n] if n < len(old) else UNPLAYED).encode("ascii"), c.encode("ascii"))
        for n, c in changes.items()
    ]
    old_version = f"{tourney.version:<{VERSION_WIDTH}d}".encode()
    edits.append((version_at, old_version, f"{version:<{VERSION_WIDTH}d}".encode()))
    # The journal line is the durable record of the change (fsynced), so the file need not be: a power
    # cut can only leave it behind its journal, which the next reader restores. So can a file changed
    # since it was read (an editor's save): write_at then leaves it alone, and the next reader merges.
    write_at(path, edits, durable=False)
    tourney.version = version
    return True


_REPAIRS = {
    "foreign": "its journal belonged to another file of that name (one deleted, or replaced by a copy): it is "
    "set aside, and the file taken as it is",
    "stale": "its owned part was older than the journal (an editor saved a stale copy?): the settings are "
    "kept, the results, pairings and faults restored",
    "hand edit": "its owned part was edited by hand: the edit stands",
    "lost": "it had lost its [progress] section (cut off, or removed by hand) while its games are in the PGN: "
    "the settings are kept, the results, pairings and faults restored from the journal (to play the tourney "
    "afresh, clone it: tmanager clone)",
}


@contextlib.contextmanager
def transaction(path: Path, *, settings: bool = False, timeout: float = LOCK_TIMEOUT) -> Iterator[Tourney]:
    """Lock, read, yield the model for changes, store them.

    With ``settings`` (edit, substitute) the user's part is regenerated from
    the model too. An exception inside the block leaves the files untouched.
    The hooks of the games a journal cut by hand lost are made due here
    (:func:`~tmanager.tourney.hookrun.restore_hooks`): only the first transaction after the cut knows of
    those games, whoever its caller, so the one place every change passes through sees to them; so is the end
    of a tourney that a hand edit of its results ended (:func:`~tmanager.tourney.hookrun.conclude_hand_ending`).
    """
    expect_existing(path)
    with _in_process(path, timeout=timeout), lock(path, timeout=timeout):
        state = _load(path)
        tourney = state.tourney
        absent = state.hand_edits.apply_to_pgn(path, tourney.pgn_path)
        if absent and tourney.pgn_mark is not None:  # set back to be played here: no longer elsewhere
            tourney.pgn_mark = tourney.pgn_mark.replayed(absent)
        restore_hooks(tourney, state.cut)
        if state.repair == "hand edit" and state.journal is not None:
            conclude_hand_ending(tourney, state.journal.parsed(path).results)
        before = _Before.of(tourney)
        settings_before = settings_to_toml(tourney) if settings else None
        yield tourney
        tourney.validate(settings=settings, engines=settings)
        head = state.head
        if settings_before is not None:  # the user's part changed: rewrite only what did, comments kept
            from tmanager.tourney import settings_text  # here: tomlkit is for the rare edit, not every claim

            after = settings_to_toml(tourney)
            head = settings_text.updated(decode(head, path), before=settings_before, after=after).encode()
        if state.repair in _REPAIRS:
            log.warning("%s: %s", path, _REPAIRS[state.repair])
        # Unreadable lines are set aside and the journal checkpointed without them, or every reader would skip
        # them, and warn, until the journal next grew past its limit.
        damaged = state.journal.damaged if state.journal is not None else []
        if damaged:
            set_aside(path, damaged)
        structural = settings or bool(damaged) or before.structure_changed(tourney)
        if not structural and not state.repair and before.unchanged(tourney):
            return
        if structural or state.repair or not _append(path, state, tourney, before):
            _checkpoint(path, head, tourney, version=tourney.version + 1, identity=state.owned.identity)
