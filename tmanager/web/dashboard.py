"""HTML of the tourney dashboard: the page, and its sections as fragments that the browser swaps live.

Every section is one element whose ``id`` is its key in the fragments
mapping; games in progress are keyed ``game-N`` and live inside ``#games``.
Everything is built from tourney data only (names, results, settings that
say how games are played), escaped, and the caller passes it through a
:class:`~tmanager.web.redact.Redactor` before it leaves the server.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlencode

import chess
import chess.svg

from tmanager.core import crosstable
from tmanager.core.standings import GameResult, grid
from tmanager.tourney.model import PGN_RESULT, PLAYING, Tourney, describe_faults
from tmanager.tourney.openings import variant_board
from tmanager.tourney.worker import GameInProgress
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


def page(fragments: Mapping[str, str], *, title: str, version: int) -> str:
    """The whole dashboard with the current fragments; ``version`` lets the event stream resume from it."""
    games = "".join(html_ for key, html_ in sorted(fragments.items(), key=_game_order) if key.startswith("game-"))

    def part(key: str) -> str:
        return fragments.get(key, "")

    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · tmanager</title>
<link rel="icon" href="static/favicon.svg">
<link rel="stylesheet" href="static/dashboard.css">
<script src="static/dashboard.js" defer></script>
</head>
<body data-version="{version}" data-now="{time.time():.3f}">
<header>
{part("head")}
<span id="connection" class="connection" title="live updates">live</span>
</header>
{part("notice")}
{part("progress")}
<main>
<section class="panel wide"><h2>Games in progress</h2><div id="games">{games}</div></section>
<section class="panel"><h2>Standings</h2>{part("standings")}</section>
<section class="panel"><h2>Score over the games</h2>{part("chart")}</section>
<section class="panel wide"><h2>Cross-table</h2>{part("crosstable")}</section>
<section class="panel"><h2>Recent results</h2>{part("results")}</section>
<section class="panel"><h2>Engine faults</h2>{part("faults")}</section>
{part("engines")}
</main>
<footer>tmanager · this page updates by itself</footer>
</body>
</html>
"""


def _game_order(item: tuple[str, str]) -> tuple[int, str]:
    key = item[0]
    number = key.removeprefix("game-")
    return (int(number), key) if number.isdigit() else (-1, key)


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
    if s.variant != "chess":
        facts.append(s.variant)
    event = " · ".join(x for x in (s.event, s.site) if x)
    subtitle = html.escape(" · ".join(facts))
    return (
        f'<div id="head"><h1>{html.escape(s.name)}</h1>'
        + (f'<p class="event">{html.escape(event)}</p>' if event else "")
        + f'<p class="facts">{subtitle}</p></div>'
    )


def notice(text: str) -> str:
    """A warning banner (empty element when there is nothing to say)."""
    return f'<div id="notice" class="notice">{html.escape(text)}</div>' if text else '<div id="notice"></div>'


def progress(tourney: Tourney, *, finish_at: float | None) -> str:
    """Games played, in progress and left; a bar; the estimated finish time."""
    total = tourney.schedule().total_games
    done = tourney.finished_count
    playing = tourney.results.count(PLAYING)
    left = total - done - playing
    if done == total:
        eta = "finished"
    elif finish_at is None:
        eta = "finish time: estimated after the next game" if playing else "no game is being played"
    else:
        local = time.strftime("%H:%M", time.localtime(finish_at))
        eta = f'expected to finish at <time data-epoch="{finish_at:.0f}">{local}</time>'
    return (
        f'<div id="progress" class="progress" data-done="{done}" data-total="{total}">'
        f'<progress value="{done}" max="{total}"></progress>'
        f"<p><strong>{done}</strong> of {total} games played · {playing} in progress · {left} to play · {eta}"
        ' · <a href="pgn" download>all games (PGN)</a></p></div>'
    )


def finished_results(tourney: Tourney) -> list[GameResult]:
    """The finished games as :class:`~tmanager.core.standings.GameResult`, in game-number order."""
    names = [p.name for p in tourney.participants]
    return [
        GameResult(names[g.white], names[g.black], PGN_RESULT[char], str(g.pgn_round), g.number)
        for g, char in tourney.finished_games()
    ]


def standings_and_crosstable(tourney: Tourney) -> tuple[str, str]:
    """The standings (with Elo) and the opponent-by-opponent table, in standings order."""
    games = finished_results(tourney)
    table = crosstable.build(games, title=tourney.settings.name)
    ranked = [line.standing.name for line in table.lines]
    unplayed = [p.name for p in tourney.participants if p.name not in ranked]
    rows = []
    for line in table.lines:
        s = line.standing
        total = s.total
        rows.append(
            f'<tr><td>{line.rank}</td><td class="name">{html.escape(s.name)}</td><td>{s.games}</td>'
            f"<td><strong>{s.points:g}</strong></td><td>{s.percent:.1f}</td>"
            f"<td>{total.wins}-{total.draws}-{total.losses}</td>"
            f"<td>{_signed(line.elo)}</td><td>{_margin(line.elo_error)}</td></tr>"
        )
    rows += [f'<tr><td></td><td class="name">{html.escape(n)}</td><td>0</td><td>0</td>'
             "<td></td><td></td><td></td><td></td></tr>" for n in unplayed]  # fmt: skip
    standings_html = (
        '<div id="standings" class="scroll"><table><thead><tr><th>#</th><th class="name">Name</th><th>Games</th>'
        "<th>Points</th><th>%</th><th>W-D-L</th><th>Elo</th><th>±</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
    )
    names = ranked + unplayed
    if len(names) > crosstable.MAX_TABLE_PLAYERS:
        body = f"<p>More than {crosstable.MAX_TABLE_PLAYERS} participants: see the standings.</p>"
    else:
        pair_games = max((h.games for h in table.head_to_head), default=0)
        by_game = pair_games <= crosstable.MAX_GRID_GAMES
        points = {line.standing.name: line.standing.points for line in table.lines}
        header = "".join(f"<th>{i}</th>" for i in range(1, len(names) + 1))
        body_rows = []
        for i, name in enumerate(names, 1):
            cells = "".join(
                f'<td class="{"self" if other == name else "cell"}">'
                f"{html.escape(_cell(table, name, other, by_game=by_game))}</td>"
                for other in names
            )
            body_rows.append(
                f'<tr><td>{i}</td><td class="name">{html.escape(name)}</td>{cells}'
                f"<td><strong>{points.get(name, 0):g}</strong></td></tr>"
            )
        body = (
            f'<table class="crosstable"><thead><tr><th>#</th><th class="name">Name</th>{header}<th>Points</th>'
            "</tr></thead><tbody>" + "".join(body_rows) + "</tbody></table>"
        )
    crosstable_html = (
        f'<div id="crosstable" class="scroll">{body}'
        '<p class="more"><a href="crosstable.html">full cross-table with per-colour scores</a></p></div>'
    )
    return standings_html, crosstable_html


def _cell(table: crosstable.Crosstable, player: str, opponent: str, *, by_game: bool) -> str:
    if player == opponent:
        return "×"
    record = table.tally.record(player, opponent)
    if not record.games:
        return ""
    marks = grid(table.tally, player, opponent) if by_game else None
    return marks.replace("=", "½") if marks else f"{record.wins + record.draws / 2:g}/{record.games}"


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
        return '<div id="chart"><p class="empty">No game finished yet.</p></div>'
    top = max(max(s[-1] for s in series), 1.0)
    width, height, left, bottom, pad = 600, 260, 34, 22, 8
    plot_w, plot_h = width - left - pad, height - bottom - pad

    def x(i: float) -> float:
        return left + plot_w * i / most_games

    def y(v: float) -> float:
        return pad + plot_h * (1 - v / top)

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="points of each participant after each of its games">'
    ]
    for tick in _ticks(top):
        parts.append(
            f'<line x1="{left}" x2="{width - pad}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
            f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="11">{tick:g}</text>'
        )
    for tick in _ticks(most_games):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 6}" text-anchor="middle" font-size="11">{tick:g}</text>')
    parts.append(
        f'<line x1="{left}" x2="{left}" y1="{pad}" y2="{pad + plot_h}" stroke="#888"/>'
        f'<line x1="{left}" x2="{width - pad}" y1="{pad + plot_h}" y2="{pad + plot_h}" stroke="#888"/>'
    )
    legend = []
    for i, (name, points) in enumerate(zip(names, series, strict=True)):
        colour, dash = PALETTE[i % len(PALETTE)], ("" if i < len(PALETTE) else ' stroke-dasharray="6 3"')
        step = max(1, math.ceil(len(points) / CHART_POINTS))
        kept = [*range(0, len(points) - 1, step), len(points) - 1]
        line = " ".join(f"{x(j):.1f},{y(points[j]):.1f}" for j in kept)
        parts.append(
            f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"{dash}>'
            f"<title>{html.escape(name)}: {points[-1]:g} of {len(points) - 1}</title></polyline>"
        )
        legend.append(
            f'<li><svg width="14" height="14" aria-hidden="true"><rect width="14" height="14" rx="3" '
            f'fill="{colour}"/></svg>{html.escape(name)} {points[-1]:g}/{len(points) - 1}</li>'
        )
    parts.append("</svg>")
    return f'<div id="chart">{"".join(parts)}<ul class="legend">{"".join(legend)}</ul></div>'


def _ticks(top: float) -> list[float]:
    """Up to about five round values from 0 to ``top``."""
    raw = top / 4
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    step = max(step, 0.5)
    return [i * step for i in range(int(top / step) + 1)]


def recent_results(tourney: Tourney, games: Sequence[IndexedGame]) -> str:
    """The last recorded games, newest first, each with its PGN; games since reset are left out."""
    rows = []
    for g in games:
        if g.number is None or PGN_RESULT.get(tourney.result(g.number)) != g.result:
            continue
        rows.append(
            f'<tr><td>{g.number}</td><td>{html.escape(g.round)}</td><td class="name">{html.escape(g.white)}</td>'
            f'<td class="result">{html.escape(g.result)}</td><td class="name">{html.escape(g.black)}</td>'
            f"<td>{html.escape(g.termination)}</td><td>{html.escape(g.plies)}</td>"
            f'<td><a href="pgn/{g.number}" download>PGN</a></td></tr>'
        )
        if len(rows) == RECENT_RESULTS:
            break
    if not rows:
        return '<div id="results"><p class="empty">No game recorded yet.</p></div>'
    return (
        '<div id="results" class="scroll"><table><thead><tr><th>Game</th><th>Round</th><th class="name">White</th>'
        '<th>Result</th><th class="name">Black</th><th>Ending</th><th>Plies</th><th></th></tr></thead><tbody>'
        + "".join(rows)
        + '</tbody></table><p class="more"><a href="pgn" download>all games (PGN)</a></p></div>'
    )


def faults(tourney: Tourney) -> str:
    """Fault counts per engine (crash, time forfeit, illegal move…)."""
    if not any(tourney.faults.values()):
        return '<div id="faults"><p class="empty">No faults.</p></div>'
    rows = "".join(
        f'<tr><td class="name">{html.escape(engine)}</td><td>{total}</td><td>{html.escape(kinds)}</td></tr>'
        for engine, (total, kinds) in sorted((e, describe_faults(c)) for e, c in tourney.faults.items() if c)
    )
    return (
        '<div id="faults" class="scroll"><table><thead><tr><th class="name">Engine</th><th>Faults</th>'
        f"<th>Kinds</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )


def engines(tourney: Tourney) -> str:
    """The participants' command lines and working directories: only when the owner asks for them."""
    rows = []
    for index, p in enumerate(tourney.participants):
        spec = tourney.engine_spec(index)
        rows.append(
            f'<tr><td class="name">{html.escape(p.name)}</td><td>{spec.protocol}</td>'
            f"<td><code>{html.escape(' '.join(spec.command))}</code></td>"
            f"<td><code>{html.escape(spec.workdir or '')}</code></td></tr>"
        )
    return (
        '<section id="engines" class="panel wide"><h2>Engines</h2><div class="scroll"><table><thead><tr>'
        '<th class="name">Name</th><th>Protocol</th><th>Command</th><th>Directory</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


# --- games in progress ---------------------------------------------------------------------------


def game_card(game: GameInProgress, *, has_clock: Callable[[str], bool]) -> str:
    """One game in progress: players and clocks, the board, the last moves."""
    moves = game.last_moves(LAST_MOVES)
    turn_white = " w " in f" {game.fen} "
    query = {"fen": game.fen, **({"last": game.moves[-1]} if game.moves else {})}
    title = f"{game.white} – {game.black}, game {game.number}"

    def player(name: str, clock: float, *, white: bool) -> str:
        running = white == turn_white
        if has_clock(name) and math.isfinite(clock):
            shown_clock = f'<span class="clock" data-clock="{clock:.3f}" data-running="{int(running)}">' \
                          f"{_clock(clock)}</span>"  # fmt: skip
        else:
            shown_clock = '<span class="clock none">–</span>'
        side = "white" if white else "black"
        turn = " to-move" if running else ""
        return f'<div class="player {side}{turn}"><span class="name">{html.escape(name)}</span>{shown_clock}</div>'

    return (
        f'<article id="game-{game.number}" class="game" data-updated="{game.updated:.3f}">'
        f"<h3>Game {game.number} · round {game.round}</h3>"
        + player(game.black, game.black_clock, white=False)
        + f'<img class="board" src="board.svg?{html.escape(urlencode(query))}" alt="{html.escape(title)}" '
        f'width="280" height="280">'
        + player(game.white, game.white_clock, white=True)
        + f'<p class="moves">{html.escape(moves) or "no move yet"}'
        f' <span class="plies">({len(game.moves)} plies)</span></p></article>'
    )


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
