"""What a player's data may be, as FIDE keeps it: birth dates, federations, sex, titles, FIDE IDs and ratings.

Each ``*_fault`` function takes one field's value and returns what is wrong
with it, with the fix, or None when it is right. :func:`player_fault` checks
the fields of a player given by name (the event file's keys) and returns the
first faulty field. Every way a player comes in (``add-player``,
``edit-player``, a CSV, a TRF, a FIDE list, a hand-edited file) goes through
these, so nothing that a rating officer would reject reaches the rating report.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping

from tmanager import tomlmap
from tmanager.core.federations import FEDERATIONS


class RatingKind(tomlmap.Choice):
    """Which of a FIDE player's three ratings: an event's ``rating_list``, a column of FIDE's lists."""

    STANDARD = "standard"
    RAPID = "rapid"
    BLITZ = "blitz"


class Sex(tomlmap.Choice):
    """A player's sex as TRF and the event file write it: ``m``, ``w`` or none given."""

    NONE = ""
    MAN = "m"
    WOMAN = "w"

    @classmethod
    def read(cls, text: str) -> Sex:
        """The sex of a TRF line or a FIDE list (``m``, ``w``, ``M``, ``F``); none for any other text."""
        code = sex_code(text)
        return cls(code) if code in tuple(cls) else cls.NONE


#: FIDE's titles in the order that ranks players of equal rating (C.04.2, initial order), as TRF writes them.
TITLES = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
#: The titles FIDE awards to women only (B.01): a holder with no sex given is a woman, a holder of sex ``m`` a slip.
WOMEN_TITLES = frozenset({"WGM", "WIM", "WFM", "WCM"})
#: Ratings an event may hold besides 0 (unrated): FIDE's floor is 1400, national lists go lower; TRF has 4 digits.
MIN_RATING, MAX_RATING = 100, 3500
#: The development coefficients K of FIDE's rating regulations (8.3.3), the only ones its lists give now; a K
#: that the number of games caps (K × games at most 700) is the report's to work out, never a player's field.
K_FACTORS = (10, 20, 40)
#: FIDE IDs are positive whole numbers of at most ten digits (TRF's column holds eleven).
MAX_FIDE_ID = 9_999_999_999
#: The earliest birth year taken (older is a typing slip).
FIRST_BIRTH_YEAR = 1900
_BIRTH = re.compile(r"^(\d{4})(-\d{2}-\d{2})?$")


def birth_fault(text: str, *, today: datetime.date | None = None) -> str | None:
    """A birth date ``YYYY-MM-DD`` that exists, or a year, between 1900 and today."""
    match = _BIRTH.match(text)
    if match is None:
        return f"{text!r} is not a date (write YYYY-MM-DD or the year YYYY)"
    today = today or datetime.date.today()
    if match.group(2):
        try:
            born = datetime.date.fromisoformat(text)
        except ValueError as exc:
            return f"{text!r} is not a real date: {exc}"
        if born > today:
            return f"{text!r} is a day still to come (today is {today.isoformat()})"
    year = int(match.group(1))
    if not FIRST_BIRTH_YEAR <= year <= today.year:
        return f"{text!r}: the year must be between {FIRST_BIRTH_YEAR} and {today.year}"
    return None


def federation_fault(code: str) -> str | None:
    """One of FIDE's federation codes (:mod:`tmanager.core.federations`), in capitals."""
    if code in FEDERATIONS:
        return None
    if code.upper() in FEDERATIONS:
        return f"{code!r} is written {code.upper()!r}"
    return f"{code!r} is not a FIDE federation code (three capitals as FIDE writes them: NED, GER, ENG, FID)"


#: FIDE's rating lists' sexes (``M``, ``F``; ``W`` too), in any case, as TRF's ``m`` and ``w``.
_FIDE_SEXES = {"M": "m", "F": "w", "W": "w"}


def sex_code(text: str) -> str:
    """A sex as FIDE's lists or a spreadsheet write it (``F``, ``m``) as TRF and the event file do (``w``, ``m``);
    any other text as it is, for :func:`sex_fault` to refuse."""
    return _FIDE_SEXES.get(text.upper(), text)


#: How a person types a field in any case, on the command line or in a spreadsheet's cell, made as FIDE writes it.
_AS_FIDE_WRITES: dict[str, Callable[[str], str]] = {"sex": sex_code, "title": str.upper, "federation": str.upper}


def as_fide_writes(key: str, text: str) -> str:
    """A player's field ``key`` as typed (``f``, ``gm``, ``ned``) as FIDE and TRF write it (``w``, ``GM``, ``NED``),
    for ``add-player``, ``edit-player`` and a CSV alike; other fields, and text no case makes right, as they are,
    for the ``*_fault`` checks to refuse."""
    made = _AS_FIDE_WRITES.get(key)
    return made(text.strip()) if made else text


def sex_fault(sex: str) -> str | None:
    if sex in (Sex.MAN, Sex.WOMAN):
        return None
    return f"{sex!r} is not a sex as TRF writes it; use m or w (or leave it empty)"


def title_fault(title: str) -> str | None:
    return None if title in TITLES else f"{title!r} is not a FIDE title; use {', '.join(TITLES)} or leave it empty"


def fide_id_fault(fide_id: int) -> str | None:
    ok = 0 < fide_id <= MAX_FIDE_ID
    return None if ok else f"{fide_id} is not a FIDE ID (a positive whole number of at most ten digits)"


def rating_fault(rating: int) -> str | None:
    if rating == 0 or MIN_RATING <= rating <= MAX_RATING:
        return None
    return f"{rating} is not a rating: 0 (unrated) or {MIN_RATING}-{MAX_RATING}"


def k_fault(k: int) -> str | None:
    if k == 0 or k in K_FACTORS:
        return None
    return f"{k} is not a K factor: FIDE's are {', '.join(map(str, K_FACTORS))} (8.3.3), or 0 for none given"


#: Each checked field and its check; empty strings and None are fields not given.
_CHECKS: dict[str, Callable[[object], str | None]] = {
    "birth": lambda v: birth_fault(str(v)),
    "federation": lambda v: federation_fault(str(v)),
    "sex": lambda v: sex_fault(str(v)),
    "title": lambda v: title_fault(str(v)),
    "fide_id": lambda v: fide_id_fault(v) if isinstance(v, int) else f"{v!r} is not a FIDE ID",
    "rating": lambda v: rating_fault(v) if isinstance(v, int) else f"{v!r} is not a rating",
    "k": lambda v: k_fault(v) if isinstance(v, int) else f"{v!r} is not a K factor",
}


def player_fault(fields: Mapping[str, object]) -> tuple[str, str] | None:
    """The first faulty field of a player's ``fields`` (the event file's keys) and what is wrong, or None."""
    for key, check in _CHECKS.items():
        value = fields.get(key)
        if value in (None, "") or (key in ("rating", "k") and value == 0):
            continue
        fault = check(value)
        if fault is not None:
            return key, fault
    if fields.get("title") in WOMEN_TITLES and fields.get("sex") == Sex.MAN:
        title = fields["title"]
        return "title", f"{title} is a women's title and the player's sex is m (correct the title or the sex)"
    return None
