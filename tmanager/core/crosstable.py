"""Cross-tables: standings, ratings, head-to-head, match statistics and tie-breaks.

:func:`build` turns game results into a :class:`Crosstable`;
:func:`tmanager.core.crosstableformats.render` writes it out. Nothing here
reads files: the games come from :mod:`tmanager.formats.pgnscan`, a tourney's results
string or a human event.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tmanager.core import ratings, stats, tiebreaks
from tmanager.core.ratingmodel import RatingList
from tmanager.core.results import Colour, Result
from tmanager.core.standings import (
    STANDARD_POINTS,
    GamePairs,
    GameResult,
    HeadToHead,
    PairCounts,
    Points,
    Standing,
    Tally,
    head_to_head,
    match_order,
    round_key,
    standings,
)
from tmanager.core.stats import SprtSettings


class Format(enum.StrEnum):
    """How a cross-table is written (``crosstable --format``, ``status --format``)."""

    TEXT = "text"
    HTML = "html"
    MARKDOWN = "markdown"
    CSV = "csv"
    JSON = "json"


#: Fields up to this size get the full opponent-by-opponent table.
MAX_TABLE_PLAYERS = 24
#: Cells show each game ("1=0") when no pair played more games than this, else "1.5/2".
MAX_GRID_GAMES = 4


@dataclass(frozen=True, slots=True)
class Match:
    """The two-player statistics, from ``first``'s side; ``chosen_by`` says why ``first`` is first when no
    pair was asked for ("White in the file's first game"), and is empty when one was."""

    first: str
    second: str
    stats: stats.MatchStats
    unpaired: int
    sprt: SprtSettings | None = None
    chosen_by: str = ""


@dataclass(frozen=True, slots=True)
class Line:
    """One standings line with everything printed about the player."""

    rank: int
    standing: Standing
    elo: float
    elo_error: float
    tiebreaks: tuple[float | None, ...] = ()


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Everything a rendering needs."""

    title: str
    lines: tuple[Line, ...]
    head_to_head: tuple[HeadToHead, ...]
    tally: Tally
    ratings: RatingList
    match: Match | None = None
    tiebreak_names: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


def build(
    games: Iterable[GameResult],
    *,
    title: str = "Cross-table",
    points: Points = STANDARD_POINTS,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    white_advantage: bool = False,
    match: tuple[str, str] | None = None,
    sprt: SprtSettings | None = None,
    tiebreak_names: Sequence[str] = (),
    byes: Mapping[str, float] | None = None,
) -> Crosstable:
    """Aggregate ``games`` (streamed once) and compute standings, ratings and statistics; ``byes`` are points
    won without a game (a Swiss tourney's byes), by player.

    The two-player match statistics are computed for ``match``, from its
    first player's side, or for the only two players when there are exactly
    two. Then the first is, in this order: the player with white in the game
    with the lowest GameNumber (in tmanager's own PGN, the tourney's first
    participant, the one its SPRT tests: the order in which parallel workers
    appended the games plays no part); without GameNumber tags, the player with
    white in the first game read (fastchess's first engine, the one under test,
    has white in its game 1); and :attr:`Match.chosen_by` says which.
    """
    tally = Tally()
    kept: list[GameResult] | None = [] if tiebreak_names else None
    # Game pairs are matched while streaming: for the requested match, or while only two players appeared.
    pairing = GamePairs(*match) if match is not None else None
    automatic = match is None
    for game in games:
        tally.add(game)
        if kept is not None:
            kept.append(game)
        if automatic:
            if len(tally.players) > 2:
                automatic, pairing = False, None  # a third player: no two-player match statistics
            elif pairing is None:
                pairing = GamePairs(game.white, game.black)
        if pairing is not None:
            pairing.add(game)
    for name, won in (byes or {}).items():
        tally.add_bye(name, won)
    return summarize(
        tally, title=title, points=points, anchor=anchor, anchor_elo=anchor_elo, white_advantage=white_advantage,
        match=match, pairs=pairing.finish() if pairing is not None else None, sprt=sprt,
        tiebreak_names=tiebreak_names, games=kept,
    )


def summarize(
    tally: Tally,
    *,
    title: str = "Cross-table",
    points: Points = STANDARD_POINTS,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    white_advantage: bool = False,
    match: tuple[str, str] | None = None,
    pairs: PairCounts | None = None,
    sprt: SprtSettings | None = None,
    tiebreak_names: Sequence[str] = (),
    games: Sequence[GameResult] | None = None,
) -> Crosstable:
    """The cross-table of games already counted: :func:`build` without the games, for a caller that
    counted them another way (a tourney of a million games, straight from its results string).

    ``pairs`` holds the match's game pairs, ``games`` every game in order where
    tie-breaks are wanted.
    """
    fitted = ratings.fit(tally, anchor=anchor, anchor_elo=anchor_elo, white_advantage=white_advantage)
    elos = fitted.elo()
    table = standings(tally, points=points, ratings=elos)
    notes = []
    if tally.byes:
        credited = ", ".join(f"{name} {won:g}" for name, won in tally.byes.items())
        notes.append(f"points include those of byes: {credited}")
    if fitted.groups > 1:
        notes.append(
            f"the players form {fitted.groups} groups that never met each other: "
            "ratings are comparable only within a group"
        )
    if not fitted.exact_errors:
        from tmanager.core import jointfit  # loaded by the fit already

        notes.append(
            f"more than {jointfit.DENSE_LIMIT} players: each Elo margin counts only the player's own games, "
            "so it is smaller than the exact one where the opponents' ratings are uncertain"
        )
    tb_values: dict[str, tuple[float | None, ...]] = {}
    if tiebreak_names and games is not None:
        ranked = tiebreaks.rank(
            _rounds(games, points),
            tiebreak_names,
            ratings=elos,
            round_robin=_is_round_robin(tally),
            win=points.win,
            draw=points.draw,
        )
        position = {r.name: i for i, r in enumerate(ranked)}
        tb_values = {r.name: r.values for r in ranked}
        table.sort(key=lambda s: position[s.name])
    lines: list[Line] = []
    previous: tuple[float | None, ...] | None = None
    for i, s in enumerate(table, 1):
        key = (s.points, *tb_values.get(s.name, ()))
        rank = lines[-1].rank if previous == key and lines else i
        previous = key
        r = fitted.ratings[s.name]
        lines.append(Line(rank, s, r.elo, r.error, tb_values.get(s.name, ())))
    return Crosstable(
        title=title,
        lines=tuple(lines),
        head_to_head=tuple(head_to_head(tally, points=points)),
        tally=tally,
        ratings=fitted,
        match=_match(tally, pairs, match, sprt),
        tiebreak_names=tuple(tiebreak_names),
        notes=tuple(notes),
    )


def _match(
    tally: Tally, pairs: PairCounts | None, match: tuple[str, str] | None, sprt: SprtSettings | None
) -> Match | None:
    chosen_by = ""
    if match is None:
        if len(tally.players) != 2:
            return None
        first, second, chosen_by = match_order(tally.players, pairs)
    else:
        first, second = match
    record = tally.record(first, second)
    if record.games == 0:
        return None
    penta: tuple[int, int, int, int, int] | None = None
    unpaired = record.games
    if pairs is not None:
        penta, unpaired = pairs.penta, pairs.unpaired
        if pairs.first != first:  # seen from the other side: reverse the pentanomial
            penta = (penta[4], penta[3], penta[2], penta[1], penta[0])
    result = stats.match_stats(
        record.wins, record.losses, record.draws, penta=penta, sprt_settings=sprt,
        double_draws=pairs.double_draws if pairs is not None else 0,
    )
    return Match(first, second, result, unpaired, sprt, chosen_by)


def _rounds(games: Sequence[GameResult], points: Points) -> dict[str, list[tiebreaks.RoundResult]]:
    """Each player's games in round order, as tie-break rounds."""
    ordered = sorted(
        enumerate(games),
        key=lambda item: (round_key(item[1].round), item[1].game_number or 0, item[0]),
    )
    event: dict[str, list[tiebreaks.RoundResult]] = {}
    for _, g in ordered:
        white_points = {Result.WHITE_WINS: points.win, Result.DRAW: points.draw}.get(g.result, points.loss)
        black_points = {Result.WHITE_WINS: points.loss, Result.DRAW: points.draw}.get(g.result, points.win)
        event.setdefault(g.white, []).append(tiebreaks.RoundResult(white_points, g.black, Colour.WHITE))
        event.setdefault(g.black, []).append(tiebreaks.RoundResult(black_points, g.white, Colour.BLACK))
    return event


def _is_round_robin(tally: Tally) -> bool:
    players = list(tally.players)
    return all(tally.record(a, b).games for i, a in enumerate(players) for b in players[i + 1 :])
