"""HTML of the event pages: pairings, standings, the wall chart or cross-table, a page per player,
the login form and the arbiter's forms.

The tables come from :mod:`tmanager.reports`, the same reports ``tmanager
event report`` writes, rendered here with links to the players' pages. A page
is a list of sections, each one element whose ``id`` is its key: the browser
swaps the sections that change (the dashboard's script). Everything is built
from event data only and escaped; the caller redacts it before it leaves.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from tmanager import event as ev
from tmanager import event_scored, reports, reports_scored
from tmanager.errors import StateError

#: Page kinds a URL may name, with their titles.
KINDS = {
    "home": "Players", "pairings": "Pairings", "standings": "Standings", "table": "Table", "player": "Player",
    "arbiter": "Arbiter", "login": "Arbiter login",
}  # fmt: skip
#: Results the arbiter chooses from: the stored form and what the menu says.
RESULT_CHOICES = (
    ("*", "no result"),
    ("1-0", "1-0"),
    ("½-½", "½-½"),
    ("0-1", "0-1"),
    ("+-", "1-0 forfeit (+-)"),
    ("-+", "0-1 forfeit (-+)"),
    ("--", "both forfeit (--)"),
    ("adj", "adjourned"),
)
SYSTEM_NAMES = {
    "dutch": "Swiss (FIDE Dutch)", "round-robin": "round robin", "manual": "manual pairing",
    "koth": "King of the Hill", "factored": "factored pairings", "tsh-swiss": "Swiss (tsh)",
    "chew": "Chew pairings", "random": "random pairings",
}  # fmt: skip
#: The score fields of a score-based division's result form, by its ``entry``, in the order its result line takes.
SCORE_FIELDS = {
    "scores": (("s1", "first player's score"), ("s2", "second player's score")),
    "spread": (("spread", "spread of the first player"),),
    "both": (("s1", "first player's score"), ("s2", "second player's score"), ("spread", "spread")),
}
#: What a score-based result form offers besides the scores: forfeits and clearing the result.
FORFEIT_CHOICES = (("", "scores"), ("+-", "forfeit: first wins"), ("-+", "forfeit: second wins"),
                   ("--", "both forfeit"), ("*", "no result"))  # fmt: skip

Sections = list[tuple[str, str]]
_esc = html.escape
_CURRENT = ' aria-current="page"'
_CHOSEN = ' aria-current="true"'


@dataclass(frozen=True, slots=True)
class Page:
    """What a URL shows: the kind of page, the division (``None``: the only one), a round, a player."""

    kind: str
    division: str | None = None
    round: int | None = None
    player: int | None = None

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
        return cls(kind, query.get("d") or None, numbers["round"], numbers["n"])

    def params(self, **changes: Any) -> list[tuple[str, str]]:
        """The URL's parameters, with ``changes`` to ``division``, ``round`` or ``player``."""
        values = {"d": self.division, "round": self.round, "n": self.player}
        values.update({{"division": "d", "player": "n"}.get(k, k): v for k, v in changes.items() if k != "kind"})
        return [(k, str(v)) for k, v in values.items() if v is not None]

    def url(self, **changes: Any) -> str:
        """A relative address of this page with ``changes`` (also to ``kind``)."""
        kind = changes.get("kind", self.kind)
        query = urlencode(self.params(**changes))
        return ("./" if kind == "home" else kind) + (f"?{query}" if query else "")

    def href(self, **changes: Any) -> str:
        """:meth:`url`, escaped for an attribute."""
        return _esc(self.url(**changes))


class Snapshot:
    """One version of the event, with each report built at most once whatever the number of viewers."""

    def __init__(self, event: ev.Event, *, last_change: int = 0) -> None:
        self.event = event
        #: The journal's last change when the file was read: what an undo from this version undoes.
        self.last_change = last_change
        self._memo: dict[tuple[Any, ...], Any] = {}

    def division(self, name: str | None) -> ev.Division:
        """The named division; without a name the first, so that short addresses work with several."""
        return self.event.division(name) if name is not None else self.event.divisions[0]

    def context(self, division: ev.Division, upto: int | None = None) -> reports.Context:
        key = ("context", division.name, division.paired_rounds if upto is None else upto)
        if key not in self._memo:
            self._memo[key] = reports.context(self.event, division, key[2])
        context: reports.Context = self._memo[key]
        return context

    def cards(self, division: ev.Division) -> dict[int, tuple[reports.Table, str]]:
        """Each player's card (their rounds) and rating estimate, by player number."""
        key = ("cards", division.name)
        if key not in self._memo:
            blocks = reports.cards(self.context(division)).blocks
            tables = [b for b in blocks if isinstance(b, reports.Table)]
            notes = [b for b in blocks if isinstance(b, str)]
            self._memo[key] = {int(t.anchor[1:]): (t, n) for t, n in zip(tables, notes, strict=True)}
        cards: dict[int, tuple[reports.Table, str]] = self._memo[key]
        return cards


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
    title = KINDS.get(page.kind, "") + (f" · {event.name}" if event else "")
    stream = f' data-stream="events?{_esc(urlencode([("page", page.kind), *page.params()]))}"' if live else ""
    messages = "".join(f'<p class="{"warning" if m.startswith("warning:") else "done"}">{_esc(m)}</p>' for m in flash)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_esc(title)} · tmanager</title>
<link rel="icon" href="static/favicon.svg">
<link rel="stylesheet" href="static/dashboard.css">
<link rel="stylesheet" href="static/event.css">
<script src="static/dashboard.js" defer></script>
</head>
<body class="event" data-version="{version}" data-now="{time.time():.3f}"{stream}>
<header>
<div><p class="title"><a href="./">{_esc(event.name if event else "Event")}</a></p></div>
{'<span id="connection" class="connection" title="live updates">live</span>' if live else ""}
</header>
{navigation(snapshot, page, arbiter=arbiter)}
{f'<div class="flash" role="status">{messages}</div>' if messages else ""}
<main class="event">
{"".join(html_ for _, html_ in sections)}
</main>
<footer>tmanager · {"this page updates by itself" if live else "event pages"}</footer>
</body>
</html>
"""


def navigation(snapshot: Snapshot | None, page: Page, *, arbiter: bool) -> str:
    """Links to the division's pages, to the other divisions, and to the arbiter's page or the login."""
    links = []
    if snapshot is not None:
        division = _division_or_none(snapshot, page.division)
        name = division.name if division and len(snapshot.event.divisions) > 1 else None
        table = "Cross-table" if division and division.system == "round-robin" else "Wall chart"
        for kind, text in (("home", "Players"), ("pairings", "Pairings"), ("standings", "Standings"), ("table", table)):
            here = ' aria-current="page"' if page.kind == kind else ""
            links.append(f'<a href="{Page(kind, name).href()}"{here}>{text}</a>')
        if len(snapshot.event.divisions) > 1:
            links += [
                f'<a class="division" href="{Page(page.kind if page.kind != "player" else "home", d.name).href()}"'
                f"{_CHOSEN if division is d else ''}>{_esc(d.name)}</a>"
                for d in snapshot.event.divisions
            ]
        target = Page("arbiter", name)
    else:
        target = Page("arbiter")
    links.append(
        f'<a class="arbiter" href="{target.href()}">Arbiter</a>'
        if arbiter
        else '<a class="arbiter" href="login">Arbiter login</a>'
    )
    return f'<nav class="pages">{"".join(links)}</nav>'


def _division_or_none(snapshot: Snapshot, name: str | None) -> ev.Division | None:
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
        sections += standings(snapshot, division, page)
    elif page.kind == "table":
        sections += wall_chart(snapshot, division)
    elif page.kind == "player":
        sections += player(snapshot, division, page)
    elif page.kind == "arbiter":
        if csrf is None:
            raise StateError("log in first")
        sections += arbiter(snapshot, division, page, csrf=csrf, error=error, values=values or {})
    return sections


def head(snapshot: Snapshot, division: ev.Division) -> str:
    """Event name, place and dates; division, system and round."""
    e = snapshot.event
    dates = " – ".join(x for x in dict.fromkeys((e.start, e.end)) if x)
    where = " · ".join(x for x in (e.site, dates) if x)
    total = e.total_rounds(division)
    paired = division.paired_rounds
    progress = f"round {paired} of {total}" if total and paired else f"round {paired}" if paired else "not paired yet"
    facts = [
        *([f"division {division.name}"] if len(e.divisions) > 1 else []),
        SYSTEM_NAMES[division.system],
        f"{len(division.players)} players",
        progress,
    ]
    return (
        f'<div id="head" class="event-head"><h1>{_esc(e.name)}</h1>'
        + (f'<p class="event">{_esc(where)}</p>' if where else "")
        + f'<p class="facts">{_esc(" · ".join(facts))}</p></div>'
    )


def home(snapshot: Snapshot, page: Page) -> Sections:
    """Each division's players in alphabetical order, each a link to their page, with score and pairing."""
    e = snapshot.event
    sections: Sections = []
    divisions = [snapshot.division(page.division)] if page.division else e.divisions
    for index, d in enumerate(divisions):
        name = d.name if len(e.divisions) > 1 else None
        paired = d.paired_rounds
        record = d.round(paired) if paired else None
        points = _records(snapshot, d)
        items = []
        for p in sorted(d.players, key=lambda p: p.name.casefold()):
            where = _seat(d, record, p.number) if record else ""
            seat = f' <span class="seat">{_esc(where)}</span>' if where else ""
            items.append(
                f'<li><a href="{Page("player", name, player=p.number).href()}">{_esc(p.name)}</a>'
                f' <span class="no">{p.number}</span> <span class="pts">{_esc(points[p.number])}'
                f"</span>{seat}</li>"
            )
        title = f"Division {d.name}" if len(e.divisions) > 1 else "Players"
        subtitle = head(snapshot, d).replace('id="head"', f'id="head-{index}"', 1)
        sections.append(
            (
                f"players-{index}",
                f'<section id="players-{index}" class="panel">{subtitle}<h2>{_esc(title)}</h2>'
                f'<p class="more">Find your name for your pairing and results. Round {paired}: '
                f'<a href="{Page("pairings", name).href()}">pairings</a> · '
                f'<a href="{Page("standings", name).href()}">standings</a></p>'
                f'<ul class="players">{"".join(items)}</ul></section>',
            )
        )
    return sections


def _records(snapshot: Snapshot, division: ev.Division) -> dict[int, str]:
    """Each player's points (chess) or wins, losses and spread (score-based), by number."""
    if division.scored is not None:
        return {line.player.number: event_scored.record_text(line) for line in event_scored.standings(division)}
    return {s.player.number: ev.format_points(s.points) for s in snapshot.context(division).standings}


def _seat(division: ev.Division, record: ev.Round, number: int) -> str:
    """Where a player sits in a round: ``board 4, white`` (``first``) or the bye."""
    board = record.seat(number)
    if board is not None:
        side = ("first" if board.white == number else "second") if division.scored else None
        colour = side or ("white" if board.white == number else "black")
        return f"round {record.number}: board {record.board_number(board)}, {colour}"
    if division.scored is not None and number in record.byes:
        spread = event_scored.bye_spread(division, record, number)
        return f"round {record.number}: {'forfeit' if record.byes[number] == 'forfeit' else 'bye'} {spread:+d}"
    if number in record.byes:
        return f"round {record.number}: {record.byes[number]}-point bye".replace("pairing-point", "pairing-allocated")
    return ""


def _round_links(page: Page, rounds: Sequence[int], shown: int, *, label: str) -> str:
    if len(rounds) < 2:
        return ""
    links = "".join(f'<a href="{page.href(round=n)}"{_CURRENT if n == shown else ""}>{n}</a>' for n in rounds)
    return f'<p class="rounds">{_esc(label)} {links}</p>'


def pairings(snapshot: Snapshot, division: ev.Division, page: Page) -> Sections:
    """A round's boards, and every player alphabetically with board, colour and opponent."""
    if division.paired_rounds == 0:
        return [
            (
                "pairings",
                '<section id="pairings" class="panel"><h2>Pairings</h2>'
                '<p class="empty">No round is paired yet.</p></section>',
            )
        ]
    n = page.round or division.paired_rounds
    links = _links(snapshot, division)
    rounds = _round_links(page, range(1, division.paired_rounds + 1), n, label="Round:")
    if division.scored is not None:
        report = reports_scored.pairings(snapshot.event, division, n)
        return [
            (
                "pairings",
                f'<section id="pairings" class="panel"><h2>Round {n} · by board</h2>{rounds}'
                f"{_blocks(report.blocks, links)}</section>",
            )
        ]
    context = snapshot.context(division)
    by_board = reports.pairings(context, page.round)
    alphabetical = reports.pairings_alpha(context, page.round)
    return [
        (
            "pairings",
            f'<section id="pairings" class="panel"><h2>Round {n} · by board</h2>{rounds}'
            f"{_blocks(by_board.blocks, links)}</section>",
        ),
        (
            "pairings-alpha",
            f'<section id="pairings-alpha" class="panel"><h2>Round {n} · alphabetical</h2>'
            f"{_blocks(alphabetical.blocks, links)}</section>",
        ),
    ]


def standings(snapshot: Snapshot, division: ev.Division, page: Page) -> Sections:
    """The ranking with the event's tie-breaks after a round (the last paired one by default)."""
    n = division.paired_rounds if page.round is None else page.round
    if division.scored is not None:
        report = reports_scored.standings(snapshot.event, division, n)
    else:
        report = reports.standings(snapshot.context(division, n))
    rounds = _round_links(page, range(1, division.paired_rounds + 1), n, label="After round:")
    return [
        (
            "standings",
            f'<section id="standings" class="panel"><h2>Standings after round {n}</h2>{rounds}'
            f"{_blocks(report.blocks, _links(snapshot, division))}</section>",
        )
    ]


def wall_chart(snapshot: Snapshot, division: ev.Division) -> Sections:
    """The cross-table (round robin) or the wall chart (Swiss)."""
    if division.scored is not None:
        report = reports_scored.wallchart(snapshot.event, division)
    else:
        report = reports.crosstable(snapshot.context(division))
    title = "Cross-table" if division.system == "round-robin" else "Wall chart"
    return [
        (
            "table",
            f'<section id="table" class="panel"><h2>{title} after round {division.paired_rounds}</h2>'
            f"{_blocks(report.blocks, _links(snapshot, division))}</section>",
        )
    ]


def player(snapshot: Snapshot, division: ev.Division, page: Page) -> Sections:
    """One player: data, score and rank, the current pairing, and every round so far."""
    if page.player is None:
        raise StateError("which player? the address needs n=NUMBER")
    p = division.player(page.player)
    if division.scored is not None:
        return _scored_player(snapshot, division, page, p)
    e = snapshot.event
    rank = next((s.rank for s in snapshot.context(division).standings if s.player.number == p.number), None)
    facts = [
        f"no. {p.number}",
        *([f"rating {p.rating}"] if p.rating else []),
        p.federation,
        p.club,
        *p.flags,
        *(["withdrawn"] if p.status == "withdrawn" else []),
    ]
    paired = division.paired_rounds
    now = ""
    if paired:
        record = division.round(paired)
        board = record.seat(p.number)
        if board is not None:
            white = board.white == p.number
            opponent = division.player(board.black if white else board.white)
            result = "" if board.result in ev.PENDING else f", result {board.result}"
            now = (
                f"Round {paired}: board {record.boards.index(board) + 1} with <strong>{'white' if white else 'black'}"
                f'</strong> against <a href="{page.href(player=opponent.number)}">{_esc(ev.label(opponent))}</a>'
                f"{_esc(result)}"
            )
        else:
            now = _esc(_seat(division, record, p.number) or f"round {paired}: not paired")
    table, estimate = snapshot.cards(division)[p.number]
    rows = _blocks([table], _links(snapshot, division)) if table.rows else '<p class="empty">No round yet.</p>'
    summary = f"<strong>{ev.format_points(ev.score(e, division, p.number))}</strong> points" + (
        f" · rank {rank} after round {paired}" if rank is not None and paired else ""
    )
    now = f'<p class="now">{now}</p>' if now else ""
    return [
        (
            "player",
            f'<section id="player" class="panel"><h2>{_esc(p.name)}</h2>'
            f'<p class="facts">{_esc(" · ".join(f for f in facts if f))}</p><p>{summary}</p>{now}{rows}'
            f'<p class="more">{_esc(estimate)}</p></section>',
        )
    ]


def _scored_player(snapshot: Snapshot, division: ev.Division, page: Page, p: ev.Player) -> Sections:
    """A player of a score-based division: record, rank, the current pairing and their wall-chart row."""
    line = next(x for x in event_scored.standings(division) if x.player.number == p.number)
    paired = division.paired_rounds
    now = ""
    if paired:
        record = division.round(paired)
        board = record.seat(p.number)
        if board is not None:
            other = division.player(board.black if board.white == p.number else board.white)
            result = "" if board.result in ev.PENDING else f", result {event_scored.result_text(division, board)}"
            now = (
                f"{_esc(_seat(division, record, p.number))} against "
                f'<a href="{page.href(player=other.number)}">{_esc(ev.label(other))}</a>{_esc(result)}'
            )
        else:
            now = _esc(_seat(division, record, p.number) or f"round {paired}: not paired")
    chart = reports_scored.wallchart(snapshot.event, division).blocks[0]
    assert isinstance(chart, reports.Table)
    row = next(r for r in chart.rows if r[1] == str(p.number))
    table = reports.Table(chart.header, (row,), chart.left)
    facts = [f"no. {p.number}", *([f"rating {p.rating}"] if p.rating else []), p.team, *p.flags,
             *(["off"] if p.status == "withdrawn" else [])]  # fmt: skip
    summary = f"<strong>{_esc(event_scored.record_text(line))}</strong>" + (
        f" · rank {line.rank} after round {paired}" if paired else ""
    )
    now = f'<p class="now">{now}</p>' if now else ""
    return [
        (
            "player",
            f'<section id="player" class="panel"><h2>{_esc(p.name)}</h2>'
            f'<p class="facts">{_esc(" · ".join(f for f in facts if f))}</p><p>{summary}</p>{now}'
            f"{_blocks([table], _links(snapshot, division)) if paired else ''}</section>",
        )
    ]


def _links(snapshot: Snapshot, division: ev.Division) -> dict[str, str]:
    """Player names and labels (``Name (12)``) to the player's page."""
    name = division.name if len(snapshot.event.divisions) > 1 else None
    links = {}
    for p in division.players:
        href = Page("player", name, player=p.number).href()
        links[p.name] = links[ev.label(p)] = href
    return links


def _blocks(blocks: Sequence[reports.Table | str], links: Mapping[str, str]) -> str:
    return "".join(f'<p class="more">{_esc(b)}</p>' if isinstance(b, str) else table(b, links) for b in blocks)


def table(t: reports.Table, links: Mapping[str, str]) -> str:
    """A report table; name cells link to the player's page, and each column has a class from its header
    (``col-rtg``) so narrow screens can leave some out."""
    classes = [f"col-{re.sub(r'[^a-z0-9]+', '-', h.casefold()).strip('-') or 'x'}" for h in t.header]

    def cell(tag: str, i: int, text: str) -> str:
        kind = f"{classes[i]}{' name' if i in t.left else ''}"
        body = f'<a href="{links[text]}">{_esc(text)}</a>' if tag == "td" and text in links else _esc(text)
        return f'<{tag} class="{kind}">{body}</{tag}>'

    head_ = "".join(cell("th", i, h) for i, h in enumerate(t.header))
    rows = "".join("<tr>" + "".join(cell("td", i, c) for i, c in enumerate(r)) + "</tr>" for r in t.rows)
    caption = f"<h3>{_esc(t.title)}</h3>" if t.title else ""
    return f'{caption}<div class="scroll"><table><thead><tr>{head_}</tr></thead><tbody>{rows}</tbody></table></div>'


# --- the arbiter -------------------------------------------------------------------------------


def login(*, csrf: str, error: str = "", configured: bool = True) -> Sections:
    """The login form (one field: the arbiter's password)."""
    if not configured:
        body = (
            '<p class="error">No arbiter password is set for this event. On the computer that runs the '
            "server, set one with <code>tmanager event set-password EVENT</code>.</p>"
        )
    else:
        body = (
            f'<form method="post" action="login" class="login">{_hidden(csrf=csrf)}'
            '<label for="password">Arbiter password</label>'
            '<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>'
            f'{_error(error)}<button type="submit">Log in</button></form>'
        )
    return [("login", f'<section id="login" class="panel"><h2>Arbiter login</h2>{body}</section>')]


def _hidden(**fields: object) -> str:
    return "".join(f'<input type="hidden" name="{k}" value="{_esc(str(v))}">' for k, v in fields.items())


def _error(message: str) -> str:
    return f'<p class="error" role="alert">{_esc(message)}</p>' if message else ""


def arbiter(
    snapshot: Snapshot,
    division: ev.Division,
    page: Page,
    *,
    csrf: str,
    error: tuple[str, str] | None,
    values: Mapping[str, str],
) -> Sections:
    """Result entry and correction for a round, pairing and unpairing, requested byes, forced games, undo;
    and logging out."""
    name = division.name if len(snapshot.event.divisions) > 1 else None
    form, message = error or ("", "")
    common = {"csrf": csrf, "d": name or ""}
    paired = division.paired_rounds
    n = page.round or paired
    sections: Sections = []
    if paired:
        record = division.round(n)
        if not record.paired:
            raise StateError(f"round {n} is not paired")
        entries = []
        for board in record.boards:
            index = record.board_number(board)
            key = f"result-{index}"
            typed = values if form == key else {}
            white, black = division.player(board.white), division.player(board.black)
            action = "Save" if board.result in ev.PENDING else "Correct"
            if division.scored is not None:
                fields = _score_fields(division, board, index, typed)
            else:
                chosen = typed.get("result", board.result)
                options = "".join(
                    f'<option value="{_esc(v)}"{" selected" if v == chosen else ""}>{_esc(text)}</option>'
                    for v, text in RESULT_CHOICES
                )
                fields = f'<select name="result" aria-label="result of board {index}">{options}</select>'
            entries.append(
                f'<form method="post" action="result" class="entry{" missing" if board.result in ev.PENDING else ""}"'
                f' id="{key}">{_hidden(**common, round=n, board=index, was=board.result)}'
                f'<span class="bd">{index}</span><span class="pair">{_esc(ev.label(white))} – '
                f'{_esc(ev.label(black))}</span>{fields}<button type="submit">{action}</button>'
                f"{_error(message if form == key else '')}</form>"
            )
        byes = "".join(
            f'<p class="more">bye: {_esc(ev.label(division.player(p)))}, {_esc(kind)}</p>'
            for p, kind in record.byes.items()
        )
        missing = sum(1 for r, _ in ev.missing(division) if r == n)
        state = f"{missing} result(s) to enter" if missing else "all results are in"
        rounds = _round_links(page, range(1, paired + 1), n, label="Correct round:")
        sections.append(
            (
                "results",
                f'<section id="results" class="panel"><h2>Round {n} results</h2>'
                f'<p class="more">{state}</p>{rounds}{"".join(entries)}{byes}</section>',
            )
        )
    sections.append(("pair", _pair_form(snapshot, division, common, message if form == "pair" else "")))
    sections.append(("bye", _bye_form(snapshot, division, common, message if form == "bye" else "", values)))
    sections.append(("force", _force_form(snapshot, division, common, message if form == "force" else "", values)))
    sections.append(("unpair", _unpair_form(division, common, message if form == "unpair" else "")))
    sections.append(("undo", _undo_form(common, snapshot.last_change, message if form == "undo" else "")))
    sections.append(
        (
            "logout",
            f'<section id="logout" class="panel"><form method="post" action="logout">'
            f'{_hidden(csrf=csrf)}<button type="submit">Log out</button></form></section>',
        )
    )
    if form and not any(f'id="{form}"' in html_ for _, html_ in sections):
        # The form named is not on the page (a board that does not exist): say it at the top.
        sections.insert(0, ("error", f'<section id="error" class="panel">{_error(message)}</section>'))
    return sections


def _score_fields(division: ev.Division, board: ev.Board, index: int, typed: Mapping[str, str]) -> str:
    """The inputs of a score-based board: its scores or spread (per ``entry``), or a forfeit or no result."""
    assert division.scored is not None
    current = dict.fromkeys(("s1", "s2", "spread"), "")
    if board.scores and board.result not in event_scored.FORFEITS:
        s1, s2 = board.scores
        current = {"s1": str(s1), "s2": str(s2), "spread": str(s1 - s2)}
    inputs = "".join(
        f'<input name="{name}" inputmode="numeric" size="5" aria-label="{_esc(text)}, board {index}" '
        f'value="{_esc(typed.get(name, current[name]))}">'
        for name, text in SCORE_FIELDS[division.scored.entry]
    )
    chosen = typed.get("forfeit", board.result if board.result in event_scored.FORFEITS else "")
    options = "".join(
        f'<option value="{_esc(v)}"{" selected" if v == chosen else ""}>{_esc(text)}</option>'
        for v, text in FORFEIT_CHOICES
    )
    confirm = (
        '<label class="confirm"><input type="checkbox" name="confirm" value="yes"> unusual score is right</label>'
        if division.scored.entry != "spread"
        else ""
    )
    return f'{inputs}<select name="forfeit" aria-label="or a forfeit, board {index}">{options}</select>{confirm}'


def _pair_form(snapshot: Snapshot, division: ev.Division, common: Mapping[str, str], message: str) -> str:
    nxt = division.paired_rounds + 1
    total = snapshot.event.total_rounds(division)
    if total and nxt > total:
        body = f'<p class="more">All {total} rounds are paired.</p>'
    else:
        waiting = len(ev.missing(division))
        note = f"{waiting} result(s) still missing: pairing waits for them." if waiting else "Every result is in."
        colour = ""
        if nxt == 1 and division.system == "dutch" and division.initial_colour is None:
            colour = (
                '<label>Top player\'s colour <select name="colour"><option value="">draw by lot</option>'
                '<option value="white">white</option><option value="black">black</option></select></label>'
            )
        body = (
            f'<p class="more">{note}</p><form method="post" action="pair" class="pair">'
            f'{_hidden(**common, round=nxt)}{colour}<button type="submit">Pair round {nxt}</button>'
            f"{_error(message)}</form>"
        )
    return f'<section id="pair" class="panel"><h2>Next round</h2>{body}</section>'


def _bye_form(
    snapshot: Snapshot, division: ev.Division, common: Mapping[str, str], message: str, values: Mapping[str, str]
) -> str:
    if division.system == "round-robin":
        body = '<p class="more">A round robin has no requested byes: enter a missed game as a forfeit.</p>'
    else:
        nxt = division.paired_rounds + 1
        players = _player_options(division, values.get("player", "") if message else "")
        kinds = "".join(f'<option value="{k}">{k}-point</option>' for k in ("half", "zero", "full"))
        requested = [
            f"round {r.number}: {ev.label(division.player(p))}, {kind}"
            for r in division.rounds
            if not r.paired
            for p, kind in r.byes.items()
        ]
        listed = "".join(f"<li>{_esc(x)}</li>" for x in requested)
        body = (
            f'<form method="post" action="bye" class="bye">{_hidden(**common)}'
            f'<label>Player <select name="player" required><option value="">choose…</option>{players}</select></label>'
            f'<label>Round <input name="round" inputmode="numeric" size="3" '
            f'value="{_esc(values.get("round", str(nxt)) if message else str(nxt))}"></label>'
            f'<label>Bye <select name="kind">{kinds}</select></label><button type="submit">Set bye</button>'
            f"{_error(message)}</form>" + (f'<ul class="byes">{listed}</ul>' if listed else "")
        )
    return f'<section id="bye" class="panel"><h2>Requested bye</h2>{body}</section>'


def _player_options(division: ev.Division, chosen: str) -> str:
    """The division's active players, by name, as the options of a select."""
    return "".join(
        f'<option value="{p.number}"{" selected" if str(p.number) == chosen else ""}>{_esc(ev.label(p))}</option>'
        for p in sorted(division.players, key=lambda p: p.name.casefold())
        if p.status == "active"
    )


def _force_form(
    snapshot: Snapshot, division: ev.Division, common: Mapping[str, str], message: str, values: Mapping[str, str]
) -> str:
    """A forced game (or the pairing-allocated bye) of the next round, as ``tmanager event force``."""
    nxt = division.paired_rounds + 1
    total = snapshot.event.total_rounds(division)
    if division.system == "round-robin":
        body = '<p class="more">A round robin\'s games are fixed by the Berger tables: nothing to force.</p>'
    elif total and nxt > total:
        body = f'<p class="more">All {total} rounds are paired.</p>'
    else:
        typed = values if message else {}
        # A score-based board's first player is the one listed first (who starts, with assign_firsts).
        first, second = ("First player", "Second player") if division.scored is not None else ("White", "Black")
        black = typed.get("black", "")
        record = next((r for r in division.rounds if r.number == nxt), None)
        listed = ""
        if record is not None:
            games = [f"{ev.label(division.player(w))} – {ev.label(division.player(b))}" for w, b in record.forced]
            if record.forced_bye is not None:
                games.append(f"bye: {ev.label(division.player(record.forced_bye))}")
            listed = "".join(f"<li>{_esc(x)}</li>" for x in games)
        body = (
            f'<form method="post" action="force" class="force">{_hidden(**common, round=nxt)}'
            f'<label>{first} <select name="white" required><option value="">choose…</option>'
            f"{_player_options(division, typed.get('white', ''))}</select></label>"
            f'<label>{second} <select name="black" required><option value="">choose…</option>'
            f'<option value="bye"{" selected" if black == "bye" else ""}>bye (pairing-allocated)</option>'
            f"{_player_options(division, black)}</select></label>"
            f'<button type="submit">Force for round {nxt}</button>{_error(message)}</form>'
            + (f'<ul class="forced">{listed}</ul>' if listed else "")
        )
    return f'<section id="force" class="panel"><h2>Forced game or bye</h2>{body}</section>'


def _unpair_form(division: ev.Division, common: Mapping[str, str], message: str) -> str:
    """Taking back the last round's pairings, as ``tmanager event unpair``; a box to tick first."""
    n = division.paired_rounds
    if not n:
        body = '<p class="more">No round is paired.</p>'
    else:
        body = (
            '<p class="more">Forced games and requested byes stay; refused once a result of the round is in.</p>'
            f'<form method="post" action="unpair" class="unpair">{_hidden(**common, round=n)}'
            f'<label class="confirm"><input type="checkbox" name="confirm" value="yes"> take back round {n}\'s '
            f'pairings</label><button type="submit">Unpair round {n}</button>{_error(message)}</form>'
        )
    return f'<section id="unpair" class="panel"><h2>Unpair</h2>{body}</section>'


def _undo_form(common: Mapping[str, str], change: int, message: str) -> str:
    """Stepping back to the version before the last change, as ``tmanager event undo``; a box to tick first.

    The form names the change it undoes: after anyone else's change it is refused.
    """
    return (
        '<section id="undo" class="panel"><h2>Undo</h2><p class="more">Puts back the event file as it was before '
        "its last change, whoever made it and in whichever division; repeat to step further back. If the event "
        "changed since this page was shown, nothing is undone.</p>"
        f'<form method="post" action="undo" class="undo">{_hidden(**common, change=change)}'
        '<label class="confirm"><input type="checkbox" name="confirm" value="yes"> undo the last change</label>'
        f'<button type="submit">Undo</button>{_error(message)}</form></section>'
    )


def problem(message: str) -> Sections:
    """A page that cannot be shown: the reason."""
    return [
        (
            "problem",
            f'<section id="problem" class="panel"><h2>Not found</h2>{_error(message)}'
            '<p><a href="./">all players</a></p></section>',
        )
    ]
