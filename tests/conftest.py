"""Shared fixtures: running the real `tmanager` command and writing tourney files."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest

from tmanager.tourney import eventloop

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str | Path, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run `python -m tmanager ARGS` as a real process."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tmanager", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


T = TypeVar("T")


@pytest.fixture(params=["uvloop", "asyncio"])
def each_event_loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once on each event loop a worker may play on (``tmanager.tourney.eventloop``),
    in this process (:func:`run_async`) and in the workers it starts."""
    if request.param == "uvloop" and importlib.util.find_spec("uvloop") is None:
        pytest.skip("uvloop is not installed (pip install uvloop)")
    monkeypatch.setenv(eventloop.VARIABLE, request.param)
    return str(request.param)


@pytest.fixture
def syzygy() -> str:
    """The directory of python-chess's small Syzygy tables, which tools/test.sh provides; the test is skipped
    without them."""
    path = os.environ.get("TMANAGER_TEST_SYZYGY", "")
    if not path:
        pytest.skip("TMANAGER_TEST_SYZYGY not set: tools/test.sh provides the tables")
    return path


def children_running(mark: str) -> set[int]:
    """This process's descendants whose command line holds ``mark``, those that have exited (a zombie left
    by an earlier test, which psutil cannot read) left out."""
    running = set()
    for child in psutil.Process().children(recursive=True):
        try:
            if mark in " ".join(child.cmdline()):
                running.add(child.pid)
        except psutil.Error:
            continue
    return running


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the event loop a worker would use here."""
    return eventloop.run(main)


@pytest.fixture
def write_tourney(tmp_path: Path) -> Callable[[str], Path]:
    """Write tourney-file text into a fresh directory and return its path."""

    def write(text: str, name: str = "t.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


def pgn_games(path: Path) -> list[dict[str, str]]:
    """Every game's tags, read with python-chess (an independent reader)."""
    import chess.pgn

    games: list[dict[str, str]] = []
    if not path.exists():
        return games
    with open(path, encoding="utf-8") as f:
        while (headers := chess.pgn.read_headers(f)) is not None:
            games.append(dict(headers))
    return games


def assert_consistent(tourney_path: Path, *, complete: bool = True) -> list[dict[str, str]]:
    """PGN and results string agree: one current PGN game per finished game, with the scheduled
    pairing, colours and the result of its results character; nothing in progress."""
    from tmanager.core.results import Result
    from tmanager.tourney import store

    tourney = store.read(tourney_path)
    schedule = tourney.schedule()
    games = [g for g in pgn_games(tourney.pgn_path) if "Superseded" not in g]
    numbers = [int(g["GameNumber"]) for g in games]
    assert len(numbers) == len(set(numbers)), f"a game is in the PGN twice: {sorted(numbers)}"
    finished = {n for n, c in enumerate(tourney.results) if c in "+-="}
    assert set(numbers) == finished
    if complete:
        assert len(tourney.results) == schedule.total_games and finished == set(range(schedule.total_games))
        assert tourney.claims == {}
    for g in games:
        number = int(g["GameNumber"])
        scheduled = schedule.game(number)
        assert scheduled is not None
        assert g["White"] == tourney.participants[scheduled.white].name
        assert g["Black"] == tourney.participants[scheduled.black].name
        assert g["Result"] == Result.from_xboard(tourney.results[number]).pgn
        assert g["Round"] == str(scheduled.pgn_round)
    return games


def assert_no_faults(tourney_path: Path) -> None:
    """No engine crashed, forfeited, stalled or broke a rule. An overstep of the clock within the margin is not a
    fault: on a loaded machine (CI runs tests side by side on two cores) the time between writing ``go`` and reading
    ``bestmove`` includes waits for a CPU, so even Stockfish is seen a few ms over; past the margin it would be a
    time forfeit, counted here."""
    from tmanager.tourney import store
    from tmanager.tourney.model import OVERSTEP

    tourney = store.read(tourney_path)
    counted = {engine: {kind: n for kind, n in counts.items() if kind != OVERSTEP}
               for engine, counts in tourney.faults.items()}
    assert {engine: kinds for engine, kinds in counted.items() if kinds} == {}, tourney.faults
    margin_ms = round(tourney.settings.time_margin * 1000)
    assert all(counts.get(OVERSTEP, 0) <= margin_ms for counts in tourney.faults.values()), tourney.faults
