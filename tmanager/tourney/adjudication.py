"""When the runner ends a game itself: resignation, draw and move-count rules, tablebases.

:class:`Adjudication` holds the settings (the tourney file's ``[adjudication]``),
and beside them each rule is a small class that follows the engines' scores move
by move and says when it ends the game: :class:`TablebaseRule`,
:class:`ResignRule`, :class:`DrawRule`, :class:`MoveLimitRule`. An
:class:`Adjudicator` holds the rules a game's settings turn on. They are
fastchess's (``match.hpp``: ``TbAdjudicationTracker``, ``ResignTracker``,
``DrawTracker``, ``MaxMovesTracker``), checked in its order after the rules of
chess. Opening moves are not engine moves: they count for no rule, but the move
number of the draw rule is the board's, which goes on from the opening's FEN.

Reading a tourney file imports this module, and no python-chess: the rules take
the board as it is given, and the tablebase rule loads python-chess's Syzygy
prober only when a game has tables to probe.
"""

from __future__ import annotations

import abc
import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tmanager.tomlmap import Choice
from tmanager.tourney.outcome import Ending, GameOver, draw, side, win

if TYPE_CHECKING:
    import chess
    import chess.syzygy


class TablebaseResults(Choice):
    """``syzygy_adjudicate``: which tablebase results end a game (fastchess's ``-tbadjudicate``, which spells
    them as the members' names)."""

    BOTH = "both"
    WIN_LOSS = "win_loss"
    DRAW = "draw"


#: What a mate counts as in centipawns (less the moves to it), as fastchess counts it.
MATE_SCORE = 100_000


@dataclass(frozen=True, slots=True)
class Adjudication:
    """When the runner ends a game itself (the tourney file's ``[adjudication]``), as fastchess does.

    Scores are centipawns from the mover's point of view, counts are moves;
    ``None`` turns a rule off. ``syzygy`` holds the tablebase directories, separated by
    ``os.pathsep`` (``:``) as fastchess's ``-tb PATHS``. Each field mirrors a fastchess option
    (README, "From fastchess").
    """

    resign_score: int | None = None  # -resign score=
    resign_moves: int = 3  # -resign movecount=
    resign_twosided: bool = False  # -resign twosided=
    draw_from_move: int = 40  # -draw movenumber=
    draw_score: int | None = None  # -draw score=
    draw_moves: int = 8  # -draw movecount=
    max_moves: int | None = None  # -maxmoves
    syzygy: str = ""  # -tb
    syzygy_pieces: int = 7  # -tbpieces
    syzygy_ignore50: bool = False  # -tbignore50
    syzygy_adjudicate: TablebaseResults = TablebaseResults.BOTH  # -tbadjudicate

    @property
    def syzygy_paths(self) -> tuple[str, ...]:
        """The tablebase directories, as written (empty entries of the list left out)."""
        return tuple(path for path in self.syzygy.split(os.pathsep) if path)

    @property
    def needs_scores(self) -> bool:
        """Whether a rule reads the engines' scores (the resign and draw rules)."""
        return self.resign_score is not None or self.draw_score is not None

    def resolved(self, base: Path) -> Adjudication:
        """These rules with the tablebase directories made absolute from ``base`` (the tourney's directory)."""
        return dataclasses.replace(self, syzygy=os.pathsep.join(str(base / path) for path in self.syzygy_paths))


class Rule(abc.ABC):
    """One adjudication rule: told of every engine move, asked after it whether the game is over."""

    def count(self, board: chess.Board, mover: chess.Color, score: int | None) -> None:  # noqa: B027 - most count
        """Count ``mover``'s move, just pushed on ``board``, that it scored ``score`` (centipawns from its own
        point of view, a mate as :data:`MATE_SCORE` less the moves to it; ``None`` when the engine gave none)."""

    @abc.abstractmethod
    def verdict(self, board: chess.Board) -> GameOver | None:
        """The end of the game in ``board`` by this rule (the engine that moved last is the opponent of
        ``board.turn``), or ``None``."""

    def close(self) -> None:  # noqa: B027 - only the tablebases hold anything
        """Let go of what the rule holds open."""


class TablebaseRule(Rule):
    """``-tb``: a position in the tablebases, with at most ``syzygy_pieces`` pieces, ends the game with its value.

    Probed only right after a capture or pawn move (or in a start position with the counter at 0), like
    fastchess: a WDL probe does not know how far the fifty-move counter has run.
    """

    def __init__(self, settings: Adjudication) -> None:
        import chess.syzygy  # here: only a game with tables loads the prober (see the module docstring)

        self.settings = settings
        first, *more = settings.syzygy_paths
        self.tables: chess.syzygy.Tablebase = chess.syzygy.open_tablebase(first)
        for directory in more:
            self.tables.add_directory(directory)

    def verdict(self, board: chess.Board) -> GameOver | None:
        settings = self.settings
        if board.halfmove_clock != 0 or board.castling_rights or board.occupied.bit_count() > settings.syzygy_pieces:
            return None
        try:
            wdl = self.tables.probe_wdl(board)
        except KeyError:  # no table for it (python-chess's MissingTableError is one)
            return None
        if abs(wdl) == 1 and not settings.syzygy_ignore50:
            wdl = 0  # a cursed win or blessed loss is a draw under the fifty-move rule
        if wdl == 0:
            return None if settings.syzygy_adjudicate is TablebaseResults.WIN_LOSS else draw(
                Ending.TABLEBASE_DRAW, "Draw by tablebase adjudication"
            )
        if settings.syzygy_adjudicate is TablebaseResults.DRAW:
            return None
        winner = board.turn if wdl > 0 else not board.turn
        return win(winner, Ending.TABLEBASE_WIN, f"{side(winner)} wins by tablebase adjudication")

    def close(self) -> None:
        self.tables.close()


class ResignRule(Rule):
    """``-resign``: a side loses once its engine scored it at or below ``-resign_score`` for ``resign_moves``
    of its moves in a row, and, when the rule is two-sided, the other engine scored it at or above
    ``+resign_score`` for as many of its own."""

    def __init__(self, score: int, moves: int, *, twosided: bool) -> None:
        self.score, self.moves, self.twosided = score, moves, twosided
        # Own moves in a row that each side scored losing, and winning.
        self.losing = {True: 0, False: 0}
        self.winning = {True: 0, False: 0}

    def count(self, board: chess.Board, mover: chess.Color, score: int | None) -> None:
        lost = score is not None and score <= -self.score
        won = score is not None and score >= self.score
        self.losing[mover] = self.losing[mover] + 1 if lost else 0
        self.winning[mover] = self.winning[mover] + 1 if won else 0

    def verdict(self, board: chess.Board) -> GameOver | None:
        loser = not board.turn
        if self.losing[loser] < self.moves or (self.twosided and self.winning[not loser] < self.moves):
            return None
        judges = "both engines scored it" if self.twosided else "its engine scored it"
        return win(
            not loser, Ending.RESIGN_ADJUDICATION,
            f"{side(loser)} resigns: {judges} at or below -{self.score} cp for {self.moves} moves",
        )


class DrawRule(Rule):
    """``-draw``: a draw once both engines scored within ``±draw_score`` for ``draw_moves`` moves each in a
    row, counted afresh from each capture or pawn move, from move ``draw_from_move`` on."""

    def __init__(self, score: int, moves: int, *, from_move: int) -> None:
        self.score, self.moves, self.from_move = score, moves, from_move
        self.quiet = 0  # plies in a row scored within the margin

    def count(self, board: chess.Board, mover: chess.Color, score: int | None) -> None:
        if board.halfmove_clock == 0:
            self.quiet = 0
        self.quiet = self.quiet + 1 if score is not None and abs(score) <= self.score else 0

    def verdict(self, board: chess.Board) -> GameOver | None:
        if self.quiet < 2 * self.moves or board.fullmove_number - 1 < self.from_move:
            return None
        return draw(
            Ending.DRAW_ADJUDICATION,
            f"Draw by adjudication: both engines scored within {self.score} cp for {self.moves} moves",
        )


class MoveLimitRule(Rule):
    """``-maxmoves``: a draw once the engines have played ``max_moves`` moves each (opening moves aside)."""

    def __init__(self, moves: int) -> None:
        self.moves = moves
        self.plies = 0

    def count(self, board: chess.Board, mover: chess.Color, score: int | None) -> None:
        self.plies += 1

    def verdict(self, board: chess.Board) -> GameOver | None:
        if self.plies < 2 * self.moves:
            return None
        return draw(Ending.MOVE_LIMIT, f"Draw by adjudication: {self.moves} moves reached")


class Adjudicator:
    """The rules ``settings`` turn on, in fastchess's order: tablebase, resign, draw, move limit."""

    def __init__(self, settings: Adjudication) -> None:
        rules: list[Rule] = []
        if settings.syzygy_paths:
            rules.append(TablebaseRule(settings))
        if settings.resign_score is not None:
            rules.append(ResignRule(settings.resign_score, settings.resign_moves, twosided=settings.resign_twosided))
        if settings.draw_score is not None:
            rules.append(DrawRule(settings.draw_score, settings.draw_moves, from_move=settings.draw_from_move))
        if settings.max_moves is not None:
            rules.append(MoveLimitRule(settings.max_moves))
        self.rules = tuple(rules)

    def count(self, board: chess.Board, mover: chess.Color, score: int | None) -> None:
        """Count ``mover``'s move, just pushed on ``board`` (see :meth:`Rule.count`)."""
        for rule in self.rules:
            rule.count(board, mover, score)

    def verdict(self, board: chess.Board) -> GameOver | None:
        """The first rule that ends the game in ``board``, or ``None``."""
        for rule in self.rules:
            over = rule.verdict(board)
            if over is not None:
                return over
        return None

    def close(self) -> None:
        for rule in self.rules:
            rule.close()
