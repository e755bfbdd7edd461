"""Title norms by FIDE's Title Regulations (B.01, applied from 1 January 2024), section 1.4.

A norm is a title performance against a field of the right mix. For one
player and one title (GM, IM, WGM, WIM) :func:`check` takes the games played
over the board and returns every figure the norm report asks for, each
requirement with its article:

* **Games** (1.4.1): at least 9; in a 9-round event 8 games do when the
  missing round was a forfeit win or a pairing-allocated bye (1.4.1c).
  Forfeited games are not counted at all (1.4.2c): the caller leaves them out.
* **Federations** (1.4.3, 1.4.4): opponents from at least two federations
  other than the player's; at most 3/5 of them from the player's federation
  and at most 2/3 from any one federation (maxima rounded down). ``FID``
  (FIDE's flag) is no federation: such opponents count as games, never as
  foreign nor as a federation (1.4.2a). A Swiss event of enough foreign
  titled players lifts both rules (1.4.3d: ``foreign_exempt``).
* **Titled opponents** (1.4.5): at least half hold a title (CM and WCM do not
  count), and at least a third, and at least 3, hold the norm's title or a
  higher one (GM; IM or GM; WGM, IM or GM; WIM, WGM, IM or GM). Minima are
  rounded up.
* **Ratings** (1.4.6, 1.4.7): unrated opponents count as 1400; the lowest
  opponent below the title's adjusted rating floor (GM 2200, IM 2050, WGM
  2000, WIM 1850), and only that one, is raised to it; the average Ra is
  rounded to the nearest whole number, 0.5 up; it must reach GM 2380, IM 2230,
  WGM 2180, WIM 2030 (1.4.8a).
* **Performance** (1.4.8, 1.4.9): Rp = Ra + dp, dp from the table of 1.4.9
  (the rating regulations' 8.1.1, :func:`tmanager.core.fide.dp`) by the
  score in whole percent (0.5 up); at least GM 2600, IM 2450, WGM 2400,
  WIM 2250, with a score of at least 35 % (1.4.8b).
* **Counted as** (1.4.1d, 1.7): the norm counts for its games plus one per
  full point scored above the score the norm needed, at most 13.

What the regulations leave to the arbiter is not guessed here: the event's
conditions (1.1: time control, rounds a day, the chief arbiter's licence),
games against unrated players who scored nothing in a round robin (1.4.2b),
and the games a player may choose to ignore (1.4.1f) — :func:`check` takes the
games the arbiter counts. Everything is pure: games in, figures out.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tmanager.core import fide
from tmanager.core.federations import NO_FEDERATION


class NormTitle(enum.StrEnum):
    GM = "GM"
    IM = "IM"
    WGM = "WGM"
    WIM = "WIM"


@dataclass(frozen=True, slots=True)
class Standard:
    """What a norm of one title needs: performance (1.4.8), average (1.4.8a), rating floor (1.4.6b) and the
    titles that count towards its third of opponents (1.4.5b-e)."""

    performance: int
    average: int
    floor: int
    titles: frozenset[str]


STANDARDS = {
    NormTitle.GM: Standard(2600, 2380, 2200, frozenset({"GM"})),
    NormTitle.IM: Standard(2450, 2230, 2050, frozenset({"GM", "IM"})),
    NormTitle.WGM: Standard(2400, 2180, 2000, frozenset({"GM", "IM", "WGM"})),
    NormTitle.WIM: Standard(2250, 2030, 1850, frozenset({"GM", "IM", "WGM", "WIM"})),
}
#: Title-holders for the half of the opponents (1.4.5): every FIDE title but CM and WCM.
TITLE_HOLDERS = frozenset({"GM", "IM", "FM", "WGM", "WIM", "WFM"})
MIN_GAMES = 9  # 1.4.1
UNRATED = 1400  # 1.4.6d
MIN_SCORE = 0.35  # 1.4.8b
MAX_COUNTED_GAMES = 13  # 1.7


@dataclass(frozen=True, slots=True)
class Opponent:
    """One game played over the board: the opponent's rating (0: unrated), title and federation; ``points`` the
    player's score in it (1, 0.5 or 0)."""

    rating: int
    title: str
    federation: str
    points: float


@dataclass(frozen=True, slots=True)
class Requirement:
    """One condition of the norm: the article, what it asks, what the player has, and whether that does."""

    article: str
    what: str
    needed: str
    actual: str
    met: bool


@dataclass(frozen=True, slots=True)
class NormCheck:
    """The figures of one player's result for one title, and the verdict.

    ``average`` is Ra with the floor applied (``raised``: the rating raised to the floor, if any);
    ``required_score`` the least score giving the norm against these opponents (None: no score does).
    """

    title: NormTitle
    games: int
    points: float
    average: int
    raised: int | None
    performance: int
    required_score: float | None
    titled: int
    norm_titled: int
    foreign: int
    federations: int
    own_federation: int
    requirements: tuple[Requirement, ...]
    counts_as: int

    @property
    def achieved(self) -> bool:
        return all(r.met for r in self.requirements)

    @property
    def failed(self) -> list[Requirement]:
        return [r for r in self.requirements if not r.met]


def adjusted_ratings(opponents: Sequence[Opponent], floor: int) -> tuple[list[int], int | None]:
    """The ratings counted for the average (1.4.6): unrated as 1400, the lowest below ``floor`` raised to it;
    and the rating so raised (None if none was)."""
    ratings = [o.rating or UNRATED for o in opponents]
    lowest = min(range(len(ratings)), key=ratings.__getitem__, default=None)
    if lowest is None or ratings[lowest] >= floor:
        return ratings, None
    raised = ratings[lowest]
    ratings[lowest] = floor
    return ratings, raised


def average_rating(ratings: Sequence[int]) -> int:
    """Ra (1.4.7): the mean rounded to the nearest whole number, 0.5 upward."""
    return math.floor(sum(ratings) / len(ratings) + 0.5 + 1e-9) if ratings else 0


def performance(average: int, points: float, games: int) -> int:
    """Rp = Ra + dp(p) (1.4.8, 1.4.9), p the score in whole percent, 0.5 % up."""
    return average + fide.dp(points / games) if games else 0


def required_score(average: int, games: int, standard: Standard) -> float | None:
    """The least score (in half points) with a performance and a percentage enough for the norm."""
    for halves in range(2 * games + 1):
        points = halves / 2
        if points >= MIN_SCORE * games and performance(average, points, games) >= standard.performance:
            return points
    return None


def check(
    title: NormTitle,
    opponents: Sequence[Opponent],
    *,
    federation: str,
    rounds: int,
    unplayed_win: bool = False,
    foreign_exempt: bool = False,
) -> NormCheck:
    """The norm of ``title`` for a player of ``federation`` who played ``opponents`` in an event of ``rounds``
    rounds; ``unplayed_win``: a forfeit win or pairing-allocated bye among the rounds (1.4.1c)."""
    standard = STANDARDS[title]
    n = len(opponents)
    points = sum(o.points for o in opponents)
    ratings, raised = adjusted_ratings(opponents, standard.floor)
    average = average_rating(ratings)
    rp = performance(average, points, n)
    needed = required_score(average, n, standard)
    titled = sum(1 for o in opponents if o.title in TITLE_HOLDERS)
    norm_titled = sum(1 for o in opponents if o.title in standard.titles)
    counted = Counter(o.federation for o in opponents if o.federation and o.federation != NO_FEDERATION)
    foreign = {f for f in counted if f != federation}
    own = counted.get(federation, 0) if federation and federation != NO_FEDERATION else 0
    most = max((c for f, c in counted.items()), default=0)
    least_games = MIN_GAMES - 1 if rounds == MIN_GAMES and unplayed_win else MIN_GAMES
    half, third = math.ceil(n / 2), max(3, math.ceil(n / 3))
    norm_titles = "/".join(t for t in NormTitle if t in standard.titles)
    score = f"{points / n:.0%}" if n else "-"
    requirements = [
        Requirement("1.4.1", "games", f"≥ {least_games}", str(n), n >= least_games),
        *_federation_rules(n, len(foreign), own, most, exempt=foreign_exempt),
        Requirement("1.4.5", "title-holders", f"≥ {half}", str(titled), titled >= half),
        Requirement("1.4.5", f"{norm_titles} opponents", f"≥ {third}", str(norm_titled), norm_titled >= third),
        Requirement("1.4.8a", "average rating", f"≥ {standard.average}", str(average), average >= standard.average),
        Requirement("1.4.8b", "score", f"≥ {MIN_SCORE:.0%}", score, bool(n) and points >= MIN_SCORE * n),
        Requirement("1.4.8", "performance", f"≥ {standard.performance}", str(rp), rp >= standard.performance),
    ]
    extra = int(points - needed) if needed is not None and points >= needed else 0
    return NormCheck(
        title, n, points, average, raised, rp, needed, titled, norm_titled, len(foreign), len(counted), own,
        tuple(requirements), min(MAX_COUNTED_GAMES, max(n, MIN_GAMES) + extra),
    )  # fmt: skip


def _federation_rules(games: int, foreign: int, own: int, most: int, *, exempt: bool) -> list[Requirement]:
    """1.4.3 and 1.4.4, or one line saying 1.4.3d lifts them."""
    if exempt:
        return [Requirement("1.4.3d", "federations", "lifted (a Swiss of enough foreign titled players)", "-", True)]
    own_cap, one_cap = games * 3 // 5, games * 2 // 3
    return [
        Requirement("1.4.3", "other federations", "≥ 2", str(foreign), foreign >= 2),
        Requirement("1.4.4", "own federation", f"≤ {own_cap}", str(own), own <= own_cap),
        Requirement("1.4.4", "one federation", f"≤ {one_cap}", str(most), most <= one_cap),
    ]
