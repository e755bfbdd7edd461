"""A two-participant match while it is played: its counts, the SPRT, and when the test stops.

:func:`match_state` reads a results string (numbering as in :mod:`tmanager.core.schedule`)
from the first participant's side, the one under test, and gives W/D/L, the
pentanomial counts of the complete game pairs and, with :class:`~tmanager.core.stats.SprtSettings`,
the LLR. The LLR uses the pentanomial counts; the W/D/L counts only where the
schedule makes no pairs (a single game) or in the bayesian model.

The stopping rule, as engine testers run it: once the LLR crosses a bound, no
pair is begun any more; games already running finish, and the unplayed game of
a pair already begun is still played, so the test ends on whole pairs. The
decision is made from the results alone each time, so changing the bounds
reopens a decided test when the LLR falls between the new ones, and a test that
ran out of games without a decision continues when cycles are added. Should
the completed pairs bring the LLR back between the bounds, pairs are begun
again until it crosses once more.

Counting is made of byte-string operations (``translate``, ``count``, slices),
which run at memory speed over the games begun so far, not the whole schedule;
it is cached by results string: a worker asks at every claim and record, and
10,000 games begun are counted in about 0.1 ms here. It needs no numpy, whose
import costs 0.1 s of CPU and starts OpenBLAS threads that spin: ``tmanager run``
would pay that before the first game of an SPRT, or during the games of any
match, for its progress display. The LLR (about a millisecond in the normalized
model) is cached by counts, which change only when a pair completes.

What it does not know: names, files, engines; Swiss schedules, whose colours
are decided round by round.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from tmanager.core import stats
from tmanager.core.schedule import Schedule
from tmanager.core.stats import SprtSettings, SprtVerdict
from tmanager.tomlmap import SIGNED, Choice

#: Codes of a game from the first participant's side: half points 0 (loss), 1 (draw) and 2 (win), then these.
PLAYING_CODE, UNPLAYED_CODE = 8, 16


class VerdictResult(Choice):
    """``[verdict] result``: how an SPRT ended: ``H1`` or ``H0`` accepted, or ``undecided`` when the schedule ran
    out first (the live LLR's :class:`~tmanager.core.stats.SprtVerdict` was ``continue`` then)."""

    H0 = "H0"
    H1 = "H1"
    UNDECIDED = "undecided"


@dataclass(frozen=True, slots=True)
class Verdict:
    """How an SPRT ended: ``H1`` or ``H0`` accepted, or ``undecided`` when the schedule ran out first.

    Kept in the tourney file's owned part (``[verdict]``) once the test is over.
    """

    result: VerdictResult
    llr: float = field(metadata=SIGNED)
    lower: float = field(metadata=SIGNED)
    upper: float
    games: int
    pairs: int


@dataclass(frozen=True, slots=True)
class MatchState:
    """The match so far, from the first participant's side."""

    wins: int
    draws: int
    losses: int
    #: ``[LL, LD, WL+DD, WD, WW]`` of the complete pairs; ``None`` when the schedule makes no pairs
    penta: tuple[int, int, int, int, int] | None
    playing: int
    total: int  #: games in the schedule
    settings: SprtSettings | None = None
    sprt: stats.Sprt | None = None  #: the test's LLR and bounds, with ``settings``
    #: unplayed games of pairs already begun (finished or playing)
    open_games: tuple[int, ...] = ()
    #: complete pairs of two draws (DD; the rest of ``penta[2]`` are WL): fastchess's WL/DD ratio
    double_draws: int = 0

    @property
    def games(self) -> int:
        """Finished games."""
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        """Complete pairs."""
        return sum(self.penta) if self.penta is not None else 0

    @property
    def decided(self) -> bool:
        """Whether the LLR is beyond a bound."""
        return self.sprt is not None and self.sprt.verdict is not SprtVerdict.CONTINUE

    @property
    def claimable(self) -> tuple[int, ...] | None:
        """The only games a worker may still begin, or ``None`` for any: once the test has decided,
        the unplayed games of pairs already begun."""
        return self.open_games if self.decided else None

    @property
    def over(self) -> bool:
        """Whether nothing is left to play: the test decided and its pairs are complete, or every game is played."""
        return (self.decided and not self.open_games and not self.playing) or self.games == self.total

    @property
    def verdict(self) -> Verdict | None:
        """The SPRT's verdict once it is :attr:`over`; ``None`` before, or without an SPRT."""
        if self.sprt is None or not self.over:
            return None
        decision = self.sprt.verdict
        return Verdict(
            result=VerdictResult.UNDECIDED if decision is SprtVerdict.CONTINUE else VerdictResult(decision.value),
            llr=self.sprt.llr,
            lower=self.sprt.lower,
            upper=self.sprt.upper,
            games=self.games,
            pairs=self.pairs,
        )

    def statistics(self) -> stats.MatchStats:
        """Elo, nElo, LOS… of the match (pentanomial where there are pairs), with the SPRT."""
        return stats.match_stats(
            self.wins, self.losses, self.draws, penta=self.penta, sprt_settings=self.settings,
            double_draws=self.double_draws,
        )


def match_state(schedule: Schedule, results: str, settings: SprtSettings | None = None) -> MatchState:
    """The match of a two-participant round robin or gauntlet, with its SPRT when ``settings`` are given."""
    if schedule.participants != 2 or schedule.games_per_cycle != schedule.games_per_pairing:
        raise ValueError("a match needs a schedule of two participants")
    g = schedule.games_per_pairing
    # With two participants, who has white depends only on whether the game's number is even (XBoard's
    # rule and fastchess's), or not at all (fastchess's -noswap); and the last game of an odd pairing may
    # pair with the next cycle's (XBoard) or stay single (fastchess): all asked of the schedule itself.
    white = tuple(_first_has_white(schedule, number) for number in (0, 1))
    across_cycles = g % 2 == 1 and schedule.cycles > 1 and schedule.partner(g - 1) is not None
    wdl, penta, open_games, playing, double_draws = _count(g, schedule.cycles, results, white, across_cycles)
    losses, draws, wins = wdl
    test = None if settings is None else _test(settings, wins, draws, losses, penta)
    return MatchState(
        wins=wins,
        draws=draws,
        losses=losses,
        penta=penta,
        playing=playing,
        total=schedule.total_games,
        settings=settings,
        sprt=test,
        open_games=open_games,
        double_draws=double_draws,
    )


def _first_has_white(schedule: Schedule, number: int) -> bool:
    game = schedule.game(number) if number < schedule.total_games else None
    return game is None or game.white == 0


@functools.lru_cache(maxsize=64)
def _test(
    settings: SprtSettings, wins: int, draws: int, losses: int, penta: tuple[int, int, int, int, int] | None
) -> stats.Sprt:
    """The LLR, cached by counts: most claims and records do not complete a pair."""
    return settings.test(wins, draws, losses, penta=penta)


@functools.lru_cache(maxsize=4)
def _count(
    games_per_pairing: int, cycles: int, results: str, white: tuple[bool, ...], across_cycles: bool
) -> tuple[tuple[int, int, int], tuple[int, int, int, int, int] | None, tuple[int, ...], int, int]:
    """``(losses, draws, wins)``, the pentanomial counts, the open games, the games playing and the pairs of two
    draws. ``white`` says whether the first participant has white in the even and in the odd games."""
    total = games_per_pairing * cycles
    # Only the games begun count, and their partners: no game is paired with one more than g games
    # away, so every pair with a game begun lies within the first `len(results) + g` games, and a pair
    # reaching beyond them has two unplayed games. The schedule's length costs nothing.
    counted = min(total, len(results) + games_per_pairing)
    text = results.ljust(counted).encode("ascii")
    codes = bytearray(counted)
    codes[0::2] = text[0::2].translate(_AS_WHITE if white[0] else _AS_BLACK)
    codes[1::2] = text[1::2].translate(_AS_WHITE if white[1] else _AS_BLACK)
    groups = _pair_groups(games_per_pairing, cycles, across_cycles)
    penta = [0] * 5
    double_draws = 0
    open_games: list[int] = []
    for first, second, step, pairs in groups:
        within = min(pairs, max(0, -(-(counted - second) // step)))  # pairs whose second game is counted
        a, b = codes[first : first + within * step : step], codes[second : second + within * step : step]
        half_points = _bytewise_sum(a.translate(_HALF_POINTS), b.translate(_HALF_POINTS))
        for points in range(5):
            penta[points] += half_points.count(points)
        double_draws += _bytewise_sum(a.translate(_DRAWN), b.translate(_DRAWN)).count(2)
        stages = _bytewise_sum(a.translate(_STAGE_OF_FIRST), b.translate(_STAGE_OF_SECOND))
        open_games += [first + i * step for i in _positions(stages, _FIRST_OPEN)]
        open_games += [second + i * step for i in _positions(stages, _SECOND_OPEN)]
    return (
        (codes.count(0), codes.count(1), codes.count(2)),
        (penta[0], penta[1], penta[2], penta[3], penta[4]) if any(group[3] for group in groups) else None,
        tuple(sorted(open_games)),
        codes.count(PLAYING_CODE),
        double_draws,
    )


def _code_table(codes: dict[str, int], *, other: int) -> bytes:
    """A ``bytes.translate`` table: each character of ``codes`` to its code, every other byte to ``other``."""
    table = bytearray([other]) * 256
    for char, code in codes.items():
        table[ord(char)] = code
    return bytes(table)


#: Results character -> code, for the first participant as white and as black.
_AS_WHITE = _code_table({"-": 0, "=": 1, "+": 2, "*": PLAYING_CODE}, other=UNPLAYED_CODE)
_AS_BLACK = _code_table({"+": 0, "=": 1, "-": 2, "*": PLAYING_CODE}, other=UNPLAYED_CODE)
#: Code -> half points of a finished game, 0x40 for a game without a result: a pair's sum is its
#: pentanomial index (0 to 4) only when both games are finished, and never exceeds a byte.
_HALF_POINTS = _code_table({chr(0): 0, chr(1): 1, chr(2): 2}, other=0x40)
#: Code -> 1 for a draw, 0 else: a pair's sum is 2 for two draws.
_DRAWN = _code_table({chr(1): 1}, other=0)
#: Code -> the stage of a pair's first and second game, unplayed or begun, as bits that add up uniquely.
_STAGE_OF_FIRST = _code_table({chr(UNPLAYED_CODE): 1}, other=2)
_STAGE_OF_SECOND = _code_table({chr(UNPLAYED_CODE): 4}, other=8)
_FIRST_OPEN, _SECOND_OPEN = 1 + 8, 2 + 4  # unplayed, with the other game begun


@functools.lru_cache(maxsize=4)
def _pair_groups(games_per_pairing: int, cycles: int, across_cycles: bool) -> tuple[tuple[int, int, int, int], ...]:
    """Every pair of :meth:`Schedule.partner <tmanager.core.schedule.Schedule.partner>` for two
    participants, as groups ``(first, second, step, pairs)``: the pairs ``first + i * step`` and
    ``second + i * step`` for ``i`` below ``pairs``."""
    g = games_per_pairing
    groups = [(2 * j, 2 * j + 1, g, cycles) for j in range(g // 2)]  # within each cycle's pairing
    if g % 2 and across_cycles:  # the last game of a pairing pairs with the same game of the next cycle
        groups.append((g - 1, 2 * g - 1, 2 * g, cycles // 2))
    return tuple(groups)


def _bytewise_sum(a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    """Each byte of ``a`` plus the byte of ``b`` at the same place, for sums below 256: read as big
    numbers, the two add without a carry crossing from one byte to the next."""
    return (int.from_bytes(a, "big") + int.from_bytes(b, "big")).to_bytes(len(a), "big")


def _positions(data: bytes, byte: int) -> list[int]:
    """Where ``byte`` occurs in ``data`` (found at memory speed: it occurs seldom)."""
    found = []
    position = data.find(byte)
    while position >= 0:
        found.append(position)
        position = data.find(byte, position + 1)
    return found


def describe(state: MatchState) -> str | None:
    """The SPRT's decision in words once it has one (or the games ran out); ``None`` while it runs."""
    test, settings = state.sprt, state.settings
    if test is None or settings is None or not (state.decided or state.over):
        return None
    name = f"SPRT [{settings.elo0:g}, {settings.elo1:g}] ({settings.model})"
    if not state.decided:
        return (
            f"{name}: no decision after all {state.games} games (LLR {test.llr:.2f}, bounds {test.lower:.2f}, "
            f"{test.upper:.2f}); raise cycles to continue"
        )
    crossed = f">= {test.upper:.2f}" if test.verdict is SprtVerdict.H1 else f"<= {test.lower:.2f}"
    bound = f"LLR {test.llr:.2f} {crossed}"
    if not state.over:
        left = len(state.open_games) + state.playing
        return f"{name}: {test.verdict} reached ({bound}); finishing {left} game(s) of pairs already begun"
    return f"{name}: {test.verdict} accepted ({bound}) after {state.games} games, {state.pairs} pairs"
