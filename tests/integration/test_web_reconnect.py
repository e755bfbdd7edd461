"""An event page left open while its server stopped and started again: a real `tmanager serve`, Chromium."""

# The fixture `serve` comes from the dashboard's tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.integration.test_web import CHROMIUM, chromium, serve

EXAMPLE = Path(__file__).resolve().parents[2] / "tourneys" / "events" / "small-open.toml"
browser_only = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (tools/test.sh installs it)")


@browser_only
def test_a_page_that_missed_a_new_layout_loads_it_on_reconnecting(tmp_path: Path, serve: Any) -> None:
    path = tmp_path / "open.toml"
    shutil.copy(EXAMPLE, path)
    for board, result in (("3", "1-0"), ("4", "0-1")):
        assert run_cli("event", "result", path, board, result).returncode == 0
    server = serve(path)
    with chromium() as browser:
        waiting = browser.new_page()
        waiting.goto(server.url + "pairings?round=3")  # a player waiting for round 3's pairings
        standings = browser.new_page()
        standings.goto(server.url + "standings")
        for page in (waiting, standings):
            page.wait_for_selector("#connection.connection:not(.lost)")
            page.evaluate("window.notReloaded = true")
        assert waiting.locator("#problem").count() == 1
        before = standings.evaluate("document.body.dataset.version")
        server.stop()
        waiting.wait_for_selector("#connection.lost")
        # While no server runs (nothing can tell the pages): round 3 is paired, a correction made.
        assert run_cli("event", "pair", path).returncode == 0
        assert run_cli("event", "correct", path, "--round", "1", "1", "0-1", "--yes").returncode == 0
        serve(path, "--port", server.port)
        # The page had the problem section only; the new state's sections it lacked were dropped, and it went
        # on saying "live" over "round 3 is not paired". It loads the page again now.
        waiting.wait_for_selector("#pairings tbody tr", timeout=15_000)
        assert waiting.locator("#problem").count() == 0
        assert waiting.evaluate("window.notReloaded") is None
        # A page whose sections are the same takes the new state in place, without reloading.
        standings.wait_for_selector("#connection.connection:not(.lost)", timeout=15_000)
        standings.wait_for_function(f"document.body.dataset.version !== '{before}'", timeout=15_000)
        assert standings.evaluate("window.notReloaded") is True
