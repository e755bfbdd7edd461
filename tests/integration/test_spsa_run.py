"""SPSA tunes played for real: pyengine with a hidden optimum, found within a tolerance; the same tune, pair for
pair, when workers are killed at random; Stockfish tuned on two of its options; bad input refused."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import chess
import pytest

from tests.conftest import ROOT, assert_consistent, pgn_games, run_cli
from tests.integration.test_reliability import kill_at_random
from tests.integration.test_web import Server, fetch
from tmanager.core import spsa
from tmanager.tourney import store
from tmanager.tourney.model import Tourney

PYENGINE = ROOT / "engines" / "pyengine.py"
#: The hidden optimum of pyengine's options A and B: the further an engine's values, the sooner it collapses.
OPTIMUM = {"A": 25, "B": 30}
PARAMS = "A, int, 10, 0, 60, 2, 0.3\nB, int, 40, 0, 60, 2, 0.3\n"
HOOK = "env | grep TMANAGER_SPSA_ | sort > hook.txt"


def new_tune(path: Path, iterations: int, *more: str) -> None:
    """A tune of pyengine (a random mover, seeded: each game is the same when played again) whose games end as
    the one further from the optimum resigns (see engines/pyengine.py)."""
    (path.parent / "params.txt").write_text(PARAMS)
    args = f"--seed 1 --horizon 32 {' '.join(f'--optimum {k}={v}' for k, v in OPTIMUM.items())}"
    engines = [f"cmd={PYENGINE},name={name},proto=uci,args={args}" for name in ("plus", "minus")]
    create(path, engines, iterations, *more)


#: Against a fixed base: pyengine's option A alone (its optimum 25), from 10; the base plays A = 17, 8 away,
#: its distance jittered by -12…12 with the opening (pyengine --jitter), so that over a book the score
#: against it falls steadily with the tuned engine's distance.
BASE_PARAMS, BASE_VALUE, BASE_JITTER = "A, int, 10, 0, 60, 2, 0.5\n", 17, 12


def new_base_tune(path: Path, iterations: int, *more: str) -> None:
    """A tune of pyengine's A against the same engine at A = 17, four games a step, on a book of 400 openings
    (each position after one move a side): the step's opening decides the base's jitter."""
    (path.parent / "params.txt").write_text(BASE_PARAMS)
    board, fens = chess.Board(), []
    for white in list(board.legal_moves):
        board.push(white)
        for black in list(board.legal_moves):
            board.push(black)
            fens.append(board.fen())
            board.pop()
        board.pop()
    (path.parent / "book.epd").write_text("\n".join(fens) + "\n")
    args = f"--seed 1 --horizon 30 --optimum A={OPTIMUM['A']}"
    engines = [
        f"cmd={PYENGINE},name=dev,proto=uci,args={args}",
        f"cmd={PYENGINE},name=base,proto=uci,args={args} --jitter {BASE_JITTER}",
    ]
    more = ("--spsa-base", "--openings", str(path.parent / "book.epd"), "--option", f"base:A={BASE_VALUE}", *more)
    create(path, engines, iterations, *more)


def create(path: Path, engines: list[str], iterations: int, *more: str) -> None:
    done = run_cli(
        "new", path, "-e", engines[0], "-e", engines[1], "--nodes", "1", "--spsa", path.parent / "params.txt",
        "--iterations", str(iterations), "--set", "adjudication.resign_moves=1",
        "--set", "adjudication.resign_score=1000", "--after-tourney", HOOK, *more,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def replayed_history(path: Path) -> list[tuple[int, tuple[float, ...]]]:
    """θ after each step, computed by the pure core from the games in the PGN: what the workers must have kept."""
    tourney = store.read(path)
    tune = tourney.spsa
    assert tune is not None
    state = spsa.TuneState.initial(tune)
    history = [(0, state.theta)]
    for step in range(tune.iterations):
        state = state.begin(step).apply(tune, plus_margin=step_points(tourney, step))
        history.append((step + 1, state.theta))
    return history


def step_points(tourney: Tourney, step: int) -> float:
    """How many points more the θ + cΔ side of ``step`` scored than its θ − cΔ side, by the games in the PGN."""
    tune = tourney.spsa
    assert tune is not None
    tuned = tourney.participants[0].name
    games = {int(g["GameNumber"]): (g["White"], g["Result"]) for g in pgn_games(tourney.pgn_path)}
    size = tune.opponent.games_per_step
    points = []
    for number in range(size * step, size * (step + 1)):
        white, result = games[number]
        white_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
        points.append(white_points if white == tuned else 1 - white_points)
    return spsa.step_margin(tune.opponent, points)


def played_24_steps(path: Path) -> tuple[Tourney, spsa.TuneState, spsa.TuneSettings]:
    """Run a tune of 24 steps with one lane, its values reported after 12 and 24; the tourney, θ, the tune."""
    done = run_cli("run", path, "--workers", "1", "--report-every", "12")
    assert done.returncode == 0, done.stderr
    reports = [line for line in done.stderr.splitlines() if line.startswith("SPSA: ")]
    assert len(reports) == 2 and reports[-1] == "SPSA: 24 of 24 pairs applied; c and a of pair 24:", reports
    assert_consistent(path)
    tourney = store.read(path)
    state, tune = tourney.tuning, tourney.spsa
    assert state is not None and tune is not None and state.pairs == 24 and not state.begun
    return tourney, state, tune


def test_a_tune_finds_the_hidden_optimum_and_hands_its_values_over(tmp_path: Path) -> None:
    path = tmp_path / "tune.toml"
    new_tune(path, 24, "--set", "tourney.log_engines=true")
    tourney, state, tune = played_24_steps(path)
    # 24 pairs from 15 and 10 away: within 3 of the optimum (the pure core's noiseless walk of
    # tests/unit/test_spsa.py, with these gains, ends within 2.1 over 20 seeds).
    for value, best in zip(state.theta, OPTIMUM.values(), strict=True):
        assert abs(value - best) <= 3, state.theta
    assert replayed_history(path) == list(state.history)  # exactly: the same arithmetic, pair for pair
    status = run_cli("status", path).stdout
    for name, value in zip(OPTIMUM, state.theta, strict=True):  # at the end, c = c_end and a = r_end · c_end²
        assert f"  {name} = {value:.4f} ({round(value)}), start " in status and ", c 2, a 1.2; path " in status
    # Each engine was given its side of the pair's step.
    step = spsa.TuneState.initial(tune).begin(0).step(tune, 0)
    log = (tourney.engine_logs_dir / "game-0.log").read_text()
    for name, plus, minus in zip(OPTIMUM, step.plus, step.minus, strict=True):
        assert f"setoption name {name} value {plus}" in log and f"setoption name {name} value {minus}" in log
    # The values, as engine authors paste them back, in a file and in after_tourney's environment.
    values = spsa.format_values(tune.params, state.theta)
    text = (tmp_path / "tune.spsa.txt").read_text()
    assert text == f"{values}\n\n{spsa.format_input(tune.params, state.theta)}\n"
    hooked = (tmp_path / "hook.txt").read_text()
    assert f"TMANAGER_SPSA_FILE={tmp_path / 'tune.spsa.txt'}\n" in hooked and "TMANAGER_SPSA_PAIRS=24\n" in hooked
    assert f"TMANAGER_SPSA_VALUES={values.splitlines()[0]}\n" in hooked
    # Run again, the tune over: its length is its iterations (raising its cycles, as the message said, is refused).
    again = run_cli("run", path, "--workers", "1")
    assert again.returncode == 0 and again.stderr == (
        "tmanager: nothing to play: every step of the tune is played; to go on, raise its iterations "
        "(tmanager edit tune.toml --set spsa.iterations=…)\n"
    )


def test_an_edit_of_the_tune_between_the_games_of_a_pair_leaves_that_pair_as_it_was_drawn(tmp_path: Path) -> None:
    path = tmp_path / "tune.toml"
    new_tune(path, 3, "--set", "tourney.log_engines=true")
    assert run_cli("work", path, "--games", "1").returncode == 0  # pair 0 half played
    before = store.read(path)
    assert before.spsa is not None
    drawn = spsa.TuneState.initial(before.spsa).begin(0).step(before.spsa, 0)
    edited = run_cli("edit", path, "--set", "spsa.seed=7", "--set", "spsa.alpha=0.7")  # other directions, gains
    assert edited.returncode == 0, edited.stderr
    assert run_cli("work", path, "--games", "1").returncode == 0
    logs = [(store.read(path).engine_logs_dir / f"game-{n}.log").read_text() for n in (0, 1)]
    for name, plus, minus in zip(("A", "B"), drawn.plus, drawn.minus, strict=True):  # both games: one step
        for log in logs:
            assert f"plus <--- setoption name {name} value {plus}\n" in log, log
            assert f"minus <--- setoption name {name} value {minus}\n" in log, log
    after = store.read(path)
    assert after.spsa is not None and after.tuning is not None and after.tuning.pairs == 1
    assert after.tuning.drawn == {}  # applied: nothing of the pair is kept
    points = step_points(after, 0)
    want = spsa.updated_theta(after.spsa.gains, after.spsa.params, drawn, drawn.theta, plus_margin=points)
    assert after.tuning.theta == want  # moved along the directions played, by the gains of now


def test_a_tune_against_a_fixed_base_finds_the_hidden_optimum(tmp_path: Path) -> None:
    path = tmp_path / "tune.toml"
    new_base_tune(path, 24, "--set", "tourney.log_engines=true")
    tourney = store.read(path)
    assert tourney.spsa is not None and tourney.spsa.opponent is spsa.Opponent.BASE
    assert tourney.schedule().total_games == 96  # four games a step
    tourney, state, tune = played_24_steps(path)
    # 24 steps from 15 away: within 2 of the optimum (the pure core against this engine model, with these
    # gains and this book, ends within 0.9 over 20 seeds), past the base's 17.
    assert abs(state.theta[0] - OPTIMUM["A"]) <= 2, state.history
    assert replayed_history(path) == list(state.history)
    # A step: dev at θ + cΔ, then θ − cΔ, each against the base at A = 17 with both colours, on one opening.
    step = spsa.TuneState.initial(tune).begin(0).step(tune, 0)
    games = {int(g["GameNumber"]): g for g in pgn_games(tourney.pgn_path)}
    assert len({games[n]["FEN"] for n in range(4)}) == 1 and games[4]["FEN"] != games[0]["FEN"]
    assert {games[n]["White"] for n in (0, 2)} == {"dev"} and {games[n]["Black"] for n in (1, 3)} == {"dev"}
    for number, played in ((0, step.plus[0]), (1, step.plus[0]), (2, step.minus[0]), (3, step.minus[0])):
        log = (tourney.engine_logs_dir / f"game-{number}.log").read_text()
        assert re.findall(r"dev <--- setoption name A value (\d+)", log) == [str(played)]
        assert re.findall(r"base <--- setoption name A value (\d+)", log) == ["17"]  # restarted too: replayable
    assert (tmp_path / "tune.spsa.txt").read_text().startswith(f"A, {round(state.theta[0])}\n")


@pytest.mark.parametrize(("create_tune", "steps"), [(new_tune, 12), (new_base_tune, 6)], ids=["mirror", "base"])
def test_workers_killed_at_random_leave_the_same_tune_pair_for_pair(
    tmp_path: Path, create_tune: Callable[[Path, int], None], steps: int
) -> None:
    calm, chaos = tmp_path / "calm", tmp_path / "chaos"
    for folder in (calm, chaos):
        folder.mkdir()
        create_tune(folder / "tune.toml", steps)
    assert run_cli("run", calm / "tune.toml", "--workers", "1").returncode == 0
    path = chaos / "tune.toml"
    run = subprocess.Popen([sys.executable, "-m", "tmanager", "run", str(path), "--workers", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    made = kill_at_random(path, run, random.Random(50), kills=6)
    assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
    assert made >= 3
    assert_consistent(path)
    expected, killed = store.read(calm / "tune.toml"), store.read(path)
    assert killed.results == expected.results
    assert killed.tuning is not None and killed.tuning == expected.tuning
    assert killed.tuning.history == tuple(replayed_history(path))


def test_stockfish_is_tuned_on_two_of_its_options(tmp_path: Path) -> None:
    path = tmp_path / "sf.toml"
    params = "Skill Level, int, 10, 0, 20, 3, 0.002\nSlow Mover, int, 100, 10, 1000, 20, 0.002\n"
    (tmp_path / "params.txt").write_text(params)
    done = run_cli(
        "new", path, "-e", "stockfish:plus", "-e", "stockfish:minus", "--nodes", "200", "--spsa",
        tmp_path / "params.txt", "--iterations", "2", "--openings", ROOT / "tourneys" / "openings" / "sample.epd",
        "--set", "adjudication.max_moves=40", "--set", "tourney.log_engines=true",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = run_cli("run", path, "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert_consistent(path)
    tourney = store.read(path)
    tune = tourney.spsa
    assert tourney.tuning is not None and tune is not None
    assert tourney.tuning.pairs == 2 and len(tourney.tuning.history) == 3
    assert replayed_history(path) == list(tourney.tuning.history)
    for number in range(4):
        pair = number // 2  # drawn at θ after the pair before it (one lane)
        theta = tourney.tuning.history[pair][1]
        step = spsa.plan_step(tune.gains, tune.params, theta, pair=pair, seed=spsa.pair_seed(tune.seed, pair))
        log = (tourney.engine_logs_dir / f"game-{number}.log").read_text()
        for name, plus in zip(("Skill Level", "Slow Mover"), step.plus, strict=True):
            assert f"setoption name {name} value {plus}" in log
    assert (tmp_path / "sf.spsa.txt").read_text().startswith("Skill Level, ")
    assert run_cli("clone", path, tmp_path / "again.toml").returncode == 0  # the same tune, from its start
    again = store.read(tmp_path / "again.toml")
    assert again.spsa == tune and again.tuning is None and not again.results
    # The dashboard: each parameter's row, and its path after each pair as a line of the chart.
    server = Server(path)
    try:
        status, _, body = fetch(server.url)
    finally:
        server.stop()
    page = body.decode()
    assert status == 200 and "<h2>SPSA tune</h2><p class=\"figures\">2 of 2 pairs applied" in page
    for name, value in zip(("Skill Level", "Slow Mover"), tourney.tuning.theta, strict=True):
        assert f'<td class="name">{name}</td><td>{value:.4f}</td><td>{round(value)}</td>' in page
        assert f"<title>{name}: {value:.4f}</title>" in page
    tune_part = page[page.index('<section id="tune"') :]
    polylines = re.findall(r'<polyline points="([^"]*)"', tune_part[: tune_part.index("</section>")])
    assert [len(points.split()) for points in polylines] == [3, 3]


@pytest.mark.parametrize(
    ("params", "more", "says"),
    [
        ("A, int, 5, 10, 0, 1, 0.1\n", (), "params.txt: line 1: A: min 10 is above max 0 (swap them)"),
        ("A, int, 50, 0, 10, 1, 0.1\n", (), "params.txt: line 1: A: start 50 is outside [0, 10]"),
        ("A, int, 5, 0, 10, 1, 0.1\n", ("--iterations", "0"), "spsa.iterations: must be at least 1, not 0"),
        ("A, int, 5, 0, 10, 1, 0.1\n", ("-e", "greedy-uci"), "participants: a tune needs exactly 2 participants"),
        ("A, int, 5, 0, 10, 1, 0.1\n", ("--cycles", "3"), "tourney.cycles: a tune's length is spsa.iterations"),
        # an option of a tuned participant that the tune sets: its value was never played, silently
        ("A, int, 5, 0, 10, 1, 0.1\n", ("--option", "b:a=3"), "participants[1].options: a: the tune sets it in "
         "every game (spsa.parameters: A), so this value is never played (leave it out: the tune starts from the "
         "parameter's start)"),
        ("A, int, 5, 0, 10, 1, 0.1\n", ("--each", "option.A=3"), "participants[0].options: A: the tune sets it"),
        ("A, int, 5, 0, 10, 1, 0.1\n", ("--set", "noswap=true"),
         "tourney.noswap: each pair of a tune reverses colours (noswap = false)"),
        # reverse = true was blamed on noswap, whose hint (noswap = false) was already so
        ("A, int, 5, 0, 10, 1, 0.1\n", ("--set", "reverse=true"),
         "tourney.reverse: a tune plays the schedule's own colours (reverse = false)"),
        ("A, int, 5, 0, 10, 1, 0.1\n", (), "spsa.parameters: A: engine 'a' has no such option (its options: Hash, "),
        ("Hash, int, 5, 1, 99999, 1, 0.1\n", (), "spsa.parameters: Hash: expected value for option 'Hash' to be at "
         "most 65536, got: 99999"),
        ("hash, float, 5, 1, 9, 1, 0.1\n", (), "spsa.parameters: hash: expected integer for spin option 'Hash', "
         "got: '1.0'"),
        ("Hash, int, 5, 1, 9, 1, 0.1\n", ("--spsa-base", "--set", "spsa.opponent=sideways"),
         "spsa.opponent: 'sideways' is not an opponent (one of 'mirror', 'base')"),
        ("Hash, int, 5, 1, 9, 1, 0.1\n", ("--spsa-base", "-e", "greedy-uci"),
         "participants: a tune needs exactly 2 participants (the engine twice, or the engine then its base)"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, params: str, more: tuple[str, ...], says: str
) -> None:
    (tmp_path / "params.txt").write_text(params)
    iterations = () if "--iterations" in more else ("--iterations", "5")
    done = run_cli(
        "new", tmp_path / "t.toml", "-e", "random-uci:a", "-e", "random-uci:b", "--nodes", "1",
        "--spsa", tmp_path / "params.txt", *iterations, *more,
    )  # fmt: skip
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.txt"]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ("Clear Hash, int, 0, 0, 1, 1, 0.1\n", "spsa.parameters: Clear Hash: the engine's Clear Hash is a button "
         "option, which takes no value (tune a spin option, or a string option for a float)"),
        ("multipv, int, 1, 1, 4, 1, 0.1\n", "spsa.parameters: multipv: tmanager sets the engine's MultiPV itself in "
         "every game (tune another option)"),
    ],
)
def test_an_option_the_tune_cannot_set_is_refused_by_new(tmp_path: Path, params: str, says: str) -> None:
    """A button's tuned values were dropped (θ wandered on noise, games wasted); an option tmanager manages passed
    ``new`` and stopped ``run`` at the first game."""
    (tmp_path / "params.txt").write_text(params)
    done = run_cli(
        "new", tmp_path / "t.toml", "-e", "stockfish:a", "-e", "stockfish:b", "--nodes", "1",
        "--spsa", tmp_path / "params.txt", "--iterations", "5",
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.splitlines() == [f"tmanager: {says}"], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.txt"]


def test_a_tune_ended_by_an_edit_writes_its_values_and_runs_its_hook(tmp_path: Path) -> None:
    """spsa.iterations edited down to the pairs applied ended the tune without a game recorded: its values file was
    never written, nor after_tourney run, and `run` said only that every step was played."""
    path = tmp_path / "t.toml"
    new_tune(path, 2)
    assert run_cli("run", path).returncode == 0
    values, hooked = (tmp_path / "t.spsa.txt").read_text(), (tmp_path / "hook.txt").read_text()
    for made in ("t.spsa.txt", "hook.txt"):
        (tmp_path / made).unlink()
    assert run_cli("edit", path, "--set", "spsa.iterations=3").returncode == 0  # raised, then taken back
    assert run_cli("edit", path, "--set", "spsa.iterations=2").returncode == 0
    assert (tmp_path / "t.spsa.txt").read_text() == values
    assert run_cli("run", path).returncode == 0
    assert (tmp_path / "hook.txt").read_text() == hooked


@pytest.mark.parametrize(
    ("engine", "says"),
    [
        ("fault-no-handshake:a", "no handshake within 1 s (try the engine alone with `tmanager check`, or raise "
         "tourney.handshake_timeout)"),
        ("fault-crash-start:a", "engine process died unexpectedly (exit code: 1) (try the engine alone with "
         "`tmanager check`)"),
    ],
)
def test_an_engine_new_cannot_start_says_why_and_what_to_do(tmp_path: Path, engine: str, says: str) -> None:
    """An engine that never answered its handshake was told 'could not be started to read its options:
    TimeoutError', and neither this nor a crash said how to go on."""
    (tmp_path / "params.txt").write_text("A, int, 5, 0, 10, 1, 0.1\n")
    done = run_cli(
        "new", tmp_path / "t.toml", "-e", engine, "-e", "random-uci:b", "--nodes", "1", "--spsa",
        tmp_path / "params.txt", "--iterations", "5", "--set", "handshake_timeout=1",
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.splitlines() == [
        f"tmanager: participants[0]: the engine could not be started to read its options: {says}"
    ], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.txt"]


def test_edit_refuses_an_option_of_a_tuned_participant_that_the_tune_sets(tmp_path: Path) -> None:
    """`edit --option plus:A=3` was taken and never played: the tune sets A in every game. A base's own A is its
    to keep."""
    path = tmp_path / "t.toml"
    new_tune(path, 2)
    before = path.read_bytes()
    done = run_cli("edit", path, "--option", "plus:A=3")
    assert done.returncode == 2 and done.stderr.splitlines() == [
        f"tmanager: {path}: participants[0].options: A: the tune sets it in every game (spsa.parameters: A), so "
        "this value is never played (leave it out: the tune starts from the parameter's start)"
    ], done.stderr
    assert path.read_bytes() == before
    base = tmp_path / "b.toml"
    new_base_tune(base, 2)
    assert run_cli("edit", base, "--option", "base:A=20").returncode == 0


def test_edit_refuses_parameters_the_engines_do_not_take_as_new_does(tmp_path: Path) -> None:
    """`edit --set spsa.parameters=…` with an option the engine lacks was taken, and run stopped at its first game
    with a line naming no field and sending the user to the participant's options."""
    path = tmp_path / "t.toml"
    new_tune(path, 2)
    before = path.read_bytes()
    done = run_cli("edit", path, "--set", "spsa.parameters=Z, int, 10, 0, 20, 3, 0.002")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"tmanager: {path}: spsa.parameters: Z: engine 'plus' has no such option ("), \
        done.stderr
    assert path.read_bytes() == before
    assert run_cli("edit", path, "--set", "spsa.parameters=A, int, 12, 0, 60, 2, 0.5").returncode == 0


def test_a_fifo_where_the_tunes_values_go_is_refused_before_a_game(tmp_path: Path) -> None:
    """``NAME.spsa.txt`` is written as the tune ends: a FIFO there was found only then, and the worker waited
    for ever for it to be fixed."""
    path = tmp_path / "t.toml"
    new_tune(path, 2)
    os.mkfifo(tmp_path / "t.spsa.txt")
    done = run_cli("run", path)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        f"tmanager: {tmp_path / 't.spsa.txt'}: is not a regular file but a FIFO (move it away: tmanager writes the "
        "values t.toml tunes there)"
    ], done.stderr
    (tmp_path / "t.spsa.txt").unlink()
    assert store.read(path).finished_count == 0 and not path.with_suffix(".pgn").exists()


def test_a_base_is_not_asked_for_the_tuned_options_and_spsa_base_needs_spsa(tmp_path: Path) -> None:
    (tmp_path / "params.txt").write_text(BASE_PARAMS)
    tuned = f"cmd={PYENGINE},name=dev,proto=uci,args=--optimum A=25"
    new = ("new", tmp_path / "t.toml", "-e", tuned, "-e", "random-uci:base", "--nodes", "1")
    alone = run_cli(*new, "--spsa-base")
    assert alone.returncode == 2 and alone.stderr == "tmanager: --spsa: --spsa-base without --spsa (the file of " \
        "the parameters to tune)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.txt"]
    mirror = run_cli(*new, "--spsa", tmp_path / "params.txt", "--iterations", "3")  # random-uci has no option A
    assert mirror.returncode == 2 and "spsa.parameters: A: engine 'base' has no such option" in mirror.stderr
    done = run_cli(*new, "--spsa", tmp_path / "params.txt", "--iterations", "3", "--spsa-base")
    assert done.returncode == 0, done.stderr
    tourney = store.read(tmp_path / "t.toml")
    assert tourney.spsa is not None and tourney.spsa.opponent is spsa.Opponent.BASE
    assert 'opponent = "base"' in (tmp_path / "t.toml").read_text() and tourney.schedule().total_games == 12
