"""A played game's PGN as fastchess writes it: its tags, their order, the time controls in fastchess's
spelling, Chess960 in Shredder-FEN, and lines within PGN's 80 columns (real engine games)."""

from __future__ import annotations

import datetime as dt
import io
import re

import chess
import chess.pgn
import pytest

from tests.conftest import run_async
from tests.integration.test_game_runner import play, spec
from tmanager.core.timecontrol import TimeControl
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.play import GameSpec, play_game

SEVEN = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
ENGINES = ["EngineWhiteName", "EngineWhiteAuthor", "EngineBlackName", "EngineBlackAuthor"]
FASTCHESS = ["GameDuration", "GameStartTime", "GameEndTime", "PlyCount", "Termination"]
TAGS = {"GameNumber": "7", "Pair": "6", "Round": "4", "Event": "E"}


def headers(pgn: str) -> dict[str, str]:
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None and not game.errors
    return dict(game.headers)


def test_fastchess_s_tags_follow_the_seven_in_its_order() -> None:
    before = dt.datetime.now().astimezone().replace(microsecond=0)
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), adjudication=Adjudication(max_moves=5), tags=TAGS)
    after = dt.datetime.now().astimezone()
    tags = headers(record.pgn)
    assert list(tags) == [*SEVEN, *ENGINES, *FASTCHESS, "TimeControl", "GameNumber", "Pair"]
    assert [tags[t] for t in ENGINES] == ["pyengine", "tmanager", "pyengine", "tmanager"], "their id name and author"
    start, end = (dt.datetime.strptime(tags[t], "%Y-%m-%dT%H:%M:%S %z") for t in ("GameStartTime", "GameEndTime"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d [+-]\d{4}", tags["GameStartTime"])
    assert before <= start <= end <= after and tags["Date"] == start.strftime("%Y.%m.%d")
    assert re.fullmatch(r"\d\d:\d\d:\d\d", tags["GameDuration"])
    hours, minutes, seconds = map(int, tags["GameDuration"].split(":"))
    # Both times are cut to the second, the duration too (as fastchess cuts them): a game that crosses a
    # second's change shows one second more between its times than it lasted.
    assert 0 <= (end - start).total_seconds() - (hours * 3600 + minutes * 60 + seconds) <= 1
    assert (tags["PlyCount"], tags["Termination"], tags["TimeControl"]) == ("10", "adjudication", "10+0.1")


@pytest.mark.parametrize(
    ("white", "black", "expected"),
    [
        (TimeControl.parse("8+0.08"), TimeControl.parse("8+0.08"), {"TimeControl": "8+0.08"}),
        (TimeControl.parse("inf", move_time=0.05), TimeControl.parse("inf", move_time=0.05),
         {"TimeControl": "0.05/move"}),
        (TimeControl.parse("inf", nodes=50), TimeControl.parse("inf", depth=1), {"TimeControl": "-"}),
        (TimeControl.parse("40/60+0.6"), TimeControl.parse("inf", nodes=50),
         {"WhiteTimeControl": "40/60+0.6", "BlackTimeControl": "-"}),
    ],
)  # fmt: skip
def test_time_controls_in_fastchess_s_spelling(
    white: TimeControl, black: TimeControl, expected: dict[str, str]
) -> None:
    game = GameSpec(spec("random-uci", "A"), spec("random-uci", "B"), white, black,
                    adjudication=Adjudication(max_moves=2))
    tags = headers(run_async(play_game(game)).pgn)
    assert {k: v for k, v in tags.items() if k.endswith("TimeControl")} == expected


def test_plycount_counts_book_moves_given_as_moves_not_those_behind_a_fen() -> None:
    moves = ("e2e4", "e7e5", "g1f3")
    with_moves = play(spec("random-uci", "A"), spec("random-uci", "B"), opening_moves=moves,
                      adjudication=Adjudication(max_moves=2))
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    from_fen = play(spec("random-uci", "A"), spec("random-uci", "B"), start_fen=board.fen(),
                    adjudication=Adjudication(max_moves=2))
    assert headers(with_moves.pgn)["PlyCount"] == "7" and headers(from_fen.pgn)["PlyCount"] == "4"


@pytest.mark.parametrize(
    ("fen", "shredder"),
    [
        ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
         "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"),
        ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",  # X-FEN in the book
         "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"),
        (None, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),  # position 518 too
    ],
)  # fmt: skip
def test_chess960_fens_are_shredder_fens_as_fastchess_writes_them(fen: str | None, shredder: str) -> None:
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), variant="chess960", start_fen=fen,
                  adjudication=Adjudication(max_moves=2))
    tags = headers(record.pgn)
    assert list(tags)[7:14] == [*ENGINES, "SetUp", "FEN", "Variant"]
    assert (tags["SetUp"], tags["FEN"], tags["Variant"]) == ("1", shredder, "Chess960")
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None and game.board().chess960 and len(list(game.mainline_moves())) == 4


def test_an_engine_s_own_name_is_written_where_it_gave_one() -> None:
    """An XBoard engine's ``myname`` is its name (it gives no author); an engine that never started gave neither:
    its tags are left out, as fastchess leaves out an empty ``id name``."""
    record = play(spec("random-xboard", "X"), spec("fault-crash-start", "C"))
    tags = headers(record.pgn)
    assert [t for t in tags if t.startswith("Engine")] == ["EngineWhiteName"] and tags["EngineWhiteName"] == "pyengine"
    assert tags["Black"] == "C" and tags["Result"] == "1-0"


def test_a_minimal_pgn_has_none_of_the_new_tags() -> None:
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), minimal=True, start_fen=chess.Board().fen(),
                  variant="chess960", adjudication=Adjudication(max_moves=2), tags=TAGS)
    assert list(headers(record.pgn)) == [*SEVEN, "SetUp", "FEN", "Variant", "GameNumber", "Pair"]


def test_move_text_and_long_comments_keep_within_80_columns() -> None:
    # Seeded, so the random movers cannot end the game by mate or a draw before move 60.
    white, black = (spec("random-uci", name, command=(*spec("random-uci").command, "--seed", seed))
                    for name, seed in (("A", "1"), ("B", "2")))
    record = play(white, black, adjudication=Adjudication(max_moves=60), comments=True,
                  comment_fields=("timeleft", "latency", "nodes", "seldepth", "nps", "pv"))
    lines = record.pgn.splitlines()
    assert max(map(len, lines)) <= 80 and len(lines) > 30
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None and not game.errors and len(list(game.mainline_moves())) == 120
    last = " ".join(game.end().comment.split())
    assert last.endswith(", Draw by adjudication: 60 moves reached") and len(last) > 80
