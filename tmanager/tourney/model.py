"""The tourney file: a TOML document holding settings, participants and progress.

The model here is plain data: a :class:`Tourney` and the values it holds. The
user's sections are :mod:`~tmanager.tourney.settings`' dataclasses; the file's
TOML is read by :mod:`~tmanager.tourney.parsing` and written by
:mod:`~tmanager.tourney.serialising`, checked by :mod:`~tmanager.tourney.validation`,
changed by :mod:`~tmanager.tourney.editing`; the engines are resolved by
:mod:`~tmanager.tourney.resolution`, and the results read by
:mod:`~tmanager.tourney.tallies` and :mod:`~tmanager.tourney.progress`. Reading
and writing the file under a lock lives in :mod:`tmanager.tourney.store`. The
layout, in file order::

    [tourney]            settings (name, type, cycles, games_per_pairing, tc…)
    [openings]           optional opening book
    [adjudication]       optional adjudication rules
    [sprt]               optional SPRT of a two-participant match (the first is under test)
    [spsa]               optional SPSA tune of the first participant's options (against itself or the second)
    [[participants]]     one table per engine, order fixed for the whole event
    [swiss]              Swiss pairings made so far (written by tmanager)
    [faults]             engine faults counted per participant (written by tmanager)
    [verdict]            the SPRT's verdict once the test is over (written by tmanager)
    [amendments.N]       changes forced on an SPRT test under way (written by tmanager, see amendments.py)
    [tuning]             where an SPSA tune stands: θ, the pairs applied, the history (written by tmanager)
    [progress]           participants, version and results = "…", always last, as XBoard's -results

Everything above ``[swiss]``/``[faults]``/``[progress]`` is the user's and is
never rewritten by a worker; the owned tail is. Who plays a game marked ``*``
(:class:`Claim`) and the hooks still to run (:class:`PendingHook`) are kept in
the journal beside the file (see :mod:`tmanager.tourney.store`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tmanager.core.schedule import FastchessOrder, Gauntlet, RoundRobin, Schedule, ScheduledGame, SwissSchedule
from tmanager.core.sprt import Verdict
from tmanager.core.spsa import TuneSettings, TuneState
from tmanager.core.stats import SprtSettings
from tmanager.errors import ConfigError
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.alphabet import BLACK_WINS as BLACK_WINS
from tmanager.tourney.alphabet import DRAW as DRAW
from tmanager.tourney.alphabet import FINISHED
from tmanager.tourney.alphabet import FINISHED_CHARS as FINISHED_CHARS
from tmanager.tourney.alphabet import PLAYING as PLAYING
from tmanager.tourney.alphabet import RESULT_CHARS as RESULT_CHARS
from tmanager.tourney.alphabet import UNPLAYED as UNPLAYED
from tmanager.tourney.alphabet import WHITE_WINS as WHITE_WINS
from tmanager.tourney.amendments import Amendment
from tmanager.tourney.jsonvalues import finite, table, text, whole
from tmanager.tourney.serialising import settings_to_toml as settings_to_toml
from tmanager.tourney.settings import SWISS_TYPES as SWISS_TYPES
from tmanager.tourney.settings import GameOrder as GameOrder
from tmanager.tourney.settings import Openings as Openings
from tmanager.tourney.settings import Participant as Participant
from tmanager.tourney.settings import Settings as Settings
from tmanager.tourney.settings import TourneyType as TourneyType

if TYPE_CHECKING:
    from tmanager.core.crosstable import Crosstable
    from tmanager.core.sprt import MatchState
    from tmanager.core.timecontrol import TimeControl
    from tmanager.formats.pgn import Appended
    from tmanager.tourney.engines import EngineSpec

#: Sections tmanager writes after the user's part (``[claims]`` only in files of older versions).
OWNED_SECTIONS = ("swiss", "claims", "faults", "verdict", "amendments", "tuning", "progress")

#: Settings, as ``(section, field)``, whose change would give recorded results another meaning (a tune's
#: opponent: against a base a step is four games, not two).
RESHAPING_KEYS = frozenset(
    {
        *(("tourney", key) for key in ("type", "gauntlet_seeds", "games_per_pairing", "order", "noswap", "reverse")),
        ("spsa", "opponent"),
    }
)

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
class Claim:
    """Who is playing a game marked ``*``: enough to tell a live owner from a dead one."""

    host: str
    pid: int
    started: float
    claimed: float
    heartbeat: float
    #: Size of the PGN when the game was claimed: its game, if written, comes after.
    pgn_offset: int = 0
    #: The owner's host's boot (:func:`~tmanager.tourney.owners.boot_id`); "" in files of older tmanagers.
    boot: str = ""

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> Claim:
        """A claim as the journal keeps it; :class:`ValueError` if a field is missing, unknown or of the wrong
        type (a journal damaged or edited by hand)."""
        data = table(data)
        if not set(data) <= _CLAIM_FIELDS:
            raise ValueError(f"unknown fields in a claim: {sorted(set(data) - _CLAIM_FIELDS)}"[:200])
        return cls(
            host=text(data["host"]),
            pid=whole(data["pid"], least=1),
            started=finite(data["started"]),
            claimed=finite(data["claimed"]),
            heartbeat=finite(data["heartbeat"]),
            pgn_offset=whole(data.get("pgn_offset", 0)),
            boot=text(data.get("boot", "")),
        )


#: The fields a claim may have in the journal.
_CLAIM_FIELDS = frozenset(f.name for f in dataclasses.fields(Claim))


@dataclass(frozen=True, slots=True)
class PendingHook:
    """A hook that must run once: recorded with the game (or the tourney's end) that calls for it.

    ``taken_by`` names the worker running it (host, pid, process start time, the
    host's boot: :class:`~tmanager.tourney.owners.Owner`), so that a hook whose
    worker died is run again only if it never started (see
    :mod:`tmanager.tourney.hookrun`).
    """

    name: str  #: "after_game" or "after_tourney"
    command: str
    env: Mapping[str, str]
    game: int = -1  #: the game an after_game hook is for
    taken_by: tuple[str, int, float, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "env": dict(self.env)}

    @classmethod
    def from_json(cls, data: Any) -> PendingHook:
        """A pending hook as the journal keeps it; :class:`ValueError` if a field is of the wrong type."""
        data = table(data)
        taken = data.get("taken_by")
        if taken is not None and not (isinstance(taken, list | tuple) and len(taken) in (3, 4)):
            raise ValueError(f"not a hook's taker: {taken!r}"[:200])
        return cls(
            name=text(data["name"]),
            command=text(data["command"]),
            env={text(k): text(v) for k, v in table(data["env"]).items()},
            game=whole(data.get("game", -1), least=-1),
            # Without the boot when an older tmanager took it.
            taken_by=(text(taken[0]), whole(taken[1], least=1), finite(taken[2]), text(taken[3]) if len(taken) > 3
                      else "") if taken else None,
        )


@dataclass(frozen=True, slots=True)
class PgnMark:
    """The PGN's size after the last game recorded, and which file it was (the ``pgn`` setting may change):
    the same PGN found shorter was cut. With the ``fingerprint`` of the bytes before it (see
    :func:`tmanager.formats.pgn.fingerprint`; "" in a journal of an older tmanager: not checked), a PGN found
    as long or longer, but with other bytes there, was replaced."""

    path: str
    size: int
    fingerprint: str = ""
    #: Finished games whose games are in another PGN: the results held them when the first game went into this
    #: empty PGN with no mark before (a file copied with ``cp``, its journal left with the original).
    elsewhere: int = 0

    def to_json(self) -> list[Any]:
        return [self.path, self.size, self.fingerprint, self.elsewhere]

    @classmethod
    def from_json(cls, data: Any) -> PgnMark | None:
        """A mark as the journal keeps it (``None``: none); :class:`ValueError` if it is not one."""
        if data is None:
            return None
        if not (isinstance(data, list | tuple) and 2 <= len(data) <= 4):
            raise ValueError(f"not a PGN's mark: {data!r}"[:200])
        fingerprint, elsewhere = (text(data[2]) if len(data) > 2 else ""), (whole(data[3]) if len(data) > 3 else 0)
        return cls(text(data[0]), whole(data[1]), fingerprint, elsewhere)

    @classmethod
    def after_append(cls, before: PgnMark | None, path: Path, appended: Appended, *, finished: int) -> PgnMark:
        """The mark of PGN ``path`` once a game is ``appended`` there, when ``finished`` games were finished
        before it: the game's length past the mark ``before``, never less. Not the file's size after the
        append: a PGN deleted or cut while the game was written (after the check of its size) would then leave
        a mark that a file of this one game satisfies, and the games lost with it would go unnoticed. (Such a
        mark is past the game's end, and has no fingerprint: the file is short of it.)"""
        size = appended.end
        elsewhere = finished if appended.start == 0 else 0  # the first game into an empty PGN
        if before is not None:  # a PGN named anew (edit --set pgn=…): the games before are in the old one
            same = before.path == str(path)
            size = max(before.size if same else 0, appended.start) + appended.end - appended.start
            elsewhere = before.elsewhere if same else 0
        return cls(str(path), size, appended.fingerprint if size == appended.end else "", elsewhere)

    def replayed(self, games: int) -> PgnMark:
        """The mark once ``games`` finished games not in the PGN were set back to be played again here."""
        return dataclasses.replace(self, elsewhere=max(0, self.elsewhere - games))


@dataclass(slots=True)
class Tourney:
    """A whole tourney file in memory: its fields, where its files are, and its results string read and set.

    What is computed from it lives in the modules named in this module's docstring. For the
    commands and pages that read a tourney, its main views are also methods here (:meth:`validate`,
    :meth:`crosstable`, :meth:`is_complete`, :meth:`match_state`, :meth:`engine_spec`,
    :meth:`time_control`, :meth:`plays_on_a_clock`), each handing over to its module.
    """

    path: Path
    settings: Settings
    participants: list[Participant]
    openings: Openings | None = None
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: SprtSettings | None = None
    spsa: TuneSettings | None = None
    swiss: list[list[tuple[int, int]]] = field(default_factory=list)
    claims: dict[int, Claim] = field(default_factory=dict)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    verdict: Verdict | None = None
    #: Changes forced on the SPRT test after its first recorded game (see :mod:`tmanager.tourney.amendments`).
    amendments: tuple[Amendment, ...] = ()
    #: Where the SPSA tune stands; ``None`` until its first pair is begun (see :mod:`tmanager.tourney.tuning`).
    tuning: TuneState | None = None
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
        """The schedule of this tourney's type; a :class:`ConfigError` names this tourney's file."""
        try:
            return self._schedule()
        except ConfigError as exc:
            raise exc.located(file=self.path) from None

    def _schedule(self) -> Schedule:
        s = self.settings
        n = len(self.participants)
        shape: dict[str, Any] = {
            "games_per_pairing": s.games_per_pairing, "cycles": s.cycles, "noswap": s.noswap, "reverse": s.reverse,
        }
        if self.spsa is not None:  # a tune is one pair a cycle, a step's pairs times its iterations
            shape["cycles"] = self.spsa.iterations * self.spsa.opponent.games_per_step // 2
        if s.order is GameOrder.FASTCHESS and s.type in (TourneyType.ROUND_ROBIN, TourneyType.GAUNTLET):
            return FastchessOrder(n, seeds=s.gauntlet_seeds if s.type is TourneyType.GAUNTLET else None, **shape)
        if s.type is TourneyType.ROUND_ROBIN:
            return RoundRobin(n, **shape)
        if s.type is TourneyType.GAUNTLET:
            return Gauntlet(n, seeds=s.gauntlet_seeds, **shape)
        if s.order is not GameOrder.XBOARD or s.noswap or s.reverse:
            raise ConfigError(
                "a Swiss is paired round by round: its order and colours are the pairing's",
                field=(
                    "tourney.order" if s.order is not GameOrder.XBOARD
                    else "tourney.noswap" if s.noswap else "tourney.reverse"
                ),
                hint='remove it (order = "xboard", noswap = false, reverse = false)',
            )
        if s.type is TourneyType.DOUBLE_SWISS and s.games_per_pairing != 2:
            raise ConfigError(
                f"a Double-Swiss match is 2 games, not {s.games_per_pairing}",
                field="tourney.games_per_pairing",
                hint="set games_per_pairing = 2 (both games of a match play one opening, colours reversed)",
            )
        return SwissSchedule(
            n, rounds=s.swiss_rounds, paired=self.swiss, games_per_pairing=s.games_per_pairing, cycles=s.cycles
        )

    def result(self, number: int) -> str:
        """The results character of game ``number`` (space when beyond the string)."""
        return self.results[number] if number < len(self.results) else UNPLAYED

    def finished_games(self) -> list[tuple[ScheduledGame, str]]:
        """Every finished game with its results character, in game-number order."""
        schedule = self.schedule()
        games = []
        for match in FINISHED.finditer(self.results):
            game = schedule.game(match.start())
            if game is not None:
                games.append((game, match.group()))
        return games

    def participant_index(self, name: str) -> int:
        """The index of the participant called ``name``; :class:`ConfigError` listing the names otherwise."""
        for i, p in enumerate(self.participants):
            if p.name == name:
                return i
        names = ", ".join(p.name for p in self.participants)
        raise ConfigError(f"no participant named {name!r}", file=self.path, hint=f"participants: {names}")

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

    # --- views computed by their modules (imported when asked: they need this module first) ---------

    def validate(self, *, settings: bool = True, engines: bool = False) -> None:
        """:func:`tmanager.tourney.validation.validate`."""
        from tmanager.tourney import validation

        validation.validate(self, settings=settings, engines=engines)

    def crosstable(self) -> Crosstable:
        """:func:`tmanager.tourney.tallies.crosstable`."""
        from tmanager.tourney import tallies

        return tallies.crosstable(self)

    def is_complete(self) -> bool:
        """:func:`tmanager.tourney.progress.is_complete`."""
        from tmanager.tourney import progress

        return progress.is_complete(self)

    def match_state(self) -> MatchState | None:
        """:func:`tmanager.tourney.progress.match_state`."""
        from tmanager.tourney import progress

        return progress.match_state(self)

    def engine_spec(self, index: int) -> EngineSpec:
        """:func:`tmanager.tourney.resolution.engine_spec`."""
        from tmanager.tourney import resolution

        return resolution.engine_spec(self, index)

    def time_control(self, index: int) -> TimeControl:
        """:func:`tmanager.tourney.resolution.time_control`."""
        from tmanager.tourney import resolution

        return resolution.time_control(self, index)

    def plays_on_a_clock(self, name: str) -> bool:
        """:func:`tmanager.tourney.resolution.plays_on_a_clock`."""
        from tmanager.tourney import resolution

        return resolution.plays_on_a_clock(self, name)
