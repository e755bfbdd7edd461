"""Standings, cross-table, Elo ratings and match statistics from any PGN files.

Reads only the tags it needs (White, Black, Result, Round, FEN, GameNumber,
Superseded), so millions of games take seconds. Ratings are a
joint maximum-likelihood logistic Elo fit; with two players (or --match) the
match statistics of cutechess-cli and fastchess follow: Elo ± 95 %, LOS, draw
ratio, pentanomial counts, nElo and an optional SPRT. Without --match, the
first player (the one tested) is the one with white in the lowest GameNumber
(tmanager's first participant), else the one with white in the file's first
game (fastchess's first engine), and the SPRT line says so; an SPRT of more
than two players needs --match. Malformed games are skipped and counted on
stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from tmanager import files
from tmanager.cli._bounds import MAX_WORKERS, check_count
from tmanager.cli._dispatch import words
from tmanager.core import crosstable, crosstableformats, tiebreaknames
from tmanager.core.ratingmodel import ANCHOR_LIMIT
from tmanager.core.standings import Points
from tmanager.core.stats import SprtModel, SprtSettings
from tmanager.errors import ConfigError, printable
from tmanager.formats import pgnscan

EXAMPLES = """\
  tmanager crosstable games.pgn
  tmanager crosstable a.pgn b.pgn --format html -o table.html
  tmanager crosstable ccrl.pgn --anchor "Stockfish 16" --anchor-elo 3500 --white-advantage
  tmanager crosstable match.pgn --sprt 0 5 0.05 0.05 --sprt-model normalized --match dev base
  tmanager crosstable swiss.pgn --tiebreaks BH-C1,BH,SB,DE --format markdown
"""

#: Example lines of malformed games shown on stderr; all are counted.
SHOWN_WARNINGS = 5


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="PGN files")
    parser.add_argument(
        "--format", choices=words(crosstable.Format), default=crosstable.Format.TEXT.value, help="output format"
    )
    parser.add_argument("-o", "--output", type=Path, help="write to this file (atomically) instead of stdout")
    parser.add_argument("--title", help="heading of the table (default: the file names)")
    parser.add_argument("--anchor", metavar="NAME", help="player whose rating is fixed (default: the average)")
    parser.add_argument("--anchor-elo", type=float, default=0.0, metavar="ELO", help="the anchor's rating")
    parser.add_argument("--white-advantage", action="store_true", help="fit white's advantage too")
    parser.add_argument("--match", nargs=2, metavar=("A", "B"), help="match statistics for these two players")
    parser.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="SPRT of the match: H0 elo0 against H1 elo1",
    )
    parser.add_argument("--sprt-model", choices=words(SprtModel), help="with --sprt (default: normalized)")
    parser.add_argument(
        "--tiebreaks",
        default="",
        metavar="LIST",
        help=f"comma-separated, in order of precedence: {','.join(tiebreaknames.TIEBREAKS)}",
    )
    parser.add_argument("--points", default="1,0.5,0", metavar="W,D,L", help="points for a win, draw and loss")
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=f"processes reading a file of {pgnscan.PARALLEL_SIZE >> 20} MB or more (default: one per core)",
    )


def command(args: argparse.Namespace) -> int:
    for path in args.files:
        # A directory, a FIFO (a shell's <(zcat …) too), a device: said so here, with the way out.
        if not files.expect_file(path, hint="name PGN files, e.g. DIR/*.pgn for those of a directory"):
            raise ConfigError("no such PGN file", file=path, hint="check the path")
    _refuse_a_file_named_twice(args.files)
    if args.output:  # refused now, not after reading what may be millions of games
        for path in args.files:
            if files.same_file(args.output, path):
                raise ConfigError(
                    f"{str(args.output)!r} is the PGN file read", field="--output",
                    hint="give the table a file of its own",
                )
        files.check_writable(args.output, file=None, field="--output")
    try:
        names = tuple(t.name for t in tiebreaknames.parse_all([n for n in args.tiebreaks.split(",") if n.strip()]))
    except ValueError as exc:
        raise ConfigError(str(exc), field="--tiebreaks", hint="FIDE's codes with modifiers, e.g. BH-C1,SB") from None
    if not math.isfinite(args.anchor_elo):
        raise ConfigError(f"must be a number, not {args.anchor_elo:g}", field="--anchor-elo", hint="e.g. 3500")
    if abs(args.anchor_elo) > ANCHOR_LIMIT:
        raise ConfigError(
            f"{args.anchor_elo:g} is beyond ±{ANCHOR_LIMIT:,.0f}", field="--anchor-elo", hint="a rating, e.g. 3500"
        )
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError(f"must be at least 1, not {args.jobs}", field="--jobs", hint="--jobs 1 reads in one process")
    check_count(args.jobs, option="--jobs", most=MAX_WORKERS)  # a typing slip would fork a process per job
    if args.match and args.match[0] == args.match[1]:  # before reading: the PGN may hold millions of games
        raise ConfigError(f"{args.match[0]!r} against itself", field="--match",
                          hint="name two different players: --match A B")
    sprt = _sprt(args)
    report = pgnscan.ScanReport()
    table = crosstable.build(
        pgnscan.scan_files(args.files, report, jobs=args.jobs),
        title=args.title or ", ".join(p.name for p in args.files),
        points=_points(args.points),
        anchor=args.anchor,
        anchor_elo=args.anchor_elo,
        white_advantage=args.white_advantage,
        match=tuple(args.match) if args.match else None,
        sprt=sprt,
        tiebreak_names=names,
    )
    _print_warnings(report)
    if args.match and table.match is None:
        _no_match(args.match, list(table.tally.players))
    if sprt is not None and table.match is None:
        raise ConfigError(
            f"no match to test: the games have {len(table.tally.players)} players, not two", field="--sprt",
            hint="name the pair with --match A B (A tested against B)",
        )
    text = crosstableformats.render(table, crosstable.Format(args.format))
    if args.output:
        files.atomic_write(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _refuse_a_file_named_twice(paths: list[Path]) -> None:
    """One file named twice (as such, through a link, or by a glob overlapping another) would count each of its
    games twice, with nothing to show it in the table: refused, naming both, before anything is read."""
    first_named: dict[tuple[int, int], Path] = {}
    for path in paths:
        info = os.stat(path)  # each is a regular file: expect_file said so
        first = first_named.setdefault((info.st_dev, info.st_ino), path)
        if first is path:
            continue
        same = "named twice" if str(first) == str(path) else f"the same file as {str(first)!r}"
        raise ConfigError(f"{same}: its games would count twice", file=path, hint="name each PGN file once")


#: The most a win may be worth: enough for any scoring (3,1,0; 2,1,0), far below a float's range.
POINTS_LIMIT = 1000.0


def _sprt(args: argparse.Namespace) -> SprtSettings | None:
    """The SPRT that --sprt and --sprt-model ask for, checked; ``None`` without --sprt."""
    if not args.sprt:
        if args.sprt_model is not None:  # said, not ignored: the user believes a test is run
            raise ConfigError("tests nothing without --sprt", field="--sprt-model",
                              hint="add --sprt ELO0 ELO1 ALPHA BETA, e.g. --sprt 0 5 0.05 0.05")
        return None
    elo0, elo1, alpha, beta = args.sprt
    sprt = SprtSettings(elo0, elo1, alpha, beta, SprtModel(args.sprt_model or SprtModel.NORMALIZED))
    try:
        sprt.check()
    except ConfigError as exc:
        raise ConfigError(f"{exc.field}: {exc.message}", field="--sprt", hint="e.g. --sprt 0 5 0.05 0.05") from None
    return sprt


def _points(text: str) -> Points:
    try:
        win, draw, loss = (float(x) for x in text.split(","))
    except ValueError:
        win = draw = loss = math.nan
    if not all(math.isfinite(x) for x in (win, draw, loss)):
        raise ConfigError(f"not three numbers: {text!r}", field="--points", hint="e.g. --points 3,1,0")
    # Scores, percentages and the tie-breaks built on them (TPR, ARO) take a win to be worth the most, a loss the
    # least and nothing below 0: --points -1,0,1 ranked the losers first with a TPR of 1008.
    if not 0 <= loss <= draw <= win <= POINTS_LIMIT or loss == win:
        raise ConfigError(
            f"{text!r}: a win must be worth more than a loss, a draw between, none below 0 or above "
            f"{POINTS_LIMIT:g}", field="--points", hint="e.g. --points 3,1,0",
        )
    return Points(win, draw, loss)


def _print_warnings(report: pgnscan.ScanReport) -> None:
    if not report.sections:  # an empty table, and not an error: a PGN still to be written is empty
        print("tmanager: warning: no game in the file(s) given (a PGN game begins with tag lines, "
              'such as [White "…"])', file=sys.stderr)
    if report.superseded:  # skipped as the docs say, but said: the table counts fewer games than the file holds
        games = "1 game" if report.superseded == 1 else f"{report.superseded:,} games"
        print(f"tmanager: note: {games} tagged [Superseded] not counted (later games replaced them)", file=sys.stderr)
    if not report.warnings:
        return
    kinds = ", ".join(f"{count} {kind}" for kind, count in report.warnings.most_common())
    games = "1 game" if report.warning_count == 1 else f"{report.warning_count} games"
    print(f"tmanager: warning: {games} not counted or suspect ({kinds})", file=sys.stderr)
    for line in report.examples[:SHOWN_WARNINGS]:
        print(f"tmanager: warning: {printable(line)}", file=sys.stderr)


def _no_match(pair: Sequence[str], players: list[str]) -> NoReturn:
    """Why ``--match`` found no game: a name the PGN has not (misspelt: case counts), or two that never met."""
    unknown = next((name for name in pair if name not in players), None)
    if unknown is None:
        raise ConfigError(f"{pair[0]!r} and {pair[1]!r} played no game together", field="--match",
                          hint="name two players who met: the cross-table shows who did")
    shown = ", ".join(players[:10]) + (f" and {len(players) - 10} more" if len(players) > 10 else "")
    raise ConfigError(f"{unknown!r} played no game", field="--match", hint=f"use a player name from the PGN: {shown}")
