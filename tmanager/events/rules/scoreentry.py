"""A score-based division's results as tsh takes them: result lines and forms by the division's ``entry`` mode
(two scores, a spread, or both), forfeits, implausible scores entered only when confirmed, and the echo with both
players' records (tsh's Addscore).

:func:`parse_entry` reads a result line into a typed entry (:mod:`tmanager.events.entries`), :func:`enter` makes
it; :class:`~tmanager.events.rules.scored.ScoreRules` answers with them for its division, and dry runs draw
scores from :func:`random_scores`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tmanager.core.results import Result
from tmanager.errors import StateError, ascii_digits
from tmanager.events.entries import BoardRef, Entry, PlayersRef, ResultEntry, ScoreEntry, Where
from tmanager.events.messages import Note, Topic
from tmanager.events.model import Board, Division, EntryMode, Event, Player, Round, label
from tmanager.events.operations import board_at, find_player, locate, refuse_entered
from tmanager.events.ranking import record_text, wins_standings
from tmanager.events.rules.base import whole_number
from tmanager.events.scorecards import forfeit_spreads, result_text, settings_of

#: The rating assumed for unrated players in dry runs.
UNRATED = 1400
#: Scores outside this range are entered only when confirmed (tsh warns below 100 and balks above 1500).
PLAUSIBLE = range(100, 1501)


class SuspiciousScore(StateError):
    """A score outside :data:`PLAUSIBLE`; it goes in only when confirmed (``--yes``)."""

    def __init__(self, score: int) -> None:
        super().__init__(
            f"the score {score} looks mistyped (below {PLAUSIBLE.start} or above {PLAUSIBLE.stop - 1}); "
            "check the slip, then enter it again confirmed "
            "(--yes; on the arbiter's page, tick 'unusual score is right')",
            topic=Topic.MISTYPED_SCORE,
        )
        self.score = score


#: The result line of each entry mode.
FORMS = {
    EntryMode.SCORES: "BOARD S1 S2 or P1 S1 P2 S2",
    EntryMode.SPREAD: "BOARD SPREAD or P1 SPREAD P2",
    EntryMode.BOTH: "BOARD S1 S2 SPREAD or P1 S1 P2 S2 SPREAD",
}
#: The numbers of each entry mode's result line, as form fields: name and what it is.
SCORE_FIELDS = {
    EntryMode.SCORES: (("s1", "first player's score"), ("s2", "second player's score")),
    EntryMode.SPREAD: (("spread", "spread of the first player"),),
    EntryMode.BOTH: (("s1", "first player's score"), ("s2", "second player's score"), ("spread", "spread")),
}
#: What a result form offers besides the scores: forfeits and clearing the result.
FORFEIT_CHOICES = (("", "scores"), (Result.WHITE_WINS_BY_FORFEIT, "forfeit: first wins"),
                   (Result.BLACK_WINS_BY_FORFEIT, "forfeit: second wins"), (Result.DOUBLE_FORFEIT, "both forfeit"),
                   (Result.PENDING, "no result"))  # fmt: skip
#: The results a line may end with instead of scores: a forfeit, or clearing the result.
_WITHOUT_SCORES = {"+-", "-+", "--", "*"}
_FORFEITS = frozenset(map(Result, _WITHOUT_SCORES))


def parse_entry(entry_mode: EntryMode, words: Sequence[str]) -> Entry:
    """A result line of a score-based division, by its ``entry`` mode (:data:`FORMS`), or a forfeit.

    ``BOARD +-`` / ``P1 P2 -+`` (``--``, ``*``) enter a forfeit (or clear a result). By players, P1's numbers come
    first: ``P1 S1 P2 S2``, ``P1 SPREAD P2``, ``P1 S1 P2 S2 SPREAD`` (P2 is the third word in every form).
    """
    words = list(words)
    if words and words[-1] in _WITHOUT_SCORES and len(words) in (2, 3):
        result = Result(words[-1])
        if len(words) == 2:
            return ResultEntry(BoardRef(whole_number(words[0], "board number")), result)
        return ResultEntry(PlayersRef(words[0], words[1]), result)
    numbers = len(SCORE_FIELDS[entry_mode])
    if len(words) == 1 + numbers and ascii_digits(words[0]):
        return ScoreEntry(BoardRef(int(words[0])), tuple(whole_number(w, "score") for w in words[1:]))
    if len(words) == 2 + numbers:
        values = tuple(whole_number(w, "score") for i, w in enumerate(words) if i not in (0, 2))
        return ScoreEntry(PlayersRef(words[0], words[2]), values)
    raise StateError(f"give {FORMS[entry_mode]} (entry = {str(entry_mode)!r}), or a forfeit: BOARD +- or P1 P2 +-")


def _seat(division: Division, n: int, where: Where) -> tuple[Board, Player | None]:
    """The board of round ``n`` an entry names, and the player named first (None: by board)."""
    if isinstance(where, BoardRef):
        if where.match is not None:
            raise StateError(f"{where.match}.{where.number} names a board of a team match: give the board alone")
        return board_at(division, n, where.number), None
    first = find_player(division, where.first)
    return locate(division, n, first, find_player(division, where.second)), first


def enter(
    event: Event, division: Division, entry: Entry, round_number: int | None, *, correction: bool, confirm: bool = False
) -> list[str]:
    """Enter a score-based division's result: a forfeit (or clearing it), or the numbers of its ``entry`` mode.

    With ``track_firsts`` but not ``assign_firsts`` the player named first is recorded as having gone first.
    Scores outside :data:`PLAUSIBLE` raise :class:`SuspiciousScore` unless ``confirm``.
    """
    rules = settings_of(division)
    n = division.paired_rounds if round_number is None else round_number
    if n < 1 and round_number is None:
        raise StateError("no round is paired yet")
    wrong = f"give {FORMS[rules.entry]} (entry = {str(rules.entry)!r}), or a forfeit: BOARD +- or P1 P2 +-"
    if isinstance(entry, ResultEntry):
        if entry.result not in _FORFEITS:
            raise StateError(wrong)
        board, named = _seat(division, n, entry.where)
        result = entry.result.reversed if named and named.number == board.black else entry.result
        refuse_entered(division, n, board, correction=correction, shown=result_text(division, board))
        old = board.result
        board.result = result
        board.scores = None if result == Result.PENDING else forfeit_spreads(rules, result)
        _entered(division.round(n), board)
        return [_echo(division, n, board), *_later_warning(division, n, old, correction)]
    values = entry.values
    if len(values) != len(SCORE_FIELDS[rules.entry]):
        raise StateError(wrong)
    board, named = _seat(division, n, entry.where)
    first = named or division.player(board.white)
    if rules.entry == EntryMode.SPREAD:
        spread = values[0]
        scores = (spread, 0) if spread >= 0 else (0, -spread)
    else:
        scores = (values[0], values[1])
        if rules.entry == EntryMode.BOTH and values[2] != scores[0] - scores[1]:
            raise StateError(
                f"the spread {values[2]:+d} does not match the scores {scores[0]}-{scores[1]} "
                f"({scores[0] - scores[1]:+d}); check the slip",
                topic=Topic.SPREAD_MISMATCH,
            )
        odd = [s for s in scores if s not in PLAUSIBLE]
        if odd and not confirm:
            raise SuspiciousScore(odd[0])
    refuse_entered(division, n, board, correction=correction, shown=result_text(division, board))
    if first.number == board.black:
        if rules.track_firsts and not rules.assign_firsts:
            board.white, board.black = board.black, board.white  # P1 went first
        else:
            scores = (scores[1], scores[0])
    old = board.result
    board.scores = scores
    board.result = Result.from_scores(*scores)
    _entered(division.round(n), board)
    return [_echo(division, n, board), *_later_warning(division, n, old, correction)]


def _entered(record: Round, board: Board) -> None:
    """A result is in: who went first is now the board's order, whatever ``p12`` code a .t file gave."""
    record.p12.pop(board.white, None)
    record.p12.pop(board.black, None)


def _echo(division: Division, n: int, board: Board) -> str:
    """The entry read back with both players' new records, as tsh's Addscore does."""
    lines = {line.player.number: line for line in wins_standings(division, division.paired_rounds)}
    index = division.round(n).board_number(board)

    def side(number: int) -> str:
        return f"{label(division.player(number))} [{record_text(lines[number])}]"

    return f"round {n} board {index}: {side(board.white)} {result_text(division, board)} {side(board.black)}"


def _later_warning(division: Division, n: int, old: Result, correction: bool) -> list[str]:
    if not correction or n >= division.paired_rounds:
        return []
    later = f"{n + 1}" if n + 1 == division.paired_rounds else f"{n + 1}-{division.paired_rounds}"
    return [
        Note(f"warning: later round(s) {later} were paired before this correction (was {old}); they stand",
             Topic.OLD_RESULT)
    ]  # fmt: skip


def random_scores(first: int, second: int, rng: random.Random) -> tuple[int, int]:
    """Game scores of players rated ``first`` and ``second`` (0: unrated): about 380, 10 points per 100 rating."""

    def one(rating: int) -> int:
        mean = 380 + ((rating or UNRATED) - UNRATED) / 10
        return max(PLAUSIBLE.start, min(PLAUSIBLE.stop - 1, round(rng.gauss(mean, 60))))

    return one(first), one(second)
