"""The statistics engine against cutechess-cli and fastchess published figures."""

from __future__ import annotations

import math
import random

import pytest

from tmanager.core import stats
from tmanager.core.results import Result
from tmanager.core.schedule import RoundRobin
from tmanager.core.sprt import match_state
from tmanager.core.standings import GamePairs, GameResult
from tmanager.core.stats import SprtModel
from tmanager.errors import ConfigError


def test_trinomial_vector() -> None:
    estimate = stats.elo(332, 316, 352)
    assert f"{estimate.value:.1f} +/- {estimate.margin:.1f}" == "5.6 +/- 17.3"
    assert f"{100 * stats.los(332, 316):.1f}" == "73.5"
    assert f"{100 * stats.draw_ratio(332, 316, 352):.1f}" == "35.2"


def test_pentanomial_vector() -> None:
    penta = [50, 287, 610, 387, 73]
    estimate = stats.elo_pentanomial(penta)
    assert f"{estimate.value:.2f} +/- {estimate.margin:.2f}" == "18.04 +/- 8.23"
    normalized = stats.nelo_pentanomial(penta)
    assert f"{normalized.value:.2f} +/- {normalized.margin:.2f}" == "28.19 +/- 12.84"


def test_normalized_sprt_vector() -> None:
    test = stats.sprt([50, 287, 610, 387, 73], elo0=0, elo1=5, alpha=0.05, beta=0.05, model=SprtModel.NORMALIZED)
    assert f"{test.llr:.2f}" == "2.97"
    assert f"{test.lower:.2f} {test.upper:.2f}" == "-2.94 2.94"
    assert test.verdict == "H1"


def test_second_pentanomial_vector() -> None:
    penta = [835, 6884, 13116, 7201, 852]
    estimate = stats.elo_pentanomial(penta)
    assert f"{estimate.value:.2f} +/- {estimate.margin:.2f}" == "2.11 +/- 1.70"
    assert f"{100 * stats.los_pentanomial(penta):.2f}" == "99.25"


def test_logistic_sprt_sign_follows_the_data() -> None:
    stronger = stats.sprt((300, 400, 400), elo0=0, elo1=10, model=SprtModel.LOGISTIC)
    weaker = stats.sprt((400, 400, 300), elo0=0, elo1=10, model=SprtModel.LOGISTIC)
    assert stronger.llr > 0 > weaker.llr
    assert weaker.verdict == "H0"


def test_sprt_trinomial_logistic_matches_the_score_approximation() -> None:
    # For small elo0/elo1 the GSPRT LLR is close to the classical ½·n·(s1-s0)(2s-s0-s1)/var.
    losses, draws, wins = 4063, 8620, 4307
    n = losses + draws + wins
    s = (wins + draws / 2) / n
    var = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s * s) / n
    s0, s1 = stats.score_from_elo(0), stats.score_from_elo(3)
    approx = 0.5 * n * (s1 - s0) * (2 * s - s0 - s1) / var
    exact = stats.sprt((losses, draws, wins), elo0=0, elo1=3, model=SprtModel.LOGISTIC).llr
    assert exact == pytest.approx(approx, rel=0.01)


def test_match_stats_uses_pentanomial_for_sprt() -> None:
    result = stats.match_stats(
        797, 637, 1566, penta=[50, 287, 610, 387, 73], sprt_settings=stats.SprtSettings(elo0=0, elo1=5)
    )
    assert result.sprt is not None and f"{result.sprt.llr:.2f}" == "2.97"
    assert result.games == 3000
    bayesian = stats.match_stats(
        797, 637, 1566, penta=[50, 287, 610, 387, 73], sprt_settings=stats.SprtSettings(0, 5, model=SprtModel.BAYESIAN)
    )
    trinomial = stats.sprt((637, 1566, 797), elo0=0, elo1=5, model=SprtModel.BAYESIAN)
    assert bayesian.sprt == trinomial  # fastchess: the bayesian model has no pentanomial form


# fastchess's own SPRT test cases (app/tests/sprt_test.cpp), which it checks to 1 %:
# (wins, losses, draws) or pentanomial (LL, LD, WL, DD, WD, WW), elo0, elo1, model, LLR.
FASTCHESS_TRINOMIAL = [
    ((36433, 36027, 68692), 0, 2, SprtModel.NORMALIZED, 0.92),
    ((10871, 10650, 20431), -1.75, 0.25, SprtModel.NORMALIZED, 2.30),
    ((4250, 0, 0), 0, 10, SprtModel.NORMALIZED, 120.56),
    ((21404, 21184, 40708), 0.5, 2.5, SprtModel.LOGISTIC, -1.57),
    ((57433, 57030, 106593), 0, 2, SprtModel.LOGISTIC, -2.59),
    ((68965, 68526, 128429), 0, 2, SprtModel.BAYESIAN, -1.26),
    ((21629, 21484, 41111), 0.5, 2.5, SprtModel.BAYESIAN, -1.13),
]
FASTCHESS_PENTANOMIAL = [
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, SprtModel.NORMALIZED, 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, SprtModel.NORMALIZED, 3.01),
    ((0, 0, 0, 0, 0, 5550), 0, 5, SprtModel.NORMALIZED, 111.82),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, SprtModel.LOGISTIC, -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, SprtModel.LOGISTIC, -4.98),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "model", "llr"), FASTCHESS_TRINOMIAL)
def test_fastchess_trinomial_vectors(
    counts: tuple[int, int, int], elo0: float, elo1: float, model: stats.SprtModel, llr: float
) -> None:
    wins, losses, draws = counts
    test = stats.SprtSettings(elo0, elo1, model=model).test(wins, draws, losses)
    assert test.llr == pytest.approx(llr, rel=0.01)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "model", "llr"), FASTCHESS_PENTANOMIAL)
def test_fastchess_pentanomial_vectors(
    counts: tuple[int, ...], elo0: float, elo1: float, model: stats.SprtModel, llr: float
) -> None:
    ll, ld, wl, dd, wd, ww = counts
    test = stats.SprtSettings(elo0, elo1, model=model).test(0, 0, 0, penta=(ll, ld, wl + dd, wd, ww))
    assert test.llr == pytest.approx(llr, rel=0.01)


def _exact_bayesian_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The bayesian LLR (fastchess's SPRT::getLLR(win, draw, loss)) written out independently: BayesElo's
    draw Elo from the observed rates, then the logistic GSPRT with each hypothesis's expected score,
    its θ found exactly by plain bisection of equation 1.3 of Van den Bergh's note (fastchess stops its
    root finder at a θ within 1e-3, which moves the LLR by about 1e-4 of itself)."""
    total = wins + draws + losses
    probs = [losses / total, draws / total, wins / total]
    draw_elo = 200 * math.log10((1 - probs[0]) / probs[0] * (1 - probs[2]) / probs[2])

    def expected(elo: float) -> float:
        win = 1 / (1 + 10 ** ((-elo + draw_elo) / 400))
        loss = 1 / (1 + 10 ** ((elo + draw_elo) / 400))
        return win + 0.5 * (1 - win - loss)

    def mle(s: float) -> list[float]:
        scores = [0.0, 0.5, 1.0]
        low, high = -1 / (1 - s), 1 / s
        for _ in range(200):
            theta = (low + high) / 2
            value = sum(p * (a - s) / (1 + theta * (a - s)) for p, a in zip(probs, scores, strict=True))
            low, high = (theta, high) if value > 0 else (low, theta)
        return [p / (1 + theta * (a - s)) for p, a in zip(probs, scores, strict=True)]

    p0, p1 = mle(expected(elo0)), mle(expected(elo1))
    return total * sum(q * math.log(b / a) for q, a, b in zip(probs, p0, p1, strict=True))


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "elo0", "elo1"),
    [(120, 300, 100, 0, 5), (40, 20, 60, -3, 1), (7000, 12000, 6800, 0, 2), (5, 1, 1, 0, 50)],
)
def test_bayesian_model_is_close_to_the_exact_likelihood_ratio(
    wins: int, draws: int, losses: int, elo0: float, elo1: float
) -> None:
    ours = stats.sprt((losses, draws, wins), elo0=elo0, elo1=elo1, model=SprtModel.BAYESIAN).llr
    assert ours == pytest.approx(_exact_bayesian_llr(wins, draws, losses, elo0, elo1), rel=1e-3)


#: LLRs that fastchess 74deac23 (SPRT::getLLR, built from its sources) printed with {:.17g} for these
#: counts: pentanomial [LL, LD, WL, DD, WD, WW] or (wins, draws, losses), elo0, elo1, alpha, beta, model.
FASTCHESS_EXACT = [
    ((50, 287, 300, 310, 387, 73), 0, 5, 0.05, 0.05, SprtModel.NORMALIZED, 2.9659419027881588),
    ((835, 6884, 6000, 7116, 7201, 852), 0, 2, 0.05, 0.05, SprtModel.NORMALIZED, 2.4073469707762052),
    ((50, 287, 300, 310, 387, 73), 0, 5, 0.05, 0.05, SprtModel.LOGISTIC, 4.3596556285093078),
    ((0, 3, 0, 2, 1, 0), -1.75, 0.25, 0.05, 0.05, SprtModel.NORMALIZED, -0.019534753509064081),
    ((0, 0, 0, 0, 0, 17), 0, 10, 0.05, 0.1, SprtModel.LOGISTIC, 0.48231456619909147),
    ((332, 352, 316), 0, 5, 0.05, 0.05, SprtModel.NORMALIZED, 0.18249441027288865),
    ((137, 20, 6), 0, 5, 0.05, 0.05, SprtModel.LOGISTIC, 2.1316494311648597),
    ((120, 300, 100), 0, 5, 0.05, 0.05, SprtModel.BAYESIAN, 0.39668261540557032),
    ((40, 20, 60), -3, 1, 0.05, 0.05, SprtModel.BAYESIAN, -0.26371035625340827),
    ((0, 6, 0), 0, 5, 0.05, 0.05, SprtModel.NORMALIZED, -0.00071456423656607543),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "alpha", "beta", "model", "llr"), FASTCHESS_EXACT)
def test_llr_is_fastchess_s_to_the_last_bit(
    counts: tuple[int, ...], elo0: float, elo1: float, alpha: float, beta: float, model: stats.SprtModel, llr: float
) -> None:
    """The same root finder, iterations and order of sums as fastchess: its LLR exactly, so that a test
    stops at the same game under either program."""
    if len(counts) == 6:
        ll, ld, wl, dd, wd, ww = counts
        ordered: tuple[int, ...] = (ll, ld, wl + dd, wd, ww)
    else:
        wins, draws, losses = counts
        ordered = (losses, draws, wins)
    test = stats.sprt(ordered, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model)
    assert test.llr == llr


def test_bayesian_model_waits_for_wins_and_losses() -> None:
    assert stats.sprt((0, 10, 30), elo0=0, elo1=5, model=SprtModel.BAYESIAN).llr == 0.0
    with pytest.raises(ValueError):
        stats.sprt((1, 2, 3, 4, 5), elo0=0, elo1=5, model=SprtModel.BAYESIAN)


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        (stats.SprtSettings(0, 5, alpha=0), "alpha"),
        (stats.SprtSettings(0, 5, beta=1.0), "beta"),
        (stats.SprtSettings(0, 5, alpha=0.6, beta=0.5), "beta"),
        (stats.SprtSettings(5, 5), "elo1"),
        (stats.SprtSettings(0, 250), "elo1"),
        (stats.SprtSettings(-201, 0), "elo0"),
        # a float rounds their expected score to 1 or 0: the SPRT died of a ZeroDivisionError or OverflowError
        (stats.SprtSettings(0, 10_000, model=SprtModel.LOGISTIC), "elo1"),
        (stats.SprtSettings(-1e6, 0, model=SprtModel.BAYESIAN), "elo0"),
        (stats.SprtSettings(0, stats.ELO_LIMIT + 1, model=SprtModel.LOGISTIC), "elo1"),
    ],
)
def test_bad_sprt_settings_name_the_field(settings: stats.SprtSettings, field: str) -> None:
    with pytest.raises(ConfigError) as error:
        settings.check()
    assert error.value.field == field


def test_normalized_model_is_finite_up_to_its_limit() -> None:
    # Beyond about 230 nElo the normalized estimate need not exist; within the limit it always does.
    rng = random.Random(2)
    for _ in range(300):
        counts = [rng.choice([0, 0, 1, 5, 1000]) for _ in range(rng.choice([3, 5]))]
        elo0 = rng.uniform(-stats.NELO_LIMIT, stats.NELO_LIMIT - 1)
        test = stats.sprt(counts, elo0=elo0, elo1=stats.NELO_LIMIT, model=SprtModel.NORMALIZED)
        assert math.isfinite(test.llr)
    stats.SprtSettings(-stats.NELO_LIMIT, stats.NELO_LIMIT).check()
    stats.SprtSettings(0, 1000, model=SprtModel.LOGISTIC).check()


def test_logistic_and_bayesian_models_are_finite_up_to_their_limit() -> None:
    rng = random.Random(3)
    for model in (SprtModel.LOGISTIC, SprtModel.BAYESIAN):
        stats.SprtSettings(-stats.ELO_LIMIT, stats.ELO_LIMIT, model=model).check()
        for _ in range(300):
            counts = [rng.choice([0, 0, 1, 5, 1000, 10**9]) for _ in range(3 if model == SprtModel.BAYESIAN else 5)]
            elo0 = rng.choice([-stats.ELO_LIMIT, rng.uniform(-stats.ELO_LIMIT, stats.ELO_LIMIT - 1)])
            test = stats.sprt(counts, elo0=elo0, elo1=stats.ELO_LIMIT, model=model)
            assert math.isfinite(test.llr)
    with pytest.raises(ValueError):
        stats.sprt((1, 1, 1), elo0=0, elo1=stats.ELO_LIMIT * 5, model=SprtModel.LOGISTIC)


def test_invalid_sprt_is_refused() -> None:
    with pytest.raises(ValueError):
        stats.sprt((1, 1, 1), elo0=5, elo1=0)


def test_perfect_score_has_no_finite_elo() -> None:
    assert stats.elo(10, 0, 0).value == float("inf")
    assert stats.los(0, 0) == 0.5


def test_a_perfect_or_zero_score_has_an_infinite_nelo_and_all_alike_even_zero() -> None:
    """With every game (pair) alike, σ is 0: (s − ½)/σ is ±inf as in fastchess, not the 0 it was (4-0-0 printed
    'nElo +0.0 ± inf' beside 'Elo inf ± inf')."""
    inf = math.inf
    assert stats.nelo(4, 0, 0) == stats.Estimate(inf, inf)
    assert stats.nelo(0, 4, 0) == stats.Estimate(-inf, inf)
    assert stats.nelo_pentanomial([0, 0, 0, 0, 2]) == stats.Estimate(inf, inf)
    assert stats.nelo_pentanomial([0, 0, 0, 5, 0]) == stats.Estimate(inf, inf)  # every pair a win and a draw
    assert stats.nelo_pentanomial([3, 0, 0, 0, 0]) == stats.Estimate(-inf, inf)
    assert stats.nelo(0, 0, 4) == stats.nelo_pentanomial([0, 0, 3, 0, 0]) == stats.Estimate(0.0, inf)
    assert stats.nelo(0, 0, 0) == stats.nelo_pentanomial([0, 0, 0, 0, 0]) == stats.Estimate(0.0, inf)


@pytest.mark.parametrize(
    ("counts", "elo1"),
    [([0, 100_000, 0, 0, 0], 200.0), ([10**9, 0, 0], 5.0), ([0, 10**9, 0], 10.0), ([10**6, 0, 0, 0, 0], 50.0)],
)
def test_a_normalized_estimate_that_does_not_exist_is_nan_as_in_fastchess(counts: list[int], elo1: float) -> None:
    """The root finder's bracket is empty or NaN there; fastchess's C++ carries the NaN through (the test never
    decides), where Python's ceil and log2 raised a ValueError: a traceback in `crosstable --sprt` and `status`."""
    test = stats.sprt(counts, elo0=0, elo1=elo1)
    assert math.isnan(test.llr) and test.verdict == "continue"


def test_every_game_of_a_match_is_in_a_pair_or_unpaired() -> None:
    """A game whose slot a game of the same colours already held (the same games twice, files joined) vanished
    from the counts: 64 games gave '30 pairs, 2 unpaired games'."""
    games = [GameResult("A", "B", Result.WHITE_WINS, game_number=0), GameResult("B", "A", Result.DRAW, game_number=1),
             GameResult("A", "B", Result.BLACK_WINS, game_number=2)]  # game 3 never played
    pairs = GamePairs("A", "B")
    for game in games + [GameResult(*game) for game in games]:  # the file read twice
        pairs.add(game)
    counts = pairs.finish()
    assert counts.penta == (0, 0, 0, 2, 0) and counts.unpaired == 2
    assert 2 * sum(counts.penta) + counts.unpaired == 2 * len(games)


def test_an_sprt_on_the_games_ignores_the_pairs() -> None:
    # fastchess's -report penta=false (or cutechess output): its SPRT's LLR is the games' W/D/L.
    penta = (1, 3, 10, 6, 4)
    on_games = stats.SprtSettings(0, 5, pentanomial=False)
    assert on_games.test(30, 20, 10, penta=penta) == stats.SprtSettings(0, 5).test(30, 20, 10)
    assert stats.SprtSettings(0, 5).test(30, 20, 10, penta=penta) != stats.SprtSettings(0, 5).test(30, 20, 10)


def test_a_noswap_match_pairs_by_its_pair_tags_as_its_status_counts_it() -> None:
    """A ``noswap`` tourney plays both games of a pair with the same colours; its status counted them as pairs
    (as fastchess's -noswap does) and crosstable, asking for reversed colours, found none: "no game pairs found",
    another LLR from the same games than the tourney's own."""
    schedule = RoundRobin(2, games_per_pairing=2, cycles=4, noswap=True)
    results = "+=-+==++"
    games = []
    for number, char in enumerate(results):
        scheduled = schedule.game(number)
        partner = schedule.partner(number)
        assert scheduled is not None and partner is not None
        names = ("A", "B") if scheduled.white == 0 else ("B", "A")
        games.append(GameResult(*names, Result.from_xboard(char), game_number=number, pair=min(number, partner)))
    assert {game.white for game in games} == {"A"}
    pairs = GamePairs("A", "B")
    for result in games:
        pairs.add(result)
    counts = pairs.finish()
    assert counts.penta == match_state(schedule, results).penta == (0, 0, 2, 1, 1) and counts.unpaired == 0
    twice = GamePairs("A", "B")
    for result in [games[0], GameResult(*games[0])]:  # one game read twice is no pair
        twice.add(result)
    assert twice.finish().unpaired == 2


def test_a_fastchess_noswap_pgn_pairs_by_its_round_tags() -> None:
    """fastchess's -noswap PGN (no Pair nor GameNumber tag) plays both games of a pair with the same colours and
    gives them the pair's number as Round tag, by which alone fastchess pairs them: crosstable found no pair.
    The games, in the order and with the results of a real fastchess run (12 games, 2 at once)."""
    rounds = [1, 1, 2, 3, 2, 4, 3, 4, 5, 5, 6, 6]
    results = [Result.from_xboard(char) for char in "-----+-+++--"]
    pairs = GamePairs("a", "b")
    for round_number, result in zip(rounds, results, strict=True):
        pairs.add(GameResult("a", "b", result, round=str(round_number), opening=f"fen {round_number}"))
    counts = pairs.finish()
    assert counts.penta == (4, 0, 0, 0, 2) and counts.unpaired == 0
    swapped = GamePairs("a", "b")  # with colours swapped, a game of one round in the same colours is no partner
    for white, black in [("a", "b"), ("b", "a"), ("a", "b"), ("a", "b")]:
        swapped.add(GameResult(white, black, Result.WHITE_WINS, round="1"))
    assert swapped.finish().penta == (0, 0, 1, 0, 0) and swapped.finish().unpaired == 2
