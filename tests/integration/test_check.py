"""`tmanager check ENGINE`: the compliance check against the engines we ship, Debian's, and the faulty ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integration.test_workers import engines_in


def check(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    done = run_cli("check", *args, "--timeout", "2", cwd=tmp_path, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert not engines_in(tmp_path), "the check left an engine running"
    return done.returncode, done.stdout.splitlines()


@pytest.mark.parametrize("engine", ["random-uci", "greedy-xboard", "stockfish", "fairymax", "sjeng"])
def test_compliant_engines(tmp_path: Path, engine: str) -> None:
    status, lines = check(tmp_path, engine)
    assert status == 0 and lines[-1] == f"{engine}: compliant", "\n".join(lines)
    steps = lines[1:-1]
    assert all(line.startswith("  ok    ") for line in steps), "\n".join(lines)
    names = [line[8:].split(":")[0] for line in steps]
    assert names[:3] == ["start and handshake", "options listed", "options settable"]
    assert names[-1] == "quit" and sum(name.startswith("search ") for name in names) >= 4
    assert any("after an en passant capture and both sides castling" in name for name in names)


def test_an_engine_is_named_as_new_names_it_by_its_path_or_fastchess_keys(tmp_path: Path) -> None:
    """fastchess's --compliance takes the engine's program; `check ./dev` said "unknown engine './dev' (define
    engines/./dev.toml …)", and only a definition or --cmd with --protocol was taken."""
    pyengine = Path(__file__).parents[2] / "engines" / "pyengine.py"
    (tmp_path / "dev.py").write_bytes(pyengine.read_bytes())
    for engine, name in [
        ("./dev.py", "dev"),
        ("cmd=/usr/games/fairymax,proto=xboard", "fairymax"),
        (f'cmd={pyengine},name=px,proto=xboard,args="--protocol xboard"', "px"),
    ]:
        status, lines = check(tmp_path, engine)
        assert (status, lines[-1]) == (0, f"{name}: compliant"), "\n".join(lines)
    status, lines = check(tmp_path, "/usr/games/fairymax")  # a path alone is a UCI engine, as in `new -e`
    assert status == 1 and lines[0] == "fairymax: UCI, /usr/games/fairymax", "\n".join(lines)


def test_stockfish_details(tmp_path: Path) -> None:
    _, lines = check(tmp_path, "stockfish")
    text = "\n".join(lines)
    assert "ok    options settable: " in text and "the options given accepted: Hash, Threads" in text
    assert "ok    isready: readyok in " in text
    assert "ok    stop during an infinite search: bestmove " in text


def test_fairymax_options_with_spaces_in_their_names_are_read_whole(tmp_path: Path) -> None:
    """Fairy-Max's ``feature option="Resign Threshold -spin 800 200 1200"``: python-chess read names up to their
    first space, and so could not set such options; tmanager's client reads them whole."""
    _, lines = check(tmp_path, "fairymax")
    listed = next(line for line in lines if "options listed:" in line)
    assert "Resign Threshold" in listed and "Claim draw after" in listed and "declarations not understood" not in listed
    assert any("declares no setboard" in line for line in lines)


@pytest.mark.parametrize(
    ("engine", "failure"),
    [
        ("fault-crash-start", "FAIL  start and handshake: it failed to start: engine process died unexpectedly"),
        ("fault-no-handshake", "FAIL  start and handshake: no uciok in 2 s"),
        ("fault-crash-mid", "FAIL  search after an en passant capture and both sides castling, sent as moves: "
                            "the engine exited (status 3)"),
        ("fault-stall", "FAIL  search after an en passant capture and both sides castling, sent as moves: "
                        "no move in 1.5 s"),
        ("fault-illegal", "FAIL  search after an en passant capture and both sides castling, sent as moves: "
                          "an illegal or unreadable move: illegal uci: "),
        ("fault-garbage", "FAIL  search after an en passant capture and both sides castling, sent as moves: "
                          "an illegal or unreadable move: expected uci string to be of length 4 or 5: 'xyz123'"),
        ("fault-null", "FAIL  search after an en passant capture and both sides castling, sent as moves: "
                       "an illegal move: 0000"),
        ("fault-false-claim", "FAIL  search after an en passant capture and both sides castling, sent as moves: "
                              "no move (a result claim)"),
        ("fault-slow", "FAIL  search Black to move, from a FEN, 0.2 s a move: no move in 0.7 s"),
    ],
)
def test_faulty_engines_fail_with_the_reason(tmp_path: Path, engine: str, failure: str) -> None:
    status, lines = check(tmp_path, engine)
    assert status == 1, "\n".join(lines)
    failed = [line for line in lines if "FAIL" in line]
    assert len(failed) == 1 and failed[0].startswith("  " + failure), "\n".join(lines)
    assert lines[-1].startswith(f"{engine}: not compliant, 1 step failed")


def test_options_are_set_and_a_refused_one_fails(tmp_path: Path) -> None:
    status, lines = check(tmp_path, "random-uci", "--option", "Hash=64")
    assert status == 0 and any("the options given accepted: Hash" in line for line in lines)
    status, lines = check(tmp_path, "random-uci", "--option", "NoSuchOption=1")
    assert status == 1
    assert any(line.startswith("  FAIL  options settable: the options given refused: ") for line in lines)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nosuch"], "ENGINE: unknown engine 'nosuch'"),
        (["./nosuch"], "ENGINE: program"),
        (["cmd=stockfish,proto=uci2"], "ENGINE: proto='uci2': not uci or xboard"),
        (["X", "--cmd", "stockfish"], "--cmd: --cmd and --protocol go together"),
        (["X", "--cmd", "/no/such/engine", "--protocol", "uci"], "program '/no/such/engine' of engine 'X' not found"),
        (["random-uci", "--option", "Hash"], "--option 'Hash' is not KEY=VALUE"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    done = run_cli("check", *args, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
