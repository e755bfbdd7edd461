"""Joint maximum-likelihood Elo: agreement with the match formula, anchoring, bounds, white advantage."""

from __future__ import annotations

import math

import pytest

from tmanager.core import crosstable, jointfit, ratings, stats
from tmanager.core.results import Result
from tmanager.core.standings import GameResult, Tally
from tmanager.errors import ConfigError

FLIP = {Result.WHITE_WINS: Result.BLACK_WINS, Result.BLACK_WINS: Result.WHITE_WINS, Result.DRAW: Result.DRAW}


def _match(wins: int, losses: int, draws: int) -> Tally:
    """A vs B with colours alternating; results from A's side."""
    tally = Tally()
    results = [Result.WHITE_WINS] * wins + [Result.BLACK_WINS] * losses + [Result.DRAW] * draws
    for i, result in enumerate(results):
        tally.add(GameResult("A", "B", result) if i % 2 else GameResult("B", "A", FLIP[result]))
    return tally


def test_two_players_reproduce_the_match_elo() -> None:
    fitted = ratings.fit(_match(332, 316, 352), anchor="B")
    a = fitted.ratings["A"]
    expected = stats.elo(332, 316, 352)
    assert a.elo == pytest.approx(expected.value, abs=1e-6)
    assert a.error == pytest.approx(expected.margin, rel=0.01)
    assert fitted.ratings["B"].elo == 0 and fitted.ratings["B"].error == 0


def test_average_anchor_splits_the_difference() -> None:
    fitted = ratings.fit(_match(60, 20, 20), anchor_elo=1500)
    a, b = fitted.ratings["A"], fitted.ratings["B"]
    assert (a.elo + b.elo) / 2 == pytest.approx(1500)
    assert a.elo - b.elo == pytest.approx(stats.elo(60, 20, 20).value, abs=1e-6)
    assert a.error == pytest.approx(stats.elo(60, 20, 20).margin / 2, rel=0.02)


def test_named_anchor_and_unknown_anchor() -> None:
    tally = _match(5, 5, 0)
    assert ratings.fit(tally, anchor="A", anchor_elo=2800).ratings["A"].elo == 2800
    with pytest.raises(ConfigError, match="anchor"):
        ratings.fit(tally, anchor="Nobody")


def test_perfect_and_zero_scores_are_bounded() -> None:
    fitted = ratings.fit(_match(10, 0, 0), anchor="B")
    # Each player gets one virtual draw: 11/12 for A.
    assert fitted.ratings["A"].elo == pytest.approx(400 * math.log10(11), abs=1e-6)
    assert math.isfinite(fitted.ratings["A"].error)


@pytest.mark.parametrize("seed", range(4))
def test_a_match_s_closed_form_gives_the_joint_fit_s_numbers(seed: int) -> None:
    """Two players are fitted without numpy; the joint fit (Newton, numpy) must agree: any mix of colours and
    results, perfect and zero scores, each anchor, priors."""
    import random

    rng = random.Random(seed)
    for _ in range(200):
        tally, strength = Tally(), rng.random()
        for _ in range(rng.choice([1, 2, 3, 7, 40, 500])):
            white, black = ("A", "B") if rng.random() < strength else ("B", "A")
            r = rng.random()
            won = Result.WHITE_WINS if r < 0.3 + 0.7 * strength else Result.BLACK_WINS
            tally.add(GameResult(white, black, Result.DRAW if r < 0.3 else won))
        options = {"anchor": rng.choice([None, "A", "B"]), "anchor_elo": rng.choice([0.0, 1500.0]),
                   "prior": rng.choice([0.5, 1.0, 2.0])}  # fmt: skip
        closed = ratings.fit(tally, **options)  # type: ignore[arg-type]
        joint = jointfit.fit(tally, white_advantage=False, **options)  # type: ignore[arg-type]
        assert closed.ratings.keys() == joint.ratings.keys()
        for name, rating in closed.ratings.items():
            assert rating.elo == pytest.approx(joint.ratings[name].elo, abs=1e-4), (name, tally.pairs, options)
            assert rating.error == pytest.approx(joint.ratings[name].error, abs=1e-4), (name, tally.pairs, options)
            assert (rating.games, rating.points) == (joint.ratings[name].games, joint.ratings[name].points)
        assert (closed.groups, closed.white_advantage, closed.exact_errors) == (1, 0, True)


def test_three_player_round_robin_is_transitive() -> None:
    tally = Tally()
    for _ in range(20):
        tally.add(GameResult("A", "B", Result.WHITE_WINS))
        tally.add(GameResult("B", "A", Result.DRAW))
        tally.add(GameResult("B", "C", Result.WHITE_WINS))
        tally.add(GameResult("C", "B", Result.DRAW))
        tally.add(GameResult("A", "C", Result.WHITE_WINS))
        tally.add(GameResult("C", "A", Result.BLACK_WINS))
    fitted = ratings.fit(tally)
    elo = fitted.elo()
    assert elo["A"] > elo["B"] > elo["C"]
    assert sum(elo.values()) == pytest.approx(0, abs=1e-6)
    # Maximum likelihood: each player's expected score equals the actual score.
    for name in "ABC":
        expected = sum(
            n * stats.score_from_elo(elo[name] - elo[other])
            for other in "ABC"
            if other != name
            for n in [tally.record(name, other).games]
        )
        assert expected == pytest.approx(fitted.ratings[name].points, abs=1e-6)


def test_white_advantage_is_fitted() -> None:
    tally = Tally()
    for _ in range(30):  # white scores 75 % whoever plays it
        tally.add(GameResult("A", "B", Result.WHITE_WINS))
        tally.add(GameResult("A", "B", Result.DRAW))
        tally.add(GameResult("B", "A", Result.WHITE_WINS))
        tally.add(GameResult("B", "A", Result.DRAW))
    fitted = ratings.fit(tally, white_advantage=True)
    assert fitted.white_advantage == pytest.approx(stats.elo_from_score(0.75), abs=1e-4)
    assert fitted.ratings["A"].elo == pytest.approx(0, abs=1e-6)
    assert fitted.white_advantage_error > 0
    assert ratings.fit(tally).white_advantage == 0


def test_disconnected_groups_are_reported() -> None:
    tally = Tally()
    tally.add(GameResult("A", "B", Result.WHITE_WINS))
    tally.add(GameResult("B", "A", Result.DRAW))
    tally.add(GameResult("C", "D", Result.BLACK_WINS))
    tally.add(GameResult("D", "C", Result.DRAW))
    assert ratings.fit(tally).groups == 2


def test_many_players_fit_quickly_enough_to_finish() -> None:
    tally = Tally()
    players = [f"P{i}" for i in range(120)]
    for i, white in enumerate(players):
        for j, black in enumerate(players):
            if i != j and (i + j) % 3 == 0:
                tally.add(GameResult(white, black, Result.WHITE_WINS if i < j else Result.DRAW))
    fitted = ratings.fit(tally)
    assert len(fitted.ratings) == 120
    assert all(math.isfinite(r.elo) and math.isfinite(r.error) for r in fitted.ratings.values())


# A plain reference: logistic regression on one row per ordered pair, solved by
# Newton's method on the dense design matrix; margins from explicit contrasts.


def _reference(tally: Tally, *, anchor: str | None, white_advantage: bool, prior: float, everybody: bool = False):  # type: ignore[no-untyped-def]
    import networkx as nx
    import numpy as np

    names = list(tally.players)
    games = dict.fromkeys(names, 0.0)
    points = dict.fromkeys(names, 0.0)
    for (w, b), (ww, d, bw) in tally.pairs.items():
        games[w] += ww + d + bw
        games[b] += ww + d + bw
        points[w] += ww + d / 2
        points[b] += bw + d / 2
    boosted = {p for p in names if everybody or not 0 < points[p] < games[p]}
    graph = nx.Graph(list(tally.pairs))
    groups = [sorted(g, key=names.index) for g in nx.connected_components(graph)]
    references = {anchor if anchor in g else g[0] for g in groups}
    columns = [p for p in names if p not in references] + (["white"] if white_advantage else [])
    rows, counts = [], []
    for (w, b), (ww, d, bw) in tally.pairs.items():
        n = ww + d + bw
        draws_with_prior = d + sum(prior * n / games[p] for p in (w, b) if p in boosted)
        row = [(c == w) - (c == b) + (c == "white") for c in columns]
        rows.append(row)
        counts.append((ww, draws_with_prior, bw))
    x_matrix, (wins, draws, losses) = np.array(rows, dtype=float), np.array(counts, dtype=float).T
    n, score = wins + draws + losses, wins + draws / 2
    theta = np.zeros(len(columns))
    for _ in range(100):
        p = 1 / (1 + np.exp(-x_matrix @ theta))
        information = x_matrix.T @ (x_matrix * (n * p * (1 - p))[:, None])
        step = np.linalg.solve(information, x_matrix.T @ (score - n * p))
        theta += step
        if abs(step).max() < 1e-12:
            break
    p = 1 / (1 + np.exp(-x_matrix @ theta))
    dispersion = (wins @ (1 - p) ** 2 + draws @ (0.5 - p) ** 2 + losses @ p**2) / (n @ (p * (1 - p)))
    covariance = np.linalg.inv(x_matrix.T @ (x_matrix * (n * p * (1 - p))[:, None])) * dispersion
    k = 400 / math.log(10)
    result = {}
    for group in groups:
        contrasts = {}
        for player in group:
            c = np.array([float(col == player) for col in columns])
            if anchor not in group:
                c -= np.array([float(col in group) for col in columns]) / len(group)
            contrasts[player] = c
        beta = {p: theta[columns.index(p)] if p in columns else 0.0 for p in group}
        level = beta[anchor] if anchor in group else sum(beta.values()) / len(group)
        for player in group:
            c = contrasts[player]
            result[player] = ((beta[player] - level) * k, 1.959963984540054 * math.sqrt(c @ covariance @ c) * k)
    white = (theta[-1] * k, 1.959963984540054 * math.sqrt(covariance[-1, -1]) * k) if white_advantage else (0.0, 0.0)
    return result, white


def _random_field(seed: int, players: int, games: int, *, groups: int = 1, perfect: int = 0) -> Tally:
    """Random games between random players of the same group (colours both ways); extra players who win or lose all."""
    import random

    rng = random.Random(seed)
    strength = [rng.gauss(0, 300) for _ in range(players)]
    tally = Tally()
    for _ in range(games):
        group = rng.randrange(groups)
        a, b = rng.sample(range(group, players, groups), 2)
        p = stats.score_from_elo(strength[a] - strength[b] + 35)
        r = rng.random()
        result = Result.DRAW if r < 0.3 * (1 - abs(2 * p - 1)) else Result.WHITE_WINS if r < p else Result.BLACK_WINS
        tally.add(GameResult(f"P{a}", f"P{b}", result))
    for k in range(perfect):
        for j in range(3):
            result = Result.WHITE_WINS if k % 2 == 0 else Result.BLACK_WINS
            tally.add(GameResult(f"X{k}", f"P{(k + j) % players}", result))
    return tally


def _assert_agrees(tally: Tally, **options: object) -> None:
    fitted = ratings.fit(tally, **options)  # type: ignore[arg-type]
    expected, (white, white_error) = _reference(tally, **options)  # type: ignore[arg-type]
    for name, (elo, error) in expected.items():
        assert fitted.ratings[name].elo == pytest.approx(elo, abs=0.01), name
        assert fitted.ratings[name].error == pytest.approx(error, abs=0.01), name
    assert fitted.white_advantage == pytest.approx(white, abs=0.01)
    assert fitted.white_advantage_error == pytest.approx(white_error, abs=0.01)


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_a_plain_logistic_regression(seed: int) -> None:
    # Perfect and zero scores (X0, X1), two or three separate groups, white advantage, a named anchor.
    tally = _random_field(seed, 12 + seed, 400, groups=1 + seed % 3, perfect=2)
    _assert_agrees(tally, anchor=None, white_advantage=seed % 2 == 0, prior=1.0)
    _assert_agrees(tally, anchor="P1", white_advantage=seed % 2 == 1, prior=2.0)


def test_a_group_beating_another_in_every_game_gives_everybody_the_virtual_draws() -> None:
    tally = Tally()
    for _ in range(5):
        for a, b in [("A1", "A2"), ("A2", "A1"), ("B1", "B2"), ("B2", "B1")]:
            tally.add(GameResult(a, b, Result.WHITE_WINS))
        tally.add(GameResult("A1", "B1", Result.WHITE_WINS))
        tally.add(GameResult("B2", "A2", Result.BLACK_WINS))
    fitted = ratings.fit(tally)
    expected, _ = _reference(tally, anchor=None, white_advantage=False, prior=1.0, everybody=True)
    for name, (elo, error) in expected.items():
        assert fitted.ratings[name].elo == pytest.approx(elo, abs=0.01)
        assert fitted.ratings[name].error == pytest.approx(error, abs=0.01)
    assert fitted.elo()["A1"] - fitted.elo()["B1"] > 400


@pytest.mark.parametrize("large", [False, True])
def test_white_winning_every_game_gives_everybody_the_virtual_draws(
    large: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """White won every game: the white advantage's maximum is at infinity. It ran to +6524 Elo ± 0 (and, with one
    draw beside, dragged players of equal scores 3000 Elo apart, ± 6e9); now caught as a runaway like a rating's."""
    if large:
        monkeypatch.setattr(jointfit, "DENSE_LIMIT", 0)
    tally = Tally()
    for a, b in [("A", "B"), ("B", "A"), ("A", "B")]:
        tally.add(GameResult(a, b, Result.WHITE_WINS))
    tally.add(GameResult("C", "A", Result.WHITE_WINS))
    tally.add(GameResult("B", "C", Result.WHITE_WINS))
    fitted = ratings.fit(tally, white_advantage=True)
    assert 0 < fitted.white_advantage < 1000 and 0 < fitted.white_advantage_error < 1000
    assert all(abs(r.elo) < 200 and 0 < r.error < 1000 for r in fitted.ratings.values())
    if not large:
        expected, white = _reference(tally, anchor=None, white_advantage=True, prior=1.0, everybody=True)
        assert fitted.white_advantage == pytest.approx(white[0], abs=0.01)
        for name, (elo, error) in expected.items():
            assert fitted.ratings[name].elo == pytest.approx(elo, abs=0.01)
            assert fitted.ratings[name].error == pytest.approx(error, abs=0.01)


def test_a_thousand_players_who_meet_similar_opponents_recover_their_strengths() -> None:
    import random

    rng = random.Random(7)
    players = 1000
    strength = sorted(rng.gauss(0, 400) for _ in range(players))
    tally = Tally()
    for _ in range(60_000):
        a = rng.randrange(players)
        b = min(players - 1, max(0, a + rng.randint(-15, 15)))
        if a != b:
            p = stats.score_from_elo(strength[a] - strength[b])
            r = rng.random()
            won = Result.WHITE_WINS if r < p + 0.1 else Result.BLACK_WINS
            tally.add(GameResult(f"P{a}", f"P{b}", Result.DRAW if r < 0.2 else won))
    fitted = ratings.fit(tally, anchor="P500", anchor_elo=strength[500])
    inside = sum(abs(r.elo - strength[int(name[1:])]) <= r.error for name, r in fitted.ratings.items())
    assert fitted.groups == 1
    # 95 % intervals: about 950 of 1000 should cover the truth.
    assert inside >= 900
    assert fitted.ratings["P0"].error > fitted.ratings["P499"].error > 0


@pytest.mark.parametrize("seed", range(3))
def test_the_large_field_method_gives_the_same_ratings(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Perfect scores, separate groups, white advantage and an anchor, through both methods.
    tally = _random_field(seed, 30, 600, groups=1 + seed % 2, perfect=2)
    options = {"anchor": "P1" if seed == 1 else None, "white_advantage": seed != 2}
    exact = ratings.fit(tally, **options)  # type: ignore[arg-type]
    monkeypatch.setattr(jointfit, "DENSE_LIMIT", 0)
    large = ratings.fit(tally, **options)  # type: ignore[arg-type]
    assert exact.exact_errors and not large.exact_errors
    assert large.white_advantage == pytest.approx(exact.white_advantage, abs=0.01)
    for name, rating in exact.ratings.items():
        assert large.ratings[name].elo == pytest.approx(rating.elo, abs=0.01), name
        # Only the player's own games: not larger than the exact margin (far from the anchor, much smaller).
        if rating.error:
            assert 0 < large.ratings[name].error < 1.1 * rating.error, name
    games = [
        GameResult(white, black, result)
        for (white, black), counts in tally.pairs.items()
        for result, count in zip((Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS), counts, strict=True)
        for _ in range(count)
    ]
    table = crosstable.build(games)
    assert any("each Elo margin counts only the player's own games" in note for note in table.notes)


@pytest.mark.parametrize("white_advantage", [False, True])
def test_no_games_and_one_game(white_advantage: bool) -> None:
    # A tourney's dashboard fits before any game and after the first.
    assert ratings.fit(Tally(), white_advantage=white_advantage).ratings == {}
    one = ratings.fit(Tally().update([GameResult("A", "B", Result.WHITE_WINS)]), white_advantage=white_advantage)
    assert one.elo()["A"] > one.elo()["B"] and one.groups == 1
