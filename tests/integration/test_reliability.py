"""Nothing lost, nothing twice, under faults, with real processes: signals, kills at the worst instant,
held locks, stale editor saves, full disks, engines' children."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.conftest import ROOT, assert_consistent, pgn_games, run_async, run_cli
from tests.integration.test_workers import claims_of, start_worker, wait_for
from tmanager import files
from tmanager.tourney import store
from tmanager.tourney.processes import Workers

pytestmark = pytest.mark.usefixtures("each_event_loop")

PYENGINE = ROOT / "engines" / "pyengine.py"


def fast_tourney(path: Path, *, players: int = 4, cycles: int = 2, max_moves: int = 15, extra: str = "",
                 cmd: str = "") -> Path:
    """A round robin of random movers: games of a fraction of a second, never a fault."""
    participants = "".join(
        f'\n[[participants]]\nname = "R{i}"\n'
        + (f'cmd = "{cmd}"\nprotocol = "uci"\n' if cmd else f'engine = "random-uci"\nargs = ["--seed", "{i}"]\n')
        for i in range(players)
    )
    path.write_text(
        f'[tourney]\nname = "fast"\nnodes = 1\ncycles = {cycles}\n{extra}\n'
        f"[adjudication]\nmax_moves = {max_moves}\n{participants}"
    )
    return path


def hooks_extra(directory: Path) -> str:
    return (f'after_game = "echo $TMANAGER_GAME >> {directory}/after_game.txt"\n'
            f'after_tourney = "echo done >> {directory}/after_tourney.txt"\n')


def assert_hooks_once(directory: Path, games: int) -> None:
    counted = collections.Counter((directory / "after_game.txt").read_text().split())
    assert counted == collections.Counter({str(n): 1 for n in range(games)}), "an after_game hook ran twice or never"
    assert (directory / "after_tourney.txt").read_text() == "done\n"


def recorded(path: Path) -> int:
    return store.read(path).finished_count


@pytest.mark.timing
def test_sigterm_stops_a_worker_of_fast_games_at_once_and_gives_its_game_back(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", cycles=40)
    for attempt in range(6):
        worker = start_worker(path)
        target = recorded(path) + 2
        wait_for(lambda: recorded(path) >= target, timeout=60)  # noqa: B023 - evaluated at once
        time.sleep(random.Random(attempt).random() * 0.3)
        before = recorded(path)
        worker.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert worker.wait(timeout=30) == 130
        assert time.monotonic() - started < 5, "the stop was not prompt"
        tourney = store.read(path)
        assert "*" not in tourney.results and tourney.claims == {}
        assert tourney.finished_count <= before + 1  # at most the game that was ending went in
    assert_consistent(path, complete=False)


def test_a_stopped_worker_says_whether_it_gave_a_game_back(tmp_path: Path) -> None:
    """A worker stopped while its last hook ran (every game recorded) said 'its game given back' all the same."""
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=1,
                        extra=f'after_game = "sleep 5; echo $TMANAGER_GAME >> {tmp_path}/after_game.txt"')
    worker = start_worker(path)
    wait_for(lambda: recorded(path) == 2, timeout=60)
    worker.send_signal(signal.SIGTERM)
    out, _ = worker.communicate(timeout=60)
    assert (worker.returncode, out) == (130, "2 game(s) played; stopped by a signal\n")
    slow_engine = f"{PYENGINE} --protocol uci --fault slow --delay 0.5"
    slow = fast_tourney(tmp_path / "s.toml", players=2, cycles=1, cmd=slow_engine)
    worker = start_worker(slow)
    wait_for(lambda: store.read(slow).claims != {}, timeout=60)
    worker.send_signal(signal.SIGTERM)
    out, _ = worker.communicate(timeout=60)
    given_back = "0 game(s) played; stopped by a signal, 1 game(s) in progress given back\n"
    assert (worker.returncode, out) == (130, given_back)


@pytest.mark.timing
def test_sigterm_stops_run_with_nothing_left_claimed(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", cycles=40)
    for _ in range(3):
        run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        target = recorded(path) + 4
        wait_for(lambda: recorded(path) >= target, timeout=60)  # noqa: B023
        run.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert run.wait(timeout=30) == 130
        assert time.monotonic() - started < 8
        tourney = store.read(path)
        assert "*" not in tourney.results and tourney.claims == {}
        assert "Traceback" not in (run.stderr.read() if run.stderr else "")
    assert_consistent(path, complete=False)


def sigterm_caught(pid: int) -> bool:
    """Whether process ``pid`` catches SIGTERM (its ``SigCgt`` mask): `tmanager` ends by it with one line from
    then on, and not before (the interpreter's start, then a few milliseconds of imports: under load, over
    0.3 s, test_startup.py::test_sigterm_is_taken_before_the_command_line_s_modules_are_imported)."""
    status = Path(f"/proc/{pid}/status").read_text()
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) >> (signal.SIGTERM - 1) & 1)


@pytest.mark.parametrize("delay", [0.0, 0.3, 0.6, 1.0])
def test_a_signal_while_run_starts_ends_it_with_one_line(tmp_path: Path, delay: float) -> None:
    # The signal was sent 0.3 s after the start, told by the clock: under load it landed before `tmanager`
    # caught SIGTERM, and killed it (-15). Now it is sent ``delay`` after the process catches it.
    path = fast_tourney(tmp_path / "t.toml", cycles=40)
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: sigterm_caught(run.pid), timeout=60)
    time.sleep(delay)
    run.send_signal(signal.SIGTERM)
    status = run.wait(timeout=30)
    stderr = run.stderr.read() if run.stderr else ""
    assert status == 130, stderr
    assert "Traceback" not in stderr and stderr.strip()
    wait_for(lambda: not claims_of(path, run.pid), timeout=10)
    assert "*" not in store.read(path).results


@pytest.mark.timing
def test_a_signal_as_run_forks_its_workers_stops_them_at_once(tmp_path: Path) -> None:
    """A forked worker starts with `run`'s handler of SIGTERM, which only notes a stop in `run`: `run` stopped as
    it forked its workers sent each its SIGTERM, and one still in its first instants lost it, played on (games
    recorded after the stop) and was killed by SIGKILL when `run` gave up waiting, 5 s later. A stop that landed
    as uvloop set up its signals left a loop that could not be closed: a traceback, about one start in thirty."""
    path = fast_tourney(tmp_path / "t.toml", cycles=40)
    for _ in range(3):
        run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "6"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        children = Path(f"/proc/{run.pid}/task/{run.pid}/children")
        deadline = time.monotonic() + 60
        while not children.read_text().split():  # its first worker forked: closer than wait_for looks
            assert time.monotonic() < deadline, "no worker started"
            time.sleep(0.0005)
        run.send_signal(signal.SIGTERM)
        started = time.monotonic()
        _, stderr = run.communicate(timeout=60)
        assert run.returncode == 130 and "Traceback" not in stderr, stderr
        assert time.monotonic() - started < Workers.STOP_SECONDS, "a worker had to be killed"
        tourney = store.read(path)
        assert "*" not in tourney.results and tourney.claims == {}
    assert_consistent(path, complete=False)


def test_python_m_ends_with_130_after_an_interrupt_inside_exec_d_code(tmp_path: Path) -> None:
    """A Ctrl-C or SIGTERM that lands in code that dataclasses build with exec() (during an import)
    makes CPython end a `python -m` process by SIGINT, whatever status it exits with, unless another
    exec() follows: the command must still end with 130. Where a signal lands is left to chance, so
    here each signal handler first raises and catches a KeyboardInterrupt in exec()'d code. (`work`:
    `run` imports numpy for its final report, whose namedtuples exec() again.)"""
    (tmp_path / "interrupted_in_exec.py").write_text(
        "import runpy, signal\n"
        "install = signal.signal\n"
        "def landing_in_exec(handler):\n"
        "    def handle(signum, frame):\n"
        "        try:\n"
        "            exec('raise KeyboardInterrupt')\n"
        "        except KeyboardInterrupt:\n"
        "            pass\n"
        "        return handler(signum, frame)\n"
        "    return handle\n"
        "signal.signal = lambda sig, h: install(sig, landing_in_exec(h) if callable(h) else h)\n"
        "runpy.run_module('tmanager', run_name='__main__', alter_sys=True)\n"
    )
    path = fast_tourney(tmp_path / "t.toml", cycles=40)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    work = subprocess.Popen([sys.executable, "-m", "interrupted_in_exec", "work", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wait_for(lambda: bool(store.read(path).claims), timeout=60)
    work.send_signal(signal.SIGTERM)
    assert work.wait(timeout=30) == 130, work.stderr.read() if work.stderr else ""


def test_run_replaces_its_only_worker_when_it_is_killed(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=4, extra=hooks_extra(tmp_path))
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: bool(store.read(path).claims), timeout=60)
    victim = next(iter(store.read(path).claims.values())).pid
    os.kill(victim, signal.SIGKILL)
    assert run.wait(timeout=300) == 0, run.stderr.read() if run.stderr else ""
    assert "was killed (signal 9); starting another" in (run.stderr.read() if run.stderr else "")
    assert_consistent(path)
    assert_hooks_once(tmp_path, store.read(path).schedule().total_games)


def test_a_worker_waits_for_a_held_lock_and_keeps_the_game_it_finished(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=3)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    game = claims_of(path, worker.pid)[0]
    with files.lock(path):  # a process holding the lock, stopped (SIGSTOP) or slow
        time.sleep(5)  # the game (a second at most) ends meanwhile; its worker must wait, not quit
        assert worker.poll() is None
    assert worker.wait(timeout=120) == 0
    games = assert_consistent(path)
    assert [g["GameNumber"] for g in games].count(str(game)) == 1


def test_an_editor_saving_a_stale_copy_during_a_run_loses_and_repeats_nothing(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=4, cycles=6, extra=hooks_extra(tmp_path))
    worker = start_worker(path)
    wait_for(lambda: recorded(path) >= 2, timeout=60)
    stale = path.read_text()  # the editor loads the file...
    wait_for(lambda: recorded(path) >= 8, timeout=120)
    # ... and three seconds of play later saves it with the user's change and the old results.
    path.write_text(stale.replace('name = "fast"', 'name = "fast" # renamed by hand'))
    assert worker.wait(timeout=300) == 0
    games = assert_consistent(path)
    assert len(games) == store.read(path).schedule().total_games
    assert "# renamed by hand" in path.read_text()
    assert "stale copy" in path.with_suffix(".log").read_text()
    assert_hooks_once(tmp_path, len(games))


def test_engines_children_die_with_a_killed_worker(tmp_path: Path) -> None:
    # An engine that starts a helper process of its own, as wrapper scripts and some engines do.
    wrapper = tmp_path / "engine.sh"
    wrapper.write_text(f"#!/bin/sh\nsleep 600 &\nexec {sys.executable} {PYENGINE} --protocol uci\n")
    wrapper.chmod(0o755)
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=50, cmd=str(wrapper))

    def helpers() -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter(["name", "environ"]):
            with contextlib.suppress(psutil.Error):
                if process.info["name"] == "sleep" and str(path) in (process.info["environ"] or {}).get(
                        "TMANAGER_ENGINE_OF", ""):
                    found.append(process)
        return found

    worker = start_worker(path)
    wait_for(lambda: len(helpers()) == 2, timeout=60)
    worker.kill()
    worker.wait()
    time.sleep(0.5)
    assert len(helpers()) == 2  # the engines died with their worker; their children did not
    again = start_worker(path, "--games", "1")  # reaps the dead worker's leftovers as it starts
    assert again.wait(timeout=60) == 0
    wait_for(lambda: helpers() == [], timeout=10)  # and its own engines' children go with them


@contextlib.contextmanager
def tiny_disk(directory: Path, size: str) -> Iterator[Path]:
    directory.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small file system here ({done.stderr.strip()}); CI runs as root")
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)


def recorded_within_the_pgn(path: Path) -> set[int]:
    """The games recorded in tourney ``path`` after a stop, asserting that each is in the PGN, and that a game in the
    PGN without its result (the disk filled between the two writes) is still claimed, for the next run to record it
    from the PGN."""
    tourney = store.read(path)
    in_pgn = {int(g["GameNumber"]) for g in pgn_games(tourney.pgn_path)}
    finished = {n for n, c in enumerate(tourney.results) if c in "+-="}
    assert finished <= in_pgn, "a result was recorded without its game"
    assert in_pgn - finished <= set(tourney.claims), "a game in the PGN is neither recorded nor claimed"
    return finished


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small file system needs root (CI runs as root)")
def test_a_full_disk_records_no_result_without_its_game_and_a_later_run_completes(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", "160k") as disk:
        path = fast_tourney(disk / "t.toml", players=4, cycles=30, max_moves=40, extra=hooks_extra(tmp_path))
        log = tmp_path / "w.log"
        worker = subprocess.run([sys.executable, "-m", "tmanager", "work", str(path), "--log", str(log)],
                                capture_output=True, text=True, timeout=600, check=False)
        assert worker.returncode == 2, worker.stderr
        lines = worker.stderr.strip().splitlines()
        assert len(lines) == 1 and "No space left on device" in lines[0] and "kB free there" in lines[0], lines
        assert not list(disk.rglob("*.tmp"))
        assert len(recorded_within_the_pgn(path)) >= 10
        subprocess.run(["mount", "-o", "remount,size=8m", str(disk)], check=True)
        assert start_worker(path).wait(timeout=600) == 0
        assert_consistent(path)
        assert_hooks_once(tmp_path, store.read(path).schedule().total_games)


def test_a_dead_workers_hook_runs_once_even_when_its_shell_starts_late(tmp_path: Path) -> None:
    # The race the chaos test once lost: the taker is killed right after starting the hook's shell, the next
    # worker sees the marker and takes the hook over, and then the orphaned shell gets to run.
    from tmanager.tourney.hookrun import hook_marker, run_hook, settle_hooks
    from tmanager.tourney.model import PendingHook
    from tmanager.tourney.owners import Owner

    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=1)
    ran = tmp_path / "ran.txt"
    dead = (os.uname().nodename, os.getpid(), 1.0, "")  # no process has this pid with this start time
    never_started, started = "after_game:7", "after_game:8"
    with store.transaction(path) as tourney:
        for key, game in ((never_started, 7), (started, 8)):
            hook = PendingHook("after_game", f"echo $TMANAGER_GAME >> {ran}", {"TMANAGER_GAME": str(game)},
                               game=game, taken_by=dead)
            tourney.hooks[key] = hook
            marker = hook_marker(tourney, key, dead)
            marker.parent.mkdir(exist_ok=True)
            marker.touch()
        hook_marker(tourney, started, dead).unlink()  # as the dead taker's shell did
        late = tourney.hooks[never_started], hook_marker(tourney, never_started, dead), tourney.pgn_path
    with store.transaction(path) as tourney:
        settle_hooks(tourney, Owner.me())
        assert started not in tourney.hooks  # it ran, or runs on its own
        assert tourney.hooks[never_started].taken_by is None  # free for the next taker
    hook, marker, pgn_path = late
    run_hook(hook, marker=marker, tourney_path=path, pgn_path=pgn_path)  # the dead taker's shell, too late
    assert not ran.exists()
    assert start_worker(path).wait(timeout=120) == 0  # plays the games and runs the free hook
    assert ran.read_text() == "7\n"
    assert not store.read(path).hooks and not list(store.read(path).live_dir.glob("hook-*"))


def live_workers(run: subprocess.Popen[str]) -> list[psutil.Process]:
    found = []
    with contextlib.suppress(psutil.Error):
        for process in psutil.Process(run.pid).children():  # run forks its workers, and nothing else
            with contextlib.suppress(psutil.Error):
                if process.status() != psutil.STATUS_ZOMBIE:
                    found.append(process)
    return found


def kill_at_random(path: Path, run: subprocess.Popen[str], rng: random.Random, kills: int) -> int:
    """Kill -9 workers of ``run`` at random moments, half of them at the instant the PGN grows
    (a game written, its result not yet recorded); returns the kills made."""
    made = 0
    pgn_path = store.read(path).pgn_path
    while made < kills and run.poll() is None:
        workers = live_workers(run)
        if not workers:
            time.sleep(0.05)
            continue
        if made % 2:
            time.sleep(rng.random() * 1.5)
        else:  # at the recording instant
            size = pgn_path.stat().st_size if pgn_path.exists() else 0
            deadline = time.monotonic() + 20
            while (pgn_path.stat().st_size if pgn_path.exists() else 0) == size and time.monotonic() < deadline:
                time.sleep(0.0005)
        with contextlib.suppress(psutil.Error):
            rng.choice(workers).kill()
            made += 1
        time.sleep(0.3)
    return made


@pytest.mark.slow
def test_chaos_kills_lose_nothing_and_run_every_hook_once(tmp_path: Path) -> None:
    # Long enough (960 games of random movers) that the run cannot end before the kills are made.
    path = fast_tourney(tmp_path / "t.toml", players=4, cycles=80, extra=hooks_extra(tmp_path))
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    made = kill_at_random(path, run, random.Random(19), kills=30)
    assert run.wait(timeout=600) == 0, run.stderr.read() if run.stderr else ""
    assert made >= 20
    games = assert_consistent(path)
    assert len(games) == 960
    assert_hooks_once(tmp_path, 960)


@pytest.mark.slow
def test_kills_on_a_million_game_tourney_lose_nothing(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_bookkeeping

    path = bench_bookkeeping.build(tmp_path, 1_000_000)
    shutil.copy(path, tmp_path / "before.toml")
    before = store.read(path).results
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    made = kill_at_random(path, run, random.Random(17), kills=8)
    assert run.wait(timeout=600) == 0, run.stderr.read() if run.stderr else ""
    assert made >= 4
    tourney = store.read(path)
    assert tourney.is_complete() and tourney.claims == {}
    assert tourney.results[: len(before)] == before  # what was recorded before stays as it was
    numbers = [int(g["GameNumber"]) for g in pgn_games(tourney.pgn_path)]
    assert sorted(numbers) == list(range(len(before), tourney.schedule().total_games)), "a game lost or twice"


@pytest.mark.parametrize("stop", ["a refused variant, then a signal", "a signal, then another"])
def test_a_stop_during_a_give_back_neither_cuts_it_short_nor_hides_the_error(tmp_path: Path, stop: str) -> None:
    """The give-back of a lane's game waits for a held lock; a stop arriving meanwhile (the signal
    `run` sends when a sibling worker fails, or a second Ctrl-C) must let it finish, and the
    worker must still end with the error or the stop it was ending with: one line, no traceback."""
    gate = tmp_path / "gate"
    engine = tmp_path / "engine.sh"  # Stockfish, once the test opens the gate
    engine.write_text(f"#!/bin/sh\nwhile [ ! -e {gate} ]; do sleep 0.01; done\nexec /usr/games/stockfish\n")
    engine.chmod(0o755)
    refused = stop.startswith("a refused variant")
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=1, cmd=str(engine),
                        extra='variant = "atomic"' if refused else "")
    log = path.with_suffix(".log")
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    with files.lock(path):  # each give-back waits up to a second for the lock
        if refused:
            gate.touch()  # Stockfish offers no atomic: the game is not played, and its give-back begins
            wait_for(lambda: log.exists() and "not played" in log.read_text())
        else:
            worker.send_signal(signal.SIGTERM)  # the game stops before its first move, and is given back
            time.sleep(0.3)
        worker.send_signal(signal.SIGTERM)
        time.sleep(0.3)
    status = worker.wait(timeout=30)
    stderr = worker.stderr.read() if worker.stderr else ""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("tmanager:")]
    if refused:
        assert (status, errors) == (2, [f"tmanager: {path}: engine 'R0' does not play variant atomic "
                                        "(it offers none: it has no UCI_Variant option) (choose another engine or "
                                        "variant)"]), stderr
    else:
        assert status == 130, stderr
    tourney = store.read(path)
    assert tourney.claims == {} and tourney.results.strip(" =") == "", "the game was not given back"
    assert "released unplayed" in log.read_text()



def test_a_transaction_cut_short_by_two_stops_still_reports_what_it_did() -> None:
    """A file transaction runs in a thread, which a stop cannot end: when the task waiting for it is
    cancelled, and cancelled again (a second Ctrl-C), the transaction still finishes, and what it
    did (a claim, say) reaches ``settled``, so that the stop can give it back."""
    from tmanager.tourney.bookkeeping import UnfitFiles, transact

    held = threading.Event()
    running = threading.Event()
    settled: list[str] = []

    def claim() -> str:
        running.set()
        held.wait(timeout=10)  # a transaction waiting for the lock
        return "game 0"

    async def main() -> None:
        task = asyncio.create_task(transact(claim, unfit=UnfitFiles(), settled=settled.append))
        await asyncio.to_thread(running.wait, 10)
        for _ in range(2):
            task.cancel()
            await asyncio.sleep(0.05)
        assert not task.done() and settled == [], "the stop did not wait for the transaction"
        held.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    run_async(main())
    assert settled == ["game 0"]


# --- hand edits and odd files ----------------------------------------------------------------------


def set_by_hand(path: Path, games: dict[int, str]) -> None:
    """Change results characters in the file as an editor would: read it, change the text, save it."""
    text = path.read_text()
    start = text.index('results = "') + len('results = "')
    results = list(text[start : text.index('"', start)])
    for number, char in games.items():
        results[number] = char
    path.write_text(text[:start] + "".join(results) + text[start + len(results) :])


def without_progress(path: Path) -> str:
    """The file's settings as a user writes them by hand: everything above ``[progress]``."""
    return path.read_text().split("[progress]")[0]


def run_to_the_end(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tmanager", "run", str(path), *args], capture_output=True,
                          text=True, timeout=600, check=False)


def test_a_new_file_written_by_hand_under_an_old_name_plays_all_its_games(tmp_path: Path) -> None:
    """The hidden journal of a finished tourney whose file and PGN were deleted must not be applied to a new
    file written by hand under the same name (the journal is bound to its file's identity)."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1)
    assert run_to_the_end(path).returncode == 0
    settings = without_progress(path)
    path.unlink()
    path.with_suffix(".pgn").unlink()
    assert store.journal_path(path).exists()
    path.write_text(settings)  # the documented format, written by hand
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert "nothing to play" not in done.stderr
    games = assert_consistent(path)
    assert len(games) == store.read(path).schedule().total_games == 6
    assert "belonged to another file" in path.with_suffix(".log").read_text()


def test_participants_reordered_by_hand_before_the_first_game_play_in_their_new_order(tmp_path: Path) -> None:
    """Allowed while no result exists; but the first claim was written in place beside the old list, the game's
    result was then refused ('the participants differ from those the results were recorded with') and the worker
    waited for ever for the file to be fixed, its game claimed."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1)
    assert run_cli("edit", path, "--set", "cycles=2").returncode == 0  # the owned part and its journal
    text = path.read_text()
    first = '[[participants]]\nname = "R0"\nengine = "random-uci"\nargs = ["--seed", "0"]\n'
    path.write_text(text.replace(first, "").replace("[progress]", first + "\n[progress]"))
    done = subprocess.run([sys.executable, "-m", "tmanager", "run", str(path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    assert [p.name for p in tourney.participants] == ["R1", "R2", "R0"] and tourney.finished_count == 12
    assert 'participants = [\n  "R1",\n  "R2",\n  "R0",\n]' in path.read_text()
    assert_consistent(path)


def test_a_schedule_changed_by_hand_once_results_exist_is_refused_with_nothing_changed(tmp_path: Path) -> None:
    """games_per_pairing 2 -> 1 with cycles 2 -> 4 keeps the results string's length: every recorded result was
    silently taken for another game (edit refuses the change; the file edited by hand did not)."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=2, extra="games_per_pairing = 2")
    assert start_worker(path, "--games", "3").wait(timeout=120) == 0
    edited = path.read_text().replace("games_per_pairing = 2", "games_per_pairing = 1").replace(
        "cycles = 2", "cycles = 4")
    path.write_text(edited)
    for command, status in (("status", 2), ("work", 2), ("run", 2)):
        done = run_cli(command, path, timeout=120)
        assert (done.returncode, done.stderr.splitlines()[-1]) == (status, (
            f"tmanager: {path}: tourney.games_per_pairing: the results were recorded with games_per_pairing = 2, "
            "not 1 (put it back: the results string would mean other games; to play another schedule, clone the "
            "tourney (tmanager clone --set))")), command
        assert path.read_text() == edited
    restored = edited.replace("games_per_pairing = 1", "games_per_pairing = 2").replace("cycles = 4", "cycles = 2")
    path.write_text(restored)
    assert run_to_the_end(path).returncode == 0
    assert len(assert_consistent(path)) == 12


def test_a_schedule_changed_by_hand_before_the_first_game_is_played_as_changed(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1, extra="games_per_pairing = 2")
    assert run_cli("edit", path, "--set", "cycles=2").returncode == 0  # the owned part and its journal
    path.write_text(path.read_text().replace("games_per_pairing = 2", "games_per_pairing = 1"))
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert store.read(path).finished_count == 6 and len(assert_consistent(path)) == 6
    assert "tourney.games_per_pairing=1 " in path.read_text()


def test_a_result_set_back_by_hand_supersedes_its_game_and_runs_the_replays_hook_once(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1, extra=hooks_extra(tmp_path))
    assert run_to_the_end(path).returncode == 0
    set_by_hand(path, {1: " ", 4: " "})  # the XBoard way to play games again
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)  # one current game per result
    old = [g for g in pgn_games(path.with_suffix(".pgn")) if "Superseded" in g]
    assert sorted(int(g["GameNumber"]) for g in old) == [1, 4]
    counted = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert counted == collections.Counter({"0": 1, "1": 2, "2": 1, "3": 1, "4": 2, "5": 1}), "once for each play"
    crosstable = subprocess.run([sys.executable, "-m", "tmanager", "crosstable", str(path.with_suffix(".pgn")),
                                 "--format", "csv"], capture_output=True, text=True, check=True)
    assert sum(int(line.split(",")[2]) for line in crosstable.stdout.splitlines()[1:4]) == 2 * len(games)


def test_a_result_changed_by_hand_is_corrected_in_the_pgn_where_crosstable_counts_it(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=2)  # 12 games
    assert start_worker(path, "--games", "6").wait(timeout=300) == 0
    other = {"+": "-", "-": "=", "=": "+"}
    results = store.read(path).results
    set_by_hand(path, {1: other[results[1]], 4: other[results[4]]})  # a worker takes them in at its next claim
    assert run_to_the_end(path).returncode == 0
    assert_consistent(path)
    results = store.read(path).results
    set_by_hand(path, {7: other[results[7]]})  # a finished tourney: `run` takes it in, with nothing to play
    done = run_to_the_end(path)
    assert done.returncode == 0 and "game(s) 7 given another result by hand" in done.stderr, done.stderr
    games = assert_consistent(path)  # the Result tags say what the results string says
    corrected = {int(g["GameNumber"]): g["Corrected"] for g in games if "Corrected" in g}
    assert sorted(corrected) == [1, 4, 7] and corrected[7].startswith("result set by hand, was ")
    crosstable = subprocess.run([sys.executable, "-m", "tmanager", "crosstable", str(path.with_suffix(".pgn")),
                                 "--format", "csv"], capture_output=True, text=True, check=True)
    points: dict[str, float] = {}
    for game in games:  # what the results string says, as the Result tags now say it
        white, black = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}[game["Result"]]
        points[game["White"]] = points.get(game["White"], 0.0) + white
        points[game["Black"]] = points.get(game["Black"], 0.0) + black
    rows = [line.split(",") for line in crosstable.stdout.splitlines()[1:4]]
    assert {row[1]: float(row[3]) for row in rows} == points


def test_a_tourney_ended_by_results_typed_in_by_hand_runs_its_after_tourney_once(tmp_path: Path) -> None:
    """The last games' results typed into the file by hand (an arbiter's adjudication, say): `run` found nothing
    to play, and after_tourney never ran, since only the record of a last game made it due."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=1, extra=hooks_extra(tmp_path))  # 6 games
    assert start_worker(path, "--games", "4").wait(timeout=300) == 0
    set_by_hand(path, {4: "=", 5: "="})
    done = run_to_the_end(path)  # its workers play nothing and run the hook
    assert done.returncode == 0 and (tmp_path / "after_tourney.txt").read_text() == "done\n", done.stderr
    assert sorted((tmp_path / "after_game.txt").read_text().split()) == ["0", "1", "2", "3"]  # no game, no hook
    again = run_to_the_end(path)
    assert again.returncode == 0 and "nothing to play" in again.stderr, again.stderr
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"


def test_a_pgn_cut_by_hand_is_refused_loudly_until_it_is_restored_or_its_games_replayed(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=4)
    assert start_worker(path, "--games", "12").wait(timeout=300) == 0
    pgn_path = path.with_suffix(".pgn")
    whole = pgn_path.read_bytes()
    pgn_path.write_bytes(whole[: len(whole) * 6 // 10])  # cut by hand in the middle of the tourney
    kept = {int(g["GameNumber"]) for g in pgn_games(pgn_path)[:-1]}  # the last one is cut in half
    missing = sorted(set(range(12)) - kept)
    cut = pgn_path.read_bytes()
    for command, status in (("status", 1), ("work", 2), ("run", 2)):
        done = subprocess.run([sys.executable, "-m", "tmanager", command, str(path)], capture_output=True,
                              text=True, timeout=120, check=False)
        errors = [line for line in done.stderr.splitlines() if line.startswith("tmanager:")]
        assert done.returncode == status and len(errors) == 1, (command, done.stderr)
        assert "recorded game(s) missing" in errors[0] and str(missing[0]) in errors[0], errors
        assert pgn_path.read_bytes() == cut, f"{command} wrote to the cut PGN"
    pgn_path.write_bytes(whole)  # put back from a backup: all is well again
    assert subprocess.run([sys.executable, "-m", "tmanager", "status", str(path)], capture_output=True,
                          check=False).returncode == 0
    pgn_path.write_bytes(cut)  # or the missing games played again
    set_by_hand(path, dict.fromkeys(missing, " "))
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 24


def test_a_pgn_replaced_by_a_longer_unrelated_one_is_refused_as_a_cut_one(tmp_path: Path) -> None:
    """The PGN replaced by hand by another file, longer than the games recorded left it: its size satisfied the
    mark, and the workers appended to it as if it held the tourney's games."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=4)
    assert start_worker(path, "--games", "4").wait(timeout=300) == 0
    pgn_path = path.with_suffix(".pgn")
    whole = pgn_path.read_bytes()
    club = b'[Event "club"]\n[White "a"]\n[Black "b"]\n[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n\n'
    other = club * (len(whole) // len(club) + 2)
    pgn_path.write_bytes(other)
    for command, status in (("status", 1), ("work", 2), ("run", 2)):
        done = run_cli(command, path)
        errors = [line for line in done.stderr.splitlines() if line.startswith("tmanager:")]
        assert done.returncode == status and len(errors) == 1, (command, done.stderr)
        assert "4 recorded game(s) missing (0, 1, 2, 3)" in errors[0] and "replaced" in errors[0], errors
        assert pgn_path.read_bytes() == other, f"{command} wrote to the other PGN"
    pgn_path.write_bytes(whole)  # put back: all is well again
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 24


def test_a_pgn_replaced_by_another_tourneys_of_as_many_games_is_refused(tmp_path: Path) -> None:
    """The fingerprint of the bytes before the mark tells the replacement, but the scan it leads to took any PGN
    with a current game of each finished game's number for this tourney's: another tourney's PGN of as many
    games passed, its mark moved onto it, and the workers appended to it. A game is now this tourney's only
    with its players and its result."""
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=4)
    assert start_worker(path, "--games", "4").wait(timeout=300) == 0
    (tmp_path / "other").mkdir()
    other = fast_tourney(tmp_path / "other" / "t.toml", players=3)
    other.write_text(other.read_text().replace('name = "R', 'name = "S'))
    assert start_worker(other, "--games", "4").wait(timeout=300) == 0
    pgn_path = path.with_suffix(".pgn")
    whole = pgn_path.read_bytes()
    # This tourney's games, the last one with another result (tag and movetext): as a run of the same engines.
    last_result = whole.rindex(b'[Result "')
    result = whole[last_result:].split(b'"')[1]
    changed = b"0-1" if result != b"0-1" else b"1-0"
    last_game = whole[last_result:].replace(b'"' + result + b'"', b'"' + changed + b'"', 1)
    rescored = whole[:last_result] + last_game.rstrip().removesuffix(result) + changed + b"\n\n"
    for replacement, missing in ((other.with_suffix(".pgn").read_bytes(), "4 recorded game(s) missing (0, 1, 2, 3)"),
                                 (rescored, "1 recorded game(s) missing (3)")):
        pgn_path.write_bytes(replacement)
        for command, status in (("status", 1), ("work", 2)):
            done = run_cli(command, path)
            errors = [line for line in done.stderr.splitlines() if line.startswith("tmanager:")]
            assert done.returncode == status and len(errors) == 1, (command, done.stderr)
            assert missing in errors[0], errors
            assert pgn_path.read_bytes() == replacement, f"{command} wrote to the other PGN"
    pgn_path.write_bytes(whole)  # put back: all is well again
    done = run_to_the_end(path)
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 24


def test_a_pgn_named_anew_by_edit_is_not_taken_for_a_cut_one(tmp_path: Path) -> None:
    path = fast_tourney(tmp_path / "t.toml", players=3, cycles=2)
    assert start_worker(path, "--games", "4").wait(timeout=300) == 0
    assert run_cli("edit", path, "--set", 'pgn="second.pgn"').returncode == 0
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    assert len(pgn_games(tmp_path / "second.pgn")) == 8
    assert run_cli("status", path).returncode == 0


def test_a_copy_pointed_at_a_new_pgn_says_its_games_are_elsewhere(tmp_path: Path) -> None:
    """A file copied with cp and given a new PGN said "4 played", silently, over a PGN that held none of them."""
    path = fast_tourney(tmp_path / "t.toml", players=2, cycles=3)
    assert start_worker(path, "--games", "4").wait(timeout=300) == 0
    copy = tmp_path / "copy.toml"
    copy.write_text(path.read_text().replace('[tourney]\n', '[tourney]\npgn = "copy.pgn"\n', 1))
    says = (f"tmanager: warning: {tmp_path / 'copy.pgn'}: holds none of the 4 game(s) the results say were played "
            "before its first game here: their games are in another PGN (a copy of another tourney's file? "
            "`tmanager clone` makes copies; set the results back to spaces to play the games again here)")  # fmt: skip
    done = run_cli("status", copy)
    assert done.returncode == 0 and done.stdout.startswith("fast: 4 played") and done.stderr.strip() == says
    assert run_cli("status", path).returncode == 0, "the original and its PGN are as they should be"
    done = run_cli("run", copy)  # the remaining games are played, said once
    assert done.returncode == 0 and done.stderr.count(says.removeprefix("tmanager: warning: ")) == 1, done.stderr
    assert len(pgn_games(tmp_path / "copy.pgn")) == 2
    # Said as long as it holds: the warning went with the first game recorded, the 4 results still not in its PGN.
    done = run_cli("status", copy)
    assert done.returncode == 0 and done.stderr.strip() == says
    set_by_hand(copy, dict.fromkeys(range(4), " "))  # as it says: played again here, and all is well
    assert run_cli("run", copy).returncode == 0
    done = run_cli("status", copy)
    assert done.returncode == 0 and done.stderr == "" and len(assert_consistent(copy)) == 6
    assert run_cli("status", path).stderr == "", "a tourney played here is told nothing"


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small file system needs root (CI runs as root)")
def test_a_full_disk_stops_run_with_one_line_however_many_workers_hit_it(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", "160k") as disk:
        path = fast_tourney(disk / "t.toml", players=4, cycles=30, max_moves=40)
        done = run_to_the_end(path, "--workers", "3", "--log", str(tmp_path / "w.log"))
        assert done.returncode == 2, done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("tmanager:")]
        assert len(errors) == 1 and "No space left on device" in errors[0], done.stderr
        assert "Traceback" not in done.stderr
        recorded_within_the_pgn(path)
        subprocess.run(["mount", "-o", "remount,size=8m", str(disk)], check=True)
        assert run_to_the_end(path, "--workers", "3").returncode == 0
        assert_consistent(path)


def test_hand_edits_and_odd_files_during_a_run_lose_and_double_nothing(tmp_path: Path) -> None:
    """While two workers play: two results set back by hand, the EPD file replaced by a FIFO for a while,
    a worker killed as it records. Every game is played and recorded once (the two replays once more,
    their first games superseded), and every hook runs once for each game played."""
    epd = tmp_path / "final.epd"
    path = fast_tourney(tmp_path / "t.toml", players=4, cycles=6,
                        extra=hooks_extra(tmp_path) + f'epd_out = "{epd.name}"\n')
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: recorded(path) >= 6, timeout=120)
    with files.lock(path):  # an editor's save, made while no worker writes (else it is a stale copy)
        replayed = [n for n, char in enumerate(store.read(path).results) if char in "+-="][1:3]
        set_by_hand(path, dict.fromkeys(replayed, " "))
    aside = epd.rename(tmp_path / "aside.epd")
    os.mkfifo(epd)  # the games ending now cannot be recorded: their workers keep them, and wait
    before = recorded(path)
    time.sleep(3)
    assert recorded(path) <= before + 1 and run.poll() is None
    epd.unlink()
    aside.rename(epd)
    assert kill_at_random(path, run, random.Random(5), kills=1) == 1
    assert run.wait(timeout=600) == 0, run.stderr.read() if run.stderr else ""
    games = assert_consistent(path)
    assert len(games) == 72
    superseded = [int(g["GameNumber"]) for g in pgn_games(path.with_suffix(".pgn")) if "Superseded" in g]
    assert sorted(superseded) == replayed
    counted = collections.Counter((tmp_path / "after_game.txt").read_text().split())
    assert counted == collections.Counter({str(n): 1 + superseded.count(n) for n in range(72)})
    assert 73 <= len(epd.read_text().splitlines()) <= 74  # a game recovered from the PGN may lack its line
