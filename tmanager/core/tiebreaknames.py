"""The tie-breaks by name: FIDE's catalogue (C.07) with what each counts, a list's names read with their
modifiers (``BH-C1``, ``KS-L60``, ``ARO-U1400``) and written back, their legends, and which year's regulations
an event follows. :mod:`tmanager.core.tiebreaks` computes them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Definition:
    """A tie-break of the catalogue: its FIDE name, what it counts (for legends), the modifiers it takes."""

    title: str
    meaning: str
    modifiers: str = ""  # C: cut the least significant values, M: median cut, L: Koya limit, U: unrated rating


#: FIDE's individual tie-breaks (and Chaos's EBH), by code.
CATALOGUE: dict[str, Definition] = {
    "DE": Definition("Direct Encounter", "place among the tied players by their games against each other "
                     "(0: not separated)"),
    "WIN": Definition("Number of Wins", "rounds won, with or without playing"),
    "WON": Definition("Number of Games Won", "games won over the board"),
    "BPG": Definition("Number of Games Played with Black", "games played with black"),
    "BWG": Definition("Number of Games Won with Black", "games won with black"),
    "REP": Definition("Rounds One Elected to Play", "games over the board and rounds won without playing"),
    "STD": Definition("Standard Points", "points counted 1 for a win, ½ for a draw"),
    "PS": Definition("Progressive Scores", "sum of the running score after each round", "C"),
    "KS": Definition("Koya System", "points against the opponents with at least {limit} % of the maximum", "L"),
    "BH": Definition("Buchholz", "sum of the opponents' scores", "CM"),
    "FB": Definition("Fore Buchholz", "Buchholz with the last round's games counted as draws", "CM"),
    "AOB": Definition("Average of Opponents' Buchholz", "average of the opponents' Buchholz"),
    "SB": Definition("Sonneborn-Berger", "sum of each opponent's score times the points scored against them", "CM"),
    "ARO": Definition("Average Rating of Opponents", "average rating of the opponents met over the board", "CMU"),
    "TPR": Definition("Tournament Performance Rating", "average rating of the opponents plus dp of the score",
                      "CMU"),
    "PTP": Definition("Perfect Tournament Performance",
                      "lowest rating whose expected score against the opponents reaches the score", "CMU"),
    "APRO": Definition("Average Performance Rating of Opponents", "average of the opponents' TPR", "U"),
    "APPO": Definition("Average Perfect Performance of Opponents", "average of the opponents' PTP", "U"),
    "EBH": Definition("Extended Buchholz", "sum of the opponents' Buchholz (Chaos, not a FIDE tie-break)"),
}  # fmt: skip
#: The codes of the catalogue, in its order.
TIEBREAKS = tuple(CATALOGUE)
#: The codes of the catalogue that are not FIDE's, and the prefix TRF-2026 (MTB26) gives a tie-break not FIDE's.
NOT_FIDE, OTHER = frozenset({"EBH"}), "OTHER_"
#: Codes written otherwise in older regulations and programs, or in TRF-2026 (``OTHER_EBH``).
_ALIASES = {"GE": "REP", **{OTHER + code: code for code in NOT_FIDE}}
_MODIFIER = re.compile(r"([CMLU])(\d+)")
_CUT_NAMES = {"C": "Cut", "M": "Median"}
#: The Koya system's limit unless a modifier gives one (percent of the maximum score).
KOYA_LIMIT = 50
#: The regulations in force: those applied from 1 March 2026 (the Swiss dummy opponent capped, 16.4).
RULES = 2026
#: The first day of the 2026 regulations; events that started earlier keep the 2024 ones.
RULES_2026_FROM = "2026-03-01"


def rules_for(start: str) -> int:
    """The year of the tie-break regulations for an event that started on ``start`` (YYYY-MM-DD; "": today's)."""
    return 2024 if start and start < RULES_2026_FROM else RULES


@dataclass(frozen=True, slots=True)
class Tiebreak:
    """One tie-break as the event's list names it: a code of :data:`CATALOGUE` and its modifiers."""

    code: str
    cut: int = 0  # Cn: the n least significant values left out
    median: int = 0  # Mn: the n least and the n most significant values left out
    limit: int | None = None  # Ln (KS): the percentage of the maximum an opponent needs
    unrated: int | None = None  # Un: the rating of unrated opponents (else they are left out)

    @classmethod
    def parse(cls, text: str) -> Tiebreak:
        """``BH``, ``BH-C1``, ``BH/M1``, ``KS-L60``, ``ARO-C1-U1400``…; :class:`ValueError` saying what is wrong."""
        parts = [p for p in re.split(r"[-/]", text.strip().upper()) if p]
        if not parts:
            raise ValueError("an empty tie-break")
        code = _ALIASES.get(parts[0], parts[0])
        definition = CATALOGUE.get(code)
        if definition is None:
            raise ValueError(f"unknown tie-break {text!r}; choose from {', '.join(TIEBREAKS)}")
        values: dict[str, int] = {}
        for part in parts[1:]:
            m = _MODIFIER.fullmatch(part)
            if m is None or m[1] not in definition.modifiers or m[1] in values:
                allowed = ", ".join(f"{letter}n" for letter in definition.modifiers) or "none"
                raise ValueError(f"{text!r}: {code} takes no modifier {part!r} (its modifiers: {allowed})")
            values[m[1]] = int(m[2])
        if values.get("L", KOYA_LIMIT) > 100:
            raise ValueError(f"{text!r}: the Koya limit is a percentage (0-100)")
        return cls(code, values.get("C", 0), values.get("M", 0), values.get("L"), values.get("U"))

    @property
    def name(self) -> str:
        """The tie-break as FIDE writes it: ``BH-C1``, ``KS-L60``, ``ARO-U1400``."""
        modifiers = [f"C{self.cut}" * bool(self.cut), f"M{self.median}" * bool(self.median)]
        modifiers += [f"L{self.limit}" * (self.limit is not None), f"U{self.unrated}" * (self.unrated is not None)]
        return "-".join([self.code, *(m for m in modifiers if m)])

    @property
    def needs_every_rating(self) -> bool:
        """A rating-based tie-break (one that takes ``Un``) that gives unrated players no rating: C.07 drops it
        from the list when unrated players are present (:func:`tmanager.core.tiebreaks.dropped`)."""
        return "U" in CATALOGUE[self.code].modifiers and self.unrated is None

    @property
    def trf_name(self) -> str:
        """The tie-break as TRF-2026's ``202`` writes it: ``BH/C1``; one not FIDE's with MTB26's ``OTHER_``."""
        return (OTHER if self.code in NOT_FIDE else "") + self.name.replace("-", "/")

    @property
    def title(self) -> str:
        """FIDE's name: ``Buchholz Cut-1``, ``Koya System (60 %)``."""
        title = CATALOGUE[self.code].title
        for letter, n in (("C", self.cut), ("M", self.median)):
            if n:
                title += f" {_CUT_NAMES[letter]}-{n}"
        return title

    @property
    def description(self) -> str:
        """FIDE's name and what it counts: ``Buchholz Cut-1: sum of the opponents' scores, …``."""
        meaning = CATALOGUE[self.code].meaning.format(limit=self.limit if self.limit is not None else KOYA_LIMIT)
        if self.cut:
            meaning += f", the {self.cut} least significant left out"
        if self.median:
            meaning += f", the {self.median} least and {self.median} most significant left out"
        if self.unrated is not None:
            meaning += f", unrated opponents counted at {self.unrated}"
        return f"{self.title}: {meaning}"

    @property
    def legend(self) -> str:
        """One line for a report's legend: ``BH-C1: Buchholz Cut-1: sum of the opponents' scores, …``."""
        return f"{self.name}: {self.description}"


def parse_all(names: Sequence[str]) -> list[Tiebreak]:
    """Each name as a :class:`Tiebreak` (:class:`ValueError` for the first that is not one)."""
    return [Tiebreak.parse(n) for n in names]


def legend(names: Sequence[str]) -> list[str]:
    """The legend lines of a list of tie-breaks."""
    return [t.legend for t in parse_all(names)]
