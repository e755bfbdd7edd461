"""The event as plain data: divisions, their players and rounds, and the rounds' boards and byes.

An :class:`Event` holds divisions; a :class:`Division` its players (numbers
are permanent), its teams (a team division) and rounds; a :class:`Round` its
boards ``(white, black, result)`` and byes, and in a team division its matches
of teams and their lineups. The classes are dataclasses whose fields are the keys of
the event file (:mod:`tmanager.events.eventfile` maps them with
:mod:`tmanager.tomlmap`), so a field is named, typed and given its default
once. Nothing here knows how a division is paired or ranked: that is the
division's rules (:mod:`tmanager.events.rules`), chosen once per division.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from tmanager import tomlmap
from tmanager.core.playerfields import TITLES, WOMEN_TITLES, RatingKind, Sex
from tmanager.core.prizes import Sharing
from tmanager.core.results import ByeKind, Colour, Result
from tmanager.core.scoring import PointsSystem
from tmanager.core.teams import TeamScore
from tmanager.errors import StateError
from tmanager.events.messages import Topic

__all__ = ["TITLES"]  # FIDE's titles, in the order of C.04.2 (re-exported for the events package)


class PairingSystem(enum.StrEnum):
    """How a division's rounds are paired: chess systems (of players, then of teams), then the score-based ones
    (tsh's)."""

    DUTCH = "dutch"
    DOUBLE_SWISS = "double-swiss"  # FIDE C.04.5: a match of two games per pairing, two rounds of the file
    ROUND_ROBIN = "round-robin"
    MANUAL = "manual"
    TEAM_SWISS = "team-swiss"  # FIDE C.04.6: teams paired by match points
    KOTH = "koth"
    FACTORED = "factored"
    TSH_SWISS = "tsh-swiss"
    CHEW = "chew"
    RANDOM = "random"
    INIT_FONTES = "init-fontes"  # the opening rounds of a score-based division, never a division's system
    TEAM_ROUND_ROBIN = "team-round-robin"  # score-based, tsh's TeamRoundRobin: every player of one team meets
    # every player of the other; rounds paired at once, never a division's system


class PlayerStatus(enum.StrEnum):
    ACTIVE = "active"
    WITHDRAWN = "withdrawn"


class EntryMode(enum.StrEnum):
    """How a score-based division enters results: both scores, the spread only, or both scores and the spread."""

    SCORES = "scores"
    SPREAD = "spread"
    BOTH = "both"


class LateEntry(tomlmap.Choice):
    """How rounds missed before a late entry are scored: as zero- or half-point byes."""

    ZERO = "zero"
    HALF = "half"

    @property
    def bye(self) -> ByeKind:
        return ByeKind.ZERO if self is LateEntry.ZERO else ByeKind.HALF


class Opening(tomlmap.Choice):
    """The opening pairing of a score-based division: none, round 1 at random, or InitFontes."""

    NONE = ""
    RANDOM = "random"
    INIT_FONTES = "init-fontes"


class InitialColour(tomlmap.Choice):
    """The top-ranked player's colour in round 1, as a division's file words it."""

    WHITE = "white"
    BLACK = "black"

    @property
    def colour(self) -> Colour:
        return Colour.from_word(self.value)

    @classmethod
    def of(cls, colour: Colour) -> InitialColour:
        return cls(colour.word)


class Acceleration(tomlmap.Choice):
    """Accelerated pairings of a Dutch division: none, or Baku's (C.04.5.1)."""

    NONE = ""
    BAKU = "baku"


@dataclass
class Player:
    """One entrant. ``number`` is permanent; ``absent`` lists rounds the player withdrew from."""

    number: int
    name: str
    title: str = ""  # one of TITLES
    rating: int = field(default=0, metadata=tomlmap.KEEP)
    #: The development coefficient K that FIDE's list gave beside the rating (0: none given): the rating report's K.
    k: int = 0
    fide_id: int | None = None
    federation: str = ""
    sex: Sex = Sex.NONE
    club: str = ""
    team: str = ""
    birth: str = ""
    flags: list[str] = field(default_factory=list)
    status: PlayerStatus = PlayerStatus.ACTIVE
    absent: list[int] = field(default_factory=list)
    #: A late entry: the rounds paired before the player entered (1 to ``missed``), scored as byes of the event's
    #: ``late_entry`` kind, which no bye request made and ``max_byes`` does not count.
    missed: int = 0
    #: Score-based: the spread of each round missed while withdrawn (None: the division's forfeit_spread).
    off: int | None = field(default=None, metadata=tomlmap.SIGNED)
    #: Score-based: the other fields of a tsh .t line, kept as they were.
    extensions: list[tuple[str, str]] = field(default_factory=list)

    def plays(self, round_number: int) -> bool:
        """Available for pairing in that round."""
        return self.status == PlayerStatus.ACTIVE and round_number not in self.absent

    @property
    def birth_year(self) -> int | None:
        return int(self.birth[:4]) if self.birth else None

    @property
    def woman(self) -> bool:
        """Sex ``w``, or none given by a player who holds a women's title (only women hold one): the category
        ``women`` and the women's norms. A women's title beside sex ``m`` is refused at every entry path."""
        return self.sex is Sex.WOMAN or (self.sex is Sex.NONE and self.title in WOMEN_TITLES)


def fide_order(player: Player) -> tuple[int, int, str, int]:
    """FIDE's initial order (C.04.2): rating (highest first), title (GM first), name; then the number."""
    title = TITLES.index(player.title) if player.title in TITLES else len(TITLES)
    return (-player.rating, title, player.name.casefold(), player.number)


@dataclass
class Board:
    """One game: player numbers and the result (from white's side).

    In a score-based division ``white`` went first and ``scores`` holds the two
    players' scores (the spreads awarded for a forfeit), in board order.
    """

    white: int
    black: int
    result: Result = Result.PENDING
    scores: tuple[int, int] | None = None


@dataclass
class Round:
    """A round: paired, or still being prepared (requested byes, forced games).

    ``byes`` maps a player to a bye kind; ``forced`` lists the games set before
    pairing and ``forced_bye`` a pairing-allocated bye so set. ``boards`` and
    ``byes`` (with ``spreads``) are written by the event file itself.
    """

    number: int
    paired: bool = field(default=False, metadata=tomlmap.KEEP)
    boards: list[Board] = field(default_factory=list, metadata=tomlmap.OUTSIDE)
    byes: dict[int, ByeKind] = field(default_factory=dict, metadata=tomlmap.OUTSIDE)
    forced: list[tuple[int, int]] = field(default_factory=list)
    forced_bye: int | None = None
    #: Games played over the board but not rated (TRF's ``W D L``, read from another program's TRF), as
    #: ``(white, black)``: scored as any game, left out of the rating estimates and the norms.
    unrated: list[tuple[int, int]] = field(default_factory=list)
    #: Score-based: the spread of a bye, by player.
    spreads: dict[int, int] = field(default_factory=dict, metadata=tomlmap.OUTSIDE)
    #: Score-based, from a .t file: board numbers and p12 codes that the boards' order does not give.
    board_numbers: dict[int, int] = field(default_factory=dict)
    p12: dict[int, int] = field(default_factory=dict)
    #: Team divisions: the matches ``(first, second)`` by team number (the first has white on board 1), each
    #: team's lineup (player numbers in board order, 0 for a board left empty) and the teams' byes.
    matches: list[tuple[int, int]] = field(default_factory=list)
    lineups: dict[int, list[int]] = field(default_factory=dict)
    team_byes: dict[int, ByeKind] = field(default_factory=dict)
    #: Team divisions: matches set before pairing (``force``); ``(team, 0)`` gives a team the pairing bye.
    forced_matches: list[tuple[int, int]] = field(default_factory=list)

    @property
    def holds_nothing(self) -> bool:
        """Whether this is a record of a round not paired that sets nothing for it (its only bye cancelled)."""
        return self == Round(self.number)

    def seat(self, player: int) -> Board | None:
        """The board ``player`` plays on in this round, if any."""
        return next((b for b in self.boards if player in (b.white, b.black)), None)

    def board_number(self, board: Board) -> int:
        """The number shown for ``board``: its place from 1, unless a .t file gave another (``board_numbers``)."""
        return self.board_numbers.get(board.white) or self.boards.index(board) + 1


@dataclass
class ScoredSettings:
    """The settings of a score-based division (Scrabble and the like), as tsh's configuration.

    ``initial`` pairs the opening rounds (``random``: round 1; ``init-fontes``:
    rounds 1 to ``initial_rounds`` at once); ``repeats`` and ``factor`` serve
    KOTH, factored and Swiss pairings; ``session_breaks`` and ``prize_bands``
    serve Fontes timing and Chew pairings (see :mod:`tmanager.events.rules.scored`).
    """

    entry: EntryMode = field(default=EntryMode.SCORES, metadata=tomlmap.KEEP)
    bye_spread: int = field(default=50, metadata=tomlmap.SIGNED)
    forfeit_spread: int = field(default=-50, metadata=tomlmap.SIGNED)
    track_firsts: bool = False
    assign_firsts: bool = False
    initial: Opening = Opening.NONE
    initial_rounds: int = 3
    initial_snaked: bool = False
    repeats: int = 0
    factor: int = 2
    session_breaks: list[int] | None = None
    prize_bands: list[int] = field(default_factory=list)


@dataclass
class Team:
    """A team of a team division: ``players`` is its roster in board order; ``short`` its nickname (TRF-2026)."""

    number: int
    name: str
    players: list[int] = field(default_factory=list)
    short: str = ""


class TeamBye(tomlmap.Choice):
    """What a team's pairing-allocated bye counts as: a match won, drawn or lost (with that many game points)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


#: The most boards of a team match: more than any team event plays, and few enough that a match's boards, laid out one
#: by one for the standings, fit in memory (``team_size = 10**12``, a slip of the hand, was taken).
MAX_TEAM_SIZE = 1000


@dataclass
class TeamSettings:
    """The settings of a team division (chess team tournaments): ``team_size`` boards per match, match points for a won,
    drawn and lost match, which score pairs and ranks first (``primary``), the team tie-breaks
    (:mod:`tmanager.core.teamtiebreaks`), what a team's bye counts as, and how many games a player needs on a
    board for its board prize."""

    team_size: int = field(metadata=tomlmap.KEEP)
    match_points: tuple[int, int, int] = (2, 1, 0)
    primary: TeamScore = TeamScore.MATCH
    team_tiebreaks: list[str] = field(default_factory=lambda: ["GP", "EMGSB", "BH:MP"], metadata=tomlmap.KEEP)
    team_bye: TeamBye = TeamBye.DRAW
    prize_games: int = 1


#: The name of a prize fund's overall list (every other list is a category's).
OVERALL = "overall"


@dataclass
class PrizeFund:
    """A chess division's prizes (``[division.prizes]``): each list's amount per place in cents (``overall``, then
    categories), how players level on points share (:class:`~tmanager.core.prizes.Sharing`), the lists in order of
    preference when two offer a player the same amount (empty: the order of ``lists``), and the currency shown."""

    lists: dict[str, tuple[int, ...]] = field(default_factory=dict, metadata=tomlmap.OUTSIDE)
    sharing: Sharing = Sharing.SPLIT
    preference: list[str] = field(default_factory=list)
    currency: str = ""

    def order(self) -> list[str]:
        """The lists' names in order of preference: those ``preference`` names first, then the others."""
        named = [name for name in self.preference if name in self.lists]
        return named + [name for name in self.lists if name not in named]


@dataclass
class Division:
    """A group of players paired among themselves by one system; ``scored`` set for a score-based one."""

    name: str
    system: PairingSystem = field(default=PairingSystem.DUTCH, metadata=tomlmap.KEEP)
    cycles: int = 1
    #: The top-ranked player's colour in round 1 (None: drawn by lot when round 1 is paired).
    initial_colour: InitialColour | None = None
    forbidden: list[list[int]] = field(default_factory=list)
    team_apart: bool = False
    #: The player numbers are FIDE start numbers (`event start-numbers`): they are the pairing order and the TRF
    #: starting ranks. Otherwise numbers are permanent entry numbers and the pairing order is FIDE's initial order.
    start_numbers: bool = False
    #: Accelerated pairings of a Dutch division.
    acceleration: Acceleration = Acceleration.NONE
    #: The last player of the Baku group GA (a player number), fixed when round 1 is paired.
    baku_last: int | None = None
    scored: ScoredSettings | None = field(default=None, metadata=tomlmap.OUTSIDE)
    team_settings: TeamSettings | None = field(default=None, metadata=tomlmap.OUTSIDE)
    #: Chess divisions of players: the prize fund (``[division.prizes]``), allocated by the prize list.
    prize_fund: PrizeFund | None = field(default=None, metadata=tomlmap.OUTSIDE)
    teams: list[Team] = field(default_factory=list, metadata=tomlmap.key("team"))
    players: list[Player] = field(default_factory=list, metadata=tomlmap.key("player"))
    rounds: list[Round] = field(default_factory=list, metadata=tomlmap.OUTSIDE)

    def team(self, number: int) -> Team:
        for t in self.teams:
            if t.number == number:
                return t
        raise StateError(f"division {self.name!r} has no team number {number}")

    def player(self, number: int) -> Player:
        for p in self.players:
            if p.number == number:
                return p
        raise StateError(f"division {self.name!r} has no player number {number}", field="player")

    def drop_empty_rounds(self) -> None:
        """Drop the records of rounds not paired that set nothing any more (a bye or a forced game taken back),
        which would stay in the file as empty ``[[division.round]]`` tables."""
        self.rounds = [r for r in self.rounds if not r.holds_nothing]

    def find_round(self, number: int) -> Round | None:
        """The record of round ``number``, if the division holds one (paired, or with byes or forced games set)."""
        return next((r for r in self.rounds if r.number == number), None)

    def round(self, number: int, *, create: bool = False) -> Round:
        """Round ``number``; an empty unpaired record is added when ``create`` is true."""
        record = self.find_round(number)
        if record is not None:
            return record
        if not create:
            paired = self.paired_rounds
            hint = f"rounds 1-{paired} are paired" if paired > 1 else "only round 1 is paired" if paired else (
                "no round is paired yet")
            raise StateError(f"division {self.name!r}: round {number} is not paired", field="round", hint=hint)
        record = Round(number)
        self.rounds.append(record)
        self.rounds.sort(key=lambda r: r.number)
        return record

    @property
    def round_robin(self) -> bool:
        """Paired by Berger tables: every game fixed before round 1 (no forced games, requested byes or late
        entries; a cross-table rather than a wall chart)."""
        return self.system == PairingSystem.ROUND_ROBIN

    @property
    def first_colour(self) -> Colour:
        """The top-ranked player's colour in round 1: as set, else white (before the lot is drawn)."""
        return (self.initial_colour or InitialColour.WHITE).colour

    @property
    def paired_rounds(self) -> int:
        """The number of the last paired round (0 before round 1)."""
        return max((r.number for r in self.rounds if r.paired), default=0)

    def ranks(self) -> dict[int, int]:
        """Pairing order: the start numbers once assigned, else FIDE's initial order (:func:`fide_order`)."""
        order = sorted(self.players, key=(lambda p: p.number) if self.start_numbers else fide_order)
        return {p.number: i for i, p in enumerate(order, 1)}

    def forbidden_groups(self) -> list[frozenset[int]]:
        """Groups of players who must not meet: the ``forbidden`` lists and, with ``team_apart``, each team."""
        groups = [frozenset(g) for g in self.forbidden]
        if self.team_apart:
            teams: dict[str, set[int]] = {}
            for p in self.players:
                if p.team:
                    teams.setdefault(p.team.casefold(), set()).add(p.number)
            groups += [frozenset(g) for g in teams.values() if len(g) > 1]
        return groups


#: Hook commands of the ``[hooks]`` table: after results are saved, and when a round's last result is in.
HOOKS = ("after_results", "round_complete")


@dataclass
class Event:
    """An event file: event data, scoring, tie-breaks, hooks and divisions."""

    name: str
    site: str = ""
    federation: str = ""  # the organising federation (TRF 032)
    start: str = ""
    end: str = ""
    arbiter: str = ""
    deputies: list[str] = field(default_factory=list)  # deputy chief arbiters (TRF 112)
    rounds: int = field(default=0, metadata=tomlmap.KEEP)
    #: When each round starts, ``YYYY-MM-DD HH:MM`` (or the date alone), round 1 first: pairing sheets, TRF 132.
    schedule: list[str] = field(default_factory=list)
    #: The time control as FIDE encodes it (TRF 222): ``5400+30``, ``40/6000+30:900+30``.
    time_control: str = ""
    tiebreaks: list[str] = field(default_factory=lambda: ["BH-C1", "BH", "SB"], metadata=tomlmap.KEEP)
    late_entry: LateEntry = field(default=LateEntry.ZERO, metadata=tomlmap.KEEP)
    max_byes: int | None = None  # requested byes allowed per player
    stylesheet: str = ""  # a CSS file for the HTML reports, relative to the event file
    #: The rating FIDE rating lists give players: standard, rapid or blitz.
    rating_list: RatingKind = RatingKind.STANDARD
    #: Prize categories, ranked apart: U18, S50, women, unrated, 1800-1999, U1600… (:mod:`tmanager.core.categories`)
    categories: list[str] = field(default_factory=list)
    #: Places listed per category in the prize list of a division without a prize fund (``[division.prizes]``).
    prizes: int = 3
    hooks: dict[str, str] = field(default_factory=dict, metadata=tomlmap.OUTSIDE)  # HOOKS name -> shell command
    scoring: PointsSystem = field(default_factory=PointsSystem, metadata=tomlmap.OUTSIDE)
    divisions: list[Division] = field(default_factory=list, metadata=tomlmap.OUTSIDE)

    def division(self, name: str | None = None) -> Division:
        """The named division, or the only one."""
        if name is None:
            if len(self.divisions) == 1:
                return self.divisions[0]
            names = ", ".join(d.name for d in self.divisions)
            raise StateError(
                f"the event has several divisions ({names}); choose one with --division", topic=Topic.DIVISIONS
            )
        for d in self.divisions:
            if d.name.casefold() == name.casefold():
                return d
        raise StateError(f"no division {name!r}; the event has {', '.join(d.name for d in self.divisions)}",
                         field="division")

    def round_time(self, number: int) -> str:
        """When round ``number`` starts, as the schedule says (empty if it does not)."""
        return self.schedule[number - 1] if 0 < number <= len(self.schedule) else ""

    def total_rounds(self, division: Division) -> int:
        """Planned rounds: the event's; the Berger cycles of a round robin (of its teams, in a team division);
        in a Double-Swiss two rounds of the file per match (the event's ``rounds`` counts matches)."""
        if division.round_robin:
            n = len(division.teams) or len(division.players)
            return (n - 1 + n % 2) * division.cycles if n else 0
        if division.system == PairingSystem.DOUBLE_SWISS:
            return 2 * self.rounds
        return self.rounds


def label(player: Player) -> str:
    """``"Name (12)"``: how messages name a player."""
    return f"{player.name} ({player.number})"


def missing(division: Division) -> list[tuple[int, Board]]:
    """Boards of paired rounds without a final result: (round, board)."""
    return [(r.number, b) for r in division.rounds if r.paired for b in r.boards if b.result.pending]


def absent_players(division: Division, record: Round) -> list[Player]:
    """The players of a paired round on no board and without a bye (withdrawn, absent, entered later), by name."""
    seated = {n for b in record.boards for n in (b.white, b.black)} | set(record.byes)
    return sorted((p for p in division.players if p.number not in seated), key=lambda p: p.name.casefold())
