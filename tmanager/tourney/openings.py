"""Opening books: the ``[openings]`` section's EPD or PGN file, and which opening each game gets.

A book is a list of :class:`Opening` s. An EPD line gives a start position; a
PGN game gives its start position (``FEN``/``SetUp`` tags, else the variant's
usual one) and its mainline moves, cut to ``plies`` half-moves (0 keeps them
all). Both games of a colour-reversed pair play the same opening: they share
an *opening key* (:func:`opening_key`), and :meth:`OpeningBook.opening_for`
maps keys to openings, in book order or in a seeded random order. The choice
depends on nothing but the key and the settings, so any worker in any process
picks the same opening for the same game.
"""

from __future__ import annotations

import functools
import io
import itertools
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import chess
import chess.pgn

from tmanager.errors import ConfigError
from tmanager.files import read_text
from tmanager.tourney.variants import variant_board, variant_name

_NON_BLANK = re.compile(r"\S")

BookFormat = Literal["auto", "epd", "pgn"]
Order = Literal["sequential", "random"]

@dataclass(frozen=True, slots=True)
class Opening:
    """A start position and the moves to play from it before the engines take over.

    ``fen`` is the start position (X-FEN castling rights in Chess960), ``moves``
    are UCI moves in the notation of ``chess960``, ``variant`` is python-chess's
    UCI variant name and ``name`` the EPD ``id`` or PGN ``Opening`` tag, if any.
    """

    fen: str
    moves: tuple[str, ...] = ()
    variant: str = "chess"
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


class OpeningBook:
    """The openings of one book file, in file order."""

    def __init__(self, openings: tuple[Opening, ...], path: Path) -> None:
        if not openings:
            raise ConfigError("the opening book holds no openings", file=path, hint="add EPD lines or PGN games")
        self.openings = openings
        self.path = path

    def __len__(self) -> int:
        return len(self.openings)

    @classmethod
    def load(
        cls, path: str | Path, *, format: BookFormat = "auto", plies: int = 0, variant: str = "chess"
    ) -> OpeningBook:
        """Read an EPD or PGN book; ``format="auto"`` goes by the suffix, else by the content."""
        path = Path(path)
        try:
            text = read_text(path, kind="opening book", create=None)
        except ConfigError as exc:
            raise ConfigError(exc.message, file=path, hint="check openings.file") from None
        board_type, chess960 = variant_board(variant)
        if format == "auto":
            format = _guess_format(path, text)
        read = _read_pgn if format == "pgn" else _read_epd
        return cls(tuple(read(text, path, board_type, chess960, plies)), path)

    def opening_for(self, key: int, *, order: Order = "sequential", seed: int = 0, start: int = 1) -> Opening:
        """The opening of the games with opening key ``key`` (see :func:`opening_key`).

        Sequential: opening ``start`` (1-based) for key 0, then on through the book and
        round again. Random: the same walk through a shuffled book, reshuffled for each
        pass, so every opening is used once before any is used again.
        """
        size = len(self.openings)
        if not 1 <= start <= size:
            raise ConfigError(
                f"start {start} is outside the book of {size} openings",
                field="openings.start",
                hint=f"use 1 to {size}",
            )
        passes, index = divmod(start - 1 + key, size)
        if order == "random":
            index = _shuffled(size, seed, passes)[index]
        return self.openings[index]


def opening_key(number: int, *, games_per_pairing: int, games_per_cycle: int) -> int:
    """The opening key of game ``number``: the two games of a colour-reversed pair share it.

    With XBoard's colour rule (see :mod:`tmanager.core.schedule`), games ``2j`` and
    ``2j+1`` of a pairing have reversed colours; with an even ``games_per_pairing``
    that pairs every game and the key is ``number // 2``. With an odd one, the
    last game of a pairing is left over in each cycle, and colours flip from one
    cycle to the next: it pairs with the same game of the following cycle
    (only the last cycle of an odd number of cycles leaves it single).

    Keys are dense and grow with the game number: a sequential book is used in
    order, without gaps. In each block of two cycles the first cycle's pairs come
    first (the in-pairing pairs then the cross-cycle one, pairing by pairing),
    then the second cycle's in-pairing pairs.
    """
    g = games_per_pairing
    if g % 2 == 0:
        return number // 2
    cycle, rest = divmod(number, games_per_cycle)
    pairing, game = divmod(rest, g)
    block = (cycle // 2) * games_per_cycle
    if cycle % 2 == 0 or game == g - 1:
        return block + pairing * (g + 1) // 2 + game // 2
    pairings = games_per_cycle // g
    return block + pairings * (g + 1) // 2 + pairing * (g - 1) // 2 + game // 2


@functools.lru_cache(maxsize=4)
def _shuffled(size: int, seed: int, passes: int) -> tuple[int, ...]:
    # A string seed is hashed with SHA-512 by random.seed: stable across processes and
    # PYTHONHASHSEED, unlike hash() of a tuple.
    order = list(range(size))
    random.Random(f"tmanager-openings:{seed}:{passes}").shuffle(order)
    return tuple(order)


def _guess_format(path: Path, text: str) -> Literal["epd", "pgn"]:
    suffix = path.suffix.lower()
    if suffix == ".pgn":
        return "pgn"
    if suffix in (".epd", ".fen"):
        return "epd"
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return "pgn" if first.startswith("[") or first.startswith("1.") else "epd"


def _checked(board: chess.Board, path: Path, line: int) -> None:
    if not board.is_valid():
        problems = ", ".join(str(s.name).lower().replace("_", " ") for s in chess.Status if s in board.status())
        hint = "for Chess960 positions set variant = \"chess960\"" if "castling" in problems else None
        raise ConfigError(f"invalid position ({problems})", file=path, field=f"line {line}", hint=hint)
    if board.is_game_over():
        raise ConfigError("the game is already over in this position", file=path, field=f"line {line}")


def _read_epd(
    text: str, path: Path, board_type: type[chess.Board], chess960: bool, plies: int
) -> list[Opening]:
    openings: list[Opening] = []
    for number, line in enumerate(text.splitlines(), 1):
        epd = line.strip()
        if not epd or epd.startswith(("#", ";")):
            continue
        try:
            board, ops = _book_position(board_type, epd, chess960)
        except ValueError as exc:
            raise ConfigError(f"not a valid EPD line: {exc}", file=path, field=f"line {number}") from None
        _checked(board, path, number)
        name = ops.get("id")
        openings.append(
            Opening(
                fen=board.fen(),
                variant=variant_name(board_type),
                chess960=chess960,
                name=name if isinstance(name, str) else "",
            )
        )
    return openings


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


class _QuietGameBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """Keeps parse errors in ``game.errors`` without logging them: the first becomes our ConfigError."""

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def _read_pgn(
    text: str, path: Path, board_type: type[chess.Board], chess960: bool, plies: int
) -> list[Opening]:
    openings: list[Opening] = []
    handle = io.StringIO(text)
    line, counted = 1, 0
    while True:
        found = _NON_BLANK.search(text, handle.tell())
        game = chess.pgn.read_game(handle, Visitor=_QuietGameBuilder) if found else None
        if found is None or game is None:
            return openings
        line += text.count("\n", counted, found.start())
        counted = found.start()
        if game.errors:
            raise ConfigError(f"bad PGN game: {game.errors[0]}", file=path, field=f"line {line}")
        played = game.board()
        if type(played) is not board_type or (played.chess960 and not chess960):
            raise ConfigError(
                f"the game's variant ({game.headers.get('Variant', 'chess')}) differs from the tourney's",
                file=path,
                field=f"line {line}",
                hint="set tourney.variant to match the book, or use another book",
            )
        start = played.fen()
        _checked(board_type(start, chess960=True) if chess960 else played, path, line)
        # Castling is written king-takes-rook in Chess960 and e1g1 in chess: python-chess
        # converts when asked for the other notation.
        moves = []
        for move in itertools.islice(game.mainline_moves(), plies or None):
            moves.append(played.uci(move, chess960=chess960))
            played.push(move)
        openings.append(
            Opening(
                fen=start,
                moves=tuple(moves),
                variant=variant_name(board_type),
                chess960=chess960,
                name=game.headers.get("Opening", ""),
            )
        )
