"""Odd addresses a real `tmanager serve` is sent: each gets a readable 4xx, never a server error."""

# The fixtures `serve` and `played` come from the dashboard's tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.integration.test_web import fetch, played, serve


def test_a_game_number_of_thousands_of_digits_is_no_game(played: Path, serve: Any) -> None:
    server = serve(played)
    # int() refuses more than 4,300 digits: Starlette's {number:int} raised it while routing, a 500 and a traceback.
    for number in ("9" * 4301, "0" * 5000 + "1", "%D9%A3", "1x"):  # %D9%A3: the Arabic-Indic digit 3
        status, _, body = fetch(server.url + f"pgn/{number}")
        assert status == 404, (number[:10], status)
        assert body.startswith(b"Game ") and b"is not in the PGN file" in body and len(body) < 100, body[:120]
    status, _, body = fetch(server.url + "pgn/00")
    assert status == 200 and b'[GameNumber "0"]' in body
    server.stop()
    assert "Traceback" not in server.process.stderr.read()


def test_a_field_given_twice_is_refused(played: Path, serve: Any) -> None:
    """The dashboard's queries, as the event pages' (test_web_requests.py): `?fen=A&fen=B` drew B, without a word."""
    server = serve(played)
    fen = "8/8/8/8/8/8/8/K6k w - - 0 1"
    status, _, body = fetch(server.url + f"board.svg?fen={fen}&last=a1a2&fen={fen}".replace(" ", "+"))
    assert (status, body) == (400, b"the field 'fen' is given more than once; give it once")
    assert fetch(server.url + f"board.svg?fen={fen}&last=a1a2".replace(" ", "+"))[0] == 200


def test_the_stylesheets_and_script_are_checked_again_at_every_load(played: Path, tmp_path: Path, serve: Any) -> None:
    """They carried no Cache-Control, only Last-Modified, from which browsers guess a freshness of a tenth of the
    file's age (days for a package installed a month after it was built): after an upgrade, pages with the new
    layout ran the old script (the live updates' format) and stylesheet until the guess ran out. They are now
    revalidated at each use, which costs a 304 while they are the same."""
    event = tmp_path / "open.toml"
    shutil.copy(ROOT / "tourneys" / "events" / "small-open.toml", event)
    for server, assets in ((serve(played), ("dashboard.js", "dashboard.css", "favicon.svg")),
                           (serve(event), ("dashboard.js", "dashboard.css", "event.css"))):  # fmt: skip
        for asset in assets:
            status, headers, _ = fetch(server.url + f"static/{asset}")
            assert status == 200 and headers.get("cache-control") == "no-cache", (asset, headers)
            status, again, _ = fetch(server.url + f"static/{asset}", headers={"If-None-Match": headers["etag"]})
            assert status == 304 and again.get("cache-control") == "no-cache", (asset, status)
