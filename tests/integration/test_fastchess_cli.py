"""`tmanager fastchess` as the testers' tools drive fastchess: real processes, real engines.

OpenBench's client and fishtest's worker build a fastchess command line and read its standard output
line by line. Their command lines are built here as their code builds them (OpenBench Client/worker.py
build_runner_command, fishtest worker/games.py run_games), and the output is read with their own rules:
OpenBench counts pairs from the "Finished game" lines (MatchRunner.update_results), fishtest reads the
report block's two lines (parse_fastchess_output's patterns) and the last CRC. What they read must be
what the PGN holds.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import chess.pgn
import psutil
import pytest

from tests.conftest import ROOT, run_cli
from tests.integration.test_workers import wait_for
from tmanager.tourney import store

STOCKFISH = "/usr/games/stockfish"
PYENGINE = ROOT / "engines" / "pyengine.py"
BOOK = ROOT / "tourneys" / "openings" / "sample.epd"

pytestmark = pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="Debian's stockfish is not installed")


def fastchess(line: str, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli("fastchess", *shlex.split(line), *extra, cwd=cwd)


def pgn_games(path: Path) -> list[chess.pgn.Headers]:
    with path.open() as handle:
        return [headers for headers in iter(lambda: chess.pgn.read_headers(handle), None)]


def pentanomial(games: list[chess.pgn.Headers], first: str) -> list[int]:
    """[LL, LD, DD+WL, WD, WW] of ``first`` from the PGN's pairs (its Round tag, as fastchess writes it)."""
    points: dict[str, list[float]] = {}
    for g in games:
        score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[g["Result"]]
        points.setdefault(g["Round"], []).append(score if g["White"] == first else 1 - score)
    counts = [0] * 5
    for pair in points.values():
        assert len(pair) == 2, pair
        counts[int(sum(pair) * 2)] += 1
    return counts


# --- OpenBench -------------------------------------------------------------------------------------


def openbench_results(stdout: str) -> dict[str, object]:
    """OpenBench's MatchRunner.update_results, applied to every line as run_and_parse_runner applies it."""
    results: dict[str, object] = {"trinomial": [0, 0, 0], "pentanomial": [0] * 5, "games": {}, "crashes": 0}
    games: dict[int, str] = {}
    for line in stdout.splitlines():
        if "Finished game" not in line:
            continue
        reason = line.split(":")[1]
        results["crashes"] = int(str(results["crashes"])) + ("disconnect" in reason or "stalls" in reason)
        tokens = line.split()
        game, result = int(tokens[2]), tokens[6]
        games[game] = result
        first, second = (game, game + 1) if game % 2 else (game - 1, game)
        if first not in games or second not in games:
            continue
        lookup = {"0-1": 0, "1/2-1/2": 1, "1-0": 2}
        r1, r2 = games.pop(first), games.pop(second)
        penta, tri = results["pentanomial"], results["trinomial"]
        assert isinstance(penta, list) and isinstance(tri, list)
        penta[lookup[r1] + 2 - lookup[r2]] += 1
        tri[lookup[r1]] += 1
        tri[2 - lookup[r2]] += 1
    results["games"] = games
    return results


def openbench_line(*, rounds: int, pgn: str) -> str:
    engine = "-engine dir=Engines/ cmd=./{0} proto=uci tc=inf nodes=3000 option.Threads=1 option.Hash=16 name=sf-{0}"
    return (
        f"-recover -variant standard -testEnv -concurrency 2 -rounds {rounds} -games 2 "
        "-resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 "
        f"{engine.format('dev')} {engine.format('base')} "
        f"-openings file=Books/book.epd format=epd order=random start=3 -srand 17 "
        f"-pgnout file={pgn} seldepth=true nodes=true match_line='^info string pgncomment .*'"
    )


def openbench_directory(tmp_path: Path) -> Path:
    (tmp_path / "Engines").mkdir()
    (tmp_path / "Books").mkdir()
    (tmp_path / "PGNs").mkdir()
    for name in ("dev", "base"):
        (tmp_path / "Engines" / name).symlink_to(STOCKFISH)
    (tmp_path / "Books" / "book.epd").write_bytes(BOOK.read_bytes())
    return tmp_path


def test_openbench_s_worker_counts_the_pgn_s_pairs(tmp_path: Path) -> None:
    directory = openbench_directory(tmp_path)
    done = fastchess(openbench_line(rounds=4, pgn="PGNs/1.1.0.0.pgn"), directory)
    assert done.returncode == 0, done.stderr
    seen = openbench_results(done.stdout)
    games = pgn_games(directory / "PGNs" / "1.1.0.0.pgn")
    assert len(games) == 8 and seen["games"] == {} and seen["crashes"] == 0
    penta = pentanomial(games, "sf-dev")
    assert seen["pentanomial"] == penta
    assert sum(penta) == 4
    assert all(f"Started game {n} of 8 (" in done.stdout for n in range(1, 9))
    lines = done.stdout.splitlines()
    assert lines[0] == "Indexing opening suite..." and lines[-3] == "Finished match" and lines[-1] == ""
    assert re.fullmatch(r"Total Time: \d\d:\d\d:\d\d \(hours:minutes:seconds\)", lines[-2])


def test_killed_outright_the_same_command_resumes_with_nothing_lost_or_doubled(tmp_path: Path) -> None:
    """kill -9 of the whole process group in mid-match (the command, its workers and engines), then the same
    command again: every game once in the PGN, and the last report's totals are the PGN's."""
    directory = openbench_directory(tmp_path)
    line = openbench_line(rounds=6, pgn="PGNs/run.pgn")
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    first = subprocess.Popen(command, cwd=directory, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert first.stdout is not None
    finished = 0
    while finished < 3:
        text = first.stdout.readline()
        assert text, "the first run ended before it was killed"
        finished += text.startswith("Finished game")
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    time.sleep(0.5)
    again = fastchess(line, directory)
    assert again.returncode == 0, again.stderr
    games = pgn_games(directory / "PGNs" / "run.pgn")
    numbers = sorted(int(g["GameNumber"]) for g in games if "Superseded" not in g)
    assert numbers == list(range(12))
    blocks = re.findall(r"Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)", again.stdout)
    ptnml = re.findall(r"Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]", again.stdout)
    current = [g for g in games if "Superseded" not in g]
    assert [int(n) for n in ptnml[-1]] == pentanomial(current, "sf-dev")
    assert int(blocks[-1][0]) == 12


# --- fishtest --------------------------------------------------------------------------------------

FISHTEST_WLD = re.compile(r"Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+), Points: ([0-9.]+) \(")
FISHTEST_PTNML = re.compile(r"Ptnml\(0-2\): \[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\]")


MATE_PV_WARNING = re.compile(
    r"^Warning; (?:Incomplete mating PV|Too long mating PV|Mating PV does not end with checkmate) - from \S+ "
    r":: Info; (.*) :: Position; (startpos|fen .*) :: Moves; ?(.*)$"
)


def is_a_wrong_mating_pv(warning: str) -> bool:
    """Whether ``warning`` (-testEnv's one line) reports a mate score whose PV, played from the position it
    quotes, does not mate in the plies the score says: checked here on a board, apart from tmanager's checks."""
    if (m := MATE_PV_WARNING.match(warning)) is None:
        return False
    info, start, moves = m.groups()
    board = chess.Board() if start == "startpos" else chess.Board(start.removeprefix("fen "))
    for move in moves.split():
        board.push_uci(move)
    words = info.split()
    mate = int(words[words.index("score") + 2]) if words[words.index("score") + 1] == "mate" else 0
    pv = words[words.index("pv") + 1:]
    for move in pv:
        board.push_uci(move)
    return mate != 0 and (len(pv) != (2 * mate - 1 if mate > 0 else -2 * mate) or not board.is_checkmate())


def fishtest_line(*, rounds: int) -> str:
    """run_games' command line, with the _spsa_ markers taken out as launch_fastchess takes them out."""
    return (
        f"-testEnv -recover -repeat -games 2 -rounds {rounds} -ratinginterval 1 -scoreinterval 1 "
        "-autosaveinterval 0 -report penta=true -pgnout file=results-run-0.pgn append=false -crc32 pgn=true "
        "-site https://tests.stockfishchess.org/tests/view/run -event 'Batch 0: new vs base' -srand 99 "
        "-resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 -variant standard -concurrency 2 "
        f"-openings file={BOOK} format=epd order=random plies=16 start=1 -check-mate-pvs "
        f"-engine name=New-run tc=1+0.05 cmd={STOCKFISH} dir=. option.Hash=16 "
        f"-engine name=Base-run tc=1+0.05 cmd={STOCKFISH} dir=. option.Hash=16 "
        "-each proto=uci option.Threads=1"
    )


def test_fishtest_s_worker_reads_each_pair_s_report_and_the_pgn_s_crc(tmp_path: Path) -> None:
    done = fastchess(fishtest_line(rounds=3), tmp_path)
    assert done.returncode == 0, done.stderr
    updates = []
    wld = None
    for line in done.stdout.splitlines():  # parse_fastchess_output's reading, without the server
        # Each of fishtest's fatal warnings stops its test. Debian's Stockfish 15.1 sometimes sends a mate score
        # whose PV stops short of the mate, which fastchess reports too: that warning is the engine's, not ours.
        assert "Warning;" not in line or is_a_wrong_mating_pv(line), line
        if (m := FISHTEST_WLD.search(line)) is not None:
            wld = [int(m.group(i)) for i in range(1, 5)]
        if (m := FISHTEST_PTNML.search(line)) is not None and wld is not None:
            ptnml = [int(m.group(i)) for i in range(1, 6)]
            assert wld[0] == 2 * sum(ptnml) and wld[0] == sum(wld[1:])  # fishtest asserts both
            updates.append((wld, ptnml))
            wld = None
    assert [games for (games, *_), _ in updates] == [2, 4, 6]  # a report for each pair, as -ratinginterval 1
    pgn = tmp_path / "results-run-0.pgn"
    games = pgn_games(pgn)
    assert updates[-1][1] == pentanomial(games, "New-run")
    crc = [line.split()[-1] for line in done.stdout.splitlines() if "has CRC32:" in line]
    assert len(crc) == 6 and crc[-1] == f"{zlib.crc32(pgn.read_bytes()):#x}"
    assert "Finished match" in done.stdout


# --- the other options -----------------------------------------------------------------------------


def pyengine(name: str, *args: str) -> str:
    """An -engine of our tiny engine, with its arguments, run by this Python: fastchess runs a script by its
    #! line, whose python3 (the system's) may lack python-chess."""
    return f"-engine cmd={sys.executable} name={name} args=\"{shlex.join([str(PYENGINE), *args])}\""


def test_cutechess_output(tmp_path: Path) -> None:
    line = (f"{pyengine('a', '--seed', '1')} {pyengine('b', '--seed', '2')} -each tc=inf nodes=1 "
            "-rounds 2 -output format=cutechess")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    scores = [line for line in done.stdout.splitlines() if line.startswith("Score of a vs b: ")]
    assert len(scores) == 4 and scores[-1].endswith("] 4")
    assert re.search(r"^Elo difference: \S+ \+/- \S+, LOS: \S+ %, DrawRatio: \d+\.\d\d %$", done.stdout, re.MULTILINE)
    assert "Ptnml" not in done.stdout


def test_an_sprt_ends_the_match_with_its_verdict(tmp_path: Path) -> None:
    line = (f"{pyengine('greedy', '--style', 'greedy', '--seed', '3')} {pyengine('random', '--seed', '4')} "
            "-each tc=inf nodes=1 -rounds 200 -concurrency 2 -sprt elo0=0 elo1=200 alpha=0.1 beta=0.1 model=logistic")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-4] == "SPRT ([0.00, 200.00]) completed - H1 was accepted"
    assert lines[-3] == "Finished match"
    started = sum(1 for line in lines if line.startswith("Started game"))
    assert started < 400 and started == sum(1 for line in lines if line.startswith("Finished game"))


def test_three_engines_play_in_fastchess_s_order_and_get_its_table(tmp_path: Path) -> None:
    line = f"{pyengine('a')} {pyengine('b')} {pyengine('c')} -each tc=inf nodes=1 -rounds 2 -ratinginterval 3"
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    started = re.findall(r"^Started game (\d+) of 12 \((\w) vs (\w)\)$", done.stdout, re.MULTILINE)
    order = {int(n): f"{w}{b}" for n, w, b in started}
    assert [order[n] for n in range(1, 13)] == ["ab", "ba", "ac", "ca", "bc", "cb"] * 2
    assert "Rank Name" in done.stdout and done.stdout.count("Ptnml(0-2)") == 2  # blocks at pairs 3 and 6 (the last)


def test_more_than_two_engines_take_the_openings_fastchess_gives_them(tmp_path: Path) -> None:
    # fastchess cuts its book to as many openings as rounds, which its pairings take in turn: 3 engines over 2
    # rounds play 6 pairings from the book's first 2 openings. tmanager gave each pairing the next, 6 in all.
    done = fastchess(f"{pyengine('a')} {pyengine('b')} {pyengine('c')} -each tc=inf nodes=1 -rounds 2 "
                     f"-openings file={BOOK} order=sequential -pgnout file=p.pgn", tmp_path)
    assert done.returncode == 0, done.stderr
    book = [" ".join(line.split()[:4]) for line in BOOK.read_text().splitlines() if line.strip()]
    played = {int(g["GameNumber"]): " ".join(g["FEN"].split()[:4]) for g in pgn_games(tmp_path / "p.pgn")}
    assert [played[n] for n in range(12)] == [book[(n // 2) % 2] for n in range(12)]


def test_pv_warnings_as_fastchess_prints_them(tmp_path: Path) -> None:
    bad = pyengine("bad", "--fault", "bad-pv", "--after", "1")
    line = f"{bad} {pyengine('good')} -each tc=inf nodes=1 -rounds 1 -games 1 -check-mate-pvs"
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^Warning; Illegal PV move - move (\w+) from bad$", done.stdout, re.MULTILINE)
    assert re.search(r"^Info; info depth 1 score cp -?\d+ nodes \d+ time \d+ pv (\w+) \1$", done.stdout, re.MULTILINE)
    assert "\nPosition; startpos\nMoves; " in done.stdout
    one_line = fastchess(line, tmp_path, "-testEnv", "-config", "outname=two.toml")
    assert re.search(r"^Warning; Illegal PV move - move \w+ from bad :: Info; .* :: Position; startpos :: Moves; ",
                     one_line.stdout, re.MULTILINE)
    mate = fastchess(f"{pyengine('bad', '--fault', 'bad-mate-pv')} {pyengine('good')} -each tc=inf nodes=1 "
                     "-rounds 1 -games 1 -check-mate-pvs -strict -testEnv", tmp_path)
    assert "Warning; Mating PV does not end with checkmate - from bad" in mate.stdout
    assert mate.returncode == 1  # -strict: a warning ends the match
    warnings = [line for line in mate.stdout.splitlines() if line.startswith("Warning;")]
    assert warnings and all(is_a_wrong_mating_pv(line) for line in warnings)
    sound = ("Warning; Incomplete mating PV - from bad :: Info; info depth 1 score mate 1 pv h5f7 :: Position; "
             "startpos :: Moves; e2e4 e7e5 d1h5 b8c6 f1c4 g8f6")
    assert not is_a_wrong_mating_pv(sound)  # the test's own check: Qxf7 mates in one


def test_two_engines_that_both_see_their_own_mate_are_warned_of_as_fastchess_warns_fishtest(tmp_path: Path) -> None:
    # Both claim a mate in one from their third move on: after each of those moves (but the first, whose
    # opponent had scored centipawns) fastchess printed this line (fastchess 74deac23, the same command), and
    # fishtest's worker stops a test on it. tmanager printed the PV warnings and not it.
    line = (f"{pyengine('A', '--seed', '1', '--fault', 'bad-mate-pv', '--after', '2')} "
            f"{pyengine('B', '--seed', '2', '--fault', 'bad-mate-pv', '--after', '2')} "
            "-each tc=inf nodes=1 -rounds 1 -games 1 -maxmoves 3 -check-mate-pvs -testEnv")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    mismatches = [line for line in done.stdout.splitlines() if "Sign mismatch" in line]
    assert len(mismatches) == 1, done.stdout
    assert re.fullmatch(
        r"Warning; Sign mismatch in mate scores 1 and 1 from A \(White\) and B \(Black\) :: "
        r"Infos; info depth 1 score mate 1 nodes 20 time \d+ pv b1c3 ; info depth 1 score mate 1 nodes 22 time \d+ "
        r"pv f6g8 :: Position; startpos :: Moves; h2h3 g8f6 a2a4 b8a6 b1c3 f6g8", mismatches[0],
    ), mismatches[0]
    assert done.stdout.index("Sign mismatch") < done.stdout.index("Finished game 1")


def test_a_search_reported_without_a_score_is_warned_of_as_fastchess_warns_fishtest(tmp_path: Path) -> None:
    # A reports its searches without a score from its third move on: fastchess 74deac23 printed the line
    # below after each of its two moves then (the same command), and fishtest's worker stops a test on it.
    line = (f"{pyengine('A', '--seed', '1', '--fault', 'no-score', '--after', '2')} {pyengine('B', '--seed', '2')} "
            "-each tc=inf nodes=1 -rounds 1 -games 1 -maxmoves 4 -check-mate-pvs -testEnv")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stdout.splitlines() if line.startswith("Warning;")]
    assert warnings == ["Warning; No info line available to extract score from engine A"] * 2, done.stdout
    xboard = fastchess(f"{pyengine('X', '--protocol', 'xboard')} proto=xboard {pyengine('B')} -each tc=inf nodes=1 "
                       "-rounds 1 -maxmoves 4 -check-mate-pvs", tmp_path)  # its thinking lines are no info lines
    assert xboard.returncode == 0 and "Warning;" not in xboard.stdout, xboard.stdout


def test_match_line_quotes_the_engine_s_lines_in_the_pgn(tmp_path: Path) -> None:
    line = (f"{pyengine('a', '--info-string', 'pgncomment hello')} {pyengine('b')} -each tc=inf nodes=1 "
            "-rounds 1 -pgnout file=q.pgn match_line='^info string pgncomment .*'")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "q.pgn").read_text()
    assert 'line="info string pgncomment hello"' in text


def test_each_wins_over_engine_and_says_so(tmp_path: Path) -> None:
    done = fastchess(f"{pyengine('a')} nodes=5 {pyengine('b')} -each nodes=1 -rounds 1", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "note: -each nodes=1 overrides -engine name=a nodes=5" in done.stderr


def test_a_bad_command_line_is_one_line_and_exit_2_with_nothing_written(tmp_path: Path) -> None:
    done = fastchess(f"{pyengine('a')} {pyengine('b')} -each nodes=1 -rounds 1 -concurency 2", tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and "did you mean -concurrency?" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("extra", "told"), [
    ("-engine cmd=./nosuch name=c", "tmanager: -engine c cmd: program './nosuch' of engine 'c' not found"),
    ("-engine cmd=no-such-engine-anywhere", "tmanager: -engine no-such-engine-anywhere cmd: program "),
    (f"-engine cmd={PYENGINE} dir=missing", "tmanager: -engine pyengine dir: working directory "),
    ("-openings file=none.epd format=epd", "/none.epd: no such opening book file (check -openings file=)"),
    ("-openings file=../none.epd format=epd", "/none.epd: no such opening book file (check -openings file=)"),
    ("-openings file=none.txt", "/none.txt: no such opening book file (check -openings file=)"),
    ("-games 200000000", "tmanager: -rounds: 200,000,000 games scheduled, more than the 100,000,000"),
    ("-srand 18446744073709551616", "tmanager: -srand: must be at most 18446744073709551615, not "),
    ("-ping-ms 18446744073709551616", "tmanager: -ping-ms: must be at most 18446744073709551615, not "),
    ("-maxmoves 2147483648", "tmanager: -maxmoves: must be at most 2147483647, not 2147483648"),
    ("-each tc=99999999999999999+0", "tmanager: -each: '99999999999999999' is beyond a clock's "),
    ("-pgnout file=.", "tmanager: -pgnout file=: "),
    ("-pgnout file=/no/such/x.pgn", "tmanager: -pgnout file=: no directory '/no/such' to hold it"),
    ("-pgnout file=../no/such/x.pgn", "tmanager: -pgnout file=: no directory '/"),
    ("-epdout file=/no/such/x.epd", "tmanager: -epdout file=: no directory '/no/such' to hold it"),
    (f"-engine cmd={PYENGINE} name=c dir=/no/such", "tmanager: -engine c dir: working directory '/no/such' "),
    ("-use-affinity 4000", "tmanager: -use-affinity: CPU 4000 is not available to this process"),
    ("-use-affinity 0-99999999999", "tmanager: -use-affinity: CPU 99999999999 does not exist"),
    ("-log file=nowhere/x.log", "/nowhere/x.log: no directory "),
    ("-config outname=nowhere/x.json", "tmanager: -config outname=: no directory "),
    ("-config outname=.", "tmanager: -config outname=: '/"),  # "… is a directory (name a file)"
    ("-tb /no/such/tables", "tmanager: -tb: no directory '/no/such/tables' (give the directories of the Syzygy "),
    ("-tb ../nowhere", "tmanager: -tb: no directory '../nowhere' (give the directories of the Syzygy "),
    (f"-engine cmd={PYENGINE} name=c -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05",
     "tmanager: -sprt: an SPRT of 3 engines (tmanager's SPRT tests one engine against another"),
])
def test_a_mistake_found_before_the_first_game_is_told_as_the_command_line_says_it(
    tmp_path: Path, extra: str, told: str,
) -> None:
    """Checked before the test's file is written, and told in fastchess's words: nothing is left behind."""
    done = fastchess(f"{pyengine('a')} {pyengine('b')} {extra} -each nodes=1 -rounds 1", tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("tmanager: ") and told in done.stderr, done.stderr
    assert "fastchess-" not in done.stderr and "participants[" not in done.stderr and "tourney." not in done.stderr
    assert "/../" not in done.stderr, "a path given is told as the test's directory joined it"
    assert list(tmp_path.iterdir()) == []


def test_an_engine_refusing_its_options_takes_the_new_test_back(tmp_path: Path) -> None:
    """Found only when the engine starts: no game is scored, and the new test's files are removed, its lock
    file too; a test with games played is kept whatever happens next. (An option the engine lacks is warned of
    and played without, as fastchess does; one the runner sets itself, MultiPV, cannot be played as asked.)"""
    done = fastchess(f"{pyengine('a')} option.MultiPV=2 {pyengine('b')} -each nodes=1 -rounds 1", tmp_path)
    assert done.returncode == 2
    # Told in the command line's terms: not of the test's file, which is gone, nor of a "participant".
    assert done.stderr.startswith("tmanager: engine 'a' refuses its options"), done.stderr
    assert done.stderr.endswith("(fix its option.NAME=VALUE)\n") and "fastchess-" not in done.stderr
    assert "Finished game" not in done.stdout
    assert list(tmp_path.iterdir()) == []

    # A test resumed is kept, whatever happens to it: here its games played, then an option added by hand.
    kept = tmp_path / "kept.toml"
    assert fastchess(f"{pyengine('a')} {pyengine('b')} -each nodes=1 -rounds 1 -config outname=kept.toml",
                     tmp_path).returncode == 0
    assert run_cli("edit", str(kept), "--set", "cycles=2").returncode == 0
    kept.write_text(kept.read_text().replace('name = "a"', 'name = "a"\noptions = { MultiPV = 2 }', 1))
    again = fastchess("-config file=kept.toml", tmp_path)
    assert again.returncode == 2 and "refuses its options" in again.stderr
    assert re.search(r'^results = "[-+=]{2} *"$', kept.read_text(), re.MULTILINE)


def test_an_option_an_engine_refuses_is_warned_of_as_fastchess_warns_fishtest(tmp_path: Path) -> None:
    # fastchess plays on without the option, warning at each game; fishtest's worker stops the test on the warning
    # (but for an official release's engine, whose games go on). A tmanager error (exit status 2) left fishtest a
    # bare "error code 2", and a release's test unplayable.
    line = f"{pyengine('a')} option.NoSuchOption=1 {pyengine('b')} option.Hash=0 -each nodes=1 -rounds 1 -testEnv"
    done = fastchess(line, tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    warnings = ["Warning; a doesn't have option NoSuchOption", "Warning; Invalid value for option Hash; 0"]
    for number in (1, 2):  # each game's engines, before its end
        finished = next(i for i, line in enumerate(lines) if line.startswith(f"Finished game {number} "))
        assert sorted(lines[finished - 2:finished]) == sorted(warnings), lines
    assert "Games: 2, " in done.stdout


def test_a_spin_value_that_is_no_number_is_warned_of_in_fastchess_s_words(tmp_path: Path) -> None:
    # fastchess's std::stoi throws on such a value, and its refreshUci says so in other words than an
    # "Invalid value": fishtest's worker stops a test on "Warning; Failed to set.*option" too.
    line = f"{pyengine('a')} option.Hash=abc {pyengine('b')} option.Threads=99999999999 -each nodes=1 -rounds 1"
    done = fastchess(line, tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    warnings = ["Warning; Failed to set option Hash with value abc for engine a: stoi",
                "Warning; Failed to set option Threads with value 99999999999 for engine b: stoi"]
    finished = next(i for i, line in enumerate(lines) if line.startswith("Finished game 1 "))
    assert sorted(lines[finished - 2:finished]) == warnings, lines


def test_a_state_file_of_another_test_is_refused_unless_discarded(tmp_path: Path) -> None:
    base = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -config outname=state.toml"
    assert fastchess(f"{base} -rounds 1", tmp_path).returncode == 0
    other = fastchess(f"{base} -rounds 2", tmp_path)
    assert other.returncode == 2 and "holds another test" in other.stderr
    again = fastchess(f"{base} -rounds 1", tmp_path)  # the same test, played out: played again, as fastchess does
    assert again.returncode == 0 and again.stdout.count("Finished game") == 2
    fresh = fastchess(f"{base} discard=true -rounds 2", tmp_path)
    assert fresh.returncode == 0 and fresh.stdout.count("Finished game") == 4


def test_a_test_begun_before_an_upgrade_is_still_this_command_s(tmp_path: Path) -> None:
    """A state file written before late_move_wait was a setting (an OpenBench worker upgraded between two runs of
    one command line) was refused as holding another test: what says how tmanager runs a test is not which test it
    is. The file keeps its own value; a change of the test itself is still refused."""
    base = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -config outname=state.toml"
    assert fastchess(f"{base} -rounds 1", tmp_path).returncode == 0
    state = tmp_path / "state.toml"
    text = state.read_text()
    assert "late_move_wait = 0.1\n" in text
    state.write_text(text.replace("late_move_wait = 0.1\n", ""))
    again = fastchess(f"{base} -rounds 1", tmp_path)
    assert again.returncode == 0 and again.stdout.count("Finished game") == 2, again.stderr
    other = fastchess(f"{base} -rounds 2", tmp_path)
    assert other.returncode == 2 and "holds another test" in other.stderr


def test_config_file_resumes_a_test_whatever_made_it(tmp_path: Path) -> None:
    """fastchess's -config file=NAME: the file's test, the command line's way of running it."""
    made = run_cli("new", tmp_path / "rr.toml", "-e", "greedy-uci:g", "-e", "random-uci:r", "--nodes", "1",
                   "--cycles", "2")
    assert made.returncode == 0, made.stderr
    done = fastchess("-config file=rr.toml -output format=cutechess", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Loading config file: {tmp_path / 'rr.toml'}"
    assert len([line for line in lines if line.startswith("Finished game")]) == 4
    assert [line for line in lines if line.startswith("Score of g vs r:")][-1].endswith("] 4")
    mixed = fastchess(f"-config file=rr.toml {pyengine('x')}", tmp_path)
    assert mixed.returncode == 2 and "not with -config file=rr.toml" in mixed.stderr


def test_a_report_after_a_crash_reads_null_for_the_restarted_engines_threads_and_hash(tmp_path: Path) -> None:
    # fastchess restarts an engine that does not answer after its game before it reports that game: the new
    # engine has told no option yet, and the report's head reads NULL for it (it read 1t and 1MB here).
    crash = pyengine("crash", "--fault", "crash-mid")
    line = f"{crash} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -recover -ratinginterval 1 -report penta=false"
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    heads = re.findall(r"^Results of .*$", done.stdout, re.MULTILINE)
    assert heads == ["Results of crash vs b (1 nodes, NULL - 1t, NULL - 1MB):"] * 2, done.stdout


def test_the_engines_time_losses_and_crashes_come_in_fastchess_s_order(tmp_path: Path) -> None:
    # fastchess prints its tracker as its unordered map hands the engines back: here ac, ab, aa, where they
    # were noted aa (game 1), ac (game 2), ab (game 4). They came in the order noted.
    crashes = " ".join(pyengine(name, "--fault", "crash-mid") for name in ("aa", "ac", "ab"))
    done = fastchess(f"{crashes} -each tc=inf nodes=1 -rounds 1 -recover", tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.findall(r"^Player: (\w+)$", done.stdout, re.MULTILINE) == ["ac", "ab", "aa"], done.stdout


@pytest.mark.timing
def test_an_engine_that_does_not_move_in_time_loses_by_fastchess_s_overrun(tmp_path: Path) -> None:
    # fastchess awaits a move 100 ms past the time and margin: an engine that never comes loses by 100 ms or a
    # little more (fastchess printed 100 for this line). It read 2 to 5 ms, the wait ending at the margin.
    slow = pyengine("slow", "--seed", "1", "--fault", "slow", "--after", "1", "--delay", "0.5")
    done = fastchess(f"{slow} {pyengine('b', '--seed', '2')} -each tc=0.3+0.01 -rounds 1 -games 1", tmp_path)
    assert done.returncode == 0, done.stderr
    overrun = re.search(r"^Finished game 1 \(slow vs b\): 0-1 \{White loses on time \((\d+)ms overrun\)\}$",
                        done.stdout, re.MULTILINE)
    assert overrun, done.stdout
    assert 100 <= int(overrun[1]) < 200, done.stdout


def test_without_recover_a_crash_ends_the_match(tmp_path: Path) -> None:
    crash = pyengine("crash", "--fault", "crash-mid")
    done = fastchess(f"{crash} {pyengine('b')} -each tc=inf nodes=1 -rounds 3", tmp_path)
    assert done.returncode == 1
    assert re.search(r"^Game (\d+) stalled / disconnected and no recover option set for engine, stopping tournament\.$",
                     done.stdout, re.MULTILINE)
    assert re.search(r"^Finished game \d+ \(\w+ vs \w+\): [01]-[01] \{(White|Black) disconnects\}$", done.stdout,
                     re.MULTILINE)
    # fastchess's tracker does not count the fault that stops the match: no "Player:" block for it.
    assert "Player:" not in done.stdout


def test_an_illegal_move_is_warned_of_as_fastchess_warns_fishtest(tmp_path: Path) -> None:
    # fishtest's worker stops a test on "Warning; Illegal move" (its patterns_fastchess_error): a silent loss
    # would let an engine that plays illegal moves be tested on. White errs first, at its 4th move.
    illegal, garbage = pyengine("bad", "--fault", "illegal"), pyengine("worse", "--fault", "garbage")
    done = fastchess(f"{illegal} {garbage} -each tc=inf nodes=1 -rounds 1 -recover -pgnout file=x.pgn", tmp_path)
    assert done.returncode == 0, done.stderr
    # OpenBench's worker reports the games whose Termination holds "illegal" (PGNHelper.get_error_reason).
    assert [g["Termination"] for g in pgn_games(tmp_path / "x.pgn")] == ["illegal move", "illegal move"]
    assert re.search(r"^Warning; Illegal move [a-h][1-8][a-h][1-8] played by bad\n"
                     r"Finished game 1 \(bad vs worse\): 0-1 \{White makes an illegal move\}$",
                     done.stdout, re.MULTILINE)
    assert ("Warning; Move does not match uci move format, lowercase and 4/5 chars. Move xyz123 played by worse\n"
            "Warning; Illegal move xyz123 played by worse\n"
            "Finished game 2 (worse vs bad): 0-1 {White makes an illegal move}\n") in done.stdout


@pytest.mark.parametrize(
    ("fault", "warnings"),
    [
        # 'bestmove (none)' with legal moves on the board: fastchess's illegal move and its warnings, which stop a
        # fishtest test; OpenBench counts the 'illegal' of the reason. It was a silent 'makes a false result claim'.
        ("no-move", "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move (none) played by bad\n"
                    "Warning; Illegal move (none) played by bad\n"),
        # A bare 'bestmove': fastchess finds no word after it and says so before its 'Illegal move <none>' (fishtest's
        # worker shows each 'Warning;' line): the first line was missing.
        ("bare-bestmove", "Warning; No bestmove found from bad because: Element 'bestmove' not found. Last line was: "
                          "bestmove\nWarning; Illegal move <none> played by bad\n"),
    ],
)
def test_no_move_where_there_is_one_is_an_illegal_move_as_fastchess_scores_it(
    tmp_path: Path, fault: str, warnings: str,
) -> None:
    bad, good = pyengine("bad", "--seed", "1", "--fault", fault), pyengine("good", "--seed", "2")
    done = fastchess(f"{bad} {good} -each tc=inf nodes=1 -rounds 1 -recover -pgnout file=x.pgn", tmp_path)
    assert done.returncode == 0, done.stderr
    assert [g["Termination"] for g in pgn_games(tmp_path / "x.pgn")] == ["illegal move", "illegal move"]
    assert f"{warnings}Finished game 1 (bad vs good): 0-1 {{White makes an illegal move}}\n" in done.stdout
    assert f"{warnings}Finished game 2 (good vs bad): 1-0 {{Black makes an illegal move}}\n" in done.stdout
    assert done.stdout.count("Warning;") == 4, done.stdout  # two a game, as fastchess's


def test_cmd_is_found_and_run_as_fastchess_finds_and_runs_it(tmp_path: Path) -> None:
    # fastchess runs cmd whole (spaces and all), relative to dir or to where it runs (not to where its
    # state is), and a bare name not on PATH from the engine's directory: fishtest's `cmd=NAME dir=.`.
    engines = tmp_path / "my engines"
    engines.mkdir()
    script = f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(PYENGINE))} \"$@\"\n"
    for name in ("tiny-engine-a", "tiny-engine-b"):
        (engines / name).write_text(script)
        (engines / name).chmod(0o755)
    (tmp_path / "runs").mkdir()
    line = (f"-engine cmd=tiny-engine-a dir='{engines}' name=a -engine cmd='my engines/tiny-engine-b' name=b "
            "-each tc=inf nodes=1 -rounds 1 -config outname=runs/test.toml")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Finished game") == 2
    here = fastchess("-engine cmd=tiny-engine-a dir=. name=a -engine cmd=./tiny-engine-b name=b "
                     "-each tc=inf nodes=1 -rounds 1", engines)
    assert here.returncode == 0, here.stderr


def test_a_python_script_runs_by_its_own_interpreter_as_fastchess_runs_it(tmp_path: Path) -> None:
    # fastchess execs cmd, and the system runs a script by its #! line: a Python engine with an interpreter (an
    # environment) of its own. tmanager ran every .py with its own Python, where the engine's imports failed.
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "engine_own_module.py").write_text("")
    interpreter = tmp_path / "engine-python"
    interpreter.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(tmp_path / 'site'))} "
                           f"exec {shlex.quote(sys.executable)} \"$@\"\n")
    engine = tmp_path / "engine.py"
    engine.write_text(f"#!{interpreter}\nimport runpy\nimport sys\n\nimport engine_own_module  # noqa\n\n"
                      f"sys.argv[0] = {str(PYENGINE)!r}\nrunpy.run_path(sys.argv[0], run_name='__main__')\n")
    for program in (interpreter, engine):
        program.chmod(0o755)
    done = fastchess(f"-engine cmd=./engine.py name=a -engine cmd={engine} name=b -each tc=inf nodes=1 -rounds 1",
                     tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Finished game") == 2
    engine.chmod(0o644)  # fastchess cannot run it then, nor can tmanager: told before anything is written
    refused = fastchess(f"-engine cmd=./engine.py name=a {pyengine('b')} -each tc=inf nodes=1 -rounds 1", tmp_path)
    assert refused.returncode == 2
    assert "program './engine.py' of engine 'a' not found or not executable" in refused.stderr, refused.stderr


def test_with_recover_a_crashed_engine_is_warned_of_as_not_responsive(tmp_path: Path) -> None:
    # fishtest's worker posts "Warning; Engine .* is not responsive" to the test's event log: a crash's trace.
    crash = pyengine("crash", "--fault", "crash-mid")
    done = fastchess(f"{crash} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -recover", tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("Warning; Engine crash is not responsive\n"
            "Finished game 1 (crash vs b): 0-1 {White disconnects}\n") in done.stdout
    assert done.stdout.count("Warning; Engine crash is not responsive") == 2
    assert "Warning; Engine b" not in done.stdout


def test_an_engine_not_ready_for_a_game_in_time_is_warned_of_as_not_responsive(tmp_path: Path) -> None:
    # fastchess's isready before each game (-ucinewgame-ms) times out with "Warning; Engine dev is not
    # responsive", -recover or not, and fishtest's worker posts it to the test's event log; tmanager said nothing.
    line = f"{pyengine('dev', '--fault', 'no-ready')} {pyengine('b')} -each nodes=1 -rounds 1 -ucinewgame-ms 300"
    done = fastchess(f"{line} -recover", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for finished in ("Finished game 1 (dev vs b): 0-1 {White disconnects}",
                     "Finished game 2 (b vs dev): 1-0 {Black disconnects}"):
        assert lines[lines.index(finished) - 1] == "Warning; Engine dev is not responsive", lines
    assert "Warning; Engine b" not in done.stdout
    cut_short = fastchess(line, tmp_path)
    assert cut_short.returncode == 1, cut_short.stderr
    assert cut_short.stdout.splitlines()[1:4] == [
        "Started game 1 of 2 (dev vs b)", "Warning; Engine dev is not responsive",
        "Game 1 stalled / disconnected and no recover option set for engine, stopping tournament.",
    ], cut_short.stdout


def test_an_engine_that_fails_to_start_stops_the_match_with_no_game_scored(tmp_path: Path) -> None:
    # fastchess stops at a startup failure, -recover or not ("Fatal; cs engine startup failure"): a loss
    # scored for each game would reach OpenBench's and fishtest's servers as results of games never played.
    broken = pyengine("cs", "--fault", "crash-start")
    done = fastchess(f"{broken} {pyengine('b')} -each nodes=1 -rounds 2 -recover", tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("tmanager: engine 'cs' failed to start"), done.stderr  # not the file taken back
    assert "Finished game" not in done.stdout and "Ptnml" not in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_config_file_of_fastchess_s_own_is_told_for_what_it_is(tmp_path: Path) -> None:
    # A tester whose fastchess run broke off tries the resume fastchess told: "-config file=config.json".
    (tmp_path / "config.json").write_text('{"engines": []}')
    done = fastchess("-config file=config.json", tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("tmanager: -config file=: no test file 'config.toml' (config.json is fastchess's own")
    assert "tmanager new" not in done.stderr
    absent = fastchess("-config file=absent.toml", tmp_path)
    assert absent.returncode == 2 and "no test file 'absent.toml'" in absent.stderr
    directory = fastchess("-config file=.", tmp_path)
    assert directory.returncode == 2
    assert directory.stderr == f"tmanager: -config file=: {str(tmp_path)!r} is a directory (name a file)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


def test_a_book_read_in_the_wrong_format_says_which_to_give(tmp_path: Path) -> None:
    line = f"{pyengine('a')} {pyengine('b')} -each nodes=1 -rounds 1 -openings file={BOOK} format=pgn"
    done = fastchess(line, tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "bad PGN game" in done.stderr
    assert done.stderr.endswith("(fix the game; an EPD book wants -openings format=epd)\n")


def test_a_book_of_no_format_is_warned_of_and_played_without_as_fastchess_plays_it(tmp_path: Path) -> None:
    # Neither format= nor a suffix .epd/.pgn: fastchess warns and plays from the start position; tmanager played
    # the book, read by its content, and said nothing, so that the same command gave other games and results.
    (tmp_path / "book.txt").write_bytes(BOOK.read_bytes())
    done = fastchess(f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -openings file=book.txt "
                     "order=random -pgnout file=p.pgn", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Warning: Unknown opening format, 2. All games will be played from the starting position."
    assert "Indexing opening suite..." not in lines and "Warning: No opening book specified!" not in done.stdout
    assert "Results of a vs b (1 nodes, 1t, 1MB, book.txt):" in lines  # named, as fastchess names it
    assert [g.get("FEN") for g in pgn_games(tmp_path / "p.pgn")] == [None, None]


def test_an_sprt_on_the_games_stops_where_its_reports_accept(tmp_path: Path) -> None:
    # With cutechess output fastchess's SPRT decides on the games' W/D/L, which its lines show: the match
    # must stop where they say "accepted", not play on to where the pairs' LLR would cross.
    line = (f"-engine cmd={STOCKFISH} name=sf {pyengine('weak')} -each tc=inf nodes=200 -rounds 100 "
            "-sprt elo0=0 elo1=10 alpha=0.1 beta=0.1 -output format=cutechess -ratinginterval 1 -config outname=t.toml")
    done = fastchess(line, tmp_path)
    assert done.returncode == 0, done.stderr
    verdicts = [line for line in done.stdout.splitlines() if line.startswith("SPRT:") and "accepted" in line]
    assert len(set(verdicts)) == 1 and verdicts[0].endswith(" - H1 was accepted"), verdicts  # said, then stopped
    assert f"{verdicts[0]}\nTournament finished\nFinished match\n" in done.stdout
    assert "pentanomial = false" in (tmp_path / "t.toml").read_text()


def test_a_command_run_again_after_its_test_was_played_out_plays_it_again(tmp_path: Path) -> None:
    # fastchess plays a command line again; a test kept by tmanager is resumed only while it is not over
    # (a fishtest task run again from scratch would otherwise play nothing: "Finished match uncleanly").
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -pgnout file=p.pgn append=false"
    for _ in range(2):
        done = fastchess(line, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("Finished game") == 2 and "Games: 2, " in done.stdout
    assert len(pgn_games(tmp_path / "p.pgn")) == 2  # append=false: the second match's games only


def test_a_played_out_test_leaves_only_what_was_asked_for(tmp_path: Path) -> None:
    # fastchess leaves one config.json; fishtest's worker runs a new command line every SPSA batch and trims
    # only *.pgn: a test's state files left behind would pile up by the thousand.
    batch = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -pgnout file=p.pgn"
    for value in (1, 2):  # two commands, two tests
        done = fastchess(f"{batch} -each option.Hash={value}", tmp_path)
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pgn"]
    assert len(pgn_games(tmp_path / "p.pgn")) == 4
    unasked = fastchess(f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1", tmp_path)
    assert unasked.returncode == 0, unasked.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pgn"]  # no PGN, no log: none was asked for
    named = fastchess(f"{batch} -config outname=state.toml", tmp_path)  # a state file named is the user's
    assert named.returncode == 0, named.stderr
    assert (tmp_path / "state.toml").is_file()


def signalled_after_a_game(line: str, cwd: Path, signum: int = signal.SIGINT) -> tuple[int, str]:
    """Run ``line``, send it ``signum`` once a game is finished (SIGINT: as fishtest's worker stops a batch it
    gives up); its exit status (``-signum`` when killed by it) and its output from then on."""
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    run = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert run.stdout is not None
    while not run.stdout.readline().startswith("Finished game"):
        pass
    run.send_signal(signum)
    rest = run.stdout.read()
    return run.wait(), rest


def interrupted_after_a_game(line: str, cwd: Path) -> str:
    """Run ``line``, SIGINT it once a game is finished; its output from then on (exit status 1, as fastchess)."""
    status, rest = signalled_after_a_game(line, cwd)
    assert status == 1
    return rest


def test_sigterm_ends_the_command_by_the_signal_as_it_ends_fastchess(tmp_path: Path) -> None:
    # fastchess does not catch SIGTERM: it dies by it (status 143 in a shell), with no "Finished match" for a
    # reader to take for a match's end (fishtest's worker checks its games at that line). The test resumes.
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 3 -pgnout file=p.pgn"
    status, rest = signalled_after_a_game(line, tmp_path, signal.SIGTERM)
    assert status == -signal.SIGTERM
    assert "Finished match" not in rest and "Tournament was interrupted" not in rest
    again = fastchess(line, tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(pgn_games(tmp_path / "p.pgn")) == 6


def test_an_spsa_batch_given_up_by_sigint_leaves_no_state_behind(tmp_path: Path) -> None:
    # fishtest's worker runs each command line once (a new task id, an SPSA batch's new values) and SIGINTs the
    # batch it gives up: with its -autosaveinterval 0, a state kept for resuming would never be resumed.
    batch = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 20 -autosaveinterval 0"
    for value in (1, 2):
        rest = interrupted_after_a_game(f"{batch} -each option.Hash={value}", tmp_path)
        assert "Tournament was interrupted.\n" in rest and "Finished match" in rest
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    kept = interrupted_after_a_game(batch.replace(" -autosaveinterval 0", ""), tmp_path)  # a user's Ctrl-C
    assert "To resume it, run the same command again" in kept
    assert len(list(tmp_path.glob("fastchess-*.toml"))) == 1


def test_sigint_before_the_first_game_is_recorded_leaves_nothing_behind(tmp_path: Path) -> None:
    # fastchess stopped before a game ends leaves no state; the test's file stayed, and said it could be resumed.
    line = f"-engine cmd={STOCKFISH} name=a -engine cmd={STOCKFISH} name=b -each tc=60+1 -rounds 2"
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    run = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stdout is not None
    while not run.stdout.readline().startswith("Started game"):
        pass
    run.send_signal(signal.SIGINT)  # a minute's game: no game ends before
    rest, err = run.communicate(timeout=120)
    assert run.returncode == 1 and "Tournament was interrupted.\n" in rest and "To resume" not in rest, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_outputs_asked_for_are_there_from_the_start_as_fastchess_opens_them(tmp_path: Path) -> None:
    # fastchess opens -pgnout and -epdout as it begins. OpenBench's worker reads every runner's PGN once the
    # server stops the test (send_errors, slice_pgn_file), and a runner that had finished no game left none
    # here: 'Unable to find PGNs/….pgn', an exception that ended the workload.
    (tmp_path / "PGNs").mkdir()
    line = (f"-engine cmd={STOCKFISH} name=a -engine cmd={STOCKFISH} name=b -each tc=60+1 -rounds 2 "
            "-pgnout file=PGNs/1.2.3.0.pgn -epdout file=e.epd")
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    run = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stdout is not None
    while not run.stdout.readline().startswith("Started game"):
        pass
    assert (tmp_path / "PGNs" / "1.2.3.0.pgn").read_text() == "" and (tmp_path / "e.epd").read_text() == ""
    run.send_signal(signal.SIGINT)  # a minute's game: no game ends before
    rest, err = run.communicate(timeout=120)
    assert run.returncode == 1 and "Tournament was interrupted.\n" in rest, err
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["PGNs", "PGNs/1.2.3.0.pgn", "e.epd"]


@contextlib.contextmanager
def held_and_watched(lock_file: Path) -> Iterator[Callable[[], None]]:
    """Hold ``lock_file``'s lock (``flock``) while the block runs; the block is given a function that returns once
    another process has tried to open the file, to take the lock. The try is seen by a read lease: the kernel
    breaks it on another's open, whatever the load (time spent without CPU was taken for a wait, but a process
    starved of CPU on a loaded machine spends none either, halfway through its imports)."""
    lock_file.touch()
    descriptor = os.open(lock_file, os.O_RDONLY)  # a read lease is had only on a file no one has open to write
    ignored = signal.signal(signal.SIGIO, signal.SIG_IGN)  # the lease's break is told by SIGIO too, which kills
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        fcntl.fcntl(descriptor, fcntl.F_SETLEASE, fcntl.F_RDLCK)

        def tried() -> None:
            deadline = time.monotonic() + 60
            while fcntl.fcntl(descriptor, fcntl.F_GETLEASE) == fcntl.F_RDLCK:  # F_UNLCK once it is broken
                assert time.monotonic() < deadline, f"no process tried to take {lock_file.name}"
                time.sleep(0.01)

        yield tried
    finally:
        os.close(descriptor)
        signal.signal(signal.SIGIO, ignored)


def test_sigterm_before_the_first_game_ends_the_command_by_the_signal_too(tmp_path: Path) -> None:
    # Not only while games are played: held up before them (here, writing the new test's file, by its lock,
    # which another process holds), the command dies by SIGTERM as fastchess does, not by tmanager's
    # "interrupted" (status 130).
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 20 -config outname=state.toml"
    with held_and_watched(tmp_path / "state.toml.lock") as tried:
        command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
        waiting = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tried()  # past its imports, polling for the lock
        waiting.send_signal(signal.SIGTERM)
        out, err = waiting.communicate(timeout=60)
    assert (waiting.returncode, out, err) == (-signal.SIGTERM, "", "")


#: `python -m tmanager` that sends itself a signal at the first audit event (``event``, ``args``) for which a
#: condition holds: a moment in its run told as a time cannot tell it on a loaded machine.
SIGNALLING_ITSELF = """
import os, runpy, signal, sys
pending = [True]
def hook(event, args):
    if pending and ({when}):
        pending.clear()
        os.kill(os.getpid(), {signal})
sys.addaudithook(hook)
runpy.run_module("tmanager", run_name="__main__", alter_sys=True)
"""


def signalling_itself(signum: signal.Signals, *, when: str) -> list[str]:
    """The program, before its arguments, of `python -m tmanager` sending itself ``signum`` once the Python
    condition ``when`` holds (see :data:`SIGNALLING_ITSELF`)."""
    return [sys.executable, "-c", SIGNALLING_ITSELF.format(when=when, signal=int(signum))]


def test_sigterm_while_the_command_is_imported_ends_it_by_the_signal_too(tmp_path: Path) -> None:
    # `tmanager` took SIGTERM for Ctrl-C ("tmanager: interrupted", status 130) from its first instant, and the
    # command gave it back to the system only once its module had been imported: a SIGTERM in between (under
    # load, the better part of a second) did not end it as fastchess ends.
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1"
    program = signalling_itself(signal.SIGTERM, when='event == "exec" and args[0].co_filename.endswith('
                                'os.path.join("cli", "fastchess.py"))')
    done = subprocess.run([*program, "fastchess", *shlex.split(line)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (-signal.SIGTERM, "", "")
    assert list(tmp_path.iterdir()) == []


def race_to_write(line: str, cwd: Path) -> None:
    """Run fastchess command ``line`` twice at once in ``cwd``, the first stopped as it goes to take the lock to
    write its test (having looked for one, and found none or one played out) and let go once the second has
    recorded a game: both must end well."""
    program = signalling_itself(signal.SIGSTOP, when='event == "open" and str(args[0]).endswith(".toml.lock")')
    first = subprocess.Popen([*program, "fastchess", *shlex.split(line)], cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: psutil.Process(first.pid).status() == psutil.STATUS_STOPPED, timeout=120)
        command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
        second = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert second.stdout is not None
        while not second.stdout.readline().startswith("Finished game"):
            assert second.poll() is None
    finally:
        first.send_signal(signal.SIGCONT)
    for run in (first, second):
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err


def test_a_run_that_finds_its_test_begun_as_it_writes_it_plays_it_with_the_other(tmp_path: Path) -> None:
    # The same command run twice at once: each found no test, and the one that wrote it second either ended
    # with "file exists" (status 2) or wrote its own over the test the other was playing.
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 4 -pgnout file=p.pgn"
    race_to_write(line, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pgn"]
    assert len(pgn_games(tmp_path / "p.pgn")) == 8


@pytest.mark.parametrize("option", ["", "-config discard=true"])
def test_a_run_that_finds_its_test_begun_again_as_it_writes_it_plays_it_with_the_other(
    tmp_path: Path, option: str,
) -> None:
    # The same command run twice at once over a test played out (which fastchess plays again), or begun afresh
    # over one under way: each wrote a new test over whatever was there by then, the second over the one the
    # first had begun, whose games then went to a file replaced under them.
    line = (f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 2 -pgnout file=p.pgn "
            f"-config outname=t.toml {option}")
    assert fastchess(line, tmp_path).returncode == 0
    race_to_write(line, tmp_path)
    tourney = store.read(tmp_path / "t.toml")
    assert (tourney.results.count("+") + tourney.results.count("-") + tourney.results.count("="), tourney.claims) == (
        4, {})
    assert len(pgn_games(tmp_path / "p.pgn")) == 8


def test_a_run_that_finds_its_test_begun_again_each_time_it_writes_it_looks_again(tmp_path: Path) -> None:
    # Three runs of the same command over a test played out: the first went to write the test afresh, found the
    # second had written and played it out since, looked again and went to write it afresh once more, and found
    # the third had done the same since: it ended with "written by another process since it was read; run the
    # command again" (status 2), where it now looks again, and plays the test.
    line = (f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -pgnout file=p.pgn "
            "-config outname=t.toml")
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    assert subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=120, check=False).returncode == 0
    program = [sys.executable, "-c", STOPPING_ITSELF_TWICE, "fastchess", *shlex.split(line)]
    first = subprocess.Popen(program, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(2):  # stopped as it goes to take the lock to write the test afresh; another run plays it
            wait_for(lambda: psutil.Process(first.pid).status() == psutil.STATUS_STOPPED, timeout=120)
            other = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
            assert other.returncode == 0, other.stderr
            first.send_signal(signal.SIGCONT)
    finally:
        first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert len(pgn_games(tmp_path / "p.pgn")) == 2 * 4
    assert store.read(tmp_path / "t.toml").results.count("*") == 0


#: `python -m tmanager` stopping itself (SIGSTOP) as it opens a tourney's lock to write a new tourney file, the
#: first two times (once each time: the file lock opens its file twice when it is there).
STOPPING_ITSELF_TWICE = """
import os, runpy, signal, sys
stopped = []
def writing():
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "write_new":
        frame = frame.f_back
    return frame
def hook(event, args):
    if event == "open" and str(args[0]).endswith(".toml.lock") and len(stopped) < 2:
        frame = writing()
        if frame is not None and frame not in stopped:
            stopped.append(frame)
            os.kill(os.getpid(), signal.SIGSTOP)
sys.addaudithook(hook)
runpy.run_module("tmanager", run_name="__main__", alter_sys=True)
"""


def test_a_run_that_resumes_a_test_cleared_away_before_it_attends_plays_it_again(tmp_path: Path) -> None:
    # The same command run twice at once: the second found the test under way, and the first played it out and
    # cleared it away before the second attended it (there was no other run yet to keep it for): the second
    # ended with "no such tourney file" (status 2), leaving the directory of the games in progress behind.
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 2 -pgnout file=p.pgn"
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    first = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    assert first.stdout is not None
    while not first.stdout.readline().startswith("Finished game"):
        assert first.poll() is None
    os.killpg(first.pid, signal.SIGSTOP)  # the test under way as the second run finds it, with its engines
    program = signalling_itself(signal.SIGSTOP, when='event == "os.mkdir" and str(args[0]).endswith(".live")')
    second = subprocess.Popen([*program, "fastchess", *shlex.split(line)], cwd=tmp_path, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: psutil.Process(second.pid).status() == psutil.STATUS_STOPPED, timeout=120)
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    try:
        _, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
    finally:
        second.send_signal(signal.SIGCONT)
    _, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pgn"]
    assert len(pgn_games(tmp_path / "p.pgn")) == 8


def test_tablebases_gone_since_the_test_began_are_told_as_minus_tb(tmp_path: Path) -> None:
    # The test's file keeps -tb's directories relative to itself: told from there, the line named the file
    # and the setting ("adjudication.syzygy", "relative to the tourney file"), not the command line's words.
    (tmp_path / "tables").mkdir()
    (tmp_path / "runs").mkdir()
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -tb tables -config outname=runs/t.toml"
    assert fastchess(line, tmp_path).returncode == 0
    (tmp_path / "tables").rmdir()
    again = fastchess(line, tmp_path)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr == ("tmanager: -tb: no directory 'tables' (give the directories of the Syzygy tables, "
                            "separated by ':')\n")


def test_a_table_that_is_a_fifo_is_told_as_minus_tb(tmp_path: Path) -> None:
    """python-chess passed over the FIFO in silence: the test ran, its KQ v K endings unadjudicated."""
    (tmp_path / "tables").mkdir()
    os.mkfifo(tmp_path / "tables" / "KQvK.rtbz")
    done = fastchess(f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -tb tables", tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("tmanager: -tb: KQvK.rtbz in 'tables' is not a regular file but a FIFO (put the table "
                           "itself there, or move it away)\n")
    assert [p.name for p in tmp_path.iterdir()] == ["tables"]


def test_the_runner_script_of_the_docs_keeps_its_name_for_openbench_s_kill(tmp_path: Path) -> None:
    # OpenBench's client stops its runners with `pkill -KILL -f fastchess-ob`: the process that the script of
    # docs/fastchess.md runs must carry that name, and its workers must die with it.
    docs = (ROOT / "docs" / "fastchess.md").read_text()
    script = re.search(r"match runner\n.*?```python\n(.*?)```", docs, re.DOTALL)
    assert script is not None
    runner = tmp_path / "fastchess-ob"
    runner.write_text(script[1].replace("/path/to/tmanager/.venv/bin/python", sys.executable))
    runner.chmod(0o755)
    line = f"-engine cmd={STOCKFISH} name=a -engine cmd={STOCKFISH} name=b -each tc=inf nodes=5000 -rounds 50"
    process = subprocess.Popen(["./fastchess-ob", *shlex.split(line)], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    while not process.stdout.readline().startswith("Started game"):
        pass
    assert b"fastchess-ob" in Path(f"/proc/{process.pid}/cmdline").read_bytes()
    children = psutil.Process(process.pid).children(recursive=True)
    assert children
    process.kill()
    process.wait()
    _, alive = psutil.wait_procs(children, timeout=30)
    assert alive == []


def test_each_clock_starts_with_one_increment_as_fastchess_s(tmp_path: Path) -> None:
    # fastchess's clock starts at its base time plus one increment: `go wtime 1100 btime 1100 winc 100` at the
    # first move of 1+0.1, which an engine's time management (and the game's length in time) depends on.
    done = fastchess(f"{pyengine('a')} {pyengine('b')} -each tc=1+0.1 -rounds 1 -games 1 -log file=l.log engine=true",
                     tmp_path)
    assert done.returncode == 0, done.stderr
    (log,) = tmp_path.glob("*.engine-logs/game-0.log")
    first = next(line for line in log.read_text().splitlines() if "<--- go " in line)
    assert first.endswith("a <--- go wtime 1100 btime 1100 winc 100 binc 100"), first


def test_a_clock_of_increments_alone_is_played_as_fastchess_plays_it(tmp_path: Path) -> None:
    # fishtest's tc "0+1" scaled (tc=0.000+0.101), or a tester's tc=0+0.1: fastchess plays it, its clock starting
    # at one increment; tmanager refused it as a clock without base time.
    done = fastchess(f"{pyengine('a')} {pyengine('b')} -each tc=0+0.1 -rounds 1 -games 2 -maxmoves 3 "
                     "-log file=l.log engine=true -pgnout file=p.pgn", tmp_path)
    assert done.returncode == 0, done.stderr
    (log,) = tmp_path.glob("*.engine-logs/game-0.log")
    first = next(line for line in log.read_text().splitlines() if "<--- go " in line)
    assert first.endswith("a <--- go wtime 100 btime 100 winc 100 binc 100"), first
    assert "Results of a vs b (0+0.1, 1t, 1MB):" in done.stdout.splitlines()
    assert [g["TimeControl"] for g in pgn_games(tmp_path / "p.pgn")] == ["0+0.1", "0+0.1"]


def test_the_log_keeps_the_lines_of_its_level_as_fastchess_s(tmp_path: Path) -> None:
    # fastchess's log keeps the messages of -log level= and above (warn without it: nothing, in a clean match);
    # tmanager's kept every line whatever the level.
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 1 -games 1 -show-latency"
    for level, kept in (("", False), ("level=err", False), ("level=trace", True)):
        done = fastchess(f"{line} -log file=x.log append=false {level}", tmp_path)
        assert done.returncode == 0, done.stderr
        text = (tmp_path / "x.log").read_text()
        assert ("INFO game 0: a - b started" in text and "INFO engine a latency: " in text) is kept, (level, text)
        assert kept or text == "", (level, text)


def test_the_log_keeps_the_warnings_fastchess_prints(tmp_path: Path) -> None:
    # fastchess logs each warning it prints: -log level=warn (its default) kept nothing of a match with an
    # illegal move, the log's one use being to find out what went wrong.
    line = f"{pyengine('bad', '--seed', '1', '--fault', 'illegal')} {pyengine('good', '--seed', '2')} " \
           "-each tc=inf nodes=1 -rounds 1 -games 1 -recover"
    for level, kept in (("", True), ("level=err", False)):
        done = fastchess(f"{line} -log file=x.log append=false {level}", tmp_path)
        assert done.returncode == 0, done.stderr
        warning = re.search(r"^Warning; Illegal move \S+ played by bad$", done.stdout, re.MULTILINE)
        assert warning is not None, done.stdout
        logged = re.findall(r"^\S+ \S+ \d+ WARNING (.*)$", (tmp_path / "x.log").read_text(), re.MULTILINE)
        assert logged == ([warning.group()] if kept else []), (level, logged)
        assert done.stderr == ""  # logged, not told again on stderr


def test_one_command_run_twice_at_once_plays_one_test_and_the_last_to_end_clears_it(tmp_path: Path) -> None:
    # The run that ends first must not remove the test under the other, whose workers would wait for its file.
    line = f"{pyengine('a')} {pyengine('b')} -each tc=inf nodes=1 -rounds 4 -pgnout file=p.pgn"
    command = [sys.executable, "-m", "tmanager", "fastchess", *shlex.split(line)]
    runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    for run in runs:
        run.communicate(timeout=120)
        assert run.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.pgn"]
    assert len(pgn_games(tmp_path / "p.pgn")) == 8
