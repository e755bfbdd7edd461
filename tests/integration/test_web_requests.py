"""What the event pages make of the addresses and forms they are sent: the login leads back to the page asked for,
and nowhere else; a category the event does not have, or a field given twice, is refused with the reason.
A real `tmanager serve EVENT` on loopback, plain HTTP and Chromium by Playwright."""

# The fixtures `serve` and `protected` come from the dashboard's and the event pages' tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import run_cli
from tests.integration.test_web import CHROMIUM, CHROMIUM_ARGS, serve, snapshot
from tests.integration.test_web_event import (
    PASSWORD,
    Client,
    board_form,
    browser_only,
    fresh,
    hidden,
    protected,
    set_password,
)
from tmanager.events import api as ev


@pytest.fixture(scope="module")
def two_divisions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Divisions A and "B Group", four players each, round 1 paired, with an arbiter password."""
    path = tmp_path_factory.mktemp("divisions") / "m.toml"
    commands: list[tuple[str | Path, ...]] = [("new", path, "--name", "Two groups", "--rounds", "3",
                                               "--divisions", "A,B Group")]  # fmt: skip
    commands += [("add-player", path, f"{group}{i}, X", "-d", name) for group, name in (("Alpha", "A"),
                 ("Beta", "B Group")) for i in range(1, 5)]  # fmt: skip
    commands += [("pair", path, "-d", "A"), ("pair", path, "-d", "B Group")]
    for command in commands:
        done = run_cli("event", *command)
        assert done.returncode == 0, (command, done.stderr)
    assert set_password(path, PASSWORD).returncode == 0
    return path


def alert(page: str) -> str:
    """The one line of a page's error, unescaped."""
    shown = re.search(r'<p class="error" role="alert">(.*?)</p>', page)
    assert shown, f"no error on the page: {page[:300]}"
    return html.unescape(shown[1])


# --- the login leads back --------------------------------------------------------------------------------------


@browser_only
def test_the_login_leads_back_to_the_division_asked_for(two_divisions: Path, serve: Any) -> None:
    """The arbiter's page of division B without a session went to the login, which then led to division A's page."""
    from playwright.sync_api import sync_playwright

    server = serve(two_divisions)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            arbiter = browser.new_page()
            arbiter.goto(server.url + "arbiter?d=B+Group&round=1")
            arbiter.fill("#password", PASSWORD)
            arbiter.click("form.login button")
            arbiter.wait_for_selector("#results form.entry")
            assert arbiter.url == server.url + "arbiter?d=B+Group&round=1"
            assert "Beta1, X" in arbiter.inner_text("#results") and "Alpha1" not in arbiter.inner_text("#results")
        finally:
            browser.close()


def test_the_login_leads_back_only_to_a_page_of_this_server(two_divisions: Path, serve: Any) -> None:
    server = serve(two_divisions)
    back = "arbiter?d=B+Group&round=1"
    client = Client(server)
    status, headers, _ = client.request("GET", "/" + back)
    assert status == 303 and headers["location"] == "login?next=" + quote(back, safe="")
    status, _, page = client.request("GET", "/" + headers["location"])
    assert status == 200 and html.unescape(hidden(page, "next")) == back
    # A wrong password keeps where the form leads (sent from another address of this machine, whose failure
    # makes only that address wait).
    other = Client(server, source="127.0.0.2")
    _, _, form = other.request("GET", "/" + headers["location"])
    status, _, form = other.post("/login", {"csrf": hidden(form, "csrf"), "next": back, "password": "wrong one"})
    assert status == 403 and html.unescape(hidden(form, "next")) == back
    status, headers, _ = client.post("/login", {"csrf": hidden(page, "csrf"), "next": back, "password": PASSWORD})
    assert status == 303 and headers["location"] == back
    status, headers, _ = client.request("GET", "/login?next=" + quote("arbiter?d=A", safe=""))
    assert status == 303 and headers["location"] == "arbiter?d=A", "logged in already: straight there"

    # Anywhere else is the arbiter's page: another host, a scheme, a path of the server's machine, a header.
    for elsewhere in ("//evil.example/arbiter", "\\\\evil.example", "/\\evil.example", "https://evil.example/",
                      "javascript:alert(1)", "/arbiter", "arbiter/../../x", "arbiter?d=A\r\nSet-Cookie: x=1",
                      "arbiter?d=\\evil", " arbiter", "pairings", "arbiter?d=Ä", ""):  # fmt: skip
        stranger = Client(server)
        _, _, page = stranger.request("GET", "/login?next=" + quote(elsewhere, safe=""))
        assert hidden(page, "next") == "arbiter", elsewhere
        status, headers, _ = stranger.post("/login", {"csrf": hidden(page, "csrf"), "password": PASSWORD,
                                                      "next": elsewhere})  # fmt: skip
        assert status == 303 and headers["location"] == "arbiter", (elsewhere, headers["location"])

