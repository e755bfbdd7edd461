"""HTML of the tourney dashboard: the page, and its sections as fragments that the browser swaps live.

Every section is one element whose ``id`` is its key in the fragments
mapping; games in progress are keyed ``game-N`` and live inside ``#games``.
Each is a template (``templates/dashboard/``) filled with values built here
from tourney data only (names, results, settings that say how games are
played); the templates escape them, and the caller passes the result through
a :class:`~tmanager.web.redact.Redactor` before it leaves the server.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import chess
import chess.svg

from tmanager import templates
from tmanager.core import crosstable, crosstableformats, sprt
from tmanager.core.results import Result
from tmanager.core.standings import grid, points_text
from tmanager.errors import ConfigError, ascii_digits
from tmanager.tourney import tuning
from tmanager.tourney.live import GameInProgress
from tmanager.tourney.model import PLAYING, Tourney, describe_faults
from tmanager.tourney.progress import games_left, games_planned
from tmanager.tourney.variants import STANDARD, variant_board
from tmanager.web.pgnindex import IndexedGame

#: Plies shown under each board.
LAST_MOVES = 10
#: Rows in the recent results.
RECENT_RESULTS = 12
#: Points drawn per participant in the score chart (longer series are thinned out).
CHART_POINTS = 200
#: Line colours of the score chart, told apart also by people with the common colour-vision deficiencies.
PALETTE = (
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
    "#000000", "#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd",
)  # fmt: skip


# --- the page ------------------------------------------------------------------------------------


def _render(template: str, **values: Any) -> str:
    return templates.render("tmanager.web", f"dashboard/{template}", **values)


def page(fragments: Mapping[str, str], *, title: str, version: int) -> str:
    """The whole dashboard with the current fragments; ``version`` lets the event stream resume from it."""
    games = [html for key, html in sorted(fragments.items(), key=_game_order) if key.startswith("game-")]
    now = f"{time.time():.3f}"
    return _render("page.html", parts=fragments, games=games, title=title, version=version, now=now) + "\n"


def _game_order(item: tuple[str, str]) -> tuple[int, str]:
    key = item[0]
    number = key.removeprefix("game-")
    return (int(number), key) if ascii_digits(number) else (-1, key)


# --- sections from the tourney file --------------------------------------------------------------


def head(tourney: Tourney) -> str:
    """Title line: name, event, type, field size, time control, variant."""
    s = tourney.settings
    facts = [s.type, f"{len(tourney.participants)} participants", f"tc {s.tc}"]
    if s.st is not None:
        facts.append(f"{s.st:g} s/move")
    if s.nodes is not None:
        facts.append(f"{s.nodes} nodes")
    if s.depth is not None:
        facts.append(f"depth {s.depth}")
    if s.variant != STANDARD:
        facts.append(s.variant)
    event = " · ".join(x for x in (s.event, s.site) if x)
    return _render("head.html", name=s.name, event=event, facts=" · ".join(facts))


def notice(text: str) -> str:
    """A warning banner (empty element when there is nothing to say)."""
    return _render("notice.html", text=text)


def progress(tourney: Tourney, *, finish_at: float | None) -> str:
    """Games played, in progress and left; a bar (to the games the tourney will play); the estimated finish time."""
    total = tourney.schedule().total_games
    done = tourney.finished_count
    playing = tourney.results.count(PLAYING)
    local = time.strftime("%H:%M", time.localtime(finish_at)) if finish_at is not None else ""
    return _render(
        "progress.html",
        done=done,
        total=total,
        planned=games_planned(tourney),
        playing=playing,
        left=games_left(tourney),
        finished=tourney.is_complete(),  # every game played, or the SPRT decided
        finish_at=f"{finish_at:.0f}" if finish_at is not None else None,
        local=local,
    )


def match(tourney: Tourney) -> str:
    """A two-participant match: its statistics as ``run`` and ``status`` print them, and the SPRT's
    decision; a hidden element for other tourneys."""
    state = tourney.match_state() if tourney.finished_count else None
    if state is None:
        return _render("match.html", line=None, decision=None)
    first, second = (p.name for p in tourney.participants)
    line = crosstableformats.match_line(first, second, state.statistics(), state.settings)
    return _render("match.html", line=line, decision=sprt.describe(state))


def standings_and_crosstable(tourney: Tourney) -> tuple[str, str]:
    """The standings (with Elo) and the opponent-by-opponent table, in standings order."""
    table = tourney.crosstable()
    ranked = [line.standing.name for line in table.lines]
    unplayed = [p.name for p in tourney.participants if p.name not in ranked]
    rows = []
    for line in table.lines:
        s = line.standing
        total = s.total
        rows.append(
            {
                "rank": line.rank, "name": s.name, "games": s.games, "played": True, "points": points_text(s.points),
                "percent": f"{s.percent:.1f}", "record": f"{total.wins}-{total.draws}-{total.losses}",
                "elo": _signed(line.elo), "margin": _margin(line.elo_error),
            }
        )  # fmt: skip
    rows += [
        {"rank": "", "name": n, "games": 0, "played": False, "percent": "", "record": "", "elo": "", "margin": ""}
        for n in unplayed
    ]
    standings_html = _render("standings.html", rows=rows)
    names = ranked + unplayed
    if len(names) > crosstable.MAX_TABLE_PLAYERS:
        return standings_html, _render("crosstable.html", too_many=crosstable.MAX_TABLE_PLAYERS, names=[], rows=[])
    pair_games = max((h.games for h in table.head_to_head), default=0)
    by_game = pair_games <= crosstable.MAX_GRID_GAMES
    points = {line.standing.name: line.standing.points for line in table.lines}
    matrix = [
        {
            "name": name,
            "cells": [
                {"kind": "self" if other == name else "cell", "text": _cell(table, name, other, by_game=by_game)}
                for other in names
            ],
            "points": points_text(points.get(name, 0)),
        }
        for name in names
    ]
    return standings_html, _render("crosstable.html", too_many=0, names=names, rows=matrix)


def _cell(table: crosstable.Crosstable, player: str, opponent: str, *, by_game: bool) -> str:
    if player == opponent:
        return "×"
    record = table.tally.record(player, opponent)
    if not record.games:
        return ""
    marks = grid(table.tally, player, opponent) if by_game else None
    return marks.replace("=", "½") if marks else f"{points_text(record.wins + record.draws / 2)}/{record.games}"


def _signed(value: float) -> str:
    return "" if math.isnan(value) else ("+∞" if value > 0 else "−∞") if math.isinf(value) else f"{value:+.0f}"


def _margin(value: float) -> str:
    return "" if math.isnan(value) else "∞" if math.isinf(value) else f"{value:.0f}"


def score_chart(tourney: Tourney) -> str:
    """Each participant's points after each of its games, as an inline SVG line chart."""
    names = [p.name for p in tourney.participants]
    series: list[list[float]] = [[0.0] for _ in names]
    for game, char in tourney.finished_games():
        white = {"+": 1.0, "=": 0.5, "-": 0.0}[char]
        series[game.white].append(series[game.white][-1] + white)
        series[game.black].append(series[game.black][-1] + 1.0 - white)
    most_games = max((len(s) - 1 for s in series), default=0)
    if most_games == 0:
        return _render("chart.html", plot=None)
    top = max(max(s[-1] for s in series), 1.0)
    plot = _plot([list(enumerate(points)) for points in series], top=top, length=most_games)
    plot["lines"] = [
        {
            **_line(i, polyline, title=f"{name}: {points_text(points[-1])} of {len(points) - 1}"),
            "name": name, "score": points_text(points[-1]), "games": len(points) - 1,
        }
        for i, (name, points, polyline) in enumerate(zip(names, series, plot.pop("polylines"), strict=True))
    ]  # fmt: skip
    return _render("chart.html", plot=plot)


def tune(tourney: Tourney) -> str:
    """An SPSA tune: each parameter's value, the one its engine plays, start, bounds, the next pair's c and a,
    and the paths of all of them as a chart, each as a share of its range; a hidden element for other
    tourneys."""
    settings = tourney.spsa
    if settings is None:
        return _render("tune.html", params=None)
    current = tuning.state(tourney, settings)
    k = current.next_iteration(settings)
    params = []
    for param, value in zip(settings.params, current.theta, strict=True):
        params.append({
            "name": param.name, "value": f"{value:.4f}", "engine": param.engine_value(value),
            "start": f"{param.start:g}", "bounds": f"[{param.minimum:g}, {param.maximum:g}]",
            "c": f"{settings.gains.perturbation(param, k):.4g}", "a": f"{settings.gains.gain(param, k):.4g}",
        })  # fmt: skip
    spans = [(p.minimum, p.maximum - p.minimum or 1.0) for p in settings.params]
    paths = [
        [(pairs, 100 * (theta[i] - low) / span) for pairs, theta in current.history]
        for i, (low, span) in enumerate(spans)
    ]
    plot = _plot(paths, top=100.0, length=max(settings.iterations, 1))
    plot["lines"] = [
        {**_line(i, polyline, title=f"{p['name']}: {p['value']}"), "name": p["name"]}
        for i, (p, polyline) in enumerate(zip(params, plot.pop("polylines"), strict=True))
    ]
    return _render("tune.html", params=params, pairs=current.pairs, iterations=settings.iterations, k=k, plot=plot)


def _line(index: int, polyline: str, *, title: str) -> dict[str, Any]:
    """A chart's line ``index``: its points, its colour (dashed once the palette is used up), and what hovering
    over it says."""
    colour, dashed = PALETTE[index % len(PALETTE)], index >= len(PALETTE)
    return {"points": polyline, "colour": colour, "dashed": dashed, "title": title}


def _plot(series: Sequence[Sequence[tuple[float, float]]], *, top: float, length: float) -> dict[str, Any]:
    """A line chart's geometry for the chart templates: the frame, round ticks, and each series of (x, y) points,
    x from 0 to ``length`` and y from 0 to ``top``, as a polyline (thinned out to :data:`CHART_POINTS`)."""
    width, height, left, bottom, pad = 600, 260, 34, 22, 8
    plot_w, plot_h = width - left - pad, height - bottom - pad

    def x(i: float) -> float:
        return left + plot_w * i / length

    def y(v: float) -> float:
        return pad + plot_h * (1 - v / top)

    polylines = []
    for points in series:
        step = max(1, math.ceil(len(points) / CHART_POINTS))
        kept = [*range(0, len(points) - 1, step), len(points) - 1]
        polylines.append(" ".join(f"{x(points[j][0]):.1f},{y(points[j][1]):.1f}" for j in kept))
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - pad,
        "top": pad,
        "bottom": pad + plot_h,
        "y_ticks": [{"y": f"{y(t):.1f}", "label_y": f"{y(t) + 4:.1f}", "text": f"{t:g}"} for t in _ticks(top)],
        "x_ticks": [{"x": f"{x(t):.1f}", "text": f"{t:g}"} for t in _ticks(length)],
        "polylines": polylines,
    }


def _ticks(top: float) -> list[float]:
    """Up to about five round values from 0 to ``top``."""
    raw = top / 4
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    step = max(step, 0.5)
    return [i * step for i in range(int(top / step) + 1)]


def recent_results(tourney: Tourney, games: Sequence[IndexedGame]) -> str:
    """The last recorded games, newest first, each with its PGN; games since reset are left out."""
    shown = [g for g in games if g.number is not None and _recorded(tourney, g.number) == g.result]
    return _render("results.html", games=shown[:RECENT_RESULTS])


def _recorded(tourney: Tourney, number: int) -> str | None:
    """The PGN result of game ``number`` as the results string records it; None while it has none."""
    result = Result.from_xboard(tourney.result(number))
    return None if result.pending else result.pgn


def faults(tourney: Tourney) -> str:
    """Fault counts per engine (crash, time forfeit, illegal move…)."""
    engines = [
        {"name": engine, "total": total, "kinds": kinds}
        for engine, (total, kinds) in sorted((e, describe_faults(c)) for e, c in tourney.faults.items() if c)
    ]
    return _render("faults.html", engines=engines)


def engines(tourney: Tourney) -> str:
    """The participants' command lines and working directories: only when the owner asks for them."""
    rows = []
    for index, p in enumerate(tourney.participants):
        spec = tourney.engine_spec(index)
        command = " ".join(spec.command)
        rows.append(
            {"name": p.name, "protocol": spec.protocol.value, "command": command, "workdir": spec.workdir or ""}
        )
    return _render("engines.html", engines=rows)


# --- games in progress ---------------------------------------------------------------------------


def game_card(game: GameInProgress, *, has_clock: Callable[[str], bool], gone: bool = False) -> str:
    """One game in progress: players and clocks, the board, the last moves; with ``gone``, its worker is gone
    (the claim is stale): no clock runs, and the card says the game will be played again."""
    turn_white = " w " in f" {game.fen} "
    query = {"fen": game.fen, **({"last": game.moves[-1]} if game.moves else {})}
    pockets = _pockets(game)

    def player(name: str, clock: float, *, white: bool) -> dict[str, Any]:
        running = white == turn_white and not gone
        shown = has_clock(name) and math.isfinite(clock)
        return {
            "name": name,
            "pocket": pockets and pockets[white],
            "side": "white" if white else "black",
            "to_move": running,
            "clock": f"{clock:.3f}" if shown else None,
            "running": int(running),
            "shown": _clock(clock) if shown else "",
        }

    return _render(
        "game.html",
        number=game.number,
        round=game.round,
        updated=f"{game.updated:.3f}",
        white=player(game.white, game.white_clock, white=True),
        black=player(game.black, game.black_clock, white=False),
        query=urlencode(query),
        title=f"{game.white} – {game.black}, game {game.number}",
        moves=game.last_moves(LAST_MOVES),
        plies=len(game.moves),
        gone=gone,
    )


#: The pieces a pocket may hold, most valuable first, as a card lists them.
_POCKET_ORDER = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)


def _pockets(game: GameInProgress) -> dict[chess.Color, str] | None:
    """Each side's pieces in hand in a variant with pockets (crazyhouse): the board diagram, python-chess's,
    draws none. ``♕ ♙×3``, ``–`` for an empty pocket; None in a variant without pockets (or an unreadable FEN)."""
    if "[" not in game.fen:  # python-chess writes a pocket in brackets: no pocket, nothing more to load
        return None
    import chess.variant

    try:
        board_class, chess960 = variant_board(game.variant)
        if not issubclass(board_class, chess.variant.CrazyhouseBoard):
            return None
        board = board_class(game.fen, chess960=chess960)
    except (ConfigError, ValueError):
        return None
    shown = {}
    for color in chess.COLORS:
        pocket = board.pockets[color]
        held = [(chess.Piece(kind, color).unicode_symbol(), pocket.count(kind)) for kind in _POCKET_ORDER]
        shown[color] = " ".join(symbol + (f"×{n}" if n > 1 else "") for symbol, n in held if n) or "–"
    return shown


def _clock(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 20:
        return f"{int(seconds // 60)}:{seconds % 60:04.1f}"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def board_svg(fen: str, last: str, *, variant: str) -> str:
    """The board of a game in progress (python-chess SVG) with the last move and a check marked."""
    board_class, chess960 = variant_board(variant)
    board = board_class(fen, chess960=chess960)
    lastmove = chess.Move.from_uci(last) if last else None
    check = board.king(board.turn) if board.is_check() else None
    return chess.svg.board(board, lastmove=lastmove, check=check, size=280)
