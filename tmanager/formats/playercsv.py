"""A list of players as CSV, the way registration forms and spreadsheets export them.

The first row names the columns, as the event file names a player's fields:
``name``, ``title``, ``rating``, ``fide_id``, ``federation``, ``sex``,
``birth``, ``club``, ``team``, ``flags`` (several separated by ``;``) and
``number``, in any order and any case; ``name`` is needed unless ``fide_id``
is there to look the player up in a FIDE list. Commas or semicolons separate
the columns (Python's :mod:`csv` sniffs which), UTF-8 (with or without BOM)
or Latin-1. A cell left empty is a field not given.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from tmanager.errors import ConfigError
from tmanager.files import read_bytes

COLUMNS = ("number", "name", "title", "rating", "fide_id", "federation", "sex", "birth", "club", "team", "flags")
_NUMBERS = ("number", "rating", "fide_id")


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
    reader = csv.reader(lines, dialect)
    header = [h.strip().casefold().replace(" ", "_") for h in next(reader)]
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        hint = "columns: " + ", ".join(COLUMNS)
        raise ConfigError(f"unknown column {unknown[0]!r}", file=path, field="line 1", hint=hint)
    if "name" not in header and "fide_id" not in header:
        raise ConfigError("has neither a name nor a fide_id column", file=path, field="line 1")
    rows = []
    for number, cells in enumerate(reader, 2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) > len(header):
            raise ConfigError(f"has {len(cells)} cells for {len(header)} columns", file=path, field=f"line {number}")
        fields: dict[str, int | str | list[str]] = {}
        for name, cell in zip(header, cells, strict=False):
            cell = cell.strip()
            if not cell:
                continue
            if name in _NUMBERS:
                if not cell.isdigit():
                    raise ConfigError(f"{cell[:20]!r} is not a whole number", file=path, field=f"line {number}: {name}")
                fields[name] = int(cell)
            elif name == "flags":
                fields[name] = [f.strip() for f in cell.split(";") if f.strip()]
            else:
                fields[name] = cell
        rows.append(Row(number, fields))
    return rows
