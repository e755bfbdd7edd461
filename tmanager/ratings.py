"""Joint maximum-likelihood logistic Elo for every player, in the manner of Ordo and BayesElo.

The model: white's expected score against black is
``1 / (1 + 10^((R_black - R_white - A) / 400))``, ``A`` the white advantage
(0 unless fitted). Games are first reduced to counts per ordered pair, so the
cost of a fit grows with the number of pairs, not of games.

* **Fit.** Per-player Newton steps, Gauss-Seidel fashion, until no rating
  moves by more than 1e-7 Elo; the log-likelihood is concave, so this reaches
  the unique maximum of every connected group of players.
* **Perfect and zero scores** have no finite maximum. Such a player gets
  ``prior`` virtual draws, spread over the opponents in proportion to the
  games played, which gives a bounded value (a 10-0 match: both players get
  one, 11/12 for the winner, +417 Elo). If ratings still run away (a group beating another in every
  game), every player gets the virtual draws.
* **Anchor.** A named player is set to ``anchor_elo``; without one, the
  average of each connected group of players is ``anchor_elo``.
* **Error margins** (95 %, ``1.96 σ``) come from the inverse of the Fisher
  information under the anchoring constraint, i.e. they include the
  uncertainty of every other rating, scaled by the observed dispersion of the
  scores (draws make a game less noisy than a coin toss). For two players
  this reproduces the match margin of :func:`tmanager.stats.elo` to first order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tmanager.errors import ConfigError
from tmanager.standings import Tally
from tmanager.stats import Z95

#: Natural-log units per Elo point.
_K = math.log(10) / 400
_MAX_SWEEPS = 5000
_TOLERANCE = 1e-7 * _K
#: A rating this far from its group's average is taken as running away.
_RUNAWAY = 3000 * _K


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating and the half-width of its 95 % interval."""

    name: str
    elo: float
    error: float
    games: int
    points: float  #: score with draws as ½


@dataclass(frozen=True, slots=True)
class RatingList:
    """The result of a fit."""

    ratings: dict[str, Rating]
    white_advantage: float  #: Elo, 0 when not fitted
    white_advantage_error: float
    groups: int  #: connected groups of players; ratings are comparable only within one
    anchor: str | None
    anchor_elo: float

    def elo(self) -> dict[str, float]:
        return {name: r.elo for name, r in self.ratings.items()}


@dataclass(slots=True)
class _Edge:
    """Games of one player against one opponent with one colour, from the player's side."""

    opponent: int
    games: float
    score: float
    draws: float
    colour: int  #: +1 the player had white, -1 black

    def squared_deviation(self, p: float) -> float:
        """Σ (s - p)² over these games: the observed noise around the expectation ``p``."""
        wins = self.score - self.draws / 2
        losses = self.games - wins - self.draws
        return wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + losses * p * p


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
    index = {name: i for i, name in enumerate(names)}
    if anchor is not None and anchor not in index:
        raise ConfigError(f"anchor {anchor!r} played no game", field="--anchor", hint="use a player name from the PGN")
    pairs = {(index[w], index[b]): (float(ww), float(d), float(bw)) for (w, b), (ww, d, bw) in tally.pairs.items()}
    edges = _edges(pairs, len(names))
    games = [sum(e.games for e in row) for row in edges]
    points = [sum(e.score for e in row) for row in edges]
    groups = _groups(edges)
    extreme = {i for i in range(len(names)) if not 0 < points[i] < games[i]}
    boosted = _edges(_with_prior(pairs, extreme, prior, games), len(names))
    beta, eta, ok = _maximize(boosted, groups, white_advantage)
    if not ok:
        boosted = _edges(_with_prior(pairs, set(range(len(names))), prior, games), len(names))
        beta, eta, _ = _maximize(boosted, groups, white_advantage)
    cov, eta_var = _covariance(boosted, beta, eta, groups, white_advantage, index.get(anchor or ""))
    shift = _anchoring(beta, groups, index.get(anchor or ""), anchor_elo * _K)
    ratings = {
        name: Rating(
            name,
            (beta[i] + shift[i]) / _K,
            Z95 * math.sqrt(max(cov[i], 0.0)) / _K,
            round(games[i]),
            points[i],
        )
        for i, name in enumerate(names)
    }
    return RatingList(
        ratings,
        eta / _K if white_advantage else 0.0,
        Z95 * math.sqrt(max(eta_var, 0.0)) / _K if white_advantage else 0.0,
        len(groups),
        anchor,
        anchor_elo,
    )


Pairs = dict[tuple[int, int], tuple[float, float, float]]


def _edges(pairs: Pairs, players: int) -> list[list[_Edge]]:
    """Each player's games per opponent and colour, from (white, black) -> (white wins, draws, black wins)."""
    edges: list[list[_Edge]] = [[] for _ in range(players)]
    for (w, b), (ww, draws, bw) in pairs.items():
        n = ww + draws + bw
        edges[w].append(_Edge(b, n, ww + draws / 2, draws, +1))
        edges[b].append(_Edge(w, n, bw + draws / 2, draws, -1))
    return edges


def _with_prior(pairs: Pairs, players: set[int], prior: float, games: list[float]) -> Pairs:
    """Add ``prior`` virtual draws to each of ``players``, spread over their pairings by games played."""
    if prior <= 0 or not players:
        return pairs
    boosted = {}
    for (w, b), (ww, draws, bw) in pairs.items():
        n = ww + draws + bw
        extra = sum(prior * n / games[i] for i in (w, b) if i in players and games[i])
        boosted[(w, b)] = (ww, draws + extra, bw)
    return boosted


def _groups(edges: list[list[_Edge]]) -> list[list[int]]:
    """Connected groups of players (who played whom), in order of first player."""
    seen = [False] * len(edges)
    groups = []
    for start in range(len(edges)):
        if seen[start]:
            continue
        seen[start] = True
        group, stack = [], [start]
        while stack:
            i = stack.pop()
            group.append(i)
            for e in edges[i]:
                if not seen[e.opponent]:
                    seen[e.opponent] = True
                    stack.append(e.opponent)
        groups.append(sorted(group))
    return groups


def _expected(diff: float) -> float:
    if diff >= 0:
        return 1.0 / (1.0 + math.exp(-diff))
    z = math.exp(diff)
    return z / (1.0 + z)


def _maximize(edges: list[list[_Edge]], groups: list[list[int]], fit_eta: bool) -> tuple[list[float], float, bool]:
    """Maximum-likelihood strengths (natural-log scale) and white advantage; False if they run away."""
    beta = [0.0] * len(edges)
    eta = 0.0
    for _ in range(_MAX_SWEEPS):
        largest = 0.0
        for i, row in enumerate(edges):
            gradient = curvature = 0.0
            for e in row:
                p = _expected(beta[i] - beta[e.opponent] + e.colour * eta)
                gradient += e.score - e.games * p
                curvature += e.games * p * (1 - p)
            if curvature > 0:
                step = gradient / curvature
                beta[i] += step
                largest = max(largest, abs(step))
        if fit_eta:
            gradient = curvature = 0.0
            for i, row in enumerate(edges):
                for e in row:
                    if e.colour > 0:
                        p = _expected(beta[i] - beta[e.opponent] + eta)
                        gradient += e.score - e.games * p
                        curvature += e.games * p * (1 - p)
            if curvature > 0:
                step = gradient / curvature
                eta += step
                largest = max(largest, abs(step))
        for group in groups:
            mean = sum(beta[i] for i in group) / len(group)
            if any(abs(beta[i] - mean) > _RUNAWAY for i in group):
                return beta, eta, False
        if largest < _TOLERANCE:
            return beta, eta, True
    return beta, eta, True


def _anchoring(beta: list[float], groups: list[list[int]], anchor: int | None, level: float) -> list[float]:
    """Per-player shift: the anchor to ``level``, or each group's average to ``level``."""
    shift = [0.0] * len(beta)
    for group in groups:
        if anchor is not None and anchor in group:
            offset = level - beta[anchor]
        else:
            offset = level - sum(beta[i] for i in group) / len(group)
        for i in group:
            shift[i] = offset
    return shift


def _covariance(
    edges: list[list[_Edge]],
    beta: list[float],
    eta: float,
    groups: list[list[int]],
    fit_eta: bool,
    anchor: int | None,
) -> tuple[list[float], float]:
    """Variances of the anchored ratings and of the white advantage (natural-log scale)."""
    n = len(beta)
    # One reference player per group is held fixed: the anchor where it plays, else the first.
    references = {anchor if anchor is not None and anchor in g else g[0] for g in groups}
    free = [i for i in range(n) if i not in references]
    slot = {player: k for k, player in enumerate(free)}
    size = len(free) + (1 if fit_eta else 0)
    info = [[0.0] * size for _ in range(size)]
    residual = expected_var = 0.0
    for i, row in enumerate(edges):
        for e in row:
            p = _expected(beta[i] - beta[e.opponent] + e.colour * eta)
            w = e.games * p * (1 - p)
            if e.colour > 0:  # each game once, from white's side
                expected_var += w
                # Pearson dispersion: observed squared deviation of the score per game.
                residual += e.squared_deviation(p)
            a, b = slot.get(i), slot.get(e.opponent)
            if a is not None:
                info[a][a] += w
                if b is not None:
                    info[a][b] -= w
                if fit_eta:
                    info[a][-1] += e.colour * w
            if fit_eta and e.colour > 0:
                info[-1][-1] += w
    dispersion = residual / expected_var if expected_var > 0 else 1.0
    inverse = _invert(info)
    full = [[0.0] * n for _ in range(n)]
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            full[i][j] = inverse[a][b] * dispersion
    variances = [0.0] * n
    for group in groups:
        if anchor is not None and anchor in group:
            for i in group:
                variances[i] = full[i][i]
            continue
        # Ratings relative to the group's average: Var(x_i - mean x).
        m = len(group)
        row_sum = {i: sum(full[i][j] for j in group) for i in group}
        total = sum(row_sum.values())
        for i in group:
            variances[i] = full[i][i] - 2 * row_sum[i] / m + total / (m * m)
    eta_var = inverse[-1][-1] * dispersion if fit_eta and size else 0.0
    return variances, eta_var


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Inverse of a symmetric positive-definite matrix by Gauss-Jordan elimination."""
    size = len(matrix)
    rows = [row[:] + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        if head[col] == 0:
            continue  # a singular direction (no games): leave its variance at zero
        scale = 1.0 / head[col]
        head[:] = [x * scale for x in head]
        for r in range(size):
            if r != col:
                factor = rows[r][col]
                if factor:
                    rows[r][:] = [x - factor * y for x, y in zip(rows[r], head, strict=True)]
    return [row[size:] for row in rows]
