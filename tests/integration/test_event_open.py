"""A 64-player, 9-round FIDE open as an arbiter runs it: machine-readable standings and pairings, pairing sheets
with the round's time and the absent players, result slips, the prize list by category, A4 printing (Chromium's
PDF), the web pages' JSON and layout on a desktop and a phone, the arbiter's "missing results only" view."""

# The fixture `serve` comes from the dashboard's tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import csv
import io
import json
import random
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.integration.test_web import CHROMIUM, chromium, fetch, serve
from tests.integration.test_web_event import PASSWORD, Client, hidden, set_password
from tmanager.core.playerfields import WOMEN_TITLES, Sex
from tmanager.core.results import Result
from tmanager.events import api as ev
from tmanager.events.model import Division, Event, Player
from tmanager.events.registration import assign_start_numbers

browser_only = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
SURNAMES = ("Vachier-Lagrave", "Nepomniachtchi", "Abdusattorov", "Kuiper", "de Vries", "Bakker", "Jansen", "Smit")
TITLES = ("GM", "IM", "FM", "WGM", "CM", "WIM", "", "", "")
SCHEDULE = [f"2026-04-{10 + r // 2} {'10:00' if r % 2 == 0 else '15:00'}" for r in range(9)]


def build_open(path: Path, rounds: int) -> None:
    """64 players (titles, unrated players, women, juniors and seniors) start-numbered; ``rounds`` rounds paired,
    each one's results entered before the next is paired (the last paired round has no results)."""
    rng = random.Random(22)
    players = [
        Player(
            i, f"{SURNAMES[i % 8]}, Player {i}", title=TITLES[i % 9] if i < 24 else "",
            rating=0 if i % 13 == 0 else 2600 - i * 17,
            sex=Sex.WOMAN if i % 4 == 0 or (i < 24 and TITLES[i % 9] in WOMEN_TITLES) else Sex.MAN,
            birth=str(1950 + (i * 7) % 62), federation=("NED", "GER", "BEL")[i % 3], fide_id=4100000 + i,
        )
        for i in range(1, 65)
    ]  # fmt: skip
    event = Event(
        name="Leiden Open", rounds=9, start="2026-04-10", end="2026-04-14", schedule=SCHEDULE,
        categories=["U18", "S50", "women", "unrated", "2000-2199"], divisions=[Division("main", players=players)],
    )  # fmt: skip
    ev.create(path, event)
    ev.apply(path, lambda e: assign_start_numbers(e.division()))

    def results_then_pair(e: ev.Event) -> list[str]:
        d = e.division()
        n = d.paired_rounds
        if n:
            for b in d.round(n).boards:
                x = rng.random() + (d.player(b.white).rating - d.player(b.black).rating) / 800
                result = Result.WHITE_WINS if x > 0.7 else Result.BLACK_WINS if x < 0.3 else Result.DRAW
                ev.set_result(e, d, n, b, result)
        return ev.pair(e, d)

    for _ in range(rounds):
        ev.apply(path, results_then_pair)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight rounds played, round 9 paired without results (the last round in progress)."""
    path = tmp_path_factory.mktemp("open") / "open.toml"
    build_open(path, 9)
    return path


def copy(built: Path, tmp_path: Path) -> Path:
    shutil.copy(built, tmp_path / built.name)
    return tmp_path / built.name


def ok(*args: str | Path) -> str:
    done = run_cli("event", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_standings_and_pairings_as_json_and_csv(built: Path) -> None:
    d = ev.load(built).division()
    standings = json.loads(ok("standings", built, "--round", "8", "--format", "json"))
    assert standings["after_round"] == 8 and standings["missing_results"] == 0
    codes = [t["code"] for t in standings["tiebreaks"]]
    assert codes == ["BH-C1", "BH", "SB"]
    rows = standings["rows"]
    assert len(rows) == 64 and [r["rank"] for r in rows][:3] == [1, 2, 3]
    # The TRF start number, the points as a number, each tie-break under its code, as the text standings show.
    text = ok("standings", built, "--round", "8").splitlines()
    first = text[1 + 1].split()
    top = rows[0]
    assert str(top["no"]) == first[1] and top["name"] == d.player(top["no"]).name
    assert isinstance(top["points"], int | float) and set(codes) <= set(top)
    assert sum(r["points"] for r in rows) == 8 * 32  # every game of eight rounds gives one point
    table = list(csv.DictReader(io.StringIO(ok("standings", built, "--round", "8", "--format", "csv"))))
    assert [row["no"] for row in table] == [str(r["no"]) for r in rows]
    assert table[0]["BH-C1"] == str(top["BH-C1"]) and table[0]["title"] == top["title"]
    women = json.loads(ok("standings", built, "--category", "women", "--format", "json"))
    assert women["category"] == "women" and all(d.player(r["no"]).sex == "w" for r in women["rows"])

    pairings = json.loads(ok("pairings", built, "--format", "json"))
    assert (pairings["round"], pairings["time"], len(pairings["boards"])) == (9, "2026-04-14 10:00", 32)
    assert all(b["result"] is None for b in pairings["boards"]), "round 9 has no results yet"
    board = pairings["boards"][0]
    assert board["white"]["points"] >= board["black"]["points"] - 1 and board["white"]["no"] in range(1, 65)
    lines = list(csv.DictReader(io.StringIO(ok("pairings", built, "--round", "1", "--format", "csv"))))
    # Round 1 of the Dutch system: start number 1 meets 33 on board 1, whichever colour the lot gave.
    assert len(lines) == 32 and {lines[0]["white_no"], lines[0]["black_no"]} == {"1", "33"}
    assert lines[0]["result"] in ("1-0", "½-½", "0-1")


def test_json_and_csv_refused_for_a_score_based_division(tmp_path: Path) -> None:
    path = tmp_path / "scrabble.toml"
    ok("new", path, "--name", "Club Scrabble", "--rounds", "3", "--entry", "scores")
    done = run_cli("event", "standings", path, "--format", "json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"tmanager: {path}: division 'main' is score-based: --format json|csv is for chess divisions"
    ]


def test_pairing_with_many_results_missing_names_the_first_and_says_there_are_more(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    build_open(path, 1)
    refused = run_cli("event", "pair", path)
    assert refused.returncode == 2 and refused.stderr.startswith(
        f"tmanager: {path}: 32 result(s) missing (round.board: 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, …); "
    ), refused.stderr


def test_pairing_sheet_slips_and_prize_list(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    build_open(path, 8)
    d = ev.load(path).division()
    gone = d.player(17)
    ok("withdraw", path, gone.name)
    for b in d.round(8).boards:
        ok("result", path, "--round", "8", str(d.round(8).boards.index(b) + 1), "1-0")
    ok("pair", path)
    sheet = ok("pairings", path)
    assert sheet.splitlines()[0] == "Leiden Open, division main: round 9, 2026-04-14 10:00"
    assert f"absent: {gone.name} (17)" in sheet
    assert json.loads(ok("pairings", path, "--format", "json"))["absent"][0]["no"] == 17
    withdrawn = [r["no"] for r in json.loads(ok("standings", path, "--format", "json"))["rows"] if r["withdrawn"]]
    assert withdrawn == [17]
    ok("result", path, "1", "adj")  # adjourned: to be played, told apart from a result not entered yet
    assert [b["result"] for b in json.loads(ok("pairings", path, "--format", "json"))["boards"][:2]] == ["adj", None]
    assert [row["result"] for row in csv.DictReader(io.StringIO(ok("pairings", path, "--format", "csv")))][:2] == \
        ["adj", ""]
    assert ok("missing", path).splitlines()[0].endswith(": adjourned")  # board 1's state; the others have none
    ok("report", path, "--only", "slips", "--only", "pairings")
    out = ok("report", path, "--round", "8", "--only", "prizes")
    directory = path.parent / "html" / "open"
    slips = (directory / "slips-r9.txt").read_text(encoding="utf-8")
    assert slips.count("board ") == len(ev.load(path).division().round(9).boards) and "Signature" in slips
    assert "2026-04-14 10:00" in slips
    prizes = (directory / "prizes-r8.txt").read_text(encoding="utf-8")
    sections = [s for s in re.split(r"\n(?=\S[^\n]*\n-+\n)", prizes) if "\n---" in s]
    assert [s.splitlines()[0] for s in sections][:6] == [
        "Overall", "Category U18", "Category S50", "Category women", "Category unrated", "Category 2000-2199",
    ]  # fmt: skip
    overall = json.loads(ok("standings", path, "--round", "8", "--format", "json"))["rows"]
    assert all(r["name"] in sections[0] for r in overall[:3]) and overall[3]["name"] not in sections[0]
    seniors = json.loads(ok("standings", path, "--round", "8", "--category", "S50", "--format", "json"))["rows"]
    assert all(r["name"] in sections[2] for r in seniors[:3])
    assert "absent:" in (directory / "pairings-r9.txt").read_text(encoding="utf-8") and "wrote" in out


def _pdf_pages(pdf: bytes) -> list[tuple[float, float]]:
    """The size of each page of a PDF Chromium printed, in points (its page objects are not compressed)."""
    count = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    boxes = [(float(m[1]), float(m[2])) for m in re.finditer(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)]
    assert count and len(boxes) >= count
    return boxes[:count]


@browser_only
def test_reports_print_on_a4_portrait(built: Path, tmp_path: Path) -> None:
    path = copy(built, tmp_path)
    ok("report", path, "--round", "8", "--only", "standings", "--only", "pairings", "--only", "prizes")
    ok("report", path, "--only", "pairings", "--only", "slips")
    directory = path.parent / "html" / "open"
    with chromium() as browser:
        page = browser.new_page()
        for name, most in (("standings-r8", 2), ("pairings-r9", 1), ("prizes-r8", 3), ("slips-r9", 8)):
            page.goto((directory / f"{name}.html").as_uri())
            page.emulate_media(media="print")
            pages = _pdf_pages(page.pdf(prefer_css_page_size=True))
            assert all(abs(w - 595.3) < 1 and abs(h - 841.9) < 1 for w, h in pages), (name, pages)  # A4 portrait
            assert 1 <= len(pages) <= most, (name, len(pages))
            # Nothing wider than the page: no table runs off its right edge.
            page.set_viewport_size({"width": 718, "height": 1000})  # A4 less the side margins, at 96 dpi
            overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            assert overflow <= 0, (name, overflow)
        browser.close()


@browser_only
def test_web_json_pairings_layout_and_missing_results_view(built: Path, tmp_path: Path, serve: Any) -> None:
    path = copy(built, tmp_path)
    assert set_password(path, PASSWORD).returncode == 0
    server = serve(path)
    status, headers, body = fetch(f"{server.url}standings.json?round=8&category=U18")
    assert status == 200 and headers["content-type"].startswith("application/json")
    data = json.loads(body)
    assert data["category"] == "U18" and data["rows"] == json.loads(
        ok("standings", path, "--round", "8", "--category", "U18", "--format", "json")
    )["rows"]
    status, _, body = fetch(f"{server.url}pairings.json")
    assert status == 200 and json.loads(body)["boards"][0]["result"] is None
    status, _, body = fetch(f"{server.url}pairings.json?round=12")
    assert status == 404 and b"round 12" in body

    # The by-board table fits its panel on a desktop and on a phone: no column clipped, no sideways scrolling.
    measure = """() => { const t = document.querySelector('#pairings table'); const box = t.parentElement;
        const right = box.getBoundingClientRect().right;
        const black = [...t.querySelectorAll('td.col-black')];
        return {table: t.scrollWidth, box: box.clientWidth, page: document.documentElement.scrollWidth,
                view: innerWidth, clipped: black.filter(c => c.getBoundingClientRect().right > right + 1
                                                     || c.scrollWidth > c.clientWidth).length,
                names: black.length}; }"""
    with chromium() as browser:
        for width in (1600, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(f"{server.url}pairings")
            m = page.evaluate(measure)
            assert m["names"] == 32 and m["clipped"] == 0, (width, m)
            assert m["table"] <= m["box"] and m["page"] <= m["view"], (width, m)
            page.close()
        browser.close()

    # The arbiter's view of the boards still without a result, which keeps itself after a result is saved.
    client = Client(server)
    client.login()
    _, _, every = client.request("GET", "/arbiter")
    assert every.count('class="entry missing"') == 32 and "Missing results only" in every
    d = ev.load(path).division()
    for board in range(1, 31):
        ok("result", path, str(board), "½-½")
    only = missing_view(client, until=["31", "32"])  # the server sees the file's changes at its next poll
    assert "All boards" in only
    board31 = d.round(9).boards[30]  # the form names the game it shows, which must still stand there
    form = {"csrf": hidden(only, "csrf"), "round": "9", "board": "31", "white": str(board31.white),
            "black": str(board31.black), "was": "*", "result": "1-0", "missing": "1"}
    status, headers, _ = client.post("/result", form)
    assert status == 303 and headers["location"] == "arbiter?round=9&missing=1"
    missing_view(client, until=["32"])
    assert d.round(9).boards[30].result.pending, "the file read before is untouched: the server saved to disk"
    assert not ev.load(path).division().round(9).boards[30].result.pending


def missing_view(client: Client, *, until: list[str]) -> str:
    """The arbiter's missing-results view once it lists exactly the boards ``until`` (within 10 s)."""
    deadline = time.monotonic() + 10
    while True:
        _, _, page = client.request("GET", "/arbiter?missing=1")
        boards = re.findall(r'id="result-(\d+)"', page)
        if boards == until or time.monotonic() > deadline:
            assert boards == until
            return page
        time.sleep(0.05)


def test_accelerated_pairings_show_virtual_points(tmp_path: Path) -> None:
    path = tmp_path / "baku.toml"
    ok("new", path, "--name", "Baku", "--rounds", "9", "--set", "acceleration=baku")
    entries = tmp_path / "entries.csv"
    entries.write_text("name,rating\n" + "".join(f'"P{i:02d}, X",{2400 - 20 * i}\n' for i in range(1, 17)))
    ok("import-players", path, entries)
    ok("pair", path, "--colour", "white")
    sheet = ok("pairings", path).splitlines()
    # GA: the first 2 x ceil(16 / 4) = 8 players carry one virtual point into round 1 (C.04.5.1).
    assert [line.split()[5] for line in sheet[2:10]] == ["0+1"] * 4 + ["0"] * 4
    assert sheet[-1].startswith("Pts: the score before the round, +N the virtual points")
    boards = json.loads(ok("pairings", path, "--format", "json"))["boards"]
    carried = {side["no"] for b in boards for side in (b["white"], b["black"]) if side["virtual_points"] == 1}
    assert carried == set(range(1, 9))
