"""Team tie-breaks of the FIDE Tie-Break Regulations (C.07), for team competitions: pure functions over each
team's rounds (:class:`~tmanager.core.teams.TeamRound`).

A team has two scores, match points (``MP``) and game points (``GP``); one of
them is primary (it ranks first), the other secondary. A tie-break that uses a
score names it after a colon, and defaults to the primary one:

=============  ==================================================================
``MP``, ``GP`` the score itself (the secondary score is the usual first tie-break)
``BH:X``       Buchholz: sum of the opponents' X
``BH-C1:X``    Buchholz Cut-1: without the least significant value
``SB:X``       Sonneborn-Berger for teams: sum over opponents of their X times the X scored against them
``EMGSB``      extended SB: opponents' match points times the game points scored against them (the
               Olympiad's), and likewise ``EMMSB``, ``EGMSB``, ``EGGSB`` (opponent's score first)
``DE``         direct encounter among the tied teams, on the primary score
``WIN``        rounds that gave a won match's match points (C.07's WIN: a bye or forfeit so scored too)
=============  ==================================================================

Rounds without a match over the boards (a bye, a forfeited match, a round
without a match) count, in a team's own Buchholz and Sonneborn-Berger, as a
match against a dummy opponent whose score is the team's own, as C.07's
Article 16 does for players; opponents' scores enter as they stand. Direct
encounter decides only when every tied team met every other; otherwise it
leaves them level. Values are floats in points, as tie-break values are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tmanager.core.teams import TeamRound, TeamScore

TEAM_TIEBREAKS = (
    "MP", "GP", "BH:MP", "BH:GP", "BH-C1:MP", "BH-C1:GP", "SB:MP", "SB:GP", "EMGSB", "EMMSB", "EGMSB", "EGGSB",
    "DE", "WIN", "BH", "BH-C1", "SB",
)  # fmt: skip

Rounds = Mapping[int, Sequence[TeamRound]]


def check(name: str) -> None:
    """A :class:`ValueError` for a tie-break name this module does not know."""
    if name not in TEAM_TIEBREAKS:
        raise ValueError(f"unknown team tie-break {name!r}; choose from {', '.join(TEAM_TIEBREAKS)}")


def _score(rounds: Sequence[TeamRound], kind: TeamScore) -> float:
    if kind is TeamScore.MATCH:
        return sum(r.match_points or 0 for r in rounds) / 10
    return sum(r.game_points for r in rounds) / 10


def _of(r: TeamRound, kind: TeamScore) -> float:
    """What a round gave the team in ``kind``."""
    return ((r.match_points or 0) if kind is TeamScore.MATCH else r.game_points) / 10


def _resolved(name: str, primary: TeamScore) -> tuple[str, TeamScore, TeamScore]:
    """``(family, opponent's score, own result)`` of a name, the primary score filling in an omitted one."""
    if name.startswith("E") and name.endswith("SB") and len(name) == 5:
        return "SB", TeamScore.from_code(name[1]), TeamScore.from_code(name[2])
    family, _, which = name.partition(":")
    kind = TeamScore.from_code(which) if which else primary
    return family, kind, kind


@dataclass(frozen=True, slots=True)
class RankedTeam:
    """One line of a team ranking: the team, its primary score and its tie-break values in the order asked."""

    team: int
    score: float
    values: tuple[float, ...]


def compute(
    rounds: Rounds, names: Sequence[str], *, primary: TeamScore = TeamScore.MATCH, win: int = 20
) -> dict[int, dict[str, float]]:
    """Every tie-break of ``names`` (except ``DE``, which depends on the tie) for every team; ``win`` is the match
    points (tenths) of a won match."""
    for name in names:
        check(name)
    scores = {kind: {t: _score(rs, kind) for t, rs in rounds.items()} for kind in TeamScore}
    values: dict[int, dict[str, float]] = {}
    for team, own in rounds.items():
        table: dict[str, float] = {}
        for name in names:
            if name == "DE":
                continue
            if name in (TeamScore.MATCH.code, TeamScore.GAME.code):
                table[name] = scores[TeamScore.from_code(name)][team]
                continue
            if name == "WIN":
                table[name] = float(sum(1 for r in own if r.match_points == win))
                continue
            family, opponent_kind, result_kind = _resolved(name, primary)
            terms = []
            for r in own:
                opponent = scores[opponent_kind][r.opponent] if r.met and r.opponent is not None else None
                if opponent is None:  # a dummy opponent with the team's own score
                    opponent = scores[opponent_kind][team]
                weight = opponent * _of(r, result_kind) if family == "SB" else opponent
                terms.append((weight, not r.met))
            if family == "BH-C1" and terms:
                terms.remove(min(terms, key=lambda t: (not t[1], t[0])))
            table[name] = sum(t for t, _ in terms)
        values[team] = table
    return values


def direct_encounter(
    rounds: Rounds, tied: Sequence[int], *, primary: TeamScore = TeamScore.MATCH
) -> dict[int, float]:
    """DE among ``tied`` teams: the primary points scored in the matches among them, if every one met every
    other; else 0 for all (the tie stands)."""
    group = set(tied)
    scored: dict[int, float] = {}
    met: dict[int, set[int]] = {}
    for team in tied:
        among = [r for r in rounds[team] if r.met and r.opponent in group]
        scored[team] = sum(_of(r, primary) for r in among)
        met[team] = {r.opponent for r in among if r.opponent is not None}
    if all(met[t] == group - {t} for t in tied):
        return scored
    return dict.fromkeys(tied, 0.0)


def rank(
    rounds: Rounds, names: Sequence[str], *, primary: TeamScore = TeamScore.MATCH, win: int = 20
) -> list[RankedTeam]:
    """Teams by primary score, then each tie-break of ``names`` in turn; ties keep the teams' numbers' order."""
    values = compute(rounds, names, primary=primary, win=win)
    keys: dict[int, list[float]] = {t: [_score(rs, primary)] for t, rs in rounds.items()}
    for name in names:
        if name == "DE":
            column: dict[int, float] = {}
            groups: dict[tuple[float, ...], list[int]] = {}
            for t in rounds:
                groups.setdefault(tuple(keys[t]), []).append(t)
            for group in groups.values():
                column.update(direct_encounter(rounds, group, primary=primary) if len(group) > 1 else {group[0]: 0.0})
        else:
            column = {t: values[t][name] for t in rounds}
        for t in rounds:
            keys[t].append(column[t])
    order = sorted(rounds, key=lambda t: ([-k for k in keys[t]], t))
    return [RankedTeam(t, keys[t][0], tuple(keys[t][1:])) for t in order]
