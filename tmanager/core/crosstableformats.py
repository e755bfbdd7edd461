"""A :class:`~tmanager.core.crosstable.Crosstable` written out: :func:`render` as ``text``, ``html`` (one
self-contained page that prints cleanly), ``markdown``, ``csv`` (the standings) or ``json``, and
:func:`match_line`, a two-player match's statistics on one line."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from tmanager.columns import aligned
from tmanager.core import stats
from tmanager.core.crosstable import MAX_GRID_GAMES, MAX_TABLE_PLAYERS, Crosstable, Format, Match
from tmanager.core.standings import grid, points_text
from tmanager.core.stats import SprtModel, SprtSettings, SprtVerdict

#: The SPRT line's last words, by where its LLR stands.
_VERDICT_WORDS = {
    SprtVerdict.H1: "H1 was accepted", SprtVerdict.H0: "H0 was accepted", SprtVerdict.CONTINUE: "no decision yet",
}


def render(table: Crosstable, fmt: Format = Format.TEXT) -> str:
    r"""The cross-table in one of the :class:`~tmanager.core.crosstable.Format`\ s."""
    renderer = {
        Format.TEXT: _text,
        Format.HTML: _html,
        Format.MARKDOWN: _markdown,
        Format.CSV: _csv,
        Format.JSON: _json,
    }[fmt]
    return renderer(table)


def _margin(value: float, digits: int = 0) -> str:
    return "inf" if math.isinf(value) else f"{value:.{digits}f}"


def _ratio(value: float) -> str:
    """A ratio to two decimals; ``inf`` (nothing below the line) and ``-`` (nothing at all) as words."""
    return "-" if math.isnan(value) else "inf" if math.isinf(value) else f"{value:.2f}"


def _standings_rows(table: Crosstable) -> tuple[list[str], list[list[str]]]:
    header = ["Rank", "Name", "Games", "Points", "%", "W", "D", "L", "Elo", "±", "Draw%", "Opp."]
    header += list(table.tiebreak_names)
    rows = []
    for line in table.lines:
        s = line.standing
        total = s.total
        rows.append(
            [
                str(line.rank),
                s.name,
                str(s.games),
                points_text(s.points),
                f"{s.percent:.1f}",
                str(total.wins),
                str(total.draws),
                str(total.losses),
                stats.signed(line.elo),
                _margin(line.elo_error),
                f"{s.draw_percent:.1f}",
                stats.signed(s.opponent_rating) if s.opponent_rating is not None else "",
                *(points_text(v) if v is not None else "" for v in line.tiebreaks),
            ]
        )
    return header, rows


def _cell(table: Crosstable, player: str, opponent: str, *, allow_grid: bool) -> str:
    if player == opponent:
        return "x"
    record = table.tally.record(player, opponent)
    if not record.games:
        return ""
    if allow_grid:
        marks = grid(table.tally, player, opponent)
        if marks is not None:
            return marks
    return f"{points_text(record.wins + record.draws / 2)}/{record.games}"


def _matrix(table: Crosstable) -> tuple[list[str], list[list[str]]] | None:
    """The opponent-by-opponent table, in standings order, for small fields."""
    names = [line.standing.name for line in table.lines]
    if len(names) > MAX_TABLE_PLAYERS or len(names) < 2:
        return None
    allow_grid = max((h.games for h in table.head_to_head), default=0) <= MAX_GRID_GAMES
    header = ["#", "Name", *(str(i) for i in range(1, len(names) + 1)), "Points"]
    rows = []
    for i, name in enumerate(names, 1):
        cells = [_cell(table, name, other, allow_grid=allow_grid) for other in names]
        rows.append([str(i), name, *cells, points_text(table.lines[i - 1].standing.points)])
    return header, rows


def _colour_rows(table: Crosstable) -> tuple[list[str], list[list[str]]]:
    header = ["Name", "White", "W-D-L", "White%", "Black", "W-D-L", "Black%"]
    rows = []
    for line in table.lines:
        s = line.standing
        cells = [s.name]
        for record in (s.white, s.black):
            percent = 100 * (record.wins + record.draws / 2) / record.games if record.games else 0.0
            cells += [str(record.games), f"{record.wins}-{record.draws}-{record.losses}", f"{percent:.1f}"]
        rows.append(cells)
    return header, rows


def _match_lines(table: Crosstable) -> list[str]:
    m = table.match
    if m is None:
        return []
    s = m.stats
    lines = [
        f"Score of {m.first} vs {m.second}: {s.wins} - {s.losses} - {s.draws}  [{s.score:.3f}] {s.games}",
        f"Elo difference: {stats.signed(s.elo.value, 1)} +/- {_margin(s.elo.margin, 1)}, "
        f"LOS: {100 * s.los:.1f} %, DrawRatio: {100 * s.draw_ratio:.1f} % of games",
    ]
    pairs_draws, pairs_ratio, wl_dd = s.draw_ratio_pairs, s.pairs_ratio, s.wl_dd_ratio
    if (s.penta is not None and s.elo_penta is not None and s.nelo_penta is not None and pairs_draws is not None
            and pairs_ratio is not None and wl_dd is not None):
        lines += [
            f"Ptnml(0-2): [{', '.join(str(c) for c in s.penta)}], {sum(s.penta)} pairs, {m.unpaired} unpaired games",
            f"Elo (pentanomial): {stats.signed(s.elo_penta.value, 2)} +/- {_margin(s.elo_penta.margin, 2)}, "
            f"nElo: {stats.signed(s.nelo_penta.value, 2)} +/- {_margin(s.nelo_penta.margin, 2)}, "
            f"LOS: {100 * (s.los_penta or 0):.2f} %",
            f"DrawRatio: {100 * pairs_draws:.2f} % of pairs (fastchess's), PairsRatio: {_ratio(pairs_ratio)}, "
            f"WL/DD Ratio: {_ratio(wl_dd)}",
        ]
    else:
        lines.append(f"nElo: {stats.signed(s.nelo.value, 2)} +/- {_margin(s.nelo.margin, 2)} (no game pairs found)")
    if s.sprt is not None and m.sprt is not None:
        verdict = _VERDICT_WORDS[s.sprt.verdict]
        by_pairs = s.penta is not None and m.sprt.pentanomial and m.sprt.model is not SprtModel.BAYESIAN
        counted = "pentanomial" if by_pairs else "trinomial"  # as SprtSettings.test counts
        order = f" ({m.first}: {m.chosen_by}; --match to choose)" if m.chosen_by else ""
        lines.append(
            f"SPRT of {m.first} against {m.second}{order}, [{m.sprt.elo0:g}, {m.sprt.elo1:g}] "
            f"({m.sprt.model}, {counted}): LLR {s.sprt.llr:.2f} (bounds {s.sprt.lower:.2f}, {s.sprt.upper:.2f}) "
            f"- {verdict}"
        )
    return lines


def match_line(first: str, second: str, match: stats.MatchStats, sprt: SprtSettings | None = None) -> str:
    """The match on one line, as engine testers follow a test: games, W-D-L, Elo ± 95 %, nElo and LOS
    (pentanomial where there are pairs), fastchess's DrawRatio (of the pairs; of the games without pairs),
    PairsRatio, the pentanomial counts with the WL/DD ratio, and the LLR, its share of the bound it heads
    for, and its bounds."""
    elo, nelo, los = match.elo, match.nelo, match.los
    if match.elo_penta is not None and match.nelo_penta is not None and match.los_penta is not None:
        elo, nelo, los = match.elo_penta, match.nelo_penta, match.los_penta
    text = (
        f"{first} vs {second}: {match.games} games, W-D-L {match.wins}-{match.draws}-{match.losses}, "
        f"Elo {stats.signed(elo.value, 1)} ± {_margin(elo.margin, 1)}, "
        f"nElo {stats.signed(nelo.value, 1)} ± {_margin(nelo.margin, 1)}, LOS {100 * los:.1f} %"
    )
    pairs_draws, pairs_ratio, wl_dd = match.draw_ratio_pairs, match.pairs_ratio, match.wl_dd_ratio
    if match.penta is not None and pairs_draws is not None and pairs_ratio is not None and wl_dd is not None:
        text += (
            f", DrawRatio {100 * pairs_draws:.1f} % of pairs, PairsRatio {_ratio(pairs_ratio)}, "
            f"Ptnml(0-2) [{', '.join(map(str, match.penta))}], WL/DD {_ratio(wl_dd)}"
        )
    else:
        text += f", DrawRatio {100 * match.draw_ratio:.1f} % of games"
    if match.sprt is not None and sprt is not None:
        test = match.sprt
        share = test.llr / test.upper if test.llr >= 0 else test.llr / test.lower
        text += (
            f", LLR {test.llr:.2f} ({100 * share:.1f} %) ({test.lower:.2f}, {test.upper:.2f}) "
            f"[{sprt.elo0:g}, {sprt.elo1:g}]"
        )
    return text


def _rating_note(table: Crosstable) -> str:
    r = table.ratings
    anchor = f"{r.anchor} = {r.anchor_elo:g}" if r.anchor else f"average = {r.anchor_elo:g}"
    note = f"Elo: joint maximum likelihood, anchored on {anchor}; ± is the 95 % interval"
    if r.white_advantage:
        note += f"; white advantage {stats.signed(r.white_advantage, 1)} +/- {_margin(r.white_advantage_error, 1)}"
    return note


def _text(table: Crosstable) -> str:
    out = [table.title, "", *aligned(*_standings_rows(table)), "", _rating_note(table)]
    matrix = _matrix(table)
    if matrix is not None:
        out += ["", "Cross-table", "", *aligned(*matrix)]
    out += ["", "Per colour", "", *aligned(*_colour_rows(table), left=(0,))]
    if table.match is not None:
        out += ["", *_match_lines(table)]
    out += [f"note: {n}" for n in table.notes]
    return "\n".join(out) + "\n"


#: What Markdown reads as markup in a name or title: a player "<b>x</b>" came out bold, "*A*" in italics, "A|B"
#: split its table cell (the one character escaped before).
_MD_SPECIAL = re.compile(r"([\\`*_<>\[\]|])")


def _md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(_md_escape(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows]
    return out


def _markdown(table: Crosstable) -> str:
    out = [f"# {_md_escape(table.title)}", "", *_md_table(*_standings_rows(table)), "", _rating_note(table)]
    matrix = _matrix(table)
    if matrix is not None:
        out += ["", "## Cross-table", "", *_md_table(*matrix)]
    out += ["", "## Per colour", "", *_md_table(*_colour_rows(table))]
    if table.match is not None:
        out += ["", "## Match", "", *(f"- {_md_escape(line)}" for line in _match_lines(table))]
    out += [f"\n> note: {_md_escape(n)}" for n in table.notes]
    return "\n".join(out) + "\n"


def _csv(table: Crosstable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header, rows = _standings_rows(table)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _finite(value: float, digits: int = 2) -> float | None:
    """``value`` rounded, or ``None`` (JSON's null) for what JSON cannot hold: the infinities and NaN."""
    return None if math.isinf(value) or math.isnan(value) else round(value, digits)


def _json(table: Crosstable) -> str:
    players = []
    for line in table.lines:
        s = line.standing
        total = s.total
        entry: dict[str, Any] = {
            "rank": line.rank,
            "name": s.name,
            "games": s.games,
            "points": s.points,
            "percent": round(s.percent, 2),
            "wins": total.wins,
            "draws": total.draws,
            "losses": total.losses,
            "elo": _finite(line.elo),
            "elo_error": _finite(line.elo_error),
            "draw_percent": round(s.draw_percent, 2),
            "average_opponent": _finite(s.opponent_rating) if s.opponent_rating is not None else None,
            "white": {"wins": s.white.wins, "draws": s.white.draws, "losses": s.white.losses},
            "black": {"wins": s.black.wins, "draws": s.black.draws, "losses": s.black.losses},
        }
        if table.tiebreak_names:
            entry["tiebreaks"] = dict(zip(table.tiebreak_names, line.tiebreaks, strict=True))
        players.append(entry)
    h2h = []
    for h in table.head_to_head:
        item: dict[str, Any] = {
            "players": [h.first, h.second],
            "games": h.games,
            "points": {h.first: h.first_points, h.second: h.second_points},
            "wins": {h.first: h.record.wins, h.second: h.record.losses},
            "draws": h.record.draws,
        }
        marks = grid(table.tally, h.first, h.second)
        if marks is not None:
            item["grid"] = marks
        h2h.append(item)
    document: dict[str, Any] = {
        "title": table.title,
        "games": table.tally.games,
        "players": players,
        "head_to_head": h2h,
        "ratings": {
            "anchor": table.ratings.anchor,
            "anchor_elo": table.ratings.anchor_elo,
            "white_advantage": _finite(table.ratings.white_advantage),
            "white_advantage_error": _finite(table.ratings.white_advantage_error),
            "groups": table.ratings.groups,
        },
        "notes": list(table.notes),
    }
    if table.match is not None:
        document["match"] = _match_json(table.match)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _match_json(m: Match) -> dict[str, Any]:
    s = m.stats
    out: dict[str, Any] = {
        "players": [m.first, m.second],
        **({"first_chosen_by": m.chosen_by} if m.chosen_by else {}),
        "wins": s.wins,
        "losses": s.losses,
        "draws": s.draws,
        "elo": _finite(s.elo.value),
        "elo_error": _finite(s.elo.margin),
        "los": round(s.los, 4),
        "draw_ratio": round(s.draw_ratio, 4),
        "nelo": _finite(s.nelo.value),
        "nelo_error": _finite(s.nelo.margin),
    }
    if s.penta is not None and s.elo_penta is not None and s.nelo_penta is not None:
        out["pentanomial"] = list(s.penta)
        out["unpaired"] = m.unpaired
        out["elo_pentanomial"] = _finite(s.elo_penta.value)
        out["elo_pentanomial_error"] = _finite(s.elo_penta.margin)
        out["nelo_pentanomial"] = _finite(s.nelo_penta.value)
        out["nelo_pentanomial_error"] = _finite(s.nelo_penta.margin)
    if s.sprt is not None and m.sprt is not None:
        out["sprt"] = {
            "model": m.sprt.model.value,
            "elo0": m.sprt.elo0,
            "elo1": m.sprt.elo1,
            "llr": _finite(s.sprt.llr, 4),  # NaN where the normalized model has no estimate, as in fastchess
            "lower": round(s.sprt.lower, 4),
            "upper": round(s.sprt.upper, 4),
            "verdict": s.sprt.verdict.value,
        }
    return out


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.5em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #999; padding: 0.25em 0.6em; text-align: right; }
th { background: #e8e8e8; }
td.name, th.name { text-align: left; }
td.self { background: #bbb; }
tr:nth-child(even) td { background: #f6f6f6; }
p.note { font-size: 0.9em; color: #444; }
pre { background: #f3f3f3; padding: 0.8em; }
@media print {
  body { margin: 0; }
  th { background: #ddd !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  table, pre { page-break-inside: avoid; }
}
"""


def _html_table(header: list[str], rows: list[list[str]], *, names: Sequence[int] = (1,)) -> str:
    def cell(tag: str, i: int, text: str) -> str:
        cls = ' class="name"' if i in names else (' class="self"' if text == "x" and tag == "td" else "")
        return f"<{tag}{cls}>{html.escape(text)}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(header))
    body = "\n".join("<tr>" + "".join(cell("td", i, c) for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _html(table: Crosstable) -> str:
    title = html.escape(table.title)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{title}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{title}</h1>",
        _html_table(*_standings_rows(table)),
        f'<p class="note">{html.escape(_rating_note(table))}</p>',
    ]
    matrix = _matrix(table)
    if matrix is not None:
        parts += ["<h2>Cross-table</h2>", _html_table(*matrix)]
    parts += ["<h2>Per colour</h2>", _html_table(*_colour_rows(table), names=(0,))]
    if table.match is not None:
        parts += ["<h2>Match</h2>", "<pre>" + html.escape("\n".join(_match_lines(table))) + "</pre>"]
    parts += [f'<p class="note">note: {html.escape(n)}</p>' for n in table.notes]
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"
