"""Show a tourney's progress, claims, engine faults and standings; safe while workers run.

It only reads the file (writes are atomic renames), so it never disturbs a
running tourney. Stale claims, whose worker is gone, are listed; they are
released by the next worker or by `tmanager reset-stale`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tmanager.core import crosstable
from tmanager.core.standings import GameResult
from tmanager.tourney import store
from tmanager.tourney.model import PGN_RESULT, PLAYING, Tourney, describe_faults
from tmanager.tourney.worker import GameInProgress, claim_is_alive

EXAMPLES = """\
  tmanager status gauntlet.toml
  watch -n 5 tmanager status gauntlet.toml
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")
    parser.add_argument(
        "--format", choices=["text", "markdown"], default="text", help="how to print the standings"
    )


def command(args: argparse.Namespace) -> int:
    print(report(store.read(args.file), args.format))
    return 0


#: Moves shown of each game in progress.
LIVE_MOVES = 6


def report(tourney: Tourney, fmt: crosstable.Format = "text") -> str:
    """Progress, claims, faults, then standings and cross-table computed from the results string."""
    total = tourney.schedule().total_games
    done = tourney.finished_count
    playing = tourney.results.count(PLAYING)
    lines = [
        f"{tourney.settings.name}: {done} played, {playing} in progress, {total - done - playing} left "
        f"(of {total})"
    ]
    now = time.time()
    for number, char in enumerate(tourney.results):
        if char != PLAYING:
            continue
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
            lines.append(
                f"    {live.white} – {live.black}: {live.last_moves(LIVE_MOVES)}"
                f" ({clocks}{now - live.updated:.0f} s ago)"
            )
    for engine, counts in sorted(tourney.faults.items()):
        lines.append(f"  faults of {engine}: {describe_faults(counts)[1]}")
    games = game_results(tourney)
    if games:
        lines.append("")
        lines.append(crosstable.render(crosstable.build(games, title=tourney.settings.name), fmt))
    return "\n".join(lines)


def game_results(tourney: Tourney) -> list[GameResult]:
    """The finished games of the results string, for the cross-table (names as they are now)."""
    names = [p.name for p in tourney.participants]
    return [
        GameResult(names[game.white], names[game.black], PGN_RESULT[char], str(game.pgn_round), game.number + 1)
        for game, char in tourney.finished_games()
    ]
