"""What is wrong with an engine's principal variations: the checks fastchess makes of every ``info`` line.

fishtest runs fastchess with ``-check-mate-pvs`` and stops a test whose engine
sends a PV that fastchess finds wrong (its ``Warning; …`` lines). The checks,
as fastchess's ``checkParsedPvLine`` and ``checkParsedBestmovePv`` make them:

* every move of a PV is legal, and none follows the end of the game (a mate,
  a stalemate, a threefold repetition counting the game's own history, the
  fifty-move rule; insufficient material does not end a PV);
* a mate score's PV (not a bound) mates in exactly the plies the score says;
* the best move is the first move of the last PV of the first line (``multipv 1``);
* after each move, the engine that made it and the one that moved before it do not both claim a mate,
  nor both to be mated (``checkMateScoreSignMismatch``, on each one's last scored line).

Pure functions of a board and the engine's lines: no engine, no process.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

import chess

#: The words an ``info`` line is made of, besides its values: where a PV ends.
_INFO_KEYWORDS = frozenset({
    "depth", "seldepth", "time", "nodes", "pv", "multipv", "score", "currmove", "currmovenumber", "hashfull", "nps",
    "tbhits", "sbhits", "cpuload", "string", "refutation", "currline", "wdl", "lowerbound", "upperbound", "ebf",
})  # fmt: skip


class PvProblem(enum.StrEnum):
    """What is wrong with a PV; the values are fastchess's words."""

    ILLEGAL_MOVE = "Illegal PV move"
    AFTER_REPETITION = "PV continues after threefold repetition"
    AFTER_FIFTY_MOVES = "PV continues after fifty-move rule"
    AFTER_CHECKMATE = "PV continues after checkmate"
    AFTER_STALEMATE = "PV continues after stalemate"
    INCOMPLETE_MATE = "Incomplete mating PV"
    TOO_LONG_MATE = "Too long mating PV"
    MATE_WITHOUT_CHECKMATE = "Mating PV does not end with checkmate"
    BESTMOVE_MISMATCH = "Bestmove does not match beginning of last PV"
    #: Of two engines' moves in a row, not of one line: see :func:`mate_sign_mismatch`.
    SIGN_MISMATCH = "Sign mismatch in mate scores"
    #: Of a search's report, which gives no score (:func:`score_problem`): one line each, without the game.
    NO_INFO_LINE = "No info line available to extract score from engine"
    NO_SCORE = "Could not extract score from engine"

    @property
    def names_a_move(self) -> bool:
        return self not in (
            PvProblem.INCOMPLETE_MATE, PvProblem.TOO_LONG_MATE, PvProblem.MATE_WITHOUT_CHECKMATE,
            PvProblem.SIGN_MISMATCH, PvProblem.NO_INFO_LINE, PvProblem.NO_SCORE,
        )

    @property
    def of_the_score(self) -> bool:
        return self in (PvProblem.NO_INFO_LINE, PvProblem.NO_SCORE)


@dataclass(frozen=True, slots=True)
class PvFinding:
    """A problem of one ``info`` line: what, and the move at fault (if one is). A sign mismatch's ``info`` is
    the two engines' lines joined by `` ; ``, and its ``move`` their two mate scores (``3 and 1``)."""

    problem: PvProblem
    info: str
    move: str = ""


@dataclass(frozen=True, slots=True)
class PvWarning:
    """A finding with what shows it: the engine (a sign mismatch's two with their colours, ``A (White) and
    B (Black)``), the game's start (``startpos`` or ``fen …``) and its moves."""

    finding: PvFinding
    engine: str
    start: str
    moves: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Info:
    """What the checks read of an ``info`` line."""

    pv: tuple[str, ...] = ()
    mate: int | None = None
    bound: bool = False
    multipv: int | None = None


def read_info(line: str) -> Info:
    """The PV, mate score, bound and multipv of an ``info`` line (``info`` itself may lead)."""
    words = line.split()
    pv: list[str] = []
    mate, bound, multipv = None, False, None
    i = 1 if words[:1] == ["info"] else 0
    while i < len(words):
        word = words[i]
        if word == "string":
            break
        if word == "pv":
            i += 1
            while i < len(words) and words[i] not in _INFO_KEYWORDS:
                pv.append(words[i])
                i += 1
            continue
        if word == "score" and i + 2 < len(words) and words[i + 1] == "mate":
            mate = _number(words[i + 2])
        elif word in ("lowerbound", "upperbound"):
            bound = True
        elif word == "multipv" and i + 1 < len(words):
            multipv = _number(words[i + 1])
        i += 1
    return Info(tuple(pv), mate, bound, multipv)


def _number(word: str) -> int | None:
    try:
        return int(word)
    except ValueError:
        return None


def check_line(board: chess.Board, line: str, *, mates: bool) -> PvFinding | None:
    """The first problem of ``line``'s PV from ``board`` (the position the engine was asked about, with
    the game's moves on its stack), with ``mates`` also of a mate score's PV; ``None`` when it is sound."""
    return _check(board.copy(), line, mates=mates)


def _check(position: chess.Board, line: str, *, mates: bool) -> PvFinding | None:
    """:func:`check_line` on ``position``, which it plays the PV on and takes back: copying a board with its
    game's moves for every line cost most of the time of the checks."""
    info = read_info(line)
    pushed = 0
    try:
        for move in info.pv:
            ended = _ended(position)
            if ended is not None:
                return PvFinding(ended, line, move)
            try:
                legal = position.parse_uci(move)
            except ValueError:
                return PvFinding(PvProblem.ILLEGAL_MOVE, line, move)
            position.push(legal)
            pushed += 1
        if not info.pv or not mates or info.mate is None or info.bound:
            return None
        plies = 2 * info.mate - 1 if info.mate > 0 else -2 * info.mate
        if len(info.pv) < plies:
            return PvFinding(PvProblem.INCOMPLETE_MATE, line)
        if len(info.pv) > plies:
            return PvFinding(PvProblem.TOO_LONG_MATE, line)
        if not position.is_checkmate():
            return PvFinding(PvProblem.MATE_WITHOUT_CHECKMATE, line)
        return None
    finally:
        for _ in range(pushed):
            position.pop()


def _ended(board: chess.Board) -> PvProblem | None:
    """Why the game has ended in ``board`` as fastchess's PV check sees it (its ``isGameOver``, in its
    order), or ``None``: a position it deems short of mating material is no end there."""
    if board.halfmove_clock >= 100:
        return PvProblem.AFTER_CHECKMATE if board.is_checkmate() else PvProblem.AFTER_FIFTY_MOVES
    if _short_of_material(board):
        return None
    if board.is_repetition(3):
        return PvProblem.AFTER_REPETITION
    if not any(board.generate_legal_moves()):
        return PvProblem.AFTER_CHECKMATE if board.is_check() else PvProblem.AFTER_STALEMATE
    return None


def _short_of_material(board: chess.Board) -> bool:
    """fastchess's insufficient material: kings alone, a king and a minor piece, or bishops all on squares
    of one colour (one each side, or two of one side)."""
    pieces = chess.popcount(board.occupied)
    bishops = board.bishops
    if pieces == 2:
        return True
    if pieces == 3:
        return bool(bishops | board.knights)
    # Four pieces, two of them bishops (one each side, or both of one): short when on one colour of square.
    return pieces == 4 and chess.popcount(bishops) == 2 and (
        not bishops & chess.BB_LIGHT_SQUARES or not bishops & chess.BB_DARK_SQUARES
    )


def check_bestmove(lines: list[str], bestmove: str) -> PvFinding | None:
    """Whether ``bestmove`` begins the PV of the last line of the first PV (``multipv 1`` or none), unless
    that line is a bound."""
    for line in reversed(lines):
        info = read_info(line)
        if info.multipv in (None, 1):
            if info.bound or not info.pv or info.pv[0] == bestmove:
                return None
            return PvFinding(PvProblem.BESTMOVE_MISMATCH, line, bestmove)
    return None


def last_info_line(lines: Sequence[str]) -> str:
    """fastchess's ``lastInfoLine`` of a search: its last line with a score of the first PV (no ``multipv``,
    or ``multipv 1``), an exact score before a bound, never an ``info string``; empty when there is none."""
    fallback = ""
    for line in reversed(lines):
        if "info string" in line or "info" not in line or " score " not in line:
            continue
        if " multipv " in line and " multipv 1" not in line:
            continue
        if "lowerbound" not in line and "upperbound" not in line:
            return line
        fallback = fallback or line
    return fallback


def score_problem(lines: Sequence[str]) -> PvFinding | None:
    """What fastchess finds missing in the report of a search that sent more than its ``bestmove`` (``lines``,
    the others): a scored line (:func:`last_info_line`), or a score that reads; a ``NO_SCORE`` finding's
    ``info`` is fastchess's reason."""
    if not lines:
        return None
    line = last_info_line(lines)
    if not line:
        return PvFinding(PvProblem.NO_INFO_LINE, "")
    error = None
    words = line.split()
    for i, word in enumerate(words):  # fastchess's parseInfo: the last score read wins, up to the PV
        if word == "pv":
            break
        if word != "score":
            continue
        if i + 2 >= len(words):
            error = "Element 'score' has no type or value"
        elif words[i + 1] not in ("cp", "mate"):
            error = f"Unexpected score type: {line}"
        elif not re.fullmatch(r"-?[0-9]+", words[i + 2]):
            error = f"Invalid score value: {words[i + 2]}"
        else:
            error = None
    return None if error is None else PvFinding(PvProblem.NO_SCORE, error)


def mate_sign_mismatch(them: str, us: str) -> PvFinding | None:
    """fastchess's check after each move of an engine whose opponent played the move before (not a book
    move): ``us``, the last scored line (:func:`last_info_line`) of the search that chose the move, and
    ``them``, the opponent's, both give mate scores of one sign: both engines see their own mate, or both
    their own loss."""
    them_mate, us_mate = read_info(them).mate, read_info(us).mate
    if them_mate is None or us_mate is None or them_mate * us_mate <= 0:
        return None
    return PvFinding(PvProblem.SIGN_MISMATCH, f"{them} ; {us}", f"{them_mate} and {us_mate}")


def check_search(board: chess.Board, lines: list[str], bestmove: str, *, mates: bool) -> list[PvFinding]:
    """Every problem of one search's ``info`` lines and its best move, in fastchess's order."""
    position = board.copy()
    found = [finding for line in lines if (finding := _check(position, line, mates=mates)) is not None]
    last = check_bestmove(lines, bestmove)
    return [*found, *([last] if last is not None else [])]


def matching_lines(lines: list[str], patterns: Sequence[str]) -> list[str]:
    """For each regular expression, the last of ``lines`` that it matches (fastchess's ``match_line``)."""
    quoted = []
    for pattern in patterns:
        regex = re.compile(pattern)
        found = next((line for line in reversed(lines) if regex.search(line)), None)
        if found is not None:
            quoted.append(found)
    return quoted
