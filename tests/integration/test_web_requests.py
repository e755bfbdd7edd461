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
from tests.integration.test_web import chromium, serve, snapshot
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
    server = serve(two_divisions)
    with chromium() as browser:
        arbiter = browser.new_page()
        arbiter.goto(server.url + "arbiter?d=B+Group&round=1")
        arbiter.fill("#password", PASSWORD)
        arbiter.click("form.login button")
        arbiter.wait_for_selector("#results form.entry")
        assert arbiter.url == server.url + "arbiter?d=B+Group&round=1"
        assert "Beta1, X" in arbiter.inner_text("#results") and "Alpha1" not in arbiter.inner_text("#results")


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
                      "arbiter?d=\\evil", " arbiter", "login", "login?next=pairings", "pairings.json", ".//evil",
                      "./../x", "pairings/x", "arbiter?d=Ä", ""):  # fmt: skip
        stranger = Client(server)
        _, _, page = stranger.request("GET", "/login?next=" + quote(elsewhere, safe=""))
        assert hidden(page, "next") == "arbiter", elsewhere
        status, headers, _ = stranger.post("/login", {"csrf": hidden(page, "csrf"), "password": PASSWORD,
                                                      "next": elsewhere})  # fmt: skip
        assert status == 303 and headers["location"] == "arbiter", (elsewhere, headers["location"])


@browser_only
def test_the_navigations_login_leads_back_to_the_page_it_was_followed_from(two_divisions: Path, serve: Any) -> None:
    """"Arbiter login" in the navigation of any page led to the arbiter's page of the first division, so that a
    viewer who logged in from the standings of division B lost both the page and the division."""
    server = serve(two_divisions)
    with chromium() as browser:
        viewer = browser.new_page()
        for address in ("standings?d=B+Group&round=1", "player?d=B+Group&n=2", "?d=B+Group"):
            viewer.context.clear_cookies()  # logged out
            viewer.goto(server.url + address)
            viewer.click("nav a.arbiter")
            viewer.fill("#password", PASSWORD)
            viewer.click("form.login button")
            viewer.wait_for_selector("nav a.arbiter:text-is('Arbiter')")
            assert viewer.url == server.url + address
        viewer.click("nav a.arbiter")  # logged in: the arbiter's page of the division shown
        viewer.wait_for_selector("#results form.entry")
        assert viewer.url == server.url + "arbiter?d=B+Group"


@browser_only
def test_the_login_forms_division_links_lead_to_that_divisions_page(two_divisions: Path, serve: Any) -> None:
    """The login form's links to the divisions were `login?d=B+Group`, which dropped where the login was to lead:
    choosing division B there led, once logged in, to the arbiter's page of division A."""
    server = serve(two_divisions)
    with chromium() as browser:
        viewer = browser.new_page()
        for start, after in (("standings?d=A", "standings?d=B+Group"), ("arbiter?d=A&round=1", "arbiter?d=B+Group")):
            viewer.context.clear_cookies()  # logged out
            viewer.goto(server.url + start)
            if "/login" not in viewer.url:
                viewer.click("nav a.arbiter")
            viewer.wait_for_selector("#password")
            viewer.click("nav a.division:text-is('B Group')")
            viewer.wait_for_selector("nav a.division[aria-current='true']:text-is('B Group')")
            viewer.fill("#password", PASSWORD)
            viewer.click("form.login button")
            viewer.wait_for_selector("nav a.arbiter:text-is('Arbiter')")
            assert viewer.url == server.url + after


@browser_only
def test_a_login_form_in_another_tab_is_not_expired_by_a_newer_one(two_divisions: Path, serve: Any) -> None:
    """Each login form set a new token in the browser's login cookie, so that only the last form shown was good:
    the arbiter's pages of two divisions, both sent to the login form when the session ended, refused the
    password typed into the first as "The login form had expired"."""
    server = serve(two_divisions)
    with chromium() as browser:
        context = browser.new_context()
        first, second = context.new_page(), context.new_page()
        first.goto(server.url + "arbiter?d=A")
        second.goto(server.url + "arbiter?d=B+Group")
        assert "/login" in first.url and "/login" in second.url
        first.fill("#password", PASSWORD)
        first.click("form.login button")
        first.wait_for_selector("#results form.entry, p.error")
        assert first.url == server.url + "arbiter?d=A", first.inner_text("main")
        second.reload()  # logged in now, in this browser: the form leads on
        second.wait_for_selector("#results form.entry")
        assert second.url == server.url + "arbiter?d=B+Group"
        context.close()


def test_a_login_from_any_page_of_this_server_leads_back_to_it(two_divisions: Path, serve: Any) -> None:
    server = serve(two_divisions)
    viewer = Client(server)
    _, _, page = viewer.request("GET", "/standings?d=B+Group&round=1")
    link = re.search(r'<a class="arbiter" href="([^"]*)">Arbiter login</a>', page)
    assert link and html.unescape(link[1]) == "login?next=" + quote("standings?d=B+Group&round=1", safe="")
    _, _, page = viewer.request("GET", "/login")
    assert re.search(r'<a class="arbiter" href="login">Arbiter login</a>', page), "the login page's link is itself"
    for back in ("./", "./?d=A", "pairings?round=1", "player?d=B+Group&n=2", "table", "start", "prizes?round=1"):
        client = Client(server)
        _, _, page = client.request("GET", "/login?next=" + quote(back, safe=""))
        assert html.unescape(hidden(page, "next")) == back
        status, headers, _ = client.post("/login", {"csrf": hidden(page, "csrf"), "password": PASSWORD,
                                                    "next": back})  # fmt: skip
        assert status == 303 and headers["location"] == back, (back, headers["location"])


# --- a category the event does not have ------------------------------------------------------------------------


def test_standings_of_a_category_the_event_does_not_have_are_refused(
    protected: Path, tmp_path: Path, serve: Any
) -> None:
    """`?category=U1700` showed the players rated under 1700, a ranking of no prize of this event, as any other
    name that parses as a category did, without a word."""
    path = fresh(protected, tmp_path)
    path.write_text(path.read_text().replace("max_byes = 2\n", 'max_byes = 2\ncategories = ["U18", "S50"]\n'))
    server = serve(path)
    client = Client(server)
    # The event's categories, in any case, and the flags its players carry, rank their players.
    for name in ("U18", "s50", "junior"):
        status, _, page = client.request("GET", f"/standings?category={name}")
        assert status == 200 and f"Standings after round 2 · {name}" in page, name
    listed = "the event's categories are U18, S50, junior, senior, woman"
    for name, reason in (
        ("U1700", "'U1700' is not a category of this event"),
        ("women", "'women' is not a category of this event"),
        ("U0", "'U0': an age category counts from 1 (U8, U18, S50)"),
        ("2000-1800", "'2000-1800': the band's first rating is above its last"),
        ("<b>x</b>", "'<b>x</b>' is not a category; write U18, S50, women, unrated, U1800 or a rating band"),
    ):
        status, _, page = client.request("GET", "/standings?category=" + quote(name))
        assert status == 404 and alert(page).startswith(reason) and alert(page).endswith(listed), (name, page[:500])
        assert "<b>x" not in page
        status, headers, text = client.request("GET", "/standings.json?category=" + quote(name))
        assert status == 404 and headers["content-type"].startswith("text/plain"), name
        assert text.startswith(reason) and text.endswith(listed) and "\n" not in text, text


# --- a field given twice -------------------------------------------------------------------------------------


def test_a_field_given_twice_is_refused_and_changes_nothing(protected: Path, tmp_path: Path, serve: Any) -> None:
    """`?round=1&round=2` showed round 2 (the last), and a result form with two results recorded the first."""
    path = fresh(protected, tmp_path)
    server = serve(path)
    client = Client(server)
    for address, name in (("/pairings?round=1&round=2", "round"), ("/standings.json?d=main&round=1&d=main", "d"),
                          ("/arbiter?round=1&%72ound=2", "round"), ("/events?page=pairings&page=standings", "page"),
                          ("/login?next=arbiter&next=arbiter%3Fround%3D1", "next")):  # fmt: skip
        status, _, text = client.request("GET", address)
        assert (status, text) == (400, f"the field {name!r} is given more than once; give it once"), address
    before = snapshot(path.parent)
    _, _, page = client.request("GET", "/login")
    status, _, page = client.post("/login", [("csrf", hidden(page, "csrf")), ("password", PASSWORD),
                                             ("password", "wrong password")])  # fmt: skip
    assert status == 400 and alert(page) == "the field 'password' is given more than once; give it once"
    assert "tmanager_session" not in client.cookies
    assert client.post("/login", [("csrf", hidden(page, "csrf")), ("password", PASSWORD)])[0] == 303

    _, _, page = client.request("GET", "/arbiter?round=2")
    entry = [*board_form(page, 3).items(), ("result", "1-0")]
    for twice in (("result", "0-1"), ("result", "1-0"), ("csrf", "x"), ("board", "4")):
        status, _, page = client.post("/result", [*entry, twice])
        assert status == 400 and alert(page) == f"the field {twice[0]!r} is given more than once; give it once"
        assert problem_heading(page) == "Bad request"  # the refusals' page was headed "Not found" whatever it said
    status, _, page = client.post("/result", [(name, "x" if name == "csrf" else value) for name, value in entry])
    assert (status, problem_heading(page)) == (403, "Forbidden")
    status, _, page = client.request("GET", "/pairings?round=99")
    assert (status, problem_heading(page)) == (404, "Not found")
    assert snapshot(path.parent) == before, "a refused form changed a file"
    status, _, _ = client.post("/result", entry)  # the same form with each field once is recorded
    assert status == 303 and ev.load(path).division().round(2).boards[2].result == "1-0"


def test_a_malformed_address_is_a_bad_request_not_a_page_not_found(protected: Path, tmp_path: Path,
                                                                    serve: Any) -> None:
    """`?round=x` was answered 404 "Not found", as a round not paired is: the address is malformed (400), and a
    script that reads the status learns which of the two it sent."""
    server = serve(fresh(protected, tmp_path))
    client = Client(server)
    for address in ("/pairings?round=x", "/player?n=-1", "/standings?category=" + "U" * 41):
        status, _, page = client.request("GET", address)
        assert (status, problem_heading(page)) == (400, "Bad request"), (address, status, page[:300])
        if address.startswith("/player"):
            continue  # (a player's page has no JSON)
        status, headers, text = client.request("GET", address.replace("?", ".json?", 1))
        assert status == 400 and headers["content-type"].startswith("text/plain") and "\n" not in text, address
    assert client.request("GET", "/pairings?round=1x")[0] == 400
    status, _, page = client.request("GET", "/pairings?round=99")  # well formed, and no such round: not found
    assert (status, problem_heading(page)) == (404, "Not found")
    assert client.request("GET", "/pairings.json?round=99")[0] == 404


def problem_heading(page: str) -> str | None:
    """The heading of a page that says why it cannot be shown (a refusal, an address of nothing)."""
    found = re.search(r'<section id="problem"[^>]*><h2>([^<]*)</h2>', page)
    return found[1] if found else None


# --- behind a reverse proxy ------------------------------------------------------------------------------------


def test_the_arbiter_logs_in_through_a_reverse_proxy_on_this_machine(
    protected: Path, tmp_path: Path, serve: Any
) -> None:
    """Behind a proxy (TLS at https://chess.example, the server on 127.0.0.1), the browser's Origin names the
    public host and the Host header the server's own address (a public name there is refused: DNS rebinding), so
    every POST was refused as "not sent from this server's page" and the arbiter could never log in. The proxy's
    X-Forwarded-Host names the host the browser sent its request to (nginx: `proxy_set_header X-Forwarded-Host
    $host;`)."""
    path = fresh(protected, tmp_path)
    client = Client(serve(path))
    proxied = {"X-Forwarded-Host": "chess.example", "X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.7"}
    _, _, page = client.request("GET", "/login", headers=proxied)
    form = {"csrf": hidden(page, "csrf"), "password": PASSWORD}
    for origin, host in (("https://evil.example", "chess.example"), ("https://chess.example", "evil.example")):
        status, _, _ = client.request("POST", "/login", form, {**proxied, "Origin": origin, "X-Forwarded-Host": host})
        assert status == 403 and "tmanager_session" not in client.cookies, (origin, host)
    status, headers, _ = client.request("POST", "/login", form, {**proxied, "Origin": "https://chess.example"})
    assert status == 303 and headers["location"] == "arbiter"
    _, _, page = client.request("GET", "/arbiter", headers=proxied)
    entry = {**board_form(page, 3), "result": "1-0"}
    status, _, _ = client.request("POST", "/result", entry, {**proxied, "Origin": "https://chess.example"})
    assert status == 303 and ev.load(path).division().round(2).boards[2].result == "1-0"
