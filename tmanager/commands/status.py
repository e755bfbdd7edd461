"""Show a tourney's progress, claims, engine faults and standings; safe while workers run.

It only reads the file (writes are atomic renames), so it never disturbs a
running tourney. Stale claims, whose worker is gone, are listed; they are
released by the next worker or by `tmanager reset-stale`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tmanager import storage
from tmanager.tourney import FINISHED_CHARS, PLAYING, Tourney
from tmanager.worker import claim_is_alive

EXAMPLES = """\
  tmanager status gauntlet.toml
  watch -n 5 tmanager status gauntlet.toml
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file")


def command(args: argparse.Namespace) -> int:
    print(report(storage.read(args.file)))
    return 0


def report(tourney: Tourney) -> str:
    """Progress, claims, faults and standings as text."""
    total = tourney.schedule().total_games
    done = sum(c in FINISHED_CHARS for c in tourney.results)
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
    for engine, counts in sorted(tourney.faults.items()):
        lines.append(f"  faults of {engine}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    lines.append("")
    lines.append(standings_table(tourney))
    return "\n".join(lines)


def standings_table(tourney: Tourney) -> str:
    """Rank, name, games, points and W/D/L from the results string."""
    n = len(tourney.participants)
    wins, draws, losses = [0] * n, [0] * n, [0] * n
    for game, char in tourney.finished_games():
        if char == "=":
            draws[game.white] += 1
            draws[game.black] += 1
        else:
            winner, loser = (game.white, game.black) if char == "+" else (game.black, game.white)
            wins[winner] += 1
            losses[loser] += 1
    points = tourney.tally()
    order = sorted(range(n), key=lambda i: (-points[i], tourney.participants[i].name))
    width = max(len(p.name) for p in tourney.participants)
    rows = [f"{'#':>3} {'name':<{width}} {'games':>5} {'points':>6} {'%':>5}  W-D-L"]
    for rank, i in enumerate(order, 1):
        games = wins[i] + draws[i] + losses[i]
        pct = f"{100 * points[i] / games:.1f}" if games else "-"
        rows.append(
            f"{rank:>3} {tourney.participants[i].name:<{width}} {games:>5} {points[i]:>6g} {pct:>5}  "
            f"{wins[i]}-{draws[i]}-{losses[i]}"
        )
    return "\n".join(rows)
