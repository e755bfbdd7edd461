"""Joint maximum-likelihood logistic Elo for every player, in the manner of Ordo and BayesElo.

The model: white's expected score against black is
``1 / (1 + 10^((R_black - R_white - A) / 400))``, ``A`` the white advantage
(0 unless fitted).

* **Fit.** The maximum of the likelihood: in closed form for two players
  (a match, the engine tester's daily case), by :mod:`tmanager.core.jointfit`'s
  Newton's method on numpy arrays for any other field or with the white
  advantage. A match's ratings therefore need no numpy, whose loading costs
  every `status` and every end of `run` about 0.1 s of CPU.
* **Perfect and zero scores** have no finite maximum. Such a player gets
  ``prior`` virtual draws, spread over the opponents in proportion to the
  games played, which gives a bounded value (a 10-0 match: both players get
  one, 11/12 for the winner, +417 Elo). If ratings still run away (a group beating another in every
  game), or the white advantage does (white winning every game the ratings cannot explain), every player
  gets the virtual draws.
* **Anchor.** A named player is set to ``anchor_elo``; without one, the
  average of each connected group of players is ``anchor_elo``.
* **Error margins** (95 %, ``1.96 σ``) come from the inverse of the Fisher
  information under the anchoring constraint, i.e. they include the
  uncertainty of every other rating, scaled by the observed dispersion of the
  scores (draws make a game less noisy than a coin toss). For two players
  this reproduces the match margin of :func:`tmanager.core.stats.elo` to first order.
"""

from __future__ import annotations

import math

from tmanager.core.ratingmodel import PER_ELO, RUNAWAY, Rating, RatingList
from tmanager.core.standings import Tally
from tmanager.core.stats import Z95
from tmanager.errors import ConfigError

__all__ = ["Rating", "RatingList", "fit"]


def fit(
    tally: Tally,
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    white_advantage: bool = False,
    prior: float = 1.0,
) -> RatingList:
    """Fit ratings to all games in ``tally``. Raises :class:`ConfigError` for an unknown anchor."""
    names = list(tally.players)
    if anchor is not None and anchor not in names:
        raise ConfigError(f"anchor {anchor!r} played no game", field="--anchor", hint="use a player name from the PGN")
    if len(names) == 2 and not white_advantage and prior > 0:
        return _match(tally, (names[0], names[1]), anchor=anchor, anchor_elo=anchor_elo, prior=prior)
    from tmanager.core import jointfit  # numpy: loaded only for a field of three or more, or the white advantage

    return jointfit.fit(tally, anchor=anchor, anchor_elo=anchor_elo, white_advantage=white_advantage, prior=prior)


def _match(tally: Tally, names: tuple[str, str], *, anchor: str | None, anchor_elo: float, prior: float) -> RatingList:
    """The fit of two players in closed form. At the likelihood's maximum the first's expected score is its
    score (with the virtual draws, where one is perfect or zero), so the difference of the two is its logit;
    the difference's variance is the dispersion over the information, ``N p (1 - p)``. The joint fit gives the
    same numbers (to its 1e-7 Elo)."""
    first, second = names
    wins = draws = losses = 0.0  # the first's
    for (white, _), (white_wins, pair_draws, black_wins) in tally.pairs.items():
        wins += white_wins if white == first else black_wins
        losses += black_wins if white == first else white_wins
        draws += pair_draws
    games, points = wins + draws + losses, wins + draws / 2
    # Each player's virtual draws where a score is perfect or zero, or where the ratings would still run away
    # from their average (everybody's virtual draws).
    extra = 0.0 if 0 < points < games and abs(_logit(points, games)) <= 2 * RUNAWAY else 2 * prior
    p = (points + extra / 2) / (games + extra)  # the first's expected score
    difference = math.log(p / (1 - p))  # the first's rating less the second's, natural-log units
    information = (games + extra) * p * (1 - p)
    residual = wins * (1 - p) ** 2 + (draws + extra) * (0.5 - p) ** 2 + losses * p**2
    sigma = math.sqrt(residual) / information  # the dispersion (residual / information) over the information
    if anchor is None:
        offsets = {first: difference / 2, second: -difference / 2}
        sigmas = dict.fromkeys(names, sigma / 2)
    else:
        other = second if anchor == first else first
        offsets = {anchor: 0.0, other: difference if other == first else -difference}
        sigmas = {anchor: 0.0, other: sigma}
    scores = {first: (games, points), second: (games, games - points)}
    ratings = {
        name: Rating(name, anchor_elo + offsets[name] / PER_ELO, Z95 * sigmas[name] / PER_ELO, round(played), score)
        for name, (played, score) in scores.items()
    }
    return RatingList(ratings, 0.0, 0.0, 1, anchor, anchor_elo)


def _logit(points: float, games: float) -> float:
    return math.log(points / (games - points))
