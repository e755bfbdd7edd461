"""FIDE Tournament Report File (TRF-2026, applied from 1 September 2025; TRF-16 and the JaVaFo/bbpPairings lines),
as read and written by pairing programs.

A player line (``001``) holds the player's data in columns 1–80 (sex in 10,
title in 11–13, name 15–47, rating 49–52, federation 54–56, FIDE ID 58–68,
birth 70–79), the points in 81–84, the rank in 86–89, and one 10-column block
per round from column 92: opponent (92–95, ``0000`` or blank for none), colour
(97: ``w``, ``b`` or ``-``) and result (99: ``1 = 0 + - W D L H F U Z``).

The lines this module reads itself:

* the number of rounds, ``142 n`` (TRF-2026) or ``XXR n``;
* the initial colour, ``152 W|B`` or ``XXC white1|black1``; ``XXC rank`` says
  that the order of the player lines, not their starting ranks, is the pairing
  order (JaVaFo's option, which bbpPairings reads);
* the points system, ``162`` (``W D L A P``: win, draw, played loss, absence as
  zero-point bye or forfeit loss, pairing-allocated bye; bbpPairings writes
  ``Z`` for ``A``) or ``BBW BBD BBL BBZ BBF BBU``;
* players who must not meet, ``XXP a b …``.

**Records.** Other record types are read and written by a
:class:`~tmanager.formats.trf_records.RecordType` registered under their code
(:func:`~tmanager.formats.trf_records.register`): its ``read`` turns a line into
a value, its ``write`` a value into a line. :func:`parse` hands every line of a
registered code to its type and keeps the values in
:attr:`Tournament.records`; :func:`dumps` writes them back through the same
types, after the header. TRF-2026's byes (``240``), acceleration (``250``),
prohibited pairings (``260``) and forfeited matches (``330``), and TRF-16's
per-player acceleration (``XXA``, as JaVaFo and bbpPairings read it) are registered
in :mod:`~tmanager.formats.trf_records`; the records of team events (``310``…) are
added the same way (:mod:`~tmanager.formats.trf_teams`) without touching the
reader or the writer. Lines of any other kind are kept as they are.

Like the endorsed programs, the reader checks each player's points column
against the results (with any acceleration of the round), so a file written
for another points system is refused rather than paired wrongly. CR, LF and
CRLF line endings are all accepted; the writer ends lines with LF.
"""

from __future__ import annotations

import codecs
import dataclasses
import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tmanager.core.results import Colour, TrfResult, format_points
from tmanager.core.scoring import STANDARD, Game, PointsSystem
from tmanager.errors import ConfigError, PairingError, ascii_digits
from tmanager.files import atomic_write, read_bytes
from tmanager.formats.trf_records import (
    ACCELERATION,
    BYES,
    PLAYER_ACCELERATION,
    PROHIBITED,
    RECORD_TYPES,
    Prohibited,
    RecordType,
    tenths,
)
from tmanager.pairing.acceleration import baku_points
from tmanager.pairing.model import BLACK, WHITE, PlayerState


class Version(enum.StrEnum):
    """The TRF versions written: TRF-2026 (FIDE's from 1 September 2025) and TRF-16."""

    TRF_2026 = "2026"
    TRF_16 = "16"

#: TRF-16 lines giving the points of each kind of result, and the PointsSystem field each sets.
POINTS_CODES = {
    "BBW": "win",
    "BBD": "draw",
    "BBL": "loss",
    "BBZ": "zero_bye",
    "BBF": "forfeit_loss",
    "BBU": "pairing_bye",
}
#: TRF-2026 ``162``: the result symbols and the PointsSystem fields each sets (``Z``: bbpPairings's ``A``).
SCORING_SYMBOLS = {
    "W": ("win",), "D": ("draw",), "L": ("loss",), "A": ("zero_bye", "forfeit_loss"),
    "Z": ("zero_bye", "forfeit_loss"), "P": ("pairing_bye",),
}  # fmt: skip
#: The highest starting rank a player line can hold: columns 5-8 of ``001``, and every opponent column, have four
#: digits (so have the ``240``, ``250`` and ``260`` records).
MAX_START_RANK = 9999
#: The highest round TRF-2026's records can name: ``240``, ``250``, ``260`` and ``330`` write rounds in three digits.
MAX_ROUND = 999
_FIRST_ROUND = 91  # index of column 92
_BLOCK = 10
#: A header line of the tournament section: ``012``, ``142``… (three digits ending in 2).
_HEADER = re.compile(r"^\d\d2$")

_V = TypeVar("_V")


# -- players and the tournament ------------------------------------------------------------------------


#: The numbers of a ``001`` line: what the player's line calls each, its columns (0-based slice, 1-based as TRF
#: names them), and what a blank stands for.
_NUMBERS = {
    "rating": ("rating", slice(48, 52), "49-52", "an unrated player"),
    "fide_id": ("FIDE ID", slice(57, 68), "58-68", "a player without one"),
}  # fmt: skip


def header_number(header: str, player: int, key: str, *, file: str | Path | None = None) -> int | None:
    """The rating or FIDE ID (``key``) in columns 1–80 of starting rank ``player``'s ``001`` line; None when blank.
    Anything else is refused: read as not given, a rating typed with a letter made a rated player unrated (paired
    and ranked so) without a word."""
    name, columns, said, blank = _NUMBERS[key]
    text = header[columns].strip()
    if not text:
        return None
    if not ascii_digits(text):
        raise ConfigError(f"{text!r} in columns {said} is not a number", file=file, field=f"player {player}: {name}",
                          hint=f"write it in digits; blank for {blank}")  # fmt: skip
    return int(text)


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """One ``001`` line. ``header`` is columns 1–80 as read (name, rating, federation…)."""

    id: int
    header: str
    points: int
    rank: int | None
    games: tuple[Game, ...]

    @property
    def name(self) -> str:
        return self.header[14:47].strip()

    @property
    def rating(self) -> int:
        return header_number(self.header, self.id, "rating") or 0

    def state(self, rounds: int | None = None, *, rank: int | None = None) -> PlayerState:
        """The pairing view of this player, with the first ``rounds`` rounds."""
        return PlayerState(id=self.id, games=self.games[:rounds], rating=self.rating, rank=rank)


@dataclass(frozen=True, slots=True)
class Tournament:
    """A parsed TRF. ``points`` is the points system (tenths); ``initial_colour`` is a :class:`Colour` or None;
    ``by_rank``: the order of :attr:`players` is the pairing order (``XXC rank``), else their starting ranks are.
    ``records`` holds the values of registered record types by code; ``lines`` every other line, in order."""

    players: tuple[TrfPlayer, ...]
    total_rounds: int | None = None
    initial_colour: Colour | None = None
    forbidden: tuple[frozenset[int], ...] = ()
    points: PointsSystem = STANDARD
    lines: tuple[str, ...] = ()
    records: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    by_rank: bool = False

    def values(self, record_type: RecordType[_V]) -> list[_V]:
        """The records of one registered type."""
        return [v for v in self.records.get(record_type.code, ()) if isinstance(v, record_type.value_type)]

    @property
    def played_rounds(self) -> int:
        """Rounds already paired: the last round anyone took part in the pairing of."""
        rounds = 0
        for p in self.players:
            games = p.games
            count = len(games) if games and games[-1].paired else max(len(games) - 1, 0)
            rounds = max(rounds, count)
        return rounds

    def ranked(self) -> list[TrfPlayer]:
        """The players in pairing order."""
        return list(self.players) if self.by_rank else sorted(self.players, key=lambda p: p.id)

    def acceleration(self, player: int, rounds: int) -> tuple[int, ...]:
        """A player's virtual points in each of rounds 1..``rounds``: ``250`` records (a later record wins), else the
        player's ``XXA`` line."""
        records = self.values(ACCELERATION)
        listed = next((a for a in self.values(PLAYER_ACCELERATION) if a.player == player), None)
        return tuple(
            next((a.points for a in reversed(records) if a.applies(player, n)), listed.at(n) if listed else 0)
            for n in range(1, rounds + 1)
        )

    def baku_last(self, *, file: str | Path | None = None) -> int | None:
        """The starting rank of the last player of the Baku method's group A (C.04.5.1), as the file's virtual
        points (``250`` or ``XXA``) show it: a head of the pairing order carries them, each the method's points
        round by round (as far as the file gives them). None without virtual points; :class:`ConfigError` when
        they are another acceleration's, which pairing by Baku's would change."""
        total = self.total_rounds or self.played_rounds
        carried = [(p.id, self.acceleration(p.id, total)) for p in self.ranked()]
        size = sum(1 for _, points in carried if any(points))
        if not size:
            return None
        given = max(n for _, points in carried for n, value in enumerate(points, 1) if value)
        try:
            baku = tuple(baku_points(n, total, self.points) for n in range(1, given + 1))
        except PairingError as exc:
            raise ConfigError(str(exc), file=file, field="virtual points") from None
        if any(points[:given] != baku for _, points in carried[:size]) or any(any(p) for _, p in carried[size:]):
            raise ConfigError(
                "they are not the Baku method's (C.04.5.1: the first players of the pairing order, "
                f"{', '.join(format_points(b) for b in baku)} in rounds 1-{given})", file=file,
                field="virtual points (250/XXA)", hint="tmanager accelerates by the Baku method alone",
            )  # fmt: skip
        return carried[size - 1][0]

    def first_colour(self) -> Colour:
        """The colour of the top-ranked player in round 1: ``152``/``XXC``, else inferred from the earliest colours.

        As the endorsed programs infer it: the colour of the highest player
        paired by then, flipped for each higher-ranked player paired before them.
        """
        if self.initial_colour is not None:
            return self.initial_colour
        coloured = [i for p in self.players for i, g in enumerate(p.games) if g.colour is not None]
        if not coloured:
            return WHITE
        first = min(coloured)
        seen = 0
        for p in self.ranked():
            if not any(g.paired for g in p.games[: first + 1]):
                continue
            colour = p.games[first].colour if first < len(p.games) else None
            if colour is not None:
                return colour if seen % 2 == 0 else colour.other
            seen += 1
        return WHITE

    def states(self, rounds: int | None = None) -> list[PlayerState]:
        """Every player's pairing view (see :meth:`TrfPlayer.state`), ranked as the file says; for the round after
        the file's last, the requested byes of ``240`` records and the virtual points of ``250`` records."""
        upcoming = self.played_rounds + 1
        byes = {p: b.kind for b in self.values(BYES) if b.round == upcoming for p in b.players}
        states = []
        for rank, p in enumerate(self.ranked(), 1):
            state = p.state(rounds, rank=rank if self.by_rank else None)
            games = state.games
            if rounds is None and p.id in byes and len(games) < upcoming:
                games += (Game(None, None, TrfResult.NOT_PLAYED),) * (upcoming - 1 - len(games))
                games += (Game(None, None, byes[p.id].result),)
            acceleration = self.acceleration(p.id, upcoming if rounds is None else rounds + 1)
            states.append(dataclasses.replace(state, games=games, acceleration=acceleration))
        return states

    def with_round(self, boards: list[tuple[int, int]], bye: int | None, round_number: int) -> Tournament:
        """This tournament with a round's pairing entered: results left blank, the bye's points added."""
        entries: dict[int, Game] = {}
        for white, black in boards:
            entries[white] = Game(black, WHITE, TrfResult.NOT_PLAYED)
            entries[black] = Game(white, BLACK, TrfResult.NOT_PLAYED)
        if bye is not None:
            entries[bye] = Game(None, None, TrfResult.PAIRING_BYE)
        players = []
        for p in self.players:
            games = p.games[: round_number - 1]
            games += (Game(None, None, TrfResult.NOT_PLAYED),) * (round_number - 1 - len(games))
            points = p.points
            if p.id in entries:
                games += (entries[p.id],)
                points += self.points.points(entries[p.id]) if p.id == bye else 0
            elif len(p.games) >= round_number:
                games += (p.games[round_number - 1],)
            players.append(dataclasses.replace(p, games=games, points=points))
        return dataclasses.replace(self, players=tuple(players))


# -- reading -------------------------------------------------------------------------------------------


def _points(text: str, *, file: str | Path | None, field: str) -> int:
    try:
        return tenths(text, "points")
    except ValueError:
        hint = "write points as e.g. 3.5"
        raise ConfigError(f"{text.strip()!r} is not a score", file=file, field=field, hint=hint) from None


#: The codes that stand for a bye, which has no opponent.
_BYES = frozenset({TrfResult.HALF_BYE, TrfResult.FULL_BYE, TrfResult.PAIRING_BYE, TrfResult.ZERO_BYE})


def _round_result(code: str) -> TrfResult | None:
    """The round a block's result column codes, or None for a character that is no TRF code."""
    try:
        return TrfResult.parse(code)
    except ValueError:
        return None


def _player(line: str, *, file: str | Path | None, number: int) -> TrfPlayer:
    field = f"line {number}"
    text = line[4:8].strip()
    if not ascii_digits(text) or int(text) == 0:
        raise ConfigError(f"bad starting rank {text!r} in columns 5-8", file=file, field=field,
                          hint="write the player's starting rank there, a whole number from 1")  # fmt: skip
    pid = int(text)
    if len(line) < 84:
        raise ConfigError("player line ends before the points column (81-84)", file=file, field=field,
                          hint="write the player's points in columns 81-84, e.g. ' 0.0'")  # fmt: skip
    points = _points(line[80:84], file=file, field=f"{field}: points")
    header_number(line, pid, "rating", file=file)  # (refused here, where the file is known)
    rank_text = line[85:89].strip()
    games: list[Game] = []
    pending = 0  # blank blocks, kept only if a later block is filled
    for start in range(_FIRST_ROUND, len(line), _BLOCK):
        block = line[start : start + 8].ljust(8)
        round_field = f"{field}: round {(start - _FIRST_ROUND) // _BLOCK + 1}"
        opp_text, colour, code = block[0:4], block[5], block[7].upper()
        if not block.strip():
            pending += 1
            continue
        if opp_text.strip() in ("", "0000"):
            opponent = None
        elif ascii_digits(opp_text.strip()):
            opponent = int(opp_text)
        else:
            raise ConfigError(f"bad opponent {opp_text!r}", file=file, field=round_field,
                              hint="the round's first four columns hold the opponent's starting rank, 0000 for none")
        if opponent == pid:
            raise ConfigError("player is paired against themself", file=file, field=round_field,
                              hint="give the opponent's starting rank, 0000 for a bye")  # fmt: skip
        result = _round_result(code)
        if colour not in "wb- " or result is None:
            raise ConfigError(
                f"bad colour {colour!r} or result {code!r}",
                file=file,
                field=round_field,
                hint="colour is w, b or -; result one of 1 = 0 + - W D L H F U Z",
            )
        if opponent is None and colour in "wb":
            raise ConfigError("a colour without an opponent", file=file, field=round_field,
                              hint="give the opponent's starting rank, or - as the colour of a bye or absence")
        if opponent is not None and result in _BYES:
            raise ConfigError(f"bye code {code!r} with an opponent", file=file, field=round_field,
                              hint="a bye (H F U Z) has opponent 0000; a game's result is 1 = 0 + - W D L")
        if opponent is not None and result.played and colour not in "wb":
            raise ConfigError("a played game without a colour", file=file, field=round_field,
                              hint="give the player's colour, w or b")  # fmt: skip
        games += [Game(None, None, TrfResult.NOT_PLAYED)] * pending
        pending = 0
        games.append(Game(opponent, Colour(colour) if colour in "wb" else None, result))
    return TrfPlayer(pid, line[:80], points, int(rank_text) if ascii_digits(rank_text) else None, tuple(games))


def _scoring(line: str, points: dict[str, int], *, file: str | Path | None, field: str) -> None:
    """A ``162`` line: result symbols at columns 6, 15, 24… with their points in the four columns after."""
    for start in range(5, len(line.rstrip()), 9):
        symbol = line[start]
        names = SCORING_SYMBOLS.get(symbol)
        if names is None:
            hint = "X (an unknown result's points) is not supported" if symbol == "X" else "symbols: W D L A P"
            raise ConfigError(f"result symbol {symbol!r} in column {start + 1}", file=file, field=field, hint=hint)
        value = _points(line[start + 1 : start + 5], file=file, field=f"{field}: {symbol}")
        points.update(dict.fromkeys(names, value))


def parse(text: str, *, file: str | Path | None = None) -> Tournament:
    """Parse a TRF; raises :class:`ConfigError` naming the line on malformed input."""
    players: list[TrfPlayer] = []
    lines: list[str] = []
    records: dict[str, list[Any]] = {}
    total_rounds: int | None = None
    initial: Colour | None = None
    by_rank = False
    forbidden: list[frozenset[int]] = []
    points: dict[str, int] = {}
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        code = line[:3]
        where = f"line {number}"
        if code == "001":
            players.append(_player(line, file=file, number=number))
            continue
        record_type = RECORD_TYPES.get(code)
        if record_type is not None:
            try:
                records.setdefault(code, []).append(record_type.read(line))
            except (ValueError, IndexError) as exc:
                raise ConfigError(f"bad {code} record: {exc}", file=file, field=where,
                                  hint=f"lay the {code} line out as FIDE's TRF-2026 does") from None
            continue
        if line.strip():
            lines.append(line)
        words = line[3:].split()
        if code in ("XXR", "142"):
            if len(words) != 1 or not ascii_digits(words[0]) or int(words[0]) < 1:
                raise ConfigError(f"{code} wants the number of rounds", file=file, field=where,
                                  hint=f"write it as '{code} 9', the rounds planned")
            total_rounds = int(words[0])
        elif code == "XXC":
            for word in words:
                if word.lower() in ("white1", "black1"):
                    initial = WHITE if word.lower() == "white1" else BLACK
                by_rank = by_rank or word.lower() == "rank"
        elif code == "152":
            if words not in (["W"], ["B"], ["w"], ["b"]):
                raise ConfigError("152 wants the initial colour, W or B", file=file, field=where,
                                  hint="write '152 W' or '152 B': the colour of the top player in round 1")
            initial = WHITE if words[0].upper() == "W" else BLACK
        elif code == "162":
            _scoring(line, points, file=file, field=where)
        elif code == "XXP":
            if not all(ascii_digits(w) for w in words) or len(words) < 2:
                raise ConfigError("XXP wants two or more starting ranks", file=file, field=where,
                                  hint="write e.g. 'XXP 3 17': players 3 and 17 must not meet")
            forbidden.append(frozenset(int(w) for w in words))
        elif code in POINTS_CODES:
            points[POINTS_CODES[code]] = _points(line[3:], file=file, field=f"{where}: {code}")
    if "win" in points and "pairing_bye" not in points:
        points["pairing_bye"] = points["win"]
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise ConfigError(f"two player lines have the starting rank {twice}", file=file, field="001 lines",
                          hint="give each player line its own starting rank (columns 5-8)")  # fmt: skip
    tournament = Tournament(
        players=tuple(players if by_rank else sorted(players, key=lambda p: p.id)),
        total_rounds=total_rounds,
        initial_colour=initial,
        forbidden=tuple(forbidden) + tuple(frozenset(p.players) for p in _prohibited(records)),
        points=PointsSystem(**points),
        lines=tuple(lines),
        records={code: tuple(values) for code, values in records.items()},
        by_rank=by_rank,
    )
    _check(tournament, file=file)
    return tournament


def _prohibited(records: Mapping[str, Sequence[Any]]) -> list[Prohibited]:
    return [v for v in records.get(PROHIBITED.code, ()) if isinstance(v, Prohibited)]


def _check(tournament: Tournament, *, file: str | Path | None) -> None:
    """Opponents agree with each other, and every points column matches the results (with any acceleration)."""
    by_id = {p.id: p for p in tournament.players}
    played = tournament.played_rounds
    system = tournament.points
    for p in tournament.players:
        for index, game in enumerate(p.games):
            if game.opponent is None:
                continue
            other = by_id.get(game.opponent)
            theirs = other.games[index] if other and index < len(other.games) else None
            if (
                theirs is None
                or theirs.opponent != p.id
                or (game.played and (theirs.colour == game.colour or not theirs.played))
            ):
                raise ConfigError(
                    f"round {index + 1} of player {p.id} contradicts the entry of player {game.opponent}",
                    file=file, hint="make the two agree: each names the other, one with w and one with b",
                )
        computed = sum(system.points(g) for g in p.games[:played])
        ahead = system.points(p.games[played]) if len(p.games) > played else 0
        virtual = tournament.acceleration(p.id, played + 1)[-1] if played >= 0 else 0
        if p.points not in (computed, computed + ahead, computed + virtual, computed + ahead + virtual):
            raise ConfigError(
                f"player {p.id} has {format_points(p.points, decimal=True)} points but the results give "
                f"{format_points(computed, decimal=True)}",
                file=file,
                hint="fix the points column or declare the points system with 162 (or BBW/BBD/…) lines",
            )


def read(path: str | Path) -> Tournament:
    """Read and check a TRF file (any line ending, UTF-8 or Latin-1)."""
    return parse(read_text(path), file=path)


def read_text(path: str | Path) -> str:
    """A TRF file's text: UTF-8 (with or without a byte-order mark), else Latin-1 (older files).
    :class:`ConfigError` if it cannot be read
    (see :func:`~tmanager.files.read_bytes`)."""
    # the byte-order mark Notepad writes would hide the first line's code (its 012 name, or a player)
    data = read_bytes(Path(path), kind="TRF", create=None).removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# -- writing -------------------------------------------------------------------------------------------


def scoring_line(points: PointsSystem) -> str | None:
    """The ``162`` line of a points system, or None for the standard one (its symbols only where it differs)."""
    fields = [("W", points.win, STANDARD.win), ("D", points.draw, STANDARD.draw), ("L", points.loss, STANDARD.loss),
              ("A", points.zero_bye, STANDARD.zero_bye), ("P", points.pairing_bye, points.win)]  # fmt: skip
    if points.forfeit_loss != points.zero_bye:
        raise ValueError("TRF-2026 scores a forfeit loss and a zero-point bye alike (A)")
    changed = [f"{symbol}{format_points(value, decimal=True):>4}" for symbol, value, default in fields
               if value != default]  # fmt: skip
    return ("162  " + "    ".join(changed)) if changed else None


def _player_line(p: TrfPlayer) -> str:
    rank = f"{p.rank:4d}" if p.rank is not None else "    "
    blocks = []
    for g in p.games:
        opponent = f"{g.opponent:4d}" if g.opponent is not None else "0000"
        colour = g.colour or "-"
        blocks.append(f"{opponent} {colour} {g.result.value}")
    head = f"{p.header.ljust(80)[:80]}{format_points(p.points, decimal=True):>4} {rank}"
    return ("  ".join([head, *blocks])).rstrip()


def dumps(tournament: Tournament) -> str:
    """The TRF text (LF line endings): the header lines (``012``…), the records of every registered type, the other
    lines, then the players (in pairing order with ``XXC rank``, else by starting rank)."""
    header = [line for line in tournament.lines if _HEADER.match(line[:3])]
    others = [line for line in tournament.lines if not _HEADER.match(line[:3])]
    records = [
        record_type.write(value)
        for code, record_type in RECORD_TYPES.items()
        for value in tournament.records.get(code, ())
    ]
    players = [_player_line(p) for p in tournament.players]
    return "\n".join([*header, *records, *others, *players]) + "\n"


def write(path: str | Path, tournament: Tournament) -> None:
    """Write a TRF atomically."""
    atomic_write(Path(path), dumps(tournament))
