"""What a game's clocks wait for before they start, with real processes and threads: the host-wide gate of
engine starts (while another process starts engines, not longer than the bound, and not at all for a
process that was killed), and the worker's own bookkeeping."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_async
from tests.integration.test_game_runner import seeded, spec
from tmanager.core.timecontrol import TimeControl
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.bookkeeping import BookkeepingThread
from tmanager.tourney.engine import RELEASE_SPREAD, RELEASE_STEP, SETTLE_SECONDS, EnginePool
from tmanager.tourney.play import GameSpec, play_game
from tmanager.tourney.starts import HostStarts, Wait

pytestmark = pytest.mark.usefixtures("each_event_loop")


def starting_elsewhere(gate: Path) -> subprocess.Popen[str]:
    """Another process whose engines are starting until it reads a line (or dies)."""
    code = ("import sys; from pathlib import Path; from tmanager.tourney.starts import HostStarts\n"
            f"starts = HostStarts(Path({str(gate)!r})); starts.begin(); print('starting', flush=True)\n"
            "sys.stdin.readline(); starts.end(); print('started', flush=True); sys.stdin.readline()\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "starting\n"
    return process


@pytest.fixture
def elsewhere(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """The gate's file, and another process starting engines through it (see :func:`starting_elsewhere`)."""
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)
    yield gate, other
    other.kill()
    other.wait()


def end_its_starts(other: subprocess.Popen[str]) -> None:
    assert other.stdin is not None
    other.stdin.write("\n")
    other.stdin.flush()


def test_a_game_waits_until_the_other_processes_engines_have_started(
    elsewhere: tuple[Path, subprocess.Popen[str]],
) -> None:
    gate, other = elsewhere

    async def main() -> None:
        pool = EnginePool(host_starts=HostStarts(gate))
        try:
            waiting = asyncio.create_task(pool.quiet())
            await asyncio.sleep(0.5)
            assert not waiting.done(), "the clocks started while another process's engines were starting"
            end_its_starts(other)
            assert await asyncio.to_thread(other.stdout.readline) == "started\n"  # type: ignore[union-attr]
            await asyncio.wait_for(waiting, timeout=10)
        finally:
            await pool.close()

    run_async(main())


@pytest.mark.parametrize(("tc", "waits"), [("inf", False), ("10+0.1", True)], ids=["nodes alone", "a clock"])
def test_only_a_game_with_clocks_waits_for_the_engines_starting_elsewhere(
    elsewhere: tuple[Path, subprocess.Popen[str]], tc: str, waits: bool
) -> None:
    gate, other = elsewhere
    engine = seeded(spec("greedy-uci", "Greedy"), 1)
    limits = TimeControl.parse(tc, nodes=1000)
    game = GameSpec(white=engine, black=dataclasses.replace(engine, name="Other"), white_limits=limits,
                    black_limits=limits, adjudication=Adjudication(max_moves=5))

    async def main() -> None:
        pool = EnginePool(host_starts=HostStarts(gate))
        try:
            playing = asyncio.create_task(play_game(game, pool))
            done, _ = await asyncio.wait([playing], timeout=3)
            assert bool(done) is not waits
            end_its_starts(other)
            record = await asyncio.wait_for(playing, timeout=10)
            assert record.plies == 10
        finally:
            await pool.close()

    run_async(main())


def test_the_wait_is_bounded_and_a_killed_process_holds_nobody_up(tmp_path: Path) -> None:
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)  # engines restarted for every game: it may never be quiet

    async def main() -> None:
        starts = HostStarts(gate)
        try:
            assert await starts.quiet(within=0.3) is Wait.TIMED_OUT
            other.send_signal(signal.SIGKILL)
            await asyncio.to_thread(other.wait)
            assert await asyncio.wait_for(starts.quiet(within=30), timeout=10) is Wait.NONE  # its lock died with it
        finally:
            starts.close()

    run_async(main())


def test_games_that_wait_together_each_keep_their_own_bound(tmp_path: Path) -> None:
    # They share one probe: the one that gives up first must not stop it for the others.
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)

    async def main() -> None:
        starts = HostStarts(gate)
        try:
            patient = asyncio.create_task(starts.quiet(within=30))
            assert await starts.quiet(within=0.2) is Wait.TIMED_OUT
            await asyncio.sleep(0.1)
            assert not patient.done()
            other.send_signal(signal.SIGKILL)
            await asyncio.to_thread(other.wait)
            assert await asyncio.wait_for(patient, timeout=10) is Wait.ENDED
        finally:
            starts.close()

    run_async(main())


@pytest.mark.timing
def test_the_first_games_wait_out_a_start_storm_and_later_ones_wait_less(tmp_path: Path) -> None:
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)  # it never ends its starts

    async def main() -> None:
        starts = HostStarts(gate, first_wait=2.0, wait=0.3)
        try:
            began = time.monotonic()
            first = [asyncio.create_task(starts.quiet()) for _ in range(3)]  # a process's first wave
            await asyncio.sleep(1.0)
            assert not any(task.done() for task in first), "the first games waited only the later bound"
            assert await asyncio.gather(*first) == [Wait.TIMED_OUT] * 3
            assert time.monotonic() - began > 1.9  # uvloop may fire a timer up to a millisecond early
            began = time.monotonic()
            assert await starts.quiet() is Wait.TIMED_OUT
            assert time.monotonic() - began < 1.5, "a later game waited the first games' bound"
        finally:
            starts.close()

    run_async(main())
    other.kill()
    other.wait()


@pytest.mark.timing
def test_games_released_together_start_their_clocks_spread_out_and_others_at_once(
    elsewhere: tuple[Path, subprocess.Popen[str]],
) -> None:
    gate, other = elsewhere

    async def main() -> None:
        pool = EnginePool(host_starts=HostStarts(gate))
        released: list[float] = []

        async def game() -> None:
            await pool.quiet()
            released.append(time.monotonic())

        try:
            held = [asyncio.create_task(game()) for _ in range(32)]
            await asyncio.sleep(0.3)
            assert not released
            end_its_starts(other)
            await asyncio.gather(*held)
            assert 0.1 < max(released) - min(released) < RELEASE_SPREAD + 0.1, "released in lockstep"
            began = time.monotonic()
            for _ in range(10):  # nothing holds these back: no spread
                await pool.quiet()
            assert time.monotonic() - began < RELEASE_SPREAD
        finally:
            await pool.close()

    run_async(main())


def test_without_a_usable_file_there_is_no_gate(tmp_path: Path) -> None:
    starts = HostStarts(tmp_path / "no-such-directory" / "starts")
    starts.begin()
    assert run_async(starts.quiet(within=0)) is Wait.NONE
    starts.end()
    starts.close()


@pytest.mark.timing
def test_a_game_waits_for_its_workers_bookkeeping_within_a_bound(tmp_path: Path) -> None:
    async def main() -> None:
        settled = asyncio.Event()  # the bookkeeping thread has work
        pool = EnginePool(host_starts=HostStarts(tmp_path / "starts"), settled=settled)
        try:
            waiting = asyncio.create_task(pool.quiet())
            await asyncio.sleep(0.3)
            assert not waiting.done(), "the clocks started while the worker recorded and claimed games"
            began = time.monotonic()
            settled.set()
            await asyncio.wait_for(waiting, timeout=5)
            assert time.monotonic() - began < RELEASE_STEP + 0.1, "a game held back alone waited a wave's spread"
            settled.clear()  # bookkeeping that does not end (a lock held elsewhere)
            began = time.monotonic()
            await asyncio.wait_for(pool.quiet(), timeout=10)
            assert SETTLE_SECONDS - 0.01 < time.monotonic() - began < SETTLE_SECONDS + 0.5
        finally:
            await pool.close()

    run_async(main())


def test_the_bookkeeping_thread_is_idle_only_once_all_its_work_is_done() -> None:
    async def main() -> None:
        idle = asyncio.Event()
        idle.set()
        thread = BookkeepingThread(idle)
        loop = asyncio.get_running_loop()
        gates = threading.Event(), threading.Event()
        try:
            first, second = (loop.run_in_executor(thread, gate.wait, 10) for gate in gates)
            assert not idle.is_set()
            gates[0].set()
            await first
            await asyncio.sleep(0.05)
            assert not idle.is_set(), "idle with work still queued"
            gates[1].set()
            await second
            await asyncio.wait_for(idle.wait(), timeout=5)
            assert await loop.run_in_executor(thread, sum, [1, 2]) == 3  # it takes more work afterwards
            await asyncio.wait_for(idle.wait(), timeout=5)
        finally:
            thread.shutdown()

    run_async(main())
