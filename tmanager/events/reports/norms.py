"""The norm report of a chess division: title results, their figures, and a certificate per norm achieved.

The table lists every title result (a performance at or above the title's,
B.01 0.5) of a player who does not hold the title yet, with the figures of
FIDE's norm report: games, points, opponents titled and of the norm's title,
foreign opponents and federations, the average rating Ra (with the rating
raised to the floor), the performance Rp and the score the norm needed; the
verdict names the articles a result fails. Each norm achieved gets a
certificate: the event, the player, every opponent counted (round, title,
name, federation, FIDE ID, rating as counted, result) and each requirement.
A single player's figures for every title they may seek: :func:`player_report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tmanager.core.norms import STANDARDS, NormCheck
from tmanager.core.results import format_points
from tmanager.events import norms
from tmanager.events.model import Player, missing
from tmanager.events.reports import Report, Table

if TYPE_CHECKING:
    from tmanager.events.reports.chess import ChessReports

_HEADER = ("No", "Name", "Fed", "Norm", "Rd", "G", "Pts", "Req", "Ra", "Rp", "TH", "NT", "For", "Feds", "Result")


def _points(value: float | None) -> str:
    return "-" if value is None else format_points(round(value * 10))


def _row(result: norms.PlayerNorm) -> tuple[str, ...]:
    c, p = result.check, result.player
    verdict = "NORM" if c.achieved else "no: " + ", ".join(f"{r.article} {r.what}" for r in c.failed)
    return (
        str(p.number), p.name, p.federation, c.title, str(result.upto), str(c.games), _points(c.points),
        _points(c.required_score), str(c.average), str(c.performance), str(c.titled), str(c.norm_titled),
        str(c.foreign), str(c.federations), verdict,
    )  # fmt: skip


def norms_report(reports: ChessReports, upto: int | None = None) -> Report:
    """The title results after round ``upto`` and a certificate per norm."""
    n = reports.upto(upto)
    found = norms.results(reports.event, reports.division, n)
    title_results = [r for r in found if r.check.performance >= STANDARDS[r.check.title].performance]
    blocks: list[Table | str] = [
        Table(_HEADER, tuple(_row(r) for r in title_results), frozenset({1, 14}), "Title results")
        if title_results
        else "No title result (a performance at a title's level) so far.",
        "Rd: judged after this round (in a Swiss a norm may end before the last round, 1.4.1e); G: games played "
        "over the board; Req: the score the norm needs; Ra: average rating of the opponents (unrated 1400, the "
        "lowest raised to the norm's floor); Rp: performance; TH: title-holders (not CM, WCM); NT: opponents of "
        "the norm's title or higher; For: federations other than the player's (1.4.3); Feds: federations met.",
    ]
    for result in (r for r in title_results if r.check.achieved):
        blocks += certificate(reports, result)
    blocks += _not_final(reports, n)
    return Report(f"{reports.prefix}norms-r{n}", f"{reports.heading}: title norms after round {n}", tuple(blocks),
                  kind="norms")  # fmt: skip


def certificate(reports: ChessReports, result: norms.PlayerNorm) -> list[Table | str]:
    """A norm certificate: the event, the player, the opponents counted and each requirement met."""
    event, p, c = reports.event, result.player, result.check
    raised = c.raised
    rows = []
    for g in result.games:
        o = g.opponent
        counted = o.rating or 1400
        if raised is not None and counted == raised:
            counted, raised = STANDARDS[c.title].floor, None  # the one rating raised to the floor (1.4.6c)
        rows.append((str(g.round), o.title, o.name, o.federation, str(o.fide_id or ""), str(o.rating or "-"),
                     str(counted), _points(g.points)))  # fmt: skip
    facts = (
        f"{c.title} norm: {_who(p)}. Event: {event.name}"
        + (f", {event.site}" if event.site else "") + (f", {event.start} to {event.end}" if event.start else "")
        + (f"; chief arbiter {event.arbiter}" if event.arbiter else "")
        + f". Games {c.games} (rounds 1-{result.upto}), points {_points(c.points)}, Ra {c.average}, "
        f"Rp {c.performance}; the norm counts as {c.counts_as} games (1.4.1d, 1.7)."
    )  # fmt: skip
    table = Table(("Rd", "Tit", "Opponent", "Fed", "FIDE ID", "Rtg", "Counted", "Pts"), tuple(rows),
                  frozenset({1, 2, 3}), f"Certificate: {p.name}, {c.title} norm")  # fmt: skip
    articles = _requirements(c, verdicts=False)
    return [table, facts, articles]


def player_report(reports: ChessReports, player: Player, upto: int | None = None) -> Report:
    """One player's figures and requirements for every title they may seek, after round ``upto``."""
    n = reports.upto(upto)
    mine = [r for r in norms.results(reports.event, reports.division, n) if r.player.number == player.number]
    blocks: list[Table | str] = [] if mine else [f"{_who(player)} holds every title a norm leads to."]
    for r in mine:
        c = r.check
        raised = f" ({c.raised} raised to {STANDARDS[c.title].floor})" if c.raised is not None else ""
        blocks.append(_requirements(c, verdicts=True))
        blocks.append(
            f"{c.title}: {'NORM' if c.achieved else 'no norm'} after round {r.upto}; {c.games} games, "
            f"{_points(c.points)} points (the norm needs {_points(c.required_score)}), Ra {c.average}{raised}, "
            f"Rp {c.performance}."
        )
        if c.achieved:
            blocks += certificate(reports, r)
    blocks += _not_final(reports, n)
    return Report(f"{reports.prefix}norms-{player.number}-r{n}", f"{reports.heading}: {_who(player)}, title norms "
                  f"after round {n}", tuple(blocks), kind="norms")  # fmt: skip


def _not_final(reports: ChessReports, n: int) -> list[Table | str]:
    """The results of rounds 1-``n`` still missing, which count as nothing yet: a game to be played is not a
    norm failed (1.4.1 games) until it is in."""
    pending = sum(1 for r, _ in missing(reports.division) if r <= n)
    return [f"{pending} result(s) still missing: they count as nothing yet, and these verdicts are not final"] \
        if pending else []  # fmt: skip


def _requirements(c: NormCheck, *, verdicts: bool) -> Table:
    """Each requirement of a norm with its article, what it needs and what the player has (and whether met)."""
    header = ("Article", "Requirement", "Needed", "Has", *(("Met",) if verdicts else ()))
    rows = tuple(
        (q.article, q.what, q.needed, q.actual, *((("yes" if q.met else "NO"),) if verdicts else ()))
        for q in c.requirements
    )
    return Table(header, rows, frozenset({1}), f"{c.title} norm" if verdicts else "")


def _who(p: Player) -> str:
    return f"{(p.title + ' ') if p.title else ''}{p.name} ({p.number}), {p.federation or 'no federation'}" + (
        f", FIDE ID {p.fide_id}" if p.fide_id else ""
    )
