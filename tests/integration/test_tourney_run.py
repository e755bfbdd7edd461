"""Whole tourneys played with `tmanager run`: bundled engines, Stockfish, Fairy-Max; every game checked."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import chess.pgn
import pytest

from tests.conftest import assert_consistent, assert_no_faults, run_cli
from tmanager.core.schedule import RoundRobin
from tmanager.tourney import resolution, store
from tmanager.tourney.engines import EngineSpec
from tmanager.tourney.gamesetup import preflight
from tmanager.tourney.model import Tourney
from tmanager.tourney.tallies import tally


def new(path: Path, *args: str) -> None:
    done = run_cli("new", path, *args)
    assert done.returncode == 0, done.stderr


def refused_unscored(path: Path, *command: str | Path, says: str, timeout: float = 600) -> list[str]:
    """`tmanager COMMAND` on tourney ``path`` refused it before a game was scored: exit 2, each of its lines of
    error (one a worker) ``says`` the same, no result, claim, fault or PGN; those lines."""
    done = run_cli(*command, timeout=timeout)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("tmanager:")]
    assert errors and all(e == errors[0] for e in errors), done.stderr
    assert errors[0] == f"tmanager: {path}: {says}"
    tourney = store.read(path)
    assert tourney.results.strip() == "" and tourney.claims == {} and tourney.faults == {}
    assert not tourney.pgn_path.exists()
    return errors


def test_four_engine_round_robin_two_cycles(tmp_path: Path) -> None:
    path = tmp_path / "rr.toml"
    new(path, "-e", "greedy-uci", "-e", "greedy-xboard", "-e", "random-uci", "-e", "random-xboard",
        "--cycles", "2", "--games", "2", "--tc", "10+0.1", "--set", "adjudication.max_moves=60")
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == 2 * 2 * 6
    assert all(g["TimeControl"] == "10+0.1" and g["Termination"] for g in games)
    assert "greedy-uci" in done.stdout  # the final standings table
    tourney = store.read(path)
    assert sum(tally(tourney)) == len(games)
    # The cross-table of the PGN equals the results string's own tally.
    table = run_cli("crosstable", tourney.pgn_path, "--format", "json")
    assert table.returncode == 0, table.stderr
    points = {p["name"]: p["points"] for p in json.loads(table.stdout)["players"]}
    assert points == {p.name: t for p, t in zip(tourney.participants, tally(tourney), strict=True)}


def test_xboard_worked_example_pairings_in_pgn(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    new(path, "-e", "random-uci:P0", "-e", "random-uci:P1", "-e", "random-xboard:P2", "-e", "random-xboard:P3",
        "--games", "2", "--nodes", "1", "--set", "adjudication.max_moves=20")
    assert run_cli("run", path).returncode == 0
    games = sorted(assert_consistent(path), key=lambda g: int(g["GameNumber"]))
    assert [(g["White"], g["Black"]) for g in games] == [
        ("P2", "P1"), ("P1", "P2"), ("P0", "P3"), ("P3", "P0"),
        ("P2", "P0"), ("P0", "P2"), ("P3", "P1"), ("P1", "P3"),
        ("P1", "P0"), ("P0", "P1"), ("P2", "P3"), ("P3", "P2"),
    ]  # fmt: skip
    assert games[0]["Round"] == "1" and games[11]["Round"] == "6"


def test_multi_gauntlet(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    new(path, "--type", "gauntlet", "--seeds", "2", "-e", "greedy-uci:S1", "-e", "greedy-xboard:S2",
        "-e", "random-uci:R1", "-e", "random-xboard:R2", "-e", "random-uci:R3",
        "--games", "2", "--nodes", "1", "--set", "adjudication.max_moves=30")
    assert run_cli("run", path, "--workers", "2").returncode == 0
    games = assert_consistent(path)
    assert len(games) == 2 * 3 * 2
    for g in games:
        assert ({g["White"], g["Black"]} & {"S1", "S2"}) and not {g["White"], g["Black"]} <= {"S1", "S2"}


def test_stockfish_and_fairymax_round_robin(tmp_path: Path) -> None:
    path = tmp_path / "real.toml"
    new(path, "-e", "stockfish", "-e", "fairymax", "-e", "greedy-uci", "-e", "random-xboard",
        "--games", "2", "--tc", "2+0.05", "--set", "adjudication.max_moves=40")
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == 12
    assert_no_faults(path)
    tourney = store.read(path)
    sf = tourney.participant_index("stockfish")
    points = tally(tourney)
    assert points[sf] == max(points)  # Stockfish beats random and greedy movers


def test_odd_field_skips_the_bye(tmp_path: Path) -> None:
    path = tmp_path / "odd.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "-e", "random-xboard:C", "--games", "1",
        "--nodes", "1", "--set", "adjudication.max_moves=10")
    assert run_cli("run", path).returncode == 0
    games = assert_consistent(path)
    assert len(games) == RoundRobin(3).total_games == 3


def test_status_and_finished_run(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--nodes", "1",
        "--set", "adjudication.max_moves=10")
    status = run_cli("status", path)
    assert status.returncode == 0 and "0 played, 0 in progress, 2 left" in status.stdout
    assert run_cli("run", path).returncode == 0
    again = run_cli("run", path)
    assert again.returncode == 0 and "2 played" in again.stdout


def _fen(game: dict[str, str]) -> str:
    return game.get("FEN", "startpos")


def test_openings_each_colour_reversed_pair_shares_its_opening(tmp_path: Path) -> None:
    book = Path(__file__).resolve().parents[2] / "tourneys" / "openings" / "sample.epd"
    for order in ("sequential", "random"):
        path = tmp_path / f"{order}.toml"
        new(path, "-e", "random-uci:A", "-e", "random-xboard:B", "-e", "greedy-uci:C", "--games", "2",
            "--nodes", "1", "--openings", str(book), "--set", f'openings.order="{order}"',
            "--set", "openings.seed=7", "--set", "adjudication.max_moves=6")
        assert run_cli("run", path, "--workers", "2").returncode == 0
        games = {int(g["GameNumber"]): g for g in assert_consistent(path)}
        fens = [_fen(games[n]) for n in sorted(games)]
        assert all(f != "startpos" for f in fens)
        assert fens[0::2] == fens[1::2]  # games 2j and 2j+1 are a colour-reversed pair
        assert len(set(fens)) == 3  # three pairs, three different openings
        epd_fens = [" ".join(line.split()[:4]) for line in book.read_text().splitlines() if line.strip()]
        if order == "sequential":
            assert [" ".join(f.split()[:4]) for f in fens[0::2]] == epd_fens[:3]


def test_chess960_with_stockfish(tmp_path: Path) -> None:
    import chess.pgn

    book = Path(__file__).resolve().parents[2] / "tourneys" / "openings" / "chess960.epd"
    path = tmp_path / "960.toml"
    new(path, "-e", "stockfish:SF1", "-e", "stockfish:SF2", "--games", "2", "--nodes", "500",
        "--openings", str(book), "--set", 'variant="chess960"', "--set", "adjudication.max_moves=25")
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    assert_consistent(path)
    with open(store.read(path).pgn_path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            assert game.headers["Variant"] == "Chess960" and not game.errors
            assert game.board().chess960 and game.headers["Termination"] != "rules infraction"
            assert len(list(game.mainline_moves())) > 10


def test_xboard_engines_round_robin_from_epd_openings(tmp_path: Path) -> None:
    """Issue 11: the XBoard engines XBoard itself runs, in one round robin, from EPD positions."""
    import chess.pgn

    book = Path(__file__).resolve().parents[2] / "tourneys" / "openings" / "sample.epd"
    path = tmp_path / "xb.toml"
    engines = ["fairymax", "gnuchess", "phalanx", "sjeng", "hoichess"]
    new(path, *(arg for e in engines for arg in ("-e", e)), "--games", "2", "--tc", "2+0.02",
        "--openings", str(book), "--set", "adjudication.max_moves=20")
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == 20
    assert all(g.get("SetUp") == "1" for g in games)  # every game started from an EPD position
    assert_no_faults(path)  # GNU Chess included (docs/xboard-engines.md)
    tourney = store.read(path)
    with open(tourney.pgn_path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            assert not game.errors
            assert game.headers["Termination"] in ("normal", "adjudication"), game.headers


def test_engine_settings_per_participant(tmp_path: Path) -> None:
    """restart, dir, args, stderr log, options and ponder, each per participant."""
    engine = Path(__file__).resolve().parents[2] / "engines" / "pyengine.py"
    (tmp_path / "work").mkdir()
    wrapper = f"sh -c 'echo start $$ in $(pwd) >&2; exec {sys.executable} {engine} \"$@\"' sh"
    text = f"""
[tourney]
name = "settings"
games_per_pairing = 2
cycles = 2
nodes = 1

[adjudication]
max_moves = 10

[[participants]]
name = "Restarted"
cmd = '''{wrapper}'''
protocol = "uci"
args = ["--protocol", "uci"]
dir = "work"
restart = true
stderr = "restarted.err"

[[participants]]
name = "Kept"
cmd = '''{wrapper}'''
protocol = "uci"
args = ["--protocol", "uci"]
stderr = "kept.err"

[[participants]]
name = "Pondering Stockfish"
engine = "stockfish"
ponder = true
options = {{ Hash = 8, Threads = 1 }}
tc = "2+0.05"
"""
    path = tmp_path / "settings.toml"
    path.write_text(text)
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert len(games) == 12
    restarted = (tmp_path / "restarted.err").read_text().splitlines()
    kept = (tmp_path / "kept.err").read_text().splitlines()
    assert len(restarted) == 8  # a fresh process for each of its 8 games
    assert all(line.endswith(f"in {tmp_path / 'work'}") for line in restarted)
    assert len(kept) == 1 and kept[0].endswith(f"in {tmp_path}")  # one process, kept between games
    assert_no_faults(path)
    sf_games = [g for g in games if "Pondering Stockfish" in (g["White"], g["Black"])]
    assert len(sf_games) == 8 and all(g["Termination"] != "time forfeit" for g in sf_games)


def test_an_engine_that_refuses_the_variant_stops_the_tourney_before_a_game_is_scored(tmp_path: Path) -> None:
    path = tmp_path / "atomic.toml"
    new(path, "-e", "random-uci", "-e", "stockfish", "-e", "greedy-uci", "--nodes", "1",
        "--set", 'variant="atomic"', "--set", "adjudication.max_moves=10")
    says = ("engine 'stockfish' does not play variant atomic (it offers none: it has no UCI_Variant option) "
            "(choose another engine or variant)")
    refused_unscored(path, "run", path, "--workers", "2", says=says)
    refused_unscored(path, "work", path, says=says)


def test_an_xboard_engine_that_exits_right_after_its_move_crashed_and_did_not_lose_on_time(tmp_path: Path) -> None:
    """An XBoard engine gone right after writing its move, before the pong to the ping that follows it: the game
    waited for that pong for the whole clock (20 s here) and was then lost 'on time', 'no move after 20000 ms'."""
    pyengine = Path(__file__).parents[2] / "engines" / "pyengine.py"
    brief = tmp_path / "brief.sh"
    # Its whole process group ends with its first move (the engine alone could still answer the ping into the pipe).
    brief.write_text(f"#!/bin/sh\n{sys.executable} {pyengine} --protocol xboard | {{ sed -u '/^move /q'; kill 0; }}\n")
    brief.chmod(0o755)
    path = tmp_path / "brief.toml"
    new(path, "-e", "greedy-uci", "-e", f"cmd={brief},name=Brief,proto=xboard", "--tc", "20")
    done = run_cli("run", path, "--workers", "2", timeout=120)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert [g["Termination"] for g in games] == ["abandoned", "abandoned"]
    games.sort(key=lambda g: int(g["GameNumber"]))  # Brief has Black, then White: its one move is in the game
    assert [g["PlyCount"] for g in games] == ["3", "2"]
    assert path.with_suffix(".pgn").read_text().count("engine crashed }") == 2
    assert store.read(path).faults == {"Brief": {"crash": 2}}


def test_an_xboard_engine_that_never_answers_ping_loses_within_ping_timeout_not_on_time(tmp_path: Path) -> None:
    """An XBoard engine that declares ping=1 but never answers it (its pongs filtered out): each game waited on the
    pong after its first move for the whole clock, then was lost 'on time' with 'no move after 20000 ms', though
    the engine had never been asked for that move. Now the ping gets ping_timeout, before the clock runs."""
    pyengine = Path(__file__).parents[2] / "engines" / "pyengine.py"
    mute = tmp_path / "mute.sh"
    mute.write_text(f"#!/bin/sh\n{sys.executable} {pyengine} --protocol xboard | grep --line-buffered -v '^pong'\n")
    mute.chmod(0o755)
    path = tmp_path / "pong.toml"
    new(path, "-e", "greedy-uci", "-e", f"cmd={mute},name=Mute,proto=xboard", "--tc", "20",
        "--set", "ping_timeout=1")
    done = run_cli("run", path, "--workers", "2", timeout=120)
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    assert [g["Termination"] for g in games] == ["abandoned", "abandoned"]
    assert all(g["Result"] == ("1-0" if g["White"] == "greedy-uci" else "0-1") for g in games)
    with path.with_suffix(".pgn").open() as pgn:
        endings = [game.end().comment for game in iter(lambda: chess.pgn.read_game(pgn), None)]
    unanswered = "did not answer the ping after its move in 1 s"
    assert [ending.split("'s engine ")[1] for ending in endings] == [unanswered, unanswered]
    assert store.read(path).faults == {"Mute": {"stall": 2}}


def test_an_opening_an_engine_without_setboard_cannot_be_given_stops_the_tourney_unscored(tmp_path: Path) -> None:
    """Fairy-Max has no setboard, and edit cannot say that a king and rooks at home have lost their castling
    rights: each game from such an opening was scored as Fairy-Max's loss by 'an illegal or unreadable move'
    (after its opponent had moved, when it had Black), though no move of its own was ever asked for."""
    if not Path("/usr/games/fairymax").exists():
        pytest.skip("fairymax is not installed")
    fen = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w - -"
    (tmp_path / "book.epd").write_text(f'{fen} id "castled nowhere";\n')
    path = tmp_path / "edit.toml"
    new(path, "-e", "greedy-xboard", "-e", "fairymax", "--tc", "40/2", "--openings", "book.epd")
    says = (f"engine 'fairymax' cannot be given the position '{fen} 0 1': it has no setboard (feature setboard=0), "
            "and edit would give it castling rights KQkq from the king and rook squares, not - (use openings whose "
            "castling rights their kings and rooks imply, or an engine with setboard)")
    refused_unscored(path, "run", path, "--workers", "2", says=says)
    refused_unscored(path, "work", path, says=says)


@pytest.mark.parametrize(
    ("program", "answer"),
    [("fairymax", "Error (unknown command): nps"), ("phalanx", "Illegal move: nps 1")],
)
def test_an_xboard_engine_without_nps_stops_a_node_limited_tourney_before_a_game_is_scored(
    tmp_path: Path, program: str, answer: str
) -> None:
    """Fairy-Max answers XBoard's `nps` with 'Error (unknown command): nps', Phalanx with 'Illegal move: nps 1': each
    of their games was scored as a loss by 'an illegal or unreadable move', a whole round robin given away in
    seconds. Named by their program (their definitions say nps=0, which `new` refuses)."""
    if not Path(f"/usr/games/{program}").exists():
        pytest.skip(f"{program} is not installed")
    path = tmp_path / "nodes.toml"
    new(path, "-e", "greedy-uci", "-e", f"cmd=/usr/games/{program},proto=xboard,name=X", "--nodes", "2000")
    says = f"engine 'X' cannot search a node limit: it answered '{answer}' (give it tc, st or depth instead of nodes)"
    assert len(refused_unscored(path, "run", path, says=says)) == 1


@pytest.mark.parametrize(
    ("engine", "limit", "refusal"),
    [
        ("phalanx", "--depth=3", "a depth limit: it answered 'Illegal move: sd 3' (give it tc or st instead of "
                                 "depth)"),
        ("gnuchess", "--depth=3", "a depth limit: it answered 'Invalid move: sd 3' (give it tc or st instead of "
                                  "depth)"),
        ("hoichess", "--st=0.5", "a time per move: it answered 'Illegal time value.' "
                                 "(give it st in whole seconds, or tc or depth instead)"),
    ],
)
def test_an_xboard_engine_refusing_its_limit_stops_the_tourney_before_a_game_is_scored(
    tmp_path: Path, engine: str, limit: str, refusal: str
) -> None:
    """Phalanx answers XBoard's `sd 3` with 'Illegal move: sd 3', and each of its games was scored as its loss by
    'an illegal or unreadable move'; GNU Chess answers 'Invalid move: sd 3' and never moves, each game lost as a
    stall after move_timeout; HoiChess answers `st 0.5` with 'Illegal time value.' and exits, each game lost as a
    crash. A limit the engine cannot search is the tourney's error, as a node limit is."""
    if not Path(f"/usr/games/{engine}").exists():
        pytest.skip(f"{engine} is not installed")
    path = tmp_path / "limit.toml"
    new(path, "-e", "greedy-xboard", "-e", engine, limit, "--set", "move_timeout=20")
    says = f"engine '{engine}' cannot search {refusal}"
    refused_unscored(path, "run", path, "--workers", "2", says=says, timeout=120)


@pytest.mark.parametrize("engine", ["fairymax", "gnuchess", "phalanx", "sjeng", "hoichess"])
def test_a_node_limit_for_a_shipped_xboard_engine_without_nps_is_refused_by_new(tmp_path: Path, engine: str) -> None:
    """GNU Chess and Sjeng take `st NODES` for seconds and stalled game after game; the definitions say so."""
    path = tmp_path / "nodes.toml"
    done = run_cli("new", path, "-e", engine, "-e", "greedy-uci", "--nodes", "2000")
    assert (done.returncode, done.stderr) == (2, (
        f"tmanager: tourney.nodes: xboard engine '{engine}' cannot search a node limit: its definition says nps=0 "
        "(give it tc, st or depth instead of nodes)\n"))
    assert not path.exists()


def test_an_xboard_node_limit_with_a_clock_is_refused_when_the_file_is_made(tmp_path: Path) -> None:
    """XBoard's node limit is `nps 1` and `st NODES`: with a clock as well, each game of the XBoard engine was lost
    as 'an illegal or unreadable move (xboard does not support mixing node limits with time limits)'."""
    path = tmp_path / "mixed.toml"
    done = run_cli("new", path, "-e", "random-xboard", "-e", "greedy-uci", "--tc", "10+0.1", "--nodes", "2000")
    assert done.returncode == 2 and not path.exists()
    assert done.stderr == (
        "tmanager: tourney.nodes: xboard engine 'random-xboard' cannot search a node limit with a clock or a time "
        "per move (XBoard's nps makes the nodes its clock) (give it nodes alone, or tc, st or depth without nodes)\n"
    )
    new(path, "-e", "random-xboard", "-e", "greedy-uci", "--tc", "10+0.1")
    before = path.read_bytes()
    done = run_cli("edit", path, "--set", "participants.random-xboard.nodes=2000")
    assert done.returncode == 2 and "participants[0].nodes: xboard engine 'random-xboard'" in done.stderr
    assert path.read_bytes() == before
    assert run_cli("edit", path, "--set", "participants.greedy-uci.nodes=2000").returncode == 0  # UCI: go nodes wtime
    # Written by hand: status reads it (without the engine layer), work refuses it before a game.
    path.write_text(path.read_text().replace('tc = "10+0.1"', 'tc = "10+0.1"\nnodes = 2000', 1))
    assert run_cli("status", path).returncode == 0
    done = run_cli("work", path)
    assert done.returncode == 2 and "tourney.nodes: xboard engine 'random-xboard' cannot" in done.stderr
    assert store.read(path).results.strip() == "" and not store.read(path).pgn_path.exists()


def test_a_substitute_without_nps_in_a_node_limited_tourney_is_refused_with_nothing_changed(tmp_path: Path) -> None:
    path = tmp_path / "nodes.toml"
    new(path, "-e", "greedy-uci:A", "-e", "random-uci:B", "--nodes", "1")
    assert run_cli("work", path).returncode == 0
    before, pgn_before = path.read_bytes(), store.read(path).pgn_path.read_bytes()
    done = run_cli("substitute", path, "B", "sjeng", "--replace")
    assert (done.returncode, done.stderr) == (2, (
        f"tmanager: {path}: tourney.nodes: xboard engine 'sjeng' cannot search a node limit: its definition says "
        "nps=0 (give it tc, st or depth instead of nodes)\n"))
    assert path.read_bytes() == before and store.read(path).pgn_path.read_bytes() == pgn_before


def test_a_python_engine_gone_stops_the_tourney_before_a_game_is_scored(tmp_path: Path) -> None:
    """A .py engine runs with this Python: once the script was moved away, each game started the interpreter, saw
    it exit with status 2 and scored a loss ('failed to start'); a program gone is a configuration error."""
    script = tmp_path / "dev.py"
    script.write_bytes((Path(__file__).parents[2] / "engines" / "pyengine.py").read_bytes())
    path = tmp_path / "gone.toml"
    new(path, "-e", f"cmd={script},name=dev", "-e", "random-uci", "--nodes", "1", "--cycles", "2")
    script.rename(tmp_path / "elsewhere.py")
    commands: list[list[str | Path]] = [["run", path, "--workers", "1"], ["work", path]]
    for command in commands:
        done = run_cli(*command)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines()[-1] == (
            f"tmanager: {path}: participants[0].cmd: program '{script}' of engine 'dev' not found or not executable "
            "(check the path, and chmod +x a script)"
        )
        tourney = store.read(path)
        assert tourney.results.strip() == "" and tourney.faults == {}


def test_a_game_neither_of_whose_engines_starts_is_not_scored_and_stops_the_workers(tmp_path: Path) -> None:
    """Both engines exit at once: White, checked first, was scored the loss and Black a win, game after game."""
    path = tmp_path / "none.toml"
    new(path, "-e", "fault-crash-start:A", "-e", "fault-crash-start:B", "--nodes", "1")
    commands: list[list[str | Path]] = [["work", path], ["run", path, "--workers", "1"]]
    for command in commands:
        done = run_cli(*command)
        assert done.returncode == 2, done.stderr
        assert [line for line in done.stderr.splitlines() if line.startswith("tmanager:")] == [
            f"tmanager: {path}: neither engine could play, so no game is scored: 'A' failed to start (engine "
            "process died unexpectedly (exit code: 1)); 'B' failed to start (engine process died unexpectedly "
            "(exit code: 1)) (see that they run, e.g. with tmanager check)"
        ]
        tourney = store.read(path)
        assert tourney.results.strip() == "" and tourney.claims == {} and tourney.faults == {}
        assert not tourney.pgn_path.exists()


def test_an_engine_deleted_under_way_stops_the_workers_and_no_game_is_scored(tmp_path: Path) -> None:
    """A program gone between games (deleted, or rebuilt by `make`) is a configuration error: the launcher's exit
    127 at each start was scored as the engine's crash, and a whole tourney lost in seconds."""
    engine = tmp_path / "dev"
    pyengine = Path(__file__).parents[2] / "engines" / "pyengine.py"
    engine.write_text(f'#!/bin/sh\nrm -f "$0"\nexec {sys.executable} {pyengine} --style greedy\n')  # gone once run
    engine.chmod(0o755)
    path = tmp_path / "gone.toml"
    new(path, "-e", f"cmd={engine},name=dev", "-e", "random-uci", "--nodes", "1", "--cycles", "3",
        "--set", "restart=true")
    done = run_cli("run", path, "--workers", "1")
    assert done.returncode == 2, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("tmanager:")] == [
        f"tmanager: {path}: cmd: program '{engine}' of engine 'dev' not found or not executable "
        "(check the path, and chmod +x a script)"
    ]
    tourney = store.read(path)
    assert tourney.results.rstrip() in ("+", "-", "=") and tourney.claims == {} and tourney.faults == {}


def test_an_engine_log_that_cannot_be_opened_under_way_is_no_game(tmp_path: Path) -> None:
    """The participant's stderr log, its directory removed between games: the OSError was scored as a crash."""
    logs = tmp_path / "logs"
    logs.mkdir()
    engine = tmp_path / "dev"
    pyengine = Path(__file__).parents[2] / "engines" / "pyengine.py"
    engine.write_text(f'#!/bin/sh\nrm -rf "{logs}"\nexec {sys.executable} {pyengine} --style greedy\n')
    engine.chmod(0o755)
    path = tmp_path / "log.toml"
    new(path, "-e", f"cmd={engine},name=dev", "-e", "random-uci", "--nodes", "1", "--cycles", "3",
        "--set", "restart=true", "--set", "participants.dev.stderr=logs/dev.err")
    done = run_cli("run", path, "--workers", "1")
    assert done.returncode == 2, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("tmanager:")] == [
        f"tmanager: {path}: cannot open the stderr log '{logs / 'dev.err'}' of engine 'dev': No such file or "
        "directory (check the path of stderr)"
    ]
    logs.mkdir()
    tourney = store.read(path)
    assert tourney.results.rstrip() in ("+", "-", "=") and tourney.claims == {} and tourney.faults == {}


@pytest.mark.parametrize(("node", "what"), [(os.mkfifo, "a FIFO"), (lambda p: p.symlink_to("/dev/full"),
                                                                        "a character device")])
def test_a_games_engine_log_that_is_no_regular_file_is_refused_in_one_line(
    tmp_path: Path, node: Callable[[Path], object], what: str
) -> None:
    """log_engines, a FIFO at the game's log: the worker waited for a reader for ever, deaf to SIGTERM; a link to
    /dev/full: the game ended in a traceback at the log's close."""
    path = tmp_path / "t.toml"
    new(path, "-e", "random-uci:A", "-e", "greedy-uci:B", "--nodes", "1", "--set", "log_engines=true")
    (tmp_path / "t.engine-logs").mkdir()
    log = tmp_path / "t.engine-logs" / "game-0.log"
    node(log)
    done = run_cli("work", path, "--games", "1", timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("tmanager:")] == [
        f"tmanager: {log}: is not a regular file but {what} (move it away: each game with log_engines writes its "
        "engines' lines there)"
    ]
    tourney = store.read(path)
    assert tourney.results.strip() == "" and tourney.claims == {} and tourney.faults == {}


def _file_size_limit(size: int) -> Callable[[], None]:
    """A preexec_fn: files grow to ``size`` bytes at most, a write past it fails with EFBIG (SIGXFSZ ignored)."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


def test_an_engine_log_that_cannot_be_written_is_given_up_and_the_game_recorded(tmp_path: Path) -> None:
    """A write of log_engines' log that failed (a full disk; here a file-size limit) ended the worker in a
    traceback at the log's close, the game unrecorded: the log is a view, the game is the record."""
    path = tmp_path / "t.toml"
    # Games of 20 moves each at most: the limit is every file's, and a random game's PGN could pass it too.
    new(path, "-e", "random-uci:A", "-e", "greedy-uci:B", "--nodes", "1", "--set", "log_engines=true",
        "--set", "adjudication.max_moves=20")
    done = subprocess.run([sys.executable, "-m", "tmanager", "work", str(path)], capture_output=True, text=True,
                          timeout=120, preexec_fn=_file_size_limit(4000))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    warned = [line for line in done.stderr.splitlines() if "engine log given up" in line]
    assert len(warned) == 2 and "game-0.log" in warned[0] and "File too large" in warned[0], done.stderr
    assert_consistent(path)
    assert (tmp_path / "t.engine-logs" / "game-0.log").stat().st_size == 4000


def test_an_engine_stderr_log_made_a_fifo_under_way_is_refused_in_one_line(tmp_path: Path) -> None:
    """The participant's stderr log made a FIFO between games (checked only when the file was read): the next
    game's start waited for a reader for ever."""
    logs = tmp_path / "logs"
    logs.mkdir()
    engine = tmp_path / "dev"
    pyengine = Path(__file__).parents[2] / "engines" / "pyengine.py"
    err = logs / "dev.err"
    engine.write_text(f'#!/bin/sh\n[ -p "{err}" ] || {{ rm -f "{err}"; mkfifo "{err}"; }}\n'
                      f"exec {sys.executable} {pyengine} --style greedy\n")
    engine.chmod(0o755)
    path = tmp_path / "log.toml"
    new(path, "-e", f"cmd={engine},name=dev", "-e", "random-uci", "--nodes", "1", "--cycles", "3",
        "--set", "restart=true", "--set", "participants.dev.stderr=logs/dev.err")
    done = run_cli("work", path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("tmanager:")] == [
        f"tmanager: {err}: is not a regular file but a FIFO (check the path of stderr)"
    ]
    err.unlink()
    tourney = store.read(path)
    assert tourney.results.rstrip() in ("+", "-", "=") and tourney.claims == {} and tourney.faults == {}


def test_pgn_output_settings_and_epd_out(tmp_path: Path) -> None:
    import chess.pgn

    path = tmp_path / "out.toml"
    new(path, "-e", "random-uci", "-e", "greedy-xboard", "-e", "greedy-uci", "--nodes", "1",
        "--set", "adjudication.max_moves=12", "--set", 'epd_out="final.epd"', "--set", "pgn_comments=true",
        "--set", 'pgn_comment_fields=["nodes"]', "--set", 'pgn_notation="uci"')
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    games = assert_consistent(path)
    lines = (tmp_path / "final.epd").read_text().splitlines()
    assert len(lines) == len(games) == 6
    finals = set()
    with open(store.read(path).pgn_path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            assert not game.errors and "n=" in game.next().comment  # type: ignore[union-attr]
            board = game.end().board()
            finals.add(f"{board.epd()} hmvc {board.halfmove_clock}; fmvn {board.fullmove_number};")
    assert set(lines) == finals
    assert all(re.search(r"\n1\. [a-h][1-8][a-h][1-8] \{", text) for text in store.read(path).pgn_path.read_text()
               .split("\n\n[Event")), "moves in UCI notation"
    refused = run_cli("new", tmp_path / "bad.toml", "-e", "random-uci", "-e", "greedy-uci", "--nodes", "1",
                      "--set", 'pgn_comment_fields=["nodes", "colour"]')
    assert refused.returncode == 2 and "tourney.pgn_comment_fields: unknown comment field 'colour'" in refused.stderr


def test_engine_logs_per_game_and_an_option_edited_between_games(tmp_path: Path) -> None:
    path = tmp_path / "logs.toml"
    new(path, "-e", "random-uci:A", "-e", "random-xboard:B", "--nodes", "1", "--games", "2",
        "--set", "adjudication.max_moves=5", "--set", "log_engines=true")
    worker_log = tmp_path / "worker.log"
    done = run_cli("work", path, "--games", "1", "--log", worker_log)
    assert done.returncode == 0, done.stderr
    assert run_cli("edit", path, "--option", "A:Hash=32", "--set", "log_engines=false").returncode == 0
    done = run_cli("run", path, "--log-engines", "--log", worker_log)  # the flag instead of the setting
    assert done.returncode == 0, done.stderr
    logs = sorted((tmp_path / "logs.engine-logs").glob("*.log"))
    assert [p.name for p in logs] == ["game-0.log", "game-1.log"]
    first, second = (p.read_text() for p in logs)
    assert re.search(r"\d\d:\d\d:\d\d\.\d{6} A <--- uci\n", first) and " B ---> feature " in first
    assert " A <--- setoption name Hash value 32\n" in second and "Hash value 32" not in first
    for text in (first, second):
        assert re.search(r" A ---> bestmove \S+", text) and re.search(r" B ---> move \S+", text)
    assert "<---" not in worker_log.read_text() and "--->" not in worker_log.read_text()
    refused = run_cli("run", path, "--log-engines", "--dask", "tcp://127.0.0.1:1")
    assert refused.returncode == 2 and "--log-engines: not with --dask" in refused.stderr


@pytest.mark.timing
def test_time_losses_and_the_worst_overstep_per_engine_in_status(tmp_path: Path) -> None:
    from tmanager.web.dashboard import faults

    path = tmp_path / "slow.toml"
    new(path, "-e", "fault-slow:Slow", "-e", "greedy-uci:Quick", "--tc", "0.5+0", "--games", "2",
        "--option", "Slow:Hash=2", "--set", "participants.Slow.time_margin=0.05")
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    slow = tourney.faults["Slow"]
    assert slow["time forfeit"] == 2 and slow["worst overstep ms"] >= 50
    assert "Quick" not in tourney.faults  # time to spare is no overstep
    status = run_cli("status", path).stdout
    assert f"faults of Slow: time forfeit 2, worst overstep {slow['worst overstep ms']} ms" in status
    assert "<td>2</td>" in faults(tourney)  # two faults, the overstep is not one
    losses = re.findall(r"(?:White|Black) loses on time \(\d+ ms overrun: no move after \d+ ms with 500 ms left, "
                        r"margin 50 ms\)", " ".join(tourney.pgn_path.read_text().split()))  # comments wrap
    assert len(losses) == 2


def test_preflight_resolves_each_engine_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.toml"
    new(path, "-e", "greedy-uci", "-e", "random-xboard", "-e", "random-uci", "--nodes", "1")
    tourney = store.read(path)
    resolved: list[int] = []
    real = resolution.engine_spec

    def counted(tourney: Tourney, index: int) -> EngineSpec:
        resolved.append(index)
        return real(tourney, index)

    monkeypatch.setattr(resolution, "engine_spec", counted)
    preflight(tourney)
    assert resolved == [0, 1, 2]
