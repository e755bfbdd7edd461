"""Team matches: board points into match points, and each team's rounds as the team standings read them.

A match between two teams is played on a fixed number of boards; each board's
game points (tenths, as everywhere) add up to the teams' game points, and the
team with more game points wins the match, scoring the match points of a win
(:class:`MatchPoints`; FIDE's default 2, 1, 0). A board that one team left
empty is won by the other by forfeit; a match with every board of one team
empty is a forfeited match. A team's pairing-allocated bye counts as a match
won, drawn or lost, as the competition says, with the game points that go
with it. What this module does not know: players, files, pairing.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tmanager import tomlmap
from tmanager.core.results import Colour


class TeamRoundKind(enum.StrEnum):
    """How a team's round went: a match over the boards, a forfeited match won or lost, a pairing bye, or none."""

    PLAYED = "played"
    FORFEIT_WIN = "forfeit-win"
    FORFEIT_LOSS = "forfeit-loss"
    BYE = "bye"
    ABSENT = "absent"


class TeamScore(tomlmap.Choice):
    """One of a team's two scores: match points or game points. A team division's file names its primary score
    by the word (``primary = "match"``), tie-break names and TRF type codes by the :attr:`code` (``MP``, ``GP``).
    """

    MATCH = "match"
    GAME = "game"

    @property
    def code(self) -> str:
        """``MP`` or ``GP``, as C.07 and the TRF write the score."""
        return "MP" if self is TeamScore.MATCH else "GP"

    @property
    def other(self) -> TeamScore:
        """The secondary score of a division whose primary score is this one."""
        return TeamScore.GAME if self is TeamScore.MATCH else TeamScore.MATCH

    @classmethod
    def from_code(cls, code: str) -> TeamScore:
        """The score a code (``MP``, ``GP``; the first letter decides) names."""
        return TeamScore.MATCH if code.startswith("M") else TeamScore.GAME


@dataclass(frozen=True, slots=True)
class MatchPoints:
    """Match points in tenths for a won, drawn and lost match (TRF-2026 record 362)."""

    win: int = 20
    draw: int = 10
    loss: int = 0

    def of(self, own: int, other: int) -> int:
        """The match points of a team that scored ``own`` game points against ``other``."""
        return self.win if own > other else self.draw if own == other else self.loss


@dataclass(frozen=True, slots=True)
class TeamRound:
    """One team's round: the opponent (None: a bye or no match), the game points of both sides, the match
    points (None while a board of the match awaits its result), the team's own board points in board order
    (None for a board not decided yet) and whether it had white on board 1."""

    round: int
    opponent: int | None
    game_points: int
    opponent_game_points: int
    match_points: int | None
    kind: TeamRoundKind = TeamRoundKind.PLAYED
    boards: tuple[int | None, ...] = ()
    white_on_first: bool | None = None

    @property
    def complete(self) -> bool:
        return self.match_points is not None

    @property
    def board_one(self) -> Colour:
        """The team's colour on board 1 (of a match: ``white_on_first`` is set)."""
        return Colour.WHITE if self.white_on_first else Colour.BLACK

    @property
    def met(self) -> bool:
        """A match over the boards (a forfeited match is no meeting: the teams may be paired again)."""
        return self.opponent is not None and self.kind is TeamRoundKind.PLAYED


def match_rounds(
    round_number: int,
    first: int,
    second: int,
    boards: Sequence[tuple[int | None, int | None]],
    scoring: MatchPoints,
) -> tuple[TeamRound, TeamRound]:
    """Both teams' rounds of one match from its boards' game points ``(first's, second's)`` in board order
    (None: not decided yet). A match whose every board the one team left empty is a forfeit: pass those boards
    as won by the other and name the forfeit with :func:`forfeited`."""
    own = sum(a or 0 for a, _ in boards)
    other = sum(b or 0 for _, b in boards)
    complete = all(a is not None and b is not None for a, b in boards)
    return (
        TeamRound(round_number, second, own, other, scoring.of(own, other) if complete else None, TeamRoundKind.PLAYED,
                  tuple(a for a, _ in boards), True),
        TeamRound(round_number, first, other, own, scoring.of(other, own) if complete else None, TeamRoundKind.PLAYED,
                  tuple(b for _, b in boards), False),
    )  # fmt: skip


def forfeited(team_round: TeamRound, *, won: bool) -> TeamRound:
    """The same round as a forfeited match, won or lost."""
    return TeamRound(
        team_round.round, team_round.opponent, team_round.game_points, team_round.opponent_game_points,
        team_round.match_points, TeamRoundKind.FORFEIT_WIN if won else TeamRoundKind.FORFEIT_LOSS, team_round.boards,
        team_round.white_on_first,
    )  # fmt: skip


def bye_round(round_number: int, *, match_points: int, game_points: int) -> TeamRound:
    """A team's round without an opponent that scores (a pairing-allocated bye)."""
    return TeamRound(round_number, None, game_points, 0, match_points, TeamRoundKind.BYE)


@dataclass(frozen=True, slots=True)
class TeamTotals:
    """A team's match and game points (tenths), matches won, drawn and lost, and matches still open."""

    match_points: int
    game_points: int
    won: int
    drawn: int
    lost: int
    open: int


def totals(rounds: Sequence[TeamRound]) -> TeamTotals:
    """What a team's rounds add up to; a match still open counts its game points so far and no match points."""
    done = [r for r in rounds if r.complete and r.opponent is not None]
    return TeamTotals(
        match_points=sum(r.match_points or 0 for r in rounds),
        game_points=sum(r.game_points for r in rounds),
        won=sum(1 for r in done if r.game_points > r.opponent_game_points),
        drawn=sum(1 for r in done if r.game_points == r.opponent_game_points),
        lost=sum(1 for r in done if r.game_points < r.opponent_game_points),
        open=sum(1 for r in rounds if not r.complete),
    )
