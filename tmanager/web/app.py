"""The web application: a read-only Starlette app over one tourney file.

Routes::

    GET /                  the dashboard
    GET /events            server-sent events: the sections that changed (see hub.Hub.stream)
    GET /pgn               the whole PGN file
    GET /pgn/N             game N
    GET /board.svg         a board diagram (python-chess SVG) for ?fen=…&last=…
    GET /crosstable.html   the full cross-table page (tmanager.core.crosstableformats)
    GET /static/…          the stylesheet and the script

Any other method is refused with 405 before routing, so no URL can change
anything. The event pages (:mod:`tmanager.web.eventapp`) name the few paths
where :class:`Guard` lets a small POST through to the arbiter's actions, whose
session and CSRF token their own middleware checks
(:class:`~tmanager.web.arbiterauth.ArbiterAuth`).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import ipaddress
import os
import re
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tmanager.core import crosstable, crosstableformats
from tmanager.errors import MOST_DIGITS, ascii_digits
from tmanager.files import open_file
from tmanager.tourney.variants import STANDARD
from tmanager.web import dashboard
from tmanager.web.fields import RepeatedField, check_query
from tmanager.web.hub import POLL_SECONDS, Hub
from tmanager.web.redact import Redactor

STATIC = Path(__file__).resolve().parent / "static"

#: Pages may load only their own script, stylesheet and images, and be framed by no one.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: python-chess SVG boards style their pieces with style attributes.
BOARD_POLICY = "default-src 'none'; style-src 'unsafe-inline'"

SAFE_METHODS = frozenset({"GET", "HEAD"})
#: The largest request body let through to a writable path: the arbiter's forms are a few hundred bytes.
MAX_FORM_BYTES = 16 * 1024


def create_app(
    path: Path, *, show_engines: bool = False, poll: float = POLL_SECONDS, loopback_only: bool = True
) -> Starlette:
    """The dashboard app for tourney file ``path``.

    ``loopback_only`` accepts only requests addressed to a loopback name, so a web
    page elsewhere cannot reach a server bound to 127.0.0.1 by DNS rebinding.
    """
    hub = Hub(path, show_engines=show_engines, poll=poll)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        yield
        await hub.stop()

    async def index(request: Request) -> Response:
        return HTMLResponse(hub.page(), headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        return StreamingResponse(
            hub.stream(version_in(request.query_params.get("v", ""))),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def whole_pgn(request: Request) -> Response:
        tourney = hub.tourney
        if tourney is None or not tourney.pgn_path.is_file():
            return PlainTextResponse("No game recorded yet.", status_code=404)
        return StreamingResponse(
            _redacted_lines(tourney.pgn_path, hub.redact),
            media_type="application/x-chess-pgn",
            headers=_attachment(tourney.settings.name, ".pgn"),
        )

    async def one_game(request: Request) -> Response:
        # Read here, not by Starlette's {number:int}, which is int() of any run of digits: past 4,300 of them
        # a ValueError while routing, a server error with a traceback.
        number: str = request.path_params["number"]
        tourney, index = hub.tourney, hub.pgn
        game = int(number) if ascii_digits(number) else None
        text = await run_in_threadpool(index.game_text, game) if index is not None and game is not None else None
        if tourney is None or game is None or text is None:
            return PlainTextResponse(f"Game {number[:20]} is not in the PGN file.", status_code=404)
        return Response(
            hub.redact(text),
            media_type="application/x-chess-pgn",
            headers=_attachment(tourney.settings.name, f"-game-{game}.pgn"),
        )

    async def board(request: Request) -> Response:
        return _board_diagram(request.query_params, hub.tourney.settings.variant if hub.tourney else STANDARD)

    async def table_page(request: Request) -> Response:
        tourney = hub.tourney
        if tourney is None:
            return PlainTextResponse("The tourney file has not been read yet.", status_code=503)
        built = await run_in_threadpool(tourney.crosstable)
        page = hub.redact(crosstableformats.render(built, crosstable.Format.HTML))
        return HTMLResponse(page, headers={"Cache-Control": "no-store", "Content-Security-Policy": _styled(page)})

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/events", events),
            Route("/pgn", whole_pgn),
            Route("/pgn/{number}", one_game),
            Route("/board.svg", board),
            Route("/crosstable.html", table_page),
            Mount("/static", Assets(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.hub = hub
    app.add_middleware(Guard, loopback_only=loopback_only)
    return app


class Guard:
    """Refuses what a read-only dashboard must not do, before any route runs.

    Methods other than GET and HEAD get 405, except POST to the ``writable``
    paths, and only with a declared body of at most :data:`MAX_FORM_BYTES`; with
    ``loopback_only``, a Host header that is not a loopback name gets 400; and any
    query that gives a field twice gets 400 (:mod:`tmanager.web.fields`). Every
    response carries headers that keep browsers from sniffing types, framing the
    pages or sending referrers to other sites.
    """

    def __init__(self, app: ASGIApp, *, loopback_only: bool, writable: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.loopback_only = loopback_only
        self.writable = writable

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        post = scope["method"] == "POST" and scope["path"] in self.writable
        if scope["method"] not in SAFE_METHODS and not post:
            refusal = PlainTextResponse(
                "Nothing can be changed through this address.",
                status_code=405,
                headers={"Allow": "GET, HEAD" + (", POST" if scope["path"] in self.writable else "")},
            )
            await refusal(scope, receive, self._secured(send))
            return
        if post and not _small_body(scope):
            refusal = PlainTextResponse("The form is too large or its length is not given.", status_code=413)
            await refusal(scope, receive, self._secured(send))
            return
        if self.loopback_only and not is_loopback(_host(scope)):
            await PlainTextResponse("Unknown host.", status_code=400)(scope, receive, self._secured(send))
            return
        try:
            check_query(scope["query_string"])
        except RepeatedField as exc:
            await PlainTextResponse(str(exc), status_code=400)(scope, receive, self._secured(send))
            return
        await self.app(scope, receive, self._secured(send))

    @staticmethod
    def _secured(send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in (
                    (b"content-security-policy", PAGE_POLICY.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    # Not no-referrer: browsers then send "Origin: null", which the arbiter's forms refuse.
                    (b"referrer-policy", b"same-origin"),
                ):
                    if name not in present:
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        return wrapped


class Assets(StaticFiles):
    """The stylesheets, the script and the icon, which browsers check again at every use (``no-cache``: a 304 while
    they are the same). With Last-Modified alone they guessed a freshness of a tenth of the file's age (days, for a
    package installed a month after it was built): after an upgrade, pages of the new layout ran the old script,
    which reads the live updates, and the old stylesheet, until the guess ran out."""

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = "no-cache"
        return response


def _small_body(scope: Scope) -> bool:
    """Whether the request's body is declared, by its length alone, to be at most :data:`MAX_FORM_BYTES`."""
    headers = scope["headers"]
    if any(name == b"transfer-encoding" for name, _ in headers):
        # It overrides Content-Length (RFC 9112, 6.3): a chunked body of any size, sent with a small length
        # declared, was read whole into memory (600 MiB to a login form, unauthenticated). Browsers never chunk forms.
        return False
    for name, value in headers:
        if name == b"content-length":
            # bytes.isdigit is ASCII's; a length of thousands of digits is refused before int() raises on it
            return value.isdigit() and len(value) <= MOST_DIGITS and int(value) <= MAX_FORM_BYTES
    return False


def _host(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"host":
            host: str = value.decode("latin-1")
            return host[1 : host.index("]")] if host.startswith("[") and "]" in host else host.split(":")[0]
    return ""


def version_in(text: str) -> int | None:
    """The version a live page says it has (``/events?v=42``), or ``None``: not a number as typed
    (:func:`~tmanager.errors.ascii_digits`: thousands of digits were int()'s ValueError, a server error)."""
    return int(text) if ascii_digits(text) else None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) can only mean this machine."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    # ::ffff:127.0.0.1 (an IPv6 socket's view of 127.0.0.1) is not loopback to ipaddress before Python 3.13
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return (mapped or address).is_loopback


def _board_diagram(query: Mapping[str, str], variant: str) -> Response:
    """``GET /board.svg?fen=…&last=…``: the position's diagram, or why there is none."""
    try:
        svg = _board_svg(query.get("fen", ""), query.get("last", ""), variant)
    except ValueError:
        return PlainTextResponse("Not a position: give fen=FEN and optionally last=UCI.", status_code=400)
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400, immutable", "Content-Security-Policy": BOARD_POLICY},
    )


@functools.lru_cache(maxsize=512)
def _board_svg(fen: str, last: str, variant: str) -> str:
    if len(fen) > 120 or len(last) > 6:
        raise ValueError("too long")
    return dashboard.board_svg(fen, last, variant=variant)


def _styled(page: str) -> str:
    """The policy of a page made to stand alone (``tmanager crosstable --format html``), which carries its
    stylesheet inline: :data:`PAGE_POLICY` blocked it, and the page was shown unstyled. Its own stylesheets
    are let through by their hash, nothing else (it has no script)."""
    hashes = [
        f"'sha256-{base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()}'"
        for css in re.findall(r"<style>(.*?)</style>", page, flags=re.DOTALL)
    ]
    styles = " ".join(hashes) or "'none'"
    return f"default-src 'none'; style-src {styles}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def _redacted_lines(path: Path, redact: Redactor) -> Iterator[bytes]:
    """The file in blocks of whole lines, redacted (paths never span lines)."""
    with open(open_file(path), encoding="utf-8", errors="replace") as f:
        while lines := f.readlines(1 << 16):
            yield redact("".join(lines)).encode()


def _attachment(name: str, suffix: str) -> dict[str, str]:
    """A download of the tourney ``name``'s file ending in ``suffix``: its name as ASCII for every client and,
    for a name with other letters (which that drops: "Турнир" was "tourney.pgn"), in full (RFC 6266)."""
    plain = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "tourney"
    disposition = f'attachment; filename="{plain}{suffix}"'
    if not name.isascii():
        full = re.sub(r"[^\w.-]+", "-", name).strip("-.") or "tourney"
        disposition += f"; filename*=UTF-8''{quote(full + suffix, safe='')}"
    return {"Content-Disposition": disposition, "Cache-Control": "no-store"}
