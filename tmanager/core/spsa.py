"""SPSA tuning as fishtest and OpenBench run it: the parameters, the gains, one step per game pair.

A tune nudges every parameter at once: for pair ``k`` (1-based, the *iteration*) each
parameter ``i`` gets a direction ``Δᵢ = ±1`` and a perturbation ``cₖ``; the engine under tuning
plays θ + cₖΔ against θ − cₖΔ, two games on one opening with colours reversed, and θ moves
towards the side that scored more::

    cₖ = C / k^γ                 C = c_end · N^γ                  (N: the iterations, γ: gamma)
    aₖ = a / (A + k)^α           a = r_end · c_end² · (A + N)^α    (A = a_ratio · N, α: alpha)
    Rₖ = aₖ / cₖ²
    θᵢ ← clip(θᵢ + Rₖ · cₖ · (W − L) · Δᵢ)                       (W − L: the θ + cₖΔ side's, over the pair)

so that at the last iteration ``cₖ = c_end`` and ``Rₖ = r_end``: the values people give are the
perturbation and learning rate the tune ends with. An integer parameter's ``cₖ`` is at least
0.5, and the values it plays at are rounded stochastically (``floor(x + u)``, one ``u`` a pair for
both sides), both as OpenBench does; θ itself stays a real number and is rounded when written out.

Against a fixed base instead (:class:`Opponent`), a step is four games on its one opening: θ + cₖΔ plays the
base in a colour-reversed pair, then θ − cₖΔ does, and (W − L) becomes score(θ + cₖΔ) − score(θ − cₖΔ), the
same −2…2 (:func:`step_margin`); against the mirror the two are one.

Everything random comes from the pair's own seed (:func:`pair_seed`), so a pair played again draws
the same directions and roundings. The input lines are OpenBench's ``name, int|float, start, min,
max, c_end, r_end``; fishtest's ``name, start, min, max, c_end, r_end`` is read as integers, the only
values its workers send. What it does not know: engines, files, games.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from tmanager.errors import ConfigError
from tmanager.tomlmap import SIGNED

#: The gains' exponents and A's share of the iterations that fishtest and OpenBench propose.
DEFAULT_ALPHA, DEFAULT_GAMMA, DEFAULT_A_RATIO = 0.602, 0.101, 0.1
#: The smallest perturbation of an integer parameter: below it both sides would mostly play one value.
INT_MIN_PERTURBATION = 0.5
#: About the most points of θ a tune's history keeps: every transaction of the workers reads and writes it whole,
#: and a point a pair made one of a 20,000-pair tune take 0.4 s (the lock held so, at every claim and record).
HISTORY_POINTS = 1000


class Opponent(enum.Enum):
    """Whom the engine under tuning plays: itself on the other side of the step, or a fixed base."""

    MIRROR = "mirror"  #: θ + cₖΔ against θ − cₖΔ, one colour-reversed pair a step (fishtest, OpenBench)
    BASE = "base"  #: θ + cₖΔ, then θ − cₖΔ, each against an unchanged engine in a colour-reversed pair

    @property
    def games_per_step(self) -> int:
        return 2 if self is Opponent.MIRROR else 4


class Side(enum.Enum):
    """What a participant plays in a game of a step."""

    PLUS = "plus"  #: θ + cₖΔ
    MINUS = "minus"  #: θ − cₖΔ
    BASE = "base"  #: its own options, untouched


def side_of(opponent: Opponent, *, game: int, participant: int) -> Side:
    """The side participant ``participant`` (0: the engine under tuning) plays in game ``game`` (0-based) of a
    step: against the mirror the first is θ + cₖΔ and the second θ − cₖΔ; against a base the first is
    θ + cₖΔ in the step's first pair and θ − cₖΔ in its second, the second participant the base in both."""
    if opponent is Opponent.MIRROR:
        return Side.PLUS if participant == 0 else Side.MINUS
    if participant != 0:
        return Side.BASE
    return Side.PLUS if game < 2 else Side.MINUS


def step_margin(opponent: Opponent, points: Sequence[float]) -> float:
    """score(θ + cₖΔ) − score(θ − cₖΔ) over a step's games (−2…2), from the first participant's points in
    each (1, ½ or 0, in game order). Against the mirror that is the θ + cₖΔ side's W − L over the pair; against
    a base, its score in the first pair less the θ − cₖΔ side's in the second."""
    if len(points) != opponent.games_per_step:
        raise ValueError(f"a step against the {opponent.value} has {opponent.games_per_step} games")
    scores = {Side.PLUS: 0.0, Side.MINUS: 0.0}
    for game, point in enumerate(points):
        scores[side_of(opponent, game=game, participant=0)] += point
    if opponent is Opponent.MIRROR:  # the other side scored what the first did not
        return scores[Side.PLUS] - (len(points) - scores[Side.PLUS])
    return scores[Side.PLUS] - scores[Side.MINUS]


class ParamKind(enum.Enum):
    """How the engine takes a parameter's value: a whole number (a UCI spin) or a real one (a string)."""

    INT = "int"
    FLOAT = "float"


@dataclass(frozen=True, slots=True)
class SpsaParam:
    """One parameter under tuning: the engine option ``name``, where it starts, its bounds, and the
    perturbation (``c_end``) and learning rate (``r_end``) of the tune's last iteration."""

    name: str
    kind: ParamKind
    start: float
    minimum: float
    maximum: float
    c_end: float
    r_end: float

    def check(self) -> None:
        """:class:`ConfigError` naming what is wrong unless the parameter can be tuned."""
        numbers = {"start": self.start, "min": self.minimum, "max": self.maximum, "c_end": self.c_end}
        for word, number in {**numbers, "r_end": self.r_end}.items():
            if not math.isfinite(number):
                raise ConfigError(f"{self.name}: {word} must be a number, not {number}", hint="a finite number")
        if self.minimum > self.maximum:
            raise ConfigError(f"{self.name}: min {self.minimum:g} is above max {self.maximum:g}", hint="swap them")
        if not self.minimum <= self.start <= self.maximum:
            raise ConfigError(
                f"{self.name}: start {self.start:g} is outside [{self.minimum:g}, {self.maximum:g}]",
                hint="start within the bounds",
            )
        if self.c_end <= 0 or self.r_end <= 0:
            raise ConfigError(f"{self.name}: c_end and r_end must be above 0", hint="e.g. c_end 10, r_end 0.002")
        # θ is a real number, and its start may be one (fishtest's lines, a tune's θ pasted back: OpenBench and
        # fishtest take them); the engine plays it rounded. Only the bounds an engine's spin checks are whole.
        if self.kind is ParamKind.INT and not all(n.is_integer() for n in (self.minimum, self.maximum)):
            raise ConfigError(f"{self.name}: an int parameter's min and max are whole numbers", hint="or make it float")

    def clip(self, value: float) -> float:
        return min(max(value, self.minimum), self.maximum)

    def engine_value(self, value: float) -> int | float:
        """``value`` as the engine takes it: an integer parameter's rounded, then kept in its bounds."""
        if self.kind is ParamKind.INT:
            return int(self.clip(round(value)))
        return self.clip(value)


@dataclass(frozen=True, slots=True)
class Gains:
    """The tune's length and gain sequences (the ``[spsa]`` section's numbers)."""

    iterations: int  #: N: game pairs
    alpha: float = DEFAULT_ALPHA
    gamma: float = DEFAULT_GAMMA
    a_ratio: float = DEFAULT_A_RATIO  #: A = a_ratio · N

    def check(self) -> None:
        """:class:`ConfigError` naming the bad field unless the gains are defined."""
        if self.iterations <= 0:
            raise ConfigError(f"must be at least 1, not {self.iterations}", field="iterations", hint="game pairs")
        for name, value in (("alpha", self.alpha), ("gamma", self.gamma), ("a_ratio", self.a_ratio)):
            if not math.isfinite(value) or value < 0:
                raise ConfigError(f"must be a number of 0 or more, not {value}", field=name)

    @property
    def big_a(self) -> float:
        return self.a_ratio * self.iterations

    def perturbation(self, param: SpsaParam, iteration: int) -> float:
        """cₖ of ``param`` at ``iteration`` (1-based)."""
        c = param.c_end * math.pow(self.iterations / iteration, self.gamma)
        return max(c, INT_MIN_PERTURBATION) if param.kind is ParamKind.INT else c

    def gain(self, param: SpsaParam, iteration: int) -> float:
        """aₖ of ``param`` at ``iteration`` (1-based)."""
        return (
            param.r_end
            * param.c_end**2
            * math.pow((self.big_a + self.iterations) / (self.big_a + iteration), self.alpha)
        )

    def learning_rate(self, param: SpsaParam, iteration: int) -> float:
        """Rₖ = aₖ / cₖ² of ``param`` at ``iteration`` (1-based)."""
        return self.gain(param, iteration) / math.pow(self.perturbation(param, iteration), 2)

    def check_param(self, param: SpsaParam) -> None:
        """:class:`ConfigError` unless every step of ``param`` stays within floating point, so that no pair
        can raise or turn θ into inf or nan. The bounds hold at every iteration: cₖ and aₖ are largest at the
        first and cₖ is never below c_end, so a move of θ, Rₖ·cₖ·2, is at most a₁/c_end²·c₁·2."""
        reach = max(abs(param.minimum), abs(param.maximum))
        try:
            c_first, a_first = self.perturbation(param, 1), self.gain(param, 1)
            figures = (c_first**2, a_first, a_first / param.c_end**2 * c_first * 2 + reach, reach + c_first)
            finite = all(math.isfinite(figure) for figure in figures)
        except (OverflowError, ZeroDivisionError):  # c_end² beyond a float, or so small it is 0
            finite = False
        if not finite:
            raise ConfigError(
                f"{param.name}: c_end {param.c_end:g} and r_end {param.r_end:g} make steps beyond a float's range"
                f" over {self.iterations} iterations (alpha {self.alpha:g}, gamma {self.gamma:g})",
                hint="c_end of the parameter's scale, r_end like 0.002, the usual alpha 0.602 and gamma 0.101",
            )


def pair_seed(seed: int, pair: int) -> int:
    """The seed of pair ``pair`` (0-based) of a tune seeded ``seed``: the same on every machine."""
    digest = hashlib.sha256(f"spsa {seed} {pair}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class Step:
    """One pair's step: drawn from its seed at the θ it was claimed at, so that a replay plays the same."""

    pair: int  #: 0-based; the iteration is ``pair + 1``
    theta: tuple[float, ...]
    directions: tuple[int, ...]  #: Δ, ±1 per parameter
    perturbations: tuple[float, ...]  #: cₖ per parameter
    plus: tuple[int | float, ...]  #: the engine's values on the θ + cₖΔ side
    minus: tuple[int | float, ...]  #: and on the θ − cₖΔ side


def plan_step(gains: Gains, params: Sequence[SpsaParam], theta: Sequence[float], *, pair: int, seed: int) -> Step:
    """The step of pair ``pair`` from θ, its directions and roundings drawn from ``seed``."""
    rng = random.Random(seed)
    directions = tuple(1 if rng.getrandbits(1) else -1 for _ in params)
    offsets = [rng.random() for _ in params]
    perturbations = tuple(gains.perturbation(p, pair + 1) for p in params)
    sides = []
    for sign in (1, -1):
        side: list[int | float] = []
        for p, value, delta, c, u in zip(params, theta, directions, perturbations, offsets, strict=True):
            nudged = value + sign * delta * c
            side.append(int(p.clip(math.floor(nudged + u))) if p.kind is ParamKind.INT else p.clip(nudged))
        sides.append(tuple(side))
    return Step(pair, tuple(theta), directions, perturbations, sides[0], sides[1])


def updated_theta(
    gains: Gains, params: Sequence[SpsaParam], step: Step, theta: Sequence[float], *, plus_margin: float
) -> tuple[float, ...]:
    """θ moved by ``step``, whose θ + cₖΔ side scored ``plus_margin`` points more than its θ − cₖΔ side (−2…2,
    :func:`step_margin`).

    The move is added to ``theta``, the current values, as fishtest and OpenBench add it: another pair
    may have moved them since this one was drawn (with one lane at a time, ``theta`` is ``step.theta``)."""
    iteration = step.pair + 1
    return tuple(
        p.clip(value + gains.learning_rate(p, iteration) * c * plus_margin * delta)
        for p, value, c, delta in zip(params, theta, step.perturbations, step.directions, strict=True)
    )


# --- a tune: its settings and its state ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TuneSettings:
    """A tourney file's ``[spsa]``: the parameters as OpenBench's input lines, the length and gains of the
    tune, the seed its pairs' seeds come from, how often θ is kept in the history, and the opponent."""

    parameters: str
    iterations: int
    alpha: float = DEFAULT_ALPHA
    gamma: float = DEFAULT_GAMMA
    a_ratio: float = DEFAULT_A_RATIO
    seed: int = 0
    history_every: int = 1
    opponent: Opponent = Opponent.MIRROR

    @property
    def gains(self) -> Gains:
        return Gains(self.iterations, self.alpha, self.gamma, self.a_ratio)

    @property
    def history_spacing(self) -> int:
        """The pairs between two points of θ's history: ``history_every``, widened so that the history holds
        no more than about :data:`HISTORY_POINTS` points."""
        return max(self.history_every, -(-self.iterations // HISTORY_POINTS))

    @property
    def params(self) -> tuple[SpsaParam, ...]:
        return _parsed(self.parameters)

    def check(self) -> None:
        """:class:`ConfigError` naming the bad field (``parameters``, ``iterations``…) unless the tune is defined."""
        self.gains.check()
        if self.history_every <= 0:
            raise ConfigError(f"must be at least 1, not {self.history_every}", field="history_every", hint="pairs")
        try:
            for param in _parsed(self.parameters):
                self.gains.check_param(param)
        except ConfigError as error:
            raise error.located(field="parameters") from None


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> tuple[SpsaParam, ...]:
    return parse_input(text)


@dataclass(frozen=True, slots=True)
class TuneState:
    """Where a tune stands (the file's ``[tuning]``, written by tmanager): θ after the pairs applied so
    far, the θ each pair begun and not yet applied was drawn at, and θ every ``history_spacing`` pairs."""

    theta: tuple[float, ...] = field(metadata=SIGNED)
    pairs: int = 0  #: pairs applied to θ, in pair order
    begun: dict[int, tuple[float, ...]] = field(default_factory=dict, metadata=SIGNED)
    #: (pairs applied, θ then), from the start
    history: tuple[tuple[int, tuple[float, ...]], ...] = field(default=(), metadata=SIGNED)
    #: the steps of pairs under way when the tune's settings were edited, as they were drawn (:meth:`frozen`)
    drawn: dict[int, tuple[float, ...]] = field(default_factory=dict, metadata=SIGNED)

    @classmethod
    def initial(cls, settings: TuneSettings) -> TuneState:
        theta = tuple(float(p.start) for p in settings.params)
        return cls(theta, history=((0, theta),))

    def next_iteration(self, settings: TuneSettings) -> int:
        """The iteration (1-based) of the next pair to apply; the last, once all are."""
        return min(self.pairs + 1, settings.iterations)

    def begin(self, pair: int) -> TuneState:
        """The state with pair ``pair`` drawn at the current θ, unless it was drawn already (a replay) or applied."""
        if pair < self.pairs or pair in self.begun:
            return self
        return dataclasses.replace(self, begun={**self.begun, pair: self.theta})

    def step(self, settings: TuneSettings, pair: int) -> Step:
        """The step of pair ``pair``: the same each time it is asked, from its seed and the θ it was begun at
        (a pair never begun, its games' results set by hand, is drawn at the current θ), or as it was drawn
        before an edit of the settings (:meth:`frozen`)."""
        theta = self.begun.get(pair, self.theta)
        if pair in self.drawn:
            return _thawed(self.drawn[pair], pair=pair, theta=theta)
        return plan_step(settings.gains, settings.params, theta, pair=pair, seed=pair_seed(settings.seed, pair))

    def frozen(self, settings: TuneSettings) -> TuneState:
        """The state with the step of every pair under way kept as ``settings`` draw it: an edit of the tune's
        settings (its parameters, gains, seed or length) applies to the pairs begun after it, so that both
        sides of a pair under way play what its first game played, and its update moves θ as they were
        drawn (as fishtest's and OpenBench's workers play out the values they were sent)."""
        drawn = {pair: _frozen(self.step(settings, pair)) for pair in self.begun}
        return dataclasses.replace(self, drawn=drawn)

    def apply(self, settings: TuneSettings, *, plus_margin: float) -> TuneState:
        """The state with the next pair in order, complete with ``plus_margin``, applied to θ."""
        pair = self.pairs
        theta = updated_theta(
            settings.gains, settings.params, self.step(settings, pair), self.theta, plus_margin=plus_margin
        )
        pairs = pair + 1
        kept = pairs % settings.history_spacing == 0 or pairs == settings.iterations
        return TuneState(
            theta,
            pairs,
            {n: t for n, t in self.begun.items() if n != pair},
            (*self.history, (pairs, theta)) if kept else self.history,
            {n: d for n, d in self.drawn.items() if n != pair},
        )


def _frozen(step: Step) -> tuple[float, ...]:
    """A step as ``[tuning] drawn`` keeps it: its directions, perturbations, and both sides' values."""
    return (*map(float, step.directions), *step.perturbations, *map(float, step.plus), *map(float, step.minus))


def _thawed(values: Sequence[float], *, pair: int, theta: tuple[float, ...]) -> Step:
    """The step :func:`_frozen` kept (an ``int`` parameter's values as whole floats, which its option rounds)."""
    n = len(theta)
    directions = tuple(int(d) for d in values[:n])
    return Step(pair, theta, directions, tuple(values[n : 2 * n]), tuple(values[2 * n : 3 * n]),
                tuple(values[3 * n :]))


# --- the text people paste ----------------------------------------------------------------------


def parse_input(text: str) -> tuple[SpsaParam, ...]:
    """OpenBench's (or fishtest's) input lines as parameters, checked; blank and ``#`` lines skipped.

    :class:`ConfigError` names the line (``line 2: …``).
    """
    params: list[SpsaParam] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            param = _parse_line(line)
            param.check()
        except ConfigError as error:
            raise ConfigError(f"line {number}: {error.message}", hint=error.hint) from None
        # An engine takes its options in any case (UCI's names are not case-sensitive): "Hash" and "hash" are
        # one option, set twice a game, the second value played and the first parameter moved by its results.
        same = next((p for p in params if p.name.casefold() == param.name.casefold()), None)
        if same is not None:
            also = "" if same.name == param.name else f" (as {same.name}: option names ignore case)"
            raise ConfigError(f"line {number}: {param.name} is given twice{also}", hint="one line a parameter")
        params.append(param)
    if not params:
        raise ConfigError("no parameter", hint="one line a parameter: name, int, start, min, max, c_end, r_end")
    return tuple(params)


#: The fields of a line, as OpenBench's and fishtest's forms have them: the hint of a line that is not one.
_LINE_FORMS = "name, int|float, start, min, max, c_end, r_end (OpenBench) or name, start, min, max, c_end, r_end"


def _parse_line(line: str) -> SpsaParam:
    words = [w.strip() for w in line.split(",")]
    kinds = {kind.value: kind for kind in ParamKind}
    if len(words) == 7:
        name, kind_word, *numbers = words
        if kind_word.lower() not in kinds:
            raise ConfigError(f"{name}: type {kind_word!r} is neither int nor float",
                              hint="int or float, or no type at all (fishtest's lines: int)")
        kind = kinds[kind_word.lower()]
    elif len(words) == 6:
        name, *numbers = words
        kind = ParamKind.INT
    else:
        raise ConfigError(f"{len(words)} fields in {line.strip()!r}", hint=_LINE_FORMS)
    if not name:
        raise ConfigError("a parameter without a name", hint="the engine option's name first")
    try:
        start, minimum, maximum, c_end, r_end = (float(n) for n in numbers)
    except ValueError:
        if numbers[0].lower() in kinds:  # OpenBench's line with a field left out, read as fishtest's
            raise ConfigError(f"{name}: 6 fields after the type {numbers[0]!r}: one is missing",
                              hint=_LINE_FORMS) from None
        raise ConfigError(f"{name}: not a number among {', '.join(numbers)}",
                          hint="start, min, max, c_end and r_end are numbers") from None
    return SpsaParam(name, kind, start, minimum, maximum, c_end, r_end)


def _number(value: float) -> str:
    """A number as short as it reads back exactly: ``10`` for 10.0."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_input(params: Sequence[SpsaParam], theta: Sequence[float] | None = None) -> str:
    """OpenBench's input lines, starting from θ when given (the values to tune on from)."""
    starts = theta if theta is not None else [p.start for p in params]
    lines = []
    for p, start in zip(params, starts, strict=True):
        begin = p.engine_value(start)
        numbers = [_number(n) for n in (begin, p.minimum, p.maximum, p.c_end, p.r_end)]
        lines.append(", ".join([p.name, p.kind.value, *numbers]))
    return "\n".join(lines)


def format_values(params: Sequence[SpsaParam], theta: Sequence[float]) -> str:
    """``name, value`` lines, as OpenBench's optimal values: the engine's values of θ."""
    return "\n".join(f"{p.name}, {p.engine_value(v)}" for p, v in zip(params, theta, strict=True))
