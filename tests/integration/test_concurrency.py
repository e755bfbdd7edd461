"""Several games at once in one worker process (lanes), with real processes: nothing lost, nothing played
twice, hooks once, kill -9 and SIGTERM of a process of several lanes, how `run --concurrency` splits."""

from __future__ import annotations

import asyncio
import functools
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, assert_consistent, children_running, run_async, run_cli
from tests.integration.test_workers import claims_of, engines_in, hooked_tourney, slow_tourney, start_worker, wait_for
from tmanager.tourney import store
from tmanager.tourney.engine import EnginePool
from tmanager.tourney.engines import EngineSpec, Protocol
from tmanager.tourney.processes import split, trimmed

pytestmark = pytest.mark.usefixtures("each_event_loop")


def most_at_once(log: str) -> int:
    """The most games one worker's log shows in progress at the same time."""
    playing: set[int] = set()
    most = 0
    for match in re.finditer(r"INFO game (\d+): .*?(started|\(.*\))", log):
        if match[2] == "started":
            playing.add(int(match[1]))
            most = max(most, len(playing))
        else:
            playing.discard(int(match[1]))
    return most


def test_lanes_of_one_process_play_every_game_once_and_every_hook_once(tmp_path: Path) -> None:
    path = hooked_tourney(tmp_path / "t.toml", delay=0.02)
    worker = start_worker(path, "--concurrency", "4")
    assert worker.wait(timeout=300) == 0, worker.stderr.read() if worker.stderr else ""
    assert len(assert_consistent(path)) == 24
    hooked = sorted(int(line.split()[0]) for line in (tmp_path / "after_game.txt").read_text().splitlines())
    assert hooked == list(range(24))
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"
    log = path.with_suffix(".log").read_text()
    assert "--concurrency: playing 4 games at once" in log
    assert len(set(re.findall(r" (\d+) INFO game \d+: .* started", log))) == 1  # one process
    assert most_at_once(log) == 4


def three_lanes_playing(path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """A worker of three lanes on tourney ``path`` (games long enough), once it holds three games; and those."""
    slow_tourney(path, players=4, games=2, delay=0.05, max_moves=40)
    worker = start_worker(path, "--concurrency", "3")
    wait_for(lambda: len(claims_of(path, worker.pid)) == 3)
    return worker, claims_of(path, worker.pid)


def test_kill_9_of_a_process_of_several_lanes_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "k.toml"
    worker, killed = three_lanes_playing(path)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    wait_for(lambda: not engines_in(tmp_path), timeout=10)  # all its engines died with it
    assert run_cli("status", path).stdout.count("stale: worker gone") == 3
    done = run_cli("run", path, "--concurrency", "2")
    assert done.returncode == 0, done.stderr
    assert_consistent(path)
    log = path.with_suffix(".log").read_text()
    for game in killed:
        assert f"game {game}: its worker is gone; the game will be replayed" in log


def test_sigterm_stops_every_lane_and_gives_every_game_back(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    worker, games = three_lanes_playing(path)
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=20) == 130
    tourney = store.read(path)
    assert "*" not in tourney.results and tourney.claims == {}
    assert all(tourney.result(game) == " " for game in games)
    assert not engines_in(tmp_path)
    log = path.with_suffix(".log").read_text()
    for game in games:
        assert f"game {game} released unplayed" in log
    assert_consistent(path, complete=False)


def test_work_games_counts_the_games_of_all_lanes(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "g.toml", players=4, games=2, delay=0.01)
    done = run_cli("work", path, "--concurrency", "3", "--games", "4", "-q")
    assert done.returncode == 0 and done.stdout.startswith("4 game(s) played"), done.stdout + done.stderr
    assert store.read(path).finished_count == 4


@pytest.mark.parametrize(
    ("workers", "concurrency", "cores", "lanes"),
    [
        (None, None, 8, [1]),
        (3, None, 8, [1, 1, 1]),
        (2, 16, 8, [16, 16]),
        (None, 5, 2, [3, 2]),
        (None, 3, 8, [1, 1, 1]),
        (None, 256, 64, [4] * 64),
        (None, 100, 64, [2] * 36 + [1] * 28),
        (None, 256, 2, [32] * 8),  # at most LANES_PER_PROCESS games a process
        (None, 70, 2, [24, 23, 23]),
    ],
)
def test_split_of_workers_and_concurrency(
    workers: int | None, concurrency: int | None, cores: int, lanes: list[int]
) -> None:
    assert split(workers=workers, concurrency=concurrency, cores=cores) == lanes


def test_run_concurrency_alone_starts_processes_of_the_documented_split(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "c.toml", players=4, games=2, delay=0.01)
    run = subprocess.run([sys.executable, "-m", "tmanager", "run", str(path), "--concurrency", "3"],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert_consistent(path)
    log = path.with_suffix(".log").read_text()
    lanes = sorted(int(k) for k in re.findall(r" \d+ INFO --concurrency: playing (\d+) games? at once", log))
    assert lanes == sorted(split(workers=None, concurrency=3))


@pytest.mark.parametrize(
    ("lanes", "games", "kept"),
    [([1] * 1024, 6, [1] * 6), ([16, 16], 20, [16, 4]), ([4, 4], 8, [4, 4]), ([3, 2], 0, [1]), ([1, 1], 1, [1])],
)
def test_lanes_beyond_the_games_left_are_not_started(lanes: list[int], games: int, kept: list[int]) -> None:
    assert trimmed(lanes, games) == kept


def test_run_starts_no_more_games_at_once_than_are_left(tmp_path: Path) -> None:
    """`run --workers 1024` on a tourney of 6 games started 1,024 processes, 1,018 of them to find nothing."""
    path = slow_tourney(tmp_path / "few.toml", players=2, games=2)
    done = run_cli("run", path, "--workers", "3", "--concurrency", "4")
    assert done.returncode == 0 and "tmanager: note: 2 game(s) left: 2 at once, not 12\n" in done.stderr, done.stderr
    assert_consistent(path)
    log = path.with_suffix(".log").read_text()
    assert re.findall(r" INFO --concurrency: playing (\d+) games? at once", log) == ["2"], log


def test_bad_concurrency_is_one_line_and_status_2(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "b.toml", players=2)
    for command in (("work", path, "--concurrency", "0"), ("run", path, "--concurrency", "0")):
        done = run_cli(*command)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--concurrency" in done.stderr, done.stderr
    assert not store.read(path).results.strip()


SLEEPER = ROOT / "engines" / "sleeper.py"


@pytest.mark.timing
def test_handshake_timeout_runs_from_the_start_of_each_engine_not_from_its_turn() -> None:
    # Four engines that take 0.5 s each to start, one start at a time: the last waits 1.5 s for
    # its turn, longer than its timeout, and must not be failed for that.
    spec = EngineSpec(name="slow", command=(sys.executable, "-S", "-I", str(SLEEPER), "--start-delay", "0.5"),
                      protocol=Protocol.UCI, handshake_timeout=1.5)

    async def start_four() -> int:
        pool = EnginePool(start_limit=1)
        engines = await asyncio.gather(*(pool.acquire(spec) for _ in range(4)))
        for engine in engines:
            await pool.release(engine, healthy=True)
        # Every game got a process of its own, and all are kept: none failed its handshake while it waited.
        kept = children_running("--start-delay")
        await pool.close()
        return len(kept)

    assert run_async(start_four()) == 4


@pytest.mark.timing
def test_a_healthy_engine_gets_its_handshake_timeout_to_quit_a_broken_one_half_a_second() -> None:
    # An engine that takes 1.5 s to quit (it saves what it learnt): given its time when it is healthy,
    # it exits on its own; found broken, it is killed after BROKEN_ENGINE_QUIT, not 1.5 s later.
    spec = EngineSpec(name="slow-quit", command=(sys.executable, "-S", "-I", str(SLEEPER), "--quit-delay", "1.5"),
                      protocol=Protocol.UCI, handshake_timeout=5)

    async def quit_one(*, healthy: bool) -> tuple[int | None, float]:
        pool = EnginePool()
        engine = await pool.acquire(spec)
        started = time.monotonic()
        await engine.close(healthy=healthy)
        took = time.monotonic() - started
        await pool.close()
        return engine.transport.get_returncode(), took

    assert run_async(quit_one(healthy=True))[0] == 0
    returncode, took = run_async(quit_one(healthy=False))
    assert returncode == -signal.SIGKILL
    assert took < 1.5


def test_engines_quitting_at_the_end_of_a_worker_write_what_they_write_as_they_quit(tmp_path: Path) -> None:
    # Each sleeper writes its moves' log at each new game and as it quits, 1 s after `quit`: a worker
    # that killed its engines half a second after `quit` lost the log of each engine's last game.
    logs = tmp_path / "logs"
    logs.mkdir()
    participants = "".join(
        f'\n[[participants]]\nname = "{name}"\ncmd = "{sys.executable}"\n'
        f'args = ["-S", "-I", "{SLEEPER}", "--log", "{logs}", "--name", "{name}", "--quit-delay", "1"]\n'
        f'protocol = "uci"\n'
        for name in ("A", "B")
    )
    path = tmp_path / "quit.toml"
    path.write_text(f'[tourney]\nname = "quit"\ngames_per_pairing = 2\nst = 0.01\ntime_margin = 5\n'
                    f"[adjudication]\nmax_moves = 3\n{participants}")
    done = run_cli("work", path, "-q")
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 2
    moves = [line.split() for log in logs.glob("*.log") for line in log.read_text().splitlines()]
    assert sorted((name, ply) for name, _, ply, _, _ in moves) == sorted(
        [("A", str(ply)) for ply in (0, 2, 4, 1, 3, 5)] + [("B", str(ply)) for ply in (1, 3, 5, 0, 2, 4)]
    )


def test_a_start_storm_of_32_games_has_no_handshake_fault(tmp_path: Path) -> None:
    participants = "".join(
        f'\n[[participants]]\nname = "S{i}"\ncmd = "{sys.executable} -S -I {SLEEPER}"\nprotocol = "uci"\n'
        for i in range(8)
    )
    path = tmp_path / "storm.toml"
    path.write_text(f'[tourney]\nname = "storm"\nst = 0.01\ntime_margin = 5\nhandshake_timeout = 5\nrestart = true\n'
                    f"[adjudication]\nmax_moves = 3\n{participants}")
    done = run_cli("work", path, "--concurrency", "32", "-q")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == 56
    assert all(g["Termination"] == "adjudication" for g in games), {g["Termination"] for g in games}
    faults = store.read(path).faults  # no fault at all (a time margin of 5 s: the machine may be loaded)
    assert all(set(counts) <= {"worst overstep ms"} for counts in faults.values()), faults


def test_waiting_lanes_take_turns_and_a_lane_that_found_a_game_passes_the_turn_on(tmp_path: Path) -> None:
    from tmanager.tourney.lanes import WaitingLanes

    async def main() -> None:
        waiting = WaitingLanes(functools.partial(store.stamp, tmp_path / "t.toml"))
        seen = waiting.stamp()
        lanes = [asyncio.create_task(waiting.turn(seen)) for _ in range(3)]
        done, _ = await asyncio.wait(lanes, return_when=asyncio.FIRST_COMPLETED)
        assert done == {lanes[0]}  # one claim a tick, by the lane that has waited longest
        waiting.pass_on()  # its claim found a game: the next lane claims at once, not at the next tick
        await asyncio.sleep(0)
        assert lanes[1].done() and not lanes[2].done()
        later = asyncio.create_task(waiting.turn(seen))  # a lane that comes to wait now waits behind lanes[2]
        await asyncio.wait([lanes[2], later], return_when=asyncio.FIRST_COMPLETED)
        assert lanes[2].done() and not later.done()
        waiting.pass_on()
        await asyncio.sleep(0)
        assert later.done()

    run_async(asyncio.wait_for(main(), timeout=10))


@pytest.mark.timing
def test_a_waiting_lane_claims_again_as_soon_as_the_tourney_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tmanager.tourney import lanes

    poll = 2.0  # long, so that "at once" and "at the next tick" cannot be confused on a loaded machine
    monkeypatch.setattr(lanes, "POLL_SECONDS", poll)
    path = tmp_path / "t.toml"
    path.write_text("")

    def change() -> None:  # what another worker's transaction does: a line appended to the journal
        with store.journal_path(path).open("a") as journal:
            journal.write("{}\n")

    async def waited(waiting: lanes.WaitingLanes, since: object, *, then: Callable[[], object] | None = None) -> float:
        began = time.monotonic()
        turn = asyncio.create_task(waiting.turn(since))
        if then is not None:
            await asyncio.sleep(0.1)
            then()
        await turn
        return time.monotonic() - began

    async def main() -> None:
        waiting = lanes.WaitingLanes(functools.partial(store.stamp, path))
        assert await waited(waiting, waiting.stamp()) >= poll  # nothing changed: the next tick
        assert await waited(waiting, waiting.stamp(), then=change) < poll / 2
        seen = waiting.stamp()
        change()  # while the lane's claim ran: it may have read the file before the change
        assert await waited(waiting, seen) < poll / 2
        hand_edit = functools.partial(path.write_text, "[tourney]\n")
        assert await waited(waiting, waiting.stamp(), then=hand_edit) < poll / 2

    run_async(asyncio.wait_for(main(), timeout=30))
