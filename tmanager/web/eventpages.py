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

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from tmanager import templates
from tmanager.errors import StateError
from tmanager.events.model import Division, Event, PairingSystem, PlayerStatus, label, missing
from tmanager.events.reports import DivisionReports, Report, Table, data
from tmanager.events.reports.chess import ChessReports
from tmanager.events.rules import DivisionRules, TeamRules, rules_for
from tmanager.events.rules.team import team_label
from tmanager.events.teams import settings

#: Page kinds a URL may name, with their titles.
KINDS = {
    "home": "Players", "pairings": "Pairings", "standings": "Standings", "table": "Table", "player": "Player",
    "arbiter": "Arbiter", "login": "Arbiter login",
}  # fmt: skip
SYSTEM_NAMES = {
    PairingSystem.DUTCH: "Swiss (FIDE Dutch)", PairingSystem.ROUND_ROBIN: "round robin",
    PairingSystem.MANUAL: "manual pairing", PairingSystem.KOTH: "King of the Hill",
    PairingSystem.FACTORED: "factored pairings", PairingSystem.TSH_SWISS: "Swiss (tsh)",
    PairingSystem.CHEW: "Chew pairings", PairingSystem.RANDOM: "random pairings",
    PairingSystem.DOUBLE_SWISS: "Double-Swiss (FIDE, matches of two games)",
    PairingSystem.TEAM_SWISS: "team Swiss (FIDE)",
}  # fmt: skip
#: What a round's second view is called when it is not the alphabetical list (a team division's lineups).
_SECOND_VIEWS = {"lineups": "lineups"}
#: The byes an arbiter may set for a player who asks.
REQUESTED_BYES = ("half", "zero", "full")

Sections = list[tuple[str, str]]


def _render(template: str, **values: Any) -> str:
    return templates.render("tmanager.web", f"event/{template}", **values)


@dataclass(frozen=True, slots=True)
class Page:
    """What a URL shows: the kind of page, the division (``None``: the only one), a round, a player; ``missing``:
    the arbiter's page with only the boards still without a result."""

    kind: str
    division: str | None = None
    round: int | None = None
    player: int | None = None
    missing: bool = False

    @classmethod
    def from_query(cls, kind: str, query: Mapping[str, str]) -> Page:
        """The page of ``kind`` with the URL's ``d``, ``round`` and ``n``; a :class:`StateError` if malformed."""
        if kind not in KINDS:
            raise StateError(f"there is no page {kind!r}")
        numbers = {}
        for key in ("round", "n"):
            text = query.get(key, "")
            if text and not (text.isdigit() and len(text) < 6):
                raise StateError(f"{key} must be a number, not {text[:20]!r}")
            numbers[key] = int(text) if text else None
        return cls(kind, query.get("d") or None, numbers["round"], numbers["n"], query.get("missing") == "1")

    def params(self, **changes: Any) -> list[tuple[str, str]]:
        """The URL's parameters, with ``changes`` to ``division``, ``round``, ``player`` or ``missing``."""
        values = {"d": self.division, "round": self.round, "n": self.player, "missing": 1 if self.missing else None}
        values.update({{"division": "d", "player": "n"}.get(k, k): v for k, v in changes.items() if k != "kind"})
        return [(k, str(v)) for k, v in values.items() if v is not None and v is not False]

    def url(self, **changes: Any) -> str:
        """A relative address of this page with ``changes`` (also to ``kind``)."""
        kind = changes.get("kind", self.kind)
        query = urlencode(self.params(**changes))
        return ("./" if kind == "home" else kind) + (f"?{query}" if query else "")


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
        links[p.name] = links[label(p)] = Page("player", name, player=p.number).url()
    return links


def _round_links(page: Page, last: int, shown: int) -> list[dict[str, Any]]:
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
) -> str:
    """A whole page: head, navigation, messages for the arbiter, the sections, and the live-update hookup."""
    event = snapshot.event if snapshot else None
    page_html = _render(
        "document.html",
        title=KINDS.get(page.kind, "") + (f" · {event.name}" if event else ""),
        name=event.name if event else "Event",
        version=version,
        now=f"{time.time():.3f}",
        stream="events?" + urlencode([("page", page.kind), *page.params()]) if live else "",
        links=navigation(snapshot, page, arbiter=arbiter),
        flash=flash,
        sections=[html for _, html in sections],
    )
    return page_html + "\n"


def navigation(snapshot: Snapshot | None, page: Page, *, arbiter: bool) -> list[dict[str, str]]:
    """Links to the division's pages, to the other divisions, and to the arbiter's page or the login."""
    links = []
    target = Page("arbiter")
    if snapshot is not None:
        division = _division_or_none(snapshot, page.division)
        name = division.name if division and len(snapshot.event.divisions) > 1 else None
        table = "Cross-table" if division and division.system == PairingSystem.ROUND_ROBIN else "Wall chart"
        for kind, text in (("home", "Players"), ("pairings", "Pairings"), ("standings", "Standings"), ("table", table)):
            current = "page" if page.kind == kind else ""
            links.append({"href": Page(kind, name).url(), "text": text, "current": current})
        if len(snapshot.event.divisions) > 1:
            kind = page.kind if page.kind != "player" else "home"
            for d in snapshot.event.divisions:
                current = "true" if division is d else ""
                href = Page(kind, d.name).url()
                links.append({"kind": "division", "href": href, "text": d.name, "current": current})
        target = Page("arbiter", name)
    if arbiter:
        links.append({"kind": "arbiter", "href": target.url(), "text": "Arbiter"})
    else:
        links.append({"kind": "arbiter", "href": "login", "text": "Arbiter login"})
    return [{"kind": "", "current": "", **link} for link in links]


def _division_or_none(snapshot: Snapshot, name: str | None) -> Division | None:
    try:
        return snapshot.division(name)
    except StateError:
        return None


# --- public pages ----------------------------------------------------------------------------


def render(
    snapshot: Snapshot,
    page: Page,
    *,
    csrf: str | None = None,
    error: tuple[str, str] | None = None,
    values: Mapping[str, str] | None = None,
) -> Sections:
    """The sections of ``page``; a :class:`StateError` if it names something the event does not have.

    The arbiter's page needs ``csrf``; ``error`` is (form, message) to show
    beside that form, ``values`` what was typed into it.
    """
    if page.kind == "home":
        return home(snapshot, page)
    division = snapshot.division(page.division)
    sections = [("head", head(snapshot, division))]
    if page.kind == "pairings":
        sections += pairings(snapshot, division, page)
    elif page.kind == "standings":
        sections += standings_sections(snapshot, division, page)
    elif page.kind == "table":
        sections += table(snapshot, division)
    elif page.kind == "player":
        sections += player(snapshot, division, page)
    elif page.kind == "arbiter":
        if csrf is None:
            raise StateError("log in first")
        sections += arbiter(snapshot, division, page, csrf=csrf, error=error, values=values or {})
    return sections


def head(snapshot: Snapshot, division: Division, *, element: str = "head") -> str:
    """Event name, place and dates; division, system and round."""
    e = snapshot.event
    dates = " – ".join(x for x in dict.fromkeys((e.start, e.end)) if x)
    total = e.total_rounds(division)
    paired = division.paired_rounds
    progress = f"round {paired} of {total}" if total and paired else f"round {paired}" if paired else "not paired yet"
    facts = [
        *([f"division {division.name}"] if len(e.divisions) > 1 else []),
        SYSTEM_NAMES[division.system],
        f"{len(division.players)} players",
        progress,
    ]
    where = " · ".join(x for x in (e.site, dates) if x)
    return _render("head.html", id=element, name=e.name, where=where, facts=" · ".join(facts))


def home(snapshot: Snapshot, page: Page) -> Sections:
    """Each division's players in alphabetical order, each a link to their page, with score and pairing."""
    e = snapshot.event
    sections: Sections = []
    divisions = [snapshot.division(page.division)] if page.division else e.divisions
    for index, d in enumerate(divisions):
        name = d.name if len(e.divisions) > 1 else None
        paired = d.paired_rounds
        record = d.round(paired) if paired else None
        rules = snapshot.rules(d)
        scores = rules.scores_text()
        players = [
            {
                "href": Page("player", name, player=p.number).url(),
                "name": p.name,
                "number": p.number,
                "score": scores[p.number],
                "seat": rules.seat_text(record, p.number) if record else "",
            }
            for p in sorted(d.players, key=lambda p: p.name.casefold())
        ]
        html = _render(
            "players.html",
            index=index,
            head=head(snapshot, d, element=f"head-{index}"),
            title=f"Division {d.name}" if len(e.divisions) > 1 else "Players",
            paired=paired,
            pairings=Page("pairings", name).url(),
            standings=Page("standings", name).url(),
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
) -> tuple[str, str]:
    """A report shown as a section: its heading, links to other rounds, its tables and notes."""
    items = _blocks(report.blocks, links) if report else []
    empty = "" if report else "No round is paired yet."
    html = _render(
        "report.html", id=key, heading=heading, rounds=rounds, rounds_label=rounds_label, items=items, empty=empty
    )
    return key, html


def pairings(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """A round's boards, and (chess) every player alphabetically with board, colour and opponent."""
    if division.paired_rounds == 0:
        return [_report_section("pairings", "Pairings", None, {})]
    n = page.round or division.paired_rounds
    links = _links(snapshot, division)
    rounds = _round_links(page, division.paired_rounds, n)
    by_board, *others = snapshot.reports(division).pairings(page.round)
    heading = f"Round {n} · by board"
    sections = [_report_section("pairings", heading, by_board, links, rounds=rounds, rounds_label="Round:")]
    sections += [_report_section(r.kind, f"Round {n} · {_SECOND_VIEWS.get(r.kind, 'alphabetical')}", r, links)
                 for r in others]  # fmt: skip
    return sections


def standings_sections(snapshot: Snapshot, division: Division, page: Page) -> Sections:
    """The ranking after a round (the last paired one by default)."""
    n = division.paired_rounds if page.round is None else page.round
    report = snapshot.reports(division).standings(n)
    rounds = _round_links(page, division.paired_rounds, n)
    links = _links(snapshot, division)
    heading = f"Standings after round {n}"
    return [_report_section("standings", heading, report, links, rounds=rounds, rounds_label="After round:")]


def table(snapshot: Snapshot, division: Division) -> Sections:
    """The cross-table (round robin) or the wall chart (Swiss)."""
    report = snapshot.reports(division).table()
    title = "Cross-table" if division.system == PairingSystem.ROUND_ROBIN else "Wall chart"
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
    html = _render(
        "player.html", s=summary, paired=division.paired_rounds, seat=seat, opponent_href=opponent, rounds=rounds
    )
    return [("player", html)]


# --- the same data for programs ----------------------------------------------------------------


def page_data(snapshot: Snapshot, page: Page, *, category: str = "") -> dict[str, Any]:
    """What the pairings or standings page shows, as :mod:`tmanager.events.reports.data` rows (chess divisions;
    ``category`` ranks one prize category); a :class:`StateError` for anything else."""
    division = snapshot.division(page.division)
    reports = snapshot.reports(division)
    if not isinstance(reports, ChessReports):
        raise StateError(f"division {division.name!r} is score-based: its pages have no JSON")
    if page.kind == "pairings":
        return data.pairings(reports, page.round)
    among = reports.group(category) if category else None
    return data.standings(reports, page.round, among=among)


# --- the arbiter -------------------------------------------------------------------------------


def login(*, csrf: str, error: str = "", configured: bool = True) -> Sections:
    """The login form (one field: the arbiter's password)."""
    return [("login", _render("login.html", csrf=csrf, message=error, configured=configured))]


def arbiter(
    snapshot: Snapshot,
    division: Division,
    page: Page,
    *,
    csrf: str,
    error: tuple[str, str] | None,
    values: Mapping[str, str],
) -> Sections:
    """Result entry and correction for a round, pairing and unpairing, requested byes, forced games, undo;
    in a team division, teams, rosters and lineups; and logging out."""
    name = division.name if len(snapshot.event.divisions) > 1 else None
    form, message = error or ("", "")
    common = {"csrf": csrf, "d": name or ""}
    sections: Sections = []
    if division.paired_rounds:
        sections.append(("results", _results(snapshot, division, page, common, form, message, values)))
    sections.append(("pair", _pair_form(snapshot, division, common, message if form == "pair" else "")))
    sections.append(("bye", _bye_form(division, common, message if form == "bye" else "", values)))
    sections.append(("force", _force_form(snapshot, division, common, message if form == "force" else "", values)))
    sections.append(("unpair", _unpair_form(division, common, message if form == "unpair" else "")))
    if isinstance(snapshot.rules(division), TeamRules):
        sections.append(("teams", _team_forms(division, common, form, message, values)))
    fields = {**common, "change": snapshot.last_change}
    undo = _render("undo.html", fields=fields, message=message if form == "undo" else "")
    sections.append(("undo", undo))
    sections.append(("logout", _render("logout.html", csrf=csrf)))
    if form and not any(f'id="{form}"' in html for _, html in sections):
        # The form named is not on the page (a board that does not exist): say it at the top.
        sections.insert(0, ("error", _render("form-error.html", message=message)))
    return sections


def _results(
    snapshot: Snapshot,
    division: Division,
    page: Page,
    common: Mapping[str, str],
    form: str,
    message: str,
    values: Mapping[str, str],
) -> str:
    """Each board of a round with its result form."""
    n = page.round or division.paired_rounds
    record = division.round(n)
    if not record.paired:
        raise StateError(f"round {n} is not paired")
    rules = snapshot.rules(division)
    view = {"missing": 1} if page.missing else {}  # a saved result comes back to the same view
    boards = []
    for board in record.boards:
        if page.missing and not board.result.pending:
            continue
        index = record.board_number(board)
        key = f"result-{index}"
        boards.append(
            {
                "key": key,
                "index": index,
                "missing": board.result.pending,
                "hidden": {**common, "round": n, "board": index, "was": board.result, **view},
                "white": label(division.player(board.white)),
                "black": label(division.player(board.black)),
                "form": rules.entry_form(),
                "now": rules.entry_values(board),
                "typed": values if form == key else {},
                "action": "Save" if board.result.pending else "Correct",
                "error": message if form == key else "",
            }
        )
    pending = sum(1 for r, _ in missing(division) if r == n)
    return _render(
        "results.html",
        round=n,
        state=f"{pending} result(s) to enter" if pending else "all results are in",
        rounds=_round_links(page, division.paired_rounds, n),
        view={
            "href": page.url(missing=not page.missing),
            "text": "All boards" if page.missing else "Missing results only",
        },
        boards=boards,
        byes=[f"{label(division.player(p))}, {kind}" for p, kind in record.byes.items()],
    )


def result_words(snapshot: Snapshot | None, form: Mapping[str, str]) -> list[str]:
    """What follows the board number in a result line, from a board's form (:meth:`EntryForm.words`)."""
    if snapshot is None:
        return [form.get("result", "")]
    division = snapshot.division(form.get("d") or None)
    try:
        return snapshot.rules(division).entry_form().words(form)
    except ValueError as exc:
        raise StateError(str(exc)) from None


def _pair_form(snapshot: Snapshot, division: Division, common: Mapping[str, str], message: str) -> str:
    nxt = division.paired_rounds + 1
    total = snapshot.event.total_rounds(division)
    waiting = len(missing(division))
    return _render(
        "pair.html",
        done=bool(total and nxt > total),
        total=total,
        note=f"{waiting} result(s) still missing: pairing waits for them." if waiting else "Every result is in.",
        colour=nxt == 1 and division.system == PairingSystem.DUTCH and division.initial_colour is None,
        fields={**common, "round": nxt},
        round=nxt,
        message=message,
    )


def _player_choices(division: Division) -> list[tuple[int, str]]:
    """The division's active players, by name, as a select's options."""
    players = sorted(division.players, key=lambda p: p.name.casefold())
    return [(p.number, label(p)) for p in players if p.status == PlayerStatus.ACTIVE]


def _bye_form(division: Division, common: Mapping[str, str], message: str, values: Mapping[str, str]) -> str:
    nxt = str(division.paired_rounds + 1)
    requested = [
        f"round {r.number}: {label(division.player(p))}, {kind}" for r in division.rounds if not r.paired
        for p, kind in r.byes.items()
    ]  # fmt: skip
    return _render(
        "bye.html",
        round_robin=division.system == PairingSystem.ROUND_ROBIN,
        fields=common,
        players=_player_choices(division),
        chosen=values.get("player", "") if message else "",
        round=values.get("round", nxt) if message else nxt,
        kinds=REQUESTED_BYES,
        message=message,
        requested=requested,
    )


def _force_form(
    snapshot: Snapshot, division: Division, common: Mapping[str, str], message: str, values: Mapping[str, str]
) -> str:
    """A forced game (or the pairing-allocated bye) of the next round, as ``tmanager event force``."""
    nxt = division.paired_rounds + 1
    total = snapshot.event.total_rounds(division)
    typed = values if message else {}
    record = next((r for r in division.rounds if r.number == nxt), None)
    forced = []
    if record is not None:
        forced = [f"{label(division.player(w))} – {label(division.player(b))}" for w, b in record.forced]
        if record.forced_bye is not None:
            forced.append(f"bye: {label(division.player(record.forced_bye))}")
    return _render(
        "force.html",
        round_robin=division.system == PairingSystem.ROUND_ROBIN,
        done=bool(total and nxt > total),
        total=total,
        fields={**common, "round": nxt},
        # A score-based board's first player is the one listed first (who starts, with assign_firsts).
        titles=snapshot.rules(division).side_titles,
        players=_player_choices(division),
        white=typed.get("white", ""),
        black=typed.get("black", ""),
        round=nxt,
        message=message,
        forced=forced,
    )


def lineup_round(division: Division, team: int) -> int:
    """The round a team's lineup form offers: the last paired one while the team has a match there without its
    lineup, else the next."""
    if division.paired_rounds:
        record = division.round(division.paired_rounds)
        if any(team in m for m in record.matches) and team not in record.lineups:
            return record.number
    return division.paired_rounds + 1


def _team_forms(
    division: Division, common: Mapping[str, str], form: str, message: str, values: Mapping[str, str]
) -> str:
    """A team division's forms, as ``add-team``, ``roster`` and ``lineup``: a new team with its roster, and for
    each team its roster's board order and its lineup for a round, board by board."""
    size = settings(division).team_size
    teams = []
    for team in sorted(division.teams, key=lambda t: t.number):
        n = lineup_round(division, team.number)
        record = next((r for r in division.rounds if r.number == n), None)
        given = record.lineups.get(team.number) if record else None
        lineup = [str(p) if p else "-" for p in (given or team.players[:size])]
        lineup += ["-"] * (size - len(lineup))
        roster_key, lineup_key = f"roster-{team.number}", f"lineup-{team.number}"
        if form == lineup_key:
            n = int(values["round"]) if values.get("round", "").isdigit() else n
            lineup = [values.get(f"board{i}", "-") for i in range(1, size + 1)]
        teams.append({
            "number": team.number,
            "name": team_label(team),
            "fields": {**common, "team": team.number},
            "roster": " ".join(str(p) for p in team.players),
            "players": [(p, label(division.player(p))) for p in team.players],
            "typed_roster": values.get("players", "") if form == roster_key else None,
            "roster_error": message if form == roster_key else "",
            "round": n,
            "given": given is not None,
            "boards": lineup,
            "lineup_error": message if form == lineup_key else "",
        })  # fmt: skip
    typed = values if form == "add-team" else {}
    return _render("teams.html", teams=teams, fields=common, typed=typed, size=size,
                   message=message if form == "add-team" else "")  # fmt: skip


def _unpair_form(division: Division, common: Mapping[str, str], message: str) -> str:
    """Taking back the last round's pairings, as ``tmanager event unpair``; a box to tick first."""
    n = division.paired_rounds
    return _render("unpair.html", round=n, fields={**common, "round": n}, message=message)


def problem(message: str) -> Sections:
    """A page that cannot be shown: the reason."""
    return [("problem", _render("problem.html", message=message))]
