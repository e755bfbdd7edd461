"""``tmanager event`` verbs that show what an event holds: pairings, standings, title norms, team standings,
score-based highs, the results still missing, and the reports written as text and HTML.

The verbs join the verb table of :mod:`tmanager.cli.event` (:data:`VERBS`). See docs/events.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.cli._dispatch import words
from tmanager.cli.eventverbs import Verb, load_division, no_options
from tmanager.core.categories import Category
from tmanager.core.results import Result
from tmanager.errors import ConfigError, StateError
from tmanager.events import journal
from tmanager.events.model import Division, Event, label, missing
from tmanager.events.operations import find_player
from tmanager.events.ranking import Group, category, flag
from tmanager.events.reports import data, require_reports
from tmanager.events.reports.chess import ChessReports
from tmanager.events.reports.scored import ScoredReports
from tmanager.events.reports.team import TeamReports
from tmanager.events.rules import ChessRules, ScoreRules, require, rules_for
from tmanager.events.scorecards import NOT_SCORE_BASED_HINT, not_score_based

#: Every report kind ``report --only`` may name.
_REPORT_KINDS = tuple(dict.fromkeys((*ChessReports.kinds, *ScoredReports.kinds, *TeamReports.kinds)))


def _configure_round(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="round (default: the last paired one)")


def _format_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format", choices=words(data.ReportFormat), default=data.ReportFormat.TEXT.value,
        help="json or csv: rows for other programs (chess)",
    )


def _chess_reports(event: Event, division: Division) -> ChessReports:
    refusal = f"division {division.name!r} is score-based: --format json|csv is for chess divisions"
    reports = require(rules_for(event, division), ChessRules, refusal).reports()
    teams = f"division {division.name!r} ranks teams: --format json|csv is for players' divisions"
    return require_reports(reports, ChessReports, teams)


def _configure_pairings(p: argparse.ArgumentParser) -> None:
    _configure_round(p)
    _format_option(p)


def _pairings(args: argparse.Namespace) -> int:
    event, division = load_division(args)
    form = data.ReportFormat(args.format)
    if form is data.ReportFormat.TEXT:
        print(rules_for(event, division).reports().pairings_text(args.round), end="")
        return 0
    rows = data.pairings(_chess_reports(event, division), args.round)
    print(data.to_json(rows) if form is data.ReportFormat.JSON else data.pairings_csv(rows), end="")
    return 0


def _configure_standings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="standings after this round (default: the last paired one)")
    _format_option(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--category", help="only a prize category: U18, S50, women, unrated, 1800-1999…")
    group.add_argument("--flag", help="only players with this flag (a class of your own)")


def _standings(args: argparse.Namespace) -> int:
    event, division = load_division(args)
    among = None
    if args.category or args.flag:
        require(rules_for(event, division), ChessRules, "categories and flags rank chess divisions")
        among = _any_category(event, division, args.category) if args.category else _carried_flag(division, args.flag)
    form = data.ReportFormat(args.format)
    if form is data.ReportFormat.TEXT:
        print(rules_for(event, division).reports().standings_text(args.round, among=among), end="")
        return 0
    rows = data.standings(_chess_reports(event, division), args.round, among=among)
    print(data.to_json(rows) if form is data.ReportFormat.JSON else data.standings_csv(rows), end="")
    return 0


def _any_category(event: Event, division: Division, name: str) -> Group:
    """Category ``name`` (U18, S50, women, 1800-1999…), any the event's year, birth years, sexes and ratings make:
    one the event does not list may be ranked ad hoc (``U12`` among the players of an open)."""
    try:
        Category.parse(name)
    except ValueError as exc:
        raise ConfigError(str(exc), field="--category") from None
    return category(event, division, name)


def _carried_flag(division: Division, name: str) -> Group:
    """Flag ``name`` when a player of the division carries it: another printed an empty table."""
    flags = sorted({f for p in division.players for f in p.flags})
    if name not in flags:
        has = f"the players' flags are {', '.join(flags)}" if flags else "no player has a flag"
        raise ConfigError(f"no player of division {division.name!r} has the flag {name!r}; {has}", field="--flag")
    return flag(division, name)


def _configure_norms(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", nargs="?", help="one player's figures for every title (number or part of the name)")
    p.add_argument("--round", type=int, help="after this round (default: the last paired one)")


def _norms(args: argparse.Namespace) -> int:
    from tmanager.events.reports.norms import norms_report, player_report
    from tmanager.events.reports.render import text

    event, division = load_division(args)
    reports = require_reports(
        require(rules_for(event, division), ChessRules, "title norms are for chess divisions").reports(),
        ChessReports, f"division {division.name!r} ranks teams: title norms are reported for players' divisions",
    )
    if args.player:
        report = player_report(reports, find_player(division, args.player), args.round)
    else:
        report = norms_report(reports, args.round)
    print(text(report), end="")
    return 0


def _configure_team_standings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="after this round (default: the last paired one)")
    p.add_argument("--total", action="store_true", help="across every score-based division (TotalTeamStandings)")


def _team_standings(args: argparse.Namespace) -> int:
    from tmanager.events.reports.render import text
    from tmanager.events.reports.scored import total_team_report

    event = journal.load(args.event)
    if args.total:
        divisions = [d for d in event.divisions if rules_for(event, d).score_based]
        if not divisions:
            raise StateError("the event has no score-based division to add up",
                             hint="a team division's standings are those of tmanager event standings")
        print(text(total_team_report(event, divisions, args.round)), end="")
        return 0
    division = event.division(args.division)
    print(text(rules_for(event, division).reports().team_standings(args.round)), end="")
    return 0


def _configure_highs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="games up to this round (default: the last paired one)")
    p.add_argument("--count", type=int, default=10, help="entries per list (default 10)")


def _highs(args: argparse.Namespace) -> int:
    from tmanager.events.reports.render import text

    event, division = load_division(args)
    rules = require(rules_for(event, division), ScoreRules, not_score_based(division), NOT_SCORE_BASED_HINT)
    print(text(rules.reports().highs(args.round, args.count)), end="")
    return 0


def _missing(args: argparse.Namespace) -> int:
    event, d = load_division(args)
    rules = rules_for(event, d)
    if rules.team_size is not None:  # boards as MATCH.BOARD, and the lineups still to give
        from tmanager.events.reports.render import text

        print(text(rules.reports().missing()), end="")
        return 0
    pending = missing(d)
    for n, b in pending:
        index = d.round(n).board_number(b)
        state = "adjourned" if b.result is Result.ADJOURNED else "no result"
        print(f"round {n} board {index}: {label(d.player(b.white))} - {label(d.player(b.black))}: {state}")
    if not pending:
        print(f"no results missing (round {d.paired_rounds} is the last paired)")
    return 0


def _configure_report(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="pairings of this round, standings and tables after it (default: last)")
    p.add_argument("--only", action="append", choices=_REPORT_KINDS, help="only this report (repeatable)")
    p.add_argument("--css", type=Path, help="a stylesheet linked after tmanager.css (default: the event's stylesheet)")
    p.add_argument("-q", "--quiet", action="store_true", help="write the files without printing the reports")


def _report(args: argparse.Namespace) -> int:
    from tmanager.events.reports.render import publish, text

    e = journal.load(args.event)
    divisions = [e.division(args.division)] if args.division or len(e.divisions) == 1 else e.divisions
    made = [r for d in divisions for r in rules_for(e, d).reports().build(args.only or (), args.round)]
    directory = publish(args.event, e, made, stylesheet=args.css)
    if not args.quiet:
        print("\n".join(text(r) for r in made), end="")
    print(f"wrote {len(made)} report(s) as text and HTML; index: {directory / 'index.html'}")
    return 0


VERBS: dict[str, Verb] = {
    "pairings": Verb(
        _configure_pairings,
        _pairings,
        "show a round's pairings",
        ("pairings spring.toml --round 3", "pairings spring.toml --format json"),
    ),
    "norms": Verb(
        _configure_norms,
        _norms,
        "title norms (FIDE B.01): title results, figures and certificates",
        ("norms open.toml", "norms open.toml Kuiper --round 9"),
    ),
    "standings": Verb(
        _configure_standings,
        _standings,
        "standings with the event's tie-breaks",
        (
            "standings spring.toml",
            "standings spring.toml --round 5 --flag junior",
            "standings spring.toml --format csv",
        ),
    ),
    "team-standings": Verb(
        _configure_team_standings,
        _team_standings,
        "score-based: team standings of a division, or --total across all (tsh's TeamStandings, TotalTeamStandings)",
        ("team-standings scrabble.toml -d A", "team-standings scrabble.toml --total"),
    ),
    "highs": Verb(
        _configure_highs,
        _highs,
        "score-based: high wins, high losses and low wins (tsh's HighWin, HighLoss, LowWin)",
        ("highs scrabble.toml --count 5",),
    ),
    "missing": Verb(no_options, _missing, "results still to enter", ("missing spring.toml",)),
    "report": Verb(
        _configure_report,
        _report,
        "write the reports as text and HTML (html/EVENT/ beside the event, with an index)",
        (
            "report spring.toml",
            "report spring.toml --round 3 --only standings --only pairings",
            "report e.toml --css club.css",
        ),
    ),
}
