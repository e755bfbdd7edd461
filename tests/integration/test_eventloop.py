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
