"""The event pages: pairings, standings, the wall chart or cross-table, a page per player,
the login form and the arbiter's forms, rendered from templates (``templates/event/``).

The tables come from the division's reports (:mod:`tmanager.events.reports`),
the same reports ``tmanager event report`` writes, shown here with links to the
players' pages. A page is a list of sections, each one element whose ``id`` is
its key: the browser swaps the sections that change (the dashboard's script).
Everything is built from event data only and escaped by the templates; the
caller redacts it before it leaves.
"""

from __future__ import annotations

import enum
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from types import MappingProxyType
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode

from tmanager import templates
from tmanager.core.categories import Category
from tmanager.errors import StateError, ascii_digits
from tmanager.events.model import Division, Event, label
from tmanager.events.ranking import Group
from tmanager.events.reports import DivisionReports, Report, Table, data, require_reports
from tmanager.events.reports.chess import ChessReports
from tmanager.events.rules import DivisionRules, rules_for
from tmanager.web.fields import once_each

Word = TypeVar("Word", bound=enum.StrEnum)


def read_word(kind: type[Word], word: str, refusal: str) -> Word:
    """The member of ``kind`` that ``word`` (of an address or a form) names, or a :class:`StateError` ``refusal``."""
    try:
        return kind(word)
    except ValueError:
        raise StateError(refusal) from None


class PageKind(enum.StrEnum):
    """The kinds of page a URL may name; the value is the word in the address (``/pairings``, ``page=pairings``)."""

    HOME = "home"
    START = "start"
    PAIRINGS = "pairings"
    STANDINGS = "standings"
    TABLE = "table"
    PRIZES = "prizes"
    PLAYER = "player"
    ARBITER = "arbiter"
    LOGIN = "login"

    @classmethod
    def parse(cls, word: str) -> PageKind:
        """The kind ``word`` names; a :class:`StateError` (the page a viewer asked for does not exist) if none."""
        return read_word(cls, word, f"there is no page {word!r}")

    @property
    def caption(self) -> str:
        """What the browser's tab calls a page of this kind."""
        return _CAPTIONS[self]


_CAPTIONS = {
    PageKind.HOME: "Players", PageKind.START: "Starting rank", PageKind.PAIRINGS: "Pairings",
    PageKind.STANDINGS: "Standings", PageKind.TABLE: "Table", PageKind.PRIZES: "Prizes", PageKind.PLAYER: "Player",
    PageKind.ARBITER: "Arbiter", PageKind.LOGIN: "Arbiter login",
}  # fmt: skip
#: The pages only a chess division of players has.
_PLAYERS_PAGES = frozenset({PageKind.START, PageKind.PRIZES})
#: The most digits of a number an address or a form gives (a round, a board, a player): more name nothing there.
NUMBER_DIGITS = 5
#: The section a page that cannot be shown has instead of its own (:func:`problem`).
_PROBLEM = "problem"
#: What a round's second view is called when it is not the alphabetical list (a team division's lineups).
_SECOND_VIEWS = {"lineups": "lineups"}

Sections = list[tuple[str, str]]


def render_template(template: str, **values: Any) -> str:
    return templates.render("tmanager.web", f"event/{template}", **values)


@dataclass(frozen=True, slots=True)
class Page:
    """What a URL shows: the kind of page, the division (``None``: the only one), a round, a player; ``missing``:
    the arbiter's page with only the boards still without a result; ``category``: the standings of a prize
    category."""

    kind: PageKind
    division: str | None = None
    round: int | None = None
    player: int | None = None
    missing: bool = False
    category: str | None = None

    @classmethod
    def from_query(cls, kind: PageKind, query: Mapping[str, str]) -> Page:
        """The page of ``kind`` with the URL's ``d``, ``round``, ``n`` and ``category``; a :class:`StateError` if
        malformed."""
        numbers = {}
        for key in ("round", "n"):
            text = query.get(key, "")
            if text and not (ascii_digits(text) and len(text) <= NUMBER_DIGITS):
                # "of at most 5 digits": '100000' was said to be no number
                raise StateError(f"{key} must be a number of at most {NUMBER_DIGITS} digits, not {text[:20]!r}")
            numbers[key] = int(text) if text else None
        category = query.get("category") or None
        if category is not None and len(category) > 40:
            raise StateError(f"category {category[:20]!r}… is not a category")
        return cls(kind, query.get("d") or None, numbers["round"], numbers["n"], query.get("missing") == "1", category)

    def params(self, **changes: Any) -> list[tuple[str, str]]:
        """The URL's parameters, with ``changes`` to ``division``, ``round``, ``player``, ``missing`` or
        ``category``."""
        values = {"d": self.division, "round": self.round, "n": self.player, "missing": 1 if self.missing else None,
                  "category": self.category}  # fmt: skip
        values.update({{"division": "d", "player": "n"}.get(k, k): v for k, v in changes.items()})
        return [(k, str(v)) for k, v in values.items() if v is not None and v is not False]

    def url(self, **changes: Any) -> str:
        """A relative address of this page with ``changes`` (as :meth:`params`)."""
        query = urlencode(self.params(**changes))
        return ("./" if self.kind is PageKind.HOME else self.kind.value) + (f"?{query}" if query else "")


#: Where a login may lead back to: a page of this server by its relative address (``./``, ``pairings?round=2``,
#: ``arbiter?d=B+Group``), with any query of printable ASCII but a backslash. Nothing else, so that a link to the
#: login form cannot send the arbiter to another host once logged in (``//evil``, ``\\evil``, ``https:``,
#: ``javascript:``).
_BACK = re.compile(
    r"(?:\./|(?:{}))(?:\?[!-\[\]-~]*)?".format(
        "|".join(kind.value for kind in PageKind if kind not in (PageKind.HOME, PageKind.LOGIN))
    )
)


def login_address(back: str) -> str:
    """The login form that leads back to ``back``, the relative address of the page the login was asked from (the
    arbiter's page, or the page whose navigation's login link was followed)."""
    login = Page(PageKind.LOGIN).url()
    return login if back == PageKind.ARBITER.value else f"{login}?{urlencode({'next': back})}"


def back_address(asked: str | None) -> str:
    """Where the login leads: ``asked`` (a login form's ``next``) if it is a page of this server, else the
    arbiter's page."""
    return asked if asked is not None and _BACK.fullmatch(asked) else PageKind.ARBITER.value


def page_at(address: str) -> Page:
    """The page that ``address``, one :func:`back_address` gave, names; the arbiter's page if its query is none a
    page takes (``round=x``, a field twice)."""
    path, _, query = address.partition("?")
    kind = PageKind.HOME if path == "./" else PageKind.parse(path)
    try:
        return Page.from_query(kind, once_each(parse_qsl(query, keep_blank_values=True)))
    except StateError:
        return Page(PageKind.ARBITER)


class Snapshot:
    """One version of the event, with each division's rules and reports made at most once for all viewers."""

    def __init__(self, event: Event, *, last_change: int = 0) -> None:
        self.event = event
        #: The journal's last change when the file was read: what an undo from this version undoes.
        self.last_change = last_change
        self._rules: dict[str, DivisionRules] = {}
        self._reports: dict[str, DivisionReports] = {}

    def division(self, name: str | None) -> Division:
        """The named division; without a name the first, so that short addresses work with several."""
        return self.event.division(name) if name is not None else self.event.divisions[0]

    def rules(self, division: Division) -> DivisionRules:
        if division.name not in self._rules:
            self._rules[division.name] = rules_for(self.event, division)
        return self._rules[division.name]

    def reports(self, division: Division) -> DivisionReports:
        """The division's reports; they keep what they computed (standings, cards) for the next page."""
        if division.name not in self._reports:
            self._reports[division.name] = self.rules(division).reports()
        return self._reports[division.name]


# --- tables with links ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cell:
    text: str
    kind: str
    href: str = ""


@dataclass(frozen=True, slots=True)
class _TableView:
    """A report table as a page shows it: each column has a class from its header (``col-rtg``) so narrow screens
    can leave some out, and player names link to the player's page."""

    title: str
    header: tuple[_Cell, ...]
    rows: tuple[tuple[_Cell, ...], ...]


def _view(t: Table, links: Mapping[str, str]) -> _TableView:
    classes = [f"col-{re.sub(r'[^a-z0-9]+', '-', h.casefold()).strip('-') or 'x'}" for h in t.header]
    kinds = [f"{c}{' name' if i in t.left else ''}" for i, c in enumerate(classes)]
    header = tuple(_Cell(h, kinds[i]) for i, h in enumerate(t.header))
    rows = tuple(tuple(_Cell(c, kinds[i], links.get(c, "")) for i, c in enumerate(row)) for row in t.rows)
    return _TableView(t.title, header, rows)


def _blocks(blocks: Sequence[Table | str], links: Mapping[str, str]) -> list[_TableView | str]:
    return [b if isinstance(b, str) else _view(b, links) for b in blocks]


def _links(snapshot: Snapshot, division: Division) -> dict[str, str]:
    """Player names and labels (``Name (12)``) to the player's page."""
    name = division.name if len(snapshot.event.divisions) > 1 else None
    links = {}
    for p in division.players:
        links[p.name] = links[label(p)] = Page(PageKind.PLAYER, name, player=p.number).url()
    return links


def round_links(page: Page, last: int, shown: int) -> list[dict[str, Any]]:
    return [{"href": page.url(round=n), "number": n, "current": n == shown} for n in range(1, last + 1)]


# --- the page around the sections ------------------------------------------------------------


def document(
    snapshot: Snapshot | None,
    page: Page,
    sections: Sections,
    *,
    version: int,
    arbiter: bool,
    flash: Sequence[str] = (),
    live: bool = True,
    leads_to: Page | None = None,
) -> str:
    """A whole page: head, navigation, messages for the arbiter, the sections, and the live-update hookup; the
    login form's (:func:`navigation`) ``leads_to`` the page it was asked for."""
    event = snapshot.event if snapshot else None
    page_html = render_template(
        "document.html",
        title=page.kind.caption + (f" · {event.name}" if event else ""),
        name=event.name if event else "Event",
        version=version,
        now=f"{time.time():.3f}",
        stream="events?" + urlencode([("page", page.kind.value), *page.params()]) if live else "",
        links=navigation(snapshot, page, arbiter=arbiter, leads_to=leads_to),
        flash=flash,
        sections=[html for _, html in sections],
    )
    return page_html + "\n"


def navigation(
    snapshot: Snapshot | None, page: Page, *, arbiter: bool, leads_to: Page | None = None
) -> list[dict[str, str]]:
    """Links to the division's pages, to the other divisions, and to the arbiter's page or the login. The login
    form's are those of the page it ``leads_to``, and its links to the divisions are login forms that lead to that
    page of each division: they were ``login?d=B``, which dropped where the login was to lead (the arbiter's page of
    the first division, whichever was chosen)."""
    links = []
    target = Page(PageKind.ARBITER)
    shown = leads_to if page.kind is PageKind.LOGIN and leads_to is not None else page
    if snapshot is not None:
        division = _division_or_none(snapshot, shown.division)
        name = division.name if division and len(snapshot.event.divisions) > 1 else None
        table = "Cross-table" if division and division.round_robin else "Wall chart"
        for kind in _NAVIGATION:
            if kind in _PLAYERS_PAGES and not (division and ranks_players(snapshot, division)):
                continue
            current = "page" if page.kind is kind else ""
            text = table if kind is PageKind.TABLE else kind.caption
            links.append({"href": Page(kind, name).url(), "text": text, "current": current})
        if len(snapshot.event.divisions) > 1:
            for d in snapshot.event.divisions:
                kind = shown.kind if shown.kind is not PageKind.PLAYER else PageKind.HOME
                kind = PageKind.HOME if kind in _PLAYERS_PAGES and not ranks_players(snapshot, d) else kind
                current = "true" if division is d else ""
                href = Page(kind, d.name).url()
                href = login_address(href) if page.kind is PageKind.LOGIN else href
                links.append({"kind": "division", "href": href, "text": d.name, "current": current})
        target = Page(PageKind.ARBITER, name)
    if arbiter:
        links.append({"kind": "arbiter", "href": target.url(), "text": "Arbiter"})
    else:
        # Back to this very page once logged in (it led to the arbiter's page, whatever page it was followed from).
        login = login_address(shown.url()) if shown.kind is not PageKind.LOGIN else Page(PageKind.LOGIN).url()
        links.append({"kind": "arbiter", "href": login, "text": "Arbiter login"})
    return [{"kind": "", "current": "", **link} for link in links]


def ranks_players(snapshot: Snapshot, division: Division) -> bool:
    """Whether the division ranks players by points (chess): it has a starting rank list and a prize list."""
    return snapshot.rules(division).awards_prizes


def _division_or_none(snapshot: Snapshot, name: str | None) -> Division | None:
    try:
        return snapshot.division(name)
    except StateError:
        return None


# --- public pages ----------------------------------------------------------------------------


def render(snapshot: Snapshot, page: Page) -> Sections:
    """The sections of public page ``page``; a :class:`StateError` if it names something the event does not have
    (the arbiter's page: :func:`tmanager.web.arbiterpages.render`)."""
    if page.kind is PageKind.HOME:
        return home(snapshot, page)
    body = DIVISION_PAGES.get(page.kind)
    if body is None:
        raise StateError(f"there is no public page {page.kind.value!r}")
    division = snapshot.division(page.division)
    return [("head", head(snapshot, division)), *body(snapshot, division, page)]


def head(snapshot: Snapshot, division: Division, *, element: str = "head") -> str:
    """Event name, place and dates; division, system and round."""
    e = snapshot.event
    dates = " – ".join(x for x in dict.fromkeys((e.start, e.end)) if x)
    total = e.total_rounds(division)
    paired = division.paired_rounds
    progress = f"round {paired} of {total}" if total and paired else f"round {paired}" if paired else "not paired yet"
    facts = [
        *([f"division {division.name}"] if len(e.divisions) > 1 else []),
        snapshot.rules(division).system_title,
        f"{len(division.players)} players",
        progress,
    ]
    where = " · ".join(x for x in (e.site, dates) if x)
    return render_template("head.html", id=element, name=e.name, where=where, facts=" · ".join(facts))


def home(snapshot: Snapshot, page: Page) -> Sections:
    """Each division's players in alphabetical order, each a link to their page, with score and pairing."""
    e = snapshot.event
    sections: Sections = []
    divisions = [snapshot.division(page.division)] if page.division else e.divisions
    for index, d in enumerate(divisions):
        name = d.name if len(e.divisions) > 1 else None
        rules = snapshot.rules(d)
        record = d.round(rules.result_round()) if d.paired_rounds else None  # being played, as on the pairings
        scores = rules.scores_text()
        players = [
            {
                "href": Page(PageKind.PLAYER, name, player=p.number).url(),
                "name": p.name,
                "number": p.number,
                "score": scores[p.number],
                "seat": rules.seat_text(record, p.number) if record else "",
            }
            for p in sorted(d.players, key=lambda p: p.name.casefold())
        ]
        html = render_template(
            "players.html",
            index=index,
            head=head(snapshot, d, element=f"head-{index}"),
            title=f"Division {d.name}" if len(e.divisions) > 1 else "Players",
            paired=record.number if record else 0,
            pairings=Page(PageKind.PAIRINGS, name).url(),
            standings=Page(PageKind.STANDINGS, name).url(),
            players=players,
        )
        sections.append((f"players-{index}", html))
    return sections


def _report_section(
    key: str,
    heading: str,
    report: Report | None,
    links: Mapping[str, str],
    *,
    rounds: Sequence[Mapping[str, Any]] = (),
    rounds_label: str = "",
    choices: Sequence[Mapping[str, Any]] = (),
) -> tuple[str, str]:
    """A report shown as a section: its heading, links to other rounds (and ``choices``: other views, such as
    categories), its tables and notes."""
    items = _blocks(report.blocks, links) if report else []
    empty = "" if report else "No round is paired yet."
    html = render_template(
        "report.html", id=key, heading=heading, rounds=rounds, rounds_label=rounds_label, items=items, empty=empty,
        choices=choices,
    )
    return key, html


def pairings(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """A round's boards, and (chess) every player alphabetically with board, colour and opponent; by default the
    round being played (a Double-Swiss's game 1 while it lacks results: the page showed game 2, whose colours are
    reversed, so that players read the wrong colour for the game they were about to play)."""
    if division.paired_rounds == 0:
        return [_report_section("pairings", "Pairings", None, {})]
    n = snapshot.rules(division).result_round() if page.round is None else page.round
    links = _links(snapshot, division)
    rounds = round_links(page, division.paired_rounds, n)
    by_board, *others = snapshot.reports(division).pairings(n)
    heading = f"Round {n} · by board"
    sections = [_report_section("pairings", heading, by_board, links, rounds=rounds, rounds_label="Round:")]
    sections += [_report_section(r.kind, f"Round {n} · {_SECOND_VIEWS.get(r.kind, 'alphabetical')}", r, links)
                 for r in others]  # fmt: skip
    return sections


def standings_sections(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """The ranking after a round (the last paired one by default); with ``category``, that prize category's
    players ranked among themselves, and links to the event's categories."""
    n = division.paired_rounds if page.round is None else page.round
    reports = snapshot.reports(division)
    choices: list[dict[str, Any]] = []
    if page.category or (snapshot.event.categories and snapshot.rules(division).awards_prizes):
        chess = require_reports(reports, ChessReports, f"division {division.name!r} has no prize categories")
        report = chess.standings(n, among=group(chess, page.category) if page.category else None)
        names = [None, *snapshot.event.categories]
        choices = [{"href": page.url(category=c), "text": c or "Overall", "current": c == page.category}
                   for c in names]  # fmt: skip
    else:
        report = reports.standings(n)
    rounds = round_links(page, division.paired_rounds, n)
    heading = f"Standings after round {n}" + (f" · {page.category}" if page.category else "")
    key, html = _report_section("standings", heading, report, _links(snapshot, division), rounds=rounds,
                                rounds_label="After round:", choices=choices)  # fmt: skip
    return [(key, html)]


def group(reports: ChessReports, name: str) -> Group:
    """The event's prize category (in any case) or the players' flag that a page's ``category`` names; a
    :class:`StateError` saying why not and naming those there are for any other name: ``category=U1700`` ranked
    the players rated under 1700, a ranking of no prize of this event, and a name of nothing an empty table."""
    groups = reports.groups()
    found = next((g for g in groups if g.name.casefold() == name.casefold()), None)
    if found is not None:
        return found
    try:
        Category.parse(name)
        why = f"{name!r} is not a category of this event"
    except ValueError as exc:
        why = str(exc)
    listed = ", ".join(g.name for g in groups)
    raise StateError(f"{why}; the event's categories are {listed}" if listed else f"{why}; the event has none")


def starting_list(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """The starting rank list: pairing order, title, name, federation, FIDE ID, rating, club (one list: ``page``,
    given to every page of a division, chooses nothing here)."""
    reports = _players_reports(snapshot, division, "starting rank list")
    return [_report_section("start", "Starting rank list", reports.starting_list(), _links(snapshot, division))]


def prizes(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """The prize list after a round (the last paired one by default): the fund allocated, else the rankings."""
    reports = _players_reports(snapshot, division, "prize list")
    n = division.paired_rounds if page.round is None else page.round
    rounds = round_links(page, division.paired_rounds, n)
    return [_report_section("prizes", f"Prize list after round {n}", reports.prizes(n), _links(snapshot, division),
                            rounds=rounds, rounds_label="After round:")]  # fmt: skip


def _players_reports(snapshot: Snapshot, division: Division, what: str) -> ChessReports:
    refusal = f"division {division.name!r} does not rank players by points: it has no {what}"
    return require_reports(snapshot.reports(division), ChessReports, refusal)


def table(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """The cross-table (round robin) or the wall chart (Swiss), after the last paired round (``page``, given to
    every page of a division, chooses nothing here)."""
    report = snapshot.reports(division).table()
    title = "Cross-table" if division.round_robin else "Wall chart"
    heading = f"{title} after round {division.paired_rounds}"
    return [_report_section("table", heading, report, _links(snapshot, division))]


def player(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """One player: data, score and rank, the current pairing, and every round so far."""
    if page.player is None:
        raise StateError("which player? the address needs n=NUMBER")
    summary = snapshot.reports(division).summary(page.player)
    links = _links(snapshot, division)
    seat = summary.seat
    opponent = page.url(player=seat.opponent.number) if seat and seat.opponent else ""
    rounds = _view(summary.rounds, links) if summary.rounds else None
    html = render_template(
        "player.html", s=summary, paired=division.paired_rounds, seat=seat, opponent_href=opponent, rounds=rounds
    )
    return [("player", html)]


# --- the same data for programs ----------------------------------------------------------------


def page_data(snapshot: Snapshot, page: Page) -> dict[str, Any]:
    """What the pairings or standings page shows, as :mod:`tmanager.events.reports.data` rows (chess divisions;
    the page's ``category`` ranks one prize category); a :class:`StateError` for anything else."""
    division = snapshot.division(page.division)
    # A team division's refusal said it was score-based.
    kind = "is score-based" if snapshot.rules(division).score_based else "ranks teams"
    refusal = f"division {division.name!r} {kind}: its pages have no JSON (they are for chess divisions of players)"
    reports = require_reports(snapshot.reports(division), ChessReports, refusal)
    if page.kind is PageKind.PAIRINGS:
        return data.pairings(reports, page.round)
    among = group(reports, page.category) if page.category else None
    return data.standings(reports, page.round, among=among)


#: The pages of a division, each after the division's head, by kind (the home page is the event's: :func:`home`).
DIVISION_PAGES: Mapping[PageKind, Callable[[Snapshot, Division, Page], Sections]] = MappingProxyType({
    PageKind.START: starting_list,
    PageKind.PAIRINGS: pairings,
    PageKind.STANDINGS: standings_sections,
    PageKind.TABLE: table,
    PageKind.PRIZES: prizes,
    PageKind.PLAYER: player,
})  # fmt: skip
#: The pages the navigation links to, in its order.
_NAVIGATION = (PageKind.HOME, PageKind.START, PageKind.PAIRINGS, PageKind.STANDINGS, PageKind.TABLE, PageKind.PRIZES)


def problem(message: str, *, status: int = HTTPStatus.NOT_FOUND) -> Sections:
    """A page that cannot be shown: the reason, under the heading of the response's ``status`` ("Not found",
    "Forbidden", "Bad request": a form refused was headed "Not found" too)."""
    heading = HTTPStatus(status).phrase.capitalize()
    return [(_PROBLEM, render_template("problem.html", heading=heading, message=message))]


def has_problem(sections: Sections) -> bool:
    """Whether ``sections`` are a page that cannot be shown (its reason, :func:`problem`) or hold one."""
    return any(key == _PROBLEM for key, _ in sections)
