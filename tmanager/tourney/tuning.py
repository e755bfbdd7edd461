"""An SPSA tune played by the workers: each game pair one step, θ moved once per pair, whoever dies when.

A tune's tourney is a round robin of two participants, one colour-reversed pair a cycle (see
:func:`~tmanager.tourney.validation.validate`): against the mirror games ``2k`` and ``2k + 1`` are pair
(step) ``k``, the first participant plays θ + cΔ in both and the second θ − cΔ; against a fixed base games
``4k`` to ``4k + 3`` are step ``k``, on one opening, the first participant θ + cΔ in the first two and θ − cΔ
in the last two, the second participant as it is. Under the file's lock, in the transactions the worker
makes anyway:

* claiming a game of a pair not yet begun records the θ it is drawn at (:func:`begin`); its directions
  and roundings come from the pair's seed, so a game played again, after a kill or a stop, plays the
  very same values (:func:`nudged`);
* whenever results change (a game recorded, a dead worker's game recovered from the PGN),
  :func:`advance` applies every complete pair after the last applied, in pair order, and only those:
  the count of pairs applied is kept with θ in the same write as the result, so each pair moves θ
  exactly once.

With one lane at a time, pair ``k`` is drawn at θ after pair ``k − 1``: the tune is the same whatever
was killed when. With several, a pair is drawn at the θ of its claim, as on fishtest's and
OpenBench's workers, and the result depends on the order the games end in.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from tmanager.core.spsa import (
    ParamKind,
    Side,
    TuneSettings,
    TuneState,
    format_input,
    format_values,
    side_of,
    step_margin,
)
from tmanager.files import atomic_write
from tmanager.tourney.alphabet import BLACK_WINS, DRAW, FINISHED_CHARS, WHITE_WINS

if TYPE_CHECKING:
    from pathlib import Path

    from tmanager.tourney.engines import EngineSpec, OptionValue
    from tmanager.tourney.model import Tourney

#: The participant under tuning; the other plays θ − cΔ, or is the fixed base.
TUNED = 0


def pair_of(tune: TuneSettings, number: int) -> int:
    """The step game ``number`` of a tune belongs to: against the mirror games ``2k`` and ``2k + 1``, against a
    base ``4k`` to ``4k + 3``."""
    return number // tune.opponent.games_per_step


def opening_key(tune: TuneSettings, number: int) -> int:
    """Game ``number``'s opening key: each step plays one opening, whatever its number of games."""
    return pair_of(tune, number)


def state(tourney: Tourney, tune: TuneSettings) -> TuneState:
    """Where the tune stands: the file's ``[tuning]``, or its start before the first pair."""
    return tourney.tuning if tourney.tuning is not None else TuneState.initial(tune)


def begin(tourney: Tourney, number: int) -> None:
    """Game ``number`` is claimed: its pair is drawn at the current θ, unless it was drawn before."""
    if tourney.spsa is not None:
        tourney.tuning = state(tourney, tourney.spsa).begin(pair_of(tourney.spsa, number))


def advance(tourney: Tourney) -> int:
    """Apply every complete pair after the last one applied, in order; the number applied now. The last
    pair of the tune writes its values (:func:`write_values`)."""
    tune = tourney.spsa
    if tune is None:
        return 0
    current = state(tourney, tune)
    schedule = tourney.schedule()
    applied = 0
    size = tune.opponent.games_per_step
    while current.pairs < tune.iterations:
        games = range(size * current.pairs, size * (current.pairs + 1))
        chars = [tourney.result(n) for n in games]
        if not all(char in FINISHED_CHARS for char in chars):
            break
        points = []
        for number, char in zip(games, chars, strict=True):
            game = schedule.game(number)
            assert game is not None  # a tune's schedule holds every step up to its iterations
            won = {WHITE_WINS: game.white, BLACK_WINS: game.black}.get(char)
            points.append(0.5 if char == DRAW else 1.0 if won == TUNED else 0.0)
        current = current.apply(tune, plus_margin=step_margin(tune.opponent, points))
        applied += 1
    if applied:
        tourney.tuning = current
        if current.pairs == tune.iterations:
            write_values(tourney)
    return applied


def nudged(tourney: Tourney, number: int, index: int, spec: EngineSpec) -> EngineSpec:
    """Participant ``index``'s engine for game ``number`` of a tune: its options at its side's values of
    the pair's step, restarted after the game (the next pair plays other values); a fixed base at its own
    options, restarted too."""
    tune = tourney.spsa
    if tune is None:
        return spec
    pair = pair_of(tune, number)
    side = side_of(tune.opponent, game=number - pair * tune.opponent.games_per_step, participant=index)
    if side is Side.BASE:  # restarted too: a game played again after a kill finds it as it was the first time
        return dataclasses.replace(spec, restart=True)
    step = state(tourney, tune).step(tune, pair)
    values = step.plus if side is Side.PLUS else step.minus
    options = dict(spec.options)
    for param, value in zip(tune.params, values, strict=True):
        options[param.name] = option_value(param.kind, value)
    return dataclasses.replace(spec, options=options, restart=True)


def option_value(kind: ParamKind, value: float) -> OptionValue:
    """A value as the engine's option takes it: a whole number for an ``int`` (a UCI spin), text otherwise."""
    return int(value) if kind is ParamKind.INT else repr(float(value))


def final_values(tourney: Tourney) -> str:
    """The tune's values as engine authors paste them back: ``name, value`` lines, then a blank line and
    OpenBench's input lines starting from them (to tune on from there)."""
    tune = tourney.spsa
    assert tune is not None
    theta = state(tourney, tune).theta
    return f"{format_values(tune.params, theta)}\n\n{format_input(tune.params, theta)}\n"


def environment(tourney: Tourney) -> dict[str, str]:
    """``after_tourney``'s SPSA variables: the values file's path and the ``name, value`` lines."""
    tune = tourney.spsa
    if tune is None:
        return {}
    return {
        "TMANAGER_SPSA_FILE": str(values_path(tourney)),
        "TMANAGER_SPSA_VALUES": format_values(tune.params, state(tourney, tune).theta),
        "TMANAGER_SPSA_PAIRS": str(state(tourney, tune).pairs),
    }


def values_path(tourney: Tourney) -> Path:
    """Where a tune's values are written when it ends: ``NAME.spsa.txt`` beside the tourney file."""
    return tourney.path.with_suffix(".spsa.txt")


def write_values(tourney: Tourney) -> None:
    """Write :func:`final_values` to :func:`values_path` (atomically: a reader sees the whole or nothing)."""
    atomic_write(values_path(tourney), final_values(tourney))


#: Points of each parameter's path that :func:`describe` shows (evenly spread over the history).
PATH_POINTS = 6


def describe(tourney: Tourney) -> list[str]:
    """A tune's state for ``status`` and ``run``: the pairs applied, then for each parameter its value (and
    the value the engine plays), start and bounds, the next pair's perturbation c and gain a, and its path."""
    tune = tourney.spsa
    if tune is None:
        return []
    current = state(tourney, tune)
    k = current.next_iteration(tune)
    lines = [f"SPSA: {current.pairs} of {tune.iterations} pairs applied; c and a of pair {k}:"]
    history = current.history
    shown = sorted({round(i * (len(history) - 1) / (PATH_POINTS - 1)) for i in range(PATH_POINTS)})
    for i, param in enumerate(tune.params):
        c, a = tune.gains.perturbation(param, k), tune.gains.gain(param, k)
        path = " → ".join(f"{history[n][1][i]:.4g}" for n in shown) if history else ""
        lines.append(
            f"  {param.name} = {current.theta[i]:.4f} ({param.engine_value(current.theta[i])}), start {param.start:g} "
            f"in [{param.minimum:g}, {param.maximum:g}], c {c:.4g}, a {a:.4g}; path {path}"
        )
    return lines
