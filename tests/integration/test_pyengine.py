"""The engines we ship: engines/pyengine.py through its definitions, driven by python-chess."""

from __future__ import annotations

import logging
import re
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.variant
import psutil
import pytest

from tmanager.tourney.engines import BUNDLED_ENGINES, command_line, load_definition

CLOCK = chess.engine.Limit(white_clock=60, black_clock=60)


def command(name: str, *extra: str) -> list[str]:
    """The command line of shipped definition ``name``, with extra arguments appended."""
    data = load_definition(BUNDLED_ENGINES / f"{name}.toml")
    return list(command_line(data["cmd"], [*data.get("args", []), *extra]))


def protocol_of(name: str) -> str:
    return str(load_definition(BUNDLED_ENGINES / f"{name}.toml")["protocol"])


def popen(name: str, *extra: str, protocol: str = "", timeout: float = 10.0) -> chess.engine.SimpleEngine:
    """Start definition ``name``, optionally switched to the other ``protocol``, seeded unless
    ``extra`` gives another seed, so that every test plays the same games each time."""
    protocol = protocol or protocol_of(name)
    simple = chess.engine.SimpleEngine
    opener = simple.popen_uci if protocol == "uci" else simple.popen_xboard
    return opener(command(name, "--seed", "1", *extra, "--protocol", protocol), timeout=timeout)


def play_moves(engine: chess.engine.SimpleEngine, moves: int) -> chess.Board:
    """Let the engine play ``moves`` moves as White, answering each with Black's first legal move."""
    board = chess.Board()
    for _ in range(moves):
        result = engine.play(board, CLOCK)
        assert result.move is not None
        assert result.move in board.legal_moves
        board.push(result.move)
        board.push(next(iter(board.legal_moves)))
    return board


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    _, alive = psutil.wait_procs(children, timeout=5)
    assert not alive, f"engine processes left running: {alive}"


def test_definitions_load_and_fault_definitions_select_their_fault() -> None:
    names = [p.stem for p in BUNDLED_ENGINES.glob("*.toml")]
    for name in ("random-uci", "random-xboard", "greedy-uci", "greedy-xboard", "stockfish"):
        assert name in names
    faults = [n for n in names if n.startswith("fault-")]
    assert len(faults) == 10  # one per fault of pyengine.FAULTS
    for name in faults:
        cmd = command(name)
        assert cmd[cmd.index("--fault") + 1] == name.removeprefix("fault-")
        assert cmd[cmd.index("--protocol") + 1] == protocol_of(name)


@pytest.mark.parametrize("name", ["random-uci", "random-xboard", "greedy-uci", "greedy-xboard"])
def test_plays_legal_moves_and_reports_a_score(name: str) -> None:
    with popen(name) as engine:
        assert engine.id["name"] == "pyengine"
        board = chess.Board()
        while len(board.move_stack) < 20 and not board.is_game_over():
            result = engine.play(board, CLOCK, info=chess.engine.INFO_ALL)
            assert result.move is not None
            assert result.move in board.legal_moves
            assert result.info["depth"] == 1
            assert result.info["pv"] == [result.move]
            assert isinstance(result.info["score"].relative, chess.engine.Cp)
            board.push(result.move)


def test_score_is_material_after_the_move() -> None:
    # Only capture available: Black's queen on d5 hangs to the e4 pawn.
    board = chess.Board("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1")
    with popen("greedy-uci") as engine:
        result = engine.play(board, CLOCK, info=chess.engine.INFO_ALL)
    assert result.move == chess.Move.from_uci("e4d5")
    assert result.info["score"].relative == chess.engine.Cp(100)


@pytest.mark.parametrize("name", ["greedy-uci", "greedy-xboard"])
def test_score_option_forces_the_reported_score(name: str) -> None:
    with popen(name, "--score", "-1000") as engine:
        board = chess.Board()
        for _ in range(3):
            result = engine.play(board, CLOCK, info=chess.engine.INFO_ALL)
            assert result.info["score"].relative == chess.engine.Cp(-1000)
            assert result.move is not None
            board.push(result.move)


@pytest.mark.parametrize("name", ["greedy-uci", "greedy-xboard"])
def test_greedy_takes_the_most_valuable_piece(name: str) -> None:
    # The knight on d4 can take a pawn (b5), a rook (c6) or the queen (e6).
    board = chess.Board("4k3/8/2r1q3/1p6/3N4/8/8/4K3 w - - 0 1")
    with popen(name) as engine:
        assert engine.play(board, CLOCK).move == chess.Move.from_uci("d4e6")


def test_greedy_prefers_mate_in_one_to_a_capture() -> None:
    # Ra1-a8 mates; Rh1xh5 wins the queen.
    board = chess.Board("6k1/5ppp/8/7q/8/8/8/R3K2R w - - 0 1")
    with popen("greedy-uci") as engine:
        assert engine.play(board, CLOCK).move == chess.Move.from_uci("a1a8")


@pytest.mark.parametrize("name", ["random-uci", "random-xboard"])
def test_seed_makes_moves_reproducible(name: str) -> None:
    def moves(seed: str) -> list[chess.Move]:
        with popen(name, "--seed", seed) as engine:
            board = chess.Board()
            for _ in range(12):
                board.push(engine.play(board, CLOCK).move)  # type: ignore[arg-type]
            return board.move_stack

    assert moves("7") == moves("7")
    assert moves("7") != moves("8")


@pytest.mark.parametrize("name", ["random-uci", "greedy-xboard"])
@pytest.mark.parametrize(
    "start",
    [
        chess.Board.from_chess960_pos(100),
        chess.variant.AtomicBoard(),
        chess.variant.CrazyhouseBoard(),
        chess.variant.ThreeCheckBoard(),
    ],
    ids=["chess960", "atomic", "crazyhouse", "3check"],
)
def test_plays_variants(name: str, start: chess.Board) -> None:
    board = start.copy()
    with popen(name, "--seed", "1") as engine:
        for _ in range(30):
            if board.is_game_over():
                break
            result = engine.play(board, CLOCK)
            assert result.move is not None
            assert result.move in board.legal_moves
            board.push(result.move)


@pytest.mark.parametrize("name", ["greedy-uci", "greedy-xboard"])
def test_chess960_castling_both_ways(name: str) -> None:
    # Only castling (Kg1, Rh1 -> Rf1) mates: the engine must send it in its protocol's notation.
    board = chess.Board("4rkr1/4p1p1/8/8/8/8/8/6KR w H - 0 1", chess960=True)
    with popen(name) as engine:
        move = engine.play(board, CLOCK).move
        assert move is not None and board.is_castling(move)
        # And it must understand castling sent to it: Black answers White's O-O-O in a 960 line.
        board = chess.Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1", chess960=True)
        board.push_san("O-O-O")
        for _ in range(5):
            result = engine.play(board, CLOCK)
            assert result.move is not None
            assert result.move in board.legal_moves
            board.push(result.move)
            board.push(next(iter(board.legal_moves)))


def test_random_uci_against_greedy_xboard_is_legal_throughout() -> None:
    board = chess.Board()
    with popen("random-uci", "--seed", "3") as white, popen("greedy-xboard", "--seed", "4") as black:
        while not board.is_game_over(claim_draw=True) and len(board.move_stack) < 80:
            engine = white if board.turn == chess.WHITE else black
            result = engine.play(board, CLOCK, info=chess.engine.INFO_ALL)
            assert result.move is not None
            assert result.move in board.legal_moves
            assert "score" in result.info
            board.push(result.move)
    assert len(board.move_stack) >= 20


# --- faults --------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_crash_start_exits_before_the_handshake(protocol: str) -> None:
    with pytest.raises(chess.engine.EngineTerminatedError):
        popen("fault-crash-start", protocol=protocol)
    done = subprocess.run(command("fault-crash-start"), capture_output=True, text=True, timeout=10)
    assert done.returncode == 1
    assert done.stdout == ""


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_no_handshake_never_answers_yet_stays_alive(protocol: str) -> None:
    with pytest.raises(TimeoutError):
        popen("fault-no-handshake", protocol=protocol, timeout=0.5)
    with subprocess.Popen(
        command("fault-no-handshake", "--protocol", protocol),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdin and proc.stdout
        proc.stdin.write("uci\nxboard\nprotover 2\nisready\nquit\n")
        proc.stdin.flush()
        readable, _, _ = select.select([proc.stdout], [], [], 0.5)
        assert not readable  # not a byte of output
        assert proc.poll() is None  # even quit is ignored
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0  # but end of input ends it


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_crash_mid_exits_after_n_moves(protocol: str) -> None:
    with popen("fault-crash-mid", protocol=protocol) as engine:
        board = play_moves(engine, 3)
        with pytest.raises(chess.engine.EngineTerminatedError):
            engine.play(board, CLOCK)
    assert engine.protocol.returncode.result() == 3


def test_after_sets_when_a_fault_strikes_also_for_black() -> None:
    with popen("fault-crash-mid", "--after", "1") as engine:
        board = chess.Board()
        board.push_uci("e2e4")
        board.push(engine.play(board, CLOCK).move)  # type: ignore[arg-type]
        board.push_uci("d2d4")
        with pytest.raises(chess.engine.EngineTerminatedError):
            engine.play(board, CLOCK)


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_stall_stops_answering_but_stays_alive(protocol: str) -> None:
    with popen("fault-stall", "--after", "2", protocol=protocol) as engine:
        board = play_moves(engine, 2)
        engine.timeout = 0.5  # SimpleEngine waits limit.time plus this before giving up
        with pytest.raises(TimeoutError):
            engine.play(board, chess.engine.Limit(time=0.01))
        assert engine.transport.get_returncode() is None
    # Alive and still listening: it answers isready after ignoring go.
    cmd = command("fault-stall", "--after", "0")
    with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdin and proc.stdout
        proc.stdin.write("uci\nposition startpos\ngo wtime 1000 btime 1000\nisready\nquit\n")
        proc.stdin.flush()
        lines = [line.strip() for line in proc.stdout]
    assert lines[-2:] == ["uciok", "readyok"]


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_illegal_plays_a_move_from_an_empty_square(protocol: str) -> None:
    with popen("fault-illegal", protocol=protocol) as engine:
        board = play_moves(engine, 3)
        with pytest.raises(chess.engine.EngineError) as error:
            engine.play(board, CLOCK)
    text = re.search(r"\b([a-h][1-8][a-h][1-8])\b", str(error.value))
    assert text, str(error.value)
    move = chess.Move.from_uci(text.group(1))
    assert board.piece_at(move.from_square) is None


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_garbage_answers_an_unparseable_move(protocol: str) -> None:
    with popen("fault-garbage", protocol=protocol) as engine:
        board = play_moves(engine, 3)
        with pytest.raises(chess.engine.EngineError, match="xyz123"):
            engine.play(board, CLOCK)


@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_null_answers_a_null_move(protocol: str) -> None:
    with popen("fault-null", protocol=protocol) as engine:
        board = play_moves(engine, 3)
        result = engine.play(board, CLOCK)
    assert result.move == chess.Move.null()  # python-chess takes it: the manager must refuse it


def test_false_claim_claims_a_mate_that_is_not_there(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    with popen("fault-false-claim") as engine:
        board = play_moves(engine, 3)
        result = engine.play(board, CLOCK)
    assert result.move is None and not result.resigned
    assert not board.is_game_over()
    assert any(r.getMessage().endswith(">> 1-0 {White mates}") for r in caplog.records)


def test_false_claim_is_refused_for_uci() -> None:
    done = subprocess.run(command("fault-false-claim", "--protocol", "uci"), capture_output=True, text=True)
    assert done.returncode == 2
    assert "needs --protocol xboard" in done.stderr


@pytest.mark.timing
@pytest.mark.parametrize("protocol", ["uci", "xboard"])
def test_slow_thinks_for_the_delay_whatever_the_clock(protocol: str) -> None:
    with popen("fault-slow", "--delay", "0.3", protocol=protocol) as engine:
        start = time.monotonic()
        limit = chess.engine.Limit(white_clock=0.05, black_clock=0.05)
        result = engine.play(chess.Board(), limit, info=chess.engine.INFO_ALL)
        assert time.monotonic() - start >= 0.3  # a lower bound: sleep never returns early
    assert result.move is not None
    assert result.move in chess.Board().legal_moves
    assert result.info["time"] >= 0.3


def test_bad_input_is_reported_not_fatal() -> None:
    script = "uci\nposition fen not-a-fen\nposition startpos moves e2e5\nisready\nquit\n"
    done = subprocess.run(command("random-uci"), input=script, capture_output=True, text=True, timeout=10)
    assert done.returncode == 0
    assert done.stdout.count("info string error") == 2
    assert done.stdout.rstrip().endswith("readyok")


def test_stockfish_definition() -> None:
    data = load_definition(BUNDLED_ENGINES / "stockfish.toml")
    cmd = command_line(data["cmd"])
    if not Path(cmd[0]).is_file():
        pytest.skip("stockfish is not installed (apt-get install stockfish)")
    with chess.engine.SimpleEngine.popen_uci(list(cmd)) as engine:
        engine.configure(data["options"])
        result = engine.play(chess.Board(), chess.engine.Limit(depth=2))
    assert result.move is not None
    assert result.move in chess.Board().legal_moves
