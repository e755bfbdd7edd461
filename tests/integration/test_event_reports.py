"""Reports of a scripted event, the HTML pages in headless Chromium, hooks and dry runs, as real processes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.integration.test_event_trf import scripted_event
from tests.screenshots import CHROMIUM, screenshot_ink
from tmanager.core.results import Result
from tmanager.events import api as ev
from tmanager.events.reports import Report, Table
from tmanager.events.reports import render as reports


def ok(*args: str | Path) -> str:
    done = run_cli("event", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.fixture
def swiss(tmp_path: Path) -> Path:
    path = tmp_path / "open.toml"
    e = scripted_event(3, players=11, rounds=4)
    ev.create(path, e)
    return path


def test_reports_of_a_swiss_event(swiss: Path) -> None:
    out = ok("report", swiss, "--round", "3")
    e = ev.load(swiss)
    d = e.division()
    folder = swiss.parent / "html" / "open"
    assert f"index: {folder / 'index.html'}" in out
    # Pairings by board: the boards of round 3 in order, with the scores before the round.
    text = (folder / "pairings-r3.txt").read_text()
    rows = [line.split() for line in text.splitlines() if line[:3].strip().isdigit()]
    for row, board in zip(rows, d.round(3).boards, strict=True):
        assert int(row[1]) == board.white and board.result in row
        assert ev.label(d.player(board.black)).split(" (")[0] in " ".join(row)
    # Alphabetical: every player once, sorted by name.
    alpha = (folder / "pairings-alpha-r3.txt").read_text().splitlines()[4:]
    names = [line[: len("Surname00, Given")] for line in alpha]
    assert names == sorted(p.name for p in d.players)
    # Standings after round 3: the same order and points as the standings command.
    table = ev.tiebreak_standings(e, d, 3)
    lines = (folder / "standings-r3.txt").read_text().splitlines()[4 : 4 + len(table)]
    points_column = -1 - len(e.tiebreaks)
    assert [(int(line.split()[1]), line.split()[points_column]) for line in lines] == [
        (s.player.number, ev.format_points(s.points)) for s in table
    ]
    # Per flag: only that class, ranked among themselves.
    junior = (folder / "standings-junior-r3.txt").read_text()
    assert all(("junior" in p.flags) == (p.name in junior) for p in d.players)
    # Wall chart (Swiss) and progress: a column per round up to 3, final points as the standings.
    chart = (folder / "wallchart-r3.txt").read_text()
    assert "R1" in chart and "R3" in chart and "R4" not in chart
    leader = table[0].player.number
    leader_row = next(line for line in chart.splitlines() if line.split()[:2] == ["1", str(leader)])
    first = ev.round_games(d, d.round(1))[leader]
    assert (f"{first.opponent}{first.colour}" if first.opponent else "bye") in leader_row
    progress = (folder / "progress-r3.txt").read_text()
    assert any(line.split()[1] == str(leader) and line.split()[-1] == ev.format_points(table[0].points)
               for line in progress.splitlines()[4:])  # fmt: skip
    # A card per player, and the FIDE estimates.
    cards = (folder / "cards-r3.txt").read_text()
    assert all(f"{p.name} ({p.number})" in cards for p in d.players)
    assert cards.count("FIDE estimate:") == len(d.players)
    ratings = (folder / "ratings-r3.txt").read_text()
    assert "Change" in ratings and "Perf" in ratings and "still missing" not in ratings
    # The players list and missing results (none: every result is in).
    assert all(p.name in (folder / "players.txt").read_text() for p in d.players)
    assert "no results missing" in (folder / "missing.txt").read_text()
    # Every page is linked from the index, with its text version.
    index = (folder / "index.html").read_text()
    for page in folder.glob("*.html"):
        if page.name != "index.html":
            assert f'href="{page.name}"' in index and f'href="{page.stem}.txt"' in index
    assert '<link rel="stylesheet" href="tmanager.css">' in index
    assert "@media print" in (folder / "tmanager.css").read_text()


def test_round_robin_crosstable_and_missing(tmp_path: Path) -> None:
    path = tmp_path / "rr.toml"
    e = ev.Event(name="Club RR", divisions=[ev.Division("A", system=ev.PairingSystem.ROUND_ROBIN)])
    d = e.division()
    for i in range(1, 5):
        ev.add_player(e, d, ev.Player(i, f"Player{i}, P", rating=2000 - 10 * i))
    results = iter([Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS,
                    Result.WHITE_WINS, Result.WHITE_WINS_BY_FORFEIT, Result.DRAW])  # fmt: skip
    for n in (1, 2, 3):
        ev.pair(e, d)
        if n < 3:
            for board in d.round(n).boards:
                ev.set_result(e, d, n, board, next(results))
    ev.create(path, e)
    ok("report", path, "-q")
    folder = tmp_path / "html" / "rr"
    text = (folder / "crosstable-r3.txt").read_text()
    grid = {line.split()[0]: line.split() for line in text.splitlines()[4:] if line.split()[0].isdigit()}
    symbol = {"1": "0", "0": "1", "½": "½", "+": "-", "-": "+", "*": "*"}
    # Columns: No, Name (two words), Rtg, then players 1..4.
    cells = {a: row[4:8] for a, row in grid.items()}
    for a in "1234":
        assert cells[a][int(a) - 1] == "x"
        for b in "1234":
            if a != b:
                assert cells[b][int(a) - 1] == "".join(symbol[c] for c in cells[a][int(b) - 1])
    missing = (folder / "missing.txt").read_text()
    assert missing.count("no result") == 2
    # The estimates did not say that round 3 is still being played.
    assert "2 result(s) still missing: these estimates are not final" in (folder / "ratings-r3.txt").read_text()


def test_custom_stylesheet(swiss: Path, tmp_path: Path) -> None:
    css = tmp_path / "club.css"
    css.write_text("h1 { color: darkgreen; }\n")
    ok("report", swiss, "--only", "standings", "--css", css, "-q")
    folder = swiss.parent / "html" / "open"
    assert (folder / "custom.css").read_text() == css.read_text()
    page = (folder / "standings-r4.html").read_text()
    assert page.index('href="tmanager.css"') < page.index('href="custom.css"')
    done = run_cli("event", "report", swiss, "--css", tmp_path / "none.css")
    assert done.returncode == 2 and "none.css" in done.stderr




@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed")
def test_pages_render_in_headless_chromium(swiss: Path, tmp_path: Path) -> None:
    ok("report", swiss, "-q")
    folder = swiss.parent / "html" / "open"
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    assert screenshot_ink(blank, tmp_path) == 0
    assert screenshot_ink(folder / "index.html", tmp_path) > 2000  # the title and the list of links
    assert screenshot_ink(folder / "standings-r4.html", tmp_path) > 5000  # text, borders and header shading


def test_hooks_after_results_and_round_complete(tmp_path: Path) -> None:
    path = tmp_path / "hooked.toml"
    e = ev.Event(name="Hooked", rounds=3, divisions=[ev.Division("main")])
    for i in range(1, 5):
        ev.add_player(e, e.division(), ev.Player(i, f"P{i}, Q", rating=2000 - i))
    log = tmp_path / "hook.log"
    writer = tmp_path / "hook.py"
    writer.write_text(
        "import os, sys\n"
        "values = [os.environ[k] for k in ('TMANAGER_HOOK', 'TMANAGER_ROUND', 'TMANAGER_DIVISION')]\n"
        "values.append(os.path.basename(os.environ['TMANAGER_EVENT']))\n"
        "open(sys.argv[1], 'a').write(' '.join(values) + chr(10))\n"
    )
    script = f'"{sys.executable}" "{writer}" "{log}"'
    e.hooks = {"after_results": script, "round_complete": script + " && echo complete > done.txt"}
    ev.create(path, e)
    ok("pair", path, "--colour", "white")
    ok("result", path, "1", "1-0")
    assert log.read_text().splitlines() == ["after_results 1 main hooked.toml"]
    assert not (tmp_path / "done.txt").exists()
    ok("result", path, "2", "=")
    assert log.read_text().splitlines()[1:] == ["after_results 1 main hooked.toml", "round_complete 1 main hooked.toml"]
    assert (tmp_path / "done.txt").read_text().strip() == "complete"  # run in the event's directory
    # A correction of a complete round runs after_results only.
    ok("correct", path, "--round", "1", "1", "0-1")
    assert log.read_text().splitlines()[3:] == ["after_results 1 main hooked.toml"]

    # A failing hook is reported; the result is saved, the exit status stays 0.
    def failing_hook(e: ev.Event) -> list[str]:
        e.hooks = {"after_results": "exit 3"}
        return []

    ev.apply(path, failing_hook)
    ok("pair", path)
    done = run_cli("event", "result", path, "1", "1-0")
    assert done.returncode == 0
    assert "warning: hook after_results failed with status 3; the change is saved" in done.stderr
    assert ev.load(path).division().round(2).boards[0].result == "1-0"
    assert 'after_results = "exit 3"' in path.read_text()


def test_dry_run_changes_nothing(swiss: Path, tmp_path: Path) -> None:
    path = tmp_path / "spring.toml"
    e = ev.Event(name="Spring", rounds=5, divisions=[ev.Division("main")])
    for i in range(1, 10):
        ev.add_player(e, e.division(), ev.Player(i, f"Name{i}, F", rating=1500 + 60 * i if i != 4 else 0))
    ev.create(path, e)
    ok("pair", path)
    ok("result", path, "1", "1-0")  # round 1 partly entered: the dry run fills in the rest
    before = path.read_bytes()
    journal = sorted(os.listdir(tmp_path / "old"))
    first = ok("dry-run", path, "--seed", "7")
    assert first == ok("dry-run", path, "--seed", "7")  # repeatable with a seed
    assert [f"round {n} paired" in first for n in (2, 3, 4, 5)] == [True] * 4
    assert "standings after round 5" in first and "round 6" not in first
    assert f"dry run only: {path} is unchanged" in first
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path / "old")) == journal
    assert not (tmp_path / "html").exists()
    two = ok("dry-run", path, "--rounds", "2", "--seed", "1")
    assert "round 3 paired" in two and "round 4 paired" not in two
    done = run_cli("event", "dry-run", path, "--rounds", "9")
    assert done.returncode == 2 and "--rounds: only 4 round(s) remain of 5 (--rounds 4 or fewer)" in done.stderr
    for count in ("0", "-2"):  # simulated nothing and said nothing, exit 0
        done = run_cli("event", "dry-run", path, "--rounds", count)
        assert done.returncode == 2
        assert done.stderr == f"tmanager: {path}: --rounds: {count} rounds simulate nothing (one round or more)\n"
    # Every round paired: the dry run simulated nothing and said only that the file was unchanged.
    e = ev.load(path)
    e.rounds = 1
    path.write_text(ev.dumps(e))
    done = run_cli("event", "dry-run", path)
    assert done.returncode == 2
    assert done.stderr == f"tmanager: {path}: round 1 of 1 is paired: no round remains to simulate\n"


def test_report_rendering_units() -> None:
    table = Table(("No", "Name", "Pts"), (("1", "Ann <A>", "1½"), ("12", "Bo", "0")))
    report = Report("x", "Title & co", (table, "a note"))
    assert reports.text(report).splitlines()[2:5] == ["", "No  Name     Pts", " 1  Ann <A>   1½"]
    page = reports.html(report)
    assert "<title>Title &amp; co</title>" in page and '<td class="name">Ann &lt;A&gt;</td>' in page


def test_rating_tiebreaks_with_an_unrated_player(tmp_path: Path) -> None:
    """An unrated player in the field: ARO was worked out over the rated opponents alone, where C.07 drops a
    rating-based tie-break without ``Un`` (as FIDE's TieBreakServer does). Now it is blank, the standings say
    why, and ARO-U1400 counts the unrated player at 1400."""
    path = tmp_path / "club.toml"
    ok("new", path, "--name", "Club", "--rounds", "3", "--set", "tiebreaks=['ARO', 'ARO-U1400']")
    for name, rating in (("Aa, A", "2000"), ("Bb, B", "1900"), ("Cc, C", "1800"), ("Dd, D", "0")):
        ok("add-player", path, name, "--rating", rating)
    ok("pair", path, "--colour", "white")
    ok("result", path, "1", "1-0")
    ok("result", path, "2", "1-0")
    out = ok("standings", path)
    header = next(line.split() for line in out.splitlines() if line.split()[:1] == ["Rk"])
    assert header[-2:] == ["ARO", "ARO-U1400"]
    rows = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == 4 and all(not row[-1].isdigit() or int(row[-1]) >= 1400 for row in rows)
    aro = ev.load(path)
    assert ev.tiebreak_standings(aro, aro.division())[0].values[0] is None
    assert {s.values[1] for s in ev.tiebreak_standings(aro, aro.division())} == {1400, 1800, 1900, 2000}
    assert "ARO left blank: unrated players are present" in out
    report = ok("report", path, "--only", "standings")
    assert "ARO left blank: unrated players are present" in report and "ARO-U1400 left blank" not in report
    ok("edit-player", path, "Dd", "--rating", "1500")
    assert "left blank" not in ok("standings", path), "every player rated: ARO counts"
    aro = ev.load(path)
    assert {s.values[0] for s in ev.tiebreak_standings(aro, aro.division())} == {1500, 1800, 1900, 2000}


def test_no_rating_change_is_written_0_as_fide_writes_it(tmp_path: Path) -> None:
    """A change of nothing was written '+0' (and a game's '+0.0'), where FIDE's published calculations give no
    zero a sign ('0.00'): a draw between two players rated 2000 changes neither."""
    path = tmp_path / "z.toml"
    ok("new", path, "--name", "Z", "--rounds", "3", "--start", "2026-04-10")
    for name in ("A, Anna", "B, Bea"):
        ok("add-player", path, name, "--rating", "2000", "--k", "20")
    ok("pair", path)
    ok("result", path, "1", "=")
    out = ok("report", path, "--only", "ratings", "--only", "cards")
    rows = [line.split() for line in out.splitlines() if line.startswith((" 1  A, Anna", " 2  B, Bea"))]
    assert [row[-3] for row in rows] == ["0", "0"], out  # Change, then New and Perf
    assert out.count("K 20: 0 → 2000") == 2 and "+0" not in out, out
    games = [line.split() for line in out.splitlines() if line.startswith((" 1  black", " 1  white"))]
    assert [game[-1] for game in games] == ["0.0", "0.0"], out  # each player card's game
