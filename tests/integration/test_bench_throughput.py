"""tools/bench_throughput.py on real Stockfish processes: its count of the engines' CPU time, and its Python loops."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import types
from pathlib import Path

import psutil

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


def test_the_minimal_loop_on_an_event_loop_plays_the_same_game() -> None:
    """The minimal loop on tmanager's event loop plays, on the same deterministic Stockfish, the game the
    minimal loop on plain pipes plays: the same plies, in one process running two games one after the other."""
    bench_throughput = _bench_throughput()
    plies = _minimal_game_plies()
    played = multiprocessing.Value("i", 0)
    bench_throughput.minimal_loop_games(bench_throughput.STOCKFISH, 2, played)
    assert played.value == 2 * plies > 40


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
