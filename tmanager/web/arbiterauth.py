"""Who may change the event through its pages: the arbiter's authentication, as one Starlette middleware.

:class:`ArbiterAuth` runs before any route. It finds the request's session
(the session cookie, :class:`~tmanager.web.auth.Sessions`) and leaves it in
the request's state for the pages (:func:`session_in`), which show the arbiter's
links and forms to a session only. The arbiter's page itself (``GET
/arbiter``) without a session goes to the login page, which leads back to
that very address (its division and round) once the password is right
(:func:`~tmanager.web.eventpages.login_address`, :func:`~tmanager.web.eventpages.back_address`). A POST to a guarded
path (the arbiter's actions and logging out) passes only if it came from a
page of this server (``Origin``, else ``Referer``), carries the session
cookie and the session's CSRF token in its form, checked in that order (a logout without a session passes: there
is nothing to end); its form, read before the session is asked for, is left in the state (:func:`form_in`) for the
route, or for the refusal's page, whose login leads back to the division and round it was sent from. Anything else
is refused with the reason, before any route could change anything. Every
other page is open to everyone, read-only (:class:`~tmanager.web.app.Guard`
refuses other methods).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from tmanager.web.auth import Session, same_origin, same_token
from tmanager.web.eventpages import PageKind, login_address
from tmanager.web.fields import BadForm, form_fields

SESSION_COOKIE = "tmanager_session"
#: The page only a session may see; without one it leads to the login page.
ARBITER_PAGE = f"/{PageKind.ARBITER.value}"
#: Logging out: a POST from this server's page, with the session's token; without a session, there is none to end.
LOGOUT = "/logout"


class ArbiterAuth:
    """The middleware: ``session_of`` finds a session by its cookie's token; ``guarded`` are the paths whose POST
    needs the session and its token; ``refuse`` makes the page that says why a POST was refused, with its status,
    from the path and the form refused (``None``: not read), which name the page the form was sent from."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        session_of: Callable[[str | None], Session | None],
        guarded: frozenset[str],
        refuse: Callable[[str, int, str, Mapping[str, str] | None], Response],
    ) -> None:
        self.app = app
        self.session_of = session_of
        self.guarded = guarded
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        session = self.session_of(request.cookies.get(SESSION_COOKIE))
        request.state.session = session
        if scope["method"] == "POST" and scope["path"] in self.guarded:
            refusal = await self._refusal(request, session)
            if refusal is not None:
                message, status = refusal
                form: Mapping[str, str] | None = getattr(request.state, "form", None)
                await self.refuse(message, status, scope["path"], form)(scope, receive, send)
                return
        elif scope["path"] == ARBITER_PAGE and session is None:
            query = scope["query_string"].decode("latin-1")
            back = PageKind.ARBITER.value + (f"?{query}" if query else "")
            await RedirectResponse(login_address(back), status_code=303)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refusal(request: Request, session: Session | None) -> tuple[str, int] | None:
        """Why a guarded POST is refused, and the status that says so (``None``: it is not); its form goes into
        the request's state."""
        if not from_here(request):
            return "This form was not sent from this server's page; the request is refused.", 403
        if session is None and request.url.path == LOGOUT:
            # Logged out already (in another tab, whose page this one has not heard of yet, or by a second click):
            # that is done, where it was a 403 page saying to log in.
            return None
        try:
            form = await read_form(request)
        except BadForm as exc:
            return ("Log in as the arbiter first.", 403) if session is None else (str(exc), 400)
        # Read before the session is asked for: a refusal's login leads back to the page the form was sent from
        # (its division and round), where it led to the first division's page.
        request.state.form = form
        if session is None:
            return "Log in as the arbiter first.", 403
        if not same_token(form.get("csrf"), session.csrf):
            return "The form is missing its security token (or it expired); reload the page and try again.", 403
        return None


def session_in(request: Request) -> Session | None:
    """The arbiter's session of a request that went through :class:`ArbiterAuth` (``None``: a viewer)."""
    session: Session | None = request.state.session
    return session


def form_in(request: Request) -> dict[str, str]:
    """The form of a guarded POST that :class:`ArbiterAuth` let through."""
    form: dict[str, str] = request.state.form
    return form


def from_here(request: Request) -> bool:
    """Whether the request came from a page of this server (its ``Origin``, else its ``Referer``): of the host it
    was sent to, which a reverse proxy names in ``X-Forwarded-Host`` (its ``Host`` is the server's own address).

    Behind a proxy every POST was refused, the login's too: the browser's origin is the proxy's public name, and a
    server on a loopback address refuses that name as its ``Host`` (DNS rebinding). Believing the header opens
    nothing to another site: a page elsewhere cannot make a browser send it with a form (nor with a script's request
    but after a preflight, which this server never answers).
    """
    headers = request.headers
    origin, referer = headers.get("origin"), headers.get("referer")
    hosts = [headers.get("host", ""), headers.get("x-forwarded-host", "").split(",")[0].strip()]
    return any(same_origin(host=host, origin=origin, referer=referer) for host in hosts if host)


async def read_form(request: Request) -> dict[str, str]:
    """The fields of a URL-encoded form; a :class:`~tmanager.web.fields.BadForm` if it is not UTF-8 text or gives a
    field twice (:func:`~tmanager.web.fields.form_fields`)."""
    # Every field, however many: the body is small (Guard lets none over 16 KiB through). It was read only up to 32
    # fields, and past them as no form at all, so that a team of 30 boards' lineup was "missing its security token".
    return form_fields(await request.body())
