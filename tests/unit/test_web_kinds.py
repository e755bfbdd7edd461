"""The kinds of the event's web pages and of the arbiter's forms: each word of an address or a form read into its
member once, each member with what renders or runs it (pure code: no server, browser or process)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.unit.test_web_arbiter import Reply, call, event_copy
from tmanager.errors import StateError
from tmanager.events import api as ev
from tmanager.web import arbiterpages, eventpages
from tmanager.web.arbiteractions import ACTIONS, Target
from tmanager.web.arbiterpages import ArbiterForm, FormError
from tmanager.web.eventapp import EventApp
from tmanager.web.eventpages import DIVISION_PAGES, Page, PageKind, Snapshot

ROOT = Path(__file__).resolve().parents[2]
#: The example Swiss: round 2 paired, boards 3 and 4 without a result.
EXAMPLE = ROOT / "tourneys" / "events" / "small-open.toml"


def snapshot() -> Snapshot:
    return Snapshot(ev.load(EXAMPLE), last_change=0)


@pytest.mark.parametrize("kind", list(PageKind))
def test_every_page_kind_is_read_from_its_word_and_written_back_as_it(kind: PageKind) -> None:
    assert PageKind.parse(kind.value) is kind
    assert Page(kind).url() == ("./" if kind is PageKind.HOME else kind.value)
    assert Page.from_query(kind, {"round": "2", "d": "main"}).url() == Page(kind, "main", 2).url()


@pytest.mark.parametrize("word", ["nope", "Pairings", "pairings ", "", "home/../arbiter", "x\ny" * 250])
def test_a_word_that_names_no_page_is_refused_in_one_line(word: str) -> None:
    with pytest.raises(StateError) as refused:
        PageKind.parse(word)
    message = str(refused.value)
    assert message.startswith(f"there is no page {word[:20]!r}"[:-1]) and "\n" not in message
    assert len(message) < 200


def test_the_urls_words_are_the_ones_the_pages_always_had() -> None:
    """The members' values are the addresses' words: a change here breaks bookmarks and the live stream."""
    words = ["home", "start", "pairings", "standings", "table", "prizes", "player", "arbiter", "login"]
    assert [k.value for k in PageKind] == words
    assert [k.caption for k in PageKind] == ["Players", "Starting rank", "Pairings", "Standings", "Table", "Prizes",
                                             "Player", "Arbiter", "Arbiter login"]  # fmt: skip


def test_every_page_kind_has_its_renderer() -> None:
    """Each kind is the home page, a page of a division (:data:`DIVISION_PAGES`), the arbiter's page
    (:func:`arbiterpages.render`) or the login form (:func:`arbiterpages.login`): a new kind must be given one."""
    assert set(PageKind) - set(DIVISION_PAGES) == {PageKind.HOME, PageKind.ARBITER, PageKind.LOGIN}
    shown = snapshot()
    for kind in (PageKind.HOME, *DIVISION_PAGES):
        sections = eventpages.render(shown, Page(kind, player=1))
        assert sections and not eventpages.has_problem(sections), kind
        assert (sections[0][0] == "head") is (kind is not PageKind.HOME), kind
    assert dict(arbiterpages.render(shown, Page(PageKind.ARBITER), csrf="t"))["pair"]
    assert dict(arbiterpages.login(csrf="t", back="arbiter"))["login"]
    for kind in (PageKind.ARBITER, PageKind.LOGIN):
        with pytest.raises(StateError, match=f"^there is no public page '{kind.value}'$"):
            eventpages.render(shown, Page(kind))


def test_a_page_that_cannot_be_shown_is_told_from_one_that_can() -> None:
    assert eventpages.has_problem(eventpages.problem("no such round"))
    assert not eventpages.has_problem(eventpages.render(snapshot(), Page(PageKind.PAIRINGS)))


@pytest.mark.parametrize("form", list(ArbiterForm))
def test_every_form_is_read_from_its_word_and_has_its_action(form: ArbiterForm) -> None:
    assert ArbiterForm.parse(form.value) is form
    assert form in ACTIONS


def test_every_action_is_a_form_and_every_form_an_action() -> None:
    """A new form without its action (or an action no form names) fails here, not as a 404 on the arbiter's page."""
    assert list(ACTIONS) == list(ArbiterForm)


@pytest.mark.parametrize("word", ["delete-everything", "Pair", "add_team", "", "result-3"])
def test_a_word_that_names_no_form_is_refused_naming_the_actions(word: str) -> None:
    with pytest.raises(StateError) as refused:
        ArbiterForm.parse(word)
    assert str(refused.value) == (f"there is no action {word!r} (the actions: result, pair, bye, cancel-bye, force, "
                                  "unforce, unpair, undo, add-team, roster, lineup)")  # fmt: skip


def test_a_refused_form_is_shown_beside_that_form_only() -> None:
    """A form the page has once is named by its kind; one of several (a board's result) also by the number it
    sent, as it sent it: ``03`` is no board of the page, and the message goes to the top of the page."""
    assert FormError(ArbiterForm.PAIR, "m").key == "pair"
    assert FormError(ArbiterForm.RESULT, "m", "3").key == "result-3"
    assert FormError(ArbiterForm.RESULT, "m", "3").about(ArbiterForm.RESULT, 3)
    assert not FormError(ArbiterForm.RESULT, "m", "03").about(ArbiterForm.RESULT, 3)
    assert not FormError(ArbiterForm.ROSTER, "m", "3").about(ArbiterForm.LINEUP, 3)
    assert not FormError(ArbiterForm.UNPAIR, "m").about(ArbiterForm.UNDO)
    shown = snapshot()
    # A result form sent for round 3 (unpaired since) is about no board of round 2, the page shown: at the top.
    for error, sent, beside in ((FormError(ArbiterForm.UNDO, "not now"), {}, "undo"),
                                (FormError(ArbiterForm.RESULT, "not now", "4"), {"round": "2"}, "results"),
                                (FormError(ArbiterForm.RESULT, "not now", "04"), {"round": "2"}, "error"),
                                (FormError(ArbiterForm.RESULT, "not now", "4"), {"round": "3"}, "error")):  # fmt: skip
        sections = arbiterpages.render(shown, Page(PageKind.ARBITER, round=2), csrf="t", error=error, values=sent)
        assert [key for key, html in sections if "not now" in html] == [beside], error


def test_a_word_of_an_address_that_names_no_page_gets_the_answer_it_always_had(tmp_path: Path) -> None:
    """The words are read where the request comes in: by the routes (made from the members) and by the live
    stream's ``page=``; what names no page is refused there as before, and the pages' own words still work."""
    web = EventApp(event_copy(tmp_path), poll=3600)
    app = web.starlette()
    addresses = ["/events?page=nope", "/events?page=home&round=zz", "/home", "/nope.json", "/pairings?round=x",
                 "/arbiter", "/pairings.json?round=1"]  # fmt: skip

    async def main() -> list[Reply]:
        async with web.lifespan(app):
            return [await call(app, "GET", address) for address in addresses]

    nope, bad_round, home, json, round_x, arbiter, data = asyncio.run(main())
    assert (nope.status, nope.text) == (400, "there is no page 'nope'")
    assert (bad_round.status, bad_round.text) == (400, "round must be a number of at most 5 digits, not 'zz'")
    assert (home.status, home.text) == (404, "Not Found") and json.status == 404
    assert round_x.status == 400 and "round must be a number of at most 5 digits, not &#x27;x&#x27;" in round_x.text
    assert (arbiter.status, arbiter.headers["location"]) == (303, "login")
    assert data.status == 200 and data.headers["content-type"] == "application/json"


def test_an_event_file_not_readable_yet_is_a_page_to_come_not_one_not_there(tmp_path: Path) -> None:
    """The file spoiled between `serve`'s check and the pages' first read: the data said 404, as if the page did
    not exist, and the page said it showed "the last state read" of a state never read. Both are 503 now, the
    data with the seconds to try again after; once the file is mended, the pages are there."""
    path = event_copy(tmp_path)
    kept = path.read_bytes()
    path.write_text("[event\n")
    web = EventApp(path, poll=2)
    app = web.starlette()

    async def main() -> list[Reply]:
        async with web.lifespan(app):
            replies = [await call(app, "GET", "/pairings.json?round=1"), await call(app, "GET", "/")]
            path.write_bytes(kept)
            await web.hub.refresh(first=False)
            return [*replies, await call(app, "GET", "/pairings.json?round=1"), await call(app, "GET", "/")]

    data, page, data_later, page_later = asyncio.run(main())
    assert (data.status, data.text, data.headers["retry-after"]) == (503, "the event file cannot be read just now", "2")
    assert page.status == 503 and "The event file cannot be read just now." in page.text
    assert "last state read" not in page.text
    assert data_later.status == 200 and page_later.status == 200


def test_a_number_of_too_many_digits_is_said_to_be_one() -> None:
    """A round typed as 100000 (the bye form's) or an address's ``n=000001`` was said to be "not a number"."""
    for text in ("100000", "000001"):
        with pytest.raises(StateError, match=f"^n must be a number of at most 5 digits, not '{text}'$"):
            Page.from_query(PageKind.PLAYER, {"n": text})
        with pytest.raises(StateError, match=f"^the round must be a number of at most 5 digits, not '{text}'$"):
            ACTIONS[ArbiterForm.BYE].run(Target(Path("nowhere.toml"), None), {"player": "5", "round": text})
    assert Page.from_query(PageKind.PLAYER, {"n": "00001"}).player == 1
