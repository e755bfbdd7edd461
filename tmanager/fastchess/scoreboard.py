"""fastchess's scoreboard: a match's results as games finish, counted by pairs as fastchess counts them.

With pentanomial reports, fastchess adds nothing for the first game of a pair
to finish: it keeps it, and when its partner finishes adds both games and the
pair's kind at once, recorded under the colours of the game that finished
second. So its ``Games`` count only complete pairs (``Games == 2 × pairs``,
which fishtest's worker asserts), and a report is printed only as a pair
completes. Without, every game counts as it finishes.

A head-to-head figure (:meth:`Scoreboard.head_to_head`) is from the first
engine's side; an engine's figure against the field (:meth:`against_all`) sums
its matches, as fastchess's table of three or more engines shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tmanager.core.results import Result
from tmanager.fastchess.elo import Stats


def game_stats(result: Result) -> Stats:
    """One game from white's side (fastchess's ``Stats(MatchData)``)."""
    if result is Result.WHITE_WINS:
        return Stats(wins=1)
    if result is Result.BLACK_WINS:
        return Stats(losses=1)
    return Stats(draws=1)


@dataclass(frozen=True, slots=True)
class Finished:
    """What the scoreboard makes of a finished game: whether it completed its pair."""

    completed_pair: bool


@dataclass(slots=True)
class Scoreboard:
    """Results by (white, black) names, as fastchess's ``ScoreBoard``."""

    pentanomial: bool
    results: dict[tuple[str, str], Stats] = field(default_factory=dict)
    #: The first game of each pair still waiting for its partner, by pair, from the other side.
    waiting: dict[int, Stats] = field(default_factory=dict)

    def add(self, white: str, black: str, result: Result, *, pair: int | None) -> Finished:
        """Count a finished game of pair ``pair`` (``None``: a game that has no partner)."""
        stats = game_stats(result)
        if not self.pentanomial or pair is None:
            self._count(white, black, stats)
            return Finished(completed_pair=False)
        first = self.waiting.pop(pair, None)
        if first is None:
            self.waiting[pair] = ~stats  # the partner game has the colours reversed
            return Finished(completed_pair=False)
        both = first + stats
        kinds = Stats(
            penta_ww=int(both.wins == 2),
            penta_wd=int(both.wins == 1 and both.draws == 1),
            penta_wl=int(both.wins == 1 and both.losses == 1),
            penta_dd=int(both.draws == 2),
            penta_ld=int(both.losses == 1 and both.draws == 1),
            penta_ll=int(both.losses == 2),
        )
        self._count(white, black, both + kinds)
        return Finished(completed_pair=True)

    def _count(self, white: str, black: str, stats: Stats) -> None:
        self.results[white, black] = self.results.get((white, black), Stats()) + stats

    def head_to_head(self, first: str, second: str) -> Stats:
        """``first``'s results against ``second``, both colours."""
        return self.results.get((first, second), Stats()) + ~self.results.get((second, first), Stats())

    def against_all(self, engine: str) -> Stats:
        """``engine``'s results against everyone."""
        total = Stats()
        for (white, black), stats in self.results.items():
            if white == engine:
                total += stats
            elif black == engine:
                total += ~stats
        return total
