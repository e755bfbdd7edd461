"""A list of players as CSV, the way registration forms and spreadsheets export them.

The first row names the columns, as the event file names a player's fields:
``name``, ``title``, ``rating``, ``k`` (FIDE's development coefficient K: 10, 20 or 40), ``fide_id``,
``federation``, ``sex``, ``birth``, ``club``, ``team``, ``flags`` (several separated by ``;``) and
``number``, in any order and any case (a ``sex`` may be FIDE's ``M`` or ``F``); ``name`` is needed unless ``fide_id``
is there to look the player up in a FIDE list. Commas or semicolons separate
the columns (Python's :mod:`csv` sniffs which), UTF-8 (with or without BOM)
or Latin-1. A cell left empty is a field not given. A column named twice, a quote left open and a number
that is not plain digits are refused with the line's number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tmanager.core.playerfields import as_fide_writes
from tmanager.errors import ConfigError, ascii_digits
from tmanager.files import read_bytes

COLUMNS = ("number", "name", "title", "rating", "k", "fide_id", "federation", "sex", "birth", "club", "team", "flags")
_NUMBERS = ("number", "rating", "k", "fide_id")


@dataclass(frozen=True, slots=True)
class Row:
    """One player as the file gives them: the fields present (numbers as numbers), and the line they are on."""

    line: int
    fields: dict[str, int | str | list[str]] = field(default_factory=dict)


def read(path: Path) -> list[Row]:
    """The rows of a player list; :class:`ConfigError` naming the file and line of anything malformed."""
    data = read_bytes(path, kind="player list", create=None)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    lines = text.splitlines()
    if not lines:
        raise ConfigError("is empty", file=path, hint="the first row names the columns: name,rating,fide_id…")
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(lines[0], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    # The text as csv reads a file (a cell over two lines keeps its line break, which the checks of a name then
    # refuse, rather than losing it); strict: a quote left open, or text after a closing quote, is refused
    # rather than read into the cell.
    reader = csv.reader(io.StringIO(text, newline=""), dialect, strict=True)
    header = _header(path, reader)
    rows = []
    try:
        for cells in reader:
            if any(c.strip() for c in cells):
                rows.append(_row(path, reader.line_num, header, cells))
    except csv.Error as exc:
        hint = 'close every quote, and quote a cell holding the separator: "Carlsen, Magnus",2830'
        raise ConfigError(f"is not CSV: {exc}", file=path, field=f"line {reader.line_num}", hint=hint) from None
    if not rows:
        raise ConfigError("holds no player, only the row naming the columns", file=path, hint="a player a line")
    return rows


def _header(path: Path, reader: Iterator[list[str]]) -> list[str]:
    """The column names of the first row, each known and given once."""
    header = [h.strip().casefold().replace(" ", "_") for h in next(reader)]
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        hint = "columns: " + ", ".join(COLUMNS)
        raise ConfigError(f"unknown column {unknown[0]!r}", file=path, field="line 1", hint=hint)
    twice = [h for i, h in enumerate(header) if h in header[:i]]
    if twice:  # the last cell would silently win over the first
        raise ConfigError(f"column {twice[0]!r} is given twice", file=path, field="line 1",
                          hint="keep one column of each name")  # fmt: skip
    if "name" not in header and "fide_id" not in header:
        raise ConfigError("has neither a name nor a fide_id column", file=path, field="line 1",
                          hint="the first row names the columns: name,rating,fide_id…")  # fmt: skip
    return header


def _row(path: Path, number: int, header: list[str], cells: list[str]) -> Row:
    """The row ending on line ``number``."""
    if len(cells) > len(header):
        raise ConfigError(f"has {len(cells)} cells for {len(header)} columns", file=path, field=f"line {number}",
                          hint="quote a cell that holds the separator, or name every column in the first row")
    fields: dict[str, int | str | list[str]] = {}
    for name, cell in zip(header, cells, strict=False):
        cell = cell.strip()
        if not cell:
            continue
        if name in _NUMBERS:
            if not ascii_digits(cell):
                raise ConfigError(f"{cell[:20]!r} is not a whole number", file=path, field=f"line {number}: {name}",
                                  hint="write it in digits, or leave the cell empty")  # fmt: skip
            # Swiss-Manager and others write FIDE ID 0 for a player without one: none, as a blank cell, not a
            # refusal of the whole list ('0 is not a FIDE ID').
            if name != "fide_id" or int(cell):
                fields[name] = int(cell)
        elif name == "flags":
            fields[name] = [f.strip() for f in cell.split(";") if f.strip()]
        else:  # FIDE's lists write F and M, a person gm or ned
            fields[name] = as_fide_writes(name, cell)
    return Row(number, fields)
