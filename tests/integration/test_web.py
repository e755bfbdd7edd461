"""The live dashboard: a real `tmanager serve` on loopback, real workers, Chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess.pgn
import pytest

from tests.conftest import ROOT, run_cli
from tests.integration.test_workers import slow_tourney, start_worker, wait_for
from tests.screenshots import png_pixels
from tmanager.tourney import store
from tmanager.tourney.model import Claim
from tmanager.web.hub import FinishEstimate
from tmanager.web.pgnindex import PgnIndex
from tmanager.web.redact import MASK, Redactor

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless under Playwright (imported here: only the tests that need a browser need it),
    closed however the block ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# --- helpers -------------------------------------------------------------------------------------


class Server:
    """`tmanager serve FILE --port 0` as a real process; ``url`` is where it listens."""

    def __init__(self, path: Path, *args: str, files: int | None = None) -> None:
        def limited() -> None:  # the limit of open files a service manager may start it with
            if files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        self.process = subprocess.Popen(
            [sys.executable, "-m", "tmanager", "serve", str(path), "--port", "0", *args], preexec_fn=limited,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "http://" in line, (line, self.process.stderr.read() if self.process.stderr else "")
        self.line = line
        self.url = "http://" + line.split("http://", 1)[1].split()[0]
        self.host, self.port = self.url.removeprefix("http://").rstrip("/").rsplit(":", 1)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Server] = []

    def start(path: Path, *args: str, files: int | None = None) -> Server:
        servers.append(Server(path, *args, files=files))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def fetch(url: str, *, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method, headers=headers or {},
                                     data=b"result=1-0" if method == "POST" else None)  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def events(server: Server, since: str = "", *, cookies: str = "", timeout: float = 10) -> Iterator[dict[str, Any]]:
    """The decoded messages of the server's event stream, as they come (with a session's ``cookies``)."""
    # Less than the keep-alive interval by default: a message that never comes fails the test.
    connection = http.client.HTTPConnection(server.host, int(server.port), timeout=timeout)
    connection.request("GET", f"/events{since}", headers={"Cookie": cookies} if cookies else {})
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/event-stream")
    try:
        while line := response.readline():
            if line.startswith(b"data: "):
                yield json.loads(line[6:])
    finally:
        connection.close()


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def assert_not_blank(png: bytes) -> None:
    """Most of a real page is background; a blank one is all background."""
    width, channels, rows = png_pixels(png)
    counts: dict[bytes, int] = {}
    for row in rows[::3]:  # every third row is plenty and keeps this quick
        for x in range(0, width * channels, channels):
            pixel = row[x : x + 3]
            counts[pixel] = counts.get(pixel, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    assert total - background > 0.05 * total, "screenshot is (almost) one colour"
    assert len(counts) > 50, "screenshot has too few colours to show boards and text"


def secrets_of(directory: Path) -> list[str]:
    """What must never appear on a page: paths and the engines' command-line fragments."""
    return [str(directory), os.path.realpath(directory), str(ROOT), sys.executable, "pyengine", "--delay",
            "--protocol", "TMANAGER_GAME"]  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished round robin of three fast engines, with an after_game hook (a command line)."""
    path = slow_tourney(
        tmp_path_factory.mktemp("played") / "p.toml", players=3, games=2, max_moves=8,
        extra='after_game = "echo $TMANAGER_GAME >> hooked.txt"',
    )  # fmt: skip
    done = run_cli("run", path)
    assert done.returncode == 0, done.stderr
    return path


def copy_of(path: Path, tmp_path: Path) -> Path:
    shutil.copytree(path.parent, tmp_path / "copy")
    return tmp_path / "copy" / path.name


# --- the browser -----------------------------------------------------------------------------------


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
def test_dashboard_shows_a_game_in_progress_and_follows_the_worker(tmp_path: Path, serve: Any) -> None:

    path = slow_tourney(tmp_path / "live.toml", players=2, games=2, delay=0.1, max_moves=12)
    path.write_text(path.read_text().replace("nodes = 1", 'tc = "10:00"'))  # clocks to show
    server = serve(path)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(server.url)
        page.wait_for_selector("#standings td.name")
        assert page.inner_text("#progress").startswith("0 of 2 games played")
        page.evaluate("window.notReloaded = true")
        worker = start_worker(path, "--games", "1")
        try:
            # Polled from here: the page's CSP forbids the eval that wait_for_function needs.
            wait_for(lambda: page.evaluate("document.querySelector('#games .game img.board')?.naturalWidth > 0"))
            card = page.locator("#games .game").first
            assert "E0" in card.inner_text() and "E1" in card.inner_text()
            assert "1." in card.locator(".moves").inner_text()  # moves in SAN
            clocks = card.locator(".clock").all_inner_texts()
            assert len(clocks) == 2 and all(":" in c for c in clocks), clocks
            during = page.screenshot(full_page=True)
            (tmp_path / "during.png").write_bytes(during)
            assert_not_blank(during)

            page.wait_for_selector("#progress[data-done='1']", timeout=40_000)
            page.wait_for_selector("#results td.result")
            assert worker.wait(timeout=30) == 0
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        assert page.evaluate("window.notReloaded") is True, "the page was reloaded instead of updated"
        tourney = store.read(path)
        rows = [row.split("\t") for row in page.locator("#standings tbody tr").all_inner_texts()]
        assert [row[2] for row in rows] == ["1", "1"], rows  # both played the one game
        assert page.locator("#games .game").count() == 0, "a recorded game is still shown as in progress"
        result = page.inner_text("#results td.result")
        assert result == {"+": "1-0", "-": "0-1", "=": "1/2-1/2"}[tourney.results.strip()[0]]
        after = page.screenshot(full_page=True)
        (tmp_path / "after.png").write_bytes(after)
        assert_not_blank(after)
        content = page.content()
        for secret in secrets_of(tmp_path):
            assert secret not in content


def _live_card(path: Path, number: int) -> None:
    """Game ``number`` claimed and published in progress by hand, as a worker would (three moves in)."""
    with store.transaction(path) as tourney:
        tourney.set_result(number, "*")
    live = store.read(path).live_dir
    live.mkdir(exist_ok=True)
    board = chess.Board()
    for san in ("e4", "e5", "Nf3"):
        board.push_san(san)
    (live / f"{number}.json").write_text(json.dumps({
        "game": number, "round": number + 1, "white": "E1", "black": "E0", "variant": "chess",
        "start_fen": chess.STARTING_FEN, "moves": [m.uci() for m in board.move_stack], "fen": board.fen(),
        "white_clock": 0, "black_clock": 0, "updated": time.time(),
    }))  # fmt: skip


def test_a_crazyhouse_card_shows_the_pieces_in_hand(tmp_path: Path, serve: Any) -> None:
    """The diagram of a crazyhouse game drew no pockets, and the card said nothing of them: the pieces each side
    may drop were nowhere on the page. Each player's line now lists them."""
    import chess.variant

    path = slow_tourney(tmp_path / "zh.toml", players=2, games=2, extra='variant = "crazyhouse"')
    with store.transaction(path) as tourney:
        tourney.set_result(0, "*")
    board = chess.variant.CrazyhouseBoard()
    for san in ("e4", "d5", "exd5", "Qxd5", "Nc3", "Qxd2+"):
        board.push_san(san)
    live = store.read(path).live_dir
    live.mkdir(exist_ok=True)
    (live / "0.json").write_text(json.dumps({
        "game": 0, "round": 1, "white": "E0", "black": "E1", "variant": "crazyhouse", "start_fen": board.starting_fen,
        "moves": [m.uci() for m in board.move_stack], "fen": board.fen(), "white_clock": 0, "black_clock": 0,
        "updated": time.time(),
    }))  # fmt: skip
    server = serve(path)
    wait_for(lambda: b'id="game-0"' in fetch(server.url)[2])
    card = fetch(server.url)[2].decode().split('id="game-0"')[1].split("</article>")[0]
    black, white = card.split('class="player ')[1:3]
    assert '<span class="pocket" title="pieces in hand">\u265f\u00d72</span>' in black, black  # two pawns taken
    assert '<span class="pocket" title="pieces in hand">\u2659</span>' in white, white  # and one


def pumping(page: Any, predicate: Any, timeout: float = 30.0) -> None:
    """wait_for, letting Playwright's own events (a route handler) run meanwhile."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        page.wait_for_timeout(50)


def _version(server: Server) -> int:
    return int(fetch(server.url)[2].split(b'data-version="')[1].split(b'"')[0])


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
def test_a_page_that_fell_behind_drops_the_games_that_ended_meanwhile(tmp_path: Path, serve: Any) -> None:
    """A page more than one version behind is sent the whole state, which said nothing of the games that
    ended meanwhile: their cards stayed on the page, a finished game shown in progress until a reload."""
    from playwright.sync_api import Route

    path = slow_tourney(tmp_path / "behind.toml", players=3, games=2)
    _live_card(path, 0)
    server = serve(path)
    wait_for(lambda: b'id="game-0"' in fetch(server.url)[2])
    with chromium() as browser:
        page = browser.new_page()
        held: list[Route] = []
        page.route("**/events?*", lambda route: held.append(route))  # updates wait until the page is behind
        page.goto(server.url)
        pumping(page, lambda: bool(held))
        assert page.locator("#game-0").count() == 1
        shown = int(page.evaluate("document.body.dataset.version"))
        (store.read(path).live_dir / "0.json").unlink()
        with store.transaction(path) as tourney:
            tourney.set_result(0, "=")  # the game ends: its card goes
        pumping(page, lambda: _version(server) > shown)
        with store.transaction(path) as tourney:
            tourney.set_result(1, "+")  # and something else changes after
        pumping(page, lambda: _version(server) > shown + 1)
        latest = _version(server)
        held[0].continue_()
        pumping(page, lambda: int(page.evaluate("document.body.dataset.version")) == latest)
        assert "2</strong> of 6 games played" in page.inner_html("#progress")
        assert page.locator("#games .game").count() == 0, "a game that ended is still shown in progress"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
def test_a_long_name_wraps_on_a_phone_and_leaves_the_points_in_sight(tmp_path: Path, serve: Any) -> None:
    """Names did not wrap: on a phone a long one pushed the standings' points, and every column after the
    name, out of the box (to be scrolled to, sideways, one table at a time)."""

    path = slow_tourney(tmp_path / "long.toml", players=3, games=2)
    long = "Stockfish 17 dev-20260101-abcdef with a very long name for the standings"
    path.write_text(path.read_text().replace('name = "E1"', f'name = "{long}"'))
    server = serve(path)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        page.goto(server.url)
        page.wait_for_selector("#standings td.name")
        assert long in page.inner_text("#standings")
        for table in ("#standings", "#crosstable"):
            wide, box = page.evaluate(f"[document.querySelector('{table}').scrollWidth, "
                                      f"document.querySelector('{table}').clientWidth]")  # fmt: skip
            assert wide <= box, f"{table} is {wide} px wide in a box of {box} px"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
def test_the_full_crosstable_page_is_styled_in_a_browser(played: Path, serve: Any) -> None:
    """The page carries its stylesheet inline (it is `crosstable --format html`'s file), which the dashboard's
    Content-Security-Policy blocked: the browser showed the tables without their rules and shading."""

    server = serve(played)
    with chromium() as browser:
        page = browser.new_page()
        blocked: list[str] = []
        page.on("console", lambda message: blocked.append(message.text) if "Security Policy" in message.text
                else None)  # fmt: skip
        page.goto(server.url + "crosstable.html")
        page.wait_for_selector("th")
        colour = page.evaluate("getComputedStyle(document.querySelector('th')).backgroundColor")
        assert colour == "rgb(232, 232, 232)" and not blocked, (colour, blocked)
    headers = fetch(server.url + "crosstable.html")[1]
    assert "script-src" not in headers["content-security-policy"] and "unsafe" not in headers["content-security-policy"]


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
def test_downloads_keep_a_name_in_any_script(played: Path, tmp_path: Path, serve: Any) -> None:
    """Downloads were named from the ASCII letters of the tourney's name only: "Турнир 東京 <b>" gave "b.pgn",
    "Турнир" "tourney.pgn", and a name with accents lost them ("Zürich Open" gave "Z-rich-Open.pgn")."""

    path = copy_of(played, tmp_path)
    path.write_text(path.read_text().replace('name = "w"', 'name = "Турнир 東京 <b>"', 1))
    server = serve(path)
    with chromium() as browser:
        page = browser.new_page()
        page.goto(server.url)
        with page.expect_download() as whole:
            page.click("#progress a[href='pgn']")
        with page.expect_download() as one:
            page.click("#results a[href='pgn/0']")
        assert whole.value.suggested_filename == "Турнир-東京-b.pgn"
        assert one.value.suggested_filename == "Турнир-東京-b-game-0.pgn"
    disposition = fetch(server.url + "pgn")[1]["content-disposition"]
    assert disposition.startswith('attachment; filename="b.pgn"; filename*=UTF-8')  # the ASCII name for others


def test_a_game_whose_worker_is_gone_is_shown_so(tmp_path: Path, serve: Any) -> None:
    """A worker killed mid-game left its card as it was, the side to move's clock running down to 0:00 in the
    browser, a game shown in progress for as long as no other worker came; `status` said "worker gone"."""
    path = slow_tourney(tmp_path / "gone.toml", players=2, games=2, delay=0.2, max_moves=30)
    path.write_text(path.read_text().replace("nodes = 1", 'tc = "10:00"'))  # clocks that would run
    server = serve(path)
    worker = start_worker(path, "--games", "1")
    try:
        wait_for(lambda: b'data-running="1"' in fetch(server.url)[2])
    finally:
        worker.kill()  # as kill -9: its claim and its live file stay
        worker.wait()
    wait_for(lambda: b"Its worker is gone" in fetch(server.url)[2], timeout=10)
    page = fetch(server.url)[2]
    assert b'id="game-0"' in page and b'data-running="1"' not in page  # no clock runs for it
    assert b"1 in progress" in page
    done = run_cli("reset-stale", path)  # the game is given back: its card goes
    assert done.returncode == 0, done.stderr
    wait_for(lambda: b'id="game-0"' not in fetch(server.url)[2], timeout=10)


@pytest.mark.parametrize("damage", [{"game": 1e999}, {"variant": "xiangqi"}, {"white_clock": None},
                                    {"moves": "e2e4"}, {"updated": float("nan")}])
def test_a_damaged_live_file_is_no_card_and_stops_nothing(tmp_path: Path, serve: Any, damage: dict[str, Any]) -> None:
    """A file of the games in progress damaged (or written by hand): a game number of 1e999 or a variant
    python-chess does not know stopped `serve` as it started, with a traceback (and the variant's made
    `status` of a tourney of chess blame its `tourney.variant`). Such a file is now no card, as one that is not
    JSON was."""
    path = slow_tourney(tmp_path / "t.toml", players=2, games=2)
    _live_card(path, 0)
    with store.transaction(path) as tourney:  # claimed by another host's worker: `status` shows its moves
        tourney.claims[0] = Claim(host="elsewhere", pid=1, started=0.0, claimed=time.time(), heartbeat=time.time())
    live = store.read(path).live_dir / "0.json"
    live.write_text(json.dumps({**json.loads(live.read_text()), **damage}))
    server = serve(path)
    status, _, page = fetch(server.url)
    assert status == 200 and b"1 in progress" in page and b'id="game-0"' not in page
    done = run_cli("status", path)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "game 0: elsewhere" in done.stdout, done.stderr


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")
def test_a_page_left_open_follows_a_server_started_again(played: Path, tmp_path: Path, serve: Any) -> None:
    """Versions were counted from 0 by every server: a page left open while the server was started again
    came back with a version the new server had too, and was sent nothing until the next change (of a
    finished tourney, never): here the tourney renamed meanwhile kept its old name on the page."""

    path = copy_of(played, tmp_path)
    first = serve(path)
    with chromium() as browser:
        page = browser.new_page()
        page.goto(first.url)
        page.wait_for_selector("#standings td.name")
        first.stop()
        edited = run_cli("edit", path, "--set", "name=Renamed")
        assert edited.returncode == 0, edited.stderr
        again = serve(path, "--port", first.port)
        assert again.url == first.url
        pumping(page, lambda: "Renamed" in page.inner_text("#head"), timeout=20)


# --- nothing can be changed, nothing leaks --------------------------------------------------------


def test_post_and_every_other_method_are_refused_and_change_nothing(played: Path, tmp_path: Path, serve: Any) -> None:
    path = copy_of(played, tmp_path)
    server = serve(path)
    before = snapshot(path.parent)
    urls = ["", "events", "pgn", "pgn/0", "board.svg", "crosstable.html", "static/dashboard.js", "no/such/page"]
    for url in urls:
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            status, headers, _ = fetch(server.url + url, method=method, headers={"Origin": "http://evil.example"})
            assert status == 405, (method, url, status)
            assert headers["allow"] == "GET, HEAD"
    assert snapshot(path.parent) == before
    status, _, body = fetch(server.url)
    assert status == 200 and b"6</strong> of 6 games played" in body


def test_no_path_or_command_line_in_any_page(played: Path, tmp_path: Path, serve: Any) -> None:
    path = copy_of(played, tmp_path)
    pgn = store.read(path).pgn_path
    # An engine that fails to start leaves its error, with the program's path, in the PGN.
    engine_path = ROOT / "engines" / "pyengine.py"
    text = pgn.read_text()
    last = text.rstrip().rsplit("{", 1)
    pgn.write_text(f"{last[0]}{{E1's engine failed to start ([Errno 2] No such file: '{engine_path}') {last[1]}\n\n")
    server = serve(path)
    numbers = [int(h["GameNumber"]) for h in _headers(pgn)]
    pages = {url: fetch(server.url + url) for url in [
        "", "pgn", *(f"pgn/{n}" for n in numbers), "crosstable.html", "static/dashboard.js", "static/dashboard.css",
        "board.svg?fen=8/8/8/4k3/8/8/8/4K3+w+-+-+0+1", "no/such/page", "pgn/999", "board.svg?fen=nonsense",
    ]}  # fmt: skip
    first_event = next(events(server))
    # A version of thousands of digits was int()'s ValueError, a server error; it is taken as none.
    assert next(events(server, "?v=" + "9" * 5000)).keys() == first_event.keys()
    pages["events"] = (200, {}, json.dumps(first_event, ensure_ascii=False).encode())
    for url, (status, _, body) in pages.items():
        assert status in (200, 400, 404), (url, status)
        text = body.decode()
        for secret in secrets_of(tmp_path):
            assert secret not in text, f"{secret!r} leaks through /{url}"
        assert "echo $TMANAGER_GAME" not in text
    assert pages["pgn/999"][0] == 404 and pages["board.svg?fen=nonsense"][0] == 400
    assert f"failed to start ([Errno 2] No such file: '{MASK}')" in pages["pgn"][2].decode()
    # What each engine calls itself names the program as its command line does.
    assert f'[EngineWhiteName "{MASK}"]\n' in pages["pgn"][2].decode()
    assert pages[""][1]["content-security-policy"].startswith("default-src 'none'")


def test_show_engines_reveals_the_command_lines_on_request(played: Path, serve: Any) -> None:
    server = serve(played, "--show-engines")
    _, _, body = fetch(server.url)
    assert b"pyengine.py --protocol xboard --seed 0" in body and str(played.parent).encode() in body
    _, _, pgn = fetch(server.url + "pgn")
    assert b'[EngineWhiteName "pyengine"]\n[EngineWhiteAuthor "tmanager"]\n' in pgn


def test_every_address_is_printed_as_addresses_a_browser_opens(played: Path, serve: Any) -> None:
    """``--host 0.0.0.0`` printed http://0.0.0.0:PORT/, which browsers do not open: the line gives this machine's
    loopback address first, then its name and network address for the other machines, each one that serves."""
    server = serve(played, "--host", "0.0.0.0")
    assert "0.0.0.0" not in server.line and server.host == "127.0.0.1", server.line
    assert "here and on every address of this machine" in server.line
    urls = [word.rstrip(",") for word in server.line.split() if word.startswith("http://")]
    assert urls[0] == server.url and f"http://{socket.gethostname()}:{server.port}/" in urls
    for url in urls:
        assert fetch(url)[0] == 200, url


def test_show_engines_is_refused_for_an_event(tmp_path: Path) -> None:
    """``serve EVENT --show-engines`` served the event as if the option had not been given."""
    event = tmp_path / "open.toml"
    assert run_cli("event", "new", event, "--name", "Open").returncode == 0
    done = run_cli("serve", event, "--show-engines", "--port", "0")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (f"tmanager: {event}: --show-engines: an event's pages show no engines (leave "
                                   "it out; it is for a tourney's dashboard)")  # fmt: skip


@pytest.mark.timing
def test_idle_and_slow_clients_are_let_go(played: Path, serve: Any) -> None:
    """Connections that never send a request, or send its head a byte at a time, were held open for ever
    (60 sockets still open after 90 s): each must send a whole request head in time."""
    from tmanager.web.connections import HEAD_SECONDS, IDLE_SECONDS

    server = serve(played)
    address = (server.host, int(server.port))
    idle = [socket.create_connection(address) for _ in range(10)]
    slow = [socket.create_connection(address) for _ in range(10)]
    served = socket.create_connection(address)  # one request answered, then nothing
    served.sendall(f"GET / HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n\r\n".encode())
    assert served.recv(12) == b"HTTP/1.1 200"
    deadline = time.monotonic() + HEAD_SECONDS + 5
    head = b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 1000  # sent a byte a second: never the end of the head
    trickling, sent = list(slow), 0
    while trickling and time.monotonic() < deadline:
        for connection in list(trickling):
            try:
                connection.sendall(head[sent : sent + 1])
            except OSError:
                trickling.remove(connection)
        sent += 1
        time.sleep(1)
    assert not trickling, "a connection sending its head a byte at a time was kept open"
    for connection in [*idle, served]:
        connection.settimeout(max(0.1, deadline - time.monotonic()) + IDLE_SECONDS)
        try:
            while connection.recv(1 << 16):
                pass
        except ConnectionResetError:
            pass
        except TimeoutError:
            pytest.fail("an idle connection was kept open")
    for connection in [*idle, *slow, served]:
        connection.close()
    assert fetch(server.url)[0] == 200  # the others are served as before


def test_a_request_for_another_host_name_is_refused(played: Path, serve: Any) -> None:
    server = serve(played)
    assert fetch(server.url, headers={"Host": "evil.example"})[0] == 400
    assert fetch(server.url, headers={"Host": f"localhost:{server.port}"})[0] == 200


# --- downloads and live updates without a browser -----------------------------------------------


def _headers(pgn: Path) -> list[dict[str, str]]:
    with open(pgn, encoding="utf-8") as f:
        return [dict(h) for h in iter(lambda: chess.pgn.read_headers(f), None)]


def test_pgn_downloads_whole_file_and_single_games(played: Path, serve: Any) -> None:
    server = serve(played)
    pgn = store.read(played).pgn_path
    status, headers, body = fetch(server.url + "pgn")
    # The file as it is, but for the names the engines give themselves (masked: they name the programs).
    masked = re.sub(rb'(?m)^(\[Engine(White|Black)(Name|Author) ")[^"]*', rb"\g<1>" + MASK.encode(), pgn.read_bytes())
    assert status == 200 and body == masked and body.count(MASK.encode()) >= 6 * 2, "both names of every game"
    assert headers["content-disposition"] == 'attachment; filename="w.pgn"'
    for number in range(6):
        status, headers, body = fetch(server.url + f"pgn/{number}")
        assert status == 200, number
        game = chess.pgn.read_game(io.StringIO(body.decode()))
        assert game is not None and game.headers["GameNumber"] == str(number)
        assert headers["content-disposition"] == f'attachment; filename="w-game-{number}.pgn"'
    status, _, body = fetch(server.url + "crosstable.html")
    assert status == 200 and b"<h2>Cross-table</h2>" in body


def test_events_follow_changes_made_by_anyone(tmp_path: Path, serve: Any) -> None:
    path = slow_tourney(tmp_path / "e.toml", players=3, games=2)
    server = serve(path)
    stream = events(server)
    first = next(stream)
    assert first["done"] == 0 and "standings" in first["set"]
    with store.transaction(path) as tourney:  # as the CLI would
        tourney.set_result(0, "+")
    update = next(stream)
    assert update["done"] == 1
    assert set(update["set"]) >= {"progress", "standings", "crosstable", "chart"}
    assert "head" not in update["set"], "unchanged sections are not sent again"
    # A game in progress appears with its board, and disappears when its file goes.
    with store.transaction(path) as tourney:
        tourney.set_result(1, "*")
    assert "1 in progress" in next(stream)["set"]["progress"]
    live = store.read(path).live_dir
    live.mkdir()
    board = chess.Board()
    for san in ("e4", "e5", "Nf3"):
        board.push_san(san)
    (live / "1.json").write_text(json.dumps({
        "game": 1, "round": 2, "white": "E2", "black": "E0", "variant": "chess", "start_fen": chess.STARTING_FEN,
        "moves": [m.uci() for m in board.move_stack], "fen": board.fen(), "white_clock": 0, "black_clock": 0,
        "updated": time.time(),
    }))  # fmt: skip
    card = next(stream)["set"]["game-1"]
    assert "1. e4 e5 2. Nf3" in card and "board.svg?fen=" in card
    (live / "1.json").unlink()
    assert next(stream)["drop"] == ["game-1"]
    # A viewer that already has the current version is sent nothing until the next change.
    current = json.loads(fetch(server.url)[2].split(b'data-version="')[1].split(b'"')[0])
    late = events(server, f"?v={current}")
    with store.transaction(path) as tourney:
        tourney.set_result(2, "=")
    message = next(late)
    assert message["v"] == current + 1 and message["done"] == 2


def test_serve_reports_a_bad_file_and_a_busy_port(tmp_path: Path, played: Path, serve: Any) -> None:
    missing = run_cli("serve", tmp_path / "missing.toml", "--port", "0")
    assert missing.returncode == 2 and "no such tourney file" in missing.stderr
    assert "Traceback" not in missing.stderr
    # A directory or a FIFO given as the file: said without a way out ("tmanager: /tmp: is a directory").
    os.mkfifo(tmp_path / "fifo.toml")
    for given, what in ((tmp_path, "is a directory"), (tmp_path / "fifo.toml", "is not a regular file but a FIFO")):
        refused = run_cli("serve", given, "--port", "0", timeout=20)
        assert refused.returncode == 2 and refused.stderr == (
            f"tmanager: {given}: {what} (give the path of the tourney file)\n"
        ), refused.stderr
    server = serve(played)
    busy = run_cli("serve", played, "--port", server.port)
    assert busy.returncode == 2 and "cannot listen on 127.0.0.1 port" in busy.stderr
    # An empty host (an unset variable) listened on every address; a host that does not resolve blamed --port.
    for host, says in (("", "tmanager: --host: is empty (leave it out for this machine only, or give 0.0.0.0 for "
                            "all)\n"), ("999.1.1.1", "tmanager: --host: cannot listen on 999.1.1.1: "),
                       # Names the socket cannot spell (an empty label, a byte that is no UTF-8): TypeError tracebacks
                       ("é..x", "tmanager: --host: cannot listen on é..x: not a host name (give an address of this "
                                "machine, or a name it resolves)\n"),
                       (os.fsdecode(b"hall\xff"), "tmanager: --host: cannot listen on hall\\udcff: not a host name")):
        refused = run_cli("serve", played, "--port", "0", "--host", host, timeout=20)
        assert refused.returncode == 2 and refused.stderr.startswith(says), refused.stderr
    for port in ("65536", "-1"):  # bind() itself raised OverflowError, a traceback
        beyond = run_cli("serve", played, "--port", port)
        assert beyond.returncode == 2 and beyond.stderr == (
            f"tmanager: --port: must be from 0 to 65,535, not {port} (0 picks a free one)\n"
        )


# --- the parts -----------------------------------------------------------------------------------


def test_redactor_masks_paths_and_command_lines_but_not_names(played: Path) -> None:
    redact = Redactor.for_tourney(store.read(played))
    command = f"{sys.executable} {ROOT}/engines/pyengine.py --protocol uci --seed 1 --fault slow --delay 0.0"
    text = f"E1 crashed: {command}; files in {played.parent}/x; result 1/2-1/2"
    cleaned = redact(text)
    assert cleaned == f"E1 crashed: {MASK}; files in {MASK}/x; result 1/2-1/2"
    assert Redactor.nothing()(text) == text


def test_pgn_index_reads_only_appended_whole_games(played: Path, tmp_path: Path) -> None:
    source = store.read(played).pgn_path.read_bytes()
    pgn = tmp_path / "g.pgn"
    index = PgnIndex(pgn)
    index.refresh()
    assert index.recent(5) == []
    whole = source.split(b"\n\n[Event ")
    texts = [whole[0] + b"\n\n", *(b"[Event " + g + (b"" if g.endswith(b"\n\n") else b"\n\n") for g in whole[1:])]
    pgn.write_bytes(texts[0])
    index.refresh()
    assert [g.number for g in index.recent(5)] == [0]
    half = texts[1][: len(texts[1]) // 3]  # a game still being written is not indexed yet
    with open(pgn, "ab") as f:
        f.write(half)
    index.refresh()
    assert len(index.recent(5)) == 1
    with open(pgn, "ab") as f:
        f.write(texts[1][len(half) :])
    index.refresh()
    recent = index.recent(5)
    assert [g.number for g in recent] == [1, 0] and recent[0].white and recent[0].result in ("1-0", "0-1", "1/2-1/2")
    assert index.game_text(1) == texts[1].decode()
    pgn.write_bytes(texts[2])  # replaced (as when games are marked superseded): read again from the start
    index.refresh()
    assert [g.number for g in index.recent(5)] == [2]


def test_finish_estimate_follows_the_pace_of_finished_games() -> None:
    estimate = FinishEstimate()
    assert estimate.update(4, 10, now=100.0) is None  # no pace known yet
    assert estimate.update(5, 10, now=130.0) == pytest.approx(130 + 5 * 30)
    assert estimate.update(6, 10, now=140.0) == pytest.approx(140 + 4 * 20)
    assert estimate.update(6, 10, now=150.0) == pytest.approx(140 + 4 * 20)  # anchored at the last game
    assert estimate.update(2, 10, now=160.0) is None  # games were reset: start over
    assert estimate.update(10, 10, now=170.0) is None  # finished
