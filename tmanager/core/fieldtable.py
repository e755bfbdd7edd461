"""Each engine against the field, as engine testers read a gauntlet or a round robin while it runs.

fastchess prints such a table every ``-ratinginterval`` games: per engine, its
Elo and nElo with 95 % margins against all its opponents together, its games,
score and draws, and its pentanomial. Here the same, with the likelihood of
superiority: in a gauntlet, an opponent's row is its match against the seed, so
its LOS says how likely it is to be the stronger. Figures are tmanager's own
(:mod:`tmanager.core.stats`): pentanomial where the engine has complete game
pairs, else per game. Pure: records in, lines out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tmanager.core import stats


@dataclass(frozen=True, slots=True)
class FieldRecord:
    """One engine's results against everyone it met: games from its side, and its complete pairs'
    pentanomial ``[LL, LD, WL+DD, WD, WW]`` (``None`` when the schedule makes no pairs)."""

    name: str
    wins: int
    draws: int
    losses: int
    penta: tuple[int, int, int, int, int] | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True, slots=True)
class FieldRow:
    """A line of the table: the record and its figures."""

    record: FieldRecord
    elo: stats.Estimate
    nelo: stats.Estimate
    los: float
    pairs: bool  #: whether the figures are the pentanomial's


def rows(records: Sequence[FieldRecord]) -> list[FieldRow]:
    """The records with their figures, best Elo first (those without games last)."""
    made = [_row(record) for record in records]
    return sorted(made, key=lambda row: (row.record.games == 0, -row.elo.value))


def _row(record: FieldRecord) -> FieldRow:
    if record.penta is not None and any(record.penta):
        return FieldRow(
            record, stats.elo_pentanomial(record.penta), stats.nelo_pentanomial(record.penta),
            stats.los_pentanomial(record.penta), pairs=True,
        )
    w, d, losses = record.wins, record.draws, record.losses
    return FieldRow(record, stats.elo(w, losses, d), stats.nelo(w, losses, d), stats.los(w, losses), pairs=False)


def render(records: Sequence[FieldRecord]) -> list[str]:
    """The table as text, one line per engine under a header."""
    table = rows(records)
    width = max(4, *(len(r.name) for r in records))
    head = (f"{'Rank':>4}  {'Name':<{width}}  {'Elo':>7} {'±':>6}  {'nElo':>7} {'±':>6}  {'LOS':>6}  "
            f"{'Games':>6}  {'Score':>6}  {'Draw':>6}  Ptnml(0-2)")
    lines = [head]
    for rank, row in enumerate(table, 1):
        record = row.record
        if not record.games:  # a newcomer (a substitute, a late entry): no figure means anything yet
            lines.append(
                f"{rank:>4}  {record.name:<{width}}  {'-':>7} {'-':>6}  {'-':>7} {'-':>6}  {'-':>6}  "
                f"{0:>6}  {'-':>6}  {'-':>6}  -"
            )
            continue
        score = (record.wins + record.draws / 2) / record.games
        draws = record.draws / record.games
        penta = f"[{', '.join(map(str, record.penta))}]" if record.penta is not None and row.pairs else "-"
        lines.append(
            f"{rank:>4}  {record.name:<{width}}  {_signed(row.elo.value)} {_margin(row.elo.margin)}  "
            f"{_signed(row.nelo.value)} {_margin(row.nelo.margin)}  {100 * row.los:5.1f}%  "
            f"{record.games:>6}  {100 * score:5.1f}%  {100 * draws:5.1f}%  {penta}"
        )
    return lines


def _signed(value: float) -> str:
    text = stats.signed(value, 1)
    return f"{'+inf' if text == 'inf' else text:>7}"


def _margin(value: float) -> str:
    return f"{value:>6.1f}" if value != float("inf") else f"{'inf':>6}"
