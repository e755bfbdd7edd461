"""The prize list of a chess division: the prize fund allocated, or the rankings of a division without one.

With a prize fund (``[division.prizes]``) every list, overall and per
category, ranks its players by the standings (a category's players among
themselves) and :func:`tmanager.core.prizes.allocate` gives each player at
most one prize, the highest, shared as the fund says; the report shows each
list's winners with their place (``2-3`` when shared) and amount, the
places nobody was left for, what was paid of the fund, and the rules
applied. Without a fund it lists the first ``prizes`` places of each ranking,
as before: a player may then appear in several.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from tmanager.core.prizes import Award, PrizeList, Ranked, Sharing, allocate
from tmanager.core.results import format_points
from tmanager.events.model import OVERALL, PrizeFund, missing
from tmanager.events.prizefund import money
from tmanager.events.ranking import Group, TiebreakStanding, category, tiebreak_names
from tmanager.events.reports import Report, Table, tiebreak_values

if TYPE_CHECKING:
    from tmanager.events.reports.chess import ChessReports

SHARING_RULES = {
    Sharing.HORT: "players level on points share the prizes of their places by the Hort system: half of them "
    "equally, the other half by the tie-break order (half the prize of each one's own place)",
    Sharing.SPLIT: "players level on points share the prizes of their places equally",
    Sharing.TIEBREAK: "prizes follow the tie-break order; only players level on every tie-break share",
}
_HEADER = ("Pl", "No", "Tit", "Name", "Rtg", "Fed", "Pts")


def list_title(name: str) -> str:
    return "Overall" if name == OVERALL else f"Category {name}"


def prize_lists(reports: ChessReports, fund: PrizeFund, upto: int) -> list[PrizeList]:
    """The fund's lists in order of preference, each with its players' ranking after round ``upto``."""
    lists = []
    for name in fund.order():
        group = None if name == OVERALL else category(reports.event, reports.division, name)
        ranking = tuple(Ranked(s.player.number, s.points, s.rank) for s in reports.ranking(upto, among=group))
        lists.append(PrizeList(name, fund.lists[name], ranking))
    return lists


def prize_report(reports: ChessReports, upto: int | None = None) -> Report:
    """The prize list after round ``upto``: the fund allocated, else the first places of each ranking."""
    n = reports.upto(upto)
    fund = reports.division.prize_fund
    blocks = _allocated(reports, fund, n) if fund is not None and fund.lists else _rankings(reports, n)
    pending = sum(1 for r, _ in missing(reports.division) if r <= n)
    if pending:
        blocks.append(f"{pending} result(s) still missing: this list is not final")
    blocks.append(reports.legend())
    title = f"{reports.heading}: prize list after round {n}"
    return Report(f"{reports.prefix}prizes-r{n}", title, tuple(blocks), kind="prizes")


def _allocated(reports: ChessReports, fund: PrizeFund, n: int) -> list[Table | str]:
    given = allocate(prize_lists(reports, fund, n), fund.sharing)
    standings = {s.player.number: s for s in reports.ranking(n)}
    header = (*_HEADER, f"Prize ({fund.currency})" if fund.currency else "Prize")
    blocks: list[Table | str] = []
    for name, amounts in fund.lists.items():
        mine = sorted((a for a in given if a.prize_list == name), key=lambda a: (a.first, -a.amount, a.player))
        rows = tuple((*_player_cells(standings[a.player], _places(a)), money(a.amount)) for a in mine)
        title = list_title(name)
        covered = {place for a in mine for place in range(a.first, a.last + 1)}
        left = ", ".join(str(p) for p, amount in enumerate(amounts, 1) if amount and p not in covered)
        if rows:
            blocks.append(Table(header, rows, frozenset({2, 3, 5}), title))
        if left:
            blocks.append(f"{title}: no player left for place(s) {left}: not given")
    paid = sum((a.amount for a in given), Fraction(0))
    fund_total = sum(sum(amounts) for amounts in fund.lists.values())
    unit = f" {fund.currency}" if fund.currency else ""
    order = ", ".join(fund.order())
    blocks += [
        f"paid {money(paid)}{unit} of a fund of {money(fund_total)}{unit}",
        f"One prize per player, the highest; equal amounts in the order {order}. Shared prizes: "
        + SHARING_RULES[fund.sharing]
        + ".",
    ]
    return blocks


def _places(award: Award) -> str:
    return str(award.first) if award.first == award.last else f"{award.first}-{award.last}"


def _player_cells(s: TiebreakStanding, place: str) -> tuple[str, ...]:
    p = s.player
    return (place, str(p.number), p.title, p.name, str(p.rating or ""), p.federation, format_points(s.points))


def _rankings(reports: ChessReports, n: int) -> list[Table | str]:
    """The first ``prizes`` places overall and in each category (ties shown as ranked), without a fund."""
    count = reports.event.prizes
    groups: Sequence[Group | None] = [
        None, *(category(reports.event, reports.division, c) for c in reports.event.categories)
    ]  # fmt: skip
    blocks: list[Table | str] = []
    for group in groups:
        # Ranks are shared only by exact ties, which all stand inside the list.
        chosen = [s for s in reports.ranking(n, among=group) if s.rank <= count]
        rows = tuple((*_player_cells(s, str(s.rank)), *tiebreak_values(s.values)) for s in chosen)
        title = "Overall" if group is None else f"Category {group.name}"
        header = (*_HEADER, *(t.name for t in tiebreak_names(reports.event)))
        blocks.append(Table(header, rows, frozenset({2, 3, 5}), title) if rows else f"{title}: no players")
    blocks.append("no prize fund: each ranking's first places, a player possibly in several (`event prize-fund`)")
    return blocks
