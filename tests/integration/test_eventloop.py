"""The workers' event loop: uvloop's where it is installed, asyncio's otherwise or when asked, an error
in one line when the choice cannot be had. Real workers playing real games."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import assert_consistent
from tests.integration.test_bad_input import snapshot
from tests.integration.test_workers import slow_tourney
from tmanager.tourney.eventloop import VARIABLE


def without_uvloop(directory: Path, env: dict[str, str]) -> dict[str, str]:
    """``env``, where Python cannot import uvloop, as where it is not installed."""
    directory.mkdir()
    (directory / "uvloop.py").write_text('raise ImportError("No module named \'uvloop\'")\n')
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(directory), env.get("PYTHONPATH")]))}


def tmanager(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tmanager", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)


def loops_in_log(path: Path) -> set[str]:
    log = path.with_suffix(".log").read_text()
    return {line.rsplit(" ", 1)[1] for line in log.splitlines() if " INFO event loop: " in line}


def test_a_worker_plays_on_the_event_loop_the_environment_names(tmp_path: Path, each_event_loop: str) -> None:
    path = slow_tourney(tmp_path / "t.toml", players=2, max_moves=6)
    done = tmanager("run", path, "--workers", "2", "--log", path.with_suffix(".log"), env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert len(assert_consistent(path)) == 2
    assert loops_in_log(path) == {each_event_loop}


def test_by_default_a_worker_plays_on_uvloop_where_it_is_installed_and_on_asyncio_elsewhere(tmp_path: Path) -> None:
    pytest.importorskip("uvloop", reason="uvloop is not installed (pip install uvloop)")
    unset = {k: v for k, v in os.environ.items() if k != VARIABLE}
    for env, loop in [(unset, "uvloop"), (without_uvloop(tmp_path / "shadow", unset), "asyncio")]:
        path = slow_tourney(tmp_path / f"{loop}.toml", players=2, max_moves=6)
        done = tmanager("work", path, "--log", path.with_suffix(".log"), env=env)
        assert done.returncode == 0, done.stderr
        assert len(assert_consistent(path)) == 2
        assert loops_in_log(path) == {loop}


@pytest.mark.parametrize("command", ["run", "work"])
@pytest.mark.parametrize(
    ("value", "says", "uvloop"),
    [("libev", "must be auto, uvloop or asyncio, not 'libev'", True), ("uvloop", "uvloop is not installed", False)],
    ids=["unknown", "not installed"],
)
def test_an_event_loop_that_cannot_be_had_is_one_line_and_changes_nothing(
    tmp_path: Path, command: str, value: str, says: str, uvloop: bool
) -> None:
    env = {**os.environ, VARIABLE: value}
    if not uvloop:
        env = without_uvloop(tmp_path / "shadow", env)
    games = tmp_path / "games"
    games.mkdir()
    path = slow_tourney(games / "t.toml", players=2, max_moves=6)
    before = snapshot(games)
    done = tmanager(command, path, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[:2000]
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[:2000]
    assert lines[0].startswith(f"tmanager: {VARIABLE}: ") and says in lines[0], lines[0]
    assert snapshot(games) == before


STOPPED_AS_THE_LOOP_STARTS = """
import asyncio, os, signal
from tmanager.tourney import eventloop

def interrupt(signum, frame):  # the command line's handler
    raise KeyboardInterrupt

signal.signal(signal.SIGTERM, interrupt)
make = eventloop.factory()

def stopped_as_made():
    os.kill(os.getpid(), signal.SIGTERM)
    return make()

stops = []

async def main():
    while not stops:
        await asyncio.sleep(0.01)
    return "stopped"

print(eventloop.run(main(), loop_factory=stopped_as_made, on_stop=lambda: stops.append(1)), len(stops))
print(signal.getsignal(signal.SIGTERM) is interrupt)
"""


def test_a_stop_as_the_loop_is_made_and_starts_reaches_the_loops_handler(each_event_loop: str) -> None:
    """A SIGTERM that came as a worker's loop was made or started raised the command line's KeyboardInterrupt
    inside the loop's own machinery: in asyncio's constructor a traceback, in uvloop's start (as it set up its
    signals) a loop marked as running that could not be closed (``RuntimeError: Cannot close a running event
    loop``), about one start in thirty of `run --workers 6` stopped as it forked. Held back until the loop's
    handler is in place, it reaches that handler, once; and once the loop is closed the handler of before is back
    (the loop's closing left the system's default, which a stop as the worker ended killed it by)."""
    done = subprocess.run([sys.executable, "-c", STOPPED_AS_THE_LOOP_STARTS], capture_output=True, text=True,
                          timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "stopped 1\nTrue\n", "")
