"""FIDE's rating-list downloads, read from a file the arbiter saved: the TXT and the XML formats.

FIDE publishes each list as fixed-width text (``players_list_foa.txt``, with the
standard, rapid and blitz ratings side by side; ``standard_rating_list.txt``
and the like, one rating) and as XML (``players_list_xml_foa.xml``, one
``<player>`` element each). Both hold for every player the FIDE ID, the name,
the federation, the sex, the titles, the ratings with their game counts and K
factors, the birth year and flags. The K of each rating (``SK``, ``Rk``, ``BK``;
``K`` in a single list; ``<k>``, ``<rapid_k>``, ``<blitz_k>``) is the one FIDE
applies to the player's next games (8.3.3 rests on the player's history, which
only FIDE holds), so the rating report takes it from here.

* **TXT.** The first line names the columns; each field is the text under
  its name, from where the name starts to where the next one starts
  (``ID Number``, ``Name``, ``Fed``, ``Sex``, ``Tit``, ``WTit``, ``OTit``,
  ``FOA``, ``SRtng``/``RRtng``/``BRtng`` in the combined list or the month
  (``NOV25``) in a single list, ``B-day``, ``Flag``…). Reading the header
  instead of fixed columns keeps working when FIDE widens a column. A single
  list's rating is the one its file is named by (``rapid_rating_list.txt``),
  else the standard rating.
* **XML.** ``<fideid>``, ``<name>``, ``<country>``, ``<sex>``, ``<title>``,
  ``<w_title>``, ``<rating>``, ``<rapid_rating>``, ``<blitz_rating>``,
  ``<birthday>``; read as a stream (a full list is hundreds of megabytes),
  keeping only the players asked for.

:func:`read` takes a set of FIDE IDs (or a federation) so that a full list is
never held in memory. No network access: the file is the arbiter's.

**Junk lines** — a FIDE ID that is no number, a rating or a K that is not one, a
sex other than M or F, or, for the players asked for, a federation, title or
birth year FIDE does not write (:mod:`tmanager.core.playerfields`) — refuse the
file with the line's number; :func:`read_listing` with ``skip_bad`` skips them
and lists them instead.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tmanager.core.playerfields import TITLES, RatingKind, Sex, k_fault, player_fault, rating_fault, sex_code
from tmanager.errors import ConfigError, ascii_digits
from tmanager.files import open_file

#: The TXT columns of each rating in the combined list.
_TXT_RATINGS = {RatingKind.STANDARD: "SRtng", RatingKind.RAPID: "RRtng", RatingKind.BLITZ: "BRtng"}
#: The TXT columns of each rating's K (FIDE writes the rapid one ``Rk``); a single list's is ``K``.
_TXT_KS = {RatingKind.STANDARD: "SK", RatingKind.RAPID: "Rk", RatingKind.BLITZ: "BK"}
#: The XML elements of each rating.
_XML_RATINGS = {RatingKind.STANDARD: "rating", RatingKind.RAPID: "rapid_rating", RatingKind.BLITZ: "blitz_rating"}
#: The XML elements of each rating's K.
_XML_KS = {RatingKind.STANDARD: "k", RatingKind.RAPID: "rapid_k", RatingKind.BLITZ: "blitz_k"}
#: A single list's rating column is named by its month: ``NOV25``, ``Nov25``.
_MONTH = re.compile(r"[A-Za-z]{3}\d{2}")


@dataclass(frozen=True, slots=True)
class Entry:
    """One player of a FIDE list, with the three ratings (0: none in that list)."""

    fide_id: int
    name: str
    federation: str
    sex: Sex
    title: str  # the higher of the FIDE title (GM…) and the women's title (WGM…), else ""
    ratings: dict[RatingKind, int]
    birth_year: int | None
    where: str = ""  # the line (TXT) or the player (XML) it was read from
    #: The development coefficient K FIDE publishes beside each rating (8.3.3); a kind without one is absent.
    k_factors: dict[RatingKind, int] = field(default_factory=dict)

    def rating(self, kind: RatingKind) -> int:
        return self.ratings.get(kind, 0)

    def k_factor(self, kind: RatingKind) -> int:
        """The list's K for ``kind``; 0 when the list gives none."""
        return self.k_factors.get(kind, 0)


@dataclass(frozen=True, slots=True)
class Listing:
    """What :func:`read_listing` found: the players asked for, by FIDE ID, and the lines skipped as junk
    (``line 12: …``) when asked to skip them."""

    entries: dict[int, Entry]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Junk:
    """A line (TXT) or a ``<player>`` (XML, counted from 1) that is not a player as FIDE lists them; ``fide_id``
    when its ID could be read."""

    where: str
    fault: str
    fide_id: int | None = None


def read(path: Path, *, ids: Collection[int] | None = None, federation: str | None = None) -> dict[int, Entry]:
    """The players of a FIDE list file (TXT or XML, told apart by their first bytes) whose FIDE ID is in ``ids``
    or whose federation is ``federation`` (all of them with neither), by FIDE ID. :class:`ConfigError` for a file
    that cannot be read or is not a FIDE list, or for its first junk line."""
    return read_listing(path, ids=ids, federation=federation).entries


def read_listing(
    path: Path, *, ids: Collection[int] | None = None, federation: str | None = None, skip_bad: bool = False
) -> Listing:
    """As :func:`read`; with ``skip_bad``, a junk line (an ID that is no number, a federation, sex, title, rating
    or birth year FIDE does not write, or a player's ID listed again: lists joined, whose last line won without a
    word) is skipped and reported in :attr:`Listing.skipped` instead of refused."""
    wanted = set(ids) if ids is not None else None

    def keep(entry: Entry) -> bool:
        if wanted is not None and entry.fide_id not in wanted:
            return False
        return federation is None or entry.federation.casefold() == federation.casefold()

    entries: dict[int, Entry] = {}
    skipped: list[str] = []
    try:
        with open(open_file(path), "rb") as f:  # a large file, read as it streams
            start = f.read(64).lstrip()
            f.seek(0)
            for found in _xml(f, path) if start.startswith(b"<") else _txt(f, path):
                if isinstance(found, _Junk) and found.fide_id is not None and wanted and found.fide_id not in wanted:
                    continue  # junk the event does not ask for
                item = _checked(found) if isinstance(found, Entry) and keep(found) else found
                if isinstance(item, Entry) and keep(item) and item.fide_id in entries:  # FIDE's IDs are unique
                    first = entries[item.fide_id].where
                    item = _Junk(item.where, f"FIDE ID {item.fide_id} is listed a second time ({first} has it)")
                if isinstance(item, _Junk):
                    if not skip_bad:
                        hint = "correct it, or pass --skip-bad to skip such lines"
                        raise ConfigError(item.fault, file=path, field=item.where, hint=hint)
                    skipped.append(f"{item.where}: {item.fault}")
                elif keep(item):
                    entries[item.fide_id] = item
    except OSError as exc:
        raise ConfigError(f"cannot read the rating list: {exc.strerror}", file=path) from None
    return Listing(entries, tuple(skipped))


def _checked(entry: Entry) -> Entry | _Junk:
    """``entry``, or the junk it is when its fields are not as FIDE writes them."""
    fields = {"federation": entry.federation, "title": entry.title, "fide_id": entry.fide_id,
              "birth": str(entry.birth_year or ""), "sex": entry.sex}  # fmt: skip
    fault = player_fault(fields) or next(
        ((key, f) for key, r in entry.ratings.items() if r and (f := rating_fault(r))), None
    ) or next(((f"{key} K", f) for key, k in entry.k_factors.items() if (f := k_fault(k))), None)
    if fault is None and not entry.name.strip():
        fault = ("name", "is empty")
    return entry if fault is None else _Junk(entry.where, f"{fault[0]}: {fault[1]}", entry.fide_id)


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


def _text_fault(
    fide_id: str, ratings: dict[RatingKind, str], sex: str, ks: dict[RatingKind, str]
) -> str | None:
    """What is wrong with a player's FIDE ID, rating, K or sex column as text, if anything."""
    if not ascii_digits(fide_id):
        return f"{fide_id[:20]!r} is not a FIDE ID"
    bad = next((kind for kind, text in ratings.items() if text and not ascii_digits(text)), None)
    if bad is not None:
        return f"the {bad} rating {ratings[bad][:10]!r} is not a number"
    bad = next((kind for kind, text in ks.items() if not ascii_digits(text)), None)
    if bad is not None:
        return f"the {bad} K {ks[bad][:10]!r} is not a number"
    if sex and sex_code(sex) not in (Sex.MAN, Sex.WOMAN):
        return f"sex {sex[:5]!r} is neither M nor F"
    return None


def _txt(f: IO[bytes], path: Path) -> Iterator[Entry | _Junk]:
    lines = (raw.decode("utf-8", errors="replace") if _utf8(raw) else raw.decode("latin-1") for raw in f)
    header = next(lines, "").removeprefix("\ufeff")  # a byte-order mark, if an editor saved the list
    spans = _columns(header.rstrip("\r\n"), path)
    single = next((name for name in spans if _MONTH.fullmatch(name)), None)
    for number, raw in enumerate(lines, 2):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        fields = {name: line[start:end].strip() for name, (start, end) in spans.items()}
        where = f"line {number}"
        fide_id = fields["ID Number"]
        columns = {_single_kind(path): single} if single is not None else _TXT_RATINGS
        texts = {kind: fields.get(column, "") for kind, column in columns.items() if column in spans}
        k_columns = {_single_kind(path): "K"} if single is not None else _TXT_KS
        ks = {kind: fields[column] for kind, column in k_columns.items() if fields.get(column)}
        fault = _text_fault(fide_id, texts, fields.get("Sex", ""), ks)
        if fault:
            yield _Junk(where, fault, int(fide_id) if ascii_digits(fide_id) else None)
            continue
        yield Entry(
            int(fide_id), fields["Name"], fields.get("Fed", ""), Sex.read(fields.get("Sex", "")),
            _title(fields.get("Tit", ""), fields.get("WTit", "")), {k: _number(t) for k, t in texts.items()},
            _year(fields.get("B-day", "")), where, {k: int(t) for k, t in ks.items()},
        )  # fmt: skip


def _single_kind(path: Path) -> RatingKind:
    """The rating of a list of one rating: FIDE names the files by it (``standard_rating_list.txt``,
    ``rapid_rating_list.txt``, ``blitz_rating_list.txt``), whose columns are alike; otherwise standard."""
    name = path.name.casefold()
    return next((kind for kind in (RatingKind.RAPID, RatingKind.BLITZ) if kind.value in name), RatingKind.STANDARD)


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# -- XML ------------------------------------------------------------------------------------------


def _xml(f: IO[bytes], path: Path) -> Iterator[Entry | _Junk]:
    try:
        count = 0
        for _, element in ElementTree.iterparse(f, events=("end",)):
            if element.tag != "player":
                continue
            count += 1
            values = {child.tag: (child.text or "").strip() for child in element}
            element.clear()
            fide_id, where = values.get("fideid", ""), f"player {count}"
            texts = {kind: values[tag] for kind, tag in _XML_RATINGS.items() if tag in values}
            ks = {kind: values[tag] for kind, tag in _XML_KS.items() if values.get(tag)}
            if set(texts) == {RatingKind.STANDARD}:  # a list of one rating names it <rating> and <k>, whichever
                texts = {_single_kind(path): texts[RatingKind.STANDARD]}
                ks = {_single_kind(path): ks[RatingKind.STANDARD]} if RatingKind.STANDARD in ks else {}
            fault = _text_fault(fide_id, texts, values.get("sex", ""), ks)
            if fault:
                yield _Junk(where, fault, int(fide_id) if ascii_digits(fide_id) else None)
                continue
            yield Entry(
                int(fide_id), values.get("name", ""), values.get("country", ""), Sex.read(values.get("sex", "")),
                _title(values.get("title", ""), values.get("w_title", "")), {k: _number(t) for k, t in texts.items()},
                _year(values.get("birthday", "")), where, {k: int(t) for k, t in ks.items()},
            )  # fmt: skip
    except ElementTree.ParseError as exc:
        raise ConfigError(f"is not well-formed XML ({exc})", file=path, hint="save the list again from FIDE") from None


def _title(title: str, women: str) -> str:
    """The player's title: the higher in FIDE's order (GM, IM, WGM, FM, WIM…) of the title and the women's title,
    so that a WGM who is also an FM is a WGM (for the initial order and the norms); a title FIDE does not write
    is kept, for the checks to refuse."""
    known = [t for t in (title, women) if t in TITLES]
    if len(known) < len([t for t in (title, women) if t]):
        return title or women
    return min(known, key=TITLES.index, default="")


def _number(text: str) -> int:
    return int(text) if ascii_digits(text) else 0


def _year(text: str) -> int | None:
    year = text[:4]
    return int(year) if ascii_digits(year) and int(year) > 0 else None

