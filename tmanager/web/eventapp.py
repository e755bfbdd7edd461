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
    POST /cancel-bye, /force, /unforce, /unpair, /undo
    POST /add-team, /roster, /lineup
                                a team division's teams, board orders and lineups

The app is an :class:`EventApp`: its routes are its methods; before them,
:class:`~tmanager.web.app.Guard` refuses what no page may do (other methods,
large bodies, strange hosts, a query field given twice) and :class:`~tmanager.web.arbiterauth.ArbiterAuth`
authenticates: every POST but the login must come from a page of this server
(``Origin``, else ``Referer``), carry the session cookie and the session's
CSRF token. The actions are a table (:data:`~tmanager.web.arbiteractions.ACTIONS`):
each reads its form into the arguments of the very function the CLI runs
(:mod:`tmanager.events.service`: ``save_result``, ``pair``, ``request_bye``,
``cancel_bye``, ``force``, ``unforce``, ``unpair``, ``undo``; ``add_team``, ``roster``, ``lineup``), so
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
import re
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from http import HTTPStatus
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from tmanager.errors import StateError, TManagerError
from tmanager.events import journal
from tmanager.files import Stamp, stamp
from tmanager.web import arbiterpages, dashboard, eventpages
from tmanager.web.app import STATIC, Assets, Guard, is_loopback, version_in
from tmanager.web.arbiteractions import ACTIONS, Action, Target
from tmanager.web.arbiterauth import (
    LOGOUT,
    SESSION_COOKIE,
    ArbiterAuth,
    form_in,
    from_here,
    read_form,
    session_in,
)
from tmanager.web.arbiterpages import ArbiterForm, FormError
from tmanager.web.auth import (
    MAX_PASSWORD,
    SESSION_LIFETIME,
    KnownDevices,
    LoginThrottle,
    Session,
    Sessions,
    password_path,
    read_password,
    same_token,
)
from tmanager.web.eventpages import Page, PageKind, Sections, Snapshot, back_address, page_at
from tmanager.web.fields import BadForm
from tmanager.web.hub import POLL_SECONDS, Watcher, first_version
from tmanager.web.redact import Redactor

log = logging.getLogger("tmanager.web")

#: A browser that has logged in carries its device token in this cookie (see :class:`~tmanager.web.auth.KnownDevices`).
DEVICE_COOKIE = "tmanager_device"
DEVICE_LIFETIME = 90 * 24 * 3600
#: The login form's own CSRF token travels in this cookie and in the form (double submit).
LOGIN_COOKIE = "tmanager_login"
#: What a login token looks like (``secrets.token_urlsafe(32)``): a cookie of any other form is not one of ours.
_LOGIN_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
#: Rendered pages kept per version at most; more distinct addresses than this start the cache afresh.
MAX_RENDERS = 512
#: Each action by its path.
_ACTION_AT = {f"/{kind.value}": action for kind, action in ACTIONS.items()}
#: The POSTs that need the arbiter's session and its token: logging out and the actions.
GUARDED = frozenset({LOGOUT, *_ACTION_AT})
#: The login form's path, GET and POST.
LOGIN = f"/{PageKind.LOGIN.value}"
#: The paths that take a POST at all.
WRITABLE = GUARDED | {LOGIN}
#: A live update that has the page load itself again (an arbiter's page without its session: the login form).
RELOAD: Mapping[str, object] = {"set": {}, "drop": [], "reload": True}
#: The pages at ``/KIND``: all but the home page (at ``/``) and the login form (its own routes, below).
_PAGES = tuple(kind for kind in PageKind if kind not in (PageKind.HOME, PageKind.LOGIN))
#: The pages also at ``/KIND.json``, as data.
_DATA_PAGES = (PageKind.PAIRINGS, PageKind.STANDINGS)


class EventHub(Watcher):
    """The current version of an event file, its rendered pages, and the live streams of its viewers."""

    def __init__(self, path: Path, *, poll: float = POLL_SECONDS) -> None:
        super().__init__(poll=poll)
        self.path = path.resolve()
        self.version = first_version()
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
            self.notice = "The event file cannot be read just now" + (
                "; this is the last state read." if self.snapshot is not None else "."
            )
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
            if page.kind is PageKind.ARBITER:
                sections = arbiterpages.render(snapshot, page, csrf=csrf)
            else:
                sections = eventpages.render(snapshot, page)
        except TManagerError as exc:
            sections = eventpages.problem(str(exc))
        return [(key, self.redact(html)) for key, html in notice + sections]

    async def stream(self, page: Page, csrf: str | None, since: int | None) -> AsyncGenerator[bytes, None]:
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


class EventApp:
    """The event pages and the arbiter's actions for one event file, as a Starlette app (:meth:`starlette`).

    Authentication is :class:`~tmanager.web.arbiterauth.ArbiterAuth`, a middleware in front of every route;
    the actions are :data:`~tmanager.web.arbiteractions.ACTIONS`, a route (``POST /NAME``) each.
    """

    def __init__(
        self,
        path: Path,
        *,
        poll: float = POLL_SECONDS,
        loopback_only: bool = True,
        throttle: LoginThrottle | None = None,
    ) -> None:
        self.hub = EventHub(path, poll=poll)
        self.loopback_only = loopback_only
        self.sessions = Sessions()
        self.limiter = throttle or LoginThrottle()
        self.devices = KnownDevices()
        # One scrypt at a time, guessing in parallel gains nothing; strangers queue apart from the browsers
        # that logged in before and this machine's, which a crowd of guessers must never keep out.
        self.verifying, self.verifying_known = asyncio.Lock(), asyncio.Lock()
        self.password_stamp = stamp(password_path(self.hub.path))

    def starlette(self) -> Starlette:
        """The application: the pages, the login, the actions, behind :class:`Guard` and :class:`ArbiterAuth`."""
        return Starlette(
            routes=[
                Route("/", self.page_route(PageKind.HOME)),
                *(Route(f"/{kind.value}", self.page_route(kind)) for kind in _PAGES),
                *(Route(f"/{kind.value}.json", self.data_route(kind)) for kind in _DATA_PAGES),
                Route("/events", self.events),
                Route(LOGIN, self.login_form, methods=["GET"]),
                Route(LOGIN, self.login, methods=["POST"]),
                Route(LOGOUT, self.logout, methods=["POST"]),
                *(Route(f"/{kind.value}", self.action_route(kind), methods=["POST"]) for kind in ACTIONS),
                Mount("/static", Assets(directory=STATIC), name="static"),
            ],
            middleware=[
                Middleware(Guard, loopback_only=self.loopback_only, writable=WRITABLE),
                Middleware(ArbiterAuth, session_of=self.session_of, guarded=GUARDED, refuse=self.refusal),
            ],
            lifespan=self.lifespan,
        )

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await self.hub.start()
        yield
        await self.hub.stop()

    def notice_password(self) -> None:
        """A new password (or none) ends every session and forgives every failure: setting the password
        again on the server's machine is a way in that nothing can bar."""
        current = stamp(password_path(self.hub.path))
        if current != self.password_stamp:
            self.sessions.clear()
            self.limiter.clear()
            self.password_stamp = current

    def session_of(self, token: str | None) -> Session | None:
        self.notice_password()
        return self.sessions.get(token)

    def respond(self, page: Page, sections: Sections, *, version: int, session: Session | None, status: int = 200,
                flash: Sequence[str] = (), live: bool = True, leads_to: Page | None = None) -> Response:  # fmt: skip
        document = eventpages.document(self.hub.snapshot, page, sections, version=version, arbiter=session is not None,
                                       flash=flash, live=live, leads_to=leads_to)  # fmt: skip
        return HTMLResponse(self.hub.redact(document), status_code=status, headers={"Cache-Control": "no-store"})

    def refusal(self, message: str, status: int = 403, path: str = "", form: Mapping[str, str] | None = None
                ) -> Response:  # fmt: skip
        """The page of a refused POST (an action to ``path`` with its ``form``, or a login): as the arbiter's page's,
        whose login leads back to it (where the home page's led there, 12184c9, away from the arbiter's forms):
        to the division and round the form was sent from, when it was read."""
        action = _ACTION_AT.get(path)
        page = action.page(form) if action is not None and form is not None else Page(PageKind.ARBITER)
        return self.respond(page, eventpages.problem(message, status=status),
                            version=self.hub.version, session=None, status=status, live=False)  # fmt: skip

    # --- the pages ------------------------------------------------------------------------------

    def page_route(self, kind: PageKind) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            return await self.show(request, kind)

        return handler

    async def show(self, request: Request, kind: PageKind) -> Response:
        session = session_in(request)
        try:
            page = Page.from_query(kind, request.query_params)
        except StateError as exc:  # a malformed address (`round=x`): the request's fault, not a page not there
            return self.respond(Page(PageKind.HOME), eventpages.problem(str(exc), status=400), version=0,
                                session=session, status=400, live=False)  # fmt: skip
        version = self.hub.version
        arbiter = session if kind is PageKind.ARBITER else None
        sections = await self.hub.sections(page, arbiter.csrf if arbiter else None)
        flash: list[str] = []
        if arbiter is not None:
            flash, arbiter.flash = arbiter.flash, []
        # No state read yet (the file spoiled between the command's check and the first read): the notice alone,
        # as a page that will come, not one that is not there.
        status = 503 if self.hub.snapshot is None else 404 if eventpages.has_problem(sections) else 200
        return self.respond(page, sections, version=version, session=session, status=status, flash=flash)

    def data_route(self, kind: PageKind) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            snapshot = self.hub.snapshot
            try:
                page = Page.from_query(kind, request.query_params)
            except StateError as exc:
                return PlainTextResponse(str(exc), status_code=400)
            if snapshot is None:
                return PlainTextResponse("the event file cannot be read just now", status_code=503,
                                         headers={"Retry-After": str(max(1, round(self.hub.poll)))})  # fmt: skip
            try:
                body = await asyncio.to_thread(eventpages.page_data, snapshot, page)
            except TManagerError as exc:
                return PlainTextResponse(self.hub.redact(str(exc)), status_code=404)
            text = self.hub.redact(json.dumps(body, ensure_ascii=False))
            return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})

        return handler

    async def events(self, request: Request) -> Response:
        query = request.query_params
        try:
            page = Page.from_query(PageKind.parse(query.get("page", PageKind.HOME.value)), query)
        except StateError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        session = session_in(request)
        since = version_in(query.get("v", ""))
        body: AsyncIterator[bytes]
        if page.kind is not PageKind.ARBITER:
            body = self.hub.stream(page, None, since)
        elif session is None:
            body = _once(frame(self.hub.version, RELOAD))
        else:
            body = self._while_open(session, self.hub.stream(page, session.csrf, since))
        return StreamingResponse(
            body, media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )

    async def _while_open(self, session: Session, stream: AsyncGenerator[bytes, None]) -> AsyncIterator[bytes]:
        """The arbiter's page's ``stream`` while ``session`` lasts, then a reload, which leads to the login form: a
        page left open went on being sent the arbiter's forms, with the ended session's token, after its session
        ended (logged out, expired, or a new password set to shut out a lost phone)."""
        async with contextlib.aclosing(stream):  # the hub's stream ends with the page, not when collected
            async for chunk in stream:
                self.notice_password()
                if not self.sessions.holds(session):
                    yield frame(self.hub.version, RELOAD)
                    return
                yield chunk

    # --- logging in and out ---------------------------------------------------------------------

    def login_page(self, request: Request, back: str | None, *, error: str = "", status: int = 200) -> Response:
        """The login form, which leads to ``back`` (:func:`~tmanager.web.eventpages.back_address`)."""
        # The browser's login token while it has one: every login form it shows carries the same. A new token for
        # each form made the forms of the browser's other tabs "expired" (the arbiter's pages of two divisions, both
        # sent to the login form as their session ended): the password typed into any but the last was refused.
        given = request.cookies.get(LOGIN_COOKIE) or ""
        token = given if _LOGIN_TOKEN.fullmatch(given) else secrets.token_urlsafe(32)
        try:
            configured = read_password(self.hub.path) is not None
        except TManagerError:
            # Before what a login said: it found no password to check ("No arbiter password is set"), as if none
            # had ever been set.
            configured, error = True, "The password file is damaged: set the password again."
        leads = back_address(back)
        response = self.respond(
            Page(PageKind.LOGIN),
            arbiterpages.login(csrf=token, back=leads, error=error, configured=configured),
            version=self.hub.version, session=None, status=status, live=False, leads_to=page_at(leads),
        )  # fmt: skip
        _cookie(request, response, LOGIN_COOKIE, token, max_age=3600)
        return response

    async def login_form(self, request: Request) -> Response:
        back = request.query_params.get("next")
        if session_in(request) is not None:
            return RedirectResponse(back_address(back), status_code=303)
        return self.login_page(request, back)

    async def login(self, request: Request) -> Response:
        if not from_here(request):
            return self.refusal("This form was not sent from this server's page; the request is refused.")
        try:
            form = await read_form(request)
        except BadForm as exc:
            return self.login_page(request, None, error=str(exc), status=400)
        back = form.get("next")
        if not same_token(form.get("csrf"), request.cookies.get(LOGIN_COOKIE) or "\x00"):
            expired = "The login form had expired; enter the password again."
            return self.login_page(request, back, error=expired, status=403)
        self.notice_password()
        address = request.client.host if request.client else ""
        device = request.cookies.get(DEVICE_COOKIE)
        known = self.devices.known(device)
        client = f"device {device}" if known else address
        async with self.verifying_known if known or is_loopback(address) else self.verifying:
            # Checked inside the lock, so guesses sent at once queue and then wait their backoff too.
            wait = self.limiter.wait(client)
            if wait > 0:
                waiting = f"Too many failed logins: wait {math.ceil(wait)} s before trying again."
                response = self.login_page(request, back, error=waiting, status=429)
                response.headers["Retry-After"] = str(math.ceil(wait))
                return response
            configured, good = await self._verify(form.get("password", ""))
        if not good:
            self.limiter.failed(client)
            message = "Wrong password." if configured else "No arbiter password is set for this event."
            return self.login_page(request, back, error=message, status=403)
        self.limiter.succeeded(client)
        session = self.sessions.open()
        response = RedirectResponse(back_address(back), status_code=303)
        _cookie(request, response, SESSION_COOKIE, session.token, max_age=int(SESSION_LIFETIME))
        if not known:
            _cookie(request, response, DEVICE_COOKIE, self.devices.issue(), max_age=DEVICE_LIFETIME)
        response.delete_cookie(LOGIN_COOKIE, path="/")
        return response

    async def _verify(self, password: str) -> tuple[bool, bool]:
        """Whether a password is set (a damaged file: none), and whether ``password`` is it."""
        try:
            stored = read_password(self.hub.path)
        except TManagerError:
            stored = None
        if stored is None or len(password) > MAX_PASSWORD:
            return stored is not None, False
        return True, await run_in_threadpool(stored.matches, password)

    async def logout(self, request: Request) -> Response:
        session = session_in(request)
        if session is not None:  # else ended already: ArbiterAuth lets such a logout through
            self.sessions.close(session.token)
        response = RedirectResponse("./", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    # --- the arbiter's actions ------------------------------------------------------------------

    def action_route(self, kind: ArbiterForm) -> Callable[[Request], Awaitable[Response]]:
        chosen = ACTIONS[kind]

        async def handler(request: Request) -> Response:
            return await self.act(request, kind, chosen)

        return handler

    async def act(self, request: Request, kind: ArbiterForm, chosen: Action) -> Response:
        """Run one action from its form: redirect with its messages, or show the page with the error beside the
        form that was sent."""
        session, form = session_in(request), form_in(request)
        assert session is not None  # ArbiterAuth lets no action through without one
        page = chosen.page(form)
        try:
            change = await run_in_threadpool(chosen.run, Target(self.hub.path, self.hub.snapshot), form)
        except TManagerError as exc:
            return self._refused_action(page, session, form, chosen.refused(kind, form, str(exc)))
        session.flash = [self.hub.redact(m) for m in change.messages]
        await self.hub.look()  # the next page shows the change at once
        return RedirectResponse(page.url(), status_code=303)

    def _refused_action(self, page: Page, session: Session, form: dict[str, str], error: FormError) -> Response:
        """The arbiter's page with the reason beside the form, its fields as they were sent."""
        version, snapshot = self.hub.version, self.hub.snapshot
        try:
            sections = arbiterpages.render(snapshot, page, csrf=session.csrf, error=error,
                                           values=form) if snapshot else []  # fmt: skip
        except TManagerError as problem:
            # The form's own round or division, which the page cannot show, is usually why the action was refused:
            # say so once ("round 7 is not paired", not that twice over).
            said = error.message if str(problem) in error.message else f"{error.message} ({problem})"
            sections = eventpages.problem(said, status=HTTPStatus.BAD_REQUEST)
        return self.respond(page, sections, version=version, session=session, status=HTTPStatus.BAD_REQUEST)


def create_event_app(
    path: Path, *, poll: float = POLL_SECONDS, loopback_only: bool = True, throttle: LoginThrottle | None = None
) -> Starlette:
    """The event pages and the arbiter's actions for event file ``path`` (:class:`EventApp`)."""
    return EventApp(path, poll=poll, loopback_only=loopback_only, throttle=throttle).starlette()


async def _once(message: bytes) -> AsyncIterator[bytes]:
    yield b"retry: 2000\n\n" + message


def _cookie(request: Request, response: Response, name: str, value: str, *, max_age: int) -> None:
    """An HttpOnly, SameSite=Strict cookie for the whole site (Secure when served over HTTPS)."""
    response.set_cookie(
        name, value, max_age=max_age, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )
