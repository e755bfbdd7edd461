"""Plain-text tables: cells padded so that columns line up, names to the left and numbers to the right."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tmanager.errors import printable


def aligned(header: Sequence[str], rows: Sequence[Sequence[str]], *, left: Collection[int] = (1,)) -> list[str]:
    """The header and the rows as lines: columns two spaces apart, ``left`` ones left-aligned, no trailing blanks.

    Control characters in a cell (a name from a foreign PGN, say) are written as escapes: a table never
    moves the terminal's cursor nor recolours it."""
    header = [printable(c) for c in header]
    rows = [[printable(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return [
        "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in (header, *rows)
    ]
