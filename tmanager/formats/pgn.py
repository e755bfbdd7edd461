"""Writing the tourney's PGN: whole games appended under the tourney lock, never a fragment.

Every game ends with a blank line. Before appending, a file that does not
end that way (a writer died mid-write, or the disk filled up) is cut back to
its last complete game, so a PGN reader never meets a broken game; a last game
whole but for its blank line (an editor trimmed it, or it was added by hand) is
kept and given it back. Only a game begun is cut off: a file that ends otherwise
(no PGN at all, named by mistake) is refused, never cut.
"""

from __future__ import annotations

import hashlib
import io
import mmap
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from tmanager.errors import CONTROLS, ConfigError
from tmanager.files import append_checked, atomic_write_bytes, open_file, read_bytes
from tmanager.tomlmap import Choice

_GAME_START = b"\n\n["
_GAME_NUMBER = re.compile(rb'\[GameNumber "(\d+)"\]')

#: What cannot stand as it is between the quotes of a tag value (PGN standard, section 7):
#: control characters and line breaks (they would end the tag, and what follows could be a
#: tag of its own), the characters that reorder what a reader shows (:data:`~tmanager.errors.CONTROLS`),
#: and the quote and backslash, which must be escaped.
UNSAFE_IN_TAG = re.compile(f'[{CONTROLS}"\\\\]')



class Notation(Choice):
    """How moves are written: standard algebraic, long algebraic or UCI (``[tourney] pgn_notation``, fastchess's
    ``-pgnout notation=``)."""

    SAN = "san"
    LAN = "lan"
    UCI = "uci"


#: What a move's PGN comment may add to "score/depth time", in fastchess's order and spelling (-pgnout).
COMMENT_FIELDS = ("timeleft", "latency", "nodes", "seldepth", "nps", "hashfull", "tbhits", "pv")


def tag_value(text: str) -> str:
    """``text`` made safe as a tag value: quote and backslash escaped with a backslash, as the
    PGN standard says, and control characters and line breaks made spaces. python-chess
    writes tag values as they are, so a value with a line break could add a tag to the game."""
    return UNSAFE_IN_TAG.sub(lambda m: "\\" + m.group() if m.group() in '"\\' else " ", text)


#: The bytes before a PGN's mark that a fingerprint of an older tmanager covers (one without a length): the end of
#: the last game's moves and its result.
OLD_FINGERPRINT_BYTES = 64
#: The most bytes of a PGN's last game that a fingerprint taken of the file (not of a game written) covers.
_LAST_GAME_WINDOW = 1 << 20


class Appended(NamedTuple):
    """Where a game appended to a PGN starts and ends, and the :func:`fingerprint` of the bytes up to its end."""

    start: int
    end: int
    fingerprint: str


def fingerprint(game: bytes) -> str:
    """A short digest of ``game``, the bytes of the last game recorded that end a PGN at its mark (its tags, moves
    and result), with their length: ``LENGTH:DIGEST``. A file put in its place differs there, even another
    tourney's PGN of as many games whose last moves are those of this one (the same engines, with the same seeds,
    run again, under other names); the 64 bytes before the mark that an older fingerprint covered did not.
    "" for no bytes (nothing checked)."""
    return f"{len(game)}:{hashlib.blake2b(game, digest_size=8).hexdigest()}" if game else ""


def fingerprint_at(path: Path, end: int, *, like: str) -> str:
    """The fingerprint of the bytes of ``path`` that end at byte ``end``, covering as many as the fingerprint
    ``like`` (one taken before) covers: one read of a game's length ("" when the file cannot be read there). A
    ``like`` of an older tmanager, a digest alone, is of the :data:`OLD_FINGERPRINT_BYTES` before ``end``."""
    length_text, colon, _digest = like.partition(":")
    if not colon:
        if end < OLD_FINGERPRINT_BYTES:
            return ""
        tail = _read_at(path, end - OLD_FINGERPRINT_BYTES, OLD_FINGERPRINT_BYTES)
        return hashlib.blake2b(tail, digest_size=8).hexdigest() if len(tail) == OLD_FINGERPRINT_BYTES else ""
    length = int(length_text) if length_text.isdigit() else 0
    if not 0 < length <= end:
        return ""
    game = _read_at(path, end - length, length)
    return fingerprint(game) if len(game) == length else ""


def last_game_fingerprint(path: Path, end: int) -> str:
    """The :func:`fingerprint` of the last game of ``path`` that ends at byte ``end`` (of its last megabyte, for a
    longer one): the mark's, when the PGN as it is becomes the mark."""
    window = _read_at(path, max(0, end - _LAST_GAME_WINDOW), min(end, _LAST_GAME_WINDOW))
    start = window.rfind(_GAME_START, 0, max(0, len(window) - 2))
    return fingerprint(window[start + 2:] if start >= 0 else window)


def append_game(path: Path, text: str) -> Appended:
    """Append one game's PGN text (tags, moves, result), checked and fsynced; returns the offsets where it
    starts and where it ends, with the fingerprint of the file up to its end (from the bytes written: no read).

    The caller holds the tourney lock. On a full disk the file is cut back to
    what it was and :class:`~tmanager.errors.DiskError` is raised: a game is
    either in the file whole or not at all.
    """
    data = text.rstrip("\n").encode("utf-8") + b"\n\n"
    start = append_checked(path, data, keep=lambda fd: _append_point(fd, path))
    return Appended(start, start + len(data), fingerprint(data))


def check_appendable(path: Path) -> None:
    """Refuse a PGN that a game cannot be appended to without cutting off what is not a game's beginning
    (:func:`_append_point`): before the first game, where an error would come only as it is recorded."""
    try:
        fd = open_file(path)
    except FileNotFoundError:
        return
    try:
        _append_point(fd, path)
    finally:
        os.close(fd)


def _complete_games(fd: int) -> int:
    """The size of the file up to its last complete game (a writer may have died mid-game)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return 0
    tail = os.pread(fd, 2, size - 2) if size >= 2 else b""
    if tail == b"\n\n":
        return size
    # Look back for the start of the last game: cut it off unless it is whole, only short of its blank line.
    window = min(size, 1 << 20)
    chunk = os.pread(fd, window, size - window)
    cut = chunk.rfind(_GAME_START)
    if _ends_a_game(chunk[cut + 2 if cut >= 0 else 0:]):
        return size
    return size - window + cut + 2 if cut >= 0 else 0


#: The result that ends a game's moves (PGN standard, section 8.2.6), then nothing but white space.
_ENDS_ON_RESULT = re.compile(rb"(?:^|\s)(?:1-0|0-1|1/2-1/2|\*)\s*\Z")


def _ends_a_game(game: bytes) -> bool:
    """Whether ``game``, the last of a PGN from its tags on, is whole: moves after its tags that end on its result,
    outside a comment. An editor that trims the blank line ending a file leaves one so, as does a game added by
    hand without it; a writer that died mid-game leaves one short of its result (or in a comment quoting one)."""
    _tags, blank, moves = game.partition(b"\n\n")
    return bool(blank) and moves.rfind(b"{") <= moves.rfind(b"}") and _ENDS_ON_RESULT.search(moves) is not None


#: How a game written by tmanager (or XBoard, fastchess, cutechess) begins: a writer that died mid-game left
#: a beginning of it, or this whole and more.
_GAME_BEGINS = b'[Event "'


def _append_point(fd: int, path: Path) -> tuple[int, bytes]:
    """Where a game is appended (:func:`_complete_games`), and the line breaks that end the last game there
    with its blank line, when a hand edit removed it. What would be cut off must be the beginning of a game
    (a writer died writing it): anything else is not ours to cut. A PGN named by mistake (a program, notes) was
    cut to nothing, or to its last blank line before a bracket, and given the game."""
    size = _complete_games(fd)
    end = os.fstat(fd).st_size
    head = os.pread(fd, len(_GAME_BEGINS), size)
    if size < end and (end - size > _LAST_GAME_WINDOW or not _GAME_BEGINS.startswith(head)):
        raise ConfigError(
            f"ends with {end - size:,} bytes that are not a whole game (from byte {size:,}): it is not a PGN, or "
            "its end was edited by hand", file=path,
            hint="give the tourney a PGN of its own (tourney.pgn), or end or remove that text by hand: tmanager cuts "
            "off only a game it began",
        )
    tail = os.pread(fd, 2, max(0, size - 2))[: size]
    if not size or tail == b"\n\n":
        return size, b""
    return size, b"\n" if tail.endswith(b"\n") else b"\n\n"


def cut_back(path: Path, size: int) -> None:
    """Cut ``path`` back to ``size`` bytes: a game just appended whose result could not be recorded goes again."""
    fd = open_file(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


class TaggedGame(NamedTuple):
    """Who played a game of a PGN, and how it ended, as its tags say (empty where a tag is missing)."""

    white: str
    black: str
    result: str


#: The tags of a game that say which game it is, each on a line of its own as tmanager writes them.
_WHO_AND_HOW = re.compile(rb'^\[(White|Black|Result) "([^"\n]*)"\]', re.MULTILINE)


def current_games(path: Path) -> dict[int, list[TaggedGame]]:
    """Every complete current (not superseded) game in ``path`` by its ``GameNumber`` (none if it is missing),
    with the tags that tell one tourney's game from another's of that number."""
    games: dict[int, list[TaggedGame]] = {}
    try:
        with open(open_file(path), "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            complete = _complete_games(f.fileno())
            for match in _GAME_NUMBER.finditer(data, 0, complete):
                if not _superseded(data, match.start()):
                    start, end = _tag_section(data, match.start())
                    tags = {m[1]: m[2].decode("utf-8", "replace") for m in _WHO_AND_HOW.finditer(data, start, end)}
                    found = TaggedGame(tags.get(b"White", ""), tags.get(b"Black", ""), tags.get(b"Result", ""))
                    games.setdefault(int(match[1]), []).append(found)
    except (FileNotFoundError, ValueError):  # ValueError: mmap of an empty file
        return {}
    return games


#: A player's tag as tmanager writes it, on a line of its own: the value, escapes and all (:func:`tag_value`).
_PLAYER = re.compile(rb'^\[(?:White|Black) "((?:[^"\\\n]|\\.)*)"\]', re.MULTILINE)


def players(path: Path) -> set[str]:
    """Every name the games of ``path`` give a player, superseded games included, each as :func:`tag_value`
    writes it: who the file has ever named."""
    try:
        with open(open_file(path), "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            names = {match[1] for match in _PLAYER.finditer(data)}
    except (FileNotFoundError, ValueError):  # ValueError: mmap of an empty file
        return set()
    return {name.decode("utf-8", "replace") for name in names}


#: The most bytes :func:`numbers_written` reads: more than a look of ``run`` ever finds written since the last.
_WRITTEN_LIMIT = 1 << 26


def numbers_written(path: Path, *, start: int, end: int) -> list[int]:
    """The ``GameNumber`` of each game written to ``path`` from byte ``start`` to ``end``, in the order they were
    written: the order they finished, since each is appended as its result is recorded. Empty when the file
    cannot be read, or the span is beyond :data:`_WRITTEN_LIMIT`."""
    if not 0 <= start <= end or end - start > _WRITTEN_LIMIT:
        return []
    return [int(match[1]) for match in _GAME_NUMBER.finditer(_read_at(path, start, end - start))]


def _read_at(path: Path, start: int, length: int) -> bytes:
    """``length`` bytes of ``path`` from byte ``start``, fewer at its end; none when it cannot be read (not
    there, or not a file: the workers say so)."""
    try:
        fd = open_file(path)
    except (OSError, ConfigError):
        return b""
    try:
        return os.pread(fd, length, start)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _superseded(data: bytes | mmap.mmap, at: int) -> bool:
    """Whether the tag section holding byte ``at`` has a ``Superseded`` tag."""
    start, end = _tag_section(data, at)
    return data.find(b'[Superseded "', start, end) >= 0


def _tag_section(data: bytes | mmap.mmap, at: int) -> tuple[int, int]:
    """(start, end) of the tag section holding byte ``at``."""
    previous = data.rfind(_GAME_START, 0, at)
    end = data.find(b"\n\n", at)
    return previous + 2 if previous >= 0 else 0, end if end >= 0 else len(data)


def _header_blocks(data: bytes | mmap.mmap, number: int) -> list[tuple[int, int]]:
    """(start, end) of the tag sections of the current (not superseded) games tagged ``GameNumber`` ``number``."""
    blocks = []
    for match in re.finditer(rb'\[GameNumber "' + str(number).encode() + rb'"\]', data):
        if not _superseded(data, match.start()):
            blocks.append(_tag_section(data, match.start()))
    return blocks


@dataclass(frozen=True, slots=True)
class FoundGame:
    """A game found in the PGN by its ``GameNumber``: the tags a recovery and its hooks need."""

    result: str
    white: str
    black: str
    termination: str
    reason: str  #: the comment after the last move, where the game runner writes why the game ended


def find_game(path: Path, number: int, *, start: int = 0) -> FoundGame | None:
    """The last current (not superseded) game tagged ``GameNumber`` ``number`` at or after byte ``start``.

    Used when a stale claim is found: its owner may have died after writing the
    game but before recording the result, and the game must not be played twice.
    ``start`` is the size the PGN had when the game was claimed, so only what was
    written since is read. Only a complete game counts: a writer killed while appending
    leaves a fragment whose tags (the result among them) may be whole, and the next
    append cuts it off.
    """
    import chess.pgn  # here: it loads python-chess's engine layer too, which reading a tourney file never needs

    try:
        with open(open_file(path), "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            complete = _complete_games(f.fileno())
            blocks = [b for b in _header_blocks(data, number) if start <= b[0] < complete]
            if not blocks:
                return None
            begin, end = blocks[-1]
            following = data.find(b"\n\n[", end)
            game = chess.pgn.read_game(io.StringIO(data[begin : following if following >= 0 else len(data)]
                                                   .decode("utf-8", "replace")))
    except (FileNotFoundError, ValueError):  # ValueError: mmap of an empty file
        return None
    if game is None or game.headers.get("Result", "*") == "*":
        return None
    headers = game.headers
    return FoundGame(
        result=headers["Result"],
        white=headers.get("White", "?"),
        black=headers.get("Black", "?"),
        termination=headers.get("Termination", ""),
        reason=" ".join(game.end().comment.removeprefix("book").split()),  # a long comment wraps over lines
    )


def mark_superseded(path: Path, numbers: set[int], *, reason: str) -> int:
    """Tag the current games with these ``GameNumber``s ``[Superseded "reason"]`` (atomic rewrite).

    The games stay in the file for the record; cross-tables of the tourney skip them.
    The caller holds the tourney lock. Returns how many games were marked.
    """
    if not numbers or not path.exists():
        return 0
    data = read_bytes(path, kind="PGN", create=None, limit=None)
    inserts = sorted(end for n in numbers for _, end in _header_blocks(data, n))
    if not inserts:
        return 0
    tag = b'\n[Superseded "' + tag_value(reason.replace('"', "'")).encode() + b'"]'
    pieces, last = [], 0
    for end in inserts:
        pieces += [data[last:end], tag]
        last = end
    pieces.append(data[last:])
    atomic_write_bytes(path, b"".join(pieces))
    return len(inserts)


#: The result that ends a game's moves (PGN standard, section 8.2.6).
_TERMINATION_MARKER = re.compile(rb"(1-0|0-1|1/2-1/2|\*)(\s*)$")


def correct_results(path: Path, results: Mapping[int, tuple[str, str]], *, reason: str) -> int:
    """Give the current games with these ``GameNumber``s another result (atomic rewrite): ``results`` maps a
    game number to its (old, new) PGN result. The ``Result`` tag and the marker ending the moves change, and a
    tag ``[Corrected "reason, was OLD"]`` keeps the old one for the record. The caller holds the tourney lock.
    Returns how many games were corrected."""
    if not results or not path.exists():
        return 0
    data = read_bytes(path, kind="PGN", create=None, limit=None)
    games = sorted((start, end, *results[n]) for n in results for start, end in _header_blocks(data, n))
    pieces, last = [], 0
    for start, end, old, new in games:
        following = data.find(_GAME_START, end)
        stop = following + 2 if following >= 0 else len(data)
        tags = re.sub(rb'\[Result "[^"]*"\]', f'[Result "{new}"]'.encode(), data[start:end], count=1)
        tags += b'\n[Corrected "' + tag_value(f"{reason}, was {old}").encode() + b'"]'
        moves = _TERMINATION_MARKER.sub(new.encode() + rb"\2", data[end:stop], count=1)
        pieces += [data[last:start], tags, moves]
        last = stop
    pieces.append(data[last:])
    atomic_write_bytes(path, b"".join(pieces))
    return len(games)
