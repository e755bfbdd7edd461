"""``tmanager event prize-fund`` and ``prizes``: a chess division's prize fund, and its prizes allocated.

The verbs join the verb table of :mod:`tmanager.cli.event` (:data:`VERBS`).
See docs/events.md, "Prizes".
"""

from __future__ import annotations

import argparse

from tmanager.cli._dispatch import words
from tmanager.cli.eventverbs import Verb, load_division, say
from tmanager.core.prizes import Sharing
from tmanager.events import service
from tmanager.events.prizefund import FundChange, describe


def _configure_prize_fund(p: argparse.ArgumentParser) -> None:
    p.add_argument("list", nargs="?", default="", help="overall, or a category (U18, S50, women, 2000-2199…)")
    p.add_argument("amounts", nargs="*", help="the prizes of places 1, 2, … in the currency's units (62.50)")
    p.add_argument("--remove", action="store_true", help="take the list out of the fund")
    p.add_argument("--sharing", choices=words(Sharing), help="how players level on points share (default split)")
    p.add_argument("--preference", help="lists in order of preference on equal amounts: overall,U18,women")
    p.add_argument("--currency", help="the currency shown beside amounts: EUR, USD, €")


def _prize_fund(args: argparse.Namespace) -> int:
    preference = tuple(n for n in args.preference.split(",") if n.strip()) if args.preference is not None else None
    change = FundChange(
        args.list, tuple(args.amounts), args.remove, Sharing(args.sharing) if args.sharing else None, preference,
        args.currency,
    )  # fmt: skip
    if change == FundChange():
        _, division = load_division(args)
        say(describe(division.prize_fund))
        return 0
    say(service.prize_fund(args.event, args.division, change).messages)
    return 0


def _configure_prizes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="after this round (default: the last paired one)")


def _prizes(args: argparse.Namespace) -> int:
    from tmanager.events.reports import require_reports
    from tmanager.events.reports.chess import ChessReports
    from tmanager.events.reports.prizes import prize_report
    from tmanager.events.reports.render import text
    from tmanager.events.rules import rules_for

    event, division = load_division(args)
    refusal = f"division {division.name!r} does not rank players by points: prize lists are for chess"
    reports = require_reports(rules_for(event, division).reports(), ChessReports, refusal)
    print(text(prize_report(reports, args.round)), end="")
    return 0


VERBS = {
    "prize-fund": Verb(
        _configure_prize_fund,
        _prize_fund,
        "the division's prize fund: a list's amounts by place, how shared prizes split, the order of preference",
        (
            "prize-fund open.toml overall 1000 700 500 300 200 --currency EUR --sharing hort",
            "prize-fund open.toml U18 150 100",
            "prize-fund open.toml --preference overall,U18,women",
            "prize-fund open.toml women --remove",
            "prize-fund open.toml",
        ),
    ),
    "prizes": Verb(
        _configure_prizes,
        _prizes,
        "the prize list: the fund allocated, one prize per player, shared prizes split as the fund says",
        ("prizes open.toml", "prizes open.toml --round 9"),
    ),
}
