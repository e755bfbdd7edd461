"""Taking back a requested bye or a forced game from the arbiter's page, as `tmanager event bye --cancel` and
`force --cancel` do: a real `tmanager serve EVENT`, Chromium by Playwright, and the CLI beside it."""

# The fixture `serve` comes from the dashboard's tests, imported so both start servers the same way.
# ruff: noqa: F401, F811

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.integration.test_web import chromium, serve
from tests.integration.test_web_event import (
    PASSWORD,
    Client,
    Twins,
    browser_only,
    double_swiss,
    error,
    fresh,
    logged_in,
    protected,
    twins,
)
from tmanager.events import api as ev


def prepared(path: Path) -> None:
    """A requested bye for round 4, a forced game and a forced bye for round 3 (the next round to pair)."""
    for verb in (("bye", "5", "--round", "4"), ("force", "1", "4"), ("force", "6", "bye")):
        done = run_cli("event", verb[0], path, *verb[1:])
        assert done.returncode == 0, done.stderr


def listed(page: Any, selector: str) -> list[str]:
    """The items' texts as read, each on one line (the button is a form of its own)."""
    return [" ".join(text.split()) for text in page.locator(selector).all_inner_texts()]


@browser_only
def test_the_arbiter_cancels_a_bye_and_takes_back_forced_games_in_the_browser(
    protected: Path, tmp_path: Path, serve: Any
) -> None:
    """The command line had `bye --cancel` and `force --cancel`; the page listed the byes and forced games with no
    way to take one back but undo (which also undoes whatever came after)."""
    path = fresh(protected, tmp_path)
    prepared(path)
    server = serve(path)
    with chromium() as browser:
        arbiter = logged_in(browser.new_page(viewport={"width": 1000, "height": 1000}), server.url)
        # The forced bye is listed with the forced games only, not as a requested bye too.
        assert listed(arbiter, "#cancel-bye li") == ["round 4: Smit, Daan (5), half Cancel bye"]
        assert listed(arbiter, "#unforce li") == [
            "de Vries, Jan (1) – Visser, Lotte (4) Take back", "bye: Meijer, Thomas (6) Take back"
        ]

        arbiter.click("#cancel-bye button")
        arbiter.wait_for_selector(".flash p.done")
        assert arbiter.inner_text(".flash") == "Smit, Daan (5): half-point bye in round 4 cancelled"
        assert all(r.number != 4 for r in ev.load(path).division().rounds)
        assert arbiter.locator("#cancel-bye").count() == 0

        arbiter.click("#unforce li:nth-child(1) button")
        arbiter.wait_for_selector(".flash p.done")
        said = "round 3: the forced game de Vries, Jan (1) – Visser, Lotte (4) is taken out"
        assert arbiter.inner_text(".flash") == said
        arbiter.click("#unforce li:nth-child(1) button")
        arbiter.wait_for_selector(".flash p.done")
        assert arbiter.inner_text(".flash") == "round 3: the forced bye of Meijer, Thomas (6) is taken out"
        assert all(r.number != 3 for r in ev.load(path).division().rounds), "nothing is left set for round 3"
        assert arbiter.locator("#unforce").count() == 0


def test_cancelling_from_the_page_is_the_clis_change_and_refusal(protected: Path, tmp_path: Path, serve: Any) -> None:
    web, cli = twins(protected, tmp_path)
    for path in (web, cli):
        prepared(path)
    client = Client(serve(web))
    client.login()
    both = Twins(client, web, cli)
    bye, cancel = {"round": "4", "player": "5", "kind": "half"}, ("bye", "5", "--round", "4", "--cancel")
    assert both.done("/cancel-bye", bye, *cancel) == ["Smit, Daan (5): half-point bye in round 4 cancelled"]
    # A page left open after someone else cancelled it: the CLI's refusal, beside the list it was sent from.
    refused = both.refused("/cancel-bye", bye, *cancel)
    assert refused == "player: Smit, Daan (5) has no requested bye in round 4"
    # The players in either order, as the CLI takes them.
    assert both.done("/unforce", {"round": "3", "white": "4", "black": "1"}, "force", "4", "1", "--cancel") == [
        "round 3: the forced game de Vries, Jan (1) – Visser, Lotte (4) is taken out"
    ]
    assert both.refused("/unforce", {"round": "3", "white": "6", "black": "2"}, "force", "6", "2", "--cancel") == (
        "Meijer, Thomas (6) and Jansen, Pieter (2) have no forced game in round 3"
    )
    # A page from before the round was paired or unpaired: refused rather than applied to another round.
    assert both.refused("/unforce", {"round": "2", "white": "6", "black": "bye"}) == (
        "round 2 is now the last paired round (reload the page and check it before taking back a forced game)"
    )
    assert both.refused("/unforce", {"round": "3", "white": "6", "black": ""}) == (
        "the form does not say which forced game to take back (reload the page)"
    )
    assert both.refused("/cancel-bye", {"round": "4", "player": " ", "kind": "half"}) == (
        "the form does not say whose bye to cancel (reload the page)"
    )
    # A game for the player with the forced bye: refused as having it, with the way to take it back. It was called a
    # "pairing-point bye" that "bye --cancel takes it back", which refuses it: it is no requested bye.
    for white, black in (("6", "2"), ("2", "6")):
        assert both.refused("/force", {"round": "3", "white": white, "black": black}, "force", white, black) == (
            "Meijer, Thomas (6) already has the forced bye in round 3 (take it back first: force 6 bye --cancel)"
        )
    assert both.done("/unforce", {"round": "3", "white": "6", "black": "bye"}, "force", "6", "bye", "--cancel") == [
        "round 3: the forced bye of Meijer, Thomas (6) is taken out"
    ]


def test_a_stale_page_does_not_cancel_a_bye_asked_for_again_since(protected: Path, tmp_path: Path, serve: Any) -> None:
    """A page showing a half-point bye, cancelled and asked for again as a full-point one meanwhile (from the
    command line, or another arbiter's page): its Cancel took back the full-point bye its arbiter never saw."""
    path = fresh(protected, tmp_path)
    prepared(path)
    client = Client(serve(path))
    client.login()
    _, _, page = client.request("GET", "/arbiter")
    form = re.search(r'<form method="post" action="cancel-bye"[^>]*>(.*?)</form>', page)
    assert form
    shown = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form[1]))
    assert (shown["round"], shown["player"], shown["kind"]) == ("4", "5", "half")
    for verb in (("bye", "5", "--round", "4", "--cancel"), ("bye", "5", "--round", "4", "--kind", "full")):
        assert run_cli("event", verb[0], path, *verb[1:]).returncode == 0
    before = path.read_bytes()
    status, _, page = client.post("/cancel-bye", shown)
    assert status == 400 and path.read_bytes() == before
    assert error(page) == ("Smit, Daan (5)'s bye in round 4 is now full-point, not half-point as the page showed "
                           "(reload the page and check it)")  # fmt: skip
    assert client.post("/cancel-bye", {**shown, "kind": "full"})[0] == 303
    assert all(r.number != 4 for r in ev.load(path).division().rounds)
    status, _, page = client.post("/cancel-bye", {**shown, "kind": ""})
    assert status == 400 and error(page) == "the form does not say which bye the page showed (reload the page)"


def test_a_refused_cancel_is_shown_beside_the_list_it_came_from(protected: Path, tmp_path: Path, serve: Any) -> None:
    path = fresh(protected, tmp_path)
    prepared(path)
    client = Client(serve(path))
    client.login()
    _, _, page = client.request("GET", "/arbiter")
    csrf = re.findall(r'name="csrf" value="([^"]*)"', page)[0]
    status, _, page = client.post("/cancel-bye", {"csrf": csrf, "round": "3", "player": "5", "kind": "half"})
    assert status == 400
    bye = re.search(r'<section id="bye".*?</section>', page, re.S)
    assert bye and "Smit, Daan (5) has no requested bye in round 3" in bye[0]
    status, _, page = client.post("/unforce", {"csrf": csrf, "round": "3", "white": "2", "black": "bye"})
    assert status == 400
    force = re.search(r'<section id="force".*?</section>', page, re.S)
    assert force and "Jansen, Pieter (2) has no forced bye in round 3" in force[0]


@browser_only
def test_a_double_swiss_bye_is_listed_once_for_its_match(protected: Path, tmp_path: Path, serve: Any) -> None:
    """A Double-Swiss keeps a requested bye in both rounds of its match, and the page listed it twice (round 3, then
    round 4), each with a *Cancel bye* that cancelled both."""
    path = double_swiss(tmp_path, ("bye", "5"))
    assert ev.load(path).division().round(4).byes == {5: "half"}
    server = serve(path)
    with chromium() as browser:
        arbiter = logged_in(browser.new_page(viewport={"width": 1000, "height": 1000}), server.url)
        assert listed(arbiter, "#cancel-bye li") == ["rounds 3-4: P5, X (5), half Cancel bye"]
        arbiter.click("#cancel-bye button")
        arbiter.wait_for_selector(".flash p.done")
        assert all(r.number < 3 for r in ev.load(path).division().rounds), "both games' byes are cancelled"
        assert arbiter.locator("#cancel-bye").count() == 0
