"""A played game as PGN text, as fastchess writes it.

The seven tags come first, then the start position (``SetUp``, ``FEN`` and
``Variant``; a Chess960 game always has its FEN, in Shredder-FEN as fastchess
writes it), then fastchess's ``GameDuration``, ``GameStartTime``,
``GameEndTime``, ``PlyCount``, ``Termination`` and ``TimeControl`` (or
``WhiteTimeControl`` and ``BlackTimeControl`` when the sides' limits differ),
then tmanager's own (``GameNumber``, ``Pair``). A minimal PGN, fastchess's
``-pgnout min=true``, keeps the seven, the start position, ``GameNumber`` and
``Pair``, and no comments. The move text is python-chess's export format,
within 80 columns; a comment too long for a line is written a word at a time,
so that it wraps too.
"""

from __future__ import annotations

import datetime as dt
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import chess
import chess.pgn

from tmanager.formats.pgn import COMMENT_FIELDS, Notation, tag_value
from tmanager.tourney.search import Report

if TYPE_CHECKING:
    from tmanager.tourney.play import GameSpec

#: The width of PGN's export format (standard, section 8.2.2: lines of at most 79 characters and a newline).
COLUMNS = 80

#: Tags a minimal PGN keeps besides the seven of the roster (and FEN, SetUp, Variant from the board):
#: what a game's result is recovered and its pair found by.
MINIMAL_TAGS = ("GameNumber", "Pair")

#: How fastchess writes the start and end of a game: local time with the zone as a number.
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S %z"


def push_notated(board: chess.Board, move: chess.Move, notation: Notation) -> str:
    """Push ``move`` on ``board``; the move as the PGN writes it.

    SAN is python-chess's, taken as the move is made (``san_and_push``): each
    move's rivals and the check after it are looked at once, not again by a
    replay when the game is written, which cost twice as much. UCI is the move
    stack's own notation."""
    if notation is Notation.SAN:
        return board.san_and_push(move)
    text = board.lan(move) if notation is Notation.LAN else move.uci()
    board.push(move)
    return text


def move_comment(
    report: Report, seconds: float, fields: tuple[str, ...], *, time_left: float | None, quoted: Sequence[str] = (),
) -> str:
    """A move's comment as fastchess writes it: ``+0.25/12 0.105s``, then the chosen ``fields`` the
    engine reported (``n=…``, ``pv="…"``), in :data:`COMMENT_FIELDS`' order, then the ``quoted`` lines of
    the engine (``line="info string …"``)."""
    head = "" if report.score is None else report.score.text()
    if report.depth is not None:
        head += f"/{report.depth}"
    values: dict[str, object] = {
        "timeleft": None if time_left is None else _seconds(time_left),
        "latency": None if report.time is None else _seconds(seconds - report.time),
        "nodes": report.nodes,
        "seldepth": report.seldepth,
        "nps": report.nps,
        "hashfull": report.hashfull,
        "tbhits": report.tbhits,
        "pv": f'"{" ".join(report.pv)}"' if report.pv else None,
    }
    shown = {"timeleft": "tl", "nodes": "n", "seldepth": "sd"}
    parts = [f"{head} {_seconds(seconds)}".lstrip()]
    parts += [f"{shown.get(f, f)}={values[f]}" for f in COMMENT_FIELDS if f in fields and values[f] is not None]
    parts += [f'line="{line}"' for line in quoted]
    return ", ".join(parts)


def _seconds(seconds: float) -> str:
    """A time as fastchess writes it, of whole milliseconds: a latency of -0.3 ms is ``0.000s``, not ``-0.000s``."""
    return f"{round(seconds * 1000) / 1000:.3f}s"


class SelfNamed(NamedTuple):
    """What an engine calls itself: UCI's ``id name`` and ``id author``, XBoard's ``myname`` (no author); "" for
    what it does not say (an engine that never started says nothing)."""

    name: str = ""
    author: str = ""


def game_pgn(
    spec: GameSpec, board: chess.Board, *, result: str, termination: str, reason: str, movetext: list[str],
    comments: list[str], opening_plies: int, started: dt.datetime, ended: dt.datetime,
    engines: tuple[SelfNamed, SelfNamed] = (SelfNamed(), SelfNamed()),
) -> str:
    """The game's PGN; ``movetext`` holds the engines' moves as :func:`push_notated` gave them, ``comments``
    one per engine move; ``started`` and ``ended`` are aware datetimes (local time); ``engines`` what White's
    and Black's engines call themselves."""
    root = board.root()
    game = chess.pgn.Game.from_board(root)  # the start position's tags (FEN, SetUp, Variant), no moves yet
    _roster(game.headers, spec, result=result, date=started)
    if not spec.minimal:
        _engine_tags(game.headers, engines)
    _start_position(game.headers, root)
    plies = len(board.move_stack)
    move_comments: list[str] = []
    if not spec.minimal:
        _fastchess_tags(game.headers, spec, termination=termination, plies=plies, started=started, ended=ended)
        move_comments = ([""] * opening_plies + comments + [""] * plies)[:plies]
        if opening_plies:
            move_comments[opening_plies - 1] = "book"
        if move_comments:
            last = move_comments[-1]
            move_comments[-1] = f"{last}, {reason}" if last else reason
        else:
            game.comment = reason
    for key, value in spec.tags.items():
        if (key not in game.headers or game.headers[key] in ("?", "")) and (not spec.minimal or key in MINIMAL_TAGS):
            game.headers[key] = value
    for key in list(game.headers):  # names are checked when the tourney file is read; this holds whatever comes
        game.headers[key] = tag_value(game.headers[key])
    opening = board.move_stack[:opening_plies]
    if spec.notation is Notation.UCI:
        notated = [move.uci() for move in opening]  # UCI needs no board
    else:
        replay = root.copy(stack=False)
        notated = [push_notated(replay, move, spec.notation) for move in opening]
    return _written(game, root, notated + movetext, move_comments, result)


def _roster(headers: chess.pgn.Headers, spec: GameSpec, *, result: str, date: dt.datetime) -> None:
    headers["Event"] = spec.tags.get("Event", "?")
    headers["Site"] = spec.tags.get("Site") or socket.gethostname()
    headers["Date"] = date.strftime("%Y.%m.%d")
    headers["Round"] = spec.tags.get("Round", "?")
    headers["White"] = spec.white.name
    headers["Black"] = spec.black.name
    headers["Result"] = result


def _engine_tags(headers: chess.pgn.Headers, engines: tuple[SelfNamed, SelfNamed]) -> None:
    """fastchess's tags after the seven: each engine's own name and author, each where the engine gave it."""
    for side, engine in zip(("White", "Black"), engines, strict=True):
        if engine.name:
            headers[f"Engine{side}Name"] = engine.name
        if engine.author:
            headers[f"Engine{side}Author"] = engine.author


def _start_position(headers: chess.pgn.Headers, root: chess.Board) -> None:
    """``SetUp``, ``FEN`` and ``Variant`` in fastchess's order; a Chess960 game's FEN always, in
    Shredder-FEN (``HAha``), as fastchess writes it."""
    if root.chess960:
        headers["FEN"] = root.fen(shredder=True)
    if "FEN" in headers:
        fen, variant = headers.pop("FEN"), headers.pop("Variant", None)
        headers.pop("SetUp", None)
        headers["SetUp"] = "1"
        headers["FEN"] = fen
        if variant is not None:
            headers["Variant"] = variant


def _fastchess_tags(
    headers: chess.pgn.Headers, spec: GameSpec, *, termination: str, plies: int, started: dt.datetime,
    ended: dt.datetime,
) -> None:
    """fastchess's tags after the start position: duration, start and end, plies, termination, time control."""
    seconds = max(0, int((ended - started).total_seconds()))
    headers["GameDuration"] = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    headers["GameStartTime"] = started.strftime(_TIME_FORMAT)
    headers["GameEndTime"] = ended.strftime(_TIME_FORMAT)
    headers["PlyCount"] = str(plies)
    headers["Termination"] = termination
    white, black = spec.white_limits.pgn_tag(), spec.black_limits.pgn_tag()
    if white == black:
        headers["TimeControl"] = white
    else:
        headers["WhiteTimeControl"] = white
        headers["BlackTimeControl"] = black


def _written(game: chess.pgn.Game, root: chess.Board, moves: list[str], comments: list[str], result: str) -> str:
    """``game``'s headers and comment with ``moves`` (as written) and their ``comments``, as python-chess's
    exporter writes a game (move numbers, comments, result, lines within :data:`COLUMNS`), but fed to it
    token by token: no move tree, no board."""
    exporter = chess.pgn.StringExporter(columns=COLUMNS)
    exporter.begin_game()
    exporter.begin_headers()
    for name, value in game.headers.items():
        exporter.visit_header(name, value)
    exporter.end_headers()
    if game.comment:
        _comment(exporter, game.comment)
    turn, number = root.turn, root.fullmove_number
    for ply, move in enumerate(moves):
        if turn == chess.WHITE:
            exporter.write_token(f"{number}. ")
        elif exporter.force_movenumber:
            exporter.write_token(f"{number}... ")
        exporter.write_token(move + " ")
        exporter.force_movenumber = False
        if ply < len(comments) and comments[ply]:
            _comment(exporter, comments[ply])
        if turn == chess.BLACK:
            number += 1
        turn = not turn
    exporter.visit_result(result)
    exporter.end_game()
    return exporter.result() + "\n\n"


def _comment(exporter: chess.pgn.StringExporter, comment: str) -> None:
    """A comment as the exporter writes it (``{ text }``, one token, kept on one line), or, when it would not
    fit in a line, a word at a time, so that the exporter's line breaking wraps it too."""
    text = comment.replace("}", "").strip()
    if len(text) + 5 <= COLUMNS:  # "{ " + text + " } "
        exporter.visit_comment(text)
        return
    first, *words = text.split()
    tokens = [f"{{ {first}", *words]
    tokens[-1] += " }"
    for token in tokens:
        exporter.write_token(token + " ")
    exporter.force_movenumber = True
