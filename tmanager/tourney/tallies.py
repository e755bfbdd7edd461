"""A tourney's results string counted per participant against the field: games and complete game pairs.

What :mod:`tmanager.core.fieldtable` prints for a gauntlet or a round robin.
Counted at C speed however long the tourney: the schedule repeats itself every
:attr:`~tmanager.core.schedule.Schedule.period` games, so each slot of the
first period, with its pair partner, stands for a strided slice of the string,
and a pair's two games are zipped slice against slice.
"""

from __future__ import annotations

from collections import Counter

from tmanager.core.fieldtable import FieldRecord
from tmanager.tourney.model import SWISS_TYPES, Tourney

#: A results character's points for the game's white, in half points; unfinished games count none.
_WHITE_HALVES = {"+": 2, "=": 1, "-": 0}


def field_records(tourney: Tourney) -> list[FieldRecord]:
    """Each participant's games and complete pairs against all it met, from its side. A Swiss is paired
    round by round and has no period: its games are counted one by one."""
    n = len(tourney.participants)
    wdl = [[0, 0, 0] for _ in range(n)]  # wins, draws, losses
    penta = [[0] * 5 for _ in range(n)]
    schedule = tourney.schedule()
    results = tourney.results
    period = schedule.total_games if tourney.settings.type in SWISS_TYPES else schedule.period
    has_pairs = False
    for slot in range(min(period, len(results))):
        game = schedule.game(slot)
        if game is None:
            continue
        games = results[slot::period]
        for char, halves in _WHITE_HALVES.items():
            count = games.count(char)
            wdl[game.white][2 - halves] += count  # the white's win (2 halves) is index 0
            wdl[game.black][halves] += count
        partner = schedule.partner(slot)
        if partner is None or not slot < partner < period:
            continue
        other = schedule.game(partner)
        if other is None:
            continue
        has_pairs = True
        same_white = other.white == game.white
        for (a, b), count in Counter(zip(games, results[partner::period], strict=False)).items():
            if a in _WHITE_HALVES and b in _WHITE_HALVES:
                first = _WHITE_HALVES[a] + (_WHITE_HALVES[b] if same_white else 2 - _WHITE_HALVES[b])
                penta[game.white][first] += count
                penta[game.black][4 - first] += count
    return [
        FieldRecord(p.name, w, d, lost, (c[0], c[1], c[2], c[3], c[4]) if has_pairs else None)
        for p, (w, d, lost), c in zip(tourney.participants, wdl, penta, strict=True)
    ]
