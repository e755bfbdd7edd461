"""UciEngine.play_on against python-chess's own play, with a real engine process: same commands, same moves."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import chess
import chess.engine
import chess.variant
import pytest

from tmanager.tourney.engines import command_line, find_definition, load_definition
from tmanager.tourney.uci import UciEngine

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


async def _games(protocol_class: type[chess.engine.UciProtocol], info: chess.engine.Info) -> list[object]:
    """Each start played out by one engine process for both sides; the moves and what the engine said."""
    _, engine = await protocol_class.popen(_command())
    played: list[object] = []
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
    theirs = asyncio.run(_games(chess.engine.UciProtocol, info))
    sent_by_play = _sent(caplog)
    caplog.clear()
    ours = asyncio.run(_games(UciEngine, info))
    assert ours == theirs
    assert _sent(caplog) == sent_by_play
    assert sent_by_play.count("ucinewgame") == len(STARTS)
    assert any(line.startswith("position fen ") and " moves f1b5 a7a6 " in line for line in sent_by_play)
    assert "setoption name UCI_Chess960 value true" in sent_by_play
    assert "setoption name UCI_Variant value atomic" in sent_by_play
    if info:
        assert all("score" in said for _, said in ours)

