"""A tune on a tourney in memory: pairs begun at θ, applied once each and in order as their games finish, the
engines' options of each side, the values handed over at the end. No process, no file lock."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tmanager.core import spsa
from tmanager.errors import ConfigError
from tmanager.tourney import editing, tuning, validation
from tmanager.tourney.engines import EngineSpec, Protocol
from tmanager.tourney.hookrun import AFTER_TOURNEY, add_hooks
from tmanager.tourney.model import PLAYING, Participant, Settings, Tourney

TUNE = spsa.TuneSettings(
    parameters="Aggression, int, 100, 0, 200, 10, 0.002\nBlend, float, 0.5, 0, 1, 0.05, 0.002\n",
    iterations=3,
    seed=5,
)


def tune(tmp_path: Path) -> Tourney:
    participants = [Participant("plus", engine="random-uci"), Participant("minus", engine="random-uci")]
    settings = Settings(nodes=1, after_tourney="true")
    return Tourney(path=tmp_path / "t.toml", settings=settings, participants=participants, spsa=TUNE)


def expected(margins: list[int]) -> spsa.TuneState:
    state = spsa.TuneState.initial(TUNE)
    for pair, margin in enumerate(margins):
        state = state.begin(pair).apply(TUNE, plus_margin=margin)
    return state


def test_a_pair_is_applied_once_when_both_its_games_are_in_and_in_order(tmp_path: Path) -> None:
    t = tune(tmp_path)
    for number in range(4):  # two pairs begun at the start's θ, as with two lanes
        t.set_result(number, PLAYING)
        tuning.begin(t, number)
    assert t.tuning is not None and t.tuning.begun == {0: (100.0, 0.5), 1: (100.0, 0.5)}
    t.set_result(2, "+")  # pair 1: the first participant had white in game 2 and won...
    t.set_result(3, "+")  # ... and black in game 3, and lost: 1 - 1
    assert tuning.advance(t) == 0 and t.tuning.pairs == 0  # pair 0 is not in yet: pair 1 waits
    t.set_result(0, "-")  # pair 0: plus lost with white...
    t.set_result(1, "+")  # ... and with black
    assert tuning.advance(t) == 2 and tuning.advance(t) == 0  # each pair once
    want = spsa.TuneState.initial(TUNE).begin(0).begin(1).apply(TUNE, plus_margin=-2).apply(TUNE, plus_margin=0)
    assert t.tuning == want and t.tuning.begun == {}
    assert not tuning.values_path(t).exists()  # the tune is not over


def test_a_pair_begun_again_keeps_its_theta_and_plays_the_same_values(tmp_path: Path) -> None:
    t = tune(tmp_path)
    t.set_result(0, PLAYING)
    tuning.begin(t, 0)
    spec = EngineSpec("plus", ("engine",), Protocol.UCI, options={"Hash": 16, "Aggression": 1})
    first = [tuning.nudged(t, 0, index, spec) for index in (0, 1)]
    t.set_result(0, "=")
    t.set_result(1, "=")
    # Game 0 is played again (its worker was killed) after θ moved on: pair 0 was begun at 100, 0.5.
    t.tuning = spsa.TuneState((150.0, 0.25), 0, {0: (100.0, 0.5)}, ((0, (100.0, 0.5)),))
    t.set_result(0, PLAYING)
    tuning.begin(t, 0)
    assert [tuning.nudged(t, 0, index, spec) for index in (0, 1)] == first
    step = spsa.plan_step(TUNE.gains, TUNE.params, (100.0, 0.5), pair=0, seed=spsa.pair_seed(5, 0))
    plus, minus = first
    assert plus.options == {"Hash": 16, "Aggression": step.plus[0], "Blend": repr(step.plus[1])}
    assert minus.options == {"Hash": 16, "Aggression": step.minus[0], "Blend": repr(step.minus[1])}
    assert plus.restart and minus.restart  # the next pair plays other values


def test_the_last_pair_writes_the_values_and_after_tourney_gets_them(tmp_path: Path) -> None:
    t = tune(tmp_path)
    for number, char in enumerate("+--++="):  # the first participant: won both, lost both, won one and drew
        t.set_result(number, PLAYING)
        tuning.begin(t, number)
        t.set_result(number, char)
        tuning.advance(t)
    add_hooks(t, 5, {})
    state = expected([2, -2, 1])
    assert t.tuning == state and t.tuning.pairs == 3
    values = spsa.format_values(TUNE.params, state.theta)
    text = tuning.values_path(t).read_text()
    assert text == f"{values}\n\n{spsa.format_input(TUNE.params, state.theta)}\n"
    assert t.hooks[AFTER_TOURNEY].env == {
        "TMANAGER_SPSA_FILE": str(tmp_path / "t.spsa.txt"), "TMANAGER_SPSA_VALUES": values, "TMANAGER_SPSA_PAIRS": "3",
    }  # fmt: skip


BASE_TUNE = dataclasses.replace(TUNE, opponent=spsa.Opponent.BASE)


def test_against_a_base_a_step_is_four_games_on_one_opening_applied_once_all_four_are_in(tmp_path: Path) -> None:
    t = tune(tmp_path)
    t.spsa = BASE_TUNE
    assert t.schedule().total_games == 12  # 3 steps of 4 games
    assert [tuning.opening_key(BASE_TUNE, n) for n in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    spec = EngineSpec("plus", ("engine",), Protocol.UCI, options={"Aggression": 1})
    base = EngineSpec("base", ("engine",), Protocol.UCI, options={"Aggression": 7})
    t.set_result(0, PLAYING)
    tuning.begin(t, 0)
    step = spsa.TuneState.initial(BASE_TUNE).begin(0).step(BASE_TUNE, 0)
    for number, values in ((0, step.plus), (1, step.plus), (2, step.minus), (3, step.minus)):
        assert tuning.nudged(t, number, 0, spec).options["Aggression"] == values[0]
        fixed = tuning.nudged(t, number, 1, base)
        assert fixed.options == {"Aggression": 7} and fixed.restart  # the base as it is, and replayable
    schedule = t.schedule()
    for number, char in enumerate("+-="):  # the first participant: white in games 0 and 2, black in 1 and 3
        t.set_result(number, char)
        assert tuning.advance(t) == 0  # the step waits for its fourth game
    assert [schedule.game(n).white for n in range(4)] == [0, 1, 0, 1]  # type: ignore[union-attr]
    t.set_result(3, "-")
    assert tuning.advance(t) == 1 and tuning.advance(t) == 0
    # θ + cΔ won both (2), θ − cΔ drew and won (1.5): a margin of 0.5.
    assert t.tuning == spsa.TuneState.initial(BASE_TUNE).begin(0).apply(BASE_TUNE, plus_margin=0.5)


def test_the_opponent_of_a_tune_with_results_cannot_change(tmp_path: Path) -> None:
    t = tune(tmp_path)
    editing.edit_setting(t, "spsa.opponent", "base")  # nothing recorded yet: the tune is laid out afresh
    assert t.spsa is not None and t.spsa.opponent is spsa.Opponent.BASE and t.schedule().total_games == 12
    t.set_result(0, "+")
    with pytest.raises(ConfigError, match="cannot change opponent once games are recorded") as refused:
        editing.edit_setting(t, "spsa.opponent", "mirror")
    assert refused.value.field == "spsa.opponent" and t.spsa.opponent is spsa.Opponent.BASE
    editing.edit_setting(t, "spsa.iterations", 4)  # lengthening a tune still is allowed
    assert t.spsa.iterations == 4


def test_more_pairs_applied_than_the_tune_has_are_refused(tmp_path: Path) -> None:
    """A hand-edited [tuning] pairs = 100 of a 3-pair tune was taken: status said '100 of 3 pairs applied', and θ
    would move no more, nor the values be written."""
    t = tune(tmp_path)
    t.tuning = dataclasses.replace(spsa.TuneState.initial(TUNE), pairs=3)
    validation.validate(t, outputs=False)  # the whole tune applied
    t.tuning = dataclasses.replace(t.tuning, pairs=4)
    with pytest.raises(ConfigError) as refused:
        validation.validate(t, outputs=False)
    assert refused.value.field == "tuning.pairs"
    assert refused.value.message == "4 pairs applied, more than the tune's 3 iterations"


@pytest.mark.parametrize("field", ["tuning.history", "tuning.begun"])
def test_a_theta_without_a_value_for_each_parameter_is_refused(tmp_path: Path, field: str) -> None:
    """A hand-edited [tuning] history of one value for two parameters made status die of an IndexError as it drew
    the path; a pair begun at such a θ would have died when its step was drawn."""
    t = tune(tmp_path)
    state = spsa.TuneState.initial(TUNE)
    short = (100.0,)
    t.tuning = (dataclasses.replace(state, history=((0, short),)) if field == "tuning.history"
                else dataclasses.replace(state, begun={0: short}))
    with pytest.raises(ConfigError) as refused:
        validation.validate(t, outputs=False)
    assert refused.value.field == field and refused.value.message == "holds 1 values for 2 parameters"
