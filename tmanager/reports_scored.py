"""Reports of a score-based division (tsh style), built as :class:`tmanager.reports.Report` values.

They render and publish as the chess reports do (:func:`tmanager.reports.text`,
:func:`~tmanager.reports.html`, :func:`~tmanager.reports.publish`): the
players; a round's pairings with who goes first and the scores; the standings
by wins and spread with average scores and firsts; the wall chart of
scorecards; tsh's HighWin, HighLoss and LowWin lists; the missing results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tmanager import event as ev
from tmanager import event_scored as sc
from tmanager.errors import StateError
from tmanager.reports import Report, Table
from tmanager.reports import _slug as slug  # the chess reports' file-name rule, shared

#: Report kinds of a score-based division, in index order.
KINDS = ("players", "pairings", "standings", "crosstable", "highs", "missing")
#: Entries of the high-score lists.
HIGHS = 10


def _heading(event: ev.Event, division: ev.Division) -> str:
    return event.name + (f", division {division.name}" if len(event.divisions) > 1 else "")


def _prefix(event: ev.Event, division: ev.Division) -> str:
    return f"{slug(division.name)}-" if len(event.divisions) > 1 else ""


def _average(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def players(event: ev.Event, division: ev.Division) -> Report:
    """The players with rating, team, flags and whether they are off."""
    rows = tuple(
        (
            str(p.number), p.name, str(p.rating or ""), p.team, ", ".join(p.flags),
            f"off {sc.off_spread(division, p):+d}" if p.status == "withdrawn" else "",
        )
        for p in sorted(division.players, key=lambda p: p.number)
    )  # fmt: skip
    header = ("No", "Name", "Rtg", "Team", "Flags", "Status")
    title = f"{_heading(event, division)}: players"
    return Report(_prefix(event, division) + "players", title, (Table(header, rows, frozenset({1, 3, 4, 5})),))


def pairings(event: ev.Event, division: ev.Division, round_number: int | None = None) -> Report:
    """A round's boards in order: who goes first, records before the round, and the result entered."""
    rules = sc.rules_of(division)
    n = round_number or division.paired_rounds
    if n < 1:
        raise StateError("no round is paired yet; `pair` pairs round 1")
    record = division.round(n)
    if not record.paired:
        raise StateError(f"round {n} is not paired yet")
    before = {line.player.number: sc.record_text(line) for line in sc.standings(division, n - 1)}

    def side(number: int) -> tuple[str, ...]:
        p = division.player(number)
        return (str(number), p.name, str(p.rating or ""), before[number])

    rows = tuple(
        (str(record.board_number(b)), *side(b.white), sc.result_text(division, b), *side(b.black))
        for b in record.boards
    )
    first, second = ("First", "Second") if rules.track_firsts else ("Player", "Opponent")
    header = ("Bd", "No", first, "Rtg", "Record", "Result", "No", second, "Rtg", "Record")
    blocks: list[Table | str] = [Table(header, rows, frozenset({2, 7}))]
    blocks += [
        f"{'forfeit loss' if kind == 'forfeit' else 'bye'}: {ev.label(division.player(p))}, "
        f"spread {sc.bye_spread(division, record, p):+d}"
        for p, kind in record.byes.items()
    ]
    title = f"{_heading(event, division)}: round {n} pairings"
    return Report(f"{_prefix(event, division)}pairings-r{n}", title, tuple(blocks))


def standings(event: ev.Event, division: ev.Division, upto: int | None = None) -> Report:
    """Wins, losses, spread; average score and opponents' average (game scores only); firsts and seconds."""
    rules = sc.rules_of(division)
    lines = sc.standings(division, upto)
    n = division.paired_rounds if upto is None else upto
    averages = rules.entry != "spread"
    rows = []
    for line in lines:
        e = line.entrant
        cells = [
            str(line.rank), str(line.player.number),
            line.player.name + (" (off)" if line.player.status == "withdrawn" else ""), str(line.player.rating or ""),
            ev.format_points(round(e.wins * 10)), ev.format_points(round(line.losses * 10)), f"{e.spread:+d}",
        ]  # fmt: skip
        if averages:
            cells += [_average(line.average), _average(line.opponents_average)]
        if rules.track_firsts:
            cells += [str(e.firsts), str(e.seconds)]
        rows.append(tuple(cells))
    header = ["Rk", "No", "Name", "Rtg", "W", "L", "Spread"]
    header += ["Avg", "OppAvg"] if averages else []
    header += ["1st", "2nd"] if rules.track_firsts else []
    blocks: list[Table | str] = [Table(tuple(header), tuple(rows), frozenset({2}))]
    pending = sum(1 for r, _ in ev.missing(division) if r <= n)
    if pending:
        blocks.append(f"{pending} result(s) still missing: they count as nothing yet")
    blocks.append(
        "ranked by wins (a tie is half a win), then cumulative spread; byes and forfeits count their spread, "
        "a win if positive, a loss if negative, neither at 0"
    )
    title = f"{_heading(event, division)}: standings after round {n}"
    return Report(f"{_prefix(event, division)}standings-r{n}", title, tuple(blocks))


def _cell(card_opponent: int | None, own: int | None, theirs: int | None) -> str:
    if card_opponent is None:
        return ""
    if own is None:
        return "bye*" if card_opponent == 0 else f"{card_opponent}*"
    if card_opponent == 0:
        return f"bye{own:+d}"
    if theirs is None:
        return f"{card_opponent}*"
    spread = own - theirs
    return f"{card_opponent}{'W' if spread > 0 else 'L' if spread < 0 else 'T'}{spread:+d}"


def wallchart(event: ev.Event, division: ev.Division, upto: int | None = None) -> Report:
    """Scorecards in standings order: per round the opponent, W/L/T and the spread (byes and forfeits: ``bye±``)."""
    lines = sc.standings(division, upto)
    n = division.paired_rounds if upto is None else upto
    cards = {c.id: c for c in sc.scorecards(division, n)}
    rows = []
    for line in lines:
        card = cards[line.player.number]
        cells = []
        for i, opponent in enumerate(card.opponents):
            theirs = cards[opponent].scores[i] if opponent else None
            cells.append(_cell(opponent, card.scores[i], theirs))
        rows.append((str(line.rank), str(line.player.number), line.player.name, *cells, sc.record_text(line)))
    header = ("Rk", "No", "Name", *(f"R{r}" for r in range(1, n + 1)), "Record")
    note = "cells: opponent's number, W/L/T and the spread; bye±N: a bye, forfeit or round off; * not yet entered"
    title = f"{_heading(event, division)}: wall chart after round {n}"
    return Report(
        f"{_prefix(event, division)}wallchart-r{n}", title, (Table(header, tuple(rows), frozenset({2})), note)
    )


def highs(event: ev.Event, division: ev.Division, upto: int | None = None, count: int = HIGHS) -> Report:
    """tsh's HighWin, HighLoss and LowWin lists: the top ``count`` of each."""
    n = division.paired_rounds if upto is None else upto
    blocks: list[Table | str] = []
    for title, games in sc.high_scores(division, n).items():
        rows = tuple(
            (str(g.round), str(g.board), str(g.winner_score), ev.label(g.winner), str(g.loser_score), ev.label(g.loser))
            for g in games[:count]
        )
        blocks.append(Table(("Rd", "Bd", "Win", "Winner", "Loss", "Loser"), rows, frozenset({3, 5}), title))
    if sc.rules_of(division).entry == "spread":
        blocks = ["no game scores: this division enters spreads only"]
    title = f"{_heading(event, division)}: high wins, high losses and low wins after round {n}"
    return Report(f"{_prefix(event, division)}highs-r{n}", title, tuple(blocks))


def missing(event: ev.Event, division: ev.Division) -> Report:
    """Boards of paired rounds without a result."""
    rows = tuple(
        (str(n), str(division.round(n).board_number(b)), ev.label(division.player(b.white)),
         ev.label(division.player(b.black)))
        for n, b in ev.missing(division)
    )  # fmt: skip
    blocks: tuple[Table | str, ...] = (
        (Table(("Rd", "Bd", "Player", "Opponent"), rows, frozenset({2, 3})),)
        if rows
        else (f"no results missing (round {division.paired_rounds} is the last paired)",)
    )
    return Report(f"{_prefix(event, division)}missing", f"{_heading(event, division)}: missing results", blocks)


def build(
    event: ev.Event, division: ev.Division, only: Sequence[str] = (), round_number: int | None = None
) -> list[Report]:
    """The reports of ``only`` (all of :data:`KINDS` by default) after round ``round_number`` (default: last)."""
    unknown = [k for k in only if k not in KINDS]
    if unknown:
        raise StateError(f"no report {unknown[0]!r} for a score-based division; choose from {', '.join(KINDS)}")
    upto = round_number if round_number is not None else division.paired_rounds
    makers: dict[str, Callable[[], list[Report]]] = {
        "players": lambda: [players(event, division)],
        "pairings": lambda: [pairings(event, division, round_number)] if division.paired_rounds else [],
        "standings": lambda: [standings(event, division, upto)],
        "crosstable": lambda: [wallchart(event, division, upto)],
        "highs": lambda: [highs(event, division, upto)],
        "missing": lambda: [missing(event, division)],
    }
    return [r for kind in (only or KINDS) for r in makers[kind]()]
