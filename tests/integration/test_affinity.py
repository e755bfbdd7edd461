"""--affinity: each worker and its engines bound to CPUs of their own, as fastchess's -use-affinity."""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tmanager.errors import ConfigError
from tmanager.tourney import affinity

PYENGINE = ROOT / "engines" / "pyengine.py"
CPUS = sorted(os.sched_getaffinity(0))
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two CPUs")


def test_cpus_are_read_and_written_as_taskset_writes_them() -> None:
    assert affinity.parse("0,2,4-7") == (0, 2, 4, 5, 6, 7)
    assert affinity.parse("3, 1-2, 3") == (3, 1, 2)  # in the order given, each once
    assert affinity.format_cpus((0, 2, 4, 5, 6, 7)) == "0,2,4-7"
    assert affinity.format_cpus((3, 1, 2)) == "3,1-2"
    assert affinity.share((0, 1, 2, 3, 4), [2, 1, 2]) == [(0, 1), (2,), (3, 4)]
    for text, message in [("x", "'x' is not a list of CPUs"), ("1-0", "'1-0' is not a range of CPUs"),
                          ("-1", "'-1' is not a list of CPUs"), ("", "'' is not a list of CPUs"),
                          ("0-99999999999", "CPU 99999999999 does not exist")]:
        with pytest.raises(ConfigError, match=message):
            affinity.parse(text)


def recording_tourney(tmp_path: Path, *, cycles: int = 2) -> tuple[Path, Path]:
    """A match of two engines that each write their parent's pid (the worker's) and the CPUs they may
    run on before they start: what a worker's engines inherit."""
    record = tmp_path / "cpus.txt"
    wrapper = tmp_path / "engine.sh"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'echo "$PPID $(grep Cpus_allowed_list /proc/self/status | cut -f2)" >> {record}\n'
        f"exec {sys.executable} {PYENGINE} --protocol uci \"$@\"\n"
    )
    wrapper.chmod(0o755)
    participants = "".join(
        f'\n[[participants]]\nname = "E{i}"\ncmd = "{wrapper} --seed {i}"\nprotocol = "uci"\n' for i in range(2)
    )
    path = tmp_path / "t.toml"
    path.write_text(f'[tourney]\nname = "a"\nnodes = 1\ngames_per_pairing = 2\ncycles = {cycles}\n'
                    f"[adjudication]\nmax_moves = 20\n{participants}")
    return path, record


def engines_by_worker(record: Path) -> dict[int, set[str]]:
    """The CPUs each worker's engines could run on, by the worker's pid."""
    seen: dict[int, set[str]] = defaultdict(set)
    for line in record.read_text().splitlines():
        pid, cpus = line.split()
        seen[int(pid)].add(cpus)
    return dict(seen)


@two_cpus
def test_a_worker_with_affinity_starts_its_engines_on_its_cpus(tmp_path: Path) -> None:
    path, record = recording_tourney(tmp_path)
    cpu = str(CPUS[1])
    played = run_cli("work", path, "--affinity", cpu, "--log", tmp_path / "w.log")
    assert played.returncode == 0, played.stderr
    assert "4 game(s) played" in played.stdout
    (cpus,) = engines_by_worker(record).values()  # one worker, its two engines kept for all four games
    assert cpus == {cpu}
    assert f"INFO bound to CPUs {cpu}, with the engines it starts" in (tmp_path / "w.log").read_text()


@two_cpus
def test_run_with_affinity_gives_each_worker_a_cpu_of_its_own(tmp_path: Path) -> None:
    path, record = recording_tourney(tmp_path, cycles=4)
    played = run_cli("run", path, "--workers", "2", "--affinity", f"{CPUS[0]},{CPUS[1]}")
    assert played.returncode == 0, played.stderr
    by_worker = engines_by_worker(record)
    assert all(len(cpus) == 1 for cpus in by_worker.values()), by_worker
    chosen = [cpus.pop() for cpus in by_worker.values()]
    assert len(set(chosen)) == len(chosen) and set(chosen) <= {str(CPUS[0]), str(CPUS[1])}, by_worker
    # Without it, the engines may run on every CPU this process may.
    unbound_dir = tmp_path / "unbound"
    unbound_dir.mkdir()
    unbound, unbound_record = recording_tourney(unbound_dir)
    assert run_cli("run", unbound, "--workers", "2").returncode == 0
    assert set().union(*engines_by_worker(unbound_record).values()) == {affinity.format_cpus(CPUS)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["work", "--affinity", "4096"], "--affinity: CPU 4096 is not available to this process (it may run on "),
        (["work", "--affinity", str(CPUS[0]), "--concurrency", "2"],
         "--affinity: 2 games at once need 2 CPUs, 1 given (give more CPUs, or play fewer games at once)"),
        (["run", "--workers", str(len(CPUS) + 1), "--affinity"],
         f"--affinity: {len(CPUS) + 1} games at once need {len(CPUS) + 1} CPUs, {len(CPUS)} given"),
        (["run", "--affinity", "0-x"], "--affinity: '0-x' is not a list of CPUs"),
        (["run", "--dask", "tcp://127.0.0.1:1", "--affinity"], "--affinity: not with --dask"),
    ],
)
def test_an_impossible_affinity_is_one_line_and_changes_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    path, record = recording_tourney(tmp_path)
    before = path.read_bytes()
    command, *options = args
    done = run_cli(command, path, *options)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert path.read_bytes() == before and not record.exists()
