"""The UCI client against python-chess's own UciProtocol, with a real engine process: same commands, same moves,
the same reports; and the reports nobody reads dropped as they are read."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

import chess
import chess.engine
import chess.variant
import pytest

from tests.conftest import assert_consistent, run_async, run_cli
from tmanager.tourney import store
from tmanager.tourney.enginelines import SENT
from tmanager.tourney.engines import command_line, find_definition, load_definition
from tmanager.tourney.search import Score, SearchLimit, Wanted
from tmanager.tourney.transport import popen
from tmanager.tourney.uciclient import UciClient

pytestmark = pytest.mark.usefixtures("each_event_loop")

PLIES = 40

#: Game starts: the standard position, a FEN with moves already played, Chess960 and a variant.
STARTS: list[Callable[[], chess.Board]] = [
    chess.Board,
    lambda: _pushed(chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"), "f1b5", "a7a6"),
    lambda: chess.Board.from_chess960_pos(518 - 100),
    chess.variant.AtomicBoard,
]
#: What python-chess's selectors and ours ask for.
SELECTORS = {chess.engine.INFO_NONE: Wanted.NOTHING, chess.engine.INFO_SCORE: Wanted.SCORE,
             chess.engine.INFO_BASIC | chess.engine.INFO_SCORE: Wanted.BASIC | Wanted.SCORE}


def _pushed(board: chess.Board, *moves: str) -> chess.Board:
    for move in moves:
        board.push_uci(move)
    return board


def _command() -> list[str]:
    data = load_definition(find_definition("random-uci"))
    return list(command_line(data["cmd"], [*data.get("args", []), "--seed", "7"]))


Played = list[tuple[chess.Move, tuple[int | None, int | None, int | None]]]


def _said(info: chess.engine.InfoDict) -> tuple[int | None, int | None, int | None]:
    """python-chess's score (centipawns, mate) and depth."""
    score = info["score"].relative if "score" in info else None
    return (score.score() if score else None, score.mate() if score else None, info.get("depth"))


async def _python_chess_games(info: chess.engine.Info) -> Played:
    """Each start played out by one engine process for both sides, through python-chess; the moves and scores."""
    _, engine = await chess.engine.UciProtocol.popen(_command())
    played: Played = []
    try:
        await engine.initialize()
        await engine.configure({"Hash": 2})
        for start in STARTS:
            board, game = start(), object()
            while board.ply() < PLIES and not board.is_game_over():
                result = await engine.play(board, chess.engine.Limit(nodes=1), game=game, info=info)
                assert result.move is not None
                played.append((result.move, _said(result.info) if info else (None, None, None)))
                board.push(result.move)
    finally:
        await engine.quit()
    return played


async def _our_games(wanted: Wanted, sent: list[str]) -> Played:
    """The same through our client, each line it sends noted in ``sent``."""
    _, engine = await popen(UciClient, _command())
    engine.observer = lambda arrow, line: sent.append(line) if arrow == SENT else None
    played: Played = []
    try:
        await engine.handshake()
        engine.configure({"Hash": 2})
        for start in STARTS:
            board = start()
            await engine.new_game()
            while board.ply() < PLIES and not board.is_game_over():
                reply = await engine.play(board, SearchLimit(nodes=1), wanted=wanted)
                assert reply.move is not None
                score = reply.report.score
                said = (score.cp, score.mate, reply.report.depth) if score else (None, None, reply.report.depth)
                played.append((reply.move, said))
                board.push(reply.move)
    finally:
        await engine.quit()
    return played


def _sent(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The lines python-chess sent to engines (its debug log ``<PROTOCOL (pid=N)>: << LINE``)."""
    return [r.getMessage().split(": << ", 1)[1] for r in caplog.records if ": << " in r.getMessage()]


@pytest.mark.parametrize("info", [chess.engine.INFO_NONE, chess.engine.INFO_SCORE])
def test_the_client_sends_what_python_chess_sends(caplog: pytest.LogCaptureFixture, info: chess.engine.Info) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    theirs = run_async(_python_chess_games(info))
    sent_by_python_chess = _sent(caplog)
    sent_by_us: list[str] = []
    ours = run_async(_our_games(SELECTORS[info], sent_by_us))
    assert [move for move, _ in ours] == [move for move, _ in theirs]
    if info:
        assert [said[:2] for _, said in ours] == [said[:2] for _, said in theirs]
        assert all(said[0] is not None for _, said in ours)
    assert sent_by_us == sent_by_python_chess
    assert sent_by_us.count("ucinewgame") == len(STARTS)
    assert any(line.startswith("position fen ") and " moves f1b5 a7a6 " in line for line in sent_by_us)
    assert "setoption name UCI_Chess960 value true" in sent_by_us
    assert "setoption name UCI_Variant value atomic" in sent_by_us


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
def test_the_client_reads_the_reports_python_chess_reads(tmp_path: Path, info: chess.engine.Info) -> None:
    script = tmp_path / "talker.py"
    script.write_text(TALKER)
    fields = ("depth", "seldepth", "nodes", "time") if info & chess.engine.INFO_BASIC else ()

    async def theirs() -> list[tuple[object, ...]]:
        _, engine = await chess.engine.UciProtocol.popen([sys.executable, str(script)])
        said = []
        try:
            await engine.initialize()
            board, game = chess.Board(), object()
            while board.ply() < 12:
                result = await engine.play(board, chess.engine.Limit(nodes=1), game=game, info=info)
                assert result.move is not None
                said.append((Score(cp=result.info["score"].relative.score()), *(result.info.get(f) for f in fields)))
                board.push(result.move)
        finally:
            await engine.quit()
        return said

    async def ours() -> list[tuple[object, ...]]:
        _, engine = await popen(UciClient, [sys.executable, str(script)])
        said = []
        try:
            await engine.handshake()
            board = chess.Board()
            while board.ply() < 12:
                reply = await engine.play(board, SearchLimit(nodes=1), wanted=SELECTORS[info])
                assert reply.move is not None
                said.append((reply.report.score, *(getattr(reply.report, f) for f in fields)))
                board.push(reply.move)
        finally:
            await engine.quit()
        return said

    mine, python_chess = run_async(ours()), run_async(theirs())
    assert mine == python_chess
    assert [said[0] for said in mine] == [Score(cp=-ply) for ply in range(12)]


class _Lines(UciClient):
    """A client that notes the lines it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def line_received(self, line: str) -> None:
        self.seen.append(line)


def test_reports_nobody_reads_are_dropped_as_they_are_read_and_nothing_else() -> None:
    async def seen(reads: list[bytes], *, skip: bool, watched: bool) -> list[str]:
        client = _Lines()
        client.skip_reports = skip
        if watched:
            client.observer = lambda arrow, line: None
        for data in reads:
            client.pipe_data_received(1, data)
        return client.seen

    def lines(*reads: bytes, skip: bool = True, watched: bool = False) -> list[str]:
        return run_async(seen(list(reads), skip=skip, watched=watched))

    assert lines(b"info depth 1 score cp 3 pv e2e4\n") == []
    for one_line in (b"info\n", b"info\tdepth 2\n", b"info depth 3\r\n"):  # a read of one line, the usual one
        assert lines(one_line) == []
    assert lines(b"information\n") == ["information"]
    said = b"info depth 1 score cp 3\ninfo depth 2\r\nbestmove e2e4 ponder e7e5\n"
    assert lines(said) == ["bestmove e2e4 ponder e7e5"]
    assert lines(b"info depth 1\ninformation\ninfo\n") == ["information"]  # "information" is not a report
    assert lines(b"info depth 1\nbestmo", b"ve e2e4\n") == ["bestmove e2e4"]  # a line cut short, joined
    assert lines(b"readyok\ninfo depth 1\n") == ["readyok"]
    assert lines(b"info depth 1 score cp 3\n", skip=False) == ["info depth 1 score cp 3"]
    assert lines(b"info depth 1\n", watched=True) == ["info depth 1"]  # an engine log sees every line


@pytest.mark.parametrize("opponent", ["greedy-uci", "fault-slow"])
def test_an_engine_gone_while_pondering_crashed_and_did_not_lose_on_time(tmp_path: Path, opponent: str) -> None:
    """Stockfish behind a shell loop that ends at `go ponder` (Stockfish then quits at the end of its input): on a
    ponder miss the game waited for the ponder search's bestmove for the engine's whole clock (20 s here) and was
    scored as a loss 'on time', 'no move after 19184 ms', for a move never asked for. Its opponent answers at once
    (the miss, and stop, come before the engine is gone) or after a second (they come after)."""
    stockfish = Path("/usr/games/stockfish")
    if not stockfish.exists():
        pytest.skip("stockfish is not installed")
    gone = tmp_path / "gone.sh"
    gone.write_text('#!/bin/bash\nwhile IFS= read -r line; do case "$line" in "go ponder"*) exit 0;; esac\n'
                    f"printf '%s\\n' \"$line\"; done | {stockfish}\n")
    gone.chmod(0o755)
    path = tmp_path / "ponder.toml"
    path.write_text(f'[tourney]\ntc = "20"\n\n[[participants]]\nname = "Gone"\ncmd = "{gone}"\nprotocol = "uci"\n'
                    f'ponder = true\n\n[[participants]]\nname = "Other"\nengine = "{opponent}"\n')
    done = run_cli("run", path, "--workers", "2", timeout=120)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert [g["Termination"] for g in games] == ["abandoned", "abandoned"]
    assert all(g["Result"] == ("0-1" if g["White"] == "Gone" else "1-0") for g in games)
    assert store.read(path).faults == {"Gone": {"crash": 2}}
