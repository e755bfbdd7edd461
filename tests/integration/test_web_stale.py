"""A form sent from an arbiter's page left open while the event changed elsewhere: the refusal is said where the
arbiter sees it, and no other form takes what was sent. A real `tmanager serve EVENT`, the CLI beside it."""

# The fixtures `serve` and `protected` come from the dashboard's and the event pages' tests.
# ruff: noqa: F401, F811

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import Any

from tests.conftest import run_cli
from tests.integration.test_web import serve
from tests.integration.test_web_event import PASSWORD, Client, board_form, error, fresh, hidden, protected, set_password


def cli(*words: str | Path) -> None:
    done = run_cli("event", *words)
    assert done.returncode == 0, (words, done.stderr)


def arbiter_page_once(client: Client, shows: str) -> str:
    """The arbiter's page once the server has read the change made beside it (it looks at the file every 50 ms)."""
    deadline = time.monotonic() + 20
    while shows not in (page := client.request("GET", "/arbiter")[2]):
        assert time.monotonic() < deadline, f"the page never showed {shows!r}"
        time.sleep(0.05)
    return page


def selected(page: str, form_id: str) -> list[str]:
    """The options chosen in the form ``form_id`` of the page."""
    form = re.search(rf'<form[^>]*id="{form_id}">(.*?)</form>', page, re.S)
    assert form, f"no form {form_id}"
    return [html.unescape(v) for v in re.findall(r'<option value="([^"]*)" selected>', form[1])]


def test_a_result_for_a_round_unpaired_since_is_refused_above_the_boards_not_beside_another_game(
    protected: Path, tmp_path: Path, serve: Any
) -> None:
    """Round 3 unpaired elsewhere, board 2's form of round 3 was refused beside round 2's board 2, the round the
    page then showed, with the result sent chosen in that game's menu: a second click on its button put it on round
    2's game, which the arbiter never meant to correct."""
    path = fresh(protected, tmp_path)
    cli("result", path, "3", "1-0")
    cli("result", path, "4", "0-1")
    cli("pair", path)
    client = Client(serve(path))
    client.login()
    sent = board_form(arbiter_page_once(client, "Round 3 results"), 2)
    cli("unpair", path)
    page = arbiter_page_once(client, "Round 2 results")
    own = selected(page, "result-2")
    before = path.read_bytes()
    status, _, text = client.post("/result", {**sent, "result": "0-1"})
    assert status == 400 and path.read_bytes() == before
    assert "round 3 is not paired" in error(text)
    board2 = re.search(r'<form[^>]*id="result-2">.*?</form>', text, re.S)
    assert board2 and "round 3 is not paired" not in html.unescape(board2[0]), "not beside round 2's board 2"
    assert selected(text, "result-2") == own == ["1-0"], "round 2's game keeps its own result chosen"


def test_pair_and_unpair_forms_refused_after_the_round_changed_elsewhere_say_why(tmp_path: Path, serve: Any) -> None:
    """The page then has no such form to show the refusal beside (all rounds paired, no round paired): the
    refusal, a 400, was not shown at all; with no round paired it said 'round 0 is now the last paired round'."""
    path = tmp_path / "one.toml"
    cli("new", path, "--name", "One round", "--rounds", "1")
    for i in range(1, 5):
        cli("add-player", path, f"Player{i}, X")
    assert set_password(path, PASSWORD).returncode == 0
    client = Client(serve(path))
    client.login()
    page = arbiter_page_once(client, "Pair round 1")
    pair = {"csrf": hidden(page, "csrf"), "d": "", "round": "1"}
    cli("pair", path)
    page = arbiter_page_once(client, "Unpair round 1")
    before = path.read_bytes()
    status, _, text = client.post("/pair", pair)
    assert status == 400 and path.read_bytes() == before
    assert "round 1 is now the last paired round" in error(text)

    cli("unpair", path)
    arbiter_page_once(client, "No round is paired")
    before = path.read_bytes()
    status, _, text = client.post("/unpair", {"csrf": pair["csrf"], "d": "", "round": "1", "confirm": "yes"})
    assert status == 400 and path.read_bytes() == before
    assert error(text) == "no round is paired now (reload the page and check it before unpairing)"
