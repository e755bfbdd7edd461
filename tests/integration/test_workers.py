"""Many workers on one tourney file, with real processes: claims, kill -9, SIGTERM, sync, hooks."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import pty
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import chess
import psutil
import pytest

from tests.conftest import ROOT, assert_consistent, run_cli
from tmanager import files
from tmanager.tourney import store
from tmanager.tourney.live import LiveGame, LivePace, PositionView
from tmanager.tourney.model import Claim
from tmanager.tourney.owners import Owner, boot_id, since_boot

pytestmark = pytest.mark.usefixtures("each_event_loop")

PYENGINE = ROOT / "engines" / "pyengine.py"


def slow_tourney(path: Path, *, players: int = 4, delay: float = 0.0, games: int = 2, cycles: int = 1,
                 extra: str = "", max_moves: int = 12) -> Path:
    """A round robin of pyengines that think ``delay`` s per move (no clock, so never a fault)."""
    participants = "".join(
        f'\n[[participants]]\nname = "E{i}"\ncmd = "{PYENGINE} --protocol {"uci" if i % 2 else "xboard"}'
        f' --seed {i} --fault slow --delay {delay}"\nprotocol = "{"uci" if i % 2 else "xboard"}"\n'
        for i in range(players)
    )
    path.write_text(
        f'[tourney]\nname = "w"\nnodes = 1\ngames_per_pairing = {games}\ncycles = {cycles}\n{extra}\n'
        f"[adjudication]\nmax_moves = {max_moves}\n{participants}"
    )
    return path


def start_worker(path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tmanager", "work", str(path), "--log", str(path.with_suffix(".log")), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for(predicate, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def claims_of(path: Path, pid: int) -> list[int]:
    return [n for n, c in store.read(path).claims.items() if c.pid == pid]


def engines_in(directory: Path) -> list[psutil.Process]:
    """Live engine processes started for tourneys in ``directory`` (their working directory)."""
    found = []
    for process in psutil.process_iter(["cwd", "cmdline", "status"]):
        info = process.info
        engine = "pyengine.py" in " ".join(info["cmdline"] or [])
        if info["cwd"] == str(directory) and engine and info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


def hooked_tourney(path: Path, *, delay: float) -> Path:
    """A round robin of 24 games whose hooks write each game's number to after_game.txt, and "done" to
    after_tourney.txt."""
    return slow_tourney(
        path, delay=delay, cycles=2,
        extra='after_game = "echo $TMANAGER_GAME $TMANAGER_RESULT >> after_game.txt"\n'
              # A hook is no engine: the tag that marks its worker's engines for killing is not in its environment.
              '''after_tourney = 'printf "done%s\\n" "${TMANAGER_ENGINE_OF+ tagged}" >> after_tourney.txt'\n''',
    )


def test_four_workers_started_separately_play_every_game_once(tmp_path: Path) -> None:
    path = hooked_tourney(tmp_path / "t.toml", delay=0.01)
    workers = [start_worker(path) for _ in range(4)]
    for worker in workers:
        assert worker.wait(timeout=300) == 0, worker.stderr.read() if worker.stderr else ""
    games = assert_consistent(path)
    assert len(games) == 24
    hooked = (tmp_path / "after_game.txt").read_text().split("\n")
    numbers = sorted(int(line.split()[0]) for line in hooked if line)
    assert numbers == list(range(24))
    assert (tmp_path / "after_tourney.txt").read_text() == "done\n"
    # More than one worker really played: the log shows several pids starting games.
    log = path.with_suffix(".log").read_text()
    assert len(set(re.findall(r" (\d+) INFO game \d+: .* started", log))) >= 2
    # One more worker finds nothing to play, and says why (as `run` does), on the line it ends with.
    done = run_cli("work", path)
    assert done.returncode == 0 and done.stdout == (
        "0 game(s) played; nothing to play: every game is played; to go on, raise cycles "
        "(tmanager edit t.toml --set cycles=…)\n"
    )


def test_kill_9_mid_game_is_detected_and_replayed(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "k.toml", players=3, games=2, delay=0.05, max_moves=20)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    killed_game = claims_of(path, worker.pid)[0]
    time.sleep(0.5)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    wait_for(lambda: not engines_in(tmp_path), timeout=10)  # the engines died with their worker
    status = run_cli("status", path)
    assert "stale: worker gone" in status.stdout
    assert store.read(path).result(killed_game) == "*"
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    assert_consistent(path)
    assert f"game {killed_game}: its worker is gone; the game will be replayed" in path.with_suffix(".log").read_text()


def test_sigterm_releases_the_game_cleanly(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "s.toml", players=2, games=2, delay=0.05, max_moves=30)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    game = claims_of(path, worker.pid)[0]
    time.sleep(0.3)
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=20) == 130
    tourney = store.read(path)
    assert tourney.result(game) == " " and tourney.claims == {}
    assert "*" not in tourney.results
    pgn = tourney.pgn_path
    assert not pgn.exists() or f'[GameNumber "{game}"]' not in pgn.read_text()
    assert not engines_in(tmp_path)
    assert f"game {game} released unplayed" in path.with_suffix(".log").read_text()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_run_stops_all_workers_on_a_signal_and_resumes(tmp_path: Path, sig: signal.Signals) -> None:
    path = slow_tourney(tmp_path / "r.toml", players=4, games=2, delay=0.05, max_moves=20)
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(store.read(path).claims) == 2)
    run.send_signal(sig)
    assert run.wait(timeout=30) == 130
    tourney = store.read(path)
    assert "*" not in tourney.results and tourney.claims == {}
    wait_for(lambda: not engines_in(tmp_path), timeout=10)
    assert_consistent(path, complete=False)
    assert run_cli("run", path, "--workers", "2").returncode == 0
    assert_consistent(path)


def test_workers_give_their_games_back_when_run_is_killed_outright(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "k.toml", players=4, games=2, delay=0.05, max_moves=20)
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(store.read(path).claims) == 2)
    workers = psutil.Process(run.pid).children()
    assert len(workers) == 2
    run.kill()  # -9: run cannot stop them; the kernel tells them (SIGTERM) that their parent is gone
    run.wait(timeout=10)
    wait_for(lambda: not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers), timeout=30)
    tourney = store.read(path)
    assert "*" not in tourney.results and tourney.claims == {}  # given back, not left to be found stale
    wait_for(lambda: not engines_in(tmp_path), timeout=10)
    assert "released unplayed" in path.with_suffix(".log").read_text()
    assert_consistent(path, complete=False)


def _engine_log_span(log: Path) -> tuple[dt.datetime, dt.datetime]:
    """When a game's engine log begins (its heading, written as the game begins, after its claim) and when
    its last line was written (its engines write to it only until the game ends, before it is recorded)."""
    lines = log.read_text().splitlines()
    first, last = (dt.datetime.strptime(line[:26], "%Y-%m-%d %H:%M:%S.%f") for line in (lines[0], lines[-1]))
    return first, last


@pytest.mark.parametrize("sync", ["sync_after_round", "sync_after_cycle"])
def test_sync_no_game_starts_before_earlier_rounds_finish(tmp_path: Path, sync: str) -> None:
    path = slow_tourney(tmp_path / "y.toml", players=4, games=1, cycles=2, delay=0.01,
                        extra=f"{sync} = true")
    assert run_cli("run", path, "--workers", "3", "--log-engines").returncode == 0
    assert_consistent(path)
    tourney = store.read(path)
    schedule = tourney.schedule()
    block = schedule.games_per_round if sync == "sync_after_round" else schedule.games_per_cycle
    # By the engine logs, not by the workers' log: a worker logs a game's end after recording it, and
    # another may claim the next round's game and log its start in between.
    spans = [_engine_log_span(tourney.engine_logs_dir / f"game-{n}.log") for n in range(schedule.total_games)]
    for number, (begun, _) in enumerate(spans):
        earlier = spans[: number // block * block]
        assert all(ended < begun for _, ended in earlier), f"game {number} began before an earlier round ended"
    # The PGN has the rounds in order.
    order = [int(g["GameNumber"]) // block for g in assert_consistent(path)]
    assert order == sorted(order)


def test_result_written_by_a_dead_worker_is_recovered_not_replayed(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "d.toml", players=2, games=2)
    assert run_cli("run", path).returncode == 0
    # Pretend game 1's worker died after appending the PGN but before recording the result.
    with store.transaction(path) as tourney:
        char = tourney.results[1]
        tourney.set_result(1, "*")
        # No process has this pid with this start time: the owner is gone.
        tourney.claims[1] = Claim(host=os.uname().nodename, pid=os.getpid(), started=1.0, claimed=1.0, heartbeat=1.0)
    done = run_cli("reset-stale", path)
    assert done.returncode == 0 and f"game 1: recovered {char!r} from the PGN" in done.stdout
    assert store.read(path).results[1] == char
    assert_consistent(path)


def test_failing_hook_never_stops_the_tourney_and_run_says_so_once(tmp_path: Path) -> None:
    """Each failure is in the workers' log; `run` shows them on its stderr, each kind once, whatever the
    worker (its workers log to a file, which nobody watching the run reads)."""
    path = slow_tourney(tmp_path / "h.toml", players=2, games=2, cycles=2, extra='after_game = "exit 3"')
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0
    assert_consistent(path)
    # One hook runner for tourneys and events: its words (it said "exited with status 3" before).
    said = "after_game hook 'exit 3' failed with status 3"
    assert path.with_suffix(".log").read_text().count(said) == 4
    assert [line for line in done.stderr.splitlines() if "warning" in line] == [f"tmanager: warning: {said}"]


def test_on_a_terminal_a_warning_is_written_over_the_progress_line(tmp_path: Path) -> None:
    """`run` rewrites its progress line in place on a terminal: a worker's warning erases it first, so that
    the warning stands on a line of its own, and the progress line is drawn again below."""
    path = slow_tourney(tmp_path / "h.toml", players=2, games=2, cycles=2, delay=0.05, extra='after_game = "exit 3"')
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "2"],
                               stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""
    with contextlib.suppress(OSError):  # EIO once the run has closed the terminal
        while chunk := os.read(master, 1 << 16):
            seen += chunk
    os.close(master)
    assert process.wait(timeout=60) == 0
    text = seen.decode()
    assert text.count("tmanager: warning: after_game hook 'exit 3' failed with status 3") == 1, text
    assert "\r\x1b[Ktmanager: warning: after_game hook" in text and "\r\x1b[K4/4 done" in text, text


def test_a_worker_logging_to_a_file_tells_its_warnings_on_stderr_too(tmp_path: Path) -> None:
    """`work --log`: every line in the file, and each warning also on stderr (the game's own error, told as
    the worker ends, only once)."""
    path = slow_tourney(tmp_path / "h.toml", players=2, games=2, extra='after_game = "exit 3"')
    done = run_cli("work", path, "--log", tmp_path / "w.log")
    assert done.returncode == 0
    assert done.stderr.splitlines() == ["tmanager: warning: after_game hook 'exit 3' failed with status 3"] * 2
    assert "INFO game 1: " in (tmp_path / "w.log").read_text()
    refusing = slow_tourney(tmp_path / "r.toml", players=2, games=2)
    refusing.write_text(refusing.read_text().replace('protocol = "uci"', 'protocol = "uci"\noptions = { Nope = 1 }'))
    refused = run_cli("work", refusing, "--log", tmp_path / "r.log")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert "refuses its options" in refused.stderr and "refuses its options" in (tmp_path / "r.log").read_text()


def test_progress_lines_when_not_a_terminal(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "p.toml", players=2, games=2)
    done = run_cli("run", path)
    assert re.search(r"2/2 done, 0 playing, elapsed \d:\d\d:\d\d", done.stderr), done.stderr


def test_a_position_view_grows_with_its_game_and_starts_afresh_with_another() -> None:
    view, board = PositionView(), chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
        seen = view(board, 9.5, 8.25)
        assert seen["moves"] == [m.uci() for m in board.move_stack] and seen["fen"] == board.fen()
    assert seen["start_fen"] == chess.STARTING_FEN and (seen["white_clock"], seen["black_clock"]) == (9.5, 8.25)
    other = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    other.push_uci("e1g1")
    assert view(other, 1, 1) | {"white_clock": 0} == {"start_fen": "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
                                                        "moves": ["e1g1"], "fen": other.fen(),
                                                        "white_clock": 0, "black_clock": 1}


def _live_games(tmp_path: Path, pace: LivePace) -> list[LiveGame]:
    """The live files of 32 games of one tourney, all starting now."""
    from tmanager.tourney.gamesetup import game_spec

    tourney = store.read(slow_tourney(tmp_path / "t.toml", players=2, games=2, cycles=16))
    schedule = tourney.schedule()
    games = [schedule.game(n) for n in range(32)]
    return [LiveGame(tourney, g, game_spec(tourney, g, None), pace=pace) for g in games if g is not None]


def _first_writes(lives: list[LiveGame], *, seconds: float) -> dict[Path, float]:
    """When each game first wrote its file, every game moving now and every 10 ms after, for ``seconds``."""
    board, first_writes = chess.Board(), dict[Path, float]()
    started = time.monotonic()
    while len(first_writes) < len(lives) and time.monotonic() - started < seconds:
        for live in lives:
            live(board, 10.0, 10.0)
            if live.path.exists():
                first_writes.setdefault(live.path, time.monotonic() - started)
        time.sleep(0.01)
    return first_writes


def test_games_that_start_together_write_their_live_files_apart(tmp_path: Path) -> None:
    # Written together at every interval, the files of a worker's games would stop all its games at once.
    lives = _live_games(tmp_path, LivePace(claims=32, writes_per_second=32))  # one write a second each
    first_writes = _first_writes(lives, seconds=2.0)
    assert len(first_writes) == 32 and max(first_writes.values()) <= 1.1  # each within one interval
    times = sorted(first_writes.values())
    # Phases drawn at random in [0, 1 s): 32 draws leave a gap of 0.5 s, or put 17 in one 0.1 s, less than
    # once in a million runs. Written at the first move, all 32 were written at once.
    assert max(b - a for a, b in zip([0.0, *times], [*times, 1.0], strict=True)) < 0.5, times
    assert max(sum(t <= x < t + 0.1 for x in times) for t in times) <= 16, times


def test_live_files_keep_to_the_pace_as_more_games_start(tmp_path: Path) -> None:
    # The first games of a big run see few others claimed: their interval grows as the others claim, and
    # their first writes spread over the new interval instead of all coming within the first one.
    pace = LivePace(claims=32, writes_per_second=64)  # 0.5 s
    lives = _live_games(tmp_path, pace)
    pace.claims = 128  # 2 s: the host's other games are claimed
    early = _first_writes(lives, seconds=0.5)
    # Each game writes within 0.5 s with a chance of 1/4: 8 of 32 expected, 21 or more less than once in
    # ten million runs. At the pace they started with, all 32 would have.
    assert len(early) <= 20, sorted(early.values())
    assert len(_first_writes(lives, seconds=2.0)) == 32


def test_a_worker_paces_live_files_by_the_games_in_progress(tmp_path: Path) -> None:
    from tmanager.tourney.lanes import Claimed
    from tmanager.tourney.worker import Worker

    worker = Worker(slow_tourney(tmp_path / "t.toml", players=2, games=2, cycles=16))
    for _ in range(3):
        assert isinstance(worker.claim(), Claimed)
    assert worker.live_pace.games == 3  # every worker's claims, as this worker's last transaction saw them
    worker.heartbeat([])
    assert worker.live_pace.games == 3
    assert worker.live_pace.interval == LiveGame.INTERVAL  # a few games write every quarter of a second
    worker.live_pace.claims = 256
    assert worker.live_pace.interval == 8.0  # hundreds share 32 writes a second


def test_games_in_progress_are_published_live(tmp_path: Path) -> None:
    import json

    path = slow_tourney(tmp_path / "l.toml", players=2, games=2, delay=0.05, max_moves=30)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    game = claims_of(path, worker.pid)[0]
    live = store.read(path).live_dir / f"{game}.json"
    wait_for(lambda: live.exists() and len(json.loads(live.read_text())["moves"]) >= 12)  # several writes
    state = json.loads(live.read_text())
    assert state["game"] == game and {state["white"], state["black"]} == {"E0", "E1"}
    assert state["white_clock"] >= 0
    board = chess.Board(state["start_fen"])
    for move in state["moves"]:
        board.push_uci(move)
    assert board.fen() == state["fen"]
    # `status` shows the last moves under the game's claim, numbered, in SAN (the game goes on meanwhile).
    shown = run_cli("status", path).stdout
    players = f"{state['white']} – {state['black']}"
    san = r"(O-O(-O)?|[NBRQK][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=[NBRQ])?)[+#]?"  # captures, castling too
    assert re.search(rf"game {game}: .*\n    {players}: (… )?\d+\.(\.\.)? ?{san}( .*)? \(\d+ s ago\)", shown), shown
    worker.send_signal(signal.SIGTERM)
    worker.wait(timeout=20)
    assert not live.exists()


def test_a_reply_made_at_once_is_shown_while_the_other_side_thinks(tmp_path: Path) -> None:
    """The live file, written at most every quarter of a second, dropped a move that came sooner: an instant
    reply to a long think was never shown, and the position before it stayed, with the wrong side to move and
    its clock running, for the whole of the next think."""
    import json

    path = tmp_path / "r.toml"
    path.write_text(
        '[tourney]\nname = "r"\nnodes = 1\ngames_per_pairing = 1\n[adjudication]\nmax_moves = 4\n'
        f'[[participants]]\nname = "Slow"\ncmd = "{PYENGINE} --protocol uci --fault slow --delay 1"\n'
        'protocol = "uci"\n'
        f'[[participants]]\nname = "Fast"\ncmd = "{PYENGINE} --protocol uci"\nprotocol = "uci"\n'
    )
    live = store.read(path).live_dir / "0.json"  # Slow has White: it thinks a second a move, Fast none
    worker = start_worker(path, "--games", "1")
    shown: set[tuple[int, str]] = set()
    while worker.poll() is None:
        with contextlib.suppress(OSError, ValueError):  # not written yet, or gone
            state = json.loads(live.read_text())
            shown.add((len(state["moves"]), state["fen"].split()[1]))
        time.sleep(0.05)
    assert worker.returncode == 0
    assert any(plies >= 2 and side == "w" for plies, side in shown), f"Fast's replies never shown: {shown}"


def test_worker_waits_for_a_broken_hand_edit_and_loses_nothing(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "e.toml", players=2, games=2, delay=0.05, max_moves=20)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    good = path.read_text()
    path.write_text(good.replace("[tourney]", "[tourney", 1))  # a half-saved edit
    log = path.with_suffix(".log")
    # The game ends meanwhile; the worker must keep its result.
    wait_for(lambda: "waiting for the file to be fixed" in log.read_text(), timeout=60)
    time.sleep(5)  # two attempts and more: said once (it was said at each, every 2 s)
    assert log.read_text().count("waiting for the file to be fixed") == 1
    assert worker.poll() is None
    with files.lock(path):
        text = path.read_text()
        path.write_text(text.replace("[tourney\n", "[tourney]\n", 1))
    assert worker.wait(timeout=60) == 0
    assert_consistent(path)
    assert "not valid TOML" in path.with_suffix(".log").read_text()


def test_a_stop_while_the_file_is_broken_exits_at_once_and_the_game_is_replayed(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "s.toml", players=2, games=2, delay=0.05, max_moves=20)
    worker = start_worker(path)
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    good = path.read_text()
    path.write_text(good.replace("[tourney]", "[tourney", 1))
    log = path.with_suffix(".log")
    wait_for(lambda: "waiting for the file to be fixed" in log.read_text())  # the game ended meanwhile
    worker.send_signal(signal.SIGTERM)
    worker.wait(timeout=10)
    assert worker.stderr is not None and "Traceback" not in worker.stderr.read()
    assert "stays claimed and will be played again" in log.read_text()
    with files.lock(path):
        path.write_text(path.read_text().replace("[tourney\n", "[tourney]\n", 1))
    assert start_worker(path).wait(timeout=60) == 0
    assert_consistent(path)


def test_claim_liveness_rules() -> None:
    from tmanager.tourney.claims import claim_is_alive

    me = psutil.Process()
    started = since_boot(me.pid)
    mine = Claim(host="here", pid=me.pid, started=started, claimed=0, heartbeat=0)
    assert claim_is_alive(mine, lease=10, now=time.time(), host="here")
    assert Owner.me().started == started  # seconds since boot: a clock adjustment moves nothing
    reused_pid = Claim(host="here", pid=me.pid, started=started - 100, claimed=0, heartbeat=0)
    assert not claim_is_alive(reused_pid, lease=10, now=time.time(), host="here")
    # An older tmanager's claim holds the start on the wall clock; a second's adjustment of it is no other process.
    older = Claim(host="here", pid=me.pid, started=me.create_time() + 1, claimed=0, heartbeat=0)
    assert claim_is_alive(older, lease=10, now=time.time(), host="here")
    older_reused = Claim(host="here", pid=me.pid, started=me.create_time() - 100, claimed=0, heartbeat=0)
    assert not claim_is_alive(older_reused, lease=10, now=time.time(), host="here")
    # The same pid and start in another boot of the host (a service started the same way after a reboot).
    this_boot = Claim(host="here", pid=me.pid, started=started, claimed=0, heartbeat=0, boot=boot_id())
    me_now = Owner.me()
    assert boot_id() and me_now.boot == boot_id() and me_now.owns(dataclasses.replace(this_boot, host=me_now.host))
    assert claim_is_alive(this_boot, lease=10, now=time.time(), host="here")
    before_reboot = dataclasses.replace(this_boot, boot="x" + boot_id()[1:])  # ids are hex
    assert not claim_is_alive(before_reboot, lease=10, now=time.time(), host="here")
    remote = Claim(host="elsewhere", pid=1, started=0, claimed=0, heartbeat=100.0)
    assert claim_is_alive(remote, lease=10, now=105.0, host="here")
    assert not claim_is_alive(remote, lease=10, now=111.0, host="here")



def test_stale_games_asks_the_process_table_for_local_owners_and_each_claims_heartbeat_for_remote_ones(
        tmp_path: Path) -> None:
    from tmanager.tourney.claims import stale_games

    tourney = store.read(slow_tourney(tmp_path / "s.toml", players=2, games=6))
    me, host, now = psutil.Process(), socket.gethostname(), time.time()
    lease = tourney.settings.lease
    started = since_boot(me.pid)
    claims = {
        0: Claim(host=host, pid=me.pid, started=started, claimed=0, heartbeat=0),  # alive, beat long ago
        1: Claim(host=host, pid=me.pid, started=started, claimed=now, heartbeat=now),
        2: Claim(host=host, pid=me.pid, started=started - 100, claimed=now, heartbeat=now),  # pid reused
        3: Claim(host="elsewhere", pid=7, started=0, claimed=now, heartbeat=now),
        4: Claim(host="elsewhere", pid=7, started=0, claimed=0, heartbeat=now - 2 * lease),  # same owner, silent
    }
    for number, claim in claims.items():
        tourney.set_result(number, "*")
        tourney.claims[number] = claim
    tourney.set_result(5, "*")  # no claim at all, as XBoard writes it
    assert stale_games(tourney, now=now) == [2, 4, 5]


def test_run_survives_a_broken_hand_edit(tmp_path: Path) -> None:
    path = slow_tourney(tmp_path / "r.toml", players=2, games=2, delay=0.05, max_moves=15)
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: bool(store.read(path).claims))
    good = path.read_text()
    path.write_text(good.replace("[tourney]", "[tourney", 1))
    time.sleep(2)
    assert run.poll() is None
    with files.lock(path):
        path.write_text(path.read_text().replace("[tourney\n", "[tourney]\n", 1))
    assert run.wait(timeout=60) == 0, run.stderr.read() if run.stderr else ""
    assert_consistent(path)


def test_run_s_look_at_its_workers_replaces_one_killed_after_it_was_seen_and_ends_once_all_finished(
    tmp_path: Path,
) -> None:
    """`run` looks at each worker once a turn (:meth:`Workers.tend`): a worker killed at any moment is
    replaced while games remain, never taken for one that finished (a kill between two looks once ended a
    run with its game unplayed and status 1, saying nothing)."""
    from tmanager.cli import main
    from tmanager.tourney.processes import Workers

    path = slow_tourney(tmp_path / "t.toml", players=2, delay=0.05)
    workers = Workers(path, [1], tmp_path / "t.log", main=main)
    workers.start()
    try:
        first = workers.processes[0]
        assert workers.tend(store.read(path)) is None  # running
        assert first.pid is not None
        os.kill(first.pid, signal.SIGKILL)
        first.join()
        assert workers.tend(None) is None  # the file unreadable just now: nothing replaced, nor ended
        assert workers.processes == [first]
        assert workers.tend(store.read(path)) is None  # games remain: replaced
        assert workers.processes[0] is not first and workers.processes[0].exitcode is None
        deadline = time.monotonic() + 120
        while (ended := workers.tend(store.read(path))) is None and time.monotonic() < deadline:
            workers.wait(0.1)
        assert ended == 0
    finally:
        workers.stop(graceful=True)
    assert len(assert_consistent(path)) == 2


def test_a_result_typed_by_hand_over_a_game_in_progress_stands_and_the_workers_game_is_not_counted(
    tmp_path: Path,
) -> None:
    """The arbiter's '+' over a game's '*' stood, and the worker's game was dropped without a word but for a
    warning of 'another worker': its claim stayed, and it said '1 game(s) played' of a game in no PGN."""
    path = slow_tourney(tmp_path / "h.toml", players=2, games=2, delay=0.3, max_moves=12)
    worker = start_worker(path, "--games", "1")
    wait_for(lambda: bool(claims_of(path, worker.pid)))
    with files.lock(path):  # as an editor saves: the whole file at once
        text = path.read_text()
        assert 'results = "* ' in text, text
        path.write_text(text.replace('results = "* ', 'results = "+ ', 1))
    # What every claim of another worker does first: its worker lives, so its claim stays (it was dropped, and
    # the worker then warned its game was recorded or claimed by another worker).
    released = run_cli("reset-stale", path)
    assert (released.returncode, released.stdout) == (0, "no stale claims\n"), released.stderr
    assert claims_of(path, worker.pid) == [0]
    out, _ = worker.communicate(timeout=60)
    assert worker.returncode == 0
    assert out.startswith("0 game(s) played"), out
    said = path.with_suffix(".log").read_text()
    assert "game 0: given the result 1-0 by hand while this worker played it: the hand's result stands, " \
        "this worker's game is discarded" in said, said
    tourney = store.read(path)
    assert tourney.results == "+" and tourney.claims == {}
    assert not tourney.pgn_path.exists() or "[GameNumber" not in tourney.pgn_path.read_text()
    assert not list(tourney.live_dir.glob("*")) if tourney.live_dir.exists() else True


def test_a_directory_in_place_of_a_games_live_file_does_not_stop_its_record(tmp_path: Path) -> None:
    """`.t.live/0.json` a directory: the game's record, which removes its live file, ended the worker in a
    traceback, the game lost with its claim."""
    path = slow_tourney(tmp_path / "t.toml", players=2, games=2)
    (tmp_path / ".t.live" / "0.json").mkdir(parents=True)
    done = run_cli("work", path, "--games", "1")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.startswith("1 game(s) played"), done.stdout
    tourney = store.read(path)
    assert tourney.finished_count == 1 and tourney.claims == {}
