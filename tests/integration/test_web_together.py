"""Two arbiters at once, each in a browser of their own: what one is choosing on the page is kept while the other's
change arrives, unless it is about the very form being filled in. A real `tmanager serve EVENT`, Chromium by
Playwright."""

# The fixtures `serve` and `protected` come from the dashboard's and the event pages' tests.
# ruff: noqa: F401, F811

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.test_web import chromium, serve
from tests.integration.test_web_event import PASSWORD, browser_only, fresh, logged_in, protected, wait_text
from tmanager.events import api as ev


def arbiter_page(browser: Any, url: str) -> Any:
    """A page of a browser of its own (its own cookies: its own session), on the arbiter's page, connected."""
    page = logged_in(browser.new_context(viewport={"width": 1000, "height": 1000}).new_page(), url)
    page.wait_for_selector("#connection.connection:not(.lost)")
    return page


@browser_only
def test_a_result_being_chosen_survives_another_arbiters_entry(protected: Path, tmp_path: Path, serve: Any) -> None:
    """The live update of another board's result replaced the whole list of boards, and with it the result the
    arbiter had chosen on theirs and not yet saved: their Save then sent the board's old value."""
    path = fresh(protected, tmp_path)
    server = serve(path)
    with chromium() as browser:
        first, second = arbiter_page(browser, server.url), arbiter_page(browser, server.url)
        second.select_option("#result-4 select", "0-1")
        first.select_option("#result-3 select", "1-0")
        first.click("#result-3 button")
        first.wait_for_selector(".flash p.done")
        wait_text(second, "#result-3 button", "Correct")  # the first's entry reached the second's page
        assert second.input_value("#result-4 select") == "0-1", "the choice on board 4 was lost"
        second.click("#result-4 button")
        second.wait_for_selector(".flash p.done")
        assert [b.result for b in ev.load(path).division().round(2).boards[2:]] == ["1-0", "0-1"]

        # A form the other arbiter's change is about is not kept: it shows their result, to be checked.
        second.select_option("#result-1 select", "0-1")
        first.select_option("#result-1 select", "1-0")
        first.click("#result-1 button")
        first.wait_for_selector(".flash p.warning, .flash p.done")
        wait_text(second, "#result-1 select option:checked", "1-0")
        assert ev.load(path).division().round(2).boards[0].result == "1-0"
