"""tools/bench_throughput.py on real Stockfish processes: its count of the engines' CPU time, and its Python loops."""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import types
from pathlib import Path

import psutil
import pytest

from tests.conftest import ROOT


def test_each_engine_tells_its_cpu_time_on_a_line_of_its_own_when_they_end_together(tmp_path: Path) -> None:
    times = _bench_throughput().EngineTimes(tmp_path)
    engines = [
        subprocess.Popen([str(times.command)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    for engine in engines:
        assert engine.stdin is not None
        engine.stdin.write("go nodes 200000\n")
        engine.stdin.flush()
    for engine in engines:
        assert engine.stdout is not None
        while not engine.stdout.readline().startswith("bestmove"):
            pass
    # What the kernel counts for each Stockfish (the script's child), now that all of them are idle.
    counted = 0.0
    for engine in engines:
        (stockfish,) = psutil.Process(engine.pid).children()
        cpu = stockfish.cpu_times()
        counted += cpu.user + cpu.system
    for engine in engines:  # all quit at once, so that their scripts write together
        assert engine.stdin is not None
        engine.stdin.write("quit\n")
        engine.stdin.flush()
    for engine in engines:
        assert engine.wait(timeout=30) == 0
        assert engine.stdout is not None and engine.stdin is not None
        engine.stdout.close()
        engine.stdin.close()
    assert times.exited() == 4
    assert counted > 0.2, "the searches took some CPU"
    # At least what was counted before they quit (less /proc's ticks of 10 ms), and little more: quitting is cheap.
    assert counted - 0.1 <= times.total() <= counted + 0.25, (times.total(), counted, times.log.read_text())
    times.reset()
    assert (times.exited(), times.total()) == (0, 0.0)


def test_the_minimal_loop_plays_the_games_python_chess_plays(tmp_path: Path) -> None:
    """The minimal Python loop (the floor of a Python manager) ends a game where the rules do: the same plies as
    python-chess's loop with ``is_game_over(claim_draw=True)``, on the same deterministic Stockfish."""
    import chess.engine

    bench_throughput = _bench_throughput()
    plies = _minimal_game_plies()
    board, game = chess.Board(), object()
    sides = [chess.engine.SimpleEngine.popen_uci(bench_throughput.STOCKFISH) for _ in range(2)]
    for side in sides:
        side.configure({"Hash": bench_throughput.HASH_MB, "Threads": 1})
    while not board.is_game_over(claim_draw=True):
        limit = chess.engine.Limit(nodes=bench_throughput.NODES)
        move = sides[len(board.move_stack) % 2].play(board, limit, game=game).move
        assert move is not None
        board.push(move)
    for side in sides:
        side.quit()
    assert plies == len(board.move_stack) > 20


def test_split_parts_the_manager_s_cpu_into_a_cost_per_game_and_a_fixed_cost() -> None:
    per_game = _bench_throughput().per_game
    assert per_game(2.0, 0.56, games=40, fewer=4) == pytest.approx((0.04, 0.4))
    assert per_game(1.0, 1.0, games=40, fewer=4) == (0.0, 1.0)  # all fixed


def test_split_runs_every_contender_with_fewer_games_and_prints_both_parts(tmp_path: Path) -> None:
    bench = [sys.executable, str(ROOT / "tools" / "bench_throughput.py")]
    done = subprocess.run([*bench, "--games", "4", "--split", "2", "--repeat", "1"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    names = ["tmanager run --workers 2", "naive python-chess loop", "minimal Python loop",
             "minimal loop on an event loop"]  # fmt: skip
    table, split = out.split("split by the runs of 2 and 4 games")
    for name in names:
        assert f"run 1: {name}: " in out and f"run 1: {name}, 2 games: " in out  # both counts played
        (main,) = [line for line in table.splitlines() if line.startswith(f"  {name} ")]
        (line,) = [line for line in split.splitlines() if line.startswith(f"  {name} ")]
        each, fixed, at_four = float(line.split()[-4]), float(line.split()[-2][:-1]), float(line.split()[-1][:-1])
        assert at_four == float(main.split()[-4][:-1]), (main, line)  # the main table's manager CPU
        assert fixed + 4 * each / 1000 == pytest.approx(at_four, abs=0.011), line  # the line through both counts
    assert "ratio tmanager / minimal loop on an event loop" in split
    refused = subprocess.run([*bench, "--games", "4", "--split", "4"], capture_output=True, text=True, cwd=tmp_path,
                             timeout=60, check=False)  # fmt: skip
    assert refused.returncode == 2
    assert "--split 4: must be even, at least 2 and fewer than --games (4)" in refused.stderr


def _bench_throughput() -> types.ModuleType:
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_throughput

    return bench_throughput


def _minimal_game_plies() -> int:
    """The plies of a game of the minimal Python loop from the start position."""
    bench_throughput = _bench_throughput()
    engines = (bench_throughput.PipeEngine(bench_throughput.STOCKFISH),
               bench_throughput.PipeEngine(bench_throughput.STOCKFISH))  # fmt: skip
    plies: int = bench_throughput.minimal_game(engines)
    for engine in engines:
        engine.quit()
    return plies


@pytest.mark.parametrize("loop", ["minimal_loop_games", "minimal_reader_thread_games", "bounded_read_games",
                                  "alarm_read_games"])
def test_each_variant_of_the_minimal_loop_plays_its_game(loop: str) -> None:
    """Each variant of the minimal loop (on an event loop, with reader threads, with reads bounded by ``poll`` or
    by an alarm) plays, on the same deterministic Stockfish, the game the minimal loop on plain pipes plays: the same
    plies, twice, in a process of its own (as the benchmark runs it; an alarm is its main thread's)."""
    bench_throughput = _bench_throughput()
    plies = _minimal_game_plies()
    played = multiprocessing.Value("i", 0)
    process = multiprocessing.get_context("fork").Process(
        target=getattr(bench_throughput, loop), args=(bench_throughput.STOCKFISH, 2, played)
    )
    process.start()
    process.join(timeout=120)
    assert process.exitcode == 0 and played.value == 2 * plies > 40


def test_an_alarm_bounds_a_wait_for_an_answer_that_never_comes() -> None:
    # In a process of its own: the engine takes SIGALRM, which pytest-timeout uses here.
    process = multiprocessing.get_context("fork").Process(target=_wait_for_an_answer_that_never_comes)
    process.start()
    process.join(timeout=60)
    if process.is_alive():
        process.kill()
    assert process.exitcode == 0


def _wait_for_an_answer_that_never_comes() -> None:
    bench_throughput = _bench_throughput()
    engine = bench_throughput.AlarmPipeEngine(bench_throughput.STOCKFISH)
    vars(bench_throughput)["ANSWER_TIMEOUT"] = 0.2
    try:
        with pytest.raises(TimeoutError):
            engine.ask("isready\n", b"never")  # Stockfish says readyok, and then nothing
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        engine.quit()
