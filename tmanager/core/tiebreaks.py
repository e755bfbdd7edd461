"""Tie-breaks of the FIDE Tie-Break Regulations (C.07; 2024, and 2026's rules for unplayed rounds), the individual
ones, with their modifiers.

Pure functions over plain round-by-round data: for each player, one
:class:`RoundResult` per round. A tie-break is written as FIDE writes it, its
code and its modifiers (:class:`Tiebreak`): ``BH-C1`` (or ``BH/C1``) is
Buchholz without the least significant value, ``BH-M1`` without the least and
the most significant ones, ``KS-L60`` the Koya system counting opponents with
60 % or more, ``ARO-U1400`` the average rating of opponents with unrated ones
counted at 1400 (without ``Un``, a rating-based tie-break is dropped, no value
for anyone, while a player is unrated: :func:`dropped`). :data:`CATALOGUE` holds the codes with their names and
meanings (each report prints them as a legend):

========  ================================================================
``DE``    direct encounter: the place within the tied group (0: not separated; blank outside a tie)
``WIN``   rounds won, with or without playing (forfeit wins and full-point byes count)
``WON``   games won over the board
``BPG``   games played with black
``BWG``   games won with black
``REP``   rounds one elected to play: games over the board and rounds won without playing
``STD``   standard points: 1 for a win, ½ for a draw, whatever the event's scoring
``PS``    progressive scores: the sum of the running score after each round (``Cn``: without the first n)
``KS``    Koya system (round robins): points scored against opponents with at least 50 % (``Ln``: n %)
``BH``    Buchholz: the sum of the opponents' (adjusted) scores (``Cn``/``Mn`` cuts)
``FB``    Fore Buchholz: Buchholz with every game of the event's last round counted as a draw
``AOB``   average of the opponents' Buchholz
``SB``    Sonneborn-Berger: each opponent's score times the points scored against them
``ARO``   average rating of the opponents met over the board (rounded)
``TPR``   tournament performance rating: ARO + dp of the score fraction
``PTP``   perfect tournament performance: the lowest rating whose expected score reaches the score
``APRO``  average of the opponents' TPR
``APPO``  average of the opponents' PTP
``EBH``   extended Buchholz (Chaos, not FIDE's): the sum of the opponents' Buchholz
========  ================================================================

Unplayed rounds (Article 16): a *voluntarily unplayed round* (VUR: half- or
zero-point bye, forfeit loss, absence) is what a player chose not to play;
forfeit wins, pairing-allocated and full-point byes are not VURs.

* In the player's own Buchholz and Sonneborn-Berger, every round without an
  over-the-board opponent counts as a game against a dummy opponent whose score
  equals the player's own final score (Swiss); in a round robin, forfeits count
  the scheduled opponent as if played. From the 2026 regulations (events
  starting on or after 1 March 2026, :func:`rules_for`) the dummy scores no more
  than the opponent who did not play (a forfeit), nor than a draw in every round
  (a bye or an absence).
* An opponent's score enters others' Buchholz *adjusted*: the opponent's
  rounds without an opponent after the last round that is not a VUR count as
  draws.
* Low cuts remove VURs first (the least significant of them), then the lowest
  values; a value is as significant as the opponent's score, then its
  contribution.

What the module does not know: who played whom in which round of the event
(it is handed each player's rounds) and how points are stored (floats here,
tenths in the events).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tmanager.core import fide
from tmanager.core.results import Colour
from tmanager.core.tiebreaknames import KOYA_LIMIT, RULES, Tiebreak, parse_all


class RoundKind(enum.StrEnum):
    """How a player's round went: a game over the board, a forfeit won or lost, a bye of its kind, or absent."""

    PLAYED = "played"
    FORFEIT_WIN = "forfeit-win"
    FORFEIT_LOSS = "forfeit-loss"
    PAIRING_BYE = "pairing-bye"
    FULL_BYE = "full-bye"
    HALF_BYE = "half-bye"
    ZERO_BYE = "zero-bye"
    ABSENT = "absent"


_VUR = frozenset({RoundKind.FORFEIT_LOSS, RoundKind.HALF_BYE, RoundKind.ZERO_BYE, RoundKind.ABSENT})


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One player's round: the points scored, against whom, with which colour, and how."""

    points: float
    opponent: str | None = None
    colour: Colour | None = None
    kind: RoundKind = RoundKind.PLAYED

    @property
    def over_the_board(self) -> bool:
        return self.kind is RoundKind.PLAYED and self.opponent is not None

    @property
    def voluntary(self) -> bool:
        """A voluntarily unplayed round (VUR)."""
        return self.kind in _VUR


@dataclass(frozen=True, slots=True)
class Ranked:
    """One line of a ranking: the player, the score and the tie-break values in the order asked
    (``None``: no value, as DE outside a tie or a rating tie-break without rated opponents)."""

    name: str
    points: float
    values: tuple[float | None, ...]


Event = Mapping[str, Sequence[RoundResult]]


def dp(fraction: float) -> int:
    """FIDE's rating difference for a score fraction (:func:`tmanager.core.fide.dp`)."""
    return fide.dp(fraction)


@dataclass(frozen=True, slots=True)
class _Value:
    """One round's part of a Buchholz-like tie-break: the opponent's score, what it adds, whether it is a VUR."""

    score: float
    adds: float
    vur: bool


class _Computation:
    """Everything the tie-breaks of one event share: scores, adjusted scores, per-round values."""

    def __init__(
        self,
        event: Event,
        *,
        ratings: Mapping[str, float],
        round_robin: bool,
        win: float,
        draw: float,
        final: bool,
        rules: int,
        fore_event: Event | None = None,
    ) -> None:
        self.event = event
        #: Fore Buchholz's rounds: the games of the last round still being played count there, as draws.
        self.fore_event = event if fore_event is None else fore_event
        self.rules = rules
        self.ratings = ratings
        self.round_robin = round_robin
        self.win = win
        self.draw = draw
        self.final = final
        self.score = {name: sum(r.points for r in rounds) for name, rounds in event.items()}
        self.adjusted = {name: self._adjusted(rounds, fore=False) for name, rounds in event.items()}
        self._fore: dict[str, float] | None = None
        self._cache: dict[str, dict[str, float | None]] = {}

    # -- scores as others see them ------------------------------------------------------------------

    def _adjusted(self, rounds: Sequence[RoundResult], *, fore: bool) -> float:
        """A score as it enters opponents' Buchholz: rounds without an opponent after the last one that is not
        a VUR count as draws (as nothing in a round robin); with ``fore`` the last round's game is a draw."""
        fore = fore and bool(rounds) and rounds[-1].opponent is not None
        last = len(rounds) - 1 if fore else max((i for i, r in enumerate(rounds) if not r.voluntary), default=-1)
        total = 0.0
        for i, r in enumerate(rounds):
            if fore and i == len(rounds) - 1:
                total += self.draw
            elif i > last and r.opponent is None:
                total += 0.0 if self.round_robin else self.draw
            else:
                total += r.points
        return total

    def _fore_scores(self) -> dict[str, float]:
        if self._fore is None:
            self._fore = {name: self._adjusted(rounds, fore=True) for name, rounds in self.fore_event.items()}
        return self._fore

    def _fore_own(self, name: str) -> float:
        rounds = self.fore_event[name]
        score = sum(r.points for r in rounds)
        return score - rounds[-1].points + self.draw if rounds and rounds[-1].opponent is not None else score

    # -- Buchholz and Sonneborn-Berger ------------------------------------------------------------

    def _values(self, name: str, *, fore: bool, sonneborn: bool) -> list[_Value]:
        """Per round: the opponent's score (a dummy's in a Swiss round without one) and what it adds."""
        fore = fore and self.final and bool(self.fore_event[name])
        rounds = self.fore_event[name] if fore else self.event[name]
        scores = self._fore_scores() if fore else self.adjusted
        own = self._fore_own(name) if fore else self.score[name]
        values = []
        for i, r in enumerate(rounds):
            last = fore and i == len(rounds) - 1 and r.opponent is not None
            points = self.draw if last else r.points
            if r.over_the_board or last or (self.round_robin and r.opponent is not None):
                score, vur = scores.get(r.opponent or "", 0.0), False
            elif self.round_robin:
                continue
            elif self.rules < 2026:
                score, vur = own, r.voluntary
            else:  # 2026: the dummy scores no more than the absent opponent, nor than all draws
                cap = scores.get(r.opponent, own) if r.opponent is not None else self.draw * len(rounds)
                score, vur = min(own, cap), r.voluntary
            values.append(_Value(score, score * points if sonneborn else score, vur))
        return values

    @staticmethod
    def _cut(values: list[_Value], low: int, high: int) -> float:
        """The sum after leaving out ``low`` least significant values (VURs first) and ``high`` most significant."""
        rest = sorted(values, key=lambda v: (v.score, v.adds))
        for _ in range(min(low, len(rest))):
            # A VUR goes first, unless the least significant value adds more: then that one (as FIDE's
            # TieBreakServer cuts), so that a round not played never spares a player a value.
            vur = next((v for v in rest if v.vur), rest[0])
            rest.remove(rest[0] if rest[0].adds > vur.adds else vur)
        if high:
            rest = rest[: max(len(rest) - high, 0)]
        return sum(v.adds for v in rest)

    def buchholz(self, name: str, tb: Tiebreak) -> float:
        values = self._values(name, fore=tb.code == "FB", sonneborn=tb.code == "SB")
        return self._cut(values, tb.cut + tb.median, tb.median)

    # -- ratings --------------------------------------------------------------------------------

    def _opponent_ratings(self, name: str, tb: Tiebreak) -> list[tuple[float, float]]:
        """(rating, points on the 1-½-0 scale) of the opponents met over the board, after the cuts; an unrated
        opponent at the tie-break's ``Un`` (:meth:`column` drops a tie-break that gives unrated players none)."""
        counted = []
        for r in self.event[name]:
            if r.over_the_board:
                rating = self.ratings.get(r.opponent or "", tb.unrated)
                assert rating is not None, "a rating tie-break without Un is dropped when a player is unrated"
                counted.append((float(rating), self._standard(r.points)))
        counted.sort()
        counted = counted[tb.cut + tb.median :]
        return counted[: max(len(counted) - tb.median, 0)]

    def _standard(self, points: float) -> float:
        """Points on the 1-½-0 scale."""
        return 1.0 if points >= self.win else 0.5 if points == self.draw else 0.0

    def rating_value(self, name: str, tb: Tiebreak) -> float | None:
        """ARO, TPR or PTP of one player; None without a counted opponent."""
        counted = self._opponent_ratings(name, tb)
        if not counted:
            return None
        ratings = [rating for rating, _ in counted]
        aro = _round_half_up(sum(ratings) / len(ratings))
        score = sum(points for _, points in counted)
        if tb.code == "ARO":
            return float(aro)
        if tb.code == "TPR":
            return float(aro + dp(score / len(counted)))
        return float(perfect_performance(score, [int(r) for r in ratings]))

    # -- the catalogue --------------------------------------------------------------------------

    def column(self, tb: Tiebreak) -> dict[str, float | None]:
        """Every player's value of ``tb`` (DE excepted: it depends on the tie)."""
        if tb.name in self._cache:
            return self._cache[tb.name]
        event = self.event
        column: dict[str, float | None]
        if tb.code in ("BH", "FB", "SB"):
            column = {p: self.buchholz(p, tb) for p in event}
        elif dropped([tb], event, self.ratings):
            column = dict.fromkeys(event)
        elif tb.code in ("ARO", "TPR", "PTP"):
            column = {p: self.rating_value(p, tb) for p in event}
        elif tb.code in ("APRO", "APPO", "AOB"):
            inner = {"APRO": "TPR", "APPO": "PTP", "AOB": "BH"}[tb.code]
            per_opponent = self.column(Tiebreak(inner, unrated=tb.unrated))
            digits = 2 if tb.code == "AOB" else 0
            column = {p: _average([per_opponent[r.opponent or ""] for r in event[p] if r.over_the_board], digits)
                      for p in event}  # fmt: skip
        elif tb.code == "EBH":
            bh = self.column(Tiebreak("BH"))
            column = {p: sum(bh[r.opponent or ""] or 0.0 for r in event[p] if r.over_the_board) for p in event}
        elif tb.code == "KS":
            column = self._koya(tb)
        elif tb.code == "PS":
            column = {p: _progressive(event[p], tb.cut) for p in event}
        else:
            column = {p: self._count(tb.code, event[p]) for p in event}
        self._cache[tb.name] = column
        return column

    def _count(self, code: str, rounds: Sequence[RoundResult]) -> float:
        """WIN, WON, BPG, BWG, REP, STD: counts over one player's rounds."""
        wins = [r.points >= self.win for r in rounds]
        if code == "WIN":
            return float(sum(wins))
        if code == "WON":
            return float(sum(w and r.over_the_board for w, r in zip(wins, rounds, strict=True)))
        if code == "BPG":
            return float(sum(r.over_the_board and r.colour is Colour.BLACK for r in rounds))
        if code == "BWG":
            won = zip(wins, rounds, strict=True)
            return float(sum(w and r.over_the_board and r.colour is Colour.BLACK for w, r in won))
        if code == "REP":
            return float(sum(w or r.over_the_board for w, r in zip(wins, rounds, strict=True)))
        return sum(1.0 if r.points > self.draw else 0.5 if r.points == self.draw else 0.0 for r in rounds)

    def _koya(self, tb: Tiebreak) -> dict[str, float | None]:
        """Points against the opponents whose score reaches the limit of the maximum possible score."""
        rounds = max((len(r) for r in self.event.values()), default=0)
        players = len(self.event)
        games = rounds - (rounds // players if self.round_robin and players and rounds % players == 0 else 0)
        threshold = (tb.limit if tb.limit is not None else KOYA_LIMIT) / 100 * self.win * games - 1e-9
        return {
            p: sum((r.points for r in rounds if r.opponent is not None and self.score[r.opponent] >= threshold), 0.0)
            for p, rounds in self.event.items()
        }


def dropped(tiebreaks: Sequence[Tiebreak], players: Iterable[str], ratings: Mapping[str, float]) -> list[Tiebreak]:
    """The rating-based tie-breaks of ``tiebreaks`` that C.07 drops among ``players``: those without ``Un`` when
    a player has no rating. The regulations keep them only where the tournament's rules say how unrated players
    count (``ARO-U1400``); counting the rated opponents alone would rank by a rule nobody announced."""
    if all(p in ratings for p in players):
        return []
    return [tb for tb in tiebreaks if tb.needs_every_rating]


def _round_half_up(value: float) -> int:
    return int(value + 0.5 + 1e-9) if value >= 0 else -int(-value + 0.5 - 1e-9)


def _average(values: Sequence[float | None], digits: int) -> float | None:
    """The average of the values there are, rounded half up to ``digits`` decimals (None: no value)."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    scale = 10**digits
    return _round_half_up(sum(present) / len(present) * scale) / float(scale)


def _progressive(rounds: Sequence[RoundResult], cut: int) -> float:
    running = progressive = 0.0
    for i, r in enumerate(rounds):
        running += r.points
        if i >= cut:
            progressive += running
    return progressive


def perfect_performance(score: float, ratings: Sequence[int]) -> int:
    """PTP: the lowest rating whose expected score against ``ratings`` (table 8.1.2, differences not limited)
    reaches ``score``; for no point, the lowest opponent's rating − 800."""
    if score <= 0:
        return min(ratings) - 800
    low, high = min(ratings) - 800, max(ratings) + 800  # expected(low) < score <= expected(high)
    while high - low > 1:
        middle = (low + high) // 2
        if sum(fide.expected(middle, r, limit=None) for r in ratings) >= score - 1e-9:
            high = middle
        else:
            low = middle
    return high


def compute(
    event: Event,
    names: Sequence[str],
    *,
    ratings: Mapping[str, float] | None = None,
    round_robin: bool = False,
    win: float = 1.0,
    draw: float | None = None,
    final: bool = False,
    rules: int = RULES,
    fore_event: Event | None = None,
) -> dict[str, dict[str, float | None]]:
    """Every tie-break in ``names`` (except ``DE``, which depends on the tie) for every player, keyed by the
    tie-break's name as FIDE writes it (:attr:`Tiebreak.name`).

    ``win`` and ``draw`` are what a win and a draw score (a draw: half a win unless given); ``final`` says that
    the rounds given end with the event's last round (Fore Buchholz counts its games as draws), and
    ``fore_event`` gives Fore Buchholz its rounds when they differ: with the last round's games still being played,
    which ``event`` leaves out; ``rules`` is the year of the regulations (:func:`rules_for`).
    """
    computation = _Computation(
        event, ratings=ratings or {}, round_robin=round_robin, win=win, draw=win / 2 if draw is None else draw,
        final=final, rules=rules, fore_event=fore_event,
    )  # fmt: skip
    columns = {tb.name: computation.column(tb) for tb in parse_all(names) if tb.code != "DE"}
    return {p: {name: column[p] for name, column in columns.items()} for p in event}


def _encounters(event: Event, group: Sequence[str], *, round_robin: bool) -> tuple[dict[str, float], dict[str, int]]:
    """Points each of ``group`` scored against the others (averaged per opponent met more than once), and how
    many of them each met (a round robin counts forfeits as met: its games are fixed)."""
    members = set(group)
    scored: dict[str, float] = {}
    met: dict[str, int] = {}
    for p in group:
        per_opponent: dict[str, list[float]] = {}
        for r in event[p]:
            counts = r.over_the_board or (round_robin and r.opponent is not None)
            if counts and r.opponent in members:
                per_opponent.setdefault(r.opponent or "", []).append(r.points)
        scored[p] = sum(sum(v) / len(v) for v in per_opponent.values())
        met[p] = len(per_opponent)
    return scored, met


def _de_order(event: Event, group: Sequence[str], *, win: float, round_robin: bool) -> list[list[str]]:
    """``group`` split into places by direct encounter, best first (one part: not separated)."""
    scored, met = _encounters(event, group, round_robin=round_robin)
    if round_robin or all(met[p] == len(group) - 1 for p in group):
        places: dict[float, list[str]] = {}
        for p in sorted(group, key=lambda p: -scored[p]):
            places.setdefault(scored[p], []).append(p)
        return list(places.values())
    best = {p: scored[p] + (len(group) - 1 - met[p]) * win for p in group}
    order = sorted(group, key=lambda p: (-scored[p], -best[p]))
    parts = []
    for i, p in enumerate(order):
        rest = order[i + 1 :]
        if rest and scored[p] > max(best[q] for q in rest) + 1e-9:
            parts.append([p])
        else:
            parts.append(order[i:])
            break
    return parts


def direct_encounter(event: Event, tied: Sequence[str], *, win: float = 1.0, round_robin: bool = False) -> dict[
    str, float
]:
    """DE among ``tied`` players as FIDE writes it: each one's place within the group (1, 2, …; players still
    level share one), or 0 for everyone when the games between them separate nobody.

    If all of them met, the points scored against each other (averaged when they met more than once) order
    them; if not, a player is placed only when no other can still reach his points by winning the missing
    games. Players left level by a step that separated others are compared again among themselves.
    """
    places: dict[str, float] = {}

    def settle(group: Sequence[str], first: int) -> None:
        parts = _de_order(event, group, win=win, round_robin=round_robin)
        place = first
        for part in parts:
            if len(part) > 1 and len(parts) > 1:
                settle(part, place)
            else:
                places.update(dict.fromkeys(part, float(place)))
            place += len(part)

    settle(tied, 1)
    if len(set(places.values())) == 1:
        return dict.fromkeys(tied, 0.0)
    return places


def rank(
    event: Event,
    names: Sequence[str],
    *,
    ratings: Mapping[str, float] | None = None,
    round_robin: bool = False,
    win: float = 1.0,
    draw: float | None = None,
    final: bool = False,
    rules: int = RULES,
    fore_event: Event | None = None,
) -> list[Ranked]:
    """Players ordered by score, then by each tie-break of ``names`` in turn (see :func:`compute`).

    Every value but DE ranks the higher first; DE ranks by place (players it does not separate stay level).
    """
    tiebreaks = parse_all(names)
    values = compute(event, names, ratings=ratings, round_robin=round_robin, win=win, draw=draw, final=final,
                     rules=rules, fore_event=fore_event)  # fmt: skip
    score = {p: sum(r.points for r in rounds) for p, rounds in event.items()}
    shown: dict[str, list[float | None]] = {p: [] for p in event}
    keys: dict[str, list[float]] = {p: [-score[p]] for p in event}
    for tb in tiebreaks:
        column: dict[str, float | None]
        if tb.code == "DE":
            column = dict.fromkeys(event)
            for group in _ties(list(event), keys):
                if len(group) > 1:
                    column.update(direct_encounter(event, group, win=win, round_robin=round_robin))
        else:
            column = {p: values[p][tb.name] for p in event}
        for p in event:
            value = column[p]
            shown[p].append(value)
            keys[p].append((value or 0.0) if tb.code == "DE" else -(value if value is not None else float("-inf")))
    order = sorted(event, key=lambda p: keys[p])
    return [Ranked(p, score[p], tuple(shown[p])) for p in order]


def _ties(players: Sequence[str], keys: Mapping[str, list[float]]) -> list[list[str]]:
    """Players grouped by equal keys so far."""
    by_key: dict[tuple[float, ...], list[str]] = {}
    for p in players:
        by_key.setdefault(tuple(keys[p]), []).append(p)
    return list(by_key.values())
