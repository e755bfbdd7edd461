"""TRF-2026's records of a team competition, as value types that write and read their own lines.

FIDE's TRF-2026 (C.05, applied from 1 September 2025) adds to the player
lines of a team tournament:

* ``310`` one line per team: pairing number (columns 5–7), name (9–40),
  nickname (42–46), strength factor (48–53), match points (55–60), game points
  (62–67), rank (69–71) and its players' starting ranks in board order (74–77,
  79–82, … up to 14 players);
* ``320`` the teams' pairing-allocated byes: their match points (5–8) and game
  points (10–13), then the team of each round (15–17, 19–21, …; ``000`` none);
* ``330`` a forfeited match (:class:`tmanager.formats.trf_records.Forfeit`, registered
  there with the records of individual events);
* ``300`` a team playing out of its default order (or with an empty board):
  round (5–7), team (9–11), opponent (13–15), then its players board by
  board (17–20, 22–25, …; ``0000`` an empty board);
* ``352`` the colour sequence of the first team's boards (``WBWB``);
* ``362`` match points for a won, drawn and lost match (``TW``, ``TD``,
  ``TL``); the layout of its values is not fixed here beyond code then value,
  which :meth:`TeamScoring.read` reads in any spacing;
* ``802`` an informative line per team: nickname, match and game points, and
  each round's opponent (or bye type), colour and game points.

TRF-16 (C.05's earlier version) has one team record, ``013``: the team's name
(columns 5–36) and its players' starting ranks (37–40, 42–45, …), in board
order; its teams have no numbers but their order (:class:`TeamRoster`).

Each record is a frozen value with ``write()`` (its line) and a classmethod
``read(line)`` that raises :class:`ValueError` saying what is wrong, registered
under its code in the record registry (:mod:`tmanager.formats.trf_records`): importing this
module makes :func:`~tmanager.formats.trf.parse` read these records into
``Tournament.records`` and :func:`~tmanager.formats.trf.dumps` write them.
Points are tenths, as everywhere in tmanager. These types know nothing of
events (:func:`tmanager.events.teamtrf.trf_team_records` builds them from a team
division).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from tmanager.core.results import format_points
from tmanager.errors import ascii_digits
from tmanager.formats.trf_records import RecordType, register

#: The most players a ``310`` line holds.
ROSTER_LIMIT = 14
#: The highest team number: ``300``, ``310``, ``320`` and ``802`` lines write it in three digits.
MAX_TEAM = 999
#: The longest team nickname: ``310`` and ``802`` lines have five columns for it.
MAX_NICKNAME = 5
#: The width of one round's block in an ``802`` line.
_SUMMARY_BLOCK = 13


def _points(tenths: int, width: int) -> str:
    return format_points(tenths, decimal=True).rjust(width)


def _read_points(text: str, what: str) -> int:
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a number of points") from None
    tenths = round(value * 10)
    if abs(tenths - value * 10) > 1e-6:
        raise ValueError(f"{what}: {text!r} is not a multiple of 0.1")
    return tenths


def _number(text: str, what: str, *, zero: bool = False) -> int:
    text = text.strip()
    if not ascii_digits(text) or (int(text) == 0 and not zero):
        raise ValueError(f"{what}: {text!r} is not a number here")
    return int(text)


def _code(line: str, code: str) -> None:
    if line[:3] != code:
        raise ValueError(f"not a {code} line")


@dataclass(frozen=True, slots=True)
class TrfTeam:
    """``310``: the team, its scores (tenths), rank and players (starting ranks in board order)."""

    number: int
    name: str
    nickname: str = ""
    strength: int = 0
    match_points: int = 0
    game_points: int = 0
    rank: int | None = None
    players: tuple[int, ...] = ()

    def write(self) -> str:
        if len(self.players) > ROSTER_LIMIT:
            raise ValueError(f"a 310 line holds {ROSTER_LIMIT} players, not {len(self.players)}")
        rank = f"{self.rank:3d}" if self.rank is not None else "   "
        head = (
            f"310 {self.number:3d} {self.name[:32]:<32} {self.nickname[:5]:<5} {self.strength or '':>6} "
            f"{_points(self.match_points, 6)} {_points(self.game_points, 6)} {rank} "
        )
        return (head + "".join(f" {p:4d}" for p in self.players)).rstrip()

    @classmethod
    def read(cls, line: str) -> Self:
        _code(line, "310")
        text = line.ljust(73)
        strength, rank = text[47:53].strip(), text[68:71].strip()
        players = [
            _number(text[i : i + 4], f"player {k}") for k, i in enumerate(range(73, len(line), 5), 1)
            if text[i : i + 4].strip()
        ]  # fmt: skip
        return cls(
            number=_number(text[4:7], "team number"),
            name=text[8:40].strip(),
            nickname=text[41:46].strip(),
            strength=int(strength) if ascii_digits(strength) else 0,
            match_points=_read_points(text[54:60], "match points"),
            game_points=_read_points(text[61:67], "game points"),
            rank=int(rank) if ascii_digits(rank) else None,
            players=tuple(players),
        )


@dataclass(frozen=True, slots=True)
class TeamByes:
    """``320``: what a pairing-allocated bye scores (tenths), and the team with it in each round (None: none)."""

    match_points: int
    game_points: int
    teams: tuple[int | None, ...]

    def write(self) -> str:
        byes = "".join(f" {t or 0:03d}" for t in self.teams)
        return f"320 {_points(self.match_points, 4)} {_points(self.game_points, 4)}{byes}"

    @classmethod
    def read(cls, line: str) -> Self:
        _code(line, "320")
        teams = tuple(_number(w, "team", zero=True) or None for w in line[13:].split())
        return cls(_read_points(line[4:8], "match points"), _read_points(line[9:13], "game points"), teams)


@dataclass(frozen=True, slots=True)
class Lineup:
    """``300``: the players ``team`` fielded board by board in ``round`` against ``opponent`` (0: an empty board)."""

    round: int
    team: int
    opponent: int
    players: tuple[int, ...]

    def write(self) -> str:
        return f"300 {self.round:03d} {self.team:03d} {self.opponent:03d}" + "".join(f" {p:04d}" for p in self.players)

    @classmethod
    def read(cls, line: str) -> Self:
        _code(line, "300")
        players = tuple(_number(w, "player", zero=True) for w in line[15:].split())
        return cls(_number(line[4:7], "round"), _number(line[8:11], "team"), _number(line[12:15], "opponent"), players)


@dataclass(frozen=True, slots=True)
class ColourSequence:
    """``352``: the colours of the first team's boards, ``W`` or ``B`` each."""

    colours: str

    @classmethod
    def alternating(cls, boards: int) -> Self:
        """White on the odd boards, as FIDE's team rules give the first team."""
        return cls("".join("W" if i % 2 == 0 else "B" for i in range(boards)))

    def write(self) -> str:
        return f"352 {self.colours}"

    @classmethod
    def read(cls, line: str) -> Self:
        _code(line, "352")
        colours = line[4:].strip()
        if not colours or set(colours) - {"W", "B"}:
            raise ValueError(f"{colours!r} is not a sequence of W and B")
        return cls(colours)


@dataclass(frozen=True, slots=True)
class TeamScoring:
    """``362``: match points (tenths) of a won, drawn and lost match."""

    win: int = 20
    draw: int = 10
    loss: int = 0

    def write(self) -> str:
        return f"362 TW {_points(self.win, 4)} TD {_points(self.draw, 4)} TL {_points(self.loss, 4)}"

    @classmethod
    def read(cls, line: str) -> Self:
        """The values given (FIDE's 2, 1, 0 where one is missing), in any spacing."""
        _code(line, "362")
        words = line[3:].split()
        values = {"TW": 20, "TD": 10, "TL": 0}
        for code, value in zip(words[::2], words[1::2], strict=False):
            if code not in values:
                raise ValueError(f"{code!r} is not TW, TD or TL")
            values[code] = _read_points(value, code)
        return cls(values["TW"], values["TD"], values["TL"])


@dataclass(frozen=True, slots=True)
class TeamRoundEntry:
    """One round of an ``802`` line: the opponent (or a bye type: PAB, FPB, HPB, ZPB), the colour on board 1
    (``w``, ``b`` or empty), the game points (tenths) and whether the match was forfeited."""

    opponent: int | str
    colour: str
    game_points: int
    forfeit: bool = False


@dataclass(frozen=True, slots=True)
class TeamSummary:
    """``802`` (informative): a team's nickname, match and game points (tenths) and each round."""

    team: int
    nickname: str
    match_points: int
    game_points: int
    rounds: tuple[TeamRoundEntry, ...]

    def write(self) -> str:
        blocks = []
        for r in self.rounds:
            opponent = f"{r.opponent:>3}" if isinstance(r.opponent, str) else f"{r.opponent:3d}"
            blocks.append(f"  {opponent} {r.colour or ' '} {_points(r.game_points, 4)}{'f' if r.forfeit else ' '}")
        head = (
            f"802 {self.team:3d} {self.nickname[:5]:<5} {_points(self.match_points, 6)} "
            f"{_points(self.game_points, 6)}"
        )
        return (head + "".join(blocks)).rstrip()

    @classmethod
    def read(cls, line: str) -> Self:
        _code(line, "802")
        rounds = []
        for k, start in enumerate(range(27, len(line), _SUMMARY_BLOCK), 1):
            block = line[start : start + _SUMMARY_BLOCK].ljust(_SUMMARY_BLOCK)
            opponent = block[2:5].strip()
            rounds.append(TeamRoundEntry(
                int(opponent) if ascii_digits(opponent) else opponent, block[6].strip(),
                _read_points(block[8:12], f"round {k}: game points"), block[12] == "f",
            ))  # fmt: skip
        return cls(_number(line[4:7], "team"), line[8:13].strip(), _read_points(line[14:20], "match points"),
                   _read_points(line[21:27], "game points"), tuple(rounds))  # fmt: skip


@dataclass(frozen=True, slots=True)
class TeamRoster:
    """TRF-16's ``013``: a team's name and its players (starting ranks in board order)."""

    name: str
    players: tuple[int, ...]

    def write(self) -> str:
        return (f"013 {self.name[:32]:<32}" + " ".join(f"{p:4d}" for p in self.players)).rstrip()

    @classmethod
    def read(cls, line: str) -> Self:
        _code(line, "013")
        name = line[4:36].strip()
        if not name:
            raise ValueError("no team name in columns 5-36")
        players = tuple(_number(w, f"player {k}") for k, w in enumerate(line[36:].split(), 1))
        return cls(name, players)


TEAMS = register(RecordType("310", TrfTeam, TrfTeam.read, TrfTeam.write))
TEAM_BYES = register(RecordType("320", TeamByes, TeamByes.read, TeamByes.write))
LINEUPS = register(RecordType("300", Lineup, Lineup.read, Lineup.write))
COLOUR_SEQUENCE = register(RecordType("352", ColourSequence, ColourSequence.read, ColourSequence.write))
TEAM_SCORING = register(RecordType("362", TeamScoring, TeamScoring.read, TeamScoring.write))
TEAM_SUMMARIES = register(RecordType("802", TeamSummary, TeamSummary.read, TeamSummary.write))
TEAM_ROSTERS = register(RecordType("013", TeamRoster, TeamRoster.read, TeamRoster.write))
