"""The game runner with real engine processes: faults, adjudication, clocks, process reaping."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os

import chess
import chess.pgn
import psutil
import pytest

from tmanager.core.timecontrol import TimeControl
from tmanager.tourney.engines import EngineSpec, command_line, find_definition, load_definition
from tmanager.tourney.play import Adjudication, GameRecord, GameSpec, play_game


def spec(definition: str, name: str | None = None, **changes: object) -> EngineSpec:
    data = load_definition(find_definition(definition))
    engine = EngineSpec(
        name=name or definition,
        command=command_line(data["cmd"], data.get("args", [])),
        protocol=data["protocol"],
        options=data.get("options", {}),
        handshake_timeout=2.0,
    )
    return dataclasses.replace(engine, **changes)  # type: ignore[arg-type]


def play(white: EngineSpec, black: EngineSpec, tc: str = "10+0.1", **changes: object) -> GameRecord:
    limits = TimeControl.parse(tc)
    game = GameSpec(white=white, black=black, white_limits=limits, black_limits=limits, **changes)  # type: ignore[arg-type]
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    record = asyncio.run(play_game(game))
    after = {p.pid for p in psutil.Process().children(recursive=True)} - before
    assert not after, "engine processes were left behind"
    return record


def moves_of(record: GameRecord) -> list[chess.Move]:
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None and not game.errors
    return list(game.mainline_moves())


@pytest.mark.parametrize(
    ("faulty", "termination", "fault", "reason"),
    [
        ("fault-crash-start", "abandoned", "crash", "failed to start"),
        ("fault-no-handshake", "abandoned", "handshake", "did not finish its handshake"),
        ("fault-crash-mid", "abandoned", "crash", "engine crashed"),
        ("fault-illegal", "rules infraction", "illegal move", "illegal or unreadable move"),
        ("fault-garbage", "rules infraction", "illegal move", "illegal or unreadable move"),
        ("fault-stall", "time forfeit", "time forfeit", "loses on time"),
        ("fault-slow", "time forfeit", "time forfeit", "loses on time"),
        ("fault-false-claim", "rules infraction", "false claim", "false result claim"),
    ],
)
@pytest.mark.parametrize("faulty_color", [chess.WHITE, chess.BLACK])
def test_each_fault_costs_the_faulty_engine_the_game(
    faulty: str, termination: str, fault: str, reason: str, faulty_color: chess.Color
) -> None:
    bad, good = spec(faulty, "Bad"), spec("greedy-uci", "Good")
    # The fault strikes at Bad's second move, before any mate is possible: nothing can end the game first.
    bad = dataclasses.replace(bad, command=(*bad.command, "--after", "1"))
    white, black = (bad, good) if faulty_color == chess.WHITE else (good, bad)
    record = play(white, black, tc="2+0.05")
    assert record.result == ("0-1" if faulty_color == chess.WHITE else "1-0")
    assert record.termination == termination
    assert reason in record.reason
    assert dict(record.faults) == {"Bad": fault}
    assert f'[Termination "{termination}"]' in record.pgn
    assert reason in record.pgn  # the final comment
    moves_of(record)  # the PGN reads back cleanly


def test_stall_with_nodes_limit_uses_move_timeout() -> None:
    limits = TimeControl.parse("inf", nodes=100)
    game = GameSpec(white=spec("fault-stall", "Bad"), black=spec("random-uci", "Good"),
                    white_limits=limits, black_limits=limits, move_timeout=1.0)
    record = asyncio.run(play_game(game))
    assert (record.result, record.termination) == ("0-1", "abandoned")
    assert "stalls" in record.reason and record.faults == {"Bad": "stall"}


def test_normal_game_is_legal_and_ends_by_the_rules() -> None:
    record = play(spec("greedy-uci", "A"), spec("greedy-xboard", "B"), comments=True)
    moves = moves_of(record)
    board = chess.Board()
    for move in moves:
        assert move in board.legal_moves
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.result() == record.result
    assert record.termination == "normal" and not record.faults
    assert "d=1" in record.pgn  # per-move comments from the engines' info


def test_max_moves_adjudication() -> None:
    record = play(spec("random-uci", "A"), spec("random-uci", "B"),
                  adjudication=Adjudication(max_moves=10))
    if record.termination == "adjudication":
        assert record.result == "1/2-1/2" and len(moves_of(record)) == 20
        assert "10 moves reached" in record.reason
    else:  # a random game may end by the rules before move 10
        assert len(moves_of(record)) < 20


def test_resign_adjudication_needs_both_engines() -> None:
    loser = spec("random-uci", "Loser", command=(*spec("random-uci").command, "--score", "-1000"))
    winner = spec("random-uci", "Winner", command=(*spec("random-uci").command, "--score", "1000"))
    rules = Adjudication(resign_score=500, resign_moves=3)
    record = play(loser, winner, adjudication=rules)
    assert (record.result, record.termination) == ("0-1", "adjudication")
    assert "White resigns" in record.reason
    assert len(moves_of(record)) == 6  # three moves each
    # Only one engine sure of the outcome: no adjudication.
    record = play(loser, spec("random-uci", "Unsure", command=(*spec("random-uci").command, "--score", "0")),
                  adjudication=Adjudication(resign_score=500, resign_moves=3, max_moves=12))
    assert "resigns" not in record.reason


def test_draw_adjudication() -> None:
    zero = (*spec("random-uci").command, "--score", "0")
    rules = Adjudication(draw_from_move=5, draw_score=10, draw_moves=3)
    record = play(spec("random-uci", "A", command=zero), spec("random-uci", "B", command=zero), adjudication=rules)
    if record.termination == "adjudication":
        assert record.result == "1/2-1/2" and "Draw by adjudication" in record.reason
        assert len(moves_of(record)) == 2 * 5 + 6
    else:
        assert len(moves_of(record)) < 2 * 5 + 6


def test_start_position_and_opening_moves_are_recorded() -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    record = play(spec("random-uci", "A"), spec("random-xboard", "B"), start_fen=fen, opening_moves=("f1b5", "a7a6"),
                  adjudication=Adjudication(max_moves=8))
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    mainline = list(game.mainline())
    assert [n.move.uci() for n in mainline[:2]] == ["f1b5", "a7a6"]
    assert mainline[1].comment.startswith("book")


def test_stockfish_game_under_clock_no_time_loss() -> None:
    sf = spec("stockfish", "SF1")
    record = play(sf, dataclasses.replace(sf, name="SF2"), tc="1+0.01", adjudication=Adjudication(max_moves=60))
    assert record.termination != "time forfeit"
    assert record.worst_overstep is not None and record.worst_overstep < 0


@pytest.fixture
def syzygy() -> str:
    path = os.environ.get("TMANAGER_TEST_SYZYGY", "")
    if not path:
        pytest.skip("TMANAGER_TEST_SYZYGY not set: tools/test.sh provides the tables")
    return path


@pytest.mark.parametrize(
    ("fen", "result", "reason"),
    [
        # The lone king moves first: whatever the random engines play, the outcome cannot change
        # (a queen moved first could be left where the king takes it).
        ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", "1-0", "White wins by tablebase adjudication"),
        ("8/8/8/4K3/8/8/8/kq6 w - - 0 1", "0-1", "Black wins by tablebase adjudication"),
        ("8/8/3k4/3n4/8/3N4/3K4/8 w - - 0 1", "1/2-1/2", "Draw by tablebase adjudication"),
    ],
)
def test_syzygy_adjudication(syzygy: str, fen: str, result: str, reason: str) -> None:
    rules = Adjudication(syzygy=syzygy, syzygy_pieces=5)
    record = play(spec("random-uci", "A"), spec("random-xboard", "B"), start_fen=fen, adjudication=rules)
    assert (record.result, record.termination, record.reason) == (result, "adjudication", reason)
    assert len(moves_of(record)) == 1
