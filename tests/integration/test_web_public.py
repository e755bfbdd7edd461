"""The public pages a player of a rated open expects, as chess-results shows them: the starting rank list, pairings
with titles, federations, points and the current rank, standings per category, the prize list, the player card
with each game's rating change, the wall chart; a real `tmanager serve` in Chromium at desktop and phone sizes."""

# The fixture `serve` comes from the dashboard's tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_event_open import build_open, ok
from tests.integration.test_web import CHROMIUM, chromium, fetch, serve
from tmanager.events import api as ev

browser_only = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
SIZES = {"desktop": (1400, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def rated_open(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 64-player open, round 9 paired without results, with a prize fund shared by the Hort system."""
    path = tmp_path_factory.mktemp("public") / "open.toml"
    build_open(path, 9)
    ok("prize-fund", path, "overall", "1000", "700", "500", "300", "200", "--currency", "EUR", "--sharing", "hort")
    ok("prize-fund", path, "U18", "150", "100")
    ok("prize-fund", path, "women", "150")
    return path


def cells(page: Any, selector: str, column: str) -> list[str]:
    """The texts of one column of the first table in ``selector``."""
    found: list[str] = page.eval_on_selector_all(
        f"{selector} table:first-of-type tbody td.col-{column}", "cells => cells.map(c => c.textContent.trim())"
    )
    return found


def fits(page: Any) -> bool:
    """The page is no wider than the window: only a wide table may scroll, inside its own box."""
    width: int = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    return width <= 0


@browser_only
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_public_pages_as_chess_results_shows_them(rated_open: Path, tmp_path: Path, serve: Any, size: str) -> None:
    path = tmp_path / "open.toml"
    shutil.copy(rated_open, path)
    d = ev.load(path).division()
    server = serve(path)
    after8 = json.loads(fetch(f"{server.url}standings.json?round=8")[2])["rows"]
    rank8 = {row["no"]: str(row["rank"]) for row in after8}
    juniors = json.loads(ok("standings", path, "--category", "U18", "--format", "json"))["rows"]
    with chromium() as browser:
        width, height = SIZES[size]
        page = browser.new_page(viewport={"width": width, "height": height}, is_mobile=size == "phone")
        phone = size == "phone"

        # Starting rank list: the pairing order, with titles; ratings on either size, FIDE IDs on a desktop.
        page.goto(f"{server.url}start")
        assert fits(page)
        ranks = d.ranks()
        order = sorted(d.players, key=lambda q: ranks[q.number])
        assert cells(page, "#start", "name") == [q.name for q in order]
        assert cells(page, "#start", "tit") == [q.title for q in order]
        assert page.locator("#start td.col-rtg").first.is_visible()
        assert page.locator("#start td.col-fide-id").first.is_visible() != phone

        # Pairings: titles, federations, points before the round and the rank after round 8.
        page.goto(f"{server.url}pairings")
        assert fits(page)
        boards = d.round(9).boards
        assert cells(page, "#pairings", "tit")[::2] == [d.player(b.white).title for b in boards]
        assert cells(page, "#pairings", "rk")[::2] == [rank8[b.white] for b in boards]
        assert cells(page, "#pairings", "fed")[1::2] == [d.player(b.black).federation for b in boards]
        assert page.locator("#pairings td.col-fed").first.is_visible() != phone
        assert "Rk: the rank after round 8" in page.inner_text("#pairings")

        # Standings of a category, honoured by the page as by the JSON; the categories linked from it.
        page.goto(f"{server.url}standings?category=U18")
        assert fits(page)
        assert cells(page, "#standings", "name") == [row["name"] for row in juniors]
        assert page.locator("#standings .choices a[aria-current]").inner_text() == "U18"
        page.click("#standings .choices >> text=women")
        assert all(d.player(int(n)).sex == "w" for n in cells(page, "#standings", "no"))

        # The prize list: the fund allocated, as the command line gives it.
        page.goto(f"{server.url}prizes")
        assert fits(page)
        text = ok("prizes", path)
        for name, prize in zip(cells(page, "#prizes", "name"), cells(page, "#prizes", "prize-eur"), strict=True):
            assert re.search(rf"{re.escape(name)} .* {re.escape(prize)}\n", text), (name, prize)
        assert "paid 3100 EUR of a fund of 3100 EUR" in page.inner_text("#prizes")

        # The player card: title, FIDE ID, federation; opponents' ratings and each game's rating change, whose
        # sum is the change in total (K × the sum, rounded once).
        player = d.player(5)
        page.goto(f"{server.url}player?n=5")
        assert fits(page)
        facts = page.inner_text("#player .facts")
        assert all(f in facts for f in (player.title, f"FIDE ID {player.fide_id}", player.federation))
        ratings = cells(page, "#player", "rtg")
        games = [g for r in d.rounds[:8] if (g := ev.round_games(d, r)[5]).opponent is not None]
        assert ratings[:8] == [str(d.player(g.opponent).rating or "") for g in games if g.opponent]
        changes = [float(c) for c in cells(page, "#player", "change") if c]
        total = re.search(r"K \d+: ([+-]\d+) →", page.inner_text("#player"))
        assert total and len(changes) == 8 and round(sum(changes)) == int(total[1])
        assert page.locator("#player td.col-change").first.is_visible()
        assert page.locator("#player td.col-rtg").first.is_visible()

        # The wall chart (the Swiss's cross-table): one row per player, a column per round.
        page.goto(f"{server.url}table")
        assert fits(page) and page.locator("#table tbody tr").count() == 64
        browser.close()


def test_the_pages_of_a_score_based_division_have_no_prize_list(tmp_path: Path, serve: Any) -> None:
    path = tmp_path / "scrabble.toml"
    ok("new", path, "--name", "Club Scrabble", "--rounds", "3", "--entry", "scores")
    server = serve(path)
    status, _, body = fetch(f"{server.url}prizes")
    assert status == 404 and b"has no a prize list" not in body and b"no prize list" in body
    status, _, body = fetch(f"{server.url}standings")
    assert status == 200 and b'href="prizes' not in body and b'href="start' not in body
    status, _, _ = fetch(f"{server.url}standings?category=U18")
    assert status == 404
