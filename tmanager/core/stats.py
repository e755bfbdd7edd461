"""Match statistics as engine testers use them: Elo ± 95 %, LOS, draw ratio, pentanomial, nElo, SPRT.

All functions are pure. Scores are from the first player's point of view: a
win is 1, a draw ½, a loss 0; a game pair (both colours of one opening) scores
0, ½, 1, 1½ or 2, counted as the pentanomial ``[LL, LD, WL+DD, WD, WW]``.

The formulas follow cutechess-cli and fastchess, re-derived:

* Elo from the mean score ``s``: ``-400·log10(1/s - 1)``; the margin maps
  ``s ± 1.96·σ/√n`` through the same curve and halves the spread, where ``σ²``
  is the per-game (trinomial) or per-pair (pentanomial) sample variance.
* LOS = Φ((W - L)/√(W + L)), draws carrying no information.
* nElo = (s - ½)/σ_game · 800/ln 10, with σ_game = √(2·var_pair) for pairs.
* SPRT: the generalized SPRT of M. Van den Bergh ("Comments on Normalized
  Elo"): the log-likelihood ratio of the maximum-likelihood outcome
  distributions constrained to the score (logistic model) or to the
  normalized Elo (normalized model) of each hypothesis. The bayesian model
  (fastchess's, after BayesElo) is the logistic one with each hypothesis's
  score taken from BayesElo's draw model, the draw Elo estimated from the
  games; it is trinomial only.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tmanager.core import ieee
from tmanager.errors import ConfigError
from tmanager.tomlmap import SIGNED, Choice

#: Two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054
#: nElo per unit of (score - ½)/σ.
NELO_SCALE = 800 / math.log(10)
#: Score of each pentanomial outcome, as a fraction of the pair's two points.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
GAME_SCORES = (0.0, 0.5, 1.0)



class SprtModel(Choice):
    """``[sprt] model``: what an SPRT's bounds mean: normalized Elo (nElo), logistic Elo, or BayesElo."""

    NORMALIZED = "normalized"
    LOGISTIC = "logistic"
    BAYESIAN = "bayesian"


class SprtVerdict(enum.StrEnum):
    """Where an SPRT's LLR stands: ``H1`` (elo1 accepted) or ``H0`` (elo0 accepted) beyond a bound, or
    ``continue`` between them. Not the verdict a test ended with (``core.sprt.VerdictResult``), whose third
    word is ``undecided``: a test the schedule ended between the bounds."""

    H0 = "H0"
    H1 = "H1"
    CONTINUE = "continue"


#: The normalized model's bounds stay within ± this many nElo: beyond about 230 its maximum-likelihood
#: estimate need not exist (no real test comes near; far bounds can use the logistic model).
NELO_LIMIT = 200.0
#: The logistic and bayesian models' bounds stay within ± this many Elo: from about 6,400 Elo on, a float rounds
#: the expected score to 1 (or 0) and no distribution has it. 2,000 keeps it 1e-5 from the edge, far beyond
#: any test's bounds.
ELO_LIMIT = 2000.0


@dataclass(frozen=True, slots=True)
class Estimate:
    """A value with the half-width of its 95 % confidence interval."""

    value: float
    margin: float


@dataclass(frozen=True, slots=True)
class Sprt:
    """An SPRT state: the log-likelihood ratio and its stopping bounds."""

    llr: float
    lower: float
    upper: float

    @property
    def verdict(self) -> SprtVerdict:
        """``H1`` (elo1 accepted), ``H0`` (elo0 accepted) or ``continue``."""
        if self.llr >= self.upper:
            return SprtVerdict.H1
        if self.llr <= self.lower:
            return SprtVerdict.H0
        return SprtVerdict.CONTINUE


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """An SPRT: H0 = ``elo0`` against H1 = ``elo1``, with false-positive rate ``alpha`` and
    false-negative rate ``beta`` (the tourney file's ``[sprt]``, ``crosstable --sprt``).

    In the normalized model the bounds are nElo, else logistic Elo.
    """

    elo0: float = field(metadata=SIGNED)
    elo1: float = field(metadata=SIGNED)
    alpha: float = 0.05
    beta: float = 0.05
    model: SprtModel = SprtModel.NORMALIZED
    #: The LLR from the pairs' pentanomial counts; false: from the games' (fastchess's with -report penta=false).
    pentanomial: bool = True

    def check(self) -> None:
        """:class:`ConfigError` naming the bad field (``alpha``, ``elo1``…) unless the test is well-defined."""
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 1:
                raise ConfigError(f"must be between 0 and 1, not {rate:g}", field=name, hint="e.g. 0.05")
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not math.isfinite(elo):
                raise ConfigError(f"must be a number, not {elo:g}", field=name, hint="e.g. elo0 0, elo1 5")
        if self.alpha + self.beta >= 1:
            raise ConfigError(
                f"alpha + beta is {self.alpha + self.beta:g}", field="beta", hint="they must add up to less than 1"
            )
        if self.elo0 >= self.elo1:
            raise ConfigError(
                f"elo0 ({self.elo0:g}) must be less than elo1 ({self.elo1:g})", field="elo1", hint="e.g. elo0 0, elo1 5"
            )
        limit = _elo_limit(self.model)
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if abs(elo) > limit:
                raise ConfigError(
                    f"{elo:g} {'nElo' if self.model is SprtModel.NORMALIZED else 'Elo'} is beyond the "
                    f"{self.model} model's ±{limit:g}",
                    field=name,
                    hint='use smaller bounds, or model = "logistic"' if self.model is SprtModel.NORMALIZED
                    else "use smaller bounds: a test's are a few Elo, e.g. 0 and 5",
                )

    def test(self, wins: int, draws: int, losses: int, *, penta: Sequence[int] | None = None) -> Sprt:
        """The test on these results: on the pentanomial counts when given (except in the bayesian
        model, which is trinomial only, as in fastchess, or when :attr:`pentanomial` is false), else on the games."""
        by_pairs = self.pentanomial and self.model is not SprtModel.BAYESIAN
        counts = penta if penta is not None and by_pairs else (losses, draws, wins)
        return sprt(counts, elo0=self.elo0, elo1=self.elo1, alpha=self.alpha, beta=self.beta, model=self.model)


def signed(value: float, digits: int = 0) -> str:
    """An Elo figure as testers read it: a sign always, ``inf``/``-inf`` as words. A value that rounds to zero,
    or is -0.0 (an even score: -400 log10(1)), is +0, never -0."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{round(value, digits) + 0.0:+.{digits}f}"


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score strictly between 0 and 1."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_from_bayeselo(elo: float, draw_elo: float) -> float:
    """Expected score for a BayesElo difference, given the draw Elo (BayesElo's draw model)."""
    win = 1.0 / (1.0 + math.pow(10.0, (draw_elo - elo) / 400.0))
    loss = 1.0 / (1.0 + math.pow(10.0, (draw_elo + elo) / 400.0))
    return win + (1.0 - win - loss) / 2


def _mean_variance(counts: Sequence[float], scores: Sequence[float]) -> tuple[float, float, float]:
    n = float(sum(counts))
    if n <= 0:
        return 0.0, 0.5, 0.0
    mean = sum(c * s for c, s in zip(counts, scores, strict=True)) / n
    var = sum(c * (s - mean) ** 2 for c, s in zip(counts, scores, strict=True)) / n
    return n, mean, var


def _elo_estimate(n: float, mean: float, var: float) -> Estimate:
    if n == 0 or mean <= 0.0 or mean >= 1.0:
        # A perfect or zero score has no finite logistic Elo.
        return Estimate(math.copysign(math.inf, mean - 0.5) if n else 0.0, math.inf)
    spread = Z95 * math.sqrt(var / n)
    low, high = mean - spread, mean + spread
    if low <= 0.0 or high >= 1.0:
        return Estimate(elo_from_score(mean), math.inf)
    return Estimate(elo_from_score(mean), (elo_from_score(high) - elo_from_score(low)) / 2)


def _nelo_estimate(n: float, mean: float, var: float, *, pairs: bool) -> Estimate:
    sigma = math.sqrt(2 * var if pairs else var)
    if n == 0 or sigma == 0:
        # Every game (pair) alike: a perfect or zero score lies infinitely many σ from ½, as fastchess's
        # (s - ½)/σ has it; all draws (or all pairs even) are 0.
        return Estimate(0.0 if n == 0 or mean == 0.5 else math.copysign(math.inf, mean - 0.5), math.inf)
    return Estimate(
        (mean - 0.5) / sigma * NELO_SCALE,
        Z95 * math.sqrt(var / n) / sigma * NELO_SCALE,
    )


def elo(wins: int, losses: int, draws: int) -> Estimate:
    """Elo difference ± 95 % margin from game results (trinomial)."""
    return _elo_estimate(*_mean_variance((losses, draws, wins), GAME_SCORES))


def elo_pentanomial(penta: Sequence[int]) -> Estimate:
    """Elo difference ± 95 % margin from pentanomial counts ``[LL, LD, WL+DD, WD, WW]``."""
    return _elo_estimate(*_mean_variance(penta, PAIR_SCORES))


def nelo(wins: int, losses: int, draws: int) -> Estimate:
    """Normalized Elo ± 95 % margin from game results."""
    return _nelo_estimate(*_mean_variance((losses, draws, wins), GAME_SCORES), pairs=False)


def nelo_pentanomial(penta: Sequence[int]) -> Estimate:
    """Normalized Elo ± 95 % margin from pentanomial counts."""
    return _nelo_estimate(*_mean_variance(penta, PAIR_SCORES), pairs=True)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority, 0..1: the chance the first player is the stronger."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def los_pentanomial(penta: Sequence[int]) -> float:
    """Likelihood of superiority from pentanomial counts (normal approximation of the pair mean)."""
    n, mean, var = _mean_variance(penta, PAIR_SCORES)
    if n == 0 or var == 0:
        return 0.5 if mean == 0.5 else float(mean > 0.5)
    return 0.5 * (1.0 + math.erf((mean - 0.5) / math.sqrt(2.0 * var / n)))


def draw_ratio(wins: int, losses: int, draws: int) -> float:
    """Fraction of drawn games."""
    games = wins + losses + draws
    return draws / games if games else 0.0


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds ``(ln(β/(1-α)), ln((1-β)/α))``."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt(
    counts: Sequence[int],
    *,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    model: SprtModel = SprtModel.NORMALIZED,
) -> Sprt:
    """GSPRT of H0 = ``elo0`` against H1 = ``elo1``.

    ``counts`` is either ``(losses, draws, wins)`` or the five pentanomial
    counts; in the normalized model, ``elo0``/``elo1`` are nElo. The bayesian
    model takes ``(losses, draws, wins)`` only, and its LLR is 0 until there
    are both wins and losses (no draw Elo can be estimated before).
    """
    if not 0 < alpha < 1 or not 0 < beta < 1 or elo0 >= elo1:
        raise ValueError("SPRT needs 0 < alpha, beta < 1 and elo0 < elo1")
    if max(abs(elo0), abs(elo1)) > _elo_limit(model):
        raise ValueError(f"{model} SPRT bounds must lie within ±{_elo_limit(model):g}")
    lower, upper = sprt_bounds(alpha, beta)
    scores = PAIR_SCORES if len(counts) == 5 else GAME_SCORES
    if len(counts) not in (3, 5) or (model is SprtModel.BAYESIAN and len(counts) != 3):
        raise ValueError("counts must be (losses, draws, wins) or (not bayesian) five pentanomial counts")
    # An outcome never seen gets a tiny weight so that the MLE stays interior. The total is summed in
    # fastchess's order (best outcome first for pairs, worst first for games): the LLR is then its own.
    regular = [float(c) if c else 1e-3 for c in counts]
    total = 0.0
    for count in reversed(regular) if len(counts) == 5 else regular:
        total += count
    observed = [c / total for c in regular]
    if model is SprtModel.BAYESIAN:
        if not counts[0] or not counts[2]:
            return Sprt(0.0, lower, upper)
        loss, win = observed[0], observed[2]
        draw_elo = 200 * math.log10((1 - loss) / loss * (1 - win) / win)
        p0 = _mle_mean(scores, observed, score_from_bayeselo(elo0, draw_elo))
        p1 = _mle_mean(scores, observed, score_from_bayeselo(elo1, draw_elo))
    elif model is SprtModel.LOGISTIC:
        p0 = _mle_mean(scores, observed, score_from_elo(elo0))
        p1 = _mle_mean(scores, observed, score_from_elo(elo1))
    else:
        # t = (mean - ½)/σ of one scoring unit; a pair's σ is that of its mean score.
        factor = math.sqrt(2.0) if len(counts) == 5 else 1.0
        p0 = _mle_normalized(scores, observed, factor * elo0 / NELO_SCALE)
        p1 = _mle_normalized(scores, observed, factor * elo1 / NELO_SCALE)
    log_ratios = [ieee.log(a) - ieee.log(b) for a, b in zip(p1, p0, strict=True)]
    return Sprt(total * _mean(log_ratios, observed), lower, upper)


def _elo_limit(model: SprtModel) -> float:
    """How far from 0 the bounds of ``model`` may lie (nElo in the normalized model, else Elo)."""
    return NELO_LIMIT if model is SprtModel.NORMALIZED else ELO_LIMIT


def _mean(values: Sequence[float], weights: Sequence[float]) -> float:
    result = 0.0
    for value, weight in zip(values, weights, strict=True):
        result += value * weight
    return result


def _itp(
    f: Callable[[float], float], low: float, high: float, *, epsilon: float, k1: float = 0.1, k2: float = 2.0,
    n0: float = 0.99,
) -> float:
    """The root of ``f``, which falls from +inf at ``low`` to -inf at ``high``, to within ``epsilon``: the
    ITP method (Oliveira and Takahashi, ACM TOMS 47, 2021), step for step as fastchess runs it, so that
    its LLRs are fastchess's to the last bit."""
    a, b, f_a, f_b = high, low, -math.inf, math.inf  # a: where f < 0, b: where f > 0
    # C's double arithmetic: with a NaN or empty bracket (far bounds, or a billion games of one outcome) the
    # loop below is skipped and the root is NaN, as in fastchess, where Python's ceil and log2 raised
    n_max = ieee.ceil(ieee.log2(abs(b - a) / (2.0 * epsilon))) + n0
    i = 0
    while abs(b - a) > 2.0 * epsilon:
        middle = (a + b) / 2.0
        r = epsilon * ieee.pow(2.0, n_max - i) - (b - a) / 2.0
        delta = k1 * ieee.pow(b - a, k2)
        regula_falsi = ieee.div(f_b * a - f_a * b, f_b - f_a)
        sigma = ieee.div(middle - regula_falsi, abs(middle - regula_falsi))
        truncated = regula_falsi + sigma * delta if delta <= abs(middle - regula_falsi) else middle
        x = truncated if abs(truncated - middle) <= r else middle - sigma * r
        y = f(x)
        if y == 0.0:
            a = b = x
        elif math.copysign(1.0, y) < 0:
            a, f_a = x, y
        else:
            b, f_b = x, y
        i += 1
    return (a + b) / 2.0


def _tilted(observed: Sequence[float], phi: Sequence[float], theta: float) -> list[float]:
    """The distribution q_i / (1 + θ φ_i)."""
    return [ieee.div(q, 1.0 + theta * x) for q, x in zip(observed, phi, strict=True)]


def _theta(observed: Sequence[float], phi: Sequence[float], low: float, high: float, *, epsilon: float) -> float:
    """Root in θ of Σ q_i φ_i / (1 + θ φ_i) = 0 between ``low`` and ``high``, where the p_i stay positive."""

    def f(theta: float) -> float:
        result = 0.0
        for q, x in zip(observed, phi, strict=True):
            result += ieee.div(q * x, 1.0 + theta * x)
        return result

    return _itp(f, low, high, epsilon=epsilon)


def _mle_mean(scores: Sequence[float], observed: Sequence[float], mean: float) -> list[float]:
    """Closest distribution (in likelihood) to ``observed`` whose mean score is ``mean`` (Van den Bergh,
    "Comparing the approximations for the GLR of a multinomial distribution", proposition 1.1)."""
    phi = [a - mean for a in scores]
    theta = _theta(observed, phi, -1.0 / (scores[-1] - mean), -1.0 / (scores[0] - mean), epsilon=1e-3)
    return _tilted(observed, phi, theta)


def _mle_normalized(scores: Sequence[float], observed: Sequence[float], t: float) -> list[float]:
    """Closest distribution to ``observed`` with (mean - ½)/σ = ``t``, by fixed-point iteration from the
    uniform distribution (Van den Bergh, "Comments on normalized Elo", 4.1), as fastchess iterates it."""
    p = [1.0 / len(scores)] * len(scores)
    for _ in range(10):
        mean = _mean(scores, p)
        variance = 0.0
        for a, q in zip(scores, p, strict=True):
            variance += q * (a - mean) * (a - mean)
        sigma = ieee.sqrt(variance)
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ieee.div(a - mean, sigma) * ieee.div(a - mean, sigma))
               for a in scores]
        theta = _theta(observed, phi, ieee.div(-1.0, max(phi)), ieee.div(-1.0, min(phi)), epsilon=1e-7)
        new = _tilted(observed, phi, theta)
        change = 0.0
        for a, b in zip(new, p, strict=True):
            change = abs(a - b) if change < abs(a - b) else change  # std::max: a NaN leaves it as it was
        p = new
        if change < 1e-4:
            break
    return p


@dataclass(frozen=True, slots=True)
class MatchStats:
    """Everything printed for a two-player match, from the first player's side."""

    wins: int
    losses: int
    draws: int
    elo: Estimate
    los: float
    draw_ratio: float
    nelo: Estimate
    penta: tuple[int, int, int, int, int] | None = None
    elo_penta: Estimate | None = None
    nelo_penta: Estimate | None = None
    los_penta: float | None = None
    sprt: Sprt | None = None
    #: of the complete pairs, those of two draws (DD); the others of ``penta[2]`` are a win and a loss (WL)
    double_draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def draw_ratio_pairs(self) -> float | None:
        """fastchess's DrawRatio: the pairs of one point each side (WL and DD), as a fraction of the pairs."""
        return self.penta[2] / sum(self.penta) if self.penta else None

    @property
    def pairs_ratio(self) -> float | None:
        """fastchess's PairsRatio: pairs won (WW, WD) per pair lost (LD, LL); ``inf`` with none lost."""
        if not self.penta:
            return None
        won, lost = self.penta[3] + self.penta[4], self.penta[0] + self.penta[1]
        return won / lost if lost else (math.inf if won else math.nan)

    @property
    def wl_dd_ratio(self) -> float | None:
        """fastchess's WL/DD ratio: pairs of a win and a loss per pair of two draws."""
        if not self.penta:
            return None
        wl, dd = self.penta[2] - self.double_draws, self.double_draws
        return wl / dd if dd else (math.inf if wl else math.nan)


def match_stats(
    wins: int,
    losses: int,
    draws: int,
    *,
    penta: Sequence[int] | None = None,
    sprt_settings: SprtSettings | None = None,
    double_draws: int = 0,
) -> MatchStats:
    """All match statistics; the SPRT uses the pentanomial counts when there are any pairs
    (see :meth:`SprtSettings.test`)."""
    has_pairs = penta is not None and sum(penta) > 0
    p5 = (penta[0], penta[1], penta[2], penta[3], penta[4]) if penta is not None and has_pairs else None
    test = None if sprt_settings is None else sprt_settings.test(wins, draws, losses, penta=p5)
    return MatchStats(
        wins=wins,
        losses=losses,
        draws=draws,
        elo=elo(wins, losses, draws),
        los=los(wins, losses),
        draw_ratio=draw_ratio(wins, losses, draws),
        nelo=nelo(wins, losses, draws),
        penta=p5,
        elo_penta=elo_pentanomial(p5) if p5 else None,
        nelo_penta=nelo_pentanomial(p5) if p5 else None,
        los_penta=los_pentanomial(p5) if p5 else None,
        sprt=test,
        double_draws=double_draws,
    )
