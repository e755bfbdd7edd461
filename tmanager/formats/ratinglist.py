"""FIDE's rating-list downloads, read from a file the arbiter saved: the TXT and the XML formats.

FIDE publishes each list as fixed-width text (``players_list_foa.txt``, with the
standard, rapid and blitz ratings side by side; ``standard_rating_list.txt``
and the like, one rating) and as XML (``players_list_xml_foa.xml``, one
``<player>`` element each). Both hold for every player the FIDE ID, the name,
the federation, the sex, the titles, the ratings with their game counts and K
factors, the birth year and flags.

* **TXT.** The first line names the columns; each field is the text under
  its name, from where the name starts to where the next one starts
  (``ID Number``, ``Name``, ``Fed``, ``Sex``, ``Tit``, ``WTit``, ``OTit``,
  ``FOA``, ``SRtng``/``RRtng``/``BRtng`` in the combined list or the month
  (``NOV25``) in a single list, ``B-day``, ``Flag``…). Reading the header
  instead of fixed columns keeps working when FIDE widens a column.
* **XML.** ``<fideid>``, ``<name>``, ``<country>``, ``<sex>``, ``<title>``,
  ``<w_title>``, ``<rating>``, ``<rapid_rating>``, ``<blitz_rating>``,
  ``<birthday>``; read as a stream (a full list is hundreds of megabytes),
  keeping only the players asked for.

:func:`read` takes a set of FIDE IDs (or a federation) so that a full list is
never held in memory. No network access: the file is the arbiter's.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from tmanager.errors import ConfigError
from tmanager.files import open_file

Kind = Literal["standard", "rapid", "blitz"]
#: The TXT columns of each rating in the combined list.
_TXT_RATINGS = {"standard": "SRtng", "rapid": "RRtng", "blitz": "BRtng"}
#: The XML elements of each rating.
_XML_RATINGS = {"standard": "rating", "rapid": "rapid_rating", "blitz": "blitz_rating"}
#: A single list's rating column is named by its month: ``NOV25``, ``Nov25``.
_MONTH = re.compile(r"[A-Za-z]{3}\d{2}")


@dataclass(frozen=True, slots=True)
class Entry:
    """One player of a FIDE list, with the three ratings (0: none in that list)."""

    fide_id: int
    name: str
    federation: str
    sex: str  # "m", "w" or ""
    title: str  # the FIDE title (GM…), else the women's title (WGM…), else ""
    ratings: dict[str, int]
    birth_year: int | None

    def rating(self, kind: Kind) -> int:
        return self.ratings.get(kind, 0)


def read(path: Path, *, ids: Collection[int] | None = None, federation: str | None = None) -> dict[int, Entry]:
    """The players of a FIDE list file (TXT or XML, told apart by their first bytes) whose FIDE ID is in ``ids``
    or whose federation is ``federation`` (all of them with neither), by FIDE ID. :class:`ConfigError` for a file
    that cannot be read or is not a FIDE list."""
    wanted = set(ids) if ids is not None else None

    def keep(entry: Entry) -> bool:
        if wanted is not None and entry.fide_id not in wanted:
            return False
        return federation is None or entry.federation.casefold() == federation.casefold()

    try:
        with open(open_file(path), "rb") as f:  # a large file, read as it streams
            start = f.read(64).lstrip()
            f.seek(0)
            entries = _xml(f, path) if start.startswith(b"<") else _txt(f, path)
            return {e.fide_id: e for e in entries if keep(e)}
    except OSError as exc:
        raise ConfigError(f"cannot read the rating list: {exc.strerror}", file=path) from None


# -- TXT ------------------------------------------------------------------------------------------


def _columns(header: str, path: Path) -> dict[str, tuple[int, int | None]]:
    """Each column's name and its span, from the header line."""
    marks = [(m.start(), m.group()) for m in re.finditer(r"\S+", header)]
    merged: list[tuple[int, str]] = []
    for start, word in marks:
        if merged and merged[-1][1] == "ID" and word == "Number":  # the one name with a space
            merged[-1] = (merged[-1][0], "ID Number")
        else:
            merged.append((start, word))
    names = [w for _, w in merged]
    if "ID Number" not in names or "Name" not in names:
        raise ConfigError(
            "is not a FIDE rating list (its first line names no ID Number and Name columns)",
            file=path, hint="save the TXT or XML list from ratings.fide.com (unzipped)",
        )  # fmt: skip
    spans: dict[str, tuple[int, int | None]] = {}
    for i, (start, word) in enumerate(merged):
        spans[word] = (start, merged[i + 1][0] if i + 1 < len(merged) else None)
    return spans


def _txt(f: IO[bytes], path: Path) -> Iterator[Entry]:
    lines = (raw.decode("utf-8", errors="replace") if _utf8(raw) else raw.decode("latin-1") for raw in f)
    header = next(lines, "")
    spans = _columns(header.rstrip("\r\n"), path)
    single = next((name for name in spans if _MONTH.fullmatch(name)), None)
    for number, raw in enumerate(lines, 2):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        fields = {name: line[start:end].strip() for name, (start, end) in spans.items()}
        fide_id = fields["ID Number"]
        if not fide_id.isdigit():
            raise ConfigError(f"{fide_id[:20]!r} is not a FIDE ID", file=path, field=f"line {number}")
        ratings = {kind: _number(fields.get(column, "")) for kind, column in _TXT_RATINGS.items() if column in spans}
        if single is not None:
            ratings = {"standard": _number(fields[single])}
        yield Entry(
            int(fide_id), fields["Name"], fields.get("Fed", ""), _sex(fields.get("Sex", "")),
            fields.get("Tit", "") or fields.get("WTit", ""), ratings, _year(fields.get("B-day", "")),
        )  # fmt: skip


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# -- XML ------------------------------------------------------------------------------------------


def _xml(f: IO[bytes], path: Path) -> Iterator[Entry]:
    try:
        for _, element in ElementTree.iterparse(f, events=("end",)):
            if element.tag != "player":
                continue
            values = {child.tag: (child.text or "").strip() for child in element}
            element.clear()
            fide_id = values.get("fideid", "")
            if not fide_id.isdigit():
                raise ConfigError(f"a player's fideid is {fide_id[:20]!r}", file=path, hint="not a FIDE list?")
            ratings = {kind: _number(values.get(tag, "")) for kind, tag in _XML_RATINGS.items()}
            yield Entry(
                int(fide_id), values.get("name", ""), values.get("country", ""), _sex(values.get("sex", "")),
                values.get("title", "") or values.get("w_title", ""), ratings, _year(values.get("birthday", "")),
            )  # fmt: skip
    except ElementTree.ParseError as exc:
        raise ConfigError(f"is not well-formed XML ({exc})", file=path, hint="save the list again from FIDE") from None


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _year(text: str) -> int | None:
    year = text[:4]
    return int(year) if year.isdigit() and int(year) > 0 else None


def _sex(text: str) -> str:
    return {"M": "m", "F": "w", "W": "w"}.get(text.upper(), "")
