"""The live directory: games in progress as workers publish them, one JSON file per game.

A view for `status`, the web dashboard and the Dask coordinator: written without
fsync, rebuilt by the next move, removed when the game is recorded or given back.
It never decides anything: the tourney file and its journal do.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tmanager.errors import ConfigError
from tmanager.files import read_bytes
from tmanager.tourney.jsonvalues import finite, table, text, whole
from tmanager.tourney.variants import check_variant

if TYPE_CHECKING:
    import asyncio

    import chess

    from tmanager.core.schedule import ScheduledGame
    from tmanager.tourney.model import Tourney
    from tmanager.tourney.play import GameSpec


#: The most bytes of a live file read: a game's moves in UCI (a game of 10,000 plies is 50 kB).
LIVE_LIMIT = 1 << 20


class PositionView:
    """One game's position as plain data, for :class:`LiveGame` (a Dask task sends it to its coordinator).

    A game's board only moves forward, so the start position's FEN is read once and the
    list of moves grows by the moves since the last view: rebuilt whole at every write,
    they cost as much as everything else the manager does for a move (a FEN is 64
    squares read one by one, and the moves of a long game are hundreds).
    """

    def __init__(self) -> None:
        self._start_fen = ""
        self._moves: list[str] = []

    def __call__(self, board: chess.Board, white_clock: float, black_clock: float) -> dict[str, Any]:
        stack = board.move_stack
        if not self._start_fen or len(stack) < len(self._moves):  # another game's board: start afresh
            self._start_fen = board.root().fen()
            self._moves = []
        self._moves.extend(move.uci() for move in stack[len(self._moves):])
        return {
            "start_fen": self._start_fen,
            "moves": list(self._moves),  # a copy: a report may be sent after the next move
            "fen": board.fen(),
            "white_clock": round(white_clock, 3),
            "black_clock": round(black_clock, 3),
        }


#: Live files written a second at most, about, for all the games in progress of a tourney: with hundreds of
#: games at once, each game's file is written every few seconds (a view; each write costs the event loop a
#: FEN and three system calls, about 0.4 ms on ext4).
WRITES_PER_SECOND = 32.0


class LivePace:
    """How often each game in progress writes its live file: a budget of writes a second shared by all
    the games of a tourney, every worker's, so that a view of hundreds of games costs what a few cost.

    A worker tells it its lanes and, at each transaction, the tourney's claims (every worker's games in
    progress); the games read :attr:`interval` at each move. At the start of a big run, the first claims
    see few others: the interval then grows within a second, and every game's first write with it.
    """

    def __init__(self, *, writes_per_second: float = WRITES_PER_SECOND, lanes: int = 1, claims: int = 0) -> None:
        self.writes_per_second = writes_per_second
        self.lanes = lanes
        self.claims = claims

    @property
    def games(self) -> int:
        """The games in progress as last seen, or the worker's lanes if more."""
        return max(self.lanes, self.claims)

    @property
    def interval(self) -> float:
        """Seconds between two writes of one game's file."""
        return max(LiveGame.INTERVAL, self.games / self.writes_per_second)


class HeldBack:
    """The last of the moves of a game that came too soon to be reported, reported when its time comes.

    A paced view that only dropped what came too soon would show the position
    before an instant reply for the whole of the next think, with the wrong
    clock running (a move played at once after a long think was never shown
    until the move after it). The clock of the side to move is reported as it
    stands when the report is made, run down since the move, since a view
    counts it down from the report's time. Needs the running event loop of
    the game; without one (a view driven by hand) what comes too soon is dropped.
    """

    def __init__(self) -> None:
        self._timer: asyncio.TimerHandle | None = None
        self._move: tuple[chess.Board, float, float, float] | None = None
        self._report: Callable[[chess.Board, float, float], None] | None = None

    def hold(self, delay: float, report: Callable[[chess.Board, float, float], None],
             board: chess.Board, white_clock: float, black_clock: float) -> None:
        """Report the move (as :data:`~tmanager.tourney.play.MoveObserver` has it) in ``delay`` seconds,
        unless a later one or :meth:`cancel` comes first."""
        self._move, self._report = (board, white_clock, black_clock, time.monotonic()), report
        if self._timer is None:
            import asyncio  # here: the readers of live files (status, the dashboard) never run an event loop

            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._timer = loop.call_later(delay, self._fire)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._move = self._report = None

    def _fire(self) -> None:
        move, report = self._move, self._report
        self._timer = self._move = self._report = None
        if move is None or report is None:
            return
        board, white_clock, black_clock, moved = move
        spent = time.monotonic() - moved
        # The side to move's clock has run since the move, down to 0 at most: a game without a clock reports 0.
        if board.turn:
            report(board, max(0.0, white_clock - spent), black_clock)
        else:
            report(board, white_clock, max(0.0, black_clock - spent))


class LiveGame:
    """Publishes a game in progress as ``live_dir/N.json`` for status pages and dashboards.

    Written at most every :attr:`INTERVAL` seconds (or its ``pace``'s interval; a move that came sooner is
    written when the interval is over, see :class:`HeldBack`), atomically (rename) but
    without fsync: it is a view, rebuilt by the next move, and removed when the
    game is recorded or given back. Each game writes at a phase of its own, drawn at
    random: the games of a worker mostly start together, and written together, their
    files would stop the worker's event loop for all of them at once (a write creates and
    renames a file: about 0.4 ms on ext4, so 32 games together cost every game's next move 13 ms).
    """

    INTERVAL = 0.25

    def __init__(self, tourney: Tourney, game: ScheduledGame, spec: GameSpec, *, pace: LivePace | None = None) -> None:
        self.path = tourney.live_dir / f"{game.number}.json"
        self.header = {
            "game": game.number,
            "round": game.pgn_round,
            "white": spec.white.name,
            "black": spec.black.name,
            "variant": spec.variant,
        }
        self.pace = pace or LivePace()
        # The next write is due `share` of an interval after `since`: the first within one interval, at the
        # game's own phase (of the interval as it is then, should it grow meanwhile), then every interval.
        self.since = time.monotonic()
        self.share = random.random()
        self.position = PositionView()
        self.held = HeldBack()

    def __call__(self, board: chess.Board, white_clock: float, black_clock: float) -> None:
        wait = self.since + self.share * self.pace.interval - time.monotonic()
        if wait > 0:
            self.held.hold(wait, self._publish, board, white_clock, black_clock)
            return
        self._publish(board, white_clock, black_clock)

    def _publish(self, board: chess.Board, white_clock: float, black_clock: float) -> None:
        self.held.cancel()
        self.since, self.share = time.monotonic(), 1.0
        self.write(self.position(board, white_clock, black_clock))

    def close(self) -> None:
        """The game is over: nothing held back is written after it (its file is about to go)."""
        self.held.cancel()

    def write(self, position: dict[str, Any]) -> None:
        """Write the file now: the game's header and ``position`` (see :class:`PositionView`).

        A view only: when it cannot be written (a full disk), it is skipped and the game goes on.
        """
        state = {**self.header, **position, "updated": time.time()}
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(exist_ok=True)
            tmp.write_text(json.dumps(state))
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)

    @staticmethod
    def remove(tourney: Tourney, number: int) -> None:
        # A view, as for a write that fails: what cannot be removed (a directory made there by hand) is left, and
        # the game's record, whose transaction this runs in, goes on (it ended the worker in a traceback).
        with contextlib.suppress(OSError):
            (tourney.live_dir / f"{number}.json").unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class GameInProgress:
    """One game as :class:`LiveGame` publishes it in the live directory, read back."""

    number: int
    round: int
    white: str
    black: str
    variant: str
    start_fen: str
    moves: tuple[str, ...]
    fen: str
    white_clock: float
    black_clock: float
    updated: float

    @classmethod
    def load(cls, path: Path) -> GameInProgress | None:
        """Read one live file; ``None`` if it is gone or not what a worker writes."""
        try:
            data = table(json.loads(read_bytes(path, kind="live game", create=None, limit=LIVE_LIMIT)))
            check_variant(variant := text(data["variant"]))  # the board its moves are shown on
            moves = data["moves"]
            if not isinstance(moves, list):
                raise ValueError(f"not a list of moves: {moves!r}"[:200])
            return cls(
                number=whole(data["game"]),
                round=whole(data["round"]),
                white=text(data["white"]),
                black=text(data["black"]),
                variant=variant,
                start_fen=text(data["start_fen"]),
                moves=tuple(text(m) for m in moves),
                fen=text(data["fen"]),
                white_clock=finite(data["white_clock"]),
                black_clock=finite(data["black_clock"]),
                updated=finite(data["updated"]),
            )
        # Gone, or not what a worker writes (damaged, or written by hand): a view, never a reason to stop.
        except (ConfigError, ValueError, KeyError, TypeError):
            return None

    def last_moves(self, count: int) -> str:
        """The last ``count`` moves in SAN with their numbers (``… 12. Nf3 Nc6``); UCI if they do not replay."""
        import chess  # here: `status` of a tourney with nothing in progress never needs python-chess's board

        from tmanager.tourney.variants import variant_board

        board_class, chess960 = variant_board(self.variant)
        try:
            board = board_class(self.start_fen, chess960=chess960)
            shown = max(0, len(self.moves) - count)
            for uci in self.moves[:shown]:
                board.push_uci(uci)
            moves = board.variation_san([chess.Move.from_uci(m) for m in self.moves[shown:]])
        except ValueError:
            return " ".join(self.moves[-count:])
        return ("… " if shown else "") + moves
