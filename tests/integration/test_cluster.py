"""One tourney played through a real Dask cluster on loopback: a scheduler, workers, `run --dask`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import psutil
import pytest

from tests.conftest import ROOT, assert_consistent, run_cli
from tests.integration.test_workers import claims_of, engines_in, slow_tourney, start_worker, wait_for
from tmanager.errors import StateError
from tmanager.tourney import store

pytest.importorskip("distributed")


DASK = Path(sys.executable).parent / "dask"
PYENGINE = ROOT / "engines" / "pyengine.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class DaskCluster:
    """A scheduler and workers as real processes on 127.0.0.1, each in its own process group."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.workers: dict[str, subprocess.Popen[bytes]] = {}  # address -> process
        port = self.address.rpartition(":")[2]
        self._start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
                    ready="Scheduler at:")

    def _start(self, name: str, argv: list[str], *, ready: str, path: str | None = None) -> str:
        log = self.directory / f"dask-{name}.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if path:
            env["PATH"] = f"{path}{os.pathsep}{env['PATH']}"
        with open(log, "wb") as out:
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       cwd=self.directory, env=env, start_new_session=True)
        self.processes.append(process)
        wait_for(lambda: ready in log.read_text() or process.poll() is not None, timeout=60)
        text = log.read_text()
        assert process.poll() is None, text
        return text

    def add_worker(self, name: str, *, path: str | None = None) -> str:
        """Start a one-thread worker (``path`` prepended to its PATH); returns its address."""
        text = self._start(
            name,
            [str(DASK), "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
             "--host", "127.0.0.1", "--name", name, "--local-directory", str(self.directory / "dask")],
            ready="Registered to:", path=path,
        )
        match = re.search(r"Start worker at:\s+(tcp://\S+)", text)
        assert match, text
        self.workers[match[1]] = self.processes[-1]
        return match[1]

    def close(self) -> None:
        """Workers first, then the scheduler they report to."""
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[DaskCluster]:
    started = DaskCluster(tmp_path)
    try:
        yield started
    finally:
        started.close()
        # Engines die with the Dask worker (thread) that started them: none may survive.
        wait_for(lambda: not engines_in(tmp_path), timeout=10)


def start_run(path: Path, address: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tmanager", "run", str(path), "--dask", address, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def played_on(path: Path) -> dict[int, str]:
    """Game number -> Dask worker, from the coordinator's log; a game recorded twice fails here."""
    found: dict[int, str] = {}
    for number, worker in re.findall(r"game (\d+): played on Dask worker (\S+)", path.with_suffix(".log").read_text()):
        assert int(number) not in found, f"game {number} recorded twice"
        found[int(number)] = worker
    return found


def hooked_games(directory: Path) -> list[int]:
    lines = (directory / "after_game.txt").read_text().splitlines()
    return sorted(int(line.split()[0]) for line in lines)


def program(directory: Path, name: str, command: str) -> Path:
    """A program ``name`` in ``directory/bin`` that runs ``command`` (to put on some workers' PATH only)."""
    tools = directory / "bin"
    tools.mkdir(exist_ok=True)
    script = tools / name
    script.write_text(f'#!/bin/sh\nexec {command} "$@"\n')
    script.chmod(0o755)
    return tools


def watch_live(path: Path, run: subprocess.Popen[str]) -> dict[int, list[dict[str, Any]]]:
    """Until ``run`` exits, the live directory as a dashboard sees it: game -> the distinct states shown."""
    live = store.read(path).live_dir
    shown: dict[int, list[dict[str, Any]]] = {}
    while run.poll() is None:
        for file in live.glob("*.json"):
            with contextlib.suppress(OSError, ValueError):  # gone since the glob
                state = json.loads(file.read_text())
                if state not in shown.setdefault(int(file.stem), []):
                    shown[int(file.stem)].append(state)
        time.sleep(0.02)
    return shown


HOOKS = ('after_game = "echo $TMANAGER_GAME $TMANAGER_RESULT >> after_game.txt"\n'
         'after_tourney = "echo done >> after_tourney.txt"')


def test_tourney_through_two_dask_workers(tmp_path: Path, cluster: DaskCluster) -> None:
    first, second = cluster.add_worker("w1"), cluster.add_worker("w2")
    path = slow_tourney(tmp_path / "t.toml", players=4, games=1, delay=0.01, extra=HOOKS)
    done = run_cli("run", path, "--dask", cluster.address, timeout=120)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == 6
    assert hooked_games(tmp_path) == list(range(6))
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"
    assert set(played_on(path).values()) == {first, second}  # concurrency followed the cluster's 2 threads
    assert re.search(r"6/6 done, 0 playing", done.stderr)


def test_dask_worker_killed_mid_game_its_game_is_replayed_once(tmp_path: Path, cluster: DaskCluster) -> None:
    for name in ("w1", "w2"):
        cluster.add_worker(name)
    # restart = true: a worker has engines running only while it plays a game.
    path = slow_tourney(tmp_path / "k.toml", players=3, games=2, delay=0.05, max_moves=12,
                        extra=HOOKS + "\nrestart = true")
    run = start_run(path, cluster.address)
    try:
        victim, process = next(iter(cluster.workers.items()))
        wait_for(lambda: len(psutil.Process(process.pid).children()) == 2, timeout=30)
        time.sleep(0.4)  # a few moves into the game
        in_flight = set(store.read(path).claims)
        live = store.read(path).live_dir
        wait_for(lambda: any((live / f"{n}.json").exists() for n in in_flight), timeout=10)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert_consistent(path)
    assert sorted(played_on(path)) == list(range(6))  # each game recorded once, all on the survivor
    assert in_flight and all(played_on(path)[n] != victim for n in in_flight)
    assert not list(live.iterdir())  # the killed worker's half-published game left nothing behind
    assert hooked_games(tmp_path) == list(range(6))
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"


def test_coordinator_stopped_or_killed_then_resumed(tmp_path: Path, cluster: DaskCluster) -> None:
    for name in ("w1", "w2"):
        cluster.add_worker(name)
    path = slow_tourney(tmp_path / "c.toml", players=3, games=2, delay=0.05, max_moves=12,
                        extra=HOOKS + "\nrestart = true")
    # SIGTERM: the coordinator gives its games back.
    run = start_run(path, cluster.address)
    wait_for(lambda: len(claims_of(path, run.pid)) == 2)
    run.send_signal(signal.SIGTERM)
    assert run.wait(timeout=30) == 130
    tourney = store.read(path)
    assert "*" not in tourney.results and tourney.claims == {}
    assert_consistent(path, complete=False)
    # kill -9: its claims go stale, as with a local worker.
    run = start_run(path, cluster.address)
    wait_for(lambda: len(claims_of(path, run.pid)) == 2)
    killed = claims_of(path, run.pid)
    time.sleep(0.3)
    run.send_signal(signal.SIGKILL)
    run.wait()
    assert "stale: worker gone" in run_cli("status", path).stdout
    # The scheduler cancels the dead coordinator's tasks: the workers end their games (and engines).
    wait_for(lambda: not any(psutil.Process(w.pid).children() for w in cluster.workers.values()), timeout=15)
    assert all(store.read(path).result(n) == "*" for n in killed)
    # Resume with --dask, and a local worker joining beside the cluster.
    run = start_run(path, cluster.address)
    local = start_worker(path)
    try:
        assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
        assert local.wait(timeout=30) == 0
    finally:
        for process in (run, local):
            if process.poll() is None:
                process.kill()
                process.wait()
    assert_consistent(path)
    assert hooked_games(tmp_path) == list(range(6))
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"
    log = path.with_suffix(".log").read_text()
    for number in killed:
        assert f"game {number}: its worker is gone; the game will be replayed" in log


def test_worker_lacking_an_engine_is_reported_and_skipped(tmp_path: Path, cluster: DaskCluster) -> None:
    tools = program(tmp_path, "tiny-engine", f'"{sys.executable}" "{PYENGINE}" --protocol uci')
    path = tmp_path / "e.toml"
    path.write_text(
        '[tourney]\nname = "e"\nnodes = 1\ngames_per_pairing = 2\n\n[adjudication]\nmax_moves = 10\n\n'
        '[[participants]]\nname = "Tiny"\ncmd = "tiny-engine"\nprotocol = "uci"\n\n'
        '[[participants]]\nname = "R1"\nengine = "random-uci"\n\n'
        '[[participants]]\nname = "R2"\nengine = "random-xboard"\n'
    )
    without = cluster.add_worker("without")
    refused = run_cli("run", path, "--dask", cluster.address, timeout=60)
    assert refused.returncode == 2, refused.stderr
    assert "no Dask worker can run engine 'Tiny'" in refused.stderr and "not on PATH" in refused.stderr
    assert store.read(path).results == ""
    with_tiny = cluster.add_worker("with", path=str(tools))
    done = run_cli("run", path, "--dask", cluster.address, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"Dask worker {without} cannot run engine 'Tiny'" in done.stderr, done.stderr
    assert_consistent(path)
    schedule, where = store.read(path).schedule(), played_on(path)
    tiny_games = [n for n in range(schedule.total_games) if 0 in {schedule.game(n).white, schedule.game(n).black}]  # type: ignore[union-attr]
    assert tiny_games and all(where[n] == with_tiny for n in tiny_games)


def test_worker_joining_without_an_engine_is_found_out_by_its_first_game(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    path = slow_tourney(tmp_path / "j.toml", players=3, games=2, delay=0.05, max_moves=12)
    tools = program(tmp_path, "python-for-engines", f'"{sys.executable}"')
    text = path.read_text().replace(f'cmd = "{PYENGINE}', f'cmd = "python-for-engines {PYENGINE}')
    path.write_text(text)
    with_python = cluster.add_worker("with", path=str(tools))
    run = start_run(path, cluster.address, "--dask-concurrency", "1")
    try:
        wait_for(lambda: bool(store.read(path).claims))
        without = cluster.add_worker("without")
        cluster.workers[with_python].send_signal(signal.SIGKILL)
        # Dask moves the game to the only worker left, which cannot run it.
        assert run.wait(timeout=60) == 2
        stderr = run.stderr.read() if run.stderr else ""
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert f"Dask worker {without} cannot run engine" in stderr, stderr
    assert "no connected Dask worker can run both" in stderr, stderr
    tourney = store.read(path)
    assert "*" not in tourney.results and tourney.claims == {} and tourney.faults == {}
    assert_consistent(path, complete=False)


def run_watching_live(path: Path, address: str) -> dict[int, list[dict[str, Any]]]:
    """``run --dask`` to the end, and every state of a game its live files showed meanwhile."""
    run = start_run(path, address)
    try:
        shown = watch_live(path, run)
        assert run.wait(timeout=5) == 0, run.stderr.read() if run.stderr else ""
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    return shown


def test_cluster_games_are_published_live_then_removed(tmp_path: Path, cluster: DaskCluster) -> None:
    for name in ("w1", "w2"):
        cluster.add_worker(name)
    # Rounds of two games for two lanes: the lane done first waits at the barrier (WaitingLanes).
    path = slow_tourney(tmp_path / "l.toml", players=4, games=1, delay=0.05, max_moves=10,
                        extra=HOOKS + "\nsync_after_round = true")
    shown = run_watching_live(path, cluster.address)
    tourney = store.read(path)
    assert_consistent(path)
    assert sorted(played_on(path)) == list(range(6)) and hooked_games(tmp_path) == list(range(6))
    assert not list(tourney.live_dir.iterdir())  # every file removed as its game was recorded
    assert len(shown) >= 3, shown  # most games were seen in progress (each plays for about a second)
    names = [p.name for p in tourney.participants]
    for number, states in shown.items():
        game = tourney.schedule().game(number)
        assert game is not None
        for state in states:
            assert (state["game"], state["white"], state["black"]) == (number, names[game.white], names[game.black])
            board = chess.Board(state["start_fen"])
            for move in state["moves"]:
                board.push_uci(move)
            assert state["moves"] and board.fen() == state["fen"]
    # Updated as the game goes on (a report every LIVE_SECONDS at most, from its first move).
    assert any(len(states) >= 2 and len(states[-1]["moves"]) > len(states[0]["moves"]) for states in shown.values())


def test_a_cluster_game_shows_a_reply_made_at_once(tmp_path: Path, cluster: DaskCluster) -> None:
    """A report that came within LIVE_SECONDS of the last was dropped: an instant reply to a long think was
    never shown, the position before it staying on the dashboard for the whole of the next think."""
    cluster.add_worker("w1")
    path = tmp_path / "r.toml"
    path.write_text(
        '[tourney]\nname = "r"\nnodes = 1\ngames_per_pairing = 1\n[adjudication]\nmax_moves = 3\n'
        f'[[participants]]\nname = "Slow"\ncmd = "{PYENGINE} --protocol uci --fault slow --delay 1.5"\n'
        'protocol = "uci"\n'
        f'[[participants]]\nname = "Fast"\ncmd = "{PYENGINE} --protocol uci"\nprotocol = "uci"\n'
    )
    shown = run_watching_live(path, cluster.address)  # Slow has White: it thinks 1.5 s a move, Fast none
    sides = [(len(state["moves"]), state["fen"].split()[1]) for state in shown.get(0, [])]
    assert any(plies >= 2 and side == "w" for plies, side in sides), f"Fast's replies never shown: {sides}"


def test_lanes_shrink_when_a_worker_leaves(tmp_path: Path, cluster: DaskCluster) -> None:
    cluster.add_worker("w1")
    leaving = cluster.workers[cluster.add_worker("w2")]
    path = slow_tourney(tmp_path / "s.toml", players=3, games=2, delay=0.05, max_moves=10, extra=HOOKS)
    run = start_run(path, cluster.address)
    log = path.with_suffix(".log")
    try:
        wait_for(lambda: len(claims_of(path, run.pid)) == 2)
        leaving.terminate()  # its game goes back to the scheduler, which gives it to w1
        wait_for(lambda: "a lane retired: 1 left" in log.read_text(), timeout=30)
        most = 0
        while run.poll() is None:
            most = max(most, len(claims_of(path, run.pid)))
            time.sleep(0.02)
        assert run.wait() == 0, run.stderr.read() if run.stderr else ""
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert most == 1  # one lane for the one thread left
    assert "the cluster has 1 thread: playing 1 game at once" in log.read_text()
    assert_consistent(path)
    assert sorted(played_on(path)) == list(range(6))  # nothing lost, nothing recorded twice
    assert hooked_games(tmp_path) == list(range(6))
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"



def test_the_scheduler_dying_while_asked_for_the_cluster_s_size_is_the_same_line(
    tmp_path: Path, cluster: DaskCluster,
) -> None:
    """The coordinator asks the scheduler for its workers every 2 s: a scheduler that died while asked ended
    `run --dask` with distributed's CommClosedError and a traceback, where one that died while a game was
    awaited ended it with one line. Which came first hung on the moment of the death (under load, the asking
    takes longer)."""
    # Here, not above: the module is skipped where distributed is not installed, and these import it.
    import distributed

    from tmanager.tourney.cluster import SCHEDULER_LOST, Cluster

    async def ask() -> str:
        client = await distributed.Client(  # type: ignore[no-untyped-call]
            cluster.address, asynchronous=True, timeout=10
        )
        threads = Cluster(client, tmp_path).threads
        await threads()
        os.killpg(cluster.processes[0].pid, signal.SIGKILL)  # the scheduler
        with pytest.raises(StateError) as raised:
            await threads()
        await client.close()
        return str(raised.value)

    assert asyncio.run(ask()) == SCHEDULER_LOST


def test_the_scheduler_dying_is_one_line_of_tmanager(tmp_path: Path, cluster: DaskCluster) -> None:
    """When the scheduler died, distributed's own log line (``distributed.client - ERROR - …``) came before
    tmanager's: the arbiter of the run saw a library's message, with a traceback's worth of detail, twice over."""
    cluster.add_worker("w1")
    path = slow_tourney(tmp_path / "s.toml", players=2, games=2, delay=0.1, max_moves=40)
    run = start_run(path, cluster.address)
    try:
        wait_for(lambda: len(claims_of(path, run.pid)) == 1)
        os.killpg(cluster.processes[0].pid, signal.SIGKILL)  # the scheduler
        assert run.wait(timeout=60) == 2
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.stderr is not None
    errors = run.stderr.read()
    assert "distributed" not in errors and "Traceback" not in errors, errors
    assert errors.endswith("tmanager: lost the connection to the Dask scheduler; the games in progress were given "
                           "back (restart the scheduler and its workers, then run the same command)\n"), errors
    log = path.with_suffix(".log").read_text()
    assert "distributed.client" not in log and "ERROR" in log, "distributed's error is in the log, a line"
    assert "Traceback" not in log
    assert_consistent(path, complete=False)
    assert store.read(path).claims == {}, "the games are given back"
