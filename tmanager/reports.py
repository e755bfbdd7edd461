"""Reports of a human event, as text and as printable HTML pages with an index.

Each report is built once as plain data (a :class:`Report`: a title and
blocks of tables and notes) and rendered twice: :func:`text` for the terminal
and a ``.txt`` file, :func:`html` for a page. :func:`publish` writes a set of
reports into the event's ``html/<event>/`` directory with the stylesheet
``tmanager.css`` (and the event's own stylesheet, linked after it, as tsh's
``custom_stylesheet``) and rewrites ``index.html``, which links every page in
the directory.

The reports (:data:`KINDS`): the list of players; the pairings of a round by
board and alphabetically; the standings with the event's tie-breaks after any
round, also per flag (junior, woman…); the cross-table (round robin) or wall
chart (Swiss); the table of progress (running scores); a card per player; the
missing results; FIDE rating estimates (:mod:`tmanager.core.fide`).
"""

from __future__ import annotations

import datetime
import html as html_module
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tmanager import event as ev
from tmanager.core import fide
from tmanager.errors import ConfigError, StateError
from tmanager.files import atomic_write
from tmanager.pairing import WHITE, Game

#: Report kinds in index order; ``crosstable`` is the cross-table of a round
#: robin and the wall chart of a Swiss.
KINDS = (
    "players", "pairings", "pairings-alpha", "standings", "crosstable", "progress", "cards", "missing", "ratings",
)  # fmt: skip
_SYMBOLS = {"1": "1", "=": "½", "0": "0", "+": "+", "-": "-", " ": "*", "U": "+", "F": "+", "H": "½", "Z": "0"}
_BYE_NAMES = {
    "pairing": "pairing-allocated bye", "full": "full-point bye", "half": "half-point bye", "zero": "zero-point bye",
}  # fmt: skip
STYLESHEET = "tmanager.css"
CUSTOM_STYLESHEET = "custom.css"


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of cells under a header; ``left`` are the left-aligned (name) columns; ``anchor`` an HTML id."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    left: frozenset[int] = frozenset({1})
    title: str = ""
    anchor: str = ""


@dataclass(frozen=True, slots=True)
class Report:
    """One report: ``key`` names its files (``standings-r3``), ``blocks`` are tables and notes (strings)."""

    key: str
    title: str
    blocks: tuple[Table | str, ...]
    cards: bool = False  # one block per printed page


@dataclass
class Context:
    """An event's division as of a round, with what every report needs computed once."""

    event: ev.Event
    division: ev.Division
    upto: int
    prefix: str = ""
    standings: list[ev.Standing] = field(init=False)
    _scores: dict[int, dict[int, int]] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.upto <= self.division.paired_rounds:
            raise StateError(
                f"round {self.upto} is not paired; reports exist for rounds 0-{self.division.paired_rounds}"
            )
        self.standings = ev.standings(self.event, self.division, self.upto)

    @property
    def heading(self) -> str:
        several = len(self.event.divisions) > 1
        return self.event.name + (f", division {self.division.name}" if several else "")

    def name(self, number: int) -> str:
        return self.division.player(number).name

    def points(self, number: int, upto: int | None = None) -> str:
        upto = self.upto if upto is None else upto
        if upto not in self._scores:  # reports ask for every player after every round
            self._scores[upto] = ev.scores(self.event, self.division, upto)
        return ev.format_points(self._scores[upto][number])

    def entries(self) -> dict[int, dict[int, Game]]:
        """Round number -> player number -> TRF round entry, for the rounds up to ``upto``."""
        return {
            r.number: ev.round_games(self.division, r)
            for r in self.division.rounds
            if r.paired and r.number <= self.upto
        }


def _cell(game: Game | None) -> str:
    """A wall-chart cell: opponent, colour and result (``12w1``), or the kind of bye."""
    if game is None:
        return ""
    if game.opponent is None:
        return {"U": "bye+", "F": "bye+", "H": "bye½", "Z": "bye0"}.get(game.result, "-")
    return f"{game.opponent}{game.colour or '-'}{_SYMBOLS[game.result]}"


def _values(values: Sequence[float]) -> tuple[str, ...]:
    return tuple(str(int(v)) if v == int(v) else f"{v:.2f}".rstrip("0") for v in values)


def _round_of(ctx: Context, round_number: int | None) -> ev.Round:
    n = round_number or ctx.division.paired_rounds
    if n == 0:
        raise StateError("no round is paired yet; `pair` pairs round 1")
    record = ctx.division.round(n)
    if not record.paired:
        raise StateError(f"round {n} is not paired yet")
    return record


# -- the reports ---------------------------------------------------------------------


def players(ctx: Context) -> Report:
    """The list of players with their data and pairing rank."""
    ranks = ctx.division.ranks()
    rows = tuple(
        (
            str(p.number), p.name, str(p.rating or ""), str(ranks[p.number]), p.federation,
            str(p.fide_id or ""), p.club, p.birth, ", ".join(p.flags), p.status,
        )
        for p in sorted(ctx.division.players, key=lambda p: p.number)
    )  # fmt: skip
    header = ("No", "Name", "Rtg", "Rank", "Fed", "FIDE id", "Club", "Born", "Flags", "Status")
    return Report(
        ctx.prefix + "players",
        f"{ctx.heading}: players",
        (Table(header, rows, frozenset({1, 6, 8, 9})), f"{len(rows)} players"),
    )


def pairings(ctx: Context, round_number: int | None = None) -> Report:
    """A round's boards with ratings and the scores before the round, and its byes."""
    record = _round_of(ctx, round_number)
    before = record.number - 1

    def side(number: int) -> tuple[str, ...]:
        p = ctx.division.player(number)
        return (str(number), p.name, str(p.rating or ""), ctx.points(number, before))

    rows = tuple((str(i), *side(b.white), b.result, *side(b.black)) for i, b in enumerate(record.boards, 1))
    header = ("Bd", "No", "White", "Rtg", "Pts", "Result", "No", "Black", "Rtg", "Pts")
    blocks: list[Table | str] = [Table(header, rows, frozenset({2, 7}))]
    blocks += [f"bye: {ev.label(ctx.division.player(n))}, {kind}" for n, kind in record.byes.items()]
    return Report(
        f"{ctx.prefix}pairings-r{record.number}", f"{ctx.heading}: round {record.number} pairings", tuple(blocks)
    )


def pairings_alpha(ctx: Context, round_number: int | None = None) -> Report:
    """Every player of a round in alphabetical order, with board, colour and opponent (or bye)."""
    record = _round_of(ctx, round_number)
    rows = []
    for p in sorted(ctx.division.players, key=lambda p: p.name.casefold()):
        board = record.seat(p.number)
        if board is not None:
            white = board.white == p.number
            other = board.black if white else board.white
            index = record.boards.index(board) + 1
            rows.append(
                (p.name, str(p.number), str(index), "white" if white else "black", ev.label(ctx.division.player(other)))
            )
        elif p.number in record.byes:
            rows.append((p.name, str(p.number), "", "", _BYE_NAMES[record.byes[p.number]]))
        else:
            rows.append((p.name, str(p.number), "", "", "not playing"))
    header = ("Name", "No", "Bd", "Colour", "Opponent")
    title = f"{ctx.heading}: round {record.number} pairings (alphabetical)"
    return Report(
        f"{ctx.prefix}pairings-alpha-r{record.number}", title, (Table(header, tuple(rows), frozenset({0, 3, 4})),)
    )


def standings(ctx: Context, flag: str | None = None) -> Report:
    """The ranking after ``ctx.upto`` by points and the event's tie-breaks; with ``flag``, one class."""
    lines = ev.standings(ctx.event, ctx.division, ctx.upto, flag=flag) if flag else ctx.standings
    rows = tuple(
        (
            str(s.rank), str(s.player.number),
            s.player.name + (" (withdrawn)" if s.player.status == "withdrawn" else ""), str(s.player.rating or ""),
            s.player.federation, ev.format_points(s.points), *_values(s.values),
        )
        for s in lines
    )  # fmt: skip
    header = ("Rk", "No", "Name", "Rtg", "Fed", "Pts", *ctx.event.tiebreaks)
    pending = sum(1 for r, _ in ev.missing(ctx.division) if r <= ctx.upto)
    blocks: list[Table | str] = [Table(header, rows, frozenset({2, 4}))]
    if pending:
        blocks.append(f"{pending} result(s) still missing: they count as nothing yet")
    blocks.append("tie-breaks: " + ", ".join(ctx.event.tiebreaks))
    suffix = f"-{_slug(flag)}" if flag else ""
    title = f"{ctx.heading}: standings after round {ctx.upto}" + (f", {flag}" if flag else "")
    return Report(f"{ctx.prefix}standings{suffix}-r{ctx.upto}", title, tuple(blocks))


def crosstable(ctx: Context) -> Report:
    """Round robin: the cross-table by player number; Swiss: the wall chart in standings order."""
    entries = ctx.entries()
    if ctx.division.system == "round-robin":
        order = sorted(ctx.division.players, key=lambda p: p.number)
        place = {s.player.number: s.rank for s in ctx.standings}
        rows = []
        for p in order:
            cells = []
            for q in order:
                if p.number == q.number:
                    cells.append("x")
                    continue
                games = [
                    rg[p.number]
                    for _, rg in sorted(entries.items())
                    if rg.get(p.number) and rg[p.number].opponent == q.number
                ]
                cells.append("".join(_SYMBOLS[g.result] for g in games))
            rows.append(
                (str(p.number), p.name, str(p.rating or ""), *cells, ctx.points(p.number), str(place[p.number]))
            )
        header = ("No", "Name", "Rtg", *(str(p.number) for p in order), "Pts", "Rk")
        title = f"{ctx.heading}: cross-table after round {ctx.upto}"
        return Report(f"{ctx.prefix}crosstable-r{ctx.upto}", title, (Table(header, tuple(rows)),))
    rows = [
        (
            str(s.rank), str(s.player.number), s.player.name, str(s.player.rating or ""),
            *(_cell(entries[n].get(s.player.number)) for n in sorted(entries)), ev.format_points(s.points),
        )
        for s in ctx.standings
    ]  # fmt: skip
    header = ("Rk", "No", "Name", "Rtg", *(f"R{n}" for n in sorted(entries)), "Pts")
    note = "cells: opponent's number, colour (w/b), result (1 ½ 0, + - forfeits, * not yet in); bye+ bye½ bye0: byes"
    title = f"{ctx.heading}: wall chart after round {ctx.upto}"
    return Report(f"{ctx.prefix}wallchart-r{ctx.upto}", title, (Table(header, tuple(rows), frozenset({2})), note))


def progress(ctx: Context) -> Report:
    """The table of progress: every player's running score after each round, in standings order."""
    rounds = sorted(ctx.entries())
    rows = tuple(
        (str(s.rank), str(s.player.number), s.player.name, *(ctx.points(s.player.number, n) for n in rounds))
        for s in ctx.standings
    )
    header = ("Rk", "No", "Name", *(f"R{n}" for n in rounds))
    title = f"{ctx.heading}: table of progress after round {ctx.upto}"
    return Report(f"{ctx.prefix}progress-r{ctx.upto}", title, (Table(header, rows, frozenset({2})),))


def cards(ctx: Context) -> Report:
    """A card per player: each round's opponent, colour and result, the running score and the rating estimate."""
    entries = ctx.entries()
    estimates = {e.player.number: e for e in estimate_ratings(ctx)}
    blocks: list[Table | str] = []
    for p in sorted(ctx.division.players, key=lambda p: p.number):
        rows = []
        for n in sorted(entries):
            game = entries[n].get(p.number)
            if game is None:
                continue
            if game.opponent is None:
                rows.append((str(n), "", "", _cell(game), "", _SYMBOLS[game.result], ctx.points(p.number, n)))
                continue
            o = ctx.division.player(game.opponent)
            colour = "white" if game.colour == WHITE else "black"
            rows.append(
                (
                    str(n),
                    colour,
                    str(o.number),
                    o.name,
                    str(o.rating or ""),
                    _SYMBOLS[game.result],
                    ctx.points(p.number, n),
                )
            )
        title = f"{p.name} ({p.number})" + (f", {p.rating}" if p.rating else "") + f": {ctx.points(p.number)} pts"
        blocks.append(
            Table(
                ("Rd", "Colour", "No", "Opponent", "Rtg", "Res", "Score"),
                tuple(rows),
                frozenset({1, 3}),
                title,
                f"p{p.number}",
            )
        )
        blocks.append(estimates[p.number].summary)
    return Report(
        f"{ctx.prefix}cards-r{ctx.upto}",
        f"{ctx.heading}: player cards after round {ctx.upto}",
        tuple(blocks),
        cards=True,
    )


def missing(ctx: Context) -> Report:
    """Boards of paired rounds without a final result."""
    rows = tuple(
        (
            str(n), str(ctx.division.round(n).boards.index(b) + 1), ev.label(ctx.division.player(b.white)),
            ev.label(ctx.division.player(b.black)), "adjourned" if b.result == "adj" else "no result",
        )
        for n, b in ev.missing(ctx.division)
    )  # fmt: skip
    blocks: tuple[Table | str, ...] = (
        (Table(("Rd", "Bd", "White", "Black", "State"), rows, frozenset({2, 3, 4})),)
        if rows
        else (f"no results missing (round {ctx.division.paired_rounds} is the last paired)",)
    )
    return Report(f"{ctx.prefix}missing", f"{ctx.heading}: missing results", blocks)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A player's FIDE estimate: the change (rated) or the initial rating (unrated), and the performance."""

    player: ev.Player
    change: fide.RatingChange | None
    new_rating: int | None
    performance: int | None

    @property
    def summary(self) -> str:
        perf = f"performance {self.performance}" if self.performance is not None else "no rated opponent"
        if self.change is None:
            first = f"initial rating estimate {self.new_rating}" if self.new_rating else "no initial rating yet"
            return f"FIDE estimate: unrated; {first}; {perf}"
        c = self.change
        return (
            f"FIDE estimate: {c.games} rated game(s), score {c.score:g}, expected {c.expected:.2f}, "
            f"K {c.k}: {c.change:+d} → {self.new_rating}; {perf}"
        )


def _k(ctx: Context, p: ev.Player, games: int) -> int:
    """K from a ``K40``/``K20``/``K10`` flag, else from the age (birth year) and the rating."""
    for f in p.flags:
        m = re.fullmatch(r"[kK]=?(\d+)", f)
        if m:
            return int(m[1])
    year = int((ctx.event.end or ctx.event.start or datetime.date.today().isoformat())[:4])
    junior = bool(p.birth) and year - int(p.birth[:4]) <= 18
    return fide.k_factor(p.rating, junior=junior, games=games)


def estimate_ratings(ctx: Context) -> list[Estimate]:
    """FIDE estimates for every player, from the games played over the board up to ``ctx.upto``."""
    per_player: dict[int, list[tuple[int, float]]] = {p.number: [] for p in ctx.division.players}
    for entries in ctx.entries().values():
        for number, game in entries.items():
            if game.played and game.opponent is not None:
                points = {"1": 1.0, "=": 0.5, "0": 0.0}[game.result]
                per_player[number].append((ctx.division.player(game.opponent).rating, points))
    estimates = []
    for p in sorted(ctx.division.players, key=lambda p: p.number):
        games = per_player[p.number]
        perf = fide.performance(games)
        if p.rating:
            change = fide.rating_change(p.rating, games, _k(ctx, p, sum(1 for r, _ in games if r)))
            estimates.append(Estimate(p, change, p.rating + change.change, perf))
        else:
            estimates.append(Estimate(p, None, fide.initial_rating(games), perf))
    return estimates


def ratings(ctx: Context) -> Report:
    """FIDE rating estimates: change (or initial rating) and performance of every player."""
    rows = []
    for e in estimate_ratings(ctx):
        c = e.change
        rated = (
            (str(c.k), str(c.games), f"{c.score:g}", f"{c.expected:.2f}", f"{c.change:+d}")
            if c
            else ("", "", "", "", "")
        )
        rows.append(
            (
                str(e.player.number),
                e.player.name,
                str(e.player.rating or ""),
                *rated,
                str(e.new_rating or ""),
                str(e.performance or ""),
            )
        )
    header = ("No", "Name", "Rtg", "K", "Games", "Score", "Exp", "Change", "New", "Perf")
    notes = (
        "Games and scores count only games played over the board against rated opponents (FIDE 8.3.1). "
        "K: 40, 20 or 10 (a flag K40/K20/K10 overrides; juniors by birth year). "
        "Unrated players: initial rating with two hypothetical draws against 1800, at most 2200."
    )
    title = f"{ctx.heading}: FIDE rating estimates after round {ctx.upto}"
    return Report(f"{ctx.prefix}ratings-r{ctx.upto}", title, (Table(header, tuple(rows)), notes))


def build(ctx: Context, only: Sequence[str] = (), round_number: int | None = None) -> list[Report]:
    """The reports of ``only`` (all of :data:`KINDS` by default); standings also per flag of any player."""
    unknown = [k for k in only if k not in KINDS]
    if unknown:
        raise StateError(f"no report {unknown[0]!r}; choose from {', '.join(KINDS)}")
    makers: dict[str, Callable[[], list[Report]]] = {
        "players": lambda: [players(ctx)],
        "pairings": lambda: [pairings(ctx, round_number)] if ctx.division.paired_rounds else [],
        "pairings-alpha": lambda: [pairings_alpha(ctx, round_number)] if ctx.division.paired_rounds else [],
        "standings": lambda: [standings(ctx)] + [standings(ctx, f) for f in _flags(ctx.division)],
        "crosstable": lambda: [crosstable(ctx)],
        "progress": lambda: [progress(ctx)],
        "cards": lambda: [cards(ctx)],
        "missing": lambda: [missing(ctx)],
        "ratings": lambda: [ratings(ctx)],
    }
    return [r for kind in (only or KINDS) for r in makers[kind]()]


def _flags(division: ev.Division) -> list[str]:
    flags = {f for p in division.players for f in p.flags if not re.fullmatch(r"[kK]=?\d+", f)}
    return sorted(flags)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "x"


# -- rendering -----------------------------------------------------------------------


def _aligned(t: Table) -> list[str]:
    widths = [max(len(r[i]) for r in (t.header, *t.rows)) for i in range(len(t.header))]
    return [
        "  ".join(
            c.ljust(w) if i in t.left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in (t.header, *t.rows)
    ]


def text(report: Report) -> str:
    """The report as plain text."""
    lines = [report.title, "=" * len(report.title)]
    for block in report.blocks:
        lines.append("")
        if isinstance(block, str):
            lines.append(block)
            continue
        if block.title:
            lines += [block.title, "-" * len(block.title)]
        lines += _aligned(block)
    return "\n".join(lines) + "\n"


def _html_table(t: Table) -> str:
    def row(tag: str, cells: Sequence[str]) -> str:
        return (
            "<tr>"
            + "".join(
                f"<{tag}{_NAME_CLASS if i in t.left else ''}>{html_module.escape(c)}</{tag}>"
                for i, c in enumerate(cells)
            )
            + "</tr>"
        )

    body = "\n".join(row("td", r) for r in t.rows)
    return f"<table>\n<thead>{row('th', t.header)}</thead>\n<tbody>\n{body}\n</tbody>\n</table>"


_NAME_CLASS = ' class="name"'


def html(report: Report, *, custom_stylesheet: bool = False, body: str = "") -> str:
    """The report as an HTML page that links the stylesheet(s) beside it and prints cleanly.

    On a page of cards each table opens a ``<section class="card">`` holding it
    and the notes after it, one card per printed page.
    """
    e = html_module.escape
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="generator" content="tmanager">', f"<title>{e(report.title)}</title>",
        f'<link rel="stylesheet" href="{STYLESHEET}">',
    ]  # fmt: skip
    if custom_stylesheet:
        parts.append(f'<link rel="stylesheet" href="{CUSTOM_STYLESHEET}">')
    parts += ["</head>", "<body>"]
    if report.key != "index":
        parts.append('<nav><a href="index.html">all reports</a></nav>')
    parts.append(f"<h1>{e(report.title)}</h1>")
    if body:
        parts.append(body)
    in_card = False
    for block in report.blocks:
        if isinstance(block, str):
            parts.append(f'<p class="note">{e(block)}</p>')
            continue
        if report.cards:
            parts.append("</section>" if in_card else "")
            parts.append(f'<section class="card" id="{e(block.anchor)}">')
            in_card = True
        if block.title:
            parts.append(f"<h2>{e(block.title)}</h2>")
        parts.append(_html_table(block))
    if in_card:
        parts.append("</section>")
    parts += [f'<p class="stamp">tmanager, {datetime.date.today().isoformat()}</p>', "</body>", "</html>"]
    return "\n".join(p for p in parts if p) + "\n"


CSS = """\
/* tmanager report pages; a custom stylesheet linked after this one can override any rule. */
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.4em; margin-bottom: 0.4em; }
h2 { font-size: 1.1em; margin: 0.2em 0; }
nav { font-size: 0.9em; margin-bottom: 1em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; }
th, td { border: 1px solid #999; padding: 0.2em 0.5em; text-align: right; white-space: nowrap; }
th { background: #e4e4e4; }
td.name, th.name { text-align: left; }
tbody tr:nth-child(even) td { background: #f5f5f5; }
p.note { font-size: 0.9em; color: #333; }
p.stamp { font-size: 0.75em; color: #777; }
section.card { border: 1px solid #bbb; padding: 0.5em 1em; margin: 1em 0; break-inside: avoid; }
ul.index li { margin: 0.2em 0; }
@media print {
  body { margin: 0; font-size: 10pt; }
  nav, p.stamp { display: none; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
  th { background: #ddd !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  tbody tr:nth-child(even) td { background: none; }
  section.card { break-after: page; border: none; }
}
"""


# -- publishing ----------------------------------------------------------------------


def report_dir(event_path: Path) -> Path:
    """``html/<event>/`` beside the event file."""
    return event_path.parent / "html" / event_path.stem


def _title_of(page: Path) -> str:
    m = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.S)
    return html_module.unescape(m[1]) if m else page.stem


def publish(event_path: Path, event: ev.Event, reports: Sequence[Report], *, stylesheet: Path | None = None) -> Path:
    """Write each report as ``KEY.html`` and ``KEY.txt``, the stylesheets and ``index.html``; returns the directory.

    ``stylesheet`` (default: the event's ``stylesheet`` setting, relative to the
    event file) is copied as ``custom.css`` and linked after ``tmanager.css``.
    """
    directory = report_dir(event_path)
    directory.mkdir(parents=True, exist_ok=True)
    if stylesheet is None and event.stylesheet:
        stylesheet = event_path.parent / event.stylesheet
    if stylesheet is not None:
        try:
            atomic_write(directory / CUSTOM_STYLESHEET, stylesheet.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(
                f"cannot read the stylesheet: {exc.strerror}", file=stylesheet, field="stylesheet"
            ) from None
    elif (directory / CUSTOM_STYLESHEET).exists():
        (directory / CUSTOM_STYLESHEET).unlink()
    atomic_write(directory / STYLESHEET, CSS)
    for r in reports:
        atomic_write(directory / f"{r.key}.html", html(r, custom_stylesheet=stylesheet is not None))
        atomic_write(directory / f"{r.key}.txt", text(r))
    _write_index(directory, event, custom_stylesheet=stylesheet is not None)
    return directory


def _key_order(page: Path) -> tuple[int, int, str]:
    """Index order: by kind as in :data:`KINDS` (the wall chart as the cross-table), then by round."""
    m = re.search(r"-r(\d+)$", page.stem)
    base = page.stem[: m.start()] if m else page.stem
    kinds = {k: i for i, k in enumerate(KINDS)} | {"wallchart": KINDS.index("crosstable")}
    # The longest kind name inside the key: "pairings-alpha" before "pairings".
    kind = max((k for k in kinds if k in base), key=len, default="")
    return (kinds.get(kind, len(KINDS)), int(m[1]) if m else 0, page.stem)


def _write_index(directory: Path, event: ev.Event, *, custom_stylesheet: bool) -> None:
    e = html_module.escape
    pages = sorted((p for p in directory.glob("*.html") if p.name != "index.html"), key=_key_order)
    items = "\n".join(
        f'<li><a href="{e(p.name)}">{e(_title_of(p))}</a> (<a href="{e(p.stem)}.txt">text</a>)</li>' for p in pages
    )
    index = Report("index", f"{event.name}: reports", ())
    body = f'<ul class="index">\n{items}\n</ul>'
    atomic_write(directory / "index.html", html(index, custom_stylesheet=custom_stylesheet, body=body))


def context(event: ev.Event, division: ev.Division, upto: int | None = None) -> Context:
    """A report context; the file prefix names the division when the event has several."""
    prefix = f"{_slug(division.name)}-" if len(event.divisions) > 1 else ""
    return Context(event, division, division.paired_rounds if upto is None else upto, prefix)
