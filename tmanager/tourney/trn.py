"""XBoard tourney files (``.trn``): read one and turn it into our model.

An XBoard tourney file is a settings file: ``-option value`` pairs, where a
value is a bare word, a ``"quoted string"`` or a ``{braced block}`` that may span
lines (``-participants`` lists one engine per line). Our numbering is XBoard's,
so the ``-results`` string keeps its meaning; its ``*`` (games XBoard was
playing) become not played.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import expect_file, read_bytes
from tmanager.tourney.engines import available_definitions
from tmanager.tourney.gamesetup import load_book
from tmanager.tourney.model import (
    PLAYING,
    RESULT_CHARS,
    UNPLAYED,
    Openings,
    Participant,
    Settings,
    Tourney,
    TourneyType,
)
from tmanager.tourney.settings import BookFormat, BookOrder

_TOKEN = re.compile(r'\s*(?:-(\w+)\s*(\{[^}]*\}|"(?:[^"\\]|\\.)*"|[^\s"{][^\s]*)?)', re.DOTALL)


#: The option of a .trn each setting of ours comes from, to name it in an error.
_OPTIONS = {
    "tourney.type": "-tourneyType",
    "tourney.gauntlet_seeds": "-tourneyType",
    "tourney.cycles": "-tourneyCycles",
    "tourney.games_per_pairing": "-defaultMatchGames",
    "tourney.pgn": "-saveGameFile",
    "tourney.after_game": "-afterGame",
    "tourney.after_tourney": "-afterTourney",
    "tourney.tc": "-tc",
    "tourney.st": "-st",
    "tourney.depth": "-searchDepth",
    "progress.results": "-results",
    "participants": "-participants",
}


def parse_options(text: str, path: Path) -> dict[str, str]:
    """The ``-option value`` pairs of an XBoard settings file, values unquoted."""
    options: dict[str, str] = {}
    position = 0
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";"))
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            line = text.count("\n", 0, position) + 1
            raise ConfigError(f"line {line}: expected -option value", file=path,
                              hint='as XBoard writes them: -name value, -name "text" or -name {lines}')
        name, value = match.group(1), match.group(2) or ""
        if value[:1] in "{\"" and value:
            value = value[1:-1]
        options[name] = value
        position = match.end()
    return options


def _definition_for(name: str, known: list[str]) -> str | None:
    wanted = _normal(name)
    return next((k for k in known if _normal(k) == wanted), None)


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower())


def _flag(options: dict[str, str], key: str, path: Path) -> bool:
    """Boolean option ``-key`` (false when absent), read as XBoard reads one: ``t…`` is true, ``f…`` false, anything
    else an error (``on`` was taken for false)."""
    value = options.get(key, "false")
    if value[:1] not in ("t", "T", "f", "F"):
        raise ConfigError(f"{value!r} is neither true nor false", file=path, field=f"-{key}", hint="true or false")
    return value[:1] in ("t", "T")


def _number(options: dict[str, str], key: str, default: str, path: Path) -> float:
    """Option ``-key`` as a number (``default`` when absent or empty); a :class:`ConfigError` naming it otherwise."""
    text = options.get(key) or default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{text!r} is not a number", file=path, field=f"-{key}") from None
    if not math.isfinite(value):
        raise ConfigError(f"{text!r} is not a finite number", file=path, field=f"-{key}")
    return value


def _whole(options: dict[str, str], key: str, default: str, path: Path) -> int:
    value = _number(options, key, default, path)
    if value != int(value):
        raise ConfigError(f"{options[key]!r} is not a whole number", file=path, field=f"-{key}")
    return int(value)


#: XBoard's moves per period when a .trn names none (xboard.texi: "Default: 40 moves").
XBOARD_MPS = 40


def _given(options: dict[str, str], *keys: str) -> str | None:
    """The first of an option's names (XBoard's long and short forms: -searchTime and -st) the file gives."""
    return next((key for key in keys if options.get(key)), None)


def _minutes(options: dict[str, str], key: str, path: Path) -> float:
    """XBoard's ``minutes[:seconds]`` (-tc, -st: ``5`` is five minutes, ``0:30`` thirty seconds) in seconds."""
    text = options[key]
    minutes, colon, seconds = text.partition(":")
    try:
        value = float(minutes) * 60 + (float(seconds) if colon else 0)
    except ValueError:
        raise ConfigError(f"{text!r} is not minutes[:seconds]", file=path, field=f"-{key}",
                          hint="e.g. 5 for five minutes, 0:30 for thirty seconds") from None
    if not math.isfinite(value):
        raise ConfigError(f"{text!r} is not a finite number", file=path, field=f"-{key}")
    return value


def _time_control(options: dict[str, str], path: Path) -> tuple[str, float | None, int | None]:
    """XBoard's -tc, -mps, -inc, -st, -searchDepth (or their long names) as our (tc, st, depth).

    XBoard writes ``-searchTime "0:05"`` in a tourney with a time per move, and reads it, as -st and -tc, in
    minutes; a period has 40 moves unless -mps says otherwise, and an -mps of 0 or below without -inc is XBoard's
    own way of storing an increment of -mps/1000 seconds."""
    st_key = _given(options, "st", "searchTime")
    st = (_minutes(options, st_key, path) if st_key else 0) or None
    depth_key = _given(options, "searchDepth", "depth")
    depth = (_whole(options, depth_key, "0", path) if depth_key else 0) or None
    key = _given(options, "tc", "timeControl")
    if key is None and (st or depth):
        return "inf", st, depth
    # Without -tc, XBoard's period is 5 minutes: -inc 2 alone is 5 minutes and 2 s a move (it was 40/300).
    base = f"{_minutes(options, key, path):g}" if key else "300"
    mps = _whole(options, _given(options, "mps", "movesPerSession") or "mps", str(XBOARD_MPS), path)
    inc_key = _given(options, "inc", "timeIncrement")
    inc = _number(options, inc_key, "-1", path) if inc_key else (-mps / 1000 if mps <= 0 else -1)
    if inc >= 0:  # XBoard: a non-negative increment means incremental, not classical, clocks
        return f"{base}+{inc:g}", st, depth
    return f"{mps if mps > 0 else XBOARD_MPS}/{base}", st, depth


def import_trn(path: Path, target: Path) -> Tourney:
    """Our tourney for XBoard tourney file ``path``, to be written at ``target``."""
    text = read_bytes(path, kind="XBoard tourney", create=None).decode("utf-8", errors="replace")
    options = parse_options(text, path)
    names = [line.strip() for line in options.get("participants", "").splitlines() if line.strip()]
    if len(names) < 2:
        raise ConfigError("fewer than 2 participants", file=path, field="-participants",
                          hint="list the engines in -participants {…}, one a line")
    known = available_definitions(target.parent)
    unknown = [n for n in names if _definition_for(n, known) is None]
    if unknown:
        raise ConfigError(
            f"no engine definition for {', '.join(repr(n) for n in unknown)}",
            file=path,
            field="-participants",
            hint="define each in engines/NAME.toml (cmd, protocol) beside the new tourney file; "
            f"known: {', '.join(known) or 'none'}",
        )
    kind = _whole(options, "tourneyType", "0", path)
    if kind < 0:
        raise ConfigError("Swiss XBoard tourneys (-tourneyType -1) cannot be imported", file=path,
                          field="-tourneyType", hint="create a Swiss tourney with `tmanager new --type swiss`")
    if _flag(options, "usePolyglotBook", path) and options.get("polyglotBook"):
        # Its openings would be lost without a word, every game played from the start position.
        raise ConfigError(f"a Polyglot book ({options['polyglotBook']!r}) cannot be played from", file=path,
                          field="-usePolyglotBook", hint="give the openings as an EPD or PGN book "
                          "(-loadPositionFile, -loadGameFile), or set -usePolyglotBook false")
    tc, st, depth = _time_control(options, path)
    settings = Settings(
        name=target.stem,
        type=TourneyType.GAUNTLET if kind > 0 else TourneyType.ROUND_ROBIN,
        gauntlet_seeds=max(kind, 1),
        cycles=_whole(options, "tourneyCycles", "1", path),
        games_per_pairing=_whole(options, "defaultMatchGames", "1", path),
        sync_after_round=_flag(options, "syncAfterRound", path),
        sync_after_cycle=_flag(options, "syncAfterCycle", path),
        pgn=options.get("saveGameFile", "") or target.with_suffix(".pgn").name,
        after_game=options.get("afterGame", ""),
        after_tourney=options.get("afterTourney", ""),
        ponder=_flag(options, "ponderNextMove", path),
        tc=tc,
        st=st,
        depth=depth,
    )
    results = options.get("results", "").replace(PLAYING, UNPLAYED)
    foreign = next((c for c in results if c not in RESULT_CHARS), None)
    if foreign is not None:  # written into the new file as it was, and then counted as a game played
        raise ConfigError(f"{foreign!r} at game {results.index(foreign)} is no result", file=path, field="-results",
                          hint='XBoard writes "+", "-", "=", "*" and space')
    tourney = Tourney(
        path=target,
        settings=settings,
        participants=[Participant(name=n, engine=str(_definition_for(n, known))) for n in names],
        openings=_openings(options, path),
        results=results.rstrip(UNPLAYED),
    )
    try:
        tourney.validate(engines=True)
    except ConfigError as exc:
        if exc.file != str(target):
            raise  # an engine definition's own error
        # Nothing is written: the option of the .trn that gave the value is at fault, not the new file.
        field = _OPTIONS.get(exc.field or "", exc.field)
        raise exc.relocated(file=path, field=field) from None
    _check_book(tourney, path)
    return tourney


def _check_book(tourney: Tourney, path: Path) -> None:
    """The book read now, as ``new`` reads it: one not found was taken, and ``run`` then refused the tourney. An
    XBoard book is found from where XBoard ran, ours from the new tourney file: told as the .trn's option."""
    if tourney.openings is None:
        return
    option = "-loadPositionFile" if tourney.openings.format is BookFormat.EPD else "-loadGameFile"
    book = tourney.directory / tourney.openings.file
    hint = f"give the book's path from {str(tourney.directory)!r}, where the new tourney file goes"
    try:
        exists = expect_file(book)
    except ConfigError as exc:  # a directory, a FIFO: said of the option that names it
        raise ConfigError(f"{str(book)!r} {exc.message}", file=path, field=option, hint=hint) from None
    if not exists:
        raise ConfigError(f"no book {str(book)!r}", file=path, field=option, hint=hint)
    load_book(tourney)  # a bad line is told by the book's own file and line


def _openings(options: dict[str, str], path: Path) -> Openings | None:
    """-loadGameFile (XBoard's choice when both are given) or -loadPositionFile, walked as XBoard walks it.

    XBoard's index -2 uses each opening twice, colours reversed, in file order: a sequential book, as tmanager plays
    one (it was taken for random order); -1, a new opening every game, is played so too. An index of 0 or more
    plays every game from that one opening, and -rewindIndex N only the first N: neither is a book tmanager plays,
    and either is refused rather than played as another walk."""
    for file_key, index_key, kind, default in (
        ("loadGameFile", "loadGameIndex", BookFormat.PGN, "0"),
        ("loadPositionFile", "loadPositionIndex", BookFormat.EPD, "1"),
    ):
        file = options.get(file_key, "")
        if not file:
            continue
        index = _whole(options, index_key, default, path)
        rewind = _whole(options, "rewindIndex", "0", path)
        if index >= 0 and rewind <= 1:  # XBoard: a rewind past 1 implies auto-increment
            raise ConfigError(f"{index}: every game from opening {max(index, 1)} alone, which no tmanager book plays",
                              file=path, field=f"-{index_key}", hint="-2 walks the book, each opening twice with "
                              "colours reversed; or give a book of that one opening")
        if rewind > 0:
            raise ConfigError(f"{rewind}: the book's first {rewind} opening(s) only, which no tmanager book plays",
                              file=path, field="-rewindIndex",
                              hint=f"give a book of those {rewind} openings, and -rewindIndex 0")
        return Openings(file=file, format=kind, order=BookOrder.SEQUENTIAL)
    return None
