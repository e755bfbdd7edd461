"""What fastchess prints, line for line: its own format, or cutechess-cli's (``-output format=…``).

One class per format behind one interface, as fastchess's ``IOutput`` with its
``Fastchess`` and ``Cutechess``. Each method returns the lines to print, so
that the formats are plain functions of the match's state; the runner prints
them, in the order fastchess does:

* ``Started game N of M (A vs B)`` and ``Finished game N (A vs B): 1-0 {reason}``;
* after a game, cutechess's ``Score of A vs B: …`` every ``-scoreinterval`` games;
* a report every ``-ratinginterval`` games (pairs, with pentanomial reports):
  fastchess's block of Elo, nElo, LOS, DrawRatio, PairsRatio, the games and
  the pentanomial with the WL/DD ratio, the SPRT's LLR; a table of every
  engine against the field when there are more than two; cutechess's
  ``Elo difference`` and ``SPRT: llr …`` lines;
* the SPRT's verdict when a test ends.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from tmanager.core import ieee
from tmanager.core import stats as core_stats
from tmanager.core.results import Result
from tmanager.core.stats import SprtSettings
from tmanager.fastchess.elo import Estimate, Stats, estimate
from tmanager.fastchess.scoreboard import Scoreboard
from tmanager.tourney.announce import EngineWarning, OptionRefused
from tmanager.tourney.outcome import Ending
from tmanager.tourney.pvcheck import PvProblem

RULE = "-" * 50


class OutputFormat(enum.StrEnum):
    """``-output format=``."""

    FASTCHESS = "fastchess"
    CUTECHESS = "cutechess"


@dataclass(frozen=True, slots=True)
class Conditions:
    """What the head of a two-engine report names, in fastchess's words: ``(10+0.1, 1t, 16MB, book.epd)``."""

    time_control: str
    threads: str
    hash: str
    book: str = ""

    def text(self) -> str:
        book = f", {self.book}" if self.book else ""
        return f"({self.time_control}, {self.threads}, {self.hash}{book})"


@dataclass(frozen=True, slots=True)
class Report:
    """The state a report is printed from: the scoreboard, the two engines of the game just finished (in
    the order of the command line), every engine's name, and the SPRT if there is one."""

    scoreboard: Scoreboard
    first: str
    second: str
    engines: Sequence[str]
    conditions: Conditions
    sprt: SprtSettings | None = None


#: A move in the form fastchess's ``isUciMove`` accepts, legal or not.
_UCI_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?")

#: What fastchess says of each ending ({winner} and {loser} are White or Black); the others (variants, an
#: XBoard engine's resignation or false claim), which fastchess does not know, keep tmanager's words.
_REASONS = {
    Ending.CHECKMATE: "{winner} mates",
    Ending.STALEMATE: "Draw by stalemate",
    Ending.INSUFFICIENT_MATERIAL: "Draw by insufficient mating material",
    Ending.REPETITION: "Draw by 3-fold repetition",
    Ending.FIFTY_MOVES: "Draw by fifty moves rule",
    Ending.RESIGN_ADJUDICATION: "{winner} wins by adjudication",
    Ending.DRAW_ADJUDICATION: "Draw by adjudication",
    Ending.MOVE_LIMIT: "Draw by adjudication",
    Ending.TABLEBASE_WIN: "{winner} wins by adjudication: SyzygyTB",
    Ending.TABLEBASE_DRAW: "Draw by adjudication: SyzygyTB",
    Ending.TIME_FORFEIT: "{loser} loses on time ({overrun}ms overrun)",
    Ending.CRASH: "{loser} disconnects",
    Ending.NOT_STARTED: "{loser} disconnects",
    Ending.STALL: "{loser}'s connection stalls",
    Ending.ILLEGAL_MOVE: "{loser} makes an illegal move",
}


def reason_text(ending: str, result: Result, reason: str, *, overstep_ms: int | None = None) -> str:
    """Why a game ended, in fastchess's words (``White loses on time (153ms overrun)``)."""
    try:
        template = _REASONS[Ending(ending)]
    except (ValueError, KeyError):
        return reason
    winner, loser = ("White", "Black") if result is Result.WHITE_WINS else ("Black", "White")
    return template.format(winner=winner, loser=loser, overrun=max(overstep_ms or 0, 0))


def illegal_move_text(move: str, engine: str) -> list[str]:
    """fastchess's warnings of an engine that lost by an illegal ``move`` (its word, empty if none was read):
    fishtest's worker stops a test on them."""
    lines = []
    if not move:  # a bare 'bestmove': fastchess finds no word after it, says so, then scores the move it lacks
        lines.append(f"Warning; No bestmove found from {engine} because: Element 'bestmove' not found. "
                     "Last line was: bestmove")
    elif not _UCI_MOVE.fullmatch(move):
        lines.append("Warning; Move does not match uci move format, lowercase and 4/5 chars. "
                     f"Move {move} played by {engine}")
    return [*lines, f"Warning; Illegal move {move or '<none>'} played by {engine}"]


def option_refused_text(refused: OptionRefused) -> str:
    """fastchess's warning of an option value an engine refused, which it plays its game without."""
    if refused.missing:
        return f"Warning; {refused.engine} doesn't have option {refused.option}"
    if refused.unconverted:  # its std::stoi threw: caught apart, and told in other words
        return (f"Warning; Failed to set option {refused.option} with value {refused.value} for engine "
                f"{refused.engine}: {refused.unconverted}")
    return f"Warning; Invalid value for option {refused.option}; {refused.value}"


def warning_text(warning: EngineWarning, *, test_env: bool) -> str:
    """fastchess's warning of a PV problem: what, from whom, the info line, the position and the moves, on
    lines of their own, or on one joined by `` :: `` with ``-testEnv``."""
    problem = PvProblem(warning.problem)
    if problem.of_the_score:  # one line: the engine, and why its score does not read
        return f"Warning; {problem} {warning.engine}" + (f": {warning.info}" if warning.info else "")
    if problem is PvProblem.SIGN_MISMATCH:  # both engines' mate scores and lines
        head, info = f"Warning; {problem} {warning.move} from {warning.engine}", f"Infos; {warning.info}"
    else:
        what = f"move {warning.move} from" if problem.names_a_move else "from"
        head, info = f"Warning; {problem} - {what} {warning.engine}", f"Info; {warning.info}"
    parts = [head, info, f"Position; {warning.start}", f"Moves; {' '.join(warning.moves)}"]
    return (" :: " if test_env else "\n").join(parts)


def llr(settings: SprtSettings, stats: Stats, *, pentanomial: bool) -> core_stats.Sprt:
    """fastchess's ``SPRT::getLLR`` of ``stats``, on the pairs or on the games."""
    counts = stats.pentanomial if pentanomial else (stats.losses, stats.draws, stats.wins)
    return core_stats.sprt(
        counts, elo0=settings.elo0, elo1=settings.elo1, alpha=settings.alpha, beta=settings.beta,
        model=settings.model,
    )


def verdict_message(settings: SprtSettings, accepted: str) -> str:
    """fastchess's last line of a decided test: ``SPRT ([0.00, 5.00]) completed - H1 was accepted``."""
    return f"SPRT ({_elo_bounds(settings)}) completed - {accepted} was accepted"


def _elo_bounds(settings: SprtSettings) -> str:
    return f"[{settings.elo0:.2f}, {settings.elo1:.2f}]"


class Output(ABC):
    """fastchess's ``IOutput``: the lines of each event of a match."""

    format: OutputFormat

    def start_game(self, number: int, total: int, white: str, black: str) -> list[str]:
        return [f"Started game {number} of {total} ({white} vs {black})"]

    def end_game(self, number: int, white: str, black: str, result: Result, reason: str) -> list[str]:
        return [f"Finished game {number} ({white} vs {black}): {result.pgn} {{{reason}}}"]

    @abstractmethod
    def score(self, stats: Stats, first: str, second: str) -> list[str]:
        """After a game, every ``-scoreinterval`` games: the score so far (cutechess only)."""

    @abstractmethod
    def interval(self, report: Report) -> list[str]:
        """Every ``-ratinginterval`` games (or pairs): the ratings and the SPRT."""

    @abstractmethod
    def end_tournament(self, message: str) -> list[str]:
        """When an SPRT ends the match: its verdict."""


class FastchessOutput(Output):
    """fastchess's own format; ``pentanomial`` as ``-report penta=true`` (its default)."""

    format = OutputFormat.FASTCHESS

    def __init__(self, *, pentanomial: bool = True) -> None:
        self.pentanomial = pentanomial

    def score(self, stats: Stats, first: str, second: str) -> list[str]:
        return []

    def interval(self, report: Report) -> list[str]:
        two = len(report.engines) == 2
        body = self._head_to_head(report) if two else _table(report, pentanomial=self.pentanomial)
        return [RULE, *body, *self._sprt(report), RULE]

    def end_tournament(self, message: str) -> list[str]:
        return [message or "Tournament finished"]

    def _head_to_head(self, report: Report) -> list[str]:
        stats = report.scoreboard.head_to_head(report.first, report.second)
        elo = estimate(stats, pentanomial=self.pentanomial)
        pairs = f", PairsRatio: {ieee.fixed(stats.pairs_ratio(), 2)}" if self.pentanomial else ""
        draws = stats.draw_ratio_pairs() if self.pentanomial else stats.draw_ratio()
        lines = [
            f"Results of {report.first} vs {report.second} {report.conditions.text()}:",
            f"Elo: {elo.elo_text()}, nElo: {elo.nelo_text()}",
            f"LOS: {elo.los_text()}, DrawRatio: {ieee.fixed(draws, 2)} %{pairs}",
            f"Games: {stats.games}, Wins: {stats.wins}, Losses: {stats.losses}, Draws: {stats.draws}, "
            f"Points: {stats.points:.1f} ({ieee.fixed(stats.points_ratio(), 2)} %)",
        ]
        if self.pentanomial:
            lines.append(f"Ptnml(0-2): {_penta(stats)}, WL/DD Ratio: {ieee.fixed(stats.wl_dd_ratio(), 2)}")
        return lines

    def _sprt(self, report: Report) -> list[str]:
        if report.sprt is None:
            return []
        stats = report.scoreboard.head_to_head(report.first, report.second)
        test = llr(report.sprt, stats, pentanomial=self.pentanomial)
        fraction = test.llr / test.upper if test.llr >= 0 else -test.llr / test.lower
        return [
            f"LLR: {ieee.fixed(test.llr, 2)} ({ieee.fixed(fraction * 100.0, 1)}%) "
            f"({test.lower:.2f}, {test.upper:.2f}) {_elo_bounds(report.sprt)}"
        ]


class CutechessOutput(Output):
    """cutechess-cli's lines, as fastchess writes them with ``-output format=cutechess``."""

    format = OutputFormat.CUTECHESS

    def score(self, stats: Stats, first: str, second: str) -> list[str]:
        elo = estimate(stats, pentanomial=False)
        return [
            f"Score of {first} vs {second}: {stats.wins} - {stats.losses} - {stats.draws}  "
            f"[{ieee.fixed(elo.score, 3)}] {stats.games}"
        ]

    def interval(self, report: Report) -> list[str]:
        if len(report.engines) == 2:
            stats = report.scoreboard.head_to_head(report.first, report.second)
            elo = estimate(stats, pentanomial=False)
            lines = [
                f"Elo difference: {elo.elo_text()}, LOS: {elo.los_text()}, "
                f"DrawRatio: {ieee.fixed(stats.draw_ratio(), 2)} %"
            ]
        else:
            lines = _table(report, pentanomial=False, penta_column=False)
        return lines + self._sprt(report)

    def end_tournament(self, message: str) -> list[str]:
        return ["Tournament finished"]

    def _sprt(self, report: Report) -> list[str]:
        if report.sprt is None:
            return []
        stats = report.scoreboard.head_to_head(report.first, report.second)
        test = llr(report.sprt, stats, pentanomial=False)
        bound = test.lower if test.llr < 0 else test.upper
        accepted = (
            " - H1 was accepted" if test.llr >= test.upper else " - H0 was accepted" if test.llr < test.lower else ""
        )
        return [
            f"SPRT: llr {ieee.fixed(test.llr, 2)} ({ieee.fixed(test.llr / bound * 100, 1)}%), "
            f"lbound {test.lower:.2f}, ubound {test.upper:.2f}{accepted}"
        ]


def make_output(output_format: OutputFormat, *, pentanomial: bool) -> Output:
    """The output of ``-output format=…``."""
    if output_format is OutputFormat.CUTECHESS:
        return CutechessOutput()
    return FastchessOutput(pentanomial=pentanomial)


def _penta(stats: Stats) -> str:
    return "[" + ", ".join(str(n) for n in stats.pentanomial) + "]"


def _table(report: Report, *, pentanomial: bool, penta_column: bool = True) -> list[str]:
    """Every engine against the field, best Elo first (an Elo that is NaN last), as fastchess's table."""
    rows: list[tuple[str, Estimate, Stats]] = []
    for name in report.engines:
        stats = report.scoreboard.against_all(name)
        rows.append((name, estimate(stats, pentanomial=pentanomial), stats))

    def before(a: tuple[str, Estimate, Stats], b: tuple[str, Estimate, Stats]) -> int:
        x, y = a[1].elo, b[1].elo
        if (not math.isnan(x) and math.isnan(y)) or x > y:
            return -1
        if (not math.isnan(y) and math.isnan(x)) or y > x:
            return 1
        return 0

    rows.sort(key=functools.cmp_to_key(before))  # stable, as fastchess's insertion sort of a small field
    width = max(25, *(len(name) for name in report.engines))
    show_penta = penta_column
    head = f"{'Rank':<4} {'Name':<{width}} " + " ".join(
        f"{h:>10}" for h in ("Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw")
    )
    lines = [head + (f" {'Ptnml(0-2)':>20}" if show_penta else "")]
    for rank, (name, elo, stats) in enumerate(rows, 1):
        draws = stats.draw_ratio_pairs() if pentanomial else stats.draw_ratio()
        cells = [ieee.fixed(v, 2) for v in (elo.elo, elo.elo_error, elo.nelo, elo.nelo_error)]
        line = (
            f"{rank:>4} {name:<{width}} " + " ".join(f"{c:>10}" for c in cells)
            + f" {stats.games:>10} {ieee.fixed(stats.points_ratio(), 1):>9}% {ieee.fixed(draws, 1):>9}%"
        )
        if show_penta:
            line += f" {_penta(stats) if pentanomial else '':>20}"
        lines.append(line)
    return lines
