"""The tourney file: reading, validation of bad input (one line, exit 2, nothing rewritten), writing."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, assert_consistent, run_cli
from tmanager.tourney import store
from tmanager.tourney.model import Claim
from tmanager.tourney.resolution import time_margin

PARTICIPANTS = """
[[participants]]
name = "A"
cmd = "stockfish"
protocol = "uci"

[[participants]]
name = "B"
cmd = "stockfish"
protocol = "uci"

[[participants]]
name = "C"
cmd = "stockfish"
protocol = "uci"
"""

GOOD = (
    """\
# my comment survives workers
[tourney]
name = "t"
nodes = 100
"""
    + PARTICIPANTS
    + """
[progress]
results = "+-="
"""
)


def expect_error(path: Path, *fragments: str, command: str = "status") -> None:
    before = path.read_bytes()
    done = run_cli(command, path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert path.read_bytes() == before


def test_good_file_reads(write_tourney: Callable[..., Path]) -> None:
    path = write_tourney(GOOD)
    tourney = store.read(path)
    assert [p.name for p in tourney.participants] == ["A", "B", "C"]
    assert tourney.results == "+-="
    assert tourney.schedule().total_games == 6
    done = run_cli("status", path)
    assert done.returncode == 0, done.stderr
    assert "3 played" in done.stdout


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        (GOOD.replace('name = "t"', 'name = "t'), ["t.toml", "not valid TOML"]),
        (GOOD.replace("nodes = 100", "nodes = 100\nspeed = 3"), ["t.toml", "tourney", "unknown key 'speed'"]),
        (GOOD.replace('cmd = "stockfish"\nprotocol = "uci"', 'engine = "no-such-def"', 1),
         ["participants[0].engine", "unknown engine 'no-such-def'"]),
        (GOOD.replace("nodes = 100", 'tc = "fast"'), ["tourney.tc", "bad time control 'fast'"]),
        (GOOD.replace('results = "+-="', 'results = "+x="'), ["progress.results", "foreign character 'x'"]),
        (GOOD.replace('results = "+-="', 'results = "+-=+-=+"'), ["progress.results", "only 6"]),
        (GOOD.replace("nodes = 100", "nodes = 100\ntype = \"gauntlet\"\ngauntlet_seeds = 3"),
         ["tourney.gauntlet_seeds", "3 seeds with 3 participants"]),
        (GOOD.replace("nodes = 100", "nodes = 100\ncycles = \"two\""), ["tourney.cycles", "whole number"]),
        (GOOD.replace("nodes = 100", 'nodes = 100\ntype = "knockout"'), ["tourney.type", "'knockout'"]),
        (GOOD.replace('protocol = "uci"', 'protocol = "cecp"', 1), ["participants[0].protocol"]),
        (GOOD + '\n[tourney2]\nx = 1\n', ["unknown section 'tourney2'"]),
        (GOOD + '\n[adjudication]\nmax_moves = 10\n', ["after the progress sections"]),
    ],
)
def test_bad_input_is_one_line_exit_2_and_untouched(
    write_tourney: Callable[..., Path], text: str, fragments: list[str]
) -> None:
    expect_error(write_tourney(text), *fragments)


def test_fewer_than_two_participants(write_tourney: Callable[..., Path]) -> None:
    text = '[tourney]\nnodes = 10\n[[participants]]\nname = "A"\ncmd = "stockfish"\nprotocol = "uci"\n'
    expect_error(write_tourney(text), "at least 2 participants")


def test_missing_binary_refused_by_run(write_tourney: Callable[..., Path]) -> None:
    path = write_tourney(GOOD.replace('cmd = "stockfish"', 'cmd = "no-such-engine-binary"', 1))
    expect_error(path, "'A'", "no-such-engine-binary", "not on PATH", command="run")


def test_missing_file(tmp_path: Path) -> None:
    done = run_cli("status", tmp_path / "nope.toml")
    assert done.returncode == 2 and "nope.toml: no such tourney file" in done.stderr


def test_worker_writes_only_the_tail(write_tourney: Callable[..., Path]) -> None:
    path = write_tourney(GOOD)
    with store.transaction(path) as tourney:
        tourney.set_result(3, "*")
        tourney.claims[3] = Claim(host="h", pid=1, started=1.0, claimed=2.0, heartbeat=3.0)
    text = path.read_text()
    assert text.startswith("# my comment survives workers\n")
    # The results string is padded to the schedule's length, so that workers change it in place.
    assert re.search(r'results = "\+-=\* *"\n$', text)
    tourney = store.read(path)
    assert tourney.claims[3].pid == 1 and tourney.results == "+-=*"
    with store.transaction(path) as tourney:
        tourney.set_result(3, "=")
    assert store.read(path).claims == {}
    assert "# my comment" in path.read_text()


def test_a_hand_edit_of_the_laid_out_part_is_checked_and_named_by_its_line(write_tourney: Callable[..., Path]) -> None:
    path = write_tourney(GOOD)
    with store.transaction(path) as tourney:  # tmanager's own layout, read without parsing its results as TOML
        tourney.set_result(3, "=")
    laid_out = path.read_text()
    lines = laid_out.count("\n")
    path.write_text(laid_out + "garbage [[[\n")  # it was read as if it were not there
    expect_error(path, "not valid TOML", f"(at line {lines + 1}, column 9)")
    broken = laid_out.replace("[progress]\n", "[progress]\nx = = 1\n")
    path.write_text(broken)
    expect_error(path, "(at line {}, column 5)".format(broken.splitlines().index("x = = 1") + 1))
    path.write_text(laid_out + "# a comment at the end\n")
    assert run_cli("status", path).returncode == 0


def test_failed_transaction_leaves_file_untouched(write_tourney: Callable[..., Path]) -> None:
    path = write_tourney(GOOD)
    before = path.read_bytes()
    with pytest.raises(RuntimeError), store.transaction(path) as tourney:
        tourney.set_result(3, "+")
        raise RuntimeError("boom")
    assert path.read_bytes() == before


def test_new_command_writes_a_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "n.toml"
    done = run_cli("new", path, "-e", "stockfish:A", "-e", "stockfish:B", "-e", "stockfish:C", "--nodes", "100",
                   "--set", "adjudication.max_moves=80", "--cycles", "2")
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    assert tourney.settings.cycles == 2 and tourney.adjudication.max_moves == 80
    assert [p.engine for p in tourney.participants] == ["stockfish"] * 3
    assert re.search(r'results = " *"\n$', path.read_text())
    again = run_cli("new", path, "-e", "stockfish:A", "-e", "stockfish:B", "--nodes", "100")
    assert again.returncode == 2 and "file exists" in again.stderr


def test_new_refuses_bad_settings_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "n.toml"
    done = run_cli("new", path, "-e", "stockfish:A", "-e", "stockfish:B", "--tc", "fast")
    assert done.returncode == 2 and "tc" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not path.exists()


@pytest.mark.parametrize("example", sorted((Path(__file__).parents[2] / "tourneys").glob("*.toml")))
def test_examples_are_valid_and_fresh(example: Path) -> None:
    tourney = store.read(example)
    assert tourney.results == "" and tourney.claims == {}
    assert tourney.schedule().total_games > 0
    for index in range(len(tourney.participants)):
        tourney.engine_spec(index).check_runnable()


# --- per-participant options and settings: --option, --each, participants.NAME.FIELD ------------------


def test_new_takes_engine_options_and_settings_per_participant(tmp_path: Path) -> None:
    path = tmp_path / "o.toml"
    done = run_cli(
        "new", path, "-e", "stockfish:base", "-e", "stockfish:dev:2", "--nodes", "100",
        "--each", "option.Hash=16", "--each", "option.Threads=1", "--option", "dev:2:Hash=64",
        "--option", "base:Move Overhead=30", "--each", "tc=10+0.1", "--each", "time_margin=0.05",
        "--set", "participants.dev:2.ponder=true",
    )
    assert done.returncode == 0, done.stderr
    base, dev = store.read(path).participants
    assert dict(base.options) == {"Hash": 16, "Threads": 1, "Move Overhead": 30}
    assert dict(dev.options) == {"Hash": 64, "Threads": 1}  # --option wins over --each
    assert (base.tc, base.time_margin, base.ponder) == ("10+0.1", 0.05, None)
    assert (dev.tc, dev.time_margin, dev.ponder) == ("10+0.1", 0.05, True)
    assert dev.name == "dev:2"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--option", "nobody:Hash=1"], "--option: --option 'nobody:Hash=1' names no participant"),
        (["--option", "A:Hash"], "is not NAME:KEY=VALUE"),
        (["--each", "colour=white"], "participants[0]: cannot set 'colour' of participant 'A'"),
        (["--each", "option.=1"], "cannot set 'option.' of participant 'A'"),
        (["--each", "tc=fast"], "participants[0].tc"),
        (["--each", "time_margin=-1"], "participants[0].time_margin: must be a non-negative number"),
        (["--set", "participants.Z.tc=1+0"], "'participants.Z.tc' names no participant"),
    ],
)
def test_new_refuses_bad_participant_settings(tmp_path: Path, args: list[str], says: str) -> None:
    path = tmp_path / "o.toml"
    done = run_cli("new", path, "-e", "stockfish:A", "-e", "stockfish:B", "--nodes", "100", *args)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert says in done.stderr
    assert not path.exists()


@pytest.mark.parametrize("kind", ["round-robin", "swiss"])
def test_new_refuses_seeds_of_a_tourney_that_is_no_gauntlet(tmp_path: Path, kind: str) -> None:
    """--seeds 2 of a round robin was written to the file and played no part, silently."""
    path = tmp_path / "o.toml"
    done = run_cli("new", path, "--type", kind, "--seeds", "2", "-e", "stockfish:A", "-e", "stockfish:B",
                   "-e", "stockfish:C", "--nodes", "100", "--set", "swiss_rounds=2")
    assert (done.returncode, done.stderr) == (2, (
        f"tmanager: --seeds: only a gauntlet has seeds, not a {kind} (add --type gauntlet, or leave --seeds out)\n"))
    assert not path.exists()


def test_new_refuses_an_sprt_model_without_an_sprt(tmp_path: Path) -> None:
    """--sprt-model logistic without --sprt was dropped, silently: the file was written without a test, played
    every game, and no decision came; with --sprt it is the test's model, normalized when left out."""
    path, engines = tmp_path / "s.toml", ["-e", "stockfish:A", "-e", "stockfish:B", "--nodes", "100"]
    done = run_cli("new", path, *engines, "--sprt-model", "logistic")
    assert (done.returncode, done.stderr) == (2, (
        "tmanager: --sprt-model: tests nothing without --sprt (add --sprt ELO0 ELO1 ALPHA BETA, e.g. --sprt 0 5 "
        "0.05 0.05)\n"))
    assert not path.exists()
    for more, model in ((("--sprt-model", "logistic"), "logistic"), ((), "normalized")):
        done = run_cli("new", path, *engines, "--sprt", "0", "5", "0.05", "0.05", *more, "--force")
        assert done.returncode == 0, done.stderr
        sprt = store.read(path).sprt
        assert sprt is not None and sprt.model == model


def test_new_takes_a_swiss_tourney_s_rounds_and_refuses_them_elsewhere(tmp_path: Path) -> None:
    """A Swiss's rounds could only be given by --set swiss_rounds=N; without them it said '0 Swiss rounds'."""
    path, engines = tmp_path / "s.toml", ["-e", "stockfish:A", "-e", "stockfish:B", "-e", "stockfish:C"]
    done = run_cli("new", path, "--type", "swiss", *engines, "--nodes", "100")
    assert (done.returncode, done.stderr) == (2, (
        "tmanager: tourney.swiss_rounds: a Swiss tourney needs its rounds per cycle (set swiss_rounds = N from 1 to "
        "2, or give tmanager new --rounds N)\n"))
    assert not path.exists()
    done = run_cli("new", path, "--rounds", "2", *engines, "--nodes", "100")
    assert (done.returncode, done.stderr) == (2, (
        "tmanager: --rounds: only a Swiss tourney has rounds, not a round-robin (add --type swiss, or leave --rounds "
        "out)\n"))
    assert not path.exists()
    assert run_cli("new", path, "--type", "swiss", "--rounds", "2", *engines, "--nodes", "100").returncode == 0
    assert store.read(path).settings.swiss_rounds == 2


@pytest.mark.parametrize(
    ("kind", "setting", "says"),
    [
        ("round-robin", "gauntlet_seeds=2",
         'tourney.gauntlet_seeds: only a gauntlet has seeds, not a round-robin (set type = "gauntlet", or '
         "gauntlet_seeds = 1)"),
        ("swiss", "gauntlet_seeds=2",
         'tourney.gauntlet_seeds: only a gauntlet has seeds, not a swiss (set type = "gauntlet", or '
         "gauntlet_seeds = 1)"),
        ("round-robin", "swiss_rounds=2",
         'tourney.swiss_rounds: only a Swiss tourney has rounds, not a round-robin (set type = "swiss", or '
         "swiss_rounds = 0)"),
        ("gauntlet", "swiss_rounds=2",
         'tourney.swiss_rounds: only a Swiss tourney has rounds, not a gauntlet (set type = "swiss", or '
         "swiss_rounds = 0)"),
    ],
)
def test_edit_refuses_seeds_or_rounds_the_tourney_s_type_has_not(
    tmp_path: Path, kind: str, setting: str, says: str
) -> None:
    """`edit --set gauntlet_seeds=2` of a round robin (the tester thinking it a gauntlet) said 'updated' and the
    seeds played no part, as --seeds of `new` did before `new` refused it; so too swiss_rounds of a gauntlet."""
    path = tmp_path / "o.toml"
    rounds = ["--rounds", "2"] if kind == "swiss" else []
    made = run_cli("new", path, "--type", kind, *rounds, "-e", "stockfish:A", "-e", "stockfish:B",
                   "-e", "stockfish:C", "-e", "stockfish:D", "--nodes", "100")
    assert made.returncode == 0, made.stderr
    before = path.read_bytes()
    done = run_cli("edit", path, "--set", setting)
    assert (done.returncode, done.stderr) == (2, f"tmanager: {path}: {says}\n")
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("participants.Z.tc=1+0",
         "participants.Z.tc: 'participants.Z.tc' names no participant (participants: A, B, C)"),
        ("sprt.elo0=1", "sprt.elo0: the tourney has no [sprt] section (add one with elo0 and elo1 by hand)"),
    ],
)
def test_edit_names_the_file_it_refuses_to_change(write_tourney: Callable[..., Path], key: str, says: str) -> None:
    """FILE: FIELD: what is wrong: these two said no file, unlike every other refusal of edit."""
    path = write_tourney(GOOD)
    before = path.read_bytes()
    done = run_cli("edit", path, "--set", key)
    assert (done.returncode, done.stderr) == (2, f"tmanager: {path}: {says}\n")
    assert path.read_bytes() == before


def test_edit_changes_how_participants_play_not_who_they_are(write_tourney: Callable[..., Path]) -> None:
    path = write_tourney(GOOD)
    done = run_cli("edit", path, "--option", "A:Hash=32", "--each", "time_margin=0.2",
                   "--set", "participants.C.tc=5+0.05", "--each", "restart=true")
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    a, b, c = tourney.participants
    assert dict(a.options) == {"Hash": 32} and not b.options
    assert [p.time_margin for p in (a, b, c)] == [0.2] * 3 and all(p.restart for p in (a, b, c))
    assert c.tc == "5+0.05" and tourney.results == "+-="
    assert time_margin(tourney, 1) == 0.2 and str(tourney.time_control(2)) == "5+0.05"
    for change in ("participants.A.cmd=gnuchess", "participants.A.name=Z", "participants.B.engine=fairymax",
                   "participants.B.args=[]"):
        before = path.read_bytes()
        done = run_cli("edit", path, "--set", change)
        assert done.returncode == 2 and "use tmanager substitute" in done.stderr, done.stderr
        assert path.read_bytes() == before
    assert run_cli("edit", path).returncode == 2


# --- engines named by their program: -e PATH, -e cmd=PATH,name=NAME,… ---------------------------------


def test_new_names_engines_by_their_program_and_plays_them(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    pyengine = ROOT / "engines" / "pyengine.py"
    done = run_cli(
        "new", path, "-e", "/usr/games/stockfish",
        "-e", f'cmd={pyengine},name=greedy,args="--style greedy --seed 3",dir={tmp_path}',
        "-e", "name=xb,cmd=engines/pyengine.py,proto=xboard,args=--protocol xboard",
        "-e", "engines/pyengine.py:rel", "-e", "random-uci",
        "--nodes", "200", "--set", "adjudication.max_moves=15", cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    sf, greedy, xb, rel, definition = store.read(path).participants
    assert (sf.name, sf.cmd, sf.protocol, sf.engine) == ("stockfish", "/usr/games/stockfish", "uci", "")
    assert (greedy.cmd, greedy.args, greedy.dir) == (str(pyengine), ("--style", "greedy", "--seed", "3"), str(tmp_path))
    assert (xb.cmd, xb.protocol, xb.args) == (str(pyengine), "xboard", ("--protocol", "xboard"))
    assert (rel.name, rel.cmd, rel.protocol) == ("rel", str(pyengine), "uci")
    assert (definition.name, definition.engine) == ("random-uci", "random-uci")  # definitions as before
    played = run_cli("run", path, "--workers", "2")
    assert played.returncode == 0, played.stderr
    games = assert_consistent(path)
    assert len(games) == 20 and {g["White"] for g in games} == {"stockfish", "greedy", "xb", "rel", "random-uci"}


@pytest.mark.parametrize(
    ("engine", "says"),
    [
        ("/usr/games/no-such-engine", "--engine: program '/usr/games/no-such-engine' of engine 'no-such-engine' not "
         "found or not executable"),
        ("cmd=/tmp,name=dir", "--engine: program '/tmp' of engine 'dir' not found or not executable"),
        ("{plain}", "not found or not executable"),
        ("cmd=no-such-program-anywhere,name=x", "is not on PATH"),
        ("name=x", "--engine: 'name=x' has no cmd="),
        ("cmd=/usr/games/stockfish,hash=64", "'hash=64' is not one of cmd=, name=, proto=, dir=, args="),
        ("cmd=/usr/games/stockfish,proto=cecp", "proto='cecp': not uci or xboard"),
        ('cmd=/usr/games/stockfish,args="-a', "no closing quotation"),
        # Was taken, the engine named b: the last of a key given twice.
        ("cmd=/usr/games/stockfish,name=a,name=b", "tmanager: --engine: name= given twice ('a', then 'b') (give name= "
         "once)"),
        # Was "participants[0]: participant 'dev' has neither engine nor cmd": a file's field, of a file not made.
        (":dev", "tmanager: --engine: ':dev' names no engine (write DEFINITION:NAME, e.g. -e stockfish:dev)"),
        # Were named after the engine in silence (greedy-uci, ...): an empty name is a name left out by mistake.
        ("greedy-uci:", "tmanager: --engine: 'greedy-uci:' gives an empty name after ':' (write greedy-uci:NAME, or "
         "greedy-uci alone to name it 'greedy-uci')"),
        ("/usr/games/fairymax:", "--engine: '/usr/games/fairymax:' gives an empty name after ':'"),
        ("cmd=/usr/games/fairymax,name=", "tmanager: --engine: 'cmd=/usr/games/fairymax,name=': name= is empty (give "
         "name=NAME, or leave name= out to name it after cmd's file)"),
    ],
)
def test_new_refuses_an_engine_program_it_cannot_run(tmp_path: Path, engine: str, says: str) -> None:
    plain = tmp_path / "not-executable"
    plain.write_text("#!/bin/sh\n")
    path = tmp_path / "p.toml"
    done = run_cli("new", path, "-e", engine.format(plain=plain), "-e", "stockfish", "--nodes", "100")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert says in done.stderr
    assert not path.exists()


# --- a participant's own setting wins over --each, whatever the order, and says so -------------------------

OWN_WINS = [
    ["--set", "participants.dev.tc=20+0.2", "--each", "tc=10+0.1"],
    ["--each", "tc=10+0.1", "--set", "participants.dev.tc=20+0.2"],
]


@pytest.mark.parametrize("order", OWN_WINS)
def test_new_gives_a_participants_own_setting_over_each(tmp_path: Path, order: list[str]) -> None:
    path = tmp_path / "w.toml"
    done = run_cli("new", path, "-e", "stockfish:dev", "-e", "stockfish:base", "--nodes", "100", *order,
                   "--each", "option.Hash=16", "--option", "dev:Hash=64", "--option", "base:Threads=1")
    assert done.returncode == 0, done.stderr
    dev, base = store.read(path).participants
    assert (dev.tc, base.tc) == ("20+0.2", "10+0.1")
    assert (dict(dev.options), dict(base.options)) == ({"Hash": 64}, {"Hash": 16, "Threads": 1})
    assert done.stderr.splitlines() == [
        "tmanager: note: --option dev:Hash=64 wins over --each option.Hash=16",
        "tmanager: note: participants.dev.tc=20+0.2 wins over --each tc=10+0.1",
    ]


@pytest.mark.parametrize("order", OWN_WINS)
def test_edit_gives_a_participants_own_setting_over_each(write_tourney: Callable[..., Path], order: list[str]) -> None:
    path = write_tourney(GOOD)
    done = run_cli("edit", path, *[a.replace("dev", "B") for a in order],
                   "--set", "participants.C.options.Hash=8", "--each", "option.Hash=32")
    assert done.returncode == 0, done.stderr
    a, b, c = store.read(path).participants
    assert (a.tc, b.tc, c.tc) == ("10+0.1", "20+0.2", "10+0.1")
    assert [dict(p.options) for p in (a, b, c)] == [{"Hash": 32}, {"Hash": 32}, {"Hash": 8}]
    assert done.stderr.splitlines() == [
        "tmanager: note: participants.B.tc=20+0.2 wins over --each tc=10+0.1",
        "tmanager: note: participants.C.options.Hash=8 wins over --each option.Hash=32",
    ]
