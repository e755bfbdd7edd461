"""UciEngine.play_on against python-chess's own play, with a real engine process: same commands, same moves."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

import chess
import chess.engine
import chess.variant
import pytest

from tests.conftest import run_async
from tmanager.tourney.engines import command_line, find_definition, load_definition
from tmanager.tourney.uci import UciEngine, _PlayOn

pytestmark = pytest.mark.usefixtures("each_event_loop")

PLIES = 40

#: Game starts: the standard position, a FEN with moves already played, Chess960 and a variant.
STARTS: list[Callable[[], chess.Board]] = [
    chess.Board,
    lambda: _pushed(chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"), "f1b5", "a7a6"),
    lambda: chess.Board.from_chess960_pos(518 - 100),
    chess.variant.AtomicBoard,
]


def _pushed(board: chess.Board, *moves: str) -> chess.Board:
    for move in moves:
        board.push_uci(move)
    return board


def _command() -> list[str]:
    data = load_definition(find_definition("random-uci"))
    return list(command_line(data["cmd"], [*data.get("args", []), "--seed", "7"]))


async def _games(
    protocol_class: type[chess.engine.UciProtocol], info: chess.engine.Info
) -> list[tuple[chess.Move, dict[str, object]]]:
    """Each start played out by one engine process for both sides; the moves and what the engine said."""
    _, engine = await protocol_class.popen(_command())
    played: list[tuple[chess.Move, dict[str, object]]] = []
    try:
        await engine.initialize()
        await engine.configure({"Hash": 2})
        for start in STARTS:
            board, game = start(), object()
            while board.ply() < PLIES and not board.is_game_over():
                if isinstance(engine, UciEngine):
                    result = await engine.play_on(board, chess.engine.Limit(nodes=1), game=game, info=info)
                else:
                    result = await engine.play(board, chess.engine.Limit(nodes=1), game=game, info=info)
                assert result.move is not None
                played.append((result.move, {k: v for k, v in result.info.items() if k in ("score", "depth")}))
                board.push(result.move)
    finally:
        await engine.quit()
    return played


def _sent(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The lines python-chess sent to engines (its debug log ``<PROTOCOL (pid=N)>: << LINE``)."""
    return [r.getMessage().split(": << ", 1)[1] for r in caplog.records if ": << " in r.getMessage()]


@pytest.mark.parametrize("info", [chess.engine.INFO_NONE, chess.engine.INFO_SCORE])
def test_play_on_sends_what_play_sends(caplog: pytest.LogCaptureFixture, info: chess.engine.Info) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    theirs = run_async(_games(chess.engine.UciProtocol, info))
    sent_by_play = _sent(caplog)
    caplog.clear()
    ours = run_async(_games(UciEngine, info))
    assert ours == theirs
    assert _sent(caplog) == sent_by_play
    assert sent_by_play.count("ucinewgame") == len(STARTS)
    assert any(line.startswith("position fen ") and " moves f1b5 a7a6 " in line for line in sent_by_play)
    assert "setoption name UCI_Chess960 value true" in sent_by_play
    assert "setoption name UCI_Variant value atomic" in sent_by_play
    if info:
        assert all("score" in said for _, said in ours)


#: An engine that reports several lines per move: scores that change, a line without one, a string.
TALKER = """
import sys, chess
board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["uci"]:
        print("id name talker\\nuciok", flush=True)
    elif words[:1] == ["isready"]:
        print("readyok", flush=True)
    elif words[:1] == ["position"]:
        board = chess.Board()
        for move in words[words.index("moves") + 1:] if "moves" in words else []:
            board.push_uci(move)
    elif words[:1] == ["go"]:
        move, ply = min(board.legal_moves, key=chess.Move.uci).uci(), board.ply()
        print(f"info depth 1 score cp {ply} nodes 10 pv {move}", flush=True)
        print(f"info depth 2 seldepth 3 score cp {-ply} nodes 20 time 1 pv {move}", flush=True)
        print("info depth 3 nodes 30 time 2", flush=True)
        print("info string score cp 999 is not a score", flush=True)
        print(f"bestmove {move}", flush=True)
    elif words[:1] == ["quit"]:
        break
"""


@pytest.mark.parametrize("info", [chess.engine.INFO_SCORE, chess.engine.INFO_BASIC | chess.engine.INFO_SCORE])
def test_play_on_reads_the_reports_play_reads(tmp_path: Path, info: chess.engine.Info) -> None:
    script = tmp_path / "talker.py"
    script.write_text(TALKER)

    async def reports(protocol_class: type[chess.engine.UciProtocol]) -> list[chess.engine.InfoDict]:
        _, engine = await protocol_class.popen([sys.executable, str(script)])
        said = []
        try:
            await engine.initialize()
            board, game = chess.Board(), object()
            while board.ply() < 12:
                if isinstance(engine, UciEngine):
                    result = await engine.play_on(board, chess.engine.Limit(nodes=1), game=game, info=info)
                else:
                    result = await engine.play(board, chess.engine.Limit(nodes=1), game=game, info=info)
                assert result.move is not None
                said.append(result.info)
                board.push(result.move)
        finally:
            await engine.quit()
        return said

    ours, theirs = run_async(reports(UciEngine)), run_async(reports(chess.engine.UciProtocol))
    assert ours == theirs
    assert [said["score"].relative.score() for said in ours] == [-ply for ply in range(12)]


def test_reports_nobody_reads_are_dropped_as_they_are_read_and_nothing_else() -> None:
    async def kept(info: chess.engine.Info, data: bytes) -> bytes:
        command = _PlayOn(UciEngine(), board=chess.Board(), limit=chess.engine.Limit(nodes=1), game=None, info=info)
        return command.wanted_lines(data)

    def wanted(data: bytes, info: chess.engine.Info = chess.engine.INFO_NONE) -> bytes:
        return run_async(kept(info, data))

    assert wanted(b"info depth 1 score cp 3 pv e2e4\n") == b""
    for one_line in (b"info\n", b"info\tdepth 2\n", b"info depth 3\r\n"):  # a read of one line, the usual one
        assert wanted(one_line) == b""
    assert wanted(b"information\n") == b"information\n"
    said = b"info depth 1 score cp 3\ninfo depth 2\r\nbestmove e2e4 ponder e7e5\n"
    assert wanted(said) == b"bestmove e2e4 ponder e7e5\n"
    assert wanted(b"info depth 1\ninformation\ninfo\n") == b"information\n"  # "information" is not a report
    assert wanted(b"info depth 1\nbestmo") == b"info depth 1\nbestmo"  # a line cut short: python-chess joins it
    assert wanted(b"readyok\ninfo depth 1\n") == b"readyok\ninfo depth 1\n"  # left whole, to python-chess
    assert wanted(b"info depth 1 score cp 3\n", chess.engine.INFO_SCORE) == b"info depth 1 score cp 3\n"
