"""The user's part of a tourney file as plain data: ``[tourney]``, ``[openings]`` and ``[[participants]]``.

Each dataclass says what its table holds (see :mod:`tmanager.tomlmap`): its
fields are the keys, their defaults what a missing key means. What the values
mean together is checked by :mod:`tmanager.tourney.validation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tmanager.formats.pgn import Notation
from tmanager.tomlmap import Choice, at_least
from tmanager.tourney.engines import OptionValue, Protocol
from tmanager.tourney.variants import STANDARD


class TourneyType(Choice):
    """``[tourney] type``: who meets whom."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    SWISS = "swiss"
    DOUBLE_SWISS = "double-swiss"


class GameOrder(Choice):
    """``[tourney] order``: the order and numbering of the games, XBoard's or fastchess's."""

    XBOARD = "xboard"
    FASTCHESS = "fastchess"


class PvChecks(Choice):
    """``[tourney] pv_checks``: which checks of the engines' PVs to make: none, the PVs' moves (fastchess's
    default), or their mates too (``-check-mate-pvs``)."""

    OFF = "off"
    LEGAL = "legal"
    MATES = "mates"


class BookFormat(Choice):
    """``[openings] format``: an EPD or a PGN book, or ``auto``: by the file's suffix, else by its content."""

    AUTO = "auto"
    EPD = "epd"
    PGN = "pgn"


class BookOrder(Choice):
    """``[openings] order``: the book's openings in its order, or in a seeded random order."""

    SEQUENTIAL = "sequential"
    RANDOM = "random"


#: The tourney types paired round by round (``[swiss]`` holds their pairings): FIDE Dutch and Double-Swiss.
SWISS_TYPES = frozenset({TourneyType.SWISS, TourneyType.DOUBLE_SWISS})


@dataclass(frozen=True, slots=True)
class Settings:
    """``[tourney]``: how the event is organised and played."""

    name: str = "tourney"
    type: TourneyType = TourneyType.ROUND_ROBIN
    gauntlet_seeds: int = 1
    cycles: int = field(default=1, metadata=at_least(1, hint="the times the schedule is played: 1 or more"))
    games_per_pairing: int = field(
        default=2, metadata=at_least(1, hint="the games of each pairing: 1, or 2 for a colour-reversed pair")
    )
    swiss_rounds: int = 0
    bye_points: float | None = None
    sync_after_round: bool = False
    sync_after_cycle: bool = False
    #: The order and numbering of the games: XBoard's, or fastchess's (see core.schedule.FastchessOrder).
    order: GameOrder = GameOrder.XBOARD
    noswap: bool = False  #: the first of a pairing has white in all its games (fastchess's -noswap)
    reverse: bool = False  #: the other colours than the schedule gives (fastchess's -reverse)
    pgn: str = ""
    after_game: str = ""
    after_tourney: str = ""
    event: str = ""
    site: str = ""
    variant: str = STANDARD
    tc: str = "inf"
    st: float | None = None
    nodes: int | None = None
    depth: int | None = None
    time_margin: float = 0.1
    handshake_timeout: float = 10.0
    #: Seconds an engine has to be ready for a game (``ucinewgame``, ``isready``; fastchess's -ucinewgame-ms),
    #: and to answer a ping once a search was cut off (-ping-ms); ``None``: ``handshake_timeout``.
    ready_timeout: float | None = None
    ping_timeout: float | None = None
    ponder: bool = False
    restart: bool = False
    pgn_comments: bool = False
    pgn_comment_fields: tuple[str, ...] = ()
    pgn_notation: Notation = Notation.SAN
    pgn_minimal: bool = False
    #: The Termination tag of a game lost by an illegal move is fastchess's ``illegal move`` (OpenBench's worker
    #: reports such games by it), not the PGN standard's ``rules infraction``.
    pgn_illegal_move_termination: bool = False
    epd_out: str = ""
    #: Regular expressions: each engine move's PGN comment quotes the last line of its search that each matches.
    pgn_match_lines: tuple[str, ...] = ()
    #: Check the engines' PVs as fastchess does: "off", "legal" (their moves) or "mates" (and mate lengths).
    pv_checks: PvChecks = PvChecks.OFF
    #: Log each move's latency (the time measured less the time the engine reports), as fastchess's -show-latency.
    log_latency: bool = False
    #: Seconds a lane waits after each game before it claims the next (fastchess's -wait, in ms there).
    wait: float = 0.0
    #: An engine that fails to start (crashes or misses its handshake) stops the workers, as a configuration
    #: error does, and its game is given back unplayed, as fastchess stops at a startup failure; else it loses.
    stop_on_start_failure: bool = False
    #: An option the engine does not have, or a value it cannot take, is left unset, and the engine plays on
    #: (each game's engines warned of, as fastchess warns of them); else a configuration error, which stops the
    #: workers before the game. An option the runner sets itself (``MultiPV``…) stops them either way.
    warn_refused_options: bool = False
    #: Each clock starts at its base time plus one increment, as fastchess's does (``go wtime 1100 winc 100``
    #: at the first move of 1+0.1); else at its base time, as XBoard's.
    increment_at_start: bool = False
    #: Seconds a move is still awaited past the engine's time and margin, to read it and tell by how much it was
    #: late (the engine loses on time all the same), as fastchess awaits it 100 ms more; else the wait ends there.
    late_move_wait: float = 0.0
    #: A program ending in ``.py`` runs as the system runs any program, by its ``#!`` line (fastchess's way: an
    #: engine's own interpreter and environment); else with tmanager's own Python, whose python-chess it has.
    exec_scripts: bool = False
    log_engines: bool = False
    move_timeout: float = 60.0
    lease: float = 120.0


@dataclass(frozen=True, slots=True)
class Openings:
    """``[openings]``: an EPD or PGN book; both games of a colour-reversed pair share an opening."""

    file: str
    format: BookFormat = BookFormat.AUTO
    order: BookOrder = BookOrder.SEQUENTIAL
    seed: int = 0
    #: Counted from 1, as fastchess's ``start=``; past the end of the book it wraps round. Refused below 1 where
    #: the file is read, so that every command agrees (``status`` took 0, which only a worker refused).
    start: int = field(
        default=1, metadata=at_least(1, hint="the book's first opening is 1; a start past its end wraps round")
    )
    plies: int = 0


@dataclass(frozen=True, slots=True)
class Participant:
    """``[[participants]]``: one engine; either ``engine`` names a definition or ``cmd`` is given."""

    name: str
    engine: str = ""
    cmd: str = ""
    protocol: Protocol = Protocol.UNSET
    dir: str = ""
    args: tuple[str, ...] = ()
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    tc: str = ""
    st: float | None = None
    nodes: int | None = None
    depth: int | None = None
    ponder: bool | None = None
    restart: bool | None = None
    time_margin: float | None = None
    stderr: str = ""
