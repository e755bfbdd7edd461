"""The ``.TOU`` results file of AUPAIR, as WESPA and AUPAIR rating officers take it.

Layout (NASPA wiki, "Directing SOWPODS tournaments"):

* ``*M`` + the date (ISO 8601) + a blank + the tournament's name;
* ``*`` + the division's capital letter;
* 39 blanks and the digit ``0``;
* one line per player: "First Last", then per round the player's score plus
  2000 for a win, 1000 for a tie, or 1300 for a bye (over the 50 spread points
  a bye scores), and the opponent's number, prefixed with ``+`` when the player
  went first, or the player's own number for a bye. Players are numbered from 1
  in the order of the file;
* ``*** END OF FILE ***``.

The writer's input is a small plain structure (:class:`TouPlayer` with one
:class:`TouGame` per round), so that events with game scores and chess events
(results only) can both feed it: :func:`from_scores` makes it from scored
games; a division's rules make it from a division
(:meth:`~tmanager.events.rules.base.DivisionRules.tou_players`). Nothing here
knows the event model.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tmanager.errors import StateError


class TouOutcome(enum.StrEnum):
    """What a round was for the player."""

    WIN = "win"
    TIE = "tie"
    LOSS = "loss"
    BYE = "bye"


#: .TOU adds 2000 for a win, 1000 for a tie, 1300 for a bye.
_BONUS = {TouOutcome.WIN: 2000, TouOutcome.TIE: 1000, TouOutcome.LOSS: 0, TouOutcome.BYE: 1300}
END = "*** END OF FILE ***"


@dataclass(frozen=True, slots=True)
class TouGame:
    """One round of one player: the score, the outcome, the opponent's number (None: a bye) and who went first."""

    score: int
    outcome: TouOutcome
    opponent: int | None = None
    first: bool = False


@dataclass(frozen=True, slots=True)
class TouPlayer:
    """A player as the file names them (already "First Last") and their rounds in order."""

    name: str
    games: tuple[TouGame, ...]


def display_name(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """ "Last, First" as "First Last", unless the alias table names the player otherwise."""
    if aliases and name in aliases:
        return aliases[name]
    last, comma, first = name.partition(",")
    return f"{first.strip()} {last.strip()}" if comma else name.strip()


def dumps(*, name: str, date: str, division: str, players: Sequence[TouPlayer]) -> str:
    """The ``.TOU`` text (LF line endings). ``division`` is the letter of the ``*`` line."""
    lines = [f"*M{date} {name}", f"*{division}", " " * 39 + "0"]
    for number, player in enumerate(players, 1):
        cells = [player.name]
        for round_number, game in enumerate(player.games, 1):
            cells.append(str(_cell(game, player=player.name, round_number=round_number)))
            if game.opponent is None:
                cells.append(str(number))
            else:
                cells.append(("+" if game.first else "") + str(game.opponent))
        lines.append(" ".join(cells))
    lines.append(END)
    return "\n".join(lines) + "\n"


def _cell(game: TouGame, *, player: str, round_number: int) -> int:
    """The number written for ``game``: its score plus its outcome's bonus, which must read back as that outcome
    (2000 and more a win, 1000 to 1999 a tie, less a loss; a bye is told by the player's own number)."""
    cell = game.score + _BONUS[game.outcome]
    read = TouOutcome.WIN if cell >= 2000 else TouOutcome.TIE if cell >= 1000 else TouOutcome.LOSS
    if game.opponent is not None and read is not game.outcome:
        raise StateError(
            f"{player}, round {round_number}: the {game.outcome}'s score {game.score} cannot be written to .TOU: "
            f"{cell} would read as a {read}",
            hint="check the score",
        )
    return cell


@dataclass(frozen=True, slots=True)
class ScoreCard:
    """A scored-game player as tsh keeps one: opponents by number (0: a bye), own scores, went-first flags."""

    name: str
    opponents: tuple[int, ...]
    scores: tuple[int, ...]
    first: tuple[bool, ...]


def from_scores(cards: Sequence[ScoreCard], aliases: Mapping[str, str] | None = None) -> list[TouPlayer]:
    """Players of a scored event: each game's outcome compares the two scores of that round."""
    players = []
    for card in cards:
        games = []
        for i, (opponent, score) in enumerate(zip(card.opponents, card.scores, strict=True)):
            if opponent == 0:
                games.append(TouGame(score, TouOutcome.BYE))
                continue
            theirs = cards[opponent - 1].scores[i]
            outcome = TouOutcome.WIN if score > theirs else TouOutcome.TIE if score == theirs else TouOutcome.LOSS
            games.append(TouGame(score, outcome, opponent, card.first[i]))
        players.append(TouPlayer(display_name(card.name, aliases), tuple(games)))
    return players
