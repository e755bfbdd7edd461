"""The joint fit of :mod:`tmanager.core.ratings` for any field, on numpy arrays.

Games are first reduced to counts per ordered pair, so the cost of a fit grows
with the number of pairs, not of games. Newton's method climbs the whole
(concave) log-likelihood at once, with one reference player per connected
group held fixed and the white advantage as one more unknown; a step that would
lower the likelihood is halved. It stops when no rating moves by more than
1e-7 Elo: the unique maximum of every connected group of players.

The information matrix is dense (players² numbers): 1000 players take well
under a second, 3000 players a few seconds and 0.2 GB. Above
:data:`DENSE_LIMIT` unknowns, Newton's steps come from conjugate gradients and
each margin from the player's own games.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass

from tmanager.core.ratingmodel import PER_ELO, RUNAWAY, Rating, RatingList
from tmanager.core.standings import Tally
from tmanager.core.stats import Z95

# numpy's OpenBLAS starts a thread per core as it loads, and each spins for about 2^28 cycles before it sleeps: on
# 2 cores, 40 ms of the CPU of every command that rates (`status`, the end of `run`), more with more cores. Told to
# sleep at once, they still share the work of a large fit. The library reads the setting as it loads; the programs
# tmanager starts later get the environment as it was.
_THREAD_TIMEOUT = "OPENBLAS_THREAD_TIMEOUT"
_given_timeout = os.environ.get(_THREAD_TIMEOUT)
os.environ.setdefault(_THREAD_TIMEOUT, "4")  # OpenBLAS's least: 2^4 cycles
try:
    import numpy as np
    from numpy.typing import NDArray
finally:
    if _given_timeout is None:
        del os.environ[_THREAD_TIMEOUT]

_MAX_ITERATIONS = 200
_TOLERANCE = 1e-7 * PER_ELO
#: Below this Newton step the information matrix is inverted once and reused
#: for the remaining steps and the error margins, ...
_NEAR = 1e-3
#: ... unless the ratings then still move by more than this.
_REUSE = 1e-5

#: Up to this many unknowns the information matrix is formed and inverted (exact margins, players² memory).
#: Above, Newton steps come from conjugate gradients, and margins from each rating's own information.
DENSE_LIMIT = 4000
#: The large-field fit stops when no rating moves by more than this (1e-4 Elo; far below what is shown).
_SPARSE_TOLERANCE = 1e-4 * PER_ELO

Floats = NDArray[np.float64]
Indices = NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class _Games:
    """The games per ordered pair (white, black), as parallel arrays."""

    white: Indices
    black: Indices
    wins: Floats  #: white's
    draws: Floats
    losses: Floats  #: white's

    @property
    def games(self) -> Floats:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> Floats:
        """White's points."""
        return self.wins + self.draws / 2

    def with_draws(self, extra: Floats) -> _Games:
        return _Games(self.white, self.black, self.wins, self.draws + extra, self.losses)


@dataclass(frozen=True, slots=True)
class _Unknowns:
    """Which ratings are fitted: all but one reference player per group, then the white advantage."""

    players: int
    free: Indices  #: the fitted players
    slot: Indices  #: each player's position among the unknowns, -1 for a reference player
    eta: bool

    @property
    def size(self) -> int:
        return len(self.free) + self.eta

    def beta(self, x: Floats) -> Floats:
        beta = np.zeros(self.players)
        beta[self.free] = x[: len(self.free)]
        return beta


def fit(tally: Tally, *, anchor: str | None, anchor_elo: float, white_advantage: bool, prior: float) -> RatingList:
    """:func:`tmanager.core.ratings.fit` for any field (``anchor`` is one of its players, or ``None``)."""
    names = list(tally.players)
    index = {name: i for i, name in enumerate(names)}
    anchor_index = index.get(anchor or "")
    played = _arrays(tally, index)
    n = len(names)
    games = _per_player(played, played.games, n)
    points = _sums(played.white, played.score, n) + _sums(played.black, played.games - played.score, n)
    group = _groups(played.white, played.black, n)
    first = np.flatnonzero(group == np.arange(n))
    references = first.copy()
    if anchor_index is not None:
        references[np.searchsorted(first, group[anchor_index])] = anchor_index
    is_reference = np.zeros(n, dtype=bool)
    is_reference[references] = True
    # Not np.setdiff1d: it loads numpy.ma (10 ms of every `status`).
    free = np.flatnonzero(~is_reference).astype(np.intp)
    slot = np.full(n, -1, dtype=np.intp)
    slot[free] = np.arange(len(free))
    unknowns = _Unknowns(n, free, slot, white_advantage)
    extreme = (points <= 0) | (points >= games)
    boosted = _with_prior(played, extreme, prior, games)
    dense = unknowns.size <= DENSE_LIMIT
    maximize = _maximize if dense else _maximize_large
    x, inverse, ok = maximize(boosted, unknowns, group)
    if not ok:
        boosted = _with_prior(played, np.ones(n, dtype=bool), prior, games)
        x, inverse, _ = maximize(boosted, unknowns, group)
    beta, eta = unknowns.beta(x), _eta(unknowns, x)
    dispersion = _dispersion(boosted, beta, eta)
    if dense:
        covariance = (_inverse_at(boosted, unknowns, x) if inverse is None else inverse) * dispersion
        variance = _variances(covariance, unknowns, group, anchor_index)
        eta_variance = float(covariance[-1, -1]) if white_advantage else 0.0
    else:
        own = _own_information(boosted, unknowns, x)
        variance = _own_variances(own[:n], group, anchor_index) * dispersion
        eta_variance = dispersion / own[n] if own[n] > 0 else 0.0
    elo = (beta + _anchoring(beta, group, anchor_index, anchor_elo * PER_ELO)) / PER_ELO
    error = Z95 * np.sqrt(np.maximum(variance, 0.0)) / PER_ELO
    ratings = {
        name: Rating(name, float(elo[i]), float(error[i]), round(float(games[i])), float(points[i]))
        for i, name in enumerate(names)
    }
    eta_error = Z95 * math.sqrt(max(eta_variance, 0.0)) / PER_ELO if white_advantage else 0.0
    return RatingList(ratings, eta / PER_ELO, eta_error, len(first), anchor, anchor_elo, exact_errors=dense)


def _arrays(tally: Tally, index: dict[str, int]) -> _Games:
    count = len(tally.pairs)
    white = np.fromiter((index[w] for w, _ in tally.pairs), dtype=np.intp, count=count)
    black = np.fromiter((index[b] for _, b in tally.pairs), dtype=np.intp, count=count)
    counts = np.array(list(tally.pairs.values()), dtype=np.float64).reshape(count, 3)
    return _Games(white, black, counts[:, 0], counts[:, 1], counts[:, 2])


def _with_prior(played: _Games, players: NDArray[np.bool_], prior: float, games: Floats) -> _Games:
    """Add ``prior`` virtual draws to each of ``players``, spread over their pairings by games played."""
    if prior <= 0 or not players.any():
        return played
    share = np.where(players & (games > 0), prior / np.maximum(games, 1e-300), 0.0)
    return played.with_draws(played.games * (share[played.white] + share[played.black]))


def _groups(white: Indices, black: Indices, players: int) -> Indices:
    """Each player's connected group (who played whom), named by its first player."""
    label = np.arange(players, dtype=np.intp)
    while True:
        lw, lb = label[white], label[black]
        apart = lw != lb
        if not apart.any():
            return label
        # Hook each group's root onto the smallest root it met, then let
        # everybody point at the root directly: O(log n) rounds.
        np.minimum.at(label, np.maximum(lw, lb)[apart], np.minimum(lw, lb)[apart])
        while True:
            root = label[label]
            if np.array_equal(root, label):
                break
            label = root


def _expected(played: _Games, beta: Floats, eta: float) -> tuple[Floats, Floats]:
    """White's expected score per game and its variance p(1 - p), per pair."""
    z = beta[played.white] - beta[played.black] + eta
    q = np.exp(-np.abs(z))
    p = np.where(z >= 0, 1.0, q) / (1.0 + q)
    return p, q / (1.0 + q) ** 2


def _log_likelihood(played: _Games, beta: Floats, eta: float) -> float:
    z = beta[played.white] - beta[played.black] + eta
    score = played.score
    return -float(score @ np.logaddexp(0.0, -z) + (played.games - score) @ np.logaddexp(0.0, z))


def _gradient(played: _Games, unknowns: _Unknowns, p: Floats) -> Floats:
    residual = played.score - played.games * p
    n = unknowns.players
    per_player = _sums(played.white, residual, n) - _sums(played.black, residual, n)
    gradient = per_player[unknowns.free]
    return np.append(gradient, residual.sum()) if unknowns.eta else gradient


def _information(played: _Games, unknowns: _Unknowns, variance: Floats) -> Floats:
    """The Fisher information matrix of the unknowns (the negative Hessian of the log-likelihood)."""
    size = unknowns.size
    weight = played.games * variance
    a, b = unknowns.slot[played.white], unknowns.slot[played.black]
    rows = [a, b, a, b]
    cols = [a, b, b, a]
    values = [weight, weight, -weight, -weight]
    if unknowns.eta:
        e = np.full_like(a, size - 1)
        rows += [a, e, b, e, e]
        cols += [e, a, e, b, e]
        values += [weight, weight, -weight, -weight, weight]
    row, col, value = np.concatenate(rows), np.concatenate(cols), np.concatenate(values)
    keep = (row >= 0) & (col >= 0)
    flat = _sums(row[keep] * size + col[keep], value[keep], size * size)
    return flat.reshape(size, size)


def _per_player(played: _Games, weights: Floats, players: int) -> Floats:
    """Σ ``weights`` (one per pair) over each player's pairs, with either colour."""
    return _sums(played.white, weights, players) + _sums(played.black, weights, players)


def _group_means(values: Floats, group: Indices) -> Floats:
    """The average of ``values`` over each group's players, indexed by group."""
    return np.bincount(group, values) / np.maximum(np.bincount(group), 1)


def _sums(index: Indices, weights: Floats, size: int) -> Floats:
    """Σ weights per value of ``index``, for values 0 to ``size`` - 1."""
    return np.bincount(index, weights, size).astype(np.float64, copy=False)


def _solve(matrix: Floats, vector: Floats) -> Floats:
    try:
        return np.asarray(np.linalg.solve(matrix, vector), dtype=np.float64)
    except np.linalg.LinAlgError:  # a direction without information, e.g. colours never swapped
        return np.asarray(np.linalg.lstsq(matrix, vector)[0], dtype=np.float64)


def _invert(matrix: Floats) -> Floats:
    try:
        return np.asarray(np.linalg.inv(matrix), dtype=np.float64)
    except np.linalg.LinAlgError:
        return np.asarray(np.linalg.pinv(matrix, hermitian=True), dtype=np.float64)


def _maximize(played: _Games, unknowns: _Unknowns, group: Indices) -> tuple[Floats, Floats | None, bool]:
    """Maximum-likelihood unknowns (natural-log scale), the inverse information there, and False if they run away."""
    x = np.zeros(unknowns.size)
    inverse: Floats | None = None
    at = x
    step = math.inf
    for _ in range(_MAX_ITERATIONS):
        p, variance = _expected(played, unknowns.beta(x), _eta(unknowns, x))
        gradient = _gradient(played, unknowns, p)
        if inverse is not None:
            # The inverse from a nearby point still gives (nearly) Newton steps, for a matrix product.
            delta = inverse @ gradient
            if np.abs(delta).max(initial=0.0) > step / 10:
                inverse = None
        if inverse is None:
            information = _information(played, unknowns, variance)
            if step < _NEAR:
                inverse, at = _invert(information), x
                delta = inverse @ gradient
            else:
                newton = _solve(information, gradient)
                delta = newton * _step_length(played, unknowns, x, newton)
        x = x + delta
        step = float(np.abs(delta).max(initial=0.0))
        if _runaway(unknowns, x, group):
            return x, None, False
        if step < _TOLERANCE:
            break
    if inverse is not None and np.abs(x - at).max(initial=0.0) > _REUSE:
        inverse = None
    return x, inverse, True


def _eta(unknowns: _Unknowns, x: Floats) -> float:
    return float(x[-1]) if unknowns.eta else 0.0


def _step_length(played: _Games, unknowns: _Unknowns, x: Floats, newton: Floats) -> float:
    """1, or halved until the likelihood does not drop (the full step is right near the maximum)."""
    before = _log_likelihood(played, unknowns.beta(x), _eta(unknowns, x))
    # Rounding: the sum of many terms is exact to about this much.
    slack = 1e-12 * (abs(before) + 1)
    length = 1.0
    while length > 1e-9:
        y = x + length * newton
        if _log_likelihood(played, unknowns.beta(y), _eta(unknowns, y)) >= before - slack:
            break
        length /= 2
    return length


def _runaway(unknowns: _Unknowns, x: Floats, group: Indices) -> bool:
    """Whether the maximum lies at infinity: a rating runs away from its group's average (a group beat another in
    every game), or the white advantage from 0 (white won every game the ratings cannot explain: without the check
    it ran to thousands of Elo, ± 0, and dragged equal scores thousands apart)."""
    beta = unknowns.beta(x)
    return bool((np.abs(beta - _group_means(beta, group)[group]) > RUNAWAY).any()) or abs(_eta(unknowns, x)) > RUNAWAY


def _inverse_at(played: _Games, unknowns: _Unknowns, x: Floats) -> Floats:
    _, variance = _expected(played, unknowns.beta(x), _eta(unknowns, x))
    return _invert(_information(played, unknowns, variance))


def _maximize_large(played: _Games, unknowns: _Unknowns, group: Indices) -> tuple[Floats, None, bool]:
    """:func:`_maximize` without forming the information matrix: each Newton step by conjugate gradients."""
    x = np.zeros(unknowns.size)
    for _ in range(_MAX_ITERATIONS):
        p, variance = _expected(played, unknowns.beta(x), _eta(unknowns, x))
        gradient = _gradient(played, unknowns, p)
        weight = played.games * variance
        # Solve more exactly as the maximum nears (an inexact Newton method).
        accuracy = min(0.1, math.sqrt(float(np.abs(gradient).max(initial=0.0))))
        newton = _conjugate_gradients(
            functools.partial(_information_times, played, unknowns, weight),
            gradient,
            _information_diagonal(played, unknowns, weight),
            accuracy,
        )
        delta = newton * _step_length(played, unknowns, x, newton)
        x = x + delta
        if _runaway(unknowns, x, group):
            return x, None, False
        if float(np.abs(delta).max(initial=0.0)) < _SPARSE_TOLERANCE:
            break
    return x, None, True


def _information_times(played: _Games, unknowns: _Unknowns, weight: Floats, v: Floats) -> Floats:
    """The information matrix times ``v``, from the games (each pair adds w·a·aᵀ, a = e_white - e_black + e_eta)."""
    beta = unknowns.beta(v)
    flow = weight * (beta[played.white] - beta[played.black] + _eta(unknowns, v))
    n = unknowns.players
    product = (_sums(played.white, flow, n) - _sums(played.black, flow, n))[unknowns.free]
    return np.append(product, flow.sum()) if unknowns.eta else product


def _information_diagonal(played: _Games, unknowns: _Unknowns, weight: Floats) -> Floats:
    diagonal = _per_player(played, weight, unknowns.players)[unknowns.free]
    return np.append(diagonal, weight.sum()) if unknowns.eta else diagonal


def _conjugate_gradients(product: Callable[[Floats], Floats], rhs: Floats, diagonal: Floats, accuracy: float) -> Floats:
    """Solve ``product(x) = rhs`` (symmetric positive definite) to a relative residual of ``accuracy``."""
    scale = 1.0 / np.maximum(diagonal, 1e-300)  # Jacobi preconditioner
    x = np.zeros_like(rhs)
    residual = rhs.copy()
    goal = accuracy * math.sqrt(_dot(rhs, rhs))
    z = residual * scale
    direction = z.copy()
    rz = _dot(residual, z)
    for _ in range(10 * len(rhs) + 10):
        if math.sqrt(_dot(residual, residual)) <= goal or rz <= 0:
            break
        q = product(direction)
        curvature = _dot(direction, q)
        if curvature <= 0:
            break
        alpha = rz / curvature
        x += alpha * direction
        residual -= alpha * q
        z = residual * scale
        rz, previous = _dot(residual, z), rz
        direction = z + (rz / previous) * direction
    return x


def _dot(a: Floats, b: Floats) -> float:
    # Not BLAS: its threads cost more than they save on vectors of this size, called thousands of times.
    return float(np.einsum("i,i->", a, b))


def _own_information(played: _Games, unknowns: _Unknowns, x: Floats) -> Floats:
    """Each player's information from their own games, and (last) the white advantage's."""
    _, variance = _expected(played, unknowns.beta(x), _eta(unknowns, x))
    weight = played.games * variance
    return np.append(_per_player(played, weight, unknowns.players), weight.sum())


def _own_variances(own: Floats, group: Indices, anchor: int | None) -> Floats:
    """Variances as :func:`_variances` gives them, treating the ratings as independent (1 / own information)."""
    single = np.where(own > 0, 1.0 / np.maximum(own, 1e-300), 0.0)
    size = np.bincount(group, minlength=len(own)).astype(np.float64)
    m = size[group]
    relative = single * (1 - 2 / m) + np.bincount(group, single, len(own))[group] / (m * m)
    if anchor is None:
        return relative
    anchored = np.where(np.arange(len(own)) == anchor, 0.0, single + single[anchor])
    return np.where(group == group[anchor], anchored, relative)


def _dispersion(played: _Games, beta: Floats, eta: float) -> float:
    """Pearson's Σ(s - p)² / Σ p(1 - p) over all games: the observed noise relative to a win-or-loss coin."""
    p, variance = _expected(played, beta, eta)
    residual = played.wins @ (1 - p) ** 2 + played.draws @ (0.5 - p) ** 2 + played.losses @ p**2
    expected = float(played.games @ variance)
    return float(residual) / expected if expected > 0 else 1.0


def _anchoring(beta: Floats, group: Indices, anchor: int | None, level: float) -> Floats:
    """Per-player shift: the anchor to ``level``, or each group's average to ``level``."""
    offset = level - _group_means(beta, group)
    if anchor is not None:
        offset[group[anchor]] = level - beta[anchor]
    return offset[group]


def _variances(covariance: Floats, unknowns: _Unknowns, group: Indices, anchor: int | None) -> Floats:
    """Variances of the anchored ratings: relative to the anchor (held fixed), or to the group's average."""
    free = unknowns.free
    k = len(free)
    within = covariance[:k, :k]
    variance = np.zeros(unknowns.players)
    variance[free] = np.diagonal(within)
    if k == 0:
        return variance
    # Var(x_i - mean x) = Σ_ii - 2 Σ_j Σ_ij / m + Σ_jk Σ_jk / m² over the group's players j, k;
    # the reference player's row is 0. ``free`` is sorted, groups are not contiguous: sort by group.
    order = np.argsort(group[free], kind="stable")
    members = group[free][order]
    starts = np.flatnonzero(np.r_[True, members[1:] != members[:-1]])
    sums = np.add.reduceat(within[:, order], starts, axis=1)  # player x group
    column = np.searchsorted(members[starts], group[free])
    row_sum = sums[np.arange(k), column]
    size = np.bincount(group, minlength=unknowns.players).astype(np.float64)
    total = _sums(group[free], row_sum, unknowns.players)
    m = size[group]
    relative = variance - 2 * _sums(free, row_sum, unknowns.players) / m + total[group] / (m * m)
    averaged = np.ones(unknowns.players, dtype=bool) if anchor is None else group != group[anchor]
    return np.where(averaged, relative, variance)
