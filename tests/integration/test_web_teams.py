"""A team division's teams, board orders and lineups on the arbiter's page: a real `tmanager serve EVENT`, the same
changes as the CLI's (byte for byte), and a real Chromium by Playwright."""

# The fixture `serve` comes from the dashboard's tests.
# ruff: noqa: F401, F811

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.integration.test_event_teams import team_event
from tests.integration.test_web import CHROMIUM, CHROMIUM_ARGS, assert_not_blank, chromium, serve
from tests.integration.test_web_event import PASSWORD, Client, Twins, browser_only, logged_in, set_password, twins
from tmanager.events import api as ev
from tmanager.events.teams import match_of_board


def league(tmp_path: Path) -> Path:
    """Four teams of two boards, round 1 paired, a spare player without a team, and the arbiter's password."""
    directory = tmp_path / "source"
    directory.mkdir()
    path = team_event(directory, "team-swiss")
    for verb in (("add-player", path, "Spare, S", "--rating", "1900"), ("pair", path)):
        assert run_cli("event", *verb).returncode == 0
    assert set_password(path, PASSWORD).returncode == 0
    return path


def test_teams_rosters_and_lineups_as_the_cli_does(tmp_path: Path, serve: Any) -> None:
    web, cli = twins(league(tmp_path), tmp_path)
    client = Client(serve(web))
    client.login()
    both = Twins(client, web, cli)
    page = both.page()
    assert 'action="add-team"' in page and 'id="roster-1"' in page and 'id="lineup-4"' in page
    # A new team with its roster, a new board order, a round's lineup: one journaled change each.
    assert both.done("/add-team", {"name": "Pawns", "short": "PAW", "players": "12"},
                     "add-team", "Pawns", "12", "--short", "PAW")[0] == "added team Pawns (5)"  # fmt: skip
    both.done("/roster", {"team": "4", "players": "11 10"}, "roster", "4", "11", "10")
    assert ev.load(web).division().team(4).players == [11, 10]
    record = ev.load(web).division().round(1)
    assert both.done("/lineup", {"team": "1", "round": "1", "board1": "1", "board2": "3"},
                     "lineup", "1", "1", "3", "--round", "1") == ["round 1: Rooks (1) lineup: 1. P1, X, 2. P3, X"]
    assert ev.load(web).division().round(1).lineups[1] == [1, 3]
    both.done("/lineup", {"team": "2", "round": "1", "board1": "4", "board2": "-"}, "lineup", "2", "4", "-",
              "--round", "1")  # fmt: skip
    assert ev.load(web).division().round(1).lineups[2] == [4, 0]
    # The CLI's one-line refusals, beside the form, nothing written.
    assert "99" in both.refused("/roster", {"team": "1", "players": "1 2 99"}, "roster", "1", "1", "2", "99")
    assert "board order" in both.refused("/lineup", {"team": "3", "round": "1", "board1": "8", "board2": "7"},
                                         "lineup", "3", "8", "7", "--round", "1")  # fmt: skip
    assert "on Rooks (1)'s roster" in both.refused("/add-team", {"name": "Copies", "players": "1"},
                                                   "add-team", "Copies", "1")  # fmt: skip
    status, shown = both.post("/add-team", {"name": "", "players": "12"})
    assert status == 400 and "give the team a name" in shown
    # Undo takes back the last lineup, as on the command line.
    both.done("/undo", {"confirm": "yes"}, "undo")
    after = ev.load(web).division().round(1)
    # Round 1 was paired with the rosters' first boards: Knights (2) have theirs again.
    assert after.lineups[2] == [4, 5] and after.lineups[1] == [1, 3] and after.matches == record.matches


@browser_only
def test_arbiter_enters_teams_and_lineups_in_a_browser(tmp_path: Path, serve: Any) -> None:
    path = league(tmp_path)
    url = serve(path).url
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 1000})
        logged_in(page, url, address="login", ready="#teams")
        page.fill("#add-team input[name=name]", "Pawns")
        page.fill("#add-team input[name=players]", "12")
        page.click("#add-team button")
        page.wait_for_selector(".flash p.done")
        assert "added team Pawns (5)" in page.inner_text(".flash")
        assert ev.load(path).division().team(5).players == [12]
        # The board order, then round 1's lineup chosen board by board from the roster.
        page.fill("#roster-1 input[name=players]", "2 1 3")
        page.click("#roster-1 button")
        page.wait_for_selector(".flash p.done")
        assert ev.load(path).division().team(1).players == [2, 1, 3]
        assert page.input_value("#lineup-1 input[name=round]") == "1"
        page.select_option("#lineup-1 select[name=board1]", "1")
        page.select_option("#lineup-1 select[name=board2]", "3")
        page.click("#lineup-1 button")
        page.wait_for_selector(".flash p.done")
        assert ev.load(path).division().round(1).lineups[1] == [1, 3]
        # A refusal shows the CLI's line beside the form and changes nothing.
        before = path.read_bytes()
        page.select_option("#lineup-1 select[name=board1]", "3")
        page.select_option("#lineup-1 select[name=board2]", "2")
        page.click("#lineup-1 button")
        page.wait_for_selector("#lineup-1 .error")
        assert "board order" in page.inner_text("#lineup-1 .error")
        assert path.read_bytes() == before
        assert page.input_value("#lineup-1 select[name=board1]") == "3", "the choices typed stay on the form"
        shot = page.screenshot(full_page=True)
        (tmp_path / "teams.png").write_bytes(shot)
        assert_not_blank(shot)


@browser_only
def test_a_forced_match_is_chosen_by_its_teams_and_taken_back(tmp_path: Path, serve: Any) -> None:
    """The force form of a team division listed the players, whose numbers `force` reads as teams': choosing
    P3 and P2 forced team 3's match with team 2, two teams the arbiter never chose (and P10 was 'no team 10')."""
    web, cli = twins(league(tmp_path), tmp_path)
    for path in (web, cli):
        assert run_cli("event", "result", path, "1.1", "1-0").returncode == 0  # round 2 waits for round 1
    server = serve(web)
    with chromium() as browser:
        arbiter = logged_in(browser.new_page(viewport={"width": 1000, "height": 1000}), server.url,
                            ready="#force select[name=white]")
        options = arbiter.locator("#force select[name=white] option").all_inner_texts()
        assert options == ["choose…", "Bishops (3)", "Knights (2)", "Queens (4)", "Rooks (1)"]
        arbiter.select_option("#force select[name=white]", label="Queens (4)")
        arbiter.select_option("#force select[name=black]", label="Rooks (1)")
        arbiter.click("#force form.force button")
        arbiter.wait_for_selector(".flash p.done")
        done = run_cli("event", "force", cli, "4", "1")
        assert done.returncode == 0 and arbiter.inner_text(".flash") == done.stdout.strip()
        assert ev.load(web).division().round(2).forced_matches == [(4, 1)]
        assert arbiter.locator("#unforce li").first.inner_text().startswith("Queens (4) – Rooks (1)")
        arbiter.click("#unforce button")
        arbiter.wait_for_selector(".flash p.done")
        assert arbiter.inner_text(".flash") == "round 2: the forced match Queens (4) – Rooks (1) is taken out"
        assert all(r.number != 2 for r in ev.load(web).division().rounds)


def test_a_team_division_offers_no_bye_of_a_player(tmp_path: Path, serve: Any) -> None:
    """Its page had the requested bye's form, listing the players, which `bye` could only refuse ("a team division
    has no byes of players"): now it says what to do instead."""
    client = Client(serve(league(tmp_path)))
    client.login()
    _, _, page = client.request("GET", "/arbiter")
    assert 'action="bye"' not in page and 'action="force"' in page
    assert "A team division has no byes of players: leave the player out of the team&#x27;s lineup." in page


def test_a_team_divisions_pages_have_no_json_and_say_why(tmp_path: Path, serve: Any) -> None:
    """`/pairings.json` of a team division was refused as 'division 'main' is score-based', which it is not."""
    client = Client(serve(league(tmp_path)))
    for address in ("/pairings.json", "/standings.json"):
        status, _, text = client.request("GET", address)
        assert (status, text) == (404, "division 'main' ranks teams: its pages have no JSON (they are for chess "
                                       "divisions of players)")  # fmt: skip


@browser_only
def test_a_match_board_is_named_on_the_arbiters_page_as_everywhere_else(tmp_path: Path, serve: Any) -> None:
    """The arbiter's page numbered a round's boards 1 to 4 through its matches, where the pairings, the players' list
    and `event result` name them MATCH.BOARD: board 2.1 was the form numbered 3; and the results a pairing waited for
    were named so too (1.3, which `event result 1.3` reads as match 1's third board)."""
    web, cli = twins(league(tmp_path), tmp_path)
    record = ev.load(web).division().round(1)
    game = next(b for b in record.boards if match_of_board(record, b) == (2, 1))  # white drawn by lot
    with chromium() as browser:
        arbiter = logged_in(browser.new_page(viewport={"width": 1000, "height": 1000}), serve(web).url)
        names = [" ".join(text.split()) for text in arbiter.locator("#results form.entry .bd").all_inner_texts()]
        assert names == ["1.1", "1.2", "2.1", "2.2"]
        form = arbiter.locator("#results form.entry", has=arbiter.locator(".bd", has_text="2.1"))
        white, black = (f"P{n}, X ({n})" for n in (game.white, game.black))
        assert form.locator(".pair").inner_text() == f"{white} – {black}"
        form.locator("select").select_option("0-1")
        form.locator("button").click()
        arbiter.wait_for_selector(".flash p.done")
        # So does the pairing waiting for the others (it said 1.1, 1.2, 1.4: round 1's boards 1, 2 and 4).
        arbiter.click("#pair button")
        said = "3 result(s) missing (round.match.board: 1.1.1, 1.1.2, 1.2.2); enter them before pairing round 2"
        assert arbiter.inner_text("#pair .error") == said
    assert run_cli("event", "result", cli, "2.1", "0-1").returncode == 0
    assert ev.load(web).division().round(1) == ev.load(cli).division().round(1)
    refused = run_cli("event", "pair", cli)
    assert refused.returncode == 2 and refused.stderr == f"tmanager: {cli}: {said}\n"
