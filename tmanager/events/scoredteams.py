"""Team standings of score-based divisions, as tsh's TeamStandings and TotalTeamStandings give them.

Players of a score-based division name their team in ``team`` (a ``.t``
file's ``team`` extension). A team's record adds up its members' records
(:func:`~tmanager.events.ranking.wins_standings`): wins (a tie counting half),
losses and spread, in one division or, for the total team standings, in every
score-based division of the event. Teams are ranked by their average record —
wins per round played, then spread per round — so that teams of different sizes
compare fairly (tsh's ``totalteam`` prize ranks by the average record too).
Players without a team are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tmanager.events.model import Division
from tmanager.events.ranking import wins_standings


@dataclass(frozen=True, slots=True)
class TeamRecord:
    """A team's line: rank (shared by exact ties), name, members, wins, losses, spread and the divisions it plays in."""

    rank: int
    team: str
    players: int
    wins: float
    losses: float
    spread: int
    divisions: tuple[str, ...]

    @property
    def rounds(self) -> float:
        return self.wins + self.losses

    @property
    def percentage(self) -> float:
        """Wins per round played, in percent (0 before any)."""
        return 100 * self.wins / self.rounds if self.rounds else 0.0

    @property
    def average_spread(self) -> float:
        return self.spread / self.rounds if self.rounds else 0.0


def team_standings(divisions: Sequence[Division], upto: int | None = None) -> list[TeamRecord]:
    """The teams of ``divisions`` (score-based) by average record; ``upto`` a round of each (default: the last
    paired of each)."""
    totals: dict[str, list[float]] = {}
    names: dict[str, str] = {}
    members: dict[str, set[tuple[str, int]]] = {}
    where: dict[str, list[str]] = {}
    for d in divisions:
        last = d.paired_rounds if upto is None else min(upto, d.paired_rounds)
        for line in wins_standings(d, last):
            team = line.player.team.strip()
            if not team:
                continue
            key = team.casefold()
            names.setdefault(key, team)
            record = totals.setdefault(key, [0.0, 0.0, 0.0])
            record[0] += line.entrant.wins
            record[1] += line.losses
            record[2] += line.entrant.spread
            members.setdefault(key, set()).add((d.name, line.player.number))
            if d.name not in where.setdefault(key, []):
                where[key].append(d.name)

    def average(key: str) -> tuple[float, float]:
        wins, losses, spread = totals[key]
        played = wins + losses
        return (wins / played, spread / played) if played else (0.0, 0.0)

    lines: list[TeamRecord] = []
    for place, key in enumerate(sorted(totals, key=lambda k: ([-v for v in average(k)], names[k].casefold())), 1):
        wins, losses, spread = totals[key]
        rank = lines[-1].rank if lines and average(key) == average(lines[-1].team.casefold()) else place
        lines.append(TeamRecord(rank, names[key], len(members[key]), wins, losses, int(spread), tuple(where[key])))
    return lines
