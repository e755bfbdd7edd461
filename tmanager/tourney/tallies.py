"""A tourney's results string counted: points, games per pair of participants, the cross-table, the field table.

Read-only views of the results string, for `status`, the dashboard and `run`'s
reports. Counted at C speed however long the tourney: the schedule repeats
itself every :attr:`~tmanager.core.schedule.Schedule.period` games, so each slot
of the first period (with its pair partner, for a pair's games) stands for a
strided slice of the string; a pair's two games are zipped slice against slice.
:func:`field_records` is what :mod:`tmanager.core.fieldtable` prints for a
gauntlet or a round robin.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from tmanager.core.fieldtable import FieldRecord
from tmanager.core.results import Result
from tmanager.core.standings import GameResult, PairCounts, Tally
from tmanager.tourney.alphabet import BLACK_WINS, DRAW, WHITE_WINS
from tmanager.tourney.progress import match_state
from tmanager.tourney.settings import SWISS_TYPES, TourneyType

if TYPE_CHECKING:
    from tmanager.core.crosstable import Crosstable
    from tmanager.tourney.model import Tourney

#: Up to this many finished games a cross-table is built game by game (see :func:`crosstable`).
GAME_BY_GAME = 20_000

#: A results character's points for the game's white, in half points; unfinished games count none.
_WHITE_HALVES = {"+": 2, "=": 1, "-": 0}


def field_records(tourney: Tourney) -> list[FieldRecord]:
    """Each participant's games and complete pairs against all it met, from its side. A Swiss is paired
    round by round and has no period: its games are counted one by one."""
    n = len(tourney.participants)
    wdl = [[0, 0, 0] for _ in range(n)]  # wins, draws, losses
    penta = [[0] * 5 for _ in range(n)]
    schedule = tourney.schedule()
    results = tourney.results
    period = schedule.total_games if tourney.settings.type in SWISS_TYPES else schedule.period
    has_pairs = False
    for slot in range(min(period, len(results))):
        game = schedule.game(slot)
        if game is None:
            continue
        games = results[slot::period]
        for char, halves in _WHITE_HALVES.items():
            count = games.count(char)
            wdl[game.white][2 - halves] += count  # the white's win (2 halves) is index 0
            wdl[game.black][halves] += count
        partner = schedule.partner(slot)
        if partner is None or not slot < partner < period:
            continue
        other = schedule.game(partner)
        if other is None:
            continue
        has_pairs = True
        same_white = other.white == game.white
        for (a, b), count in Counter(zip(games, results[partner::period], strict=False)).items():
            if a in _WHITE_HALVES and b in _WHITE_HALVES:
                first = _WHITE_HALVES[a] + (_WHITE_HALVES[b] if same_white else 2 - _WHITE_HALVES[b])
                penta[game.white][first] += count
                penta[game.black][4 - first] += count
    return [
        FieldRecord(p.name, w, d, lost, (c[0], c[1], c[2], c[3], c[4]) if has_pairs else None)
        for p, (w, d, lost), c in zip(tourney.participants, wdl, penta, strict=True)
    ]


def pair_counts(tourney: Tourney) -> dict[tuple[int, int], tuple[int, int, int]]:
    """Finished games per (white, black) participant pair: white wins, draws, black wins.

    Straight from the results string, without a million objects: the games that
    are one schedule period apart have the same players and colours, so each game
    of the first period stands for a strided slice of the string.
    """
    schedule = tourney.schedule()
    period = schedule.period
    results = tourney.results
    counts: dict[tuple[int, int], tuple[int, int, int]] = {}
    for slot in range(min(period, len(results))):
        chars = results[slot::period]
        game = schedule.game(slot)
        if game is None:
            continue
        key = (game.white, game.black)
        wins, draws, losses = counts.get(key, (0, 0, 0))
        counts[key] = (wins + chars.count(WHITE_WINS), draws + chars.count(DRAW), losses + chars.count(BLACK_WINS))
    return counts


def bye_points(tourney: Tourney) -> float:
    """What a Swiss bye is worth: ``bye_points``, by default a win of every game of a pairing (in a
    Double-Swiss, a game won and a game drawn: FIDE C.04.5 1.4)."""
    s = tourney.settings
    if s.bye_points is not None:
        return s.bye_points
    return 1.5 if s.type is TourneyType.DOUBLE_SWISS else float(s.games_per_pairing)


def byes(tourney: Tourney) -> list[int]:
    """The participant with the bye in each paired Swiss round (odd fields only)."""
    n = len(tourney.participants)
    found = []
    for boards in tourney.swiss:
        seated = {p for board in boards for p in board}
        found += [i for i in range(n) if i not in seated]
    return found


def tally(tourney: Tourney) -> list[float]:
    """Points per participant, straight from the results string (and Swiss byes)."""
    points = [0.0] * len(tourney.participants)
    for (white, black), (wins, draws, losses) in pair_counts(tourney).items():
        points[white] += wins + draws / 2
        points[black] += losses + draws / 2
    for index in byes(tourney):
        points[index] += bye_points(tourney)
    return points


def game_results(tourney: Tourney) -> list[GameResult]:
    """The finished games for cross-tables, in game-number order, with their pairs (names as they are now)."""
    names = [p.name for p in tourney.participants]
    schedule = tourney.schedule()
    games = []
    for game, char in tourney.finished_games():
        partner = schedule.partner(game.number)
        pair = None if partner is None else min(game.number, partner)
        games.append(
            GameResult(
                names[game.white], names[game.black], Result.from_xboard(char), str(game.pgn_round),
                game.number, pair=pair,
            )
        )
    return games


def crosstable(tourney: Tourney) -> Crosstable:
    """The cross-table of the finished games (names as they are now).

    Up to :data:`GAME_BY_GAME` games it is built game by game, with the
    game-by-game grid; beyond, from :func:`pair_counts` and, for a match, its
    pairs as :func:`~tmanager.tourney.progress.match_state` counts them, without an
    object per game (a million of them would cost seconds and hundreds of megabytes).
    """
    from tmanager.core import crosstable as tables  # here: a worker never renders one, and saves importing it

    title = tourney.settings.name
    names = [p.name for p in tourney.participants]
    match = (names[0], names[1]) if len(names) == 2 else None  # a match's first participant is the one tested
    credited: dict[str, float] = {}
    for index in byes(tourney):
        credited[names[index]] = credited.get(names[index], 0.0) + bye_points(tourney)
    if tourney.finished_count <= GAME_BY_GAME:
        return tables.build(game_results(tourney), title=title, match=match, sprt=tourney.sprt, byes=credited)
    counted = Tally()
    for name, won in credited.items():
        counted.add_bye(name, won)
    for (white, black), counts in sorted(pair_counts(tourney).items()):
        counted.count(names[white], names[black], counts)
    state = match_state(tourney)
    pairs = None
    if state is not None and state.penta is not None:
        pairs = PairCounts(names[0], state.penta, unpaired=state.games - 2 * state.pairs)
    return tables.summarize(counted, title=title, match=match, pairs=pairs, sprt=tourney.sprt)
