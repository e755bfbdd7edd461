"""Whether a tune's engines take its parameters: started once each, their declared options read.

``new --spsa`` asks before it writes the file, so that an option the engine does not have, or bounds its option
does not take, is one line and nothing written, not a stop at the first game. This starts engines: the engine
layer, which :mod:`tmanager.tourney.tuning` (read by ``status``) must not load.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tmanager.core.spsa import Opponent
from tmanager.errors import ConfigError, first_line
from tmanager.tourney.engine import Engine
from tmanager.tourney.enginelines import EngineError
from tmanager.tourney.tuning import option_value

if TYPE_CHECKING:
    from tmanager.tourney.engineoptions import EngineOption
    from tmanager.tourney.engines import EngineSpec
    from tmanager.tourney.model import Tourney


def check_options(tourney: Tourney) -> None:
    """:class:`ConfigError` naming ``spsa.parameters`` unless each tuned participant's engine (both against the
    mirror, the first against a base) declares every parameter as an option that takes both of its bounds (an
    ``int`` parameter's a spin, whose range holds them) and that the tune can set (no button, none tmanager sets)."""
    tune = tourney.spsa
    if tune is None:
        return
    tuned = tourney.participants if tune.opponent is Opponent.MIRROR else tourney.participants[:1]  # a base: as it is
    for index, participant in enumerate(tuned):
        spec = tourney.engine_spec(index)
        try:
            declared = asyncio.run(_declared(spec))
        except TimeoutError:  # which says nothing of itself
            raise ConfigError(
                f"the engine could not be started to read its options: no handshake within "
                f"{spec.handshake_timeout:g} s", file=tourney.path, field=f"participants[{index}]",
                hint="try the engine alone with `tmanager check`, or raise tourney.handshake_timeout",
            ) from None
        except (EngineError, OSError) as exc:
            raise ConfigError(
                f"the engine could not be started to read its options: {first_line(exc) or type(exc).__name__}",
                file=tourney.path, field=f"participants[{index}]", hint="try the engine alone with `tmanager check`",
            ) from None
        for param in tune.params:
            option = declared.get(param.name) or next(  # as the engine is told its options: any case
                (o for name, o in declared.items() if name.lower() == param.name.lower()), None
            )
            if option is None:
                raise ConfigError(
                    f"{param.name}: engine {participant.name!r} has no such option",
                    file=tourney.path,
                    field="spsa.parameters",
                    hint=f"its options: {', '.join(declared)}",
                )
            _check_settable(param.name, option, tourney)
            for bound in (param.minimum, param.maximum):
                try:
                    option.parse(option_value(param.kind, bound))
                except EngineError as exc:
                    raise ConfigError(
                        f"{param.name}: {first_line(exc)}",
                        file=tourney.path,
                        field="spsa.parameters",
                        hint="bounds the option takes (an int parameter for a spin option)",
                    ) from None


def _check_settable(name: str, option: EngineOption, tourney: Tourney) -> None:
    """:class:`ConfigError` unless a tune can set ``option`` each game: a button takes no value, so the tuned values
    would be dropped and θ wander on noise; an option the runner sets itself (UCI's ``MultiPV``, ``Ponder``,
    ``UCI_Chess960``) the engine client refuses, which would stop ``run`` at the first game."""
    if option.managed:
        raise ConfigError(
            f"{name}: tmanager sets the engine's {option.name} itself in every game",
            file=tourney.path, field="spsa.parameters", hint="tune another option",
        )
    if not option.kind.takes_value:
        raise ConfigError(
            f"{name}: the engine's {option.name} is a {option.kind} option, which takes no value",
            file=tourney.path, field="spsa.parameters", hint="tune a spin option, or a string option for a float",
        )


async def _declared(spec: EngineSpec) -> dict[str, EngineOption]:
    engine = await Engine.start(spec)
    try:
        return dict(engine.client.options)
    finally:
        await engine.close()
