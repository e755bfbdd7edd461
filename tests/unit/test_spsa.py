"""SPSA's pure core: the gains as fishtest and OpenBench define them, a step drawn from its seed, the update,
and the input lines people paste."""

from __future__ import annotations

import dataclasses
import math

import pytest

from tmanager.core import spsa
from tmanager.core.spsa import Gains, ParamKind, SpsaParam
from tmanager.errors import ConfigError

HASH = SpsaParam("Aggression", ParamKind.INT, 100, 0, 200, 10, 0.002)
BLEND = SpsaParam("Blend", ParamKind.FLOAT, 0.5, 0.0, 1.0, 0.05, 0.002)


def test_the_last_iteration_ends_on_c_end_and_r_end() -> None:
    gains = Gains(iterations=1000)
    for param in (HASH, BLEND):
        assert gains.perturbation(param, 1000) == pytest.approx(param.c_end)
        assert gains.learning_rate(param, 1000) == pytest.approx(param.r_end)
        assert gains.gain(param, 1000) == pytest.approx(param.r_end * param.c_end**2)  # a = R · c² (status shows a)


def test_the_gains_follow_openbenchs_definitions_from_the_first_iteration() -> None:
    gains = Gains(iterations=500, alpha=0.602, gamma=0.101, a_ratio=0.1)
    c_value = BLEND.c_end * 500**0.101
    a_value = BLEND.r_end * BLEND.c_end**2 * (0.1 * 500 + 500) ** 0.602
    for k in (1, 2, 37, 500):
        c_k = c_value / k**0.101
        assert gains.perturbation(BLEND, k) == pytest.approx(c_k)
        assert gains.learning_rate(BLEND, k) == pytest.approx(a_value / (50 + k) ** 0.602 / c_k**2)


def test_an_int_parameters_perturbation_is_at_least_a_half() -> None:
    small = SpsaParam("Tiny", ParamKind.INT, 3, 0, 6, 0.2, 0.002)
    assert Gains(iterations=10).perturbation(small, 10) == 0.5
    assert Gains(iterations=10).perturbation(BLEND, 10) == pytest.approx(0.05)


def test_a_step_is_drawn_from_its_seed_alone() -> None:
    gains, params, theta = Gains(iterations=100), (HASH, BLEND), (100.0, 0.5)
    first = spsa.plan_step(gains, params, theta, pair=4, seed=spsa.pair_seed(7, 4))
    again = spsa.plan_step(gains, params, theta, pair=4, seed=spsa.pair_seed(7, 4))
    assert first == again
    seeds = {spsa.pair_seed(7, pair) for pair in range(200)}
    assert len(seeds) == 200
    drawn = {spsa.plan_step(gains, params, theta, pair=4, seed=s).directions for s in seeds}
    assert drawn == {(1, 1), (1, -1), (-1, 1), (-1, -1)}


def test_the_two_sides_lie_either_side_of_theta_by_the_perturbation() -> None:
    gains, params, theta = Gains(iterations=100), (HASH, BLEND), (100.0, 0.5)
    for pair in range(50):
        step = spsa.plan_step(gains, params, theta, pair=pair, seed=spsa.pair_seed(1, pair))
        c_int, c_float = step.perturbations
        d_int, d_float = step.directions
        assert step.plus[1] == pytest.approx(0.5 + d_float * c_float)
        assert step.minus[1] == pytest.approx(0.5 - d_float * c_float)
        # stochastic rounding: floor(x + u), with one u for both sides
        assert all(isinstance(v, int) for v in (step.plus[0], step.minus[0]))
        assert abs(step.plus[0] - (100 + d_int * c_int)) < 1
        assert abs(step.minus[0] - (100 - d_int * c_int)) < 1
        assert step.plus[0] - step.minus[0] in {math.floor(2 * d_int * c_int), math.ceil(2 * d_int * c_int)}


def test_the_sides_are_clipped_to_the_bounds() -> None:
    edge = SpsaParam("Edge", ParamKind.INT, 0, 0, 10, 5, 0.002)
    for pair in range(20):
        step = spsa.plan_step(Gains(iterations=10), (edge,), (0.0,), pair=pair, seed=pair)
        assert 0 <= step.plus[0] <= 10 and 0 <= step.minus[0] <= 10
        assert 0 in (step.plus[0], step.minus[0])


def test_theta_moves_towards_the_side_that_scored_and_stays_put_on_an_even_pair() -> None:
    gains, params, theta = Gains(iterations=100), (HASH, BLEND), (100.0, 0.5)
    step = spsa.plan_step(gains, params, theta, pair=0, seed=3)
    assert spsa.updated_theta(gains, params, step, theta, plus_margin=0) == theta
    won = spsa.updated_theta(gains, params, step, theta, plus_margin=2)
    for param, before, after, delta, c in zip(params, theta, won, step.directions, step.perturbations, strict=True):
        assert after - before == pytest.approx(gains.learning_rate(param, 1) * c * 2 * delta)
    lost = spsa.updated_theta(gains, params, step, theta, plus_margin=-1)
    assert [math.copysign(1, a - t) for a, t in zip(lost, theta, strict=True)] == [-d for d in step.directions]


def test_theta_is_clipped_to_the_bounds() -> None:
    wide = SpsaParam("Wide", ParamKind.FLOAT, 0.99, 0.0, 1.0, 0.5, 1000.0)
    step = spsa.plan_step(Gains(iterations=10), (wide,), (0.99,), pair=0, seed=0)
    margin = 2 * step.directions[0]
    assert spsa.updated_theta(Gains(iterations=10), (wide,), step, (0.99,), plus_margin=margin) == (1.0,)
    assert spsa.updated_theta(Gains(iterations=10), (wide,), step, (0.99,), plus_margin=-margin) == (0.0,)


def test_openbench_and_fishtest_lines_are_read() -> None:
    text = "# mine\nAggression, int, 100, 0, 200, 10, 0.002\n\nBlend, float, 0.5, 0.0, 1.0, 0.05, 0.002\n"
    assert spsa.parse_input(text) == (HASH, BLEND)
    assert spsa.parse_input("Aggression,100,0,200,10,0.002") == (HASH,)


def test_the_lines_written_are_read_back_and_start_from_theta() -> None:
    text = spsa.format_input((HASH, BLEND))
    assert text == "Aggression, int, 100, 0, 200, 10, 0.002\nBlend, float, 0.5, 0, 1, 0.05, 0.002"
    assert spsa.parse_input(text) == (HASH, BLEND)
    moved = spsa.parse_input(spsa.format_input((HASH, BLEND), (123.6, 0.25)))
    assert [p.start for p in moved] == [124, 0.25]


def test_an_int_parameter_may_start_between_two_whole_numbers() -> None:
    """fishtest's lines carry θ as a real number (``Foo, 10.37, 0, 20, 1, 0.002``, a tune's result pasted back),
    as OpenBench's may: both take them, and were refused ("start, min and max are whole numbers")."""
    (param,) = spsa.parse_input("Foo, 10.37, 0, 20, 1, 0.002")
    assert param.kind is spsa.ParamKind.INT and param.start == 10.37
    tune = spsa.TuneSettings("Foo, 10.37, 0, 20, 1, 0.002", iterations=100)
    state = spsa.TuneState.initial(tune)
    assert state.theta == (10.37,)
    played = {value for pair in range(200) for value in (*state.step(tune, pair).plus, *state.step(tune, pair).minus)}
    assert played <= set(range(7, 15)) and all(isinstance(value, int) for value in played)
    assert spsa.format_values(tune.params, state.theta) == "Foo, 10"


def test_the_values_are_written_as_the_engine_takes_them() -> None:
    assert spsa.format_values((HASH, BLEND), (123.4, 0.3125)) == "Aggression, 123\nBlend, 0.3125"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("A, int, 5, 10, 0, 1, 0.1", "line 1: A: min 10 is above max 0 (swap them)"),
        ("A, int, 50, 0, 10, 1, 0.1", "line 1: A: start 50 is outside [0, 10]"),
        ("A, int, 5, 0.5, 10, 1, 0.1", "line 1: A: an int parameter's min and max are whole numbers"),
        ("A, int, 5, 0, 9.5, 1, 0.1", "line 1: A: an int parameter's min and max are whole numbers"),
        ("A, int, 5, 0, 10, 0, 0.1", "line 1: A: c_end and r_end must be above 0"),
        # r_end 0 divides by nothing (Rₖ = aₖ/cₖ², cₖ ≥ c_end > 0) but makes every aₖ 0: θ would never move
        ("A, int, 5, 0, 10, 1, 0", "line 1: A: c_end and r_end must be above 0"),
        ("A, 5, 0, 10, 1, -0", "line 1: A: c_end and r_end must be above 0"),  # fishtest's line, minus zero
        ("A, bool, 5, 0, 10, 1, 0.1", "line 1: A: type 'bool' is neither int nor float"),
        ("A, int, five, 0, 10, 1, 0.1", "line 1: A: not a number among five, 0, 10, 1, 0.1"),
        ("A, int, 5, 0", "line 1: 4 fields in 'A, int, 5, 0'"),
        # OpenBench's line without its r_end has fishtest's 6 fields: "not a number among int, …" said nothing more
        ("A, int, 5, 0, 10, 1", "line 1: A: 6 fields after the type 'int': one is missing (name, int|float, start, "),
        (", int, 5, 0, 10, 1, 0.1", "line 1: a parameter without a name (the engine option's name first)"),
        ("A, int, 5, 0, 10, 1, 0.1\nA, int, 5, 0, 10, 1, 0.1", "line 2: A is given twice (one line a parameter)"),
        ("Skill Level, int, 5, 0, 10, 1, 0.1\nskill level, int, 5, 0, 10, 1, 0.1",
         "line 2: skill level is given twice (as Skill Level: option names ignore case) (one line a parameter)"),
        ("A, float, nan, 0, 10, 1, 0.1", "line 1: A: start must be a number, not nan"),
        ("# nothing\n", "no parameter"),
    ],
)
def test_bad_lines_are_one_line_naming_the_line(text: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        spsa.parse_input(text)
    assert str(caught.value).startswith(words)
    assert "\n" not in str(caught.value)
    assert caught.value.hint, "each says how to fix it"


@pytest.mark.parametrize(
    ("gains", "field"),
    [
        (Gains(iterations=0), "iterations"),
        (Gains(iterations=5, alpha=-1), "alpha"),
        (Gains(5, gamma=math.inf), "gamma"),
    ],
)
def test_bad_gains_name_their_field(gains: Gains, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        gains.check()
    assert caught.value.field == field


def test_a_noiseless_tune_walks_to_the_optimum() -> None:
    """A pair won by the side nearer the hidden optimum, drawn when both are as near: θ converges."""
    gains = Gains(iterations=400)
    params = (SpsaParam("X", ParamKind.INT, 20, 0, 100, 4, 0.01),)
    theta: tuple[float, ...] = (20.0,)
    for pair in range(400):
        step = spsa.plan_step(gains, params, theta, pair=pair, seed=spsa.pair_seed(0, pair))
        margin = abs(step.minus[0] - 60) - abs(step.plus[0] - 60)
        theta = spsa.updated_theta(gains, params, step, theta, plus_margin=2 * (margin > 0) - 2 * (margin < 0))
    assert abs(theta[0] - 60) < 3


TUNE = spsa.TuneSettings(
    parameters="Aggression, int, 100, 0, 200, 10, 0.002\nBlend, float, 0.5, 0, 1, 0.05, 0.002",
    iterations=6,
    seed=11,
    history_every=4,
)


def test_a_pair_begun_keeps_the_theta_it_was_drawn_at() -> None:
    state = spsa.TuneState.initial(TUNE).begin(0)
    assert state.theta == (100.0, 0.5) and state.begun == {0: (100.0, 0.5)}
    moved = state.apply(TUNE, plus_margin=2)
    assert moved.pairs == 1 and moved.begun == {} and moved.theta != state.theta
    assert moved.begin(0) == moved  # applied already: a replay draws nothing new
    again = moved.begin(1)
    assert again.begin(1) == again and again.begun == {1: moved.theta}
    assert (
        again.step(TUNE, 1)
        == again.step(TUNE, 1)
        == spsa.plan_step(TUNE.gains, TUNE.params, moved.theta, pair=1, seed=spsa.pair_seed(11, 1))
    )


def test_a_pair_under_way_keeps_its_step_through_an_edit_of_the_settings() -> None:
    state = spsa.TuneState.initial(TUNE).begin(0)
    drawn = state.step(TUNE, 0)
    edited = dataclasses.replace(TUNE, seed=12, alpha=0.7, iterations=TUNE.iterations * 2)
    assert state.step(edited, 0) != drawn  # what the edit would have done to the pair under way
    frozen = state.frozen(TUNE)
    assert frozen.step(edited, 0) == drawn and frozen.frozen(edited).step(edited, 0) == drawn  # a second edit too
    moved = frozen.begin(1).apply(edited, plus_margin=2)
    assert moved.drawn == {} and moved.theta == spsa.updated_theta(
        edited.gains, edited.params, drawn, state.theta, plus_margin=2
    )
    assert moved.step(edited, 1) == spsa.plan_step(
        edited.gains, edited.params, state.theta, pair=1, seed=spsa.pair_seed(12, 1)
    )  # a pair begun after the edit is drawn by the new settings


def test_the_history_keeps_theta_every_so_many_pairs_and_at_the_end() -> None:
    state = spsa.TuneState.initial(TUNE)
    for pair in range(6):
        state = state.begin(pair).apply(TUNE, plus_margin=1)
    assert [pairs for pairs, _ in state.history] == [0, 4, 6]
    assert state.history[-1][1] == state.theta


def test_a_long_tune_keeps_a_history_of_about_a_thousand_points() -> None:
    """θ after every pair of a 20,000-pair tune made each transaction of the workers read and write 20,000 points
    (0.4 s a transaction, the lock held so at every claim and record)."""
    long = dataclasses.replace(TUNE, iterations=2500, history_every=1)
    assert long.history_spacing == 3 and dataclasses.replace(long, history_every=5).history_spacing == 5
    state = spsa.TuneState.initial(long)
    for pair in range(long.iterations):
        state = state.begin(pair).apply(long, plus_margin=1 if pair % 3 else -1)
    kept = [pairs for pairs, _ in state.history]
    assert kept[:3] == [0, 3, 6] and kept[-2:] == [2499, 2500] and len(kept) == 835 <= spsa.HISTORY_POINTS
    assert state.history[-1][1] == state.theta


def test_bad_tune_settings_name_their_field() -> None:
    with pytest.raises(ConfigError) as caught:
        spsa.TuneSettings(parameters="A, int, 50, 0, 10, 1, 0.1", iterations=5).check()
    assert str(caught.value) == "parameters: line 1: A: start 50 is outside [0, 10] (start within the bounds)"
    with pytest.raises(ConfigError) as caught:
        spsa.TuneSettings(parameters=TUNE.parameters, iterations=5, history_every=0).check()
    assert caught.value.field == "history_every"


def test_a_step_against_the_mirror_is_one_pair_and_its_margin_the_plus_sides_wins_less_losses() -> None:
    mirror = spsa.Opponent.MIRROR
    assert mirror.games_per_step == 2
    assert [spsa.side_of(mirror, game=g, participant=p) for g in (0, 1) for p in (0, 1)] == [
        spsa.Side.PLUS, spsa.Side.MINUS, spsa.Side.PLUS, spsa.Side.MINUS,
    ]  # fmt: skip
    assert spsa.step_margin(mirror, [1, 1]) == 2 and spsa.step_margin(mirror, [0, 0.5]) == -1
    assert spsa.step_margin(mirror, [1, 0]) == 0 and spsa.step_margin(mirror, [0.5, 0.5]) == 0


def test_a_step_against_a_base_is_four_games_plus_then_minus_each_against_the_base() -> None:
    base = spsa.Opponent.BASE
    assert base.games_per_step == 4
    assert [spsa.side_of(base, game=g, participant=0) for g in range(4)] == [
        spsa.Side.PLUS, spsa.Side.PLUS, spsa.Side.MINUS, spsa.Side.MINUS,
    ]  # fmt: skip
    assert {spsa.side_of(base, game=g, participant=1) for g in range(4)} == {spsa.Side.BASE}
    # score(θ + cΔ) − score(θ − cΔ): the first pair's points less the second's, −2…2 as against the mirror.
    assert spsa.step_margin(base, [1, 1, 0, 0]) == 2 and spsa.step_margin(base, [0, 0, 1, 1]) == -2
    assert spsa.step_margin(base, [1, 0.5, 0.5, 0]) == 1 and spsa.step_margin(base, [1, 1, 1, 1]) == 0
    assert spsa.step_margin(base, [0.5, 0, 0, 0]) == 0.5  # a half point moves θ by half a win
    with pytest.raises(ValueError, match="base has 4 games"):
        spsa.step_margin(base, [1, 1])


def test_a_half_point_margin_moves_theta_half_as_far_as_a_whole_one() -> None:
    tune = spsa.TuneSettings("Blend, float, 0.5, 0, 1, 0.05, 0.002\n", iterations=10, opponent=spsa.Opponent.BASE)
    start = spsa.TuneState.initial(tune).begin(0)
    half, whole = (start.apply(tune, plus_margin=m).theta[0] - 0.5 for m in (0.5, 1))
    assert whole != 0 and half == pytest.approx(whole / 2)


@pytest.mark.parametrize(
    ("line", "gamma"),
    [
        ("A, int, 10, 0, 20, 1e300, 1e300", spsa.DEFAULT_GAMMA),  # a₁ = r_end·c_end²·… overflows
        ("A, float, 10, 0, 20, 1e-200, 0.002", spsa.DEFAULT_GAMMA),  # c_end² is 0: Rₖ = aₖ/cₖ² divides by it
        ("A, int, 10, 0, 20, 3, 0.002", 1000.0),  # c₁ = c_end·N^γ overflows
        ("A, float, 1e308, -1e308, 1.7e308, 1e308, 0.002", spsa.DEFAULT_GAMMA),  # θ + c₁ is inf
    ],
)
def test_gains_beyond_a_float_are_refused_before_any_pair(line: str, gamma: float) -> None:
    """Such a tune used to be accepted; its first pair's update (or `status`) then died of an OverflowError or
    wrote θ = nan."""
    with pytest.raises(ConfigError) as caught:
        spsa.TuneSettings(parameters=line, iterations=3, gamma=gamma).check()
    assert caught.value.field == "parameters" and "beyond a float's range" in caught.value.message


def test_gains_within_range_are_accepted_at_every_length() -> None:
    for iterations in (1, 3, 3_000_000):
        spsa.TuneSettings(parameters=TUNE.parameters, iterations=iterations).check()
