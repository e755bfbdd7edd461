"""Swiss engine tourneys: turn a tourney's results into pairing history and pair the next round.

In a Dutch Swiss (``type = "swiss"``) a pairing of G games counts, for the
pairing rules, as one match: won, drawn or lost on its total, with the colour
its first game was played with. In a Double-Swiss (``type = "double-swiss"``,
FIDE C.04.5) a pairing is the system's match of two games: each game scores
for itself, and the two games are the schedule's natural pair (one opening,
colours reversed). Each cycle is a Swiss of its own. The boards of every
paired round are stored in the tourney file (``[swiss] rounds``), white being
game 1's, so pairings survive restarts; the participant missing from a round's
boards has the bye.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tmanager.core.results import TrfResult
from tmanager.tourney import tallies
from tmanager.tourney.model import BLACK_WINS, DRAW, FINISHED_CHARS, SWISS_TYPES, WHITE_WINS, Tourney, TourneyType

if TYPE_CHECKING:
    from tmanager.pairing import PlayerState


def _match_points(tourney: Tourney, absolute_round: int, pairing: int) -> tuple[float, float]:
    """Points of the pairing's white and black over its games."""
    schedule = tourney.schedule()
    first = schedule.games_of_round(absolute_round).start + pairing * schedule.games_per_pairing
    own = [0.0, 0.0]
    for game in range(schedule.games_per_pairing):
        char = tourney.result(first + game)
        side = game % 2  # the pairing's white has white in even games
        if char == DRAW:
            own[0] += 0.5
            own[1] += 0.5
        elif char in (WHITE_WINS, BLACK_WINS):
            own[side if char == WHITE_WINS else 1 - side] += 1
    return own[0], own[1]


def game_history(tourney: Tourney, cycle: int, rounds: int) -> list[PlayerState]:
    """Every participant's games over the first ``rounds`` rounds of ``cycle``, two entries per match (Double-Swiss).

    A bye is a game won and a game drawn (``U`` and ``H``), as the Double-Swiss values it.
    """
    from tmanager.pairing import BLACK, WHITE, Game, PlayerState

    codes = {WHITE_WINS: (TrfResult.WIN, TrfResult.LOSS), BLACK_WINS: (TrfResult.LOSS, TrfResult.WIN),
             DRAW: (TrfResult.DRAW, TrfResult.DRAW)}  # fmt: skip
    n = len(tourney.participants)
    games: list[list[Game]] = [[] for _ in range(n)]
    schedule = tourney.schedule()
    byes = tallies.byes(tourney)
    first_round = cycle * tourney.settings.swiss_rounds
    for absolute in range(first_round, first_round + rounds):
        start = schedule.games_of_round(absolute).start
        for pairing, (white, black) in enumerate(tourney.swiss[absolute]):
            for game in range(2):  # the pairing's white has white in game 1
                first, second = codes[tourney.result(start + 2 * pairing + game)]
                on_white, on_black = (white, black) if game == 0 else (black, white)
                games[on_white].append(Game(opponent=on_black + 1, colour=WHITE, result=first))
                games[on_black].append(Game(opponent=on_white + 1, colour=BLACK, result=second))
        if byes:
            games[byes[absolute]] += [Game(None, None, TrfResult.PAIRING_BYE), Game(None, None, TrfResult.HALF_BYE)]
    return [PlayerState(id=i + 1, games=tuple(g), rank=i + 1) for i, g in enumerate(games)]


def history(tourney: Tourney, cycle: int, rounds: int) -> list[PlayerState]:
    """Every participant's pairing history over the first ``rounds`` rounds of ``cycle``."""
    # Imported here, as below: only Swiss tourneys need the pairing package (workers of others never load it).
    from tmanager.pairing import BLACK, WHITE, Game, PlayerState

    n = len(tourney.participants)
    games: list[list[Game]] = [[] for _ in range(n)]
    byes = tallies.byes(tourney)
    first_round = cycle * tourney.settings.swiss_rounds
    for absolute in range(first_round, first_round + rounds):
        for pairing, (white, black) in enumerate(tourney.swiss[absolute]):
            white_points, black_points = _match_points(tourney, absolute, pairing)
            outcome = (TrfResult.WIN if white_points > black_points
                       else TrfResult.LOSS if white_points < black_points else TrfResult.DRAW)  # fmt: skip
            games[white].append(Game(opponent=black + 1, colour=WHITE, result=outcome))
            games[black].append(Game(opponent=white + 1, colour=BLACK, result=outcome.opposite))
        if byes:
            games[byes[absolute]].append(Game(opponent=None, colour=None, result=TrfResult.PAIRING_BYE))
    # Pairing numbers follow the participants' order, as a seeded list would.
    return [PlayerState(id=i + 1, games=tuple(g), rank=i + 1) for i, g in enumerate(games)]


def pair_next_round(tourney: Tourney) -> bool:
    """Pair the next Swiss round if every game before it is finished; ``True`` if one was paired."""
    schedule = tourney.schedule()
    absolute = len(tourney.swiss)
    if tourney.settings.type not in SWISS_TYPES or absolute >= schedule.total_rounds:
        return False
    before = schedule.games_of_round(absolute).start
    if len(tourney.results) < before or any(c not in FINISHED_CHARS for c in tourney.results[:before]):
        return False
    rounds = tourney.settings.swiss_rounds
    cycle, round_in_cycle = divmod(absolute, rounds)
    from tmanager.pairing import PointsSystem, pair_round

    if tourney.settings.type is TourneyType.DOUBLE_SWISS:
        from tmanager.pairing.doubleswiss import pair_double_swiss

        draw = PointsSystem().draw
        matches = pair_double_swiss(
            game_history(tourney, cycle, round_in_cycle),
            round_number=round_in_cycle + 1,
            total_rounds=rounds,
            points=PointsSystem(pairing_bye=round(10 * tallies.bye_points(tourney)) - draw),
        )
        tourney.swiss.append([(white - 1, black - 1) for white, black in matches.pairing.boards])
        return True
    g = tourney.settings.games_per_pairing
    points = PointsSystem(pairing_bye=round(10 * tallies.bye_points(tourney) / g))
    pairing = pair_round(
        history(tourney, cycle, round_in_cycle),
        round_number=round_in_cycle + 1,
        total_rounds=rounds,
        points=points,
    )
    tourney.swiss.append([(white - 1, black - 1) for white, black in pairing.boards])
    return True
