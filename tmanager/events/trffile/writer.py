"""A chess division written as TRF-2026 or TRF-16 (:mod:`tmanager.events.trffile` says what goes where)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tmanager import tomlmap
from tmanager.core import tiebreaknames
from tmanager.core.playerfields import RatingKind
from tmanager.core.results import Result, TrfResult, format_points
from tmanager.core.scoring import STANDARD, Game
from tmanager.errors import StateError
from tmanager.events.eventfile import prize_fund_table
from tmanager.events.games import round_games, scores, virtual_points
from tmanager.events.model import Acceleration, Division, Event, PairingSystem, Player, Round, missing
from tmanager.events.ranking import tiebreak_standings
from tmanager.events.rules import ChessRules, require, rules_for
from tmanager.events.teams import settings
from tmanager.events.teamtrf import trf16_team_records, trf_team_records
from tmanager.events.trffile.common import (
    BYE_RECORDS,
    SYSTEM_NAMES,
    TEAM_ROUND_KEYS,
    player_header,
    read_player_header,
    trf_date,
)  # fmt: skip
from tmanager.formats import trf, trf_records
from tmanager.formats.trf import Version

#: TRF-2026 ``192``: the division's system as FIDE's tournament-type codes write it.
_TYPE_CODES = {PairingSystem.DUTCH: "FIDE_DUTCH_2025", PairingSystem.MANUAL: "CUSTOM_SWISS",
               PairingSystem.DOUBLE_SWISS: "FIDE_DOUBLESWISS"}  # fmt: skip


def complete_rounds(division: Division) -> int:
    """The rounds the player lines hold: paired, every result in (a round in progress is left out)."""
    pending = {n for n, _ in missing(division)}
    return min(pending, default=division.paired_rounds + 1) - 1


def starting_ranks(division: Division) -> dict[int, int]:
    """Each player's TRF starting rank, by number: the numbers closed up to 1..N in their order. Pairing programs
    take starting ranks 1..N only (bbpPairings refuses a file with a gap), and numbers can have gaps (a player
    entered with ``--number``, an entry taken out of the event file); without gaps the rank is the number."""
    return {number: rank for rank, number in enumerate(sorted(p.number for p in division.players), 1)}


def dumps(event: Event, division: Division, *, version: Version = Version.TRF_2026) -> str:
    """The division as TRF text (LF line endings); a :class:`StateError` for a score-based division."""
    rules = require(
        rules_for(event, division),
        ChessRules,
        f"division {division.name!r} is score-based: TRF is for chess divisions",
        "write it as a tsh .t file with `event export-t`, or .TOU with `event export-tou`",
    )
    rounds = complete_rounds(division)
    starting = starting_ranks(division)
    ranks = division.ranks()
    by_rank = sorted(division.players, key=lambda p: ranks[p.number])
    in_order = [p.number for p in by_rank] == sorted(ranks)
    places = {s.player.number: s.rank for s in tiebreak_standings(event, division, rounds)} if rounds else {}
    teams = rules.team_size is not None
    lines = [*_header_lines(event, division, version, teams=teams),
             *_pairing_lines(event, division, version, in_order, starting)]  # fmt: skip
    lines.append("XTM event " + _json(_event_extras(event, division, teams=teams)))
    for p in division.players:
        lines.append(f"XTM player {starting[p.number]} " + _json(_player_extras(p, starting[p.number])))
    for r in division.rounds:
        lines.append(f"XTM round {r.number} " + _json(_round_extras(r, results=r.number > rounds)))
    paired = [_by_rank(round_games(division, r), starting) for r in division.rounds if r.paired and r.number <= rounds]
    points = scores(event, division, rounds)
    upcoming = _sitting_out(event, division, rounds + 1, teams=teams)
    # The points count a requested bye of the round in progress, as its entry is written (bbpPairings' checker
    # counts it; its pairing takes it off again).
    points = {n: v + sum(event.scoring.points(g) for g in upcoming.get(n, ())) for n, v in points.items()}
    players = tuple(
        trf.TrfPlayer(starting[p.number], player_header(p, starting[p.number]), points[p.number], places.get(p.number),
                      tuple(entries[p.number] for entries in paired) + upcoming.get(p.number, ()))
        for p in by_rank
    )  # fmt: skip
    trf_2026 = version is Version.TRF_2026
    records = _records(event, division, rounds, starting) if trf_2026 else _trf16_records(event, division, starting)
    if teams:
        records.update(
            trf_team_records(event, division, starting) if trf_2026 else trf16_team_records(division, starting)
        )
    return trf.dumps(trf.Tournament(players=players, lines=tuple(lines), records=records, by_rank=not in_order))


def _by_rank(games: Mapping[int, Game], starting: Mapping[int, int]) -> dict[int, Game]:
    """A round's entries, by number, with their opponents named by starting rank."""
    return {
        number: game if game.opponent is None else dataclasses.replace(game, opponent=starting[game.opponent])
        for number, game in games.items()
    }  # fmt: skip


def _sitting_out(event: Event, division: Division, number: int, *, teams: bool) -> dict[int, tuple[Game, ...]]:
    """The players of the round after the complete ones who are not paired in it — requested byes and absences —
    as the entry after their complete rounds (``0000 - H``, ``0000 - Z``, ``0000 - -``…). Pairing programs read
    such an entry as "not to be paired in the next round", so that they pair a round in progress again with the
    same players, and the next round of a Swiss without the players tmanager leaves out (before, bbpPairings
    paired a withdrawn player and one with a requested bye there); the pairing-allocated bye is left for them to
    allocate. Not for a round the event does not plan, which a finished event's file must not show."""
    record = division.find_round(number)
    if record is None or not record.paired:
        if teams or division.round_robin or not 0 < number <= event.total_rounds(division):
            return {}
        record = record or Round(number)
    return {
        player: (game,) for player, game in round_games(division, record).items()
        if game.opponent is None and game.result is not TrfResult.PAIRING_BYE
    }  # fmt: skip


def _header_lines(event: Event, division: Division, version: Version, *, teams: bool) -> list[str]:
    lines = [f"012 {event.name}"]
    lines += [f"{code} {value}" for code, value in (("022", event.site), ("032", event.federation),
              ("042", trf_date(event.start)), ("052", trf_date(event.end))) if value]  # fmt: skip
    lines += [
        f"062 {len(division.players)}",
        f"072 {sum(1 for p in division.players if p.rating)}",
        f"092 {SYSTEM_NAMES[division.system]}",
    ]
    if event.arbiter:
        lines.append(f"102 {event.arbiter}")
    lines += [f"112 {deputy}" for deputy in event.deputies]
    if version is Version.TRF_16 and event.time_control:  # TRF-16's only time control, free text (2026: 222, encoded)
        lines.append(f"122 {event.time_control}")
    if event.schedule:
        dates = "".join(f"{when[2:10].replace('-', '/'):<10}" for when in event.schedule)
        lines.append(f"{'132':<91}{dates}".rstrip())
    if version is Version.TRF_16:
        return lines
    total = event.total_rounds(division)
    if total:
        lines.append(f"142 {total}")
    if division.initial_colour:
        lines.append(f"152 {division.initial_colour.colour.value.upper()}")
    try:
        scoring = trf.scoring_line(event.scoring)
    except ValueError as exc:
        raise StateError(f"{exc}: it cannot be written as TRF-2026", field="event.scoring",
                         hint="export with --version 16") from None
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
        return [settings(division).primary.code, *settings(division).team_tiebreaks]
    return [t.trf_name for t in tiebreaknames.parse_all(event.tiebreaks)]


def _type_code(division: Division, *, teams: bool) -> str:
    if teams:
        return _team_type_code(division)
    if division.round_robin:
        return "FIDE_DOUBLEROUNDROBIN" if division.cycles == 2 else "FIDE_ROUNDROBIN"
    code = _TYPE_CODES[division.system]
    return code + "_BAKU" if division.acceleration is Acceleration.BAKU else code


def _team_type_code(division: Division) -> str:
    """A team division's ``192``: the Berger tables of teams, C.04.6 with Type A colour preferences and its
    primary score first, or a team Swiss of its own (paired by hand)."""
    if division.round_robin:
        return "FIDE_TEAM_DOUBLEROUNDROBIN" if division.cycles == 2 else "FIDE_TEAM_ROUNDROBIN"
    if division.system == PairingSystem.TEAM_SWISS:
        primary = settings(division).primary
        return f"FIDE_TEAM_TYPEA_{primary.code}_{primary.other.code}"
    return "CUSTOM_TEAM_SWISS"


def _pairing_lines(
    event: Event, division: Division, version: Version, in_order: bool, starting: Mapping[int, int]
) -> list[str]:
    """The pairing programs' lines: ``XXC rank`` when the file lists players in pairing order; in TRF-16 the
    rounds, the initial colour, the points and the forbidden pairs as XX and BB lines."""
    words = [] if in_order else ["rank"]
    if version is Version.TRF_16 and division.initial_colour:
        words.append(f"{division.initial_colour.value}1")
    lines = [f"XXC {' '.join(words)}"] if words else []
    if version is Version.TRF_2026:
        return lines
    total = event.total_rounds(division)
    if total:
        lines.insert(0, f"XXR {total}")
    if event.scoring != STANDARD:
        # bbpPairings reads the points in columns 5-8 (``BBW  3.0``) and refuses a shorter line.
        lines += [f"{code} {format_points(getattr(event.scoring, name), decimal=True):>4}"
                  for code, name in trf.POINTS_CODES.items()]  # fmt: skip
    lines += ["XXP " + " ".join(str(n) for n in _ranked(group, starting)) for group in division.forbidden_groups()]
    return lines


def _records(
    event: Event, division: Division, rounds: int, starting: Mapping[int, int]
) -> dict[str, tuple[Any, ...]]:
    """TRF-2026 records: byes of the rounds after the player lines, Baku's virtual points, forbidden pairs."""
    total = event.total_rounds(division) or max(division.paired_rounds, 1)
    byes = []
    for r in division.rounds:
        if r.number <= rounds:
            continue
        for kind, code in BYE_RECORDS.items():
            players = tuple(_ranked((p for p, k in r.byes.items() if k == kind), starting))
            if players:
                byes.append(trf_records.Bye(code, r.number, players))
    accelerations = []
    for n in range(1, total + 1):
        virtual = virtual_points(event, division, n)
        for points in sorted(set(virtual.values())):
            for first, last in _ranges(_ranked((p for p, v in virtual.items() if v == points), starting)):
                accelerations.append(trf_records.Acceleration(points, n, n, first, last))
    prohibited = [trf_records.Prohibited(1, total, tuple(_ranked(g, starting))) for g in division.forbidden_groups()]
    return {trf_records.BYES.code: tuple(byes), trf_records.ACCELERATION.code: tuple(_merged(accelerations)),
            trf_records.PROHIBITED.code: tuple(prohibited)}  # fmt: skip


def _trf16_records(event: Event, division: Division, starting: Mapping[int, int]) -> dict[str, tuple[Any, ...]]:
    """TRF-16's records: each accelerated player's virtual points, round by round (``XXA``; 250 in TRF-2026)."""
    total = event.total_rounds(division) or max(division.paired_rounds, 1)
    virtual = [virtual_points(event, division, n) for n in range(1, total + 1)]
    lines = []
    for p in division.players:
        points = tuple(v.get(p.number, 0) for v in virtual)
        if any(points):
            lines.append(trf_records.PlayerAcceleration(starting[p.number], points))
    return {trf_records.PLAYER_ACCELERATION.code: tuple(lines)}


def _ranked(numbers: Iterable[int], starting: Mapping[int, int]) -> list[int]:
    """Players named by number, as their sorted starting ranks."""
    return sorted(starting[n] for n in numbers)


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
        "start_numbers": (division.start_numbers, False), "acceleration": (division.acceleration, Acceleration.NONE),
        "baku_last": (division.baku_last, None),
        "max_byes": (event.max_byes, None), "stylesheet": (event.stylesheet, ""),
        "rating_list": (event.rating_list, RatingKind.STANDARD), "categories": (event.categories, []),
        "prizes": (event.prizes, 3), "schedule": (event.schedule, []), "time_control": (event.time_control, ""),
        "hooks": (event.hooks, {}), "prize_fund": (division.prize_fund and prize_fund_table(division.prize_fund), None),
    }  # fmt: skip
    extras.update({key: value for key, (value, default) in optional.items() if value != default})
    if teams:
        extras["team_settings"] = tomlmap.to_table(settings(division), keep_defaults=False)
        extras["team"] = [tomlmap.to_table(t, keep_defaults=False) for t in division.teams]
    return extras




def _player_extras(p: Player, rank: int) -> dict[str, Any]:
    """Everything of the player that the ``001`` line does not give back as it is: the number, too, when it is not
    the starting ``rank``."""
    read = read_player_header(trf.TrfPlayer(rank, player_header(p, rank), 0, None, ()))
    extras: dict[str, Any] = {} if p.number == rank else {"number": p.number}
    for key in ("name", "title", "rating", "federation", "fide_id", "sex", "birth"):
        if read[key] != getattr(p, key):
            extras[key] = getattr(p, key)
    for key, default in (("k", 0), ("club", ""), ("team", ""), ("flags", []), ("status", "active"), ("absent", []),
                         ("missed", 0)):
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
    if r.unrated:  # the player lines' W D L say it too, but not of a round in progress or a forfeit corrected
        extras["unrated"] = [list(g) for g in r.unrated]
    if r.forced_bye is not None:
        extras["forced_bye"] = r.forced_bye
    table = tomlmap.to_table(r, keep_defaults=False)
    extras.update({key: table[key] for key in TEAM_ROUND_KEYS if key in table})
    return extras
