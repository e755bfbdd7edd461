"""An arbiter's page left open when its session ends: a real `tmanager serve EVENT`, its live stream over HTTP."""

# The fixtures `serve` and `protected` come from the web tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.integration.test_web import events, serve
from tests.integration.test_web_event import PASSWORD, Client, fresh, hidden, protected, set_password
from tmanager.web.auth import Sessions


def arbiter_stream(client: Client) -> Iterator[dict[str, Any]]:
    """The messages of the arbiter's page's live stream, opened now with the client's session, as they come."""
    _, _, page = client.request("GET", "/arbiter")
    version = re.search(r'data-version="(\d+)"', page)
    assert version, "the arbiter's page is live"
    cookies = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    # Longer than the keep-alive interval (15 s): a session is also looked at with each keep-alive.
    return events(client.server, f"?page=arbiter&v={version[1]}", cookies=cookies, timeout=20)


@pytest.mark.parametrize("ending", ["new password", "log out"])
def test_an_ended_session_s_open_arbiter_page_gets_no_more_of_it(
    protected: Path, tmp_path: Path, serve: Any, ending: str
) -> None:
    path = fresh(protected, tmp_path)
    server = serve(path)
    arbiter = Client(server)
    assert arbiter.login()[0] == 303
    _, _, page = arbiter.request("GET", "/arbiter")
    token = hidden(page, "csrf")
    stream = arbiter_stream(arbiter)
    if ending == "new password":  # the arbiter's phone was lost: a new password ends its session
        assert set_password(path, "another long password").returncode == 0
    else:
        assert arbiter.post("/logout", {"csrf": token})[0] == 303
    assert arbiter.request("GET", "/arbiter")[0] == 303, "the session has ended"
    assert run_cli("event", "bye", path, "Visser", "--round", "3").returncode == 0
    # The stream went on sending the arbiter's page, its forms and the ended session's token with them.
    message = next(stream)
    assert message["reload"] is True and message["set"] == {}, message
    assert token not in json.dumps(message)


def test_a_live_stream_does_not_keep_its_session_alive() -> None:
    sessions = Sessions()
    session = sessions.open(now=0.0)
    # Updates sent to an open page are no requests of the arbiter's: the idle time runs on.
    assert sessions.holds(session, now=3 * 3600.0) and sessions.holds(session, now=4 * 3600.0)
    assert not sessions.holds(session, now=4 * 3600.0 + 1)
    renewed = sessions.open(now=0.0)
    assert sessions.get(renewed.token, now=3 * 3600.0) is renewed  # a request, which renews it
    assert sessions.holds(renewed, now=6 * 3600.0) and not sessions.holds(renewed, now=16 * 3600.0 + 1)
    sessions.close(renewed.token)
    assert not sessions.holds(renewed, now=3 * 3600.0)


def test_logging_out_of_an_ended_session_is_done_not_forbidden(protected: Path, serve: Any) -> None:
    """Log out in a second tab, or a second click, after the session had ended (logged out in another tab, whose
    page this one had not heard of yet): a 403 page saying "Log in as the arbiter first"."""
    server = serve(protected)
    arbiter = Client(server)
    assert arbiter.login()[0] == 303
    _, _, page = arbiter.request("GET", "/arbiter")
    token, session = hidden(page, "csrf"), arbiter.cookies["tmanager_session"]
    assert arbiter.post("/logout", {"csrf": token})[0] == 303
    arbiter.cookies["tmanager_session"] = session  # the other tab still sends it
    for _ in range(2):
        status, headers, _ = arbiter.post("/logout", {"csrf": token})
        assert (status, headers["location"]) == (303, "./") and "tmanager_session" not in arbiter.cookies
    # Still only from this server's pages; and a session that is open is ended only with its token.
    assert arbiter.post("/logout", {"csrf": token}, origin="http://evil.example")[0] == 403
    assert arbiter.login()[0] == 303
    assert arbiter.post("/logout", {"csrf": token})[0] == 403
    assert arbiter.request("GET", "/arbiter")[0] == 200, "the session is still open"


def test_an_action_refused_for_an_ended_session_leads_to_the_login_and_back(protected: Path, serve: Any) -> None:
    """A result saved after the session ended is refused; the refusal's "Arbiter login" led back to the home page
    once logged in (since the navigation's login leads back to its page), away from the arbiter's forms, and then
    to the arbiter's first page, not the division and round the form was sent from."""
    server = serve(protected)
    arbiter = Client(server)
    assert arbiter.login()[0] == 303
    _, _, page = arbiter.request("GET", "/arbiter")
    assert arbiter.post("/logout", {"csrf": hidden(page, "csrf")})[0] == 303
    status, _, page = arbiter.post("/pair", {"csrf": hidden(page, "csrf"), "round": "3"})
    assert status == 403 and "Log in as the arbiter first." in page
    login = re.search(r'<a class="arbiter" href="([^"]*)">Arbiter login</a>', page)
    assert login and login[1] == "login"
    _, _, form = arbiter.request("GET", "/" + login[1])
    assert hidden(form, "next") == "arbiter"
    # A form of an earlier round's page: the login leads back to that round, where it led to the round being played.
    status, _, page = arbiter.post("/result", {"csrf": "x", "round": "1", "board": "1", "view_round": "1"})
    assert status == 403 and "Log in as the arbiter first." in page
    login = re.search(r'<a class="arbiter" href="([^"]*)">Arbiter login</a>', page)
    assert login and html.unescape(login[1]) == "login?next=arbiter%3Fround%3D1"
    _, _, form = arbiter.request("GET", "/" + html.unescape(login[1]))
    status, headers, _ = arbiter.post("/login", {"csrf": hidden(form, "csrf"), "password": PASSWORD,
                                                 "next": hidden(form, "next")})  # fmt: skip
    assert (status, headers["location"]) == (303, "arbiter?round=1")
