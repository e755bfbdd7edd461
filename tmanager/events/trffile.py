"""A chess division as a FIDE TRF-2026 (or TRF-16) file, and back (:mod:`tmanager.formats.trf` holds the syntax).

The export is a standard TRF. Its header: ``012`` name, ``022`` city, ``032`` federation, ``042``/``052`` dates,
``062``/``072`` players and rated players, ``092`` type, ``102`` chief arbiter, ``112`` deputies, (TRF-16) ``122``
the time control, ``132`` the rounds' dates, then in TRF-2026 ``142`` rounds, ``152`` initial colour, ``162`` points
per result (when not 1-½-0), ``192`` the encoded type (``FIDE_DUTCH_2025``, ``…_BAKU``, ``FIDE_ROUNDROBIN``…),
``202`` the tie-breaks (as FIDE's TieBreakServer reads them, ``BH/C1``; a team division's: ``MP,GP,EMGSB,BH:MP``)
and ``222`` the encoded time control; in TRF-16 the pairing programs' ``XXR``, ``XXC`` and ``BBW``… lines instead.
Records: ``240`` the requested byes of rounds not in the player lines, ``250`` the Baku method's virtual points
(``XXA`` in TRF-16: a line per accelerated player with the points of each round), ``260`` players who must not meet
(``XXP`` in TRF-16). One ``001`` line per player: sex and title, name, rating, federation, FIDE ID, birth, points,
rank, rounds.

**Numbers.** A player's starting rank is their player number, the number
printed everywhere. In a division with start numbers (``event start-numbers``)
that is also the pairing order; otherwise (numbers in the order of entry) the
file says ``XXC rank`` and lists the players in pairing order, as JaVaFo and
bbpPairings read it, so that ``bbpPairings --dutch FILE -c`` and
``tmanager pair --dutch FILE -c`` re-pair every round as the event did.

**A round in progress** (paired, results missing) is left out of the player
lines: every game there has its result, as pairing programs require (a blank
result makes bbpPairings refuse the file), and the points and ranks are those
after the last complete round. Its pairing and the results already in go into
``XTM`` lines, and its requested byes into ``240`` records, so that a pairing
program pairs it again from the file as the event did.

A team division adds TRF-2026's team records (``352``, ``362``, ``310``,
``320``, ``330``, ``300``, ``802``: :func:`~tmanager.events.teamtrf.trf_team_records`),
and its teams, settings, matches and lineups go into the ``XTM`` lines.

What TRF cannot hold — clubs, teams, flags, withdrawals, board order,
adjourned games, forced games, requested byes of rounds not yet paired, the
prize fund and the event's settings — goes into ``XTM`` lines, one JSON object each (``XTM event
{…}``, ``XTM player N {…}``, ``XTM round N {…}``). Pairing programs skip lines
of unknown kinds, and :func:`loads` reads them back, so an exported event
re-imported is the same event. A TRF written by another program (no ``XTM``
lines) imports too: players numbered by starting rank (the pairing order), the
results, byes and absences, the records, the header data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from tmanager import tomlmap
from tmanager.core import teamtiebreaks, tiebreaknames
from tmanager.core.results import ByeKind, Colour, Result, format_points
from tmanager.core.scoring import STANDARD, Game
from tmanager.errors import ConfigError, StateError, ascii_digits
from tmanager.events.eventfile import check, prize_fund, prize_fund_table
from tmanager.events.games import round_games, scores, virtual_points
from tmanager.events.model import Board, Division, Event, PairingSystem, Player, Round, TeamSettings, missing
from tmanager.events.ranking import tiebreak_standings
from tmanager.events.rules import ChessRules, require, rules_for
from tmanager.events.teams import settings
from tmanager.events.teamtrf import teams_from_trf, trf16_team_records, trf_team_records
from tmanager.formats import trf, trf_records, trf_teams

Version = Literal["2026", "16"]
VERSIONS: tuple[Version, ...] = ("2026", "16")
_SYSTEM_NAMES = {
    PairingSystem.DUTCH: "Swiss system (FIDE Dutch)", PairingSystem.ROUND_ROBIN: "Round robin (Berger)",
    PairingSystem.MANUAL: "Manual", PairingSystem.DOUBLE_SWISS: "Double-Swiss system (FIDE C.04.5)",
    PairingSystem.TEAM_SWISS: "Swiss system for teams (FIDE C.04.6)",
}  # fmt: skip
#: A team division's round fields, kept in the ``XTM round`` lines.
_TEAM_ROUND_KEYS = ("matches", "lineups", "team_byes", "forced_matches")
#: TRF-2026 ``192``: the division's system as FIDE's tournament-type codes write it.
_TYPE_CODES = {PairingSystem.DUTCH: "FIDE_DUTCH_2025", PairingSystem.MANUAL: "CUSTOM_SWISS",
               PairingSystem.DOUBLE_SWISS: "FIDE_DOUBLESWISS"}  # fmt: skip
#: What a ``192`` code says of the system (prefixes; the rest is manual).
_SYSTEMS_OF_TYPE = (("FIDE_DUTCH", PairingSystem.DUTCH), ("FIDE_ROUNDROBIN", PairingSystem.ROUND_ROBIN),
                    ("FIDE_DOUBLESWISS", PairingSystem.DOUBLE_SWISS),
                    ("FIDE_DOUBLEROUNDROBIN", PairingSystem.ROUND_ROBIN),
                    ("BERGER_", PairingSystem.ROUND_ROBIN), ("FIDE_TEAM_", PairingSystem.TEAM_SWISS),
                    ("FIDE_TEAM_ROUNDROBIN", PairingSystem.ROUND_ROBIN),
                    ("FIDE_TEAM_DOUBLEROUNDROBIN", PairingSystem.ROUND_ROBIN))  # fmt: skip
_BYE_RECORDS: dict[ByeKind, trf_records.ByeCode] = {ByeKind.FULL: "F", ByeKind.HALF: "H", ByeKind.ZERO: "Z"}


def _trf_date(text: str) -> str:
    if not text:
        return ""
    return text.replace("-", "/") if len(text) == 10 else f"{text}/00/00"


def _event_date(text: str) -> str:
    text = text.strip()
    if text.endswith("/00/00"):
        return text[:4]
    return text.replace("/", "-") if text else ""


def _header(p: Player) -> str:
    """Columns 1–80 of a player line."""
    rating = str(p.rating) if p.rating else ""
    fide_id = str(p.fide_id) if p.fide_id is not None else ""
    return (
        f"001 {p.number:4d} {p.sex or ' '}{p.title:3.3} {p.name[:33]:33} {rating:>4.4} {p.federation[:3]:3} "
        f"{fide_id:>11.11} {_trf_date(p.birth):10.10} "
    )


def _read_header(line: trf.TrfPlayer) -> dict[str, Any]:
    """The player fields a ``001`` line holds."""
    h = line.header.ljust(80)
    fide_id = h[57:68].strip()
    return {
        "name": line.name,
        "title": h[10:13].strip().upper(),
        "rating": line.rating,
        "federation": h[53:56].strip(),
        "fide_id": int(fide_id) if ascii_digits(fide_id) else None,
        "sex": h[9] if h[9] in "mw" else "",
        "birth": _event_date(h[69:79]),
    }


def complete_rounds(division: Division) -> int:
    """The rounds the player lines hold: paired, every result in (a round in progress is left out)."""
    pending = {n for n, _ in missing(division)}
    return min(pending, default=division.paired_rounds + 1) - 1


def dumps(event: Event, division: Division, *, version: Version = "2026") -> str:
    """The division as TRF text (LF line endings); a :class:`StateError` for a score-based division."""
    rules = require(
        rules_for(event, division),
        ChessRules,
        f"division {division.name!r} is score-based: TRF is for chess divisions; "
        "write it as a tsh .t file with `event export-t` (or .TOU with `event export-tou`)",
    )
    rounds = complete_rounds(division)
    ranks = division.ranks()
    by_rank = sorted(division.players, key=lambda p: ranks[p.number])
    in_order = [p.number for p in by_rank] == sorted(ranks)
    places = {s.player.number: s.rank for s in tiebreak_standings(event, division, rounds)} if rounds else {}
    teams = rules.team_size is not None
    lines = [*_header_lines(event, division, version, teams=teams),
             *_pairing_lines(event, division, version, in_order)]  # fmt: skip
    lines.append("XTM event " + _json(_event_extras(event, division, teams=teams)))
    for p in division.players:
        lines.append(f"XTM player {p.number} " + _json(_player_extras(p)))
    for r in division.rounds:
        lines.append(f"XTM round {r.number} " + _json(_round_extras(r, results=r.number > rounds)))
    paired = [round_games(division, r) for r in division.rounds if r.paired and r.number <= rounds]
    points = scores(event, division, rounds)
    upcoming = _sitting_out(division, rounds + 1)
    # The points count a requested bye of the round in progress, as its entry is written (bbpPairings' checker
    # counts it; its pairing takes it off again).
    points = {n: v + sum(event.scoring.points(g) for g in upcoming.get(n, ())) for n, v in points.items()}
    players = tuple(
        trf.TrfPlayer(p.number, _header(p), points[p.number], places.get(p.number),
                      tuple(entries[p.number] for entries in paired) + upcoming.get(p.number, ()))
        for p in by_rank
    )  # fmt: skip
    records = _records(event, division, version, rounds) if version == "2026" else _trf16_records(event, division)
    if teams:
        records.update(trf_team_records(event, division) if version == "2026" else trf16_team_records(division))
    return trf.dumps(trf.Tournament(players=players, lines=tuple(lines), records=records, by_rank=not in_order))


def _sitting_out(division: Division, number: int) -> dict[int, tuple[Game, ...]]:
    """The players of a round in progress who are not paired in it — requested byes and absences — as the entry
    after their complete rounds (``0000 - H``, ``0000 - Z``…). Pairing programs read such an entry as "not to be
    paired in the next round", so that they pair the round again with the same players; the pairing-allocated
    bye is left for them to allocate."""
    record = next((r for r in division.rounds if r.number == number and r.paired), None)
    if record is None:
        return {}
    return {
        player: (game,) for player, game in round_games(division, record).items()
        if game.opponent is None and game.result != "U"
    }  # fmt: skip


def _header_lines(event: Event, division: Division, version: Version, *, teams: bool) -> list[str]:
    lines = [f"012 {event.name}"]
    lines += [f"{code} {value}" for code, value in (("022", event.site), ("032", event.federation),
              ("042", _trf_date(event.start)), ("052", _trf_date(event.end))) if value]  # fmt: skip
    lines += [
        f"062 {len(division.players)}",
        f"072 {sum(1 for p in division.players if p.rating)}",
        f"092 {_SYSTEM_NAMES[division.system]}",
    ]
    if event.arbiter:
        lines.append(f"102 {event.arbiter}")
    lines += [f"112 {deputy}" for deputy in event.deputies]
    if version == "16" and event.time_control:  # TRF-16's only time control, free text (TRF-2026: 222, encoded)
        lines.append(f"122 {event.time_control}")
    if event.schedule:
        dates = "".join(f"{when[2:10].replace('-', '/'):<10}" for when in event.schedule)
        lines.append(f"{'132':<91}{dates}".rstrip())
    if version == "16":
        return lines
    total = event.total_rounds(division)
    if total:
        lines.append(f"142 {total}")
    if division.initial_colour:
        lines.append(f"152 {division.initial_colour[0].upper()}")
    try:
        scoring = trf.scoring_line(event.scoring)
    except ValueError as exc:
        raise StateError(f"{exc}: the event's scoring cannot be written as TRF-2026 (try --version 16)") from None
    if scoring:
        lines.append(scoring)
    lines.append(f"192 {_type_code(division, teams=teams)}")
    lines.append("202 " + ",".join(_tiebreak_names(event, division, teams=teams)).replace("-", "/"))
    if event.time_control:
        lines.append(f"222 {event.time_control}")
    return lines


def _tiebreak_names(event: Event, division: Division, *, teams: bool) -> list[str]:
    """``202``'s names: the event's tie-breaks; a team division's primary score (MP or GP) and team tie-breaks."""
    if teams:
        return ["MP" if settings(division).primary == "match" else "GP", *settings(division).team_tiebreaks]
    return [t.trf_name for t in tiebreaknames.parse_all(event.tiebreaks)]


def _type_code(division: Division, *, teams: bool) -> str:
    if teams:
        return _team_type_code(division)
    if division.round_robin:
        return "FIDE_DOUBLEROUNDROBIN" if division.cycles == 2 else "FIDE_ROUNDROBIN"
    code = _TYPE_CODES[division.system]
    return code + "_BAKU" if division.acceleration == "baku" else code


def _team_type_code(division: Division) -> str:
    """A team division's ``192``: the Berger tables of teams, C.04.6 with Type A colour preferences and its
    primary score first, or a team Swiss of its own (paired by hand)."""
    if division.round_robin:
        return "FIDE_TEAM_DOUBLEROUNDROBIN" if division.cycles == 2 else "FIDE_TEAM_ROUNDROBIN"
    if division.system == PairingSystem.TEAM_SWISS:
        return "FIDE_TEAM_TYPEA_MP_GP" if settings(division).primary == "match" else "FIDE_TEAM_TYPEA_GP_MP"
    return "CUSTOM_TEAM_SWISS"


def _pairing_lines(event: Event, division: Division, version: Version, in_order: bool) -> list[str]:
    """The pairing programs' lines: ``XXC rank`` when the file lists players in pairing order; in TRF-16 the
    rounds, the initial colour, the points and the forbidden pairs as XX and BB lines."""
    words = [] if in_order else ["rank"]
    if version == "16" and division.initial_colour:
        words.append(f"{division.initial_colour}1")
    lines = [f"XXC {' '.join(words)}"] if words else []
    if version == "2026":
        return lines
    total = event.total_rounds(division)
    if total:
        lines.insert(0, f"XXR {total}")
    if event.scoring != STANDARD:
        lines += [f"{code} {format_points(getattr(event.scoring, name), decimal=True)}"
                  for code, name in trf.POINTS_CODES.items()]  # fmt: skip
    lines += ["XXP " + " ".join(str(n) for n in sorted(group)) for group in division.forbidden_groups()]
    return lines


def _records(event: Event, division: Division, version: Version, rounds: int) -> dict[str, tuple[Any, ...]]:
    """TRF-2026 records: byes of the rounds after the player lines, Baku's virtual points, forbidden pairs."""
    total = event.total_rounds(division) or max(division.paired_rounds, 1)
    byes = []
    for r in division.rounds:
        if r.number <= rounds:
            continue
        for kind, code in _BYE_RECORDS.items():
            players = tuple(sorted(p for p, k in r.byes.items() if k == kind))
            if players:
                byes.append(trf_records.Bye(code, r.number, players))
    accelerations = []
    for n in range(1, total + 1):
        virtual = virtual_points(event, division, n)
        for points in sorted(set(virtual.values())):
            for first, last in _ranges(sorted(p for p, v in virtual.items() if v == points)):
                accelerations.append(trf_records.Acceleration(points, n, n, first, last))
    prohibited = [trf_records.Prohibited(1, total, tuple(sorted(g))) for g in division.forbidden_groups()]
    return {trf_records.BYES.code: tuple(byes), trf_records.ACCELERATION.code: tuple(_merged(accelerations)),
            trf_records.PROHIBITED.code: tuple(prohibited)}  # fmt: skip


def _trf16_records(event: Event, division: Division) -> dict[str, tuple[Any, ...]]:
    """TRF-16's records: each accelerated player's virtual points, round by round (``XXA``; 250 in TRF-2026)."""
    total = event.total_rounds(division) or max(division.paired_rounds, 1)
    virtual = [virtual_points(event, division, n) for n in range(1, total + 1)]
    lines = []
    for p in division.players:
        points = tuple(v.get(p.number, 0) for v in virtual)
        if any(points):
            lines.append(trf_records.PlayerAcceleration(p.number, points))
    return {trf_records.PLAYER_ACCELERATION.code: tuple(lines)}


def _ranges(numbers: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive numbers as (first, last) ranges."""
    ranges: list[tuple[int, int]] = []
    for n in numbers:
        if ranges and ranges[-1][1] == n - 1:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    return ranges


def _merged(records: list[trf_records.Acceleration]) -> list[trf_records.Acceleration]:
    """Records of consecutive rounds with the same points and players as one."""
    merged: list[trf_records.Acceleration] = []
    for a in records:
        last = merged[-1] if merged else None
        if last and (last.points, last.first_player, last.last_player) == (a.points, a.first_player, a.last_player) \
                and last.last_round == a.first_round - 1:  # fmt: skip
            merged[-1] = trf_records.Acceleration(
                a.points, last.first_round, a.last_round, a.first_player, a.last_player
            )
        else:
            merged.append(a)
    return merged


def _json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _event_extras(event: Event, division: Division, *, teams: bool) -> dict[str, Any]:
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
        "start_numbers": (division.start_numbers, False), "acceleration": (division.acceleration, ""),
        "baku_last": (division.baku_last, None),
        "max_byes": (event.max_byes, None), "stylesheet": (event.stylesheet, ""),
        "rating_list": (event.rating_list, "standard"), "categories": (event.categories, []),
        "prizes": (event.prizes, 3), "schedule": (event.schedule, []), "time_control": (event.time_control, ""),
        "hooks": (event.hooks, {}), "prize_fund": (division.prize_fund and prize_fund_table(division.prize_fund), None),
    }  # fmt: skip
    extras.update({key: value for key, (value, default) in optional.items() if value != default})
    if teams:
        extras["team_settings"] = tomlmap.to_table(settings(division), keep_defaults=False)
        extras["team"] = [tomlmap.to_table(t, keep_defaults=False) for t in division.teams]
    return extras


#: Settings the ``XTM event`` line carries to the event and to the division.
_EVENT_KEYS = ("tiebreaks", "late_entry", "max_byes", "stylesheet", "rating_list", "categories", "prizes",
               "schedule", "time_control")  # fmt: skip
_DIVISION_KEYS = ("system", "cycles", "initial_colour", "forbidden", "team_apart", "start_numbers", "acceleration",
                  "baku_last", "team")  # fmt: skip


def _player_extras(p: Player) -> dict[str, Any]:
    """Everything of the player that the ``001`` line does not give back as it is."""
    read = _read_header(trf.TrfPlayer(p.number, _header(p), 0, None, ()))
    extras: dict[str, Any] = {}
    for key in ("name", "title", "rating", "federation", "fide_id", "sex", "birth"):
        if read[key] != getattr(p, key):
            extras[key] = getattr(p, key)
    for key, default in (("club", ""), ("team", ""), ("flags", []), ("status", "active"), ("absent", [])):
        if getattr(p, key) != default:
            extras[key] = getattr(p, key)
    return extras


def _round_extras(r: Round, *, results: bool) -> dict[str, Any]:
    """What a round's player-line entries do not say; with ``results`` (a round the player lines leave out),
    the results already in too."""
    extras: dict[str, Any] = {
        "boards": [[b.white, b.black, *([str(b.result)] if results else [])] for b in r.boards],
        "byes": [[n, k] for n, k in r.byes.items()],
    }
    if not r.paired:
        extras["paired"] = False
    adjourned = [i for i, b in enumerate(r.boards, 1) if b.result == Result.ADJOURNED]
    if adjourned and not results:
        extras["adjourned"] = adjourned
    if r.forced:
        extras["forced"] = [list(f) for f in r.forced]
    if r.forced_bye is not None:
        extras["forced_bye"] = r.forced_bye
    table = tomlmap.to_table(r, keep_defaults=False)
    extras.update({key: table[key] for key in _TEAM_ROUND_KEYS if key in table})
    return extras


# -- import --------------------------------------------------------------------------


def loads(text: str, *, file: Path | None = None) -> Event:
    """An event from TRF text; ``XTM`` lines (from :func:`dumps`) restore what TRF cannot hold."""
    tournament = trf.parse(text, file=file)
    header: dict[str, list[str]] = {}
    extras: dict[str, Any] = {"player": {}, "round": {}}
    for line in tournament.lines:
        code, _, rest = line.partition(" ")
        if code == "XTM":
            _read_extra(rest, extras, file)
        elif code in ("012", "022", "032", "042", "052", "092", "102", "112", "132", "192", "202", "212", "222"):
            header.setdefault(code, []).append(line if code == "132" else rest.strip())
    meta = extras.get("event")
    if meta is None:
        meta = _foreign_settings(tournament, header, file)
    where = "XTM event"
    settings = {
        "name": _first(header, "012") or (file.stem if file else "imported"),
        "rounds": meta.get("rounds", tournament.total_rounds or tournament.played_rounds),
        "site": _first(header, "022"),
        "federation": _first(header, "032"),
        "start": _event_date(_first(header, "042")),
        "end": _event_date(_first(header, "052")),
        "arbiter": _first(header, "102"),
        "deputies": header.get("112", []),
        **{key: meta[key] for key in _EVENT_KEYS if key in meta},
    }
    event = tomlmap.from_table(Event, settings, where, file)
    event.hooks = dict(meta.get("hooks", {}))
    event.scoring = tournament.points
    colour = Colour(tournament.initial_colour).word if tournament.initial_colour else None
    by_id = {p.id: p for p in tournament.players}
    # Starting ranks are player numbers; files of earlier versions name the number in their XTM player lines.
    numbers = {p.id: extras["player"].get(p.id, {}).get("number", p.id) for p in tournament.players}
    unknown = [n for group in tournament.forbidden for n in group if n not in by_id]
    if unknown:
        raise ConfigError(f"a prohibited pairing names starting rank {unknown[0]}, which no 001 line has", file=file)
    table = {
        "name": meta.get("division", "main"),
        "forbidden": [sorted(numbers[n] for n in group) for group in tournament.forbidden],
        **({"initial_colour": colour} if colour else {}),
        **{key: meta[key] for key in _DIVISION_KEYS if key in meta},
    }
    division = tomlmap.from_table(Division, table, where, file)
    if "team_settings" in meta:
        division.team_settings = tomlmap.from_table(TeamSettings, meta["team_settings"], where, file)
    if "prize_fund" in meta:
        division.prize_fund = prize_fund(meta["prize_fund"], f"{where}.prize_fund", file)
    order = list(extras["player"]) or [p.id for p in tournament.players]
    for rank in order:
        if rank not in by_id:
            raise ConfigError(f"XTM player {rank} has no 001 line", file=file)
        division.players.append(_import_player(by_id[rank], extras["player"].get(rank), numbers[rank], file))
    for n in range(1, tournament.played_rounds + 1):
        data = extras["round"].get(n, {})
        division.rounds.append(_with_teams(_import_round(tournament, n, numbers, data), data, file))
    for n, data in sorted(extras["round"].items()):
        if n > tournament.played_rounds:
            division.rounds.append(_with_teams(_later_round(n, data), data, file))
    _requested_byes(tournament, division, numbers)
    if "event" not in extras and _team_file(tournament):
        primary: Literal["match", "game"] = "game" if "_GP_MP" in _first(header, "192").upper() else "match"
        teams_from_trf(tournament, division, primary=primary, tiebreaks=meta.get("team_tiebreaks"), file=file)
    event.divisions.append(division)
    check(event, file)
    return event


def _team_file(tournament: trf.Tournament) -> bool:
    """The file has team records: ``310`` (TRF-2026) or ``013`` (TRF-16)."""
    return bool(tournament.values(trf_teams.TEAMS) or tournament.values(trf_teams.TEAM_ROSTERS))


def _first(header: Mapping[str, list[str]], code: str) -> str:
    return header.get(code, [""])[0]


def _foreign_settings(tournament: trf.Tournament, header: Mapping[str, list[str]], file: Path | None) -> dict[str, Any]:
    """The settings of a TRF without ``XTM`` lines: its starting ranks as start numbers (unless it lists players
    in pairing order), its tie-breaks (``202``), system and acceleration (``192``, ``250``), round dates (``132``)
    and time control (``222``)."""
    settings: dict[str, Any] = {"start_numbers": not tournament.by_rank}
    code = _first(header, "192").upper()
    # The last prefix that fits decides: FIDE_TEAM_ROUNDROBIN is not FIDE_TEAM_'s team Swiss.
    for prefix, system in _SYSTEMS_OF_TYPE:
        if code.startswith(prefix):
            settings["system"] = system
    if _team_file(tournament) and not code:  # TRF-16: the system as 092 names it, if tmanager's words
        systems = {name: system for system, name in _SYSTEM_NAMES.items()}
        settings["system"] = systems.get(_first(header, "092"), PairingSystem.MANUAL)
    if code and "system" not in settings:
        settings["system"] = PairingSystem.MANUAL
    if "DOUBLEROUNDROBIN" in code:
        settings["cycles"] = 2
    if settings.get("system") == PairingSystem.DOUBLE_SWISS:  # 142 counts rounds, the event matches of two
        settings["rounds"] = -(-(tournament.total_rounds or tournament.played_rounds) // 2)
    # 212 is 202 with the primary score first (PTS; a team's MP or GP): the tie-breaks when 202 is absent.
    names = (_first(header, "202") or _first(header, "212")).replace(",", " ").split()
    try:
        settings["tiebreaks"] = [tiebreaknames.Tiebreak.parse(n).name for n in names if n.upper() != "PTS"] or None
    except ValueError as exc:
        # A team file's 202 may rank the teams (MP, GP, EMGSB…): those become the division's team tie-breaks.
        team = [n.upper().replace("/", "-") for n in names if n.upper() != "PTS"]
        if not (_team_file(tournament) and all(n in teamtiebreaks.TEAM_TIEBREAKS for n in team)):
            raise ConfigError(f"202: {exc}", file=file) from None
        settings["tiebreaks"], settings["team_tiebreaks"] = None, team
    if settings["tiebreaks"] is None:
        del settings["tiebreaks"]
    if _first(header, "222"):
        settings["time_control"] = _first(header, "222")
    dates = _first(header, "132")
    schedule = [dates[i : i + 8].strip() for i in range(91, len(dates), 10)]
    if any(schedule):
        settings["schedule"] = [f"20{d.replace('/', '-')}" for d in schedule if d]
    last = tournament.baku_last(file=file)  # 250 or XXA lines: TRF-16 files carry only the latter
    if last is not None or code.endswith("_BAKU"):
        settings["acceleration"], settings["baku_last"] = "baku", last
    return settings


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
    data = {key: value for key, value in read.items() if value is not None}
    data.update({k: v for k, v in (extras or {}).items() if k != "number"})
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
    order = [(b[0], b[1]) for b in extras.get("boards", [])] or sorted(boards)
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


def _later_round(n: int, data: Mapping[str, Any]) -> Round:
    """A round the player lines leave out: one in progress (paired, results as far as they are in), or one being
    prepared (requested byes, forced games)."""
    record = Round(n, paired=data.get("paired", True), forced_bye=data.get("forced_bye"))
    record.boards = [Board(b[0], b[1], Result.parse(b[2]) if len(b) > 2 else Result.PENDING)
                     for b in data.get("boards", [])]  # fmt: skip
    record.byes = {p: ByeKind(k) for p, k in data.get("byes", [])}
    record.forced = [(w, b) for w, b in data.get("forced", [])]
    return record


def _with_teams(record: Round, extras: Mapping[str, Any], file: Path | None) -> Round:
    """``record`` with a team division's matches, lineups and byes from its ``XTM round`` line."""
    table = {key: extras[key] for key in _TEAM_ROUND_KEYS if key in extras}
    teams = tomlmap.from_table(Round, {"number": record.number, **table}, f"XTM round {record.number}", file)
    record.matches, record.lineups = teams.matches, teams.lineups
    record.team_byes, record.forced_matches = teams.team_byes, teams.forced_matches
    return record


def _requested_byes(tournament: trf.Tournament, division: Division, numbers: Mapping[int, int]) -> None:
    """``240`` records of rounds the file does not hold yet become requested byes (as the XTM lines already say
    for tmanager's own files)."""
    kinds = {code: kind for kind, code in _BYE_RECORDS.items()}
    for bye in tournament.values(trf_records.BYES):
        if bye.round <= tournament.played_rounds:
            continue
        record = division.round(bye.round, create=True)
        for player in bye.players:
            record.byes.setdefault(numbers.get(player, player), kinds[bye.kind])


def read(path: Path) -> Event:
    """Read a TRF file as an event."""
    return loads(trf.read_text(path), file=path)
