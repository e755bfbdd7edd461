"""The tourney file: a TOML document holding settings, participants and progress.

The model here is plain data with validation; reading and writing the file
under a lock lives in :mod:`tmanager.tourney.store`. The layout, in file order::

    [tourney]            settings (name, type, cycles, games_per_pairing, tc…)
    [openings]           optional opening book
    [adjudication]       optional adjudication rules
    [sprt]               optional SPRT of a two-participant match (the first is under test)
    [[participants]]     one table per engine, order fixed for the whole event
    [swiss]              Swiss pairings made so far (written by tmanager)
    [faults]             engine faults counted per participant (written by tmanager)
    [verdict]            the SPRT's verdict once the test is over (written by tmanager)
    [amendments.N]       changes forced on an SPRT test under way (written by tmanager, see amendments.py)
    [progress]           participants, version and results = "…", always last, as XBoard's -results

Everything above ``[swiss]``/``[faults]``/``[progress]`` is the user's and is
never rewritten by a worker; the owned tail is. Who plays a game marked ``*``
(:class:`Claim`) and the hooks still to run (:class:`PendingHook`) are kept in
the journal beside the file (see :mod:`tmanager.tourney.store`).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tmanager.core.results import Result
from tmanager.core.schedule import FastchessOrder, Gauntlet, RoundRobin, Schedule, ScheduledGame, SwissSchedule
from tmanager.core.sprt import MatchState, Verdict, match_state
from tmanager.core.standings import GameResult, PairCounts, Tally
from tmanager.core.stats import SprtSettings
from tmanager.core.timecontrol import TimeControl
from tmanager.errors import ConfigError, StateError
from tmanager.files import expect_directory
from tmanager.formats import pgn
from tmanager.formats.pgn import COMMENT_FIELDS, Notation
from tmanager.tomlmap import check_keys as _check_keys
from tmanager.tomlmap import from_table as _from_table
from tmanager.tomlmap import to_table as _to_table
from tmanager.tourney import amendments
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.amendments import Amendment
from tmanager.tourney.engines import EngineSpec, OptionValue, command_line, find_definition, load_definition
from tmanager.tourney.paths import check_directories, check_output
from tmanager.tourney.variants import STANDARD, check_variant

if TYPE_CHECKING:
    from tmanager.core.crosstable import Crosstable

TourneyType = Literal["round-robin", "gauntlet", "swiss", "double-swiss"]
GameOrder = Literal["xboard", "fastchess"]
PvCheckLevel = Literal["off", "legal", "mates"]
#: The tourney types paired round by round (``[swiss]`` holds their pairings): FIDE Dutch and Double-Swiss.
SWISS_TYPES = ("swiss", "double-swiss")

#: XBoard's results alphabet.
WHITE_WINS, BLACK_WINS, DRAW, PLAYING, UNPLAYED = "+", "-", "=", "*", " "
RESULT_CHARS = WHITE_WINS + BLACK_WINS + DRAW + PLAYING + UNPLAYED
FINISHED_CHARS = WHITE_WINS + BLACK_WINS + DRAW

#: Sections tmanager writes after the user's part (``[claims]`` only in files of older versions).
OWNED_SECTIONS = ("swiss", "claims", "faults", "verdict", "amendments", "progress")
_FINISHED = re.compile(r"[-+=]")
#: Up to this many finished games a cross-table is built game by game (see :meth:`Tourney.crosstable`).
GAME_BY_GAME = 20_000

#: The most games a tourney may schedule: the results string is kept in memory (and in the
#: file) at its full length, one character a game.
MAX_GAMES = 100_000_000

#: Durations that must be more than zero: a zero lease or timeout would end every game at once.
POSITIVE_SETTINGS = ("handshake_timeout", "move_timeout", "lease")
#: Durations that may be left out (None) but never be zero or less.
OPTIONAL_POSITIVE_SETTINGS = ("ready_timeout", "ping_timeout")

#: The PGN standard's limit on a string token such as a tag value (section 7).
MAX_TAG_LENGTH = 255

#: The key in an engine's ``[faults]`` table holding the worst overstep of its clock in ms (not a count).
OVERSTEP = "worst overstep ms"


def describe_faults(counts: Mapping[str, int]) -> tuple[int, str]:
    """One engine's ``[faults]`` table as (number of faults, "crash 1, time forfeit 2, worst overstep 150 ms")."""
    kinds = {kind: n for kind, n in counts.items() if kind != OVERSTEP}
    words = [f"{kind} {n}" for kind, n in sorted(kinds.items())]
    if OVERSTEP in counts:
        words.append(f"worst overstep {counts[OVERSTEP]} ms")
    return sum(kinds.values()), ", ".join(words)


@dataclass(frozen=True, slots=True)
class Settings:
    """``[tourney]``: how the event is organised and played."""

    name: str = "tourney"
    type: TourneyType = "round-robin"
    gauntlet_seeds: int = 1
    cycles: int = 1
    games_per_pairing: int = 2
    swiss_rounds: int = 0
    bye_points: float | None = None
    sync_after_round: bool = False
    sync_after_cycle: bool = False
    #: The order and numbering of the games: XBoard's, or fastchess's (see core.schedule.FastchessOrder).
    order: GameOrder = "xboard"
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
    pgn_notation: Notation = "san"
    pgn_minimal: bool = False
    epd_out: str = ""
    #: Regular expressions: each engine move's PGN comment quotes the last line of its search that each matches.
    pgn_match_lines: tuple[str, ...] = ()
    #: Check the engines' PVs as fastchess does: "off", "legal" (their moves) or "mates" (and mate lengths).
    pv_checks: PvCheckLevel = "off"
    #: Log each move's latency (the time measured less the time the engine reports), as fastchess's -show-latency.
    log_latency: bool = False
    #: Seconds a lane waits after each game before it claims the next (fastchess's -wait, in ms there).
    wait: float = 0.0
    log_engines: bool = False
    move_timeout: float = 60.0
    lease: float = 120.0


@dataclass(frozen=True, slots=True)
class Openings:
    """``[openings]``: an EPD or PGN book; both games of a colour-reversed pair share an opening."""

    file: str
    format: Literal["auto", "epd", "pgn"] = "auto"
    order: Literal["sequential", "random"] = "sequential"
    seed: int = 0
    start: int = 1
    plies: int = 0


@dataclass(frozen=True, slots=True)
class Participant:
    """``[[participants]]``: one engine; either ``engine`` names a definition or ``cmd`` is given."""

    name: str
    engine: str = ""
    cmd: str = ""
    protocol: Literal["", "uci", "xboard"] = ""
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


@dataclass(frozen=True, slots=True)
class Claim:
    """Who is playing a game marked ``*``: enough to tell a live owner from a dead one."""

    host: str
    pid: int
    started: float
    claimed: float
    heartbeat: float
    #: Size of the PGN when the game was claimed: its game, if written, comes after.
    pgn_offset: int = 0

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Claim:
        return cls(**data)


@dataclass(frozen=True, slots=True)
class PendingHook:
    """A hook that must run once: recorded with the game (or the tourney's end) that calls for it.

    ``taken_by`` names the worker running it (host, pid, process start time), so
    that a hook whose worker died is run again only if it never started (see
    :mod:`tmanager.tourney.worker`).
    """

    name: str  #: "after_game" or "after_tourney"
    command: str
    env: Mapping[str, str]
    game: int = -1  #: the game an after_game hook is for
    taken_by: tuple[str, int, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "env": dict(self.env)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PendingHook:
        taken = data.get("taken_by")
        return cls(
            name=str(data["name"]),
            command=str(data["command"]),
            env={str(k): str(v) for k, v in data["env"].items()},
            game=int(data.get("game", -1)),
            taken_by=(str(taken[0]), int(taken[1]), float(taken[2])) if taken else None,
        )


@dataclass(frozen=True, slots=True)
class PgnMark:
    """The PGN's size after the last game recorded, and which file it was (the ``pgn`` setting may change):
    the same PGN found shorter was cut."""

    path: str
    size: int

    def to_json(self) -> list[Any]:
        return [self.path, self.size]

    @classmethod
    def from_json(cls, data: Any) -> PgnMark | None:
        return None if data is None else cls(str(data[0]), int(data[1]))


@dataclass(slots=True)
class Tourney:
    """A whole tourney file in memory."""

    path: Path
    settings: Settings
    participants: list[Participant]
    openings: Openings | None = None
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: SprtSettings | None = None
    swiss: list[list[tuple[int, int]]] = field(default_factory=list)
    claims: dict[int, Claim] = field(default_factory=dict)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    verdict: Verdict | None = None
    #: Changes forced on the SPRT test after its first recorded game (see :mod:`tmanager.tourney.amendments`).
    amendments: tuple[Amendment, ...] = ()
    results: str = ""
    #: Hooks still to run, by key (``after_game:N``, ``after_tourney``).
    hooks: dict[str, PendingHook] = field(default_factory=dict)
    #: Bumped by every stored change; a file behind its journal's version is a stale copy.
    version: int = 0
    #: The PGN's size after the last game recorded (kept in the journal): a PGN found shorter was cut.
    pgn_mark: PgnMark | None = None

    @property
    def directory(self) -> Path:
        return self.path.parent

    @property
    def live_dir(self) -> Path:
        """Where workers publish their games in progress, one JSON file per game (see live.LiveGame)."""
        return self.directory / f".{self.path.stem}.live"

    @property
    def engine_logs_dir(self) -> Path:
        """Where games write their engine logs (``log_engines``), one file per game: ``game-N.log``."""
        return self.directory / f"{self.path.stem}.engine-logs"

    @property
    def pgn_path(self) -> Path:
        return self.directory / (self.settings.pgn or self.path.with_suffix(".pgn").name)

    def schedule(self) -> Schedule:
        """The schedule of this tourney's type."""
        s = self.settings
        n = len(self.participants)
        shape: dict[str, Any] = {
            "games_per_pairing": s.games_per_pairing, "cycles": s.cycles, "noswap": s.noswap, "reverse": s.reverse,
        }
        if s.order == "fastchess" and s.type in ("round-robin", "gauntlet"):
            return FastchessOrder(n, seeds=s.gauntlet_seeds if s.type == "gauntlet" else None, **shape)
        if s.type == "round-robin":
            return RoundRobin(n, **shape)
        if s.type == "gauntlet":
            return Gauntlet(n, seeds=s.gauntlet_seeds, **shape)
        if s.order != "xboard" or s.noswap or s.reverse:
            raise ConfigError(
                "a Swiss is paired round by round: its order and colours are the pairing's",
                field="tourney.order" if s.order != "xboard" else "tourney.noswap" if s.noswap else "tourney.reverse",
                hint='remove it (order = "xboard", noswap = false, reverse = false)',
            )
        if s.type == "double-swiss" and s.games_per_pairing != 2:
            raise ConfigError(
                f"a Double-Swiss match is 2 games, not {s.games_per_pairing}",
                field="tourney.games_per_pairing",
                hint="set games_per_pairing = 2 (both games of a match play one opening, colours reversed)",
            )
        return SwissSchedule(
            n, rounds=s.swiss_rounds, paired=self.swiss, games_per_pairing=s.games_per_pairing, cycles=s.cycles
        )

    @property
    def bye_points(self) -> float:
        """What a Swiss bye is worth: ``bye_points``, by default a win of every game of a pairing (in a
        Double-Swiss, a game won and a game drawn: FIDE C.04.5 1.4)."""
        s = self.settings
        if s.bye_points is not None:
            return s.bye_points
        return 1.5 if s.type == "double-swiss" else float(s.games_per_pairing)

    def byes(self) -> list[int]:
        """The participant with the bye in each paired Swiss round (odd fields only)."""
        n = len(self.participants)
        byes = []
        for boards in self.swiss:
            seated = {p for board in boards for p in board}
            byes += [i for i in range(n) if i not in seated]
        return byes

    def result(self, number: int) -> str:
        """The results character of game ``number`` (space when beyond the string)."""
        return self.results[number] if number < len(self.results) else UNPLAYED

    def finished_games(self) -> list[tuple[ScheduledGame, str]]:
        """Every finished game with its results character, in game-number order."""
        schedule = self.schedule()
        games = []
        for match in _FINISHED.finditer(self.results):
            game = schedule.game(match.start())
            if game is not None:
                games.append((game, match.group()))
        return games

    def pair_counts(self) -> dict[tuple[int, int], tuple[int, int, int]]:
        """Finished games per (white, black) participant pair: white wins, draws, black wins.

        Straight from the results string, without a million objects: the games that
        are one schedule period apart (see :attr:`Schedule.period`) have the same
        players and colours, so each game of the first period stands for a strided
        slice of the string, counted at C speed.
        """
        schedule = self.schedule()
        period = schedule.period
        counts: dict[tuple[int, int], tuple[int, int, int]] = {}
        for slot in range(min(period, len(self.results))):
            chars = self.results[slot::period]
            game = schedule.game(slot)
            if game is None:
                continue
            key = (game.white, game.black)
            wins, draws, losses = counts.get(key, (0, 0, 0))
            counts[key] = (wins + chars.count(WHITE_WINS), draws + chars.count(DRAW), losses + chars.count(BLACK_WINS))
        return counts

    def tally(self) -> list[float]:
        """Points per participant, straight from the results string (and Swiss byes)."""
        points = [0.0] * len(self.participants)
        for (white, black), (wins, draws, losses) in self.pair_counts().items():
            points[white] += wins + draws / 2
            points[black] += losses + draws / 2
        for index in self.byes():
            points[index] += self.bye_points
        return points

    def participant_index(self, name: str) -> int:
        """The index of the participant called ``name``; :class:`ConfigError` listing the names otherwise."""
        for i, p in enumerate(self.participants):
            if p.name == name:
                return i
        names = ", ".join(p.name for p in self.participants)
        raise ConfigError(f"no participant named {name!r}", file=self.path, hint=f"participants: {names}")

    def crosstable(self) -> Crosstable:
        """The cross-table of the finished games (names as they are now).

        Up to :data:`GAME_BY_GAME` games it is built game by game, with the
        game-by-game grid; beyond, from :meth:`pair_counts` and, for a match, its
        pairs as :meth:`match_state` counts them, without an object per game (a
        million of them would cost seconds and hundreds of megabytes).
        """

        from tmanager.core import crosstable  # here: a worker never renders one, and saves importing it

        title = self.settings.name
        names = [p.name for p in self.participants]
        match = (names[0], names[1]) if len(names) == 2 else None  # a match's first participant is the one tested
        if self.finished_count <= GAME_BY_GAME:
            return crosstable.build(self.game_results(), title=title, match=match, sprt=self.sprt)
        tally = Tally()
        for (white, black), counts in sorted(self.pair_counts().items()):
            tally.count(names[white], names[black], counts)
        state = self.match_state()
        pairs = None
        if state is not None and state.penta is not None:
            pairs = PairCounts(names[0], state.penta, unpaired=state.games - 2 * state.pairs)
        return crosstable.summarize(tally, title=title, match=match, pairs=pairs, sprt=self.sprt)

    def game_results(self) -> list[GameResult]:
        """The finished games for cross-tables, in game-number order, with their pairs (names as they are now)."""
        names = [p.name for p in self.participants]
        schedule = self.schedule()
        games = []
        for game, char in self.finished_games():
            partner = schedule.partner(game.number)
            pair = None if partner is None else min(game.number, partner)
            games.append(
                GameResult(
                    names[game.white], names[game.black], Result.from_xboard(char).pgn, str(game.pgn_round),
                    game.number, pair=pair,
                )
            )
        return games

    @property
    def finished_count(self) -> int:
        """Games with a result."""
        return len(self.results) - self.results.count(PLAYING) - self.results.count(UNPLAYED)

    def playing(self) -> list[int]:
        """Numbers of the games marked ``*`` (found with str.find, at memory speed: there are few)."""
        found = []
        number = self.results.find(PLAYING)
        while number >= 0:
            found.append(number)
            number = self.results.find(PLAYING, number + 1)
        return found

    def check_pgn(self) -> None:
        """:class:`StateError` when recorded games are missing from the PGN: it is shorter than the last game
        recorded left it (cut by hand, or an older copy put back), and finished games have no current game
        there. One ``stat`` when it has not shrunk. When every finished game is still there (superseded games
        removed by hand, the missing ones set back to be played again), its size now is the mark from now on.
        """
        mark = self.pgn_mark
        if mark is None or mark.path != str(self.pgn_path):  # no game recorded yet, or in another file
            return
        try:
            size = os.stat(self.pgn_path).st_size
        except OSError:
            size = 0
        if size >= mark.size:
            return
        found = pgn.current_games(self.pgn_path)
        missing = [m.start() for m in _FINISHED.finditer(self.results) if m.start() not in found]
        if missing:
            shown = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
            raise StateError(
                f"{self.pgn_path}: {len(missing)} recorded game(s) missing ({shown}): it has {size:,} bytes where "
                f"the last game recorded left {mark.size:,}, so it was cut or replaced (put it back from a "
                f"backup, or set those results back to a space in {self.path.name} to play the games again)"
            )
        self.pgn_mark = PgnMark(mark.path, size)

    def is_complete(self) -> bool:
        """Whether the tourney is over: every scheduled game has a result (the results string is never
        longer than the schedule), or its SPRT has decided and the pairs begun are complete."""
        results = self.results  # memchr-fast searches: this is asked at every claim and record
        if len(results) == self.schedule().total_games and PLAYING not in results and UNPLAYED not in results:
            return True
        state = self.sprt_state()
        return state is not None and state.over

    def match_state(self) -> MatchState | None:
        """The match so far of a two-participant round robin or gauntlet, from the first participant's
        side, with its SPRT (see :mod:`tmanager.core.sprt`); ``None`` for other tourneys."""
        if len(self.participants) != 2 or self.settings.type in SWISS_TYPES:
            return None
        return match_state(self.schedule(), self.results, self.sprt)

    def sprt_state(self) -> MatchState | None:
        """:meth:`match_state` for a tourney with ``[sprt]``; ``None`` without (numpy is not even loaded)."""
        return self.match_state() if self.sprt is not None else None

    def claimable(self) -> Collection[int] | None:
        """The only games a worker may still begin, or ``None`` for any unplayed game: once the SPRT
        has decided, the unplayed games of pairs already begun (the test ends on whole pairs)."""
        state = self.sprt_state()
        return None if state is None else state.claimable

    def update_verdict(self) -> None:
        """Record the SPRT's verdict once the test is over, and drop one that no longer holds
        (the bounds or cycles were changed, or ``[sprt]`` removed)."""
        state = self.sprt_state()
        self.verdict = None if state is None else state.verdict

    def games_of(self, index: int, chars: str) -> list[int]:
        """Numbers of the games of participant ``index`` whose results character is in ``chars``."""
        schedule = self.schedule()
        found = []
        for match in re.finditer("[" + re.escape(chars) + "]", self.results):
            game = schedule.game(match.start())
            if game is not None and index in (game.white, game.black):
                found.append(match.start())
        return found

    def substitute(self, old: str, new: Participant, *, replace: bool) -> list[int]:
        """Put ``new``'s engine in ``old``'s place (same index, so the schedule keeps its meaning), with
        the slot's conditions (:data:`SLOT_KEYS`: time control, ponder, restart, time margin).

        Upgrade (``replace=False``): ``new`` plays the future games under ``old``'s name, so that
        the results, the PGN and every table show one player. Replace: ``old``'s finished games
        are reset to not played, and their numbers returned; ``new`` replays them under its own
        name. Replace is refused while ``old`` is playing.
        """
        index = self.participant_index(old)
        slot = self.participants[index]
        new = dataclasses.replace(new, **{key: getattr(slot, key) for key in SLOT_KEYS})
        if not replace:
            new = dataclasses.replace(new, name=old)
        if new.name != old and any(p.name == new.name for p in self.participants):
            raise ConfigError(f"a participant is already named {new.name!r}", file=self.path, hint="choose --name")
        reset: list[int] = []
        if replace:
            playing = self.games_of(index, PLAYING)
            if playing:
                raise StateError(
                    f"{self.path}: {old!r} is playing game(s) {', '.join(map(str, playing))} now; "
                    "replace it after they finish, or use --upgrade"
                )
            reset = self.games_of(index, FINISHED_CHARS)
            for number in reset:
                self.set_result(number, UNPLAYED)
        self.participants[index] = new
        return reset

    def count_fault(self, engine: str, kind: str) -> None:
        counts = self.faults.setdefault(engine, {})
        counts[kind] = counts.get(kind, 0) + 1

    def note_overstep(self, engine: str, seconds: float) -> None:
        """Keep ``engine``'s worst overstep of its clock, in whole ms under :data:`OVERSTEP`, when it went over."""
        ms = round(seconds * 1000)
        if ms > 0:
            counts = self.faults.setdefault(engine, {})
            counts[OVERSTEP] = max(ms, counts.get(OVERSTEP, 0))

    def set_result(self, number: int, char: str) -> None:
        if len(char) != 1 or char not in RESULT_CHARS:  # "" or "+-" would shift every later result
            raise ValueError(f"bad result character {char!r}")
        # The string may be millions of games long: a game claimed or released at its end (the usual
        # changes) takes one copy of it, any other change two.
        head, tail = self.results[:number], self.results[number + 1 :]  # past its end, head is all of it
        if tail:
            results = "".join((head, char, tail))
        elif char == UNPLAYED:
            results = head
        else:
            results = head + (UNPLAYED * (number - len(head)) + char)
        self.results = results.rstrip(UNPLAYED)
        if char != PLAYING:
            self.claims.pop(number, None)

    def time_control(self, index: int) -> TimeControl:
        """The limits that participant ``index`` plays with (its own, else the tourney's)."""
        p, s = self.participants[index], self.settings
        try:
            return TimeControl.parse(
                p.tc or s.tc,
                move_time=p.st if p.st is not None else s.st,
                nodes=p.nodes if p.nodes is not None else s.nodes,
                depth=p.depth if p.depth is not None else s.depth,
            )
        except ConfigError as exc:
            key = exc.field or "tc"
            own = {"tc": p.tc or None, "st": p.st, "nodes": p.nodes, "depth": p.depth}
            where = f"participants[{index}]" if own.get(key) is not None else "tourney"
            field_name = f"{where}.{key}"
            raise ConfigError(exc.message, file=self.path, field=field_name, hint=exc.hint) from None

    def time_margin(self, index: int) -> float:
        """Seconds participant ``index`` may overstep its clock (its own margin, else the tourney's)."""
        own = self.participants[index].time_margin
        return own if own is not None else self.settings.time_margin

    def plays_on_a_clock(self, name: str) -> bool:
        """Whether the participant called ``name`` has a clock (true for a name no longer taking part)."""
        try:
            return self.time_control(self.participant_index(name)).has_clock
        except ConfigError:
            return True

    def engine_spec(self, index: int) -> EngineSpec:
        """Resolve participant ``index`` to a startable engine (definition merged with overrides)."""
        return resolve_engine(
            self.participants[index], self.settings, directory=self.directory, file=self.path,
            where=f"participants[{index}]",
        )

    def check_runnable(self, index: int) -> None:
        """Check that participant ``index``'s program and working directory exist (before playing)."""
        self.engine_spec(index).check_runnable(file=self.path, where=f"participants[{index}]")

    def validate(self, *, settings: bool = True) -> None:
        """Check everything that can be checked without starting an engine; with ``settings``
        false only what a change of the owned tail (results, claims, pairings) can break."""
        try:
            schedule = self.schedule()
        except ConfigError as exc:
            raise exc.located(file=self.path) from None
        total = schedule.total_games
        if total > MAX_GAMES:
            raise self._too_many_games(schedule)
        if len(self.results) > total:
            raise ConfigError(
                f"results string has {len(self.results)} games but the schedule only {total}",
                file=self.path,
                field="progress.results",
                hint="remove the extra characters, or raise cycles",
            )
        self._check_pairings()
        if not settings:
            return
        try:
            check_variant(self.settings.variant)
        except ConfigError as exc:
            raise exc.located(file=self.path) from None
        unknown = next((f for f in self.settings.pgn_comment_fields if f not in COMMENT_FIELDS), None)
        if unknown is not None:
            raise ConfigError(
                f"unknown comment field {unknown!r}",
                file=self.path,
                field="tourney.pgn_comment_fields",
                hint=f"choose among {', '.join(COMMENT_FIELDS)}",
            )
        for key in ("name", "event", "site"):
            _check_tag_value(getattr(self.settings, key), file=self.path, field=f"tourney.{key}")
        for i, p in enumerate(self.participants):
            if not p.name.strip():
                raise ConfigError(
                    "is empty", file=self.path, field=f"participants[{i}].name", hint="give every participant a name"
                )
            _check_tag_value(p.name, file=self.path, field=f"participants[{i}].name")
        duplicate = next((n for n, count in Counter(p.name for p in self.participants).items() if count > 1), None)
        if duplicate:
            raise ConfigError(f"two participants are named {duplicate!r}", file=self.path, field="participants")
        for key in POSITIVE_SETTINGS + OPTIONAL_POSITIVE_SETTINGS:
            value = getattr(self.settings, key)
            if value is not None and value <= 0:
                raise ConfigError(f"must be positive, not {value:g}", file=self.path, field=f"tourney.{key}")
        if self.settings.wait < 0:
            raise ConfigError(f"must not be negative, not {self.settings.wait:g}", file=self.path, field="tourney.wait")
        for pattern in self.settings.pgn_match_lines:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigError(
                    f"{pattern!r} is not a regular expression ({exc})", file=self.path, field="tourney.pgn_match_lines"
                ) from None
        if self.sprt is not None:
            self._check_sprt(self.sprt)
        for i in range(len(self.participants)):
            self.time_control(i)
            self.engine_spec(i)
        self._check_paths()

    def _too_many_games(self, schedule: Schedule) -> ConfigError:
        """The error for a schedule beyond :data:`MAX_GAMES`, blaming the first setting that alone could fix it."""
        per_cycle = schedule.games_per_cycle
        pairings_per_cycle = per_cycle // schedule.games_per_pairing
        if per_cycle <= MAX_GAMES:
            field, hint = "tourney.cycles", f"at most {MAX_GAMES // per_cycle:,} cycles of {per_cycle:,} games"
        elif pairings_per_cycle <= MAX_GAMES:
            field, hint = "tourney.games_per_pairing", f"at most {MAX_GAMES // pairings_per_cycle:,} games per pairing"
        else:
            field, hint = "participants", "fewer participants, or a Swiss"
        return ConfigError(
            f"{schedule.total_games:,} games scheduled, more than the {MAX_GAMES:,} a tourney may hold",
            file=self.path,
            field=field,
            hint=hint,
        )

    def _check_pairings(self) -> None:
        """Swiss pairings name existing participants, each at most once a round, on every board."""
        n = len(self.participants)
        if self.swiss and self.settings.type not in SWISS_TYPES:
            raise ConfigError(
                f"Swiss pairings in a tourney of type {self.settings.type!r}", file=self.path, field="swiss",
                hint="remove [swiss], or set type back to \"swiss\"",
            )
        for r, boards in enumerate(self.swiss):
            seated = [p for board in boards for p in board]
            stranger = next((p for p in seated if not 0 <= p < n), None)
            if stranger is not None:
                problem = f"participant {stranger} does not exist (there are {n}, numbered from 0)"
            elif len(set(seated)) < len(seated):
                problem = "a participant plays twice in the round"
            elif len(boards) != n // 2:
                problem = f"{len(boards)} boards, not {n // 2}"
            else:
                continue
            raise ConfigError(
                problem, file=self.path, field=f"swiss.rounds[{r}]", hint="remove the round to pair it again"
            )

    def _check_paths(self) -> None:
        """The PGN, the EPD output and the engines' stderr logs can be written, and are not the opening
        book; the tablebases are there (see :mod:`tmanager.tourney.paths`); the directories of the games in
        progress and of the engine logs, if there, are directories."""
        book = self.directory / self.openings.file if self.openings is not None else None
        check_output(self.pgn_path, tourney=self.path, field="tourney.pgn", book=book)
        if self.settings.epd_out:
            check_output(self.directory / self.settings.epd_out, tourney=self.path, field="tourney.epd_out", book=book)
        for directory, holds in ((self.live_dir, "the games in progress"), (self.engine_logs_dir, "engine logs")):
            expect_directory(directory, hint=f"move it away: tmanager keeps {holds} of {self.path.name} there")
        for i, p in enumerate(self.participants):
            if p.stderr:
                check_output(self.directory / p.stderr, tourney=self.path, field=f"participants[{i}].stderr")
        check_directories(
            self.adjudication.syzygy_paths, base=self.directory, tourney=self.path, field="adjudication.syzygy"
        )

    def _check_sprt(self, sprt: SprtSettings) -> None:
        try:
            sprt.check()
        except ConfigError as exc:
            raise ConfigError(exc.message, file=self.path, field=f"sprt.{exc.field}", hint=exc.hint) from None
        if len(self.participants) != 2:
            raise ConfigError(
                f"an SPRT needs exactly 2 participants, not {len(self.participants)}",
                file=self.path,
                field="sprt",
                hint="the first participant is tested against the second; remove [sprt] for a larger field",
            )
        if self.settings.type in SWISS_TYPES:
            raise ConfigError(
                "an SPRT needs a round robin, not a Swiss",
                file=self.path,
                field="sprt",
                hint='set tourney.type = "round-robin"',
            )


def _check_tag_value(text: str, *, file: Path, field: str) -> None:
    """Refuse text that cannot stand as it is in a PGN tag value (names, event, site): control
    characters and line breaks end the tag (a name could add a ``[Result]`` tag of its own),
    quotes and backslashes need escapes that many PGN readers get wrong, and the standard
    allows at most 255 characters."""
    hint = "names and tags go into the PGN: printable characters, no quote or backslash, at most 255"
    if len(text) > MAX_TAG_LENGTH:
        raise ConfigError(
            f"{len(text):,} characters, more than the {MAX_TAG_LENGTH} of a PGN tag", file=file, field=field, hint=hint
        )
    bad = pgn.UNSAFE_IN_TAG.search(text)
    if bad is None:
        return
    char = bad.group()
    what = {'"': "a quote", "\\": "a backslash"}.get(char, f"a control character (U+{ord(char):04X})")
    raise ConfigError(f"holds {what}: {text!r}", file=file, field=field, hint=hint)


def resolve_engine(
    p: Participant, settings: Settings, *, directory: Path, file: Path | None = None, where: str = "participant"
) -> EngineSpec:
    """Resolve participant ``p`` to a startable engine: its definition (searched from ``directory``,
    see :func:`~tmanager.tourney.engines.engine_dirs`) merged with its overrides and ``settings``.

    Needs no tourney file, so a remote worker resolves the same definition names with its own
    commands; ``file`` and ``where`` only locate errors.
    """
    base: dict[str, Any] = {}
    if p.engine:
        try:
            base = load_definition(find_definition(p.engine, directory))
        except ConfigError as exc:
            if exc.file is not None:  # the definition file is at fault, with its own fields
                raise
            raise exc.located(file=file, field=f"{where}.engine") from None
    cmd = p.cmd or base.get("cmd")
    protocol = p.protocol or base.get("protocol", "")
    if not cmd:
        raise ConfigError(
            f"participant {p.name!r} has neither engine nor cmd",
            file=file,
            field=where,
            hint='add engine = "<definition>" or cmd = "<program>" with protocol',
        )
    if protocol not in ("uci", "xboard"):
        raise ConfigError(
            f"protocol must be \"uci\" or \"xboard\", not {protocol!r}",
            file=file,
            field=f"{where}.protocol",
        )
    workdir = p.dir or base.get("dir") or str(directory)
    if not Path(workdir).is_absolute():
        workdir = str(directory / workdir)
    try:
        command = command_line(cmd, [*base.get("args", []), *p.args])
    except ConfigError as exc:
        raise ConfigError(exc.message, file=file, field=f"{where}.cmd", hint=exc.hint) from None
    return EngineSpec(
        name=p.name,
        command=command,
        protocol=protocol,
        workdir=workdir,
        options={**base.get("options", {}), **p.options},
        xboard_features=dict(base.get("xboard_features", {})),
        ponder=p.ponder if p.ponder is not None else settings.ponder,
        restart=p.restart if p.restart is not None else settings.restart,
        stderr_log=str(directory / p.stderr) if p.stderr else None,
        handshake_timeout=settings.handshake_timeout,
        ready_timeout=settings.ready_timeout,
        ping_timeout=settings.ping_timeout,
    )


# --- reading -------------------------------------------------------------------------------------


def from_toml(data: Mapping[str, Any], path: Path) -> Tourney:
    """Build and validate a :class:`Tourney` from a parsed tourney file."""
    allowed = {"tourney", "openings", "adjudication", "sprt", "participants", *OWNED_SECTIONS}
    for key in data:
        if key not in allowed:
            raise ConfigError(
                f"unknown section {key!r}", file=path, hint=f"sections are: {', '.join(sorted(allowed))}"
            )
    settings = _from_table(Settings, data.get("tourney", {}), "tourney", path)
    raw_participants = data.get("participants", [])
    if not isinstance(raw_participants, list):
        raise ConfigError("must be an array of tables ([[participants]])", file=path, field="participants")
    participants = [
        _from_table(Participant, table, f"participants[{i}]", path) for i, table in enumerate(raw_participants)
    ]
    openings = _from_table(Openings, data["openings"], "openings", path) if "openings" in data else None
    adjudication = _from_table(Adjudication, data.get("adjudication", {}), "adjudication", path)
    sprt = _from_table(SprtSettings, data["sprt"], "sprt", path) if "sprt" in data else None
    progress = data.get("progress", {})
    _check_keys(progress, {"results", "version", "participants"}, "progress", path)
    results = progress.get("results", "")
    if not isinstance(results, str):
        raise ConfigError("must be a string", file=path, field="progress.results")
    bad = next((c for c in results if c not in RESULT_CHARS), None)
    if bad is not None:
        raise ConfigError(
            f"foreign character {bad!r} at game {results.index(bad)}",
            file=path,
            field="progress.results",
            hint='use only "+", "-", "=", "*" and space',
        )
    tourney = Tourney(
        path=path,
        settings=settings,
        participants=participants,
        openings=openings,
        adjudication=adjudication,
        sprt=sprt,
        swiss=_read_swiss(data.get("swiss", {}), path),
        claims=_read_claims(data.get("claims", {}), path),
        faults=_read_faults(data.get("faults", {}), path),
        verdict=_from_table(Verdict, data["verdict"], "verdict", path) if "verdict" in data else None,
        amendments=amendments.from_toml(data.get("amendments", {}), path),
        results=results.rstrip(UNPLAYED),
    )
    tourney.validate()
    return tourney


def _read_claims(table: Any, path: Path) -> dict[int, Claim]:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=path, field="claims")
    claims = {}
    for key, value in table.items():
        if not key.isdigit():
            raise ConfigError(f"key {key!r} is not a game number", file=path, field="claims")
        claims[int(key)] = _from_table(Claim, value, f"claims.{key}", path)
    return claims


def _read_faults(table: Any, path: Path) -> dict[str, dict[str, int]]:
    if not isinstance(table, dict) or not all(
        isinstance(counts, dict) and all(isinstance(n, int) for n in counts.values()) for counts in table.values()
    ):
        raise ConfigError("must map engine names to tables of counts", file=path, field="faults")
    return {name: dict(counts) for name, counts in table.items()}


def _read_swiss(table: Any, path: Path) -> list[list[tuple[int, int]]]:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=path, field="swiss")
    _check_keys(table, {"rounds"}, "swiss", path)
    if not isinstance(table.get("rounds", []), list):
        raise ConfigError("must be a list of rounds", file=path, field="swiss.rounds")
    rounds = []
    for r, boards in enumerate(table.get("rounds", [])):
        try:
            rounds.append([(int(w), int(b)) for w, b in boards])
        except (TypeError, ValueError):
            raise ConfigError(
                "each round must be a list of [white, black] pairs", file=path, field=f"swiss.rounds[{r}]"
            ) from None
    return rounds


#: Settings whose change would give recorded results another meaning.
SCHEDULE_KEYS = ("type", "gauntlet_seeds", "games_per_pairing", "order", "noswap", "reverse")


#: The conditions of a participant's slot, which an engine substituted in it keeps.
SLOT_KEYS = ("tc", "st", "nodes", "depth", "ponder", "restart", "time_margin")
#: What edit may change of a participant on a running tourney: how its engine plays, not which engine it is.
PLAY_KEYS = ("options", *SLOT_KEYS, "stderr")


def edit_setting(tourney: Tourney, key: str, value: Any) -> None:
    """:func:`apply_setting` for a tourney that may have results: refuse what would change their meaning."""
    if key.startswith(PARTICIPANTS):
        set_participant(tourney, *_participant_key(tourney, key), value, playing_only=True)
        return
    section, _, name = key.rpartition(".")
    if section in ("", "tourney") and name in SCHEDULE_KEYS and tourney.results.strip():
        raise ConfigError(
            f"cannot change {name} once games are recorded: the results string would mean other games",
            file=tourney.path,
            field=f"tourney.{name}",
            hint="clone the tourney with the new setting instead (tmanager clone --set)",
        )
    apply_setting(tourney, key, value)


def apply_setting(tourney: Tourney, key: str, value: Any) -> None:
    """Set ``section.field`` (``tourney.cycles``, ``adjudication.max_moves``…; a bare field means
    ``tourney.``; ``participants.NAME.FIELD`` a participant's, see :func:`set_participant`) with the
    same checks as when the file is read."""
    if key.startswith(PARTICIPANTS):
        set_participant(tourney, *_participant_key(tourney, key), value)
        return
    section, _, name = key.rpartition(".")
    section = section or "tourney"
    targets: dict[str, Any] = {
        "tourney": tourney.settings,
        "adjudication": tourney.adjudication,
        "openings": tourney.openings,
        "sprt": tourney.sprt,
    }
    if section not in targets:
        raise ConfigError(
            f"cannot set {key!r}", file=tourney.path, field=key,
            hint="use tourney.FIELD, openings.FIELD, adjudication.FIELD, sprt.FIELD or participants.NAME.FIELD",
        )
    current = targets[section]
    if current is None and section == "sprt":
        raise ConfigError(
            "the tourney has no [sprt] section", field=key, hint="add one with elo0 and elo1 to the file by hand"
        )
    if current is None:  # openings: start a section from the given key
        table = {name: value}
        if "file" not in table:
            raise ConfigError("set openings.file first", file=tourney.path, field=key)
        tourney.openings = _from_table(Openings, table, section, tourney.path)
        return
    table = _to_table(current, keep_defaults=True)
    table[name] = value
    updated = _from_table(type(current), table, section, tourney.path)
    if section == "tourney":
        tourney.settings = updated
    elif section == "adjudication":
        tourney.adjudication = updated
    elif section == "sprt":
        tourney.sprt = updated
    else:
        tourney.openings = updated


PARTICIPANTS = "participants."


def _participant_key(tourney: Tourney, key: str) -> tuple[str, str]:
    """``participants.NAME.FIELD`` as (NAME, FIELD); names may hold dots, so the longest name that fits wins."""
    rest = key.removeprefix(PARTICIPANTS)
    for name in sorted((p.name for p in tourney.participants), key=len, reverse=True):
        if rest.startswith(name + "."):
            return name, rest[len(name) + 1 :]
    names = ", ".join(p.name for p in tourney.participants)
    raise ConfigError(f"{key!r} names no participant", field=key, hint=f"participants: {names}")


def set_participant(tourney: Tourney, name: str, key: str, value: Any, *, playing_only: bool = False) -> None:
    """Set ``key`` of participant ``name``: a :class:`Participant` field (``tc``, ``time_margin``…) or
    an engine option, ``options.NAME`` (fastchess's ``option.NAME`` is read the same), checked as when
    the file is read. With ``playing_only``, only :data:`PLAY_KEYS`: another engine is substitute's job."""
    index = tourney.participant_index(name)
    where = f"participants[{index}]"
    field_name, dot, option = key.partition(".")
    field_name = "options" if field_name == "option" else field_name
    fields = [f.name for f in dataclasses.fields(Participant)]
    if playing_only and field_name in fields and field_name not in PLAY_KEYS:
        raise ConfigError(
            f"cannot change {field_name} of participant {name!r} here: that is another engine",
            file=tourney.path,
            field=f"{where}.{field_name}",
            hint=f"use tmanager substitute; edit changes only {', '.join(PLAY_KEYS)}",
        )
    changeable = [f for f in fields if f != "name"]
    if field_name not in changeable or (field_name == "options") != bool(dot and option):
        raise ConfigError(
            f"cannot set {key!r} of participant {name!r}",
            file=tourney.path,
            field=where,
            hint=f"use option.NAME or one of {', '.join(f for f in changeable if f != 'options')}",
        )
    participant = tourney.participants[index]
    table = _to_table(participant, keep_defaults=False)
    table[field_name] = {**participant.options, option: value} if field_name == "options" else value
    tourney.participants[index] = _from_table(Participant, table, where, tourney.path)


# --- writing -------------------------------------------------------------------------------------


def settings_to_toml(tourney: Tourney) -> dict[str, Any]:
    """The user's part of the file (everything before the owned tail) as TOML data."""
    data: dict[str, Any] = {"tourney": _to_table(tourney.settings, keep_defaults=True)}
    if tourney.openings:
        data["openings"] = _to_table(tourney.openings, keep_defaults=True)
    adjudication = _to_table(tourney.adjudication, keep_defaults=False)
    if adjudication:
        data["adjudication"] = adjudication
    if tourney.sprt:
        data["sprt"] = _to_table(tourney.sprt, keep_defaults=True)
    data["participants"] = [_to_table(p, keep_defaults=False) for p in tourney.participants]
    return data


def owned_sections_to_toml(tourney: Tourney) -> dict[str, Any]:
    """The owned sections before ``[progress]`` (Swiss pairings, fault counts) as TOML data."""
    data: dict[str, Any] = {}
    if tourney.swiss:
        data["swiss"] = {"rounds": [[list(pair) for pair in r] for r in tourney.swiss]}
    if tourney.faults:
        data["faults"] = tourney.faults
    if tourney.verdict:
        data["verdict"] = _to_table(tourney.verdict, keep_defaults=True)
    if tourney.amendments:
        data["amendments"] = amendments.to_toml(tourney.amendments)
    return data
