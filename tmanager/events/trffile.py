"""A chess division as a FIDE TRF-16 / TRF-2026 file, and back (:mod:`tmanager.formats.trf` holds the file's syntax).

The export is a standard TRF: header lines (``012`` name, ``022`` site,
``042``/``052`` dates, ``062``/``072`` players and rated players, ``092`` type,
``102`` arbiter), the pairing programs' ``XXR`` (rounds), ``XXC`` (initial
colour), ``XXP`` (players who must not meet, including team mates with
``team_apart``) and ``BBW``… (a points system other than 1-½-0), and one ``001``
line per player. The TRF starting rank of a player is their **pairing rank**
(:meth:`~tmanager.events.model.Division.ranks`: rating, then name), as FIDE and the
endorsed programs expect, so that ``bbpPairings --dutch FILE -c`` and
``tmanager pair --dutch FILE -c`` re-pair every round as the event did.

What TRF cannot hold — the permanent player numbers, clubs, teams, flags,
withdrawals, board order, adjourned games, forced games, requested byes of
rounds not yet paired and the event's settings — goes into ``XTM`` lines, one
JSON object each (``XTM event {…}``, ``XTM player ID {…}``, ``XTM round N
{…}``). Pairing programs skip lines of unknown kinds, and :func:`loads` reads
them back, so an exported event re-imported is the same event. A TRF written by
another program (no ``XTM`` lines) imports too: players numbered by starting
rank, the results, byes and absences, the header data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tmanager import tomlmap
from tmanager.core.results import ByeKind, Colour, Result, format_points
from tmanager.errors import ConfigError
from tmanager.events.eventfile import check
from tmanager.events.games import round_games, scores
from tmanager.events.model import Board, Division, Event, PairingSystem, Player, Round
from tmanager.events.ranking import tiebreak_standings
from tmanager.events.rules import ChessRules, require, rules_for
from tmanager.formats import trf
from tmanager.pairing import Game
from tmanager.pairing.model import STANDARD

_SYSTEM_NAMES = {
    PairingSystem.DUTCH: "Swiss system (FIDE Dutch)", PairingSystem.ROUND_ROBIN: "Round robin (Berger)",
    PairingSystem.MANUAL: "Manual",
}  # fmt: skip


def _trf_date(text: str) -> str:
    if not text:
        return ""
    return text.replace("-", "/") if len(text) == 10 else f"{text}/00/00"


def _event_date(text: str) -> str:
    text = text.strip()
    if text.endswith("/00/00"):
        return text[:4]
    return text.replace("/", "-") if text else ""


def _header(rank: int, p: Player) -> str:
    """Columns 1–80 of a player line."""
    sex = "w" if "woman" in p.flags else " "
    rating = str(p.rating) if p.rating else ""
    fide_id = str(p.fide_id) if p.fide_id is not None else ""
    return (
        f"001 {rank:4d} {sex}{'':3} {p.name[:33]:33} {rating:>4.4} {p.federation[:3]:3} {fide_id:>11.11} "
        f"{_trf_date(p.birth):10.10} "
    )


def _read_header(line: trf.TrfPlayer) -> dict[str, Any]:
    """The player fields a ``001`` line holds."""
    h = line.header.ljust(80)
    fide_id = h[57:68].strip()
    return {
        "name": line.name,
        "rating": line.rating,
        "federation": h[53:56].strip(),
        "fide_id": int(fide_id) if fide_id.isdigit() else None,
        "birth": _event_date(h[69:79]),
        "woman": h[9] == "w",
    }


def dumps(event: Event, division: Division) -> str:
    """The division as TRF text (LF line endings); a :class:`StateError` for a score-based division."""
    require(
        rules_for(event, division),
        ChessRules,
        f"division {division.name!r} is score-based: TRF is for chess divisions; "
        "write it as a tsh .t file with `event export-t` (or .TOU with `event export-tou`)",
    )
    ranks = division.ranks()
    places = {s.player.number: s.rank for s in tiebreak_standings(event, division)} if division.paired_rounds else {}
    lines = [f"012 {event.name}"]
    lines += [f"{code} {value}" for code, value in (("022", event.site), ("042", _trf_date(event.start)),
              ("052", _trf_date(event.end))) if value]  # fmt: skip
    lines += [
        f"062 {len(division.players)}",
        f"072 {sum(1 for p in division.players if p.rating)}",
        f"092 {_SYSTEM_NAMES[division.system]}",
    ]
    if event.arbiter:
        lines.append(f"102 {event.arbiter}")
    total = event.total_rounds(division)
    if total:
        lines.append(f"XXR {total}")
    if division.initial_colour:
        lines.append(f"XXC {division.initial_colour}1")
    if event.scoring != STANDARD:
        scoring = event.scoring
        lines += [f"{code} {format_points(getattr(scoring, name), decimal=True)}"
                  for code, name in trf.POINTS_CODES.items()]  # fmt: skip
    for group in division.forbidden_groups():
        lines.append("XXP " + " ".join(str(ranks[n]) for n in sorted(group, key=ranks.__getitem__)))
    lines.append("XTM event " + _json(_event_extras(event, division)))
    for p in division.players:
        lines.append(f"XTM player {ranks[p.number]} " + _json(_player_extras(ranks[p.number], p)))
    for r in division.rounds:
        lines.append(f"XTM round {r.number} " + _json(_round_extras(r)))
    paired = [round_games(division, r) for r in division.rounds if r.paired]
    points = scores(event, division)
    players = []
    for p in sorted(division.players, key=lambda p: ranks[p.number]):
        games = tuple(_by_rank(entries[p.number], ranks) for entries in paired)
        header = _header(ranks[p.number], p)
        players.append(trf.TrfPlayer(ranks[p.number], header, points[p.number], places.get(p.number),
                                     games))  # fmt: skip
    return trf.dumps(trf.Tournament(players=tuple(players), lines=tuple(lines)))


def _json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _by_rank(game: Game, ranks: Mapping[int, int]) -> Game:
    return Game(ranks[game.opponent] if game.opponent is not None else None, game.colour, game.result)


def _event_extras(event: Event, division: Division) -> dict[str, Any]:
    extras: dict[str, Any] = {
        "division": division.name,
        "system": division.system,
        "tiebreaks": event.tiebreaks,
        "late_entry": event.late_entry,
        "rounds": event.rounds,
    }
    optional: dict[str, tuple[Any, Any]] = {
        "cycles": (division.cycles, 1), "initial_colour": (division.initial_colour, None),
        "forbidden": (division.forbidden, []), "team_apart": (division.team_apart, False),
        "max_byes": (event.max_byes, None), "stylesheet": (event.stylesheet, ""),
        "hooks": (event.hooks, {}),
    }  # fmt: skip
    extras.update({key: value for key, (value, default) in optional.items() if value != default})
    return extras


def _player_extras(rank: int, p: Player) -> dict[str, Any]:
    """Everything of the player that the ``001`` line does not give back as it is."""
    read = _read_header(trf.TrfPlayer(rank, _header(rank, p), 0, None, ()))
    extras: dict[str, Any] = {"number": p.number}
    for key in ("name", "rating", "federation", "fide_id", "birth"):
        if read[key] != getattr(p, key):
            extras[key] = getattr(p, key)
    for key, default in (("club", ""), ("team", ""), ("flags", []), ("status", "active"), ("absent", [])):
        if getattr(p, key) != default:
            extras[key] = getattr(p, key)
    return extras


def _round_extras(r: Round) -> dict[str, Any]:
    extras: dict[str, Any] = {
        "boards": [[b.white, b.black] for b in r.boards],
        "byes": [[n, k] for n, k in r.byes.items()],
    }
    if not r.paired:
        extras["paired"] = False
    adjourned = [i for i, b in enumerate(r.boards, 1) if b.result == Result.ADJOURNED]
    if adjourned:
        extras["adjourned"] = adjourned
    if r.forced:
        extras["forced"] = [list(f) for f in r.forced]
    if r.forced_bye is not None:
        extras["forced_bye"] = r.forced_bye
    return extras


# -- import --------------------------------------------------------------------------


def loads(text: str, *, file: Path | None = None) -> Event:
    """An event from TRF text; ``XTM`` lines (from :func:`dumps`) restore what TRF cannot hold."""
    tournament = trf.parse(text, file=file)
    header: dict[str, str] = {}
    extras: dict[str, Any] = {"player": {}, "round": {}}
    for line in tournament.lines:
        code, _, rest = line.partition(" ")
        if code in ("012", "022", "042", "052", "102"):
            header[code] = rest.strip()
        elif code == "XTM":
            _read_extra(rest, extras, file)
    meta = extras.get("event", {})
    where = "XTM event"
    settings = {
        "name": header.get("012", "") or (file.stem if file else "imported"),
        "rounds": meta.get("rounds", tournament.total_rounds or tournament.played_rounds),
        "site": header.get("022", ""),
        "start": _event_date(header.get("042", "")),
        "end": _event_date(header.get("052", "")),
        "arbiter": header.get("102", ""),
        **{key: meta[key] for key in ("tiebreaks", "late_entry", "max_byes", "stylesheet") if key in meta},
    }
    event = tomlmap.from_table(Event, settings, where, file)
    event.hooks = dict(meta.get("hooks", {}))
    event.scoring = tournament.points
    numbers = {p.id: extras["player"].get(p.id, {}).get("number", p.id) for p in tournament.players}
    colour = Colour(tournament.initial_colour).word if tournament.initial_colour else None
    table = {
        "name": meta.get("division", "main"),
        "forbidden": [sorted(numbers[i] for i in group) for group in tournament.forbidden],
        **({"initial_colour": colour} if colour else {}),
        **{key: meta[key] for key in ("system", "cycles", "initial_colour", "forbidden", "team_apart") if key in meta},
    }
    division = tomlmap.from_table(Division, table, where, file)
    order = list(extras["player"]) or [p.id for p in tournament.players]
    by_id = {p.id: p for p in tournament.players}
    for rank in order:
        if rank not in by_id:
            raise ConfigError(f"XTM player {rank} has no 001 line", file=file)
        division.players.append(_import_player(by_id[rank], extras["player"].get(rank), numbers[rank], file))
    for n in range(1, tournament.played_rounds + 1):
        division.rounds.append(_import_round(tournament, n, numbers, extras["round"].get(n, {})))
    for n, data in sorted(extras["round"].items()):
        if n > tournament.played_rounds:
            record = Round(n, paired=False, forced_bye=data.get("forced_bye"))
            record.boards = [Board(w, b) for w, b in data.get("boards", [])]
            record.byes = {p: ByeKind(k) for p, k in data.get("byes", [])}
            record.forced = [(w, b) for w, b in data.get("forced", [])]
            division.rounds.append(record)
    event.divisions.append(division)
    check(event, file)
    return event


def _read_extra(rest: str, extras: dict[str, Any], file: Path | None) -> None:
    kind, _, tail = rest.partition(" ")
    try:
        if kind == "event":
            extras["event"] = json.loads(tail)
        elif kind in ("player", "round"):
            key, _, data = tail.partition(" ")
            extras[kind][int(key)] = json.loads(data)
    except (ValueError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"bad XTM {kind} line: {exc}", file=file, hint="the line is tmanager's; fix or remove it"
        ) from None


def _import_player(line: trf.TrfPlayer, extras: dict[str, Any] | None, number: int, file: Path | None) -> Player:
    read = _read_header(line)
    data = {key: read[key] for key in ("name", "rating", "federation", "fide_id", "birth") if read[key] is not None}
    if extras is None:
        data["flags"] = ["woman"] if read["woman"] else []
    else:
        data.update({k: v for k, v in extras.items() if k != "number"})
    return tomlmap.from_table(Player, {"number": number, **data}, f"XTM player {line.id}", file)


def _import_round(tournament: trf.Tournament, n: int, numbers: Mapping[int, int], extras: dict[str, Any]) -> Round:
    record = Round(n, paired=True, forced_bye=extras.get("forced_bye"))
    record.forced = [(w, b) for w, b in extras.get("forced", [])]
    boards: dict[tuple[int, int], Board] = {}
    entries = {p.id: p.games[n - 1] if len(p.games) >= n else Game(None, None, "-") for p in tournament.players}
    for rank, game in entries.items():
        if game.opponent is None:
            kind = ByeKind.from_trf(game.result)
            if kind is not None:
                record.byes[numbers[rank]] = kind
            continue
        if game.colour == "b" or (game.colour is None and rank > game.opponent):
            continue
        theirs = entries[game.opponent]
        white, black = numbers[rank], numbers[game.opponent]
        boards[(white, black)] = Board(white, black, Result.from_trf(game.result, theirs.result) or Result.PENDING)
    order = [tuple(b) for b in extras.get("boards", [])] or sorted(boards)
    record.boards = [boards[(w, b)] for w, b in order if (w, b) in boards]
    if len(record.boards) != len(boards):
        raise ConfigError(f"round {n}: the XTM board list does not match the player lines")
    if "byes" in extras:  # the event's order of the byes
        bye_order = [n for n, _ in extras["byes"]]
        record.byes = dict(
            sorted(
                record.byes.items(),
                key=lambda item: bye_order.index(item[0]) if item[0] in bye_order else len(bye_order),
            )
        )
    for index in extras.get("adjourned", []):
        record.boards[index - 1].result = Result.ADJOURNED
    return record


def read(path: Path) -> Event:
    """Read a TRF file as an event."""
    try:
        text = trf.read_text(path)
    except FileNotFoundError:
        raise ConfigError("no such TRF file", file=path) from None
    return loads(text, file=path)
