"""TRF-2026's records of a team competition, written and read from plain data.

FIDE's TRF-2026 (C.05, applied from 1 September 2025) adds to the player
lines of a team tournament:

* ``310`` one line per team: pairing number (columns 5–7), name (9–40),
  nickname (42–46), strength factor (48–53), match points (55–60), game points
  (62–67), rank (69–71) and its players' starting ranks in board order (74–77,
  79–82, … up to 14 players);
* ``320`` the teams' pairing-allocated byes: their match points (5–8) and game
  points (10–13), then the team of each round (15–17, 19–21, …; ``000`` none);
* ``330`` a forfeited match: ``+-`` (white's team wins), ``-+`` or ``--``
  (5–6), round (8–10), white's and black's teams (12–14, 16–18);
* ``300`` a team playing out of its default order (or with an empty board):
  round (5–7), team (9–11), opponent (13–15), then its players board by
  board (17–20, 22–25, …; ``0000`` an empty board);
* ``352`` the colour sequence of the first team's boards (``WBWB``);
* ``362`` match points for a won, drawn and lost match (``TW``, ``TD``,
  ``TL``); the layout of its values is not fixed here beyond code then value,
  which :func:`read_match_points` reads in any spacing;
* ``802`` an informative line per team: nickname, match and game points, and
  each round's opponent (or bye type), colour and game points.

Points are tenths, as everywhere in tmanager. These functions know nothing of
events: the TRF-2026 writer puts their lines after the players'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tmanager.core.results import format_points
from tmanager.errors import ConfigError

#: The most players a ``310`` line holds.
ROSTER_LIMIT = 14
ForfeitKind = Literal["+-", "-+", "--"]


def _points(tenths: int, width: int) -> str:
    return format_points(tenths, decimal=True).rjust(width)


def _read_points(text: str, *, file: str | Path | None, field: str) -> int:
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{text!r} is not a number of points", file=file, field=field) from None
    tenths = round(value * 10)
    if abs(tenths - value * 10) > 1e-6:
        raise ConfigError(f"{text!r} is not a multiple of 0.1", file=file, field=field)
    return tenths


def _number(text: str, *, file: str | Path | None, field: str, zero: bool = False) -> int:
    text = text.strip()
    if not text.isdigit() or (int(text) == 0 and not zero):
        raise ConfigError(f"{text!r} is not a number here", file=file, field=field)
    return int(text)


@dataclass(frozen=True, slots=True)
class TrfTeam:
    """A ``310`` line: the team, its scores (tenths), rank and players (starting ranks in board order)."""

    number: int
    name: str
    nickname: str = ""
    strength: int = 0
    match_points: int = 0
    game_points: int = 0
    rank: int | None = None
    players: tuple[int, ...] = ()


def team_line(team: TrfTeam) -> str:
    """The ``310`` line of ``team``."""
    if len(team.players) > ROSTER_LIMIT:
        raise ValueError(f"a 310 line holds {ROSTER_LIMIT} players, not {len(team.players)}")
    rank = f"{team.rank:3d}" if team.rank is not None else "   "
    head = (
        f"310 {team.number:3d} {team.name[:32]:<32} {team.nickname[:5]:<5} {team.strength or '':>6} "
        f"{_points(team.match_points, 6)} {_points(team.game_points, 6)} {rank} "
    )
    return (head + "".join(f" {p:4d}" for p in team.players)).rstrip()


def read_team_line(line: str, *, file: str | Path | None = None, number: int = 0) -> TrfTeam:
    """A ``310`` line read back (columns as :func:`team_line` writes them)."""
    where = f"line {number}"
    if not line.startswith("310"):
        raise ConfigError("not a 310 line", file=file, field=where)
    text = line.ljust(73)
    strength = text[47:53].strip()
    rank = text[68:71].strip()
    players = [
        _number(text[i : i + 4], file=file, field=f"{where}: player {k}")
        for k, i in enumerate(range(73, len(line), 5), 1)
        if text[i : i + 4].strip()
    ]
    return TrfTeam(
        number=_number(text[4:7], file=file, field=f"{where}: team number"),
        name=text[8:40].strip(),
        nickname=text[41:46].strip(),
        strength=int(strength) if strength.isdigit() else 0,
        match_points=_read_points(text[54:60], file=file, field=f"{where}: match points"),
        game_points=_read_points(text[61:67], file=file, field=f"{where}: game points"),
        rank=int(rank) if rank.isdigit() else None,
        players=tuple(players),
    )


def bye_line(match_points: int, game_points: int, byes: Sequence[int | None]) -> str:
    """The ``320`` line: what a pairing-allocated bye scores, and the team with it in each round (None: no bye)."""
    return f"320 {_points(match_points, 4)} {_points(game_points, 4)}" + "".join(f" {t or 0:03d}" for t in byes)


def read_bye_line(
    line: str, *, file: str | Path | None = None, number: int = 0
) -> tuple[int, int, list[int | None]]:
    """A ``320`` line: match points, game points, and each round's team (None: no bye)."""
    where = f"line {number}"
    words = line[13:].split()
    return (
        _read_points(line[4:8], file=file, field=f"{where}: match points"),
        _read_points(line[9:13], file=file, field=f"{where}: game points"),
        [_number(w, file=file, field=f"{where}: team", zero=True) or None for w in words],
    )


def forfeit_line(kind: ForfeitKind, round_number: int, white: int, black: int) -> str:
    """A ``330`` line: a forfeited match of ``round_number`` between the teams ``white`` and ``black``."""
    return f"330 {kind} {round_number:03d} {white:03d} {black:03d}"


def read_forfeit_line(
    line: str, *, file: str | Path | None = None, number: int = 0
) -> tuple[ForfeitKind, int, int, int]:
    """A ``330`` line: the forfeit, the round, white's and black's teams."""
    where = f"line {number}"
    kind = line[4:6]
    if kind not in ("+-", "-+", "--"):
        raise ConfigError(f"{kind!r} is not a forfeit (+-, -+ or --)", file=file, field=where)
    return (
        "+-" if kind == "+-" else "-+" if kind == "-+" else "--",
        _number(line[7:10], file=file, field=f"{where}: round"),
        _number(line[11:14], file=file, field=f"{where}: white team"),
        _number(line[15:18], file=file, field=f"{where}: black team"),
    )


def lineup_line(round_number: int, team: int, opponent: int, players: Sequence[int]) -> str:
    """A ``300`` line: the players ``team`` fielded board by board in ``round_number`` (0: an empty board)."""
    return f"300 {round_number:03d} {team:03d} {opponent:03d}" + "".join(f" {p:04d}" for p in players)


def read_lineup_line(
    line: str, *, file: str | Path | None = None, number: int = 0
) -> tuple[int, int, int, list[int]]:
    """A ``300`` line: round, team, opponent and the players board by board (0: an empty board)."""
    where = f"line {number}"
    return (
        _number(line[4:7], file=file, field=f"{where}: round"),
        _number(line[8:11], file=file, field=f"{where}: team"),
        _number(line[12:15], file=file, field=f"{where}: opponent"),
        [_number(w, file=file, field=f"{where}: player", zero=True) for w in line[15:].split()],
    )


def colour_sequence_line(boards: int) -> str:
    """The ``352`` line: the first team has white on the odd boards."""
    return "352 " + "".join("W" if i % 2 == 0 else "B" for i in range(boards))


def match_points_line(win: int, draw: int, loss: int) -> str:
    """The ``362`` line: match points of a won, drawn and lost match."""
    return f"362 TW {_points(win, 4)} TD {_points(draw, 4)} TL {_points(loss, 4)}"


def read_match_points(line: str, *, file: str | Path | None = None, number: int = 0) -> tuple[int, int, int]:
    """A ``362`` line's match points for TW, TD and TL (FIDE's 2, 1, 0 where one is missing)."""
    words = line[3:].split()
    values = {"TW": 20, "TD": 10, "TL": 0}
    for code, value in zip(words[::2], words[1::2], strict=False):
        if code not in values:
            raise ConfigError(f"{code!r} is not TW, TD or TL", file=file, field=f"line {number}")
        values[code] = _read_points(value, file=file, field=f"line {number}: {code}")
    return values["TW"], values["TD"], values["TL"]


@dataclass(frozen=True, slots=True)
class TeamRoundEntry:
    """One round of an ``802`` line: the opponent (or a bye type: PAB, FPB, HPB, ZPB), the colour on board 1
    (``w``, ``b`` or empty), the game points (tenths) and whether the match was forfeited."""

    opponent: int | str
    colour: str
    game_points: int
    forfeit: bool = False


def summary_line(
    team: int, nickname: str, match_points: int, game_points: int, rounds: Sequence[TeamRoundEntry]
) -> str:
    """An ``802`` line (informative)."""
    blocks = []
    for r in rounds:
        opponent = f"{r.opponent:>3}" if isinstance(r.opponent, str) else f"{r.opponent:3d}"
        blocks.append(f"{opponent} {r.colour or ' '} {_points(r.game_points, 4)}{'f' if r.forfeit else ' '}")
    head = f"802 {team:3d} {nickname[:5]:<5} {_points(match_points, 6)} {_points(game_points, 6)}"
    return (head + "".join(f"  {b}" for b in blocks)).rstrip()
