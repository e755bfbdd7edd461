"""tsh's own command names in the event shell, for score-based divisions.

The tsh manual (3.270, "tsh Command Reference") lists its data entry and
report commands by a name whose capitals are its abbreviation (``ShowPairings``,
``sp``), each followed by its arguments in a fixed order (``sp r d``: a round,
then a division, which may be left out). :data:`COMMANDS` maps those of them
this shell can do to its own commands; :func:`translate` turns a tsh line into
the shell's words (``sp 3 b`` is ``pairings --round 3 -d b``). The pairing
commands (``koth``, ``ns``, ``cp``…) are not here: ``pair --system`` names tsh's
systems, and ``pair``, tsh's manual pairing of two players, would shadow the
shell's ``pair``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tmanager.errors import StateError, ascii_digits


class Argument(enum.StrEnum):
    """A tsh argument, as the manual's examples name it."""

    ROUND = "r"
    DIVISION = "d"
    PLAYER = "p"
    COUNT = "n"


R, D, P, N = Argument.ROUND, Argument.DIVISION, Argument.PLAYER, Argument.COUNT


@dataclass(frozen=True, slots=True)
class TshCommand:
    """A tsh command: its name as the manual writes it, its arguments in tsh's order (``ignored``: taken and
    not needed here), the shell's command that does it, and words that command always gets (``--total``)."""

    name: str
    arguments: tuple[Argument, ...]
    command: str
    fixed: tuple[str, ...] = ()
    note: str = ""
    ignored: frozenset[Argument] = frozenset()

    @property
    def abbreviation(self) -> str:
        """The capitals of the name, lower-cased: ``ShowPairings`` is ``sp``."""
        return "".join(c for c in self.name if c.isupper()).lower()

    @property
    def usage(self) -> str:
        return " ".join((self.abbreviation, *self.arguments))


#: The shell's modes, which take a round as a word rather than ``--round``.
MODES = ("enter", "corrections")
COMMANDS = (
    TshCommand("Addscore", (R, D), "enter", note="result entry for round r (division d)"),
    TshCommand("EditScore", (D, P, R), "corrections", note="corrections of round r, a result line each",
               ignored=frozenset({P})),
    TshCommand("CheckRoundScores", (R, D), "pairings", note="round r's scores, to check them"),
    TshCommand("MISSING", (R, D), "missing", note="the scores still missing, of every round",
               ignored=frozenset({R})),
    TshCommand("showScoreCard", (D, P), "card", note="player p's record, round by round"),
    TshCommand("ShowPairings", (R, D), "pairings"),
    TshCommand("STandings", (D,), "standings"),
    TshCommand("RoundStandings", (R, D), "standings"),
    TshCommand("RATings", (D,), "standings", note="the standings (tmanager estimates no Scrabble ratings)"),
    TshCommand("showWallChart", (D,), "report", ("--only", "crosstable"), "the wall chart (and its page)"),
    TshCommand("ROSTERS", (), "players"),
    TshCommand("TeamStandings", (D,), "team-standings"),
    TshCommand("TotalTeamStandings", (), "team-standings", ("--total",)),
    TshCommand("HighWin", (N, D), "highs"),
    TshCommand("HighLoss", (N, D), "highs"),
    TshCommand("LowWin", (N, D), "highs"),
    TshCommand("HUH", (), "why", note="the last message explained (tsh's code is not needed)"),
    TshCommand("Quit", (), "quit"),
)
_BY_WORD = {word: c for c in COMMANDS for word in (c.abbreviation, c.name.lower())}


def find(word: str) -> TshCommand | None:
    """The tsh command named or abbreviated by ``word`` (any case), if any."""
    return _BY_WORD.get(word.lower())


@dataclass(frozen=True, slots=True)
class Translation:
    """A tsh line as the shell's: its command, its words, and the division the line names (``None``: the
    current one)."""

    command: str
    words: list[str]
    division: str | None


def translate(command: TshCommand, words: Sequence[str], divisions: Sequence[str]) -> Translation:
    """The shell's command for tsh ``command`` with ``words`` (a division left out is the current one)."""
    options: list[str] = list(command.fixed)
    positional: list[str] = []
    division = None
    left = list(words)
    for argument in command.arguments:
        if not left:
            break
        if argument == Argument.DIVISION:
            if left[0].casefold() in {d.casefold() for d in divisions}:
                division = left.pop(0)
            continue
        word = left.pop(0)
        if argument in (Argument.ROUND, Argument.COUNT) and not ascii_digits(word):
            raise StateError(f"{command.usage}: {argument} is a number, not {word!r} (tsh's {command.name})")
        if argument in command.ignored:
            continue
        if argument == Argument.ROUND and command.command not in MODES:
            options += ["--round", word]
        elif argument == Argument.COUNT:
            options += ["--count", word]
        else:
            positional.append(word)
    if left:
        raise StateError(f"{command.usage}: too many words for tsh's {command.name} ({' '.join(left)})")
    return Translation(command.command, positional + options, division)
