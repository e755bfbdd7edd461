"""Opening books and opening keys (tmanager.tourney.openings)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest

from tests.conftest import pgn_games, run_cli
from tmanager.core.schedule import Gauntlet, RoundRobin, Schedule
from tmanager.errors import ConfigError
from tmanager.tourney import play, store
from tmanager.tourney.engines import GAMES_PATH, command_line
from tmanager.tourney.gamesetup import load_book, read_ahead
from tmanager.tourney.model import UNPLAYED
from tmanager.tourney.openings import Opening, OpeningBook
from tmanager.tourney.owners import ENGINE_TAG
from tmanager.tourney.settings import BookFormat, BookOrder
from tmanager.tourney.variants import variant_board
from tmanager.tourney.worker import WorkDone, work

BOOKS = Path(__file__).resolve().parents[2] / "tourneys" / "openings"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path, **kwargs: object) -> str:
    with pytest.raises(ConfigError) as error:
        OpeningBook.load(path, **kwargs)  # type: ignore[arg-type]
    return str(error.value)


# --- opening keys --------------------------------------------------------------------------------

SHAPES = [
    *(RoundRobin(n, games_per_pairing=g, cycles=c) for n in (3, 4, 5, 6) for g in (1, 2, 3) for c in (1, 2, 3, 4)),
    *(
        Gauntlet(n, seeds=s, games_per_pairing=g, cycles=c)
        for n, s in ((4, 1), (5, 2))
        for g in (1, 2, 3)
        for c in (1, 2, 3, 4)
    ),
]


def shape_id(schedule: Schedule) -> str:
    return f"{type(schedule).__name__}-n{schedule.participants}-g{schedule.games_per_pairing}-c{schedule.cycles}"


@pytest.mark.parametrize("schedule", SHAPES, ids=shape_id)
def test_paired_keys_are_colour_reversed_games_of_the_same_players(schedule: Schedule) -> None:
    groups: dict[int, list[int]] = defaultdict(list)
    first_seen: list[int] = []
    for number in range(schedule.total_games):
        key = schedule.opening_key(number)
        if key not in groups:
            first_seen.append(key)
        groups[key].append(number)

    singles = 0
    for numbers in groups.values():
        assert len(numbers) <= 2
        if len(numbers) == 1:
            singles += 1
            assert schedule.partner(numbers[0]) is None
            continue
        a, b = (schedule.game(n) for n in numbers)
        assert a is not None and b is not None
        assert (a.white, a.black) == (b.black, b.white)
        # The schedule's own answer: the games sharing an opening are each other's partners.
        assert (schedule.partner(a.number), schedule.partner(b.number)) == (b.number, a.number)
    # Only an odd number of games per pairing over an odd number of cycles leaves games unpaired:
    # the last game of each pairing in the last cycle.
    odd = schedule.games_per_pairing % 2 and schedule.cycles % 2
    assert singles == (schedule.games_per_cycle // schedule.games_per_pairing if odd else 0)
    # Dense and in playing order, so that a sequential book is used from the start without gaps.
    assert first_seen == list(range(len(groups)))


def test_keys_for_the_xboard_worked_example() -> None:
    # 4 players, 2 games per pairing: games 0-1, 2-3, ... are the colour-reversed pairs.
    assert [RoundRobin(4, games_per_pairing=2).opening_key(n) for n in range(6)] == [0, 0, 1, 1, 2, 2]
    # 1 game per pairing, 2 players: each cycle is one game and colours alternate by cycle.
    assert [RoundRobin(2, games_per_pairing=1, cycles=5).opening_key(n) for n in range(5)] == [0, 0, 1, 1, 2]


# --- selection -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> OpeningBook:
    return OpeningBook.load(BOOKS / "sample.epd")


def test_sequential_order_walks_the_book_from_start(sample: OpeningBook) -> None:
    size = len(sample)
    assert [sample.opening_for(k) for k in range(size)] == list(sample)
    assert sample.opening_for(0, start=3) == sample[2]
    assert sample.opening_for(size - 2, start=3) == sample[0]  # wraps round
    assert sample.opening_for(size, order=BookOrder.SEQUENTIAL) == sample[0]


def test_fastchess_s_book_is_cut_to_its_rounds_and_taken_in_turn(sample: OpeningBook) -> None:
    # fastchess shuffles (random), rotates to start, then keeps the first `rounds` openings, which its pairings
    # take in turn: 3 engines over 2 rounds play 6 pairings from 2 openings, where tmanager gave each its own.
    assert [sample.opening_for(k, cut=2) for k in range(6)] == [sample[0], sample[1]] * 3
    assert [sample.opening_for(k, start=14, cut=2) for k in range(4)] == [sample[13], sample[0]] * 2
    assert [sample.opening_for(k, start=3, cut=20) for k in range(14)] == [sample.opening_for(k, start=3)
                                                                        for k in range(14)]
    assert sample.opening_for(17, start=3, cut=20) == sample[(2 + 17 % 14) % 14]  # a book shorter than the rounds
    shuffled = [sample.opening_for(k, order=BookOrder.RANDOM, seed=7, start=13, cut=3) for k in range(6)]
    assert shuffled[:3] == shuffled[3:] and len(set(map(str, shuffled))) == 3  # one shuffle, cut, in turn


def test_a_start_past_the_end_of_the_book_wraps_round_as_in_fastchess(sample: OpeningBook) -> None:
    size = len(sample)
    assert size == 14
    assert sample.opening_for(0, start=size + 1) == sample[0]  # fastchess: rotated by (start - 1) mod size
    assert sample.opening_for(0, start=3 * size + 5) == sample[4]
    assert sample.opening_for(size - 5, start=3 * size + 5) == sample[size - 1]
    assert sample.opening_for(size - 4, start=3 * size + 5) == sample[0]
    walk = [sample.opening_for(k, order=BookOrder.RANDOM, seed=7, start=5) for k in range(2 * size)]
    assert [sample.opening_for(k, order=BookOrder.RANDOM, seed=7, start=size + 5) for k in range(2 * size)] == walk


def test_new_and_edit_take_a_start_past_the_end_of_the_book(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    engines = ("-e", "random-uci", "-e", "greedy-uci", "--nodes", "1", "--set", "adjudication.max_moves=1")
    done = run_cli("new", path, *engines, "--openings", BOOKS / "sample.epd", "--set", "openings.start=16")
    assert done.returncode == 0, done.stderr
    assert run_cli("run", path).returncode == 0
    fens = {g["FEN"] for g in pgn_games(path.with_suffix(".pgn"))}
    assert fens == {OpeningBook.load(BOOKS / "sample.epd")[1].fen}  # 16 in a book of 14: the second
    assert run_cli("edit", path, "--set", "openings.start=1000").returncode == 0
    done = run_cli("edit", path, "--set", "openings.start=0")
    assert done.returncode == 2 and "openings.start: must be at least 1, not 0" in done.stderr


def test_random_order_uses_every_opening_once_per_pass(sample: OpeningBook) -> None:
    size = len(sample)
    for first in (0, size, 2 * size):
        chosen = [sample.opening_for(k, order=BookOrder.RANDOM, seed=42) for k in range(first, first + size)]
        assert sorted(chosen, key=sample.index) == list(sample)
    one = [sample.opening_for(k, order=BookOrder.RANDOM, seed=42) for k in range(3 * size)]
    assert one == [sample.opening_for(k, order=BookOrder.RANDOM, seed=42) for k in range(3 * size)]
    assert one != [sample.opening_for(k, order=BookOrder.RANDOM, seed=43) for k in range(3 * size)]
    assert one[:size] != one[size : 2 * size]  # each pass is shuffled anew
    assert one[:size] != list(sample)


def test_random_order_is_the_same_in_every_process(sample: OpeningBook) -> None:
    script = (
        "from tmanager.tourney.openings import OpeningBook\n"
        "from tmanager.tourney.settings import BookOrder\n"
        f"book = OpeningBook.load({str(BOOKS / 'sample.epd')!r})\n"
        "print([book.index(book.opening_for(k, order=BookOrder.RANDOM, seed=7, start=5)) for k in range(30)])\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        ).stdout
        for hash_seed in ("1", "2")
    }
    here = [sample.index(sample.opening_for(k, order=BookOrder.RANDOM, seed=7, start=5)) for k in range(30)]
    assert outputs == {f"{here}\n"}


def test_both_games_of_a_pair_get_the_same_opening(sample: OpeningBook) -> None:
    schedule = RoundRobin(5, games_per_pairing=1, cycles=2)
    by_opening: dict[Opening, list[int]] = defaultdict(list)
    for number in range(schedule.total_games):
        key = schedule.opening_key(number)
        by_opening[sample.opening_for(key, order=BookOrder.RANDOM, seed=1)].append(number)
    for numbers in by_opening.values():
        assert len(numbers) == 2  # 10 pairs, 14 openings: no opening is reused across pairs
        a, b = (schedule.game(n) for n in numbers)
        assert a and b and (a.white, a.black) == (b.black, b.white)


# --- EPD -----------------------------------------------------------------------------------------


def test_sample_epd_positions_are_valid_and_named(sample: OpeningBook) -> None:
    assert len(sample) >= 12
    for opening in sample:
        board = opening.board()
        assert board.is_valid() and not board.is_game_over()
        assert opening.moves == () and opening.name


def test_epd_operations_and_comments(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "book.epd",
        "# a comment\n\n"
        'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 hmvc 0; fmvn 1; id "King\'s pawn";\n'
        "4k3/8/8/8/8/8/4P3/4K3 w - -\n",
    )
    book = OpeningBook.load(path)
    assert [o.name for o in book] == ["King's pawn", ""]
    assert book[0].board().turn == chess.BLACK
    assert book[1].fen == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"


def test_fen_lines_with_move_counters_as_in_fastchess_and_cutechess_books(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fastchess.epd",
        "r1bqkb1r/pp3pp1/2nppn2/7p/3NP1PP/2N5/PPP2P2/R1BQKBR1 w Qkq - 0 9\n"
        'rnb2rk1/ppp2pbp/3p2p1/3Pp2n/2P1P2q/2N1BP2/PP1Q2PP/R3KBNR w KQ - 3 9 id "Kings Indian";\n'
        "4k3/8/8/8/8/8/4P3/4K3 w - - hmvc 3; fmvn 8;\n",
    )
    book = OpeningBook.load(path)
    assert [o.fen.split()[-2:] for o in book] == [["0", "9"], ["3", "9"], ["3", "8"]]
    assert book[1].name == "Kings Indian"
    assert book[0].board().fullmove_number == 9
    three_check = write(tmp_path, "3check.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2+3 4 7\n")
    assert OpeningBook.load(three_check, variant="3check")[0].fen.endswith("2+3 4 7")


def test_book_is_checked_by_new_and_edit_with_its_file_and_line(tmp_path: Path) -> None:
    good = write(tmp_path, "good.epd", f"{chess.STARTING_FEN}\n")
    bad = write(tmp_path, "bad.epd", f"{chess.STARTING_FEN}\n{chess.STARTING_BOARD_FEN} w KQkq - 0 x\n")
    path = tmp_path / "t.toml"
    engines = ("-e", "random-uci", "-e", "greedy-uci", "--nodes", "1")
    done = run_cli("new", path, *engines, "--openings", bad)
    assert done.returncode == 2 and not path.exists()
    assert done.stderr.startswith(f"tmanager: {bad}: line 2: not a valid EPD line") and done.stderr.count("\n") == 1
    assert run_cli("new", path, *engines, "--openings", good).returncode == 0
    before = path.read_text()
    done = run_cli("edit", path, "--set", f"openings.file={str(bad)!r}")
    assert done.returncode == 2 and done.stderr.startswith(f"tmanager: {bad}: line 2: not a valid EPD line")
    done = run_cli("edit", path, "--set", 'variant="atomic"')  # the book's castling rights are fine in atomic
    assert done.returncode == 0, done.stderr
    done = run_cli("edit", path, "--set", 'variant="racingkings"')
    assert done.returncode == 2 and f"tmanager: {good}: line 1: invalid position" in done.stderr
    assert "atomic" in path.read_text() and path.read_text() != before


def test_the_pgn_and_epd_out_are_never_the_opening_book(tmp_path: Path) -> None:
    book = write(tmp_path, "dfrc.pgn", (BOOKS / "sample.pgn").read_text())
    os.symlink(book, tmp_path / "link.pgn")
    path = tmp_path / "dfrc.toml"
    engines = ("-e", "random-uci", "-e", "greedy-uci", "--nodes", "1")

    def refused(*args: str | Path, field: str, command: str = "new") -> None:
        done = run_cli(command, path, *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"{field}: is the opening book '{tmp_path}/" in done.stderr
        assert "would become openings" in done.stderr

    refused(*engines, "--openings", book, field="tourney.pgn")  # the default PGN, dfrc.pgn, is the book
    assert not path.exists()
    refused(*engines, "--openings", "link.pgn", field="tourney.pgn")  # through a symlink
    os.link(book, tmp_path / "hard.pgn")
    refused(*engines, "--openings", "hard.pgn", field="tourney.pgn")  # or a hard link
    refused(*engines, "--openings", book, "--pgn", "games.pgn", "--set", "epd_out=link.pgn", field="tourney.epd_out")
    assert not path.exists()
    assert run_cli("new", path, *engines, "--openings", book, "--pgn", "games.pgn").returncode == 0
    before = path.read_bytes()
    refused("--set", "pgn=link.pgn", field="tourney.pgn", command="edit")
    refused("--set", "epd_out=dfrc.pgn", field="tourney.epd_out", command="edit")
    assert path.read_bytes() == before
    path.write_text(path.read_text().replace('pgn = "games.pgn"', 'pgn = "./link.pgn"'))  # by hand: every read
    for command in ("status", "run"):
        refused(field="tourney.pgn", command=command)
    assert book.read_text() == (BOOKS / "sample.pgn").read_text()


def large_book_tourney(tmp_path: Path, *, games: int, bad_second: bool = False) -> tuple[Path, Path]:
    """A tourney of ``games`` games whose book is large enough to be read as its games come, every opening
    the start position but, with ``bad_second``, the second pair's: line 3, not a valid EPD line. The
    tourney's path and the book's."""
    good, bad = f"{chess.STARTING_FEN}\n", f"{chess.STARTING_BOARD_FEN} w KQkq - 0 x\n"
    second = f"# the next pair's\n{bad}" if bad_second else ""
    book = write(tmp_path, "book.epd", f"{good}{second}{good * (OpeningBook.READ_WHOLE // len(good))}")
    path = tmp_path / "t.toml"
    created = run_cli("new", path, "-e", "random-uci", "-e", "greedy-uci", "--nodes", "1", "--games", str(games),
                      "--openings", book)
    assert created.returncode == 0, created.stderr  # only its first opening is read before the games
    return path, book


def test_a_bad_opening_further_in_the_book_stops_the_tourney_when_its_game_comes(tmp_path: Path) -> None:
    path, book = large_book_tourney(tmp_path, games=4, bad_second=True)
    done = run_cli("run", path)
    assert done.returncode == 2, done.stderr
    assert f"tmanager: {book}: line 3: not a valid EPD line" in done.stderr and "Traceback" not in done.stderr
    tourney = store.read(path)
    assert tourney.finished_count == 2 and len(tourney.results.rstrip(UNPLAYED)) == 2 and not tourney.claims
    assert path.with_suffix(".pgn").read_text().count("[Event ") == 2
    assert "game 2 not played: " in path.with_suffix(".log").read_text()


def test_a_game_reads_its_opening_off_the_event_loop_that_plays_the_other_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An opening of a large book is read when its game comes: a long one takes milliseconds, which
    # every game of the worker would wait through if the event loop read it.
    path, _ = large_book_tourney(tmp_path, games=4)
    read_on_a_loop: list[bool] = []
    opening_for = OpeningBook.opening_for

    def noting_the_reader(self: OpeningBook, key: int, **settings: Any) -> Opening:
        read_on_a_loop.append(_in_event_loop())
        return opening_for(self, key, **settings)

    monkeypatch.setattr(OpeningBook, "opening_for", noting_the_reader)
    monkeypatch.setenv(ENGINE_TAG, "")  # work() marks its engines in the environment: restored afterwards
    assert work(path, concurrency=2) == WorkDone(4, stopped=False)
    assert len(read_on_a_loop) >= 4 and not any(read_on_a_loop)  # each game asked for its opening


def test_a_long_opening_is_replayed_off_the_event_loop_that_plays_the_other_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Replaying 512 plies takes milliseconds, which every game of the worker would wait through.
    shuffle = " ".join(f"{2 * i + 1}. Nf3 Nf6 {2 * i + 2}. Ng1 Ng8" for i in range(play.REPLAYED_ON_LOOP // 4 + 1))
    book = write(tmp_path, "long.pgn", f"{shuffle} *\n")
    path = tmp_path / "t.toml"
    created = run_cli("new", path, "-e", "random-uci", "-e", "greedy-uci", "--nodes", "1", "--games", "2",
                      "--openings", book)
    assert created.returncode == 0, created.stderr
    replayed_on_a_loop: list[bool] = []
    after_opening = play.after_opening

    def noting_the_replay(spec: play.GameSpec) -> chess.Board:
        assert len(spec.opening_moves) > play.REPLAYED_ON_LOOP
        replayed_on_a_loop.append(_in_event_loop())
        return after_opening(spec)

    monkeypatch.setattr(play, "after_opening", noting_the_replay)
    monkeypatch.setenv(ENGINE_TAG, "")  # work() marks its engines in the environment: restored afterwards
    assert work(path, concurrency=2) == WorkDone(2, stopped=False)
    assert replayed_on_a_loop == [False, False]
    assert path.with_suffix(".pgn").read_text().count("Ng8") >= 2 * (play.REPLAYED_ON_LOOP // 4 + 1)


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def test_run_reads_the_openings_of_its_first_two_waves_before_its_workers_start(tmp_path: Path) -> None:
    path, book = large_book_tourney(tmp_path, games=4, bad_second=True)
    tourney = store.read(path)
    assert read_ahead(tourney, games=2) == 2  # the first pair's opening: good
    with pytest.raises(ConfigError, match="line 3: not a valid EPD line"):
        read_ahead(tourney, games=3)
    # Two lanes: the openings of games 0 to 3 are read before any game, and the bad one stops the run there
    # (one lane plays games 0 and 1 first: see the test above).
    done = run_cli("run", path, "--concurrency", "2")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"tmanager: {book}: line 3: not a valid EPD line") and done.stderr.count("\n") == 1
    assert store.read(path).results.strip() == "" and not path.with_suffix(".pgn").exists()


def test_read_ahead_reads_the_unplayed_games_openings_within_its_time(tmp_path: Path) -> None:
    path, _ = large_book_tourney(tmp_path, games=6)
    tourney = store.read(path)
    assert read_ahead(tourney, games=4) == 4
    assert read_ahead(tourney, games=100) == 6  # the tourney's games
    assert read_ahead(tourney, games=4, seconds=0) == 0
    tourney.set_result(0, "+")
    tourney.set_result(3, "=")
    assert read_ahead(tourney, games=100) == 4  # games 1, 2, 4 and 5


def test_missing_empty_and_bad_epd_books(tmp_path: Path) -> None:
    assert "no such opening book file" in error_of(tmp_path / "nope.epd")
    assert "holds no openings" in error_of(write(tmp_path, "empty.epd", "\n# nothing\n"))
    bad = write(tmp_path, "bad.epd", f"{chess.STARTING_BOARD_FEN} w KQkq -\n\nrnbqkbnr/pppppppp/8 w - -\n")
    assert error_of(bad).startswith(f"{bad}: line 3: not a valid EPD line")
    two_kings = write(tmp_path, "kings.epd", "4k3/8/8/8/8/8/8/3KK3 w - -\n")
    assert "line 1: invalid position" in error_of(two_kings)
    mated = write(tmp_path, "mated.epd", "7k/6Q1/6K1/8/8/8/8/8 b - -\n")
    assert error_of(mated) == (f"{mated}: line 1: the game is already over in this position (checkmate) "
                               "(remove the line from the book)")
    stalemate = write(tmp_path, "stalemate.epd", "7k/5Q2/6K1/8/8/8/8/8 b - -\n")
    assert "line 1: the game is already over in this position (stalemate) (remove the line" in error_of(stalemate)



def test_a_large_book_is_indexed_and_each_opening_read_and_checked_when_asked_for(tmp_path: Path) -> None:
    good, bad = f"{chess.STARTING_FEN}\n", f"{chess.STARTING_BOARD_FEN} w KQkq - 0 x\n"
    lines = OpeningBook.READ_WHOLE // len(good) + 1
    epd = write(tmp_path, "large.epd", f"# {lines} good lines, then a bad one\n{good * lines}\n{bad}")
    book = OpeningBook.load(epd)  # the bad line is not read yet
    assert len(book) == lines + 1
    assert book[0] == book[lines - 1] == Opening(fen=chess.STARTING_FEN)
    with pytest.raises(ConfigError, match=rf"large.epd: line {lines + 3}: not a valid EPD line"):
        book[lines]
    game = '[Event "?"]\n\n1. e4 e5 *\n\n'
    games = OpeningBook.READ_WHOLE // len(game) + 1
    pgn = write(tmp_path, "large.pgn", game * games + '[Event "bad"]\n\n1. e4 e5 2. Ke3 *\n')
    book = OpeningBook.load(pgn)
    assert len(book) == games + 1 and book[games - 1].moves == ("e2e4", "e7e5")
    with pytest.raises(ConfigError, match=rf"large.pgn: line {4 * games + 1}: bad PGN game: illegal san: 'Ke3'"):
        book[-1]


def test_a_book_is_read_once_for_preflight_and_the_games(tmp_path: Path) -> None:
    write(tmp_path, "book.epd", f"{chess.STARTING_BOARD_FEN} w KQkq -\n")
    created = run_cli("new", tmp_path / "t.toml", "-e", "random-uci", "-e", "greedy-uci", "--nodes", "1",
                      "--openings", "book.epd")
    assert created.returncode == 0, created.stderr
    tourney = store.read(tmp_path / "t.toml")
    book = load_book(tourney)
    assert book is not None and len(book) == 1
    assert load_book(tourney) is book  # what the worker's first game gets after preflight
    write(tmp_path, "book.epd", f"{chess.STARTING_BOARD_FEN} w KQkq -\n4k3/8/8/8/8/8/4P3/4K3 w - -\n")
    edited = load_book(tourney)
    assert edited is not None and len(edited) == 2
    assert edited is not book


# --- PGN -----------------------------------------------------------------------------------------


def test_pgn_book_keeps_mainline_moves_cut_to_plies() -> None:
    full = OpeningBook.load(BOOKS / "sample.pgn")
    cut = OpeningBook.load(BOOKS / "sample.pgn", plies=4)
    assert len(full) == len(cut) >= 3
    for whole, short in zip(full, cut, strict=True):
        assert whole.fen == short.fen == chess.STARTING_FEN
        assert short.moves == whole.moves[:4] and len(whole.moves) > 4
        assert whole.name == short.name != ""
    ruy = full[0].board()
    assert ruy.root() == chess.Board() and len(ruy.move_stack) == 8


def test_pgn_with_setup_and_variations(tmp_path: Path) -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    path = write(
        tmp_path,
        "book.txt",
        f'[Event "?"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n3. Bb5 (3. Bc4 Bc5) a6 {{comment}} 4. Ba4 *\n',
    )
    (opening,) = OpeningBook.load(path)  # sniffed as PGN from its content
    assert opening.fen == fen
    assert opening.moves == ("f1b5", "a7a6", "b5a4")
    game = chess.pgn.Game.from_board(opening.board())
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    assert str(game.mainline_moves()) == "3. Bb5 a6 4. Ba4"


def test_bad_pgn_games_give_the_line_of_the_game(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    good = '[Event "one"]\n\n1. e4 e5 *\n\n\n'
    illegal = write(tmp_path, "illegal.pgn", good + '[Event "two"]\n\n1. e4 e5 2. Ke3 *\n')
    assert error_of(illegal).startswith(f"{illegal}: line 6: bad PGN game: illegal san: 'Ke3'")
    assert not caplog.records  # one clean error line, no python-chess log noise before it
    atomic = write(tmp_path, "atomic.pgn", good + '[Event "two"]\n[Variant "Atomic"]\n\n1. e4 *\n')
    assert "line 6: the game's variant (Atomic) differs" in error_of(atomic)
    assert "holds no openings" in error_of(write(tmp_path, "empty.pgn", ""))
    # The format setting overrides the file's suffix.
    assert "not a valid EPD line" in error_of(illegal, format=BookFormat.EPD)


# --- variants and Chess960 -----------------------------------------------------------------------


def test_variant_names() -> None:
    assert variant_board("chess") == (chess.Board, False)
    assert variant_board("Chess960") == (chess.Board, True)
    assert variant_board("atomic")[0].uci_variant == "atomic"
    with pytest.raises(ConfigError, match=r"tourney.variant: unknown variant 'xiangqi'"):
        variant_board("xiangqi")


def test_chess960_book_needs_the_chess960_variant() -> None:
    message = error_of(BOOKS / "chess960.epd")
    assert "line 1: invalid position (bad castling rights)" in message and 'variant = "chess960"' in message
    book = OpeningBook.load(BOOKS / "chess960.epd", variant="chess960")
    for opening in book:
        board = opening.board()
        assert board.chess960 and board.castling_rights == board.clean_castling_rights() != 0
    game = chess.pgn.Game.from_board(book[1].board())
    assert game.headers["Variant"] == "Chess960" and game.headers["FEN"] == book[1].fen


def test_chess960_pgn_castling_is_stored_king_takes_rook(tmp_path: Path) -> None:
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"
    path = write(tmp_path, "960.pgn", f'[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n1. O-O-O O-O *\n')
    (opening,) = OpeningBook.load(path, variant="chess960")
    assert opening.moves == ("b1a1", "b8h8")
    board = opening.board()
    assert board.piece_at(chess.C1) == chess.Piece.from_symbol("K")
    assert board.piece_at(chess.G8) == chess.Piece.from_symbol("k")
    assert "differs" in error_of(path)  # a Chess960 game in a standard-chess book


def test_atomic_book(tmp_path: Path) -> None:
    path = write(tmp_path, "atomic.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    (opening,) = OpeningBook.load(path, variant="atomic")
    assert opening.variant == "atomic" and type(opening.board()).uci_variant == "atomic"


def test_chess960_openings_play_with_stockfish_and_pyengine() -> None:
    stockfish = command_line("stockfish")
    if not Path(stockfish[0]).is_file():
        pytest.skip(f"stockfish is not installed (apt-get install stockfish; looked on PATH and {GAMES_PATH})")
    pyengine = command_line(str(Path(__file__).resolve().parents[2] / "engines" / "pyengine.py"))
    book = OpeningBook.load(BOOKS / "chess960.epd", variant="chess960")
    with (
        chess.engine.SimpleEngine.popen_uci(list(stockfish)) as white,
        chess.engine.SimpleEngine.popen_xboard([*pyengine, "--protocol", "xboard", "--seed", "1"]) as black,
    ):
        for opening in book:
            board = opening.board()
            while len(board.move_stack) < 12 and not board.is_game_over():
                engine = white if board.turn == chess.WHITE else black
                result = engine.play(board, chess.engine.Limit(depth=3, white_clock=10, black_clock=10))
                assert result.move is not None and result.move in board.legal_moves
                board.push(result.move)
