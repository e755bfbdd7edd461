"""An index of the tourney's PGN file, kept up to date by reading only what was appended.

Workers append whole games (see :mod:`tmanager.formats.pgn`), so the index remembers
how far it has read and parses only the new games' tags; a file replaced
(a game marked superseded) or cut short is read again from the start. The
index serves the recent results and single-game downloads.
"""

from __future__ import annotations

import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import chess.pgn

from tmanager.errors import ConfigError, ascii_digits
from tmanager.files import open_file

#: Where one game ends and the next begins in a file written by :mod:`tmanager.formats.pgn`.
_GAME_START = b"\n\n["


@dataclass(frozen=True, slots=True)
class IndexedGame:
    """Where one game lies in the file, and the tags the dashboard shows."""

    offset: int
    length: int
    number: int | None  #: the GameNumber tag
    white: str
    black: str
    result: str
    round: str
    termination: str
    plies: str
    superseded: bool


class PgnIndex:
    """The games of one PGN file in file order (the order in which they were recorded)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._file: tuple[int, int] | None = None  # (device, inode) of the file read so far
        self._read = 0
        self._games: list[IndexedGame] = []
        self._by_number: dict[int, IndexedGame] = {}

    def refresh(self) -> None:
        """Read the games appended since the last call (all of them if the file was replaced)."""
        with self._lock:
            try:
                with open(open_file(self.path), "rb") as f:
                    status = os.fstat(f.fileno())
                    key = (status.st_dev, status.st_ino)
                    if key != self._file or status.st_size < self._read:
                        self._file, self._read, self._games, self._by_number = key, 0, [], {}
                    f.seek(self._read)
                    self._add(f.read(), self._read)
            except (FileNotFoundError, ConfigError):  # none yet; or a FIFO, a device: no games to show
                self._file, self._read, self._games, self._by_number = None, 0, [], {}

    def recent(self, count: int) -> list[IndexedGame]:
        """The last ``count`` current (not superseded) games, most recent first."""
        with self._lock:
            found: list[IndexedGame] = []
            for game in reversed(self._games):
                if len(found) == count:
                    break
                if not game.superseded:
                    found.append(game)
            return found

    def game_text(self, number: int) -> str | None:
        """The PGN text of current game ``number``, as in the file; ``None`` if it has none."""
        self.refresh()
        with self._lock:
            game = self._by_number.get(number)
            if game is None:
                return None
            try:
                with open(open_file(self.path), "rb") as f:
                    f.seek(game.offset)
                    return f.read(game.length).decode("utf-8", errors="replace")
            except (FileNotFoundError, ConfigError):
                return None

    def _add(self, data: bytes, base: int) -> None:
        start = 0
        while start < len(data):
            cut = data.find(_GAME_START, start)
            end = len(data) if cut < 0 else cut + 2
            chunk = data[start:end]
            if cut < 0 and not _complete(chunk):
                break  # a game still being written: read it next time
            game = _index_game(chunk, base + start)
            if game is not None:
                self._games.append(game)
                if game.number is not None and not game.superseded:
                    self._by_number[game.number] = game
            start = end
        self._read = base + start


def _complete(chunk: bytes) -> bool:
    """Whether the last chunk of the file is a whole game: tags, a blank line, movetext, a blank line."""
    body = chunk.rstrip(b"\n")
    blank = body.find(b"\n\n")
    return chunk.endswith(b"\n\n") and blank >= 0 and not body[blank + 2 :].startswith(b"[")


def _index_game(chunk: bytes, offset: int) -> IndexedGame | None:
    headers = chess.pgn.read_headers(io.StringIO(chunk.decode("utf-8", errors="replace")))
    if headers is None:
        return None
    number = headers.get("GameNumber", "")
    return IndexedGame(
        offset=offset,
        length=len(chunk),
        number=int(number) if ascii_digits(number) else None,
        white=headers.get("White", "?"),
        black=headers.get("Black", "?"),
        result=headers.get("Result", "*"),
        round=headers.get("Round", "?"),
        termination=headers.get("Termination", ""),
        plies=headers.get("PlyCount", ""),
        superseded="Superseded" in headers,
    )
