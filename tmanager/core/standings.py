"""Standings, head-to-head scores and the round-robin grid, from plain game results.

Pure functions, no I/O: the same core serves PGN files (:mod:`tmanager.formats.pgnscan`),
a tourney's results string and human events. Games are first aggregated into a
:class:`Tally` (counts per ordered pair of players), so memory grows with the
number of pairs, not of games; only the first few games of each pair are kept
in order for the game-by-game grid.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from tmanager.core.results import Result
from tmanager.errors import ascii_digits

#: The results of a finished game, the only ones a standing counts.
FINISHED = (Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW)
# Bound once for the loops over millions of games: Python 3.11 looks an enum's member up in 80 ns.
_WHITE_WINS, _DRAW = Result.WHITE_WINS, Result.DRAW


class GameResult(NamedTuple):
    """One finished game. A named tuple: immutable, and cheap enough to make millions of."""

    white: str
    black: str
    result: Result  #: one of :data:`FINISHED`
    round: str = ""  #: the Round tag as written ("3", "2.1"), "" if unknown
    #: the game's number in its event's schedule, counted from 0 (the GameNumber tag), if known
    game_number: int | None = None
    opening: str = ""  #: start position (FEN) when not the standard one
    pair: int | None = None  #: the number naming its colour-reversed pair (the Pair tag), if known


@dataclass(frozen=True, slots=True)
class Points:
    """What a win, a draw and a loss are worth."""

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0


#: 1 for a win, ½ for a draw, 0 for a loss.
STANDARD_POINTS = Points()


def points_text(value: float) -> str:
    """Points or a tie-break as people read them, whatever their size: ``12556.25``, ``3926905``, ``2.5``.

    Never in exponent form and never cut to six digits, as ``:g`` does (``1.2556e+04``, ``3.92690e+06``);
    two decimals hold any sum of halves and quarters, and hide a float's noise (``0.1`` thirty times).
    """
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


@dataclass(frozen=True, slots=True)
class Record:
    """Wins, draws and losses of one side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def points(self, points: Points = STANDARD_POINTS) -> float:
        return self.wins * points.win + self.draws * points.draw + self.losses * points.loss

    def __add__(self, other: Record) -> Record:
        return Record(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def reversed(self) -> Record:
        """The same games from the opponent's side."""
        return Record(self.losses, self.draws, self.wins)


@dataclass(slots=True)
class Tally:
    """Game results aggregated per ordered (white, black) pair.

    ``grid_limit`` games per pair are also kept in order (round, game number,
    arrival) for the game-by-game grid; beyond it the grid is not available.
    """

    grid_limit: int = 12
    #: (white, black) -> [white wins, draws, black wins]
    pairs: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    #: players in order of first appearance
    players: dict[str, None] = field(default_factory=dict)
    #: unordered pair -> games in arrival order, while within ``grid_limit``
    sequences: dict[frozenset[str], list[GameResult]] = field(default_factory=dict)
    grid_complete: bool = True
    #: points credited without a game (a Swiss bye), by player
    byes: dict[str, float] = field(default_factory=dict)

    def add(self, game: GameResult) -> None:
        """Count one game."""
        key = (game.white, game.black)
        counts = self.pairs.get(key)
        if counts is None:
            counts = self.pairs[key] = [0, 0, 0]
            self.players.setdefault(game.white)
            self.players.setdefault(game.black)
        counts[_INDEX[game.result]] += 1
        if self.grid_complete:
            sequence = self.sequences.setdefault(frozenset(key), [])
            if len(sequence) < self.grid_limit:
                sequence.append(game)
            else:
                self.grid_complete = False
                self.sequences.clear()

    def count(self, white: str, black: str, counts: tuple[int, int, int]) -> None:
        """Count many games of one ordered pair at once: white wins, draws, black wins. Their order is
        not known, so the game-by-game grid is no longer available."""
        self.players.setdefault(white)
        self.players.setdefault(black)
        own = self.pairs.setdefault((white, black), [0, 0, 0])
        for i, n in enumerate(counts):
            own[i] += n
        self.grid_complete = False
        self.sequences.clear()

    def add_bye(self, player: str, points: float) -> None:
        """Credit ``player`` with ``points`` won without a game (a Swiss bye)."""
        self.players.setdefault(player)
        self.byes[player] = self.byes.get(player, 0.0) + points

    def update(self, games: Iterable[GameResult]) -> Tally:
        """Count many games; returns ``self``."""
        for game in games:
            self.add(game)
        return self

    @property
    def games(self) -> int:
        return sum(sum(c) for c in self.pairs.values())

    def record(self, player: str, opponent: str) -> Record:
        """``player``'s record against ``opponent``, both colours."""
        return self.colour_record(player, opponent, white=True) + self.colour_record(player, opponent, white=False)

    def colour_record(self, player: str, opponent: str, *, white: bool) -> Record:
        """``player``'s record against ``opponent`` with one colour."""
        if white:
            w, d, b = self.pairs.get((player, opponent), (0, 0, 0))
            return Record(w, d, b)
        w, d, b = self.pairs.get((opponent, player), (0, 0, 0))
        return Record(b, d, w)


_INDEX = {_WHITE_WINS: 0, _DRAW: 1, Result.BLACK_WINS: 2}


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the standings."""

    name: str
    white: Record
    black: Record
    points: float
    opponent_rating: float | None = None  #: games-weighted average rating of the opponents

    @property
    def total(self) -> Record:
        return self.white + self.black

    @property
    def games(self) -> int:
        return self.total.games

    @property
    def percent(self) -> float:
        """Score in percent of the games played (draws ½ regardless of :class:`Points`)."""
        total = self.total
        return 100.0 * (total.wins + total.draws / 2) / total.games if total.games else 0.0

    @property
    def draw_percent(self) -> float:
        total = self.total
        return 100.0 * total.draws / total.games if total.games else 0.0


def standings(
    tally: Tally,
    *,
    points: Points = STANDARD_POINTS,
    ratings: Mapping[str, float] | None = None,
) -> list[Standing]:
    """Every player's standing, best first (points, then fewer games, then first appearance).

    With ``ratings``, each line carries the average rating of the opponents met.
    """
    white: dict[str, Record] = {p: Record() for p in tally.players}
    black: dict[str, Record] = {p: Record() for p in tally.players}
    opp_sum: dict[str, float] = dict.fromkeys(tally.players, 0.0)
    for (w, b), (ww, dd, bw) in tally.pairs.items():
        white[w] += Record(ww, dd, bw)
        black[b] += Record(bw, dd, ww)
        if ratings is not None:
            n = ww + dd + bw
            opp_sum[w] += n * ratings[b]
            opp_sum[b] += n * ratings[w]
    lines = []
    for name in tally.players:
        total = white[name] + black[name]
        average = opp_sum[name] / total.games if ratings is not None and total.games else None
        won = total.points(points) + tally.byes.get(name, 0.0)
        lines.append(Standing(name, white[name], black[name], won, average))
    order = {name: i for i, name in enumerate(tally.players)}
    lines.sort(key=lambda s: (-s.points, s.games, order[s.name]))
    return lines


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """The games between two players: ``first``'s record and both sides' points."""

    first: str
    second: str
    record: Record
    first_points: float
    second_points: float

    @property
    def games(self) -> int:
        return self.record.games


def head_to_head(tally: Tally, *, points: Points = STANDARD_POINTS) -> list[HeadToHead]:
    """One entry per pair of players who met, in order of first appearance."""
    order = {name: i for i, name in enumerate(tally.players)}
    seen: set[tuple[str, str]] = set()
    result = []
    for w, b in tally.pairs:
        first, second = sorted((w, b), key=order.__getitem__)
        if (first, second) in seen:
            continue
        seen.add((first, second))
        record = tally.record(first, second)
        result.append(HeadToHead(first, second, record, record.points(points), record.reversed().points(points)))
    result.sort(key=lambda h: (order[h.first], order[h.second]))
    return result


def grid(tally: Tally, player: str, opponent: str) -> str | None:
    """``player``'s results against ``opponent`` game by game, e.g. ``"1=0"``; None without a grid.

    Games are ordered by game number, then round, then arrival.
    """
    if not tally.grid_complete:
        return None
    games = tally.sequences.get(frozenset((player, opponent)), [])
    keyed = sorted(
        enumerate(games),
        key=lambda item: (
            item[1].game_number if item[1].game_number is not None else -1,
            round_key(item[1].round),
            item[0],
        ),
    )
    marks = []
    for _, game in keyed:
        if game.result is _DRAW:
            marks.append("=")
        else:
            won = (game.result is _WHITE_WINS) == (game.white == player)
            marks.append("1" if won else "0")
    return "".join(marks)


def round_key(text: str) -> tuple[int, ...]:
    """A Round tag ("3", "2.1") as a sort key; unknown parts (and numbers too long for ``int``) and an empty tag
    sort first."""
    return tuple(int(part) if ascii_digits(part) else -1 for part in text.split("."))


@dataclass(frozen=True, slots=True)
class PairCounts:
    """A two-player match's game pairs, counted: the pentanomial from ``first``'s side
    (``[LL, LD, WL+DD, WD, WW]``), the games left without a partner, and who had white in the
    lowest-numbered game and in the first game read (what orients an automatic match)."""

    first: str
    penta: tuple[int, int, int, int, int]
    unpaired: int
    lowest_white: str | None = None
    #: the pairs of two draws (the rest of ``penta[2]`` are a win and a loss)
    double_draws: int = 0
    first_white: str | None = None


def _partners(waiting: GameResult, game: GameResult, *, kind: str, one_sided: bool) -> bool:
    """Whether ``game`` completes the pair ``waiting`` waits in (by a key of ``kind``): their colours reversed;
    or in the same colours, as a ``noswap`` tourney (fastchess's ``-noswap``) plays both games of a pair, when
    the Pair tag names them one pair and their GameNumbers differ (the same game read twice, a file given
    twice, has one number), or when they share a Round tag in a match whose every game so far had one White
    (``one_sided``): fastchess's Round tag is its pair's number, by which alone its pentanomial pairs games."""
    if waiting.white == game.black:
        return True
    if kind == "round":
        return one_sided
    numbers = (waiting.game_number, game.game_number)
    return kind == "tag" and None not in numbers and numbers[0] != numbers[1]


def match_order(players: Collection[str], pairs: PairCounts | None) -> tuple[str, str, str]:
    """The two ``players`` of a match nobody named: the one tested first, the other, and why it is first
    (white in the lowest GameNumber, else in the first game read, else the first in alphabetical order)."""
    a, b = sorted(players)
    if pairs is not None:
        for white, why in ((pairs.lowest_white, "White in the lowest GameNumber"),
                           (pairs.first_white, "White in the file's first game")):
            if white is not None and white in (a, b):
                return white, b if white == a else a, why
    return a, b, "first in alphabetical order"


@dataclass(slots=True)
class GamePairs:
    """Pentanomial counts for a two-player match, pairing games as they stream by.

    Two games form a pair when they share the start position (FEN, or none),
    the colours are reversed, and their numbers make them a pair: the same
    Pair tag (tmanager's own games, which carry the schedule's pairs; two games of
    other GameNumbers then pair in the same colours too, as a ``noswap`` tourney's); else
    GameNumber tags 2k and 2k+1; else, from Round tags, the same round
    (cutechess-cli, fastchess; in the same colours too while no game had the other
    White: fastchess's ``-noswap``) or rounds 2k-1 and 2k (XBoard); or, with
    none of these, consecutive games in the file. Counts are from ``first``'s
    side: index = points scored in the pair × 2, i.e. ``[LL, LD, WL+DD, WD, WW]``.

    It also notes who had white in the lowest-numbered game (GameNumber) and in
    the first game seen, which orient an automatic match (see
    :func:`tmanager.core.crosstable.build`).
    """

    first: str
    second: str
    penta: list[int] = field(default_factory=lambda: [0] * 5)
    double_draws: int = 0
    #: (GameNumber, white player) of the lowest-numbered game seen
    lowest: tuple[int, str] | None = None
    #: the white player of the first game seen
    first_white: str | None = None
    _pending: dict[tuple[str, str, int], tuple[GameResult, list[tuple[str, str, int]]]] = field(
        default_factory=dict, init=False, repr=False
    )
    _arrivals: int = field(default=0, init=False, repr=False)
    #: games whose every slot a game of the same colours already waits in (the same game twice, files joined):
    #: they pair with nothing, and are unpaired
    _shut_out: int = field(default=0, init=False, repr=False)
    #: whether both players had White in some game (else the match may be a ``noswap`` one)
    _two_sided: bool = field(default=False, init=False, repr=False)

    def add(self, game: GameResult) -> None:
        """Consider one game; games of other players are ignored."""
        if {game.white, game.black} != {self.first, self.second}:
            return
        self._arrivals += 1
        if self.first_white is None:
            self.first_white = game.white
        self._two_sided = self._two_sided or game.white != self.first_white
        if game.game_number is not None and (self.lowest is None or game.game_number < self.lowest[0]):
            self.lowest = (game.game_number, game.white)
        keys = self._keys(game)
        for key in keys:
            waiting = self._pending.get(key)
            if waiting is not None and _partners(waiting[0], game, kind=key[1], one_sided=not self._two_sided):
                for other in waiting[1]:
                    self._pending.pop(other, None)
                self.penta[round(2 * (self._points(waiting[0]) + self._points(game)))] += 1
                self.double_draws += waiting[0].result is _DRAW and game.result is _DRAW
                return
        waits = False
        for key in keys:
            if key not in self._pending:
                self._pending[key] = (game, keys)
                waits = True
        self._shut_out += not waits

    def _keys(self, game: GameResult) -> list[tuple[str, str, int]]:
        if game.pair is not None:
            return [(game.opening, "tag", game.pair)]
        if game.game_number is not None:
            return [(game.opening, "number", game.game_number // 2)]
        if ascii_digits(game.round):
            number = int(game.round)
            return [(game.opening, "round", number), (game.opening, "pair", (number - 1) // 2)]
        return [(game.opening, "pair", (self._arrivals - 1) // 2)]

    def _points(self, game: GameResult) -> float:
        if game.result is _DRAW:
            return 0.5
        return 1.0 if (game.result is _WHITE_WINS) == (game.white == self.first) else 0.0

    def finish(self) -> PairCounts:
        """The counts; the games still waiting for a partner are the unpaired ones."""
        p = self.penta
        return PairCounts(
            self.first,
            (p[0], p[1], p[2], p[3], p[4]),
            unpaired=len({id(entry[0]) for entry in self._pending.values()}) + self._shut_out,
            lowest_white=self.lowest[1] if self.lowest is not None else None,
            first_white=self.first_white,
            double_draws=self.double_draws,
        )
