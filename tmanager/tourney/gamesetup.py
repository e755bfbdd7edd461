"""What a game of the tourney is played with: its :class:`~tmanager.tourney.play.GameSpec`, and its opening.

:func:`game_spec` assembles, from the tourney and a scheduled game, everything the
game runner needs (the engines resolved, their limits, the opening, the PGN's
tags and settings). The opening book is loaded once and checked against the
settings before the first game (:func:`preflight`, :func:`load_book`); a large
book's openings are read as their games come (:class:`OpeningBook`), and `run`
reads the first waves' ahead before it forks its workers (:func:`read_ahead`).
"""

from __future__ import annotations

import time
from pathlib import Path

from tmanager.core.schedule import ScheduledGame
from tmanager.errors import ConfigError
from tmanager.files import Stamp, stamp
from tmanager.tourney import tuning
from tmanager.tourney.model import UNPLAYED, Tourney
from tmanager.tourney.openings import Opening, OpeningBook
from tmanager.tourney.play import GameSpec
from tmanager.tourney.resolution import resolve_all, time_margin
from tmanager.tourney.settings import GameOrder
from tmanager.tourney.validation import check_limits, check_outputs, check_pgn


def game_spec(
    tourney: Tourney, game: ScheduledGame, book: OpeningBook | None, *, log_engines: bool = False
) -> GameSpec:
    """Everything the game runner needs to play scheduled ``game`` of ``tourney``; with ``log_engines``
    (or the tourney's setting) the engines' lines go to the game's file in ``engine_logs_dir``."""
    s, a = tourney.settings, tourney.adjudication
    start_fen: str | None = None
    moves: tuple[str, ...] = ()
    tags = {
        "Event": s.event or s.name,
        "Round": str(game.pgn_round),
        "GameNumber": str(game.number),
    }
    schedule = tourney.schedule()
    partner = schedule.partner(game.number)
    if partner is not None:  # so that a reader finds the pairs without knowing the schedule
        tags["Pair"] = str(min(game.number, partner))
    if s.site:
        tags["Site"] = s.site
    if book is not None:
        opening = opening_of(tourney, game.number, book)
        start_fen, moves = opening.fen, opening.moves
    return GameSpec(
        white=tuning.nudged(tourney, game.number, game.white, tourney.engine_spec(game.white)),
        black=tuning.nudged(tourney, game.number, game.black, tourney.engine_spec(game.black)),
        white_limits=tourney.time_control(game.white),
        black_limits=tourney.time_control(game.black),
        start_fen=start_fen,
        opening_moves=moves,
        variant=s.variant,
        adjudication=a.resolved(tourney.directory),
        white_time_margin=time_margin(tourney, game.white),
        black_time_margin=time_margin(tourney, game.black),
        move_timeout=s.move_timeout,
        comments=s.pgn_comments,
        comment_fields=s.pgn_comment_fields,
        notation=s.pgn_notation,
        minimal=s.pgn_minimal,
        illegal_move_termination=s.pgn_illegal_move_termination,
        engine_log=str(tourney.engine_logs_dir / f"game-{game.number}.log") if s.log_engines or log_engines else "",
        tags=tags,
        pv_checks=s.pv_checks,
        match_lines=s.pgn_match_lines,
        log_latency=s.log_latency,
        stop_on_start_failure=s.stop_on_start_failure,
        increment_at_start=s.increment_at_start,
        late_move_wait=s.late_move_wait,
    )


def opening_of(tourney: Tourney, number: int, book: OpeningBook) -> Opening:
    """The opening game ``number`` of ``tourney`` plays from ``book``, the tourney's book."""
    schedule = tourney.schedule()
    settings = tourney.openings
    assert settings is not None, "a tourney without [openings] has no book"
    key = schedule.opening_key(number) if tourney.spsa is None else tuning.opening_key(tourney.spsa, number)
    # fastchess's order is fastchess's book too: cut to as many openings as rounds (cycles), taken in turn.
    fastchess = tourney.settings.order is GameOrder.FASTCHESS and tourney.spsa is None
    cut = tourney.settings.cycles if fastchess else None
    return book.opening_for(key, order=settings.order, seed=settings.seed, start=settings.start, cut=cut)


#: The longest `run` reads openings before its workers start (see :func:`read_ahead`).
READ_AHEAD_SECONDS = 2.0


def read_ahead(tourney: Tourney, *, games: int, seconds: float = READ_AHEAD_SECONDS) -> int:
    """Read the openings of the next ``games`` games to be claimed (the lowest-numbered unplayed ones)
    for at most ``seconds``, and no more than the book keeps; returns how many games' openings were read.

    A large book's openings are read as their games come (see :class:`OpeningBook`). `run` reads
    ahead the openings of its first two waves of games before it forks its workers, which inherit
    them: those games start together, hundreds at once on a big machine, first when the engines are
    ready and again when the first ones end, and a long opening takes milliseconds to read.
    """
    book = load_book(tourney)
    if book is None:
        return 0
    deadline = time.monotonic() + seconds
    total = tourney.schedule().total_games
    results = tourney.results  # shorter than the schedule when its last games are unplayed
    number = -1
    read = 0
    while read < min(games, book.KEPT) and time.monotonic() < deadline:
        found = results.find(UNPLAYED, number + 1)
        number = found if found >= 0 else max(number + 1, len(results))
        if number >= total:
            break
        opening_of(tourney, number, book)
        read += 1
    return read


def preflight(tourney: Tourney) -> None:
    """Check what can fail before any game is claimed: every engine resolves and can be
    started, and the opening book loads and fits the settings (a large book: its first opening;
    the others are read as their games come), and the outputs can be written. Each engine is resolved once,
    for both checks."""
    check_outputs(tourney)
    resolved = resolve_all(tourney)
    for index, (spec, _) in enumerate(resolved):
        spec.check_runnable(file=tourney.path, where=f"participants[{index}]")
    check_limits(tourney, resolved)  # a file edited by hand, or written by an older tmanager
    load_book(tourney)
    check_pgn(tourney)


#: The book last read from each file, with the file's stamp and the settings it was read with:
#: :func:`preflight` and the games of a worker (or coordinator) read a book once, not twice.
_books: dict[Path, tuple[tuple[Stamp, str, int, str], OpeningBook]] = {}


def load_book(tourney: Tourney) -> OpeningBook | None:
    """The tourney's opening book, checked against its settings (a large one: its ``start`` and
    first opening, see :class:`OpeningBook`); ``None`` without ``[openings]``.

    Loaded again only when the book file or the settings it is read with change.
    """
    o = tourney.openings
    if o is None:
        return None
    path = tourney.directory / o.file
    key = (stamp(path), o.format, o.plies, tourney.settings.variant)
    try:
        cached = _books.get(path)
        if cached is None or cached[0] != key or key[0] is None:
            cached = (key, OpeningBook.load(path, format=o.format, plies=o.plies, variant=tourney.settings.variant))
            _books[path] = cached
        book = cached[1]
        book.opening_for(0, order=o.order, seed=o.seed, start=o.start)
    except ConfigError as exc:
        raise exc.located(file=tourney.path) from None
    return book


class Books:
    """The opening books of one worker's games, loaded again only when the tourney's settings change
    (:func:`load_book` would look at the book file's stamp at every game)."""

    def __init__(self) -> None:
        self._books: dict[tuple[Path, str, int, str], OpeningBook | None] = {}

    def book(self, tourney: Tourney) -> OpeningBook | None:
        """The tourney's opening book (``None`` without ``[openings]``)."""
        o = tourney.openings
        if o is None:
            return None
        key = (tourney.directory / o.file, o.format, o.plies, tourney.settings.variant)
        if key not in self._books:
            self._books[key] = load_book(tourney)
        return self._books[key]
