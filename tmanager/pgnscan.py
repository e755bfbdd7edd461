"""A streaming PGN tag scanner: the results of millions of games in seconds.

Only the tags standings need are read (White, Black, Result, Round, FEN,
GameNumber, Termination, Superseded); moves are never parsed. The file is read
in large chunks, each cut where a tag section begins, so memory stays flat
whatever the file size.

Speed comes from letting the regular-expression engine do all per-byte work:
one ``findall`` over a chunk yields one tuple per game with the needed tag
values. What it cannot see is a tag-like line inside a multi-line ``{…}``
comment; a second, cheap search finds every brace comment that contains a
line starting with ``[`` (or runs off the chunk), and only there the scanner
tokenizes carefully: tag lines, ``%`` escape lines and ``;`` comments are
honoured, and the fake tags inside the comment are skipped.

Malformed input never raises: games without players or result, unfinished
(``*``) games, unknown results, a truncated last game and an unterminated
comment are counted in a :class:`ScanReport`, and every readable game is kept.
A game tagged ``[Superseded "yes"]`` has been replaced by a later one and is
skipped (counted, without warning).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from tmanager.errors import ConfigError
from tmanager.standings import RESULTS, GameResult

#: Bytes read at a time.
CHUNK_SIZE = 1 << 22
#: How many warning messages a report keeps verbatim (all are counted).
MAX_EXAMPLES = 20

_TAGS = (b"White", b"Black", b"Result", b"Round", b"FEN", b"GameNumber", b"Termination", b"Superseded")
# A tag value runs to the line's last '"]', as python-chess reads it (writers do not always escape quotes).
_VALUE = rb'"([^\r\n]*)"[ \t]*\]'
# One match per tag section (consecutive lines starting with "["), one group per needed tag.
_SECTION = re.compile(rb"(?:\n\[(?:" + b"|".join(name + rb"[ \t]+" + _VALUE for name in _TAGS) + rb")?+[^\n]*+)++")
# A "{" whose comment reaches a line starting with "[" (or the chunk's end) before its "}".
_TRAP = re.compile(rb"\{(?:[^}\n]++|\n(?!\[))*+(?:\n\[|\Z)")
# Careful tokens: a tag line, a % escape line, a ; comment, a brace comment (closed or not).
_TOKEN = re.compile(rb"\n\[[^\n]*+|\n%[^\n]*+|;[^\n]*+|\{[^}]*+(\}?)")
_TERMINATED = re.compile(rb"(?:1-0|0-1|1/2-1/2|\*)\s*\Z")
_RESULTS = {r.encode(): r for r in RESULTS}


@dataclass(slots=True)
class ScanReport:
    """What a scan found besides the games: counts of each kind of problem, and examples."""

    games: int = 0  #: games returned
    sections: int = 0  #: tag sections seen (games in the file)
    superseded: int = 0  #: games skipped because a later game replaced them
    warnings: Counter[str] = field(default_factory=Counter)
    terminations: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def warn(self, kind: str, message: str) -> None:
        self.warnings[kind] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(message)

    @property
    def warning_count(self) -> int:
        return sum(self.warnings.values())


@dataclass(slots=True)
class _State:
    in_comment: bool = False  #: the previous chunk ended inside a brace comment


def scan(path: str | Path, report: ScanReport | None = None) -> Iterator[GameResult]:
    """The counted games of one PGN file, in file order.

    Raises :class:`ConfigError` only when the file cannot be opened.
    """
    report = ScanReport() if report is None else report
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with below, after the generator starts
    except OSError as exc:
        raise ConfigError(f"cannot read PGN file: {exc.strerror or exc}", file=path) from None
    with handle:
        state = _State()
        names: dict[bytes, str] = {}
        last = b""
        for chunk in _chunks(handle):
            last = chunk
            yield from _games(_sections(chunk, state), str(path), report, names)
        if state.in_comment:
            report.warn("unterminated-comment", f"{path}: a {{ comment is never closed")
        _check_last_game(last, str(path), report)


def scan_files(paths: Iterable[str | Path], report: ScanReport | None = None) -> Iterator[GameResult]:
    """The counted games of several PGN files, one after the other."""
    report = ScanReport() if report is None else report
    for path in paths:
        yield from scan(path, report)


def _chunks(handle: BinaryIO) -> Iterator[bytes]:
    """Chunks of the file, each beginning with "\\n" and cut just before a tag section."""
    read = handle.read
    rest = b"\n"
    first = True
    while data := read(CHUNK_SIZE):
        if first and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        first = False
        buffer = rest + data
        cut = _last_section_start(buffer)
        if cut <= 0:
            rest = buffer  # one game longer than a chunk: read on
            continue
        yield buffer[:cut]
        rest = buffer[cut:]
    yield rest


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


def _games(
    sections: list[tuple[bytes, ...]], path: str, report: ScanReport, names: dict[bytes, str]
) -> list[GameResult]:
    games = []
    make = GameResult._make
    number = report.sections
    for white, black, result, round_, fen, game_number, termination, superseded in sections:
        number += 1
        if superseded and superseded.lower() == b"yes":
            report.superseded += 1
            continue
        if termination:
            report.terminations[termination.decode("utf-8", "replace")] += 1
        outcome = _RESULTS.get(result)
        if outcome is None or not white or not black:
            _warn_game(report, path, number, white, black, result)
            continue
        white_name = names.get(white) or names.setdefault(white, _decode(white))
        black_name = names.get(black) or names.setdefault(black, _decode(black))
        games.append(
            make(
                (
                    white_name,
                    black_name,
                    outcome,
                    round_.decode("ascii", "replace") if round_ else "",
                    int(game_number) if game_number.isdigit() else None,
                    (names.get(fen) or names.setdefault(fen, _decode(fen))) if fen else "",
                )
            )
        )
    report.sections = number
    report.games += len(games)
    return games


def _warn_game(report: ScanReport, path: str, number: int, white: bytes, black: bytes, result: bytes) -> None:
    where = f"{path}: game {number}"
    if not white or not black:
        missing = " and ".join(t for t, v in (("White", white), ("Black", black)) if not v)
        report.warn("missing-player", f"{where}: no {missing} tag; game skipped")
    elif not result:
        report.warn("missing-result", f"{where}: no Result tag; game skipped")
    elif result == b"*":
        report.warn("unfinished", f"{where}: result '*' (unfinished); game skipped")
    else:
        report.warn("bad-result", f"{where}: unknown result {_decode(result)!r}; game skipped")


def _decode(value: bytes) -> str:
    if b"\\" in value:
        value = re.sub(rb"\\(.)", rb"\1", value)
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")  # the PGN standard's own encoding


def _check_last_game(chunk: bytes, path: str, report: ScanReport) -> None:
    """Warn when the file's last game lacks its closing result token."""
    matches = list(_SECTION.finditer(chunk))
    if not matches:
        return
    movetext = _TOKEN.sub(lambda m: m.group(0) if m.group(0).startswith(b"\n[") else b" ", chunk[matches[-1].end() :])
    if not _TERMINATED.search(movetext):
        report.warn("truncated", f"{path}: game {report.sections}: the file ends inside this game")
