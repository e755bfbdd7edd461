"""The web application of an event: public pages that update live, and the arbiter's actions.

Routes::

    GET  /                      players of each division, each linking to their page
    GET  /start?d=              the starting rank list (chess divisions of players)
    GET  /pairings?d=&round=    a round by board and alphabetically
    GET  /standings?d=&round=&category=
                                the standings with the event's tie-breaks; a prize category's among themselves
    GET  /table?d=              the wall chart (Swiss) or cross-table (round robin)
    GET  /prizes?d=&round=      the prize list (chess divisions of players)
    GET  /player?d=&n=          one player's page
    GET  /pairings.json?d=&round=, /standings.json?d=&round=&category=
                                the same as data (:mod:`tmanager.events.reports.data`; chess divisions)
    GET  /events?page=KIND&…    server-sent events: the sections of that page that changed
    GET  /login, POST /login    the arbiter's password; opens a session
    GET  /arbiter?d=&round=     result entry and correction, pairing, byes, forced games, undo (logged in);
                                &missing=1: only the boards still without a result
    POST /result, /pair, /bye   the arbiter's actions; POST /logout
    POST /force, /unpair, /undo
    POST /add-team, /roster, /lineup
                                a team division's teams, board orders and lineups

Every POST must come from a page of this server (``Origin``, else
``Referer``), carry the session cookie and the session's CSRF token; the
actions then run the very functions the CLI runs (:mod:`tmanager.events.service`:
``save_result``, ``pair``, ``request_bye``, ``force``, ``unpair``, ``undo``; ``add_team``, ``roster``,
``lineup``), so
each is one locked, journaled change, and a refused one writes nothing and
shows its reason beside the form. Unpairing and undoing also want the form's
confirmation box ticked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tmanager.core.results import PENDING, Colour
from tmanager.errors import StateError, TManagerError
from tmanager.events import journal, service
from tmanager.files import Stamp, stamp
from tmanager.web import arbiterpages, dashboard, eventpages
from tmanager.web.app import STATIC, Guard, is_loopback
from tmanager.web.auth import (
    SESSION_LIFETIME,
    KnownDevices,
    LoginThrottle,
    Session,
    Sessions,
    password_path,
    read_password,
    same_origin,
    same_token,
)
from tmanager.web.eventpages import Page, Sections, Snapshot
from tmanager.web.hub import POLL_SECONDS, Watcher
from tmanager.web.redact import Redactor

log = logging.getLogger("tmanager.web")

SESSION_COOKIE = "tmanager_session"
#: A browser that has logged in carries its device token in this cookie (see :class:`~tmanager.web.auth.KnownDevices`).
DEVICE_COOKIE = "tmanager_device"
DEVICE_LIFETIME = 90 * 24 * 3600
#: The login form's own CSRF token travels in this cookie and in the form (double submit).
LOGIN_COOKIE = "tmanager_login"
#: Rendered pages kept per version at most; more distinct addresses than this start the cache afresh.
MAX_RENDERS = 512
#: Longest password tried (scrypt of a huge text would be a cheap way to keep the server busy).
MAX_PASSWORD = 1024
WRITABLE = frozenset({"/login", "/logout", "/result", "/pair", "/bye", "/force", "/unpair", "/undo", "/add-team",
                      "/roster", "/lineup"})  # fmt: skip
_PAGES = ("start", "pairings", "standings", "table", "prizes", "player")


class EventHub(Watcher):
    """The current version of an event file, its rendered pages, and the live streams of its viewers."""

    def __init__(self, path: Path, *, poll: float = POLL_SECONDS) -> None:
        super().__init__(poll=poll)
        self.path = path.resolve()
        self.version = 0
        self.snapshot: Snapshot | None = None
        self.notice = ""
        self.redact = Redactor(())  # nothing is rendered before the file is read
        self._stamp: Stamp = None
        self._renders: dict[tuple[int, Page, str | None], asyncio.Future[Sections]] = {}

    def scan(self) -> bool:
        """Read the event file again if it changed; whether anything did."""
        current = stamp(self.path)
        if current == self._stamp:
            return False
        self._stamp = current
        # Before the file: a change in between leaves an older number, which an undo then refuses.
        change = journal.last_change(self.path)
        try:
            event = journal.load(self.path)
        except TManagerError as exc:
            # The message names the file: it goes to the owner's terminal, never to a page.
            log.warning("cannot read the event file, showing the last state read: %s", exc)
            self.notice = "The event file cannot be read just now; this is the last state read."
            return True
        self.notice = ""
        self.redact = Redactor.for_event(self.path, event)
        self.snapshot = Snapshot(event, last_change=change)
        return True

    async def refresh(self, *, first: bool) -> None:
        if await asyncio.to_thread(self.scan) or first:
            self.version += 1
            self._renders.clear()
            self.wake()

    async def sections(self, page: Page, csrf: str | None = None) -> Sections:
        """The sections of ``page`` as of the current version, rendered once for all viewers."""
        key = (self.version, page, csrf)
        future = self._renders.get(key)
        if future is None:
            if len(self._renders) >= MAX_RENDERS:
                self._renders.clear()
            future = asyncio.ensure_future(asyncio.to_thread(self._render, self.snapshot, page, csrf))
            self._renders[key] = future
        return await future

    def _render(self, snapshot: Snapshot | None, page: Page, csrf: str | None) -> Sections:
        notice = [("notice", dashboard.notice(self.notice))]
        if snapshot is None:
            return notice
        try:
            if page.kind == "arbiter":
                sections = arbiterpages.render(snapshot, page, csrf=csrf)
            else:
                sections = eventpages.render(snapshot, page)
        except TManagerError as exc:
            sections = eventpages.problem(str(exc))
        return [(key, self.redact(html)) for key, html in notice + sections]

    async def stream(self, page: Page, csrf: str | None, since: int | None) -> AsyncIterator[bytes]:
        """Server-sent events for one viewer of ``page`` whose copy is version ``since`` (``None``: none)."""
        sent = dict(await self.sections(page, csrf)) if since == self.version else {}
        seen = since if since == self.version else None
        yield b"retry: 2000\n\n"
        while not self.closed:
            if seen != self.version:
                seen = self.version
                current = dict(await self.sections(page, csrf))
                changed = {k: v for k, v in current.items() if sent.get(k) != v}
                # A section that comes or goes (a round paired, a notice) changes the page's layout: reload it.
                reload = bool(sent) and set(current) != set(sent)
                sent = current
                if changed or reload:
                    yield frame(seen, {"set": {} if reload else changed, "drop": [], "reload": reload})
                continue
            if not await self.wait():
                yield b": keepalive\n\n"


def frame(version: int, body: Mapping[str, object]) -> bytes:
    """One server-sent event in the dashboard's format (its script applies it)."""
    data = json.dumps({"now": round(time.time(), 3), "v": version, **body}, ensure_ascii=False, separators=(",", ":"))
    return f"id: {version}\ndata: {data}\n\n".encode()


def create_event_app(
    path: Path, *, poll: float = POLL_SECONDS, loopback_only: bool = True, throttle: LoginThrottle | None = None
) -> Starlette:
    """The event pages and the arbiter's actions for event file ``path``."""
    hub = EventHub(path, poll=poll)
    sessions = Sessions()
    limiter = throttle or LoginThrottle()
    devices = KnownDevices()
    # One scrypt at a time, guessing in parallel gains nothing; strangers queue apart from the browsers
    # that logged in before and this machine's, which a crowd of guessers must never keep out.
    verifying, verifying_known = asyncio.Lock(), asyncio.Lock()
    password_stamp = [stamp(password_path(hub.path))]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        yield
        await hub.stop()

    def notice_password() -> None:
        """A new password (or none) ends every session and forgives every failure: setting the password
        again on the server's machine is a way in that nothing can bar."""
        current = stamp(password_path(hub.path))
        if current != password_stamp[0]:
            sessions.clear()
            limiter.clear()
            password_stamp[0] = current

    def session_of(request: Request) -> Session | None:
        notice_password()
        return sessions.get(request.cookies.get(SESSION_COOKIE))

    def respond(page: Page, sections: Sections, *, version: int, session: Session | None, status: int = 200,
                flash: list[str] | None = None, live: bool = True) -> Response:  # fmt: skip
        document = eventpages.document(
            hub.snapshot, page, sections, version=version, arbiter=session is not None, flash=flash or (), live=live
        )
        return HTMLResponse(hub.redact(document), status_code=status, headers={"Cache-Control": "no-store"})

    async def show(request: Request, kind: str) -> Response:
        session = session_of(request)
        try:
            page = Page.from_query(kind, request.query_params)
        except StateError as exc:
            return respond(Page("home"), eventpages.problem(str(exc)), version=0, session=session, status=404,
                           live=False)  # fmt: skip
        if kind == "arbiter" and session is None:
            return RedirectResponse("login", status_code=303)
        version = hub.version
        sections = await hub.sections(page, session.csrf if kind == "arbiter" and session else None)
        flash: list[str] = []
        if session is not None and kind == "arbiter":
            flash, session.flash = session.flash, []
        missing = any(key == "problem" for key, _ in sections)
        return respond(page, sections, version=version, session=session, status=404 if missing else 200, flash=flash)

    def page_route(kind: str) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            return await show(request, kind)

        return handler

    def data_route(kind: str) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            snapshot = hub.snapshot
            try:
                if snapshot is None:
                    raise StateError("the event file cannot be read just now")
                page = Page.from_query(kind, request.query_params)
                body = await asyncio.to_thread(eventpages.page_data, snapshot, page)
            except TManagerError as exc:
                return PlainTextResponse(hub.redact(str(exc)), status_code=404)
            text = hub.redact(json.dumps(body, ensure_ascii=False))
            return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})

        return handler

    async def events(request: Request) -> Response:
        query = request.query_params
        try:
            page = Page.from_query(query.get("page", "home"), query)
        except StateError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        session = session_of(request)
        since = query.get("v", "")
        if page.kind == "arbiter" and session is None:
            body: AsyncIterator[bytes] = _once(frame(hub.version, {"set": {}, "drop": [], "reload": True}))
        else:
            csrf = session.csrf if page.kind == "arbiter" and session else None
            body = hub.stream(page, csrf, int(since) if since.isdigit() else None)
        return StreamingResponse(
            body, media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )

    # --- logging in and out ---------------------------------------------------------------------

    def login_page(request: Request, *, error: str = "", status: int = 200) -> Response:
        token = secrets.token_urlsafe(32)
        try:
            configured = read_password(hub.path) is not None
        except TManagerError:
            configured, error = True, error or "The password file is damaged: set the password again."
        response = respond(
            Page("login"), arbiterpages.login(csrf=token, error=error, configured=configured),
            version=hub.version, session=None, status=status, live=False,
        )  # fmt: skip
        _cookie(request, response, LOGIN_COOKIE, token, max_age=3600)
        return response

    async def login_form(request: Request) -> Response:
        if session_of(request) is not None:
            return RedirectResponse("arbiter", status_code=303)
        return login_page(request)

    async def login(request: Request) -> Response:
        if not _from_here(request):
            return refusal("This form was not sent from this server's page; the request is refused.")
        form = await _form(request)
        if not same_token(form.get("csrf"), request.cookies.get(LOGIN_COOKIE) or "\x00"):
            return login_page(request, error="The login form had expired; enter the password again.", status=403)
        notice_password()
        address = request.client.host if request.client else ""
        device = request.cookies.get(DEVICE_COOKIE)
        known = devices.known(device)
        client = f"device {device}" if known else address
        async with verifying_known if known or is_loopback(address) else verifying:
            # Checked inside the lock, so guesses sent at once queue and then wait their backoff too.
            wait = limiter.wait(client)
            if wait > 0:
                response = login_page(
                    request, error=f"Too many failed logins: wait {math.ceil(wait)} s before trying again.", status=429
                )
                response.headers["Retry-After"] = str(math.ceil(wait))
                return response
            try:
                stored = read_password(hub.path)
            except TManagerError:
                stored = None
            password = form.get("password", "")
            good = stored is not None and len(password) <= MAX_PASSWORD
            good = good and stored is not None and await run_in_threadpool(stored.matches, password)
        if not good:
            limiter.failed(client)
            message = "Wrong password." if stored is not None else "No arbiter password is set for this event."
            return login_page(request, error=message, status=403)
        limiter.succeeded(client)
        session = sessions.open()
        response = RedirectResponse("arbiter", status_code=303)
        _cookie(request, response, SESSION_COOKIE, session.token, max_age=int(SESSION_LIFETIME))
        if not known:
            _cookie(request, response, DEVICE_COOKIE, devices.issue(), max_age=DEVICE_LIFETIME)
        response.delete_cookie(LOGIN_COOKIE, path="/")
        return response

    async def logout(request: Request) -> Response:
        checked = await authorised(request)
        if isinstance(checked, Response):
            return checked
        session, _ = checked
        sessions.close(session.token)
        response = RedirectResponse("./", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    # --- the arbiter's actions ------------------------------------------------------------------

    def refusal(message: str) -> Response:
        return respond(Page("home"), eventpages.problem(message), version=hub.version, session=None, status=403,
                       live=False)  # fmt: skip

    async def authorised(request: Request) -> tuple[Session, dict[str, str]] | Response:
        """The session and the form of a POST that came from this server's page, or the refusal."""
        if not _from_here(request):
            return refusal("This form was not sent from this server's page; the request is refused.")
        session = session_of(request)
        if session is None:
            return refusal("Log in as the arbiter first.")
        form = await _form(request)
        if not same_token(form.get("csrf"), session.csrf):
            return refusal("The form is missing its security token (or it expired); reload the page and try again.")
        return session, form

    async def act(request: Request, form_key: str, change: Callable[[dict[str, str]], list[str]]) -> Response:
        """Run one change from a form: redirect with its messages, or show the page with the error by the form.

        ``form_key`` names the form; ``result`` forms are one per board (``result-N``) and
        come back to the round they were in.
        """
        checked = await authorised(request)
        if isinstance(checked, Response):
            return checked
        session, form = checked
        if form_key == "result":
            form_key = f"result-{form.get('board', '')}"
            round_number = _round_or_none(form.get("round", ""))
            page = Page("arbiter", form.get("d") or None, round_number, missing=bool(form.get("missing")))
        else:
            if form_key in ("roster", "lineup"):  # one form per team
                form_key = f"{form_key}-{form.get('team', '')}"
            page = Page("arbiter", form.get("d") or None)
        try:
            messages = await run_in_threadpool(change, form)
        except TManagerError as exc:
            version = hub.version
            snapshot = hub.snapshot
            try:
                sections = arbiterpages.render(snapshot, page, csrf=session.csrf, error=(form_key, str(exc)),
                                               values=form) if snapshot else []  # fmt: skip
            except TManagerError as problem:
                sections = eventpages.problem(f"{exc} ({problem})")
            return respond(page, sections, version=version, session=session, status=400)
        session.flash = [hub.redact(m) for m in messages]
        await hub.look()  # the next page shows the change at once
        return RedirectResponse(page.url(), status_code=303)

    def enter_result(form: dict[str, str]) -> list[str]:
        round_number, board = _number(form, "round"), _number(form, "board")
        correction = form.get("was", "*") not in PENDING
        entry = arbiterpages.result_entry(hub.snapshot, form, board)
        return service.save_result(hub.path, form.get("d") or None, entry, round_number, correction=correction,
                                   confirm=form.get("confirm") == "yes")  # fmt: skip

    def pair(form: dict[str, str]) -> list[str]:
        expected = _number(form, "round")
        colour = form.get("colour") or None
        if colour not in (None, "white", "black"):
            raise StateError("the colour is white, black or drawn by lot")
        return service.pair(
            hub.path,
            form.get("d") or None,
            colour=Colour.from_word(colour) if colour else None,
            expected_round=expected - 1,
        )

    def bye(form: dict[str, str]) -> list[str]:
        who, kind, round_number = form.get("player", "").strip(), form.get("kind", "half"), _number(form, "round")
        if not who:
            raise StateError("choose the player who asked for the bye")
        return service.request_bye(hub.path, form.get("d") or None, who, round_number, kind)

    def force(form: dict[str, str]) -> list[str]:
        expected = _number(form, "round")
        white, black = form.get("white", "").strip(), form.get("black", "").strip()
        if not (white and black):
            raise StateError("choose both players (or a player and bye)")
        return service.force(hub.path, form.get("d") or None, white, black, expected_round=expected - 1)

    def unpair(form: dict[str, str]) -> list[str]:
        expected = _number(form, "round")
        _confirmed(form, f"unpair round {expected}")
        return service.unpair(hub.path, form.get("d") or None, expected_round=expected)

    def undo(form: dict[str, str]) -> list[str]:
        expected = _number(form, "change")
        _confirmed(form, "undo the last change")
        return service.undo(hub.path, expected=expected)

    def add_team(form: dict[str, str]) -> list[str]:
        name = form.get("name", "").strip()
        if not name:
            raise StateError("give the team a name")
        return service.add_team(hub.path, form.get("d") or None, name, short=form.get("short", "").strip(),
                                players=form.get("players", "").split())  # fmt: skip

    def roster(form: dict[str, str]) -> list[str]:
        team = str(_number(form, "team"))
        return service.roster(hub.path, form.get("d") or None, team, form.get("players", "").split())

    def lineup(form: dict[str, str]) -> list[str]:
        team, round_number = str(_number(form, "team")), _number(form, "round")
        boards = sorted((int(k[5:]), v) for k, v in form.items() if k.startswith("board") and k[5:].isdigit())
        return service.lineup(hub.path, form.get("d") or None, team, [v for _, v in boards], round_number)

    changes = {"result": enter_result, "pair": pair, "bye": bye, "force": force, "unpair": unpair, "undo": undo,
               "add-team": add_team, "roster": roster, "lineup": lineup}  # fmt: skip

    def change_route(kind: str) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            return await act(request, kind, changes[kind])

        return handler

    async def home(request: Request) -> Response:
        return await show(request, "home")

    async def arbiter(request: Request) -> Response:
        return await show(request, "arbiter")

    app = Starlette(
        routes=[
            Route("/", home),
            *(Route(f"/{kind}", page_route(kind)) for kind in _PAGES),
            *(Route(f"/{kind}.json", data_route(kind)) for kind in ("pairings", "standings")),
            Route("/arbiter", arbiter),
            Route("/events", events),
            Route("/login", login_form, methods=["GET"]),
            Route("/login", login, methods=["POST"]),
            Route("/logout", logout, methods=["POST"]),
            *(Route(f"/{kind}", change_route(kind), methods=["POST"]) for kind in changes),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.hub = hub
    app.add_middleware(Guard, loopback_only=loopback_only, writable=WRITABLE)
    return app


async def _once(message: bytes) -> AsyncIterator[bytes]:
    yield b"retry: 2000\n\n" + message


def _cookie(request: Request, response: Response, name: str, value: str, *, max_age: int) -> None:
    """An HttpOnly, SameSite=Strict cookie for the whole site (Secure when served over HTTPS)."""
    response.set_cookie(
        name, value, max_age=max_age, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )


def _from_here(request: Request) -> bool:
    headers = request.headers
    return same_origin(host=headers.get("host", ""), origin=headers.get("origin"), referer=headers.get("referer"))


async def _form(request: Request) -> dict[str, str]:
    """The fields of a URL-encoded form (the first value of each); empty if it is not one."""
    try:
        fields = parse_qs((await request.body()).decode("utf-8"), keep_blank_values=True, max_num_fields=32)
    except (UnicodeDecodeError, ValueError):
        return {}
    return {key: values[0] for key, values in fields.items()}


def _number(form: Mapping[str, str], key: str) -> int:
    text = form.get(key, "").strip()
    if not (text.isdigit() and len(text) < 6):
        raise StateError(f"the {key} must be a number, not {text[:20]!r}")
    return int(text)


def _confirmed(form: Mapping[str, str], doing: str) -> None:
    if form.get("confirm") != "yes":
        raise StateError(f"tick the box to {doing}; nothing was changed")


def _round_or_none(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 6 else None
