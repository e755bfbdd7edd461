"""A score-based division's record as tsh keeps it: scorecards, byes' spreads, results as entered, high scores.

A division with ``entry`` set (:class:`~tmanager.events.model.ScoredSettings`)
keeps its games in the ordinary event model: a board's ``white`` went first,
its ``result`` is the outcome and its ``scores`` the two scores, or with
spread-only entry the spread as the winner's score and 0 as the loser's; for a
forfeit they are the spreads awarded. A bye's spread is kept in the round's
``spreads``. :func:`scorecards` turns a division into the pure core's
:class:`~tmanager.pairing.scored.Scorecard` values, from which standings
(:func:`tmanager.events.ranking.wins_standings`), pairings and files are made.
"""

from __future__ import annotations

from dataclasses import dataclass

from tmanager.core.results import ByeKind, Result
from tmanager.errors import StateError
from tmanager.events.model import Board, Division, EntryMode, Player, PlayerStatus, Round, ScoredSettings
from tmanager.pairing.scored import BYE, FIRST, NEITHER, SECOND, UNKNOWN, Scorecard

#: How to mend a score-based verb given a chess division: another division, or the chess division's own files.
NOT_SCORE_BASED_HINT = (
    "name a score-based division with -d DIVISION; a chess division is written with export-trf or export-tou"
)


def not_score_based(division: Division) -> str:
    """What a score-based verb given a chess division says (with :data:`NOT_SCORE_BASED_HINT`)."""
    return f"division {division.name!r} is not score-based (its file sets no entry)"


def settings_of(division: Division) -> ScoredSettings:
    """The division's score-based settings; :class:`StateError` for a chess division."""
    if division.scored is None:
        raise StateError(not_score_based(division), hint=NOT_SCORE_BASED_HINT)
    return division.scored


def bye_spread(division: Division, record: Round, number: int) -> int:
    """The spread of ``number``'s bye in ``record``: as stored, else by its kind (late entries, requested byes)."""
    rules = settings_of(division)
    if number in record.spreads:
        return record.spreads[number]
    kind = record.byes[number]
    if kind in (ByeKind.PAIRING, ByeKind.FULL):
        return rules.bye_spread
    return 0 if kind == ByeKind.HALF else rules.forfeit_spread


def off_spread(division: Division, player: Player) -> int:
    """The spread a player gets for each round missed while off: their own ``off``, else ``forfeit_spread``."""
    return player.off if player.off is not None else settings_of(division).forfeit_spread


def bye_kind(spread: int) -> ByeKind:
    """The kind of a round without an opponent, by its spread as tsh reads it: a bye, or a forfeit loss if negative."""
    return ByeKind.FULL if spread > 0 else ByeKind.HALF if spread == 0 else ByeKind.FORFEIT


def forfeit_spreads(rules: ScoredSettings, result: Result) -> tuple[int, int]:
    """The spreads of a forfeit in board order: ``bye_spread`` to the winner, ``forfeit_spread`` to a loser."""
    win, loss = rules.bye_spread, rules.forfeit_spread
    if result == Result.WHITE_WINS_BY_FORFEIT:
        return win, loss
    return (loss, win) if result == Result.BLACK_WINS_BY_FORFEIT else (loss, loss)


def p12_codes(rules: ScoredSettings, board: Board) -> tuple[int, int]:
    """The ``p12`` codes of a board's two players as its order says (a .t file's others are in ``Round.p12``)."""
    if not rules.track_firsts:
        return NEITHER, NEITHER
    if board.result.pending and not rules.assign_firsts:
        return UNKNOWN, UNKNOWN  # decided at the table; the entry says who went first
    return FIRST, SECOND


def scorecards(division: Division, upto: int | None = None) -> list[Scorecard]:
    """Every player's record of rounds 1..``upto`` (default: every paired round), ids being player numbers.

    A game gives the opponent, the score (None while pending) and the ``p12``
    code (as the board's order says, unless the round keeps another from a
    .t file); a forfeit is recorded as tsh records it, without the opponent,
    with the spread awarded; so is a bye. A withdrawn player's card is ``off``.
    """
    rules = settings_of(division)
    last = division.paired_rounds if upto is None else upto
    rows: dict[int, list[tuple[int | None, int | None, int]]] = {p.number: [] for p in division.players}
    for record in division.rounds:
        if not record.paired or record.number > last:
            continue
        code = record.p12.get
        for b in record.boards:
            if b.result.forfeit:
                spreads = b.scores or forfeit_spreads(rules, b.result)
                rows[b.white].append((BYE, spreads[0], code(b.white, NEITHER)))
                rows[b.black].append((BYE, spreads[1], code(b.black, NEITHER)))
                continue
            scores: tuple[int | None, int | None] = b.scores or (None, None)
            first, second = p12_codes(rules, b)
            rows[b.white].append((b.black, scores[0], code(b.white, first)))
            rows[b.black].append((b.white, scores[1], code(b.black, second)))
        for number in record.byes:
            rows[number].append((BYE, bye_spread(division, record, number), code(number, NEITHER)))
        for row in rows.values():
            if len(row) < record.number:
                row.append((None, None, NEITHER))
    return [
        Scorecard(
            id=p.number,
            rating=p.rating,
            opponents=tuple(o for o, _, _ in rows[p.number]),
            scores=tuple(s for _, s, _ in rows[p.number]),
            p12=tuple(c for _, _, c in rows[p.number]),
            off=off_spread(division, p) if p.status == PlayerStatus.WITHDRAWN else None,
        )
        for p in division.players
    ]


def result_text(division: Division, board: Board) -> str:
    """A board's result as entered: ``420-380``, ``+40`` (spread entry), ``+- (+50 -50)`` or ``*``."""
    if board.scores is None or board.result.forfeit:
        return board.result + (f" ({board.scores[0]:+d} {board.scores[1]:+d})" if board.scores else "")
    if settings_of(division).entry == EntryMode.SPREAD:
        return f"{board.scores[0] - board.scores[1]:+d}"
    return f"{board.scores[0]}-{board.scores[1]}"


# -- games won ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Played:
    """A game won over the board: round, board, the winner and the loser with their scores."""

    round: int
    board: int
    winner: Player
    winner_score: int
    loser: Player
    loser_score: int


def check_upto(division: Division, upto: int | None) -> int:
    last = division.paired_rounds if upto is None else upto
    if not 0 <= last <= division.paired_rounds:
        raise StateError(f"round {last} is not paired; there are rounds 0-{division.paired_rounds}")
    return last


def scored_games(division: Division, upto: int) -> list[tuple[int, int, Board]]:
    """(round, board number, board) of the games with scores entered, up to round ``upto``."""
    return [
        (r.number, r.board_number(b), b)
        for r in division.rounds
        if r.paired and r.number <= upto
        for b in r.boards
        if b.scores is not None and not b.result.forfeit
    ]


def high_scores(division: Division, upto: int | None = None) -> dict[str, list[Played]]:
    """tsh's HighWin, HighLoss and LowWin: won games by winning score (down, then up) and by losing score.

    Only games entered with both scores count (none with spread-only entry); ties win nothing.
    """
    last = check_upto(division, upto)
    won = []
    if settings_of(division).entry != EntryMode.SPREAD:
        for n, index, b in scored_games(division, last):
            assert b.scores is not None
            s1, s2 = b.scores
            if s1 != s2:
                w, lo = ((b.white, s1), (b.black, s2)) if s1 > s2 else ((b.black, s2), (b.white, s1))
                won.append(Played(n, index, division.player(w[0]), w[1], division.player(lo[0]), lo[1]))
    return {
        "high wins": sorted(won, key=lambda g: (-g.winner_score, g.round, g.board)),
        "high losses": sorted(won, key=lambda g: (-g.loser_score, g.round, g.board)),
        "low wins": sorted(won, key=lambda g: (g.winner_score, g.round, g.board)),
    }
