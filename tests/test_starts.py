"""The host-wide gate of engine starts, with real processes: a game's clocks wait while another process
starts engines, not longer than the bound (a longer one for games that start together), and not at all
for a process that was killed; games that start together spread their first moves over a move's time."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_game_runner import spec
from tmanager.core.timecontrol import TimeControl
from tmanager.tourney import play
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.play import EnginePool, GameSpec, play_game
from tmanager.tourney.starts import HostStarts


def starting_elsewhere(gate: Path) -> subprocess.Popen[str]:
    """Another process whose engines are starting until it reads a line (or dies)."""
    code = ("import sys; from pathlib import Path; from tmanager.tourney.starts import HostStarts\n"
            f"starts = HostStarts(Path({str(gate)!r})); starts.begin(); print('starting', flush=True)\n"
            "sys.stdin.readline(); starts.end(); print('started', flush=True); sys.stdin.readline()\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "starting\n"
    return process


def test_a_game_waits_until_the_other_processes_engines_have_started(tmp_path: Path) -> None:
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)
    assert other.stdin is not None and other.stdout is not None

    async def main() -> None:
        pool = EnginePool(host_starts=HostStarts(gate))
        try:
            waiting = asyncio.create_task(pool.quiet())
            await asyncio.sleep(0.5)
            assert not waiting.done(), "the clocks started while another process's engines were starting"
            other.stdin.write("\n")  # type: ignore[union-attr]
            other.stdin.flush()  # type: ignore[union-attr]
            assert await asyncio.to_thread(other.stdout.readline) == "started\n"  # type: ignore[union-attr]
            await asyncio.wait_for(waiting, timeout=10)
        finally:
            await pool.close()

    try:
        asyncio.run(main())
    finally:
        other.kill()
        other.wait()


def test_the_wait_is_bounded_and_a_killed_process_holds_nobody_up(tmp_path: Path) -> None:
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)  # engines restarted for every game: it may never be quiet

    async def main() -> None:
        starts = HostStarts(gate)
        try:
            assert await starts.quiet(within=0.3) is False
            other.send_signal(signal.SIGKILL)
            await asyncio.to_thread(other.wait)
            assert await asyncio.wait_for(starts.quiet(within=30), timeout=10) is True
        finally:
            starts.close()

    asyncio.run(main())


def test_without_a_usable_file_there_is_no_gate(tmp_path: Path) -> None:
    starts = HostStarts(tmp_path / "no-such-directory" / "starts")
    starts.begin()
    assert asyncio.run(starts.quiet(within=0)) is True
    starts.end()
    starts.close()


def one_move_game(*, move_time: float, starts_together: bool) -> GameSpec:
    limits = TimeControl(move_time=move_time)
    engine = spec("greedy-uci")
    return GameSpec(white=engine, black=engine, white_limits=limits, black_limits=limits,
                    adjudication=Adjudication(max_moves=1), starts_together=starts_together)


def test_games_that_start_together_wait_out_a_storm_longer_than_the_usual_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker's first games start with the other workers' on the host, whose engine starts may take
    # longer than the bound that keeps later games from waiting for good on engines restarted every game.
    monkeypatch.setattr(play, "WAIT_SECONDS", 0.3)
    gate = tmp_path / "starts"
    other = starting_elsewhere(gate)
    assert other.stdin is not None and other.stdout is not None

    async def main() -> None:
        pool = EnginePool(host_starts=HostStarts(gate))
        try:
            games = {together: asyncio.create_task(play_game(one_move_game(move_time=0.05, starts_together=together),
                                                             pool))
                     for together in (False, True)}
            await asyncio.wait_for(games[False], timeout=30)  # it went on after its 0.3 s
            assert not games[True].done(), "a game that starts together did not wait for the storm to end"
            other.stdin.write("\n")  # type: ignore[union-attr]
            other.stdin.flush()  # type: ignore[union-attr]
            assert await asyncio.to_thread(other.stdout.readline) == "started\n"  # type: ignore[union-attr]
            record = await asyncio.wait_for(games[True], timeout=30)
            assert record.plies == 2 and record.termination == "adjudication"
        finally:
            await pool.close()

    try:
        asyncio.run(main())
    finally:
        other.kill()
        other.wait()


class _Draws:
    """Stands in for :mod:`random` in the game runner: draws nothing, notes the ranges asked for."""

    def __init__(self) -> None:
        self.ranges: list[tuple[float, float]] = []

    def uniform(self, low: float, high: float) -> float:
        self.ranges.append((low, high))
        return low


@pytest.mark.parametrize(("control", "spread"), [
    (TimeControl(move_time=0.25), 0.25),
    (TimeControl(base=10, increment=0.1), 10 / 40 + 0.1),  # a fortieth of the clock, and the increment
    (TimeControl(base=60, moves=40), play.MOST_STAGGER_SECONDS),  # 1.5 s a move, but a delay of at most 1 s
    (TimeControl(nodes=1), 0.0),  # node and depth limits: moves take what they take
])
def test_games_that_start_together_spread_their_first_moves_over_a_moves_time(
    control: TimeControl, spread: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    draws = _Draws()
    monkeypatch.setattr(play, "random", draws)
    engine = spec("greedy-uci")
    for together in (False, True):
        game = GameSpec(white=engine, black=engine, white_limits=control, black_limits=control,
                        adjudication=Adjudication(max_moves=1), starts_together=together)
        assert asyncio.run(play_game(game)).plies == 2
    assert draws.ranges == [(0.0, pytest.approx(spread))]  # the game that starts together only
