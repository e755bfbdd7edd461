"""fastchess's checks and fixes of a command line once read (its ``sanitize.cpp``), each failure one line."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from tmanager.core.stats import SprtModel
from tmanager.errors import ConfigError
from tmanager.fastchess.config import EngineConfig, MatchConfig, TournamentType, Variant
from tmanager.fastchess.output import OutputFormat
from tmanager.tourney.settings import BookFormat


def sanitized(config: MatchConfig, *, cpus: int) -> MatchConfig:
    """``config`` after fastchess's fixes and checks, each failure a one-line :class:`ConfigError`."""
    games, rounds = config.games, config.rounds
    if rounds == 0:  # fastchess's scheduler refuses it (but -rounds 0 -sprt …, which is as many as the test takes)
        raise ConfigError("no rounds to play", field="-rounds", hint="-rounds N from 1, or -rounds 0 before -sprt")
    if games > 2:  # fastchess takes -games 100 -rounds 2 for a slip, and swaps them
        games, rounds = rounds, games
        if games > 2:
            raise ConfigError(f"{games} games per round: at most 2", field="-games",
                              hint="-rounds N -games 2 plays N rounds of a colour-reversed pair")
    penta = config.report_penta and config.output is OutputFormat.FASTCHESS and games == 2
    warnings = config.warnings
    if penta and config.sprt is not None and config.sprt.model is SprtModel.BAYESIAN:
        penta = False  # the bayesian model has no pentanomial form
        warnings += ("Warning; Bayesian SPRT model not available with pentanomial statistics. "
                     "Disabling pentanomial reports...",)
    concurrency = config.concurrency if config.concurrency > 0 else cpus - abs(config.concurrency)
    if config.concurrency <= 0:
        warnings = (f"Info: Adjusted concurrency to {concurrency} based on number of available hardware threads.",
                    *warnings)
    if concurrency > cpus and not config.force_concurrency:
        raise ConfigError(f"{concurrency} games at once on {cpus} hardware threads", field="-concurrency",
                          hint="fewer, or -force-concurrency")
    if concurrency < 1:
        raise ConfigError(f"{config.concurrency} leaves no game to play at once", field="-concurrency")
    config = dataclasses.replace(  # 0: never (but at the end)
        config, rating_interval=config.rating_interval or 2**31 - 1, score_interval=config.score_interval or 2**31 - 1
    )
    if config.state.file:  # the file holds the test: the command line says only how to run it
        if config.engines:
            raise ConfigError(f"not with -config file={config.state.file}", field="-engine",
                              hint="the file holds the test and its engines; leave -engine out")
        return dataclasses.replace(config, concurrency=concurrency, warnings=warnings)
    if config.variant is Variant.FISCHERANDOM and not (config.openings and config.openings.file):
        raise ConfigError("Chess960 needs an opening book of Chess960 positions", field="-variant",
                          hint="-openings file=chess960.epd")
    book = config.openings
    if book is not None and book.file and book.format is BookFormat.AUTO:
        # Neither format= nor the file's suffix said one: fastchess plays from the start position, and says so
        # (the book, never read, must be there all the same).
        if not os.path.exists(book.file):
            raise ConfigError("no such opening book file", file=Path(book.file).resolve(), hint="check -openings file=")
        warnings += ("Warning: Unknown opening format, 2. All games will be played from the starting position.",)
    if book is not None and book.format is BookFormat.PGN and book.plies != -1 and book.plies <= 0:
        # fastchess's PGN reader then keeps none of a line's moves; a tourney's plies = 0 means all of them.
        raise ConfigError(f"{book.plies}: no move of a PGN book's lines, as fastchess reads it, which tmanager "
                          "cannot play", field="-openings plies=",
                          hint="give plies=N above 0, or leave plies out for the whole of each line")
    if len(config.engines) < 2:
        raise ConfigError(f"{len(config.engines)} engine(s): a match needs at least two", field="-engine")
    engines = _named([_checked_engine(engine, index) for index, engine in enumerate(config.engines)])
    if config.sprt is not None and len(engines) != 2:
        # fastchess weighs each game's own pair then, and stops when any pair decides: no test of one engine.
        raise ConfigError(f"an SPRT of {len(engines)} engines", field="-sprt",
                          hint="tmanager's SPRT tests one engine against another: give two -engine, or leave -sprt out")
    if config.type is TournamentType.GAUNTLET and config.seeds >= len(engines):
        raise ConfigError(f"{config.seeds} seeds with {len(engines)} engines", field="-seeds",
                          hint=f"at most {len(engines) - 1}")
    return dataclasses.replace(
        config, games=games, rounds=rounds, report_penta=penta, concurrency=concurrency, engines=tuple(engines),
        warnings=warnings,
    )


def _checked_engine(engine: EngineConfig, index: int) -> EngineConfig:
    where = f"-engine {engine.name or engine.cmd or index + 1}"
    if not engine.cmd:
        raise ConfigError("has no cmd=", field=where, hint="-engine cmd=PATH name=NAME")
    if not (engine.tc.is_set or engine.st_ms or engine.nodes or engine.plies):
        raise ConfigError("has no time control", field=where, hint="tc=10+0.1, st=0.5, nodes=N or depth=N (or -each)")
    if engine.tc.is_set and engine.st_ms:
        raise ConfigError("has both tc and st", field=where, hint="choose one")
    name = engine.name or Path(engine.cmd).stem
    if not name:
        raise ConfigError("has no name", field=where, hint="name=NAME")
    return dataclasses.replace(engine, name=name)


def _named(engines: list[EngineConfig]) -> list[EngineConfig]:
    """Two engines of one name: the second becomes ``name_2`` (and so on), as fastchess names them."""
    seen: dict[str, int] = {}
    named = []
    for engine in engines:
        seen[engine.name] = seen.get(engine.name, 0) + 1
        count = seen[engine.name]
        named.append(engine if count == 1 else dataclasses.replace(engine, name=f"{engine.name}_{count}"))
    return named
