"""Debian's XBoard engines through tmanager.tourney.xboardclient: full games, edit set-ups, no ping, late features."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Mapping

import chess
import pytest

from tmanager.tourney.engine import Engine
from tmanager.tourney.enginelines import SENT, EngineError, LineObserver, UnsupportedLimit
from tmanager.tourney.engines import GAMES_PATH, EngineSpec, Protocol, command_line, find_definition, load_definition
from tmanager.tourney.search import SearchLimit
from tmanager.tourney.xboardclient import XBoardClient

ENGINES = ["fairymax", "gnuchess", "phalanx", "sjeng", "hoichess"]

#: 1. e4 e5 2. Nf3 Nc6 3. Bc4, Black to move with all castling rights: an opening-book EPD line.
EPD = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - bm Nf6; id \"Italian\";"

#: Black mates in one (Ra8-a1): only an engine that knows Black is to move finds it.
BLACK_MATES = "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"

FeatureMap = Mapping[str, str | int | bool]


def definition(name: str) -> tuple[tuple[str, ...], FeatureMap]:
    """The command and assumed features of ``engines/NAME.toml``; skip if the program is absent."""
    data = load_definition(find_definition(name))
    program = data["cmd"] if isinstance(data["cmd"], str) else data["cmd"][0]
    if not (shutil.which(program) or shutil.which(program, path=GAMES_PATH)):
        pytest.skip(f"{program} is not installed (apt-get install {program})")
    return command_line(data["cmd"], data.get("args", [])), data.get("xboard_features", {})


def clocks(seconds: float) -> SearchLimit:
    # No depth limit: GNU Chess and Phalanx reject `sd`.
    return SearchLimit(white_clock=seconds, black_clock=seconds, white_inc=0.05, black_inc=0.05)


async def start(
    command: tuple[str, ...] | list[str], features: FeatureMap, sent: list[str] | None = None
) -> tuple[Engine, XBoardClient]:
    """The engine started as a game starts it; each line sent to it noted in ``sent``."""
    spec = EngineSpec("X", tuple(command), Protocol.XBOARD, xboard_features=features, handshake_timeout=10)
    observer: LineObserver | None = None if sent is None else (lambda arrow, line: sent.append(line) if arrow == SENT
                                                                else None)
    engine = await Engine.start(spec, observer=observer)
    assert isinstance(engine.client, XBoardClient)
    return engine, engine.client


async def self_play(
    name: str, board: chess.Board, *, plies: int, features: FeatureMap | None = None, sent: list[str] | None = None,
) -> tuple[chess.Board, XBoardClient]:
    """One engine process plays both sides of one game for ``plies`` plies, then quits."""
    command, assumed = definition(name)
    engine, client = await start(command, assumed if features is None else features, sent)
    try:
        for _ in range(plies):
            if board.is_game_over():
                break
            reply = await asyncio.wait_for(client.play(board, clocks(2.0)), timeout=30)
            assert reply.move is not None
            assert reply.move in board.legal_moves
            board.push(reply.move)
        await asyncio.wait_for(client.quit(), timeout=10)
    finally:
        engine.transport.close()
    assert_reaped(engine.pid)
    return board, client


def assert_reaped(pid: int) -> None:
    """The engine and everything in its process group are gone."""
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)


@pytest.mark.parametrize("name", ENGINES)
def test_game_from_the_initial_position(name: str) -> None:
    board, _ = asyncio.run(self_play(name, chess.Board(), plies=8))
    assert len(board.move_stack) == 8


@pytest.mark.parametrize("name", ENGINES)
def test_game_from_an_epd_position(name: str) -> None:
    board = chess.Board()
    board.set_epd(EPD)
    board, _ = asyncio.run(self_play(name, board, plies=6))
    assert board.root().fen() == "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 0 1"
    assert len(board.move_stack) == 6


def test_no_setboard_uses_edit_with_the_a2a3_kludge() -> None:
    lines: list[str] = []
    board, engine = asyncio.run(self_play("fairymax", chess.Board(BLACK_MATES), plies=1, sent=lines))
    assert engine.features["setboard"] == 0
    assert board.move_stack == [chess.Move.from_uci("a8a1")] and board.is_checkmate()
    assert not any(line.startswith("setboard") for line in lines)
    edit = lines.index("edit")
    assert lines[edit - 3 : edit + 2] == ["new", "force", "a2a3", "edit", "#"]
    white = lines[edit + 2 : lines.index("c")]
    black = lines[lines.index("c") + 1 : lines.index(".")]
    assert sorted(white) == ["Kg1", "Pf2", "Pg2", "Ph2"]
    assert sorted(black) == ["Kg8", "Pf7", "Pg7", "Ph7", "Ra8"]


def test_position_edit_cannot_express_is_refused_clearly() -> None:
    async def attempt() -> None:
        command, assumed = definition("fairymax")
        engine, client = await start(command, assumed)
        try:
            # King and rooks at home but no castling rights: edit would grant them.
            board = chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1")
            with pytest.raises(EngineError, match=r"setboard=0.*castling rights KQkq.*not -"):
                await client.play(board, clocks(2.0))
            await client.quit()
        finally:
            engine.transport.close()

    asyncio.run(attempt())


def test_no_ping_takes_the_move_as_the_synchronisation() -> None:
    lines: list[str] = []
    board, engine = asyncio.run(self_play("fairymax", chess.Board(), plies=6, features={"ping": False}, sent=lines))
    assert engine.features["ping"] == 0
    assert len(board.move_stack) == 6
    assert lines.count("go") == 6
    assert not any(line.startswith("ping") for line in lines)


def test_gnuchess_negotiates_without_assumptions() -> None:
    # GNU Chess 6.2.7 throws away what it read with its first line (docs/xboard-engines.md):
    # its features come from a `protover 2` sent again, within the negotiation.
    lines: list[str] = []
    board, engine = asyncio.run(self_play("gnuchess", chess.Board(), plies=4, features={}, sent=lines))
    assert len(board.move_stack) == 4
    assert engine.features["done"] == 1 and engine.features["ping"] == 1 and engine.features["usermove"] == 1
    assert lines[:2] == ["xboard", "protover 2"]
    # Asked again only until it answers, less and less often: its front end crashes on a pile of answers.
    assert 1 <= lines.count("protover 2") <= 5


def test_gnuchess_starts_every_time() -> None:
    # Started with --xboard, most starts here said nothing until more input came.
    async def run() -> None:
        command, assumed = definition("gnuchess")
        for _ in range(8):
            engine, client = await start(command, assumed)
            try:
                assert client.features.get("done") == 1  # it answered within the negotiation
                reply = await asyncio.wait_for(client.play(chess.Board(), clocks(2.0)), timeout=30)
                assert reply.move is not None
                assert reply.move in chess.Board().legal_moves
                await asyncio.wait_for(client.quit(), timeout=10)
            finally:
                engine.transport.close()

    asyncio.run(run())


def test_done0_without_done1_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(XBoardClient, "done0_timeout", 0.5)
    (fairymax, *_), _ = definition("fairymax")
    # A real engine whose `feature done=1` never arrives: filtered out by a shell pipeline.
    command = ["sh", "-c", f"{fairymax} | sed -u '/done=1/d'"]

    async def run() -> int:
        loop = asyncio.get_running_loop()
        started = loop.time()
        engine, client = await start(command, {})
        waited = loop.time() - started
        assert 0.5 <= waited < 3
        assert client.features["done"] == 0 and client.features["ping"] == 1
        board = chess.Board(BLACK_MATES)
        reply = await client.play(board, clocks(2.0))
        assert reply.move == chess.Move.from_uci("a8a1")
        await asyncio.wait_for(client.quit(), timeout=10)
        engine.transport.close()
        return engine.pid

    assert_reaped(asyncio.run(run()))


def test_a_feature_of_unicode_digits_is_kept_as_text() -> None:
    """``memory=²``: '²' passes ``str.isdigit`` and fails ``int``, which ended the handshake in a traceback."""
    (fairymax, *_), _ = definition("fairymax")
    command = ["sh", "-c", f"{fairymax} | sed -u 's/done=1/memory=² done=1/'"]

    async def run() -> int:
        engine, client = await start(command, {})
        assert client.features["memory"] == "²" and client.features["done"] == 1
        reply = await client.play(chess.Board(BLACK_MATES), clocks(2.0))
        assert reply.move == chess.Move.from_uci("a8a1")
        await asyncio.wait_for(client.quit(), timeout=10)
        engine.transport.close()
        return engine.pid

    assert_reaped(asyncio.run(run()))


def test_abandoned_mid_move_quits_without_hanging() -> None:
    async def run() -> int:
        command, assumed = definition("fairymax")
        engine, client = await start(command, assumed)
        long_think = SearchLimit(white_clock=600, black_clock=600)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(client.play(chess.Board(), long_think), timeout=0.3)
        await asyncio.wait_for(client.quit(), timeout=client.quit_timeout + 3)
        engine.transport.close()
        await client.quit()  # again, on a closed transport: nothing happens
        return engine.pid

    assert_reaped(asyncio.run(run()))


def test_hoichess_survives_a_clock_under_one_second() -> None:
    # python-chess alone sends `level 0 0:00 …` once a clock is under a second; HoiChess exits on it.
    lines: list[str] = []

    async def run() -> None:
        command, assumed = definition("hoichess")
        engine, client = await start(command, assumed, lines)
        board = chess.Board()
        try:
            for seconds in (3.0, 3.0, 0.8, 0.8, 0.5, 0.5):
                limit = SearchLimit(white_clock=seconds, black_clock=seconds, white_inc=0, black_inc=0)
                board.push((await client.play(board, limit)).move)  # type: ignore[arg-type]
            await client.quit()
        finally:
            engine.transport.close()
        assert engine.transport.get_returncode() == 0

    asyncio.run(run())
    assert [line for line in lines if line.startswith("level")] == ["level 0 0:03 0"]


@pytest.mark.parametrize("name", ["hoichess", "fairymax"])
@pytest.mark.parametrize(("base", "increment", "level"), [
    (0.9, 0.1, "level 0 0:01 0.1"),  # under a second: 0:00 (or XBoard's 0) made HoiChess exit, scored as a crash
    (0.3, 0.0, "level 0 0:01 0"),
    (59.5, 1.0, "level 0 0:59 1"),  # whole seconds, as XBoard sends them; INC as its %g
    (90.0, 0.25, "level 0 1:30 0.25"),
])
def test_a_base_under_a_second_or_a_minute_is_a_level_the_engine_takes(
    name: str, base: float, increment: float, level: str,
) -> None:
    lines: list[str] = []

    async def run() -> None:
        command, assumed = definition(name)
        engine, client = await start(command, assumed, lines)
        board = chess.Board()
        try:
            for _ in range(2):
                limit = SearchLimit(white_clock=base, black_clock=base, white_inc=increment, black_inc=increment)
                reply = await asyncio.wait_for(client.play(board, limit), timeout=30)
                assert reply.move is not None and reply.move in board.legal_moves
                board.push(reply.move)
            await client.quit()
        finally:
            engine.transport.close()
        assert engine.transport.get_returncode() == 0

    asyncio.run(run())
    assert [line for line in lines if line.startswith("level")] == [level]


def test_hoichess_rejecting_a_command_is_explained() -> None:
    async def run() -> XBoardClient:
        command, assumed = definition("hoichess")
        engine, client = await start(command, assumed)
        try:
            # It writes why, then exits: the why comes first, and is the tourney's error, not a crash.
            with pytest.raises(UnsupportedLimit, match=r"time per move: it answered 'Illegal time value\.'"):
                await client.play(chess.Board(), SearchLimit(move_time=0.5))
        finally:
            engine.transport.close()
        return client

    engine = asyncio.run(run())
    assert engine.last_complaint == "Illegal time value."
