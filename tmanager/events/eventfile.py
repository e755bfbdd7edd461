"""The event file: an event as TOML text and back, checked the same way in both directions.

The tables map to the model's dataclasses through :mod:`tmanager.tomlmap`:
``[event]`` is :class:`~tmanager.events.model.Event`, each ``[[division]]`` a
:class:`~tmanager.events.model.Division` with its score-based settings
(:class:`~tmanager.events.model.ScoredSettings`) or team settings
(:class:`~tmanager.events.model.TeamSettings`, marked by ``team_size``) among its
keys, each ``[[division.team]]`` a :class:`~tmanager.events.model.Team`, each
``[[division.player]]`` a :class:`~tmanager.events.model.Player`, and
``[division.prizes]`` the division's :class:`~tmanager.events.model.PrizeFund`
(its settings, then a key per list of amounts). What the dataclasses cannot
say is spelled out here: points in ``[scoring]`` are written as points and
kept in tenths, prizes written in the currency's units and kept in cents, a
round's boards are arrays ``[white, black, result]`` (``[first, second,
result, score, score]``) and its byes ``[player, kind]`` (``[player, kind,
spread]``). :func:`check` runs on what was read and on what is about to be
written (:mod:`tmanager.events.journal`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tmanager import files, tomlmap
from tmanager.core.results import ByeKind, Result, format_points
from tmanager.core.scoring import PointsSystem
from tmanager.errors import ConfigError
from tmanager.events.checks import check_event
from tmanager.events.model import HOOKS, Board, Division, Event, PrizeFund, Round, ScoredSettings, TeamSettings
from tmanager.events.rules import rules_for

COMMENT = "tmanager event file: see docs/events.md for every field"
#: Arrays written one element a line, for reading and hand editing.
_MULTILINE = ("boards", "byes", "forced", "matches", "lineups")
#: A score-based and a team division's keys, which the file holds in the division's table, in their classes' order.
SCORED_KEYS = tuple(f.name for f in dataclasses.fields(ScoredSettings))
TEAM_KEYS = tuple(f.name for f in dataclasses.fields(TeamSettings))
#: The keys of a division's table read into other objects than its :class:`Division`.
_NOT_DIVISIONS = frozenset({*SCORED_KEYS, *TEAM_KEYS, "round", "prizes"})
_PRIZE_SETTINGS = frozenset(f.name for f in dataclasses.fields(PrizeFund) if f.name != "lists")


@dataclasses.dataclass(frozen=True, slots=True)
class _Scoring:
    """``[scoring]`` as written, in points; the model keeps a :class:`~tmanager.core.scoring.PointsSystem` in tenths.

    The pairing core scores forfeit wins and full-point byes as wins and
    half-point byes as draws (TRF's BBW/BBD), so those keys may only repeat them.
    """

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    forfeit_win: float | None = None
    forfeit_loss: float = 0.0
    pairing_bye: float | None = None
    full_bye: float | None = None
    half_bye: float | None = None
    zero_bye: float = 0.0


# -- reading ------------------------------------------------------------------------------------


def loads(text: str, file: Path | None = None) -> Event:
    """Parse and check event-file text."""
    return from_toml(files.parse_toml(text, file=file), file)


def from_toml(data: dict[str, Any], file: Path | None = None) -> Event:
    """Build and check an event from parsed TOML; :class:`ConfigError` names the field."""
    tomlmap.check_keys(data, ("event", "scoring", "hooks", "division"), "file", file)
    if "event" not in data:
        raise ConfigError("is missing", file=file, field="file.event", hint="an event file starts with [event]")
    event = tomlmap.from_table(Event, data["event"], "event", file)
    event.hooks = _hooks(data.get("hooks", {}), file)
    event.scoring = points_system(data.get("scoring", {}), file)
    divisions = data.get("division", [])
    if not isinstance(divisions, list):
        raise ConfigError("must be an array of tables ([[division]])", file=file, field="division")
    event.divisions = [_division(table, f"division[{i}]", file) for i, table in enumerate(divisions, 1)]
    check(event, file)
    return event


def _hooks(table: Any, file: Path | None) -> dict[str, str]:
    tomlmap.check_keys(table, HOOKS, "hooks", file)
    for name, command in table.items():
        if not isinstance(command, str):
            raise ConfigError(f"must be str (a shell command), not {command!r}", file=file, field=f"hooks.{name}")
    return dict(table)


def points_system(table: Any, file: Path | None) -> PointsSystem:
    """A ``[scoring]`` table (points per result, multiples of 0.1) as a points system in tenths."""
    points = tomlmap.from_table(_Scoring, table, "scoring", file)

    def tenths(key: str) -> int | None:
        value: float | None = getattr(points, key)
        if value is None:
            return None
        result = round(value * 10)
        if abs(result - value * 10) > 1e-6:
            raise ConfigError(f"{value} is not a multiple of 0.1 points", file=file, field=f"scoring.{key}")
        return result

    win, draw = tenths("win") or 0, tenths("draw") or 0
    for key, same, what in (("forfeit_win", win, "win"), ("full_bye", win, "win"), ("half_bye", draw, "draw")):
        if tenths(key) not in (None, same):
            raise ConfigError(
                f"must equal {what} ({format_points(same)})",
                file=file,
                field=f"scoring.{key}",
                hint="pairing scores it as a " + what,
            )
    pairing_bye = tenths("pairing_bye")
    return PointsSystem(
        win=win,
        draw=draw,
        loss=tenths("loss") or 0,
        forfeit_loss=tenths("forfeit_loss") or 0,
        zero_bye=tenths("zero_bye") or 0,
        pairing_bye=win if pairing_bye is None else pairing_bye,
    )


def _division(table: Any, where: str, file: Path | None) -> Division:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=file, field=where)
    rest = {k: v for k, v in table.items() if k not in _NOT_DIVISIONS}
    if "player" in rest:
        rest["player"] = _birth_years(rest["player"])
    division = tomlmap.from_table(Division, rest, where, file)
    if "prizes" in table:
        division.prize_fund = prize_fund(table["prizes"], f"{where}.prizes", file)
    team = {k: v for k, v in table.items() if k in TEAM_KEYS}
    if team or division.teams:
        if "team_size" not in team:
            raise ConfigError(
                f"{sorted(team)[0] if team else 'team'} needs team_size",
                file=file,
                field=f"{where}.team_size",
                hint="a team division sets team_size = N, the players of a team in each match (its boards)",
            )
        division.team_settings = tomlmap.from_table(TeamSettings, team, where, file)
    scored = {k: v for k, v in table.items() if k in SCORED_KEYS}
    if scored:
        if "entry" not in scored:
            raise ConfigError(
                f"{sorted(scored)[0]} needs entry",
                file=file,
                field=f"{where}.entry",
                hint='set entry = "scores", "spread" or "both"',
            )
        division.scored = tomlmap.from_table(ScoredSettings, scored, where, file)
    rounds = table.get("round", [])
    if not isinstance(rounds, list):
        raise ConfigError("must be an array of tables ([[division.round]])", file=file, field=f"{where}.round")
    division.rounds = [_round(t, f"{where}.round[{i}]", file) for i, t in enumerate(rounds, 1)]
    return division


def _birth_years(players: Any) -> Any:
    """The players with a ``birth`` written as a TOML integer (``birth = 2010``) as its text, as a TOML date
    (``birth = 2010-05-03``) already reads: a year alone is a birth as FIDE's lists give it, checked then as any
    (a number of the wrong size is no date); the file is written back with the text."""
    if not isinstance(players, list):
        return players
    return [
        {**p, "birth": str(p["birth"])} if isinstance(p, dict) and type(p.get("birth")) is int else p for p in players
    ]


def prize_fund(table: Any, where: str, file: Path | None) -> PrizeFund:
    """``[division.prizes]``: the settings, then each list's amounts (``overall = [1000, 500]``) in cents."""
    if not isinstance(table, dict):
        raise ConfigError("must be a table ([division.prizes])", file=file, field=where)
    fund = tomlmap.from_table(PrizeFund, {k: v for k, v in table.items() if k in _PRIZE_SETTINGS}, where, file)
    for name, amounts in table.items():
        if name in _PRIZE_SETTINGS:
            continue
        if not isinstance(amounts, list) or not amounts:
            raise ConfigError(
                f"must be the amounts of places 1, 2, …, not {amounts!r}", file=file, field=f"{where}.{name}",
                hint=f"e.g. {name} = [1000, 500, 250]; the settings are {', '.join(sorted(_PRIZE_SETTINGS))}",
            )  # fmt: skip
        fund.lists[name] = tuple(_cents(amount, f"{where}.{name}", file) for amount in amounts)
    return fund


def _cents(amount: Any, where: str, file: Path | None) -> int:
    """A prize in the currency's units (at most two decimals) as whole cents."""
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not 0 <= amount < 1e12:
        raise ConfigError(f"{amount!r} is not an amount", file=file, field=where, hint="a number, 0 or more")
    cents = round(amount * 100)
    if abs(cents - amount * 100) > 1e-6:
        raise ConfigError(f"{amount!r} has more than two decimals", file=file, field=where)
    return cents


def _round(table: Any, where: str, file: Path | None) -> Round:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=file, field=where)
    boards, byes = table.get("boards", []), table.get("byes", [])
    record = tomlmap.from_table(Round, {k: v for k, v in table.items() if k not in ("boards", "byes")}, where, file)
    if not isinstance(boards, list) or not isinstance(byes, list):
        raise ConfigError("boards and byes must be arrays", file=file, field=where)
    record.boards = [_board(item, f"{where}.boards[{i}]", file) for i, item in enumerate(boards, 1)]
    for i, item in enumerate(byes, 1):
        number, kind, spread = _bye(item, f"{where}.byes[{i}]", file)
        # The byes become a map by player: a second entry would silently replace the first.
        if number in record.byes:
            raise ConfigError(f"a second bye of player {number} in this round (the first is '{record.byes[number]}')",
                              file=file, field=f"{where}.byes[{i}]", hint="keep one")  # fmt: skip
        record.byes[number] = kind
        if spread is not None:
            record.spreads[number] = spread
    return record


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _board(item: Any, where: str, file: Path | None) -> Board:
    """``[white, black]``, ``[white, black, result]`` or ``[first, second, result, score, score]``."""
    numbers = item[:2] + item[3:] if isinstance(item, list) else []
    if not (isinstance(item, list) and len(item) in (2, 3, 5) and all(_whole(v) for v in numbers)):
        raise ConfigError(
            "must be [white, black, result] or [first, second, result, score, score]", file=file, field=where
        )
    text = item[2] if len(item) >= 3 else "*"
    try:
        result = Result.parse(str(text))
    except ValueError:
        raise ConfigError(
            f"{text!r} is not a result", file=file, field=where, hint="1-0, 0-1, ½-½, +-, -+, --, adj or *"
        ) from None
    return Board(item[0], item[1], result, (item[3], item[4]) if len(item) == 5 else None)


def _bye(item: Any, where: str, file: Path | None) -> tuple[int, ByeKind, int | None]:
    """``[player, kind]`` or ``[player, kind, spread]``."""
    if not (
        isinstance(item, list)
        and len(item) in (2, 3)
        and all(_whole(v) for v in item[:1] + item[2:])
        and item[1] in tuple(ByeKind)
    ):
        raise ConfigError(
            "must be [player, kind] (or [player, kind, spread]) with kind pairing, full, half, zero or forfeit",
            file=file,
            field=where,
        )
    return item[0], ByeKind(item[1]), item[2] if len(item) == 3 else None


def check(event: Event, file: Path | None = None) -> None:
    """Everything an event file may hold: each field, each division's consistency, and each division's rules."""
    check_event(event, file)
    for i, d in enumerate(event.divisions, 1):
        rules = rules_for(event, d)
        if d.prize_fund is not None and not rules.awards_prizes:
            raise ConfigError("a prize fund is allocated in chess divisions of players", file=file,
                              field=f"division[{i}].prizes")  # fmt: skip
        for problem in rules.problems():
            where = f"division[{i}].{problem.key}" if problem.key else f"division {d.name!r}"
            raise ConfigError(problem.message, file=file, field=where, hint=problem.hint)


# -- writing ------------------------------------------------------------------------------------


def dumps(event: Event) -> str:
    """The event as TOML text, laid out for reading and hand editing."""
    return tomlmap.dumps(to_toml(event), comment=COMMENT, multiline=_MULTILINE)


def to_toml(event: Event) -> dict[str, Any]:
    """The event as TOML data, tables in file order."""
    document: dict[str, Any] = {
        "event": tomlmap.to_table(event, keep_defaults=False),
        "scoring": _scoring_table(event.scoring),
    }
    if event.hooks:
        document["hooks"] = {name: event.hooks[name] for name in HOOKS if event.hooks.get(name)}
    document["division"] = [_division_table(d) for d in event.divisions]
    return document


def _scoring_table(points: PointsSystem) -> dict[str, int | float]:
    keys = ("win", "draw", "loss", "forfeit_loss", "pairing_bye", "zero_bye")
    return {key: _points(getattr(points, key)) for key in keys}


def _points(tenths: int) -> int | float:
    return tenths // 10 if tenths % 10 == 0 else tenths / 10


def division_settings(d: Division, *, keep_defaults: bool) -> dict[str, Any]:
    """The division's table as the file words it, with a score-based and a team division's keys; with
    ``keep_defaults``, the settings left at their defaults too."""
    table = tomlmap.to_table(d, keep_defaults=keep_defaults)
    for part in (d.scored, d.team_settings):
        if part is not None:
            table.update(tomlmap.to_table(part, keep_defaults=keep_defaults))
    return table


def _division_table(d: Division) -> dict[str, Any]:
    table = division_settings(d, keep_defaults=False)
    teams, players = table.pop("team", []), table.pop("player", [])
    if d.prize_fund is not None:
        table["prizes"] = prize_fund_table(d.prize_fund)
    if teams:
        table["team"] = teams
    if players:
        table["player"] = players
    if d.rounds:
        table["round"] = [_round_table(r) for r in d.rounds]
    return table


def prize_fund_table(fund: PrizeFund) -> dict[str, Any]:
    """``[division.prizes]`` as written: the settings, then each list's amounts in the currency's units."""
    amounts = {name: [c // 100 if c % 100 == 0 else c / 100 for c in cents] for name, cents in fund.lists.items()}
    return tomlmap.to_table(fund, keep_defaults=False) | amounts


def _round_table(r: Round) -> dict[str, Any]:
    rest = tomlmap.to_table(r, keep_defaults=False)
    table = {"number": rest.pop("number"), "paired": rest.pop("paired")}
    table["boards"] = [[b.white, b.black, b.result, *(b.scores or ())] for b in r.boards]
    if r.byes:
        table["byes"] = [[n, kind, *([r.spreads[n]] if n in r.spreads else [])] for n, kind in r.byes.items()]
    for key in ("board_numbers", "p12"):  # in player order
        if key in rest:
            rest[key] = sorted(rest[key])
    return table | rest
