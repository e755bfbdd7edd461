"""What a worker tells the program that follows its run (``tmanager fastchess``), and its lines of the options
each engine refused.

Apart from :mod:`tmanager.tourney.announce`, the announcements and their pipe, which the follower reads without
the game runner this module knows of.
"""

from __future__ import annotations

import logging
import math

from tmanager.core.results import Result
from tmanager.tourney.announce import (
    Announcer,
    EngineStarted,
    EngineWarning,
    GameFinished,
    GameStarted,
    OptionRefused,
)
from tmanager.tourney.engine import Engine
from tmanager.tourney.engineoptions import RefusedOption
from tmanager.tourney.outcome import Ending
from tmanager.tourney.play import GameRecord, GameSpec

log = logging.getLogger("tmanager")


class Announcements:
    """A worker's announcements to the program that follows it (none: ``announcer`` is ``None``), and what it
    says of the options its engines refuse."""

    def __init__(self, announcer: Announcer | None) -> None:
        self.announcer = announcer
        #: The options each participant's engine refused and plays without, as it last started.
        self.refused: dict[str, tuple[RefusedOption, ...]] = {}

    def engine_started(self, engine: Engine) -> None:
        self.refused[engine.spec.name] = engine.refused
        # A warning of the worker's (on stderr), unless its follower warns in its own words (tmanager fastchess).
        level = logging.INFO if self.announcer is not None else logging.WARNING
        for option in engine.refused:
            what = "has no such option" if option.missing else "refuses the value"
            log.log(level, "engine %r plays without option %s=%s: it %s", engine.spec.name, option.name,
                    option.value, what)
        if self.announcer is not None:
            identity = engine.identity()
            self.announcer.announce(EngineStarted(engine.spec.name, identity.name, identity.author, identity.options))

    def game_started(self, number: int, spec: GameSpec) -> None:
        if self.announcer is not None:
            self.announcer.announce(GameStarted(number, spec.white.name, spec.black.name))

    def game_finished(self, number: int, spec: GameSpec, record: GameRecord) -> None:
        """Tell the follower that game ``number`` ended and is stored."""
        if self.announcer is None:
            return
        for name in (spec.white.name, spec.black.name):  # fastchess warns as it sets each game's options
            for option in self.refused.get(name, ()):
                self.announcer.announce(
                    OptionRefused(name, option.name, option.value, option.missing, option.unconverted)
                )
        for warning in record.pv_warnings:
            finding = warning.finding
            self.announcer.announce(EngineWarning(
                finding.problem, warning.engine, finding.move, finding.info, warning.start, warning.moves
            ))
        result = record.result
        loser = spec.black.name if result is Result.WHITE_WINS else spec.white.name
        overstep = record.oversteps.get(loser) if record.ending is Ending.TIME_FORFEIT else None
        self.announcer.announce(GameFinished(
            # in whole milliseconds cut as fastchess cuts the time a move took (its overrun is that less the time left)
            number, spec.white.name, spec.black.name, result, record.ending,
            record.reason, None if overstep is None else math.floor(overstep * 1000), record.illegal_move,
            record.faults.get(loser, ""),
        ))
