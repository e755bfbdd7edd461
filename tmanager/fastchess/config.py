"""What a fastchess command line says, as typed values with fastchess's defaults (its ``types/*.hpp``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from tmanager.core.stats import SprtSettings
from tmanager.fastchess.limits import TimeLimit
from tmanager.fastchess.output import OutputFormat
from tmanager.formats.pgn import Notation
from tmanager.tourney.adjudication import TablebaseResults
from tmanager.tourney.engines import Protocol
from tmanager.tourney.settings import BookFormat, BookOrder


class LogLevel(enum.StrEnum):
    """``-log level=``: the least severe of fastchess's messages its log keeps."""

    TRACE = "trace"
    INFO = "info"
    WARN = "warn"
    ERR = "err"
    FATAL = "fatal"

    @property
    def workers_level(self) -> str:
        """The workers' ``--log-level`` that keeps as much: their lines are tmanager's, of which none is a trace."""
        return {"trace": "info", "warn": "warning", "err": "error", "fatal": "critical"}.get(self.value, self.value)


class TournamentType(enum.StrEnum):
    """``-tournament``: everyone against everyone, or the seeds (``-seeds``) against the rest."""

    ROUND_ROBIN = "roundrobin"
    GAUNTLET = "gauntlet"


class Variant(enum.StrEnum):
    """``-variant``: standard chess, or Chess960 (from a book of its start positions)."""

    STANDARD = "standard"
    FISCHERANDOM = "fischerandom"


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """One ``-engine``: its command and name, limits and options."""

    name: str = ""
    cmd: str = ""
    dir: str = ""
    args: str = ""
    tc: TimeLimit = field(default_factory=TimeLimit)
    st_ms: int = 0
    timemargin_ms: int = 0
    nodes: int = 0
    plies: int = 0
    restart: bool = False
    protocol: Protocol = Protocol.UCI
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class OpeningsConfig:
    """``-openings``."""

    file: str = ""
    format: BookFormat = BookFormat.AUTO  #: AUTO: not given (fastchess goes by the file's suffix)
    order: BookOrder = BookOrder.SEQUENTIAL
    plies: int = -1
    start: int = 1


@dataclass(frozen=True, slots=True)
class PgnConfig:
    """``-pgnout``; ``requested`` without ``file``: fastchess's dated name (``fastchess_20261128_121500.pgn``)."""

    requested: bool = False
    file: str = ""
    notation: Notation = Notation.SAN
    append: bool = True
    fields: tuple[str, ...] = ()  # nodes, seldepth… in fastchess's order
    minimal: bool = False
    match_lines: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EpdConfig:
    """``-epdout``, as ``-pgnout``."""

    requested: bool = False
    file: str = ""
    append: bool = True


@dataclass(frozen=True, slots=True)
class LogConfig:
    """``-log``."""

    file: str = ""
    level: LogLevel = LogLevel.WARN
    append: bool = True
    engine: bool = False


@dataclass(frozen=True, slots=True)
class StateConfig:
    """``-config``: where the test's state is kept (a tourney file here, fastchess's ``config.json`` there)."""

    file: str = ""  # resume this one
    outname: str = ""  # keep the state under this name
    discard: bool = False  # begin afresh even if the state exists
    stats: bool = True  # keep the results of the state


@dataclass(frozen=True, slots=True)
class DrawRule:
    move_number: int = 0
    move_count: int = 1
    score: int = 0


@dataclass(frozen=True, slots=True)
class ResignRule:
    move_count: int = 1
    score: int = 0
    twosided: bool = False


@dataclass(frozen=True, slots=True)
class TablebaseConfig:
    """``-tb PATHS`` and the options that go with it."""

    paths: str = ""
    pieces: int = 0  # 0: as many as the tables hold
    ignore50: bool = False
    adjudicate: TablebaseResults = TablebaseResults.BOTH


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Everything a fastchess command line says, with fastchess's defaults."""

    engines: tuple[EngineConfig, ...] = ()
    type: TournamentType = TournamentType.ROUND_ROBIN
    seeds: int = 1
    rounds: int = 2
    games: int = 2
    concurrency: int = 1
    force_concurrency: bool = False
    openings: OpeningsConfig | None = None
    seed: int | None = None  # -srand; None: a random one, drawn once and kept with the test
    sprt: SprtSettings | None = None
    draw: DrawRule | None = None
    resign: ResignRule | None = None
    max_moves: int | None = None
    tablebases: TablebaseConfig = TablebaseConfig()
    variant: Variant = Variant.STANDARD
    noswap: bool = False
    reverse: bool = False
    wait_ms: int = 0
    output: OutputFormat = OutputFormat.FASTCHESS
    report_penta: bool = True
    rating_interval: int = 10
    score_interval: int = 1
    autosave_interval: int = 20
    pgn: PgnConfig = PgnConfig()
    epd: EpdConfig = EpdConfig()
    log: LogConfig = LogConfig()
    state: StateConfig = StateConfig()
    event: str = "Fastchess Tournament"
    site: str = "?"
    recover: bool = False
    test_env: bool = False
    check_mate_pvs: bool = False
    show_latency: bool = False
    strict: bool = False
    crc_pgn: bool = False
    affinity: tuple[int, ...] | None = None  # () for every CPU
    startup_ms: int = 10_000
    ucinewgame_ms: int = 60_000
    ping_ms: int = 60_000
    #: fastchess's warnings of its fixes to the command line, printed as the match begins
    warnings: tuple[str, ...] = ()
    #: (engine name, key, its -engine value, the -each value that won), to be said
    overridden: tuple[tuple[str, str, str, str], ...] = ()

    @property
    def keeps_cut_short(self) -> bool:
        """Whether a test cut short (a signal, a fault, ``-strict``) is kept for the same command to resume.
        ``-autosaveinterval 0`` says that no state is wanted: fishtest's worker passes it, runs each command
        line once (a task id and, for SPSA, the parameters' values in it) and stops each batch it gives up
        with SIGINT, so a test kept would never be resumed and would pile up with every batch. A file named by
        ``-config`` is the user's, and always kept."""
        return self.autosave_interval > 0 or bool(self.state.file or self.state.outname)
