"""The statistics engine against cutechess-cli and fastchess published figures."""

from __future__ import annotations

import pytest

from tmanager.core import stats


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
    test = stats.sprt([50, 287, 610, 387, 73], elo0=0, elo1=5, alpha=0.05, beta=0.05, model="normalized")
    assert f"{test.llr:.2f}" == "2.97"
    assert f"{test.lower:.2f} {test.upper:.2f}" == "-2.94 2.94"
    assert test.verdict == "H1"


def test_second_pentanomial_vector() -> None:
    penta = [835, 6884, 13116, 7201, 852]
    estimate = stats.elo_pentanomial(penta)
    assert f"{estimate.value:.2f} +/- {estimate.margin:.2f}" == "2.11 +/- 1.70"
    assert f"{100 * stats.los_pentanomial(penta):.2f}" == "99.25"


def test_logistic_sprt_sign_follows_the_data() -> None:
    stronger = stats.sprt((300, 400, 400), elo0=0, elo1=10, model="logistic")
    weaker = stats.sprt((400, 400, 300), elo0=0, elo1=10, model="logistic")
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
    exact = stats.sprt((losses, draws, wins), elo0=0, elo1=3, model="logistic").llr
    assert exact == pytest.approx(approx, rel=0.01)


def test_match_stats_uses_pentanomial_for_sprt() -> None:
    result = stats.match_stats(
        797, 637, 1566, penta=[50, 287, 610, 387, 73], sprt_test=lambda c: stats.sprt(c, elo0=0, elo1=5)
    )
    assert result.sprt is not None and f"{result.sprt.llr:.2f}" == "2.97"
    assert result.games == 3000


def test_invalid_sprt_is_refused() -> None:
    with pytest.raises(ValueError):
        stats.sprt((1, 1, 1), elo0=5, elo1=0)


def test_perfect_score_has_no_finite_elo() -> None:
    assert stats.elo(10, 0, 0).value == float("inf")
    assert stats.los(0, 0) == 0.5
