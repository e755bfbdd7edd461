"""Opening books: the ``[openings]`` section's EPD or PGN file, and which opening each game gets.

A book is a list of :class:`Opening` s. An EPD line gives a start position; a
PGN game gives its start position (``FEN``/``SetUp`` tags, else the variant's
usual one) and its mainline moves, cut to ``plies`` half-moves (0 keeps them
all). Both games of a colour-reversed pair play the same opening: they share
an *opening key* (:meth:`~tmanager.core.schedule.Schedule.opening_key`), and :meth:`OpeningBook.opening_for`
maps keys to openings, in book order or in a seeded random order. The choice
depends on nothing but the key and the settings, so any worker in any process
picks the same opening for the same game.
"""

from __future__ import annotations

import functools
import io
import random
import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import chess
import chess.pgn

from tmanager.errors import ConfigError
from tmanager.files import read_text
from tmanager.tourney.settings import BookFormat, BookOrder
from tmanager.tourney.variants import STANDARD, variant_board, variant_name

_NON_BLANK = re.compile(r"\S")
#: The start of an EPD line: not blank, not a comment.
_EPD_LINE = re.compile(r"^[^\S\n]*[^\s#;]", re.MULTILINE)



@dataclass(frozen=True, slots=True)
class Opening:
    """A start position and the moves to play from it before the engines take over.

    ``fen`` is the start position (X-FEN castling rights in Chess960), ``moves``
    are UCI moves in the notation of ``chess960``, ``variant`` is python-chess's
    UCI variant name and ``name`` the EPD ``id`` or PGN ``Opening`` tag, if any.
    """

    fen: str
    moves: tuple[str, ...] = ()
    variant: str = STANDARD
    chess960: bool = False
    name: str = ""

    def board(self) -> chess.Board:
        """The position the engines start from, with the opening moves on its move stack.

        ``board.root()`` is the start position, so ``chess.pgn.Game.from_board``
        records it with ``FEN``/``SetUp`` (and ``Variant``) tags followed by the moves.
        """
        cls = chess.variant.find_variant(self.variant)
        board = cls(self.fen, chess960=self.chess960)
        for move in self.moves:
            board.push_uci(move)
        return board


class OpeningBook(Sequence[Opening]):
    """The openings of one book file, in file order.

    python-chess reads about 300 KB of book a second. A book of up to
    :data:`READ_WHOLE` bytes is read, and every opening checked, when it is
    loaded. A larger one is only indexed, as cutechess indexes its books: a PGN
    book of 34,000 games (the size of fishtest's ``8moves_v3.pgn``) loads in 0.2 s
    instead of 20 s, and an EPD book of millions of lines is not turned into
    millions of objects. Each of its openings is read and checked when first
    asked for, and a bad one raises :class:`ConfigError` with the book's file and
    line then. The latest openings read are kept, for the other game of each pair.
    """

    #: The largest book, in bytes, read whole when it is loaded (under a second of reading).
    READ_WHOLE = 256 << 10
    #: Openings of a larger book kept once read.
    KEPT = 4096

    def __init__(self, size: int, read: Callable[[int], Opening], path: Path) -> None:
        """A book of ``size`` openings, ``read(i)`` reading the i-th (from 0)."""
        if not size:
            raise ConfigError("the opening book holds no openings", file=path, hint="add EPD lines or PGN games")
        self.path = path
        self._size = size
        self._opening_at = functools.lru_cache(maxsize=self.KEPT)(read)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Opening: ...

    @overload
    def __getitem__(self, index: slice) -> list[Opening]: ...

    def __getitem__(self, index: int | slice) -> Opening | list[Opening]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        return self._opening_at(range(self._size)[index])

    @classmethod
    def load(
        cls, path: str | Path, *, format: BookFormat = BookFormat.AUTO, plies: int = 0, variant: str = STANDARD
    ) -> OpeningBook:
        """Read an EPD or PGN book, or index a large one; ``AUTO`` goes by the suffix, else by the content."""
        path = Path(path)
        try:
            text = read_text(path, kind="opening book", create=None, limit=None)  # books of millions of lines
        except ConfigError as exc:
            raise ConfigError(exc.message, file=path, hint="check openings.file") from None
        board_type, chess960 = variant_board(variant)
        if format is BookFormat.AUTO:
            format = _guess_format(path, text)
        text_book = _BookText(text, path, board_type, chess960, plies, pgn=format is BookFormat.PGN)
        if len(text) > cls.READ_WHOLE:
            return cls(len(text_book), text_book.opening, path)
        openings = tuple(map(text_book.opening, range(len(text_book))))
        return cls(len(openings), openings.__getitem__, path)

    def opening_for(
        self, key: int, *, order: BookOrder = BookOrder.SEQUENTIAL, seed: int = 0, start: int = 1,
        cut: int | None = None,
    ) -> Opening:
        """The opening of the games with opening key ``key`` (see :meth:`~tmanager.core.schedule.Schedule.opening_key`).

        Sequential: opening ``start`` (1-based) for key 0, then on through the book and
        round again. Random: the same walk through a shuffled book, reshuffled for each
        pass, so every opening is used once before any is used again. A ``start`` past the
        end of the book wraps round, as fastchess rotates its book by ``(start - 1) mod size``.
        ``cut``: fastchess's book, cut to its first ``cut`` openings from ``start`` (its rounds) once shuffled
        and rotated, which its pairings take in turn: with more than two engines, a round's pairings share them.
        """
        assert start >= 1, "openings.start is refused below 1 where the tourney file is read"
        size = len(self)
        if cut is None:
            passes, index = divmod((start - 1) % size + key, size)
        else:
            passes, index = 0, ((start - 1) % size + key % min(cut, size)) % size
        if order is BookOrder.RANDOM:
            index = _shuffled(size, seed, passes)[index]
        return self[index]


@functools.lru_cache(maxsize=4)
def _shuffled(size: int, seed: int, passes: int) -> tuple[int, ...]:
    # A string seed is hashed with SHA-512 by random.seed: stable across processes and
    # PYTHONHASHSEED, unlike hash() of a tuple.
    order = list(range(size))
    random.Random(f"tmanager-openings:{seed}:{passes}").shuffle(order)
    return tuple(order)


def _guess_format(path: Path, text: str) -> BookFormat:
    """EPD or PGN (never ``AUTO``): by the suffix, else by the first line."""
    suffix = path.suffix.lower()
    if suffix == ".pgn":
        return BookFormat.PGN
    if suffix in (".epd", ".fen"):
        return BookFormat.EPD
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return BookFormat.PGN if first.startswith("[") or first.startswith("1.") else BookFormat.EPD


#: EPD operations as python-chess reads them.
EpdOperations = dict[str, str | int | float | chess.Move | list[chess.Move] | None]


def _book_position(board_type: type[chess.Board], line: str, chess960: bool) -> tuple[chess.Board, EpdOperations]:
    """The position and operations of an EPD line, or of a FEN line with its move counters, as in
    fastchess's and cutechess's books (``… w KQkq - 0 9``), which may also be followed by operations.

    An operation starts with a letter, so two numbers where the operations begin are the counters.
    """
    size = len(board_type().fen().split())  # 6 fields, 7 in three-check
    fields = line.split(maxsplit=size)
    counters = fields[size - 2 : size]
    if len(counters) < 2 or not all(c.isdigit() for c in counters):
        return board_type.from_epd(line, chess960=chess960)
    board, ops = board_type.from_epd(" ".join([*fields[: size - 2], *fields[size:]]), chess960=chess960)
    board.halfmove_clock, board.fullmove_number = int(counters[0]), int(counters[1])
    return board, ops


class _OpeningReader(chess.pgn.BaseVisitor["_OpeningReader"]):
    """A book game as an opening: its headers, start position and main line in UCI, cut to ``plies``
    (0: all), without building its game tree, and without reading the moves after the cut or the
    variations. Parse errors are kept, not logged: the first becomes our ConfigError."""

    def __init__(self, *, plies: int, chess960: bool) -> None:
        self.plies = plies
        self.chess960 = chess960
        self.headers = chess.pgn.Headers()
        self.start: chess.Board | None = None
        self.moves: list[str] = []
        self.errors: list[Exception] = []

    def begin_headers(self) -> chess.pgn.Headers:
        return self.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def visit_board(self, board: chess.Board) -> None:
        if self.start is None:
            self.start = board.copy(stack=False)

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def begin_parse_san(self, board: chess.Board, san: str) -> chess.pgn.SkipType | None:
        return chess.pgn.SKIP if self.plies and len(self.moves) >= self.plies else None

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        # Castling is written king-takes-rook in Chess960 and e1g1 in chess: python-chess
        # converts when asked for the other notation.
        self.moves.append(board.uci(move, chess960=self.chess960))

    def handle_error(self, error: Exception) -> None:
        self.errors.append(error)

    def result(self) -> _OpeningReader:
        return self


class _BookText:
    """A book's text and where each opening begins in it; reads one opening at a time."""

    def __init__(
        self, text: str, path: Path, board_type: type[chess.Board], chess960: bool, plies: int, *, pgn: bool
    ) -> None:
        self.text = text
        self.path = path
        self.board_type = board_type
        self.chess960 = chess960
        self.plies = plies
        self.pgn = pgn
        self.starts = _game_starts(text) if pgn else array("q", (m.start() for m in _EPD_LINE.finditer(text)))
        self.starts.append(len(text))

    def __len__(self) -> int:
        return len(self.starts) - 1

    def opening(self, index: int) -> Opening:
        """The opening at ``index`` (from 0), read and checked; :class:`ConfigError` names its line."""
        begin, end = self.starts[index], self.starts[index + 1]
        return self._game(begin, end) if self.pgn else self._epd_line(begin)

    def _line(self, offset: int) -> int:
        """The line (from 1) of the text's first non-blank character from ``offset`` on."""
        found = _NON_BLANK.search(self.text, offset)
        return self.text.count("\n", 0, offset if found is None else found.start()) + 1

    def _epd_line(self, begin: int) -> Opening:
        end = self.text.find("\n", begin)
        epd = self.text[begin : None if end < 0 else end].strip()
        try:
            board, ops = _book_position(self.board_type, epd, self.chess960)
        except ValueError as exc:
            line = self._line(begin)
            raise ConfigError(f"not a valid EPD line: {exc}", file=self.path, field=f"line {line}",
                              hint="fix the line; a PGN book wants openings.format = \"pgn\"") from None
        self._check(board, begin)
        name = ops.get("id")
        return Opening(
            fen=board.fen(),
            variant=variant_name(self.board_type),
            chess960=self.chess960,
            name=name if isinstance(name, str) else "",
        )

    def _game(self, begin: int, end: int) -> Opening:
        reader = functools.partial(_OpeningReader, plies=self.plies, chess960=self.chess960)
        game = chess.pgn.read_game(io.StringIO(self.text[begin:end]), Visitor=reader)
        assert game is not None, "a game begins here: _game_starts found it"
        if game.errors:
            raise ConfigError(f"bad PGN game: {game.errors[0]}", file=self.path, field=f"line {self._line(begin)}",
                              hint="fix the game; an EPD book wants openings.format = \"epd\"")
        start = game.start
        assert start is not None, "python-chess reports a start position it cannot set up as an error"
        if type(start) is not self.board_type or (start.chess960 and not self.chess960):
            raise ConfigError(
                f"the game's variant ({game.headers.get('Variant', 'chess')}) differs from the tourney's",
                file=self.path,
                field=f"line {self._line(begin)}",
                hint="set tourney.variant to match the book, or use another book",
            )
        fen = start.fen()
        self._check(self.board_type(fen, chess960=True) if self.chess960 else start, begin)
        return Opening(
            fen=fen,
            moves=tuple(game.moves),
            variant=variant_name(self.board_type),
            chess960=self.chess960,
            name=game.headers.get("Opening", ""),
        )

    def _check(self, board: chess.Board, begin: int) -> None:
        if not board.is_valid():
            problems = ", ".join(str(s.name).lower().replace("_", " ") for s in chess.Status if s in board.status())
            hint = "for Chess960 positions set variant = \"chess960\"" if "castling" in problems else None
            raise ConfigError(
                f"invalid position ({problems})", file=self.path, field=f"line {self._line(begin)}", hint=hint
            )
        outcome = board.outcome()
        if outcome is not None:  # its games would be scored with no engine moving: a book's error, not a result
            ending = outcome.termination.name.lower().replace("_", " ")
            raise ConfigError(
                f"the game is already over in this position ({ending})", file=self.path,
                field=f"line {self._line(begin)}", hint="remove the line from the book",
            )


def _game_starts(text: str) -> array[int]:
    """Where each PGN game of ``text`` begins, found by python-chess's skipping parser (no move is read)."""
    handle = io.StringIO(text)
    starts: array[int] = array("q")
    while True:
        begin = handle.tell()
        if not chess.pgn.skip_game(handle):
            return starts
        starts.append(begin)
