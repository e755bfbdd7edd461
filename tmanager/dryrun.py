"""Dry runs, as tsh's DRYrun: the remaining rounds of a division simulated on a copy of the event.

Missing results of the paired rounds are filled in first; then each round is
paired with the division's own settings and played with random results drawn
from the ratings (the expected score of FIDE's table, with draws likelier
between close ratings). A score-based division is paired the tsh way
(:func:`tmanager.event_scored.pair`) and played with random game scores
entered as its ``entry`` reads them; its reports are the tsh-style ones. The
event itself is never written: an arbiter checks the pairing settings, the
byes and the reports before the event starts.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

from tmanager import event as ev
from tmanager import event_scored, reports, reports_scored
from tmanager.core import fide
from tmanager.errors import StateError

#: The rating assumed for unrated players (FIDE's rating floor).
UNRATED = 1400
#: The draw probability of two equally rated players; it shrinks with the expected score's distance from ½.
DRAW_RATE = 0.3


def random_result(white: int, black: int, rng: random.Random) -> str:
    """A result for white rated ``white`` against ``black`` (0: unrated), drawn from FIDE's expected score."""
    expected = fide.expected(white or UNRATED, black or UNRATED)
    draw = DRAW_RATE * (1 - abs(2 * expected - 1))
    x = rng.random()
    if x < expected - draw / 2:
        return "1-0"
    return "½-½" if x < expected + draw / 2 else "0-1"


def random_scores(first: int, second: int, rng: random.Random) -> tuple[int, int]:
    """Game scores of players rated ``first`` and ``second`` (0: unrated): about 380, 10 points per 100 rating."""

    def one(rating: int) -> int:
        mean = 380 + ((rating or UNRATED) - UNRATED) / 10
        return max(event_scored.PLAUSIBLE.start, min(event_scored.PLAUSIBLE.stop - 1, round(rng.gauss(mean, 60))))

    return one(first), one(second)


def _entry_words(rules: ev.ScoredRules, number: int, scores: tuple[int, int]) -> list[str]:
    """A result line of board ``number`` in the division's entry mode."""
    s1, s2 = scores
    values = {"scores": [s1, s2], "spread": [s1 - s2], "both": [s1, s2, s1 - s2]}[rules.entry]
    return [str(number), *map(str, values)]


def _play(event: ev.Event, division: ev.Division, record: ev.Round, rng: random.Random) -> None:
    for board in record.boards:
        if board.result in ev.PENDING and division.scored is not None:
            ratings = (division.player(board.white).rating, division.player(board.black).rating)
            words = _entry_words(division.scored, record.board_number(board), random_scores(*ratings, rng))
            event_scored.enter(event, division, words, record.number, correction=False, confirm=True)
        elif board.result in ev.PENDING:
            white, black = division.player(board.white).rating, division.player(board.black).rating
            ev.set_result(event, division, record.number, board, random_result(white, black, rng))


def simulate(
    event: ev.Event, division: str | None, *, rounds: int | None, seed: int | None
) -> Iterator[tuple[list[str], list[reports.Report]]]:
    """Pair and play up to ``rounds`` more rounds (default: all remaining) on a copy of ``event``.

    Yields, per round, the pairing messages and the round's pairings and
    standings reports.
    """
    event = copy.deepcopy(event)
    d = event.division(division)
    if d.system == "manual":
        raise StateError("a manual division has no pairing to try: force the games of each round instead")
    total = event.total_rounds(d)
    remaining = total - d.paired_rounds if total else 0
    count = remaining if rounds is None else rounds
    if rounds is None and not total:
        raise StateError("the event has no planned rounds: give --rounds N")
    if total and count > remaining:
        raise StateError(f"only {remaining} round(s) remain of {total}")
    rng = random.Random(seed)
    for record in d.rounds:
        if record.paired:
            _play(event, d, record, rng)
    if not total:
        event.rounds = d.paired_rounds + count
    for _ in range(count):
        messages = ev.pair(event, d, rng=rng)
        record = d.round(d.paired_rounds)
        if d.scored is not None:
            pairing = reports_scored.pairings(event, d, record.number)
            _play(event, d, record, rng)
            yield messages, [pairing, reports_scored.standings(event, d)]
            continue
        pairing = reports.pairings(reports.context(event, d), record.number)
        _play(event, d, record, rng)
        yield messages, [pairing, reports.standings(reports.context(event, d))]
