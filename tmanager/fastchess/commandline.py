"""fastchess's command line, read as fastchess reads it (its ``cli.cpp`` and ``sanitize.cpp``), into a
:class:`~tmanager.fastchess.config.MatchConfig`.

An option is a word that starts with ``-`` (``-5`` is a value, not an option);
its values are the words up to the next option. ``-engine`` and most others
take ``key=value`` pairs. ``-each``'s pairs apply to every engine after all the
``-engine``s, whatever their order (fastchess defers them), so ``-each`` wins
over ``-engine``; :attr:`MatchConfig.overridden` lists where it did, to be said.
fastchess's checks follow (a concurrency beyond the cores, ``-games`` above 2,
an engine without limits; two engines of one name become ``name`` and ``name_2``),
each a one-line :class:`~tmanager.errors.ConfigError` naming the option.

What tmanager cannot do as fastchess does is refused too, with the reason,
never ignored (``-log compress=true``, an hourglass time control).
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmanager.core.stats import SprtModel, SprtSettings
from tmanager.errors import ConfigError, ascii_digits
from tmanager.fastchess import limits
from tmanager.fastchess.checks import sanitized
from tmanager.fastchess.config import (
    DrawRule,
    EngineConfig,
    EpdConfig,
    LogLevel,
    MatchConfig,
    OpeningsConfig,
    ResignRule,
    TournamentType,
    Variant,
)
from tmanager.fastchess.enginekeys import engine_setting, with_each
from tmanager.fastchess.output import OutputFormat
from tmanager.fastchess.values import INT_MAX, UINT64_MAX, Dataclass, boolean, integer, number, pairs, replaced, unknown
from tmanager.formats.pgn import Notation
from tmanager.tourney import affinity
from tmanager.tourney.adjudication import TablebaseResults
from tmanager.tourney.settings import BookFormat, BookOrder


class Style(enum.StrEnum):
    """The values an option takes: none, one, ``key=value`` pairs (at least one, or perhaps none), or free words."""

    NONE = "none"
    SINGLE = "single"
    PAIRS = "pairs"
    OPTIONAL_PAIRS = "optional-pairs"
    FREE = "free"


class Action:
    """What a command line may ask instead of a match."""

    VERSION = "version"
    HELP = "help"


@dataclass(slots=True)
class _Reading:
    """A command line being read: the config so far, ``-each``'s pairs kept for the end, an action."""

    config: MatchConfig = field(default_factory=MatchConfig)
    each: list[tuple[str, str]] = field(default_factory=list)
    action: str | None = None

    def update(self, **changes: Any) -> None:
        self.config = dataclasses.replace(self.config, **changes)


def parse(argv: Sequence[str], *, cpus: int | None = None) -> MatchConfig | str:
    """The :class:`MatchConfig` of fastchess's ``argv`` (without the program's name), or an :class:`Action`
    for ``-version``/``-help``; :class:`ConfigError` naming the option otherwise. ``cpus``: the hardware
    threads that ``-concurrency`` may use without ``-force-concurrency`` (default: this machine's)."""
    reading = _Reading()
    for flag, values in split(argv):
        style, handler = OPTIONS[flag]
        try:
            handler(_checked(flag, style, values), reading)
        except ConfigError as exc:
            raise exc.relocated(field=_option_field(flag, exc.field)) from None
        if reading.action is not None:
            return reading.action
    _apply_each(reading)
    return sanitized(reading.config, cpus=cpus or os.cpu_count() or 1)


def split(argv: Sequence[str]) -> list[tuple[str, list[str]]]:
    """``argv`` as (option, values): the values run to the next word that starts with ``-`` (but ``-5``)."""
    found: list[tuple[str, list[str]]] = []
    for word in argv:
        if word.startswith("-") and not (len(word) > 1 and word[1].isdigit()):
            if word not in OPTIONS:
                close = difflib.get_close_matches(word, OPTIONS, n=1)
                hint = f"did you mean {close[0]}?" if close else "tmanager fastchess -help lists them"
                raise ConfigError(f"unrecognized option {word!r}", field=word, hint=hint)
            found.append((word, []))
        elif not found:
            raise ConfigError(f"{word!r} is not an option", field=word, hint="options begin with -, as -engine")
        else:
            found[-1][1].append(word)
    return found


def _checked(flag: str, style: Style, values: list[str]) -> list[str]:
    if style is Style.NONE and values:
        raise ConfigError(f"takes no value, not {' '.join(values)!r}", field=flag)
    if style is Style.SINGLE and len(values) != 1:
        raise ConfigError(f"takes one value, not {len(values)}", field=flag)
    if style in (Style.PAIRS, Style.OPTIONAL_PAIRS):
        if style is Style.PAIRS and not values:
            raise ConfigError("takes key=value pairs", field=flag)
        bad = next((v for v in values if not re.fullmatch(r"[^=]+=.+", v, re.DOTALL)), None)
        if bad is not None:
            raise ConfigError(f"takes key=value pairs, not {bad!r}", field=flag)
    return values


def _engine(values: list[str], reading: _Reading) -> None:
    engine = EngineConfig()
    for key, value in pairs(values):
        engine = engine_setting(engine, key, value)
    reading.update(engines=(*reading.config.engines, engine))


def _each(values: list[str], reading: _Reading) -> None:
    reading.each += pairs(values)


def _apply_each(reading: _Reading) -> None:
    engines, overridden = with_each(reading.config.engines, reading.each)
    reading.update(engines=engines, overridden=overridden)


# --- the other options ---------------------------------------------------------------------------


#: The formats -openings format= names, and the suffixes of -openings file= that say one (fastchess's).
_BOOK_FORMATS = (BookFormat.EPD, BookFormat.PGN)
_BOOK_SUFFIXES = {f".{kind.value}": kind for kind in _BOOK_FORMATS}


def _openings(values: list[str], reading: _Reading) -> None:
    book = reading.config.openings or OpeningsConfig()
    for key, value in pairs(values):
        if key == "file":  # the suffix says the format as fastchess reads it: in lower case (book.EPD says none)
            suffix = next((s for s in _BOOK_SUFFIXES if value.endswith(s)), "")
            book = dataclasses.replace(book, file=value, format=_BOOK_SUFFIXES.get(suffix, book.format))
        elif key == "format" and value in _BOOK_FORMATS:
            book = dataclasses.replace(book, format=BookFormat(value))
        elif key == "order" and value in list(BookOrder):
            book = dataclasses.replace(book, order=BookOrder(value))
        elif key == "plies":
            book = dataclasses.replace(book, plies=integer(value))
        elif key == "start":
            book = dataclasses.replace(book, start=integer(value, minimum=1))
        elif key == "policy" and value == "round":
            continue
        else:
            raise unknown("openings", key, value)
    reading.update(openings=book)


def _option_field(flag: str, field: str | None) -> str:
    """The field of an error in option ``flag``'s values: an option named, or a key of this one (``alpha``
    of the SPRT's settings is ``-sprt alpha=``)."""
    if not field or field.startswith("-"):
        return field or flag
    return f"{flag} {field}="


#: The rounds of ``-rounds 0 -sprt …``: fastchess's.
SPRT_ROUNDS = 500_000


def _sprt(values: list[str], reading: _Reading) -> None:
    given = {"elo0": 0.0, "elo1": 0.0, "alpha": 0.0, "beta": 0.0}
    model = SprtModel.NORMALIZED.value
    for key, value in pairs(values):
        if key in given:
            given[key] = number(value)
        elif key == "model":
            model = value
        else:
            raise unknown("sprt", key, value)
    if model not in list(SprtModel):
        raise ConfigError(f"model={model}: not an SPRT model", hint="normalized, logistic or bayesian")
    settings = SprtSettings(given["elo0"], given["elo1"], given["alpha"], given["beta"], SprtModel(model))
    settings.check()
    # fastchess's -rounds 0 before -sprt: as many rounds as the test takes, which it puts at 500,000
    reading.update(sprt=settings, rounds=reading.config.rounds or SPRT_ROUNDS)


#: An option's key: the field it sets, and how its text is read (given the key, for messages).
Keys = dict[str, tuple[str, Callable[[str, str], object]]]


def _at_least(minimum: int, why: str) -> Callable[[str, str], int]:
    """A key's whole number of at least ``minimum``: one below it is refused, and ``why`` says what fastchess
    would make of it (a game scored by the rule, not by the engines, or a rule that never applies)."""
    def read(key: str, text: str) -> int:
        try:
            value = integer(text)
        except ConfigError as exc:
            raise exc.relocated(field=key) from None
        if value < minimum:
            raise ConfigError(f"must be at least {minimum}, not {value}", field=key, hint=why)
        return value

    return read


def _keyed(option: str, rule: Dataclass, keys: Keys, values: list[str]) -> Dataclass:
    """``rule`` with the ``key=value`` pairs of ``option`` set, each through its entry of ``keys``."""
    for key, value in pairs(values):
        if key not in keys:
            raise unknown(option, key, value)
        field_name, read = keys[key]
        rule = replaced(rule, **{field_name: read(key, value)})
    return rule


_NEGATIVE_SCORE = "fastchess refuses it too: give 0 or more"
_DRAW_KEYS: Keys = {
    "movenumber": ("move_number", _at_least(0, "fastchess reads a negative one as a move past 4 billion, which no "
                                               "game reaches, and never draws: leave -draw out for no draw rule")),
    "movecount": ("move_count", _at_least(1, "with it fastchess draws every game once movenumber is reached, "
                                             "whatever the scores: give 1 or more")),
    "score": ("score", _at_least(0, _NEGATIVE_SCORE)),
}
_RESIGN_KEYS: Keys = {
    "movecount": ("move_count", _at_least(1, "with it fastchess has the first engine to move resign, whatever its "
                                             "score: give 1 or more")),
    "score": ("score", _at_least(0, _NEGATIVE_SCORE)), "twosided": ("twosided", boolean),
}


def _draw(values: list[str], reading: _Reading) -> None:
    reading.update(draw=_keyed("draw", reading.config.draw or DrawRule(), _DRAW_KEYS, values))


def _resign(values: list[str], reading: _Reading) -> None:
    reading.update(resign=_keyed("resign", reading.config.resign or ResignRule(), _RESIGN_KEYS, values))


#: -pgnout's switches, in fastchess's order: its comment fields.
PGN_FIELDS = ("timeleft", "latency", "nodes", "seldepth", "nps", "hashfull", "tbhits", "pv")


def _pgnout(values: list[str], reading: _Reading) -> None:
    pgn = dataclasses.replace(reading.config.pgn, requested=True)
    fields = set(pgn.fields)
    for key, value in pairs(values):
        if key == "file":
            pgn = dataclasses.replace(pgn, file=value)
        elif key == "notation" and value in list(Notation):
            pgn = dataclasses.replace(pgn, notation=Notation(value))
        elif key in ("append", "min"):
            pgn = replaced(pgn, **{"append" if key == "append" else "minimal": boolean(key, value)})
        elif key in PGN_FIELDS:
            (fields.add if boolean(key, value) else fields.discard)(key)
        elif key == "match_line":
            _regex(value)
            pgn = dataclasses.replace(pgn, match_lines=(*pgn.match_lines, value))
        else:
            raise unknown("pgnout", key, value)
    reading.update(pgn=dataclasses.replace(pgn, fields=tuple(f for f in PGN_FIELDS if f in fields)))


def _regex(text: str) -> None:
    try:
        re.compile(text)
    except re.error as exc:
        raise ConfigError(f"match_line={text}: not a regular expression ({exc})") from None


def _epdout(values: list[str], reading: _Reading) -> None:
    epd = EpdConfig(requested=True)
    for key, value in pairs(values):
        if key == "file":
            epd = dataclasses.replace(epd, file=value)
        elif key == "append":
            epd = dataclasses.replace(epd, append=boolean(key, value))
        else:
            raise unknown("epdout", key, value)
    reading.update(epd=epd)


def _log(values: list[str], reading: _Reading) -> None:
    log = reading.config.log
    for key, value in pairs(values):
        if key == "file":
            log = dataclasses.replace(log, file=value)
        elif key == "level" and value in list(LogLevel):
            log = dataclasses.replace(log, level=LogLevel(value))
        elif key in ("append", "engine"):
            log = replaced(log, **{key: boolean(key, value)})
        elif key == "realtime":
            boolean(key, value)  # tmanager's log is always written as it goes
        elif key == "compress":
            if boolean(key, value):
                raise ConfigError("compress=true: tmanager does not gzip its log", hint="leave compress out")
        else:
            raise unknown("log", key, value)
    reading.update(log=log)


def _config(values: list[str], reading: _Reading) -> None:
    state = reading.config.state
    for key, value in pairs(values):
        if key == "file":
            state = dataclasses.replace(state, file=value)
        elif key == "outname":
            state = dataclasses.replace(state, outname=value)
        elif key == "discard":
            state = dataclasses.replace(state, discard=value == "true")
        elif key == "stats":
            state = dataclasses.replace(state, stats=value != "false")
        else:
            raise unknown("config", key, value)
    reading.update(state=state)


def _report(values: list[str], reading: _Reading) -> None:
    for key, value in pairs(values):
        if key != "penta":
            raise unknown("report", key, value)
        reading.update(report_penta=boolean(key, value))


def _output(values: list[str], reading: _Reading) -> None:
    for key, value in pairs(values):
        if key != "format" or value not in ("fastchess", "cutechess"):
            raise unknown("output", key, value)
        reading.update(output=OutputFormat(value))


def _crc32(values: list[str], reading: _Reading) -> None:
    for key, value in pairs(values):
        if key != "pgn":
            raise unknown("crc", key, value)
        reading.update(crc_pgn=boolean(key, value))


def _repeat(values: list[str], reading: _Reading) -> None:
    # fastchess's is_number: ASCII digits ('²' is one to str.isdigit, not to int())
    reading.update(games=int(values[0]) if len(values) == 1 and ascii_digits(values[0]) else 2)


def _variant(values: list[str], reading: _Reading) -> None:
    if values[0] not in list(Variant):
        raise ConfigError(f"unknown variant {values[0]!r}", hint="standard or fischerandom")
    reading.update(variant=Variant(values[0]))


def _tournament(values: list[str], reading: _Reading) -> None:
    if values[0] not in list(TournamentType):
        raise ConfigError(f"unknown tournament type {values[0]!r}", hint="roundrobin or gauntlet")
    reading.update(type=TournamentType(values[0]))


def _affinity(values: list[str], reading: _Reading) -> None:
    cpus: tuple[int, ...] = ()
    if values:
        try:
            cpus = affinity.parse(values[0])
        except ConfigError as exc:  # told as this option's (the parser names it), not as run's --affinity
            raise exc.relocated() from None
    reading.update(affinity=cpus)


def _tbadjudicate(values: list[str], reading: _Reading) -> None:
    kinds = {kind.name: kind for kind in TablebaseResults}  # fastchess's words: BOTH, WIN_LOSS, DRAW
    if values[0] not in kinds:
        raise ConfigError(f"invalid tb adjudication type {values[0]!r}", hint="BOTH, WIN_LOSS or DRAW")
    reading.update(tablebases=dataclasses.replace(reading.config.tablebases, adjudicate=kinds[values[0]]))


def _quick(values: list[str], reading: _Reading) -> None:
    """fastchess's ``-quick cmd=A cmd=B book=FILE``: two engines at 10+0.1, 25,000 rounds of 2 games, its
    draw rule, cutechess's output, every hardware thread but two."""
    engines, book = [], ""
    for key, value in pairs(values):
        if key == "cmd":
            engines.append(EngineConfig(cmd=value, name=value, tc=limits.TimeLimit(time_ms=10_000, increment_ms=100)))
        elif key == "book":
            book = value
        else:
            raise unknown("quick", key, value)
    if len(engines) != 2 or not book.endswith((".epd", ".pgn")):
        raise ConfigError("takes two cmd= and a book= ending in .epd or .pgn", hint="-quick cmd=A cmd=B book=x.epd")
    if engines[0].name == engines[1].name:
        engines = [dataclasses.replace(engines[0], name=engines[0].name + "1"),
                   dataclasses.replace(engines[1], name=engines[1].name + "2")]
    reading.update(
        engines=(*reading.config.engines, *engines), games=2, rounds=25_000, recover=True,
        openings=OpeningsConfig(file=book, format=_BOOK_SUFFIXES[book[-4:]], order=BookOrder.RANDOM),
        concurrency=max(1, (os.cpu_count() or 1) - 2), draw=DrawRule(move_number=30, move_count=8, score=8),
        output=OutputFormat.CUTECHESS,
    )


def _single(name: str, convert: Callable[[str], object]) -> Callable[[list[str], _Reading], None]:
    def handle(values: list[str], reading: _Reading) -> None:
        reading.update(**{name: convert(values[0])})

    return handle


def _flag(name: str) -> Callable[[list[str], _Reading], None]:
    def handle(values: list[str], reading: _Reading) -> None:
        reading.update(**{name: True})

    return handle


def _tablebase(name: str, convert: Callable[[str], object]) -> Callable[[list[str], _Reading], None]:
    def handle(values: list[str], reading: _Reading) -> None:
        tables = reading.config.tablebases
        reading.update(tablebases=replaced(tables, **{name: convert(values[0]) if values else True}))

    return handle


def _action(action: str) -> Callable[[list[str], _Reading], None]:
    def handle(values: list[str], reading: _Reading) -> None:
        reading.action = action

    return handle


def _refused(why: str, hint: str) -> Callable[[list[str], _Reading], None]:
    def handle(values: list[str], reading: _Reading) -> None:
        raise ConfigError(why, hint=hint)

    return handle


def _free_text(name: str) -> Callable[[list[str], _Reading], None]:
    def handle(values: list[str], reading: _Reading) -> None:
        reading.update(**{name: "".join(values)})  # fastchess joins the words without spaces

    return handle


def _non_negative(text: str) -> int:
    return integer(text, minimum=0)


def _interval(text: str) -> int:
    """A report's interval, any C ``int`` as fastchess takes it: one below 0, which its modulo of an unsigned
    count makes unsigned and huge, never divides a count, as 0 never does (a report at the end only)."""
    return max(integer(text, minimum=-INT_MAX - 1), 0)


def _unsigned_64(text: str) -> int:
    return integer(text, minimum=0, maximum=UINT64_MAX)


OPTIONS: dict[str, tuple[Style, Callable[[list[str], _Reading], None]]] = {
    "-engine": (Style.PAIRS, _engine),
    "-each": (Style.PAIRS, _each),
    "-pgnout": (Style.OPTIONAL_PAIRS, _pgnout),
    "-epdout": (Style.OPTIONAL_PAIRS, _epdout),
    "-openings": (Style.PAIRS, _openings),
    "-sprt": (Style.PAIRS, _sprt),
    "-draw": (Style.PAIRS, _draw),
    "-resign": (Style.PAIRS, _resign),
    "-maxmoves": (Style.SINGLE, _single("max_moves", lambda v: integer(v, minimum=1))),
    "-tb": (Style.SINGLE, _tablebase("paths", str)),
    "-tbpieces": (Style.SINGLE, _tablebase("pieces", _non_negative)),
    "-tbignore50": (Style.NONE, _tablebase("ignore50", bool)),
    "-tbadjudicate": (Style.SINGLE, _tbadjudicate),
    "-autosaveinterval": (Style.SINGLE, _single("autosave_interval", _non_negative)),
    "-log": (Style.PAIRS, _log),
    "-config": (Style.PAIRS, _config),
    "-report": (Style.PAIRS, _report),
    "-output": (Style.PAIRS, _output),
    "-concurrency": (Style.SINGLE, _single("concurrency", integer)),
    "-crc32": (Style.PAIRS, _crc32),
    "-force-concurrency": (Style.NONE, _flag("force_concurrency")),
    "-event": (Style.FREE, _free_text("event")),
    "-site": (Style.FREE, _free_text("site")),
    "-games": (Style.SINGLE, _single("games", lambda v: integer(v, minimum=1))),
    "-rounds": (Style.SINGLE, _single("rounds", _non_negative)),  # 0: see _sprt
    "-wait": (Style.SINGLE, _single("wait_ms", _non_negative)),
    "-noswap": (Style.NONE, _flag("noswap")),
    "-reverse": (Style.NONE, _flag("reverse")),
    "-ratinginterval": (Style.SINGLE, _single("rating_interval", _interval)),
    "-scoreinterval": (Style.SINGLE, _single("score_interval", _interval)),
    "-srand": (Style.SINGLE, _single("seed", _unsigned_64)),
    "-seeds": (Style.SINGLE, _single("seeds", lambda v: integer(v, minimum=1))),
    "-version": (Style.NONE, _action(Action.VERSION)),
    "--version": (Style.NONE, _action(Action.VERSION)),
    "-v": (Style.NONE, _action(Action.VERSION)),
    "--v": (Style.NONE, _action(Action.VERSION)),
    "-help": (Style.NONE, _action(Action.HELP)),
    "--help": (Style.NONE, _action(Action.HELP)),
    "-recover": (Style.NONE, _flag("recover")),
    "-repeat": (Style.FREE, _repeat),
    "-variant": (Style.SINGLE, _variant),
    "-tournament": (Style.SINGLE, _tournament),
    "-quick": (Style.PAIRS, _quick),
    "-use-affinity": (Style.FREE, _affinity),
    "-check-mate-pvs": (Style.NONE, _flag("check_mate_pvs")),
    "-show-latency": (Style.NONE, _flag("show_latency")),
    "-debug": (Style.NONE, _refused("there is no -debug", "-log file=NAME level=trace engine=true logs everything")),
    "-testEnv": (Style.NONE, _flag("test_env")),
    "-strict": (Style.NONE, _flag("strict")),
    "-startup-ms": (Style.SINGLE, _single("startup_ms", _unsigned_64)),
    "-ucinewgame-ms": (Style.SINGLE, _single("ucinewgame_ms", _unsigned_64)),
    "-ping-ms": (Style.SINGLE, _single("ping_ms", _unsigned_64)),
}
