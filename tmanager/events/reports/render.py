"""Reports as text and as printable HTML pages, and publishing a set of them beside the event with an index.

:func:`text` renders a report for the terminal and a ``.txt`` file,
:func:`html` as a page (template ``report.html``). :func:`publish` writes a
set of reports into ``html/<event>/`` beside the event file with the
stylesheet ``tmanager.css`` (and the event's own stylesheet, linked after it,
as tsh's ``custom_stylesheet``), and rewrites ``index.html``, which links
every page in the directory.
"""

from __future__ import annotations

import datetime
import html as html_module
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tmanager import templates
from tmanager.columns import aligned
from tmanager.errors import ConfigError
from tmanager.events.model import Event
from tmanager.events.reports import Report, Table
from tmanager.files import atomic_write, make_directory, read_text

STYLESHEET = "tmanager.css"
CUSTOM_STYLESHEET = "custom.css"
#: The order of the index: by kind (a wall chart counts as the cross-table), then by round.
INDEX_ORDER = ("players", "pairings", "pairings-alpha", "slips", "standings", "prizes", "crosstable", "progress",
               "cards", "missing", "ratings")  # fmt: skip
_PACKAGE = "tmanager.events.reports"


def text(report: Report) -> str:
    """The report as plain text."""
    lines = [report.title, "=" * len(report.title)]
    for block in report.blocks:
        lines.append("")
        if isinstance(block, str):
            lines.append(block)
            continue
        if block.title:
            lines += [block.title, "-" * len(block.title)]
        lines += aligned(block.header, block.rows, left=block.left)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class _Link:
    name: str
    title: str
    text: str


def html(report: Report, *, custom_stylesheet: bool = False, pages: Sequence[_Link] = ()) -> str:
    """The report as an HTML page that links the stylesheet(s) beside it and prints cleanly.

    On a page of cards each table opens a ``<section class="card">`` holding it
    and the notes after it, one card per printed page.
    """
    return (
        templates.render(
            _PACKAGE,
            "report.html",
            report=report,
            groups=_groups(report),
            pages=pages,
            stylesheet=STYLESHEET,
            custom_stylesheet=CUSTOM_STYLESHEET if custom_stylesheet else "",
            today=datetime.date.today().isoformat(),
        )
        + "\n"
    )


def _groups(report: Report) -> list[tuple[str | None, list[Table | str]]]:
    """The blocks in printed groups: on a page of cards a card per table (with the notes after it), else one group."""
    groups: list[tuple[str | None, list[Table | str]]] = [(None, [])]
    for block in report.blocks:
        if report.cards and isinstance(block, Table):
            groups.append((block.anchor, []))
        groups[-1][1].append(block)
    return [g for g in groups if g[1]]


def report_dir(event_path: Path) -> Path:
    """``html/<event>/`` beside the event file."""
    return event_path.parent / "html" / event_path.stem


def read_stylesheet(path: Path) -> str:
    """The text of the event's stylesheet, or :class:`ConfigError` on the ``stylesheet`` field (read as it is
    set, as each report is published)."""
    try:
        return read_text(path, kind="stylesheet", create=None)
    except ConfigError as exc:
        raise exc.located(field="stylesheet") from None


def publish(event_path: Path, event: Event, reports: Sequence[Report], *, stylesheet: Path | None = None) -> Path:
    """Write each report as ``KEY.html`` and ``KEY.txt``, the stylesheets and ``index.html``; returns the directory.

    ``stylesheet`` (default: the event's ``stylesheet`` setting, relative to the
    event file) is copied as ``custom.css`` and linked after ``tmanager.css``.
    """
    directory = report_dir(event_path)
    make_directory(directory, hint=f"move it away: tmanager writes the reports of {event_path.name} there")
    if stylesheet is None and event.stylesheet:
        stylesheet = event_path.parent / event.stylesheet
    if stylesheet is not None:
        atomic_write(directory / CUSTOM_STYLESHEET, read_stylesheet(stylesheet))
    elif (directory / CUSTOM_STYLESHEET).exists():
        (directory / CUSTOM_STYLESHEET).unlink()
    atomic_write(directory / STYLESHEET, (resources.files(_PACKAGE) / "templates" / STYLESHEET).read_text("utf-8"))
    for r in reports:
        atomic_write(directory / f"{r.key}.html", html(r, custom_stylesheet=stylesheet is not None))
        atomic_write(directory / f"{r.key}.txt", text(r))
    pages = sorted((p for p in directory.glob("*.html") if p.name != "index.html"), key=_index_key)
    links = [_Link(p.name, _title_of(p), f"{p.stem}.txt") for p in pages]
    index = Report("index", f"{event.name}: reports", ())
    atomic_write(directory / "index.html", html(index, custom_stylesheet=stylesheet is not None, pages=links))
    return directory


def _title_of(page: Path) -> str:
    m = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.S)
    return html_module.unescape(m[1]) if m else page.stem


def _index_key(page: Path) -> tuple[int, int, str]:
    """Index order: by kind as in :data:`INDEX_ORDER`, then by round."""
    m = re.search(r"-r(\d+)$", page.stem)
    base = page.stem[: m.start()] if m else page.stem
    kinds = {k: i for i, k in enumerate(INDEX_ORDER)} | {"wallchart": INDEX_ORDER.index("crosstable")}
    # The longest kind name inside the key: "pairings-alpha" before "pairings".
    kind = max((k for k in kinds if k in base), key=len, default="")
    return (kinds.get(kind, len(INDEX_ORDER)), int(m[1]) if m else 0, page.stem)
