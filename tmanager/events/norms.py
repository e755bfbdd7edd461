"""Title norms in a chess division: who is eligible, the games that count, and the round a norm was reached.

:mod:`tmanager.core.norms` judges one player's games for one title; this
module gathers them from the division. Games count when played over the
board (1.4.2c: forfeits, byes and absences never do). A player is checked for
each title they do not hold yet: GM unless a GM; IM unless an IM or GM; WGM
and WIM for women, unless they hold it or a higher one (B.01 0.3: IM is above
WGM). In a Swiss a norm may be reached before the last round: the games after
it may then be left out (1.4.1e), so each player is judged after every round
from the ninth and the first round that gives the norm is kept; a round robin
is judged on all its rounds. The event's organising ``federation`` is the host
federation of 1.4.3d, whose Swiss exemption is worked out from the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tmanager.core import norms
from tmanager.core.federations import NO_FEDERATION
from tmanager.core.norms import NormCheck, NormTitle
from tmanager.core.playerfields import WOMEN_TITLES
from tmanager.core.results import TrfResult
from tmanager.core.scoring import Game
from tmanager.events.games import ABSENT, round_games
from tmanager.events.model import Division, Event, Player

#: The titles above each norm's title (B.01 0.3): holding one, a player seeks no norm of it.
_HELD = {
    NormTitle.GM: {"GM"}, NormTitle.IM: {"GM", "IM"}, NormTitle.WGM: {"GM", "WGM"},
    NormTitle.WIM: {"GM", "IM", "WGM", "WIM"},
}  # fmt: skip
#: 1.4.3d: foreign rated players, their federations and how many of them hold GM, IM, WGM or WIM.
_EXEMPT_PLAYERS, _EXEMPT_FEDERATIONS, _EXEMPT_TITLED = 20, 3, 10


@dataclass(frozen=True, slots=True)
class NormGame:
    """A game that counts: the round, the opponent and the player's points."""

    round: int
    opponent: Player
    points: float


@dataclass(frozen=True, slots=True)
class PlayerNorm:
    """One player's result for one title, judged after round ``upto`` (with the games up to it)."""

    player: Player
    check: NormCheck
    upto: int
    games: tuple[NormGame, ...]


def titles_sought(player: Player) -> list[NormTitle]:
    """The norms a player may still need: women's titles only for women (:attr:`Player.woman`)."""
    wanted = [t for t in NormTitle if player.title not in _HELD[t]]
    return [t for t in wanted if t not in WOMEN_TITLES or player.woman]


def results(event: Event, division: Division, upto: int) -> list[PlayerNorm]:
    """Every eligible player's result for every title sought, after round ``upto`` (in a Swiss, the first round
    from the ninth that gives the norm)."""
    history = _history(division, upto)
    exempt = foreign_exempt(event, division, history)
    whole = division.round_robin
    found = []
    for p in sorted(division.players, key=lambda p: p.number):
        for title in titles_sought(p):
            judged = [_judge(event, division, p, title, history, n, exempt) for n in _rounds(upto, whole=whole)]
            found.append(next((j for j in judged if j.check.achieved), judged[-1]))
    return found


def _rounds(upto: int, *, whole: bool) -> list[int]:
    return [upto] if whole or upto <= norms.MIN_GAMES else list(range(norms.MIN_GAMES, upto + 1))


def _history(division: Division, upto: int) -> dict[int, dict[int, Game]]:
    """Round number → player number → round entry, for the paired rounds up to ``upto``."""
    return {r.number: round_games(division, r) for r in division.rounds if r.paired and r.number <= upto}


def _games(division: Division, number: int, history: dict[int, dict[int, Game]], upto: int) -> Iterator[NormGame]:
    for n, entries in sorted(history.items()):
        game = entries.get(number)
        score = game.result.rated_score if game is not None else None  # a rated game over the board
        if n <= upto and game is not None and game.opponent is not None and score is not None:
            yield NormGame(n, division.player(game.opponent), score)


def _judge(
    event: Event, division: Division, player: Player, title: NormTitle, history: dict[int, dict[int, Game]],
    upto: int, exempt: bool,
) -> PlayerNorm:  # fmt: skip
    games = tuple(_games(division, player.number, history, upto))
    unplayed_win = any(
        entries.get(player.number, ABSENT).result in (TrfResult.FORFEIT_WIN, TrfResult.PAIRING_BYE)
        for n, entries in history.items() if n <= upto
    )  # fmt: skip
    opponents = [norms.Opponent(g.opponent.rating, g.opponent.title, g.opponent.federation, g.points) for g in games]
    total = event.total_rounds(division) or upto
    check = norms.check(
        title, opponents, federation=player.federation, rounds=total, unplayed_win=unplayed_win, foreign_exempt=exempt
    )
    return PlayerNorm(player, check, upto, games)


def foreign_exempt(event: Event, division: Division, history: dict[int, dict[int, Game]]) -> bool:
    """1.4.3d: a Swiss whose every round had 20 rated players from outside the host federation (the event's),
    from 3 federations or more, 10 of them GM, IM, WGM or WIM; a player counts who missed at most one round
    (a pairing-allocated bye is not missed)."""
    host = event.federation
    if not host or division.round_robin or not history:
        return False
    counted = [
        p for p in division.players
        if p.rating and p.federation not in ("", host, NO_FEDERATION)
        and sum(1 for entries in history.values() if _missed(entries.get(p.number))) <= 1
    ]  # fmt: skip
    titled = sum(1 for p in counted if p.title in ("GM", "IM", "WGM", "WIM"))
    federations = {p.federation for p in counted}
    return len(counted) >= _EXEMPT_PLAYERS and len(federations) >= _EXEMPT_FEDERATIONS and titled >= _EXEMPT_TITLED


def _missed(game: Game | None) -> bool:
    return game is None or not (game.played or game.result is TrfResult.PAIRING_BYE)
