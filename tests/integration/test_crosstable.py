"""Cross-tables end to end: a tourney's results string, PGN files, every format, HTML in Chromium, the CLI."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import re
from pathlib import Path

import chess.pgn
import pytest

from tests.conftest import run_cli
from tests.screenshots import CHROMIUM, screenshot_ink
from tmanager.cli import crosstable as command
from tmanager.core import crosstable, crosstableformats, stats
from tmanager.core.results import Result
from tmanager.core.schedule import RoundRobin
from tmanager.core.standings import GameResult
from tmanager.errors import ConfigError

NAMES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]


def _tourney_games(results: str, schedule: RoundRobin) -> list[GameResult]:
    """The games of a results string, as `tmanager status` builds them."""
    games = []
    for number, char in enumerate(results):
        if char in "+-=":
            g = schedule.game(number)
            assert g is not None
            result = Result.from_xboard(char)
            games.append(GameResult(NAMES[g.white], NAMES[g.black], result, str(g.pgn_round), number))
    return games


def test_tourney_crosstable_equals_the_results_string_tally() -> None:
    schedule = RoundRobin(5, games_per_pairing=2, cycles=2)
    rng = random.Random(7)
    results = "".join(rng.choice("+-=") for _ in range(schedule.total_games - 3)) + "*  "
    table = crosstable.build(_tourney_games(results, schedule))
    own: dict[str, list[float]] = {name: [0, 0.0] for name in NAMES}
    for number, char in enumerate(results):
        if char in "+-=":
            g = schedule.game(number)
            assert g is not None
            white, black = NAMES[g.white], NAMES[g.black]
            own[white][0] += 1
            own[black][0] += 1
            own[white][1] += {"+": 1, "=": 0.5, "-": 0}[char]
            own[black][1] += {"+": 0, "=": 0.5, "-": 1}[char]
    assert {line.standing.name: [line.standing.games, line.standing.points] for line in table.lines} == own
    assert sum(line.standing.games for line in table.lines) == 2 * sum(c in "+-=" for c in results)
    points = [line.standing.points for line in table.lines]
    assert points == sorted(points, reverse=True)


def _pgn(games: list[tuple[str, str, str, str]], fen: str = "") -> str:
    out = []
    for white, black, result, round_ in games:
        tags = f'[Event "t"]\n[Round "{round_}"]\n[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
        if fen:
            tags += f'[FEN "{fen}"]\n[SetUp "1"]\n'
        out.append(tags + f"\n1. e4 {{+0.2/10}} e5 {result}\n")
    return "\n".join(out)


def _match_file(tmp_path: Path) -> Path:
    # XBoard numbering: rounds 2k-1 and 2k are a pair with colours reversed.
    games = []
    pattern = [("1-0", "1/2-1/2"), ("1-0", "1-0"), ("0-1", "1/2-1/2"), ("1/2-1/2", "1/2-1/2")] * 3
    for k, (first, second) in enumerate(pattern):
        games.append(("New", "Old", first, str(2 * k + 1)))
        games.append(("Old", "New", second, str(2 * k + 2)))
    path = tmp_path / "match.pgn"
    path.write_text(_pgn(games))
    return path


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    command.configure(parser)
    return command.command(parser.parse_args(argv))


def test_match_statistics_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(str(_match_file(tmp_path)), "--format", "json", "--sprt", "0", "5", "0.05", "0.05") == 0
    document = json.loads(capsys.readouterr().out)
    new = next(p for p in document["players"] if p["name"] == "New")
    assert {k: new[k] for k in ("games", "points", "wins", "draws", "losses")} == {
        "games": 24, "points": 12.0, "wins": 6, "draws": 12, "losses": 6,
    }  # fmt: skip
    assert isinstance(new["elo"], float) and isinstance(new["elo_error"], float)
    [h2h] = document["head_to_head"]
    assert h2h["games"] == 24 and h2h["points"] == {"New": 12.0, "Old": 12.0}
    match = document["match"]
    # Pairs per game pattern, from New's side: 1.5, 1 (WL), 0.5, 1 (DD) -> [0, 3, 6, 3, 0].
    assert match["pentanomial"] == [0, 3, 6, 3, 0] and match["unpaired"] == 0
    assert match["sprt"]["model"] == "normalized" and match["sprt"]["upper"] == pytest.approx(2.9444, abs=1e-4)


def test_text_output_of_a_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(str(_match_file(tmp_path)), "--sprt", "0", "5", "0.05", "0.05", "--sprt-model", "logistic") == 0
    text = capsys.readouterr().out
    assert "Score of New vs Old: 6 - 6 - 12  [0.500] 24" in text
    assert "Ptnml(0-2): [0, 3, 6, 3, 0]" in text
    # The pattern's pairs: WD, WL, LD, DD three times each. Draws: 12 of 24 games; one point each side: 6 of 12
    # pairs (the WLs and DDs), fastchess's DrawRatio; PairsRatio WD/LD 3/3; WL/DD 3/3.
    assert "DrawRatio: 50.0 % of games" in text
    assert "DrawRatio: 50.00 % of pairs (fastchess's), PairsRatio: 1.00, WL/DD Ratio: 1.00" in text
    assert "SPRT of New against Old (New: White in the file's first game; --match to choose), [0, 5] (logistic, " \
           "pentanomial): LLR" in text


def _numbered(games: list[tuple[str, str, Result, int, int | None]]) -> list[GameResult]:
    """(white, black, result, GameNumber, Pair) as tmanager's PGN carries them."""
    return [GameResult(w, b, r, "", number, "", pair) for w, b, r, number, pair in games]


def test_pair_tags_pair_games_across_cycles() -> None:
    # Three games per pairing, two cycles: pairs (0, 1), (3, 4) and, across the cycles, (2, 5).
    games = _numbered([
        ("Dev", "Base", Result.WHITE_WINS, 0, 0), ("Base", "Dev", Result.BLACK_WINS, 1, 0),
        ("Dev", "Base", Result.DRAW, 2, 2), ("Base", "Dev", Result.DRAW, 3, 3),
        ("Dev", "Base", Result.BLACK_WINS, 4, 3), ("Base", "Dev", Result.WHITE_WINS, 5, 2),
    ])  # fmt: skip
    table = crosstable.build(games)
    assert table.match is not None and table.match.first == "Dev"
    # From Dev's side: WW, then 1/2 + 0 (LD), then 1/2 + 0 (LD).
    assert table.match.stats.penta == (0, 2, 0, 0, 1) and table.match.unpaired == 0
    # Without Pair tags, GameNumber 2k and 2k+1 pair (counted from 0, as tmanager numbers games).
    untagged = crosstable.build(g._replace(pair=None) for g in games)
    assert untagged.match is not None and untagged.match.stats.penta == (1, 0, 1, 0, 1)


def test_automatic_match_has_a_fixed_orientation() -> None:
    games = _numbered([("Zed", "Alf", Result.WHITE_WINS, 0, 0), ("Alf", "Zed", Result.DRAW, 1, 0),
                       ("Zed", "Alf", Result.WHITE_WINS, 2, 2), ("Alf", "Zed", Result.BLACK_WINS, 3, 2)])  # fmt: skip
    sprt = stats.SprtSettings(0, 5)
    # Whatever order parallel workers wrote them in, the white player of game 0 is tested.
    for order in (games, games[::-1], games[2:] + games[:2]):
        table = crosstable.build(order, sprt=sprt)
        assert table.match is not None
        assert (table.match.first, table.match.stats.penta) == ("Zed", (0, 0, 0, 1, 1))
        assert "SPRT of Zed against Alf" in crosstableformats.render(table)
        assert table.match.chosen_by == "White in the lowest GameNumber"
    # Without GameNumber tags (fastchess, cutechess-cli): the white player of the first game read.
    plain = [g._replace(game_number=None, pair=None) for g in games]
    for order, first in ((plain, "Zed"), (plain[::-1], "Alf")):
        table = crosstable.build(order, sprt=sprt)
        assert table.match is not None and table.match.first == first
        assert table.match.chosen_by == "White in the file's first game"
    named = crosstable.build(plain, sprt=sprt, match=("Alf", "Zed"))
    assert named.match is not None and named.match.first == "Alf" and named.match.chosen_by == ""


def test_same_round_pairs_and_fen_openings(tmp_path: Path) -> None:
    # cutechess-cli style: both games of a pair carry the same Round; each pair its own opening.
    games = []
    for k in range(4):
        fen = f"8/8/8/8/8/8/{k}PPPPPPP/K6k w - - 0 1".replace("0P", "PP")
        games.append(GameResult("A", "B", Result.WHITE_WINS, str(k + 1), None, fen))
    for k in reversed(range(4)):  # partners arrive out of order
        fen = f"8/8/8/8/8/8/{k}PPPPPPP/K6k w - - 0 1".replace("0P", "PP")
        games.append(GameResult("B", "A", Result.DRAW, str(k + 1), None, fen))
    table = crosstable.build(games)
    assert table.match is not None
    assert table.match.stats.penta == (0, 0, 0, 4, 0) and table.match.unpaired == 0


@pytest.mark.parametrize("fmt", [crosstable.Format(word) for word in ("text", "markdown", "csv", "html")])
def test_formats_carry_the_standings(tmp_path: Path, fmt: crosstable.Format) -> None:
    games = [
        GameResult("Alpha", "Bravo", Result.WHITE_WINS, "1"),
        GameResult("Charlie", "Alpha", Result.DRAW, "2"),
        GameResult("Bravo", "Charlie", Result.BLACK_WINS, "3"),
    ]
    text = crosstableformats.render(crosstable.build(games, title="Club <cup>", tiebreak_names=["SB", "BH"]), fmt)
    for name in ("Alpha", "Bravo", "Charlie"):
        assert name in text
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0][:4] == ["Rank", "Name", "Games", "Points"] and rows[0][-2:] == ["SB", "BH"]
        assert [r[1] for r in rows[1:]] == ["Alpha", "Charlie", "Bravo"]
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and "Club &lt;cup&gt;" in text and "@media print" in text
    if fmt == "text":
        grid_row = next(
            line for line in text.split("Cross-table")[1].splitlines() if line.split()[:2] == ["1", "Alpha"]
        )
        assert grid_row.split()[2:6] == ["x", "=", "1", "1.5"]  # game-by-game cells, then points


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed")
def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "table.html"
    assert _run(str(_match_file(tmp_path)), "--format", "html", "-o", str(page)) == 0
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    table, empty = (screenshot_ink(source, tmp_path) for source in (page, blank))
    assert empty == 0
    assert table > 5000  # text, borders and header shading


def test_missing_file_exits_2_with_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such PGN file"):
        _run(str(tmp_path / "missing.pgn"))
    result = run_cli("crosstable", tmp_path / "missing.pgn")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() == f"tmanager: {tmp_path / 'missing.pgn'}: no such PGN file (check the path)"


def test_a_pgn_that_is_no_file_says_what_to_give(tmp_path: Path) -> None:
    """A directory or a FIFO (a shell's <(zcat …)) named as a PGN was refused without a way out."""
    fifo = tmp_path / "stream.pgn"
    os.mkfifo(fifo)
    hint = "(name PGN files, e.g. DIR/*.pgn for those of a directory)"
    for path, what in ((tmp_path, "is a directory"), (fifo, "is not a regular file but a FIFO")):
        result = run_cli("crosstable", path)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"tmanager: {path}: {what} {hint}\n")


def test_jobs_beyond_their_bound_say_the_bound_to_give() -> None:
    """--jobs 2000 was refused without a way out ('--jobs: must be from 1 to 1,024, not 2,000')."""
    result = run_cli("crosstable", Path(__file__), "--jobs", "2000")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("tmanager: --jobs: must be from 1 to 1,024, not 2,000 (give 1,024 at most: more is a "
                             "typing slip)\n")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="Linux's /proc")
def test_a_pgn_the_system_cannot_read_is_one_line() -> None:
    """A read that fails (a disk's or a network file system's I/O error; /proc/self/mem fails so at its start) was
    a traceback; pair and import-xboard said it without a way out."""
    mem = "/proc/self/mem"
    fix = "(check the file's permissions and its disk)"
    for arguments, says in ((("crosstable", mem), f"cannot read PGN file: Input/output error {fix}"),
                            (("pair", "--dutch", mem, "-p"), f"cannot read: input/output error {fix}"),
                            (("import-xboard", mem), f"cannot read: input/output error {fix}")):
        result = run_cli(*arguments)
        assert (result.returncode, result.stdout, result.stderr) == (
            5 if arguments[0] == "pair" else 2, "", f"tmanager: {mem}: {says}\n"), arguments


def test_superseded_games_are_said_to_be_left_out(tmp_path: Path) -> None:
    """Games tagged [Superseded] were left out of the table without a word: a tester counting the file's games
    found fewer in the table and nothing to say why."""
    path = tmp_path / "s.pgn"
    path.write_text(_pgn([("A", "B", "1-0", "1"), ("B", "A", "1-0", "2")]).replace(
        '[Round "1"]', '[Round "1"]\n[Superseded "replayed: set back by hand"]'))
    result = run_cli("crosstable", path, "--format", "csv")
    assert (result.returncode, result.stdout.count("\n")) == (0, 3)
    assert result.stderr == "tmanager: note: 1 game tagged [Superseded] not counted (later games replaced them)\n"
    path.write_text(_pgn([("A", "B", "1-0", "1"), ("B", "A", "1-0", "2")]).replace('[Round "1"]', '[Round "1"]\n'
                                                                                    '[Superseded "no"]'))
    assert run_cli("crosstable", path).stderr == ""


def test_malformed_games_warn_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text(
        _pgn([("A", "B", "1-0", "1"), ("B", "A", "*", "2")]) + '\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4'
    )
    assert _run(str(path), "--format", "csv") == 0
    captured = capsys.readouterr()
    assert "2 games not counted or suspect (1 unfinished, 1 truncated)" in captured.err
    assert captured.out.count("\n") == 3


def test_a_bad_output_is_one_line_before_reading_and_never_the_pgn_read(tmp_path: Path) -> None:
    """`-o` naming the PGN read replaced the games with the table; a directory or a missing one was said only
    after the whole PGN was read, below its warnings."""
    path = _match_file(tmp_path)
    with path.open("a") as pgn:
        pgn.write('\n[White "A"]\n[Black "B"]\n[Result "*"]\n\n*\n')  # a warning, were the file read
    games = path.read_bytes()
    link = tmp_path / "link.pgn"
    link.symlink_to(path)
    for output, words in [
        (path, f"'{path}' is the PGN file read (give the table a file of its own)"),
        (link, f"'{link}' is the PGN file read (give the table a file of its own)"),
        (tmp_path, f"'{tmp_path}' is a directory (name a file)"),
        (tmp_path / "nosuch" / "t.txt",
         f"no directory '{tmp_path / 'nosuch'}' to hold it (create the directory, or change the path)"),
    ]:
        result = run_cli("crosstable", link if output == path else path, "-o", output)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr.splitlines() == [f"tmanager: --output: {words}"]
        assert path.read_bytes() == games


@pytest.mark.parametrize("content", [b"", b"hello, not a PGN\n", bytes(range(256))])
def test_a_file_without_games_gives_an_empty_table_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes,
) -> None:
    path = tmp_path / "none.pgn"
    path.write_bytes(content)
    assert _run(str(path), "--format", "csv") == 0
    captured = capsys.readouterr()
    assert captured.err == (
        'tmanager: warning: no game in the file(s) given (a PGN game begins with tag lines, such as [White "…"])\n'
    )
    assert captured.out.count("\n") == 1  # the header alone
    assert _run(str(path), str(_match_file(tmp_path)), "--format", "csv") == 0
    assert capsys.readouterr().err == ""  # a file with games beside it: nothing to say


def test_bad_options_are_config_errors(tmp_path: Path) -> None:
    path = _match_file(tmp_path)
    with pytest.raises(ConfigError, match="--tiebreaks"):
        _run(str(path), "--tiebreaks", "BH,NOPE")
    with pytest.raises(ConfigError, match="--sprt"):
        _run(str(path), "--sprt", "5", "0", "0.05", "0.05")
    with pytest.raises(ConfigError, match="--match"):
        _run(str(path), "--match", "New", "Nobody")
    with pytest.raises(ConfigError, match="--anchor"):
        _run(str(path), "--anchor", "Nobody")
    with pytest.raises(ConfigError, match="--jobs"):
        _run(str(path), "--jobs", "0")
    # Not checked against a file too small to be read in parallel: on one of 64 MB, a process per job was forked.
    with pytest.raises(ConfigError, match="--jobs: must be from 1 to 1,024, not 100,000"):
        _run(str(path), "--jobs", "100000")


@pytest.mark.parametrize(
    "option",
    [
        "--anchor-elo=1e308",  # TPR and ARO died of an OverflowError, Elo printed with 300 digits
        "--anchor-elo=-100001",
        "--points=-1,0,1",  # ranked the losers first, with a TPR of 1008
        "--points=0,0,0",
        "--points=1,2,0",
        "--points=1e308,0,0",  # points of inf
    ],
)
def test_ratings_and_points_beyond_reason_are_one_line(tmp_path: Path, option: str) -> None:
    result = run_cli("crosstable", _match_file(tmp_path), option, "--tiebreaks", "TPR,ARO")
    assert (result.returncode, result.stdout) == (2, "")
    assert len(result.stderr.splitlines()) == 1 and f"tmanager: {option.split('=')[0]}: " in result.stderr
    assert run_cli("crosstable", _match_file(tmp_path), "--anchor-elo=-100000", "--points=3,1,0").returncode == 0


@pytest.mark.parametrize(
    ("pair", "says"),
    [
        (("New", "New"), "--match: 'New' against itself (name two different players: --match A B)"),
        (("New", "new"), "--match: 'new' played no game (use a player name from the PGN: New, Old)"),
        (("Nobody", "Old"), "--match: 'Nobody' played no game (use a player name from the PGN: New, Old)"),
    ],
)
def test_a_match_of_a_player_with_itself_or_of_a_name_not_in_the_pgn_says_so(
    tmp_path: Path, pair: tuple[str, str], says: str
) -> None:
    """Both were told "'New' and 'New' played no game together": a player against itself, or a misspelt name
    (case counts), read as if the two had simply never met."""
    result = run_cli("crosstable", _match_file(tmp_path), "--match", *pair)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"tmanager: {says}\n")


def test_a_match_of_two_who_never_met_says_whom_to_name(tmp_path: Path) -> None:
    """It said so without a way out."""
    path = tmp_path / "two.pgn"
    path.write_text(_pgn([("A", "B", "1-0", "1"), ("C", "D", "0-1", "1")]))
    result = run_cli("crosstable", path, "--match", "A", "C")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == ("tmanager: --match: 'A' and 'C' played no game together (name two players who met: the "
                             "cross-table shows who did)\n")


def test_an_sprt_model_without_an_sprt_is_refused_not_ignored(tmp_path: Path) -> None:
    result = run_cli("crosstable", _match_file(tmp_path), "--sprt-model", "logistic")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == ["tmanager: --sprt-model: tests nothing without --sprt (add --sprt ELO0 "
                                          "ELO1 ALPHA BETA, e.g. --sprt 0 5 0.05 0.05)"]
    tested = run_cli("crosstable", _match_file(tmp_path), "--sprt-model", "logistic",
                     "--sprt", "0", "5", "0.05", "0.05")
    assert tested.returncode == 0 and "LLR" in tested.stdout


def test_several_processes_give_the_same_table(tmp_path: Path) -> None:
    rng = random.Random(7)
    games = []
    for i in range(400):
        white, black = rng.sample(NAMES, 2)
        games.append((white, black, rng.choice(["1-0", "0-1", "1/2-1/2"]), str(i + 1)))
    path = tmp_path / "many.pgn"
    path.write_text(_pgn(games) + _pgn([("Alpha", "Bravo", "*", "401")]))
    outputs = [run_cli("crosstable", path, "--format", "json", "--jobs", jobs) for jobs in ("1", "2")]
    assert [r.returncode for r in outputs] == [0, 0]
    assert outputs[0].stdout == outputs[1].stdout and json.loads(outputs[0].stdout)["games"] == 400
    assert outputs[0].stderr == outputs[1].stderr
    assert "warning: 1 game not counted or suspect (1 unfinished)" in outputs[0].stderr


def test_sprt_without_match_tests_the_first_games_white_and_says_so(tmp_path: Path) -> None:
    """A real match of dev (greedy, White in game 1, as fastchess's first engine) against base (random):
    with GameNumber tags (tmanager's PGN) and without (fastchess's), dev is tested, not base, which comes
    first in alphabetical order and whose test would be accepted as H0."""
    path = tmp_path / "m.toml"
    # Seeded, the games are the same every time: unseeded, their draws (at max_moves) left the test undecided
    # at 16 games now and then (LLR 2.2 to 8.9 in runs of the same command).
    seeded = [f'participants.{name}.args=["--protocol", "uci", "--style", "{style}", "--seed", "{seed}"]'
              for name, style, seed in (("dev", "greedy", 2), ("base", "random", 1))]
    created = run_cli("new", path, "-e", "greedy-uci:dev", "-e", "random-uci:base", "--nodes", "1", "--games", "2",
                      "--cycles", "8", "--set", "adjudication.max_moves=40", "--set", seeded[0], "--set", seeded[1])
    assert created.returncode == 0, created.stderr
    assert run_cli("run", path).returncode == 0
    ours = path.with_suffix(".pgn")
    theirs = tmp_path / "fastchess-like.pgn"  # as fastchess writes it: no GameNumber nor Pair, a pair per Round
    text = re.sub(r'\[(GameNumber|Pair) "\d+"\]\n', "", ours.read_text())
    theirs.write_text(re.sub(r'\[Round "(\d+)"\]', lambda m: f'[Round "{(int(m[1]) + 1) // 2}"]', text))
    assert first_white(theirs) == "dev"
    bounds = ("--sprt", "-200", "200", "0.05", "0.05", "--sprt-model", "logistic")
    for pgn, why in ((ours, "White in the lowest GameNumber"), (theirs, "White in the file's first game")):
        done = run_cli("crosstable", pgn, *bounds)
        assert done.returncode == 0, done.stderr
        line = next(line for line in done.stdout.splitlines() if line.startswith("SPRT of "))
        assert line.startswith(f"SPRT of dev against base (dev: {why}; --match to choose), [-200, 200]"), line
        assert line.endswith("H1 was accepted"), line
    named = run_cli("crosstable", theirs, *bounds, "--match", "base", "dev")
    line = next(line for line in named.stdout.splitlines() if line.startswith("SPRT of "))
    assert line.startswith("SPRT of base against dev, [-200, 200]") and line.endswith("H0 was accepted"), line


def first_white(path: Path) -> str:
    with open(path, encoding="utf-8") as handle:
        headers = chess.pgn.read_headers(handle)
    assert headers is not None
    return headers["White"]


def test_sprt_of_more_than_two_players_needs_match(tmp_path: Path) -> None:
    path = tmp_path / "three.pgn"
    path.write_text(_pgn([("A", "B", "1-0", "1"), ("B", "C", "0-1", "2"), ("C", "A", "1/2-1/2", "3")]))
    done = run_cli("crosstable", path, "--sprt", "0", "5", "0.05", "0.05")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "tmanager: --sprt: no match to test: the games have 3 players, not two (name the pair " \
                          "with --match A B (A tested against B))\n"
    named = run_cli("crosstable", path, "--sprt", "0", "5", "0.05", "0.05", "--match", "C", "A")
    assert named.returncode == 0 and "SPRT of C against A, [0, 5]" in named.stdout


def test_an_llr_without_a_value_is_null_in_json() -> None:
    """100,000 pairs of a loss and a draw against [0, 200] nElo: no normalized estimate, the LLR is NaN (as in
    fastchess), and the JSON said `"llr": NaN`, which no JSON reader takes."""
    games = [
        GameResult(*names, result, game_number=number, pair=number // 2)
        for number, (names, result) in zip(
            range(200_000), [(("A", "B"), Result.BLACK_WINS), (("B", "A"), Result.DRAW)] * 100_000, strict=True
        )
    ]
    table = crosstable.build(games, sprt=stats.SprtSettings(0, 200))
    text = crosstableformats.render(table, crosstable.Format.JSON)
    data = json.loads(text, parse_constant=lambda word: pytest.fail(word))
    assert data["match"]["sprt"]["llr"] is None and data["match"]["sprt"]["verdict"] == "continue"


def test_a_file_named_twice_is_refused_before_it_counts_twice(tmp_path: Path) -> None:
    """`crosstable g.pgn g.pgn` counted every game twice: twice the games, half the error bars, and nothing to
    tell in the table. The same file under another name (a symbolic or a hard link) is the same file."""
    path = _match_file(tmp_path)
    link, hard = tmp_path / "link.pgn", tmp_path / "hard.pgn"
    link.symlink_to(path)
    hard.hardlink_to(path)
    for second, says in [
        (path, f"{path}: named twice"),
        (link, f"{link}: the same file as '{path}'"),
        (hard, f"{hard}: the same file as '{path}'"),
    ]:
        result = run_cli("crosstable", path, second, "--format", "csv")
        assert (result.returncode, result.stdout) == (2, "")
        refusal = f"tmanager: {says}: its games would count twice (name each PGN file once)"
        assert result.stderr.splitlines() == [refusal]
    assert run_cli("crosstable", path, "--format", "csv").returncode == 0
