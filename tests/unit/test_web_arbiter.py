"""The event app's authentication middleware and its actions table, in process: the app is called as the server
calls it (ASGI), on a real event file, with no server, browser or process (those are tests/integration's)."""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from starlette.types import ASGIApp, Message

from tmanager.core.results import ByeKind
from tmanager.errors import ConfigError, StateError, TManagerError
from tmanager.events import api as ev
from tmanager.events import service
from tmanager.events.change import Change
from tmanager.events.model import Player
from tmanager.web import arbiterpages
from tmanager.web.arbiteractions import ACTIONS, Target
from tmanager.web.arbiterpages import ArbiterForm
from tmanager.web.auth import set_password
from tmanager.web.eventapp import EventApp
from tmanager.web.eventpages import Page, PageKind, Snapshot

ROOT = Path(__file__).resolve().parents[2]
#: The example Swiss: round 2 paired, boards 3 and 4 without a result.
EXAMPLE = ROOT / "tourneys" / "events" / "small-open.toml"
ORIGIN = "http://localhost"


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    text: str


async def call(app: ASGIApp, method: str, address: str, fields: Mapping[str, str] | None = None, *,
               session: str | None = None, origin: str | None = ORIGIN,
               length: bytes | None = None, extra: Sequence[tuple[bytes, bytes]] = (),
               raw: bytes | None = None) -> Reply:  # fmt: skip
    """One request as the server hands it to the app: from this machine, to ``localhost`` (``extra``: more
    headers; ``raw``: the body as sent, instead of ``fields``)."""
    path, _, query = address.partition("?")
    body = urlencode(fields or {}).encode() if raw is None else raw
    headers = [(b"host", b"localhost"), *extra]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if session is not None:
        headers.append((b"cookie", f"tmanager_session={session}".encode()))
    if method == "POST":
        headers += [(b"content-type", b"application/x-www-form-urlencoded"),
                    (b"content-length", b"%d" % len(body) if length is None else length)]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 40000), "server": ("localhost", 80)}  # fmt: skip
    incoming: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    named = {name.decode().lower(): value.decode() for name, value in start["headers"]}
    return Reply(start["status"], named, b"".join(m.get("body", b"") for m in sent[1:]).decode())


def event_copy(tmp_path: Path) -> Path:
    path = tmp_path / "open.toml"
    shutil.copy(EXAMPLE, path)
    return path


def test_actions_need_this_origin_a_session_and_its_token(tmp_path: Path) -> None:
    path = event_copy(tmp_path)
    web = EventApp(path, poll=3600)
    app = web.starlette()
    entry = {"round": "2", "board": "3", "white": "2", "black": "3", "result": "1-0", "was": "*"}

    async def main() -> list[Reply]:
        async with web.lifespan(app):
            session = web.sessions.open()
            good = {**entry, "csrf": session.csrf}
            return [
                await call(app, "POST", "/result", good),  # no session
                await call(app, "POST", "/result", entry, session=session.token),  # no token
                await call(app, "POST", "/result", {**entry, "csrf": session.csrf[:-2] + "xx"}, session=session.token),
                await call(app, "POST", "/result", {**entry, "csrf": session.token}, session=session.token),
                await call(app, "POST", "/result", good, session=session.token, origin="http://evil.example"),
                await call(app, "POST", "/result", good, session=session.token, origin=None),
                await call(app, "POST", "/logout", {}, session=session.token),  # logging out wants the token too
                await call(app, "POST", "/result", good, session=session.token),  # all right: passes
                await call(app, "POST", "/logout", {"csrf": session.csrf}, session=session.token),
                await call(app, "POST", "/result", {**good, "board": "4"}, session=session.token),  # logged out
            ]

    before = path.read_bytes()
    replies = asyncio.run(main())
    refused, passed, logout, after_logout = replies[:7], replies[7], replies[8], replies[9]
    assert [r.status for r in refused] == [403] * 7
    reasons = ["Log in as the arbiter first", *["missing its security token"] * 3,
               *["not sent from this server's page"] * 2, "missing its security token"]  # fmt: skip
    for reply, reason in zip(refused, reasons, strict=True):
        assert reason in reply.text.replace("&#x27;", "'"), (reason, reply.text[-400:])
    assert (passed.status, passed.headers["location"]) == (303, "arbiter?round=2")
    assert ev.load(path).division().round(2).boards[2].result == "1-0"
    assert (logout.status, logout.headers["location"]) == (303, "./")
    assert after_logout.status == 403 and "Log in as the arbiter first" in after_logout.text
    assert ev.load(path).division().round(2).boards[3].result == "*"
    assert path.read_bytes() != before


def test_a_form_whose_length_is_no_small_number_is_refused_unread(tmp_path: Path) -> None:
    web = EventApp(event_copy(tmp_path), poll=3600)
    app = web.starlette()

    async def main() -> list[Reply]:
        async with web.lifespan(app):
            session = web.sessions.open()
            lengths = (b"9" * 5000, b"\xc2\xb2", b"-1", b"99999999")  # int() raised on 5,000 digits
            return [await call(app, "POST", "/result", {}, session=session.token, length=n) for n in lengths]

    for reply in asyncio.run(main()):
        assert reply.status == 413 and reply.text == "The form is too large or its length is not given."


def test_a_form_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    """A form whose bytes were not UTF-8 was read as no form at all: an action was refused as missing its security
    token (403), a login as an expired form; a byte percent-encoded that is no UTF-8 was read as U+FFFD."""
    path = event_copy(tmp_path)
    set_password(path, "a password for the login form")
    web = EventApp(path, poll=3600)
    app = web.starlette()

    async def main() -> list[Reply]:
        async with web.lifespan(app):
            session = web.sessions.open()
            token = f"csrf={session.csrf}".encode()
            bye = b"&round=3&kind=half&player="
            bodies = (token + bye + b"Sm\xe9t", token + bye + b"Sm%E9t", b"\xff\xfe" + token + bye + b"5")
            sent = [await call(app, "POST", "/bye", session=session.token, raw=body) for body in bodies]
            return [*sent, await call(app, "POST", "/login", raw=b"password=caf\xe9 au lait")]

    before = path.read_bytes()
    said = "the form is not UTF-8 text; send it from this server&#x27;s page"
    for reply in asyncio.run(main()):
        assert reply.status == 400 and reply.text.count(said) == 1, reply.text[-600:]
    assert path.read_bytes() == before


def test_a_form_naming_a_round_or_division_the_page_cannot_show_says_why_once(tmp_path: Path) -> None:
    path = event_copy(tmp_path)
    web = EventApp(path, poll=3600)
    app = web.starlette()
    entry = {"board": "3", "white": "2", "black": "3", "result": "1-0", "was": "*"}

    async def main() -> list[Reply]:
        async with web.lifespan(app):
            session = web.sessions.open()
            forms = ({**entry, "round": "7"}, {**entry, "round": "2", "d": "nope"})
            return [
                await call(app, "POST", "/result", {**form, "csrf": session.csrf}, session=session.token)
                for form in forms
            ]

    before = path.read_bytes()
    replies = asyncio.run(main())
    for reply, says in zip(replies, ("round 7 is not paired", "no division 'nope'; the event has main"), strict=True):
        shown = reply.text.replace("&#x27;", "'")
        assert reply.status == 400 and shown.count(says) == 1, shown[-600:]
    assert path.read_bytes() == before


def test_pages_are_open_to_every_viewer_and_the_arbiters_page_to_a_session(tmp_path: Path) -> None:
    path = event_copy(tmp_path)
    web = EventApp(path, poll=3600)
    app = web.starlette()
    pages = ["/", "/start", "/pairings", "/pairings?round=1", "/standings", "/table", "/prizes", "/player?n=1",
             "/standings.json", "/login"]  # fmt: skip

    async def main() -> tuple[list[Reply], Reply, Reply]:
        async with web.lifespan(app):
            viewers = [await call(app, "GET", page) for page in pages]
            stranger = await call(app, "GET", "/arbiter")
            arbiter = await call(app, "GET", "/arbiter", session=web.sessions.open().token)
            return viewers, stranger, arbiter

    viewers, stranger, arbiter = asyncio.run(main())
    assert [reply.status for reply in viewers] == [200] * len(pages)
    assert "Dekker, Ruben" in viewers[0].text and 'action="logout"' not in viewers[0].text
    assert (stranger.status, stranger.headers["location"]) == (303, "login")
    assert arbiter.status == 200 and 'action="result"' in arbiter.text and 'action="logout"' in arbiter.text


def test_an_unknown_action_is_refused_in_one_line() -> None:
    with pytest.raises(StateError) as refused:
        ArbiterForm.parse("delete-everything")
    message = str(refused.value)
    assert "\n" not in message
    assert message == ("there is no action 'delete-everything' (the actions: result, pair, bye, cancel-bye, force, "
                       "unforce, unpair, undo, add-team, roster, lineup)")  # fmt: skip
    assert ACTIONS[ArbiterForm.parse("pair")] is ACTIONS[ArbiterForm.PAIR]


def run(name: str, path: Path, form: dict[str, str]) -> Change:
    """Action ``name`` with ``form``, on the event as a page would show it."""
    target = Target(path, Snapshot(ev.load(path), last_change=ev.last_change(path)))
    return ACTIONS[ArbiterForm.parse(name)].run(target, form)


def test_each_chess_action_makes_its_change_through_the_service(tmp_path: Path) -> None:
    path = event_copy(tmp_path)
    board3 = {"round": "2", "board": "3", "white": "2", "black": "3"}
    entered = run("result", path, {**board3, "result": "1-0", "was": "*"})
    assert entered.messages == ("round 2: Jansen, Pieter (2) 1½ 1-0 Bakker, Sanne (3) 0",)
    assert (entered.division, entered.round) == ("main", 2)
    assert not entered.completed and entered.number == ev.last_change(path) == 1
    corrected = run("result", path, {**board3, "result": "0-1", "was": "1-0"})
    assert ev.load(path).division().round(2).boards[2].result == "0-1" and corrected.number == 2
    # A page shown before the correction, or one showing another game on board 3, is refused: its result
    # went over the correction, or onto whatever game was on board 3 after the round was paired again.
    now = "round 2 board 3 is now Jansen, Pieter (2) – Bakker, Sanne (3), not the game the page showed"
    for stale, says in (({"was": "1-0"}, "round 2 board 3 now has 0-1, not 1-0 as the page showed"),
                        ({"white": "5", "black": "4", "was": "0-1"}, now),
                        ({"white": "3", "black": "2", "was": "0-1"}, now)):  # fmt: skip
        with pytest.raises(StateError, match=re.escape(says)):
            run("result", path, {**board3, "result": "=", **stale})
    assert ev.load(path).division().round(2).boards[2].result == "0-1" and ev.last_change(path) == 2
    last = run("result", path, {"round": "2", "board": "4", "white": "5", "black": "4", "result": "=", "was": "*"})
    assert last.completed and last.round == 2
    bye = run("bye", path, {"player": "5", "round": "3", "kind": "half"})
    assert bye.round == 3 and ev.load(path).division().round(3).byes[5] == ByeKind.HALF
    forced = run("force", path, {"round": "3", "white": "9", "black": "1"})
    assert forced.round == 3 and forced.number == ev.last_change(path)
    assert ev.load(path).division().round(3).forced == [(9, 1)]
    # Taken back as `bye --cancel` and `force --cancel` do (the players of a game in either order), and set again.
    cancelled = run("cancel-bye", path, {"player": "5", "round": "3", "kind": "half"})
    assert cancelled.round == 3 and 5 not in ev.load(path).division().round(3).byes
    run("bye", path, {"player": "5", "round": "3", "kind": "half"})
    run("force", path, {"round": "3", "white": "6", "black": "7"})
    taken = run("unforce", path, {"round": "3", "white": "7", "black": "6"})
    assert taken.round == 3 and taken.number == ev.last_change(path)
    assert ev.load(path).division().round(3).forced == [(9, 1)]
    paired = run("pair", path, {"round": "3", "colour": ""})
    assert paired.round == 3 == ev.load(path).division().paired_rounds
    assert (9, 1) in [(b.white, b.black) for b in ev.load(path).division().round(3).boards]
    with pytest.raises(StateError, match="tick the box to unpair round 3; nothing was changed"):
        run("unpair", path, {"round": "3"})
    unpaired = run("unpair", path, {"round": "3", "confirm": "yes"})
    assert unpaired.round == 3 and ev.load(path).division().paired_rounds == 2
    undone = run("undo", path, {"change": str(unpaired.number), "confirm": "yes"})
    assert undone.number == unpaired.number and undone.messages[0].startswith(f"restored the version before change "
                                                                              f"{unpaired.number}")  # fmt: skip
    assert ev.load(path).division().paired_rounds == 3
    with pytest.raises(StateError, match="the event has changed since this page was shown"):
        run("undo", path, {"change": str(unpaired.number), "confirm": "yes"})


def test_each_team_action_makes_its_change_through_the_service(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    ev.create(path, ev.loads(LEAGUE, path))
    for number in range(1, 5):
        service.add_player(path, None, Player(0, f"P{number}, X", rating=2400 - 20 * number))
    added = run("add-team", path, {"name": "Rooks", "short": "ROO", "players": "1 2"})
    assert added.messages == ("added team Rooks (1)", "Rooks (1) roster: 1. P1, X, 2. P2, X")
    assert added.division == "main"
    run("add-team", path, {"name": "Knights", "players": "3 4"})
    assert run("roster", path, {"team": "1", "players": "2 1"}).number == ev.last_change(path)
    assert ev.load(path).division().team(1).players == [2, 1]
    service.pair(path, None)
    lined = run("lineup", path, {"team": "2", "round": "1", "board1": "3", "board2": "-"})
    assert ev.load(path).division().round(1).lineups[2] == [3, 0] and lined.number == ev.last_change(path)
    # Forged fields: a board named with 5000 digits was int()'s ValueError (a server error); a team's name with a
    # line break went into the file and split the reports' lines.
    before = path.read_bytes()
    with pytest.raises(StateError, match=re.escape("the lineup form's boards are board1, board999999999999")):
        run("lineup", path, {"team": "2", "round": "1", "board1": "4", "board" + "9" * 5000: "3"})
    # A board left out between others: the players after it moved up a board without a word.
    with pytest.raises(StateError, match=re.escape("the lineup form's boards are board1, board3, not board1, board2")):
        run("lineup", path, {"team": "2", "round": "1", "board1": "-", "board3": "4"})
    with pytest.raises(StateError, match=re.escape(
        "a lineup names 2 board(s), not 1 (name one player per board, in order, - for an empty board)"
    )):
        run("lineup", path, {"team": "2", "round": "1", "board1": "4"})
    with pytest.raises(ConfigError, match=re.escape(r"team[3].name: holds a control character (U+000A): 'New\nline'")):
        run("add-team", path, {"name": "New\nline"})
    assert path.read_bytes() == before


LEAGUE = """
[event]
name = "League"
rounds = 3

[[division]]
name = "main"
system = "team-swiss"
team_size = 2
"""


def test_the_pair_form_counts_only_the_results_the_pairing_waits_for(tmp_path: Path) -> None:
    """With session breaks a score-based round n is paired from round n-2's standings: the page said that every
    result still missing held the pairing up, while *Pair* went ahead."""
    path = tmp_path / "f.toml"
    ev.create(path, ev.loads(FONTES, path))
    for number in range(1, 7):
        service.add_player(path, None, Player(0, f"P{number}, X", rating=1600 - 10 * number))
    service.pair(path, None)
    service.pair(path, None)  # round 2, from the standings after round 0

    def note() -> str:
        page = arbiterpages.render(Snapshot(ev.load(path), last_change=0), Page(PageKind.ARBITER), csrf="t")
        return dict(page)["pair"]

    assert "6 result(s) still missing: pairing waits for them" not in note()
    assert "3 result(s) still missing: pairing waits for them" in note()  # round 1's, as round 3 needs them
    for board, spread in ((1, "100"), (2, "30"), (3, "-20")):
        players = {"white": str(2 * board - 1), "black": str(2 * board)}  # KOTH by rating: 1-2, 3-4, 5-6
        run("result", path, {"round": "1", "board": str(board), "spread": spread, "was": "*", **players})
    assert "Every result the pairing needs is in (those up to round 1); 3 later still missing." in note()
    service.pair(path, None)  # and so it is


FONTES = """
[event]
name = "F"
rounds = 6

[[division]]
name = "main"
system = "koth"
entry = "spread"
session_breaks = [4]
"""


def test_a_lineup_of_many_boards_is_read_whole(tmp_path: Path) -> None:
    """A form was read only up to 32 fields, and past them as no form at all: the lineup of a team of 30 boards
    (34 fields with its token, division, team and round) was refused as "missing its security token"."""
    path = tmp_path / "league.toml"
    ev.create(path, ev.loads(LEAGUE.replace("team_size = 2", "team_size = 30"), path))
    for number in range(1, 61):
        service.add_player(path, None, Player(0, f"P{number}, X", rating=2400 - number))
    for team, name in ((1, "Rooks"), (2, "Knights")):
        service.add_team(path, None, name, short="", players=[str(n) for n in range(team, 61, 2)])
    service.pair(path, None)
    web = EventApp(path, poll=3600)
    app = web.starlette()

    async def main() -> Reply:
        async with web.lifespan(app):
            session = web.sessions.open()
            boards = {f"board{n}": str(2 * n) for n in range(1, 31)}
            form = {"csrf": session.csrf, "d": "", "team": "2", "round": "1", **boards}
            return await call(app, "POST", "/lineup", form, session=session.token)

    reply = asyncio.run(main())
    assert (reply.status, reply.headers.get("location")) == (303, "arbiter"), reply.text[-500:]
    assert ev.load(path).division().round(1).lineups[2] == list(range(2, 61, 2))


def test_a_login_with_a_damaged_password_file_says_so(tmp_path: Path) -> None:
    """The login form said the file was damaged, but a password sent with it was answered "No arbiter password
    is set for this event", as if none had ever been set."""
    path = event_copy(tmp_path)
    (tmp_path / "open.password").write_text("scrypt$not a hash\n")
    web = EventApp(path, poll=3600)
    app = web.starlette()

    async def main() -> tuple[Reply, Reply]:
        async with web.lifespan(app):
            form = await call(app, "GET", "/login")
            token = re.search(r'name="csrf" value="([^"]*)"', form.text)
            assert token
            fields = {"csrf": token[1], "password": "any long password"}
            headers = [(b"cookie", f"tmanager_login={token[1]}".encode())]
            return form, await call(app, "POST", "/login", fields, extra=headers)

    form, sent = asyncio.run(main())
    said = "The password file is damaged: set the password again."
    assert said in form.text
    assert sent.status == 403 and said in sent.text and "No arbiter password is set" not in sent.text


NEW_EVENT = """
[event]
name = "Spring"
rounds = 5

[[division]]
name = "main"
system = "dutch"
"""


def test_the_pages_of_an_event_with_no_round_paired_yet(tmp_path: Path) -> None:
    """Every page shows the players and that nothing is paired; a round asked for says no round is paired yet (it
    said "reports exist for rounds 0-0", a range of one round, which is no round at all)."""
    path = tmp_path / "spring.toml"
    ev.create(path, ev.loads(NEW_EVENT, path))
    for number in range(1, 4):
        service.add_player(path, None, Player(0, f"P{number}, X", rating=2000 - number))
    service.withdraw(path, None, "3")
    web = EventApp(path, poll=3600)
    app = web.starlette()
    pages = ["/", "/start", "/pairings", "/standings", "/table", "/prizes", "/player?n=1", "/player?n=3",
             "/standings.json"]  # fmt: skip

    async def main() -> tuple[list[Reply], Reply, list[Reply]]:
        async with web.lifespan(app):
            shown = [await call(app, "GET", page) for page in pages]
            arbiter = await call(app, "GET", "/arbiter", session=web.sessions.open().token)
            asked = [await call(app, "GET", page) for page in ("/standings?round=1", "/standings.json?round=1")]
            return shown, arbiter, asked

    shown, arbiter, (standings, data) = asyncio.run(main())
    assert [reply.status for reply in shown] == [200] * len(pages)
    assert arbiter.status == 200 and "Pair round 1" in arbiter.text and "No round is paired." in arbiter.text
    said = "round 1 is not paired; no round is paired yet"
    assert standings.status == 404 and said in standings.text
    assert (data.status, data.text) == (404, f"round: {said}")  # the query's field at fault, as every refusal names it


def test_a_refused_pair_form_keeps_the_colour_chosen(tmp_path: Path) -> None:
    """A pairing refused (here: too few players) showed the form back at "draw by lot": sent again as shown, it drew
    the colour the arbiter had chosen."""
    path = tmp_path / "spring.toml"
    ev.create(path, ev.loads(NEW_EVENT, path))
    service.add_player(path, None, Player(0, "P1, X", rating=2000))
    shown = Snapshot(ev.load(path), last_change=0)

    def selected(error: arbiterpages.FormError | None, values: Mapping[str, str]) -> list[str]:
        page = dict(arbiterpages.render(shown, Page(PageKind.ARBITER), csrf="t", error=error, values=values))
        return re.findall(r'<option value="(\w*)" selected>', page["pair"])

    with pytest.raises(TManagerError) as refused:
        run("pair", path, {"round": "1", "colour": "black"})
    error = arbiterpages.FormError(ArbiterForm.PAIR, str(refused.value))
    assert selected(error, {"round": "1", "colour": "black"}) == ["black"]
    assert selected(None, {}) == [""] and selected(error, {"colour": ""}) == [""]  # a fresh page: draw by lot
    assert selected(arbiterpages.FormError(ArbiterForm.UNDO, "m"), {"colour": "black"}) == [""]  # another form's


def test_scores_typed_over_a_forfeit_are_entered(tmp_path: Path) -> None:
    """A board shown with a forfeit keeps it selected in the form's menu; scores typed over it, the menu left as it
    was, were ignored, and the forfeit entered again ("nothing changed"). A forfeit chosen over scores shown is
    still the forfeit, and a form with neither is refused."""
    path = tmp_path / "f.toml"
    ev.create(path, ev.loads(FONTES.replace("session_breaks = [4]\n", ""), path))
    for number in range(1, 5):
        service.add_player(path, None, Player(0, f"P{number}, X", rating=1600 - 10 * number))
    service.pair(path, None)
    board1 = {"round": "1", "board": "1", "white": "1", "black": "2"}

    def board() -> tuple[str, tuple[int, int] | None]:
        played = ev.load(path).division().round(1).boards[0]
        return played.result, played.scores

    run("result", path, {**board1, "forfeit": "+-", "spread": "", "was": "*"})
    assert board()[0] == "+-"
    run("result", path, {**board1, "forfeit": "+-", "spread": "-40", "was": "+-"})
    result, scores = board()
    assert result == "0-1" and scores is not None and scores[0] - scores[1] == -40
    run("result", path, {**board1, "forfeit": "-+", "spread": "-40", "was": "0-1"})  # the old spread still shown
    assert board()[0] == "-+"
    with pytest.raises(StateError, match="the spread of the first player is empty"):
        run("result", path, {**board1, "forfeit": "", "spread": "", "was": "-+"})
