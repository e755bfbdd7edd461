"""FIDE Tournament Report File (TRF-16 / TRF-2026), as read and written by pairing programs.

A player line (``001``) holds the player's data in columns 1–80, the points in
81–84, the rank in 86–89, and one 10-column block per round from column 92:
opponent (92–95, ``0000`` or blank for none), colour (97: ``w``, ``b`` or
``-``) and result (99: ``1 = 0 + - W D L H F U Z``). Other lines used here:
``XXR n`` (number of rounds), ``XXC white1|black1`` (colour of the first player
in round 1), ``XXP a b …`` (players who must not meet) and ``BBW/BBD/BBL/BBZ/BBF/BBU
pp.p`` (points for a win, draw, played loss, zero-point bye, forfeit loss and
pairing-allocated bye). Lines of any other kind are kept as they are.

Like the endorsed programs, the reader checks each player's points column
against the results, so a file written for another points system is refused
rather than paired wrongly. CR, LF and CRLF line endings are all accepted.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from tmanager.core.results import TRF_CODES, format_points
from tmanager.errors import ConfigError
from tmanager.files import atomic_write
from tmanager.pairing.model import BLACK, STANDARD, WHITE, Game, PlayerState, PointsSystem

#: TRF-16 lines giving the points of each kind of result, and the PointsSystem field each sets.
POINTS_CODES = {
    "BBW": "win",
    "BBD": "draw",
    "BBL": "loss",
    "BBZ": "zero_bye",
    "BBF": "forfeit_loss",
    "BBU": "pairing_bye",
}
_FIRST_ROUND = 91  # index of column 92
_BLOCK = 10
_SCORE = re.compile(r"^\d{1,3}(\.\d)?$")


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
        text = self.header[48:52].strip()
        return int(text) if text.isdigit() else 0

    def state(self, rounds: int | None = None) -> PlayerState:
        """The pairing view of this player, with the first ``rounds`` rounds."""
        return PlayerState(id=self.id, games=self.games[:rounds], rating=self.rating)


@dataclass(frozen=True, slots=True)
class Tournament:
    """A parsed TRF. ``points`` is the points system (tenths); ``initial_colour`` is ``"w"``, ``"b"`` or None."""

    players: tuple[TrfPlayer, ...]
    total_rounds: int | None = None
    initial_colour: str | None = None
    forbidden: tuple[frozenset[int], ...] = ()
    points: PointsSystem = STANDARD
    lines: tuple[str, ...] = ()  # every non-player line, in order, for writing back

    @property
    def played_rounds(self) -> int:
        """Rounds already paired: the last round anyone took part in the pairing of."""
        rounds = 0
        for p in self.players:
            games = p.games
            count = len(games) if games and games[-1].paired else max(len(games) - 1, 0)
            rounds = max(rounds, count)
        return rounds

    def first_colour(self) -> str:
        """The colour of the top-ranked player in round 1: ``XXC``, else inferred from the earliest colours.

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
        for p in self.players:
            if not any(g.paired for g in p.games[: first + 1]):
                continue
            colour = p.games[first].colour if first < len(p.games) else None
            if colour is not None:
                return colour if seen % 2 == 0 else (BLACK if colour == WHITE else WHITE)
            seen += 1
        return WHITE

    def states(self, rounds: int | None = None) -> list[PlayerState]:
        """Every player's pairing view (see :meth:`TrfPlayer.state`)."""
        return [p.state(rounds) for p in self.players]

    def with_round(self, boards: list[tuple[int, int]], bye: int | None, round_number: int) -> Tournament:
        """This tournament with a round's pairing entered: results left blank, the bye's points added."""
        entries: dict[int, Game] = {}
        for white, black in boards:
            entries[white] = Game(black, WHITE, " ")
            entries[black] = Game(white, BLACK, " ")
        if bye is not None:
            entries[bye] = Game(None, None, "U")
        players = []
        for p in self.players:
            games = p.games[: round_number - 1]
            games += (Game(None, None, " "),) * (round_number - 1 - len(games))
            points = p.points
            if p.id in entries:
                games += (entries[p.id],)
                points += self.points.points(entries[p.id]) if p.id == bye else 0
            elif len(p.games) >= round_number:
                games += (p.games[round_number - 1],)
            players.append(dataclasses.replace(p, games=games, points=points))
        return dataclasses.replace(self, players=tuple(players))


def _points(text: str, *, file: str | Path | None, field: str) -> int:
    text = text.strip()
    if not _SCORE.match(text):
        raise ConfigError(f"{text!r} is not a score", file=file, field=field, hint="write points as e.g. 3.5")
    whole, _, tenth = text.partition(".")
    return int(whole) * 10 + int(tenth or 0)


def _player(line: str, *, file: str | Path | None, number: int) -> TrfPlayer:
    field = f"line {number}"
    text = line[4:8].strip()
    if not text.isdigit() or int(text) == 0:
        raise ConfigError(f"bad starting rank {text!r} in columns 5-8", file=file, field=field)
    pid = int(text)
    if len(line) < 84:
        raise ConfigError("player line ends before the points column (81-84)", file=file, field=field)
    points = _points(line[80:84], file=file, field=f"{field}: points")
    rank_text = line[85:89].strip()
    games: list[Game] = []
    pending = 0  # blank blocks, kept only if a later block is filled
    for start in range(_FIRST_ROUND, len(line), _BLOCK):
        block = line[start : start + 8].ljust(8)
        round_field = f"{field}: round {(start - _FIRST_ROUND) // _BLOCK + 1}"
        opp_text, colour, result = block[0:4], block[5], block[7].upper()
        if not block.strip():
            pending += 1
            continue
        if opp_text.strip() in ("", "0000"):
            opponent = None
        elif opp_text.strip().isdigit():
            opponent = int(opp_text)
        else:
            raise ConfigError(f"bad opponent {opp_text!r}", file=file, field=round_field)
        if opponent == pid:
            raise ConfigError("player is paired against themself", file=file, field=round_field)
        if colour not in "wb- " or result not in TRF_CODES:
            raise ConfigError(
                f"bad colour {colour!r} or result {result!r}",
                file=file,
                field=round_field,
                hint="colour is w, b or -; result one of 1 = 0 + - W D L H F U Z",
            )
        if opponent is None and colour in "wb":
            raise ConfigError("a colour without an opponent", file=file, field=round_field)
        if opponent is not None and result in "HFUZ":
            raise ConfigError(f"bye code {result!r} with an opponent", file=file, field=round_field)
        if opponent is not None and result in "1=0WDL" and colour not in "wb":
            raise ConfigError("a played game without a colour", file=file, field=round_field)
        games += [Game(None, None, " ")] * pending
        pending = 0
        games.append(Game(opponent, colour if colour in "wb" else None, result))
    return TrfPlayer(pid, line[:80], points, int(rank_text) if rank_text.isdigit() else None, tuple(games))


def parse(text: str, *, file: str | Path | None = None) -> Tournament:
    """Parse a TRF; raises :class:`ConfigError` naming the line on malformed input."""
    players: list[TrfPlayer] = []
    lines: list[str] = []
    total_rounds: int | None = None
    initial: str | None = None
    forbidden: list[frozenset[int]] = []
    points: dict[str, int] = {}
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        code = line[:3]
        if code == "001":
            players.append(_player(line, file=file, number=number))
            continue
        if line.strip():
            lines.append(line)
        words = line[3:].split()
        if code == "XXR":
            if len(words) != 1 or not words[0].isdigit():
                raise ConfigError("XXR wants the number of rounds", file=file, field=f"line {number}")
            total_rounds = int(words[0])
        elif code == "XXC":
            for word in words:
                if word.lower() in ("white1", "black1"):
                    initial = WHITE if word.lower() == "white1" else BLACK
        elif code == "XXP":
            if not all(w.isdigit() for w in words) or len(words) < 2:
                raise ConfigError("XXP wants two or more starting ranks", file=file, field=f"line {number}")
            forbidden.append(frozenset(int(w) for w in words))
        elif code in POINTS_CODES:
            points[POINTS_CODES[code]] = _points(line[3:], file=file, field=f"line {number}: {code}")
    if "win" in points and "pairing_bye" not in points:
        points["pairing_bye"] = points["win"]
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ConfigError("two player lines have the same starting rank", file=file)
    tournament = Tournament(
        players=tuple(sorted(players, key=lambda p: p.id)),
        total_rounds=total_rounds,
        initial_colour=initial,
        forbidden=tuple(forbidden),
        points=PointsSystem(**points),
        lines=tuple(lines),
    )
    _check(tournament, file=file)
    return tournament


def _check(tournament: Tournament, *, file: str | Path | None) -> None:
    """Opponents agree with each other, and every points column matches the results."""
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
                    file=file,
                )
        computed = sum(system.points(g) for g in p.games[:played])
        ahead = system.points(p.games[played]) if len(p.games) > played else 0
        if p.points not in (computed, computed + ahead):
            raise ConfigError(
                f"player {p.id} has {format_points(p.points, decimal=True)} points but the results give "
                f"{format_points(computed, decimal=True)}",
                file=file,
                hint="fix the points column or declare the points system with BBW/BBD/… lines",
            )


def read(path: str | Path) -> Tournament:
    """Read and check a TRF file (any line ending, UTF-8 or Latin-1)."""
    return parse(read_text(path), file=path)


def read_text(path: str | Path) -> str:
    """A TRF file's text: UTF-8, else Latin-1 (older files). :class:`OSError` if it cannot be read."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _player_line(p: TrfPlayer) -> str:
    rank = f"{p.rank:4d}" if p.rank is not None else "    "
    blocks = []
    for g in p.games:
        opponent = f"{g.opponent:4d}" if g.opponent is not None else "0000"
        colour = g.colour or "-"
        blocks.append(f"{opponent} {colour} {g.result}")
    head = f"{p.header.ljust(80)[:80]}{format_points(p.points, decimal=True):>4} {rank}"
    return ("  ".join([head, *blocks])).rstrip()


def dumps(tournament: Tournament) -> str:
    """The TRF text (LF line endings): other lines first, then the players by starting rank."""
    lines = list(tournament.lines)
    lines += [_player_line(p) for p in tournament.players]
    return "\n".join(lines) + "\n"


def write(path: str | Path, tournament: Tournament) -> None:
    """Write a TRF atomically."""
    atomic_write(Path(path), dumps(tournament))
