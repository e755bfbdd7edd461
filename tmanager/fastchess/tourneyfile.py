"""The tourney file of a fastchess command line: made for a new test, found again to resume one.

fastchess keeps a test's state in ``config.json`` and resumes it only when told
(``-config file=config.json``). tmanager keeps it in a tourney file, which is
the test: the same command run again after a crash (or a Ctrl-C) finds it and
plays on, losing no game and doubling none. Its name is the command's:

* ``-config outname=NAME``: that name (a ``.json`` one gets ``.toml``);
* otherwise ``fastchess-XXXXXXXX.toml`` in the current directory, where the
  eight hex digits are a hash of what defines the test (engines, limits, book,
  rounds, rules, outputs), not of how it is run (concurrency, reports, logs):
  two commands that play the same games share a file, two that do not never do,
  even when they run at once in one directory (OpenBench's runners do).

A file found under that name holds this test when its settings are those the
command makes (with the file's own opening seed, when ``-srand`` was not
given, and its own dated PGN name, when ``-pgnout`` named none). Anything else
(a hand edit, another test under an ``outname``) is refused, never overwritten:
``-config discard=true`` (or ``stats=false``) begins the test afresh.
``-config file=NAME`` resumes NAME as it is, whatever the command line says of
the test (which it may then not say at all).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from tmanager.core.stats import SprtModel, SprtSettings
from tmanager.errors import ConfigError
from tmanager.fastchess.config import EngineConfig, MatchConfig, TournamentType, Variant
from tmanager.fastchess.output import OutputFormat
from tmanager.files import check_writable
from tmanager.tomlmap import parse_value
from tmanager.tourney import store
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.model import GameOrder, Openings, Participant, Settings, Tourney, TourneyType, settings_to_toml
from tmanager.tourney.paths import check_tables
from tmanager.tourney.settings import BookFormat, PvChecks

#: MatchConfig's fields that say which games are played and how they are written: a test's identity.
TEST_FIELDS = (
    "engines", "type", "seeds", "rounds", "games", "openings", "seed", "sprt", "draw", "resign", "max_moves",
    "tablebases", "variant", "noswap", "reverse", "wait_ms", "pgn", "epd", "event", "site", "startup_ms",
    "ucinewgame_ms", "ping_ms", "check_mate_pvs", "show_latency",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Prepared:
    """The tourney a command plays, and how it came to be: ``resumed`` from its file, or new, and then
    written by :func:`write` only once everything that can be checked before a game has been."""

    tourney: Tourney
    resumed: bool
    #: The file as it was before it was read: a new test is written only over that (a test played out, which
    #: fastchess plays again, or one begun afresh), not over one another run of the command wrote since.
    seen: store.Seen


def identity(config: MatchConfig) -> str:
    """Eight hex digits that differ between commands that play different games."""
    test = {name: _plain(getattr(config, name)) for name in TEST_FIELDS}
    digest = hashlib.sha256(json.dumps(test, sort_keys=True, default=str).encode()).hexdigest()
    return digest[:8]


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if value is BookFormat.AUTO:  # -openings without format=, "" before it was a BookFormat: the test's name kept
        return ""
    return value


def state_path(config: MatchConfig, *, cwd: Path) -> Path:
    """Where the command's test is kept (see the module's docstring)."""
    name = config.state.file or config.state.outname or f"fastchess-{identity(config)}.toml"
    path = cwd / name
    return path.with_suffix(".toml") if path.suffix == ".json" else path


#: Settings a later tmanager gave the tests it makes, which say how it runs a test, not which test it is: a test
#: begun before (its file without them) resumes as it was begun, not refused as another test after an upgrade.
RUNNER_SETTINGS_SINCE = ("late_move_wait",)


def prepare(config: MatchConfig, *, cwd: Path, joining: bool = False) -> Prepared:
    """The tourney of ``config``: its file resumed, or a new one, not written yet (:class:`ConfigError` for a
    file that holds another test). ``joining``: another run of the command wrote its test since this one
    looked, which is then resumed, not begun afresh again by ``-config discard=true``."""
    path = state_path(config, cwd=cwd)
    seen = store.Seen.now(path)
    if config.state.file and not path.exists():
        raise _no_test(config.state.file, path, cwd=cwd)
    if (config.state.file or config.state.outname) and path.exists():  # a directory, a FIFO: said as named
        check_writable(path, file=None, field="-config file=" if config.state.file else "-config outname=")
    if config.state.file:
        return Prepared(store.read(path), resumed=True, seen=seen)
    _check_tablebases(config)  # before the file of a test begun is read: told as -tb gives them, not as it keeps them
    if path.exists() and (joining or not _afresh(config)):
        found = store.read(path)
        wanted = tourney_of(config, path, seed=_seed(found), pgn=found.settings.pgn, epd=found.settings.epd_out)
        wanted.settings = dataclasses.replace(
            wanted.settings, **{key: getattr(found.settings, key) for key in RUNNER_SETTINGS_SINCE}
        )
        if settings_to_toml(found) != settings_to_toml(wanted):
            raise ConfigError(
                "holds another test than this command's", file=path,
                hint="run the command that made it, or -config discard=true to begin this one afresh there, "
                "or -config outname=OTHER",
            )
        if not found.is_complete():
            return Prepared(found, resumed=True, seen=seen)
    elif not path.parent.is_dir():
        raise ConfigError(f"no directory {str(path.parent)!r} to hold the test's file", field="-config outname=",
                          hint="create the directory, or change the name")
    seed = config.seed if config.seed is not None else random.getrandbits(63)
    return Prepared(tourney_of(config, path, seed=seed), resumed=False, seen=seen)


def _no_test(name: str, path: Path, *, cwd: Path) -> ConfigError:
    """``-config file=NAME`` where no test of tmanager's is: fastchess's own config.json is not one."""
    if Path(name).suffix == ".json" and (cwd / name).is_file():
        hint = (f"{name} is fastchess's own state, which tmanager does not read: run the command line that began "
                "the test, and tmanager begins it in a file of its own")
    else:
        hint = "a test's file is the one its command line made: fastchess-XXXXXXXX.toml, or its -config outname="
    return ConfigError(f"no test file {os.path.relpath(path, cwd)!r}", field="-config file=", hint=hint)


def write(config: MatchConfig, prepared: Prepared) -> None:
    """Write a new test's tourney file (over the one it was prepared from, if any: :class:`FileExists` when
    another process wrote one there since; a resumed test's file is left as it is), and open the outputs asked
    for as fastchess opens them as it begins: emptied when a new test begins them afresh (``append=false``),
    and created empty where there is none. OpenBench's worker reads each runner's PGN once the server stops
    the test, and a runner that finished no game by then left none: a missing PGN is its error."""
    tourney = prepared.tourney
    if not prepared.resumed:
        store.write_new(tourney, overwrite=prepared.seen)
    for asked, append, name in (
        (config.pgn.requested, config.pgn.append, tourney.settings.pgn),
        (config.epd.requested, config.epd.append, tourney.settings.epd_out),
    ):
        if asked:
            _opened(tourney.directory / name, empty=not (append or prepared.resumed))


def _afresh(config: MatchConfig) -> bool:
    """``-config discard=true`` (or ``stats=false``): the test begins afresh over a file of its name."""
    return config.state.discard or not config.state.stats


#: The tourney file's settings (and ``run``'s CPUs) as the command line gives them, for errors told in the
#: command line's terms.
SETTING_OPTIONS = {
    "--affinity": "-use-affinity",
    "openings.file": "-openings file=",
    'openings.format = "pgn"': "-openings format=pgn",
    'openings.format = "epd"': "-openings format=epd",
    "tourney.pgn": "-pgnout file=",
    "tourney.epd_out": "-epdout file=",
    "tourney.cycles": "-rounds",
    "tourney.games_per_pairing": "-games",
}


#: The words of hints that speak of the tourney file, as a command line's user reads them.
HINT_TERMS = {
    "fix the options of the participant or of its engine definition": "fix its option.NAME=VALUE",
}


def told_as_options(error: ConfigError, config: MatchConfig, *, cwd: Path, new: bool = False) -> ConfigError:
    """``error``, found in the tourney the command line ``config`` makes, in the command line's terms: a
    participant's field is its ``-engine``'s, a setting its option's, and the tourney file is not named
    where an option says what is wrong, nor when it holds a ``new`` test (not written yet, or taken back)."""
    field = error.field or ""
    head, dot, rest = field.partition(".")
    participant = re.fullmatch(r"participants\[(\d+)\]", head)
    if participant is not None and int(participant[1]) < len(config.engines):
        field = f"-engine {config.engines[int(participant[1])].name}" + (f" {rest}" if dot else "")
    options = {**SETTING_OPTIONS}
    if not config.pgn.requested:  # the PGN named after the test's file, not by -pgnout
        del options["tourney.pgn"]
    field = options.get(field, field)
    hint = error.hint or ""
    for setting, option in {**options, **HINT_TERMS}.items():
        hint = hint.replace(setting, option)
    # The test's file is named only where no option says what is wrong, and never a new test's: not written
    # yet, or taken back at once when an engine fails as it starts.
    told_by_option = field != (error.field or "")
    ours = error.file == str(state_path(config, cwd=cwd))
    file = None if ours and (told_by_option or new) else error.file
    if file is not None:  # a path given on the command line, as the test's directory joined it (x/../../book)
        file = os.path.normpath(file)
    return ConfigError(error.message, file=file, field=field or None, hint=hint or None)


def adopted(config: MatchConfig, tourney: Tourney) -> MatchConfig:
    """``config`` with the test of a file resumed by ``-config file=``: its SPRT and games per pairing, and
    pentanomial reports as fastchess would make them for it."""
    games = tourney.settings.games_per_pairing
    sprt = tourney.sprt
    penta = (config.output is OutputFormat.FASTCHESS and games == 2 and config.report_penta
             and not (sprt is not None and (sprt.model is SprtModel.BAYESIAN or not sprt.pentanomial)))
    return dataclasses.replace(config, sprt=sprt, games=games, report_penta=penta)


def _seed(tourney: Tourney) -> int:
    return tourney.openings.seed if tourney.openings is not None else 0


def _opened(path: Path, *, empty: bool) -> None:
    """An output as fastchess opens it: created empty if there is none; with ``empty`` (``append=false``)
    emptied, if it is a regular file (anything else is left be)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        if empty and path.is_file():
            with path.open("r+b") as handle:
                handle.truncate(0)


def tourney_of(config: MatchConfig, path: Path, *, seed: int, pgn: str = "", epd: str = "") -> Tourney:
    """The tourney ``config`` describes, kept in ``path``; ``pgn`` and ``epd`` name outputs that fastchess
    would have dated (a resumed test keeps its own)."""
    directory = path.parent
    stamp = time.strftime("%Y%m%d_%H%M%S")
    if config.pgn.requested:
        pgn = _relative(config.pgn.file, directory) if config.pgn.file else pgn or f"fastchess_{stamp}.pgn"
    if config.epd.requested:
        epd = _relative(config.epd.file, directory) if config.epd.file else epd or f"fastchess_{stamp}.epd"
    names = [engine.name for engine in config.engines]
    settings = Settings(
        name=" vs ".join(names) if len(names) <= 3 else f"{names[0]} and {len(names) - 1} others",
        type=TourneyType.GAUNTLET if config.type is TournamentType.GAUNTLET else TourneyType.ROUND_ROBIN,
        gauntlet_seeds=config.seeds if config.type is TournamentType.GAUNTLET else 1,  # fastchess's RR has none
        cycles=config.rounds,
        games_per_pairing=config.games,
        order=GameOrder.FASTCHESS,
        noswap=config.noswap,
        reverse=config.reverse,
        pgn=pgn,
        event=config.event,
        site=config.site,
        variant="chess960" if config.variant is Variant.FISCHERANDOM else "chess",
        time_margin=0.0,
        handshake_timeout=_seconds(config.startup_ms, "-startup-ms"),
        pgn_comments=not config.pgn.minimal,
        pgn_comment_fields=config.pgn.fields,
        pgn_notation=config.pgn.notation,
        pgn_minimal=config.pgn.minimal,
        epd_out=epd,
        log_engines=config.log.engine,
        ready_timeout=_seconds(config.ucinewgame_ms, "-ucinewgame-ms"),
        ping_timeout=_seconds(config.ping_ms, "-ping-ms"),
        pgn_match_lines=config.pgn.match_lines,
        # fastchess checks every PV's moves, and with -check-mate-pvs its mates too; in Python the checks cost
        # about a millisecond a move (tests/unit/test_pvcheck.py, docs/fastchess.md): made when asked for.
        pv_checks=PvChecks.MATES if config.check_mate_pvs else PvChecks.OFF,
        log_latency=config.show_latency,
        stop_on_start_failure=True,
        warn_refused_options=True,
        increment_at_start=True,
        # fastchess reads a move until 100 ms past the time and margin (its TimeControl::MARGIN): one that comes
        # then still loses on time, by the overrun it came with ("White loses on time (37ms overrun)")
        late_move_wait=0.1,
        exec_scripts=True,
        pgn_illegal_move_termination=True,
        wait=config.wait_ms / 1000,
    )
    openings = None
    if config.openings is not None and config.openings.file and config.openings.format is not BookFormat.AUTO:
        book = config.openings  # a book of no format is not read, as fastchess reads none (checks.sanitized)
        openings = Openings(
            file=_relative(book.file, directory), format=book.format, order=book.order, seed=seed,
            start=book.start, plies=max(book.plies, 0),
        )
    tourney = Tourney(
        path=path, settings=settings, participants=[_participant(engine, directory) for engine in config.engines],
        openings=openings, adjudication=_adjudication(config, directory), sprt=_sprt(config),
    )
    tourney.validate()
    return tourney


def _seconds(ms: int, option: str) -> float:
    if ms <= 0:
        raise ConfigError(f"must be more than 0, not {ms}", field=option)
    return ms / 1000


def _sprt(config: MatchConfig) -> SprtSettings | None:
    """The test's SPRT, deciding on the counts fastchess's does: the games' where its reports are not
    pentanomial (cutechess output, -report penta=false)."""
    if config.sprt is None or config.report_penta:
        return config.sprt
    return dataclasses.replace(config.sprt, pentanomial=False)


def _relative(name: str, directory: Path) -> str:
    """A path given on the command line (relative to the current directory) as the tourney file keeps it:
    relative to the file's directory when within it, else absolute, so that a message names it as a path
    ('/data/books'), not as the file's directory joined with a climb ('/work/runs/../../data/books')."""
    path = Path(name).resolve()
    relative = os.path.relpath(path, directory)
    return str(path) if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _participant(engine: EngineConfig, directory: Path) -> Participant:
    # fastchess runs the engine in dir, or in its own working directory without one (not the test file's).
    workdir = _relative(engine.dir or os.curdir, directory)
    try:
        args = tuple(shlex.split(engine.args))
    except ValueError as exc:
        raise ConfigError(f"args={engine.args!r}: {str(exc).lower()}", field=f"-engine {engine.name}") from None
    return Participant(
        name=engine.name,
        cmd=_program(engine),
        protocol=engine.protocol,
        dir="" if workdir == os.curdir else workdir,
        args=args,
        options={key: parse_value(value) for key, value in engine.options},
        tc=engine.tc.tmanager_text(),
        st=engine.st_ms / 1000 if engine.st_ms else None,
        nodes=engine.nodes or None,
        depth=engine.plies or None,
        restart=engine.restart,
        time_margin=engine.timemargin_ms / 1000,
    )


def _program(engine: EngineConfig) -> str:
    """``cmd`` as the tourney file's ``cmd``, which is split into words: fastchess runs it whole, spaces and
    all. A command with a directory is relative to the engine's; a bare name is looked up on PATH and, when
    it is not there, is the one in the engine's directory (fastchess's posix_spawnp, then posix_spawn there)."""
    program = engine.cmd
    if os.sep not in program and shutil.which(program) is None and (Path(engine.dir or os.curdir) / program).is_file():
        program = os.path.join(os.curdir, program)
    return shlex.quote(program)


def _check_tablebases(config: MatchConfig) -> list[str]:
    """The directories of ``-tb``, each refused as given (relative to the current directory) when it is none."""
    given = [p for p in config.tablebases.paths.split(os.pathsep) if p]
    for missing in (p for p in given if not Path(p).is_dir()):
        raise ConfigError(f"no directory {missing!r}", field="-tb",
                          hint=f"give the directories of the Syzygy tables, separated by {os.pathsep!r}")
    for directory in given:
        check_tables(Path(directory), shown=directory, file=None, field="-tb")
    return given


def _adjudication(config: MatchConfig, directory: Path) -> Adjudication:
    draw, resign, tables = config.draw, config.resign, config.tablebases
    paths = os.pathsep.join(_relative(p, directory) for p in _check_tablebases(config))
    return Adjudication(
        resign_score=resign.score if resign else None,
        resign_moves=resign.move_count if resign else 3,
        resign_twosided=resign.twosided if resign else False,
        draw_from_move=draw.move_number if draw else 40,
        draw_score=draw.score if draw else None,
        draw_moves=draw.move_count if draw else 8,
        max_moves=config.max_moves,
        syzygy=paths,
        syzygy_pieces=tables.pieces or 7,
        syzygy_ignore50=tables.ignore50,
        syzygy_adjudicate=tables.adjudicate,
    )
