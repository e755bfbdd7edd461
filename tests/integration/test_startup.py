"""Start-up: each command imports only what it uses. Asserted on the modules a real process imports
(``python -X importtime``), never on time."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import run_cli

#: Libraries that take a large part of a second to import and that the commands below never need.
HEAVY = {"numpy", "networkx", "starlette", "uvicorn", "dask", "distributed"}


def imported(*args: str | Path, cwd: Path) -> set[str]:
    """Every module `python -m tmanager ARGS` imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tmanager", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}  # the first line is the header


def packages(modules: set[str]) -> set[str]:
    return {m.partition(".")[0] for m in modules}


@pytest.fixture
def tourney(tmp_path: Path) -> Path:
    path = tmp_path / "t.toml"
    created = run_cli("new", path, "-e", "random-uci:A", "-e", "greedy-uci:B", "--games", "2", "--nodes", "1")
    assert created.returncode == 0, created.stderr
    return path


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_load_no_command(args: list[str], tmp_path: Path) -> None:
    modules = imported(*args, cwd=tmp_path)
    assert not packages(modules) & (HEAVY | {"chess", "asyncio", "psutil", "filelock"})
    ours = {m for m in modules if m.startswith("tmanager.")}
    assert ours == {"tmanager.cli", "tmanager.cli._dispatch", "tmanager.cli._output", "tmanager.errors"}


def test_status_imports_no_heavy_library(tourney: Path) -> None:
    before = imported("status", tourney, cwd=tourney.parent)
    assert not packages(before) & (HEAVY | {"psutil"})  # no games: no ratings; none in progress: no processes
    # Reading is not playing, and takes no lock: no engine layer, no event loop, no file lock, no tomlkit; and
    # standard chess, the default variant, is checked without python-chess (60 ms of a 200 ms `status`).
    assert not packages(before) & {"asyncio", "filelock", "tomlkit", "chess"}
    assert not {"tmanager.tourney.play", "tmanager.tourney.worker"} & before
    played = run_cli("work", tourney, "--games", "1", "--log", tourney.with_suffix(".log"))
    assert played.returncode == 0, played.stderr
    after = imported("status", tourney, cwd=tourney.parent)
    # A match's ratings are fitted in closed form: numpy (0.1 s of CPU) loads for a field of three or more.
    assert "tmanager.core.ratings" in after and not packages(after) & (HEAVY | {"chess"})


def test_status_of_a_field_of_three_fits_their_ratings_with_numpy(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    created = run_cli("new", path, "-e", "random-uci:A", "-e", "greedy-uci:B", "-e", "random-uci:C", "--nodes", "1")
    assert created.returncode == 0, created.stderr
    played = run_cli("work", path, "--log", path.with_suffix(".log"))  # all three pairings
    assert played.returncode == 0, played.stderr
    modules = imported("status", path, cwd=tmp_path)
    assert "tmanager.core.jointfit" in modules and "numpy" in packages(modules)
    assert not packages(modules) & (HEAVY - {"numpy"} | {"chess"})


def test_status_of_a_variant_tourney_checks_the_variant_with_python_chess(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    created = run_cli("new", path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--nodes", "1",
                      "--set", "tourney.variant=atomic")
    assert created.returncode == 0, created.stderr
    assert "chess.variant" in imported("status", path, cwd=tmp_path)
    path.write_text(path.read_text().replace('variant = "atomic"', 'variant = "atomix"'))
    status = run_cli("status", path)
    assert status.returncode == 2 and "unknown variant 'atomix'" in status.stderr


def test_reset_stale_imports_no_engine_layer(tourney: Path) -> None:
    """Releasing the claims of dead workers is bookkeeping under the lock: no engine layer, no event loop."""
    modules = imported("reset-stale", tourney, cwd=tourney.parent)
    assert "tmanager.tourney.claims" in modules and "filelock" in packages(modules)
    assert not packages(modules) & (HEAVY | {"asyncio", "chess"})
    assert not {"tmanager.tourney.play", "tmanager.tourney.worker"} & modules


def test_work_imports_no_heavy_library(tourney: Path) -> None:
    modules = imported("work", tourney, "--games", "1", "--log", tourney.with_suffix(".log"), cwd=tourney.parent)
    assert {"psutil", "tmanager.tourney.uciclient"} <= modules
    # The engines speak through tmanager's own clients (chess.engine still loads: chess.pgn imports it).
    assert not {"tmanager.tourney.uci", "tmanager.tourney.xboard"} & modules
    assert not packages(modules) & HEAVY
    assert "tmanager.pairing" not in modules  # a round robin: no Swiss pairing


def test_work_on_an_sprt_imports_no_heavy_library(tmp_path: Path) -> None:
    """A worker asks the match's state at every claim and record: counting it needs no numpy, which
    cost each worker (and `run`'s progress display) 0.1 s of CPU while the engines played."""
    path = tmp_path / "t.toml"
    created = run_cli("new", path, "-e", "random-uci:A", "-e", "greedy-uci:B", "--games", "2", "--cycles", "2",
                      "--nodes", "1", "--sprt", "0", "5", "0.05", "0.05")
    assert created.returncode == 0, created.stderr
    modules = imported("work", path, "--games", "3", "--log", path.with_suffix(".log"), cwd=tmp_path)
    assert "tmanager.core.sprt" in modules
    assert not packages(modules) & HEAVY
    results = tomllib.loads(path.read_text())["progress"]["results"]
    assert sum(map(results.count, "+-=")) == 3  # the games were played and recorded


def test_the_event_model_loads_only_the_model_the_core_and_the_foundation(tmp_path: Path) -> None:
    """``import tmanager.events.model`` (what a reader of event files needs) loads no pairing, rules, reports or
    file formats, and no library beyond the standard one: the events package imports nothing by itself."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import tmanager.events.model"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    modules = {line.rsplit("|", 1)[1].strip() for line in lines[1:]}
    ours = {m for m in modules if m.startswith("tmanager.")}
    assert {"tmanager.events.model", "tmanager.core.scoring"} <= ours
    foundation = {"tmanager.errors", "tmanager.files", "tmanager.tomlmap"}
    beyond = {m for m in ours - foundation if m.partition(".")[2].partition(".")[0] != "core"}
    assert beyond == {"tmanager.events", "tmanager.events.model", "tmanager.events.messages"}
    assert not packages(modules) & (HEAVY | {"chess", "filelock", "jinja2", "tomlkit"})


@pytest.mark.parametrize("given", [None, "7"])
def test_ratings_leave_the_environment_as_they_found_it(given: str | None, tmp_path: Path) -> None:
    """The ratings load numpy with OpenBLAS's threads told to sleep at once (their spinning cost every `status` 40 ms
    of CPU): a timeout of the user's stands, and the programs started later see the environment as it was."""
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    code = "import os, tmanager.core.jointfit as r; print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), r.np.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(given), "numpy"]


#: A `tmanager` entry point run with an audit hook that says on standard error, as the process first imports
#: argparse and tmanager's errors (the command line's first modules, a good part of a second under load),
#: whether it catches SIGTERM by then.
TELLING_THE_HANDLER = """
import runpy, signal, sys
def hook(event, args):
    if event == "import" and args[0] in ("argparse", "tmanager.errors"):
        caught = signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None)
        print(args[0], "caught" if caught else "not caught", file=sys.stderr)
sys.addaudithook(hook)
"""
ENTRY_POINTS = {
    "python -m tmanager": 'runpy.run_module("tmanager", run_name="__main__", alter_sys=True)',
    "the tmanager script": f"sys.argv[0] = {str(Path(sys.executable).with_name('tmanager'))!r}\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')",
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_sigterm_is_taken_before_the_command_line_s_modules_are_imported(entry: str, tmp_path: Path) -> None:
    # `tmanager` took SIGTERM for Ctrl-C (one line, status 130) only once tmanager.cli had imported argparse,
    # tokenize, its errors…: a SIGTERM 0.3 s after the start of `run` on a loaded machine killed it by the signal
    # (status -15). fastchess's command does not take it, as fastchess does not.
    program = TELLING_THE_HANDLER + ENTRY_POINTS[entry]
    for args, expected in ((["--version"], "caught"), (["fastchess", "-version"], "not caught")):
        done = subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, cwd=tmp_path,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert sorted(done.stderr.splitlines()) == [f"argparse {expected}", f"tmanager.errors {expected}"]
