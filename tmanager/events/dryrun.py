"""Dry runs, as tsh's DRYrun: the remaining rounds of a division simulated on a copy of the event.

Missing results of the paired rounds are filled in first; then each round is
paired with the division's own settings and played with random results that
its rules draw from the ratings (chess: FIDE's expected score, with draws
likelier between close ratings; score-based: game scores entered as its
``entry`` reads them). Each round's pairings and standings are the division's
own reports (a team division fields each team's first boards where a lineup
is missing). The event itself is never written: an arbiter checks the pairing
settings, the byes and the reports before the event starts.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

from tmanager.errors import StateError
from tmanager.events.model import Event, Round
from tmanager.events.reports import Report
from tmanager.events.rules import DivisionRules, PairOptions, rules_for


def _play(rules: DivisionRules, record: Round, rng: random.Random) -> None:
    for board in record.boards:
        if board.result.pending:
            rules.enter(rules.random_entry(record, board, rng), record.number, correction=False, confirm=True)


def simulate(
    event: Event, division: str | None, *, rounds: int | None, seed: int | None
) -> Iterator[tuple[list[str], list[Report]]]:
    """Pair and play up to ``rounds`` more rounds (default: all remaining) on a copy of ``event``.

    Yields, per round, the pairing messages and the round's pairings and
    standings reports.
    """
    event = copy.deepcopy(event)
    d = event.division(division)
    if rules_for(event, d).paired_by_hand:
        raise StateError("a manual division has no pairing to try: force the games of each round instead")
    total = event.total_rounds(d)
    remaining = total - d.paired_rounds if total else 0
    count = remaining if rounds is None else rounds
    if rounds is None and not total:
        raise StateError("the event has no planned rounds: give --rounds N")
    if rounds is not None and rounds < 1:  # 0 or -2 simulated nothing and said nothing
        raise StateError(f"{rounds} rounds simulate nothing", field="--rounds", hint="one round or more")
    if total and not remaining:  # the default simulated nothing and said nothing
        raise StateError(f"round {total} of {total} is paired: no round remains to simulate")
    if total and count > remaining:
        raise StateError(f"only {remaining} round(s) remain of {total}", field="--rounds",
                         hint=f"--rounds {remaining} or fewer")
    rng = random.Random(seed)
    rules = rules_for(event, d)
    for record in d.rounds:
        if record.paired:
            rules.prepare_play(record)
            _play(rules, record, rng)
    if not total:
        event.rounds = d.paired_rounds + count
    target = d.paired_rounds + count
    while d.paired_rounds < target:
        messages = rules.pair(PairOptions(rng=rng))
        pairings = []
        for n in rules.match_rounds(d.paired_rounds):  # a Double-Swiss pairs both games of a match
            record = d.round(n)
            rules.prepare_play(record)
            pairings.append(rules.reports().pairings(n)[0])
            _play(rules, record, rng)
        yield messages, [*pairings, rules.reports().standings()]
