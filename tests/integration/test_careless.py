"""What a careless user does to a tourney's files, with real processes: files written by hand or cut
while workers play. Nothing recorded may be lost, doubled or quietly forgotten."""

from __future__ import annotations

import collections
import json
import re
import signal
from pathlib import Path

import pytest

from tests.conftest import assert_consistent, pgn_games, run_cli
from tests.integration.test_reliability import (
    PYENGINE,
    fast_tourney,
    hooks_extra,
    recorded,
    run_to_the_end,
    without_progress,
)
from tests.integration.test_workers import start_worker, wait_for
from tmanager import files
from tmanager.tourney import store


def test_a_file_whose_progress_section_was_removed_by_hand_keeps_its_results(tmp_path: Path) -> None:
    """Its journal was set aside as another file's (as for a new file written under a deleted one's name):
    every result was forgotten, and the games played again went into the PGN beside the first ones."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=2)
    assert start_worker(path, "--games", "5").wait(timeout=300) == 0
    path.write_text(without_progress(path).replace("cycles = 2", "cycles = 3"))  # settings kept, and changed
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == len(pgn_games(path.with_suffix(".pgn"))) == 18
    assert "lost its [progress] section" in path.with_suffix(".log").read_text()
    participants = without_progress(path).replace('[[participants]]\nname = "R2"', '[[xparticipants]]\nname = "R2"')
    path.write_text(participants.split("[[xparticipants]]")[0])  # a participant removed as well: refused
    cut = path.read_text()
    for command in ("status", "run"):
        refused = run_cli(command, path, timeout=120)
        assert refused.returncode == 2 and "results string has 18 games" in refused.stderr, command
        assert path.read_text() == cut


def test_an_editor_saving_in_place_while_a_worker_claims_loses_nothing(tmp_path: Path) -> None:
    """An editor that writes the file in place (nano, and many others) truncates it, then writes it: a worker
    that read it between the settings and [progress] took it for a new tourney, gave it a journal of its
    own, and played every game again."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=8)
    worker = start_worker(path)
    wait_for(lambda: recorded(path) >= 4, timeout=120)
    text = path.read_text()
    settings = without_progress(path).encode()
    with path.open("r+b") as saving:  # the save, slowed down between its two halves
        saving.truncate(0)
        saving.write(settings)
        saving.flush()
        played = recorded(path)
        wait_for(lambda: store.read(path).finished_count > played, timeout=120)
        saving.write(text.encode()[len(settings) :])
    assert worker.wait(timeout=300) == 0, worker.stderr.read() if worker.stderr else ""
    games = assert_consistent(path)
    assert len(games) == len(pgn_games(path.with_suffix(".pgn"))) == 48


def finished_hook_lines(journal: bytes) -> list[int]:
    """The ends of the journal's lines that took a hook whose finishing line follows."""
    lines = journal.split(b"\n")
    ends, at = [], 0
    for number, line in enumerate(lines[:-1]):
        at += len(line) + 1
        taken = re.search(rb'"(after_game:\d+)": \{[^\n]*"taken_by"', line)
        if taken and any(f'"{taken[1].decode()}": null'.encode() in later for later in lines[number + 1 :]):
            ends.append(at)
    return ends


def test_a_journal_cut_by_hand_after_a_hook_was_taken_does_not_hang_its_worker(tmp_path: Path) -> None:
    """The journal cut after the line taking a hook, before the one finishing it: the hook stayed taken by its
    worker, alive, which had run it and would never finish it again, and every worker waited for it for ever."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=4, extra=hooks_extra(tmp_path))
    worker = start_worker(path)
    wait_for(lambda: recorded(path) >= 6, timeout=120)
    journal = store.journal_path(path)
    with files.lock(path):
        data = journal.read_bytes()
        with journal.open("r+b") as cut:
            cut.truncate(finished_hook_lines(data)[-1])
    try:
        assert worker.wait(timeout=60) == 0
    finally:
        worker.kill()
    games = assert_consistent(path)
    assert len(games) == 24
    ran = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert set(ran) == {str(n) for n in range(24)}, "a hook never ran"  # some twice: their done lines were cut


def line_start(journal: bytes, pattern: bytes) -> int:
    """Where the journal's first line matching ``pattern`` starts."""
    found = re.search(pattern, journal)
    assert found is not None, pattern
    return journal.rindex(b"\n", 0, found.start()) + 1


def cut_journal(path: Path, at: int) -> None:
    """Cut ``path``'s journal by hand at byte ``at`` (under the lock, as a careful hand would)."""
    with files.lock(path), store.journal_path(path).open("r+b") as journal:
        journal.truncate(at)


def test_a_journal_cut_by_hand_between_a_claim_and_its_record_runs_the_games_hooks(tmp_path: Path) -> None:
    """The journal cut after the line claiming a game, before the one recording it, while the game's hook waited
    for the hook before it: the file's results stood, but the hook, pending only in the lost line, never ran."""
    go = tmp_path / "go"
    hook = f"while [ $TMANAGER_GAME = 1 ] && [ ! -e {go} ]; do sleep 0.05; done; echo $TMANAGER_GAME >> after_game.txt"
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1, extra=f"after_game = {json.dumps(hook)}\n")
    worker = start_worker(path, "--games", "3")
    try:
        wait_for(lambda: recorded(path) >= 3, timeout=120)  # game 2's hook waits behind game 1's
        cut_journal(path, line_start(store.journal_path(path).read_bytes(), rb'"results": \{"2": "[-+=]"'))
        go.touch()
        assert worker.wait(timeout=60) == 0
    finally:
        worker.kill()
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 6
    ran = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert ran == collections.Counter({str(n): 1 for n in range(6)}), "a hook never ran, or ran twice"


def test_a_journal_cut_by_hand_below_the_claim_of_a_game_in_progress_keeps_the_games_result(tmp_path: Path) -> None:
    """The journal cut before the line claiming the game a worker plays: the file has the game in progress, the
    journal no claim on it. The worker discarded its result as another worker's, and played the game again."""
    slow = f"{PYENGINE} --protocol uci --fault slow --delay 0.1"
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=1, max_moves=8, cmd=slow)
    worker = start_worker(path)
    try:
        wait_for(lambda: 0 in store.read(path).claims, timeout=60)
        cut_journal(path, line_start(store.journal_path(path).read_bytes(), rb'"results": \{"0": "\*"'))
        assert worker.wait(timeout=120) == 0
    finally:
        worker.kill()
    assert len(assert_consistent(path)) == 2
    log = path.with_suffix(".log").read_text()
    assert "discarded" not in log and log.count("game 0: ") == 2, log  # started, and ended: played once


def hook_taken(path: Path, key: str) -> bool:
    hook = store.read(path).hooks.get(key)
    return hook is not None and hook.taken_by is not None


def put_back_under_a_worker(tmp_path: Path, *, cycles: int, args: tuple[str, ...] = (), stop: bool = False) -> Path:
    """Two slow players, a worker (with ``args``): the file and its journal copied while it plays game 1, game 0's
    hook taken and waiting; put back once game 1 is recorded, then (after a SIGTERM, with ``stop``) the hook let
    go. Returns the tourney's path once the worker has ended as it should."""
    go = tmp_path / "go"
    hook = f"while [ $TMANAGER_GAME = 0 ] && [ ! -e {go} ]; do sleep 0.05; done; echo $TMANAGER_GAME >> after_game.txt"
    slow = f"{PYENGINE} --protocol uci --fault slow --delay 0.1"
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=cycles, max_moves=8, cmd=slow,
                        extra=f"after_game = {json.dumps(hook)}\n")
    journal = store.journal_path(path)
    worker = start_worker(path, *args)
    try:
        wait_for(lambda: 1 in store.read(path).claims and hook_taken(path, "after_game:0"), timeout=60)
        with files.lock(path):
            copies = {kept: kept.read_bytes() for kept in (path, journal)}
        wait_for(lambda: recorded(path) == 2, timeout=60)  # and game 0's hook still waits
        with files.lock(path):
            for kept, data in copies.items():
                kept.write_bytes(data)  # as cp does: in place
        if stop:
            worker.send_signal(signal.SIGTERM)
        go.touch()
        assert worker.wait(timeout=60) == (130 if stop else 0)
    finally:
        worker.kill()
    return path


def test_a_tourney_put_back_from_a_copy_taken_while_its_worker_played_does_not_hang_it(tmp_path: Path) -> None:
    """The file and its journal put back from a copy taken while the worker played the last game, after it
    recorded it: the game was back in progress, claimed by the worker, alive, which would never play it again,
    and it waited for it for ever (no other worker takes a game whose owner lives)."""
    path = put_back_under_a_worker(tmp_path, cycles=1)
    assert len(assert_consistent(path)) == 2
    ran = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert ran == collections.Counter({"0": 1, "1": 1}), "a hook never ran, or ran twice"


@pytest.mark.parametrize("stop", [False, True], ids=["games-reached", "signal"])
def test_a_worker_ending_gives_back_its_claim_put_back_from_a_copy(tmp_path: Path, stop: bool) -> None:
    """The same copy put back, under a worker with `--games 2` whose lanes had claimed their two games and ended
    (or that is stopped by a signal then): no claim of its own came to give the stray back. It exited with game 1
    still claimed by itself: `status` showed a game in progress nobody played, until the next worker found the
    claim stale. Now the game is recovered from the PGN as the worker ends, its hook run (or, on a stop, due)."""
    path = put_back_under_a_worker(tmp_path, cycles=2, args=("--games", "2"), stop=stop)
    tourney = store.read(path)
    assert tourney.claims == {} and "*" not in tourney.results and tourney.finished_count == 2, tourney.claims
    assert list(tourney.hooks) == (["after_game:1"] if stop else [])
    looked = run_cli("status", path, timeout=60)
    assert "2 played, 0 in progress" in looked.stdout, looked.stdout
    ran = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert ran == collections.Counter({"0": 1} if stop else {"0": 1, "1": 1}), "a hook never ran, or ran twice"


@pytest.mark.parametrize("command", [["reset-stale"], ["edit", "--set", "lease=90"]], ids=lambda c: c[0])
def test_a_journal_cut_by_hand_then_changed_by_a_command_still_makes_the_lost_games_hooks_due(
    tmp_path: Path, command: list[str]
) -> None:
    """The first change after the cut made by a command, not a worker: it too makes the hooks of the game whose
    recording line was lost due again (they may have run: they run again rather than never), since after it
    the cut is no longer there to be seen."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1, extra=hooks_extra(tmp_path))
    assert start_worker(path, "--games", "3").wait(timeout=120) == 0
    cut_journal(path, line_start(store.journal_path(path).read_bytes(), rb'"results": \{"2": "[-+=]"'))
    done = run_cli(*command, path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "after_game:2" in store.read(path).hooks
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 6
    ran = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert ran == collections.Counter({"0": 1, "1": 1, "2": 2, "3": 1, "4": 1, "5": 1}), ran


#: Lines of a journal damaged on disk or edited by hand: JSON, but not what tmanager writes. Each was a
#: traceback in every command that read the file (a result past the end of the results string, an object
#: that is not one, a version that is not a number), or was taken in: a result `-1` changed the byte before
#: the results string, a foreign character became a result, a version of 30 digits shifted the results
#: string by the digits beyond the room the version has, and a claim of `NaN` times was kept.
DAMAGED_LINES = [
    {"v": 99, "results": {"99": "+"}},
    {"v": 99, "results": {"-1": "+"}},
    {"v": 99, "results": {"2": "x"}},
    {"v": 99, "results": ["+"]},
    {"v": 99, "hooks": 5},
    {"v": 99, "hooks": {"after_game:0": 5}},
    {"v": 99, "pgn": ["t.pgn", -5]},
    {"v": 10**29},
    {"v": "99", "results": {"2": "+"}},
    {"v": 99, "results": {"2": "*"}, "claims": {"2": {"host": 5, "pid": "x", "started": "a", "claimed": [],
                                                     "heartbeat": {}, "pgn_offset": "z", "boot": 7}}},
    {"v": 99, "results": {"2": "*"}, "claims": {"2": {"host": "h", "pid": 1, "started": float("nan"),
                                                     "claimed": 1, "heartbeat": float("inf")}}},
]


@pytest.mark.parametrize("line", DAMAGED_LINES, ids=[json.dumps(line)[:60] for line in DAMAGED_LINES])
def test_a_damaged_journal_line_is_skipped_whole(tmp_path: Path, line: dict[str, object]) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=2)
    assert start_worker(path, "--games", "2").wait(timeout=300) == 0
    journal = files.linked_file(path).with_name(".t.toml.journal")
    damaged = json.dumps(line)
    with journal.open("a") as appending:
        appending.write(damaged + "\n")
    at = journal.stat().st_size - len(damaged) - 1
    skipped = (f"tmanager: warning: {journal}: an unreadable line was skipped (at byte {at}; the next change of "
               "the tourney sets it aside in .t.toml.journal.damaged)")
    for _look in range(2):  # a look writes nothing: it says so each time, as `tmanager: warning: FILE: …`
        done = run_cli("status", path, timeout=120)
        assert done.returncode == 0 and done.stderr.splitlines() == [skipped], done.stderr
    # The first change of the tourney keeps the line aside and writes the journal afresh: nothing said again.
    done = run_cli("reset-stale", path, timeout=120)
    assert done.returncode == 0 and done.stderr.splitlines() == [
        skipped, f"tmanager: warning: {journal}: 1 unreadable line(s) set aside in .t.toml.journal.damaged; the "
        "journal is written afresh without them",
    ], done.stderr
    assert journal.with_name(".t.toml.journal.damaged").read_text() == damaged + "\n"
    assert damaged not in journal.read_text()
    done = run_cli("status", path, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    tourney = store.read(path)
    assert (len(tourney.results), tourney.finished_count, tourney.claims) == (2, 2, {}), tourney.results
    done = run_to_the_end(path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert len(assert_consistent(path)) == 4


@pytest.mark.parametrize("damage", [{"claims": 5}, {"hooks": []}, {"checkpoint": 1e999}, {"owned": 5}])
def test_a_damaged_journal_checkpoint_leaves_the_file_in_charge(tmp_path: Path, damage: dict[str, object]) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=2)
    assert start_worker(path, "--games", "2").wait(timeout=300) == 0
    journal = files.linked_file(path).with_name(".t.toml.journal")
    first, rest = journal.read_text().split("\n", 1)
    journal.write_text(json.dumps({**json.loads(first), **damage}) + "\n" + rest)
    done = run_cli("status", path, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "unreadable; the tourney file is taken as it is" in done.stderr and "2 played" in done.stdout
    done = run_to_the_end(path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert len(assert_consistent(path)) == 4


def test_a_pgn_saved_by_an_editor_without_its_last_blank_line_loses_no_game(tmp_path: Path) -> None:
    """An editor that trims the blank line ending the file (or a game added by hand that ends on its result
    line): the last game was taken for one a writer had left half written. `status` and `work` said it was
    missing (and so told to play it again), and an append cut a game added by hand off the file."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=2)
    assert start_worker(path, "--games", "3").wait(timeout=300) == 0
    pgn_path = path.with_suffix(".pgn")
    pgn_path.write_bytes(pgn_path.read_bytes().rstrip(b"\n") + b"\n")  # saved by an editor that trims
    done = run_cli("status", path)
    assert done.returncode == 0 and "missing" not in done.stderr, done.stderr
    assert start_worker(path, "--games", "1").wait(timeout=300) == 0
    by_hand = (b'[Event "by hand"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n'
               b"1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n")
    with pgn_path.open("ab") as pgn:
        pgn.write(by_hand)
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    kept = pgn_path.read_bytes()
    assert by_hand + b"\n[" in kept and [g["Event"] for g in pgn_games(pgn_path)].count("by hand") == 1
    pgn_path.write_bytes(kept.replace(by_hand + b"\n", b""))  # the tourney's games alone: each there once
    assert len(assert_consistent(path)) == 12


def test_a_line_added_by_hand_to_epd_out_without_a_line_break_is_kept(tmp_path: Path) -> None:
    """It was taken for the half line of a writer that died, and cut off the file by the next game's line."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1, extra='epd_out = "final.epd"')
    assert start_worker(path, "--games", "2").wait(timeout=300) == 0
    epd = tmp_path / "final.epd"
    with epd.open("a") as f:
        f.write("# checked by hand")
    assert run_to_the_end(path).returncode == 0
    lines = epd.read_text().splitlines()
    assert len(lines) == 7 and lines[2] == "# checked by hand" and epd.read_text().endswith("\n")
