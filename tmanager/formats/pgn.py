"""Writing the tourney's PGN: whole games appended under the tourney lock, never a fragment.

Every game ends with a blank line. Before appending, a file that does not
end that way (a writer died mid-write, or the disk filled up) is cut back to
its last complete game, so a PGN reader never meets a broken game.
"""

from __future__ import annotations

import mmap
import os
import re
from pathlib import Path

from tmanager.files import atomic_write_bytes

_GAME_START = b"\n\n["

#: What cannot stand as it is between the quotes of a tag value (PGN standard, section 7):
#: control characters and line breaks (they would end the tag, and what follows could be a
#: tag of its own), and the quote and backslash, which must be escaped.
UNSAFE_IN_TAG = re.compile(r'[\x00-\x1f\x7f-\x9f\u2028\u2029"\\]')


def tag_value(text: str) -> str:
    """``text`` made safe as a tag value: quote and backslash escaped with a backslash, as the
    PGN standard says, and control characters and line breaks made spaces. python-chess
    writes tag values as they are, so a value with a line break could add a tag to the game."""
    return UNSAFE_IN_TAG.sub(lambda m: "\\" + m.group() if m.group() in '"\\' else " ", text)


def append_game(path: Path, text: str) -> None:
    """Append one game's PGN text (tags, moves, result). The caller holds the tourney lock."""
    data = text.rstrip("\n").encode("utf-8") + b"\n\n"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        _repair(fd)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _repair(fd: int) -> None:
    size = os.fstat(fd).st_size
    if size == 0:
        return
    tail = os.pread(fd, 2, size - 2) if size >= 2 else b""
    if tail == b"\n\n":
        return
    # Look back for the start of the last (incomplete) game and cut it off.
    window = min(size, 1 << 20)
    chunk = os.pread(fd, window, size - window)
    cut = chunk.rfind(_GAME_START)
    keep = size - window + cut + 2 if cut >= 0 else 0
    os.ftruncate(fd, keep)


def _header_blocks(data: bytes | mmap.mmap, number: int) -> list[tuple[int, int]]:
    """(start, end) of the tag sections of the current (not superseded) games tagged ``GameNumber`` ``number``."""
    blocks = []
    for match in re.finditer(rb'\[GameNumber "' + str(number).encode() + rb'"\]', data):
        previous = data.rfind(b"\n\n[", 0, match.start())
        start = previous + 2 if previous >= 0 else 0
        end = data.find(b"\n\n", match.end())
        end = end if end >= 0 else len(data)
        if b'[Superseded "' not in data[start:end]:
            blocks.append((start, end))
    return blocks


def find_result(path: Path, number: int) -> str | None:
    """The Result of the game tagged ``GameNumber`` ``number`` (not superseded), if the PGN has it.

    Used when a stale claim is found: its owner may have died after writing the
    game but before recording the result, and the game must not be played twice.
    """
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found = None
            for start, end in _header_blocks(data, number):
                result = re.search(rb'\[Result "([^"]*)"\]', data[start:end])
                if result:
                    found = result.group(1).decode()
            return found
    except (FileNotFoundError, ValueError):  # ValueError: mmap of an empty file
        return None


def mark_superseded(path: Path, numbers: set[int], *, reason: str) -> int:
    """Tag the current games with these ``GameNumber``s ``[Superseded "reason"]`` (atomic rewrite).

    The games stay in the file for the record; cross-tables of the tourney skip them.
    The caller holds the tourney lock. Returns how many games were marked.
    """
    if not numbers or not path.exists():
        return 0
    data = path.read_bytes()
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
