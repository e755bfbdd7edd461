"""Event pages and the arbiter's result entry: a real `tmanager serve EVENT` on loopback, Chromium by Playwright."""

# The fixture `serve` comes from the dashboard's tests, imported so both start servers the same way.
# ruff: noqa: F401, F811

from __future__ import annotations

import html
import http.client
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.conftest import ROOT, run_cli
from tests.integration.test_web import (
    CHROMIUM,
    CHROMIUM_ARGS,
    assert_not_blank,
    chromium,
    events,
    fetch,
    serve,
    snapshot,
)
from tmanager.events import api as ev
from tmanager.web.auth import (
    SCRYPT_N,
    LoginThrottle,
    PasswordHash,
    Sessions,
    password_path,
    same_origin,
)

PASSWORD = "correct horse battery"
EXAMPLE = ROOT / "tourneys" / "events" / "small-open.toml"
#: A form's fields by name, or as pairs in the order sent.
Fields = Mapping[str, str] | Sequence[tuple[str, str]]
browser_only = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")


def set_password(path: Path, password: str) -> subprocess.CompletedProcess[str]:
    """`tmanager event set-password`, the password on standard input as a script would give it."""
    return subprocess.run(
        [sys.executable, "-m", "tmanager", "event", "set-password", str(path)],
        input=password + "\n", capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def protected(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example Swiss (round 2 half entered) with an arbiter password; copy it before changing it."""
    directory = tmp_path_factory.mktemp("event")
    path = directory / "open.toml"
    shutil.copy(EXAMPLE, path)
    done = set_password(path, PASSWORD)
    assert done.returncode == 0, done.stderr
    return path


def fresh(protected: Path, tmp_path: Path) -> Path:
    shutil.copytree(protected.parent, tmp_path / "e")
    return tmp_path / "e" / protected.name


class Client:
    """A plain HTTP client with a cookie jar, to send exactly the requests a browser would not."""

    def __init__(self, server: Any, *, source: str | None = None) -> None:
        self.server = server
        self.source = source  # the local address to send from (any of 127.0.0.0/8 on Linux)
        self.origin = f"http://{server.host}:{server.port}"
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, fields: Fields | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:  # fmt: skip
        connection = http.client.HTTPConnection(self.server.host, int(self.server.port), timeout=30,
                                                source_address=(self.source, 0) if self.source else None)
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()), **(headers or {})}
        body = urlencode(fields or {}) if method == "POST" else None
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                cookie, _, attributes = value.partition(";")
                key, _, token = cookie.partition("=")
                if "max-age=0" in attributes.lower() or "expires=thu, 01 jan 1970" in attributes.lower():
                    self.cookies.pop(key, None)
                else:
                    self.cookies[key] = token.strip('"')
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, text

    def post(self, path: str, fields: Fields, *, origin: str | None = "") -> tuple[int, dict[str, str], str]:
        """A POST with this server's Origin (``""``), another one, or none (``None``); ``fields`` as pairs may give
        a field twice."""
        headers = {} if origin is None else {"Origin": origin or self.origin}
        return self.request("POST", path, fields, headers)

    def login(self, password: str = PASSWORD) -> tuple[int, dict[str, str], str]:
        _, _, page = self.request("GET", "/login")
        return self.post("/login", {"csrf": hidden(page, "csrf"), "password": password})


def hidden(page: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert match, f"no field {name!r} in the page"
    return match[1]


def board_form(page: str, board: int) -> dict[str, str]:
    """The hidden fields of board ``board``'s result form on the arbiter's page (csrf, round, players, result)."""
    form = re.search(rf'<form[^>]*id="result-{board}">(.*?)</form>', page, re.S)
    assert form, f"no result form for board {board}"
    return {k: html.unescape(v) for k, v in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', form[1])}


# --- the browser ------------------------------------------------------------------------------------


@browser_only
def test_arbiter_logs_in_enters_a_result_and_viewers_follow(protected: Path, tmp_path: Path, serve: Any) -> None:
    path = fresh(protected, tmp_path)
    server = serve(path)
    with chromium() as browser:
        viewer = browser.new_page(viewport={"width": 1100, "height": 900})
        viewer.goto(server.url + "pairings")
        viewer.wait_for_selector("#connection.connection:not(.lost)")
        board3 = "#pairings tbody tr:nth-child(3) td.col-result"
        assert viewer.inner_text(board3) == "*"
        viewer.evaluate("window.notReloaded = true")

        arbiter = browser.new_page(viewport={"width": 900, "height": 1000})
        arbiter.goto(server.url + "arbiter")
        assert arbiter.url.endswith("/login"), "the arbiter's page asks for the login first"
        arbiter.fill("#password", PASSWORD)
        arbiter.click("form.login button")
        arbiter.wait_for_selector("#results form.entry")
        cookie = next(c for c in arbiter.context.cookies() if c["name"] == "tmanager_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert cookie["value"] not in arbiter.url

        before = path.read_bytes()
        arbiter.select_option("#result-3 select", "1-0")
        arbiter.click("#result-3 button")
        arbiter.wait_for_selector(".flash p.done")
        assert "Jansen, Pieter (2) 1½ 1-0 Bakker, Sanne (3) 0" in arbiter.inner_text(".flash")
        assert path.read_bytes() != before
        assert ev.load(path).division().round(2).boards[2].result == "1-0"
        assert (path.parent / "old" / "open.0001.toml").read_bytes() == before, "journaled as the CLI does"
        wait_text(viewer, board3, "1-0")  # the open page followed without a reload

        # A change from the CLI reaches both pages too.
        done = run_cli("event", "result", path, "4", "0-1")
        assert done.returncode == 0, done.stderr
        wait_text(viewer, "#pairings tbody tr:nth-child(4) td.col-result", "0-1")
        assert viewer.evaluate("window.notReloaded") is True

        # Bad input: an inline error beside its form, and the file untouched.
        unchanged = path.read_bytes()
        arbiter.goto(server.url + "arbiter?round=1")
        arbiter.select_option("#result-1 select", "0-1")
        arbiter.click("#result-1 button")  # a correction of round 1: allowed, warns about round 2
        arbiter.wait_for_selector(".flash p.warning")
        assert ev.load(path).division().round(1).boards[0].result == "0-1"
        unchanged = path.read_bytes()
        arbiter.goto(server.url + "arbiter")
        arbiter.select_option("#bye select[name=player]", "5")
        arbiter.fill("#bye input[name=round]", "2")
        arbiter.click("#bye button")
        assert "already paired" in arbiter.inner_text("#bye .error")
        assert path.read_bytes() == unchanged

        # Pair the next round, then a requested bye for the one after.
        arbiter.click("#pair button")
        arbiter.wait_for_selector(".flash p.done")
        assert "round 3 paired" in arbiter.inner_text(".flash")
        assert ev.load(path).division().paired_rounds == 3
        arbiter.select_option("#bye select[name=player]", "5")
        arbiter.click("#bye button")
        arbiter.wait_for_selector(".flash p.done")
        assert ev.load(path).division().round(4).byes == {5: "half"}
        wait_text(viewer, "#pairings h2", "Round 3 · by board")

        for name, shot in (("arbiter", arbiter.screenshot(full_page=True)),
                           ("viewer", viewer.screenshot(full_page=True))):  # fmt: skip
            (tmp_path / f"{name}.png").write_bytes(shot)
            assert_not_blank(shot)
        arbiter.click("#logout button")
        arbiter.goto(server.url + "arbiter")
        assert arbiter.url.endswith("/login")


def logged_in(page: Any, url: str, *, address: str = "arbiter", ready: str = "#results form.entry") -> Any:
    """``page`` past the login form that ``url + address`` asks for first, once ``ready`` shows on the page it
    leads to."""
    page.goto(url + address)
    page.fill("#password", PASSWORD)
    page.click("form.login button")
    page.wait_for_selector(ready)
    return page


def double_swiss(directory: Path, *commands: tuple[str, ...]) -> Path:
    """A Double-Swiss of three matches, six players (P1, X to P6, X, rated 1999 down), match 1 paired, then
    ``commands`` (`tmanager event` verbs with their arguments after the file), with the arbiter's password."""
    path = directory / "double.toml"
    verbs: list[tuple[str | Path, ...]] = [("new", path, "--name", "Double", "--rounds", "3", "--system",
                                            "double-swiss")]  # fmt: skip
    verbs += [("add-player", path, f"P{i}, X", "--rating", str(2000 - i)) for i in range(1, 7)]
    verbs += [("pair", path, "--colour", "white")]
    verbs += [(verb, path, *rest) for verb, *rest in commands]
    for verb in verbs:
        done = run_cli("event", *verb)
        assert done.returncode == 0, (verb, done.stderr)
    assert set_password(path, PASSWORD).returncode == 0
    return path


def wait_text(page: Any, selector: str, text: str, timeout: float = 10.0) -> None:
    """Polled from here: the pages' CSP forbids the eval that Playwright's wait_for_function needs."""
    deadline = time.monotonic() + timeout
    while (shown := page.locator(selector).first.text_content()) != text:
        assert time.monotonic() < deadline, f"{selector} shows {shown!r}, not {text!r}"
        time.sleep(0.05)


@browser_only
def test_pages_read_well_on_a_phone(protected: Path, serve: Any) -> None:
    server = serve(protected)
    with chromium() as browser:
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                 has_touch=True)  # fmt: skip
        phone.goto(server.url)
        phone.click("text=Bakker, Sanne")
        assert "Round 2: board 3 with black against Jansen, Pieter (2)" in phone.inner_text(".now")
        assert phone.locator("#player tbody tr").count() == 2
        for address in ("", "pairings", "standings", "table", "player?n=3"):
            phone.goto(server.url + address)
            # The page itself fits the width; only wide tables scroll, inside their own box.
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390, address
        phone.goto(server.url + "pairings")
        assert not phone.locator("#pairings th.col-rtg").first.is_visible(), "ratings left out on a phone"
        shot = phone.screenshot(full_page=True)
        assert_not_blank(shot)
        phone.goto(server.url + "standings")
        header = phone.locator("#standings thead").first.inner_text()
        assert all(tb in header for tb in ("BH-C1", "BH", "SB", "WIN"))
        assert "Buchholz Cut-1" in phone.locator("#standings").inner_text(), "the tie-breaks' legend"


def long_names(path: Path) -> Path:
    """The event with players 11 and 12, of long names: one of many words, one of one long word."""
    for name in ("Wolfeschlegelsteinhausenbergerdorff-Vogelsangwarnerbergheim, Hubert Blaine Maximilian",
                 "Ŧŧ" * 45 + ", A"):  # fmt: skip
        done = run_cli("event", "add-player", path, name)  # byes of rounds 1 and 2: in the round's list too
        assert done.returncode == 0, done.stderr
    return path


@browser_only
def test_the_public_pages_fit_a_phone_whatever_the_names(protected: Path, tmp_path: Path, serve: Any) -> None:
    """A name of one long word made the list of players 653 px wide and its player's page 899 px in a phone's
    390: the tables scroll in their boxes, but the list and the headings did not wrap it."""
    path = long_names(fresh(protected, tmp_path))
    server = serve(path)
    with chromium() as browser:
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                 has_touch=True)  # fmt: skip
        for address in ("", "start", "pairings", "standings", "table", "prizes", "player?n=11", "player?n=12"):
            phone.goto(server.url + address)
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390, address
        assert "ŦŧŦŧ" in phone.inner_text("#player h2")


@browser_only
def test_the_arbiters_page_fits_a_phone_whatever_the_names(protected: Path, tmp_path: Path, serve: Any) -> None:
    """A long name made the arbiter's page on a phone twice as wide as its screen (739 px in 390): the menus of
    players take the width of their longest choice, and a name of one long word did not wrap."""
    path = long_names(fresh(protected, tmp_path))
    assert run_cli("event", "force", path, "11", "12").returncode == 0
    server = serve(path)
    with chromium() as browser:
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                 has_touch=True)  # fmt: skip
        logged_in(phone, server.url)
        assert "Wolfeschlegelsteinhausenbergerdorff" in phone.inner_text("#force")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        for menu in ("#bye select[name=player]", "#force select[name=white]"):
            box = phone.locator(menu).bounding_box()
            assert box is not None and box["x"] + box["width"] <= 390, menu


def test_the_page_after_an_action_shows_it_even_while_the_watcher_reads_the_change(
    protected: Path, tmp_path: Path
) -> None:
    """The cause of the browser test's failures by chance (a requested bye never confirmed): the hub's own
    look after an action found the file's new stamp already taken by the watcher, which was still reading
    the file, and returned; the page after the action (the round just paired) was then the page before it,
    and the live update that followed reloaded it under the arbiter's next form, which was lost. A watcher
    that looks all the time meets every action's change half the time."""
    import asyncio

    from tmanager.core.results import Result
    from tmanager.events import service
    from tmanager.events.entries import BoardRef, ResultEntry
    from tmanager.web.eventapp import EventHub

    path = fresh(protected, tmp_path)

    async def main() -> list[str]:
        hub = EventHub(path, poll=0.0)
        await hub.start()
        seen = []
        try:
            for attempt in range(40):
                result = (Result.WHITE_WINS, Result.BLACK_WINS)[attempt % 2]
                entry = ResultEntry(BoardRef(3), result)
                await asyncio.to_thread(service.save_result, path, None, entry, 2, correction=attempt > 0)
                await hub.look()  # what an action awaits before its redirect
                assert hub.snapshot is not None
                seen.append(str(hub.snapshot.division(None).round(2).boards[2].result))
        finally:
            await hub.stop()
        return seen

    assert asyncio.run(main()) == [("1-0", "0-1")[attempt % 2] for attempt in range(40)]


# --- refusals: nothing changes ---------------------------------------------------------------------


def test_a_stale_result_form_is_refused(protected: Path, tmp_path: Path, serve: Any) -> None:
    """A page left open while the round was paired again, or while someone else corrected a board, sent its
    result to whatever game stood on that board number now, or over the other arbiter's correction."""
    path = fresh(protected, tmp_path)
    client = Client(serve(path))
    client.login()
    for board, result in ((3, "1-0"), (4, "=")):  # round 2 complete
        _, _, page = client.request("GET", "/arbiter?round=2")
        assert client.post("/result", {**board_form(page, board), "result": result})[0] == 303
    assert run_cli("event", "pair", path).returncode == 0
    deadline = time.monotonic() + 20  # the server reads the changed file on its next poll
    while 'id="result-1"' not in (page := client.request("GET", "/arbiter?round=3")[2]) and time.monotonic() < deadline:
        time.sleep(0.1)
    shown = board_form(page, 1)
    assert run_cli("event", "unpair", path).returncode == 0
    assert run_cli("event", "forbid", path, shown["white"], shown["black"]).returncode == 0
    assert run_cli("event", "pair", path).returncode == 0
    before = path.read_bytes()
    status, _, text = client.post("/result", {**shown, "result": "1-0"})
    assert status == 400 and "round 3 board 1 is now " in text and "not the game the page showed" in text
    assert path.read_bytes() == before
    # A correction over another arbiter's: the page showed 1-0 on round 2 board 3, someone made it 0-1 since.
    _, _, page = client.request("GET", "/arbiter?round=2")
    shown = board_form(page, 3)
    assert run_cli("event", "correct", path, "--round", "2", "3", "0-1").returncode == 0
    before = path.read_bytes()
    status, _, text = client.post("/result", {**shown, "result": "="})
    assert status == 400 and "round 2 board 3 now has 0-1, not 1-0 as the page showed" in text
    assert path.read_bytes() == before


@browser_only
def test_a_refused_bye_comes_back_as_chosen(protected: Path, tmp_path: Path, serve: Any) -> None:
    """A bye refused (its round paired already) came back with its player and round, but at half-point: sent again
    with the round put right, it asked for a half-point bye where a full-point one was chosen."""
    path = fresh(protected, tmp_path)
    server = serve(path)
    with chromium() as browser:
        arbiter = logged_in(browser.new_page(viewport={"width": 1000, "height": 1000}), server.url)
        arbiter.select_option("#bye select[name=player]", "5")
        arbiter.fill("#bye input[name=round]", "2")
        arbiter.select_option("#bye select[name=kind]", "full")
        arbiter.click("#bye button")
        assert "already paired" in arbiter.inner_text("#bye .error")
        shown = [arbiter.input_value(f"#bye [name={name}]") for name in ("player", "round", "kind")]
        assert shown == ["5", "2", "full"]
        arbiter.fill("#bye input[name=round]", "4")
        arbiter.click("#bye button")
        arbiter.wait_for_selector(".flash p.done")
        assert ev.load(path).division().round(4).byes == {5: "full"}


@browser_only
def test_a_double_swiss_shows_the_game_being_played(tmp_path: Path, serve: Any) -> None:
    """While game 1 of a match was played, the arbiter's page offered game 2's boards for its results, and the
    pairings, the players' list and a player's page showed game 2, whose colours are reversed: a player read the
    wrong colour, and a result read off game 1's scoresheet went onto game 2."""
    path = double_swiss(tmp_path)
    server = serve(path)
    with chromium() as browser:
        viewer = browser.new_page(viewport={"width": 1000, "height": 1000})
        viewer.goto(server.url + "pairings")
        assert viewer.text_content("#pairings h2") == "Round 1 · by board"
        first = viewer.inner_text("#pairings tbody tr:nth-child(1)")
        assert first.index("P1, X") < first.index("P4, X"), "P1 has white in game 1"
        viewer.goto(server.url + "player?n=1")
        assert "Round 1: board 1 with white against P4, X" in " ".join(viewer.inner_text("#player").split())
        viewer.goto(server.url)
        assert "round 1: board 1, white" in viewer.inner_text("#players-0")

        arbiter = logged_in(browser.new_page(viewport={"width": 1000, "height": 1000}), server.url)
        assert arbiter.text_content("#results h2") == "Round 1 results"
        assert arbiter.inner_text("#result-1 .pair") == "P1, X (1) – P4, X (4)"
        # Each button names the rounds it pairs, forces or unpairs: a match's two (it said round 3, and round 2).
        buttons = [arbiter.inner_text(f"#{form} button") for form in ("pair", "force", "unpair")]
        assert buttons == ["Pair rounds 3-4", "Force for rounds 3-4", "Unpair rounds 1-2"]
        assert "take back the pairings of rounds 1-2" in arbiter.inner_text("#unpair label")
        for board in (1, 2, 3):
            arbiter.select_option(f"#result-{board} select", "1-0")
            arbiter.click(f"#result-{board} button")
            arbiter.wait_for_selector(".flash p.done")
        assert [b.result for b in ev.load(path).division().round(1).boards] == ["1-0"] * 3
        # Game 1 complete: the page, back to the view it was (the round the results go to), offers game 2's boards.
        assert arbiter.text_content("#results h2") == "Round 2 results"
        assert arbiter.inner_text("#result-1 .pair") == "P4, X (4) – P1, X (1)"
        viewer.goto(server.url + "pairings")
        assert viewer.text_content("#pairings h2") == "Round 2 · by board"


def test_a_double_swiss_game_1_corrected_warns_only_of_the_matches_paired_after_it(tmp_path: Path, serve: Any) -> None:
    """Correcting game 1 of a match warned that game 2, paired with it before any result, 'was paired with the old
    result', and after the next match named both rounds of the match itself among the rounds paired with it."""
    path = double_swiss(tmp_path, ("result", "1", "1-0"))
    client = Client(serve(path))
    client.login()

    def corrected(round_number: int, board: int, result: str) -> list[str]:
        _, _, page = client.request("GET", f"/arbiter?round={round_number}")
        status, headers, _ = client.post("/result", {**board_form(page, board), "result": result})
        assert status == 303
        return flash(client.request("GET", "/" + headers["location"])[2])

    assert corrected(1, 1, "=") == ["round 1: P1, X (1) ½ ½-½ P4, X (4) ½"]
    for verb in (("result", "2", "1-0"), ("result", "3", "1-0"), *(("result", str(b), "0-1") for b in (1, 2, 3)),
                 ("pair",)):  # fmt: skip
        assert run_cli("event", verb[0], path, *verb[1:]).returncode == 0
    said = "warning: rounds 3-4 were paired with the old result {}; the pairings stand unless you unpair and pair again"
    assert corrected(1, 1, "1-0")[1:] == [said.format("½-½")]
    assert corrected(2, 1, "1-0")[1:] == [said.format("0-1")]


def test_saving_what_a_board_has_already_says_that_nothing_changed(protected: Path, tmp_path: Path, serve: Any) -> None:
    """*Save* with the menu left at "no result" on a board without one answered `round 2: Jansen, Pieter (2) ½ *
    Bakker, Sanne (3) 0`, as a result saved reads, and ran the after_results hook, while nothing was written."""
    path = fresh(protected, tmp_path)

    def hooked(e: ev.Event) -> list[str]:
        e.hooks = {"after_results": "echo ran >> hook.txt"}
        return []

    ev.apply(path, hooked)
    client = Client(serve(path))
    client.login()
    before = snapshot(path.parent)
    cases = (
        (3, "*", ("result", "3", "*"),
         "nothing changed: the board already has no result (round 2: Jansen, Pieter (2) ½ * Bakker, Sanne (3) 0)"),
        (2, "1-0", ("correct", "--round", "2", "2", "1-0"),  # a correction to the result it has
         "nothing changed: the board already has this result (round 2: Meijer, Thomas (6) 1½ 1-0 de Vries, Jan (1) 1)"),
    )  # fmt: skip
    for board, result, verb, said in cases:
        _, _, page = client.request("GET", "/arbiter")
        status, headers, _ = client.post("/result", {**board_form(page, board), "result": result})
        assert status == 303
        _, _, page = client.request("GET", "/" + headers["location"])
        assert flash(page) == [said]
        assert snapshot(path.parent) == before, "nothing is written, and no hook runs"
        cli = run_cli("event", verb[0], path, *verb[1:])
        assert cli.returncode == 0 and cli.stdout.splitlines() == [said], cli.stderr
        assert snapshot(path.parent) == before


def test_unauthenticated_and_cross_site_posts_change_nothing(protected: Path, tmp_path: Path, serve: Any) -> None:
    path = fresh(protected, tmp_path)
    server = serve(path)
    before = snapshot(path.parent)
    entry = {"round": "2", "board": "3", "white": "2", "black": "3", "result": "1-0", "was": "*"}
    stranger = Client(server)
    for action, fields in (("/result", entry), ("/pair", {"round": "3"}), ("/bye", {"player": "5", "round": "3"}),
                           ("/force", {"round": "3", "white": "3", "black": "7"}),
                           ("/unpair", {"round": "2", "confirm": "yes"})):  # fmt: skip
        status, _, text = stranger.post(action, fields)
        assert status == 403 and "Log in as the arbiter first" in text, (action, status)
    assert stranger.post("/logout", {})[0] == 303, "logged out already: nothing to end"
    arbiter = Client(server)
    status, headers, _ = arbiter.login()
    assert status == 303 and headers["location"] == "arbiter"
    token = arbiter.cookies["tmanager_session"]
    _, _, page = arbiter.request("GET", "/arbiter")
    csrf = hidden(page, "csrf")
    refused = [
        arbiter.post("/result", {**entry, "csrf": csrf}, origin="http://evil.example"),
        arbiter.post("/result", {**entry, "csrf": csrf}, origin=f"http://localhost:{server.port}.evil.example"),
        arbiter.post("/result", {**entry, "csrf": csrf}, origin=None),  # neither Origin nor Referer
        arbiter.request("POST", "/result", {**entry, "csrf": csrf}, {"Referer": "http://evil.example/form"}),
        arbiter.post("/result", entry),  # no CSRF token
        arbiter.post("/result", {**entry, "csrf": csrf[:-2] + "xx"}),
        arbiter.post("/result", {**entry, "csrf": token}),  # the session token is not the CSRF token
    ]
    assert [status for status, _, _ in refused] == [403] * len(refused)
    for method in ("PUT", "DELETE", "PATCH"):
        assert arbiter.request(method, "/result", {**entry, "csrf": csrf})[0] == 405
    assert arbiter.post("/", {**entry, "csrf": csrf})[0] == 405
    assert arbiter.post("/standings", {**entry, "csrf": csrf})[0] == 405
    assert snapshot(path.parent) == before, "a refused request changed a file"

    # Bad input from the arbiter: an inline error, nothing written.
    for fields, message in (
        ({**entry, "board": "9"}, "round 2 has boards 1-4; there is no board 9"),
        ({**entry, "result": "2-0"}, "'2-0' is not a result"),
        ({**entry, "round": "x"}, "the round must be a number"),
        ({**entry, "board": "1", "white": "9", "black": "8"}, "round 2 board 1 now has ½-½, not * as the page showed"),
        ({**entry, "round": "3"}, "round 3 is not paired"),
    ):
        status, _, text = arbiter.post("/result", {**fields, "csrf": csrf})
        assert status == 400 and message in text.replace("&#x27;", "'"), (fields, status)
        assert 'role="alert"' in text
    status, _, text = arbiter.post("/pair", {"csrf": csrf, "round": "3"})
    assert status == 400 and "2 result(s) missing (round.board: 2.3, 2.4)" in text
    status, _, text = arbiter.post("/bye", {"csrf": csrf, "player": "", "round": "3", "kind": "half"})
    assert status == 400 and "choose the player who asked for the bye" in text
    status, _, text = arbiter.post("/bye", {"csrf": csrf, "player": "5", "round": "3", "kind": "double"})
    assert status == 400 and "a requested bye is &#x27;half&#x27;, &#x27;zero&#x27; or &#x27;full&#x27;" in text
    # The attempts took the event's lock, as the CLI does, which leaves its empty lock file; nothing else changed.
    assert (path.parent / "open.toml.lock").read_bytes() == b""
    assert {k: v for k, v in snapshot(path.parent).items() if k != "open.toml.lock"} == before

    # The same session with everything right: accepted, and the file shows it.
    status, headers, _ = arbiter.post("/result", {**entry, "csrf": csrf})
    assert status == 303 and headers["location"] == "arbiter?round=2"
    assert ev.load(path).division().round(2).boards[2].result == "1-0"
    # Logged out, the same cookie and token are worth nothing.
    assert arbiter.post("/logout", {"csrf": csrf})[0] == 303
    arbiter.cookies["tmanager_session"] = token
    changed = path.read_bytes()
    assert arbiter.post("/result", {**entry, "board": "4", "csrf": csrf})[0] == 403
    assert path.read_bytes() == changed


def test_wrong_passwords_are_throttled(protected: Path, serve: Any) -> None:
    server = serve(protected)
    guesser = Client(server)
    status, _, text = guesser.login("wrong password")
    assert status == 403 and "Wrong password." in text
    status, headers, text = guesser.login(PASSWORD)  # at once: even the right one waits
    assert status == 429 and "Too many failed logins" in text and int(headers["retry-after"]) >= 1
    assert "tmanager_session" not in guesser.cookies
    time.sleep(1.1)
    assert guesser.login(PASSWORD)[0] == 303


def test_login_form_needs_its_token_and_this_origin(protected: Path, serve: Any) -> None:
    server = serve(protected)
    client = Client(server)
    _, _, page = client.request("GET", "/login")
    status, _, page = client.post("/login", {"password": PASSWORD})  # no token
    assert status == 403 and "The login form had expired" in page
    token = hidden(page, "csrf")  # the token of this browser's login forms (its login cookie's)
    assert client.post("/login", {"csrf": token, "password": PASSWORD}, origin="http://evil.example")[0] == 403
    assert "tmanager_session" not in client.cookies
    assert client.post("/login", {"csrf": token, "password": PASSWORD})[0] == 303


# --- no leaks ------------------------------------------------------------------------------------


def test_pages_show_no_path_hash_or_token(protected: Path, tmp_path: Path, serve: Any) -> None:
    path = fresh(protected, tmp_path)
    text = path.read_text().replace("[scoring]", '[hooks]\nafter_results = "cp x /srv/secret/copy.txt"\n\n[scoring]')
    path.write_text(text)
    server = serve(path)
    client = Client(server)
    client.login()
    token = client.cookies["tmanager_session"]
    stored = password_path(path).read_text().strip()
    secrets = [str(path.parent), os.path.realpath(path.parent), str(ROOT), sys.executable, "/srv/secret",
               stored, stored.split("$")[2], stored.split("$")[3], token, PASSWORD]  # fmt: skip
    addresses = ["/", "/pairings", "/pairings?round=1", "/standings", "/standings?round=1", "/table", "/player?n=1",
                 "/player?n=99", "/pairings?round=9", "/arbiter", "/arbiter?round=1", "/login", "/nowhere"]  # fmt: skip
    seen = {a: client.request("GET", a) for a in addresses}
    seen["bad result"] = client.post("/result", {"csrf": hidden(seen["/arbiter"][2], "csrf"), "round": "2",
                                                 "board": "9", "result": "1-0"})  # fmt: skip
    for address, (status, headers, body) in seen.items():
        assert status in (200, 303, 400, 404), (address, status)
        for secret in secrets:
            assert secret not in body and secret not in headers.get("location", ""), f"{secret!r} leaks via {address}"
    assert seen["/player?n=99"][0] == 404 and "no player number 99" in seen["/player?n=99"][2]
    # The live stream of every page too.
    message = next(events(server, "?page=standings"))
    assert "standings" in message["set"]
    # A version of thousands of digits was int()'s ValueError, a server error: it is no version this page has.
    assert "standings" in next(events(server, "?page=standings&v=" + "9" * 5000))["set"]
    for secret in secrets:
        assert secret not in json.dumps(message, ensure_ascii=False)


def test_serve_tells_events_from_tourneys_and_reports_a_bad_event(tmp_path: Path, serve: Any) -> None:
    server = serve(EXAMPLE)
    status, _, body = fetch(server.url + "standings")
    assert status == 200 and b"Leiden Spring Open 2026" in body and b"After round:" in body
    broken = tmp_path / "broken.toml"
    broken.write_text(EXAMPLE.read_text().replace('name = "Leiden Spring Open 2026"', "name = 7"))
    done = run_cli("serve", broken, "--port", "0")
    assert done.returncode == 2 and "event.name: must be str" in done.stderr and "Traceback" not in done.stderr
    # No password set: the login page says how to set one, and every POST is refused.
    status, _, body = fetch(server.url + "login")
    assert status == 200 and b"tmanager event set-password EVENT" in body and b'type="password"' not in body


def test_set_password_stores_only_a_salted_scrypt_hash(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    shutil.copy(EXAMPLE, path)
    assert set_password(path, PASSWORD).returncode == 0
    target = password_path(path)
    first = target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert PASSWORD not in first
    stored = PasswordHash.loads(first)
    assert stored.n == SCRYPT_N >= 2**17 and stored.r == 8 and len(stored.salt) == 16
    assert stored.matches(PASSWORD) and not stored.matches(PASSWORD + " ")
    target.chmod(0o644)
    assert set_password(path, PASSWORD).returncode == 0
    assert target.read_text() != first, "a fresh salt each time"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    short = set_password(path, "short")
    assert short.returncode == 2 and short.stderr == (
        f"tmanager: {path}: the password must have at least 8 characters (choose a longer one)\n"
    )
    # The login tries no password over 1,024 characters: a longer one was set, and no login could ever pass.
    kept = target.read_bytes()
    long = set_password(path, "x" * 1025)
    assert long.returncode == 2 and long.stderr.strip().endswith("the password must have at most 1024 characters, "
                                                                  "not 1025 (choose a shorter one)")  # fmt: skip
    assert len(long.stderr.strip().splitlines()) == 1 and target.read_bytes() == kept
    tourney = set_password(ROOT / "tourneys" / "gauntlet.toml", PASSWORD)
    assert tourney.returncode == 2 and "Traceback" not in tourney.stderr
    target.write_text("scrypt$n=3,r=8,p=1$AAAA$AAAA\n")
    with pytest.raises(Exception, match="not a tmanager password file"):
        PasswordHash.loads(target.read_text(), target)


# --- the parts -----------------------------------------------------------------------------------


def test_login_throttle_backs_off_per_client_only() -> None:
    throttle = LoginThrottle(base=1.0, cap=60.0, window=600.0)
    assert throttle.wait("a", now=0.0) == 0
    throttle.failed("a", now=0.0)
    assert throttle.wait("a", now=0.5) == pytest.approx(0.5)
    throttle.failed("a", now=1.0)
    throttle.failed("a", now=3.0)
    assert throttle.wait("a", now=3.0) == pytest.approx(4.0)  # 1, 2, 4 s
    assert throttle.wait("b", now=3.0) == 0
    for i in range(7):
        throttle.failed("a", now=10.0 + i)
    assert throttle.wait("a", now=16.0) == pytest.approx(60.0)  # capped
    for client in range(1000):  # a crowd of guessers, each from an address of its own...
        throttle.failed(f"10.0.{client // 256}.{client % 256}", now=16.0)
    assert throttle.wait("arbiter", now=16.0) == 0  # ... keeps nobody else out
    throttle.succeeded("a")
    assert throttle.wait("a", now=16.0) == 0
    throttle.failed("b", now=20.0)
    assert throttle.wait("b", now=20.0 + 700) == 0  # the window has passed
    throttle.failed("c", now=30.0)
    throttle.clear()  # the password was set again
    assert throttle.wait("c", now=30.0) == 0


def test_known_devices_are_the_ones_issued_here_and_the_last_few_kept() -> None:
    from tmanager.web.auth import MAX_DEVICES, KnownDevices

    devices = KnownDevices()
    first = devices.issue()
    assert devices.known(first) and not devices.known("forged") and not devices.known(None)
    later = [devices.issue() for _ in range(MAX_DEVICES - 1)]
    assert devices.known(first)  # used again: the last one to be forgotten
    devices.issue()
    assert devices.known(first) and not devices.known(later[0])


def test_a_crowd_of_wrong_passwords_from_other_addresses_keeps_nobody_out(protected: Path, serve: Any) -> None:
    """20 failures from other addresses used to make everyone wait (up to 5 minutes, renewed by each new
    failure), the arbiter included; and a browser that logged in before is let in ahead of a queue."""
    server = serve(protected)
    for address in range(2, 22):  # Linux answers on all of 127.0.0.0/8
        status, _, _ = Client(server, source=f"127.0.0.{address}").login("a wrong guess")
        assert status == 403
    arbiter = Client(server)
    assert arbiter.login()[0] == 303  # at once
    assert "tmanager_device" in arbiter.cookies
    arbiter.cookies.pop("tmanager_session")  # logged out
    assert arbiter.login("a slip")[0] == 403
    assert Client(server).login()[0] == 303, "the arbiter's slip made only the arbiter's browser wait"


def test_sessions_expire_and_end() -> None:
    sessions = Sessions()
    session = sessions.open(now=0.0)
    assert session.token != session.csrf and len(session.token) >= 40
    assert sessions.get(session.token, now=3600.0) is session
    assert sessions.get(session.token, now=3600.0 + 5 * 3600) is None  # idle too long
    other = sessions.open(now=0.0)
    for hour in range(1, 17):
        assert sessions.get(other.token, now=hour * 3600.0 - 1) is other
    assert sessions.get(other.token, now=16 * 3600.0 + 1) is None  # the lifetime is over
    third = sessions.open(now=0.0)
    sessions.close(third.token)
    assert sessions.get(third.token, now=1.0) is None and sessions.get(None) is None


def test_same_origin() -> None:
    assert same_origin(host="127.0.0.1:8080", origin="http://127.0.0.1:8080", referer=None)
    assert same_origin(host="127.0.0.1:8080", origin=None, referer="http://127.0.0.1:8080/arbiter?round=2")
    assert not same_origin(host="127.0.0.1:8080", origin="http://127.0.0.1:8081", referer=None)
    assert not same_origin(host="127.0.0.1:8080", origin="null", referer=None)
    assert not same_origin(host="127.0.0.1:8080", origin=None, referer=None)
    assert not same_origin(host="127.0.0.1:8080", origin="file://127.0.0.1:8080", referer=None)
    assert not same_origin(host="", origin="http://x", referer=None)


def test_divisions_each_have_their_pages_and_entry(tmp_path: Path, serve: Any) -> None:
    path = tmp_path / "m.toml"
    commands: list[tuple[str | Path, ...]] = [
        ("new", path, "--name", "Two groups", "--rounds", "3", "--divisions", "A,B Group")
    ]
    commands += [("add-player", path, f"{group}{i}, X", "-d", name) for group, name in (("Alpha", "A"),
                 ("Beta", "B Group")) for i in range(1, 5)]  # fmt: skip
    commands += [("pair", path, "-d", "A", "--colour", "white"), ("pair", path, "-d", "B Group", "--colour", "black")]
    for command in commands:
        done = run_cli("event", *command)
        assert done.returncode == 0, (command, done.stderr)
    assert set_password(path, PASSWORD).returncode == 0
    server = serve(path)
    client = Client(server)
    status, _, home = client.request("GET", "/")
    assert status == 200 and "Division A" in home and "Division B Group" in home
    status, _, page = client.request("GET", "/pairings?d=b+group")
    assert status == 200 and "Beta1, X" in page and "Alpha1, X" not in page
    assert client.request("GET", "/standings?d=C")[0] == 404
    client.login()
    _, _, page = client.request("GET", "/arbiter?d=B+Group")
    assert "Beta1, X (1)" in page and "Alpha1" not in page
    status, headers, _ = client.post("/result", {**board_form(page, 2), "result": "="})
    assert status == 303 and headers["location"] == "arbiter?d=B+Group"  # the view it came from: its division's
    event = ev.load(path)
    assert event.division("B Group").round(1).boards[1].result == "½-½"
    assert all(b.result == "*" for b in event.division("A").round(1).boards)


def test_score_based_division_pages_and_score_entry(tmp_path: Path, serve: Any) -> None:
    from tests.integration.test_event_scored import TSH_LINES

    source = tmp_path / "a.t"
    source.write_text("\n".join(TSH_LINES) + "\n")
    path = tmp_path / "s.toml"
    done = run_cli("event", "import-t", path, source, "--name", "Scrabble")
    assert done.returncode == 0, done.stderr
    assert set_password(path, PASSWORD).returncode == 0
    server = serve(path)
    client = Client(server)
    for page in ("/", "/pairings?round=2", "/standings", "/table", "/player?n=10"):
        status, _, text = client.request("GET", page)
        assert status == 200, (page, text[:300])
    _, _, text = client.request("GET", "/pairings?round=2")
    assert "Chew pairings" in text and "forfeit loss: Ten, J (10), spread -50" in text
    assert "0-2 -100" in client.request("GET", "/player?n=10")[2]  # the two rounds off at 0 count neither way
    status, _, text = client.request("GET", "/standings.json")
    assert (status, text) == (404, "division 'a' is score-based: its pages have no JSON (they are for chess "
                                   "divisions of players)")  # fmt: skip

    client.login()
    _, _, page = client.request("GET", "/arbiter?round=4")
    # Round 4's boards by their .t numbers (1, 2, 3, 5), each asking for the two scores, not a chess result.
    assert 'id="result-5"' in page and 'id="result-4"' not in page
    assert 'name="s1"' in page and 'name="s2"' in page and 'name="result"' not in page
    fields = board_form(page, 5)
    before = path.read_bytes()
    status, _, text = client.post("/result", {**fields, "s1": "40", "s2": "390"})
    # The page says how to confirm it there (it told of the command line's --yes only).
    assert status == 400 and "looks mistyped" in text and path.read_bytes() == before
    assert "tick &#x27;unusual score is right&#x27;" in text
    status, _, text = client.post("/result", {**fields, "s1": "", "s2": "390"})
    # The fields as the page calls them, not their names in the form ("s1 is empty").
    assert status == 400 and "the first player&#x27;s score is empty" in text and path.read_bytes() == before
    status, headers, _ = client.post("/result", {**fields, "s1": "401", "s2": "390"})
    assert status == 303 and headers["location"] == "arbiter?round=4"
    board = next(b for b in ev.load(path).division().round(4).boards if b.white == 8)
    assert (board.black, board.result, board.scores) == (9, "1-0", (401, 390))
    # A forfeit, and a spread-entry division's form asks for the spread.
    status, _, _ = client.post("/result", {**board_form(page, 1), "forfeit": "-+"})
    assert status == 303 and ev.load(path).division().round(4).boards[0].result == "-+"
    path.write_text(path.read_text().replace('entry = "scores"', 'entry = "spread"'))
    deadline = time.monotonic() + 20  # the server reads the changed file on its next poll
    while 'name="spread"' not in page and time.monotonic() < deadline:
        time.sleep(0.2)
        _, _, page = client.request("GET", "/arbiter?round=4")
    assert 'name="spread"' in page and 'name="s1"' not in page


# --- forced games, unpairing and undo: the CLI's verbs from the arbiter's page --------------------------------


def twins(source: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Two identical copies of the event's directory: one changed through the server, one by the CLI."""
    copies = []
    for name in ("web", "cli"):
        shutil.copytree(source.parent, tmp_path / name)
        copies.append(tmp_path / name / source.name)
    return copies[0], copies[1]


def flash(page: str) -> list[str]:
    """The messages the arbiter's page shows after a change."""
    shown = re.search(r'<div class="flash" role="status">(.*?)</div>', page, re.S)
    assert shown, "no messages on the page"
    return [html.unescape(m) for m in re.findall(r'<p class="(?:done|warning)">(.*?)</p>', shown[1])]


def error(page: str) -> str:
    shown = re.search(r'<p class="error" role="alert">(.*?)</p>', page)
    assert shown, "no error on the page"
    return html.unescape(shown[1])


class Twins:
    """The same change through the arbiter's page and through `tmanager event`: same messages, same files."""

    def __init__(self, client: Client, web: Path, cli: Path) -> None:
        self.client, self.web, self.cli = client, web, cli

    def page(self, address: str = "/arbiter") -> str:
        status, _, page = self.client.request("GET", address)
        assert status == 200, page[:300]
        return page

    def post(self, action: str, fields: dict[str, str]) -> tuple[int, str]:
        page = self.page()
        # As a browser sends the form: the undo form names the change it undoes.
        shown = {"change": hidden(page, "change")} if action == "/undo" else {}
        status, headers, text = self.client.post(action, {"csrf": hidden(page, "csrf"), "d": "", **shown, **fields})
        if status == 303:
            assert headers["location"] == "arbiter"
            text = self.page()
        return status, text

    def done(self, action: str, fields: dict[str, str], *verb: str) -> list[str]:
        """Accepted on both sides: the page shows the CLI's output, and both directories are byte for byte equal."""
        status, page = self.post(action, fields)
        assert status == 303, error(page)
        cli = run_cli("event", verb[0], self.cli, *verb[1:])
        assert cli.returncode == 0, cli.stderr
        assert flash(page) == cli.stdout.splitlines()
        assert snapshot(self.web.parent) == snapshot(self.cli.parent), "the page's change differs from the CLI's"
        return flash(page)

    def refused(self, action: str, fields: dict[str, str], *verb: str) -> str:
        """Refused on both sides with the same one-line message; nothing written on either."""
        before = snapshot(self.web.parent)
        status, page = self.post(action, fields)
        assert status == 400 and 'role="alert"' in page
        assert snapshot(self.web.parent) == before, "a refused change wrote something"
        message = error(page)
        if verb:
            cli = run_cli("event", verb[0], self.cli, *verb[1:])
            said = cli.stderr.strip()
            assert cli.returncode == 2 and said == f"tmanager: {self.cli}: {message}", (said, message)
            assert snapshot(self.cli.parent) == before
        return message

    def cli_both(self, *verb: str) -> None:
        for path in (self.web, self.cli):
            done = run_cli("event", verb[0], path, *verb[1:])
            assert done.returncode == 0, done.stderr


def test_force_unpair_and_undo_as_the_cli_does(protected: Path, tmp_path: Path, serve: Any) -> None:
    web, cli = twins(protected, tmp_path)
    server = serve(web)
    client = Client(server)
    client.login()
    both = Twins(client, web, cli)
    page = both.page()
    assert 'action="force"' in page and "Force for round 3" in page and ">White <select" in page
    assert "Unpair round 2" in page and 'action="undo"' in page

    # Forced games and the bye of round 3 (round 2 still has results to come).
    assert both.done("/force", {"round": "3", "white": "1", "black": "4"}, "force", "1", "4") == [
        "round 3: de Vries, Jan (1) – Visser, Lotte (4) set"
    ]
    assert both.refused("/force", {"round": "3", "white": "9", "black": "bye"}, "force", "9", "bye") == (
        "de Boer, Kees (9) already had a full-point bye in round 1; no second one"
    )
    assert both.done("/force", {"round": "3", "white": "5", "black": "bye"}, "force", "5", "bye") == [
        "round 3: pairing-allocated bye set for Smit, Daan (5)"
    ]
    forced = re.search(r'<ul class="forced".*?</ul>', both.page(), re.S)
    listed = re.findall(r"<li>([^<]*) <form", forced[0] if forced else "")
    assert listed == ["de Vries, Jan (1) – Visser, Lotte (4)", "bye: Smit, Daan (5)"]
    both.cli_both("withdraw", "8", "--rounds", "3")
    for fields, verb, message in (
        ({"white": "2", "black": "6"}, ("2", "6"), "Jansen, Pieter (2) and Meijer, Thomas (6) already met in round 1"),
        ({"white": "3", "black": "1"}, ("3", "1"), "de Vries, Jan (1) already has a game in round 3 (board 1-4)"),
        ({"white": "8", "black": "3"}, ("8", "3"), "Bos, Hendrik (8) is withdrawn from round 3"),
        ({"white": "6", "black": "bye"}, ("6", "bye"), "round 3 already has a forced bye, for Smit, Daan (5) (take it "
                                            "back first: force 5 bye --cancel)"),
        ({"white": "7", "black": "77"}, ("7", "77"), "no player number 77"),
    ):
        assert message in both.refused("/force", {"round": "3", **fields}, "force", *verb)
    # A page from before a change to the pairings: refused, not applied to another round.
    assert both.refused("/force", {"round": "2", "white": "3", "black": "7"}) == (
        "round 2 is now the last paired round (reload the page and check it before forcing a game)"
    )
    assert both.refused("/force", {"round": "3", "white": "3", "black": ""}) == (
        "choose both players (or a player and bye)"
    )

    # Unpairing: asked to confirm, and refused while the round has results, as the CLI refuses it.
    assert both.refused("/unpair", {"round": "2"}) == "tick the box to unpair round 2; nothing was changed"
    assert both.refused("/unpair", {"round": "2", "confirm": "yes"}, "unpair") == (
        "round 2 has results, the first on board 1 (correct them to * first, or use undo)"
    )
    both.cli_both("result", "3", "1-0")
    both.cli_both("result", "4", "0-1")
    both.cli_both("pair")
    paired = web.read_bytes()
    assert "Unpair round 3" in both.page()
    stream = events(server, "?page=pairings")
    assert "Round 3 · by board" in next(stream)["set"]["pairings"]
    assert both.done("/unpair", {"round": "3", "confirm": "yes"}, "unpair") == [
        "round 3 unpaired; 1 forced game(s) and the requested byes kept"
    ]
    shown = next(stream)
    assert "Round 2 · by board" in shown["set"]["pairings"], "viewers of the pairings follow the change"
    record = ev.load(web).division().round(3)
    assert not record.paired and record.forced == [(1, 4)] and record.forced_bye == 5 and record.byes == {5: "pairing"}

    # Not logged in, no CSRF token or from another site: refused before anything is read or written.
    before = snapshot(web.parent)
    stranger = Client(server)
    csrf = hidden(both.page(), "csrf")
    for action, fields in (("/undo", {"confirm": "yes"}), ("/force", {"round": "3", "white": "3", "black": "7"}),
                           ("/unpair", {"round": "2", "confirm": "yes"})):  # fmt: skip
        status, _, text = stranger.post(action, {**fields, "csrf": csrf})
        assert status == 403 and "Log in as the arbiter first" in text, action
        status, _, text = client.post(action, fields)
        assert status == 403 and "missing its security token" in text, action
        assert client.post(action, {**fields, "csrf": csrf}, origin="http://evil.example")[0] == 403
        assert client.post(action, {**fields, "csrf": csrf}, origin=None)[0] == 403
        assert client.request("PUT", action, {**fields, "csrf": csrf})[0] == 405
    assert snapshot(web.parent) == before

    # Undo: asked to confirm; then the file is exactly the version before the last change, journaled as the CLI's.
    assert both.refused("/undo", {}) == "tick the box to undo the last change; nothing was changed"
    said = "restored the version before change 7 (6 earlier version(s) left); it undid: round 3 unpaired; 1 forced"
    assert both.done("/undo", {"confirm": "yes"}, "undo") == [f"{said} game(s) and the requested byes kept"]
    assert web.read_bytes() == paired and ev.load(web).division().round(3).paired
    assert (web.parent / "old" / "open.undone.0007.toml").is_file()
    assert "Round 3 · by board" in next(stream)["set"]["pairings"]


def test_score_based_force_unpair_and_undo_as_the_cli_does(tmp_path: Path, serve: Any) -> None:
    from tests.integration.test_event_scored import TSH_LINES

    (tmp_path / "a.t").write_text("\n".join(TSH_LINES) + "\n")
    source = tmp_path / "source" / "s.toml"
    source.parent.mkdir()
    done = run_cli("event", "import-t", source, tmp_path / "a.t", "--name", "Scrabble")
    assert done.returncode == 0, done.stderr
    assert set_password(source, PASSWORD).returncode == 0
    web, cli = twins(source, tmp_path)
    server = serve(web)
    client = Client(server)
    client.login()
    both = Twins(client, web, cli)

    # Nothing journaled yet: nothing to undo, said without the event's directory.
    message = both.refused("/undo", {"confirm": "yes"})
    assert "nothing to undo (no earlier version in" in message and str(web.parent) not in message
    page = both.page()
    assert "All 4 rounds are paired." in page and "Unpair round 4" in page
    assert both.done("/unpair", {"round": "4", "confirm": "yes"}, "unpair") == [
        "round 4 unpaired; 0 forced game(s) and the requested byes kept"
    ]
    page = both.page()
    assert ">First player <select" in page and ">Second player <select" in page and "Force for round 4" in page
    assert both.done("/force", {"round": "4", "white": "2", "black": "5"}, "force", "2", "5") == [
        "round 4: Two, A (2) – Five, D (5) set"
    ]
    assert both.refused("/force", {"round": "4", "white": "10", "black": "3"}, "force", "10", "3") == (
        "Ten, J (10) is withdrawn from round 4 (return them for round 4 first)"
    )
    before_bye = web.read_bytes()
    assert both.done("/force", {"round": "4", "white": "1", "black": "bye"}, "force", "1", "bye") == [
        "round 4: pairing-allocated bye set for Chew, John (1)"
    ]
    # An undo from a page shown before someone else's change is refused: it would undo what the arbiter never saw.
    stale = {"change": "2", "confirm": "yes"}
    assert both.refused("/undo", stale) == (
        "the event has changed since this page was shown (change 3) (reload the page and check it)"
    )
    assert both.done("/undo", {"confirm": "yes"}, "undo") == [
        "restored the version before change 3 (2 earlier version(s) left); it undid: round 4: pairing-allocated "
        "bye set for Chew, John (1)"
    ]
    assert web.read_bytes() == before_bye and ev.load(web).division().round(4).forced_bye is None


@browser_only
def test_team_division_pages_show_matches_lineups_and_standings(tmp_path: Path, serve: Any) -> None:
    from tests.integration.test_event_teams import lineups, team_event

    path = team_event(tmp_path, "team-swiss")
    assert run_cli("event", "pair", path).returncode == 0
    lineups(path, 1)
    for board, result in (("1.1", "1-0"), ("1.2", "=")):
        assert run_cli("event", "result", path, board, result).returncode == 0
    assert set_password(path, PASSWORD).returncode == 0
    server = serve(path)
    record = ev.load(path).division().round(1)
    first, second = record.matches[0]
    names = {t.number: t.name for t in ev.load(path).division().teams}
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(server.url + "pairings")
        shown = page.inner_text("main")
        # The match with its score, the board results under it, then each team's lineup.
        assert f"Match 1: {names[first]} ({first}) 1½ – ½ {names[second]} ({second})" in shown
        assert "1.1" in shown and "1-0" in shown and "½-½" in shown
        headings = shown.casefold()  # headings are shown in capitals
        assert "round 1 · lineups" in headings and "alphabetical" not in headings and "Bd 1" in shown
        page.goto(server.url + "standings")
        header = page.locator("#standings thead").inner_text()
        assert all(column in header for column in ("MP", "GP", "EMGSB", "BH:MP"))
        top = page.locator("#standings tbody tr").first.inner_text()
        assert names[first] in top
        page.goto(server.url)
        white = record.boards[0].white
        assert "round 1: board 1.1, white" in page.inner_text("main")  # as results are entered
        assert ev.load(path).division().player(white).name in page.inner_text("main")
        assert_not_blank(page.screenshot(full_page=True))
    client = Client(server)
    client.login()
    _, _, page_text = client.request("GET", "/arbiter?round=1")
    status, _, _ = client.post("/result", {**board_form(page_text, 3), "result": "0-1"})
    assert status == 303
    assert ev.load(path).division().round(1).boards[2].result == "0-1"
