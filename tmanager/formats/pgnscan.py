"""A streaming PGN tag scanner: the results of millions of games in seconds.

Only the tags standings need are read (White, Black, Result, Round, FEN,
GameNumber, Pair, Superseded); moves are never parsed. The file is read
in large chunks, each cut where a tag section begins, so memory stays flat
whatever the file size.

Speed comes from letting the regular-expression engine do all per-byte work:
one ``findall`` over a chunk yields one tuple per game with the needed tag
values. What it cannot see is a tag-like line inside a multi-line ``{…}``
comment; a second, cheap search finds every brace comment that contains a
line starting with ``[`` (or runs off the chunk), and only there the scanner
tokenizes carefully: tag lines, ``%`` escape lines and ``;`` comments are
honoured, and the fake tags inside the comment are skipped.

A big file is cut into stretches that start at tag sections and are scanned
by one forked process per core; the games come back in file order, and the
result is always the one-process result (see :func:`_parallel_pieces`).

Malformed input never raises: games without players or result, a player's game against himself,
unfinished (``*``) games, unknown results, a truncated last game and an unterminated
comment are counted in a :class:`ScanReport`, and every readable game is kept.
A game tagged ``[Superseded "yes"]`` (or with tmanager's reason, ``[Superseded "A
replaced by B"]``) has been replaced by a later one and is skipped (counted, without
warning); ``"no"`` keeps it.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import re
import signal
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, NamedTuple

from tmanager.core.standings import FINISHED, GameResult
from tmanager.errors import MOST_DIGITS, ConfigError
from tmanager.files import UNREADABLE, open_file

#: Bytes read at a time.
CHUNK_SIZE = 1 << 22
#: Files at least this big are scanned by several processes.
PARALLEL_SIZE = 64 << 20
#: The most bytes one process scans in one go.
PIECE_SIZE = 16 << 20
#: How many warning messages a report keeps verbatim (all are counted).
MAX_EXAMPLES = 20

_TAGS = (b"White", b"Black", b"Result", b"Round", b"FEN", b"GameNumber", b"Pair", b"Superseded")
# A tag value runs to the line's last '"]', as python-chess reads it (writers do not always escape quotes).
_VALUE = rb'"([^\r\n]*)"[ \t]*\]'
# One match per tag section (consecutive lines starting with "["), one group per needed tag. The pattern
# starts with the literal "\n[" (not a repeated group) so that the regex engine can skip movetext quickly.
_SECTION = re.compile(
    rb"\n\[(?:(?:" + b"|".join(name + rb"[ \t]+" + _VALUE for name in _TAGS) + rb")?+[^\n]*+(?:\n\[)?+)++"
)
# A "{" whose comment reaches a line starting with "[" (or the chunk's end) before its "}".
_TRAP = re.compile(rb"\{(?:[^}\n]++|\n(?!\[))*+(?:\n\[|\Z)")
# Careful tokens: a tag line, a % escape line, a ; comment, a brace comment (closed or not).
_TOKEN = re.compile(rb"\n\[[^\n]*+|\n%[^\n]*+|;[^\n]*+|\{[^}]*+(\}?)")
_TERMINATED = re.compile(rb"(?:1-0|0-1|1/2-1/2|\*)\s*\Z")
_RESULTS = {result.pgn.encode(): result for result in FINISHED}
#: ``Superseded`` values that say a game is not: any other (``yes``, or tmanager's reason why) skips it.
_NOT_SUPERSEDED = (b"no", b"false", b"0")

#: The fields of :class:`GameResult`, one list each: cheaper to pass between processes than rows.
_Columns = tuple[list[str], list[str], list[str], list[str], list[int | None], list[str], list[int | None]]


@dataclass(slots=True)
class _State:
    in_comment: bool = False  #: the previous chunk ended inside a brace comment


@dataclass(slots=True)
class ScanReport:
    """What a scan found besides the games: counts of each kind of problem, and examples."""

    games: int = 0  #: games returned
    sections: int = 0  #: tag sections seen (games in the files)
    superseded: int = 0  #: games skipped because a later game replaced them
    warnings: Counter[str] = field(default_factory=Counter)
    #: (file, game number in the file or 0, message) of the first :data:`MAX_EXAMPLES` warnings
    located: list[tuple[str, int, str]] = field(default_factory=list)

    def warn(self, kind: str, message: str, *, path: str, game: int = 0) -> None:
        """Count one warning of ``kind``; ``game`` is its number in ``path`` (0: about the file)."""
        self.warnings[kind] += 1
        if len(self.located) < MAX_EXAMPLES:
            self.located.append((path, game, message))

    @property
    def examples(self) -> list[str]:
        """The kept warnings as one line each."""
        return [f"{path}: game {game}: {text}" if game else f"{path}: {text}" for path, game, text in self.located]

    @property
    def warning_count(self) -> int:
        return sum(self.warnings.values())

    def merge(self, later: ScanReport, *, games_before: int) -> None:
        """Add the report of a later stretch of one file, in which ``games_before`` tag sections came first."""
        self.games += later.games
        self.sections += later.sections
        self.superseded += later.superseded
        self.warnings.update(later.warnings)
        room = MAX_EXAMPLES - len(self.located)
        self.located += [(path, game and game + games_before, text) for path, game, text in later.located[:room]]


class _Piece(NamedTuple):
    """What scanning one stretch of a file gave: the games' fields, and a report."""

    columns: _Columns
    report: ScanReport  #: game numbers count from the stretch's start
    in_comment: bool  #: the stretch ends inside a brace comment
    truncated: bool  #: the stretch is the file's end, and that is inside a game


def scan(path: str | Path, report: ScanReport | None = None, *, jobs: int | None = None) -> Iterator[GameResult]:
    """The counted games of one PGN file, in file order.

    A file of at least :data:`PARALLEL_SIZE` bytes is split into stretches
    scanned by ``jobs`` forked processes (default: one per core); ``jobs=1``,
    and any call from a process that runs threads, scans in this process.

    Raises :class:`ConfigError` only when the file cannot be opened or read, or is compressed.
    """
    report = ScanReport() if report is None else report
    name = str(path)
    try:
        handle = open(open_file(Path(path)), "rb")  # noqa: SIM115 - closed by the with below, after the generator starts
        size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        raise ConfigError(f"cannot read PGN file: {exc.strerror or exc}", file=path, hint=UNREADABLE) from None
    with handle:
        try:
            yield from _scan_open(handle, name, size, report, jobs)
        except OSError as exc:  # a disk's or a network file system's error mid-file (a traceback until then)
            raise ConfigError(f"cannot read PGN file: {exc.strerror or exc}", file=path, hint=UNREADABLE) from None


def _scan_open(handle: BinaryIO, name: str, size: int, report: ScanReport, jobs: int | None) -> Iterator[GameResult]:
    """:func:`scan`'s work on the file it opened."""
    _refuse_compressed(handle, name)
    if jobs is None:
        jobs = (os.cpu_count() or 1) if size >= PARALLEL_SIZE else 1
    if threading.active_count() > 1:
        jobs = 1  # forking a threaded process is unsafe
    pieces = _parallel_pieces(name, handle, size, jobs) if jobs > 1 else _serial_pieces(name, handle)
    games_before = 0
    make = tuple.__new__
    piece = None
    for piece in pieces:
        report.merge(piece.report, games_before=games_before)
        games_before += piece.report.sections
        yield from map(make, itertools.repeat(GameResult), zip(*piece.columns, strict=True))
    if piece is not None and piece.in_comment:
        report.warn("unterminated-comment", "a { comment is never closed", path=name)
    if piece is not None and piece.truncated:
        report.warn("truncated", "the file ends inside this game", path=name, game=games_before)


class _Compression(NamedTuple):
    """How a compressed file begins, its usual suffix, and the command that writes its text to standard output,
    or extracts an ``archive``'s files."""

    magic: bytes
    kind: str
    suffix: str
    command: str
    archive: bool = False


_COMPRESSED = (
    _Compression(b"\x1f\x8b", "gzip", ".gz", "gzip -dc"),
    _Compression(b"BZh", "bzip2", ".bz2", "bzip2 -dc"),
    _Compression(b"\xfd7zXZ\x00", "xz", ".xz", "xz -dc"),
    _Compression(b"\x28\xb5\x2f\xfd", "zstd", ".zst", "zstd -dc"),
    _Compression(b"7z\xbc\xaf\x27\x1c", "7-Zip", ".7z", "7z x", archive=True),
    _Compression(b"PK\x03\x04", "zip", ".zip", "unzip", archive=True),
)


def _refuse_compressed(handle: BinaryIO, path: str | Path) -> None:
    """:class:`ConfigError` for a compressed file (``games.pgn.gz``, a rating list's ``.7z``): read as text it
    holds no tag line, and it was an empty table with "no game in the file(s) given", of a file of millions."""
    start = os.pread(handle.fileno(), 8, 0)
    for compression in _COMPRESSED:
        if start.startswith(compression.magic):
            command = f"{compression.command} {path}" if compression.archive else _decompress(path, compression)
            raise ConfigError(f"is {compression.kind}-compressed, not PGN text", file=path,
                              hint=f"decompress it first: {command}")


def _decompress(path: str | Path, compression: _Compression) -> str:
    """The command line that writes the text of ``path`` to a file of its own beside it, named without the
    compression's suffix (``gunzip -k`` refused a name without it: ``games.pgn`` of gzip's bytes)."""
    name, suffix = str(path), compression.suffix
    text = name[: -len(suffix)] if name.lower().endswith(suffix) else f"{Path(name).with_suffix('')}-text.pgn"
    return f"{compression.command} {name} > {text}"


def scan_files(
    paths: Iterable[str | Path], report: ScanReport | None = None, *, jobs: int | None = None
) -> Iterator[GameResult]:
    """The counted games of several PGN files, one after the other (see :func:`scan`)."""
    report = ScanReport() if report is None else report
    for path in paths:
        yield from scan(path, report, jobs=jobs)


def _serial_pieces(path: str, handle: BinaryIO) -> Iterator[_Piece]:
    """One piece per chunk of the whole file, scanned here."""
    in_comment = False
    for chunk, last in _chunks(handle.read, at_file_start=True):
        piece = _scan_chunk(path, chunk, in_comment=in_comment, last=last)
        in_comment = piece.in_comment
        yield piece


def _parallel_pieces(path: str, handle: BinaryIO, size: int, jobs: int) -> Iterator[_Piece]:
    """One piece per stretch of the file, scanned by ``jobs`` processes, in file order.

    Each stretch starts at a tag section, and its process assumes it does not
    start inside a brace comment. When the stretch before did end inside one
    (a cut fell on a tag-like line in a comment), the stretch is scanned again
    here, knowing.
    """
    bounds = _stretch_bounds(handle, size, piece_size=max(1, min(PIECE_SIZE, size // (4 * jobs))))
    stretches = list(itertools.pairwise(bounds))
    # The processes read the descriptor they inherit: the very file measured here, even if it is replaced meanwhile.
    fd = handle.fileno()
    # fork (scan only forks a single-threaded process): spawn would re-run the caller's main module. A fork pool
    # starts all its processes at once: no more than there are stretches to scan.
    pool = ProcessPoolExecutor(
        min(jobs, len(stretches)), mp_context=multiprocessing.get_context("fork"), initializer=_start_worker
    )
    try:
        running: deque[Future[_Piece]] = deque()
        ahead = iter(stretches)
        for start, stop in itertools.islice(ahead, 2 * jobs):
            running.append(pool.submit(_scan_stretch, path, fd, start, stop, in_comment=False, last=stop == size))
        in_comment = False
        for start, stop in stretches:
            piece = running.popleft().result()
            if (following := next(ahead, None)) is not None:
                running.append(
                    pool.submit(_scan_stretch, path, fd, *following, in_comment=False, last=following[1] == size)
                )
            if in_comment:
                piece = _scan_stretch(path, fd, start, stop, in_comment=True, last=stop == size)
            in_comment = piece.in_comment
            yield piece
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_worker() -> None:
    gc.disable()  # a scan makes no reference cycles, and its many tuples would make the collector run often
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle: it stops the pool


def _stretch_bounds(handle: BinaryIO, size: int, *, piece_size: int) -> list[int]:
    """Offsets cutting the file into stretches of about ``piece_size`` bytes, each starting at a tag section."""
    bounds = [0]
    offset = piece_size
    while offset < size:
        cut = _section_start(handle, offset - 1)
        if cut is None:
            break  # no tag section after this offset
        if cut >= size:
            break  # only in what was appended since the file was measured
        if cut > bounds[-1]:
            bounds.append(cut)
        offset = max(cut, offset) + piece_size
    bounds.append(size)
    return bounds


def _section_start(handle: BinaryIO, start: int) -> int | None:
    """The offset of the first "\\n" at or after ``start`` that ends a line not starting with "[" and is
    followed by one that does: where a tag section starts (``None``: nowhere).

    Only the newlines and the byte after each are looked at, a block at a time, so that a file
    with no line break for hundreds of megabytes is crossed once (a window searched again as it
    grew took half a minute on 100 MB).
    """
    handle.seek(start)
    block = handle.read(1 << 16)
    plain = False  # the line after the last newline seen does not start with "["
    while block:
        following = handle.read(1 << 16)
        data = block + following[:1]  # the byte after a newline that ends the block
        newline = data.find(b"\n")
        while 0 <= newline < len(block) and newline + 1 < len(data):
            tag = data[newline + 1] == ord("[")
            if tag and plain:
                return start + newline
            plain = not tag
            newline = data.find(b"\n", newline + 1)
        start += len(block)
        block = following
    return None


def _scan_stretch(path: str, fd: int, start: int, stop: int, *, in_comment: bool, last: bool) -> _Piece:
    """Scan bytes ``start`` to ``stop`` of the open file ``fd`` (a process pool's task): one piece for all of it.

    Reads with ``pread``: the processes share the descriptor's file position.
    """
    report = ScanReport()
    columns: _Columns = [], [], [], [], [], [], []
    truncated = False
    position = start

    def read(size: int) -> bytes:
        nonlocal position
        data = os.pread(fd, min(size, stop - position), position)
        position += len(data)
        return data

    for chunk, final in _chunks(read, at_file_start=start == 0):
        piece = _scan_chunk(path, chunk, in_comment=in_comment, last=last and final)
        report.merge(piece.report, games_before=report.sections)
        for column, more in zip(columns, piece.columns, strict=True):
            column += more  # type: ignore[operator]
        in_comment, truncated = piece.in_comment, piece.truncated
    return _Piece(columns, report, in_comment, truncated)


def _scan_chunk(path: str, chunk: bytes, *, in_comment: bool, last: bool) -> _Piece:
    state = _State(in_comment)
    report = ScanReport()
    columns = _games(_sections(chunk, state), path, report)
    return _Piece(columns, report, state.in_comment, last and _ends_inside_game(chunk))


def _chunks(read: Callable[[int], bytes], *, at_file_start: bool) -> Iterator[tuple[bytes, bool]]:
    """Chunks of what ``read`` gives, each beginning with "\\n" and cut just before a tag section.

    Each comes with whether it is the last.
    """
    rest = b"\n"
    first = at_file_start
    # A stretch with no place to cut (one line of hundreds of megabytes) is read in reads as long as what is
    # held: each read at least doubles it, so it is copied and searched a few times, not once a chunk.
    while data := read(max(CHUNK_SIZE, len(rest))):
        if first and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        first = False
        buffer = rest + data
        cut = _last_section_start(buffer)
        if cut <= 0:
            rest = buffer  # one game longer than a chunk: read on
            continue
        yield buffer[:cut], False
        rest = buffer[cut:]
    yield rest, True


def _last_section_start(buffer: bytes) -> int:
    """Index of the "\\n" before the last tag section's first line, or -1."""
    start = buffer.rfind(b"\n[")
    while start > 0:
        previous = buffer.rfind(b"\n", 0, start)
        if buffer[previous + 1 : previous + 2] != b"[":
            return start
        start = previous
    return -1


def _sections(chunk: bytes, state: _State) -> list[tuple[bytes, ...]]:
    """The needed tag values of every real tag section in ``chunk``."""
    pos = 0
    if state.in_comment:
        close = chunk.find(b"}")
        if close < 0:
            return []
        pos = close + 1
        state.in_comment = False
    sections: list[tuple[bytes, ...]] = []
    search = pos
    while (trap := _TRAP.search(chunk, search)) is not None:
        opener = trap.start()
        end = _comment_end(chunk, pos, opener)
        if end is None:  # the "{" was inside a tag line, a ; comment or a % line
            search = opener + 1
            continue
        sections += _SECTION.findall(chunk, pos, opener)
        if end < 0:
            state.in_comment = True
            return sections
        pos = search = end
    sections += _SECTION.findall(chunk, pos)
    return sections


def _comment_end(chunk: bytes, pos: int, opener: int) -> int | None:
    """Where the comment opened at ``opener`` ends (-1: not in this chunk); None if it is no comment.

    Tokenizing starts at the last tag line before ``opener``: every comment
    between ``pos`` and ``opener`` is free of line-initial "[", so that line
    is a real tag line and a safe place to start.
    """
    start = max(pos, chunk.rfind(b"\n[", pos, opener))
    for token in _TOKEN.finditer(chunk, start):
        if token.start() == opener:
            return token.end() if token.group(1) else -1
        if token.end() > opener:
            return None
    return None


def _games(sections: list[tuple[bytes, ...]], path: str, report: ScanReport) -> _Columns:
    """The countable games of ``sections``, as columns; the rest is counted in ``report``."""
    columns: _Columns = ([], [], [], [], [], [], [])
    whites, blacks, outcomes, rounds, game_numbers, openings, pairs = columns
    names: dict[bytes, str] = {}
    number = report.sections
    for white, black, result, round_, fen, game_number, pair, superseded in sections:
        number += 1
        if superseded and superseded.lower() not in _NOT_SUPERSEDED:
            report.superseded += 1
            continue
        outcome = _RESULTS.get(result)
        if outcome is None or not white or not black or white == black:
            _warn_game(report, path, number, white, black, result)
            continue
        whites.append(names.get(white) or names.setdefault(white, _decode(white)))
        blacks.append(names.get(black) or names.setdefault(black, _decode(black)))
        outcomes.append(outcome)
        rounds.append(round_.decode("ascii", "replace") if round_ else "")
        # bytes.isdigit is ASCII's; past MOST_DIGITS a number is nobody's, and int() of 4,300 digits raises
        game_numbers.append(int(game_number) if game_number.isdigit() and len(game_number) <= MOST_DIGITS else None)
        openings.append((names.get(fen) or names.setdefault(fen, _decode(fen))) if fen else "")
        pairs.append(int(pair) if pair.isdigit() and len(pair) <= MOST_DIGITS else None)
    report.sections = number
    report.games += len(outcomes)
    return columns


def _warn_game(report: ScanReport, path: str, number: int, white: bytes, black: bytes, result: bytes) -> None:
    if not white or not black:
        missing = " and ".join(t for t, v in (("White", white), ("Black", black)) if not v)
        report.warn("missing-player", f"no {missing} tag; game skipped", path=path, game=number)
    elif white == black:  # no rating, pair or standing can hold it: it counted twice for one player
        report.warn(
            "same-player", f"White and Black are both {_decode(white)!r}; game skipped", path=path, game=number
        )
    elif not result:
        report.warn("missing-result", "no Result tag; game skipped", path=path, game=number)
    elif result == b"*":
        report.warn("unfinished", "result '*' (unfinished); game skipped", path=path, game=number)
    else:
        report.warn("bad-result", f"unknown result {_decode(result)!r}; game skipped", path=path, game=number)


def _decode(value: bytes) -> str:
    if b"\\" in value:
        value = re.sub(rb"\\(.)", rb"\1", value)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")  # the PGN standard's own encoding


def _ends_inside_game(chunk: bytes) -> bool:
    """Whether the last game in ``chunk`` lacks its closing result token."""
    matches = list(_SECTION.finditer(chunk))
    if not matches:
        return False
    movetext = _TOKEN.sub(lambda m: m.group(0) if m.group(0).startswith(b"\n[") else b" ", chunk[matches[-1].end() :])
    return not _TERMINATED.search(movetext)
