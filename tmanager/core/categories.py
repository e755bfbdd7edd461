"""Prize categories: who belongs to U18, S50, women, unrated or a rating band, from birth year, sex and rating.

A category is written as organisers write it on a prize list:

=================  ==============================================================
``U18``, ``U14``   under 18 (14…): the event's year minus the birth year is at most 18, as FIDE's youth
                   events count ages (born in the event's year minus 18 or later)
``S50``, ``S65``   seniors: the event's year minus the birth year is at least 50 (65…)
``women``          players whose sex is ``w``
``unrated``        players without a rating
``U1800``          rated below 1800 (a number of 100 or more is a rating, below 100 an age)
``1800-1999``      rated 1800 to 1999; ``2000-`` 2000 or more, ``-1599`` at most 1599
=================  ==============================================================

Rating categories leave unrated players out (they have ``unrated``); age categories leave out players whose
birth year is unknown. What this module does not know: players' other classes (an event's free flags), and
where the facts come from (the event file, a FIDE rating list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tmanager.core.playerfields import Sex

_AGE = 100  # numbers below this after U or S are ages, from it on ratings
_BAND = re.compile(r"(\d*)-(\d*)")


@dataclass(frozen=True, slots=True)
class Category:
    """One category: its name as written, and the range of ages, ratings or the sex it takes."""

    name: str
    youngest: int | None = None  # age in the event's year
    oldest: int | None = None
    lowest: int | None = None  # rating
    highest: int | None = None
    sex: Sex | None = None
    unrated: bool = False

    @classmethod
    def parse(cls, text: str) -> Category:
        """``U18``, ``S50``, ``women``, ``unrated``, ``U1800``, ``1800-1999``…; :class:`ValueError` otherwise."""
        name = text.strip()
        word = name.casefold()
        if word in ("women", "woman", "w"):
            return cls(name, sex=Sex.WOMAN)
        if word == "unrated":
            return cls(name, unrated=True)
        m = re.fullmatch(r"([us])(\d+)", word)
        if m:
            n = int(m[2])
            if n == 0:  # under 0 takes nobody, over 0 everybody: a slip of the name, not a category
                raise ValueError(f"{name!r}: an age category counts from 1 (U8, U18, S50)")
            if m[1] == "s":
                if n >= _AGE:
                    raise ValueError(f"{name!r}: S takes an age (S50, S65)")
                return cls(name, youngest=n)
            return cls(name, oldest=n) if n < _AGE else cls(name, lowest=1, highest=n - 1)
        m = _BAND.fullmatch(word)
        if m and (m[1] or m[2]):
            low, high = int(m[1] or 1), int(m[2]) if m[2] else None
            if high is not None and high < low:
                raise ValueError(f"{name!r}: the band's first rating is above its last")
            return cls(name, lowest=low, highest=high)
        raise ValueError(
            f"{name!r} is not a category; write U18, S50, women, unrated, U1800 or a rating band such as 1800-1999"
        )

    def includes(self, *, year: int, birth_year: int | None, sex: Sex, rating: int) -> bool:
        """Whether a player with these facts belongs, in an event held in ``year``."""
        if self.sex is not None:
            return sex is self.sex
        if self.unrated:
            return rating == 0
        if self.youngest is not None or self.oldest is not None:
            if birth_year is None:
                return False
            age = year - birth_year
            return (self.youngest is None or age >= self.youngest) and (self.oldest is None or age <= self.oldest)
        if rating == 0:
            return False
        return (self.lowest is None or rating >= self.lowest) and (self.highest is None or rating <= self.highest)
