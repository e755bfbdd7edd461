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
(results only) can both feed it. :func:`from_event` feeds it from a chess
event: white went first; a game has no score of its own, so the score column
holds only the outcome (2000 win, 1000 draw, 0 loss; forfeits as wins and
losses against the opponent); a pairing-allocated or full-point bye is 1350
(50 + 1300), a half-point bye 1000, a zero-point bye or an absence 0, each
with the player's own number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tmanager import event as ev
from tmanager.errors import StateError

Outcome = Literal["win", "tie", "loss", "bye"]
_BONUS = {"win": 2000, "tie": 1000, "loss": 0, "bye": 1300}
END = "*** END OF FILE ***"


@dataclass(frozen=True, slots=True)
class TouGame:
    """One round of one player: the score, the outcome, the opponent's number (None: a bye) and who went first."""

    score: int
    outcome: Outcome
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
        for game in player.games:
            cells.append(str(game.score + _BONUS[game.outcome]))
            if game.opponent is None:
                cells.append(str(number))
            else:
                cells.append(("+" if game.first else "") + str(game.opponent))
        lines.append(" ".join(cells))
    lines.append(END)
    return "\n".join(lines) + "\n"


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
                games.append(TouGame(score, "bye"))
                continue
            theirs = cards[opponent - 1].scores[i]
            outcome: Outcome = "win" if score > theirs else "tie" if score == theirs else "loss"
            games.append(TouGame(score, outcome, opponent, card.first[i]))
        players.append(TouPlayer(display_name(card.name, aliases), tuple(games)))
    return players


#: A chess round entry (TRF code) as a .TOU outcome and score.
_CHESS: dict[str, tuple[Outcome, int]] = {
    "1": ("win", 0), "+": ("win", 0), "=": ("tie", 0), "0": ("loss", 0), "-": ("loss", 0),
    "U": ("bye", 50), "F": ("bye", 50), "H": ("tie", 0), "Z": ("loss", 0),
}  # fmt: skip


def from_event(event: ev.Event, division: ev.Division, aliases: Mapping[str, str] | None = None) -> list[TouPlayer]:
    """A chess division as .TOU players: in player-number order, every paired round, white going first."""
    pending = ev.missing(division)
    if pending:
        n, board = pending[0]
        raise StateError(
            f"round {n} board {division.round(n).boards.index(board) + 1} has no result; "
            ".TOU needs every result (enter it, or export before pairing the round)"
        )
    order = sorted(division.players, key=lambda p: p.number)
    index = {p.number: i for i, p in enumerate(order, 1)}
    rounds = [ev.round_games(division, r) for r in division.rounds if r.paired]
    players = []
    for p in order:
        games = []
        for entries in rounds:
            game = entries[p.number]
            outcome, score = _CHESS[game.result]
            opponent = index[game.opponent] if game.opponent is not None else None
            games.append(TouGame(score, outcome, opponent, first=game.colour == "w"))
        players.append(TouPlayer(display_name(p.name, aliases), tuple(games)))
    return players
