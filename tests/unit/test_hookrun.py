"""The hook protocol's states (pending -> taken -> done) on a tourney in memory: no process, no file lock."""

from __future__ import annotations

import dataclasses
import os
import socket
from pathlib import Path

from tmanager.tourney.engines import Protocol
from tmanager.tourney.hookrun import (
    AFTER_TOURNEY,
    add_hooks,
    finish_hook,
    game_env,
    hook_marker,
    next_hook,
    settle_hooks,
    take_hook,
)
from tmanager.tourney.model import Participant, PendingHook, Settings, Tourney
from tmanager.tourney.owners import Owner, since_boot

#: Who takes hooks here: this process, alive.
ME = Owner.me()
#: A taker on this host that no longer lives (no process has this pid with this start time).
DEAD = Owner(socket.gethostname(), os.getpid(), 1.0)
#: Other workers, alive (pytest's parent process, and init).
OTHER = dataclasses.replace(ME, pid=os.getppid(), started=since_boot(os.getppid()))
THIRD = dataclasses.replace(ME, pid=1, started=since_boot(1))


def tourney(tmp_path: Path, results: str = "") -> Tourney:
    """A two-engine match of two games whose games call ``after_game``, and its end ``after_tourney``."""
    return Tourney(
        path=tmp_path / "t.toml",
        settings=Settings(after_game="echo game", after_tourney="echo end"),
        participants=[Participant(name, cmd=name.lower(), protocol=Protocol.UCI) for name in ("A", "B")],
        results=results,
    )


def record(t: Tourney, number: int, char: str) -> None:
    t.set_result(number, char)
    add_hooks(t, number, game_env(number, "1-0", "normal", "mate", "A", "B"))


def test_a_recorded_game_makes_its_hook_pending_and_the_last_one_after_tourney_too(tmp_path: Path) -> None:
    t = tourney(tmp_path)
    record(t, 1, "+")
    assert list(t.hooks) == ["after_game:1"] and t.hooks["after_game:1"].taken_by is None
    assert t.hooks["after_game:1"].env["TMANAGER_GAME"] == "1"
    record(t, 0, "=")
    assert sorted(t.hooks) == ["after_game:0", "after_game:1", AFTER_TOURNEY]


def test_hooks_are_taken_by_game_and_after_tourney_only_once_every_game_hook_is_done(tmp_path: Path) -> None:
    t = tourney(tmp_path)
    record(t, 1, "+")
    record(t, 0, "=")
    first = take_hook(t, ME)
    assert first is not None and first.key == "after_game:0" and first.marker.exists()
    assert t.hooks["after_game:0"].taken_by == ME.key and first.marker == hook_marker(t, first.key, ME.key)
    second = take_hook(t, OTHER)  # a worker runs one hook at a time: another takes the next
    assert second is not None and second.key == "after_game:1"
    assert take_hook(t, THIRD) is None  # after_tourney waits for the game hooks taken but not done
    finish_hook(t, first.key, ME)
    finish_hook(t, second.key, OTHER)
    last = take_hook(t, ME)
    assert last is not None and last.key == AFTER_TOURNEY
    finish_hook(t, last.key, ME)
    assert t.hooks == {} and next_hook(t) is None


def test_only_the_taker_finishes_a_hook(tmp_path: Path) -> None:
    t = tourney(tmp_path)
    record(t, 0, "+")
    taken = take_hook(t, ME)
    assert taken is not None
    finish_hook(t, taken.key, DEAD)  # a late finish of another taker: the hook stays this taker's
    assert t.hooks[taken.key].taken_by == ME.key


def taken_by_the_dead(t: Tourney, key: str) -> Path:
    """Hook ``key`` as a taker that died since left it (taking settles the dead takers' hooks first)."""
    t.hooks[key] = dataclasses.replace(t.hooks[key], taken_by=DEAD.key)
    marker = hook_marker(t, key, DEAD.key)
    marker.parent.mkdir(exist_ok=True)
    marker.touch()
    return marker


def test_a_dead_takers_hook_is_pending_again_if_it_never_started_and_done_if_it_did(tmp_path: Path) -> None:
    t = tourney(tmp_path)
    for number in (0, 1):
        record(t, number, "+")
    never_started, started = "after_game:0", "after_game:1"
    marker = taken_by_the_dead(t, never_started)
    taken_by_the_dead(t, started).unlink()  # as its shell does first
    settle_hooks(t, ME)
    assert started not in t.hooks  # it ran, or runs on its own
    assert t.hooks[never_started].taken_by is None and not marker.exists()
    assert next_hook(t) == never_started


def test_a_live_takers_hook_and_another_hosts_are_left_alone(tmp_path: Path) -> None:
    t = tourney(tmp_path)
    for number in (0, 1):
        record(t, number, "+")
    mine = take_hook(t, ME)
    elsewhere = take_hook(t, Owner("another-host", DEAD.pid, DEAD.started))
    assert mine is not None and elsewhere is not None
    settle_hooks(t, OTHER)
    assert t.hooks[mine.key].taken_by == ME.key
    assert t.hooks[elsewhere.key].taken_by == ("another-host", DEAD.pid, DEAD.started, "")


def test_a_taker_of_an_earlier_boot_is_dead_though_its_pid_and_start_are_a_live_process_s(tmp_path: Path) -> None:
    t = tourney(tmp_path)
    record(t, 0, "+")
    assert ME.boot  # Linux tells each boot apart
    earlier_boot = dataclasses.replace(ME, boot="x" + ME.boot[1:])  # ids are hex
    taken = take_hook(t, earlier_boot)
    assert taken is not None and taken.marker.exists()
    settle_hooks(t, ME)  # the marker is there: its shell never started
    assert t.hooks[taken.key].taken_by is None and not taken.marker.exists()


def test_a_hook_taken_by_an_older_tmanager_reads_without_a_boot() -> None:
    older = {"name": "after_game", "command": "echo", "env": {}, "game": 3, "taken_by": ["h", 12, 3.5]}
    assert PendingHook.from_json(older).taken_by == ("h", 12, 3.5, "")
    hook = PendingHook.from_json({**older, "taken_by": ["h", 12, 3.5, "b00t"]})
    assert PendingHook.from_json(hook.to_json()) == hook and hook.taken_by == ("h", 12, 3.5, "b00t")


def test_a_hook_still_marked_taken_by_its_taker_when_it_takes_the_next_is_settled(tmp_path: Path) -> None:
    """A worker runs one hook at a time: a hook marked taken by it as it takes another lost its finishing line
    (a journal cut by hand). Left taken, by a live taker, it was waited for for ever."""
    t = tourney(tmp_path)
    for number in (0, 1):
        record(t, number, "+")
    ran = take_hook(t, ME)
    assert ran is not None
    ran.marker.unlink()  # as its shell does first; its finishing is lost
    again = take_hook(t, ME)
    assert again is not None and again.key == "after_game:1" and ran.key not in t.hooks
    retaken = take_hook(t, ME)  # its finishing lost too, before its shell started: it is run after all
    assert retaken is not None and retaken.key == "after_game:1" and retaken.marker.exists()
