"""Show a tourney's progress, statistics and SPRT, claims, engine faults and standings; safe while workers run.

It only reads the file (writes are atomic renames), so it never disturbs a
running tourney. Stale claims, whose worker is gone, are listed; they are
released by the next worker or by `tmanager reset-stale`. Recorded games missing
from the PGN (cut by hand) are said on standard error, and the status is then 1.
Outputs that cannot be written (an archived tourney, read-only) are a warning
while games are left: `work` would refuse them, but a look writes nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tmanager.cli._dispatch import words
from tmanager.core import crosstable, crosstableformats, fieldtable, sprt
from tmanager.errors import ConfigError, StateError, printable
from tmanager.tourney import progress, store, tuning
from tmanager.tourney.claims import claim_is_alive
from tmanager.tourney.live import GameInProgress
from tmanager.tourney.model import PLAYING, Tourney, describe_faults
from tmanager.tourney.tallies import field_records
from tmanager.tourney.validation import check_outputs, check_pgn, games_elsewhere

EXAMPLES = """\
  tmanager status gauntlet.toml
  watch -n 5 tmanager status gauntlet.toml
"""

#: The formats status prints the standings in.
SHOWN_FORMATS = (crosstable.Format.TEXT, crosstable.Format.MARKDOWN)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument(
        "--format", choices=words(SHOWN_FORMATS), default=crosstable.Format.TEXT.value,
        help="how to print the standings",
    )


def command(args: argparse.Namespace) -> int:
    tourney = store.read(args.file)
    print(report(tourney, crosstable.Format(args.format)))
    try:
        check_pgn(tourney)
    except StateError as exc:
        print(f"tmanager: {printable(str(exc))}", file=sys.stderr)
        return 1
    if not tourney.is_complete():
        try:  # what `work` would refuse: an archived tourney (read-only) is looked at, not played
            check_outputs(tourney)
        except ConfigError as exc:
            print(f"tmanager: warning: {printable(str(exc))}", file=sys.stderr)
    elsewhere = games_elsewhere(tourney)
    if elsewhere is not None:
        # A warning, not a failure: with no game recorded here, a copy cannot be told from results typed in by
        # hand, which are a good file (check_pgn's missing games, above, are known missing).
        print(f"tmanager: warning: {printable(elsewhere)}", file=sys.stderr)
    return 0


#: Moves shown of each game in progress.
LIVE_MOVES = 6


def report(tourney: Tourney, fmt: crosstable.Format = crosstable.Format.TEXT) -> str:
    """Progress, claims, faults, then standings and cross-table computed from the results string."""
    total = tourney.schedule().total_games
    done = tourney.finished_count
    playing = tourney.results.count(PLAYING)
    lines = [
        f"{tourney.settings.name}: {done} played, {playing} in progress, {progress.games_left(tourney)} left "
        f"(of {total})"
    ]
    lines += [f"  {line}" for line in report_lines(tourney)]
    lines += [f"  amended {amendment.describe()}" for amendment in tourney.amendments]
    now = time.time()
    for number in tourney.playing():
        claim = tourney.claims.get(number)
        if claim is None:
            lines.append(f"  game {number}: in progress, owner unknown (stale)")
            continue
        alive = claim_is_alive(claim, lease=tourney.settings.lease, now=now)
        lines.append(
            f"  game {number}: {claim.host} pid {claim.pid}, for {now - claim.claimed:.0f} s"
            + ("" if alive else " (stale: worker gone)")
        )
        live = GameInProgress.load(tourney.live_dir / f"{number}.json")
        if live is not None and live.moves:
            clocked = all(tourney.plays_on_a_clock(name) for name in (live.white, live.black))
            clocks = f"clocks {live.white_clock:.1f} s – {live.black_clock:.1f} s, " if clocked else ""
            ago = max(0.0, now - live.updated)  # written since `now` was read: "-0 s ago" otherwise
            lines.append(f"    {live.white} – {live.black}: {live.last_moves(LIVE_MOVES)} ({clocks}{ago:.0f} s ago)")
    for engine, counts in sorted(tourney.faults.items()):
        lines.append(f"  faults of {engine}: {describe_faults(counts)[1]}")
    if tourney.finished_count:
        lines.append("")
        lines.append(crosstableformats.render(tourney.crosstable(), fmt))
    return "\n".join(lines)


def report_lines(tourney: Tourney) -> list[str]:
    """What a test's follower reads as it runs: a tune's values (:func:`tuning.describe`), a match's line
    (:func:`match_lines`), or for more participants each one against the field, as fastchess's table (with
    the LOS)."""
    if tourney.spsa is not None:
        return tuning.describe(tourney)
    if len(tourney.participants) == 2:
        return match_lines(tourney)
    if not tourney.finished_count:
        return []
    return ["each against the field:", *fieldtable.render(field_records(tourney))]


def match_lines(tourney: Tourney) -> list[str]:
    """A two-participant match's statistics on one line (see :func:`crosstableformats.match_line`), then the
    SPRT's decision once it has one; nothing for other tourneys or before the first result."""
    if not tourney.finished_count:
        return []  # and numpy, which counts the match, need not even be loaded
    state = tourney.match_state()
    if state is None:
        return []
    first, second = (p.name for p in tourney.participants)
    decision = sprt.describe(state)
    line = crosstableformats.match_line(first, second, state.statistics(), state.settings)
    return [line, *([decision] if decision else [])]
