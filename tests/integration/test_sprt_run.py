"""SPRT matches played for real with `tmanager run`: stopping on whole pairs, the verdict, resuming,
editing, the hook, live statistics, and pentanomial pairs read back from the PGN."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT, assert_consistent, pgn_games, run_cli
from tests.integration.test_web import Server, fetch
from tmanager.core import stats
from tmanager.tourney import store
from tmanager.tourney.model import Tourney

BOOK = ROOT / "tourneys" / "openings" / "sample.epd"
HOOK = 'env | grep TMANAGER_SPRT_ | sort >> verdicts.txt; echo --- >> verdicts.txt'
#: Logistic bounds at which a won pair moves the LLR by +1.15 and a drawn one not at all (see test_sprt.py).
WIDE = ("-200", "200")


def new(path: Path, *args: str) -> None:
    done = run_cli("new", path, *args)
    assert done.returncode == 0, done.stderr


def verdicts(path: Path) -> list[dict[str, str]]:
    """The after_tourney hook's SPRT variables, one mapping per run of the hook."""
    text = (path.parent / "verdicts.txt").read_text() if (path.parent / "verdicts.txt").exists() else ""
    blocks = [block.strip() for block in text.split("---") if block.strip()]
    return [dict(line.split("=", 1) for line in block.splitlines()) for block in blocks]


def assert_whole_pairs(tourney: Tourney) -> None:
    """Every finished game's partner is finished, and nothing is left in progress."""
    schedule = tourney.schedule()
    assert "*" not in tourney.results and not tourney.claims
    for number, char in enumerate(tourney.results):
        partner = schedule.partner(number)
        if char in "+-=" and partner is not None:
            assert tourney.result(partner) in "+-=", f"game {number} finished, its partner {partner} not"


def test_h1_stops_early_on_whole_pairs_then_resume_does_nothing_and_edit_continues(tmp_path: Path) -> None:
    path = tmp_path / "h1.toml"
    new(path, "-e", "stockfish:SF", "-e", "random-uci:Random", "--games", "2", "--cycles", "50", "--nodes", "300",
        "--openings", str(BOOK), "--set", "adjudication.max_moves=150", "--after-tourney", HOOK,
        "--sprt", *WIDE, "0.05", "0.05", "--sprt-model", "logistic")  # fmt: skip
    done = run_cli("run", path, "--workers", "2", "--report-every", "2")
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    played = tourney.finished_count
    assert 6 <= played < 20 < tourney.schedule().total_games  # three won pairs decide; a few more may be begun
    assert_whole_pairs(tourney)
    assert_consistent(path, complete=False)
    verdict = tourney.verdict
    assert verdict is not None and verdict.result == "H1"
    assert (verdict.games, verdict.pairs) == (played, played // 2) and verdict.llr >= verdict.upper
    assert "H1 accepted" in done.stdout and f"after {played} games, {played // 2} pairs" in done.stdout
    live = [line for line in done.stderr.splitlines() if line.startswith("SF vs Random: ")]
    assert live and "W-D-L" in live[-1] and "Ptnml(0-2)" in live[-1] and "(-2.94, 2.94) [-200, 200]" in live[-1]
    [hooked] = verdicts(path)
    assert hooked == {
        "TMANAGER_SPRT_RESULT": "H1", "TMANAGER_SPRT_LLR": f"{verdict.llr:.4f}",
        "TMANAGER_SPRT_LOWER": "-2.9444", "TMANAGER_SPRT_UPPER": "2.9444",
        "TMANAGER_SPRT_GAMES": str(played), "TMANAGER_SPRT_PAIRS": str(played // 2),
    }  # fmt: skip

    # The dashboard shows the same figures and the verdict; its cross-table pairs every game.
    server = Server(path)
    try:
        status, _, page = fetch(server.url)
        assert status == 200 and "H1 accepted" in page.decode() and "SF vs Random: " in page.decode()
        status, _, table = fetch(server.url + "crosstable.html")
        assert f"{played // 2} pairs, 0 unpaired games" in table.decode()
    finally:
        server.stop()

    # Resuming a decided test plays nothing and says why; the hook does not run again.
    pgn_before = tourney.pgn_path.read_bytes()
    again = run_cli("run", path, "--workers", "2")
    assert again.returncode == 0
    assert "nothing to play: SPRT [-200, 200] (logistic): H1 accepted" in again.stderr
    assert store.read(path).results == tourney.results and tourney.pgn_path.read_bytes() == pgn_before
    assert len(verdicts(path)) == 1

    # Narrower error rates move the bound beyond the LLR: the test goes on, and decides again (a change of
    # a test under way: forced, and recorded).
    edited = run_cli("edit", path, "--set", "sprt.alpha=0.0002", "--set", "sprt.beta=0.0002", "--force")
    assert edited.returncode == 0, edited.stderr
    assert [a.key for a in store.read(path).amendments] == ["sprt.alpha", "sprt.beta"]
    assert store.read(path).verdict == verdict  # the file's record changes only when workers decide again
    more = run_cli("run", path, "--workers", "2")
    assert more.returncode == 0, more.stderr
    tourney = store.read(path)
    assert tourney.finished_count > played and tourney.verdict is not None and tourney.verdict.result == "H1"
    assert tourney.verdict.upper == pytest.approx(8.517, abs=0.001) and tourney.verdict.games == tourney.finished_count
    assert_whole_pairs(tourney)
    assert [v["TMANAGER_SPRT_GAMES"] for v in verdicts(path)] == [str(played), str(tourney.finished_count)]


def test_h0_when_the_engine_under_test_is_the_weaker(tmp_path: Path) -> None:
    path = tmp_path / "h0.toml"
    new(path, "-e", "random-uci:Random", "-e", "stockfish:SF", "--games", "2", "--cycles", "50", "--nodes", "300",
        "--set", "adjudication.max_moves=150", "--sprt", *WIDE, "0.05", "0.05", "--sprt-model", "logistic")
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    assert tourney.verdict is not None and tourney.verdict.result == "H0" and tourney.verdict.llr <= -2.94
    assert tourney.finished_count < 20
    assert_whole_pairs(tourney)
    assert "H0 accepted" in done.stdout


def test_a_pair_begun_when_the_test_decides_is_completed(tmp_path: Path) -> None:
    path = tmp_path / "begun.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--cycles", "20", "--nodes", "1",
        "--set", "adjudication.max_moves=20", "--sprt", *WIDE, "0.1", "0.1", "--sprt-model", "logistic")
    # A won both games of pairs 0-1 and 2-3 (LLR 2.30, beyond 2.20) and game 4 of pair 4-5.
    text = re.sub(r'results = " *"', 'results = "+-+-+"', path.read_text())  # padded to the schedule
    path.write_text(text)
    done = run_cli("run", path, "--workers", "2")
    assert done.returncode == 0, done.stderr
    tourney = store.read(path)
    assert len(tourney.results) == 6  # only game 5 was played: it completes the pair that game 4 began
    [game] = pgn_games(tourney.pgn_path)
    assert (game["GameNumber"], game["Pair"], game["White"]) == ("5", "4", "B")
    assert tourney.verdict is not None and (tourney.verdict.result, tourney.verdict.pairs) == ("H1", 3)


def test_runs_time_left_once_the_test_decides_counts_only_the_pairs_begun(tmp_path: Path) -> None:
    """`run`'s progress line estimated the time left from every game of the schedule, those a decided test will
    never play included: a test with nothing more to play ended on "6/1000 done, …, left ~0:18:34"."""
    path = tmp_path / "eta.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--cycles", "500", "--nodes", "1",
        "--sprt", *WIDE, "0.1", "0.1", "--sprt-model", "logistic")
    # Decided by games 0 to 4 (see above), with game 5 left to complete the pair that game 4 began.
    path.write_text(re.sub(r'results = " *"', 'results = "+-+-+"', path.read_text()))
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("6/1000 done")]
    assert lines and lines[-1].startswith("6/1000 done, 0 playing, elapsed ") and ", left ~0:00:00" in lines[-1]


def test_a_decided_test_leaves_only_the_games_of_its_pairs_begun(tmp_path: Path) -> None:
    """The games a decided SPRT will never play were still counted as left: `status` said "35 left (of 40)"
    and the dashboard "35 to play · finished", its bar at an eighth, for a test with nothing more to play."""
    path = tmp_path / "decided.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--cycles", "20", "--nodes", "1",
        "--sprt", *WIDE, "0.1", "0.1", "--sprt-model", "logistic")
    # Decided by games 0 to 4 (see above), with game 5 left to complete the pair that game 4 began.
    path.write_text(re.sub(r'results = " *"', 'results = "+-+-+"', path.read_text()))
    assert "decided: 5 played, 0 in progress, 1 left (of 40)" in run_cli("status", path).stdout
    server = Server(path)
    try:
        page = fetch(server.url)[2].decode()
        assert '<progress value="5" max="6">' in page and "0 in progress · 1 to play · no game is being played" in page
        with store.transaction(path) as tourney:
            tourney.set_result(5, "-")
        assert "decided: 6 played, 0 in progress, 0 left (of 40)" in run_cli("status", path).stdout
        page = fetch(server.url)[2].decode()
        assert '<progress value="6" max="6">' in page and "0 in progress · 0 to play · finished" in page
    finally:
        server.stop()


def test_an_undecided_test_continues_when_cycles_are_raised(tmp_path: Path) -> None:
    path = tmp_path / "undecided.toml"
    new(path, "-e", "random-uci:A", "-e", "random-xboard:B", "--games", "2", "--nodes", "1",
        "--set", "adjudication.max_moves=20", "--after-tourney", HOOK, "--sprt", "0", "5", "0.05", "0.05")
    assert run_cli("run", path).returncode == 0
    tourney = store.read(path)
    assert tourney.verdict is not None and (tourney.verdict.result, tourney.verdict.games) == ("undecided", 2)
    assert [v["TMANAGER_SPRT_RESULT"] for v in verdicts(path)] == ["undecided"]
    again = run_cli("run", path)
    assert again.returncode == 0 and "nothing to play: every game is played; to go on, raise cycles" in again.stderr
    assert run_cli("edit", path, "--set", "cycles=2").returncode == 0
    assert run_cli("run", path).returncode == 0
    tourney = store.read(path)
    assert tourney.finished_count == 4 and tourney.verdict is not None and tourney.verdict.games == 4
    assert [v["TMANAGER_SPRT_GAMES"] for v in verdicts(path)] == ["2", "4"]


def test_a_test_decided_by_an_edit_records_its_verdict_and_runs_its_hook(tmp_path: Path) -> None:
    """An edit of the bounds that decided the test left no verdict in the file and never ran after_tourney: no
    game was recorded to do it, and `run` found the test over and started no worker."""
    path = tmp_path / "edited.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--cycles", "50", "--nodes", "1",
        "--after-tourney", HOOK, "--sprt", "0", "5", "0.05", "0.05")
    with store.transaction(path) as tourney:  # ten pairs won by A, typed in by hand
        for number in range(20):
            tourney.set_result(number, "+" if number % 2 == 0 else "-")
    assert store.read(path).verdict is None
    done = run_cli("edit", path, "--set", "sprt.alpha=0.45", "--set", "sprt.beta=0.45", "--force")
    assert done.returncode == 0, done.stderr
    verdict = store.read(path).verdict
    assert verdict is not None and (verdict.result, verdict.games, verdict.pairs) == ("H1", 20, 10)
    assert run_cli("run", path).returncode == 0
    assert [(v["TMANAGER_SPRT_RESULT"], v["TMANAGER_SPRT_GAMES"]) for v in verdicts(path)] == [("H1", "20")]
    assert run_cli("run", path).returncode == 0 and len(verdicts(path)) == 1


def test_a_test_decided_by_results_typed_in_is_recorded_by_run(tmp_path: Path) -> None:
    """Results typed in by hand that decide the test: `run` found it over and said so, but left no verdict in the
    file and never ran after_tourney (only `work`, whose claim looks, did)."""
    path = tmp_path / "typed.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--cycles", "50", "--nodes", "1",
        "--after-tourney", HOOK, "--sprt", "0", "5", "0.45", "0.45")
    with store.transaction(path) as tourney:  # ten pairs won by A
        for number in range(20):
            tourney.set_result(number, "+" if number % 2 == 0 else "-")
    done = run_cli("run", path)
    assert done.returncode == 0 and "H1 accepted" in done.stdout, done.stderr
    verdict = store.read(path).verdict
    assert verdict is not None and (verdict.result, verdict.games) == ("H1", 20)
    assert [(v["TMANAGER_SPRT_RESULT"], v["TMANAGER_SPRT_PAIRS"]) for v in verdicts(path)] == [("H1", "10")]
    again = run_cli("run", path)
    assert again.returncode == 0 and "nothing to play" in again.stderr and len(verdicts(path)) == 1


def test_a_test_on_the_games_says_trinomial(tmp_path: Path) -> None:
    """sprt.pentanomial = false (fastchess's -report penta=false): the LLR was the games' but the report's SPRT line
    said '(normalized, pentanomial)'."""
    path = tmp_path / "games.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--games", "2", "--cycles", "5", "--nodes", "1",
        "--sprt", "0", "5", "0.05", "0.05", "--set", "sprt.pentanomial=false")
    with store.transaction(path) as tourney:
        for number, char in enumerate("+==-==+=="):
            tourney.set_result(number, char)
    llr = stats.sprt((0, 6, 3), elo0=0, elo1=5).llr  # A: W 3, D 6 (game 3: black won, A had black)
    assert f"{llr:.2f}" != f"{stats.sprt((0, 0, 1, 3, 0), elo0=0, elo1=5).llr:.2f}"  # the pairs: another LLR
    assert f"[0, 5] (normalized, trinomial): LLR {llr:.2f} (bounds" in run_cli("status", path).stdout


def test_pgn_pentanomial_counts_equal_the_results_string_pair_by_pair(tmp_path: Path) -> None:
    # Three games a pairing over two cycles: pairs 0-1 and 3-4 in their cycles, 2-5 across them.
    path = tmp_path / "book.toml"
    new(path, "-e", "greedy-uci:Greedy", "-e", "random-uci:Random", "--games", "3", "--cycles", "4", "--nodes", "1",
        "--openings", str(BOOK), "--set", "openings.order=random", "--set", "adjudication.max_moves=40")
    assert run_cli("run", path, "--workers", "2").returncode == 0
    tourney = store.read(path)
    games = {int(g["GameNumber"]): g for g in assert_consistent(path)}
    schedule = tourney.schedule()
    expected = [0] * 5
    for number, game in games.items():
        partner = schedule.partner(number)
        assert partner is not None and game["Pair"] == games[partner]["Pair"] == str(min(number, partner))
        assert game.get("FEN") == games[partner].get("FEN") and game["White"] == games[partner]["Black"]
        if number < partner:
            points = sum(_greedy_points(tourney.results[n], games[n]["White"]) for n in (number, partner))
            expected[int(2 * points)] += 1
    table = run_cli("crosstable", tourney.pgn_path, "--format", "json")
    assert table.returncode == 0, table.stderr
    match = json.loads(table.stdout)["match"]
    assert match["players"] == ["Greedy", "Random"]  # the first participant: white in game 0
    assert match["pentanomial"] == expected and sum(expected) == 6 and match["unpaired"] == 0
    status = run_cli("status", path)
    assert f"Ptnml(0-2) [{', '.join(map(str, expected))}]" in status.stdout


def _greedy_points(char: str, white: str) -> float:
    white_points = {"+": 1.0, "=": 0.5, "-": 0.0}[char]
    return white_points if white == "Greedy" else 1.0 - white_points


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("[sprt]\nelo0 = 0\nelo1 = 5\nalpha = 2\n", "sprt.alpha: must be between 0 and 1, not 2 (e.g. 0.05)"),
        ("[sprt]\nelo0 = 5\nelo1 = 0\n", "sprt.elo1: elo0 (5) must be less than elo1 (0)"),
        ('[sprt]\nelo0 = 0\nelo1 = 5\nmodel = "gaussian"\n', "sprt.model: 'gaussian' is not one of"),
        ("[sprt]\nelo1 = 5\n", "sprt: missing required key 'elo0'"),
        ("[sprt]\nelo0 = -3\nelo1 = 1\nbeta = -0.1\n", "sprt.beta: must be a non-negative number"),
    ],
)
def test_bad_sprt_sections_are_one_line(tmp_path: Path, section: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--nodes", "1")
    path.write_text(path.read_text().replace("[progress]", section + "\n[progress]"))
    done = run_cli("status", path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"tmanager: {path}: {message}") and done.stderr.count("\n") == 1


def test_an_sprt_needs_two_participants_and_keeps_its_bounds_valid(tmp_path: Path) -> None:
    three = tmp_path / "three.toml"
    done = run_cli("new", three, "-e", "random-uci:A", "-e", "random-uci:B", "-e", "random-uci:C", "--nodes", "1",
                   "--sprt", "0", "5", "0.05", "0.05")  # fmt: skip
    assert done.returncode == 2 and not three.exists()
    assert done.stderr == "tmanager: sprt: an SPRT needs exactly 2 participants, not 3 (the first participant is " \
                          "tested against the second; remove [sprt] for a larger field)\n"  # fmt: skip
    path = tmp_path / "two.toml"
    new(path, "-e", "random-uci:A", "-e", "random-uci:B", "--nodes", "1", "--sprt", "-1.5", "0.5", "0.05", "0.05")
    assert store.read(path).sprt is not None
    before = path.read_text()
    refused = run_cli("edit", path, "--set", "sprt.elo1=-2")
    assert refused.returncode == 2 and "sprt.elo1: elo0 (-1.5) must be less than elo1 (-2)" in refused.stderr
    assert path.read_text() == before
    assert run_cli("edit", path, "--set", "sprt.model=\"bayesian\"").returncode == 0
    sprt = store.read(path).sprt
    assert sprt is not None and (sprt.elo0, sprt.elo1, sprt.model) == (-1.5, 0.5, "bayesian")
    plain = tmp_path / "plain.toml"
    new(plain, "-e", "random-uci:A", "-e", "random-uci:B", "--nodes", "1")
    missing = run_cli("edit", plain, "--set", "sprt.elo1=5")
    assert missing.returncode == 2 and "the tourney has no [sprt] section" in missing.stderr


# --- a test under way keeps its question and conditions, or says it changed them -----------------------

#: edit arguments that change an SPRT test's bounds, limits or book, and the key refused first.
GUARDED = [
    (["--set", "sprt.elo1=3"], "sprt.elo1: cannot change it from 5.0 to 3.0 "),
    (["--set", 'sprt.model="logistic"'], "sprt.model: cannot change it from normalized to logistic "),
    (["--set", "sprt.alpha=0.01", "--set", "sprt.beta=0.01"],
     "sprt.alpha: cannot change it from 0.05 to 0.01 (nor 1 more) "),
    (["--each", "nodes=50"], "participants.A.nodes: cannot change it from (unset) to 50 (nor 1 more) "),
    (["--set", "participants.B.tc=5+0.05"], "participants.B.tc: cannot change it from (unset) to 5+0.05 "),
    (["--set", "participants.B.time_margin=0"], "participants.B.time_margin: "),
    (["--set", "depth=3"], "tourney.depth: cannot change it from (unset) to 3 "),
    (["--set", "nodes=2"], "tourney.nodes: cannot change it from 1 to 2 "),
    (["--set", "st=0.5"], "tourney.st: "),
    (["--set", "tc=10+0.1"], "tourney.tc: cannot change it from inf to 10+0.1 "),
    (["--set", "time_margin=0.5"], "tourney.time_margin: "),
    (["--set", "openings.start=3"], "openings.start: cannot change it from 1 to 3 "),
    (["--set", 'openings.order="random"'], "openings.order: "),
    (["--set", "openings.seed=7"], "openings.seed: "),
    (["--set", "openings.plies=4"], "openings.plies: "),
    (["--set", 'openings.format="epd"'], "openings.format: "),
    (["--set", f"openings.file={str(ROOT / 'tourneys' / 'openings' / 'chess960.epd')!r}", "--set",
      'variant="chess960"'], "openings.file: "),
]  # fmt: skip


def sprt_under_way(path: Path) -> None:
    """An SPRT of A against B with two games recorded."""
    new(path, "-e", "random-uci:A", "-e", "greedy-uci:B", "--nodes", "1", "--games", "2", "--cycles", "4",
        "--openings", str(BOOK), "--set", "adjudication.max_moves=20", "--sprt", "0", "5", "0.05", "0.05")
    assert run_cli("work", path, "--games", "2").returncode == 0
    assert store.read(path).finished_count == 2


@pytest.mark.parametrize(("args", "says"), GUARDED)
def test_a_test_under_way_refuses_a_change_of_its_bounds_limits_or_book(
    tmp_path: Path, args: list[str], says: str
) -> None:
    path = tmp_path / "s.toml"
    fresh = tmp_path / "fresh.toml"
    new(fresh, "-e", "random-uci:A", "-e", "greedy-uci:B", "--nodes", "1", "--openings", str(BOOK),
        "--sprt", "0", "5", "0.05", "0.05")
    assert run_cli("edit", fresh, *args).returncode == 0  # no game recorded yet: free to change
    sprt_under_way(path)
    before = path.read_bytes()
    done = run_cli("edit", path, *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"tmanager: {path}: {says}")
    assert "with 2 games of the SPRT test recorded: its verdict would mix two tests" in done.stderr
    assert "give --force" in done.stderr
    assert path.read_bytes() == before


def test_an_upgrade_of_an_engine_under_test_is_refused_unless_forced(tmp_path: Path) -> None:
    """substitute --upgrade of A, with games of the test recorded, was taken: the verdict weighed A's old engine's
    games and the new one's as one, while a change of A's nodes was refused."""
    path = tmp_path / "s.toml"
    sprt_under_way(path)
    before = path.read_bytes()
    done = run_cli("substitute", path, "A", "greedy-uci", "--upgrade")
    assert done.returncode == 2 and done.stderr == (
        f"tmanager: {path}: participants.A.engine: cannot change it from random-uci to greedy-uci with 2 games of "
        "the SPRT test recorded: its verdict would mix two tests (start a new test with tmanager clone --set, or "
        "give --force to change it all the same, recorded in the file)\n")
    assert path.read_bytes() == before
    forced = run_cli("substitute", path, "A", "greedy-uci", "--upgrade", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "recorded as an amendment of the SPRT test: after 2 games (" in forced.stdout
    assert [(a.key, a.old, a.new) for a in store.read(path).amendments] == [
        ("participants.A.engine", "random-uci", "greedy-uci")]
    # A replace sets every game of the test back: a new test, nothing mixed, nothing to force
    replaced = run_cli("substitute", path, "B", "random-uci", "--name", "C", "--replace")
    assert replaced.returncode == 0, replaced.stderr


def test_a_forced_change_of_a_test_under_way_is_recorded_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    sprt_under_way(path)
    free = run_cli("edit", path, "--set", "adjudication.max_moves=25", "--option", "A:Hash=8", "--set", "cycles=5")
    assert free.returncode == 0, free.stderr  # neither bounds, limits nor book
    done = run_cli("edit", path, "--set", "sprt.elo1=3", "--each", "nodes=2", "--force")
    assert done.returncode == 0, done.stderr
    assert "recorded as an amendment of the SPRT test: after 2 games (" in done.stdout
    first = store.read(path).amendments
    assert [(a.games, a.key, a.old, a.new) for a in first] == [
        (2, "sprt.elo1", "5.0", "3.0"), (2, "participants.A.nodes", "", "2"), (2, "participants.B.nodes", "", "2"),
    ]  # fmt: skip
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", first[0].time)
    assert "\n[amendments.3]\n" in path.read_text()
    assert run_cli("work", path, "--games", "2").returncode == 0  # recorded games: journal lines
    assert run_cli("edit", path, "--set", "openings.start=2", "--force").returncode == 0  # a checkpoint
    assert run_cli("run", path).returncode == 0
    tourney = store.read(path)
    assert tourney.amendments[:3] == first and len(tourney.amendments) == 4
    assert (tourney.amendments[3].games, tourney.amendments[3].key) == (4, "openings.start")
    status = run_cli("status", path)
    assert status.returncode == 0, status.stderr
    amended = [line.strip() for line in status.stdout.splitlines() if line.strip().startswith("amended ")]
    assert amended == [f"amended {a.describe()}" for a in tourney.amendments]
    assert amended[0] == f"amended after 2 games ({first[0].time}): sprt.elo1 5.0 -> 3.0"
    assert amended[1].endswith("participants.A.nodes (unset) -> 2")


def test_amendments_survive_the_journal_folded_into_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.toml"
    sprt_under_way(path)
    assert run_cli("edit", path, "--set", "sprt.elo0=-1", "--force").returncode == 0
    recorded = store.read(path).amendments
    monkeypatch.setattr(store, "JOURNAL_LIMIT", 0)
    journal = store.journal_path(path)
    folded = False
    for _ in range(100):  # claims and releases are journal lines, until the journal is folded
        with store.transaction(path) as tourney:
            tourney.set_result(2, "*" if tourney.result(2) == " " else " ")
        first = journal.read_text().splitlines()
        if len(first) == 1 and json.loads(first[0])["checkpoint"] > 3:
            folded = True
            break
    assert folded
    assert "[amendments.1]" in json.loads(journal.read_text().splitlines()[0])["owned"]
    assert store.read(path).amendments == recorded and "\n[amendments.1]\n" in path.read_text()


@pytest.mark.parametrize(("old", "new_text", "field", "says"), [
    ("elo1 = 5.0", "elo1 = 10.0", "sprt.elo1", "sprt.elo1 = 5.0, not 10.0"),
    ("alpha = 0.05", "alpha = 0.01", "sprt.alpha", "sprt.alpha = 0.05, not 0.01"),
    ('tc = "inf"', 'tc = "10+0.1"', "tourney.tc", "tourney.tc = inf, not 10+0.1"),
])  # fmt: skip
def test_a_hand_edit_of_a_test_under_way_is_refused_as_edit_refuses_it(
    tmp_path: Path, old: str, new_text: str, field: str, says: str
) -> None:
    """A hand edit of the bounds, an error rate or a limit after games were played was taken in silence (the
    verdict then weighed games of two tests as one), while `edit` refuses the same change without --force."""
    path = tmp_path / "s.toml"
    sprt_under_way(path)
    text = path.read_text()
    assert old in text, text
    path.write_text(text.replace(old, new_text, 1))
    edited = path.read_bytes()
    for command in (("status",), ("work", "--games", "1"), ("edit", "--set", "adjudication.max_moves=25")):
        done = run_cli(command[0], path, *command[1:])
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"tmanager: {path}: {field}: the SPRT test's 2 games were played with {says}")
        assert "tmanager edit" in done.stderr and "--force" in done.stderr and "put it back" in done.stderr
        assert path.read_bytes() == edited
    path.write_text(text)  # put back, then changed with --force: recorded, and the file takes the new conditions
    forced = run_cli("edit", path, "--set", f"{field}={new_text.split('=')[1].strip()}", "--force")
    assert forced.returncode == 0, forced.stderr
    assert [a.key for a in store.read(path).amendments] == [field]
    assert run_cli("work", path, "--games", "1").returncode == 0
    assert store.read(path).finished_count == 3


def cut(text: str, start: str, up_to: str) -> str:
    """``text`` less its part from ``start`` up to the first ``up_to`` after it (which stays)."""
    first = text.index(start)
    return text[:first] + text[text.index(up_to, first):]


def test_a_test_file_without_the_conditions_fingerprint_loads_and_takes_it(tmp_path: Path) -> None:
    """A file written before [progress] kept the conditions: read as it is, and given them at its next change."""
    path = tmp_path / "s.toml"
    sprt_under_way(path)
    path.write_text(cut(path.read_text(), "conditions = [", "version ="))
    store.journal_path(path).unlink()
    assert run_cli("status", path).returncode == 0
    assert run_cli("work", path, "--games", "1").returncode == 0
    assert "conditions = [" in path.read_text()
    path.write_text(path.read_text().replace("elo1 = 5.0", "elo1 = 6.0"))
    done = run_cli("status", path)
    assert done.returncode == 2 and "sprt.elo1: the SPRT test's 3 games were played with" in done.stderr


def test_removing_the_test_by_hand_after_games_is_refused(tmp_path: Path) -> None:
    """Removing [sprt] by hand after games were played was taken in silence (the verdict dropped), while a hand
    edit of its bounds is refused and `edit` has no way to remove it."""
    path = tmp_path / "s.toml"
    sprt_under_way(path)
    text = path.read_text()
    path.write_text(cut(text, "[sprt]\n", "\n["))
    edited = path.read_bytes()
    for command in (("status",), ("work", "--games", "1"), ("edit", "--set", "adjudication.max_moves=25")):
        done = run_cli(command[0], path, *command[1:])
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"tmanager: {path}: sprt: the SPRT test's 2 games were played with [sprt] "
                                      "elo0 = 0.0, elo1 = 5.0"), done.stderr
        assert "put it back" in done.stderr and "tmanager clone" in done.stderr
        assert path.read_bytes() == edited
    path.write_text(text)
    assert run_cli("work", path, "--games", "1").returncode == 0
