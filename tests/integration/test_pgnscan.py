"""The PGN tag scanner: real PGN from python-chess and Stockfish, comment traps, malformed input."""

from __future__ import annotations

import io
import os
import re
import threading
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

from tmanager.core.standings import GameResult
from tmanager.errors import ConfigError
from tmanager.formats import pgnscan
from tmanager.tourney.tallies import tally

STOCKFISH = "/usr/games/stockfish"


def _scan(path: Path) -> tuple[list[GameResult], pgnscan.ScanReport]:
    report = pgnscan.ScanReport()
    return list(pgnscan.scan(path, report)), report


def _write(tmp_path: Path, text: str, name: str = "games.pgn") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_python_chess_pgn_read_back(tmp_path: Path) -> None:
    games = []
    for i, (white, black, result) in enumerate(
        [("Åsa", "Bob", "1-0"), ("Bob", "Åsa", "1/2-1/2"), ('C "x"', "Bob", "0-1")]
    ):
        game = chess.pgn.Game()
        game.headers.update(White=white, Black=black, Result=result, Round=str(i + 1))
        node = game.add_variation(chess.Move.from_uci("e2e4"))
        node.comment = 'a comment\n[White "Trap"]\nstill a comment'
        node = node.add_variation(chess.Move.from_uci("e7e5"))
        games.append(str(game))
    path = _write(tmp_path, "\n\n".join(games) + "\n")
    read, report = _scan(path)
    assert [(g.white, g.black, g.result.pgn, g.round) for g in read] == [
        ("Åsa", "Bob", "1-0", "1"),
        ("Bob", "Åsa", "1/2-1/2", "2"),
        ('C "x"', "Bob", "0-1", "3"),
    ]
    assert not report.warnings
    # python-chess agrees game by game.
    with open(path, encoding="utf-8") as handle:
        theirs = []
        while (headers := chess.pgn.read_headers(handle)) is not None:
            theirs.append((headers["White"], headers["Black"], headers["Result"]))
    assert theirs == [(g.white, g.black, g.result.pgn) for g in read]


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="stockfish not installed")
def test_real_engine_game(tmp_path: Path) -> None:
    board = chess.Board()
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        while not board.is_game_over(claim_draw=True) and board.fullmove_number <= 30:
            move = engine.play(board, chess.engine.Limit(nodes=2000)).move
            assert move is not None
            board.push(move)
    game = chess.pgn.Game.from_board(board)
    result = board.result(claim_draw=True)
    if result == "*":
        result = "1/2-1/2"  # stopped early: call it a draw, as an adjudicator would
    game.headers.update(White="Stockfish A", Black="Stockfish B", Round="1", Result=result)
    game.headers["FEN"] = chess.STARTING_FEN
    path = _write(tmp_path, str(game) + "\n")
    [read], report = _scan(path)
    assert (read.white, read.black, read.result.pgn, read.opening) == (
        "Stockfish A",
        "Stockfish B",
        result,
        chess.STARTING_FEN,
    )
    assert report.games == 1 and not report.warnings


TRAPS = """[Event "t"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 { a comment that spans lines
[White "Fake"]
[Black "Fake"]
[Result "0-1"]
} e5 ; a rest-of-line comment with a brace {
2. Nf3 1-0

[Event "t"]
[White "B"]
[Black "A"]
[Result "1/2-1/2"]

% an escape line {
1. d4 {closed} d5 {two
lines} 1/2-1/2

[Event "t {brace in a tag}"]
[White "A"]
[Black "B"]
[Result "0-1"]

1. c4 0-1
"""


def test_comment_traps(tmp_path: Path) -> None:
    read, report = _scan(_write(tmp_path, TRAPS))
    assert [(g.white, g.black, g.result.pgn) for g in read] == [
        ("A", "B", "1-0"), ("B", "A", "1/2-1/2"), ("A", "B", "0-1")
    ]  # fmt: skip
    assert not report.warnings


def test_comment_trap_across_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tiny chunks put every cut inside comments, tag sections and escape lines.
    monkeypatch.setattr(pgnscan, "CHUNK_SIZE", 7)
    read, report = _scan(_write(tmp_path, TRAPS * 3))
    assert [(g.white, g.result.pgn) for g in read] == [("A", "1-0"), ("B", "1/2-1/2"), ("A", "0-1")] * 3
    assert not report.warnings


MALFORMED = """[White "A"]
[Black "B"]

1. e4 e5 1-0

[White "A"]
[Black "B"]
[Result "*"]

1. e4 *

[White "A"]
[Result "1-0"]

1. e4 1-0

[White "A"]
[Black "B"]
[Result "2-0"]

1. e4 1-0

[White "A"]
[Black "B]
[Result "1-0"]

1. e4 1-0

[White "B"]
[Black "A"]
[Result "0-1"]
[Superseded "yes"]

1. e4 0-1

[White "B"]
[Black "A"]
[Result "1-0"]

1. e4 e5 2. Nf3
"""


def test_malformed_games_are_counted_not_fatal(tmp_path: Path) -> None:
    read, report = _scan(_write(tmp_path, MALFORMED))
    assert [(g.white, g.black, g.result.pgn) for g in read] == [("B", "A", "1-0")]
    assert report.warnings == {
        "missing-result": 1,
        "unfinished": 1,
        "missing-player": 2,
        "bad-result": 1,
        "truncated": 1,
    }
    assert report.superseded == 1
    assert report.sections == 7


def test_unterminated_comment_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.pgn"
    path.write_bytes(b'\xef\xbb\xbf[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 {never closed\n[White "X"]\n')
    read, report = _scan(path)
    assert [(g.white, g.result.pgn) for g in read] == [("A", "1-0")]
    assert report.warnings["unterminated-comment"] == 1


def test_latin1_names_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "latin.pgn"
    path.write_bytes(
        '[White "Åke"]\r\n[Black "Zoë"]\r\n[Result "0-1"]\r\n[GameNumber "7"]\r\n\r\n1. e4 0-1\r\n'.encode("latin-1")
    )
    [game], report = _scan(path)
    assert (game.white, game.black, game.result.pgn, game.game_number) == ("Åke", "Zoë", "0-1", 7)
    assert not report.warnings


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read PGN file"):
        list(pgnscan.scan(tmp_path / "missing.pgn"))


def test_many_games_stream_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pgnscan, "CHUNK_SIZE", 1000)
    out = io.StringIO()
    for i in range(500):
        out.write(f'[Event "e"]\n[Round "{i + 1}"]\n[White "P{i % 7}"]\n[Black "P{(i + 1) % 7}"]\n')
        out.write('[Result "1-0"]\n\n1. e4 {[%clk 0:01:00]} 1-0\n\n')
    read, report = _scan(_write(tmp_path, out.getvalue()))
    assert [g.round for g in read] == [str(i + 1) for i in range(500)]
    assert report.games == 500 and not report.warnings


def _many_games(count: int) -> str:
    out = io.StringIO()
    for i in range(count):
        out.write(f'[Event "e"]\n[Round "{i + 1}"]\n[White "P{i % 7}"]\n[Black "P{(i + 1) % 7}"]\n')
        out.write(f'[GameNumber "{i + 1}"]\n[Result "1-0"]\n\n1. e4 {{[%clk 0:01:00]}} 1-0\n\n')
    return out.getvalue()


def _single_threaded() -> None:
    """Let threads of earlier tests end (python-chess's SimpleEngine stops its own a moment after closing).

    scan forks only a single-threaded process: otherwise the parallel tests would test the serial path.
    """
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(timeout=10)
    assert threading.active_count() == 1, [t.name for t in threading.enumerate()]


@pytest.mark.parametrize("piece_size", [1, 40, 333])
def test_parallel_scan_equals_the_serial_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece_size: int) -> None:
    # Small stretches cut the files everywhere, fake tag lines inside comments included:
    # a stretch that starts inside a comment must be scanned again, knowing.
    monkeypatch.setattr(pgnscan, "PIECE_SIZE", piece_size)
    _single_threaded()
    texts = [TRAPS * 3, MALFORMED + TRAPS, TRAPS + MALFORMED, _many_games(300), TRAPS + '1. e4 {open\n[White "X"]\n']
    for i, text in enumerate(texts):
        path = _write(tmp_path, text, f"{i}.pgn")
        serial, parallel = pgnscan.ScanReport(), pgnscan.ScanReport()
        expected = list(pgnscan.scan(path, serial, jobs=1))
        assert list(pgnscan.scan(path, parallel, jobs=2)) == expected
        assert parallel == serial
        assert expected and serial.sections


@pytest.mark.parametrize("jobs", [1, 2])
def test_warnings_number_games_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    monkeypatch.setattr(pgnscan, "PIECE_SIZE", 200)
    first = _write(tmp_path, _many_games(50), "first.pgn")
    second = _write(tmp_path, _many_games(20) + MALFORMED, "second.pgn")
    report = pgnscan.ScanReport()
    _single_threaded()
    games = list(pgnscan.scan_files([first, second], report, jobs=jobs))
    assert len(games) == 71 and report.sections == 77
    assert report.examples[0] == f"{second}: game 21: no Result tag; game skipped"
    assert report.examples[-1] == f"{second}: game 27: the file ends inside this game"


def test_a_parallel_scan_reads_the_file_it_opened_even_if_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pgnscan, "PIECE_SIZE", 300)
    path = _write(tmp_path, _many_games(200))
    expected = list(pgnscan.scan(path, jobs=1))
    _single_threaded()
    games = pgnscan.scan(path, jobs=2)
    first = next(games)
    # A substitution rewrites the PGN atomically, with tags inserted: every offset moves.
    other = _write(tmp_path, _many_games(200).replace("[Event", '[Superseded "no"]\n[Event'), "new.pgn")
    os.replace(other, path)
    assert [first, *games] == expected


def test_a_tourney_pgn_with_wrapped_comments_and_fastchess_tags_reads_the_same_everywhere(tmp_path: Path) -> None:
    """tmanager's own PGN (fastchess's tags, Chess960 Shredder-FENs, long comments wrapped over lines)
    read by the scanner, python-chess, the dashboard's index and `crosstable`: the same games."""
    import json

    from tests.conftest import ROOT, run_cli
    from tmanager.tourney import store
    from tmanager.web.pgnindex import PgnIndex

    path = tmp_path / "w.toml"
    fields = 'pgn_comment_fields=["timeleft", "latency", "nodes", "pv"]'
    created = run_cli("new", path, "-e", "random-uci:A", "-e", "greedy-uci:B", "-e", "random-xboard:C",
                      "--tc", "10+0.1", "--openings", ROOT / "tourneys" / "openings" / "chess960.epd",
                      "--set", 'variant="chess960"', "--set", "pgn_comments=true", "--set", fields,
                      "--set", "adjudication.max_moves=40")
    assert created.returncode == 0, created.stderr
    assert run_cli("run", path, "--workers", "2").returncode == 0
    pgn = path.with_suffix(".pgn")
    text = pgn.read_text()
    assert max(map(len, text.splitlines())) <= 80 and "[GameDuration " in text
    assert len(re.findall(r'\n\[FEN "[^"]+ w [A-H]{2}[a-h]{2} - 0 1"\]\n\[Variant "Chess960"\]', text)) == 6
    assert any(line.count("{") > line.count("}") for line in text.splitlines())  # a comment wrapped over lines
    scanned, report = _scan(pgn)
    assert not report.warnings and len(scanned) == 6
    with open(pgn, encoding="utf-8") as handle:
        theirs = []
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors and game.board().chess960
            h = game.headers
            theirs.append((h["White"], h["Black"], h["Result"], h["Round"], int(h["GameNumber"]), int(h["Pair"]),
                           h["FEN"]))
    assert theirs == [(g.white, g.black, g.result.pgn, g.round, g.game_number, g.pair, g.opening) for g in scanned]
    index = PgnIndex(pgn)
    index.refresh()
    assert sorted((g.number, g.white, g.result) for g in index.recent(10)) == sorted((t[4], t[0], t[2]) for t in theirs)
    table = run_cli("crosstable", pgn, "--format", "json")
    assert table.returncode == 0, table.stderr
    tourney = store.read(path)
    points = {p["name"]: p["points"] for p in json.loads(table.stdout)["players"]}
    assert points == {p.name: t for p, t in zip(tourney.participants, tally(tourney), strict=True)}


def test_the_web_index_reads_a_game_number_of_unicode_digits_as_none(tmp_path: Path) -> None:
    """``[GameNumber "²"]``: '²' passes ``str.isdigit`` and fails ``int``, which ended the live page's index."""
    from tmanager.web.pgnindex import PgnIndex

    pgn = tmp_path / "g.pgn"
    pgn.write_text('[White "A"]\n[Black "B"]\n[Result "1-0"]\n[GameNumber "²"]\n\n1. e4 e5 1-0\n\n')
    index = PgnIndex(pgn)
    index.refresh()
    assert [(g.number, g.white, g.result) for g in index.recent(10)] == [(None, "A", "1-0")]
